/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's spawner: cgward itself, executed afresh by a child of the
 * agent's once, which forks the supervisor of each run the agent spawns
 * (exec_spawn.h) from itself. A fork write-protects the forker's memory;
 * forking per run, the agent copied its own heap at its next writes, page
 * by page (some 80 pages a run, tens of us each under emulation), and a
 * supervisor forked from a copy of the agent copied as many of it. The
 * spawner's own heap is small, and the agent forks nothing per run.
 */
#ifndef CGWARD_SPAWNER_H
#define CGWARD_SPAWNER_H

#include <stddef.h>
#include <sys/types.h>

/*
 * In the spawner's child, one request: the message's JSON and its
 * descriptors (close-on-exec). It does not return.
 */
typedef void (*spawner_handler)(char *text, int *fds, size_t n_fds);

struct spawner {
	int sock;  /* the agent's end of the spawner's socket; -1 before it is started */
	pid_t pid; /* the spawner's, while sock is open */
};

/* The spawner's argv[0], by which main() knows it, and its name in ps. */
#define SPAWNER_NAME "cgward-spawner"

/*
 * The spawner's main(): serves the agent that executed it until the agent
 * closes its end or dies; each request is handed to handle in a child.
 * Returns (EXIT_USAGE) only when not started by an agent.
 */
int spawner_main(spawner_handler handle);

/*
 * Sends one request, started on its own in a child of the spawner. The
 * spawner is started at the first, and again once when it is gone.
 * Returns 0 or negative errno; the descriptors stay the caller's.
 */
int spawner_send(struct spawner *sp, const char *text, size_t len, const int *fds, size_t n_fds);

/*
 * Closes the agent's end and waits for the spawner to end (it is gone from
 * the agent's cgroup then); the supervisors it forked go on.
 */
void spawner_stop(struct spawner *sp);

#endif
