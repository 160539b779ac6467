/* SPDX-License-Identifier: GPL-2.0 */
/* `cgward events`: the agent's events, read from its socket, filtered. */
#ifndef CGWARD_EVENTS_CMD_H
#define CGWARD_EVENTS_CMD_H

/* argv[0] is "events". */
int cmd_events(int argc, char **argv);

#endif
