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
#include "limit_events.h"
#include "run_limits.h"

/* The environment variable that names another exec socket than EXEC_SOCKET_PATH. */
#define EXEC_SOCKET_ENV "CGWARD_EXEC_SOCKET"

/*
 * A caller other than this process: the client of cgward exec --serve
 * (exec_serve.h), whose run this process asks for on the client's own
 * connection to the agent, with the client's pidfd as the caller (the agent
 * checks that they are one process) and the client's environment for the
 * command. reply_fd gets the run's events; its hang-up ends the run.
 */
struct exec_client {
	int agent_fd; /* exec_run's from then on: it closes it */
	int pidfd;
	char *const *envp;
	int reply_fd;
	bool caller_starts; /* set: the agent would not start the command for this caller */
};

/*
 * What the caller asks for its child (pid), or, with spawn (--spawn,
 * --private-tmp), for a command the agent starts with the caller's cwd,
 * stdio, environment and umask: every root and node opened with the
 * caller's own rights.
 */
struct exec_agent_ask {
	pid_t pid; /* the caller's child, at its gate; 0 with spawn */
	bool spawn;
	bool private_tmp;		  /* with spawn */
	char *const *argv;		  /* with spawn */
	const struct exec_client *client; /* with spawn: NULL, this process is the caller */
	const char *argv0;
	__u32 policy_flags;
	__u64 dropped_caps;
	struct run_limits limits;
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
	int exit_fd; /* spawn: where the agent's supervisor tells how the command ended; else -1 */
};

/* How a command the agent spawned ended, or why it never ran. */
struct exec_agent_exit {
	int status;		    /* the command's exit status, 128+N when killed by signal N */
	int exec_error;		    /* execvp's errno: it never ran */
	char error[PATH_MAX + 128]; /* why it could not start; "" when it did */
};

/* The agent's exec socket: EXEC_SOCKET_PATH, or the one EXEC_SOCKET_ENV names. */
const char *exec_agent_socket_path(void);

/* Connects to the agent's exec socket; -errno with what to do printed. */
int exec_agent_connect(int *fd);

/*
 * Asks the agent to confine ask->pid, or to spawn; the agent's refusal
 * printed (-EPERM), but for a spawn without private tmp that the agent
 * cannot make the caller's (-EOPNOTSUPP, nothing printed): the caller's
 * child is confined instead, through a new connection.
 */
int exec_agent_confine(int fd, const struct exec_agent_ask *ask, struct exec_agent_grant *grant);

/*
 * Reads what the supervisor says on grant->exit_fd once the command is over;
 * -ECONNRESET when it ended without a word.
 */
int exec_agent_read_exit(int exit_fd, struct exec_agent_exit *outcome);

/* The agent's answer at a run's end. */
struct exec_agent_end {
	__u64 events_lost;
	bool oom_killed;
	struct limit_final limits; /* its limit counters, read before its cgroup went */
};

/*
 * Tells the agent the run is over: it kills what is left of it and removes
 * its cgroup, then says how many events were lost, whether the OOM killer
 * struck, and the run's limit counters. When the agent was restarted
 * meanwhile, asks the new one, which adopted the run, by the run's cgroup
 * (the grant's). -errno when no agent answered.
 */
int exec_agent_end(int fd, const char *cgroup, struct exec_agent_end *end);

#endif
