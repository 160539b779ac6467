// SPDX-License-Identifier: GPL-2.0
/*
 * What a root inside may do to the host without writing a file: its name,
 * clock, network, kernel log, I/O ports, reboot. Each takes a capability
 * against the initial user namespace, which capable() is asked for before
 * the change, whatever system call makes it. A boundary allows only the
 * capabilities its policy kept. One held in a user namespace the task made
 * reaches only what that namespace owns, and is not judged.
 */
#include "decision.bpf.h"

/* include/linux/security.h: the kernel probes (the task does not act) and wants no record. */
#define CAP_OPT_NOAUDIT (1U << 1)

static __always_inline bool cap_dropped(const struct cgward_cgroup_policy *policy, int cap)
{
	if (!policy->dropped_caps)
		return false;
	return cap < 0 || cap >= 64 || (policy->dropped_caps >> cap) & 1;
}

/*
 * The task's own credentials, not ones the kernel installed over them for
 * its own work (an overlay not recognized as such, faccessat(2)) or an
 * io_uring personality: a check made with those is denied without an
 * event, which would name the task for what it did not ask.
 */
static __always_inline bool own_credentials(const struct cred *cred)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return cred == BPF_CORE_READ(task, real_cred);
}

SEC("lsm/capable")
int BPF_PROG(capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	struct cgward_cgroup_policy *policy;
	struct event_scratch *scratch;
	__u64 cgroup_id;

	if (ret)
		return ret;
	policy = current_policy(&cgroup_id);
	if (!policy || !cap_dropped(policy, cap) || BPF_CORE_READ(ns, level) ||
	    overlay_own_credentials(cred))
		return 0;
	if (!(opts & CAP_OPT_NOAUDIT) && own_credentials(cred)) {
		scratch =
		    report_begin(policy, cgroup_id, CGWARD_OP_CAPABILITY, CGWARD_REASON_CAPABILITY);
		if (scratch) {
			scratch->event.arg = (__u32)cap;
			report_send(scratch, policy);
		}
	}
	return denied(policy);
}

/* Only overlayfs calls it: what its creation's capability checks will be made with. */
SEC("lsm/dentry_create_files_as")
int BPF_PROG(dentry_create_files_as, struct dentry *dentry, int mode, const struct qstr *name,
	     const struct cred *old, struct cred *new, int ret)
{
	__u64 cgroup_id;

	if (!ret && current_policy(&cgroup_id))
		overlay_note_creation(dentry, new);
	return ret;
}

/* io_uring runs a request with the credentials of a personality registered earlier. */
SEC("lsm/uring_override_creds")
int BPF_PROG(uring_override_creds, const struct cred *new, int ret)
{
	__u64 cgroup_id;

	if (current_policy(&cgroup_id))
		overlay_forget_creation(new);
	return ret;
}
