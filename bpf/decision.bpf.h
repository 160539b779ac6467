/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one write decision, shared by every hook: is this dentry, reached
 * through this mount, beneath a write root of the calling task's cgroup?
 * Hooks only gather the dentries and name the operation.
 */
#ifndef CGWARD_DECISION_BPF_H
#define CGWARD_DECISION_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "maps.bpf.h"
#include "overlay.bpf.h"

#define EPERM 1

#define S_IFMT	 00170000
#define S_IFSOCK 0140000
#define S_IFREG	 0100000
#define S_IFCHR	 0020000
#define S_IFIFO	 0010000

#define BPF_FS_MAGIC	    0xcafe4a11
#define CGROUP_SUPER_MAGIC  0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270

/*
 * The write target is removed or moved away, not written into: it may not be
 * (under) a read-only exception, but being a write root itself does not make
 * its removal allowed; its parent directory decides that.
 */
#define TARGET_DEPARTS (1U << 0)
/* The target is a unix socket being connected to: a CGWARD_ACCESS_UNIX_PEER entry allows it. */
#define TARGET_UNIX_PEER (1U << 1)

/* A write target: the dentry being written, created (negative) or removed, and its mount. */
struct write_target {
	struct dentry *dentry;
	struct vfsmount *mnt;
	__u32 flags; /* TARGET_* */
};

/* An operation on one target, or two for rename and link (target.dentry NULL otherwise). */
struct write_request {
	__u16 op; /* enum cgward_op */
	struct write_target path;
	struct write_target target;
};

struct walk_result {
	__u32 reason; /* 0: allowed, else enum cgward_reason */
	__u32 root_dev;
	__u64 root_ino;
	__u32 policy_id; /* the policy whose roots decided */
	__u32 unused;
};

/*
 * A position in a path walk. Pointers are kept as integers: the step
 * functions only read kernel memory through BPF_CORE_READ.
 */
struct walk_pos {
	__u64 dentry;
	__u64 mnt;	     /* struct mount * */
	__u32 crossed_mount; /* the last step went from a mount's root to its mount point */
	__u32 unused;
};

struct walk_state {
	struct walk_pos pos;
	__u32 policy_id;
	__u32 flags; /* TARGET_* */
	__u32 first_step;
	__u32 unused;
	struct walk_result result;
};

struct name_state {
	struct walk_pos pos;
	__u64 task_root;
	__u64 task_root_mnt;
	__u32 start; /* where the path begins in event_scratch.reversed */
	__u32 flags; /* NAME_* */
};

#define NAME_TRUNCATED (1U << 0)
/* No mount, or a detached one: the path is named within its file system. */
#define NAME_FROM_FS_ROOT (1U << 1)

#define WALK_ON	  0
#define WALK_DONE 1

#include "walk_args.bpf.h"

/* The struct mount around a vfsmount, where the mount tree links are; 0 for none. */
static __always_inline __u64 walk_mount(struct vfsmount *vfsmnt)
{
	if (!vfsmnt)
		return 0;
	return (__u64)((void *)vfsmnt - bpf_core_field_offset(struct mount, mnt));
}

/*
 * Inode hooks get a dentry without the mount it was reached through. The
 * task's working directory or root mount stands in when the dentry is on
 * that file system: a walk through it meets only directories the dentry is
 * really reachable through. Otherwise the walk stays within the file system.
 */
static __always_inline struct vfsmount *guess_mount(struct dentry *dentry)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct super_block *sb = BPF_CORE_READ(dentry, d_sb);
	struct vfsmount *pwd = BPF_CORE_READ(task, fs, pwd.mnt);
	struct vfsmount *root = BPF_CORE_READ(task, fs, root.mnt);

	if (BPF_CORE_READ(pwd, mnt_sb) == sb)
		return pwd;
	if (BPF_CORE_READ(root, mnt_sb) == sb)
		return root;
	return NULL;
}

static __always_inline void walk_to_root(__u32 policy_id, const struct write_target *target,
					 struct walk_result *result)
{
	struct walk_state state = {
	    .pos = {.dentry = (__u64)target->dentry, .mnt = walk_mount(target->mnt)},
	    .policy_id = policy_id,
	    .flags = target->flags,
	    .first_step = 1,
	    .result = {.reason = CGWARD_REASON_TOO_DEEP, .policy_id = policy_id},
	};

