// SPDX-License-Identifier: GPL-2.0
/*
 * A policy file loaded: read, its YAML made a tree (policy_yaml.c), each key
 * checked into a policy_set, and what is wrong reported where it is.
 */
#include "grow_array.h"
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sha2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capabilities.h"
#include "cgward_abi.h"
#include "policy_yaml.h"
#include "read_system.h"
#include "selector.h"

void diag_at(struct loader *ld, int line, int column, const char *fmt, ...)
{
	struct policy_diags *d = ld->diags;
	struct policy_diag *items;
	va_list ap;

	if (grow_array((void **)&d->items, &d->capacity, d->n + 1, sizeof(*d->items))) {
		ld->error = -ENOMEM;
		return;
	}
	items = d->items;
	items[d->n].line = line;
	items[d->n].column = column;
	va_start(ap, fmt);
	vsnprintf(items[d->n].message, sizeof(items[d->n].message), fmt, ap);
	va_end(ap);
	d->n++;
}

static bool is_policy_name(const char *name)
{
	size_t len = strlen(name);

	return len >= 1 && len <= POLICY_NAME_MAX &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
		   len;
}

static void load_name(struct loader *ld, const struct node *node, struct policy_rule *rule,
		      const struct policy_rule *earlier, size_t n_earlier)
{
	const char *name = string_value(ld, node, "'name'");

	if (!name)
		return;
	if (!is_policy_name(name)) {
		diag(ld, node, "bad policy name '%.64s': use 1 to %d of A-Z a-z 0-9 . _ -", name,
		     POLICY_NAME_MAX);
		return;
	}
	for (size_t i = 0; i < n_earlier; i++) {
		if (strcmp(earlier[i].name, name) == 0) {
			diag(ld, node, "duplicate policy name '%s' (first at line %d)", name,
			     earlier[i].line);
			return;
		}
	}
	strcpy(rule->name, name);
}

typedef int (*string_check_fn)(const char *s, char *err, size_t errlen);

/* A non-empty list of strings that each pass check, copied into *out. */
static void load_string_list(struct loader *ld, const struct node *list, const char *what,
			     const char *item_kind, string_check_fn check, char ***out,
			     size_t *n_out)
{
	char entry[64], err[128];

	snprintf(entry, sizeof(entry), "an entry of %s", what);
	if (!expect_nonempty_list(ld, list, what))
		return;
	*out = calloc(list->n_children, sizeof(**out));
	if (!*out) {
		ld->error = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < list->n_children; i++) {
		const struct node *item = list->children[i];
		const char *s = string_value(ld, item, entry);

		if (!s)
			continue;
		if (check(s, err, sizeof(err))) {
			diag(ld, item, "bad %s '%.64s': %s", item_kind, s, err);
			continue;
		}
		(*out)[*n_out] = strdup(s);
		if (!(*out)[*n_out]) {
			ld->error = -ENOMEM;
			return;
		}
		(*n_out)++;
	}
}

/* A namespace is a DNS label: 1 to 63 of a-z 0-9 -, starting and ending alphanumeric. */
static int check_namespace(const char *s, char *err, size_t errlen)
{
	size_t len = strlen(s);

	if (len == 0 || len > 63 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != len ||
	    s[0] == '-' || s[len - 1] == '-') {
		snprintf(err, errlen,
			 "a namespace is 1 to 63 of a-z 0-9 -, not starting or ending "
			 "with -");
		return -EINVAL;
	}
	return 0;
}

/* A container name glob: what fnmatch(3) takes, at most a DNS label's length and more. */
static int check_container_glob(const char *s, char *err, size_t errlen)
{
	size_t len = strlen(s);

	if (len == 0 || len > 253 || strchr(s, '/')) {
		snprintf(err, errlen, "a container glob is 1 to 253 characters without '/'");
		return -EINVAL;
	}
	return 0;
}

/* pod_labels, pod_annotations: a non-empty mapping of strings to strings. */
static void load_pairs(struct loader *ld, const struct node *map, const char *what,
		       struct policy_pairs *pairs)
{
	char entry[64];
	size_t n = map->n_children / 2;

	if (!expect_kind(ld, map, NODE_MAPPING, what))
		return;
	if (n == 0) {
		diag(ld, map, "%s must not be empty", what);
		return;
	}
	snprintf(entry, sizeof(entry), "a key or value of %s", what);
	pairs->keys = calloc(n, sizeof(*pairs->keys));
	pairs->values = calloc(n, sizeof(*pairs->values));
	if (!pairs->keys || !pairs->values) {
		ld->error = -ENOMEM;
		return;
	}
	for (size_t i = 0; i + 1 < map->n_children; i += 2) {
		const char *key = string_value(ld, map->children[i], entry);
		const char *value = string_value(ld, map->children[i + 1], entry);

		if (!key || !value)
			continue;
		if (!*key || strlen(key) > 317) {
			diag(ld, map->children[i], "bad key '%.64s' in %s", key, what);
			continue;
		}
		for (size_t k = 0; k < pairs->n; k++) {
			if (strcmp(pairs->keys[k], key) == 0)
				diag(ld, map->children[i], "duplicate key '%.64s' in %s", key,
				     what);
		}
		pairs->keys[pairs->n] = strdup(key);
		pairs->values[pairs->n] = strdup(value);
		if (!pairs->keys[pairs->n] || !pairs->values[pairs->n]) {
			ld->error = -ENOMEM;
			return;
		}
		pairs->n++;
	}
}

