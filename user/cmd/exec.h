/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CGWARD_EXEC_H
#define CGWARD_EXEC_H

/* cgward exec [OPTIONS] -- CMD [ARGS...]; argv[0] is "exec". Returns the exit status. */
int cmd_exec(int argc, char **argv);

#endif
