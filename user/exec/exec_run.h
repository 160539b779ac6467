/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One confined run, as cgward exec makes it: the command in a fresh cgroup
 * bound to a policy of its own in the enforcement plane (adopted, or loaded
 * and pinned), let past its gate once the cgroup and the roots are in place,
 * waited for while its deny events are streamed; then its cgroup killed and
 * removed, and its policy deleted.
 */
#ifndef CGWARD_EXEC_RUN_H
#define CGWARD_EXEC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "run_limits.h"

#define EXEC_MAX_ROOTS 64

/* What a run is asked for: cgward exec's options, checked for usage only. */
struct exec_request {
	const char
	    *root_args[EXEC_MAX_ROOTS]; /* --root, --ro, --hide, --read; no write root: the cwd */
	__u32 root_access[EXEC_MAX_ROOTS]; /* CGWARD_ACCESS_* of each */
	size_t n_root_args;
	__u32 policy_flags;	   /* CGWARD_POLICY_*; READ_ROOTS: --read, --read-system */
	bool read_system_none;	   /* --read-system none: no system set */
	bool learn;		   /* --learn: audited, and the roots it needed proposed */
	__u64 dropped_caps;	   /* capabilities(7) bits: --cap-add, --cap-drop */
	struct run_limits limits;  /* --memory, --pids, --cpu */
	const char *events_path;   /* NULL: deny events go to stderr */
	const char *cgroup_parent; /* NULL: beneath cgward's own cgroup */
	bool private_tmp;
	bool spawn; /* --spawn: through the agent, it starts CMD (as --private-tmp has it do) */
	const char *unix_args[EXEC_MAX_ROOTS]; /* --allow-unix */
	size_t n_unix_args;
	const char *device_args[EXEC_MAX_ROOTS]; /* --allow-dev */
	size_t n_device_args;
	char **argv;
	struct exec_client
	    *client; /* --serve: the client this run is for (exec_agent.h); or NULL */
};

/*
 * Runs req->argv confined and returns cgward exec's exit status: CMD's
 * (128+N when killed by signal N); 128+N too when cgward itself gets SIGINT,
 * SIGTERM or SIGHUP, which end the run (the whole cgroup is killed);
 * EXIT_USAGE when a root or socket cannot be resolved or the events file
 * opened, nothing run; EXIT_SETUP_FAILED when enforcement cannot be set up
 * (nothing run) or the cgroup cannot be removed; EXIT_CMD_* when CMD cannot
 * be executed. Each error is printed once on stderr.
 */
int exec_run(const struct exec_request *req);

#endif
