/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where a policy becomes BPF map entries: its roots keyed by
 * (policy id, directory identity), and cgroups bound to a policy id.
 */
#ifndef CGWARD_POLICY_MAPS_H
#define CGWARD_POLICY_MAPS_H

#include <stddef.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "roots.h"

struct policy_maps {
	int cgroup_policy_fd;
	int write_roots_fd;
	int policy_info_fd;
};

/* Names policy_id, its counts at zero: the kernel counts its verdicts from now on. */
int policy_maps_put_info(const struct policy_maps *maps, __u32 policy_id, const char *name);
void policy_maps_delete_info(const struct policy_maps *maps, __u32 policy_id);
/* policy_id's name and verdict counts; -ENOENT when it has none (it is not counted). */
int policy_maps_get_info(const struct policy_maps *maps, __u32 policy_id,
			 struct cgward_policy_info *info);

/* Adds every root of policy_id; on failure, removes those it added. */
int policy_maps_put_roots(const struct policy_maps *maps, __u32 policy_id,
			  const struct root_spec *roots, size_t n_roots);
void policy_maps_delete_roots(const struct policy_maps *maps, __u32 policy_id,
			      const struct root_spec *roots, size_t n_roots);

/* Binds (or rebinds, atomically) a cgroup to a policy. */
int policy_maps_bind_cgroup(const struct policy_maps *maps, __u64 cgroup_id,
			    const struct cgward_cgroup_policy *policy);
void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id);

/*
 * The atomic policy swap of the agent is: new roots under fresh ids
 * (policy_maps_put_roots), each cgroup rebound with one update
 * (policy_maps_bind_cgroup), then policy_maps_retire.
 */

/* The highest policy id bound to a cgroup or owning a root; 0 when the maps are empty. */
__u32 policy_maps_highest_id(const struct policy_maps *maps);

/*
 * Unbinds every cgroup whose policy id is outside [first, end), then deletes
 * the roots and the info of those ids: the cgroups go before their roots, so
 * no cgroup is ever bound to a policy without its roots.
 */
int policy_maps_retire(const struct policy_maps *maps, __u32 first, __u32 end);

/* Calls visit once per cgroup binding, and once per root (cgroup_id 0 then). */
int policy_maps_visit(const struct policy_maps *maps,
		      void (*visit)(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg),
		      void *arg);

#endif
