/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The caller's side of the exec socket (exec_message.h): what cgward exec
 * does instead of binding a cgroup itself when it lacks the privilege to.
 */
#ifndef CGWARD_EXEC_AGENT_H
#define CGWARD_EXEC_AGENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "roots.h"

/* The environment variable that names another exec socket than EXEC_SOCKET_PATH. */
#define EXEC_SOCKET_ENV "CGWARD_EXEC_SOCKET"

/* What the caller asks for its child: every root and node opened with its own rights. */
struct exec_agent_ask {
	pid_t pid; /* the caller's child, at its gate */
	const char *argv0;
	__u32 policy_flags;
	__u64 memory_mib;
	const struct root_spec *roots; /* --root and --ro, each with its O_PATH fd */
	size_t n_roots;
	const struct root_spec *nodes; /* --allow-unix, --allow-dev: opened again by path */
	size_t n_nodes;
};

/* What the agent gives back: the run's cgroup and its own ring buffer. */
struct exec_agent_grant {
	char cgroup[PATH_MAX]; /* relative to the cgroup2 root */
	int ring_fd;
	size_t ring_size;
};

/* Connects to the agent's exec socket; -errno with what to do printed. */
int exec_agent_connect(int *fd);

/* Asks the agent to confine ask->pid; the agent's refusal printed (-EPERM). */
int exec_agent_confine(int fd, const struct exec_agent_ask *ask, struct exec_agent_grant *grant);

/*
 * Tells the agent the run is over: it kills what is left of it and removes
 * its cgroup, then says how many events were lost and whether the OOM killer
 * struck. -errno when the agent did not answer (it was restarted, say).
 */
int exec_agent_end(int fd, __u64 *events_lost, bool *oom_killed);

#endif
