/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where a policy becomes BPF map entries: its roots keyed by
 * (policy id, directory identity), and cgroups bound to a policy id.
 */
#ifndef CGWARD_POLICY_MAPS_H
#define CGWARD_POLICY_MAPS_H

#include <stddef.h>
#include <linux/types.h>

#include "roots.h"

struct policy_maps {
	int cgroup_policy_fd;
	int write_roots_fd;
};

/* Adds every root of policy_id; on failure, removes those it added. */
int policy_maps_put_roots(const struct policy_maps *maps, __u32 policy_id,
			  const struct root_spec *roots, size_t n_roots);
void policy_maps_delete_roots(const struct policy_maps *maps, __u32 policy_id,
			      const struct root_spec *roots, size_t n_roots);

/* Binds (or rebinds, atomically) a cgroup to policy_id; flags: CGWARD_POLICY_*. */
int policy_maps_bind_cgroup(const struct policy_maps *maps, __u64 cgroup_id, __u32 policy_id,
			    __u32 flags);
void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id);

#endif
