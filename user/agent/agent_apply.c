// SPDX-License-Identifier: GPL-2.0
/* The cgroup tree to policy ids: which rule applies to each cgroup, bound as it appears. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "agent.h"
#include "cgroup.h"
#include "cgward_abi.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_ONLYDIR)

/*
 * The test bpf/cgroup_inherit.bpf.c makes: "cgward-" and a digit, the shape
 * of a `cgward exec` cgroup. Both sides must agree, or the agent would bind
 * what the kernel side left to the exec.
 */
static bool is_exec_cgroup_name(const char *name)
{
	return strncmp(name, "cgward-", 7) == 0 && name[7] >= '0' && name[7] <= '9';
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

static __u32 rule_flags(const struct policy_rule *rule)
{
	return (rule->audit ? CGWARD_POLICY_AUDIT : 0) |
	       (rule->mandatory ? CGWARD_POLICY_MANDATORY : 0) |
	       (rule->no_network ? CGWARD_POLICY_NO_NETWORK : 0) |
	       (rule->allow_loopback ? CGWARD_POLICY_ALLOW_LOOPBACK : 0) |
	       (rule->no_unix_outside ? CGWARD_POLICY_NO_UNIX_OUTSIDE : 0);
}

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	void *grown;

	if (n < *cap)
		return 0;
	grown = realloc(*items, (*cap ? 2 * *cap : 64) * size);
	if (!grown)
		return -ENOMEM;
	*items = grown;
	*cap = *cap ? 2 * *cap : 64;
	return 0;
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

static void forget_path(struct agent_tree *tree, const char *path)
{
	struct agent_cgroup *cg = find_path(tree, path);

	if (!cg)
		return;
	free(cg->path);
	*cg = tree->cgroups[--tree->n_cgroups];
}

static int remember(struct agent_tree *tree, __u64 id, const char *path, int rule,
		    __u64 boundary_id)
{
	struct agent_cgroup *cg = find_path(tree, path);

	if (!cg) {
		if (grow((void **)&tree->cgroups, &tree->cap_cgroups, tree->n_cgroups,
			 sizeof(*tree->cgroups)))
			return -ENOMEM;
		cg = &tree->cgroups[tree->n_cgroups];
		cg->path = strdup(path);
		if (!cg->path)
			return -ENOMEM;
		tree->n_cgroups++;
	}
	cg->id = id;
	cg->rule = rule;
	cg->boundary_id = boundary_id;
	return 0;
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
	if (grow((void **)&tree->watches, &tree->cap_watches, tree->n_watches,
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

/*
 * The agent's own cgroup is never bound: bpf() and signals to the agent would
 * be denied, and with them every reload and a clean stop.
 */
static int own_cgroup_unbound(const char *path)
{
	fprintf(stderr, "cgward: agent: %s is the agent's own cgroup: not bound\n", path);
	return -1;
}

/*
 * Binds one cgroup, then watches it, then lists its children: a child made
 * after the binding inherits it in the kernel, one made before is listed,
 * and one made after the watch is also reported by inotify.
 */
static int visit(struct agent_tree *tree, const char *path, int parent_rule, __u64 parent_boundary,
		 bool log_binds)
{
	char abs[PATH_MAX], child[PATH_MAX];
	int rule = agent_effective_rule(tree->set, path, parent_rule);
	struct dirent *entry;
	__u64 id, boundary = 0;
	DIR *dir;
	int ret;

	ret = snprintf(abs, sizeof(abs), "%s%s", tree->root, strcmp(path, "/") ? path : "");
	if (ret < 0 || (size_t)ret >= sizeof(abs))
		return -ENAMETOOLONG;
	if (rule >= 0) {
		ret = cgroup_read_id(abs, &id);
		if (ret)
			return ret == -ENOENT ? 0 : ret; /* removed meanwhile */
		if (id == tree->self_id)
			rule = own_cgroup_unbound(path);
	}
	if (rule >= 0) {
		const struct policy_rule *r = &tree->set->rules[rule];

		/* A cgroup that inherits its parent's rule is inside the parent's boundary. */
		boundary = rule == parent_rule && parent_boundary ? parent_boundary : id;
		ret = policy_maps_bind_rule(
		    tree->maps, id,
		    &(struct cgward_cgroup_policy){.policy_id = tree->first_id + (__u32)rule,
						   .flags = rule_flags(r),
						   .boundary_id = boundary});
		if (!ret)
			ret = remember(tree, id, path, rule, boundary);
		if (ret)
			return ret;
		if (log_binds)
			fprintf(stderr, "cgward: agent: bound %s to policy %s\n", path, r->name);
	}
	ret = watch_dir(tree, abs, path);
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
			ret = visit(tree, child, rule, boundary, log_binds);
	}
	closedir(dir);
	return ret;
}

int agent_tree_apply(struct agent_tree *tree, const struct policy_set *set, __u32 first_id)
{
	for (size_t i = 0; i < tree->n_cgroups; i++)
		free(tree->cgroups[i].path);
	tree->n_cgroups = 0;
	tree->set = set;
	tree->first_id = first_id;
	return visit(tree, "/", -1, 0, false);
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

static int handle_event(struct agent_tree *tree, const struct inotify_event *ev, bool log_binds)
{
	const char *dir = watch_path(tree, ev->wd);
	const struct agent_cgroup *parent;
	char path[PATH_MAX];

	if (ev->mask & IN_Q_OVERFLOW) /* creations were lost: walk everything again */
		return visit(tree, "/", -1, 0, log_binds);
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
	parent = find_path(tree, dir);
	return visit(tree, path, parent ? parent->rule : -1, parent ? parent->boundary_id : 0,
		     log_binds);
}

int agent_tree_read_events(struct agent_tree *tree, bool log_binds)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	int handled = 0, ret = 0;
	ssize_t len;

	while ((len = read(tree->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			int r = handle_event(tree, ev, log_binds);

			if (r && !ret)
				ret = r;
			handled++;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (len < 0 && errno != EAGAIN)
		return -errno;
	return ret ? ret : handled;
}

void agent_tree_free(struct agent_tree *tree)
{
	for (size_t i = 0; i < tree->n_cgroups; i++)
		free(tree->cgroups[i].path);
	for (size_t i = 0; i < tree->n_watches; i++)
		free(tree->watches[i].path);
	free(tree->cgroups);
	free(tree->watches);
	tree->cgroups = NULL;
	tree->watches = NULL;
	tree->n_cgroups = tree->n_watches = 0;
}
