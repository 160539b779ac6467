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

#define EPERM 1

#define S_IFMT	 00170000
#define S_IFSOCK 0140000
#define S_IFREG	 0100000
#define S_IFCHR	 0020000
#define S_IFIFO	 0010000

/*
 * The write target is removed or moved away, not written into: it may not be
 * (under) a read-only exception, but being a write root itself does not make
 * its removal allowed; its parent directory decides that.
 */
#define TARGET_DEPARTS (1U << 0)

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
};

static __always_inline struct mount *real_mount(struct vfsmount *vfsmnt)
{
	return (struct mount *)((void *)vfsmnt - bpf_core_field_offset(struct mount, mnt));
}

/* Mounts stacked on one directory that a walk crosses in one step. */
#define MAX_STACKED_MOUNTS 8

/*
 * At the root of a mount, moves to the directory it is mounted on (as often
 * as mounts are stacked there). Returns false at the root of the mount
 * namespace, where a path ends.
 */
static __always_inline bool cross_mounts(struct dentry **dentry, struct mount **mnt)
{
	struct mount *parent;
	int i;

	for (i = 0; i < MAX_STACKED_MOUNTS; i++) {
		if (*dentry != BPF_CORE_READ(*mnt, mnt.mnt_root))
			return true;
		parent = BPF_CORE_READ(*mnt, mnt_parent);
		if (parent == *mnt)
			return false;
		*dentry = BPF_CORE_READ(*mnt, mnt_mountpoint);
		*mnt = parent;
	}
	return false;
}

/* The next directory up the path, or NULL where the path ends. */
static __always_inline struct dentry *walk_up(struct dentry *dentry, struct mount **mnt)
{
	struct dentry *up;

	if (!cross_mounts(&dentry, mnt))
		return NULL;
	up = BPF_CORE_READ(dentry, d_parent);
	return up == dentry ? NULL : up;
}

/*
 * Walks from dentry towards the root, looking each directory's identity up
 * in write_roots: the nearest root decides, so the most specific path wins.
 * A negative dentry (a name being created) has no identity of its own.
 */
static __noinline void walk_to_root(__u32 policy_id, const struct write_target *target,
				    struct walk_result *result)
{
	struct dentry *dentry = target->dentry;
	struct mount *mnt = real_mount(target->mnt);
	struct cgward_root_value *root;
	struct cgward_root_key key = {.policy_id = policy_id};
	struct inode *inode;
	int depth;

	result->reason = CGWARD_REASON_TOO_DEEP;
	for (depth = 0; depth < CGWARD_MAX_DEPTH && dentry; depth++) {
		inode = BPF_CORE_READ(dentry, d_inode);
		if (inode) {
			key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
			key.ino = BPF_CORE_READ(inode, i_ino);
			root = bpf_map_lookup_elem(&write_roots, &key);
			if (root && root->access == CGWARD_ACCESS_READ_ONLY) {
				result->reason = CGWARD_REASON_READ_ONLY;
				result->root_dev = key.dev;
				result->root_ino = key.ino;
				return;
			}
			if (root && !(depth == 0 && (target->flags & TARGET_DEPARTS))) {
				result->reason = 0;
				return;
			}
		}
		dentry = walk_up(dentry, &mnt);
	}
	if (!dentry)
		result->reason = CGWARD_REASON_OUTSIDE_ROOTS;
}

/*
 * Writes the path of dentry into scratch->reversed, leaf first from the end,
 * and returns the offset where it starts. Names are bounded by NAME_MAX and
 * offsets masked so that the verifier sees every access in bounds.
 */
static __noinline __u32 reverse_path(struct event_scratch *scratch, struct dentry *dentry,
				     struct vfsmount *vfsmnt, __u16 *truncated)
{
	struct mount *mnt = real_mount(vfsmnt);
	__u32 pos = CGWARD_PATH_MAX, len;
	const unsigned char *name;
	int depth;

