// SPDX-License-Identifier: GPL-2.0
/*
 * The supervisor of a run the agent spawns (exec_spawn.h). Everything of
 * the caller's that the command gets comes from the kernel (SO_PEERCRED,
 * SO_PEERGROUPS, its pidfd, its rlimits) or from descriptors the caller
 * passed; argv and env are only what the caller could exec itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/ioprio.h>
#include <linux/keyctl.h>

#include "cgward_abi.h"
#include "exec_message.h"
#include "exec_spawn.h"
#include "private_tmp.h"
#include "proc_field.h"
#include "spawn.h"
#include "spawn_request.h"

/* The caller's namespaces the command joins; its user and pid namespaces must be the agent's. */
#define JOINED_NAMESPACES \
	(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

static const char *const spawn_kinds[EXEC_SPAWN_FDS + 1] = {"self",   "cwd",	"stdin",
							    "stdout", "stderr", "exit"};

bool exec_spawn_requested(json_t *req)
{
	const char *first = json_string_value(json_array_get(json_object_get(req, "fds"), 0));

	return first && strcmp(first, spawn_kinds[0]) == 0;
}

/* The namespaces check_caller compares, in this order in struct own. */
static const char *const ns_kinds[] = {"user", "pid", "mnt"};
enum { NS_USER, NS_PID, NS_MNT, NS_KINDS };

/* Longer than any LSM's label (SELinux's, the longest, take a few hundred bytes). */
#define LABEL_MAX 4096

/*
 * Where a task's LSM labels are: the first labelling LSM's, then AppArmor's
 * and Smack's own (the first may be another's, or none: the BPF LSM's, for
 * one, answers EINVAL, and comes first where the boot's lsm= puts it so).
 */
static const char *const label_files[] = {"current", "apparmor/current", "smack/current"};
#define LABEL_FILES (sizeof(label_files) / sizeof(label_files[0]))

/* A label as read: its bytes, or the errno of the read. */
struct label {
	char text[LABEL_MAX];
	ssize_t len;
	int err;
};

/*
 * The agent's own namespaces, root and labels, read at its first spawn
 * request rather than at each: it never joins another namespace, chroots
 * or changes its label (an exec would make it another agent).
 */
static struct own {
	bool read;
	struct stat ns[NS_KINDS], root;
	struct label labels[LABEL_FILES];
} own;

/* Up to size - 1 bytes of a small /proc file into buf; the length, or -1 (errno says why). */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	return n;
}

static void read_label(const char *path, struct label *label)
{
	label->len = read_small(path, label->text, sizeof(label->text));
	label->err = label->len < 0 ? errno : 0;
}

/* A failed stat leaves st_ino 0, which no namespace or root has: it matches no caller's. */
static const struct own *own_state(void)
{
	char path[64];

	if (own.read)
		return &own;
	for (int i = 0; i < NS_KINDS; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_kinds[i]);
		if (stat(path, &own.ns[i]))
			own.ns[i].st_ino = 0;
	}
	if (stat("/", &own.root))
		own.root.st_ino = 0;
	for (size_t i = 0; i < LABEL_FILES; i++) {
		snprintf(path, sizeof(path), "/proc/self/attr/%s", label_files[i]);
		read_label(path, &own.labels[i]);
	}
	own.read = true;
	return &own;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether the caller's namespace of a kind is the agent's own. */
static bool same_namespace(pid_t pid, int kind)
{
	char path[64];
	struct stat caller;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns_kinds[kind]);
	return stat(path, &caller) == 0 && same_file(&own_state()->ns[kind], &caller);
}

/* Why a chrooted caller's command cannot be the agent's: its root would be the namespace's. */
#define CHROOTED "the caller runs chrooted, which a command the agent starts would not"

/*
 * Whether the caller, in the agent's own mount namespace, is chrooted (its
 * root is not the agent's). One in another namespace the supervisor checks
 * once it has joined it (enter_caller).
 */
