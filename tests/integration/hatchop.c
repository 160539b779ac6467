// SPDX-License-Identifier: GPL-2.0
/*
 * hatchop: one attempt at an escape hatch (a mount, bpf(), loading kernel
 * code, reaching another process or the network, another cgroup, a device
 * or a terminal, a privileged call on the host's own state) as one system
 * call, so that a test sees the kernel's own answer. Prints "ok" (or what
 * it read: cmos-read) or the errno name (EPERM, ...) and exits 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <linux/reboot.h>
#include <net/if.h>
#include <sched.h>
#include <sys/io.h>
#include <sys/klog.h>
#include <sys/reboot.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

/* Not a system call result: the step before the attempt failed (errno says why). */
#define SETUP_FAILED (-2)

/* What a reading operation printed instead of "ok". */
static char result_text[32];

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

/*
 * clone3(CLONE_INTO_CGROUP) into the cgroup directory dir, opened read-only;
 * the child tries to create file, which tells where it could write.
 */
static int clone_into_cgroup(const char *dir, const char *file)
{
	int cgroup = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct clone_args args = {
	    .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = (__u64)cgroup};
	pid_t pid;

	if (cgroup < 0)
		return SETUP_FAILED;
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644) < 0);
	close(cgroup);
	if (pid < 0)
		return -1;
	return waitpid(pid, NULL, 0) == pid ? 0 : SETUP_FAILED;
}

/* Pushes a line into the input queue of the terminal tty, as if typed there. */
static int tiocsti(const char *tty, const char *line)
{
	int fd = open(tty, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return SETUP_FAILED;
	for (const char *c = line; *c && ret == 0; c++)
		ret = ioctl(fd, TIOCSTI, c);
	if (ret == 0)
		ret = ioctl(fd, TIOCSTI, "\n");
	close(fd);
	return ret;
}

/* An ioctl with a zeroed argument, on path opened read-only (as most attacks need). */
static int ioctl_on(const char *path, const char *cmd)
{
	char arg[4096] = {0};
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = ioctl(fd, (unsigned long)strtoul(cmd, NULL, 0), arg);
	close(fd);
	return ret < 0 ? -1 : 0;
}

/* mknod PATH b|c MAJOR:MINOR */
static int make_node(const char *path, const char *type, const char *numbers)
{
	unsigned int major, minor;

	if (sscanf(numbers, "%u:%u", &major, &minor) != 2)
		return SETUP_FAILED;
	return mknod(path, (type[0] == 'b' ? S_IFBLK : S_IFCHR) | 0600, makedev(major, minor));
}

/* A fanotify mark with a permission event: opens of path would wait for this process. */
static int fanotify_permission(const char *path)
{
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, path);
	close(fd);
	return ret;
}

/* fspick(2) of the mount at path, and a new parameter for it (a remount in two calls). */
static int fsconfig_remount(const char *path, const char *key, const char *value)
{
	int fs = (int)syscall(SYS_fspick, AT_FDCWD, path, FSPICK_CLOEXEC);
	long ret;

	if (fs < 0)
		return SETUP_FAILED;
	ret = syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, value, 0);
	if (ret == 0)
		ret = syscall(SYS_fsconfig, fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0);
	close(fs);
	return sys_result(ret);
}

/*
 * One operation through io_uring (no liburing: the rings by hand); its
 * completion's result is the kernel's answer. An opened file is left to exit.
 */
