/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where a policy becomes BPF map entries: its roots keyed by
 * (policy id, directory identity), and cgroups bound to a policy id.
 */
#ifndef CGWARD_POLICY_MAPS_H
#define CGWARD_POLICY_MAPS_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "roots.h"

struct policy_set;

struct policy_maps {
	int cgroup_policy_fd;
	int write_roots_fd;
	int policy_info_fd;
	int exec_events_fd;
	int root_tags_fd; /* -1: roots are not tagged, and the kernel looks every directory up */
	int container_started_fd; /* cgroup id -> when its workload's exec happened */
};

/* Names policy_id, its counts at zero: the kernel counts its verdicts from now on. */
int policy_maps_put_info(const struct policy_maps *maps, __u32 policy_id, const char *name);
void policy_maps_delete_info(const struct policy_maps *maps, __u32 policy_id);
/* policy_id's name and verdict counts; -ENOENT when it has none (it is not counted). */
int policy_maps_get_info(const struct policy_maps *maps, __u32 policy_id,
			 struct cgward_policy_info *info);

/*
 * Adds every root of policy_id, each tagged in root_tags through its fd
 * (none for a root whose fd is -1). A policy's read-only and hidden paths
 * come in the same call as its roots: the roots they may lie beneath are
 * then CGWARD_ROOT_EXCEPTIONS. On failure, removes the roots it added;
 * tags stay (they are hints, see bpf/cgward_abi.h).
 */
int policy_maps_put_roots(const struct policy_maps *maps, __u32 policy_id,
			  const struct root_spec *roots, size_t n_roots);
void policy_maps_delete_roots(const struct policy_maps *maps, __u32 policy_id,
			      const struct root_spec *roots, size_t n_roots);

/* Binds (or rebinds, atomically) a cgroup to a policy. */
int policy_maps_bind_cgroup(const struct policy_maps *maps, __u64 cgroup_id,
			    const struct cgward_cgroup_policy *policy);

/*
 * Binds a cgroup to an agent rule's policy. A `cgward exec` run's cgroup
 * keeps the run's own policy: a mandatory rule goes in beside it (its roots
 * must allow a write too, and it drops its capabilities there too), any
 * other gives way to it.
 */
int policy_maps_bind_rule(const struct policy_maps *maps, __u64 cgroup_id,
			  const struct cgward_cgroup_policy *policy);

/*
 * Binds a `cgward exec` run's new cgroup to the run's policy, its flags and
 * the capabilities it dropped. A mandatory agent rule that the cgroup
 * inherited when it was made stays in force beside it: the stricter of
 * their flags hold, and the capabilities both keep.
 */
int policy_maps_bind_exec_cgroup(const struct policy_maps *maps, __u64 cgroup_id, __u32 policy_id,
				 __u32 flags, __u64 dropped_caps);
void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id);
/* A cgroup's binding; -ENOENT when it has none. */
int policy_maps_get_binding(const struct policy_maps *maps, __u64 cgroup_id,
			    struct cgward_cgroup_policy *policy);

/*
 * Records that the workload of a container's cgroup (bound with
 * CGWARD_POLICY_FROM_EXEC) has started, as the kernel side does at its exec:
 * for a container found running. Its policy holds from now on.
 */
int policy_maps_mark_started(const struct policy_maps *maps, __u64 cgroup_id);

/*
 * The atomic policy swap of the agent (agent.c's install) is:
 * policy_maps_put_rules (the new rules' roots and names under fresh ids),
 * each cgroup rebound with one update (policy_maps_bind_rule, as the agent's
 * cgroup tree walks them), then policy_maps_retire (the old ids).
 */

/*
 * The roots and the name of each rule of set under first_id + its index,
 * and after them the name unresolved_name alone (no roots). On failure,
 * removes the rules it put in, and the old policy stays as it was.
 */
int policy_maps_put_rules(const struct policy_maps *maps, const struct policy_set *set,
			  __u32 first_id, const char *unresolved_name);

/* The highest agent policy id bound to a cgroup or owning a root; 0 when there is none. */
__u32 policy_maps_highest_id(const struct policy_maps *maps);

/*
 * Unbinds every cgroup whose agent policy id is outside [first, end), then
 * deletes the roots and the info of those ids: the cgroups go before their
 * roots, so no cgroup is ever bound to a policy without its roots. Exec
 * policies (CGWARD_EXEC_POLICY_MIN and up) are not the agent's: untouched.
 */
int policy_maps_retire(const struct policy_maps *maps, __u32 first, __u32 end);

/*
 * A `cgward exec` run's policy id, claimed by creating its policy_info entry
 * (name, owner_pid) with BPF_NOEXIST: no other run or agent can hold it.
 */
int policy_maps_claim_exec_id(const struct policy_maps *maps, const char *name, __u32 owner_pid,
			      __u32 *policy_id);

/*
 * A policy id for a new run of uid, claimed as policy_maps_claim_exec_id
 * does, with the ring buffer an ended run of uid parked under it: *ring_fd is
 * a new descriptor of that ring, already in exec_events (its reader skips
 * what the last run left). When none is parked, a new id and *ring_fd -1:
 * the caller creates the ring and puts it in (policy_maps_put_exec_ring).
 * Callers hold plane_lock_claims(): a claim deletes the parked entry and
 * creates its own under the same id, and a second claimer that had read
 * the parked entry would otherwise delete the first one's, both then
 * holding one id, each with the other's roots too.
 */
int policy_maps_claim_exec(const struct policy_maps *maps, const char *name, __u32 owner_pid,
			   uid_t uid, __u32 *policy_id, int *ring_fd);

/* The run's own ring buffer: the kernel sends it the events of the cgroups bound to policy_id. */
int policy_maps_put_exec_ring(const struct policy_maps *maps, __u32 policy_id, int ring_fd);

/*
 * policy_maps_delete_exec, but the ring buffer ring_fd, which must be in
 * exec_events under policy_id, stays there, parked for the next run of uid
 * (32 rings at most are). Only once the run's reader has read its last
 * record: the next run skips what is left.
 */
void policy_maps_park_exec(const struct policy_maps *maps, __u32 policy_id,
			   const struct root_spec *roots, size_t n_roots, uid_t uid, int ring_fd);

/*
 * Removes an exec policy whose cgroups are gone: its roots (those given, or
 * when roots is NULL every root of policy_id, found by a walk of the map),
 * its ring buffer and, last, its policy_info entry, which frees the id.
 */
void policy_maps_delete_exec(const struct policy_maps *maps, __u32 policy_id,
			     const struct root_spec *roots, size_t n_roots);

/*
 * Deletes the exec policies that no cgroup is bound to and whose owner is
 * not alive (owner_alive), as a cgward exec killed with SIGKILL leaves
 * them; calls removed for each. Returns how many, or negative errno.
 */
int policy_maps_collect_execs(const struct policy_maps *maps, bool (*owner_alive)(__u32 pid),
			      void (*removed)(__u32 policy_id, void *arg), void *arg);

/* Calls visit once per cgroup binding, and once per root (cgroup_id 0 then). */
int policy_maps_visit(const struct policy_maps *maps,
		      void (*visit)(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg),
		      void *arg);

#endif
