// SPDX-License-Identifier: GPL-2.0
/*
 * The one policy-to-maps path, on real BPF maps of the plane's shapes (map
 * creation needs root, not a BPF LSM kernel): exec ids, the intersection
 * with a mandatory rule, the agent leaving exec policies alone, and gc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <cmocka.h>

#include "cgward_abi.h"
#include "policy_maps.h"

#define EXEC_CGROUP  1001
#define AGENT_CGROUP 1002
#define AGENT_RULE   7

static int setup_maps(void **state)
{
	static struct policy_maps maps;
	LIBBPF_OPTS(bpf_map_create_opts, outer);
	int ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, CGWARD_EXEC_RING_SIZE, NULL);

	outer.inner_map_fd = ring;
	maps = (struct policy_maps){
	    .cgroup_policy_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(__u64),
					       sizeof(struct cgward_cgroup_policy), 64, NULL),
	    .write_roots_fd =
		bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(struct cgward_root_key),
			       sizeof(struct cgward_root_value), 64, NULL),
	    .policy_info_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(__u32),
					     sizeof(struct cgward_policy_info), 64, NULL),
	    .exec_events_fd = bpf_map_create(BPF_MAP_TYPE_HASH_OF_MAPS, NULL, sizeof(__u32),
					     sizeof(__u32), 64, &outer),
	    /* Inode storage needs BTF for its value: tags are tested in the kernel suite. */
	    .root_tags_fd = -1,
	    .container_started_fd = -1,
	};
	close(ring);
	if (maps.cgroup_policy_fd < 0 || maps.write_roots_fd < 0 || maps.policy_info_fd < 0 ||
	    maps.exec_events_fd < 0) {
		fprintf(stderr, "cannot create BPF maps (root needed): %s\n", strerror(errno));
		return -1;
	}
	*state = &maps;
	return 0;
}

static int teardown_maps(void **state)
{
	struct policy_maps *maps = *state;

	close(maps->cgroup_policy_fd);
	close(maps->write_roots_fd);
	close(maps->policy_info_fd);
	close(maps->exec_events_fd);
	return 0;
}

static const struct root_spec roots[] = {
    {.path = "/w", .dev = 8, .ino = 100, .access = CGWARD_ACCESS_WRITE},
    {.path = "/w/ro", .dev = 8, .ino = 101, .access = CGWARD_ACCESS_READ_ONLY},
};

static struct cgward_cgroup_policy binding(const struct policy_maps *maps, __u64 cgroup_id)
{
	struct cgward_cgroup_policy policy = {};

	assert_int_equal(bpf_map_lookup_elem(maps->cgroup_policy_fd, &cgroup_id, &policy), 0);
	return policy;
}

static bool has_root(const struct policy_maps *maps, __u32 policy_id, const struct root_spec *root)
{
	struct cgward_root_key key = {.policy_id = policy_id, .dev = root->dev, .ino = root->ino};
	struct cgward_root_value value;

	return bpf_map_lookup_elem(maps->write_roots_fd, &key, &value) == 0;
}

/* An exec run's policy: roots, ring buffer and cgroup, as exec installs it. */
static __u32 install_exec(const struct policy_maps *maps, __u32 owner, __u64 cgroup_id, __u32 flags)
{
	int ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, CGWARD_EXEC_RING_SIZE, NULL);
	__u32 id;

	assert_true(ring >= 0);
	assert_int_equal(policy_maps_claim_exec_id(maps, "exec", owner, &id), 0);
	assert_int_equal(policy_maps_put_exec_ring(maps, id, ring), 0);
	assert_int_equal(policy_maps_put_roots(maps, id, roots, 2), 0);
	assert_int_equal(policy_maps_bind_exec_cgroup(maps, cgroup_id, id, flags, 0), 0);
	close(ring); /* the outer map holds it */
	return id;
}

static void test_exec_ids_are_claimed_once_each(void **state)
{
	const struct policy_maps *maps = *state;
	__u32 ids[16];

	for (int i = 0; i < 16; i++) {
		assert_int_equal(policy_maps_claim_exec_id(maps, "exec", 1, &ids[i]), 0);
		assert_true(ids[i] >= CGWARD_EXEC_POLICY_MIN);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(ids[i], ids[j]);
	}
	for (int i = 0; i < 16; i++)
		policy_maps_delete_exec(maps, ids[i], NULL, 0);
}