static bool chrooted_here(pid_t pid)
{
	char path[64];
	struct stat caller;

	if (!same_namespace(pid, NS_MNT))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	return stat(path, &caller) || !same_file(&own_state()->root, &caller);
}

/*
 * Whether the caller runs under the agent's own label in /proc/PID/attr/FILE
 * (AppArmor's profile, SELinux's context, Smack's label): the command gets
 * the agent's, and a caller confined by its own would be confined no longer.
 * Where neither can be read for the same reason (no such LSM: EINVAL or
 * ENOENT), both have none. A label that fills the buffer is taken for
 * another. theirs gets the caller's, for the refusal.
 */
static bool same_label(pid_t pid, size_t file, struct label *theirs)
{
	const struct label *mine = &own_state()->labels[file];
	char path[64];
	bool same;

	snprintf(path, sizeof(path), "/proc/%d/attr/%s", pid, label_files[file]);
	read_label(path, theirs);
	if (theirs->len < 0 || mine->len < 0)
		same = theirs->err == mine->err && (theirs->err == EINVAL || theirs->err == ENOENT);
	else
		same = theirs->len == mine->len && (size_t)theirs->len < sizeof(theirs->text) - 1 &&
		       memcmp(theirs->text, mine->text, (size_t)theirs->len) == 0;
	if (theirs->len < 0)
		snprintf(theirs->text, sizeof(theirs->text), "unknown");
	else
		theirs->text[theirs->len] = '\0';
	theirs->text[strcspn(theirs->text, "\n")] = '\0';
	return same;
}

/* Whether every label of the caller's is the agent's (same_label). */
static bool same_labels(pid_t pid, struct label *theirs)
{
	for (size_t i = 0; i < LABEL_FILES; i++) {
		if (!same_label(pid, i, theirs))
			return false;
	}
	return true;
}

/*
 * The pidfd is the peer itself (alive: it waits for the answer), and runs
 * as the peer's uid. A caller in another user or pid namespace, under a
 * seccomp filter or an LSM label of its own, or chrooted, is confined in a
 * way the command would not be: refused, -EOPNOTSUPP (its own child can be).
 */
