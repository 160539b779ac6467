// SPDX-License-Identifier: GPL-2.0
#include "event_socket.h"

#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

/* Room for the recent lines at once, so that a new subscriber is not dropped for them. */
#define SUBSCRIBER_SNDBUF (4 << 20)

static int bind_listener(int fd, const struct sockaddr_un *addr)
{
	mode_t old_umask = umask(0177); /* never an instant with a wider mode */
	int ret = bind(fd, (const struct sockaddr *)addr, sizeof(*addr)) ? -errno : 0;

	umask(old_umask);
	return ret;
}

/* An agent killed with -9 leaves its socket behind: nobody accepts on it. */
static int replace_stale(int fd, const struct sockaddr_un *addr)
{
	int type, probe, ret;
	socklen_t len = sizeof(type);

	/* A probe of another type would be refused (EPROTOTYPE) by a live listener too. */
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return -errno;
	probe = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return -errno;
	ret = connect(probe, (const struct sockaddr *)addr, sizeof(*addr)) ? -errno : 0;
	close(probe);
	if (ret == 0)
		return -EADDRINUSE;
	if (ret != -ECONNREFUSED)
		return ret;
	if (unlink(addr->sun_path))
		return -errno;
	return bind_listener(fd, addr);
}

int event_socket_open(struct event_socket *s, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	char dir[sizeof(addr.sun_path)];
	int ret;

	*s = (struct event_socket){.listen_fd = -1};
	memset(s->subscribers, -1, sizeof(s->subscribers));
	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, errlen, "%s: longer than a unix socket path can be", path);
		return -ENAMETOOLONG;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	if (mkdir(dirname(dir), 0700) && errno != EEXIST) {
		ret = -errno;
		goto fail;
	}
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = unix_socket_bind(s->listen_fd, &addr);
	if (ret == 0 && listen(s->listen_fd, 16))
		ret = -errno;
	if (ret == 0)
		return 0;
fail:
	snprintf(err, errlen, "event socket %s: %s", path,
		 ret == -EADDRINUSE ? "another agent serves events there" : strerror(-ret));
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	return ret;
}

int unix_socket_bind(int fd, const struct sockaddr_un *addr)
{
	int ret = bind_listener(fd, addr);

	return ret == -EADDRINUSE ? replace_stale(fd, addr) : ret;
}

int event_socket_listen_fd(const struct event_socket *s)
{
	return s->listen_fd;
}

/* A whole line or nothing: a subscriber that would block is dropped. */
static int send_all(int fd, const char *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n == (ssize_t)len ? 0 : -1;
}

static void drop(struct event_socket *s, size_t i)
{
	close(s->subscribers[i]);
	s->subscribers[i] = -1;
}

/* The recent lines, oldest first, then the empty line that ends them. */
static int send_recent(const struct event_socket *s, int fd)
{
	for (size_t k = 0; k < EVENT_SOCKET_BACKLOG; k++) {
		const char *line = s->recent[(s->next_recent + k) % EVENT_SOCKET_BACKLOG];

		if (line && send_all(fd, line, strlen(line)))
			return -1;
	}
	return send_all(fd, "\n", 1);
}

static bool peer_is_root(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == 0;
}

static void add_subscriber(struct event_socket *s, int fd)
{
	int sndbuf = SUBSCRIBER_SNDBUF;

	/* Past wmem_max needs CAP_NET_ADMIN; without it, as large as allowed. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	for (size_t i = 0; i < EVENT_SOCKET_SUBSCRIBERS; i++) {
		if (s->subscribers[i] < 0) {
			if (send_recent(s, fd) == 0) {
				s->subscribers[i] = fd;
				return;
			}
			break;
		}
	}
	close(fd);
}

void event_socket_accept(struct event_socket *s)
{
	int fd;

	while ((fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if (peer_is_root(fd))
			add_subscriber(s, fd);
		else
			close(fd);
	}
}

static void publish(struct event_socket *s, char *line)
{
	size_t len = strlen(line);

	for (size_t i = 0; i < EVENT_SOCKET_SUBSCRIBERS; i++) {
		if (s->subscribers[i] >= 0 && send_all(s->subscribers[i], line, len)) {
			fprintf(stderr,
				"cgward: agent: dropped an events subscriber that fell behind "
				"or left\n");
			drop(s, i);
		}
	}
	free(s->recent[s->next_recent]);
	s->recent[s->next_recent] = line;
	s->next_recent = (s->next_recent + 1) % EVENT_SOCKET_BACKLOG;
}

/* On failure the line so far is dropped, and the caller skips the rest of it. */
static int append_partial(struct event_socket *s, const char *chunk, size_t len)
{
	char *grown = realloc(s->partial, s->partial_len + len + 1);

	if (!grown) {
		free(s->partial);
		s->partial = NULL;
		s->partial_len = 0;
		return -ENOMEM;
	}
	memcpy(grown + s->partial_len, chunk, len);
	s->partial_len += len;
	grown[s->partial_len] = '\0';
	s->partial = grown;
	return 0;
}

void event_socket_write(struct event_socket *s, const char *buf, size_t len)
{
	const char *end = buf + len, *chunk, *newline;

	while (buf < end) {
		chunk = buf;
		newline = memchr(chunk, '\n', (size_t)(end - chunk));
		buf = newline ? newline + 1 : end;
		/* Out of memory, the line is lost to subscribers (not to stdout or the file),
		 * whole. */
		if (s->discarding || append_partial(s, chunk, (size_t)(buf - chunk))) {
			s->discarding = !newline;
			continue;
		}
		if (newline) {
			publish(s, s->partial);
			s->partial = NULL;
			s->partial_len = 0;
		}
	}
}

void event_socket_close(struct event_socket *s)
{
	for (size_t i = 0; i < EVENT_SOCKET_SUBSCRIBERS; i++)
		if (s->subscribers[i] >= 0)
			drop(s, i);
	for (size_t k = 0; k < EVENT_SOCKET_BACKLOG; k++)
		free(s->recent[k]);
	free(s->partial);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		unlink(s->path);
	}
	s->listen_fd = -1;
}
