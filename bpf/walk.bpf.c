// SPDX-License-Identifier: GPL-2.0
/*
 * The path walks and their steps, as global functions: the verifier checks
 * each once, on its own, and its caller sees only that it returned. Inlined,
 * a walk leaves CGWARD_MAX_DEPTH states that differ in how far it went, and
 * a hook with two paths (rename, link, move_mount) verified the second walk
 * once for each of them: 600000 instructions, seconds of load time.
 */
#include "decision.bpf.h"

const volatile __u64 rename_lock_addr = 0;

/*
 * One step up a path: from the root of a mount to the directory it is
 * mounted on, or from a dentry to its parent. False at the root of the mount
 * namespace (or of a pseudo file system), where every path ends. Without a
 * mount (inode hooks), the walk stays within the dentry's file system.
 *
 * In a mount namespace that a user namespace owns, the walk stays within
 * the file system too: a task there may have placed any of its mounts
 * (mounts.bpf.c allows them), a bind of /etc beneath a write root included,
 * and the kernel's MNT_LOCKED tells no more than that a parent namespace
 * placed it, which may be the task's own nested one.
 */
static __always_inline bool step_up(struct walk_pos *pos)
{
	struct dentry *dentry = (struct dentry *)pos->dentry, *up;
	struct mount *mnt = (struct mount *)pos->mnt, *parent;

	if (mnt && dentry == BPF_CORE_READ(mnt, mnt.mnt_root)) {
		parent = BPF_CORE_READ(mnt, mnt_parent);
		if (parent == mnt)
			return false;
		if (!BPF_CORE_READ(mnt, mnt_ns, user_ns, level)) {
			pos->dentry = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
			pos->mnt = (__u64)parent;
			pos->crossed_mount = 1;
			return true;
		}
		pos->mnt = 0; /* a user namespace's mount: on within the file system */
	}
	up = BPF_CORE_READ(dentry, d_parent);
	if (up == dentry)
		return false;
	pos->dentry = (__u64)up;
	pos->crossed_mount = 0;
	return true;
}

/* d_obtain_alias's mark on a dentry found by a file handle, cleared once it is linked into the
 * tree. */
#define DCACHE_DISCONNECTED 0x20

/*
 * Whether the walk stopped at a dentry that open_by_handle_at found with no
 * path up to its file system's root yet: the roots and hidden paths above it
 * are unknown, so nothing may be decided from its top (for a read, that it
 * met no hidden path). Pipes' and memfds' dentries have no parent either, but
 * are not marked.
 */
static __always_inline bool disconnected(struct dentry *dentry)
{
	return BPF_CORE_READ(dentry, d_parent) == dentry &&
	       (BPF_CORE_READ(dentry, d_flags) & DCACHE_DISCONNECTED);
}

/*
 * Judges the current directory (judge_root), then steps up. A negative
 * dentry (a name being created) has no identity of its own.
 */
__noinline int walk_step(WALK_PARAMS)
{
	WALK_STATE(state);
	struct dentry *dentry;
	struct inode *inode;

	if (!state)
		return WALK_DONE;
	if (state->depth >= CGWARD_MAX_DEPTH)
		return WALK_DONE; /* too deep: the result stays CGWARD_REASON_TOO_DEEP */
	dentry = (struct dentry *)state->pos.dentry;
	inode = BPF_CORE_READ(dentry, d_inode);
	if (inode && judge_root(state, BPF_CORE_READ(inode, i_sb, s_dev),
				BPF_CORE_READ(inode, i_ino), false) == WALK_DONE)
		return WALK_DONE;
	state->first_step = 0;
	state->depth++;
	if (!step_up(&state->pos)) {
		state->result.reason =
		    disconnected(dentry) ? CGWARD_REASON_DISCONNECTED : CGWARD_REASON_OUTSIDE_ROOTS;
		return WALK_DONE;
	}
	return WALK_ON;
}

/*
 * Prepends the current dentry's name to the path in scratch->reversed, then
 * steps up. Like d_path(), a path ends at the task's root, so it is the name
 * the task itself sees (in a chroot or a container too). Offsets are masked
 * so that the verifier sees every access in bounds.
 */
__noinline int name_step(NAME_PARAMS)
{
	NAME_STATE(state, scratch);
	struct dentry *dentry;
	const unsigned char *name;
	__u64 mnt;
	__u32 len;

	if (!state || !scratch)
		return WALK_DONE;
	if (state->pos.dentry == state->task_root && state->pos.mnt == state->task_root_mnt)
		return WALK_DONE;
	dentry = (struct dentry *)state->pos.dentry;
	mnt = state->pos.mnt;
	if (!step_up(&state->pos)) {
		/* step_up stayed within a file system that ends here: named from its root. */
		if (mnt && !state->pos.mnt)
			state->flags |= NAME_FROM_FS_ROOT;
		if (!state->pos.mnt)
			return WALK_DONE;
		/*
		 * The top of a mount tree: of the namespace, or of a detached
		 * tree (open_tree, fsmount) that has no name there. The name
		 * goes on within the file system, as the inode hooks name paths.
		 */
		state->pos.mnt = 0;
		return WALK_ON;
	}
	if (!state->pos.mnt)
		state->flags |= NAME_FROM_FS_ROOT;
	if (state->pos.crossed_mount)
		return WALK_ON; /* a mount's root has the name of its mount point */
	len = BPF_CORE_READ(dentry, d_name.len) & NAME_MAX;
	name = BPF_CORE_READ(dentry, d_name.name);
	if (len + 1 >= state->start) {
		state->flags |= NAME_TRUNCATED;
		return WALK_DONE;
	}
	state->start -= len;
	/*
	 * 6.12's verifier links len to len + 1 above and, syncing their
	 * bounds after the comparison, loses len's upper bound: mask it again
	 * where the compiler cannot drop the mask as redundant.
	 */
	barrier_var(len);
	len &= NAME_MAX;
	bpf_probe_read_kernel(&scratch->reversed[state->start & (CGWARD_PATH_MAX - 1)], len, name);
	state->start -= 1;
	scratch->reversed[state->start & (CGWARD_PATH_MAX - 1)] = '/';
	return WALK_ON;
}

/*
 * Walks up from state->pos until a root or the top decides, or
 * CGWARD_MAX_DEPTH steps in all (state->depth counts those a fast walk
 * took before); state->result says what.
 */
__noinline int walk_path(WALK_PARAMS)
{
	for (int depth = 0; depth <= CGWARD_MAX_DEPTH; depth++) {
		if (walk_step(WALK_ARGS) == WALK_DONE)
			return 0;
	}
	return 0;
}

/* Names state->pos in scratch->reversed; NAME_TRUNCATED when the name is cut short. */
__noinline int name_path(NAME_PARAMS)
{
	NAME_STATE(state, scratch);

	if (!state)
		return 0;
	for (int depth = 0; depth < CGWARD_MAX_DEPTH; depth++) {
		if (name_step(NAME_ARGS) == WALK_DONE)
			return 0;
	}
	state->flags |= NAME_TRUNCATED;
	return 0;
}
