/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A spawn as the agent sends it to its spawner (spawner.h): what the
 * supervisor needs of the caller's request and of the run, as JSON, and
 * their descriptors. The agent encodes it; the supervisor, a child of the
 * spawner, decodes it into its own copies.
 */
#ifndef CGWARD_SPAWN_REQUEST_H
#define CGWARD_SPAWN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#include "policy_maps.h"
#include "roots.h"
#include "run_core.h"

/* What the caller asked to run, and with what of its own. */
struct exec_spawn {
	pid_t caller_pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* SO_PEERGROUPS */
	size_t n_groups;
	int pidfd;	    /* the caller itself */
	int cwd_fd;	    /* O_PATH */
	int stdio_fds[3];   /* stdin, stdout, stderr */
	int exit_fd;	    /* the caller's socket for {"op":"exit"} */
	char **argv, **env; /* NULL-terminated */
	unsigned int umask;
	bool private_tmp; /* --private-tmp; else --spawn */
};

/* What the supervisor needs of the run: the agent's, bound before it is sent. */
struct exec_spawn_run {
	struct run_core *core;	       /* the supervisor's copy takes the private directories */
	const struct root_spec *roots; /* bound back when beneath a private directory */
	size_t n_roots;
	const struct root_spec *nodes; /* --allow-unix (bound back too) and --allow-dev */
	size_t n_nodes;
};

/* The descriptors of a message: the caller's seven, then the maps that the plane has. */
#define SPAWN_REQUEST_MAX_FDS 13

/* A decoded spawn, whole in the supervisor: the run's core holds what it needs of it. */
struct spawn_request {
	struct exec_spawn spawn;
	struct exec_spawn_run run;
	struct run_core core;
	struct policy_maps maps;
	struct root_spec *roots, *nodes; /* run's */
	int setup_fd;			 /* the setup pipe's write end (exec_spawn_start) */
};

/*
 * The message for spawn and run, setup_fd its setup pipe: its text (to
 * free; NULL when out of memory) and its descriptors, in fds
 * (SPAWN_REQUEST_MAX_FDS) and *n_fds, still the caller's.
 */
char *spawn_request_encode(const struct exec_spawn *spawn, const struct exec_spawn_run *run,
			   int setup_fd, int *fds, size_t *n_fds);

/*
 * The spawn in text and fds, into req (calloc'd by the caller: its core is
 * large); its arrays are allocated and never freed, the supervisor ends
 * with them. Returns 0, or -EPROTO with req->spawn.exit_fd set when the
 * message had one.
 */
int spawn_request_decode(const char *text, const int *fds, size_t n_fds, struct spawn_request *req);

#endif
