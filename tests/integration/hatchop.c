// SPDX-License-Identifier: GPL-2.0
/*
 * hatchop: one attempt at an escape hatch (a mount, bpf(), loading kernel
 * code, reaching another process or the network) as one system call, so that a test sees
 * the kernel's own answer. Prints "ok" or the errno name (EPERM, ...) and
 * exits 0 on success, 1 on failure, 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/kexec.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>

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

/*
 * Before 5.11 a map is charged to its user's RLIMIT_MEMLOCK, which the
 * pinned plane's maps already exceed for root: lifted as libbpf does, so
 * that only the LSM can refuse.
 */
static int bpf_map_create(void)
{
	union bpf_attr attr = {
	    .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
	struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
	int fd;

	if (setrlimit(RLIMIT_MEMLOCK, &unlimited) != 0)
		return SETUP_FAILED;
	fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Debian's modules are compressed from trixie on: the kernel decompresses them (5.17+). */
static int module_from_file(const char *path)
{
	size_t len = strlen(path);
	bool compressed =
	    len > 3 && (!strcmp(path + len - 3, ".xz") || !strcmp(path + len - 4, ".zst"));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = sys_result(
	    syscall(SYS_finit_module, fd, "", compressed ? MODULE_INIT_COMPRESSED_FILE : 0));
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

/* An IPv4 or IPv6 socket address from text; its length, or 0 when addr is neither. */
static socklen_t inet_address(const char *addr, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(port));
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(atoi(port));
		return sizeof(*in6);
	}
	return 0;
}

/* connect(2), bind(2) or sendto(2) of a datagram: the call that reaches addr. */
static int inet_op(const char *op, const char *addr, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_address(addr, port, &ss);
	int type = strcmp(op, "connect") ? SOCK_DGRAM : SOCK_STREAM;
	int fd, ret;

	if (!len) {
		errno = EINVAL;
		return SETUP_FAILED;
	}
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0)
		return SETUP_FAILED;
	if (!strcmp(op, "connect"))
		ret = connect(fd, (struct sockaddr *)&ss, len);
	else if (!strcmp(op, "bind"))
		ret = bind(fd, (struct sockaddr *)&ss, len);
	else
		ret = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) < 0 ? -1 : 0;
	close(fd);
	return ret;
}

/*
 * unix-serve PATH [dgram]: a stream socket listening at PATH (or a datagram
 * socket bound there) until killed, "ok" once it is. unix-connect and
 * unix-sendto PATH: a stream connect to it, a datagram sent to it. A PATH
 * of @NAME is the abstract NAME.
 */
static int unix_op(const char *op, const char *path, const char *kind)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	bool dgram = !strcmp(op, "unix-sendto") || (kind && !strcmp(kind, "dgram"));
	int type = dgram ? SOCK_DGRAM : SOCK_STREAM;
	int fd = socket(AF_UNIX, type, 0), ret;

	socklen_t len = sizeof(un);

	if (fd < 0 || strlen(path) >= sizeof(un.sun_path))
		return SETUP_FAILED;
	strcpy(un.sun_path, path);
	if (path[0] == '@') {
		/* An abstract name: a leading NUL, and the length says where it ends. */
		un.sun_path[0] = '\0';
		len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	}
	if (!strcmp(op, "unix-serve")) {
		if (bind(fd, (struct sockaddr *)&un, len) || (!dgram && listen(fd, 8)))
			return SETUP_FAILED;
		puts("ok");
		fflush(stdout);
		pause();
	}
	if (!strcmp(op, "unix-connect"))
		ret = connect(fd, (struct sockaddr *)&un, len);
	else
		ret = sendto(fd, "x", 1, 0, (struct sockaddr *)&un, len) < 0 ? -1 : 0;
	close(fd);
	return ret;
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
	if ((!strcmp(op, "connect") || !strcmp(op, "bind") || !strcmp(op, "sendto")) && a && b)
		return inet_op(op, a, b);
	if (!strncmp(op, "unix-", 5) && a)
		return unix_op(op, a, b);
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
