/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Overlayfs' own writes on its upper layer, done on behalf of an operation
 * on the overlay that decide() has already judged.
 *
 * Overlayfs implements a write on a merged path by writing its upper layer
 * through the VFS: copy-up opens a temporary upper file for writing
 * (dentry_open, so file_open fires), copies the times with notify_change
 * (inode_setattr) and the xattrs with vfs_setxattr (inode_setxattr); setattr,
 * setxattr and rename on the overlay do the same to the upper dentry. These
 * nested hook calls run in the writer's own task, so they would be judged
 * as its writes, on dentries of the upper file system that no walk can
 * relate to the overlay's roots (the upper mount is a private clone with no
 * place in any namespace): false denies.
 *
 * How the nested calls are recognized: overlayfs makes each of them with
 * its mounter's credentials, ovl_override_creds(sb), which installs
 * ovl_fs->creator_cred as current->cred (fs/overlayfs/util.c, 5.13 to 6.18).
 * That cred is prepared at mount time, held by the ovl_fs and never
 * committed to a task, and no other code installs it. So a hook call is
 * overlayfs' own work on overlay S when current->cred != current->real_cred
 * (an override is in effect) and current->cred == S's creator_cred (or the
 * credential S derived from it for a creation under way: overlay_creations),
 * and the dentry is on S's upper file system. S is the overlay that the thread's
 * last judged operation targeted (overlay_note_operation): every write that
 * makes overlayfs write (open for writing, setattr, xattrs, create, link,
 * unlink, rename, mkdir, rmdir) reaches a cgward hook on the overlay's
 * dentry first, since the LSM hook precedes the file system's method.
 *
 * Why it is safe: a confined task cannot install another cred object with
 * override_creds() itself; the kernel paths that override credentials in a
 * task's context (io_uring personalities, faccessat, core dumps, cachefiles)
 * use their own cred objects, never an overlay's creator_cred, so they are
 * judged as before; an io_uring personality other than the task's own
 * credentials is refused (uring_override_creds), and a task's own are never
 * taken for overlayfs'. The upper and lower layers
 * reached by their own paths are judged by those paths: the task's own credentials are in effect
 * then. Overlayfs writes only the upper and work directories, and only what the judged operation
 * implies: the same change on the upper file, or a copy-up, which changes nothing the overlay
 * shows. The remembered overlay is checked live (an active super block of overlayfs), so a thread
 * whose overlay was unmounted since matches nothing.
 *
 * Overlayfs may be a module (Debian's 6.1): its types are then found in its
 * module BTF, if it is loaded when the programs are. Without them the check
 * is compiled out by CO-RE, and copy-up is denied as before.
 *
 * Where SELinux or Smack is active, copy-up runs with a cred that their
 * inode_copy_up hook derives from creator_cred, a different object: such
 * copy-ups are not recognized and stay denied (closed, not open).
 */
#ifndef CGWARD_OVERLAY_BPF_H
#define CGWARD_OVERLAY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "typed_read.bpf.h"

#define OVERLAYFS_SUPER_MAGIC 0x794c7630

#ifdef CGWARD_SCALAR_WALK_ARGS
/*
 * The object for kernels before 5.13 (walk.bpf.h): task storage and
 * bpf_get_current_task_btf() reach LSM programs only in 5.11, so overlayfs'
 * own work is not recognized there, and copy-ups inside a root are denied
 * (closed, not open).
 */
/*
 * The skeleton is the other object's, so the maps keep their names here, as
 * a map type 5.10 knows; nothing uses them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} overlay_operations SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} overlay_creations SEC(".maps") __weak;

static __always_inline void overlay_note_operation(struct super_block *path_sb,
						   struct super_block *target_sb, const bool typed)
{
}

static __always_inline bool overlay_own_work(struct super_block *path_sb,
					     struct super_block *target_sb)
{
	return false;
}

static __always_inline void overlay_note_creation(struct dentry *dentry, const struct cred *cred)
{
}
#else

struct overlay_operation {
	__u64 overlay_sb; /* struct super_block * of the overlay last written through */
};

