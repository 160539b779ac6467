// SPDX-License-Identifier: GPL-2.0
/* The cgroup tree to policy ids: which rule applies to each cgroup, bound as it appears. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "agent_tree.h"
#include "capabilities.h"
#include "cgroup.h"
#include "cgward_abi.h"
#include "clock.h"
#include "container_meta.h"
#include "grow_array.h"
#include "pod_label_cache.h"
#include "pod_identity.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_ONLYDIR)

/*
 * The test bpf/cgroup_inherit.bpf.c makes: the prefix and a digit, the shape
 * of a `cgward exec` cgroup. Both sides must agree, or the agent would bind
 * what the kernel side left to the exec.
 */
static bool is_exec_cgroup_name(const char *name)
{
	size_t len = strlen(EXEC_CGROUP_NAME_PREFIX);

	return strncmp(name, EXEC_CGROUP_NAME_PREFIX, len) == 0 && name[len] >= '0' &&
	       name[len] <= '9';
}

static bool has_exec_component(const char *path)
{
	for (const char *c = path; c; c = strchr(c + 1, '/')) {
		if (is_exec_cgroup_name(c + 1))
			return true;
	}
	return false;
}

/*
 * A mandatory rule holds for its whole subtree, whatever selects a cgroup
 * below; a non-mandatory one gives way to a `cgward exec` boundary beneath it.
 * A cgroup that no rule selects inherits its parent's rule, as the kernel
 * side did when it was created.
 */
int agent_effective_rule(const struct policy_set *set, const char *path, int parent_rule)
{
	const struct policy_rule *match = policy_match(set, path);
	const struct policy_rule *parent = parent_rule >= 0 ? &set->rules[parent_rule] : NULL;
	const char *name = strrchr(path, '/');

	if (match && match->mandatory)
		return (int)(match - set->rules);
	if (parent && parent->mandatory)
		return parent_rule;
	if (match && !has_exec_component(path))
		return (int)(match - set->rules);
	if (parent && !is_exec_cgroup_name(name ? name + 1 : path))
		return parent_rule;
	return -1;
}

/* The kubelet's top cgroup: cgroupfs "kubepods", systemd "kubepods.slice", kind
 * "kubelet-kubepods.slice". */
static bool is_kubepods_root(const char *path)
{
	const char *name = strrchr(path, '/');
	size_t len;

	name = name ? name + 1 : path;
	len = strlen(name);
	return strcmp(name, "kubepods") == 0 || strcmp(name, "kubepods.slice") == 0 ||
	       (len > 15 && strcmp(name + len - 15, "-kubepods.slice") == 0);
}

/* Whether the path is a kubelet's top cgroup or below one (QoS classes, pods, containers). */
static bool under_kubepods(const char *path)
{
	char component[NAME_MAX + 1];

	for (const char *c = path; *c;) {
		size_t len;

		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if (len && len <= NAME_MAX) {
			memcpy(component, c, len);
			component[len] = '\0';
			if (is_kubepods_root(component))
				return true;
		}
		c += len;
	}
	return false;
}

int agent_pod_rule(const struct policy_set *set, const char *path, int parent_rule, bool container,
		   const struct container_meta *meta)
{
	int unresolved = (int)set->n_rules;
	const struct policy_rule *match;

	if (container && meta && !meta->sandbox && !meta->has_labels &&
	    policy_needs_pod_labels(set))
		return unresolved; /* its pod's labels are unknown: no rule can be chosen */
	if (container && meta) {
		match = policy_match_container(set, path, meta);
		if (meta->sandbox) /* only a mandatory rule over its cgroup path holds it */
			return match && match->mandatory && !match->kubernetes.present
				   ? (int)(match - set->rules)
				   : -1;
		if (match)
			return (int)(match - set->rules);
		return parent_rule == unresolved ? -1 : parent_rule;
	}
	if (parent_rule == unresolved) {
		match = policy_match(set, path);
		return match ? (int)(match - set->rules) : unresolved;
	}
	parent_rule = agent_effective_rule(set, path, parent_rule);
	if (parent_rule < 0 && policy_selects_kubernetes(set) && is_kubepods_root(path))
		return unresolved;
	return parent_rule;
}

