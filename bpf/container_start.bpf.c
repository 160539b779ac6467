// SPDX-License-Identifier: GPL-2.0
/*
 * When a container's policy begins: at its workload's exec. runc init runs
 * in the container's cgroup before that, mounting the container's file
 * systems and writing under the runtime's state directory; it also execs a
 * copy of itself there, but in the runtime's mount namespace. The workload's
 * exec is the first one made from the container's own mount namespace:
 * bprm_committed_creds runs after the point of no return and before the new
 * program's first instruction, so that instruction is already confined.
 */
#include "decision.bpf.h"

SEC("lsm/bprm_committed_creds")
int BPF_PROG(bprm_committed_creds, struct linux_binprm *bprm)
{
	struct task_struct *task;
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id = bpf_get_current_cgroup_id(), now;
	__u32 mnt_ns;

	policy = bpf_map_lookup_elem(&cgroup_policy, &cgroup_id);
	if (!policy || !(policy->flags & CGWARD_POLICY_FROM_EXEC))
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	mnt_ns = BPF_CORE_READ(task, nsproxy, mnt_ns, ns.inum);
	if (mnt_ns == policy->runtime_mnt_ns)
		return 0;
	now = bpf_ktime_get_boot_ns();
	bpf_map_update_elem(&container_started, &cgroup_id, &now, BPF_NOEXIST);
	return 0;
}
