// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

#include "wait_loop.h"

int wait_loop_watch(int epoll_fd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

int wait_loop_signal_fd(const sigset_t *signals, sigset_t *previous)
{
	int fd;

	if (sigprocmask(SIG_BLOCK, signals, previous) != 0)
		return -errno;
	fd = signalfd(-1, signals, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}