static __u32 rule_flags(const struct policy_rule *rule)
{
	return (rule->audit ? CGWARD_POLICY_AUDIT : 0) |
	       (rule->mandatory ? CGWARD_POLICY_MANDATORY : 0) |
	       (rule->no_network ? CGWARD_POLICY_NO_NETWORK : 0) |
	       (rule->allow_loopback ? CGWARD_POLICY_ALLOW_LOOPBACK : 0) |
	       (rule->no_unix_outside ? CGWARD_POLICY_NO_UNIX_OUTSIDE : 0) |
	       (rule->hides || rule->read_roots ? CGWARD_POLICY_JUDGE_READS : 0) |
	       (rule->read_roots ? CGWARD_POLICY_READ_ROOTS : 0);
}

static struct agent_cgroup *find_path(const struct agent_tree *tree, const char *path)
{
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		if (strcmp(tree->cgroups[i].path, path) == 0)
			return &tree->cgroups[i];
	}
	return NULL;
}

const struct agent_cgroup *agent_tree_find(const struct agent_tree *tree, __u64 id)
{
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		if (tree->cgroups[i].id == id)
			return &tree->cgroups[i];
	}
	return NULL;
}

/* Whether another cgroup of the tree holds root under the same rule. */
static bool root_shared(const struct agent_tree *tree, const struct agent_cgroup *except,
			const struct root_spec *root)
{
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		const struct agent_cgroup *cg = &tree->cgroups[i];

		if (cg == except || cg->rule != except->rule)
			continue;
		for (size_t r = 0; r < cg->n_container_roots; r++) {
			if (cg->container_roots[r].dev == root->dev &&
			    cg->container_roots[r].ino == root->ino)
				return true;
		}
	}
	return false;
}

/* Removes a container's roots from its rule's, but those another container also holds. */
static void drop_container_roots(struct agent_tree *tree, struct agent_cgroup *cg)
{
	for (size_t r = 0; r < cg->n_container_roots; r++) {
		if (!root_shared(tree, cg, &cg->container_roots[r]))
			policy_maps_delete_roots(tree->maps, tree->first_id + (__u32)cg->rule,
						 &cg->container_roots[r], 1);
	}
	free(cg->container_roots);
	cg->container_roots = NULL;
	cg->n_container_roots = 0;
}

static void forget_path(struct agent_tree *tree, const char *path)
{
	struct agent_cgroup *cg = find_path(tree, path);

	if (!cg)
		return;
	drop_container_roots(tree, cg);
	free(cg->path);
	free(cg->k8s_namespace);
	free(cg->pod_name);
	free(cg->container_name);
	*cg = tree->cgroups[--tree->n_cgroups];
}

static int remember(struct agent_tree *tree, __u64 id, const char *path, int rule,
		    __u64 boundary_id, const struct container_meta *meta)
{
	struct agent_cgroup *cg = find_path(tree, path);

	if (!cg) {
		if (grow_array((void **)&tree->cgroups, &tree->cap_cgroups, tree->n_cgroups + 1,
			       sizeof(*tree->cgroups)))
			return -ENOMEM;
		cg = &tree->cgroups[tree->n_cgroups];
		*cg = (struct agent_cgroup){.path = strdup(path)};
		if (!cg->path)
			return -ENOMEM;
		tree->n_cgroups++;
	}
	cg->id = id;
	cg->rule = rule;
	cg->boundary_id = boundary_id;
	if (meta && !cg->container_name) {
		cg->k8s_namespace = strdup(meta->namespace);
		cg->pod_name = strdup(meta->pod_name);
		cg->container_name = strdup(meta->container_name);
	}
	return 0;
}

/* Set at fork, cleared at exec (include/linux/sched.h). */
#define PF_FORKNOEXEC 0x00000040

/*
 * Whether pid has called exec since it was forked: the kernel's
 * PF_FORKNOEXEC, in the flags field of /proc/PID/stat (the seventh after the
 * command name, whose parentheses may hold any character).
 */
