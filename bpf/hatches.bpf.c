// SPDX-License-Identifier: GPL-2.0
/*
 * Escape hatches: operations that would lift or route around the write
 * boundary instead of writing through it. A task of an enforced cgroup may
 * not call bpf(), load kernel code, start a child in another cgroup, make
 * processes outside wait on its fanotify verdicts, run io_uring requests as
 * someone else, or ptrace, signal, reprioritise or limit a task outside its
 * boundary. Mounts have their own file, mounts.bpf.c.
 */
#include "hatch.bpf.h"

#define PTRACE_MODE_ATTACH  0x02
#define PTRACE_MODE_NOAUDIT 0x04

/*
 * bpf(2) could detach these programs or rewrite their maps. The hook gained
 * an argument in Linux 6.14, which moves the previous verdict; it is not
 * read, so an earlier deny is returned as this one.
 */
SEC("lsm/bpf")
int BPF_PROG(bpf_syscall, int cmd, union bpf_attr *attr, unsigned int size)
{
	return deny_hatch(CGWARD_OP_BPF, NULL, NULL, NULL, (__u32)cmd);
}

static __always_inline bool is_kexec(enum kernel_read_file_id id)
{
	return id == bpf_core_enum_value(enum kernel_read_file_id, READING_KEXEC_IMAGE) ||
	       id == bpf_core_enum_value(enum kernel_read_file_id, READING_KEXEC_INITRAMFS);
}

/*
 * finit_module(2), kexec_file_load(2), and firmware or policy files read on
 * their behalf. 5.10 appended a contents argument to this hook and the next:
 * as with path_rename, only the leading ones are declared.
 */
SEC("lsm/kernel_read_file")
int BPF_PROG(kernel_read_file, struct file *file, enum kernel_read_file_id id)
{
	return deny_hatch(is_kexec(id) ? CGWARD_OP_KEXEC : CGWARD_OP_KERNEL_MODULE,
			  BPF_CORE_READ(file, f_path.dentry), BPF_CORE_READ(file, f_path.mnt), NULL,
			  id);
}

/* init_module(2) and kexec_load(2): the same from a buffer. */
SEC("lsm/kernel_load_data")
int BPF_PROG(kernel_load_data, enum kernel_load_data_id id)
{
	bool kexec = id == bpf_core_enum_value(enum kernel_load_data_id, LOADING_KEXEC_IMAGE);

	return deny_hatch(kexec ? CGWARD_OP_KEXEC : CGWARD_OP_KERNEL_MODULE, NULL, NULL, NULL, id);
}

/*
 * Whether a read of another task's state is judged: where reads are
 * confined, other processes' memory maps, environment, open files and
 * namespaces are outside too.
 */
static __always_inline bool confines_reads(const struct cgward_cgroup_policy *policy)
{
	return policy->flags & (CGWARD_POLICY_READ_ROOTS | CGWARD_POLICY_MANDATORY_READ_ROOTS);
}

/*
 * Attaching is what ptrace(2), process_vm_writev(2), pidfd_getfd(2) and
 * /proc/PID/mem ask for. Reading (/proc/PID/environ, maps, fd/, ns/,
 * process_vm_readv(2)) is denied only where reads are confined, and
 * reported unless the kernel asks quietly: /proc/PID/stat, which ps reads
 * for every process, asks so and shows the fields it guards as 0.
 */
SEC("lsm/ptrace_access_check")
int BPF_PROG(ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	struct cgward_cgroup_policy *policy;
	__u64 cgroup_id;

	if (ret)
		return ret;
	if (mode & PTRACE_MODE_ATTACH)
		return deny_outside_boundary(CGWARD_OP_PTRACE, child, 0);
	policy = current_policy(&cgroup_id);
	if (!policy || !confines_reads(policy) || in_boundary(policy, child))
		return 0;
	return deny_peer(policy, cgroup_id, CGWARD_OP_PTRACE, child, mode,
			 mode & PTRACE_MODE_NOAUDIT);
}

/* kill(2) and its kin; signal 0 only asks whether the task exists. */
SEC("lsm/task_kill")
int BPF_PROG(task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	if (!sig)
		return 0;
	return deny_outside_boundary(CGWARD_OP_SIGNAL, p, (__u32)sig);
}

