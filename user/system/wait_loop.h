/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the long-running commands (exec, agent) wait in: one epoll set over
 * their descriptors, with the signals they handle read from a signalfd.
 */
#ifndef CGWARD_WAIT_LOOP_H
#define CGWARD_WAIT_LOOP_H

#include <signal.h>

/* Adds fd to the epoll set, to wake when it is readable. */
int wait_loop_watch(int epoll_fd, int fd);

/*
 * Blocks the signals (so that only the signalfd sees them) and returns a
 * non-blocking signalfd reading them, or negative errno. previous, when not
 * NULL, gets the mask from before, for children to restore.
 */
int wait_loop_signal_fd(const sigset_t *signals, sigset_t *previous);

#endif
