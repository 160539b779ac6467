// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <bpf/bpf.h>

#include "cgward_abi.h"
#include "grow_array.h"
#include "policy.h"
#include "policy_maps.h"

static struct cgward_root_key root_key(__u32 policy_id, const struct root_spec *root)
{
	return (struct cgward_root_key){.policy_id = policy_id, .dev = root->dev, .ino = root->ino};
}

/*
 * Writes one directory's tag. Its first tag creates the directory's inode
 * storage, and when two writers race to create it (cgward execs started
 * together on one root) the kernel fails one of them with EAGAIN: the
 * storage exists for its next try.
 */
static int tag_root(int root_tags_fd, int dir_fd)
{
	const struct cgward_root_tag tag = {.flags = CGWARD_TAG_ROOT};

	for (int attempt = 0; attempt < 3; attempt++) {
		if (bpf_map_update_elem(root_tags_fd, &dir_fd, &tag, BPF_NOEXIST) == 0 ||
		    errno == EEXIST)
			return 0;
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}

/*
 * Read-only and hidden paths: a write root (or a readable one) may hold
 * one, so a directory beneath is not writable (readable) for that alone.
 */
static bool has_exceptions(const struct root_spec *roots, size_t n_roots)
{
	for (size_t i = 0; i < n_roots; i++) {
		if (roots[i].access == CGWARD_ACCESS_READ_ONLY ||
		    roots[i].access == CGWARD_ACCESS_HIDDEN)
			return true;
	}
	return false;
}

/* A root that read-only or hidden paths may lie beneath. */
static bool may_hold_exceptions(__u32 access)
{
	return access == CGWARD_ACCESS_WRITE || access == CGWARD_ACCESS_READ;
}

/* Tags the directories of roots: the tag says only that some policy has a root there. */
static int tag_roots(const struct policy_maps *maps, const struct root_spec *roots, size_t n_roots)
{
	for (size_t i = 0; maps->root_tags_fd >= 0 && i < n_roots; i++) {
		int ret = roots[i].fd < 0 ? 0 : tag_root(maps->root_tags_fd, roots[i].fd);

		if (ret)
			return ret;
	}
	return 0;
}

int policy_maps_put_roots(const struct policy_maps *maps, __u32 policy_id,
			  const struct root_spec *roots, size_t n_roots)
{
	bool exceptions = has_exceptions(roots, n_roots);
	int ret = tag_roots(maps, roots, n_roots);

	if (ret)
		return ret;
	for (size_t i = 0; i < n_roots; i++) {
		struct cgward_root_key key = root_key(policy_id, &roots[i]);
		struct cgward_root_value value = {
		    .access = roots[i].access,
		    .flags = exceptions && may_hold_exceptions(roots[i].access)
				 ? CGWARD_ROOT_EXCEPTIONS
				 : 0,
		};

		if (bpf_map_update_elem(maps->write_roots_fd, &key, &value, BPF_ANY) != 0) {
			int ret = -errno;

			policy_maps_delete_roots(maps, policy_id, roots, i);
			return ret;
		}
	}
	return 0;
}

void policy_maps_delete_roots(const struct policy_maps *maps, __u32 policy_id,
			      const struct root_spec *roots, size_t n_roots)
{
	for (size_t i = 0; i < n_roots; i++) {
		struct cgward_root_key key = root_key(policy_id, &roots[i]);

		bpf_map_delete_elem(maps->write_roots_fd, &key);
	}
}

int policy_maps_put_info(const struct policy_maps *maps, __u32 policy_id, const char *name)
{
	struct cgward_policy_info info = {};

	snprintf(info.name, sizeof(info.name), "%s", name);
	if (bpf_map_update_elem(maps->policy_info_fd, &policy_id, &info, BPF_ANY) != 0)
		return -errno;
	return 0;
}

void policy_maps_delete_info(const struct policy_maps *maps, __u32 policy_id)
{
	bpf_map_delete_elem(maps->policy_info_fd, &policy_id);
}

int policy_maps_get_info(const struct policy_maps *maps, __u32 policy_id,
			 struct cgward_policy_info *info)
{
	if (bpf_map_lookup_elem(maps->policy_info_fd, &policy_id, info) != 0)
		return -errno;
	return 0;
}

int policy_maps_bind_cgroup(const struct policy_maps *maps, __u64 cgroup_id,
			    const struct cgward_cgroup_policy *policy)
{
	if (bpf_map_update_elem(maps->cgroup_policy_fd, &cgroup_id, policy, BPF_ANY) != 0)
		return -errno;
	return 0;
}

/* What a mandatory rule's flags make of the reads of an exec run beneath it. */
static __u32 mandatory_reads(__u32 mandatory_flags)
{
	return (mandatory_flags & CGWARD_POLICY_JUDGE_READS) |
	       (mandatory_flags & CGWARD_POLICY_READ_ROOTS ? CGWARD_POLICY_MANDATORY_READ_ROOTS
							   : 0);
}

int policy_maps_bind_rule(const struct policy_maps *maps, __u64 cgroup_id,
			  const struct cgward_cgroup_policy *policy)
{
	struct cgward_cgroup_policy current;

	if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroup_id, &current) != 0 ||
	    current.policy_id < CGWARD_EXEC_POLICY_MIN)
		return policy_maps_bind_cgroup(maps, cgroup_id, policy);
	if (!(policy->flags & CGWARD_POLICY_MANDATORY))
		return 0;
	current.mandatory_id = policy->policy_id;
	current.mandatory_dropped_caps = policy->dropped_caps;
	current.flags |= mandatory_reads(policy->flags); /* its hides and read roots hold too */
	return policy_maps_bind_cgroup(maps, cgroup_id, &current);
}

