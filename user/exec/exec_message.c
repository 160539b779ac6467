// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "exec_message.h"

#define CONTROL_SIZE CMSG_SPACE(EXEC_MESSAGE_MAX_FDS * sizeof(int))

static const char *const root_kinds[] = {
    [CGWARD_ACCESS_WRITE] = "write",
    [CGWARD_ACCESS_READ_ONLY] = "ro",
    [CGWARD_ACCESS_HIDDEN] = "hide",
    [CGWARD_ACCESS_READ] = "read",
};

json_t *exec_message_strings(char *const *v)
{
	json_t *array = json_array();

	for (size_t i = 0; array && v && v[i]; i++) {
		if (json_array_append_new(array, json_string(v[i]))) {
			json_decref(array);
			return NULL;
		}
	}
	return array;
}

char **exec_message_read_strings(json_t *array, bool allow_empty)
{
	size_t n = json_array_size(array);
	char **v;

	if (!json_is_array(array) || (n == 0 && !allow_empty) || !(v = calloc(n + 1, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(array, i));

		if (!s || !(v[i] = strdup(s))) {
			exec_message_free_strings(v);
			return NULL;
		}
	}
	return v;
}

void exec_message_free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

const char *exec_message_root_kind(__u32 access)
{
	return access < sizeof(root_kinds) / sizeof(root_kinds[0]) ? root_kinds[access] : NULL;
}

__u32 exec_message_root_access(const char *kind)
{
	for (__u32 access = 0; kind && access < sizeof(root_kinds) / sizeof(root_kinds[0]);
	     access++) {
		if (root_kinds[access] && strcmp(kind, root_kinds[access]) == 0)
			return access;
	}
	return 0;
}

int exec_message_send(int fd, const char *json, size_t len, const int *fds, size_t n_fds)
{
	union {
		char buf[CONTROL_SIZE];
		struct cmsghdr align;
	} control = {};
	struct iovec iov = {.iov_base = (void *)json, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cmsg;

	if (len > EXEC_MESSAGE_MAX || n_fds > EXEC_MESSAGE_MAX_FDS)
		return -EMSGSIZE;
	if (n_fds) {
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, n_fds * sizeof(int));
	}
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/* Every descriptor of the message is kept, or closed: none leaks. */
static int take_fds(struct msghdr *msg, int *fds, size_t max_fds, size_t *n_fds)
{
	int ret = msg->msg_flags & (MSG_CTRUNC | MSG_TRUNC) ? -EMSGSIZE : 0;

	*n_fds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (ret == 0 && *n_fds < max_fds)
				fds[(*n_fds)++] = got;
			else {
				close(got);
				ret = -EMSGSIZE;
			}
		}
	}
	if (ret) {
		while (*n_fds)
			close(fds[--*n_fds]);
	}
	return ret;
}

ssize_t exec_message_recv(int fd, char *buf, size_t size, int *fds, size_t max_fds, size_t *n_fds,
			  int flags)
{
	union {
		char buf[CONTROL_SIZE];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = size - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	ssize_t n = recvmsg(fd, &msg, flags | MSG_CMSG_CLOEXEC);
	int ret;

	*n_fds = 0;
	if (n < 0)
		return -errno;
	ret = take_fds(&msg, fds, max_fds, n_fds);
	if (ret)
		return ret;
	buf[n] = '\0';
	return n;
}
