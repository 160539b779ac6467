/* SPDX-License-Identifier: GPL-2.0 */
/* `cgward status`: what the pinned agent state holds; the readiness probe. */
#ifndef CGWARD_STATUS_CMD_H
#define CGWARD_STATUS_CMD_H

/* argv[0] is "status". Returns 0 when every program is attached (pinned), 1 otherwise. */
int cmd_status(int argc, char **argv);

#endif
