/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command's process, created stopped at a gate: it runs nothing of the
 * command until it has been moved into its cgroup and the gate is opened.
 */
#ifndef CGWARD_SPAWN_H
#define CGWARD_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;
	bool in_cgroup;	 /* started in the cgroup spawn_gated was given */
	int gate_fd;	 /* closing it (or writing to it) lets the child exec */
	int exec_err_fd; /* the child's execvp errno, or EOF once exec succeeded */
};

/*
 * What the child does before it waits at the gate: in cgroup_fd's cgroup
 * when spawn_gated is given one, else before it is moved into the enforced
 * cgroup, so that it may do what the boundary refuses (mounts). run()
 * returns 0 or a negative errno; on success it has filled report,
 * report_size bytes that the parent gets back.
 */
struct spawn_prepare {
	int (*run)(void *arg, void *report);
	void *arg;
	void *report;
	size_t report_size;
};

/*
 * Forks a child that runs prepare (if not NULL) and waits at the gate, then
 * restores sigmask and execvp()s argv. When prepare fails, the child is
 * reaped and its error returned; on success prepare->report holds the
 * child's report. With cgroup_fd >= 0 (a cgroup2 directory) the child
 * starts in that cgroup (clone3 CLONE_INTO_CGROUP, child->in_cgroup), or
 * where its parent is when clone3 is not allowed (a seccomp filter's ENOSYS).
 */
int spawn_gated(char *const argv[], const sigset_t *child_sigmask,
		const struct spawn_prepare *prepare, int cgroup_fd, struct spawned *child);

/* Opens the gate; returns 0 once CMD is running, or the execvp errno as a negative value. */
int spawn_release(struct spawned *child);

/* Kills a child that must not run (setup failed) and reaps it. */
void spawn_abort(struct spawned *child);

/* A wait status as cgward exec's exit status: the command's, or 128+N when killed by signal N. */
int spawn_exit_status(int wstatus);

#endif
