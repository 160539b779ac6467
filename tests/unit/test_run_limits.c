// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_limits.h"

static void assert_parses(const char *text, __u64 expected)
{
	char err[128] = "";
	__u64 mib = 12345;

	assert_int_equal(memory_limit_parse("--memory", text, &mib, err, sizeof(err)), 0);
	assert_int_equal(mib, expected);
	assert_string_equal(err, "");
}

static void assert_rejected(const char *text, int expected, const char *message)
{
	char err[128] = "";
	__u64 mib = 12345;

	assert_int_equal(memory_limit_parse("--memory", text, &mib, err, sizeof(err)), expected);
	assert_int_equal(mib, 12345);
	assert_string_equal(err, message);
}

static void test_whole_numbers_parse(void **state)
{
	(void)state;
	assert_parses("0", 0);
	assert_parses("1", 1);
	assert_parses("4096", 4096);
	assert_parses("17592186044415", MEMORY_LIMIT_MAX_MIB);
}

static void test_largest_value_is_the_last_whose_bytes_fit(void **state)
{
	(void)state;
	assert_int_equal(MEMORY_LIMIT_MAX_MIB, 17592186044415ULL);
	assert_int_equal(MEMORY_LIMIT_MAX_MIB << 20 >> 20, MEMORY_LIMIT_MAX_MIB);
	assert_int_equal((MEMORY_LIMIT_MAX_MIB + 1) << 20, 0);
}

static void test_everything_else_is_rejected(void **state)
{
	static const char *const bad[] = {"-1", "1.5",	"4096MB", "true", "", " 1",
					  "+1", "0x10", "1 ",	  "1e3",  "١"};
	char message[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(message, sizeof(message), "--memory: '%s' is not a whole number of MiB",
			 bad[i]);
		assert_rejected(bad[i], -EINVAL, message);
	}
}

static void test_values_whose_bytes_overflow_are_out_of_range(void **state)
{
	(void)state;
	assert_rejected("17592186044416", -ERANGE,
			"--memory: '17592186044416' is too large (at most 17592186044415 MiB)");
	assert_rejected(
	    "18446744073709551616", -ERANGE,
	    "--memory: '18446744073709551616' is too large (at most 17592186044415 MiB)");
	assert_rejected("99999999999999999999999999", -ERANGE,
			"--memory: '99999999999999999999999999' is too large (at most "
			"17592186044415 MiB)");
}

static void test_flag_name_is_the_callers(void **state)
{
	char err[128];
	__u64 mib;

	(void)state;
	assert_int_equal(memory_limit_parse("memory_mib", "x", &mib, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "memory_mib: 'x' is not a whole number of MiB");
}

static void test_bytes_are_mib_shifted_by_20(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(memory_limit_bytes(1, out, sizeof(out)), 0);
	assert_string_equal(out, "1048576");
	assert_int_equal(memory_limit_bytes(32, out, sizeof(out)), 0);
	assert_string_equal(out, "33554432");
	assert_int_equal(memory_limit_bytes(MEMORY_LIMIT_MAX_MIB, out, sizeof(out)), 0);
	assert_string_equal(out, "18446744073708503040");
	assert_int_equal(memory_limit_bytes(MEMORY_LIMIT_MAX_MIB + 1, out, sizeof(out)), -ERANGE);
	assert_int_equal(memory_limit_bytes(1, out, 7), -ENOSPC);
}

static void test_pids_are_whole_numbers_of_processes(void **state)
{
	static const char *const bad[] = {"-1", "1.5", "20p", "true", "", " 1", "+1", "0x10"};
	char err[128];
	__u64 pids = 7;

	(void)state;
	assert_int_equal(pids_limit_parse("--pids", "0", &pids, err, sizeof(err)), 0);
	assert_int_equal(pids, 0);
	assert_int_equal(pids_limit_parse("--pids", "4194304", &pids, err, sizeof(err)), 0);
	assert_int_equal(pids, PIDS_LIMIT_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pids = 7;
		assert_int_equal(pids_limit_parse("--pids", bad[i], &pids, err, sizeof(err)),
				 -EINVAL);
		assert_int_equal(pids, 7);
	}
	assert_string_equal(err, "--pids: '0x10' is not a whole number of processes");
	assert_int_equal(pids_limit_parse("--pids", "4194305", &pids, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--pids: '4194305' is too large (at most 4194304 processes)");
}

static void assert_cpu(const char *text, __u64 milli, const char *max)
{
	char err[128] = "", out[32];
	__u64 value = 7;

	assert_int_equal(cpu_limit_parse("--cpu", text, &value, err, sizeof(err)), 0);
	assert_int_equal(value, milli);
	assert_int_equal(cpu_limit_max(value, out, sizeof(out)), 0);
	assert_string_equal(out, max);
}

static void test_cpus_are_decimals_to_thousandths(void **state)
{
	static const char *const bad[] = {"-1",	 "",	 ".5",	"1.", "1.2345",
					  "0,5", "true", "1e3", " 1"};
	char err[128];
	__u64 milli = 7;

	(void)state;
	assert_cpu("0.5", 500, "50000 100000");
	assert_cpu("2", 2000, "200000 100000");
	assert_cpu("1.25", 1250, "125000 100000");
	assert_cpu("0.01", 10, "1000 100000");
	assert_int_equal(cpu_limit_parse("--cpu", "0", &milli, err, sizeof(err)), 0);
	assert_int_equal(milli, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cpu_limit_parse("--cpu", bad[i], &milli, err, sizeof(err)),
				 -EINVAL);
	assert_string_equal(err, "--cpu: ' 1' is not a number of CPUs (such as 0.5 or 2)");
	assert_int_equal(cpu_limit_parse("--cpu", "0.001", &milli, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--cpu: '0.001' is out of range (0.01 to 65536 CPUs, or 0: none)");
	assert_int_equal(cpu_limit_parse("--cpu", "65537", &milli, err, sizeof(err)), -ERANGE);
	assert_int_equal(milli, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_whole_numbers_parse),
	    cmocka_unit_test(test_largest_value_is_the_last_whose_bytes_fit),
	    cmocka_unit_test(test_everything_else_is_rejected),
	    cmocka_unit_test(test_values_whose_bytes_overflow_are_out_of_range),
	    cmocka_unit_test(test_flag_name_is_the_callers),
	    cmocka_unit_test(test_bytes_are_mib_shifted_by_20),
	    cmocka_unit_test(test_pids_are_whole_numbers_of_processes),
	    cmocka_unit_test(test_cpus_are_decimals_to_thousandths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
