// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>

#include "cgward_abi.h"
#include "policy_maps.h"

static struct cgward_root_key root_key(__u32 policy_id, const struct root_spec *root)
{
	return (struct cgward_root_key){.policy_id = policy_id, .dev = root->dev, .ino = root->ino};
}

int policy_maps_put_roots(const struct policy_maps *maps, __u32 policy_id,
			  const struct root_spec *roots, size_t n_roots)
{
	for (size_t i = 0; i < n_roots; i++) {
		struct cgward_root_key key = root_key(policy_id, &roots[i]);
		struct cgward_root_value value = {.access = roots[i].access};

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

void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id)
{
	bpf_map_delete_elem(maps->cgroup_policy_fd, &cgroup_id);
}

/* Keys are collected before any is deleted: deleting while iterating a hash map restarts it. */
static int collect_keys(int fd, size_t key_size, void **keys, size_t *n)
{
	size_t cap = 0;
	char *buf = NULL, *prev = NULL;

	*n = 0;
	for (;;) {
		if (*n == cap) {
			char *grown = realloc(buf, (cap = cap ? 2 * cap : 256) * key_size);

			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		prev = *n ? buf + (*n - 1) * key_size : NULL;
		if (bpf_map_get_next_key(fd, prev, buf + *n * key_size) != 0)
			break;
		(*n)++;
	}
	*keys = buf;
	return errno == ENOENT ? 0 : -errno;
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

static void note_highest(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg)
{
	__u32 *highest = arg;

	(void)cgroup_id;
	(void)flags;
	if (policy_id > *highest)
		*highest = policy_id;
}

__u32 policy_maps_highest_id(const struct policy_maps *maps)
{
	__u32 highest = 0;

	policy_maps_visit(maps, note_highest, &highest);
	return highest;
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
		    (policy.policy_id < first || policy.policy_id >= end))
			bpf_map_delete_elem(maps->cgroup_policy_fd, &cgroups[i]);
	}
	free(cgroups);
	ret = collect_keys(maps->write_roots_fd, sizeof(*roots), (void **)&roots, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (roots[i].policy_id < first || roots[i].policy_id >= end)
			bpf_map_delete_elem(maps->write_roots_fd, &roots[i]);
	}
	free(roots);
	ret = collect_keys(maps->policy_info_fd, sizeof(*ids), (void **)&ids, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (ids[i] < first || ids[i] >= end)
			policy_maps_delete_info(maps, ids[i]);
	}
	free(ids);
	return 0;
}