static void test_exec_cgroup_keeps_a_mandatory_rule_beside_its_own(void **state)
{
	const struct policy_maps *maps = *state;
	struct cgward_cgroup_policy inherited = {
	    .policy_id = AGENT_RULE,
	    .flags = CGWARD_POLICY_MANDATORY | CGWARD_POLICY_NO_NETWORK | CGWARD_POLICY_AUDIT,
	    .boundary_id = 5};
	struct cgward_cgroup_policy bound;
	__u32 id;

	/* What the kernel's cgroup_mkdir gave the new cgroup from its parent. */
	assert_int_equal(policy_maps_bind_cgroup(maps, EXEC_CGROUP, &inherited), 0);
	id = install_exec(maps, 1, EXEC_CGROUP,
			  CGWARD_POLICY_NO_NETWORK | CGWARD_POLICY_ALLOW_LOOPBACK);
	bound = binding(maps, EXEC_CGROUP);
	assert_int_equal(bound.policy_id, id);
	assert_int_equal(bound.mandatory_id, AGENT_RULE);
	assert_int_equal(bound.boundary_id, EXEC_CGROUP);
	/* The stricter holds: no loopback (the rule has none), no audit (the run denies). */
	assert_int_equal(bound.flags, CGWARD_POLICY_NO_NETWORK);
	/* The agent binding its rule again updates the mandatory id only. */
	inherited.policy_id = AGENT_RULE + 1;
	assert_int_equal(policy_maps_bind_rule(maps, EXEC_CGROUP, &inherited), 0);
	bound = binding(maps, EXEC_CGROUP);
	assert_int_equal(bound.policy_id, id);
	assert_int_equal(bound.mandatory_id, AGENT_RULE + 1);
	/* A non-mandatory rule gives way. */
	inherited.flags = 0;
	inherited.policy_id = AGENT_RULE + 2;
	assert_int_equal(policy_maps_bind_rule(maps, EXEC_CGROUP, &inherited), 0);
	assert_int_equal(binding(maps, EXEC_CGROUP).mandatory_id, AGENT_RULE + 1);
	policy_maps_unbind_cgroup(maps, EXEC_CGROUP);
	policy_maps_delete_exec(maps, id, roots, 2);
	assert_false(has_root(maps, id, &roots[0]));
}

static void test_an_exec_cgroup_without_a_mandatory_rule_has_its_policy_alone(void **state)
{
	const struct policy_maps *maps = *state;
	__u32 id = install_exec(maps, 1, EXEC_CGROUP, CGWARD_POLICY_AUDIT);
	struct cgward_cgroup_policy bound = binding(maps, EXEC_CGROUP);

	assert_int_equal(bound.policy_id, id);
	assert_int_equal(bound.mandatory_id, 0);
	assert_int_equal(bound.flags, CGWARD_POLICY_AUDIT);
	policy_maps_unbind_cgroup(maps, EXEC_CGROUP);
	policy_maps_delete_exec(maps, id, roots, 2);
}

static void test_agent_retire_and_highest_id_leave_exec_policies_alone(void **state)
{
	const struct policy_maps *maps = *state;
	struct cgward_cgroup_policy rule = {.policy_id = AGENT_RULE, .boundary_id = AGENT_CGROUP};
	__u32 id = install_exec(maps, 1, EXEC_CGROUP, 0);

	assert_int_equal(policy_maps_bind_cgroup(maps, AGENT_CGROUP, &rule), 0);
	assert_int_equal(policy_maps_put_roots(maps, AGENT_RULE, roots, 1), 0);
	assert_int_equal(policy_maps_highest_id(maps), AGENT_RULE);
	/* A reload that installed ids 8 and 9 retires 7, and nothing of the run's. */
	assert_int_equal(policy_maps_retire(maps, AGENT_RULE + 1, AGENT_RULE + 3), 0);
	assert_false(has_root(maps, AGENT_RULE, &roots[0]));
	assert_true(has_root(maps, id, &roots[0]));
	assert_int_equal(binding(maps, EXEC_CGROUP).policy_id, id);
	policy_maps_unbind_cgroup(maps, EXEC_CGROUP);
	policy_maps_delete_exec(maps, id, roots, 2);
}

