// SPDX-License-Identifier: GPL-2.0
/* "Name: numbers" fields of a /proc status file, one or several from one reading. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc_field.h"

static const char status[] = "Name:\tcgward\nUmask:\t0022\nPid:\t219\nPPid:\t218\n"
			     "Uid:\t65534\t65534\t65534\t65534\nSeccomp:\t0\n";

static int setup(void **state)
{
	char *path = strdup("/tmp/cgward-proc-field-XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, status, sizeof(status) - 1) != (ssize_t)sizeof(status) - 1)
		return -1;
	close(fd);
	*state = path;
	return 0;
}

static int teardown(void **state)
{
	int ret = unlink(*state);

	free(*state);
	return ret;
}

static void test_one_field_its_first_two_numbers(void **state)
{
	long values[2] = {0, -1};

	assert_int_equal(read_proc_field(*state, "Uid:", values), 0);
	assert_int_equal(values[0], 65534);
	assert_int_equal(values[1], 65534);
	values[1] = -1;
	assert_int_equal(read_proc_field(*state, "PPid:", values), 0);
	assert_int_equal(values[0], 218);
	assert_int_equal(values[1], -1); /* one number: the second left as it was */
	assert_int_equal(read_proc_field(*state, "NoSuch:", values), -ENOENT);
}

static void test_several_fields_from_one_reading(void **state)
{
	static const char *const fields[] = {"Seccomp:", "Uid:", "Pid:"};
	long values[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};

	assert_int_equal(read_proc_fields(*state, 3, fields, values), 0);
	assert_int_equal(values[0][0], 0);
	assert_int_equal(values[1][0], 65534);
	assert_int_equal(values[2][0], 219); /* "Pid:" is not "PPid:" */
}

static void test_one_field_absent_fails_them_all(void **state)
{
	static const char *const fields[] = {"Uid:", "NoSuch:"};
	long values[2][2];

	assert_int_equal(read_proc_fields(*state, 2, fields, values), -ENOENT);
	assert_int_equal(read_proc_fields("/nonexistent/status", 2, fields, values), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_one_field_its_first_two_numbers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_several_fields_from_one_reading, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_field_absent_fails_them_all, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