static void load_kubernetes(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	static const char *const keys[] = {"namespaces", "pod_labels", "containers",
					   "pod_annotations"};
	const struct node *values[ARRAY_SIZE(keys)];
	struct policy_kubernetes *k = &rule->kubernetes;

	if (!map_fields(ld, node, "'kubernetes'", keys, ARRAY_SIZE(keys), values))
		return;
	if (!values[0] && !values[1] && !values[2] && !values[3]) {
		diag(ld, node,
		     "'kubernetes' needs at least one of namespaces, pod_labels, containers, "
		     "pod_annotations");
		return;
	}
	k->present = true;
	if (values[0])
		load_string_list(ld, values[0], "'namespaces'", "namespace", check_namespace,
				 &k->namespaces, &k->n_namespaces);
	if (values[1])
		load_pairs(ld, values[1], "'pod_labels'", &k->pod_labels);
	if (values[2])
		load_string_list(ld, values[2], "'containers'", "container glob",
				 check_container_glob, &k->containers, &k->n_containers);
	if (values[3])
		load_pairs(ld, values[3], "'pod_annotations'", &k->pod_annotations);
}

static void load_selector(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	static const char *const keys[] = {"cgroups", "pod_uids", "container_ids", "kubernetes"};
	const struct node *values[ARRAY_SIZE(keys)];

	if (!map_fields(ld, node, "'selector'", keys, ARRAY_SIZE(keys), values))
		return;
	if (!values[0] && !values[1] && !values[2] && !values[3]) {
		diag(ld, node,
		     "'selector' needs at least one of cgroups, pod_uids, container_ids, "
		     "kubernetes");
		return;
	}
	if (values[0])
		load_string_list(ld, values[0], "'cgroups'", "cgroup glob", selector_validate,
				 &rule->cgroup_globs, &rule->n_cgroup_globs);
	if (values[1])
		load_string_list(ld, values[1], "'pod_uids'", "pod UID", selector_validate_pod_uid,
				 &rule->pod_uids, &rule->n_pod_uids);
	if (values[2])
		load_string_list(ld, values[2], "'container_ids'", "container ID",
				 selector_validate_container_id, &rule->container_ids,
				 &rule->n_container_ids);
	if (values[3])
		load_kubernetes(ld, values[3], rule);
}

/* Roots of one rule while they load, with the node each came from for messages. */
struct root_list {
	struct root_spec *roots;
	const struct node **nodes;
	size_t n;    /* resolved, distinct roots in roots[] */
	size_t seen; /* list entries read, for the limit */
	size_t capacity;
};

/* Resolves one root; keeps it only when it differs from every root kept so far. */
static void load_root(struct loader *ld, const struct node *item, __u32 access, const char *what,
		      struct root_list *list)
{
	struct root_spec *root = &list->roots[list->n];
	const char *path = string_value(ld, item, what);
	char err[PATH_MAX + 128];

	if (!path)
		return;
	if (access == CGWARD_ACCESS_DEVICE
		? root_resolve_node("allow_devices", path, access, root, err, sizeof(err))
		: root_resolve(path, access, root, err, sizeof(err))) {
		diag(ld, item, "%s", err);
		return;
	}
	if (roots_check_duplicates(list->roots, list->n + 1, err, sizeof(err))) {
		diag(ld, item, "%s", err);
		root_close(root);
		return;
	}
	list->nodes[list->n++] = item;
}

static void load_root_list(struct loader *ld, const struct node *node, __u32 access,
			   const char *what, struct root_list *list)
{
	char entry[64];

	snprintf(entry, sizeof(entry), "an entry of %s", what);
	if (!expect_nonempty_list(ld, node, what))
		return;
	for (size_t i = 0; i < node->n_children; i++) {
		if (list->seen++ == POLICY_MAX_ROOTS) {
			diag(ld, node->children[i], "more than %d roots in one policy",
			     POLICY_MAX_ROOTS);
			return;
		}
		load_root(ld, node->children[i], access, entry, list);
	}
}

