// SPDX-License-Identifier: GPL-2.0
/*
 * A child cgroup inherits its parent's policy the moment it is created:
 * the tracepoint fires in cgroup_mkdir() before the directory is visible,
 * so no task can be in the child unenforced, and enforcement stays a single
 * lookup of the task's own cgroup.
 */
#include "decision.bpf.h"

/* cgroup2 is the default hierarchy, the first one registered. */
#define DEFAULT_HIERARCHY_ID 0

static __always_inline bool on_default_hierarchy(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, root, hierarchy_id) == DEFAULT_HIERARCHY_ID;
}

SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct cgroup *parent;
	struct cgward_cgroup_policy *policy;
	__u64 id, parent_id;

	if (!on_default_hierarchy(cgrp))
		return 0;
	parent = (struct cgroup *)((void *)BPF_CORE_READ(cgrp, self.parent) -
				   bpf_core_field_offset(struct cgroup, self));
	parent_id = BPF_CORE_READ(parent, kn, id);
	policy = bpf_map_lookup_elem(&cgroup_policy, &parent_id);
	if (!policy)
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	bpf_map_update_elem(&cgroup_policy, &id, policy, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id;

	if (!on_default_hierarchy(cgrp))
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	bpf_map_delete_elem(&cgroup_policy, &id);
	return 0;
}