	for (depth = 0; depth < CGWARD_MAX_DEPTH; depth++) {
		struct dentry *up;

		if (!cross_mounts(&dentry, &mnt))
			break;
		up = BPF_CORE_READ(dentry, d_parent);
		if (up == dentry)
			break;
		len = BPF_CORE_READ(dentry, d_name.len) & NAME_MAX;
		name = BPF_CORE_READ(dentry, d_name.name);
		if (len + 1 >= pos) {
			*truncated = 1;
			break;
		}
		pos -= len;
		bpf_probe_read_kernel(&scratch->reversed[pos & (CGWARD_PATH_MAX - 1)], len, name);
		pos -= 1;
		scratch->reversed[pos & (CGWARD_PATH_MAX - 1)] = '/';
		dentry = up;
	}
	if (depth == CGWARD_MAX_DEPTH)
		*truncated = 1;
	if (pos == CGWARD_PATH_MAX)
		scratch->reversed[--pos] = '/';
	return pos;
}

/* Appends the path of dentry at offset in event->path; returns its length. */
static __always_inline __u32 append_path(struct event_scratch *scratch, __u32 offset,
					 const struct write_target *target, __u16 *truncated)
{
	__u32 start = reverse_path(scratch, target->dentry, target->mnt, truncated);
	__u32 len = CGWARD_PATH_MAX - start;

	bpf_probe_read_kernel(&scratch->event.path[offset & (CGWARD_PATH_MAX - 1)],
			      len & (CGWARD_PATH_MAX - 1),
			      &scratch->reversed[start & (CGWARD_PATH_MAX - 1)]);
	return len & (CGWARD_PATH_MAX - 1);
}

static __noinline void report(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
			      const struct write_request *request, const struct walk_result *result)
{
	__u32 zero = 0, size;
	struct event_scratch *scratch = bpf_map_lookup_elem(&event_scratch, &zero);
	struct cgward_event *event;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u16 path_truncated = 0, target_truncated = 0;
	__u64 *lost;

	if (!scratch)
		return;
	event = &scratch->event;
	event->boot_ns = bpf_ktime_get_boot_ns();
	event->cgroup_id = cgroup_id;
	event->pid = (__u32)pid_tgid;
	event->tgid = pid_tgid >> 32;
	event->uid = (__u32)bpf_get_current_uid_gid();
	event->policy_id = policy->policy_id;
	event->op = request->op;
	event->verdict =
	    policy->flags & CGWARD_POLICY_AUDIT ? CGWARD_VERDICT_AUDIT : CGWARD_VERDICT_DENY;
	event->reason = result->reason;
	event->root_dev = result->root_dev;
	event->root_ino = result->root_ino;
	bpf_get_current_comm(event->comm, sizeof(event->comm));
	event->path_len = append_path(scratch, 0, &request->path, &path_truncated);
	event->target_len = 0;
	if (request->target.dentry)
		event->target_len =
		    append_path(scratch, event->path_len, &request->target, &target_truncated);
	event->flags = (path_truncated ? CGWARD_EVENT_PATH_TRUNCATED : 0) |
		       (target_truncated ? CGWARD_EVENT_TARGET_TRUNCATED : 0);

	size = offsetof(struct cgward_event, path) + event->path_len + event->target_len;
	if (size > sizeof(*event))
		size = sizeof(*event);
	if (bpf_ringbuf_output(&deny_events, event, size, 0) == 0)
		return;
	lost = bpf_map_lookup_elem(&lost_events, &zero);
	if (lost)
		*lost += 1;
}

/*
 * The decision for an operation on one or two targets (rename and link have
 * two). Tasks in cgroups without a policy return after one map lookup.
 */
static __always_inline int decide(const struct write_request *request)
{
	__u64 cgroup_id = bpf_get_current_cgroup_id();
	struct cgward_cgroup_policy *policy = bpf_map_lookup_elem(&cgroup_policy, &cgroup_id);
	struct walk_result result = {};

	if (!policy)
		return 0;
	walk_to_root(policy->policy_id, &request->path, &result);
	if (!result.reason && request->target.dentry)
		walk_to_root(policy->policy_id, &request->target, &result);
	if (!result.reason)
		return 0;
	report(policy, cgroup_id, request, &result);
	return policy->flags & CGWARD_POLICY_AUDIT ? 0 : -EPERM;
}

#endif