/* root_nesting of each root, each fault at its entry. */
static void check_nesting(struct loader *ld, const struct root_list *list)
{
	const struct root_spec *hidden;

	for (size_t i = 0; i < list->n; i++) {
		const struct root_spec *r = &list->roots[i];

		switch (root_nesting(r, list->roots, list->n, &hidden)) {
		case ROOT_NESTS:
			break;
		case ROOT_READ_ONLY_OUTSIDE:
			diag(ld, list->nodes[i],
			     "read-only root '%s' is not inside any of the policy's write roots",
			     r->path);
			break;
		case ROOT_INSIDE_HIDDEN:
			diag(
			    ld, list->nodes[i],
			    "root '%s' is inside the hidden path '%s': nothing in it could be read",
			    r->path, hidden->path);
			break;
		}
	}
}

static size_t list_length(const struct node *node)
{
	return node && node->kind == NODE_SEQUENCE ? node->n_children : 0;
}

/*
 * The index of a key's string value among words (the first is the default),
 * or -1 when it is missing or none of them (reported, naming what is expected).
 */
static int word_value(struct loader *ld, const struct node *node, const char *key,
		      const char *const *words, size_t n_words, const char *expected)
{
	char what[64];
	const char *value;

	snprintf(what, sizeof(what), "'%s'", key);
	value = string_value(ld, node, what);
	if (!value)
		return -1;
	for (size_t i = 0; i < n_words; i++) {
		if (strcmp(value, words[i]) == 0)
			return (int)i;
	}
	diag(ld, node, "unknown %s '%.64s' (expected %s)", key, value, expected);
	return -1;
}

enum { MODE_ENFORCE, MODE_AUDIT };
enum { NETWORK_ALLOW, NETWORK_DENY, NETWORK_LOOPBACK };
enum { UNIX_OUTSIDE_ALLOW, UNIX_OUTSIDE_DENY };

static void load_mode(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	static const char *const words[] = {"enforce", "audit"};

	rule->audit = word_value(ld, node, "mode", words, 2, "enforce or audit") == MODE_AUDIT;
}

/* network: allow (the default), deny, or loopback (deny all but loopback addresses). */
static void load_network(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	static const char *const words[] = {"allow", "deny", "loopback"};
	int network = word_value(ld, node, "network", words, 3, "allow, deny or loopback");

	rule->no_network = network == NETWORK_DENY || network == NETWORK_LOOPBACK;
	rule->allow_loopback = network == NETWORK_LOOPBACK;
}

/* unix_outside: allow (the default) or deny unix sockets whose file is outside the roots. */
static void load_unix_outside(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	static const char *const words[] = {"allow", "deny"};

	rule->no_unix_outside =
	    word_value(ld, node, "unix_outside", words, 2, "allow or deny") == UNIX_OUTSIDE_DENY;
}

/*
 * A private /tmp is a mount namespace that a process must enter before it
 * runs (cgward exec --private-tmp); the agent binds cgroups whose processes
 * already run, with the mounts they have, so no rule can give one.
 */
static void reject_private_tmp(struct loader *ld, const struct node *node)
{
	diag(ld, node,
	     "'private_tmp' cannot apply to a policy: the agent binds cgroups whose "
	     "processes already run; use cgward exec --private-tmp");
}

/*
 * The container keys, in the order their paths are put (a hide last, so
 * that it wins where two paths turn out the same file): each key's access,
 * and what its entries are called.
 */
static const struct {
	__u32 access;
	const char *key, *kind;
} container_keys[] = {
    {CGWARD_ACCESS_WRITE, "container_roots", "container root"},
    {CGWARD_ACCESS_READ, "container_read_roots", "container read root"},
    {CGWARD_ACCESS_HIDDEN, "container_hide", "hidden container path"},
};

static const char *container_entry_kind(__u32 access)
{
	for (size_t k = 0; k < ARRAY_SIZE(container_keys); k++) {
		if (container_keys[k].access == access)
			return container_keys[k].kind;
	}
	return "container path";
}

/* A rule's container paths while they load, with the node each came from for messages. */
struct container_list {
	struct container_path *paths;
	const struct node **nodes;
	size_t n, capacity;
};

/*
 * The entries of one container key, spelling checked (absolute, canonical,
 * not '/'): nothing needs to exist here, each is resolved in a container
 * when it is bound.
 */
static void load_container_list(struct loader *ld, const struct node *list, size_t k,
				struct container_list *out)
{
	char what[64], entry[80], path[PATH_MAX], err[PATH_MAX + 64];

	snprintf(what, sizeof(what), "'%s'", container_keys[k].key);
	snprintf(entry, sizeof(entry), "an entry of %s", what);
	if (!expect_nonempty_list(ld, list, what))
		return;
	for (size_t i = 0; i < list->n_children; i++) {
		const struct node *item = list->children[i];
		const char *s = string_value(ld, item, entry);

		if (!s)
			continue;
		if (out->n == out->capacity) {
			diag(ld, item, "more than %d container paths in one policy",
			     POLICY_MAX_ROOTS);
			return;
		}
		if (root_check_container_path(s, path, err, sizeof(err))) {
			diag(ld, item, "bad %s '%.64s': %s", container_keys[k].kind, s, err);
			continue;
		}
		out->paths[out->n].path = strdup(path);
		if (!out->paths[out->n].path) {
			ld->error = -ENOMEM;
			return;
		}
		out->paths[out->n].access = container_keys[k].access;
		out->nodes[out->n++] = item;
	}
}

