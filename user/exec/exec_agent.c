// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <jansson.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "exec_agent.h"
#include "exec_message.h"
#include "policy.h"

/* The agent removes a run's cgroup in at most this (exec_cgroup_destroy's bound), and more. */
#define END_REPLY_TIMEOUT_MS 15000

/* A spawn request's descriptors after "self": cwd, stdin, stdout, stderr, exit. */
#define SPAWN_FDS 5

const char *exec_agent_socket_path(void)
{
	const char *path = getenv(EXEC_SOCKET_ENV);

	return path && path[0] ? path : EXEC_SOCKET_PATH;
}

/* A connection to the agent's exec socket; -errno. */
static int connect_to(const char *path, int *fd)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	*fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (connect(*fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		return 0;
	ret = -errno;
	close(*fd);
	*fd = -1;
	return ret;
}

int exec_agent_connect(int *fd)
{
	const char *path = exec_agent_socket_path();
	int ret = connect_to(path, fd);

	if (ret == -ENAMETOOLONG)
		fprintf(stderr, "cgward: %s: longer than a unix socket path can be\n", path);
	else if (ret)
		fprintf(stderr,
			"cgward: exec: not root, and no cgward agent answers on %s (%s): start it "
			"(systemctl enable --now cgward), or run cgward exec as root\n",
			path, strerror(-ret));
	return ret;
}

/* One descriptor and its kind and name; node descriptors are the caller's to close. */
static int add_fd(json_t *kinds, json_t *paths, int *fds, size_t *n, int fd, const char *kind,
		  const char *path)
{
	if (json_array_append_new(kinds, json_string(kind)) ||
	    json_array_append_new(paths, json_string(path)))
		return -ENOMEM;
	fds[(*n)++] = fd;
	return 0;
}

/* The nodes are opened again, with the caller's rights: the agent trusts only descriptors. */
static int open_nodes(const struct exec_agent_ask *ask, int *node_fds)
{
	for (size_t i = 0; i < ask->n_nodes; i++) {
		node_fds[i] = open(ask->nodes[i].path, O_PATH | O_CLOEXEC);
		if (node_fds[i] < 0) {
			int ret = -errno;

			fprintf(stderr, "cgward: %s: %s\n", ask->nodes[i].path, strerror(-ret));
			while (i)
				close(node_fds[--i]);
			return ret;
		}
	}
	return 0;
}

/*
 * What the agent needs to start the command as this process would: argv,
 * environment, umask and whether /tmp is its own, then the cwd, stdio and
 * the socket for the exit.
 */
static int add_spawn(json_t *req, const struct exec_agent_ask *ask, json_t *kinds, json_t *paths,
		     int *fds, size_t *n, const int spawn_fds[SPAWN_FDS])
{
	static const char *const kind[SPAWN_FDS] = {"cwd", "stdin", "stdout", "stderr", "exit"};
	mode_t mask = umask(0);
	int ret = 0;

	umask(mask);
	for (size_t i = 0; ret == 0 && i < SPAWN_FDS; i++)
		ret = add_fd(kinds, paths, fds, n, spawn_fds[i], kind[i], kind[i]);
	if (ret == 0 &&
	    (json_object_set_new(req, "argv", exec_message_strings(ask->argv)) ||
	     json_object_set_new(req, "env",
				 exec_message_strings(ask->client ? ask->client->envp : environ)) ||
	     json_object_set_new(req, "umask", json_integer(mask)) ||
	     json_object_set_new(req, "private_tmp", json_boolean(ask->private_tmp))))
		ret = -EINVAL;
	return ret;
}

static int send_request(int fd, const struct exec_agent_ask *ask, int pidfd, const int *spawn_fds,
			const int *node_fds)
{
	int fds[EXEC_MESSAGE_MAX_FDS];
	json_t *req = json_object(), *kinds = json_array(), *paths = json_array();
	size_t n = 0;
	char *text = NULL;
	int ret = req && kinds && paths ? 0 : -ENOMEM;

	if (1 + SPAWN_FDS + ask->n_roots + ask->n_nodes > EXEC_MESSAGE_MAX_FDS)
		ret = -E2BIG;
	if (ret == 0)
		ret = add_fd(kinds, paths, fds, &n, pidfd, ask->spawn ? "self" : "pid", ask->argv0);
	if (ret == 0 && ask->spawn)
		ret = add_spawn(req, ask, kinds, paths, fds, &n, spawn_fds);
	for (size_t i = 0; ret == 0 && i < ask->n_roots; i++)
		ret = add_fd(kinds, paths, fds, &n, ask->roots[i].fd,
			     exec_message_root_kind(ask->roots[i].access), ask->roots[i].path);
	for (size_t i = 0; ret == 0 && i < ask->n_nodes; i++)
		ret = add_fd(kinds, paths, fds, &n, node_fds[i],
			     ask->nodes[i].access == CGWARD_ACCESS_UNIX_PEER ? "unix" : "dev",
			     ask->nodes[i].path);
	if (ret == 0 &&
	    (json_object_set_new(req, "argv0", json_string(ask->argv0)) ||
	     json_object_set_new(req, "flags", json_integer(ask->policy_flags)) ||
	     json_object_set_new(req, "dropped_caps",
				 json_integer((json_int_t)ask->dropped_caps)) ||
	     json_object_set_new(req, "memory_mib",
				 json_integer((json_int_t)ask->limits.memory_mib)) ||
	     json_object_set_new(req, "pids_max", json_integer((json_int_t)ask->limits.pids)) ||
	     json_object_set_new(req, "cpu_milli",
				 json_integer((json_int_t)ask->limits.cpu_milli)) ||
	     json_object_set(req, "fds", kinds) || json_object_set(req, "paths", paths) ||
	     !(text = json_dumps(req, JSON_COMPACT))))
		ret = -ENOMEM;
	if (ret == 0)
		ret = exec_message_send(fd, text, strlen(text), fds, n);
	free(text);
	json_decref(req);
	json_decref(kinds);
	json_decref(paths);
	return ret;
}

static int read_grant(const char *text, const int *fds, size_t n_fds,
		      struct exec_agent_grant *grant)
{
	json_t *reply = json_loads(text, 0, NULL);
	const char *error = reply ? json_string_value(json_object_get(reply, "error")) : NULL;
	const char *cgroup = reply ? json_string_value(json_object_get(reply, "cgroup")) : NULL;
	json_int_t size = reply ? json_integer_value(json_object_get(reply, "ring_size")) : 0;
	int ret = 0;

	if (error && json_is_true(json_object_get(reply, "caller_starts"))) {
		ret = -EOPNOTSUPP; /* --spawn: the agent cannot start it as this caller */
	} else if (error) {
		fprintf(stderr, "cgward: exec: the agent refused: %s\n", error);
		ret = -EPERM;
	} else if (!cgroup || size <= 0 || n_fds != 1) {
		fprintf(stderr, "cgward: exec: the agent's reply is not understood\n");
		ret = -EPROTO;
	} else {
		snprintf(grant->cgroup, sizeof(grant->cgroup), "%s", cgroup);
		grant->ring_size = (size_t)size;
		grant->ring_fd = fds[0];
	}
	json_decref(reply);
	return ret;
}

/*
 * The caller (the agent checks it is the peer): this process, or the
 * client it serves; this process's cwd and stdio (the client's, when it
 * serves one), and one end of a socket pair whose other end, exit_fd,
 * hears the command's end.
 */
static int open_spawn_fds(const struct exec_client *client, int *pidfd, int spawn_fds[SPAWN_FDS],
			  int *exit_fd)
{
	int pair[2];

	*pidfd = client ? dup(client->pidfd) : (int)syscall(SYS_pidfd_open, getpid(), 0);
	spawn_fds[0] = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*pidfd < 0 || spawn_fds[0] < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair)) {
		fprintf(stderr, "cgward: exec: %s: %s\n",
			*pidfd < 0	   ? "pidfd_open"
			: spawn_fds[0] < 0 ? "the cwd"
					   : "socketpair",
			strerror(errno));
		return -errno;
	}
	for (int i = 0; i < 3; i++)
		spawn_fds[1 + i] = i;
	spawn_fds[4] = pair[1];
	*exit_fd = pair[0];
	return 0;
}

