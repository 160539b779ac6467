/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exec socket's runs and users, private to the agent's two files that
 * hold them: exec_socket.c (serving, and each run's lifecycle) and
 * exec_adopt.c (the runs an earlier agent left).
 */
#ifndef CGWARD_EXEC_SERVICE_RUN_H
#define CGWARD_EXEC_SERVICE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "exec_roots.h"
#include "limit_events.h"
#include "run_core.h"

struct exec_service;

/* One confined run: everything the agent must undo once its cgroup is empty. */
struct exec_service_run {
	int conn_fd; /* the caller's connection; -1 once it is gone */
	uid_t uid;
	struct run_core core;	   /* its policy, ring and cgroup */
	int events_wd;		   /* inotify watch of cgroup.events; -1 before */
	struct exec_roots given;   /* the roots and nodes from the caller's descriptors */
	bool spawned;		   /* the agent's own command (exec_spawn.h) */
	bool private_tmp;	   /* spawned with private directories, its supervisor's roots */
	int setup_fd;		   /* spawned: open until its command is in the cgroup; -1 */
	struct limit_watch limits; /* its own limits hit: on the service's inotify descriptor */
	struct limit_final final;  /* read at its end, for its caller's answer */
};

/* A user's runs and request tokens (refilled at requests_per_second, up to request_burst). */
struct exec_service_user {
	uid_t uid;
	unsigned int runs;
	double tokens;
	__u64 refilled_ms;
};

/* The user's entry, added with a full bucket when it has none; NULL when out of memory. */
struct exec_service_user *exec_service_find_user(struct exec_service *svc, uid_t uid);

/* The run among svc's, or -ENOMEM. */
int exec_service_add_run(struct exec_service *svc, struct exec_service_run *run);

/* What the run holds in this process; its cgroup and maps are left as they are. */
void exec_service_free_run(struct exec_service_run *run);

/* Whether the run's cgroup has a process (or its cgroup.events cannot be read). */
bool exec_service_run_populated(const struct exec_service_run *run);

/* svc->runs[i] ends: its cgroup removed, its caller answered or its answer kept. */
void exec_service_end_run(struct exec_service *svc, size_t i);

/*
 * Its cgroup watched on the service's inotify descriptor: cgroup.events
 * (its end), and its limits, their hits in the agent's stream and metrics.
 */
void exec_service_watch_run(struct exec_service *svc, struct exec_service_run *run);

#endif
