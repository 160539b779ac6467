// SPDX-License-Identifier: GPL-2.0
/*
 * What a root inside may do to the host without writing a file: its name,
 * clock, network, kernel log, I/O ports, reboot. Each takes a capability
 * against the initial user namespace, which capable() is asked for before
 * the change, whatever system call makes it. A boundary allows only the
 * capabilities its policy kept.
 *
 * A task whose credentials are in a user namespace (unshare -r, bwrap
 * --unshare-user) holds capabilities only over what that namespace owns,
 * and is not judged. One of the initial namespace is judged whatever
 * namespace it acts on: over another, the kernel grants it what it holds in
 * the initial one, or everything to the namespace's owner, and setns(2)
 * into a rootless container's namespaces (through a pidfd, which asks no
 * ptrace access) would reach their network. Only over a user namespace its
 * boundary made is it not judged: making one with others (unshare -Urn,
 * clone) asks for SYS_ADMIN over it with the maker's credentials.
 */
#include "decision.bpf.h"

struct user_namespace_maker {
	__u64 cred; /* struct cred *: the entry goes with it (cred_free) */
	struct boundary_owner owner;
};

/*
 * A user namespace (struct user_namespace *) that a task of a boundary
 * made, while the credentials made with it live: the namespace lives as
 * long, so a key is never a later namespace at the same address. Full, a
 * namespace goes unrecorded, and checks over it are judged.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct user_namespace_maker);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} user_namespaces_made SEC(".maps");

/*
 * unshare(2) and clone(2) with CLONE_NEWUSER both make the namespace here,
 * in new credentials, before they ask for SYS_ADMIN over it to make the
 * other namespaces. No LSM hook follows the making (userns_create, 6.1+,
 * precedes it).
 */
SEC("fexit/create_user_ns")
int BPF_PROG(create_user_ns, struct cred *new, int ret)
{
	struct user_namespace_maker maker = {.cred = (__u64) new};
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id, ns;

	if (ret)
		return 0;
	policy = current_policy(&cgroup_id);
	if (!policy)
		return 0;
	ns = (__u64)BPF_CORE_READ(new, user_ns);
	maker.owner = boundary_owner_of(policy);
	bpf_map_update_elem(&user_namespaces_made, &ns, &maker, BPF_ANY);
	return 0;
}

SEC("lsm/cred_free")
int BPF_PROG(cred_free, struct cred *cred)
{
	struct user_namespace *user_ns = BPF_CORE_READ(cred, user_ns);
	struct user_namespace_maker *maker;
	__u64 ns = (__u64)user_ns;

	/* Every credentials' end passes here: those of the initial namespace at one load. */
	if (!BPF_CORE_READ(user_ns, level))
		return 0;
	maker = bpf_map_lookup_elem(&user_namespaces_made, &ns);
	if (maker && maker->cred == (__u64)cred)
		bpf_map_delete_elem(&user_namespaces_made, &ns);
	return 0;
}

/* Whether ns is a user namespace that a task of policy's boundary made. */
static __always_inline bool made_in_boundary(const struct cgward_cgroup_policy *policy,
					     struct user_namespace *ns)
{
	__u64 key = (__u64)ns;
	struct user_namespace_maker *maker = bpf_map_lookup_elem(&user_namespaces_made, &key);

	return maker && owned_by(&maker->owner, policy);
}

/* include/linux/security.h: the kernel probes (the task does not act) and wants no record. */
#define CAP_OPT_NOAUDIT (1U << 1)

static __always_inline bool cap_dropped(__u64 dropped, int cap)
{
	if (!dropped)
		return false;
	return cap < 0 || cap >= 64 || (dropped >> cap) & 1;
}

/* include/uapi/linux/capability.h */
#define CAP_CHOWN	    0
#define CAP_DAC_OVERRIDE    1
#define CAP_DAC_READ_SEARCH 2
#define CAP_FOWNER	    3
#define CAP_FSETID	    4
#define CAP_SYS_ADMIN	    21
#define CAP_MKNOD	    27

#define BIT(cap) (1ULL << (cap))

/*
 * What overlayfs asks for with its mounter's credentials, on lookups as well
 * as writes: its trusted.* xattrs (opaque directories, redirects, origins)
 * need SYS_ADMIN, its layers' files the DAC and ownership capabilities and
 * its whiteouts MKNOD. Denied, an overlay would show files its upper layer
 * hides, or fail a lookup.
 */
#define OVERLAY_CAPS                                                                           \
	(BIT(CAP_CHOWN) | BIT(CAP_DAC_OVERRIDE) | BIT(CAP_DAC_READ_SEARCH) | BIT(CAP_FOWNER) | \
	 BIT(CAP_FSETID) | BIT(CAP_MKNOD) | BIT(CAP_SYS_ADMIN))

/*
 * A check made with credentials the kernel installed over the task's own
 * for its own work: overlayfs' (its mounter's, or one it derives for a
 * creation), faccessat(2)'s, a binfmt_misc interpreter's. The task cannot
 * install credentials of its choosing but through an io_uring personality,
 * which uring_override_creds refuses unless they are its own (5.12+; on
 * 5.10 io_uring makes no socket, so a personality reaches no privileged
 * netlink family). Such a check is the kernel's, not the task's: overlayfs'
 * capabilities are not judged, any other is denied without an event, which
 * would name the task for a check it did not ask for.
 */
static __always_inline bool installed_credentials(const struct cred *cred)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return cred != BPF_CORE_READ(task, real_cred);
}

SEC("lsm/capable")
int BPF_PROG(capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	struct cgward_cgroup_policy *policy;
	struct event_scratch *scratch;
	__u64 cgroup_id;
	bool installed, own;

	if (ret)
		return ret;
	policy = current_policy(&cgroup_id);
	if (!policy || BPF_CORE_READ(cred, user_ns, level) || made_in_boundary(policy, ns))
		return 0;
	own = cap_dropped(policy->dropped_caps, cap);
	if (!own && !cap_dropped(policy->mandatory_dropped_caps, cap))
		return 0;
	installed = installed_credentials(cred);
	if (installed && cap >= 0 && cap < 64 && (OVERLAY_CAPS & BIT(cap)))
		return 0;
	if (!(opts & CAP_OPT_NOAUDIT) && !installed) {
		scratch =
		    report_begin(policy, cgroup_id, CGWARD_OP_CAPABILITY, CGWARD_REASON_CAPABILITY);
		if (scratch) {
			/* The policy that dropped it: the cgroup's own first, as walks decide. */
			if (!own)
				scratch->event.policy_id = policy->mandatory_id;
			scratch->event.arg = (__u32)cap;
			report_send(scratch, policy);
		}
	}
	return denied(policy);
}
