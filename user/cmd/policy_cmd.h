/* SPDX-License-Identifier: GPL-2.0 */
/* `cgward policy check`: validates policy files the way the agent would load them. */
#ifndef CGWARD_POLICY_CMD_H
#define CGWARD_POLICY_CMD_H

/* argv[0] is "policy". Returns the exit status: 0 valid, 1 unreadable, 2 invalid or usage. */
int cmd_policy(int argc, char **argv);

#endif