static int check_caller(const struct exec_spawn *spawn, const struct ucred *peer, char *err,
			size_t errlen)
{
	static const char *const fields[] = {"Uid:", "Seccomp:"};
	long values[2] = {0, -1}, status[2][2] = {{0, -1}, {0, -1}};
	struct label label;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", spawn->pidfd);
	if (read_proc_field(path, "Pid:", values) || values[0] != peer->pid) {
		snprintf(err, errlen, "the first descriptor is not a pidfd of the caller (pid %d)",
			 peer->pid);
		return -EPERM;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", peer->pid);
	if (read_proc_fields(path, 2, fields, status)) {
		snprintf(err, errlen, "cannot read the uid and seccomp mode of the caller (pid %d)",
			 peer->pid);
		return -EPERM;
	}
	if (status[0][0] != (long)peer->uid || status[0][1] != (long)peer->uid) {
		snprintf(err, errlen, "the caller does not run as its uid %u",
			 (unsigned int)peer->uid);
		return -EPERM;
	}
	if (status[1][0] != 0) {
		snprintf(err, errlen,
			 "the caller runs under seccomp, which a command the agent starts "
			 "would not");
		return -EOPNOTSUPP;
	}
	if (!same_labels(peer->pid, &label)) {
		snprintf(err, errlen,
			 "the caller runs under the security label \"%.200s\", "
			 "which a command the agent starts would not",
			 label.text);
		return -EOPNOTSUPP;
	}
	if (!same_namespace(peer->pid, NS_USER) || !same_namespace(peer->pid, NS_PID)) {
		snprintf(err, errlen,
			 "the caller is in another user or pid namespace than the agent");
		return -EOPNOTSUPP;
	}
	if (chrooted_here(peer->pid)) {
		snprintf(err, errlen, CHROOTED);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The caller's supplementary groups, as the kernel recorded them when it connected. */
static int read_groups(int conn_fd, struct exec_spawn *spawn)
{
	socklen_t len = 64 * sizeof(gid_t);

	for (;;) {
		free(spawn->groups);
		spawn->groups = malloc(len);
		if (!spawn->groups)
			return -ENOMEM;
		if (getsockopt(conn_fd, SOL_SOCKET, SO_PEERGROUPS, spawn->groups, &len) == 0)
			break;
		if (errno != ERANGE)
			return -errno;
	}
	spawn->n_groups = len / sizeof(gid_t);
	return 0;
}

int exec_spawn_read(json_t *req, int *fds, size_t n_fds, int conn_fd, const struct ucred *peer,
		    struct exec_spawn *spawn, char *err, size_t errlen)
{
	json_t *kinds = json_object_get(req, "fds");
	json_int_t mask = json_integer_value(json_object_get(req, "umask"));
	json_t *private_tmp = json_object_get(req, "private_tmp");
	struct stat cwd;
	int ret;

	*spawn = (struct exec_spawn){.caller_pid = peer->pid,
				     .uid = peer->uid,
				     .gid = peer->gid,
				     .pidfd = -1,
				     .cwd_fd = -1,
				     .stdio_fds = {-1, -1, -1},
				     .exit_fd = -1};
	for (size_t i = 0; i <= EXEC_SPAWN_FDS; i++) {
		const char *kind = json_string_value(json_array_get(kinds, i));

		if (i >= n_fds || !kind || strcmp(kind, spawn_kinds[i]) != 0) {
			snprintf(err, errlen, "malformed request");
			return -EINVAL;
		}
	}
	spawn->pidfd = fds[0];
	spawn->cwd_fd = fds[1];
	memcpy(spawn->stdio_fds, &fds[2], sizeof(spawn->stdio_fds));
	spawn->exit_fd = fds[5];
	for (size_t i = 0; i <= EXEC_SPAWN_FDS; i++)
		fds[i] = -1;
	spawn->argv = exec_message_read_strings(json_object_get(req, "argv"), false);
	spawn->env = exec_message_read_strings(json_object_get(req, "env"), true);
	if (!spawn->argv || !spawn->env || mask < 0 || mask > 0777 ||
	    (private_tmp && !json_is_boolean(private_tmp))) {
		snprintf(err, errlen, "malformed request");
		return -EINVAL;
	}
	spawn->umask = (unsigned int)mask;
	/* An older cgward spawned only for --private-tmp, and did not say so. */
	spawn->private_tmp = !private_tmp || json_is_true(private_tmp);
	if (fstat(spawn->cwd_fd, &cwd) || !S_ISDIR(cwd.st_mode)) {
		snprintf(err, errlen, "the cwd descriptor is not a directory");
		return -ENOTDIR;
	}
	ret = read_groups(conn_fd, spawn);
	if (ret) {
		snprintf(err, errlen, "SO_PEERGROUPS: %s", strerror(-ret));
		return ret;
	}
	return check_caller(spawn, peer, err, errlen);
}

void exec_spawn_free(struct exec_spawn *spawn)
{
	int fds[] = {spawn->pidfd,	  spawn->cwd_fd,       spawn->stdio_fds[0],
		     spawn->stdio_fds[1], spawn->stdio_fds[2], spawn->exit_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	exec_message_free_strings(spawn->argv);
	exec_message_free_strings(spawn->env);
	free(spawn->groups);
	spawn->argv = spawn->env = NULL;
	spawn->groups = NULL;
}

static int fail(const char *what)
{
	int ret = -errno;

	fprintf(stderr, "cgward: exec: %s: %s\n", what, strerror(errno));
	return ret;
}

/*
 * The caller's scheduling policy (with its reset on fork, which its own
 * children would get) and I/O priority, which the command inherits: no
 * more of them than a child of the caller would have. An I/O class of none
 * is written with no level (older kernels report one, and refuse it back).
 */
static int take_caller_scheduling(pid_t pid)
{
	struct sched_param param;
	int policy = sched_getscheduler(pid), ioprio;

	if (policy < 0 || sched_getparam(pid, &param) || sched_setscheduler(0, policy, &param))
		return fail("the caller's scheduling policy");
	ioprio = (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid);
	if (ioprio >= 0 && IOPRIO_PRIO_CLASS(ioprio) == IOPRIO_CLASS_NONE)
		ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0);
	if (ioprio < 0 || syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, ioprio))
		return fail("the caller's I/O priority");
	return 0;
}

/* As many CPUs as a kernel can have (NR_CPUS): sched_getaffinity wants a mask that holds them. */
#define MAX_CPUS 8192

/*
 * The caller's CPUs, taken by the command itself in the run's cgroup, which
 * allows what the caller's does: the supervisor, in the agent's, may be
 * allowed fewer (systemd's AllowedCPUs=). The mask is on the stack: the
 * first malloc in a forked copy of a heap sorts its free chunks, and
 * copies each page it writes (a fault each, tens of us under emulation).
 */
static int take_caller_cpus(pid_t pid)
{
	unsigned long mask[MAX_CPUS / (8 * sizeof(unsigned long))];
	cpu_set_t *cpus = (cpu_set_t *)mask;

	if (sched_getaffinity(pid, sizeof(mask), cpus) || sched_setaffinity(0, sizeof(mask), cpus))
		return fail("the caller's CPU affinity");
	return 0;
}

/* /proc/PID/NAME made this process's own /proc/self/NAME, unless it is already. */
static int take_proc_value(pid_t pid, const char *name)
{
	char path[64], theirs[32] = "", mine[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	n = read_small(path, theirs, sizeof(theirs));
	snprintf(path, sizeof(path), "/proc/self/%s", name);
	if (n > 0 && read_small(path, mine, sizeof(mine)) == n &&
	    memcmp(theirs, mine, (size_t)n) == 0)
		return 0;
	fd = n > 0 ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	if (fd < 0 || write(fd, theirs, (size_t)n) != n) {
		if (fd >= 0)
			close(fd);
		return -(errno ?: EIO);
	}
	close(fd);
	return 0;
}

/*
 * The caller's rlimits, nice value, OOM score adjustment and audit login
 * uid, while still root. Without the login uid the command's actions would
 * be audited as the agent's starter's (the kernel gives it a session id of
 * its own).
 */
static int take_caller_limits(pid_t pid)
{
	struct rlimit limit;
	int prio, ret;

	for (int r = 0; r < RLIM_NLIMITS; r++) {
		if (prlimit(pid, r, NULL, &limit) || setrlimit(r, &limit))
			return fail("the caller's rlimits");
	}
	errno = 0;
	prio = getpriority(PRIO_PROCESS, (id_t)pid);
	if ((prio == -1 && errno) || setpriority(PRIO_PROCESS, 0, prio))
		return fail("the caller's nice value");
	ret = take_proc_value(pid, "oom_score_adj");
	if (ret) {
		errno = -ret;
		return fail("the caller's oom_score_adj");
	}
	ret = take_proc_value(pid, "loginuid");
	if (ret && ret != -ENOENT) { /* no loginuid without audit in the kernel */
		errno = -ret;
		return fail("the caller's audit login uid");
	}
	return 0;
}

/*
 * In the supervisor, root and outside the run's cgroup, what the boundary
 * would refuse inside it: the caller's namespaces, a private /tmp (when
 * asked), the caller's cwd and limits (the command inherits them all). The
 * caller's root must be its mount namespace's: a chroot the command would
 * escape is refused.
 */
static int enter_caller(const struct exec_spawn *spawn, const struct private_tmp_setup *setup,
			struct private_tmp_report *report)
{
	struct stat caller_root, ns_root;
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/root", spawn->caller_pid);
	if (stat(path, &caller_root))
		return fail("the caller's root");
	if (setns(spawn->pidfd, JOINED_NAMESPACES))
		return fail("cannot join the caller's namespaces");
	if (stat("/", &ns_root))
		return fail("/");
	if (!same_file(&ns_root, &caller_root)) {
		fprintf(stderr, "cgward: exec: " CHROOTED "\n");
		return -EPERM;
	}
	/* Before the new namespace: it takes the cwd along, as cgward exec's own child's. */
	if (fchdir(spawn->cwd_fd))
		return fail("the caller's cwd");
	ret = spawn->private_tmp ? private_tmp_enter((void *)setup, report) : 0;
	if (ret == 0)
		ret = take_caller_limits(spawn->caller_pid);
	if (ret == 0)
		ret = take_caller_scheduling(spawn->caller_pid);
	/*
	 * All of the above was read by pid: the caller still alive (or not yet
	 * reaped) after it, its pid named no other process meanwhile, whose
	 * limits, priorities or login uid the command would have taken.
	 */
	if (ret == 0 && syscall(SYS_pidfd_send_signal, spawn->pidfd, 0, NULL, 0))
		ret = fail("the caller ended before its command started");
	umask((mode_t)spawn->umask);
	return ret;
}

/*
 * The caller's groups, gid and uid, but for the saved and file-system uids:
 * the command is cloned straight into the run's cgroup (no migration, whose
 * write to cgroup.procs waits for an RCU grace period), and the kernel
 * checks the cloner's file-system ids against the cgroup.procs of the
 * cgroups' common ancestor. The command drops the saved uid itself
 * (become_caller), before it can run anything of its own.
 */
static int take_caller_ids(const struct exec_spawn *spawn)
{
	if (setgroups(spawn->n_groups, spawn->groups) ||
	    setresgid(spawn->gid, spawn->gid, spawn->gid) || setresuid(spawn->uid, spawn->uid, 0))
		return fail("cannot take the caller's identity");
	setfsuid(0);
	return setfsuid((uid_t)-1) == 0 ? 0 : -EPERM;
}

/*
 * Every capability set empty, the inheritable one too, which the uid
 * change leaves: a unit's AmbientCapabilities= puts the agent's there.
 * Inert under no new privileges, but no child of the caller's has them.
 */
static int clear_capabilities(void)
{
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {{0}};

	return syscall(SYS_capset, &header, none) ? -1 : 0;
}

/*
 * In the command's process, in the run's cgroup, before its gate: the
 * caller's stdio (so that what fails from here is said to the caller), the
 * caller's uid alone, no way to gain more (setuid files, file
 * capabilities), a session keyring of its own and the caller's CPUs.
 * Nothing here asks for a capability.
 */
static int become_caller(void *arg, void *report)
{
	const struct exec_spawn *spawn = arg;

	(void)report;
	for (int i = 0; i < 3; i++) {
		if (dup2(spawn->stdio_fds[i], i) < 0)
			return -errno;
	}
	/*
	 * Of the supervisor's signals, only SIGPIPE is not at its default and
	 * would stay so across exec (the spawner starts with every other at
	 * its default, and handlers do not outlive exec).
	 */
	signal(SIGPIPE, SIG_DFL);
	if (setresuid(spawn->uid, spawn->uid, spawn->uid) || clear_capabilities() ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail("cannot take the caller's identity");
	/*
	 * A session keyring of its own, the caller's: the agent's, inherited,
	 * would be the command's, and its keys with it (possession is not
	 * the uid's). Without keys in the kernel there is none to leave.
	 */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
		return fail("cannot leave the agent's session keyring");
	environ = spawn->env;
	return take_caller_cpus(spawn->caller_pid);
}

/*
 * The spawner's stdio, the agent's, is not the run's: nothing on stdin and
 * stdout, the caller's stderr for what fails from here. The spawner holds
 * no other descriptor of the agent's, and the supervisor only its request's.
 */
static void take_stdio(const struct exec_spawn *spawn)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	dup2(spawn->stdio_fds[2], STDERR_FILENO);
}

/*
 * The caller's stdio, once the command has ended: whoever reads its output
 * sees the end now, not after this process's exit, which unmaps its memory
 * first (a caller waits for both its cgward exec and the end of output).
 */
static void drop_stdio(const struct exec_spawn *spawn)
{
	for (int i = 0; i < 3; i++)
		close(spawn->stdio_fds[i]);
	close(STDERR_FILENO);
}

/* {"op":"exit"} with the command's status, or why it never ran: the caller's to print. */
static void send_exit(int exit_fd, const char *key, json_t *value)
{
	json_t *msg = json_object();
	char *text;

	json_object_set_new(msg, "op", json_string("exit"));
	json_object_set_new(msg, key, value);
	text = json_dumps(msg, JSON_COMPACT);
	if (text)
		exec_message_send(exit_fd, text, strlen(text), NULL, 0);
	free(text);
	json_decref(msg);
}

/* A cgroup's cgroup.procs, opened as root in the agent's mount namespace. */
static int open_procs(const char *dir)
{
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dir_fd < 0 ? -1 : openat(dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);

	if (dir_fd >= 0)
		close(dir_fd);
	return fd;
}

static int move_in(int procs_fd, pid_t pid)
{
	char text[16];
	int n = snprintf(text, sizeof(text), "%d", pid);

	return write(procs_fd, text, (size_t)n) == n ? 0 : -errno;
}

/*
 * The run's cgroup (the command is cloned into it), and the cgroup.procs
 * of it and of its v1 memory cgroup: a command forked where clone3 is
 * refused (a seccomp filter's ENOSYS) is moved in after, and every
 * command joins the memory cgroup after.
 */
struct run_cgroup {
	int dir_fd, procs_fd, memory_procs_fd;
};

static int open_run_cgroup(const struct exec_cgroup *cg, struct run_cgroup *run_cg)
{
	run_cg->dir_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	run_cg->procs_fd =
	    run_cg->dir_fd < 0 ? -1 : openat(run_cg->dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	run_cg->memory_procs_fd = cg->memory_path[0] ? open_procs(cg->memory_path) : -1;
	if (run_cg->dir_fd < 0 || run_cg->procs_fd < 0 ||
	    (cg->memory_path[0] && run_cg->memory_procs_fd < 0))
		return -errno;
	return 0;
}

static int move_into_cgroup(const struct run_cgroup *run_cg, const struct spawned *child)
{
	int ret = child->in_cgroup ? 0 : move_in(run_cg->procs_fd, child->pid);

	if (ret == 0 && run_cg->memory_procs_fd >= 0)
		ret = move_in(run_cg->memory_procs_fd, child->pid);
	return ret;
}

/*
 * Until the command is started: the run's cgroup, the caller's namespaces,
 * any private directories as write roots (while root: bpf() may need it),
 * the caller's identity, and the command cloned into the cgroup at its gate.
 */
static int start_command(const struct exec_spawn *spawn, const struct exec_spawn_run *run,
			 const struct run_cgroup *run_cg, struct private_tmp_report *report,
			 struct spawned *child, char *err, size_t errlen)
{
	struct root_spec sockets[run->n_nodes + 1];
	struct private_tmp_setup setup = {
	    .roots = run->roots, .n_roots = run->n_roots, .sockets = sockets};
	struct spawn_prepare prepare = {.run = become_caller, .arg = (void *)spawn};
	sigset_t none;
	int ret;

	for (size_t i = 0; i < run->n_nodes; i++) {
		if (run->nodes[i].access == CGWARD_ACCESS_UNIX_PEER)
			sockets[setup.n_sockets++] = run->nodes[i];
	}
	sigemptyset(&none);
	ret = enter_caller(spawn, &setup, report);
	if (ret == 0 && spawn->private_tmp)
		ret = run_core_put_private_tmp(run->core, report, err, errlen);
	if (ret == 0)
		ret = take_caller_ids(spawn);
	if (ret == 0)
		ret = spawn_gated(spawn->argv, &none, &prepare, run_cg->dir_fd, child);
	/* Root again: the caller's processes can neither signal nor trace the supervisor. */
	if (setresuid(0, 0, 0))
		_exit(1);
	if (ret == 0 && (ret = move_into_cgroup(run_cg, child)) != 0)
		spawn_abort(child);
	if (ret && !err[0])
		snprintf(err, errlen, "cannot start %s: %s", spawn->argv[0], strerror(-ret));
	return ret;
}

/*
 * The private directories put in, told to the agent, which then removes
 * them alone at the end: not told (it ended meanwhile), it removes every
 * root of the run's policy by walking the whole map.
 */
static void report_private_tmp(int setup_fd, const struct private_tmp_report *report)
{
	ssize_t n = write(setup_fd, report, sizeof(*report));

	(void)n;
}

static void __attribute__((noreturn))
supervise(const struct exec_spawn *spawn, const struct exec_spawn_run *run, int setup_fd)
{
	struct private_tmp_report report;
	struct run_cgroup run_cg;
	char err[PATH_MAX + 128] = "";
	struct spawned child;
	int wstatus, ret;

	signal(SIGCHLD, SIG_DFL); /* the spawner's are reaped by the kernel, its own are not */
	signal(SIGPIPE, SIG_IGN); /* a write to an agent or a caller gone fails instead */
	take_stdio(spawn);
	setsid(); /* signals to the agent's process group are not the run's */
	ret = open_run_cgroup(&run->core->cgroup, &run_cg);
	if (ret == 0)
		ret = start_command(spawn, run, &run_cg, &report, &child, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "cannot open the run's cgroup: %s", strerror(-ret));
	if (ret == 0 && spawn->private_tmp)
		report_private_tmp(setup_fd, &report);
	close(setup_fd); /* the command is in the run's cgroup, or will never be */
	if (ret) {
		send_exit(spawn->exit_fd, "error", json_string(err));
		_exit(1);
	}
	ret = spawn_release(&child);
	if (waitpid(child.pid, &wstatus, 0) != child.pid)
		_exit(1);
	drop_stdio(spawn);
	if (ret)
		send_exit(spawn->exit_fd, "exec_error", json_integer(-ret));
	else
		send_exit(spawn->exit_fd, "status", json_integer(spawn_exit_status(wstatus)));
	_exit(0);
}

/* The run never reached a supervisor of its own (the spawner's message, or its decoding, failed).
 */
static void send_cannot_start(int exit_fd)
{
	send_exit(exit_fd, "error", json_string("the agent cannot start the run"));
}

void exec_spawn_supervise(char *text, int *fds, size_t n_fds)
{
	struct spawn_request *req = calloc(1, sizeof(*req));

	if (!req || spawn_request_decode(text, fds, n_fds, req)) {
		if (req && req->spawn.exit_fd >= 0)
			send_cannot_start(req->spawn.exit_fd);
		_exit(1);
	}
	supervise(&req->spawn, &req->run, req->setup_fd);
}

int exec_spawn_start(struct spawner *spawner, const struct exec_spawn *spawn,
		     const struct exec_spawn_run *run, int *setup_fd)
{
	int setup[2], fds[SPAWN_REQUEST_MAX_FDS];
	size_t n_fds;
	char *text;
	int ret;

	if (pipe2(setup, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	text = spawn_request_encode(spawn, run, setup[1], fds, &n_fds);
	ret = text ? spawner_send(spawner, text, strlen(text), fds, n_fds) : -ENOMEM;
	free(text);
	close(setup[1]); /* the supervisor's alone, once it has been sent */
	if (ret) {
		close(setup[0]);
		send_cannot_start(spawn->exit_fd);
		return -ECHILD;
	}
	*setup_fd = setup[0];
	return 0;
}
