// SPDX-License-Identifier: GPL-2.0
/*
 * fsop: one file system operation as one system call, so that a test sees
 * the kernel's own answer. Prints "ok" or the errno name (EPERM, ...) and
 * exits 0 on success, 1 on failure, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>

/*
 * trusted.* rather than user.*: tmpfs (the test VM's /tmp) has user.* xattrs
 * only from Linux 6.6, trusted.* always; the suite runs as root.
 */
#define TEST_XATTR "trusted.cgward"

/*
 * The xattr form of a POSIX ACL (linux/posix_acl_xattr.h): rw-r--r-- and
 * read for uid 65534. A named user keeps it from collapsing into mode bits.
 */
static const struct {
	unsigned int version;
	struct {
		unsigned short tag, perm;
		unsigned int id;
	} entries[5];
} extended_acl = {
    2, {{0x01, 6, -1U}, {0x02, 4, 65534}, {0x04, 4, -1U}, {0x10, 4, -1U}, {0x20, 4, -1U}}};

static int write_text(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int open_flags(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	return fd < 0 ? -1 : close(fd);
}

static int openat2_write(const char *path)
{
	struct open_how how = {.flags = O_WRONLY};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -1 : close(fd);
}

/* Reopens a read-only descriptor for writing through /proc/self/fd. */
static int reopen_write(const char *path)
{
	char proc[64];
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = open_flags(proc, O_WRONLY);
	close(fd);
	return ret;
}

/* An O_TMPFILE in dir, then linked in at path. */
static int tmpfile_link(const char *dir, const char *path)
{
	char proc[64];
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0644), ret;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
	close(fd);
	return ret;
}

/*
 * Executes path (its output to /dev/null), in a child: ok when execve
 * succeeded, else its errno, which the child sends back through a pipe
 * that a successful execve closes.
 */
static int exec_file(const char *path)
{
	char *const argv[] = {(char *)path, NULL};
	int pipe_fds[2], child_errno = 0;
	pid_t pid;

	if (pipe2(pipe_fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		execv(path, argv);
		child_errno = errno;
		(void)!write(pipe_fds[1], &child_errno, sizeof(child_errno));
		_exit(127);
	}
	close(pipe_fds[1]);
	if (pid > 0 && read(pipe_fds[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = 0;
	close(pipe_fds[0]);
	if (pid < 0 || waitpid(pid, NULL, 0) < 0)
		return -1;
	errno = child_errno;
	return child_errno ? -1 : 0;
}

static int run(int argc, char **argv)
{
	const char *op = argv[1], *a = argv[2], *b = argc > 3 ? argv[3] : NULL;

	if (!strcmp(op, "write") && b)
		return write_text(a, b, O_CREAT | O_TRUNC);
	if (!strcmp(op, "append") && b)
		return write_text(a, b, O_APPEND);
	if (!strcmp(op, "open-write"))
		return open_flags(a, O_WRONLY);
	if (!strcmp(op, "open-trunc"))
		return open_flags(a, O_RDONLY | O_TRUNC);
	if (!strcmp(op, "exec"))
		return exec_file(a);
	if (!strcmp(op, "open-read"))
		return open_flags(a, O_RDONLY);
	if (!strcmp(op, "create"))
		return open_flags(a, O_WRONLY | O_CREAT | O_EXCL);
	if (!strcmp(op, "openat2-write"))
		return openat2_write(a);
	if (!strcmp(op, "reopen-write"))
		return reopen_write(a);
	if (!strcmp(op, "tmpfile"))
		return open_flags(a, O_TMPFILE | O_WRONLY);
	if (!strcmp(op, "tmpfile-link") && b)
		return tmpfile_link(a, b);
	if (!strcmp(op, "mkdir"))
		return mkdir(a, 0755);
	if (!strcmp(op, "rmdir"))
		return rmdir(a);
	if (!strcmp(op, "unlink"))
		return unlink(a);
	if (!strcmp(op, "mkfifo"))
		return mknod(a, S_IFIFO | 0644, 0);
	if (!strcmp(op, "symlink") && b)
		return symlink(a, b);
	if (!strcmp(op, "link") && b)
		return link(a, b);
	if (!strcmp(op, "rename") && b)
		return rename(a, b);
	if (!strcmp(op, "exchange") && b)
		return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	if (!strcmp(op, "truncate"))
		return truncate(a, 0);
	if (!strcmp(op, "chmod"))
		return chmod(a, 0600);
	if (!strcmp(op, "chown"))
		return chown(a, 0, 0);
	if (!strcmp(op, "utimes"))
		return utimes(a, NULL);
	if (!strcmp(op, "setxattr"))
		return setxattr(a, TEST_XATTR, "1", 1, 0);
	if (!strcmp(op, "removexattr"))
		return removexattr(a, TEST_XATTR);
	if (!strcmp(op, "setacl"))
		return setxattr(a, "system.posix_acl_access", &extended_acl, sizeof(extended_acl),
				0);
	if (!strcmp(op, "hasacl"))
		return getxattr(a, "system.posix_acl_access", NULL, 0) < 0 ? -1 : 0;
	if (!strcmp(op, "removeacl"))
		return removexattr(a, "system.posix_acl_access");
	fprintf(stderr, "fsop: unknown operation or missing argument: %s\n", op);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fsop OP PATH [ARG]\n");
		return 2;
	}
	if (run(argc, argv) == 0) {
		puts("ok");
		return 0;
	}
	puts(strerrorname_np(errno) ? strerrorname_np(errno) : strerror(errno));
	return 1;
}
