// SPDX-License-Identifier: GPL-2.0
/* Opening an existing file for writing (or to truncate it). */
#include "decision.bpf.h"

/* Generic values; the architectures that differ (alpha, sparc, parisc) are not targets. */
#define FMODE_WRITE 0x2
#define O_CREAT	    00000100
#define O_TRUNC	    00001000

#define KERNEL_MKDEV(major, minor) (((major) << 20) | (minor))

/*
 * Character devices that every program writes to and that change no file:
 * /dev/null, zero, full, random, urandom, tty, ptmx and the pty slaves.
 */
static __always_inline bool is_harmless_chardev(dev_t rdev)
{
	__u32 major = rdev >> 20;

	switch (rdev) {
	case KERNEL_MKDEV(1, 3):
	case KERNEL_MKDEV(1, 5):
	case KERNEL_MKDEV(1, 7):
	case KERNEL_MKDEV(1, 8):
	case KERNEL_MKDEV(1, 9):
	case KERNEL_MKDEV(5, 0):
	case KERNEL_MKDEV(5, 2):
		return true;
	}
	return major >= 136 && major <= 143;
}

#define PID_FS_MAGIC 0x50494446

/*
 * Pipes and sockets carry data, they are not file system writes. Nor is a
 * pidfd: from 6.9, pidfd_open(2) opens its pidfs file read-write through
 * this hook, and a pidfd is a handle on a process, whose uses the ptrace
 * and signal hooks judge.
 */
static __always_inline bool is_file_system_write(struct inode *inode)
{
	umode_t mode = BPF_CORE_READ(inode, i_mode) & S_IFMT;

	if (mode == S_IFIFO || mode == S_IFSOCK)
		return false;
	if (BPF_CORE_READ(inode, i_sb, s_magic) == PID_FS_MAGIC)
		return false;
	return !(mode == S_IFCHR && is_harmless_chardev(BPF_CORE_READ(inode, i_rdev)));
}

/*
 * The cheap checks first: the open mode (a field of the file), then the
 * task's policy (one map lookup, and for most tasks the end), then what the
 * file is.
 */
SEC("lsm/file_open")
int BPF_PROG(file_open, struct file *file, int ret)
{
	struct write_request request = {.op = CGWARD_OP_OPEN_WRITE};
	__u64 cgroup_id;

	if (ret)
		return ret;
	if (!(file->f_mode & FMODE_WRITE) && !(file->f_flags & (O_TRUNC | O_CREAT)))
		return 0;
	if (!current_policy(&cgroup_id))
		return 0;
	if (!is_file_system_write(file->f_inode))
		return 0;
	request.path.dentry = file->f_path.dentry;
	request.path.mnt = file->f_path.mnt;
	return decide(&request);
}

char LICENSE[] SEC("license") = "GPL";
