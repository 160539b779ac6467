// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include "spawn.h"

/* The prepare step's status, then its report, go to the parent ahead of any execvp errno. */
static void child_prepare(int exec_err, const struct spawn_prepare *prepare)
{
	int ret = prepare->run(prepare->arg, prepare->report);

	if (write(exec_err, &ret, sizeof(ret)) != sizeof(ret))
		_exit(125);
	if (ret)
		_exit(125);
	if (write(exec_err, prepare->report, prepare->report_size) != (ssize_t)prepare->report_size)
		_exit(125);
}

/* The child's prepare status and report; a child that died instead is reaped. */
static int read_prepared(struct spawned *child, const struct spawn_prepare *prepare)
{
	int status = -EPIPE;
	ssize_t n = read(child->exec_err_fd, &status, sizeof(status));

	if (n == sizeof(status) && status == 0) {
		n = read(child->exec_err_fd, prepare->report, prepare->report_size);
		if (n == (ssize_t)prepare->report_size)
			return 0;
		status = -EPIPE;
	} else if (n != sizeof(status) || status == 0) {
		status = -EPIPE;
	}
	spawn_abort(child);
	return status;
}

static void child_run(int gate, int exec_err, char *const argv[], const sigset_t *sigmask,
		      const struct spawn_prepare *prepare)
{
	char go;
	int err;

	if (prepare)
		child_prepare(exec_err, prepare);

	/* The gate closes without a byte when the parent dies or gives up. */
	if (read(gate, &go, 1) != 1)
		_exit(127);
	sigprocmask(SIG_SETMASK, sigmask, NULL);
	execvp(argv[0], argv);
	err = errno;
	if (write(exec_err, &err, sizeof(err)) != sizeof(err))
		_exit(127);
	_exit(err == ENOENT ? 127 : 126);
}

/*
 * A fork, born in cgroup_fd's cgroup when it is >= 0: no migration after,
 * whose cgroup.procs write waits for an RCU grace period (tens of ms under
 * emulation). The child only reads, execs and writes: nothing of libc's
 * that a raw clone3 leaves unprepared (malloc's locks, atfork handlers).
 */
static pid_t fork_into(int cgroup_fd, bool *in_cgroup)
{
	struct clone_args args = {
	    .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = (__u64)cgroup_fd};
	pid_t pid;

	*in_cgroup = false;
	if (cgroup_fd >= 0) {
		pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
		if (pid >= 0 || errno != ENOSYS) {
			*in_cgroup = pid > 0;
			return pid;
		}
	}
	return fork();
}

int spawn_gated(char *const argv[], const sigset_t *child_sigmask,
		const struct spawn_prepare *prepare, int cgroup_fd, struct spawned *child)
{
	int gate[2], exec_err[2];

	if (pipe2(gate, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(exec_err, O_CLOEXEC) != 0) {
		int ret = -errno;

		close(gate[0]);
		close(gate[1]);
		return ret;
	}
	child->pid = fork_into(cgroup_fd, &child->in_cgroup);
	if (child->pid == 0) {
		close(gate[1]);
		close(exec_err[0]);
		child_run(gate[0], exec_err[1], argv, child_sigmask, prepare);
	}
	close(gate[0]);
	close(exec_err[1]);
	if (child->pid < 0) {
		int ret = -errno;

		close(gate[1]);
		close(exec_err[0]);
		return ret;
	}
	child->gate_fd = gate[1];
	child->exec_err_fd = exec_err[0];
	return prepare ? read_prepared(child, prepare) : 0;
}

int spawn_release(struct spawned *child)
{
	char go = 1;
	int err = 0;
	ssize_t n;

	n = write(child->gate_fd, &go, 1);
	close(child->gate_fd);
	child->gate_fd = -1;
	if (n != 1)
		return -EPIPE;
	n = read(child->exec_err_fd, &err, sizeof(err));
	close(child->exec_err_fd);
	child->exec_err_fd = -1;
	return n == sizeof(err) ? -err : 0;
}

void spawn_abort(struct spawned *child)
{
	if (child->gate_fd >= 0)
		close(child->gate_fd);
	if (child->exec_err_fd >= 0)
		close(child->exec_err_fd);
	kill(child->pid, SIGKILL);
	waitpid(child->pid, NULL, 0);
}

int spawn_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return 128 + WTERMSIG(wstatus);
}
