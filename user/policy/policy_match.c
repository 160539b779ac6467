// SPDX-License-Identifier: GPL-2.0
/* Which rule of a loaded policy a cgroup or a container is under. */
#include <fnmatch.h>
#include <string.h>

#include "container_meta.h"
#include "pod_identity.h"
#include "policy.h"
#include "selector.h"

static bool contains(char *const *strings, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(strings[i], s) == 0)
			return true;
	}
	return false;
}

/* pod is NULL when the path is not a Kubernetes pod's cgroup. */
static bool rule_selects(const struct policy_rule *rule, const char *cgroup_path,
			 const struct pod_identity *pod)
{
	for (size_t i = 0; i < rule->n_cgroup_globs; i++) {
		if (selector_match(rule->cgroup_globs[i], cgroup_path))
			return true;
	}
	if (!pod)
		return false;
	return contains(rule->pod_uids, rule->n_pod_uids, pod->pod_uid) ||
	       (pod->container_id[0] &&
		contains(rule->container_ids, rule->n_container_ids, pod->container_id));
}

bool policy_rule_selects(const struct policy_rule *rule, const char *cgroup_path)
{
	struct pod_identity pod;

	return rule_selects(rule, cgroup_path,
			    pod_identity_parse(cgroup_path, &pod) == 0 ? &pod : NULL);
}

static bool pairs_match(const struct policy_pairs *pairs, const struct container_meta *meta,
			const char *(*get)(const struct container_meta *, const char *))
{
	for (size_t i = 0; i < pairs->n; i++) {
		const char *value = get(meta, pairs->keys[i]);

		if (!value || strcmp(value, pairs->values[i]) != 0)
			return false;
	}
	return true;
}

static bool kubernetes_selects(const struct policy_kubernetes *k, const struct container_meta *meta)
{
	bool name_matches = k->n_containers == 0;

	if (!k->present || !meta || meta->sandbox)
		return false;
	if (k->n_namespaces && !contains(k->namespaces, k->n_namespaces, meta->namespace))
		return false;
	for (size_t i = 0; i < k->n_containers && !name_matches; i++)
		name_matches = fnmatch(k->containers[i], meta->container_name, 0) == 0;
	return name_matches && pairs_match(&k->pod_labels, meta, container_meta_label) &&
	       pairs_match(&k->pod_annotations, meta, container_meta_annotation);
}

const struct policy_rule *policy_match_container(const struct policy_set *set,
						 const char *cgroup_path,
						 const struct container_meta *meta)
{
	const struct policy_rule *first = NULL;
	struct pod_identity pod;
	const struct pod_identity *in_pod =
	    pod_identity_parse(cgroup_path, &pod) == 0 ? &pod : NULL;

	for (size_t i = 0; i < set->n_rules; i++) {
		const struct policy_rule *rule = &set->rules[i];

		if (!rule_selects(rule, cgroup_path, in_pod) &&
		    !kubernetes_selects(&rule->kubernetes, meta))
			continue;
		if (rule->mandatory)
			return rule;
		if (!first)
			first = rule;
	}
	return first;
}

bool policy_selects_kubernetes(const struct policy_set *set)
{
	for (size_t i = 0; i < set->n_rules; i++) {
		if (set->rules[i].kubernetes.present)
			return true;
	}
	return false;
}

bool policy_needs_pod_labels(const struct policy_set *set)
{
	for (size_t i = 0; i < set->n_rules; i++) {
		if (set->rules[i].kubernetes.pod_labels.n)
			return true;
	}
	return false;
}

bool policy_needs_pod_annotations(const struct policy_set *set)
{
	for (size_t i = 0; i < set->n_rules; i++) {
		if (set->rules[i].kubernetes.pod_annotations.n)
			return true;
	}
	return false;
}

/* No meta: kubernetes_selects selects nothing, and a rule selects by the path alone. */
const struct policy_rule *policy_match(const struct policy_set *set, const char *cgroup_path)
{
	return policy_match_container(set, cgroup_path, NULL);
}
