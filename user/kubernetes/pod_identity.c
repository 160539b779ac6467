/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pod and container identity from the names the kubelet (pod and QoS
 * cgroups) and the container runtime (container cgroups) give their cgroups.
 */
#include "pod_identity.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define UUID_LEN 36
/* Static pods have no API-server UUID: the kubelet uses a hash of the manifest. */
#define STATIC_UID_LEN	 32
#define CONTAINER_ID_LEN 64

/* A piece of the caller's string: never NUL-terminated, never read past len. */
struct span {
	const char *s;
	size_t len;
};

struct container_form {
	const char *prefix;
	const char *runtime;
	bool holds_container; /* false: a runtime helper's cgroup inside the pod */
};

/* Longer prefixes first: the first prefix that matches decides. */
static const struct container_form systemd_forms[] = {
    {"cri-containerd-", "containerd", true},
    {"crio-conmon-", "cri-o", false},
    {"crio-", "cri-o", true},
    {"docker-", "docker", true},
};

static const struct container_form cgroupfs_forms[] = {
    {"crio-conmon-", "cri-o", false},
    {"crio-", "cri-o", true},
    /* containerd and cri-dockerd name the cgroup after the ID alone */
    {"", "", true},
};

static const struct container_form colon_forms[] = {
    {"cri-containerd:", "containerd", true},
};

static bool span_eq(struct span a, const char *lit)
{
	size_t n = strlen(lit);

	return a.len == n && memcmp(a.s, lit, n) == 0;
}

static bool span_strip_prefix(struct span *a, const char *lit)
{
	size_t n = strlen(lit);

	if (a->len < n || memcmp(a->s, lit, n) != 0)
		return false;
	a->s += n;
	a->len -= n;
	return true;
}

static bool span_strip_suffix(struct span *a, const char *lit)
{
	size_t n = strlen(lit);

	if (a->len < n || memcmp(a->s + a->len - n, lit, n) != 0)
		return false;
	a->len -= n;
	return true;
}

/* Splits a at the first sep: a keeps what is before it, tail gets the rest. */
static bool span_split(struct span *a, char sep, struct span *tail)
{
	const char *at = memchr(a->s, sep, a->len);

	if (!at)
		return false;
	tail->s = at + 1;
	tail->len = a->len - (size_t)(at - a->s) - 1;
	a->len = (size_t)(at - a->s);
	return true;
}

/* Moves *cursor past the next non-empty '/'-separated component. */
static bool next_component(const char **cursor, struct span *component)
{
	const char *start = *cursor;

	while (*start == '/')
		start++;
	if (*start == '\0')
		return false;
	*cursor = strchrnul(start, '/');
	component->s = start;
	component->len = (size_t)(*cursor - start);
	return true;
}

/* Lowercase only: the kubelet and the runtimes print IDs that way, and one spelling per ID keeps
 * selectors exact. */
static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool all_lower_hex(struct span a)
{
	for (size_t i = 0; i < a.len; i++) {
		if (!is_lower_hex(a.s[i]))
			return false;
	}
	return true;
}

static bool is_uuid_dash_position(size_t i)
{
	return i == 8 || i == 13 || i == 18 || i == 23;
}

/*
 * Stores uid in its canonical dashed form. sep is how the path spells the
 * UUID's dashes: '-' under cgroupfs, '_' under systemd, where '-' already
 * separates the slice hierarchy.
 */
static bool parse_pod_uid(struct span uid, char sep, char out[static UUID_LEN + 1])
{
	if (uid.len == STATIC_UID_LEN && all_lower_hex(uid)) {
		memcpy(out, uid.s, uid.len);
		out[uid.len] = '\0';
		return true;
	}
	if (uid.len != UUID_LEN)
		return false;
	for (size_t i = 0; i < UUID_LEN; i++) {
		if (is_uuid_dash_position(i) ? uid.s[i] != sep : !is_lower_hex(uid.s[i]))
			return false;
	}
	for (size_t i = 0; i < UUID_LEN; i++)
		out[i] = is_uuid_dash_position(i) ? '-' : uid.s[i];
	out[UUID_LEN] = '\0';
	return true;
}