static bool has_execed(int pid)
{
	char path[64], stat[512], *fields;
	unsigned long flags;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (len <= 0)
		return false;
	stat[len] = '\0';
	fields = strrchr(stat, ')');
	return fields && sscanf(fields + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
	       !(flags & PF_FORKNOEXEC);
}

/*
 * Whether the container's workload has started before the agent bound its
 * cgroup (so the kernel side could not see its exec): a process of the
 * cgroup has exec'd from a mount namespace other than the runtime's. Being
 * in the container's mount namespace is not enough: runc's init is there,
 * forked (runc:[2:INIT]) and not yet exec'd, while it mounts the container's
 * root file system; the exec it then makes is the workload's. Its own
 * re-exec (runc init) happens in the runtime's namespace.
 */
static bool workload_started(const char *abs, __u32 runtime_mnt_ns)
{
	char path[PATH_MAX], ns[64];
	bool started = false;
	struct stat st;
	FILE *procs;
	int pid;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", abs) >= (int)sizeof(path))
		return false;
	procs = fopen(path, "re");
	while (procs && !started && fscanf(procs, "%d", &pid) == 1) {
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", pid);
		started = stat(ns, &st) == 0 && st.st_ino != runtime_mnt_ns && has_execed(pid);
	}
	if (procs)
		fclose(procs);
	return started;
}

/*
 * The rule's container paths inside this container: each in the bind mount
 * (volume) that holds it, or else in its root file system, never leaving
 * either through a symbolic link. A write or read root that cannot be
 * resolved is left out: access there is denied and reported (fail closed).
 * A hidden path that cannot be resolved is not there to be read: nothing
 * to hide. One created later is not hidden, but inside a hidden directory
 * (the token volume, whose files the kubelet swaps) anything is.
 */
static int resolve_container_roots(const struct policy_rule *rule,
				   const struct container_meta *meta, const char *path,
				   struct root_spec **out, size_t *n_out)
{
	char err[PATH_MAX + 128];

	*n_out = 0;
	*out = calloc(rule->n_container_paths + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < rule->n_container_paths; i++) {
		const struct container_path *want = &rule->container_paths[i];
		const char *rest, *dir = container_meta_locate(meta, want->path, &rest);
		int dir_fd = dir[0] ? open(dir, O_PATH | O_CLOEXEC) : -1;
		int ret;

		if (dir_fd < 0) {
			fprintf(stderr, "cgward: agent: %s: container path '%s': %s: %s\n", path,
				want->path, dir, dir[0] ? strerror(errno) : "no root");
			continue;
		}
		ret = root_resolve_in(dir_fd, rest, want->path, want->access, &(*out)[*n_out], err,
				      sizeof(err));
		close(dir_fd);
		if (ret) {
			fprintf(stderr, "cgward: agent: %s: %s%s\n", path, err,
				want->access == CGWARD_ACCESS_HIDDEN ? ": nothing to hide" : "");
			continue;
		}
		root_close(&(*out)[*n_out]); /* the container's files outlive the binding */
		(*n_out)++;
	}
	return 0;
}

/* A pod's cgroup that no rule holds: whatever it inherited from the pod is removed. */
static void unbind_pod_cgroup(struct agent_tree *tree, const char *abs, const char *path,
			      bool log_binds)
{
	struct cgward_cgroup_policy current;
	__u64 id;

	if (cgroup_read_id(abs, &id) || policy_maps_get_binding(tree->maps, id, &current) ||
	    current.policy_id >= CGWARD_EXEC_POLICY_MIN)
		return;
	policy_maps_unbind_cgroup(tree->maps, id);
	forget_path(tree, path);
	if (log_binds)
		fprintf(stderr, "cgward: agent: %s: not selected, unbound\n", path);
}

static int watch_dir(struct agent_tree *tree, const char *abs, const char *path)
{
	int wd = inotify_add_watch(tree->inotify_fd, abs, WATCH_MASK);
	char *copy;

	if (wd < 0)
		return -errno;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < tree->n_watches; i++) {
		if (tree->watches[i].wd == wd) {
			free(tree->watches[i].path);
			tree->watches[i].path = copy;
			return 0;
		}
	}
	if (grow_array((void **)&tree->watches, &tree->cap_watches, tree->n_watches + 1,
		       sizeof(*tree->watches))) {
		free(copy);
		return -ENOMEM;
	}
	tree->watches[tree->n_watches++] = (struct agent_watch){.wd = wd, .path = copy};
	return 0;
}

static int join(char *out, size_t outlen, const char *dir, const char *name)
{
	int len = snprintf(out, outlen, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);

	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}

#define RESOLVE_RETRY_FIRST_MS 1000
#define RESOLVE_RETRY_MAX_MS   30000

/* 2 s after the first retry, doubled each time up to 30 s. */
static __u64 resolve_backoff_ms(unsigned int tries)
{
	__u64 delay = (__u64)RESOLVE_RETRY_FIRST_MS << (tries < 5 ? tries : 5);

	return delay < RESOLVE_RETRY_MAX_MS ? delay : RESOLVE_RETRY_MAX_MS;
}

