// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "selector.h"

#define POD_UID	     "0f3c2a1e-9b7d-4c5e-8a6f-112233445566"
#define CONTAINER_ID "4bd2c7f1e8a9b0c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b"

static void assert_matches(const char *glob, const char *path)
{
	if (!selector_match(glob, path))
		fail_msg("'%s' should match '%s'", glob, path);
}

static void assert_no_match(const char *glob, const char *path)
{
	if (selector_match(glob, path))
		fail_msg("'%s' should not match '%s'", glob, path);
}

static void assert_invalid(const char *glob, const char *why)
{
	char err[128] = "";

	assert_int_equal(selector_validate(glob, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, why);
}

static void test_explicit_path(void **state)
{
	(void)state;
	assert_matches("/build/agent-1", "/build/agent-1");
	assert_no_match("/build/agent-1", "/build/agent-10");
	assert_no_match("/build/agent-1", "/build");
	assert_no_match("/build/agent-1", "/build/agent-1/child");
	assert_matches("/", "/");
	assert_no_match("/", "/a");
}

static void test_star_stays_in_one_component(void **state)
{
	(void)state;
	assert_matches("/ci.slice/job-*.scope", "/ci.slice/job-42.scope");
	assert_matches("/ci.slice/job-*.scope", "/ci.slice/job-.scope");
	assert_no_match("/ci.slice/job-*.scope", "/ci.slice/job-1/x.scope");
	assert_no_match("/a*", "/ab/c");
	assert_matches("/*", "/anything");
	assert_no_match("/*", "/");
	assert_no_match("/*", "/a/b");
	assert_matches("/*a*b*", "/xxaxxbxx");
	assert_no_match("/*a*b*", "/xxbxxaxx");
}

static void test_question_mark(void **state)
{
	(void)state;
	assert_matches("/job-?", "/job-1");
	assert_no_match("/job-?", "/job-12");
	assert_no_match("/job-?", "/job-");
	assert_no_match("/a?b", "/a/b");
}

static void test_brackets(void **state)
{
	(void)state;
	assert_matches("/[a-c]", "/b");
	assert_no_match("/[a-c]", "/d");
	assert_matches("/[!a]", "/b");
	assert_no_match("/[!a]", "/a");
	assert_matches("/[^a]x", "/bx");
	assert_matches("/[]x]", "/]");
	assert_matches("/[a-]", "/-");
	assert_matches("/job-[0-9][0-9]", "/job-07");
	assert_no_match("/job-[0-9][0-9]", "/job-7");
	assert_no_match("/[!x]", "/");
}

static void test_escape(void **state)
{
	(void)state;
	assert_matches("/a\\*b", "/a*b");
	assert_no_match("/a\\*b", "/axb");
	assert_matches("/\\[x]", "/[x]");
}

static void test_globstar(void **state)
{
	(void)state;
	assert_matches("/a/**", "/a");
	assert_matches("/a/**", "/a/b");
	assert_matches("/a/**", "/a/b/c/d");
	assert_no_match("/a/**", "/ab");
	assert_no_match("/a/**", "/b/a");

	assert_matches("/**/x", "/x");
	assert_matches("/**/x", "/a/x");
	assert_matches("/**/x", "/a/b/x");
	assert_no_match("/**/x", "/a/x/y");
	assert_no_match("/**/x", "/");

	assert_matches("/a/**/b", "/a/b");
	assert_matches("/a/**/b", "/a/x/y/b");
	assert_matches("/a/**/b", "/a/b/b");
	assert_no_match("/a/**/b", "/a/x/y/c");
	assert_no_match("/a/**/b", "/a");

	assert_matches("/**", "/");
	assert_matches("/**", "/a/b");
	assert_matches("/**/**", "/a");
	assert_matches("/kubepods.slice/**/cri-containerd-*.scope",
		       "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
		       "cri-containerd-abc.scope");
	assert_no_match("/kubepods.slice/**/cri-containerd-*.scope",
			"/kubepods.slice/cri-containerd-abc.scope/child");
}

/* Patterns that would take exponential time with naive recursion finish at once. */
static void test_no_exponential_backtracking(void **state)
{
	char glob[4096], path[4096];
	size_t g = 0, p = 0;

	(void)state;
	for (int i = 0; i < 200; i++) {
		g += snprintf(glob + g, sizeof(glob) - g, "/**/a");
		p += snprintf(path + p, sizeof(path) - p, "/a");
	}
	snprintf(path + p, sizeof(path) - p, "/b");
	assert_no_match(glob, path);

	g = snprintf(glob, sizeof(glob), "/");
	for (int i = 0; i < 100; i++)
		g += snprintf(glob + g, sizeof(glob) - g, "*a");
	snprintf(glob + g, sizeof(glob) - g, "b");
	memset(path, 'a', 3000);
	path[0] = '/';
	path[3000] = '\0';
	assert_no_match(glob, path);
}

static void test_validate_accepts(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(selector_validate("/", err, sizeof(err)), 0);
	assert_int_equal(selector_validate("/**", err, sizeof(err)), 0);
	assert_int_equal(selector_validate("/a/**/b/*.scope", err, sizeof(err)), 0);
	assert_int_equal(selector_validate("/[]a]/[!x-z]?", err, sizeof(err)), 0);
	assert_int_equal(selector_validate("/a\\*", err, sizeof(err)), 0);
}

static void test_validate_rejects(void **state)
{
	(void)state;
	assert_invalid("ci.slice/*", "must start with '/'");
	assert_invalid("", "must start with '/'");
	assert_invalid("/a//b", "empty path component");
	assert_invalid("/a/", "empty path component");
	assert_invalid("/a/***", "'***' is not a valid pattern");
	assert_invalid("/a***b", "'***' is not a valid pattern");
	assert_invalid("/a**", "'**' must be a whole path component");
	assert_invalid("/job-[0-9", "unbalanced '['");
	assert_invalid("/[]", "unbalanced '['");
	assert_invalid("/[z-a]", "reversed range 'z-a'");
	assert_invalid("/a\\", "trailing '\\'");
}

static void test_pod_uid(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(selector_validate_pod_uid(POD_UID, err, sizeof(err)), 0);
	assert_int_equal(
	    selector_validate_pod_uid("0123456789abcdef0123456789abcdef", err, sizeof(err)), 0);
	assert_int_equal(
	    selector_validate_pod_uid("0F3C2A1E-9B7D-4C5E-8A6F-112233445566", err, sizeof(err)),
	    -EINVAL);
	assert_int_equal(
	    selector_validate_pod_uid("0f3c2a1e-9b7d-4c5e-8a6f-11223344556", err, sizeof(err)),
	    -EINVAL);
	assert_int_equal(
	    selector_validate_pod_uid("0f3c2a1e_9b7d_4c5e_8a6f_112233445566", err, sizeof(err)),
	    -EINVAL);
	assert_int_equal(selector_validate_pod_uid("", err, sizeof(err)), -EINVAL);
}

static void test_container_id(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(selector_validate_container_id(CONTAINER_ID, err, sizeof(err)), 0);
	assert_int_equal(selector_validate_container_id("4bd2c7f1", err, sizeof(err)), -EINVAL);
	assert_int_equal(selector_validate_container_id(CONTAINER_ID "0", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(selector_validate_container_id(
			     "4BD2C7F1E8A9B0C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B",
			     err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "not 64 lowercase hex digits");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_explicit_path),
	    cmocka_unit_test(test_star_stays_in_one_component),
	    cmocka_unit_test(test_question_mark),
	    cmocka_unit_test(test_brackets),
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_globstar),
	    cmocka_unit_test(test_no_exponential_backtracking),
	    cmocka_unit_test(test_validate_accepts),
	    cmocka_unit_test(test_validate_rejects),
	    cmocka_unit_test(test_pod_uid),
	    cmocka_unit_test(test_container_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
