/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command's process, created stopped at a gate: it runs nothing of the
 * command until it has been moved into its cgroup and the gate is opened.
 */
#ifndef CGWARD_SPAWN_H
#define CGWARD_SPAWN_H

#include <signal.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;
	int gate_fd;	 /* closing it (or writing to it) lets the child exec */
	int exec_err_fd; /* the child's execvp errno, or EOF once exec succeeded */
};

/* Forks a child that waits at the gate, then restores sigmask and execvp()s argv. */
int spawn_gated(char *const argv[], const sigset_t *child_sigmask, struct spawned *child);

/* Opens the gate; returns 0 once CMD is running, or the execvp errno as a negative value. */
int spawn_release(struct spawned *child);

/* Kills a child that must not run (setup failed) and reaps it. */
void spawn_abort(struct spawned *child);

#endif