	walk_path_on(&state);
	*result = state.result;
}

/* Both targets of a request must lie beneath a root of policy_id. */
static __always_inline void walk_request(__u32 policy_id, const struct write_request *request,
					 struct walk_result *result)
{
	walk_to_root(policy_id, &request->path, result);
	if (!result->reason && request->target.dentry)
		walk_to_root(policy_id, &request->target, result);
}

/* Writes the path of target into scratch->reversed, leaf first from the end; returns its start. */
static __always_inline __u32 reverse_path(struct event_scratch *scratch,
					  const struct write_target *target, __u32 *flags)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct name_state state = {
	    .pos = {.dentry = (__u64)target->dentry, .mnt = walk_mount(target->mnt)},
	    .task_root = (__u64)BPF_CORE_READ(task, fs, root.dentry),
	    .task_root_mnt = walk_mount(BPF_CORE_READ(task, fs, root.mnt)),
	    .start = CGWARD_PATH_MAX,
	};

	name_path_on(&state, scratch);
	*flags = state.flags;
	if (state.start == CGWARD_PATH_MAX)
		scratch->reversed[--state.start] = '/';
	return state.start;
}

/* Appends the path of target at offset in event->path; returns its length. */
static __always_inline __u32 append_path(struct event_scratch *scratch, __u32 offset,
					 const struct write_target *target, __u32 *flags)
{
	__u32 start = reverse_path(scratch, target, flags);
	__u32 len = CGWARD_PATH_MAX - start;

	bpf_probe_read_kernel(&scratch->event.path[offset & (CGWARD_PATH_MAX - 1)],
			      len & (CGWARD_PATH_MAX - 1),
			      &scratch->reversed[start & (CGWARD_PATH_MAX - 1)]);
	return len & (CGWARD_PATH_MAX - 1);
}

static __always_inline void count_verdict(const struct cgward_event *event)
{
	struct cgward_policy_info *info = bpf_map_lookup_elem(&policy_info, &event->policy_id);

	if (!info)
		return;
	if (event->verdict == CGWARD_VERDICT_AUDIT)
		__sync_fetch_and_add(&info->audited, 1);
	else
		__sync_fetch_and_add(&info->denied, 1);
}

/*
 * The event's fixed part, in the per-CPU scratch buffer; NULL if there is
 * none. The caller fills what its operation names, then calls report_send.
 */
static __always_inline struct event_scratch *report_begin(const struct cgward_cgroup_policy *policy,
							  __u64 cgroup_id, __u16 op, __u16 reason)
{
	__u32 zero = 0;
	struct event_scratch *scratch = bpf_map_lookup_elem(&event_scratch, &zero);
	struct cgward_event *event;
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!scratch)
		return NULL;
	event = &scratch->event;
	__builtin_memset(event, 0, offsetof(struct cgward_event, path));
	event->boot_ns = bpf_ktime_get_boot_ns();
	event->cgroup_id = cgroup_id;
	event->pid = (__u32)pid_tgid;
	event->tgid = pid_tgid >> 32;
	event->uid = (__u32)bpf_get_current_uid_gid();
	event->policy_id = policy->policy_id;
	event->op = op;
	event->verdict =
	    policy->flags & CGWARD_POLICY_AUDIT ? CGWARD_VERDICT_AUDIT : CGWARD_VERDICT_DENY;
	event->reason = reason;
	bpf_get_current_comm(event->comm, sizeof(event->comm));
	return scratch;
}

/*
 * Counts the verdict under the deciding policy, sends the event trimmed to
 * its paths to the agent's ring buffer and, for a `cgward exec` cgroup, to
 * the run's own; a ring buffer that is full counts the event lost.
 */
static __always_inline void report_send(struct event_scratch *scratch,
					const struct cgward_cgroup_policy *policy)
{
	struct cgward_event *event = &scratch->event;
	struct cgward_policy_info *info;
	__u32 zero = 0, size;
	__u64 *lost;
	void *exec_ring;

	count_verdict(event);
	size = offsetof(struct cgward_event, path) + event->path_len + event->target_len;
	if (size > sizeof(*event))
		size = sizeof(*event);
	if (bpf_ringbuf_output(&deny_events, event, size, 0) != 0) {
		lost = bpf_map_lookup_elem(&lost_events, &zero);
		if (lost)
			__sync_fetch_and_add(lost, 1);
	}
	exec_ring = bpf_map_lookup_elem(&exec_events, &policy->policy_id);
	if (!exec_ring || bpf_ringbuf_output(exec_ring, event, size, 0) == 0)
		return;
	info = bpf_map_lookup_elem(&policy_info, &policy->policy_id);
	if (info)
		__sync_fetch_and_add(&info->events_lost, 1);
}