/*
 * setpriority(2), and /proc/PID/autogroup's nice value. A task may change
 * these for its own boundary's tasks (nice make -j), not for others: root
 * needs no capability to slow down every other root process, or to raise
 * their limits and priorities only a capability keeps it from.
 */
SEC("lsm/task_setnice")
int BPF_PROG(task_setnice, struct task_struct *p, int nice, int ret)
{
	if (ret)
		return ret;
	return deny_outside_boundary(CGWARD_OP_SETNICE, p, 0);
}

/* sched_setscheduler(2), sched_setattr(2), sched_setaffinity(2). */
SEC("lsm/task_setscheduler")
int BPF_PROG(task_setscheduler, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return deny_outside_boundary(CGWARD_OP_SETSCHEDULER, p, 0);
}

SEC("lsm/task_setioprio")
int BPF_PROG(task_setioprio, struct task_struct *p, int ioprio, int ret)
{
	if (ret)
		return ret;
	return deny_outside_boundary(CGWARD_OP_SETIOPRIO, p, 0);
}

/*
 * prlimit(2) of another task: task_prlimit names only the credentials,
 * this hook the task, and it runs for every change of a limit.
 */
SEC("lsm/task_setrlimit")
int BPF_PROG(task_setrlimit, struct task_struct *p, unsigned int resource, struct rlimit *new_rlim,
	     int ret)
{
	if (ret)
		return ret;
	return deny_outside_boundary(CGWARD_OP_SETRLIMIT, p, resource);
}

/* migrate_pages(2), move_pages(2) of another task. */
SEC("lsm/task_movememory")
int BPF_PROG(task_movememory, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return deny_outside_boundary(CGWARD_OP_MOVEMEMORY, p, 0);
}

/*
 * io_uring runs a request with the credentials of a personality registered
 * earlier: the one way a task installs credentials other than its own over
 * them, which the capability set judges more loosely (capabilities.bpf.c).
 * A personality that is the task's own credentials stays allowed.
 */
SEC("lsm/uring_override_creds")
int BPF_PROG(uring_override_creds, const struct cred *new, int ret)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 cgroup_id;

	if (ret || !current_policy(&cgroup_id))
		return ret;
	if (new == BPF_CORE_READ(task, real_cred))
		return 0;
	return deny_hatch(CGWARD_OP_URING_PERSONALITY, NULL, NULL, NULL, 0);
}

#define CLONE_INTO_CGROUP 0x200000000ULL

/*
 * clone3(CLONE_INTO_CGROUP) starts the child in the cgroup of a descriptor,
 * which needs only a read-only open of the cgroup's directory: the kernel
 * then checks write access to its cgroup.procs through inode_permission(),
 * not through an open, and the child would run in a cgroup without this
 * policy. The flag is denied whatever the target: a confined task cannot
 * make a cgroup (cgroupfs is protected), so the only targets are outside
 * its boundary or the cgroup it is in already. The hook runs in
 * copy_process() before the child is placed in any cgroup.
 */
SEC("lsm/task_alloc")
int BPF_PROG(task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	if (ret)
		return ret;
	if (!(clone_flags & CLONE_INTO_CGROUP))
		return 0;
	return deny_hatch(CGWARD_OP_CLONE_INTO_CGROUP, NULL, NULL, NULL, 0);
}

/* FS_OPEN_PERM, FS_ACCESS_PERM, FS_OPEN_EXEC_PERM, and FS_PRE_ACCESS (6.14). */
#define FS_PERMISSION_EVENTS 0x00170000ULL

/*
 * A fanotify permission mark makes every process that opens or reads the
 * marked file, the agent and the workloads outside included, wait for this
 * task's verdict, which may also deny them. Notification marks (fanotify
 * without permission events, inotify) only report, and stay allowed.
 */
SEC("lsm/path_notify")
int BPF_PROG(path_notify, const struct path *path, __u64 mask, unsigned int obj_type, int ret)
{
	if (ret)
		return ret;
	if (!(mask & FS_PERMISSION_EVENTS))
		return 0;
	return deny_hatch_at(CGWARD_OP_FANOTIFY_PERM, path, NULL, (__u32)mask);
}
