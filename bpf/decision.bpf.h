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

#define EPERM  1
#define EINVAL 22

#define S_IFMT	 00170000
#define S_IFSOCK 0140000
#define S_IFREG	 0100000
#define S_IFCHR	 0020000
#define S_IFIFO	 0010000

#define BPF_FS_MAGIC	    0xcafe4a11
#define CGROUP_SUPER_MAGIC  0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define PROC_SUPER_MAGIC    0x9fa0

/*
 * The write target is removed or moved away, not written into: it may not be
 * (under) a read-only exception, but being a write root itself does not make
 * its removal allowed; its parent directory decides that.
 */
#define TARGET_DEPARTS (1U << 0)
/* The target is a unix socket being connected to: a CGWARD_ACCESS_UNIX_PEER entry allows it. */
#define TARGET_UNIX_PEER (1U << 1)
/*
 * The target is read, listed or executed: a CGWARD_ACCESS_HIDDEN entry
 * denies it, any other root allows it.
 */
#define TARGET_READ (1U << 2)

/* A write target: the dentry being written, created (negative) or removed, and its mount. */
struct write_target {
	struct dentry *dentry;
	struct vfsmount *mnt;
	__u32 flags; /* TARGET_* */
};

/* An operation on one target, or two for rename and link (target.dentry NULL otherwise). */
struct write_request {
	__u16 op;  /* enum cgward_op */
	__u32 arg; /* the event's arg: an ioctl's command */
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
	__u32 depth; /* steps up taken so far: at CGWARD_MAX_DEPTH the walk gives up (too deep) */
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
/* walk_fast: the general walk decides, from the target. */
#define WALK_GENERAL 2

/*
 * Steps of the fast walk before it hands over to the general one: deeper
 * than any root is above its files in practice, few enough that the
 * verifier, which checks each step of the loop where it is inlined, stays
 * quick. A build may set another (make BPF_DEFINES=-DFAST_WALK_STEPS=N);
 * the test suite builds a second plane so, to upgrade to in place.
 */
#ifndef FAST_WALK_STEPS
#define FAST_WALK_STEPS 32
#endif

/*
 * What write_roots says about one directory of a walk, (dev, ino) under
 * state->policy_id: WALK_ON when it names no root there, else WALK_DONE
 * with the verdict in state->result. The nearest root decides, so the most
 * specific path wins. For the fast walk (fast), WALK_GENERAL at a root of a
 * policy with read-only or hidden paths, which may lie beneath it untagged
 * (an exception's tag is lost if its inode leaves memory once nothing pins
 * it): the general walk looks every directory up.
 */
static __always_inline int judge_root(struct walk_state *state, __u32 dev, __u64 ino, bool fast)
{
	struct cgward_root_key key = {.policy_id = state->policy_id, .dev = dev, .ino = ino};
	struct cgward_root_value *root = bpf_map_lookup_elem(&write_roots, &key);

	if (!root)
		return WALK_ON;
	if (fast && (root->flags & CGWARD_ROOT_EXCEPTIONS))
		return WALK_GENERAL;
	if (root->access == CGWARD_ACCESS_HIDDEN) {
		state->result.reason = CGWARD_REASON_HIDDEN;
		state->result.root_dev = dev;
		state->result.root_ino = ino;
		return WALK_DONE;
	}
	if (state->flags & TARGET_READ) {
		state->result.reason = 0;
		return WALK_DONE;
	}
	if (root->access == CGWARD_ACCESS_READ)
		return WALK_ON; /* a readable tree: a write is judged by the roots above */
	/*
	 * An --allow-unix socket may be connected to, nothing more. Any other
	 * write to that inode is denied here, before the walk could cross a
	 * bind mount of it (--private-tmp binds sockets back into the private
	 * /tmp, a root) and allow a chmod.
	 */
	if (root->access == CGWARD_ACCESS_UNIX_PEER) {
		state->result.reason =
		    state->flags & TARGET_UNIX_PEER ? 0 : CGWARD_REASON_OUTSIDE_ROOTS;
		return WALK_DONE;
	}
	if (root->access == CGWARD_ACCESS_READ_ONLY) {
		state->result.reason = CGWARD_REASON_READ_ONLY;
		state->result.root_dev = dev;
		state->result.root_ino = ino;
		return WALK_DONE;
	}
	if (state->first_step && (state->flags & TARGET_DEPARTS))
		return WALK_ON;
	state->result.reason = 0;
	return WALK_DONE;
}

#include "walk.bpf.h"

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

#define TMPFS_MAGIC	  0x01021994
#define RAMFS_MAGIC	  0x858458f6
#define EXT4_SUPER_MAGIC  0xef53
#define XFS_SUPER_MAGIC	  0x58465342
#define BTRFS_SUPER_MAGIC 0x9123683e

/*
 * The address of rename_lock, the dcache's rename generation, set by the
 * loader from /proc/kallsyms (vmlinux BTF has no global variables, and the
 * static linker takes no typeless extern); 0 where kallsyms hides it, which
 * leaves the walk cache off. Every change of a dentry's parent (rename,
 * exchange, a directory alias moved by d_splice_alias) happens under
 * write_seqlock(&rename_lock), so its sequence count, at offset 0, changes
 * with every move.
 */
extern const volatile __u64 rename_lock_addr;

/*
 * A walk cache entry serves for this long (33 s at HZ=250, 82 s at 100):
 * the 32-bit count cannot come round to its value again meanwhile, since
 * 2^31 renames, each moving dentries under the one global rename_lock,
 * take minutes.
 */
#define WALK_CACHE_JIFFIES (1U << 13)

/*
 * rename_lock's sequence count; odd, as while a rename is under way, where
 * it cannot be read. Branch-free past the load-time constants: the walk
 * carries the value on, and a value that were a constant on some paths
 * would make the verifier check the rest of the walk once for each.
 */
static __always_inline __u32 rename_count(void)
{
	__u32 count;
	long err;

	if (!rename_lock_addr)
		return 1;
	err = bpf_probe_read_kernel(&count, sizeof(count), (void *)rename_lock_addr);
	return count | (__u32)((__u64)err >> 63);
}

/*
 * Whether walk_cache may serve dir, reached through a mount whose root is
 * mnt_root: on a file system where a directory moves only by a rename
 * through this kernel (on a network file system it can show up elsewhere
 * without one), through a mount of the whole file system (a bind mount's
 * root could end the walk below the cached root), and only where loads are
 * not reordered with older loads (x86-64): the walk's loads must not see
 * the tree from before rename_count() read it, and BPF has no read barrier
 * to order them elsewhere.
 */
static __always_inline bool walk_cache_serves(struct inode *dir, struct dentry *mnt_root)
{
#ifdef __TARGET_ARCH_x86
	struct super_block *sb = dir->i_sb;
	unsigned long magic = sb->s_magic;

	if (mnt_root && mnt_root != sb->s_root)
		return false;
	return magic == TMPFS_MAGIC || magic == EXT4_SUPER_MAGIC || magic == XFS_SUPER_MAGIC ||
	       magic == BTRFS_SUPER_MAGIC || magic == OVERLAYFS_SUPER_MAGIC;
#else
	return false;
#endif
}

/* dir's inode, where walk_cache may serve it at rename_seq; else NULL. */
static __always_inline struct inode *walk_cache_inode(struct dentry *dir, struct dentry *mnt_root,
						      __u32 rename_seq)
{
	struct inode *inode = dir->d_inode;

	if (!inode || (rename_seq & 1) || !walk_cache_serves(inode, mnt_root))
		return NULL;
	return inode;
}

/*
 * Whether walk_cache lets a write (or a read) beneath the directory dir:
 * its entry was filled at this rename count, and its root is a write root
 * (or a readable one) of the policy without exceptions (any of which could
 * lie between dir and the root). The entry is not the policy's: a policy
 * without that root walks, and the write_roots lookup is what keeps a
 * reused policy id or a reload from inheriting another policy's verdict.
 */
static __always_inline bool walk_cache_allows(const struct walk_state *state, struct inode *dir,
					      __u32 rename_seq)
{
	struct cgward_root_key key = {.policy_id = state->policy_id};
	struct walk_cache_entry *entry = bpf_inode_storage_get(&walk_cache, dir, 0, 0);
	struct cgward_root_value *root;

	if (!entry || entry->rename_seq != rename_seq ||
	    bpf_jiffies64() - entry->jiffies >= WALK_CACHE_JIFFIES)
		return false;
	key.dev = dir->i_sb->s_dev;
	key.ino = entry->root_ino;
	root = bpf_map_lookup_elem(&write_roots, &key);
	if (!root || (root->flags & CGWARD_ROOT_EXCEPTIONS))
		return false;
	return root->access == CGWARD_ACCESS_WRITE ||
	       ((state->flags & TARGET_READ) && root->access == CGWARD_ACCESS_READ);
}

/* Records that the fast walk from dir, begun at rename_seq, met the root root_ino first. */
static __always_inline void walk_cache_fill(struct inode *dir, __u32 rename_seq, __u64 root_ino)
{
	struct walk_cache_entry entry = {
	    .root_ino = root_ino,
	    .jiffies = bpf_jiffies64(),
	    .rename_seq = rename_seq,
	};

	bpf_inode_storage_delete(&walk_cache, dir);
	bpf_inode_storage_get(&walk_cache, dir, &entry, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/*
 * The walk over the target's own mount, where roots usually are. Each step
 * is two pointer loads (BTF: no helper call) and an inode storage lookup
 * that finds nothing on a directory no policy names (root_tags); only a
 * tagged directory is looked up in write_roots, by judge_root as the
 * general walk does. From the target's directory on, walk_cache may
 * answer for the rest of the walk, and a walk that ends on a write root
 * fills it. It returns WALK_DONE when a root decided; WALK_ON
 * with state->pos where the general walk goes on (the mount's root, the
 * top of the file system, or FAST_WALK_STEPS up); WALK_GENERAL when the
 * general walk must decide from the target instead: a socket, which an
 * --allow-unix entry (not tagged) may name, or a root of a policy with
 * read-only or hidden paths (judge_root). The dentry must be typed
 * (BTF: a hook's argument, or loaded from one), so that the verifier lets
 * the walk load its fields directly. The loop is unrolled: as a loop, it
 * came out with its latch falling through into its head, a back-edge that
 * the verifiers of 5.10 and 6.1 accept only from a jump ("back-edge from
 * insn").
 */
static __always_inline int walk_fast(struct walk_state *state, struct dentry *dentry,
				     struct dentry *mnt_root)
{
	struct inode *inode = dentry->d_inode, *cached_dir = NULL;
	struct cgward_root_tag *tag;
	struct dentry *parent;
	__u32 rename_seq = 1;
	int judged;

	if (inode && (inode->i_mode & S_IFMT) == S_IFSOCK)
		return WALK_GENERAL;
#pragma clang loop unroll(full)
	for (int step = 0; step < FAST_WALK_STEPS; step++) {
		/* The target's directory: walk_cache may answer for the rest. */
		if (step == 1) {
			rename_seq = rename_count();
			cached_dir = walk_cache_inode(dentry, mnt_root, rename_seq);
			if (cached_dir && walk_cache_allows(state, cached_dir, rename_seq)) {
				state->result.reason = 0;
				return WALK_DONE;
			}
		}
		inode = dentry->d_inode;
		tag = inode ? bpf_inode_storage_get(&root_tags, inode, 0, 0) : NULL;
		if (tag) {
			judged = judge_root(state, inode->i_sb->s_dev, inode->i_ino, true);
			if (judged == WALK_GENERAL)
				return WALK_GENERAL;
			if (judged == WALK_DONE)
				goto decided;
		}
		if (dentry == mnt_root)
			break;
		parent = dentry->d_parent;
		if (parent == dentry)
			break;
		dentry = parent;
		state->first_step = 0;
		state->depth++;
	}
	state->pos.dentry = (__u64)dentry;
	return WALK_ON;
decided:
	if (cached_dir && !state->result.reason)
		walk_cache_fill(cached_dir, rename_seq, inode->i_ino);
	return WALK_DONE;
}

/*
 * The verdict on one target. A tag is only a hint (an inode that left
 * memory comes back without one), so the fast walk and the general walk
 * after it may only allow: any other verdict comes from the general walk
 * from the target, which looks every directory up. Without fast, the
 * general walk alone: the target's dentry need not be typed then, and
 * mnt_root (the root of its mount, for the fast walk) is not used.
 */
static __always_inline void walk_to_root(__u32 policy_id, const struct write_target *target,
					 bool fast, struct dentry *mnt_root,
					 struct walk_result *result)
{
	const struct walk_state start = {
	    .pos = {.dentry = (__u64)target->dentry, .mnt = walk_mount(target->mnt)},
	    .policy_id = policy_id,
	    .flags = target->flags,
	    .first_step = 1,
	    .result = {.reason = CGWARD_REASON_TOO_DEEP, .policy_id = policy_id},
	};
	struct walk_state state = start;
	int walked;

	if (fast) {
		walked = walk_fast(&state, target->dentry, mnt_root);
		if (walked == WALK_ON)
			walk_path_on(&state);
		if (walked != WALK_GENERAL && !state.result.reason) {
			*result = state.result;
			return;
		}
		state = start;
	}
	walk_path_on(&state);
	*result = state.result;
}

/*
 * Both targets of a request must lie beneath a root of policy_id. The fast
 * walk is unrolled wherever it is inlined, and the verifier checks every
 * copy at load: only the common case has one, the first path under the
 * cgroup's own policy (fast); a rename's or link's second path, and a
 * mandatory rule's walks, take the general walk.
 */
static __always_inline void walk_request(__u32 policy_id, const struct write_request *request,
					 bool fast, struct walk_result *result)
{
	struct vfsmount *mnt = request->path.mnt;

	walk_to_root(policy_id, &request->path, fast,
		     fast && mnt ? BPF_CORE_READ(mnt, mnt_root) : NULL, result);
	if (!result->reason && request->target.dentry)
		walk_to_root(policy_id, &request->target, false, NULL, result);
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
	scratch->event.arg = request->arg;
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
static __always_inline bool on_protected_fs(unsigned long magic)
{
	return magic == BPF_FS_MAGIC || magic == CGROUP_SUPER_MAGIC || magic == CGROUP2_SUPER_MAGIC;
}

/*
 * Whether task is in policy's boundary: its cgroup is bound with the same
 * policy, at the same cgroup or inherited from it.
 */
static __always_inline bool in_boundary(const struct cgward_cgroup_policy *policy,
					struct task_struct *task)
{
	__u64 cgroup_id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	struct cgward_cgroup_policy *peer = bpf_map_lookup_elem(&cgroup_policy, &cgroup_id);

	return peer && peer->policy_id == policy->policy_id &&
	       peer->boundary_id == policy->boundary_id;
}

/* A /proc entry's name, zero-padded, compared a word at a time. */
union proc_entry_name {
	char name[16];
	__u64 words[2];
};

#define ANY_PROCESS 1
/*
 * The maps of the task's user namespace: only its own process may write
 * them. A task of the boundary may have entered a namespace of a process
 * outside (setns); through its /proc/PID, a process of the boundary in the
 * parent namespace could write any map there. In the namespace itself, the
 * kernel lets a process map only the owner's uid, as the owner could.
 */
#define OWN_PROCESS 2

struct own_proc_entry {
	union proc_entry_name name;
	__u32 writer; /* ANY_PROCESS, OWN_PROCESS */
};

/*
 * The per-process /proc entries whose writes change their process alone
 * (docs/enforcement.md has the table, and why the others, attr/ and
 * autogroup, loginuid among them, stay outside). A list of what is known
 * to be inside: an entry a later kernel adds stays denied until judged.
 */
static const struct own_proc_entry own_proc_entries[] = {
    {{"comm"}, ANY_PROCESS},	       {{"oom_score_adj"}, ANY_PROCESS},
    {{"oom_adj"}, ANY_PROCESS},	       {{"coredump_filter"}, ANY_PROCESS},
    {{"timerslack_ns"}, ANY_PROCESS},  {{"clear_refs"}, ANY_PROCESS},
    {{"sched"}, ANY_PROCESS},	       {{"mem"}, ANY_PROCESS},
    {{"timens_offsets"}, ANY_PROCESS}, {{"uid_map"}, OWN_PROCESS},
    {{"gid_map"}, OWN_PROCESS},	       {{"projid_map"}, OWN_PROCESS},
    {{"setgroups"}, OWN_PROCESS},
};

/*
 * Whether dentry, on procfs, is one of own_proc_entries of a task in
 * policy's boundary (of the caller's own process, for OWN_PROCESS). The
 * task is the one its directory's proc inode (/proc/PID,
 * /proc/PID/task/TID) holds now: the struct pid that the directory's
 * lookup found, which a reused PID number does not share, and which a
 * reaped task has left (denied). The directory, since an open with O_CREAT
 * of an entry not in the dcache yet asks path_mknod first, of a dentry
 * without an inode. Other proc directories (/proc, /proc/sys,
 * /proc/PID/net) hold no pid. Not inlined: the name buffer on the hook's
 * own stack pushed file_open's deepest call chain (through report()) past
 * the 512 bytes BPF allows.
 */
static __noinline bool own_proc_entry(const struct cgward_cgroup_policy *policy,
				      struct dentry *dentry)
{
	union proc_entry_name entry = {};
	struct inode *dir = dentry->d_parent->d_inode;
	struct task_struct *task;
	struct proc_inode *proc;
	struct hlist_node *link;
	struct pid *pid;
	__u32 writer = 0;

	if (!dir || dentry->d_name.len >= sizeof(entry.name))
		return false;
	bpf_probe_read_kernel_str(entry.name, sizeof(entry.name), dentry->d_name.name);
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < sizeof(own_proc_entries) / sizeof(own_proc_entries[0]); i++) {
		if (entry.words[0] == own_proc_entries[i].name.words[0] &&
		    entry.words[1] == own_proc_entries[i].name.words[1])
			writer = own_proc_entries[i].writer;
	}
	if (!writer)
		return false;
	proc = (void *)dir - bpf_core_field_offset(struct proc_inode, vfs_inode);
	pid = BPF_CORE_READ(proc, pid);
	link = pid ? BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first) : NULL;
	if (!link)
		return false;
	task = (void *)link - bpf_core_field_offset(struct task_struct, pid_links);
	if (writer == OWN_PROCESS && BPF_CORE_READ(task, tgid) != bpf_get_current_pid_tgid() >> 32)
		return false;
	return in_boundary(policy, task);
}

static __always_inline struct boundary_owner
boundary_owner_of(const struct cgward_cgroup_policy *policy)
{
	return (struct boundary_owner){.boundary_id = policy->boundary_id,
				       .policy_id = policy->policy_id};
}

/* Whether owner (NULL: none) is policy's boundary. */
static __always_inline bool owned_by(const struct boundary_owner *owner,
				     const struct cgward_cgroup_policy *policy)
{
	return owner && owner->policy_id == policy->policy_id &&
	       owner->boundary_id == policy->boundary_id;
}

/* A file system that holds only memory: what a user namespace's tmpfs may be its own. */
static __always_inline bool memory_fs(const struct super_block *sb)
{
	return sb->s_magic == TMPFS_MAGIC || sb->s_magic == RAMFS_MAGIC;
}

/*
 * Whether sb is a tmpfs or ramfs that a task of policy's boundary mounted in
 * a mount namespace of a user namespace (mounts.bpf.c): memory that only its
 * namespace reaches, where every write is inside.
 */
static __always_inline bool own_namespace_fs(const struct cgward_cgroup_policy *policy,
					     struct super_block *sb)
{
	struct inode *root;

	/* Only a user namespace's is tagged (mounts.bpf.c): no storage lookup for the host's. */
	if (!memory_fs(sb) || !sb->s_user_ns->level)
		return false;
	root = sb->s_root->d_inode;
	return root && owned_by(bpf_inode_storage_get(&namespace_fs, root, 0, 0), policy);
}

/*
 * The decision for an operation on one or two targets (rename and link have
 * two), under the calling task's policy (current_policy(), not NULL).
 * typed: the request's dentries are typed pointers (BTF), as the hooks'
 * arguments and the fields loaded from them are, which the fast walk needs;
 * a constant, so that the compiler drops the fast walk where they are not.
 */
static __always_inline int decide_for(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
				      const struct write_request *request, const bool typed)
{
	struct walk_result result = {.policy_id = policy->policy_id};
	struct super_block *path_sb = dentry_sb(request->path.dentry, typed);
	struct super_block *target_sb = dentry_sb(request->target.dentry, typed);
	unsigned long path_magic = sb_magic(path_sb, typed);

	if (on_protected_fs(path_magic) || on_protected_fs(sb_magic(target_sb, typed))) {
		result.reason = CGWARD_REASON_PROTECTED_FS;
	} else if (overlay_own_work(path_sb, target_sb)) {
		return 0;
	} else if (typed && path_sb && (!target_sb || target_sb == path_sb) &&
		   own_namespace_fs(policy, path_sb)) {
		return 0; /* a tmpfs of the boundary's own user namespace: its memory */
	} else if (typed && path_magic == PROC_SUPER_MAGIC && !request->target.dentry &&
		   own_proc_entry(policy, request->path.dentry)) {
		return 0; /* the boundary's own process: inside, whatever the roots */
	} else {
		overlay_note_operation(path_sb, target_sb, typed);
		walk_request(policy->policy_id, request, typed, &result);
	}
	if (!result.reason && policy->mandatory_id) {
		result.policy_id = policy->mandatory_id;
		walk_request(policy->mandatory_id, request, false, &result);
	}
	if (!result.reason)
		return 0;
	report(policy, cgroup_id, request, &result);
	return denied(policy);
}

/*
 * A mount that no mount namespace holds (MNT_NS_INTERNAL): overlayfs'
 * private clones of its layers, and the kernel's own (pipes, memfds,
 * namespace files). No path reaches a file there: overlayfs opens its
 * layers' files and directories for a read of the overlay, judged already,
 * and a task reaches the others only through a descriptor it has. A task of
 * a boundary mounts no overlay of its own (mounts.bpf.c).
 */
static __always_inline bool internal_mount(struct vfsmount *vfsmnt)
{
	struct mount *mnt = (struct mount *)walk_mount(vfsmnt);

	return mnt && (long)BPF_CORE_READ(mnt, mnt_ns) == -EINVAL;
}

/*
 * A read's verdict under one policy: the nearest entry above decides
 * (hidden denies, any other root allows); reaching the top denies only
 * where the policy confines reads (confined). fast, mnt_root: as
 * walk_to_root's.
 */
static __always_inline void walk_read(__u32 policy_id, const struct write_target *path,
				      bool confined, bool fast, struct dentry *mnt_root,
				      struct walk_result *result)
{
	result->policy_id = policy_id;
	walk_to_root(policy_id, path, fast, mnt_root, result);
	if (result->reason == CGWARD_REASON_OUTSIDE_ROOTS && !confined)
		result->reason = 0;
}

/*
 * The decision on a read (request->path.flags has TARGET_READ), for a
 * policy with CGWARD_POLICY_JUDGE_READS: under the policy, then under the
 * mandatory one. The fast walk serves a policy that confines reads, whose
 * reads end at a root; one that only hides paths walks to the top anyway.
 * mnt_root: the root of the path's mount, loaded typed by the hook (a
 * helper call less than reading it through the request: reads are many).
 * An internal mount is asked about first: overlayfs opens its layers'
 * files there (with backing files, on newer kernels, for every read of an
 * overlay file), and a walk from one would cost as much again.
 */
static __always_inline int decide_read_for(const struct cgward_cgroup_policy *policy,
					   __u64 cgroup_id, const struct write_request *request,
					   struct dentry *mnt_root)
{
	struct walk_result result = {};
	bool confined = policy->flags & CGWARD_POLICY_READ_ROOTS;

	if (internal_mount(request->path.mnt) ||
	    own_namespace_fs(policy, request->path.dentry->d_sb))
		return 0;
	walk_read(policy->policy_id, &request->path, confined, confined, mnt_root, &result);
	if (!result.reason && policy->mandatory_id)
		walk_read(policy->mandatory_id, &request->path,
			  policy->flags & CGWARD_POLICY_MANDATORY_READ_ROOTS, false, NULL, &result);
	if (!result.reason)
		return 0;
	report(policy, cgroup_id, request, &result);
	return denied(policy);
}

/* Denies request for a reason that needs no walk (a device, a terminal), with its event. */
static __always_inline int deny_request(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
					const struct write_request *request, __u32 reason)
{
	struct walk_result result = {.reason = reason, .policy_id = policy->policy_id};

	report(policy, cgroup_id, request, &result);
	return denied(policy);
}

/*
 * The decision, for hooks whose dentries are typed (every hook but the unix
 * socket ones): tasks in cgroups without a policy return after one map lookup.
 */
static __always_inline int decide(const struct write_request *request)
{
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);

	return policy ? decide_for(policy, cgroup_id, request, true) : 0;
}

#endif
