// SPDX-License-Identifier: GPL-2.0
/*
 * Mounts. On a mount tree of the initial user namespace (the host's, or one
 * root made with unshare -m alone), a bind or a tmpfs over a directory would
 * change what a path reaches for every task there: a task of an enforced
 * cgroup may change none. A mount namespace that a user namespace owns
 * (unshare -Urm, bwrap --unshare-user) changes only what its own tasks see,
 * within what the kernel lets any user do there; its mounts are allowed, and
 * the walk does not follow them upward (step_up), so a bind of an outside
 * directory beneath a write root lets nothing through. New file systems
 * there are those holding no host data (namespace_fs_type); a tmpfs that a
 * boundary mounts is its own memory (own_namespace_fs).
 */
#include "hatch.bpf.h"

/* include/uapi/linux/mount.h: what mount(2) does besides mounting a new file system. */
#define MS_REMOUNT    32
#define MS_BIND	      4096
#define MS_MOVE	      8192
#define MS_UNBINDABLE (1 << 17)
#define MS_PRIVATE    (1 << 18)
#define MS_SLAVE      (1 << 19)
#define MS_SHARED     (1 << 20)
#define MS_NOT_NEW_FS \
	(MS_REMOUNT | MS_BIND | MS_MOVE | MS_UNBINDABLE | MS_PRIVATE | MS_SLAVE | MS_SHARED)

/* Whether the calling task's mount namespace belongs to a user namespace of its own. */
static __always_inline bool in_user_namespace_mounts(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, nsproxy, mnt_ns, user_ns, level) > 0;
}

/* A file system type's name, zero-padded, compared as one word. */
union fs_type_name {
	char name[8];
	__u64 word;
};

/*
 * The file systems a user namespace's own mount namespace may mount: memory
 * (tmpfs, ramfs) and views of its own namespaces (proc, sysfs, devpts,
 * mqueue), which bubblewrap mounts. Not overlayfs or FUSE: an overlay's
 * mount cleans its work directory and writes into its upper layer, a host
 * directory, with its mounter's credentials.
 */
static const union fs_type_name namespace_fs_types[] = {
    {"tmpfs"}, {"ramfs"}, {"proc"}, {"sysfs"}, {"devpts"}, {"mqueue"},
};

static __always_inline bool namespace_fs_type(const char *type)
{
	union fs_type_name name = {};

	if (!type || bpf_probe_read_kernel_str(name.name, sizeof(name.name), type) < 0)
		return false;
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < sizeof(namespace_fs_types) / sizeof(namespace_fs_types[0]); i++) {
		if (name.word == namespace_fs_types[i].word)
			return true;
	}
	return false;
}

/* mount(2) of any kind: binds, remounts and propagation changes too. */
SEC("lsm/sb_mount")
int BPF_PROG(sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	if (ret)
		return ret;
	if (in_user_namespace_mounts() && ((flags & MS_NOT_NEW_FS) || namespace_fs_type(type)))
		return 0;
	return deny_hatch_at(CGWARD_OP_MOUNT, path, NULL, (__u32)flags);
}

/*
 * Attaches what open_tree(2) cloned or fsmount(2) made. Both stay harmless
 * while detached: no write root is beneath a detached tree, so writes into
 * it are already denied.
 */
SEC("lsm/move_mount")
int BPF_PROG(move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	if (ret || in_user_namespace_mounts())
		return ret;
	return deny_hatch_at(CGWARD_OP_MOVE_MOUNT, from_path, to_path, 0);
}

SEC("lsm/sb_umount")
int BPF_PROG(sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	if (ret || in_user_namespace_mounts())
		return ret;
	return deny_hatch(CGWARD_OP_UMOUNT, BPF_CORE_READ(mnt, mnt_root), mnt, NULL, (__u32)flags);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	if (ret || in_user_namespace_mounts())
		return ret;
	return deny_hatch_at(CGWARD_OP_PIVOT_ROOT, new_path, old_path, 0);
}

/*
 * fsconfig(2) on a context from fspick(2) reconfigures a mounted file
 * system (a remount: read-only, sizes, options) without sb_mount, and one
 * from fsopen(2) configures a new one. Every parameter passes here, mount(2)'s
 * too. A context of a user namespace (the file system's, for a remount) is
 * that namespace's business, for the file systems it may mount.
 */
SEC("lsm/fs_context_parse_param")
int BPF_PROG(fs_context_parse_param, struct fs_context *fc, struct fs_parameter *param, int ret)
{
	if (ret)
		return ret;
	if (BPF_CORE_READ(fc, user_ns, level) > 0 &&
	    namespace_fs_type(BPF_CORE_READ(fc, fs_type, name)))
		return 0;
	return deny_hatch(CGWARD_OP_FSCONFIG, BPF_CORE_READ(fc, root), NULL, NULL, 0);
}

/*
 * A tmpfs or ramfs mounted by a task of a boundary, in a user namespace's
 * mount namespace, is the boundary's own: own_namespace_fs lets it write
 * there. Recorded on the root's inode, so that it ends with the file
 * system. Called for mount(2) and fsconfig(FSCONFIG_CMD_CREATE) alike.
 */
SEC("lsm/sb_kern_mount")
int BPF_PROG(sb_kern_mount, struct super_block *sb, int ret)
{
	struct cgward_cgroup_policy *policy;
	struct boundary_owner owner;
	__u64 cgroup_id;

	if (ret)
		return ret;
	policy = current_policy(&cgroup_id);
	if (!policy || !sb->s_user_ns->level || !memory_fs(sb) || !sb->s_root->d_inode)
		return 0;
	owner = boundary_owner_of(policy);
	bpf_inode_storage_get(&namespace_fs, sb->s_root->d_inode, &owner,
			      BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}
