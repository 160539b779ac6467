// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <linux/types.h>

#include "cgward_abi.h"
#include "private_tmp.h"

static void test_dir_of_names_only_the_private_dirs_themselves(void **state)
{
	(void)state;
	assert_string_equal(private_tmp_dir_of("/tmp"), "/tmp");
	assert_string_equal(private_tmp_dir_of("/var/tmp"), "/var/tmp");
	assert_string_equal(private_tmp_dir_of("/dev/shm"), "/dev/shm");
	assert_null(private_tmp_dir_of("/tmp/ws"));
	assert_null(private_tmp_dir_of("/tmpx"));
	assert_null(private_tmp_dir_of("/var"));
}

/* A directory the child did not find (ino 0) is no root. */
static void test_report_becomes_write_roots(void **state)
{
	struct private_tmp_report report = {
	    .dirs = {{.dev = 25, .ino = 1}, {.ino = 0}, {.dev = 26, .ino = 2}}};
	struct root_spec roots[PRIVATE_TMP_DIRS];

	(void)state;
	assert_int_equal(private_tmp_roots(&report, roots), 2);
	assert_string_equal(roots[0].path, "/tmp");
	assert_int_equal(roots[0].access, CGWARD_ACCESS_WRITE);
	assert_int_equal(roots[0].dev, 25);
	assert_int_equal(roots[0].ino, 1);
	assert_int_equal(roots[0].fd, -1);
	assert_string_equal(roots[1].path, "/dev/shm");
	assert_int_equal(roots[1].dev, 26);
	assert_int_equal(roots[1].ino, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dir_of_names_only_the_private_dirs_themselves),
	    cmocka_unit_test(test_report_becomes_write_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
