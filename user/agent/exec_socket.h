/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's exec socket: confines a new process of any local user, for
 * cgward exec run without privilege (protocol: user/exec/exec_message.h).
 * A confinement only takes rights away, so any user may ask for one, for
 * its own child still at its gate, with roots it opened itself. Each run's
 * cgroup is made within the caller's (cgroup_placement.h) and is torn down
 * when it is empty, whatever the caller does.
 */
#ifndef CGWARD_EXEC_SOCKET_H
#define CGWARD_EXEC_SOCKET_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "cgroup.h"
#include "limit_events.h"
#include "policy.h"
#include "policy_maps.h"
#include "spawner.h"

/*
 * Connections whose request is not read yet. When all are taken, a new one
 * takes the place of the oldest of the user who holds the most: a user who
 * connects and sends nothing can hold off only itself.
 */
#define EXEC_SERVICE_PENDING 256

struct agent_tree;
struct exec_service_run;
struct exec_service_user;

/* A run that ended with no caller connected: its answer, for a caller who asks again. */
struct exec_service_ended {
	char *cgroup; /* relative to the cgroup2 root; NULL: a free slot */
	uid_t uid;
	__u64 events_lost;
	bool oom_killed;
};

/* Runs whose answer is kept: a caller asks within seconds of its agent's restart. */
#define EXEC_SERVICE_ENDED 64

/* Ended runs whose caller may still read their ring's last records: parked once it hangs up. */
#define EXEC_SERVICE_DRAINING 64

struct exec_service_pending {
	int fd; /* -1: a free slot */
	uid_t uid;
	__u64 accepted; /* the order of acceptance: the lowest is the oldest */
};

struct exec_service {
	struct exec_socket_config config;
	int listen_fd;
	int epoll_fd;	/* the listener, each connection and inotify_fd: polled by the agent */
	int inotify_fd; /* cgroup.events of each run: tear-down once it is empty */
	const char *plane_dir; /* where the plane is pinned: its claims lock */
	const struct policy_maps *maps;
	const struct cgroup_layout *layout;
	struct agent_tree *tree; /* the agent's rules: bound on a run's cgroups before it runs */
	FILE *sink;		 /* the agent's event stream: one line per request */
	struct exec_service_pending pending[EXEC_SERVICE_PENDING];
	__u64 accepted;
	struct exec_service_run **runs;
	size_t n_runs, cap_runs;
	struct exec_service_ended ended[EXEC_SERVICE_ENDED];
	size_t next_ended; /* the slot the next one takes: the oldest */
	struct exec_service_run *draining[EXEC_SERVICE_DRAINING]; /* the oldest first */
	size_t n_draining;
	struct limit_counts limit_hits; /* its runs' limits hit, for the metrics */
	struct exec_service_user *users;
	size_t n_users, cap_users;
	struct spawner spawner; /* forks the supervisors of spawned runs; started at the first */
};

/*
 * Listens on config->path (nothing when it is empty: off) with its mode and
 * group; plane_dir is where the plane the maps belong to is pinned. Returns 0 or negative
 * errno, the reason in err.
 */
int exec_service_open(struct exec_service *svc, const struct exec_socket_config *config,
		      const char *plane_dir, const struct policy_maps *maps,
		      const struct cgroup_layout *layout, struct agent_tree *tree, FILE *sink,
		      char *err, size_t errlen);

/* The descriptor to poll: readable when a request, an end or a run's exit waits. -1 when off. */
int exec_service_fd(const struct exec_service *svc);

/* The cgroup (relative to the cgroup2 root) of the run bound to cgroup_id; NULL if none is. */
const char *exec_service_run_cgroup(const struct exec_service *svc, __u64 cgroup_id);

/* Serves whatever is waiting, without blocking on any caller. */
void exec_service_serve(struct exec_service *svc);

/*
 * Takes over the runs an earlier agent (restarted) or a killed root cgward
 * exec left, wherever they are: each ends, as the
 * runs of this agent do, once its cgroup is empty.
 */
void exec_service_adopt(struct exec_service *svc);

/* Stops listening; the runs stay confined, adopted by the next agent. */
void exec_service_close(struct exec_service *svc);

#endif
