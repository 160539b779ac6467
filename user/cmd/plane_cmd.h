/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CGWARD_PLANE_CMD_H
#define CGWARD_PLANE_CMD_H

#include <stdbool.h>

/* cgward load [--bpffs DIR]: loads and pins the plane, or finds it pinned. */
int cmd_load(int argc, char **argv);

/* cgward unload [--force] [--bpffs DIR]: removes the plane. */
int cmd_unload(int argc, char **argv);

/* What cgward unload and cgward agent --unload do once their options are read: an exit status. */
int plane_cmd_unload(const char *dir, bool force);

#endif
