/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's cgroup tree (agent_tree.c): which rule applies to each cgroup
 * of the host, bound as it appears.
 */
#ifndef CGWARD_AGENT_TREE_H
#define CGWARD_AGENT_TREE_H

#include <limits.h>
#include <stddef.h>
#include <linux/types.h>

#include "policy.h"
#include "policy_maps.h"

struct pod_label_cache;

/* A cgroup the agent bound, by id: names the cgroup and rule of its events. */
struct agent_cgroup {
	__u64 id;
	char *path;	   /* relative to the cgroup2 root, e.g. "/ci.slice/job-1.scope" */
	int rule;	   /* index in the policy set applied */
	__u64 boundary_id; /* the nearest ancestor (or itself) bound to rule from above */
	/* A Kubernetes container's names, from its bundle; NULL otherwise. */
	char *k8s_namespace, *pod_name, *container_name;
	/* Its rule's container paths as resolved in it: roots of the rule's policy id. */
	struct root_spec *container_roots;
	size_t n_container_roots;
	/*
	 * A container left unresolved (its bundle or its pod's labels could not
	 * be read): the tries made since, and when the next is due
	 * (CLOCK_MONOTONIC, ms); 0 when resolved.
	 */
	unsigned int resolve_tries;
	__u64 resolve_at_ms;
	bool labels_pending; /* unresolved while its pod's labels are asked for */
};

/* An inotify watch on a cgroup directory. */
struct agent_watch {
	int wd;
	char *path; /* relative to the cgroup2 root */
};

struct agent_tree {
	char root[PATH_MAX]; /* the cgroup2 mount point */
	__u64 self_id;	     /* the agent's own cgroup, never bound */
	const struct policy_maps *maps;
	int inotify_fd; /* IN_CREATE and IN_DELETE of every cgroup directory */
	/* The policy applied, and the id of its first rule: rule i is policy first_id + i. */
	const struct policy_set *set;
	__u32 first_id;
	/* Linear tables: enough for thousands of cgroups, a hash map past that. */
	struct agent_cgroup *cgroups;
	size_t n_cgroups, cap_cgroups;
	struct agent_watch *watches;
	size_t n_watches, cap_watches;
	/* Where the CRI runtime keeps each container's bundle (container_meta.h). */
	const char *const *bundle_dirs;
	size_t n_bundle_dirs;
	__u32 runtime_mnt_ns; /* the container runtime's mount namespace: the host's */
	/* Pods' labels, asked for off the loop; NULL: none is asked for. */
	struct pod_label_cache *pod_labels;
	/*
	 * Whether a cgroup's bind waits for its pod's labels: at start-up, when
	 * nothing else is served yet, so that running containers are bound to
	 * their rule at once rather than unresolved for a moment.
	 */
	bool wait_for_labels;
	/* A container's try was scheduled since agent_tree_retry_unresolved last ran. */
	bool resolve_scheduled;
};

/*
 * The rule index of a pod's cgroups while their containers are not resolved
 * (set->n_rules, policy id first_id + n_rules): no roots, so a workload that
 * starts before the agent read its bundle can write nothing (fail closed).
 * Used when a rule has a kubernetes selector.
 */
#define AGENT_UNRESOLVED_NAME "kubernetes-unresolved"

/*
 * Walks the whole cgroup2 tree, watching every directory, and binds each
 * cgroup to the policy id of the rule that applies to it (one map update
 * each, so a rebound cgroup goes from its old roots to the new ones at
 * once). The roots of set must already be in the maps under first_id + i.
 * Cgroups no longer selected keep their old binding: policy_maps_retire
 * removes it, after agent_tree_read_events has caught up.
 */
int agent_tree_apply(struct agent_tree *tree, const struct policy_set *set, __u32 first_id);

/*
 * Binds the cgroups created since the last call (and watches them); returns
 * how many of its events bound any (a directory bound already, as
 * agent_tree_bind_path binds a run's, binds none), or negative errno.
 */
int agent_tree_read_events(struct agent_tree *tree, bool log_binds);

/*
 * Binds the cgroup directory dir (under tree->root) and those above it that
 * the tree does not know yet, from the nearest one it watches, without
 * waiting for any pod's labels; other cgroups' events stay queued for
 * agent_tree_read_events, whose later bind of the same cgroups changes
 * nothing. Returns 0 or negative errno.
 */
int agent_tree_bind_path(struct agent_tree *tree, const char *dir);

/*
 * Pods' labels came (pod_label_cache_answered): the containers that waited
 * for them are due for agent_tree_retry_unresolved at now_ms.
 */
void agent_tree_labels_answered(struct agent_tree *tree, __u64 now_ms);

/*
 * Tries the unresolved containers whose try is due at now_ms again, each with
 * its own back-off (1 s, doubled up to 30 s) until resolved or removed; each
 * try and its outcome is logged. Returns when the next is due, 0 if none is.
 */
__u64 agent_tree_retry_unresolved(struct agent_tree *tree, __u64 now_ms);

const struct agent_cgroup *agent_tree_find(const struct agent_tree *tree, __u64 id);
void agent_tree_free(struct agent_tree *tree);

/* The rule that applies to a cgroup, given the rule that applies to its parent (-1: none). */
int agent_effective_rule(const struct policy_set *set, const char *path, int parent_rule);

/*
 * The same for the cgroups of Kubernetes pods, with what the container's
 * bundle says (meta, NULL when not found): a container is resolved by its
 * bundle (a sandbox is never confined by a container rule); a pod's cgroup,
 * and a container whose bundle is not found, stay unresolved (set->n_rules)
 * under a kubernetes selector.
 */
int agent_pod_rule(const struct policy_set *set, const char *path, int parent_rule, bool container,
		   const struct container_meta *meta);

#endif
