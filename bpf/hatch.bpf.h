/* SPDX-License-Identifier: GPL-2.0 */
/* What an escape hatch's hooks share: the deny, with its event. */
#ifndef CGWARD_HATCH_BPF_H
#define CGWARD_HATCH_BPF_H

#include "decision.bpf.h"

/* Reports op, with up to two paths it names (NULL: none), and returns the policy's verdict. */
static __always_inline int deny_hatch(__u16 op, struct dentry *dentry, struct vfsmount *mnt,
				      const struct path *target, __u32 arg)
{
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);
	struct write_request request = {.op = op, .path = {.dentry = dentry, .mnt = mnt}};
	struct event_scratch *scratch;

	if (!policy)
		return 0;
	if (target) {
		request.target.dentry = BPF_CORE_READ(target, dentry);
		request.target.mnt = BPF_CORE_READ(target, mnt);
	}
	scratch = report_begin(policy, cgroup_id, op, CGWARD_REASON_ESCAPE_HATCH);
	if (scratch) {
		scratch->event.arg = arg;
		if (dentry)
			report_paths(scratch, &request);
		report_send(scratch, policy);
	}
	return denied(policy);
}

static __always_inline int deny_hatch_at(__u16 op, const struct path *path,
					 const struct path *target, __u32 arg)
{
	return deny_hatch(op, BPF_CORE_READ(path, dentry), BPF_CORE_READ(path, mnt), target, arg);
}

/*
 * The verdict on an operation of the calling task, under policy, on a task
 * outside its boundary; reported (quiet: not).
 */
static __always_inline int deny_peer(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
				     __u16 op, struct task_struct *task, __u32 arg, bool quiet)
{
	struct event_scratch *scratch;

	scratch =
	    quiet ? NULL : report_begin(policy, cgroup_id, op, CGWARD_REASON_OUTSIDE_BOUNDARY);
	if (scratch) {
		scratch->event.peer_pid = BPF_CORE_READ(task, tgid);
		scratch->event.arg = arg;
		report_send(scratch, policy);
	}
	return denied(policy);
}

/*
 * A task in the same boundary (in_boundary) may be traced, signalled,
 * reprioritised and limited; any other may not.
 */
static __always_inline int deny_outside_boundary(__u16 op, struct task_struct *task, __u32 arg)
{
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);

	if (!policy || in_boundary(policy, task))
		return 0;
	return deny_peer(policy, cgroup_id, op, task, arg, false);
}

#endif
