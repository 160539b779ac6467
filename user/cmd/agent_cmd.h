/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CGWARD_AGENT_CMD_H
#define CGWARD_AGENT_CMD_H

/* cgward agent --policy FILE [...], or --unload; argv[0] is "agent". */
int cmd_agent(int argc, char **argv);

#endif