/*
 * A container bound unresolved is tried again from a second on; a retry
 * already scheduled it (agent_tree_retry_unresolved). One resolved is not.
 */
static void schedule_resolve(struct agent_tree *tree, struct agent_cgroup *cg, bool unresolved)
{
	if (!unresolved) {
		cg->resolve_tries = 0;
		cg->resolve_at_ms = 0;
	} else if (!cg->resolve_at_ms) {
		cg->resolve_at_ms = monotonic_ms() + RESOLVE_RETRY_FIRST_MS;
		tree->resolve_scheduled = true;
	}
}

/*
 * The agent's own cgroup is never bound: bpf() and signals to the agent would
 * be denied, and with them every reload and a clean stop.
 */
static int own_cgroup_unbound(const char *path)
{
	fprintf(stderr, "cgward: agent: %s is the agent's own cgroup: not bound\n", path);
	return -1;
}

/* A cgroup being bound: where it is, and what Kubernetes says of it. */
struct walked_cgroup {
	const char *path; /* relative to the cgroup2 root */
	char abs[PATH_MAX];
	bool in_pod, container;
	struct container_meta meta;
	bool have_meta;
	bool labels_pending; /* its pod's labels are being asked for */
};

/* Whether a rule needs what containerd's bundles lack: a pod's labels, or all its annotations. */
static bool asks_cri(const struct agent_tree *tree)
{
	return tree->pod_labels &&
	       (policy_needs_pod_labels(tree->set) || policy_needs_pod_annotations(tree->set));
}

/* Asks the CRI early for the labels of a pod whose sandbox appeared: its containers follow. */
static void prefetch_pod_labels(struct agent_tree *tree, const struct walked_cgroup *cg,
				const char *container_id)
{
	if (cg->have_meta && cg->meta.sandbox && !cg->meta.has_labels && asks_cri(tree))
		pod_label_cache_prefetch(
		    tree->pod_labels, cg->meta.sandbox_id[0] ? cg->meta.sandbox_id : container_id);
}

/*
 * containerd's bundles do not carry the pod's labels: its CRI does, asked for
 * off the loop (pod_label_cache.h). Until they come the container stays
 * unresolved, and is visited again when they do (agent_tree_labels_answered).
 */
static void read_pod_labels(struct agent_tree *tree, struct walked_cgroup *cg, bool log_binds)
{
	char err[512];
	int ret;

	if (!cg->have_meta || cg->meta.sandbox || cg->meta.has_labels || !cg->meta.sandbox_id[0] ||
	    !asks_cri(tree))
		return;
	ret = pod_label_cache_get(tree->pod_labels, cg->meta.sandbox_id, tree->wait_for_labels,
				  &cg->meta, err, sizeof(err));
	cg->labels_pending = ret == -EINPROGRESS;
	if (ret && !cg->labels_pending && log_binds)
		fprintf(stderr, "cgward: agent: %s: %s\n", cg->path, err);
}

/* What the cgroup's path and its container's bundle say of it. */
static void read_kubernetes_identity(struct agent_tree *tree, struct walked_cgroup *cg,
				     bool log_binds)
{
	struct pod_identity pod;
	char err[PATH_MAX + 128];
	int ret;

	cg->in_pod = pod_identity_parse(cg->path, &pod) == 0;
	cg->container = cg->in_pod && pod.container_id[0];
	if (!cg->container || !tree->n_bundle_dirs)
		return;
	ret = container_meta_find(tree->bundle_dirs, tree->n_bundle_dirs, pod.container_id,
				  &cg->meta, err, sizeof(err));
	cg->have_meta = ret == 0;
	if (ret && log_binds)
		fprintf(stderr, "cgward: agent: %s: %s\n", cg->path, err);
	prefetch_pod_labels(tree, cg, pod.container_id);
	read_pod_labels(tree, cg, log_binds);
}

/*
 * The rule index that applies to the cgroup (set->n_rules: unresolved), or
 * -1 for none. A container whose pod's labels are still asked for cannot be
 * matched yet: it stays unresolved, failing closed.
 */
