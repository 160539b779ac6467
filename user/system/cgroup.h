/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup each `cgward exec` runs its command in: a cgroup2 cgroup that
 * carries the write policy (keyed by its id), and an optional memory limit.
 */
#ifndef CGWARD_CGROUP_H
#define CGWARD_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "run_limits.h"

struct cgroup_layout {
	char unified[PATH_MAX];	  /* cgroup2 mount point */
	char memory_v1[PATH_MAX]; /* v1 memory controller mount point, "" when memory is on cgroup2
				   */
	/*
	 * The v1 memory mount's root inside its hierarchy (mountinfo field 4):
	 * "/" unless a subtree is bind-mounted, as in containers without a
	 * cgroup namespace, where /proc/self/cgroup paths start with it.
	 */
	char memory_v1_root[PATH_MAX];
	char self_cgroup[PATH_MAX]; /* "/proc/self/cgroup"; tests point it at a fake */
};

/* Reads a mountinfo file (normally "/proc/self/mountinfo"); -ENOENT if no cgroup2 mount. */
int cgroup_layout_detect(const char *mountinfo_path, struct cgroup_layout *layout);

/* path relative to the cgroup2 mount point (as /proc/PID/cgroup says it); path if outside it. */
const char *cgroup_relative_path(const struct cgroup_layout *layout, const char *path);

struct exec_cgroup {
	char path[PATH_MAX];	    /* cgroup2 directory, e.g. /sys/fs/cgroup/cgward-1234-9f3a... */
	__u64 id;		    /* cgroup id as bpf_get_current_cgroup_id() reports it */
	char memory_path[PATH_MAX]; /* v1 memory cgroup directory, "" when none */
	struct run_limits limits;   /* its own; 0 in a field: none */
};

/*
 * Creates <parent>/cgward-<pid>-<16 hex digits> (parent NULL: layout->unified)
 * and its limits. A memory limit is memory.max (and memory.swap.max 0) with
 * +memory delegated by the parent when memory is on cgroup2; else a v1
 * memory cgroup of the same name beneath the caller's own (from
 * layout->self_cgroup). A pids and a cpu limit are pids.max and cpu.max, on
 * cgroup2 only. Concurrent calls never share a name. On failure nothing is
 * left behind, but the controllers stay delegated in the parent. caller is
 * the uid the run is for: an ordinary user's limits move only that user's
 * processes out of the parent (cgroup_delegate).
 */
int exec_cgroup_create(const struct cgroup_layout *layout, const char *parent,
		       const struct run_limits *limits, uid_t caller, struct exec_cgroup *cg,
		       char *err, size_t errlen);

/*
 * Lowers the cgroup's limits to those of limits that are lower (or that it
 * has none of), on cgroup2, before any process is in it: a host's cap over
 * what a run asked. Returns 0, or negative errno with the reason in err.
 */
int exec_cgroup_lower(struct exec_cgroup *cg, const struct run_limits *limits, char *err,
		      size_t errlen);

/* Moves pid into the cgroup2 cgroup and the v1 memory cgroup (if any). */
int exec_cgroup_attach(const struct exec_cgroup *cg, pid_t pid, char *err, size_t errlen);

/* Moves pid into the v1 memory cgroup (if any): for one started in the cgroup2 cgroup. */
int exec_cgroup_attach_memory(const struct exec_cgroup *cg, pid_t pid, char *err, size_t errlen);

/* True when the kernel's OOM killer killed a member. */
bool exec_cgroup_oom_killed(const struct exec_cgroup *cg);

/*
 * Kills every member at once, forks included, without waiting for them to
 * exit (cgroup.kill); -ENOENT on kernels before 5.14, which lack it.
 */
int exec_cgroup_kill(const struct exec_cgroup *cg);

/*
 * Removes the cgroup DIR and the empty cgroups made beneath it, deepest first:
 * 0, or -errno of DIR's rmdir (-EBUSY while a member is left anywhere in it).
 */
int cgroup_remove_tree(const char *dir);

/*
 * Kills every member, waits (sleeping with backoff) until the kernel lets the
 * cgroups be removed, at most timeout_ms, and removes both; cg->path and
 * cg->memory_path are cleared as they go, so a second call is a no-op.
 * Returns 0, or negative errno with "could not remove cgroup PATH: REASON" in err.
 */
int exec_cgroup_destroy(struct exec_cgroup *cg, int timeout_ms, char *err, size_t errlen);

/* The cgroup id of a cgroup2 directory, as bpf_get_current_cgroup_id() reports it. */
int cgroup_read_id(const char *path, __u64 *id);
/* The id of the calling process's cgroup2 cgroup. */
int cgroup_read_self_id(const struct cgroup_layout *layout, __u64 *id);

/*
 * Moves the calling thread, and the threads it starts after, into the cgroup
 * namespace of PID 1 (the host's, in a DaemonSet with hostPID): a container's
 * own namespace (containerd's default on cgroup v2) names the cgroups of
 * processes outside it from its root with "/..", which the host's cgroup
 * tree, mounted whole, does not. Returns 0 (also when it is already there),
 * or negative errno.
 */
int cgroup_enter_host_namespace(void);

/*
 * The cgroup2 path of a process from a /proc/PID/cgroup file ("0::PATH"),
 * relative to the cgroup2 mount point: 0, -ENOENT or -errno.
 */
int cgroup_member_of(const char *proc_cgroup, char *member, size_t size);

/* The pieces exec_cgroup_* are made of, shared with gc.c and the unit tests. */

/* How the names exec_cgroup_create gives begin: one definition with the BPF side's. */
#define EXEC_CGROUP_NAME_PREFIX CGWARD_EXEC_CGROUP_PREFIX

/* True when name has the shape exec_cgroup_create gives; *creator gets the pid in it. */
bool exec_cgroup_name_parse(const char *name, pid_t *creator);

/* The caller's own v1 memory cgroup directory, from layout->self_cgroup. */
int cgroup_memory_v1_self(const struct cgroup_layout *layout, char *dir, size_t dirlen, char *err,
			  size_t errlen);

/*
 * The leaf a cgroup's own processes are moved into when a run beneath it
 * needs a controller of its own (cgroup v2's no-internal-process rule). A
 * caller found in it is placed as if in its parent.
 */
#define CGROUP_CALLER_LEAF "cgward.caller"

/*
 * Enables controller for dir's children (cgroup.subtree_control). A cgroup
 * other than the root cannot while it has processes of its own: they are
 * moved into dir/CGROUP_CALLER_LEAF first, within the same limits. For an
 * ordinary user (uid not 0), only if they are all that user's: -EPERM when
 * another's is there (moving a unit's processes breaks its service manager's
 * later work in it, and only whoever runs the unit may choose that).
 * Returns 0, or negative errno with the reason in err.
 */
int cgroup_delegate(const char *dir, const char *controller, uid_t uid, char *err, size_t errlen);

/* Writes memory.max (and memory.swap.max 0 where it exists) of a cgroup2 directory. */
int cgroup_memory_limit_write_v2(const char *dir, __u64 mib, char *err, size_t errlen);

/* Writes memory.limit_in_bytes (and memory.memsw.limit_in_bytes where it exists) of a v1 directory.
 */
int cgroup_memory_limit_write_v1(const char *dir, __u64 mib, char *err, size_t errlen);

#endif
