// SPDX-License-Identifier: GPL-2.0
/* cgward exec --serve: a run forked for each request of the client on standard input. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>

#include "exec_agent.h"
#include "exec_message.h"
#include "exec_serve.h"
#include "exit_codes.h"

/* A request's descriptors, in their order. */
enum { FD_AGENT, FD_PIDFD, FD_CWD, FD_STDIN, FD_STDOUT, FD_STDERR, FD_REPLY, SERVE_FDS };

/* One request: the command, its environment and umask, its descriptors. */
struct served_run {
	char **argv;
	char **env;
	mode_t umask;
	int *fds;
};

static void served_run_free(struct served_run *run, size_t n_fds)
{
	exec_message_free_strings(run->argv);
	exec_message_free_strings(run->env);
	for (size_t i = 0; i < n_fds; i++)
		close(run->fds[i]);
}

/* The request in text; false when it is none (the client's bug). */
static bool read_run(const char *text, size_t n_fds, struct served_run *run)
{
	json_t *msg = json_loads(text, 0, NULL);
	json_t *mask = json_object_get(msg, "umask");
	bool valid = json_is_integer(mask) && json_integer_value(mask) >= 0 &&
		     json_integer_value(mask) <= 0777 && n_fds == SERVE_FDS;

	run->argv = exec_message_read_strings(json_object_get(msg, "argv"), false);
	run->env = exec_message_read_strings(json_object_get(msg, "env"), true);
	run->umask = (mode_t)json_integer_value(mask);
	json_decref(msg);
	return valid && run->argv && run->env;
}

/*
 * In the run's own child: the client's stdio, cwd and umask, the run as
 * cgward exec makes it, then its last line.
 */
static int run_for_client(const struct exec_request *base, const struct served_run *run)
{
	struct exec_client client = {.agent_fd = run->fds[FD_AGENT],
				     .pidfd = run->fds[FD_PIDFD],
				     .envp = run->env,
				     .reply_fd = run->fds[FD_REPLY]};
	struct exec_request req = *base;
	int status = 0;

	signal(SIGCHLD, SIG_DFL);
	for (int i = 0; status == 0 && i < 3; i++)
		status = dup2(run->fds[FD_STDIN + i], i) < 0 ? EXIT_SETUP_FAILED : 0;
	if (status == 0 && fchdir(run->fds[FD_CWD])) {
		fprintf(stderr, "cgward: exec: the client's cwd: %s\n", strerror(errno));
		status = EXIT_SETUP_FAILED;
	}
	umask(run->umask);
	req.argv = run->argv;
	req.client = &client;
	if (status == 0)
		status = exec_run(&req);
	if (client.caller_starts)
		dprintf(client.reply_fd, "{\"caller_starts\":true}\n");
	else
		dprintf(client.reply_fd, "{\"exit\":%d}\n", status);
	return status;
}

static void serve_one(const struct exec_request *req, const char *text, int *fds, size_t n_fds)
{
	struct served_run run = {.fds = fds};
	pid_t pid;

	if (!read_run(text, n_fds, &run)) {
		fprintf(stderr, "cgward: exec --serve: a request not understood\n");
		served_run_free(&run, n_fds);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int status = run_for_client(req, &run);

		fflush(NULL);
		_exit(status);
	}
	if (pid < 0) {
		dprintf(fds[FD_STDERR], "cgward: exec: fork: %s\n", strerror(errno));
		dprintf(fds[FD_REPLY], "{\"exit\":%d}\n", EXIT_SETUP_FAILED);
	}
	served_run_free(&run, n_fds);
}

/* Where the client connects to the agent, as cgward exec would. */
static int send_hello(void)
{
	json_t *hello = json_pack("{s:s}", "agent_socket", exec_agent_socket_path());
	char *text = hello ? json_dumps(hello, JSON_COMPACT) : NULL;
	int ret = text ? exec_message_send(STDIN_FILENO, text, strlen(text), NULL, 0) : -ENOMEM;

	free(text);
	json_decref(hello);
	return ret;
}

int exec_serve(const struct exec_request *req)
{
	static char text[EXEC_MESSAGE_MAX];
	int fds[EXEC_MESSAGE_MAX_FDS], ret;
	size_t n_fds;
	ssize_t n;

	if (geteuid() == 0) {
		fprintf(stderr, "cgward: exec: --serve is for ordinary users, through the agent; "
				"root runs cgward exec for each command\n");
		return EXIT_USAGE;
	}
	ret = send_hello();
	if (ret) {
		fprintf(stderr, "cgward: exec --serve: standard input, the client's socket: %s\n",
			strerror(-ret));
		return EXIT_USAGE;
	}
	/* The kernel reaps the runs' children; a client gone hears nothing more. */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	while ((n = exec_message_recv(STDIN_FILENO, text, sizeof(text), fds, EXEC_MESSAGE_MAX_FDS,
				      &n_fds, 0)) != 0) {
		if (n > 0) {
			serve_one(req, text, fds, n_fds);
		} else if (n != -EINTR && n != -EMSGSIZE) {
			fprintf(stderr, "cgward: exec --serve: %s\n", strerror((int)-n));
			return EXIT_RUNTIME_ERROR;
		}
	}
	return 0;
}