/* Network access that both a and b allow. */
static __u32 stricter_network(__u32 a, __u32 b)
{
	__u32 no_network = (a | b) & CGWARD_POLICY_NO_NETWORK;
	bool loopback_a = !(a & CGWARD_POLICY_NO_NETWORK) || (a & CGWARD_POLICY_ALLOW_LOOPBACK);
	bool loopback_b = !(b & CGWARD_POLICY_NO_NETWORK) || (b & CGWARD_POLICY_ALLOW_LOOPBACK);

	return no_network |
	       (no_network && loopback_a && loopback_b ? CGWARD_POLICY_ALLOW_LOOPBACK : 0);
}

int policy_maps_bind_exec_cgroup(const struct policy_maps *maps, __u64 cgroup_id, __u32 policy_id,
				 __u32 flags, __u64 dropped_caps)
{
	struct cgward_cgroup_policy inherited, policy = {.policy_id = policy_id,
							 .flags = flags,
							 .boundary_id = cgroup_id,
							 .dropped_caps = dropped_caps};

	if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroup_id, &inherited) == 0 &&
	    (inherited.flags & CGWARD_POLICY_MANDATORY)) {
		policy.mandatory_id = inherited.policy_id;
		/* Audit only when both only audit: a mandatory rule's denies stay denies. */
		policy.flags = (flags & inherited.flags & CGWARD_POLICY_AUDIT) |
			       (flags & (CGWARD_POLICY_JUDGE_READS | CGWARD_POLICY_READ_ROOTS)) |
			       ((flags | inherited.flags) & CGWARD_POLICY_NO_UNIX_OUTSIDE) |
			       mandatory_reads(inherited.flags) |
			       stricter_network(flags, inherited.flags);
		policy.mandatory_dropped_caps = inherited.dropped_caps;
	}
	return policy_maps_bind_cgroup(maps, cgroup_id, &policy);
}

void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id)
{
	bpf_map_delete_elem(maps->cgroup_policy_fd, &cgroup_id);
}

int policy_maps_get_binding(const struct policy_maps *maps, __u64 cgroup_id,
			    struct cgward_cgroup_policy *policy)
{
	if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroup_id, policy) != 0)
		return -errno;
	return 0;
}