int exec_agent_confine(int fd, const struct exec_agent_ask *ask, struct exec_agent_grant *grant)
{
	static char reply[EXEC_MESSAGE_MAX];
	int node_fds[EXEC_MESSAGE_MAX_FDS], fds[1];
	int spawn_fds[SPAWN_FDS] = {-1, -1, -1, -1, -1};
	int pidfd = -1;
	size_t n_fds = 0;
	ssize_t n;
	int ret;

	grant->exit_fd = -1;
	if (ask->spawn) {
		ret = open_spawn_fds(ask->client, &pidfd, spawn_fds, &grant->exit_fd);
	} else {
		pidfd = (int)syscall(SYS_pidfd_open, ask->pid, 0);
		ret = pidfd < 0 ? -errno : 0;
		if (ret)
			fprintf(stderr, "cgward: exec: pidfd_open: %s\n", strerror(-ret));
	}
	if (ret == 0)
		ret = open_nodes(ask, node_fds);
	if (ret == 0) {
		ret = send_request(fd, ask, pidfd, spawn_fds, node_fds);
		for (size_t i = 0; i < ask->n_nodes; i++)
			close(node_fds[i]);
		if (ret)
			fprintf(stderr, "cgward: exec: cannot send the request: %s\n",
				strerror(-ret));
	}
	if (pidfd >= 0)
		close(pidfd);
	if (spawn_fds[0] >= 0)
		close(spawn_fds[0]);
	if (spawn_fds[4] >= 0)
		close(spawn_fds[4]);
	if (ret)
		return ret;
	n = exec_message_recv(fd, reply, sizeof(reply), fds, 1, &n_fds, 0);
	if (n <= 0) {
		fprintf(stderr, "cgward: exec: the agent did not answer: %s\n",
			n ? strerror((int)-n) : "connection closed");
		return n ? (int)n : -ECONNRESET;
	}
	ret = read_grant(reply, fds, n_fds, grant);
	if (ret) {
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
	}
	return ret;
}

