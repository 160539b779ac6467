// SPDX-License-Identifier: GPL-2.0
/*
 * hatchop: one attempt at an escape hatch (a mount, bpf(), loading kernel
 * code, reaching another process) as one system call, so that a test sees
 * the kernel's own answer. Prints "ok" or the errno name (EPERM, ...) and
 * exits 0 on success, 1 on failure, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/kexec.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

/* Not a system call result: the step before the attempt failed (errno says why). */
#define SETUP_FAILED (-2)

static int sys_result(long ret)
{
	return ret < 0 ? -1 : 0;
}

/* A detached clone of src (open_tree), attached at dst: the attachment is the hatch. */
static int move_mount_clone(const char *src, const char *dst)
{
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	int ret;

	if (tree < 0)
		return SETUP_FAILED;
	ret = sys_result(syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH));
	close(tree);
	return ret;
}

/* A new tmpfs made with the fsopen(2) API, attached at dst. */
static int fsmount_tmpfs(const char *dst)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int mnt, ret;

	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return SETUP_FAILED;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	close(fs);
	if (mnt < 0)
		return SETUP_FAILED;
	ret = sys_result(syscall(SYS_move_mount, mnt, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH));
	close(mnt);
	return ret;
}

static int bpf_map_create(void)
{
	union bpf_attr attr = {
	    .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	int fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int module_from_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = sys_result(syscall(SYS_finit_module, fd, "", 0));
	close(fd);
	return ret;
}

/* The kernel image is loaded for a later kexec, not booted; it is unloaded again. */
static int kexec_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = sys_result(syscall(SYS_kexec_file_load, fd, -1, 1, "", KEXEC_FILE_NO_INITRAMFS));
	close(fd);
	if (ret == 0)
		syscall(SYS_kexec_file_load, -1, -1, 0, NULL, KEXEC_FILE_UNLOAD);
	return ret;
}

static int ptrace_seize(pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0)
		return -1;
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

/*
 * One byte to an address no process maps: once the kernel has allowed
 * the access, the write itself fails with EFAULT and changes nothing.
 */
static int vm_write(pid_t pid)
{
	char byte = 0;
	struct iovec local = {.iov_base = &byte, .iov_len = 1};
	struct iovec remote = {.iov_base = (void *)8, .iov_len = 1};

	return sys_result(process_vm_writev(pid, &local, 1, &remote, 1, 0));
}

static int pidfd_getfd(pid_t pid, int target_fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int fd;

	if (pidfd < 0)
		return SETUP_FAILED;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, target_fd, 0);
	close(pidfd);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int run(int argc, char **argv)
{
	const char *op = argv[1], *a = argc > 2 ? argv[2] : NULL, *b = argc > 3 ? argv[3] : NULL;

	if (!strcmp(op, "mount-bind") && a && b)
		return mount(a, b, NULL, MS_BIND, NULL);
	if (!strcmp(op, "mount-tmpfs") && a)
		return mount("tmpfs", a, "tmpfs", 0, NULL);
	if (!strcmp(op, "umount") && a)
		return umount2(a, 0);
	if (!strcmp(op, "move-mount") && a && b)
		return move_mount_clone(a, b);
	if (!strcmp(op, "fsmount") && a)
		return fsmount_tmpfs(a);
	if (!strcmp(op, "pivot-root") && a && b)
		return sys_result(syscall(SYS_pivot_root, a, b));
	if (!strcmp(op, "bpf-map-create"))
		return bpf_map_create();
	if (!strcmp(op, "finit-module") && a)
		return module_from_file(a);
	if (!strcmp(op, "kexec-file") && a)
		return kexec_file(a);
	if (!strcmp(op, "ptrace") && a)
		return ptrace_seize(atoi(a));
	if (!strcmp(op, "vm-write") && a)
		return vm_write(atoi(a));
	if (!strcmp(op, "pidfd-getfd") && a && b)
		return pidfd_getfd(atoi(a), atoi(b));
	if (!strcmp(op, "kill") && a && b)
		return kill(atoi(a), atoi(b));
	fprintf(stderr, "hatchop: unknown operation or missing argument: %s\n", op);
	exit(2);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: hatchop OP [ARG...]\n");
		return 2;
	}
	ret = run(argc, argv);
	if (ret == 0) {
		puts("ok");
		return 0;
	}
	if (ret == SETUP_FAILED) {
		printf("setup failed: %s\n", strerror(errno));
		return 2;
	}
	puts(strerrorname_np(errno) ? strerrorname_np(errno) : strerror(errno));
	return 1;
}