int policy_maps_mark_started(const struct policy_maps *maps, __u64 cgroup_id)
{
	struct timespec now;
	__u64 boot_ns;

	clock_gettime(CLOCK_BOOTTIME, &now);
	boot_ns = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	if (bpf_map_update_elem(maps->container_started_fd, &cgroup_id, &boot_ns, BPF_NOEXIST) !=
		0 &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

/* Keys are collected before any is deleted: deleting while iterating a hash map restarts it. */
static int collect_keys(int fd, size_t key_size, void **keys, size_t *n)
{
	size_t cap = 0;
	char *buf = NULL, *prev = NULL;

	*n = 0;
	for (;;) {
		if (grow_array((void **)&buf, &cap, *n + 1, key_size)) {
			free(buf);
			return -ENOMEM;
		}
		prev = *n ? buf + (*n - 1) * key_size : NULL;
		if (bpf_map_get_next_key(fd, prev, buf + *n * key_size) != 0)
			break;
		(*n)++;
	}
	if (errno != ENOENT) {
		int ret = -errno;

		free(buf);
		return ret;
	}
	*keys = buf;
	return 0;
}

int policy_maps_visit(const struct policy_maps *maps,
		      void (*visit)(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg),
		      void *arg)
{
	__u64 *cgroups;
	struct cgward_root_key *roots;
	size_t n;
	int ret = collect_keys(maps->cgroup_policy_fd, sizeof(*cgroups), (void **)&cgroups, &n);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		struct cgward_cgroup_policy policy;

		if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroups[i], &policy) == 0)
			visit(cgroups[i], policy.policy_id, policy.flags, arg);
	}
	free(cgroups);
	ret = collect_keys(maps->write_roots_fd, sizeof(*roots), (void **)&roots, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		visit(0, roots[i].policy_id, 0, arg);
	free(roots);
	return 0;
}

/* A rule's roots and its name (the kernel counts its verdicts under it), or neither. */
static int put_rule(const struct policy_maps *maps, __u32 policy_id, const struct policy_rule *rule)
{
	int ret = policy_maps_put_info(maps, policy_id, rule->name);

	if (ret == 0)
		ret = policy_maps_put_roots(maps, policy_id, rule->roots, rule->n_roots);
	if (ret)
		policy_maps_delete_info(maps, policy_id);
	return ret;
}

/* Removes the rules a failed policy_maps_put_rules put in. */
static void delete_rules(const struct policy_maps *maps, const struct policy_set *set,
			 __u32 first_id, size_t n_rules)
{
	for (size_t i = 0; i < n_rules; i++) {
		policy_maps_delete_roots(maps, first_id + (__u32)i, set->rules[i].roots,
					 set->rules[i].n_roots);
		policy_maps_delete_info(maps, first_id + (__u32)i);
	}
}

int policy_maps_put_rules(const struct policy_maps *maps, const struct policy_set *set,
			  __u32 first_id, const char *unresolved_name)
{
	size_t put = 0; /* a rule that fails removes what it put in itself */
	int ret = 0;

	while (ret == 0 && put < set->n_rules) {
		ret = put_rule(maps, first_id + (__u32)put, &set->rules[put]);
		put += ret == 0;
	}
	/* Named, without roots: what a pod's unresolved containers are bound to. */
	if (ret == 0)
		ret = policy_maps_put_info(maps, first_id + (__u32)set->n_rules, unresolved_name);
	if (ret)
		delete_rules(maps, set, first_id, put);
	return ret;
}

static void note_highest(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg)
{
	__u32 *highest = arg;

	(void)cgroup_id;
	(void)flags;
	if (policy_id > *highest && policy_id < CGWARD_EXEC_POLICY_MIN)
		*highest = policy_id;
}

__u32 policy_maps_highest_id(const struct policy_maps *maps)
{
	__u32 highest = 0;

	policy_maps_visit(maps, note_highest, &highest);
	return highest;
}

/* An agent policy id other than those in [first, end). */
static bool retired(__u32 policy_id, __u32 first, __u32 end)
{
	return policy_id < CGWARD_EXEC_POLICY_MIN && (policy_id < first || policy_id >= end);
}

int policy_maps_retire(const struct policy_maps *maps, __u32 first, __u32 end)
{
	__u64 *cgroups;
	struct cgward_root_key *roots;
	__u32 *ids;
	size_t n;
	int ret = collect_keys(maps->cgroup_policy_fd, sizeof(*cgroups), (void **)&cgroups, &n);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		struct cgward_cgroup_policy policy;

		if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroups[i], &policy) == 0 &&
		    retired(policy.policy_id, first, end))
			bpf_map_delete_elem(maps->cgroup_policy_fd, &cgroups[i]);
	}
	free(cgroups);
	ret = collect_keys(maps->write_roots_fd, sizeof(*roots), (void **)&roots, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (retired(roots[i].policy_id, first, end))
			bpf_map_delete_elem(maps->write_roots_fd, &roots[i]);
	}
	free(roots);
	ret = collect_keys(maps->policy_info_fd, sizeof(*ids), (void **)&ids, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (retired(ids[i], first, end))
			policy_maps_delete_info(maps, ids[i]);
	}
	free(ids);
	return 0;
}

