// SPDX-License-Identifier: GPL-2.0
/* The system set on this host: what exists of it, once, and never inside a hidden path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cgward_abi.h"
#include "read_system.h"

static const struct root_spec *find(const struct root_spec *roots, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(roots[i].path, path) == 0)
			return &roots[i];
	}
	return NULL;
}

static void close_all(struct root_spec *roots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		root_close(&roots[i]);
}

/* Readable entries for what exists, none for a symbolic link (a merged /usr's /bin). */
static void test_adds_what_exists_as_readable(void **state)
{
	struct root_spec roots[READ_SYSTEM_MAX];
	char err[256] = "";
	struct stat st;
	size_t n = 0;

	(void)state;
	assert_int_equal(read_system_add(roots, &n, READ_SYSTEM_MAX, err, sizeof(err)), 0);
	assert_non_null(find(roots, n, "/usr"));
	assert_non_null(find(roots, n, "/dev/null"));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(roots[i].access, CGWARD_ACCESS_READ);
	if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode))
		assert_null(find(roots, n, "/bin"));
	close_all(roots, n);
}

/* A path the run names already keeps its own entry; one it hides is not made readable. */
static void test_leaves_out_the_runs_own_and_its_hidden_paths(void **state)
{
	struct root_spec roots[2 + READ_SYSTEM_MAX];
	char err[256] = "";
	size_t n = 2;

	(void)state;
	assert_int_equal(root_resolve("/usr", CGWARD_ACCESS_WRITE, &roots[0], err, sizeof(err)), 0);
	assert_int_equal(root_resolve("/etc", CGWARD_ACCESS_HIDDEN, &roots[1], err, sizeof(err)),
			 0);
	assert_int_equal(read_system_add(roots, &n, 2 + READ_SYSTEM_MAX, err, sizeof(err)), 0);
	assert_int_equal(find(roots, n, "/usr")->access, CGWARD_ACCESS_WRITE);
	assert_int_equal(find(roots, n, "/etc")->access, CGWARD_ACCESS_HIDDEN);
	for (size_t i = 2; i < n; i++) {
		assert_string_not_equal(roots[i].path, "/usr");
		assert_string_not_equal(roots[i].path, "/etc");
	}
	close_all(roots, n);
}

static void test_too_many_roots(void **state)
{
	struct root_spec roots[1];
	char err[256] = "";
	size_t n = 0;

	(void)state;
	assert_int_equal(read_system_add(roots, &n, 1, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "more than 1 roots"));
	close_all(roots, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adds_what_exists_as_readable),
	    cmocka_unit_test(test_leaves_out_the_runs_own_and_its_hidden_paths),
	    cmocka_unit_test(test_too_many_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