static int uring_one(const struct io_uring_sqe *op)
{
	struct io_uring_params params = {0};
	int ring = (int)syscall(SYS_io_uring_setup, 1, &params);
	char *sq, *cq;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;

	if (ring < 0)
		return SETUP_FAILED;
	sq = mmap(NULL, params.sq_off.array + params.sq_entries * sizeof(__u32),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, params.cq_off.cqes + params.cq_entries * sizeof(*cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, params.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return SETUP_FAILED;
	sqes[0] = *op;
	((__u32 *)(sq + params.sq_off.array))[0] = 0;
	__atomic_store_n((__u32 *)(sq + params.sq_off.tail), 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return SETUP_FAILED;
	cqe = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
	close(ring);
	if (cqe->res < 0) {
		errno = -cqe->res;
		return -1;
	}
	return 0;
}

static int uring_open(const char *path, int flags)
{
	struct io_uring_sqe op = {
	    .opcode = IORING_OP_OPENAT, .fd = AT_FDCWD, .addr = (__u64)path, .open_flags = flags};

	return uring_one(&op);
}

static int uring_rename(const char *from, const char *to)
{
	struct io_uring_sqe op = {.opcode = IORING_OP_RENAMEAT,
				  .fd = AT_FDCWD,
				  .addr = (__u64)from,
				  .len = (__u32)AT_FDCWD,
				  .addr2 = (__u64)to};

	return uring_one(&op);
}

/*
 * The clocks are moved by an offset, read and set in one step, so that a
 * test undoes a move it did not want with the opposite offset and loses
 * only the microseconds between the two calls.
 */
static int clock_settime_by(long seconds)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return SETUP_FAILED;
	now.tv_sec += seconds;
	return clock_settime(CLOCK_REALTIME, &now);
}

static int settimeofday_by(long seconds)
{
	struct timeval now;

	if (gettimeofday(&now, NULL) != 0)
		return SETUP_FAILED;
	now.tv_sec += seconds;
	return settimeofday(&now, NULL);
}

/* ADJ_SETOFFSET: the kernel adds the offset itself. */
static int adjtimex_by(long seconds)
{
	struct timex tx = {.modes = ADJ_SETOFFSET | ADJ_NANO};

	tx.time.tv_sec = seconds;
	return adjtimex(&tx) < 0 ? -1 : 0;
}

/* reboot-cad on|off: what Ctrl-Alt-Del does (/proc/sys/kernel/ctrl-alt-del). */
static int reboot_cad(const char *setting)
{
	if (!strcmp(setting, "on"))
		return reboot(LINUX_REBOOT_CMD_CAD_ON);
	if (!strcmp(setting, "off"))
		return reboot(LINUX_REBOOT_CMD_CAD_OFF);
	errno = EINVAL;
	return SETUP_FAILED;
}

/*
 * A byte of the machine's CMOS memory through the RTC's index and data
 * ports (0x70, 0x71), with every port opened by iopl(3): iopl is the
 * attempt. The index's top bit would mask NMIs: only indices below 0x80.
 */
static int cmos(const char *index, const char *value)
{
	unsigned long i = strtoul(index, NULL, 0);
	unsigned char byte;

	if (i >= 0x80) {
		errno = EINVAL;
		return SETUP_FAILED;
	}
	if (iopl(3) != 0)
		return -1;
	outb((unsigned char)i, 0x70);
	if (value)
		outb((unsigned char)strtoul(value, NULL, 0), 0x71);
	byte = inb(0x71);
	snprintf(result_text, sizeof(result_text), "0x%02x", byte);
	return 0;
}

/* A scheduling class and priority of ioprio_set(2): be:LEVEL, idle. */
static int ioprio_of(const char *text)
{
	/* IOPRIO_PRIO_VALUE of linux/ioprio.h, which glibc does not wrap. */
	if (!strncmp(text, "be:", 3))
		return 2 << 13 | atoi(text + 3);
	if (!strcmp(text, "idle"))
		return 3 << 13;
	return -1;
}

static int set_ioprio(pid_t pid, const char *text)
{
	int ioprio = ioprio_of(text);

	if (ioprio < 0) {
		errno = EINVAL;
		return SETUP_FAILED;
	}
	return sys_result(syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, pid, ioprio));
}

/* sched_setaffinity(2) of pid to the one CPU cpu. */
static int set_affinity(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* sched_setscheduler(2) of pid: batch, idle or other (each at priority 0). */
static int set_scheduler(pid_t pid, const char *policy)
{
	static const struct {
		const char *name;
		int policy;
	} policies[] = {{"batch", SCHED_BATCH}, {"idle", SCHED_IDLE}, {"other", SCHED_OTHER}};
	struct sched_param param = {0};

	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (!strcmp(policy, policies[i].name))
			return sched_setscheduler(pid, policies[i].policy, &param);
	}
	errno = EINVAL;
	return SETUP_FAILED;
}

/* prlimit(2) of pid's RLIMIT_NOFILE, soft and hard, to n. */
static int prlimit_nofile(pid_t pid, long n)
{
	struct rlimit limit = {(rlim_t)n, (rlim_t)n};

	return prlimit(pid, RLIMIT_NOFILE, &limit, NULL);
}

/*
 * In a new user namespace with a namespace of its own, where this process
 * holds every capability: the name of its new UTS namespace, or the loopback
 * link of its new network namespace set up. No uid_map is written: the
 * capabilities of a namespace's creator need none until it calls exec.
 */
static int userns_sethostname(const char *name)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWUTS) != 0)
		return SETUP_FAILED;
	return sethostname(name, strlen(name));
}

/*
 * Enters the user and UTS namespaces of process pid through a pidfd (no
 * ptrace access asked, unlike /proc/PID/ns) and names that UTS namespace.
 */