/* Names the request's path, and its second path for rename and link, in the event. */
static __always_inline void report_paths(struct event_scratch *scratch,
					 const struct write_request *request)
{
	struct cgward_event *event = &scratch->event;
	__u32 path_flags = 0, target_flags = 0;

	event->path_len = append_path(scratch, 0, &request->path, &path_flags);
	if (request->target.dentry)
		event->target_len =
		    append_path(scratch, event->path_len, &request->target, &target_flags);
	event->flags = (path_flags & NAME_TRUNCATED ? CGWARD_EVENT_PATH_TRUNCATED : 0) |
		       (target_flags & NAME_TRUNCATED ? CGWARD_EVENT_TARGET_TRUNCATED : 0) |
		       (path_flags & NAME_FROM_FS_ROOT ? CGWARD_EVENT_PATH_FROM_FS_ROOT : 0) |
		       (target_flags & NAME_FROM_FS_ROOT ? CGWARD_EVENT_TARGET_FROM_FS_ROOT : 0);
}

static __noinline void report(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
			      const struct write_request *request, const struct walk_result *result)
{
	struct event_scratch *scratch =
	    report_begin(policy, cgroup_id, request->op, result->reason);

	if (!scratch)
		return;
	scratch->event.policy_id = result->policy_id;
	scratch->event.root_dev = result->root_dev;
	scratch->event.root_ino = result->root_ino;
	report_paths(scratch, request);
	report_send(scratch, policy);
}

/*
 * The calling task's policy, or NULL (the fast path) when its cgroup has
 * none, or when it is a container's whose workload has not started yet: the
 * runtime is still setting the container up (CGWARD_POLICY_FROM_EXEC).
 */
static __always_inline struct cgward_cgroup_policy *current_policy(__u64 *cgroup_id)
{
	struct cgward_cgroup_policy *policy;

	*cgroup_id = bpf_get_current_cgroup_id();
	policy = bpf_map_lookup_elem(&cgroup_policy, cgroup_id);
	if (policy && (policy->flags & CGWARD_POLICY_FROM_EXEC) &&
	    !bpf_map_lookup_elem(&container_started, cgroup_id))
		return NULL;
	return policy;
}

/* What a hook returns for an operation the policy denies: audit reports and allows. */
static __always_inline int denied(const struct cgward_cgroup_policy *policy)
{
	return policy->flags & CGWARD_POLICY_AUDIT ? 0 : -EPERM;
}

/*
 * The boundary's own state, whatever the roots say: its pinned programs and
 * maps (bpffs) and the cgroups' control files (cgroupfs, v1 and v2).
 */
static __always_inline bool on_protected_fs(const struct write_target *target)
{
	struct dentry *dentry = target->dentry;
	unsigned long magic;

	if (!dentry)
		return false;
	magic = BPF_CORE_READ(dentry, d_sb, s_magic);
	return magic == BPF_FS_MAGIC || magic == CGROUP_SUPER_MAGIC || magic == CGROUP2_SUPER_MAGIC;
}

/*
 * The decision for an operation on one or two targets (rename and link have
 * two). Tasks in cgroups without a policy return after one map lookup.
 */
static __always_inline int decide(const struct write_request *request)
{
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);
	struct walk_result result = {};

	if (!policy)
		return 0;
	result.policy_id = policy->policy_id;
	if (on_protected_fs(&request->path) || on_protected_fs(&request->target)) {
		result.reason = CGWARD_REASON_PROTECTED_FS;
	} else if (overlay_own_work(request->path.dentry, request->target.dentry)) {
		return 0;
	} else {
		overlay_note_operation(request->path.dentry, request->target.dentry);
		walk_request(policy->policy_id, request, &result);
	}
	if (!result.reason && policy->mandatory_id) {
		result.policy_id = policy->mandatory_id;
		walk_request(policy->mandatory_id, request, &result);
	}
	if (!result.reason)
		return 0;
	report(policy, cgroup_id, request, &result);
	return denied(policy);
}

#endif
