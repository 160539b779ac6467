/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgward agent: applies a policy file to every cgroup of the host, with the
 * programs and maps pinned so that enforcement outlives the agent.
 */
#ifndef CGWARD_AGENT_H
#define CGWARD_AGENT_H

#include <stdbool.h>
#include <stddef.h>

/* What cgward agent was asked for (user/cmd/agent_cmd.c parses it). */
struct agent_options {
	const char *policy_path;
	const char *events_path;
	const char *socket_path;
	const char *bpffs;
	const char *metrics_address; /* --metrics ADDR:PORT, or NULL: not served */
	const char *bundle_dirs[16]; /* --bundles DIR..., or the CRI runtimes' defaults */
	const char *cri_socket;	     /* --cri-socket PATH: pods' labels */
	const char *exec_socket;     /* --exec-socket PATH or off; NULL: the policy file's */
	size_t n_bundle_dirs;
	bool unload;
	bool force;
};

/*
 * Adopts (or loads) the plane, applies opt->policy_path and serves until
 * SIGTERM or SIGINT; returns the exit status cgward agent --help documents.
 */
int agent_run(const struct agent_options *opt);

#endif
