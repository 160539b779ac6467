// SPDX-License-Identifier: GPL-2.0
/*
 * Changes to a directory's entries and to inode attributes, through the
 * path hooks (CONFIG_SECURITY_PATH): they carry the mount, so the walk can
 * cross mount points like path resolution does.
 */
#include "devices.bpf.h"

static __always_inline int decide_one(__u16 op, const struct path *dir, struct dentry *dentry,
				      __u32 flags)
{
	struct write_request request = {
	    .op = op,
	    .path = {.dentry = dentry, .mnt = dir->mnt, .flags = flags},
	};

	return decide(&request);
}

static __always_inline int decide_path(__u16 op, const struct path *target)
{
	/* A direct load: the fast walk needs the dentry typed (BTF), not read as a number. */
	return decide_one(op, target, target->dentry, 0);
}

/*
 * A new device node is denied wherever it would be made: inside a root it
 * would open the device to writes (devices.bpf.h). A whiteout is no device.
 */
static __always_inline int decide_device_node(const struct path *dir, struct dentry *dentry)
{
	struct write_request request = {
	    .op = CGWARD_OP_MKNOD,
	    .path = {.dentry = dentry, .mnt = dir->mnt},
	};
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id;

	policy = current_policy(&cgroup_id);
	if (!policy)
		return 0;
	return deny_request(policy, cgroup_id, &request, CGWARD_REASON_DEVICE);
}

/* Reached by open(O_CREAT) of a new file as well as by mknod(2). */
SEC("lsm/path_mknod")
int BPF_PROG(path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	if (ret)
		return ret;
	if (is_device_node(mode) && !is_whiteout(mode, dev))
		return decide_device_node(dir, dentry);
	mode &= S_IFMT;
	return decide_one(mode == S_IFREG || !mode ? CGWARD_OP_CREATE : CGWARD_OP_MKNOD, dir,
			  dentry, 0);
}

SEC("lsm/path_mkdir")
int BPF_PROG(path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return decide_one(CGWARD_OP_MKDIR, dir, dentry, 0);
}

SEC("lsm/path_rmdir")
int BPF_PROG(path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return decide_one(CGWARD_OP_RMDIR, dir, dentry, TARGET_DEPARTS);
}

SEC("lsm/path_unlink")
int BPF_PROG(path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return decide_one(CGWARD_OP_UNLINK, dir, dentry, TARGET_DEPARTS);
}

SEC("lsm/path_symlink")
int BPF_PROG(path_symlink, const struct path *dir, struct dentry *dentry, const char *old_name,
	     int ret)
{
	if (ret)
		return ret;
	return decide_one(CGWARD_OP_SYMLINK, dir, dentry, 0);
}

/*
 * The source counts too: a hard link of a file from outside the roots into
 * one would make that file writable. Links never cross mounts (EXDEV), so
 * the source shares the new directory's mount.
 */
SEC("lsm/path_link")
int BPF_PROG(path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	struct vfsmount *mnt = new_dir->mnt;
	struct write_request request = {
	    .op = CGWARD_OP_LINK,
	    .path = {.dentry = old_dentry, .mnt = mnt},
	    .target = {.dentry = new_dentry, .mnt = mnt},
	};

	if (ret)
		return ret;
	return decide(&request);
}

/*
 * Both ends must be inside the roots: moving in from outside would bring in
 * a file that is writable elsewhere, moving out would write outside. With
 * RENAME_EXCHANGE both ends depart and arrive, which the same checks cover
 * (before 5.19 the kernel called the hook once per direction).
 *
 * 5.19 appended a flags argument. Only the four arguments every kernel has
 * are declared, so that one program loads on all of them; it does without
 * the earlier programs' verdict that follows the arguments, since a program
 * only runs while every earlier one returned 0 (BPF_MODIFY_RETURN).
 */
SEC("lsm/path_rename")
int BPF_PROG(path_rename, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry)
{
	struct write_request request = {
	    .op = CGWARD_OP_RENAME,
	    .path = {.dentry = old_dentry, .mnt = old_dir->mnt, .flags = TARGET_DEPARTS},
	    .target = {.dentry = new_dentry, .mnt = new_dir->mnt, .flags = TARGET_DEPARTS},
	};

	return decide(&request);
}

SEC("lsm/path_truncate")
int BPF_PROG(path_truncate, const struct path *path, int ret)
{
	if (ret)
		return ret;
	return decide_path(CGWARD_OP_TRUNCATE, path);
}

SEC("lsm/path_chmod")
int BPF_PROG(path_chmod, const struct path *path, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return decide_path(CGWARD_OP_SETATTR, path);
}

SEC("lsm/path_chown")
int BPF_PROG(path_chown, const struct path *path, __u32 uid, __u32 gid, int ret)
{
	if (ret)
		return ret;
	return decide_path(CGWARD_OP_SETATTR, path);
}
