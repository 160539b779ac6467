// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <jansson.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "exec_agent.h"
#include "exec_message.h"

/* The agent removes a run's cgroup in at most this (exec_cgroup_destroy's bound), and more. */
#define END_REPLY_TIMEOUT_MS 15000

static const char *socket_path(void)
{
	const char *path = getenv(EXEC_SOCKET_ENV);

	return path && path[0] ? path : EXEC_SOCKET_PATH;
}

int exec_agent_connect(int *fd)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	const char *path = socket_path();
	int ret;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "cgward: %s: longer than a unix socket path can be\n", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	*fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (connect(*fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		return 0;
	ret = -errno;
	close(*fd);
	*fd = -1;
	fprintf(stderr,
		"cgward: exec: not root, and no cgward agent answers on %s (%s): start it "
		"(systemctl enable --now cgward), or run cgward exec as root\n",
		path, strerror(-ret));
	return ret;
}

static const char *const root_kinds[] = {
    [CGWARD_ACCESS_WRITE] = "write",
    [CGWARD_ACCESS_READ_ONLY] = "ro",
};

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

static int send_request(int fd, const struct exec_agent_ask *ask, int pidfd, const int *node_fds)
{
	int fds[EXEC_MESSAGE_MAX_FDS];
	json_t *req = json_object(), *kinds = json_array(), *paths = json_array();
	size_t n = 0;
	char *text = NULL;
	int ret = req && kinds && paths ? 0 : -ENOMEM;

	if (1 + ask->n_roots + ask->n_nodes > EXEC_MESSAGE_MAX_FDS)
		ret = -E2BIG;
	if (ret == 0)
		ret = add_fd(kinds, paths, fds, &n, pidfd, "pid", ask->argv0);
	for (size_t i = 0; ret == 0 && i < ask->n_roots; i++)
		ret = add_fd(kinds, paths, fds, &n, ask->roots[i].fd,
			     root_kinds[ask->roots[i].access], ask->roots[i].path);
	for (size_t i = 0; ret == 0 && i < ask->n_nodes; i++)
		ret = add_fd(kinds, paths, fds, &n, node_fds[i],
			     ask->nodes[i].access == CGWARD_ACCESS_UNIX_PEER ? "unix" : "dev",
			     ask->nodes[i].path);
	if (ret == 0 &&
	    (json_object_set_new(req, "argv0", json_string(ask->argv0)) ||
	     json_object_set_new(req, "flags", json_integer(ask->policy_flags)) ||
	     json_object_set_new(req, "memory_mib", json_integer((json_int_t)ask->memory_mib)) ||
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

	if (error) {
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

int exec_agent_confine(int fd, const struct exec_agent_ask *ask, struct exec_agent_grant *grant)
{
	static char reply[EXEC_MESSAGE_MAX];
	int node_fds[EXEC_MESSAGE_MAX_FDS], fds[1];
	int pidfd = (int)syscall(SYS_pidfd_open, ask->pid, 0);
	size_t n_fds = 0;
	ssize_t n;
	int ret;

	if (pidfd < 0) {
		fprintf(stderr, "cgward: exec: pidfd_open: %s\n", strerror(errno));
		return -errno;
	}
	ret = open_nodes(ask, node_fds);
	if (ret == 0) {
		ret = send_request(fd, ask, pidfd, node_fds);
		for (size_t i = 0; i < ask->n_nodes; i++)
			close(node_fds[i]);
		if (ret)
			fprintf(stderr, "cgward: exec: cannot send the request: %s\n",
				strerror(-ret));
	}
	close(pidfd);
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

int exec_agent_end(int fd, __u64 *events_lost, bool *oom_killed)
{
	static const char end[] = "{\"op\":\"end\"}";
	char reply[256];
	struct pollfd answer = {.fd = fd, .events = POLLIN};
	json_t *json;
	size_t n_fds;
	ssize_t n;

	/* The agent may have ended the run first (its cgroup emptied): its answer waits. */
	exec_message_send(fd, end, sizeof(end) - 1, NULL, 0);
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
	*events_lost = (__u64)json_integer_value(json_object_get(json, "events_lost"));
	*oom_killed = json_is_true(json_object_get(json, "oom_killed"));
	json_decref(json);
	return json ? 0 : -EPROTO;
}
