// SPDX-License-Identifier: GPL-2.0
/*
 * Opening an existing file for writing (or to truncate it); and, where the
 * policy hides paths, for reading, listing or executing.
 */
#include "devices.bpf.h"

/* Generic values; the architectures that differ (alpha, sparc, parisc) are not targets. */
#define FMODE_WRITE 0x2
/*
 * execve's opens (the binary, its interpreter) carry it in the open flags,
 * where Landlock reads it too.
 */
#define __FMODE_EXEC  0x20
#define S_IFDIR	      0040000
#define FMODE_CREATED 0x100000
#define O_CREAT	      00000100
#define O_TRUNC	      00001000
#define __O_TMPFILE   020000000

/*
 * Pipes and sockets carry data, they are not file system writes. Nor is a
 * pidfd: from 6.9, pidfd_open(2) opens its pidfs file read-write through
 * this hook, and a pidfd is a handle on a process, whose uses the ptrace
 * and signal hooks judge.
 */
static __always_inline bool is_file_system_write(struct inode *inode)
{
	umode_t mode = inode->i_mode & S_IFMT;

	if (mode == S_IFIFO || mode == S_IFSOCK)
		return false;
	return inode->i_sb->s_magic != PID_FS_MAGIC;
}

/*
 * A file that this open has just created: path_mknod (from may_o_create)
 * judged its creation in its directory, for this task, before the file
 * system made it, and a creation it denies is not made. An O_TMPFILE is
 * created without that hook: its open is judged here.
 */
static __always_inline bool created_by_this_open(const struct file *file)
{
	return (file->f_mode & FMODE_CREATED) && !(file->f_flags & __O_TMPFILE);
}

/* What an open that does not write does: executes, lists or reads. */
static __always_inline __u16 read_op(const struct file *file)
{
	if (file->f_flags & __FMODE_EXEC)
		return CGWARD_OP_EXEC;
	if ((file->f_inode->i_mode & S_IFMT) == S_IFDIR)
		return CGWARD_OP_READDIR;
	return CGWARD_OP_OPEN_READ;
}

/*
 * An open that does not write, judged only where the policy judges reads.
 * A hidden file's descriptor passed in from outside is not an open here.
 */
static __noinline int decide_read_open(struct file *file)
{
	struct write_request request = {.op = read_op(file)};
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id;

	policy = current_policy(&cgroup_id);
	if (!policy || !(policy->flags & CGWARD_POLICY_JUDGE_READS))
		return 0;
	request.path.dentry = file->f_path.dentry;
	request.path.mnt = file->f_path.mnt;
	request.path.flags = TARGET_READ;
	return decide_read_for(policy, cgroup_id, &request, file->f_path.mnt->mnt_root);
}

/*
 * An open that writes or truncates. Apart from the read decision (each
 * with its walk's state on its own stack: together, in file_open's frame,
 * they went past the 512 bytes BPF allows a call chain).
 */
static __noinline int decide_write_open(struct file *file)
{
	struct write_request request = {.op = CGWARD_OP_OPEN_WRITE};
	struct cgward_cgroup_policy *policy;
	struct inode *inode;
	__u64 cgroup_id;

	if (created_by_this_open(file))
		return 0;
	policy = current_policy(&cgroup_id);
	if (!policy)
		return 0;
	inode = file->f_inode;
	request.path.dentry = file->f_path.dentry;
	request.path.mnt = file->f_path.mnt;
	/* A device is judged by what it is, wherever its node lives. */
	if (is_device_node(inode->i_mode)) {
		if ((inode->i_mode & S_IFMT) == S_IFCHR && is_harmless_chardev(inode->i_rdev))
			return 0;
		return decide_device(policy, cgroup_id, &request, inode);
	}
	if (!is_file_system_write(inode))
		return 0;
	return decide_for(policy, cgroup_id, &request, true);
}

/*
 * The cheap checks first: the open mode and flags (fields of the file),
 * then the task's policy (one map lookup, and for most tasks the end), then
 * what the file is.
 */
SEC("lsm/file_open")
int BPF_PROG(file_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	if (!(file->f_mode & FMODE_WRITE) && !(file->f_flags & (O_TRUNC | O_CREAT)))
		return decide_read_open(file);
	return decide_write_open(file);
}

char LICENSE[] SEC("license") = "GPL";
