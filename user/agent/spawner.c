// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <jansson.h>

#include "exec_message.h"
#include "exit_codes.h"
#include "spawner.h"

/* The spawner's end of its socket, where the agent's exec puts it. */
#define SPAWNER_FD 3

/*
 * Until the agent's end closes (or the agent dies): each request forked
 * into a child that handles it. The spawner ignores SIGCHLD: the kernel
 * reaps the children. The signals the agent blocks for its signalfd stay
 * blocked (the mask outlives exec), for the supervisors as they were.
 */
static void __attribute__((noreturn)) serve(int sock, spawner_handler handle)
{
	static char text[EXEC_MESSAGE_MAX];
	int fds[EXEC_MESSAGE_MAX_FDS];
	size_t n_fds;

	for (;;) {
		ssize_t n = exec_message_recv(sock, text, sizeof(text), fds, EXEC_MESSAGE_MAX_FDS,
					      &n_fds, 0);

		if (n == 0 || (n < 0 && n != -EINTR && n != -EMSGSIZE))
			_exit(0);
		if (n < 0)
			continue;
		/* Not forked: its descriptors close, and its caller sees its exit socket end. */
		if (fork() == 0) {
			close(sock);
			handle(text, fds, n_fds);
		}
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
	}
}

int spawner_main(spawner_handler handle)
{
	int type;
	socklen_t len = sizeof(type);

	if (getsockopt(SPAWNER_FD, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_SEQPACKET) {
		fputs(SPAWNER_NAME ": started by cgward agent, not by hand\n", stderr);
		return EXIT_USAGE;
	}
	fcntl(SPAWNER_FD, F_SETFD, FD_CLOEXEC);
	prctl(PR_SET_NAME, SPAWNER_NAME);
	/*
	 * What the agent ignores, exec kept: every signal at its default again
	 * but SIGCHLD, so that a supervisor has only its own to undo.
	 */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, sig == SIGCHLD ? SIG_IGN : SIG_DFL);
	/* The requests are JSON: jansson's hash seed read once here, not in each child. */
	json_object_seed(0);
	serve(SPAWNER_FD, handle);
}

/*
 * In the agent's child: its socket at SPAWNER_FD, open across exec, and
 * nothing else of the agent's but its stdio (its listeners above all).
 * Only what is safe after a fork of a process with threads.
 */
static void __attribute__((noreturn)) exec_spawner(int sock)
{
	static const char failed[] = "cgward: agent: cannot start the spawner\n";
	char *argv[] = {(char *)SPAWNER_NAME, NULL};
	int ok = sock == SPAWNER_FD ? fcntl(sock, F_SETFD, 0) == 0
				    : dup2(sock, SPAWNER_FD) == SPAWNER_FD;
	ssize_t n;

	if (ok && close_range(SPAWNER_FD + 1, ~0U, 0) == 0)
		execv("/proc/self/exe", argv);
	n = write(STDERR_FILENO, failed, sizeof(failed) - 1);
	(void)n;
	_exit(127);
}

static int start(struct spawner *sp)
{
	pid_t agent = getpid(), pid;
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair))
		return -errno;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* kept across exec: the binary is not set-id */
		if (getppid() != agent)
			_exit(0); /* the agent died before the line above */
		exec_spawner(pair[1]);
	}
	if (pid < 0) {
		int ret = -errno;

		close(pair[0]);
		close(pair[1]);
		return ret;
	}
	close(pair[1]);
	sp->sock = pair[0];
	sp->pid = pid;
	return 0;
}

int spawner_send(struct spawner *sp, const char *text, size_t len, const int *fds, size_t n_fds)
{
	int ret = sp->sock >= 0 ? exec_message_send(sp->sock, text, len, fds, n_fds) : -EPIPE;

	if (ret == -EPIPE || ret == -ECONNRESET || ret == -ECONNREFUSED || ret == -ENOTCONN) {
		if (sp->sock >= 0)
			fprintf(stderr, "cgward: agent: the spawner ended; starting another\n");
		spawner_stop(sp);
		ret = start(sp);
		if (ret == 0)
			ret = exec_message_send(sp->sock, text, len, fds, n_fds);
	}
	return ret;
}

void spawner_stop(struct spawner *sp)
{
	if (sp->sock < 0)
		return;
	close(sp->sock);
	sp->sock = -1;
	/* The agent ignores SIGCHLD: this returns (ECHILD) once the spawner has ended. */
	waitpid(sp->pid, NULL, 0);
}