/*
 * The same path twice, or a root inside a hidden path, where nothing could
 * be read. By spelling: the paths name nothing yet. Their directories may
 * still turn out the same in a container (a symbolic link of its image):
 * the hide is put last, and wins.
 */
static void check_container_paths(struct loader *ld, const struct container_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		const struct container_path *p = &list->paths[i];

		for (size_t j = 0; j < list->n; j++) {
			const struct container_path *q = &list->paths[j];

			if (j < i && strcmp(p->path, q->path) == 0) {
				diag(ld, list->nodes[i], "container path '%s' is listed twice",
				     p->path);
				break;
			}
			if (p->access != CGWARD_ACCESS_HIDDEN &&
			    q->access == CGWARD_ACCESS_HIDDEN && path_within(p->path, q->path) &&
			    strcmp(p->path, q->path) != 0) {
				diag(ld, list->nodes[i],
				     "%s '%s' is inside the hidden path '%s': nothing in it could "
				     "be read",
				     container_entry_kind(p->access), p->path, q->path);
				break;
			}
		}
	}
}

/*
 * container_roots, container_read_roots and container_hide: paths inside
 * each container, resolved when it is bound; only a rule that selects
 * containers can have them. In that order, so that a hide is put last.
 */
static void load_container_paths(struct loader *ld, const struct node *const lists[3],
				 struct policy_rule *rule)
{
	struct container_list list = {.capacity = POLICY_MAX_ROOTS};
	bool containers = rule->kubernetes.present || rule->n_pod_uids || rule->n_container_ids;

	list.paths = calloc(list.capacity, sizeof(*list.paths));
	list.nodes = calloc(list.capacity, sizeof(*list.nodes));
	if (!list.paths || !list.nodes) {
		free(list.paths);
		free(list.nodes);
		ld->error = -ENOMEM;
		return;
	}
	rule->container_paths = list.paths;
	for (size_t k = 0; k < ARRAY_SIZE(container_keys); k++) {
		if (!lists[k])
			continue;
		if (!containers)
			diag(ld, lists[k],
			     "'%s' needs a selector of containers (kubernetes, pod_uids or "
			     "container_ids)",
			     container_keys[k].key);
		load_container_list(ld, lists[k], k, &list);
	}
	check_container_paths(ld, &list);
	rule->n_container_paths = list.n;
	rule->hides |= lists[2] != NULL;
	rule->read_roots |= lists[1] != NULL;
	free(list.nodes);
}

/* capabilities: all, or the list of capabilities(7) names that the rule's cgroups keep. */
static void load_capabilities(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	char err[POLICY_DIAG_MSG_SIZE];
	const char *name;

	if (node->kind == NODE_SCALAR && !is_plain_null(node) && strcmp(node->value, "all") == 0) {
		rule->dropped_caps = CAPABILITIES_NONE_DROPPED;
		return;
	}
	if (node->kind != NODE_SEQUENCE) {
		if (node->kind != NODE_ALIAS)
			diag(ld, node,
			     "'capabilities' must be all or a list of capabilities, not %s",
			     kind_name(node));
		return;
	}
	rule->dropped_caps = CAPABILITIES_ALL_DROPPED;
	for (size_t i = 0; i < node->n_children; i++) {
		name = string_value(ld, node->children[i], "an entry of 'capabilities'");
		if (name && capabilities_change(&rule->dropped_caps, true, name, "'capabilities'",
						err, sizeof(err)))
			diag(ld, node->children[i], "%s", err);
	}
}

/*
 * limits: the most each run of the agent's exec socket that the rule
 * governs may use. Only a mandatory rule governs a run: a run's own
 * boundary replaces any other (cgroup_inherit.bpf.c).
 */
static void load_limits(struct loader *ld, const struct node *node, struct policy_rule *rule)
{
	enum { MEMORY, PIDS, CPUS, N_LIMITS };
	static const char *const keys[N_LIMITS] = {"memory_mib", "pids", "cpus"};
	const struct node *values[N_LIMITS];
	char err[POLICY_DIAG_MSG_SIZE];
	const char *text;
	int ret;

	if (!map_fields(ld, node, "'limits'", keys, N_LIMITS, values))
		return;
	for (int i = 0; i < N_LIMITS; i++) {
		if (!values[i])
			continue;
		text = string_value(ld, values[i], keys[i]);
		if (!text)
			continue;
		ret =
		    !values[i]->plain ? -EINVAL
		    : i == MEMORY ? memory_limit_parse(keys[i], text, &rule->limits.memory_mib, err,
						       sizeof(err))
		    : i == PIDS
			? pids_limit_parse(keys[i], text, &rule->limits.pids, err, sizeof(err))
			: cpu_limit_parse(keys[i], text, &rule->limits.cpu_milli, err, sizeof(err));
		if (ret && !values[i]->plain)
			diag(ld, values[i], "%s must be a number, not the string \"%.64s\"",
			     keys[i], text);
		else if (ret)
			diag(ld, values[i], "%s", err);
	}
}