int policy_maps_claim_exec_id(const struct policy_maps *maps, const char *name, __u32 owner_pid,
			      __u32 *policy_id)
{
	struct cgward_policy_info info = {.owner_pid = owner_pid};
	const __u32 span = 0xffffffffU - CGWARD_EXEC_POLICY_MIN;
	__u32 start;

	snprintf(info.name, sizeof(info.name), "%s", name);
	/* A random start: concurrent runs rarely try the same ids. */
	if (getrandom(&start, sizeof(start), 0) != sizeof(start))
		start = owner_pid;
	for (__u32 i = 0; i < CGWARD_EXEC_MAX; i++) {
		__u32 id = CGWARD_EXEC_POLICY_MIN + (start + i) % span;

		if (bpf_map_update_elem(maps->policy_info_fd, &id, &info, BPF_NOEXIST) == 0) {
			*policy_id = id;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -ENOSPC;
}

/* Rings parked at most: 8 MiB of locked memory, enough for a caller's steady stream of runs. */
#define CGWARD_PARKED_MAX 32

static void parked_name(char *name, size_t size, uid_t uid)
{
	snprintf(name, size, "%s%u", CGWARD_PARKED_PREFIX, (unsigned int)uid);
}

static bool is_parked(const struct cgward_policy_info *info)
{
	return info->owner_pid == 0 &&
	       strncmp(info->name, CGWARD_PARKED_PREFIX, strlen(CGWARD_PARKED_PREFIX)) == 0;
}

/*
 * The ring parked under id, made the caller's: deleting the parked entry is
 * the claim (one deleter succeeds), creating its own takes the id. *ring_fd
 * is -1 if the ring has gone meanwhile.
 */
static int take_parked(const struct policy_maps *maps, __u32 id,
		       const struct cgward_policy_info *parked,
		       const struct cgward_policy_info *info, int *ring_fd)
{
	if (bpf_map_delete_elem(maps->policy_info_fd, &id) ||
	    bpf_map_update_elem(maps->policy_info_fd, &id, info, BPF_NOEXIST))
		return -EBUSY; /* another run took it first */
	*ring_fd = bpf_map_get_fd_by_id(parked->parked_ring);
	return 0;
}

int policy_maps_claim_exec(const struct policy_maps *maps, const char *name, __u32 owner_pid,
			   uid_t uid, __u32 *policy_id, int *ring_fd)
{
	struct cgward_policy_info info = {.owner_pid = owner_pid}, parked;
	char wanted[CGWARD_POLICY_NAME_LEN];
	__u32 *ids;
	size_t n;

	*ring_fd = -1;
	snprintf(info.name, sizeof(info.name), "%s", name);
	parked_name(wanted, sizeof(wanted), uid);
	if (collect_keys(maps->policy_info_fd, sizeof(*ids), (void **)&ids, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (ids[i] >= CGWARD_EXEC_POLICY_MIN &&
			    policy_maps_get_info(maps, ids[i], &parked) == 0 &&
			    is_parked(&parked) && strcmp(parked.name, wanted) == 0 &&
			    take_parked(maps, ids[i], &parked, &info, ring_fd) == 0) {
				*policy_id = ids[i];
				free(ids);
				return 0;
			}
		}
		free(ids);
	}
	return policy_maps_claim_exec_id(maps, name, owner_pid, policy_id);
}

int policy_maps_put_exec_ring(const struct policy_maps *maps, __u32 policy_id, int ring_fd)
{
	if (bpf_map_update_elem(maps->exec_events_fd, &policy_id, &ring_fd, BPF_NOEXIST) != 0)
		return -errno;
	return 0;
}

/* Every root of policy_id, for a policy whose roots are not known. */
static void delete_roots_of(const struct policy_maps *maps, __u32 policy_id)
{
	struct cgward_root_key *keys;
	size_t n;

	if (collect_keys(maps->write_roots_fd, sizeof(*keys), (void **)&keys, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (keys[i].policy_id == policy_id)
			bpf_map_delete_elem(maps->write_roots_fd, &keys[i]);
	}
	free(keys);
}

/* Those given, or when roots is NULL every root of policy_id. */
static void delete_exec_roots(const struct policy_maps *maps, __u32 policy_id,
			      const struct root_spec *roots, size_t n_roots)
{
	if (roots)
		policy_maps_delete_roots(maps, policy_id, roots, n_roots);
	else
		delete_roots_of(maps, policy_id);
}

void policy_maps_delete_exec(const struct policy_maps *maps, __u32 policy_id,
			     const struct root_spec *roots, size_t n_roots)
{
	delete_exec_roots(maps, policy_id, roots, n_roots);
	bpf_map_delete_elem(maps->exec_events_fd, &policy_id);
	policy_maps_delete_info(maps, policy_id);
}

static size_t count_parked(const struct policy_maps *maps)
{
	struct cgward_policy_info info;
	size_t n, parked = 0;
	__u32 *ids;

	if (collect_keys(maps->policy_info_fd, sizeof(*ids), (void **)&ids, &n))
		return CGWARD_PARKED_MAX;
	for (size_t i = 0; i < n; i++)
		parked += ids[i] >= CGWARD_EXEC_POLICY_MIN &&
			  policy_maps_get_info(maps, ids[i], &info) == 0 && is_parked(&info);
	free(ids);
	return parked;
}

void policy_maps_park_exec(const struct policy_maps *maps, __u32 policy_id,
			   const struct root_spec *roots, size_t n_roots, uid_t uid, int ring_fd)
{
	struct cgward_policy_info parked = {0};
	struct bpf_map_info ring = {0};
	__u32 len = sizeof(ring);

	if (count_parked(maps) >= CGWARD_PARKED_MAX ||
	    bpf_obj_get_info_by_fd(ring_fd, &ring, &len)) {
		policy_maps_delete_exec(maps, policy_id, roots, n_roots);
		return;
	}
	delete_exec_roots(maps, policy_id, roots, n_roots);
	parked.parked_ring = ring.id;
	parked_name(parked.name, sizeof(parked.name), uid);
	if (bpf_map_update_elem(maps->policy_info_fd, &policy_id, &parked, BPF_EXIST))
		policy_maps_delete_exec(maps, policy_id, NULL, 0);
}

static bool bound_to(const __u32 *bound, size_t n, __u32 policy_id)
{
	for (size_t i = 0; i < n; i++) {
		if (bound[i] == policy_id)
			return true;
	}
	return false;
}

/* The policy ids cgroups are bound to, mandatory ones included. */
static int bound_ids(const struct policy_maps *maps, __u32 **ids, size_t *n)
{
	__u64 *cgroups = NULL;
	size_t n_cgroups;
	int ret =
	    collect_keys(maps->cgroup_policy_fd, sizeof(*cgroups), (void **)&cgroups, &n_cgroups);

	*n = 0;
	*ids = ret ? NULL : calloc(2 * n_cgroups + 1, sizeof(**ids));
	for (size_t i = 0; *ids && i < n_cgroups; i++) {
		struct cgward_cgroup_policy policy;

		if (bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroups[i], &policy) != 0)
			continue;
		(*ids)[(*n)++] = policy.policy_id;
		if (policy.mandatory_id)
			(*ids)[(*n)++] = policy.mandatory_id;
	}
	free(cgroups);
	return ret ? ret : *ids ? 0 : -ENOMEM;
}

int policy_maps_collect_execs(const struct policy_maps *maps, bool (*owner_alive)(__u32 pid),
			      void (*removed)(__u32 policy_id, void *arg), void *arg)
{
	__u32 *ids = NULL, *bound = NULL;
	size_t n, n_bound = 0;
	int count = 0, ret = collect_keys(maps->policy_info_fd, sizeof(*ids), (void **)&ids, &n);

	if (ret == 0)
		ret = bound_ids(maps, &bound, &n_bound);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		struct cgward_policy_info info;

		if (ids[i] < CGWARD_EXEC_POLICY_MIN || bound_to(bound, n_bound, ids[i]) ||
		    policy_maps_get_info(maps, ids[i], &info) || owner_alive(info.owner_pid) ||
		    is_parked(&info))
			continue;
		policy_maps_delete_exec(maps, ids[i], NULL, 0);
		removed(ids[i], arg);
		count++;
	}
	free(bound);
	free(ids);
	return ret ? ret : count;
}