static int choose_rule(const struct agent_tree *tree, const struct walked_cgroup *cg,
		       int parent_rule)
{
	if (cg->labels_pending)
		return (int)tree->set->n_rules;
	if (cg->in_pod || parent_rule == (int)tree->set->n_rules ||
	    policy_selects_kubernetes(tree->set))
		return agent_pod_rule(tree->set, cg->path, parent_rule, cg->container,
				      cg->have_meta ? &cg->meta : NULL);
	return agent_effective_rule(tree->set, cg->path, parent_rule);
}

/* The map entry of a cgroup bound to rule (set->n_rules: unresolved), inside boundary. */
static struct cgward_cgroup_policy cgroup_policy_of(const struct agent_tree *tree,
						    const struct walked_cgroup *cg, int rule,
						    __u64 boundary)
{
	const struct policy_rule *r =
	    rule < (int)tree->set->n_rules ? &tree->set->rules[rule] : NULL;
	/* An unresolved container keeps no capability, as it writes nothing. */
	struct cgward_cgroup_policy policy = {.policy_id = tree->first_id + (__u32)rule,
					      .flags = r ? rule_flags(r) : 0,
					      .boundary_id = boundary,
					      .dropped_caps =
						  r ? r->dropped_caps : CAPABILITIES_ALL_DROPPED};

	/*
	 * A pod's containers are confined from their workload's exec on; the
	 * kubelet's cgroups above them too, so that a pod's cgroup made before
	 * the agent saw it inherits that in the kernel.
	 */
	if (cg->in_pod || under_kubepods(cg->path)) {
		policy.flags |= CGWARD_POLICY_FROM_EXEC;
		policy.runtime_mnt_ns = tree->runtime_mnt_ns;
	}
	return policy;
}

/* The container's roots (those of its rule, resolved in it) kept with its cgroup. */
static void keep_container_roots(struct agent_tree *tree, const char *path, struct root_spec *roots,
				 size_t n_roots)
{
	struct agent_cgroup *cg = find_path(tree, path);

	drop_container_roots(tree, cg); /* resolved anew: a rebind, a reload */
	cg->container_roots = roots;
	cg->n_container_roots = n_roots;
}

/*
 * Binds the cgroup (id) to rule: the container's roots first, then the
 * binding, then what the tree remembers of it. Its boundary goes to boundary.
 */
static int bind_cgroup(struct agent_tree *tree, const struct walked_cgroup *cg, __u64 id, int rule,
		       int parent_rule, __u64 parent_boundary, bool log_binds, __u64 *boundary)
{
	int unresolved = (int)tree->set->n_rules;
	const struct policy_rule *r = rule < unresolved ? &tree->set->rules[rule] : NULL;
	struct cgward_cgroup_policy policy;
	struct root_spec *roots = NULL;
	size_t n_roots = 0;
	int ret = 0;

	/* A cgroup that inherits its parent's rule is inside the parent's boundary. */
	*boundary = rule == parent_rule && parent_boundary ? parent_boundary : id;
	policy = cgroup_policy_of(tree, cg, rule, *boundary);
	if (cg->container && cg->have_meta && r && r->n_container_paths) {
		ret = resolve_container_roots(r, &cg->meta, cg->path, &roots, &n_roots);
		if (!ret)
			ret = policy_maps_put_roots(tree->maps, policy.policy_id, roots, n_roots);
	}
	if (!ret)
		ret = policy_maps_bind_rule(tree->maps, id, &policy);
	if (!ret && cg->container && workload_started(cg->abs, tree->runtime_mnt_ns))
		ret = policy_maps_mark_started(tree->maps, id);
	if (!ret)
		ret =
		    remember(tree, id, cg->path, rule, *boundary, cg->have_meta ? &cg->meta : NULL);
	if (!ret && cg->container) {
		struct agent_cgroup *known = find_path(tree, cg->path);

		schedule_resolve(tree, known, rule == unresolved);
		known->labels_pending = cg->labels_pending;
	}
	if (!ret && roots) {
		keep_container_roots(tree, cg->path, roots, n_roots);
		roots = NULL;
	}
	free(roots);
	if (ret)
		return ret;
	if (log_binds || (cg->container && cg->have_meta))
		fprintf(stderr, "cgward: agent: bound %s to policy %s\n", cg->path,
			r ? r->name : AGENT_UNRESOLVED_NAME);
	return 0;
}

static int bind_subtree(struct agent_tree *tree, const char *path, int parent_rule,
			__u64 parent_boundary, bool log_binds);

