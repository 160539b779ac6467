/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-wide policy file (policy/schema.md): which cgroups get which write
 * roots. Parsed with libyaml and validated as a whole, so that one run of
 * `cgward policy check` reports every mistake with its line and column.
 */
#ifndef CGWARD_POLICY_H
#define CGWARD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "container_meta.h"
#include "roots.h"
#include "run_limits.h"

#define POLICY_FILE_MAX	     (1024 * 1024)
#define POLICY_MAX_RULES     4096
#define POLICY_MAX_ROOTS     64 /* a rule's roots of the node, and apart its container paths */
#define POLICY_NAME_MAX	     63
#define POLICY_DIAG_MSG_SIZE 384
/* A SHA-256 in hex, as sha256sum prints it, and its NUL. */
#define POLICY_SHA256_SIZE 65

/* key: value pairs a pod's labels or annotations must all have. */
struct policy_pairs {
	char **keys, **values;
	size_t n;
};

/*
 * selector.kubernetes: a container of a pod, described by its bundle
 * (container_meta.h). Every key given must match; an absent key matches any.
 */
struct policy_kubernetes {
	bool present;
	char **namespaces; /* the pod's namespace is one of these */
	size_t n_namespaces;
	char **containers; /* the container's name matches one of these globs (fnmatch) */
	size_t n_containers;
	struct policy_pairs pod_labels, pod_annotations;
};

/*
 * A path as each selected container sees it (container_roots, container_hide,
 * container_read_roots), resolved in the container when it is bound.
 */
struct container_path {
	char *path;
	__u32 access; /* CGWARD_ACCESS_WRITE, _HIDDEN or _READ */
};

struct policy_rule {
	char name[POLICY_NAME_MAX + 1];
	char **cgroup_globs;
	size_t n_cgroup_globs;
	char **pod_uids;
	size_t n_pod_uids;
	char **container_ids;
	size_t n_container_ids;
	struct policy_kubernetes kubernetes;
	/*
	 * Paths as each container sees them, resolved when it is bound:
	 * container_roots, container_read_roots, then container_hide, put in
	 * that order so that a hide wins where two turn out the same file
	 */
	struct container_path *container_paths;
	size_t n_container_paths;
	/*
	 * write roots, then read_only, hide, read_roots and allow_devices,
	 * access set accordingly, then the system set where reads are confined
	 */
	struct root_spec *roots;
	size_t n_roots;
	bool hides;	 /* hide or container_hide lists a path, so reads are judged too */
	bool read_roots; /* read_roots, read_system or container_read_roots: reads are confined */
	bool audit, mandatory;
	bool no_network, allow_loopback; /* network: deny or loopback */
	bool no_unix_outside;		 /* unix_outside: deny */
	__u64 dropped_caps;		 /* capabilities: what the rule does not keep */
	struct run_limits limits;	 /* the most each exec socket run it governs gets */
	int line;			 /* where the rule starts, for messages */
};

/*
 * exec_socket: where the agent confines commands for users who are not root
 * (user/agent/exec_socket.h), and the limits each user gets there.
 */
struct exec_socket_config {
	char path[108]; /* sizeof(sun_path); "" when off */
	unsigned int mode;
	bool has_group;
	unsigned int group; /* gid_t: the socket's group, with has_group */
	unsigned int max_runs_per_user;
	unsigned int requests_per_second;
	unsigned int request_burst;
};

/* Where cgward exec asks unless CGWARD_EXEC_SOCKET (exec_agent.h) names another. */
#define EXEC_SOCKET_PATH	     "/run/cgward/exec.sock"
#define EXEC_SOCKET_DEFAULT_MODE     0666
#define EXEC_SOCKET_DEFAULT_MAX_RUNS 128
#define EXEC_SOCKET_DEFAULT_RATE     20
#define EXEC_SOCKET_DEFAULT_BURST    200

struct policy_set {
	struct policy_rule *rules;
	size_t n_rules;
	struct exec_socket_config exec_socket; /* the defaults when the file has no exec_socket */
	char sha256[POLICY_SHA256_SIZE]; /* of the file's content: names the policy in force */
};

/* A policy file's content as read at one moment, and its SHA-256. */
struct policy_file {
	char *content;
	size_t len;
	char sha256[POLICY_SHA256_SIZE];
};

struct policy_diag {
	int line, column; /* 1-based */
	char message[POLICY_DIAG_MSG_SIZE];
};

/* Sorted by line, then column. */
struct policy_diags {
	struct policy_diag *items;
	size_t n, capacity;
};

/*
 * Parses and validates the whole file; collects every error with the 1-based
 * line and column of the offending node. Returns 0 when valid (set filled),
 * -EINVAL when any error (set left empty), other negative errno for I/O or
 * memory. set and diags are initialised here; free both whatever it returns.
 * Roots are resolved on this host, so a file naming absent directories is
 * invalid here. The set holds an open descriptor per root, which can exceed a
 * soft RLIMIT_NOFILE of 1024: callers raise it first.
 */
int policy_load(const char *path, struct policy_set *set, struct policy_diags *diags);

/*
 * policy_load in two steps, for a caller that looks at the content before
 * parsing it (the agent reloads only a changed file). Reads up to
 * POLICY_FILE_MAX + 1 bytes: more is an error of policy_parse. Returns 0, or
 * negative errno with file empty.
 */
int policy_file_read(const char *path, struct policy_file *file);
void policy_file_free(struct policy_file *file);

/* policy_load of a file read; set->sha256 is file's. */
int policy_parse(const struct policy_file *file, struct policy_set *set,
		 struct policy_diags *diags);

void policy_set_free(struct policy_set *set); /* also closes root fds */
void policy_diags_free(struct policy_diags *diags);

/*
 * Whether any of the rule's selector entries selects the cgroup: a glob
 * matches its path, or the path is the cgroup (or below the cgroup) of a
 * listed pod or container.
 */
bool policy_rule_selects(const struct policy_rule *rule, const char *cgroup_path);

/*
 * The rule that applies to a cgroup path (relative to the cgroup2 root, e.g.
 * "/ci.slice/job-1.scope"): the first mandatory rule that selects it, else
 * the first rule that selects it, else NULL.
 */
const struct policy_rule *policy_match(const struct policy_set *set, const char *cgroup_path);

/*
 * The same for a Kubernetes container's cgroup, with what its bundle says
 * (meta; NULL when unknown): a rule selects it by its path, or by its
 * kubernetes selector. A sandbox container is never selected by the latter.
 */
const struct policy_rule *policy_match_container(const struct policy_set *set,
						 const char *cgroup_path,
						 const struct container_meta *meta);

/* Whether any rule has a kubernetes selector; one with pod_labels; one with pod_annotations. */
bool policy_selects_kubernetes(const struct policy_set *set);
bool policy_needs_pod_labels(const struct policy_set *set);
bool policy_needs_pod_annotations(const struct policy_set *set);

#endif
