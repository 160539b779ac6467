/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs the agent starts itself for cgward exec --private-tmp (exec_message.h):
 * no API puts another process into a mount namespace, so the command is the
 * agent's, made the caller's in every other way; and for --spawn, which
 * spares the run the cgroup migration of the caller's child (an RCU grace
 * period). A supervisor, forked by the agent's spawner (spawner.h) and
 * root, joins the caller's namespaces, with --private-tmp makes its own
 * /tmp, /var/tmp and /dev/shm (private_tmp.h) and installs them as write
 * roots, takes the caller's cwd, rlimits and identity, and clones
 * the command straight into the run's cgroup (bound already) at a gate; the
 * command takes the caller's stdio and environment, drops the last of root,
 * and runs. The supervisor waits for it and sends {"op":"exit"} on a socket
 * the caller passed for it: not on the connection, whose descriptor the
 * agent closes and polls.
 */
#ifndef CGWARD_EXEC_SPAWN_H
#define CGWARD_EXEC_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <jansson.h>

#include "spawn_request.h"
#include "spawner.h"

/* The descriptors of a spawn request after "self" (cwd, stdio, exit): fds[1..EXEC_SPAWN_FDS]. */
#define EXEC_SPAWN_FDS 5

/* Whether a request asks the agent to spawn its command: its first descriptor is "self". */
bool exec_spawn_requested(json_t *req);

/*
 * Takes the pidfd, cwd, stdio and exit socket (fds[0..EXEC_SPAWN_FDS], each
 * set to -1), argv, env, umask and private_tmp from req, the caller's groups
 * from its connection, then checks that the pidfd is the caller (peer)
 * itself, in the agent's user and pid namespaces, without seccomp filters,
 * under the agent's LSM labels and, in its mount namespace, not chrooted.
 * Returns 0 or negative errno, the reason
 * in err: -EOPNOTSUPP for a confinement the agent could not give the
 * command, which the caller's own child would keep.
 */
int exec_spawn_read(json_t *req, int *fds, size_t n_fds, int conn_fd, const struct ucred *peer,
		    struct exec_spawn *spawn, char *err, size_t errlen);

/*
 * Has spawner fork the supervisor (the kernel reaps it; it outlives a
 * restarted agent) and returns in *setup_fd the read end of a
 * pipe that reaches end of file once the command is in the run's cgroup, or
 * will never be; the command in, the private directories' struct
 * private_tmp_report comes first (for run_core_note_private_tmp). Until
 * then the run's cgroup is empty without being over.
 * On failure the caller is told on its exit socket.
 */
int exec_spawn_start(struct spawner *spawner, const struct exec_spawn *spawn,
		     const struct exec_spawn_run *run, int *setup_fd);

/* The spawner's handler (spawner_handler): the supervisor of the spawn in text and fds. */
void exec_spawn_supervise(char *text, int *fds, size_t n_fds) __attribute__((noreturn));

void exec_spawn_free(struct exec_spawn *spawn);

#endif
