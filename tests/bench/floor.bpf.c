// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's floor (case f): a BPF LSM program on each hook that the loops reach, returning at
 * once: file_open, the only one an open for reading reaches (and one of an open for writing's);
 * the writes' path hooks; capable, for the read of a mode-000 file. What it costs is what any BPF
 * LSM costs on those hooks before it decides anything (the trampoline, the program's entry and
 * exit), so b/a and c/a can be read against it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("lsm/file_open")
int BPF_PROG(floor_file_open, struct file *file, int ret)
{
	return ret;
}

SEC("lsm/path_mknod")
int BPF_PROG(floor_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	return ret;
}

SEC("lsm/path_unlink")
int BPF_PROG(floor_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	return ret;
}

SEC("lsm/capable")
int BPF_PROG(floor_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	return ret;
}

char LICENSE[] SEC("license") = "GPL";
