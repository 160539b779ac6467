/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's spawner: a process forked from the agent once, which forks
 * the supervisor of each run the agent spawns (exec_spawn.h) from itself.
 * A fork write-protects the forker's memory; forking per run, the agent
 * copied its own heap at its next writes, page by page (some 80 pages a
 * run, tens of us each under emulation). The spawner receives into one
 * buffer and writes nothing else, and the agent forks nothing per run.
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
	spawner_handler handle;
};

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