enum rule_key {
	RULE_NAME,
	RULE_SELECTOR,
	RULE_WRITE_ROOTS,
	RULE_READ_ONLY,
	RULE_HIDE,
	RULE_READ_ROOTS,
	RULE_READ_SYSTEM,
	RULE_MODE,
	RULE_MANDATORY,
	RULE_NETWORK,
	RULE_UNIX_OUTSIDE,
	RULE_PRIVATE_TMP,
	RULE_CONTAINER_ROOTS,
	RULE_CONTAINER_READ_ROOTS,
	RULE_CONTAINER_HIDE,
	RULE_ALLOW_DEVICES,
	RULE_CAPABILITIES,
	RULE_LIMITS,
	RULE_N_KEYS,
};

/*
 * read_roots or read_system confine the rule's reads; the system set
 * (read_system: default, or not given) joins its roots then. It is the
 * node's: a container reads its image's /usr, never the node's, so a rule
 * with container_read_roots lists the container's own and reads no system
 * set; read_system: default there is a mistake.
 */
static void load_read_system(struct loader *ld, const struct node *const values[],
			     struct policy_rule *rule, struct root_list *list)
{
	char err[128];
	int system = READ_SYSTEM_DEFAULT;

	rule->read_roots = values[RULE_READ_ROOTS] || values[RULE_READ_SYSTEM];
	if (!rule->read_roots)
		return;
	if (values[RULE_READ_SYSTEM])
		system = word_value(ld, values[RULE_READ_SYSTEM], "read_system", read_system_words,
				    READ_SYSTEM_SETS, READ_SYSTEM_CHOICES);
	if (values[RULE_CONTAINER_READ_ROOTS] && values[RULE_READ_SYSTEM] &&
	    system == READ_SYSTEM_DEFAULT)
		diag(ld, values[RULE_READ_SYSTEM],
		     "'read_system: default' is the node's system set, not a container's: list "
		     "the container's own (/usr, /etc, /lib, /proc, /dev) in "
		     "'container_read_roots'");
	if (system != READ_SYSTEM_DEFAULT || values[RULE_CONTAINER_READ_ROOTS])
		return;
	if (read_system_add(list->roots, &list->n, list->capacity + READ_SYSTEM_MAX, err,
			    sizeof(err)))
		diag(ld, values[RULE_READ_SYSTEM] ?: values[RULE_READ_ROOTS], "%s", err);
}

/*
 * write_roots, read_only, hide, read_roots and allow_devices: entries of one
 * list, each with its access, then the system set.
 */
static void load_roots(struct loader *ld, const struct node *const values[],
		       struct policy_rule *rule)
{
	struct root_list list = {0};

	list.capacity = list_length(values[RULE_WRITE_ROOTS]) +
			list_length(values[RULE_READ_ONLY]) + list_length(values[RULE_HIDE]) +
			list_length(values[RULE_READ_ROOTS]) +
			list_length(values[RULE_ALLOW_DEVICES]);
	if (list.capacity > POLICY_MAX_ROOTS)
		list.capacity = POLICY_MAX_ROOTS;
	list.roots = calloc(list.capacity + 1 + READ_SYSTEM_MAX, sizeof(*list.roots));
	list.nodes = calloc(list.capacity + 1, sizeof(*list.nodes));
	if (!list.roots || !list.nodes) {
		free(list.roots);
		free(list.nodes);
		ld->error = -ENOMEM;
		return;
	}
	rule->roots = list.roots;
	if (values[RULE_WRITE_ROOTS])
		load_root_list(ld, values[RULE_WRITE_ROOTS], CGWARD_ACCESS_WRITE, "'write_roots'",
			       &list);
	if (values[RULE_READ_ONLY])
		load_root_list(ld, values[RULE_READ_ONLY], CGWARD_ACCESS_READ_ONLY, "'read_only'",
			       &list);
	if (values[RULE_HIDE]) {
		size_t before = list.n;

		load_root_list(ld, values[RULE_HIDE], CGWARD_ACCESS_HIDDEN, "'hide'", &list);
		rule->hides = list.n > before;
	}
	if (values[RULE_READ_ROOTS])
		load_root_list(ld, values[RULE_READ_ROOTS], CGWARD_ACCESS_READ, "'read_roots'",
			       &list);
	if (values[RULE_ALLOW_DEVICES])
		load_root_list(ld, values[RULE_ALLOW_DEVICES], CGWARD_ACCESS_DEVICE,
			       "'allow_devices'", &list);
	check_nesting(ld, &list);
	load_read_system(ld, values, rule, &list);
	rule->n_roots = list.n;
	free(list.nodes);
}

