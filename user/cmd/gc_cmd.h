/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CGWARD_GC_CMD_H
#define CGWARD_GC_CMD_H

/* cgward gc [--dry-run] [--cgroup-parent DIR]; argv[0] is "gc". */
int cmd_gc(int argc, char **argv);

#endif
