// SPDX-License-Identifier: GPL-2.0
/* ioctl(2), and the io_uring commands that reach drivers without it (devices.bpf.h). */
#include "devices.bpf.h"

SEC("lsm/file_ioctl")
int BPF_PROG(file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return decide_ioctl(file, cmd);
}

/*
 * A 32-bit task's ioctl from 6.8 on (and in the stable kernels it went
 * back to); before, compat_ioctl(2) called file_ioctl. The loader keeps it
 * where the kernel has the hook.
 */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(file_ioctl_compat, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return decide_ioctl(file, cmd);
}

/*
 * IORING_OP_URING_CMD (6.0) hands a command to a driver without ioctl(2):
 * NVMe passthrough writes a disk through a descriptor opened read-only.
 * Its commands are the driver's own, so no ioctl command counts as a read
 * here: on a device only an --allow-dev entry allows one. Sockets take
 * such commands too, and carry no file system write.
 */
SEC("lsm/uring_cmd")
int BPF_PROG(uring_cmd, struct io_uring_cmd *ioucmd, int ret)
{
	struct file *file = ioucmd->file;
	struct write_request request = {
	    .op = CGWARD_OP_IOCTL,
	    .arg = ioucmd->cmd_op,
	    .path = {.dentry = file->f_path.dentry, .mnt = file->f_path.mnt},
	};
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id;

	if (ret || !is_device_node(file->f_inode->i_mode))
		return ret;
	policy = current_policy(&cgroup_id);
	if (!policy)
		return 0;
	return decide_device(policy, cgroup_id, &request, file->f_inode);
}
