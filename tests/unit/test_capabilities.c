// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capabilities.h"

#define BIT(cap) (1ULL << (cap))

static void test_names_in_any_case_with_or_without_the_prefix(void **state)
{
	unsigned int cap = 99;

	(void)state;
	assert_int_equal(capability_parse("CAP_SYS_TIME", &cap), 0);
	assert_int_equal(cap, 25);
	assert_int_equal(capability_parse("sys_time", &cap), 0);
	assert_int_equal(cap, 25);
	assert_int_equal(capability_parse("Cap_Chown", &cap), 0);
	assert_int_equal(cap, 0);
	assert_int_equal(capability_parse("checkpoint_restore", &cap), 0);
	assert_int_equal(cap, 40);
	assert_string_equal(capability_name(25), "CAP_SYS_TIME");
	assert_null(capability_name(CAPABILITY_COUNT));
}

static void test_unknown_names_are_rejected(void **state)
{
	static const char *const bad[] = {"", "CAP_", "FOO", "25", "SYS_TIME ", "CAP_CAP_CHOWN"};
	unsigned int cap;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(capability_parse(bad[i], &cap), -EINVAL);
}

/* Docker's 14 and DAC_READ_SEARCH: every other capability, known or not, is dropped. */
static void test_the_default_set(void **state)
{
	const __u64 kept = BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(7) |
			   BIT(8) | BIT(10) | BIT(13) | BIT(18) | BIT(27) | BIT(29) | BIT(31);

	(void)state;
	assert_int_equal(capabilities_default_dropped(), ~kept);
}

static void test_changes_apply_in_order(void **state)
{
	__u64 dropped = capabilities_default_dropped();
	char err[128] = "";

	(void)state;
	assert_int_equal(
	    capabilities_change(&dropped, true, "SYS_NICE", "--cap-add", err, sizeof(err)), 0);
	assert_false(dropped & BIT(23));
	assert_int_equal(
	    capabilities_change(&dropped, false, "cap_chown", "--cap-drop", err, sizeof(err)), 0);
	assert_true(dropped & BIT(0));
	assert_int_equal(
	    capabilities_change(&dropped, false, "all", "--cap-drop", err, sizeof(err)), 0);
	assert_int_equal(dropped, CAPABILITIES_ALL_DROPPED);
	assert_int_equal(
	    capabilities_change(&dropped, true, "NET_RAW", "--cap-add", err, sizeof(err)), 0);
	assert_int_equal(dropped, ~BIT(13));
	assert_int_equal(capabilities_change(&dropped, true, "ALL", "--cap-add", err, sizeof(err)),
			 0);
	assert_int_equal(dropped, CAPABILITIES_NONE_DROPPED);
	assert_string_equal(err, "");
	assert_int_equal(capabilities_change(&dropped, true, "FOO", "--cap-add", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--cap-add: unknown capability 'FOO'");
	assert_int_equal(dropped, CAPABILITIES_NONE_DROPPED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_in_any_case_with_or_without_the_prefix),
	    cmocka_unit_test(test_unknown_names_are_rejected),
	    cmocka_unit_test(test_the_default_set),
	    cmocka_unit_test(test_changes_apply_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
