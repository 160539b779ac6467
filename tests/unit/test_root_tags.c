// SPDX-License-Identifier: GPL-2.0
/*
 * How policy_maps_put_roots takes the kernel's answers when it tags a root's
 * directory, with bpf_map_update_elem mocked (inode storage needs a BPF LSM
 * kernel; the suite tests real tags): the EAGAIN of two writers racing to
 * create a directory's first storage is tried again, a bounded number of
 * times; EEXIST is a tag already there; any other error is returned.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/bpf.h>
#include <cmocka.h>

#include "cgward_abi.h"
#include "policy_maps.h"

#define ROOT_TAGS_FD   100
#define WRITE_ROOTS_FD 101

static const struct policy_maps maps = {
    .cgroup_policy_fd = -1,
    .write_roots_fd = WRITE_ROOTS_FD,
    .policy_info_fd = -1,
    .exec_events_fd = -1,
    .root_tags_fd = ROOT_TAGS_FD,
    .container_started_fd = -1,
};

static const struct root_spec root = {
    .path = "/w", .access = CGWARD_ACCESS_WRITE, .dev = 8, .ino = 100, .fd = 3};

/* Tags answer what the test queued; the roots map takes every update. */
int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	int err;

	(void)key;
	(void)value;
	(void)flags;
	if (fd != ROOT_TAGS_FD)
		return 0;
	err = mock_type(int);
	errno = err;
	return -err;
}

static void test_a_racing_first_tag_is_tried_again(void **state)
{
	(void)state;
	will_return(bpf_map_update_elem, EAGAIN);
	will_return(bpf_map_update_elem, 0);
	assert_int_equal(policy_maps_put_roots(&maps, 1, &root, 1), 0);
}

static void test_a_tag_already_there_is_no_error(void **state)
{
	(void)state;
	will_return(bpf_map_update_elem, EEXIST);
	assert_int_equal(policy_maps_put_roots(&maps, 1, &root, 1), 0);
}

static void test_endless_races_give_up(void **state)
{
	(void)state;
	will_return_count(bpf_map_update_elem, EAGAIN, 3);
	assert_int_equal(policy_maps_put_roots(&maps, 1, &root, 1), -EAGAIN);
}

static void test_another_error_is_returned_at_once(void **state)
{
	(void)state;
	will_return(bpf_map_update_elem, ENOMEM);
	assert_int_equal(policy_maps_put_roots(&maps, 1, &root, 1), -ENOMEM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_racing_first_tag_is_tried_again),
	    cmocka_unit_test(test_a_tag_already_there_is_no_error),
	    cmocka_unit_test(test_endless_races_give_up),
	    cmocka_unit_test(test_another_error_is_returned_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
