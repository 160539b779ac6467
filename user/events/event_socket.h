/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's event socket: a root-only unix stream socket that `cgward
 * events` connects to. Each subscriber first gets the agent's recent lines
 * and an empty line that ends them, then every line as the agent writes it.
 * A subscriber that cannot keep up is dropped, never waited for: the agent
 * must not stall on its ring buffer because a reader stopped reading.
 */
#ifndef CGWARD_EVENT_SOCKET_H
#define CGWARD_EVENT_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

#define EVENT_SOCKET_PATH	 "/run/cgward/events.sock"
#define EVENT_SOCKET_BACKLOG	 256 /* recent lines a new subscriber gets */
#define EVENT_SOCKET_SUBSCRIBERS 64

struct event_socket {
	int listen_fd;
	char path[108];				   /* sizeof(sun_path) */
	int subscribers[EVENT_SOCKET_SUBSCRIBERS]; /* -1: free */
	char *recent[EVENT_SOCKET_BACKLOG];	   /* a ring, oldest at next_recent once full */
	size_t next_recent;
	char *partial; /* bytes written since the last newline */
	size_t partial_len;
	bool discarding; /* out of memory within a line: skip to its end */
};

/*
 * Listens on path, mode 0600, creating its directory (0700) if missing. A
 * stale socket left by a killed agent is replaced; one that another agent
 * still accepts on is -EADDRINUSE. Returns 0 or negative errno, with err set.
 */
int event_socket_open(struct event_socket *s, const char *path, char *err, size_t errlen);
int event_socket_listen_fd(const struct event_socket *s);

struct sockaddr_un;
/*
 * Binds a unix socket of any type to addr, mode 0600 from its first instant;
 * a stale socket file there (nobody accepts on it) is replaced, a live one
 * is -EADDRINUSE.
 */
int unix_socket_bind(int fd, const struct sockaddr_un *addr);
/* Accepts every waiting connection from root; others are closed at once. */
void event_socket_accept(struct event_socket *s);
/* Takes the agent's output bytes; each complete line goes to every subscriber. */
void event_socket_write(struct event_socket *s, const char *buf, size_t len);
/* Closes the subscribers and removes the socket. */
void event_socket_close(struct event_socket *s);

#endif