static int setns_sethostname(int pid, const char *name)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	int ret;

	if (fd < 0)
		return SETUP_FAILED;
	ret = setns(fd, CLONE_NEWUSER | CLONE_NEWUTS);
	close(fd);
	return ret ? ret : sethostname(name, strlen(name));
}

static int userns_lo_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd, ret;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		return SETUP_FAILED;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		return SETUP_FAILED;
	ifr.ifr_flags |= IFF_UP;
	ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

/*
 * A file opened by its handle (open_by_handle_at, CAP_DAC_READ_SEARCH): the
 * handle taken at once (then DIR/taken made), the open once DIR/go exists,
 * so that the test can drop the dentry cache in between and the open find
 * no path to the file.
 */
static int handle_read(const char *mount, const char *path, const char *dir)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} handle = {.fh.handle_bytes = MAX_HANDLE_SZ};
	int mount_id, mount_fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	char taken[PATH_MAX], go[PATH_MAX];

	snprintf(taken, sizeof(taken), "%s/taken", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	if (mount_fd < 0 || name_to_handle_at(AT_FDCWD, path, &handle.fh, &mount_id, 0))
		return -1;
	fd = open(taken, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	while (access(go, F_OK))
		usleep(50000);
	fd = open_by_handle_at(mount_fd, &handle.fh, O_RDONLY | O_CLOEXEC);
	close(mount_fd);
	return fd < 0 ? -1 : close(fd);
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
	if (!strcmp(op, "clone-into-cgroup") && a && b)
		return clone_into_cgroup(a, b);
	if (!strcmp(op, "tiocsti") && a && b)
		return tiocsti(a, b);
	if (!strcmp(op, "ioctl") && a && b)
		return ioctl_on(a, b);
	if (!strcmp(op, "mknod") && a && b && argc > 4)
		return make_node(a, b, argv[4]);
	if (!strcmp(op, "fanotify-perm") && a)
		return fanotify_permission(a);
	if (!strcmp(op, "fsconfig") && a && b && argc > 4)
		return fsconfig_remount(a, b, argv[4]);
	if (!strcmp(op, "uring-open-write") && a)
		return uring_open(a, O_WRONLY);
	if (!strcmp(op, "handle-read") && a && b && argc > 4)
		return handle_read(a, b, argv[4]);
	if (!strcmp(op, "uring-open-read") && a)
		return uring_open(a, O_RDONLY);
	if (!strcmp(op, "uring-rename") && a && b)
		return uring_rename(a, b);
	if (!strcmp(op, "sethostname") && a)
		return sethostname(a, strlen(a));
	if (!strcmp(op, "setdomainname") && a)
		return setdomainname(a, strlen(a));
	if (!strcmp(op, "clock-settime") && a)
		return clock_settime_by(atol(a));
	if (!strcmp(op, "settimeofday") && a)
		return settimeofday_by(atol(a));
	if (!strcmp(op, "adjtimex") && a)
		return adjtimex_by(atol(a));
	if (!strcmp(op, "klog-clear"))
		return klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
	if (!strcmp(op, "reboot-cad") && a)
		return reboot_cad(a);
	if (!strcmp(op, "cmos-read") && a)
		return cmos(a, NULL);
	if (!strcmp(op, "cmos-write") && a && b)
		return cmos(a, b);
	if (!strcmp(op, "setpriority") && a && b)
		return setpriority(PRIO_PROCESS, (id_t)atoi(a), atoi(b));
	if (!strcmp(op, "setaffinity") && a && b)
		return set_affinity(atoi(a), atoi(b));
	if (!strcmp(op, "setscheduler") && a && b)
		return set_scheduler(atoi(a), b);
	if (!strcmp(op, "ioprio") && a && b)
		return set_ioprio(atoi(a), b);
	if (!strcmp(op, "prlimit-nofile") && a && b)
		return prlimit_nofile(atoi(a), atol(b));
	if (!strcmp(op, "userns-sethostname") && a)
		return userns_sethostname(a);
	if (!strcmp(op, "setns-sethostname") && a && b)
		return setns_sethostname(atoi(a), b);
	if (!strcmp(op, "userns-lo-up"))
		return userns_lo_up();
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
		puts(result_text[0] ? result_text : "ok");
		return 0;
	}
	if (ret == SETUP_FAILED) {
		printf("setup failed: %s\n", strerror(errno));
		return 2;
	}
	puts(strerrorname_np(errno) ? strerrorname_np(errno) : strerror(errno));
	return 1;
}
