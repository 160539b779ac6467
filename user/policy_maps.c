// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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

int policy_maps_bind_cgroup(const struct policy_maps *maps, __u64 cgroup_id, __u32 policy_id,
			    __u32 flags)
{
	struct cgward_cgroup_policy policy = {.policy_id = policy_id, .flags = flags};

	if (bpf_map_update_elem(maps->cgroup_policy_fd, &cgroup_id, &policy, BPF_ANY) != 0)
		return -errno;
	return 0;
}

void policy_maps_unbind_cgroup(const struct policy_maps *maps, __u64 cgroup_id)
{
	bpf_map_delete_elem(maps->cgroup_policy_fd, &cgroup_id);
}