static void load_rule(struct loader *ld, const struct node *map, struct policy_rule *rule,
		      const struct policy_rule *earlier, size_t n_earlier)
{
	static const char *const keys[RULE_N_KEYS] = {
	    [RULE_NAME] = "name",
	    [RULE_SELECTOR] = "selector",
	    [RULE_WRITE_ROOTS] = "write_roots",
	    [RULE_READ_ONLY] = "read_only",
	    [RULE_HIDE] = "hide",
	    [RULE_READ_ROOTS] = "read_roots",
	    [RULE_READ_SYSTEM] = "read_system",
	    [RULE_MODE] = "mode",
	    [RULE_MANDATORY] = "mandatory",
	    [RULE_NETWORK] = "network",
	    [RULE_UNIX_OUTSIDE] = "unix_outside",
	    [RULE_PRIVATE_TMP] = "private_tmp",
	    [RULE_CONTAINER_ROOTS] = "container_roots",
	    [RULE_CONTAINER_READ_ROOTS] = "container_read_roots",
	    [RULE_CONTAINER_HIDE] = "container_hide",
	    [RULE_ALLOW_DEVICES] = "allow_devices",
	    [RULE_CAPABILITIES] = "capabilities",
	    [RULE_LIMITS] = "limits",
	};
	const struct node *values[RULE_N_KEYS];

	rule->line = map->line;
	rule->dropped_caps = capabilities_default_dropped();
	if (!map_fields(ld, map, "a policy", keys, RULE_N_KEYS, values))
		return;
	require(ld, map, values[RULE_NAME], "name", "a policy");
	require(ld, map, values[RULE_SELECTOR], "selector", "a policy");
	if (!values[RULE_WRITE_ROOTS] && !values[RULE_CONTAINER_ROOTS])
		diag(ld, map,
		     "a policy is missing required key 'write_roots' (or 'container_roots')");
	if (values[RULE_NAME])
		load_name(ld, values[RULE_NAME], rule, earlier, n_earlier);
	if (values[RULE_SELECTOR])
		load_selector(ld, values[RULE_SELECTOR], rule);
	if (values[RULE_WRITE_ROOTS] || values[RULE_READ_ONLY] || values[RULE_HIDE] ||
	    values[RULE_READ_ROOTS] || values[RULE_READ_SYSTEM] || values[RULE_ALLOW_DEVICES])
		load_roots(ld, values, rule);
	if (values[RULE_MODE])
		load_mode(ld, values[RULE_MODE], rule);
	if (values[RULE_MANDATORY])
		bool_value(ld, values[RULE_MANDATORY], "'mandatory'", &rule->mandatory);
	if (values[RULE_NETWORK])
		load_network(ld, values[RULE_NETWORK], rule);
	if (values[RULE_UNIX_OUTSIDE])
		load_unix_outside(ld, values[RULE_UNIX_OUTSIDE], rule);
	if (values[RULE_PRIVATE_TMP])
		reject_private_tmp(ld, values[RULE_PRIVATE_TMP]);
	if (values[RULE_CONTAINER_ROOTS] || values[RULE_CONTAINER_READ_ROOTS] ||
	    values[RULE_CONTAINER_HIDE])
		load_container_paths(ld,
				     (const struct node *const[]){values[RULE_CONTAINER_ROOTS],
								  values[RULE_CONTAINER_READ_ROOTS],
								  values[RULE_CONTAINER_HIDE]},
				     rule);
	if (values[RULE_CAPABILITIES])
		load_capabilities(ld, values[RULE_CAPABILITIES], rule);
	if (values[RULE_LIMITS]) {
		load_limits(ld, values[RULE_LIMITS], rule);
		if (!rule->mandatory)
			diag(ld, values[RULE_LIMITS],
			     "'limits' needs 'mandatory: true': a run's own boundary replaces a "
			     "rule "
			     "that is not mandatory, whose limits would never hold");
	}
}

/* A whole number in [min, max], written in base (8 for a mode), or false after reporting it. */
static bool number_value(struct loader *ld, const struct node *node, const char *what, int base,
			 unsigned long min, unsigned long max, unsigned int *out)
{
	const char *value = string_value(ld, node, what);
	unsigned long n;
	char *end;

	if (!value)
		return false;
	errno = 0;
	n = strtoul(value, &end, base);
	if (!value[0] || *end || value[0] == '-' || value[0] == '+' || errno || n < min ||
	    n > max) {
		if (base == 8)
			diag(ld, node, "%s must be an octal mode up to 0777, not '%.64s'", what,
			     value);
		else
			diag(ld, node, "%s must be a whole number from %lu to %lu, not '%.64s'",
			     what, min, max, value);
		return false;
	}
	*out = (unsigned int)n;
	return true;
}

