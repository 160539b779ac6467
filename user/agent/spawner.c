// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "exec_message.h"
#include "spawner.h"

/*
 * Until the agent's end closes (or the agent dies): each request forked
 * into a child that handles it. The agent ignores SIGCHLD, and so does the
 * spawner: the kernel reaps the children. The signals the agent blocks for
 * its signalfd stay blocked, for the supervisors as they were.
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

static int start(struct spawner *sp)
{
	pid_t agent = getpid(), pid;
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(pair[0]);
		prctl(PR_SET_NAME, "cgward-spawner");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != agent)
			_exit(0); /* the agent died before the line above */
		/*
		 * One thread from here on, in its children too: stderr's lock,
		 * which another thread of the agent's may have held at the fork,
		 * is not taken again.
		 */
		__fsetlocking(stderr, FSETLOCKING_BYCALLER);
		/* Nothing of the agent's but its stdio: listeners above all. */
		close_range(3, (unsigned int)pair[1] - 1, 0);
		close_range((unsigned int)pair[1] + 1, ~0U, 0);
		serve(pair[1], sp->handle);
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
