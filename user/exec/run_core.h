/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifecycle of a `cgward exec` run's enforcement, whoever sets it up:
 * root's cgward exec (exec_run.c) or the agent's exec socket for ordinary
 * users. Set-up, in order: a policy id and a ring buffer (run_core_claim),
 * the roots (run_core_put_roots), the cgroup (run_core_create_cgroup), its
 * binding (run_core_bind); the ring is ready before the command runs
 * (run_core_ring_ready). Teardown: run_core_end (the cgroup removed and
 * unbound), the ring's last records read, run_core_release (the policy
 * removed, the ring parked for the same user's next run), run_core_close.
 */
#ifndef CGWARD_RUN_CORE_H
#define CGWARD_RUN_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "cgroup.h"
#include "policy_maps.h"
#include "private_tmp.h"
#include "roots.h"

/* How long a run's cgroup may take to empty once killed before cgward gives up on it. */
#define RUN_CORE_REMOVE_TIMEOUT_MS 5000

/* The lists of roots a run installs itself: its roots, then its sockets and devices. */
#define RUN_CORE_ROOT_LISTS 3

struct run_core {
	const struct policy_maps *maps;
	uid_t uid;	 /* whose parked rings it takes, and parks its own for */
	__u32 policy_id; /* claimed in the plane's maps; 0 before */
	int ring_fd;	 /* the run's own events; -1 before */
	/*
	 * Inserting into a map of maps waits for an RCU grace period (the
	 * kernel's maybe_wait_bpf_programs), some 20 ms: a new ring buffer
	 * goes in from a thread while the cgroup is made.
	 */
	struct {
		pthread_t thread;
		bool started;
		int ret;
	} ring_insert;
	struct {
		const struct root_spec *roots;
		size_t n;
	} installed[RUN_CORE_ROOT_LISTS];
	size_t n_installed;
	/*
	 * Roots another process installed (a spawned run's supervisor, an
	 * earlier agent): every root of policy_id goes at the end.
	 */
	bool roots_elsewhere;
	/* Roots the core makes itself: --private-tmp's tmpfs ones, the run's readable cgroup. */
	struct root_spec own_roots[PRIVATE_TMP_DIRS + 1];
	size_t n_own_roots;
	struct exec_cgroup cgroup;
	bool cgroup_created;
	bool policy_kept; /* its cgroup could not be removed: cgward gc removes the policy later */
};

/* A core with nothing claimed: what run_core_close expects of one never claimed. */
void run_core_init(struct run_core *core, const struct policy_maps *maps, uid_t uid);

/*
 * A policy id of this process's, with a ring buffer uid's ended run parked
 * (its old records skipped) or a new one, inserted from a thread. Under
 * plane_dir's claims lock. Returns 0 or negative errno.
 */
int run_core_claim(struct run_core *core, const char *plane_dir);

/* Adds roots to the run's policy; they must stay valid until run_core_release. */
int run_core_put_roots(struct run_core *core, const struct root_spec *roots, size_t n_roots);

/*
 * --private-tmp: the directories the command's child reported become write
 * roots of the run, before it is let into the cgroup. "--private-tmp: cannot
 * install its roots: ..." in err.
 */
int run_core_put_private_tmp(struct run_core *core, const struct private_tmp_report *report,
			     char *err, size_t errlen);

/*
 * The directories a spawned run's supervisor put in with
 * run_core_put_private_tmp (in its copy of the core), known to this one:
 * released as its own, the run's other roots being known already.
 */
void run_core_note_private_tmp(struct run_core *core, const struct private_tmp_report *report);

/*
 * The run's cgroup (exec_cgroup_create), not bound yet: beneath parent when
 * given (root's --cgroup-parent), else within the cgroup of its caller,
 * member (a /proc/PID/cgroup path), as cgroup_run_parent places it for
 * core->uid and gid.
 */
int run_core_create_cgroup(struct run_core *core, const struct cgroup_layout *layout,
			   const char *parent, const char *member, gid_t gid,
			   const struct run_limits *limits, char *err, size_t errlen);

/*
 * Binds the cgroup to the run's policy; "cannot bind the cgroup: ..." in err.
 * Where flags confine reads, the cgroup's own directory is readable first:
 * the run's limits (memory.max, cpu.max), which runtimes size themselves by
 * (a JVM's heap, Node's constrainedMemory).
 */
int run_core_bind(struct run_core *core, __u32 flags, __u64 dropped_caps, char *err, size_t errlen);

/* 0 once the run's ring buffer is in exec_events: its events reach it. */
int run_core_ring_ready(struct run_core *core);

/* The lost counter of the run's ring buffer: its policy_info entry's. */
__u64 run_core_events_lost(const struct run_core *core);

/*
 * Kills what is left, removes the cgroup and unbinds it; *oom_killed says
 * whether the OOM killer killed a member. When the cgroup cannot be
 * removed, its processes stay confined: the binding and the policy stay
 * (cgward gc removes them later), and err says why.
 */
int run_core_end(struct run_core *core, bool *oom_killed, char *err, size_t errlen);

/*
 * After run_core_end, once the ring's last records are read: removes the
 * policy and parks the ring for uid's next run (or deletes it).
 */
void run_core_release(struct run_core *core);

/* Closes the ring's descriptor; the maps are left as they are. */
void run_core_close(struct run_core *core);

#endif