int exec_agent_read_exit(int exit_fd, struct exec_agent_exit *outcome)
{
	char text[PATH_MAX + 256];
	size_t n_fds;
	ssize_t n = exec_message_recv(exit_fd, text, sizeof(text), NULL, 0, &n_fds, 0);
	json_t *msg = n > 0 ? json_loads(text, 0, NULL) : NULL;
	json_t *status = json_object_get(msg, "status");
	const char *error = json_string_value(json_object_get(msg, "error"));

	*outcome = (struct exec_agent_exit){
	    .status = (int)json_integer_value(status),
	    .exec_error = (int)json_integer_value(json_object_get(msg, "exec_error"))};
	snprintf(outcome->error, sizeof(outcome->error), "%s", error ?: "");
	json_decref(msg);
	if (n < 0)
		return (int)n;
	return n == 0 ? -ECONNRESET : msg ? 0 : -EPROTO;
}

/* Sends an end (text) and reads the agent's answer; -ECONNRESET when the agent is gone. */
/* The run's limit counters in the agent's answer; zeros when it has none (an ended run's). */
static void read_final(json_t *limits, struct limit_final *final)
{
	*final = (struct limit_final){
	    .counts = {.oom_kill = (__u64)json_integer_value(json_object_get(limits, "oom_kill")),
		       .pids_max = (__u64)json_integer_value(json_object_get(limits, "pids_max")),
		       .cpu_throttled =
			   (__u64)json_integer_value(json_object_get(limits, "cpu_throttled"))},
	    .throttled_usec = (__u64)json_integer_value(json_object_get(limits, "throttled_usec")),
	    .usage_usec = (__u64)json_integer_value(json_object_get(limits, "usage_usec"))};
}

static int ask_end(int fd, const char *text, struct exec_agent_end *end)
{
	char reply[512];
	struct pollfd answer = {.fd = fd, .events = POLLIN};
	json_t *json;
	size_t n_fds;
	ssize_t n;

	/* The agent may have ended the run first (its cgroup emptied): its answer waits. */
	exec_message_send(fd, text, strlen(text), NULL, 0);
	if (poll(&answer, 1, END_REPLY_TIMEOUT_MS) != 1)
		return -ETIMEDOUT;
	n = exec_message_recv(fd, reply, sizeof(reply), NULL, 0, &n_fds, 0);
	/*
	 * When the agent closed with our "end" unread, the kernel reports
	 * ECONNRESET once, before the answer queued ahead of it.
	 */
	if (n == -ECONNRESET)
		n = exec_message_recv(fd, reply, sizeof(reply), NULL, 0, &n_fds, MSG_DONTWAIT);
	if (n <= 0)
		return n ? (int)n : -ECONNRESET;
	json = json_loads(reply, 0, NULL);
	if (json_object_get(json, "error")) {
		json_decref(json);
		return -ESRCH;
	}
	end->events_lost = (__u64)json_integer_value(json_object_get(json, "events_lost"));
	end->oom_killed = json_is_true(json_object_get(json, "oom_killed"));
	read_final(json_object_get(json, "limits"), &end->limits);
	json_decref(json);
	return json ? 0 : -EPROTO;
}

int exec_agent_end(int fd, const char *cgroup, struct exec_agent_end *end)
{
	json_t *again;
	char *text;
	int ret = ask_end(fd, "{\"op\":\"end\"}", end);

	if (ret != -ECONNRESET && ret != -EPIPE)
		return ret;
	/* The agent was restarted: the new one adopted the run, and ends it when asked. */
	if (connect_to(exec_agent_socket_path(), &fd))
		return ret;
	again = json_pack("{s:s, s:s}", "op", "end", "cgroup", cgroup);
	text = again ? json_dumps(again, JSON_COMPACT) : NULL;
	ret = text ? ask_end(fd, text, end) : -ENOMEM;
	free(text);
	json_decref(again);
	close(fd);
	return ret;
}