/* Watches the cgroup, then binds the children it has already. */
static int bind_children(struct agent_tree *tree, const char *abs, const char *path, int rule,
			 __u64 boundary, bool log_binds)
{
	char child[PATH_MAX];
	struct dirent *entry;
	DIR *dir;
	int ret = watch_dir(tree, abs, path);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	dir = opendir(abs);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (ret == 0 && (entry = readdir(dir))) {
		if (entry->d_type != DT_DIR || entry->d_name[0] == '.')
			continue;
		ret = join(child, sizeof(child), path, entry->d_name);
		if (ret == 0)
			ret = bind_subtree(tree, child, rule, boundary, log_binds);
	}
	closedir(dir);
	return ret;
}

/*
 * Binds one cgroup, then watches it, then lists its children: a child made
 * after the binding inherits it in the kernel, one made before is listed,
 * and one made after the watch is also reported by inotify. Binding a
 * cgroup again is harmless: the same rule, the same map entry (a run's own
 * binding only takes a mandatory rule in again), the same watch.
 */
static int bind_subtree(struct agent_tree *tree, const char *path, int parent_rule,
			__u64 parent_boundary, bool log_binds)
{
	struct walked_cgroup cg = {.path = path};
	__u64 id = 0, boundary = 0;
	int rule, ret;

	ret = snprintf(cg.abs, sizeof(cg.abs), "%s%s", tree->root, strcmp(path, "/") ? path : "");
	if (ret < 0 || (size_t)ret >= sizeof(cg.abs))
		return -ENAMETOOLONG;
	read_kubernetes_identity(tree, &cg, log_binds);
	rule = choose_rule(tree, &cg, parent_rule);
	if (rule >= 0) {
		ret = cgroup_read_id(cg.abs, &id);
		if (ret) {
			container_meta_free(&cg.meta);
			return ret == -ENOENT ? 0 : ret; /* removed meanwhile */
		}
		if (id == tree->self_id)
			rule = own_cgroup_unbound(path);
	}
	if (rule < 0 && cg.in_pod)
		unbind_pod_cgroup(tree, cg.abs, path, log_binds);
	ret = rule >= 0 ? bind_cgroup(tree, &cg, id, rule, parent_rule, parent_boundary, log_binds,
				      &boundary)
			: 0;
	container_meta_free(&cg.meta);
	if (ret)
		return ret;
	return bind_children(tree, cg.abs, path, rule, boundary, log_binds);
}

static void free_cgroup(struct agent_cgroup *cg)
{
	free(cg->container_roots);
	free(cg->path);
	free(cg->k8s_namespace);
	free(cg->pod_name);
	free(cg->container_name);
}

int agent_tree_apply(struct agent_tree *tree, const struct policy_set *set, __u32 first_id)
{
	for (size_t i = 0; i < tree->n_cgroups; i++)
		free_cgroup(&tree->cgroups[i]);
	tree->n_cgroups = 0;
	tree->set = set;
	tree->first_id = first_id;
	return bind_subtree(tree, "/", -1, 0, false);
}

/* The rule and boundary a cgroup's parent was bound to; -1 when it was not. */
static int parent_binding(const struct agent_tree *tree, const char *path, __u64 *boundary)
{
	char parent[PATH_MAX];
	const struct agent_cgroup *cg;
	char *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash)
		slash[slash == parent] = '\0'; /* "/a" -> "/" */
	cg = slash ? find_path(tree, parent) : NULL;
	*boundary = cg ? cg->boundary_id : 0;
	return cg ? cg->rule : -1;
}

__u64 agent_tree_retry_unresolved(struct agent_tree *tree, __u64 now_ms)
{
	__u64 next = 0;

	tree->resolve_scheduled = false;
	/* By index: a bind may grow the table, or shrink it. */
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		struct agent_cgroup *cg = &tree->cgroups[i];
		char path[PATH_MAX];
		__u64 boundary;
		int parent_rule, ret;

		if (cg->resolve_at_ms && cg->resolve_at_ms <= now_ms) {
			cg->resolve_tries++;
			cg->resolve_at_ms = now_ms + resolve_backoff_ms(cg->resolve_tries);
			snprintf(path, sizeof(path), "%s", cg->path);
			fprintf(stderr, "cgward: agent: %s: unresolved container, try %u\n", path,
				cg->resolve_tries);
			parent_rule = parent_binding(tree, path, &boundary);
			ret = bind_subtree(tree, path, parent_rule, boundary, true);
			if (ret)
				fprintf(stderr, "cgward: agent: %s: %s\n", path, strerror(-ret));
			if (i >= tree->n_cgroups)
				break; /* it was forgotten (no longer selected), the last one */
			cg = &tree->cgroups[i];
		}
		if (cg->resolve_at_ms && (!next || cg->resolve_at_ms < next))
			next = cg->resolve_at_ms;
	}
	return next;
}