/* head is "[<root>-]kubepods[-burstable|-besteffort]": guaranteed pods have no QoS slice. */
static const char *systemd_qos(struct span head)
{
	const char *qos = "guaranteed";

	if (span_strip_suffix(&head, "-burstable"))
		qos = "burstable";
	else if (span_strip_suffix(&head, "-besteffort"))
		qos = "besteffort";
	if (!span_strip_suffix(&head, "kubepods"))
		return NULL;
	if (head.len > 0 && head.s[head.len - 1] != '-')
		return NULL;
	return qos;
}

/* "[<root>-]kubepods[-<qos>]-pod<uid with _>.slice": a slice's name spells its ancestry. */
static bool parse_systemd_pod(struct span name, struct pod_identity *id)
{
	static const size_t uid_lens[] = {UUID_LEN, STATIC_UID_LEN};

	if (!span_strip_suffix(&name, ".slice"))
		return false;
	for (size_t i = 0; i < sizeof(uid_lens) / sizeof(uid_lens[0]); i++) {
		if (name.len < uid_lens[i])
			continue;
		struct span uid = {name.s + name.len - uid_lens[i], uid_lens[i]};
		struct span head = {name.s, name.len - uid_lens[i]};
		const char *qos;

		if (!span_strip_suffix(&head, "-pod"))
			continue;
		qos = systemd_qos(head);
		if (qos && parse_pod_uid(uid, '_', id->pod_uid)) {
			strcpy(id->qos, qos);
			return true;
		}
	}
	return false;
}

/* "kubepods/pod<uid>" (guaranteed) or "kubepods/<qos>/pod<uid>". */
static bool parse_cgroupfs_pod(struct span grandparent, struct span parent, struct span name,
			       struct pod_identity *id)
{
	const char *qos;

	if (span_eq(parent, "kubepods"))
		qos = "guaranteed";
	else if (span_eq(grandparent, "kubepods") && span_eq(parent, "burstable"))
		qos = "burstable";
	else if (span_eq(grandparent, "kubepods") && span_eq(parent, "besteffort"))
		qos = "besteffort";
	else
		return false;
	if (!span_strip_prefix(&name, "pod") || !parse_pod_uid(name, '-', id->pod_uid))
		return false;
	strcpy(id->qos, qos);
	return true;
}

/* A child of the pod cgroup that matches no form is pod-level: id stays as it is. */
static void parse_container(struct span name, const struct container_form *forms, size_t n_forms,
			    const char *suffix, struct pod_identity *id)
{
	if (suffix && !span_strip_suffix(&name, suffix))
		return;
	for (size_t i = 0; i < n_forms; i++) {
		struct span container_id = name;

		if (!span_strip_prefix(&container_id, forms[i].prefix))
			continue;
		if (container_id.len != CONTAINER_ID_LEN || !all_lower_hex(container_id))
			return;
		strcpy(id->runtime, forms[i].runtime);
		if (forms[i].holds_container) {
			memcpy(id->container_id, container_id.s, CONTAINER_ID_LEN);
			id->container_id[CONTAINER_ID_LEN] = '\0';
		}
		return;
	}
}

#define FORMS(forms) forms, sizeof(forms) / sizeof(forms[0])

int pod_identity_parse(const char *cgroup_path, struct pod_identity *id)
{
	struct span grandparent = {"", 0}, parent = {"", 0}, name;
	const char *cursor = cgroup_path;

	if (!cgroup_path || !id)
		return -EINVAL;
	memset(id, 0, sizeof(*id));
	/*
	 * The first pod cgroup from the root wins: a container allowed to make
	 * cgroups can add components only below its own, so a pod-shaped name
	 * there must not change whose it is.
	 */
	while (next_component(&cursor, &name)) {
		struct span pod_slice = name, colon_child;
		bool has_colon_child = span_split(&pod_slice, ':', &colon_child);

		if (parse_systemd_pod(pod_slice, id)) {
			if (has_colon_child)
				parse_container(colon_child, FORMS(colon_forms), NULL, id);
			else if (next_component(&cursor, &name))
				parse_container(name, FORMS(systemd_forms), ".scope", id);
			return 0;
		}
		if (parse_cgroupfs_pod(grandparent, parent, name, id)) {
			if (next_component(&cursor, &name))
				parse_container(name, FORMS(cgroupfs_forms), NULL, id);
			return 0;
		}
		grandparent = parent;
		parent = name;
	}
	return -ENOENT;
}
