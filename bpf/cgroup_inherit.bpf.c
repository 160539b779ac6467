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

/*
 * While a new build migrates cgroup_policy to its value layout, the hooks
 * of the old build not yet replaced read the old map: a new cgroup is bound
 * there too, so that no hook finds it unbound. Userspace sets this map to
 * the old one and raises the flag for the migration's length (a migration
 * killed half way leaves it raised, as it must); the old layout's fields
 * are a prefix of this one's. Otherwise a map of one entry, never written.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct cgward_cgroup_policy);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} cgroup_policy_old SEC(".maps");

bool migrating_cgroup_policy;

/*
 * A `cgward exec` cgroup: "cgward-<pid>-<random>" (exec_cgroup_name_parse).
 * The digit after the prefix keeps other cgward-* names (the test suite's
 * cgward-test-*) out.
 */
static __always_inline bool is_exec_cgroup(struct cgroup *cgrp)
{
	char name[sizeof(CGWARD_EXEC_CGROUP_PREFIX) + 1] = {};
	__u32 len = sizeof(CGWARD_EXEC_CGROUP_PREFIX) - 1;

	if (bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(cgrp, kn, name)) < 0)
		return false;
	for (__u32 i = 0; i < len; i++) {
		if (name[i] != CGWARD_EXEC_CGROUP_PREFIX[i])
			return false;
	}
	return name[len] >= '0' && name[len] <= '9';
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
	/*
	 * A non-mandatory agent policy gives way to the workload's own `cgward
	 * exec` boundary. This opens nothing: a confined process cannot create
	 * a cgroup (mkdir in cgroupfs is a write outside its roots), so such a
	 * child is made by an unconfined process, which could write anyway.
	 */
	if (!(policy->flags & CGWARD_POLICY_MANDATORY) && is_exec_cgroup(cgrp))
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
#ifdef CGWARD_TEST_RELAYOUT
	struct cgward_cgroup_policy child = *policy;

	child.inherited_from = parent_id;
	policy = &child;
#endif
	bpf_map_update_elem(&cgroup_policy, &id, policy, BPF_NOEXIST);
	if (migrating_cgroup_policy)
		bpf_map_update_elem(&cgroup_policy_old, &id, policy, BPF_NOEXIST);
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
	bpf_map_delete_elem(&container_started, &id);
	return 0;
}