void agent_tree_labels_answered(struct agent_tree *tree, __u64 now_ms)
{
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		if (tree->cgroups[i].labels_pending && tree->cgroups[i].resolve_at_ms) {
			tree->cgroups[i].resolve_at_ms = now_ms;
			tree->resolve_scheduled = true;
		}
	}
}

static bool watched(const struct agent_tree *tree, const char *path)
{
	for (size_t i = 0; i < tree->n_watches; i++) {
		if (strcmp(tree->watches[i].path, path) == 0)
			return true;
	}
	return false;
}

int agent_tree_bind_path(struct agent_tree *tree, const char *dir)
{
	size_t root_len = strlen(tree->root);
	char path[PATH_MAX];
	__u64 boundary;
	int rule;

	if (strncmp(dir, tree->root, root_len) != 0 || dir[root_len] != '/')
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s", dir + root_len) >= sizeof(path))
		return -ENAMETOOLONG;
	/* From the top: the first directory not watched yet holds the rest of the path. */
	for (char *slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (!watched(tree, path)) {
			rule = parent_binding(tree, path, &boundary);
			return bind_subtree(tree, path, rule, boundary, true);
		}
		if (!slash)
			return 0;
		*slash = '/';
	}
}

static const char *watch_path(const struct agent_tree *tree, int wd)
{
	for (size_t i = 0; i < tree->n_watches; i++) {
		if (tree->watches[i].wd == wd)
			return tree->watches[i].path;
	}
	return NULL;
}

static void forget_watch(struct agent_tree *tree, int wd)
{
	for (size_t i = 0; i < tree->n_watches; i++) {
		if (tree->watches[i].wd == wd) {
			free(tree->watches[i].path);
			tree->watches[i] = tree->watches[--tree->n_watches];
			return;
		}
	}
}

/* 1 when the event bound cgroups, 0 when it had nothing to bind, or negative errno. */
static int handle_event(struct agent_tree *tree, const struct inotify_event *ev, bool log_binds)
{
	const char *dir = watch_path(tree, ev->wd);
	const struct agent_cgroup *parent;
	char path[PATH_MAX];
	int ret;

	if (ev->mask & IN_Q_OVERFLOW) { /* creations were lost: walk everything again */
		ret = bind_subtree(tree, "/", -1, 0, log_binds);
		return ret ? ret : 1;
	}
	if (ev->mask & IN_IGNORED) {
		forget_watch(tree, ev->wd);
		return 0;
	}
	if (!dir || !(ev->mask & IN_ISDIR) || !ev->len || join(path, sizeof(path), dir, ev->name))
		return 0;
	if (ev->mask & IN_DELETE) {
		forget_path(tree, path); /* the kernel side removed its map entry */
		return 0;
	}
	/* A run of the exec socket is bound before it is answered (agent_tree_bind_path). */
	if (watched(tree, path))
		return 0;
	parent = find_path(tree, dir);
	ret = bind_subtree(tree, path, parent ? parent->rule : -1, parent ? parent->boundary_id : 0,
			   log_binds);
	return ret ? ret : 1;
}

int agent_tree_read_events(struct agent_tree *tree, bool log_binds)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	int bound = 0, ret = 0;
	ssize_t len;

	while ((len = read(tree->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			int r = handle_event(tree, ev, log_binds);

			if (r < 0 && !ret)
				ret = r;
			bound += r > 0;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (len < 0 && errno != EAGAIN)
		return -errno;
	return ret ? ret : bound;
}

void agent_tree_free(struct agent_tree *tree)
{
	for (size_t i = 0; i < tree->n_cgroups; i++)
		free_cgroup(&tree->cgroups[i]);
	for (size_t i = 0; i < tree->n_watches; i++)
		free(tree->watches[i].path);
	free(tree->cgroups);
	free(tree->watches);
	tree->cgroups = NULL;
	tree->watches = NULL;
	tree->n_cgroups = tree->n_watches = 0;
}