/* A group's name or number: the socket's group, so that only its members may connect. */
static void load_socket_group(struct loader *ld, const struct node *node,
			      struct exec_socket_config *config)
{
	const char *value = string_value(ld, node, "'group'");
	struct group *group;
	char *end;

	if (!value)
		return;
	config->group = (unsigned int)strtoul(value, &end, 10);
	if (value[0] && !*end && value[0] != '-') {
		config->has_group = true;
		return;
	}
	group = getgrnam(value);
	if (!group) {
		diag(ld, node, "'group': no group '%.64s' on this host", value);
		return;
	}
	config->group = group->gr_gid;
	config->has_group = true;
}

static void load_socket_path(struct loader *ld, const struct node *node,
			     struct exec_socket_config *config)
{
	const char *value = string_value(ld, node, "'path'");

	if (!value)
		return;
	if (value[0] != '/' || strlen(value) >= sizeof(config->path))
		diag(ld, node, "'path' must be an absolute path shorter than %zu bytes",
		     sizeof(config->path));
	else
		snprintf(config->path, sizeof(config->path), "%s", value);
}

/* exec_socket: off, or a mapping; what it leaves out keeps its default. */
static void load_exec_socket(struct loader *ld, const struct node *node,
			     struct exec_socket_config *config)
{
	enum { PATH, MODE, GROUP, MAX_RUNS, RATE, BURST, N_KEYS };
	static const char *const keys[N_KEYS] = {
	    "path", "mode", "group", "max_runs_per_user", "requests_per_second", "request_burst"};
	const struct node *values[N_KEYS];

	if (node->kind == NODE_SCALAR && node->plain && strcmp(node->value, "off") == 0) {
		config->path[0] = '\0';
		return;
	}
	if (node->kind == NODE_SCALAR) {
		diag(ld, node, "'exec_socket' must be off or a mapping, not '%.64s'", node->value);
		return;
	}
	if (!map_fields(ld, node, "'exec_socket'", keys, N_KEYS, values))
		return;
	if (values[PATH])
		load_socket_path(ld, values[PATH], config);
	if (values[MODE])
		number_value(ld, values[MODE], "'mode'", 8, 0, 0777, &config->mode);
	if (values[GROUP])
		load_socket_group(ld, values[GROUP], config);
	if (values[MAX_RUNS])
		number_value(ld, values[MAX_RUNS], "'max_runs_per_user'", 10, 1, 65536,
			     &config->max_runs_per_user);
	if (values[RATE])
		number_value(ld, values[RATE], "'requests_per_second'", 10, 1, 100000,
			     &config->requests_per_second);
	if (values[BURST])
		number_value(ld, values[BURST], "'request_burst'", 10, 1, 100000,
			     &config->request_burst);
}

static void load_policies(struct loader *ld, const struct node *root, struct policy_set *set)
{
	static const char *const keys[] = {"policies", "exec_socket"};
	const struct node *values[2], *policies;
	size_t n;

	set->exec_socket = (struct exec_socket_config){
	    .path = EXEC_SOCKET_PATH,
	    .mode = EXEC_SOCKET_DEFAULT_MODE,
	    .max_runs_per_user = EXEC_SOCKET_DEFAULT_MAX_RUNS,
	    .requests_per_second = EXEC_SOCKET_DEFAULT_RATE,
	    .request_burst = EXEC_SOCKET_DEFAULT_BURST,
	};
	if (!map_fields(ld, root, "the file", keys, 2, values))
		return;
	policies = values[0];
	if (values[1])
		load_exec_socket(ld, values[1], &set->exec_socket);
	require(ld, root, policies, "policies", "the file");
	if (!policies || !expect_nonempty_list(ld, policies, "'policies'"))
		return;
	n = policies->n_children;
	if (n > POLICY_MAX_RULES) {
		diag(ld, policies->children[POLICY_MAX_RULES], "more than %d policies",
		     POLICY_MAX_RULES);
		n = POLICY_MAX_RULES;
	}
	set->rules = calloc(n, sizeof(*set->rules));
	if (!set->rules) {
		ld->error = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n && !ld->error; i++) {
		set->n_rules++;
		load_rule(ld, policies->children[i], &set->rules[i], set->rules, i);
	}
}

/* Reads at most POLICY_FILE_MAX + 1 bytes, so that an oversized file is known as one. */
static int read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 64 * 1024;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	*len = 0;
	*buf = NULL;
	if (fd < 0)
		return -errno;
	for (;;) {
		char *grown;
		ssize_t got;

		if (*len == cap || !*buf) {
			if (*buf)
				cap *= 2;
			grown = realloc(*buf, cap + 1);
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			*buf = grown;
		}
		got = read(fd, *buf + *len, cap - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			ret = -errno;
		if (got <= 0 || (*len += got) > POLICY_FILE_MAX)
			break;
	}
	close(fd);
	if (ret) {
		free(*buf);
		*buf = NULL;
	} else {
		(*buf)[*len] = '\0';
	}
	return ret;
}