static bool dead_unless_1(__u32 pid)
{
	return pid == 1;
}

static void count_removed(__u32 policy_id, void *arg)
{
	(void)policy_id;
	(*(int *)arg)++;
}

static void test_gc_removes_only_unbound_policies_of_dead_owners(void **state)
{
	const struct policy_maps *maps = *state;
	__u32 alive = install_exec(maps, 1, EXEC_CGROUP, 0);
	__u32 running = install_exec(maps, 99999, EXEC_CGROUP + 1, 0);
	__u32 gone = install_exec(maps, 99999, EXEC_CGROUP + 2, 0);
	struct cgward_policy_info info;
	int removed = 0;

	policy_maps_unbind_cgroup(maps, EXEC_CGROUP);	  /* its cgward lives on */
	policy_maps_unbind_cgroup(maps, EXEC_CGROUP + 2); /* cgroup gone, cgward killed */
	assert_int_equal(policy_maps_collect_execs(maps, dead_unless_1, count_removed, &removed),
			 1);
	assert_int_equal(removed, 1);
	assert_int_equal(policy_maps_get_info(maps, gone, &info), -ENOENT);
	assert_false(has_root(maps, gone, &roots[1]));
	assert_int_equal(bpf_map_lookup_elem(maps->exec_events_fd, &gone, &removed), -ENOENT);
	/* Still bound (its command runs on, confined), or still owned: kept. */
	assert_int_equal(policy_maps_get_info(maps, running, &info), 0);
	assert_true(has_root(maps, running, &roots[0]));
	assert_int_equal(policy_maps_get_info(maps, alive, &info), 0);
	policy_maps_unbind_cgroup(maps, EXEC_CGROUP + 1);
	policy_maps_delete_exec(maps, running, roots, 2);
	policy_maps_delete_exec(maps, alive, roots, 2);
}

static __u32 root_flags(const struct policy_maps *maps, __u32 policy_id,
			const struct root_spec *root)
{
	struct cgward_root_key key = {.policy_id = policy_id, .dev = root->dev, .ino = root->ino};
	struct cgward_root_value value;

	assert_int_equal(bpf_map_lookup_elem(maps->write_roots_fd, &key, &value), 0);
	return value.flags;
}

/* The walk cache trusts a write root only where no read-only root may lie beneath it. */
static void test_write_roots_of_a_policy_with_read_only_roots_say_so(void **state)
{
	const struct policy_maps *maps = *state;

	assert_int_equal(policy_maps_put_roots(maps, AGENT_RULE, roots, 2), 0);
	assert_int_equal(root_flags(maps, AGENT_RULE, &roots[0]), CGWARD_ROOT_EXCEPTIONS);
	assert_int_equal(root_flags(maps, AGENT_RULE, &roots[1]), 0);
	assert_int_equal(policy_maps_put_roots(maps, AGENT_RULE + 1, roots, 1), 0);
	assert_int_equal(root_flags(maps, AGENT_RULE + 1, &roots[0]), 0);
	policy_maps_delete_roots(maps, AGENT_RULE, roots, 2);
	policy_maps_delete_roots(maps, AGENT_RULE + 1, roots, 1);
}

#define MAPS_TEST(test) cmocka_unit_test_setup_teardown(test, setup_maps, teardown_maps)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    MAPS_TEST(test_exec_ids_are_claimed_once_each),
	    MAPS_TEST(test_exec_cgroup_keeps_a_mandatory_rule_beside_its_own),
	    MAPS_TEST(test_an_exec_cgroup_without_a_mandatory_rule_has_its_policy_alone),
	    MAPS_TEST(test_agent_retire_and_highest_id_leave_exec_policies_alone),
	    MAPS_TEST(test_gc_removes_only_unbound_policies_of_dead_owners),
	    MAPS_TEST(test_write_roots_of_a_policy_with_read_only_roots_say_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