/* Per thread: the overlay its last judged operation targeted. Freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct overlay_operation);
} overlay_operations SEC(".maps") __weak;

/*
 * Remembers the overlay that an operation about to be judged targets, if
 * any: the super blocks of its dentries (target_sb NULL for none), typed as
 * they were.
 */
static __always_inline void overlay_note_operation(struct super_block *path_sb,
						   struct super_block *target_sb, const bool typed)
{
	struct super_block *sb = NULL;
	struct overlay_operation *operation;

	if (sb_magic(path_sb, typed) == OVERLAYFS_SUPER_MAGIC)
		sb = path_sb;
	else if (sb_magic(target_sb, typed) == OVERLAYFS_SUPER_MAGIC)
		sb = target_sb;
	if (!sb)
		return;
	operation = bpf_task_storage_get(&overlay_operations, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (operation)
		operation->overlay_sb = (__u64)sb;
}

/*
 * A file overlayfs creates on its upper layer is made with a credential
 * that ovl_create_or_link() derives from creator_cred for that creation
 * alone (fsuid and fsgid of the new inode) and installs over it: the
 * capability checks of the creation (trusted.overlay.opaque on a directory
 * made over a whiteout needs CAP_SYS_ADMIN) are made with it. Per thread,
 * that credential and its overlay, from dentry_create_files_as, a hook
 * only overlayfs calls, just before it installs the credential.
 */
struct overlay_creation {
	__u64 cred;	  /* struct cred * */
	__u64 overlay_sb; /* struct super_block * */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct overlay_creation);
} overlay_creations SEC(".maps") __weak;

static __always_inline void overlay_note_creation(struct dentry *dentry, const struct cred *cred)
{
	struct super_block *sb = dentry->d_sb;
	struct overlay_creation *creation;

	if (sb->s_magic != OVERLAYFS_SUPER_MAGIC)
		return;
	creation = bpf_task_storage_get(&overlay_creations, bpf_get_current_task_btf(), 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (creation) {
		creation->cred = (__u64)cred;
		creation->overlay_sb = (__u64)sb;
	}
}

/* cred is the one of a creation under way on overlay. */
static __always_inline bool overlay_creating(struct task_struct *task, const struct cred *cred,
					     struct super_block *overlay)
{
	struct overlay_creation *creation = bpf_task_storage_get(&overlay_creations, task, 0, 0);

	return creation && creation->cred == (__u64)cred && creation->overlay_sb == (__u64)overlay;
}

/* The upper file system of the overlay the thread is writing through, if overlayfs is at work. */
static __always_inline struct super_block *overlay_upper_at_work(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *cred = task->cred;
	struct overlay_operation *operation;
	struct super_block *overlay;
	struct ovl_fs *ofs;

	if (!bpf_core_type_exists(struct ovl_fs))
		return NULL;
	if (cred == task->real_cred)
		return NULL;
	operation = bpf_task_storage_get(&overlay_operations, task, 0, 0);
	if (!operation || !operation->overlay_sb)
		return NULL;
	overlay = (struct super_block *)operation->overlay_sb;
	if (BPF_CORE_READ(overlay, s_magic) != OVERLAYFS_SUPER_MAGIC ||
	    BPF_CORE_READ(overlay, s_active.counter) <= 0 || !BPF_CORE_READ(overlay, s_root))
		return NULL;
	ofs = BPF_CORE_READ(overlay, s_fs_info);
	if (!ofs ||
	    (BPF_CORE_READ(ofs, creator_cred) != cred && !overlay_creating(task, cred, overlay)))
		return NULL;
	/* layers[0] is the upper layer; its mount is NULL for an overlay without one. */
	return BPF_CORE_READ(ofs, layers, mnt, mnt_sb);
}

/*
 * Both targets of the request, by their super blocks (target_sb NULL for
 * none), are overlayfs' own upper-layer work.
 */
static __always_inline bool overlay_own_work(struct super_block *path_sb,
					     struct super_block *target_sb)
{
	struct super_block *upper;

	if (!path_sb)
		return false;
	upper = overlay_upper_at_work();
	if (!upper)
		return false;
	return path_sb == upper && (!target_sb || target_sb == upper);
}

#endif /* CGWARD_SCALAR_WALK_ARGS */

#endif
