// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "event_filter.h"

#define DENY_UNLINK                                                    \
	"{\"verdict\":\"deny\",\"op\":\"unlink\",\"path\":\"/etc/x\"," \
	"\"cgroup\":\"/ci.slice/job-1.scope\",\"policy\":\"ci\"}"
#define AUDIT_CREATE \
	"{\"verdict\":\"audit\",\"op\":\"create\",\"path\":\"/etc/y\",\"cgroup\":\"/dev.slice\"}"
#define LOST "{\"time\":\"2026-12-03T12:00:00Z\",\"op\":\"lost\",\"count\":3}"

static void test_no_filter_passes_every_object(void **state)
{
	const struct event_filter none = {};

	(void)state;
	assert_true(event_filter_match(&none, DENY_UNLINK));
	assert_true(event_filter_match(&none, AUDIT_CREATE));
}

static void test_each_filter_must_match(void **state)
{
	const struct event_filter unlink_in_ci = {.cgroup_glob = "/ci.slice/**", .op = "unlink"};
	const struct event_filter audit = {.verdict = "audit"};
	const struct event_filter create_in_ci = {.cgroup_glob = "/ci.slice/**", .op = "create"};

	(void)state;
	assert_true(event_filter_match(&unlink_in_ci, DENY_UNLINK));
	assert_false(event_filter_match(&unlink_in_ci, AUDIT_CREATE));
	assert_true(event_filter_match(&audit, AUDIT_CREATE));
	assert_false(event_filter_match(&audit, DENY_UNLINK));
	assert_false(event_filter_match(&create_in_ci, DENY_UNLINK));
}

static void test_cgroup_glob_is_a_selector_glob(void **state)
{
	const struct event_filter job = {.cgroup_glob = "/ci.slice/job-*.scope"};
	const struct event_filter slice = {.cgroup_glob = "/ci.slice/*"};
	const struct event_filter other = {.cgroup_glob = "/ci.slice/job-2*"};

	(void)state;
	assert_true(event_filter_match(&job, DENY_UNLINK));
	assert_true(event_filter_match(&slice, DENY_UNLINK));
	assert_false(event_filter_match(&other, DENY_UNLINK));
	/* An event without a cgroup path cannot match a cgroup filter. */
	assert_false(event_filter_match(&job, "{\"op\":\"unlink\"}"));
}

static void test_lost_always_passes(void **state)
{
	const struct event_filter strict = {
	    .cgroup_glob = "/nothing", .op = "unlink", .verdict = "audit"};

	(void)state;
	assert_true(event_filter_match(&strict, LOST));
}

static void test_malformed_lines_never_pass(void **state)
{
	const struct event_filter none = {};

	(void)state;
	assert_false(event_filter_match(&none, "{\"op\":"));
	assert_false(event_filter_match(&none, "[\"op\",\"lost\"]"));
	assert_false(event_filter_match(&none, "\"lost\""));
	assert_false(event_filter_match(&none, ""));
}

static void test_validate(void **state)
{
	const struct event_filter good = {.cgroup_glob = "/a/**", .op = "lost", .verdict = "deny"};
	const struct event_filter bad_glob = {.cgroup_glob = "a/*"};
	const struct event_filter bad_op = {.op = "write"};
	const struct event_filter unknown_op = {.op = "unknown"};
	const struct event_filter bad_verdict = {.verdict = "allow"};
	const struct event_filter limit = {.op = "limit"};
	const struct event_filter request = {.op = "exec_request"};
	char err[256] = "";

	(void)state;
	assert_int_equal(event_filter_validate(&good, err, sizeof(err)), 0);
	assert_int_equal(event_filter_validate(&limit, err, sizeof(err)), 0);
	assert_int_equal(event_filter_validate(&request, err, sizeof(err)), 0);
	assert_int_equal(event_filter_validate(&bad_glob, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--cgroup 'a/*'"));
	assert_int_equal(event_filter_validate(&bad_op, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--op 'write': not an operation events have");
	assert_int_equal(event_filter_validate(&unknown_op, err, sizeof(err)), -EINVAL);
	assert_int_equal(event_filter_validate(&bad_verdict, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--verdict 'allow': deny or audit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_filter_passes_every_object),
	    cmocka_unit_test(test_each_filter_must_match),
	    cmocka_unit_test(test_cgroup_glob_is_a_selector_glob),
	    cmocka_unit_test(test_lost_always_passes),
	    cmocka_unit_test(test_malformed_lines_never_pass),
	    cmocka_unit_test(test_validate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