static int compare_diags(const void *a, const void *b)
{
	const struct policy_diag *const *x = a, *const *y = b;

	if ((*x)->line != (*y)->line)
		return (*x)->line < (*y)->line ? -1 : 1;
	if ((*x)->column != (*y)->column)
		return (*x)->column < (*y)->column ? -1 : 1;
	return *x < *y ? -1 : *x > *y; /* keep the order found: pointers into one array */
}

/* Orders diagnostics by position, stably, so that output follows the file. */
static int sort_diags(struct policy_diags *diags)
{
	const struct policy_diag **order;
	struct policy_diag *sorted;

	if (diags->n < 2)
		return 0;
	order = calloc(diags->n, sizeof(*order));
	sorted = calloc(diags->n, sizeof(*sorted));
	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < diags->n; i++)
		order[i] = &diags->items[i];
	qsort(order, diags->n, sizeof(*order), compare_diags);
	for (size_t i = 0; i < diags->n; i++)
		sorted[i] = *order[i];
	free(order);
	free(diags->items);
	diags->items = sorted;
	diags->capacity = diags->n;
	return 0;
}

static int load_buffer(struct loader *ld, const char *buf, size_t len, struct policy_set *set)
{
	struct node *root = NULL;
	int ret = parse_yaml_tree(ld, buf, len, &root);

	/* After a syntax error the tree is partial: checking it would only add noise. */
	if (!ret && !root)
		diag_at(ld, 1, 1, "the file is empty: expected a mapping with key 'policies'");
	else if (!ret)
		load_policies(ld, root, set);
	node_free(root);
	return ret == -ENOMEM ? ret : ld->error;
}

int policy_file_read(const char *path, struct policy_file *file)
{
	int ret = read_file(path, &file->content, &file->len);

	if (ret == 0)
		SHA256Data((const uint8_t *)file->content, file->len, file->sha256);
	else
		file->sha256[0] = '\0';
	return ret;
}

void policy_file_free(struct policy_file *file)
{
	free(file->content);
	file->content = NULL;
	file->len = 0;
}

int policy_parse(const struct policy_file *file, struct policy_set *set, struct policy_diags *diags)
{
	struct loader ld = {.diags = diags};
	int ret = 0;

	memset(set, 0, sizeof(*set));
	memset(diags, 0, sizeof(*diags));
	if (file->len > POLICY_FILE_MAX)
		diag_at(&ld, 1, 1, "the file is larger than %d bytes", POLICY_FILE_MAX);
	else
		ret = load_buffer(&ld, file->content, file->len, set);
	if (!ret)
		ret = ld.error ? ld.error : sort_diags(diags);
	if (!ret && diags->n)
		ret = -EINVAL;
	if (ret)
		policy_set_free(set);
	else
		memcpy(set->sha256, file->sha256, sizeof(set->sha256));
	return ret;
}

int policy_load(const char *path, struct policy_set *set, struct policy_diags *diags)
{
	struct policy_file file;
	int ret = policy_file_read(path, &file);

	if (ret) {
		memset(set, 0, sizeof(*set));
		memset(diags, 0, sizeof(*diags));
		return ret;
	}
	ret = policy_parse(&file, set, diags);
	policy_file_free(&file);
	return ret;
}

static void free_strings(char **strings, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(strings[i]);
	free(strings);
}

static void free_pairs(struct policy_pairs *pairs)
{
	free_strings(pairs->keys, pairs->n);
	free_strings(pairs->values, pairs->n);
	pairs->keys = pairs->values = NULL;
	pairs->n = 0;
}

void policy_set_free(struct policy_set *set)
{
	for (size_t i = 0; i < set->n_rules; i++) {
		struct policy_rule *rule = &set->rules[i];

		free_strings(rule->cgroup_globs, rule->n_cgroup_globs);
		free_strings(rule->pod_uids, rule->n_pod_uids);
		free_strings(rule->container_ids, rule->n_container_ids);
		for (size_t p = 0; p < rule->n_container_paths; p++)
			free(rule->container_paths[p].path);
		free(rule->container_paths);
		free_strings(rule->kubernetes.namespaces, rule->kubernetes.n_namespaces);
		free_strings(rule->kubernetes.containers, rule->kubernetes.n_containers);
		free_pairs(&rule->kubernetes.pod_labels);
		free_pairs(&rule->kubernetes.pod_annotations);
		for (size_t r = 0; r < rule->n_roots; r++)
			root_close(&rule->roots[r]);
		free(rule->roots);
	}
	free(set->rules);
	set->rules = NULL;
	set->n_rules = 0;
	set->sha256[0] = '\0';
}

void policy_diags_free(struct policy_diags *diags)
{
	free(diags->items);
	diags->items = NULL;
	diags->n = 0;
	diags->capacity = 0;
}
