// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"

/* Renders {"v":<bytes>} and compares it to the exact expected text. */
static void assert_value_renders(const char *bytes, size_t len, const char *expected)
{
	struct json_buf b;

	json_init(&b);
	json_begin(&b);
	json_key_str(&b, "v", bytes, len);
	json_end(&b);
	assert_false(b.failed);
	assert_int_equal(b.len, strlen(expected));
	assert_string_equal(b.data, expected);
	json_free(&b);
}

#define ASSERT_RENDERS(literal, expected) \
	assert_value_renders(literal, sizeof(literal) - 1, expected)

static void test_quote_and_backslash(void **state)
{
	(void)state;
	ASSERT_RENDERS("a\"b\\c", "{\"v\":\"a\\\"b\\\\c\"}");
	ASSERT_RENDERS("/", "{\"v\":\"/\"}");
	ASSERT_RENDERS("", "{\"v\":\"\"}");
}

static void test_short_escapes(void **state)
{
	(void)state;
	ASSERT_RENDERS("\n\t\r\b\f", "{\"v\":\"\\n\\t\\r\\b\\f\"}");
}

static void test_every_control_byte_and_del(void **state)
{
	static const char *const short_escapes[] = {
	    ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n", ['\f'] = "\\f", ['\r'] = "\\r",
	};
	char expected[32];
	char c;
	int i;

	(void)state;
	for (i = 0; i <= 0x20; i++) {
		c = (char)(i == 0x20 ? 0x7f : i);
		if (i < (int)(sizeof(short_escapes) / sizeof(short_escapes[0])) && short_escapes[i])
			snprintf(expected, sizeof(expected), "{\"v\":\"%s\"}", short_escapes[i]);
		else
			snprintf(expected, sizeof(expected), "{\"v\":\"\\u00%02x\"}",
				 (unsigned char)c);
		assert_value_renders(&c, 1, expected);
	}
}

static void test_nul_is_data(void **state)
{
	(void)state;
	ASSERT_RENDERS("a\0b", "{\"v\":\"a\\u0000b\"}");
}

static void test_valid_utf8_passes_through(void **state)
{
	(void)state;
	ASSERT_RENDERS("caf\xc3\xa9", "{\"v\":\"caf\xc3\xa9\"}");
	ASSERT_RENDERS("\xe2\x82\xac", "{\"v\":\"\xe2\x82\xac\"}");
	ASSERT_RENDERS("\xf0\x9f\x98\x80", "{\"v\":\"\xf0\x9f\x98\x80\"}");
	/* The extremes of the valid ranges: U+0080, U+FFFD, U+10FFFF. */
	ASSERT_RENDERS("\xc2\x80\xef\xbf\xbd\xf4\x8f\xbf\xbf",
		       "{\"v\":\"\xc2\x80\xef\xbf\xbd\xf4\x8f\xbf\xbf\"}");
}

static void test_invalid_utf8_replaced_with_hex_twin(void **state)
{
	(void)state;
	ASSERT_RENDERS("\xff", "{\"v\":\"\\ufffd\",\"v_hex\":\"ff\"}");
	ASSERT_RENDERS("a\xc0\x80", "{\"v\":\"a\\ufffd\\ufffd\",\"v_hex\":\"61c080\"}");
	ASSERT_RENDERS("\xed\xa0\x80", "{\"v\":\"\\ufffd\\ufffd\\ufffd\",\"v_hex\":\"eda080\"}");
	ASSERT_RENDERS("\xe2\x82", "{\"v\":\"\\ufffd\\ufffd\",\"v_hex\":\"e282\"}");
	ASSERT_RENDERS("\xe2\x82x", "{\"v\":\"\\ufffd\\ufffdx\",\"v_hex\":\"e28278\"}");
	ASSERT_RENDERS("\xf4\x90\x80\x80",
		       "{\"v\":\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"v_hex\":\"f4908080\"}");
	ASSERT_RENDERS("\xe0\x80\xaf", "{\"v\":\"\\ufffd\\ufffd\\ufffd\",\"v_hex\":\"e080af\"}");
}

static void test_invalid_byte_among_escapes(void **state)
{
	(void)state;
	ASSERT_RENDERS("\"\n\x80\xc3\xa9",
		       "{\"v\":\"\\\"\\n\\ufffd\xc3\xa9\",\"v_hex\":\"220a80c3a9\"}");
}

static void test_members_and_numbers(void **state)
{
	struct json_buf b;

	(void)state;
	json_init(&b);
	json_begin(&b);
	json_key_u64(&b, "max", UINT64_MAX);
	json_key_i64(&b, "neg", -42);
	json_key_i64(&b, "min", INT64_MIN);
	json_key_bool(&b, "yes", true);
	json_key_bool(&b, "no", false);
	json_key_null(&b, "none");
	json_key_cstr(&b, "s", "x");
	json_end(&b);
	assert_false(b.failed);
	assert_string_equal(b.data, "{\"max\":18446744073709551615,\"neg\":-42,"
				    "\"min\":-9223372036854775808,\"yes\":true,\"no\":false,"
				    "\"none\":null,\"s\":\"x\"}");
	json_free(&b);
}

static void test_reset_starts_a_new_object(void **state)
{
	struct json_buf b;

	(void)state;
	json_init(&b);
	json_begin(&b);
	json_key_u64(&b, "a", 1);
	json_end(&b);
	json_reset(&b);
	json_begin(&b);
	json_key_u64(&b, "b", 2);
	json_end(&b);
	assert_string_equal(b.data, "{\"b\":2}");
	json_free(&b);
}

static void test_large_value_grows_buffer(void **state)
{
	static char path[3 * 4096];
	struct json_buf b;

	(void)state;
	memset(path, 'a', sizeof(path));
	json_init(&b);
	json_begin(&b);
	json_key_str(&b, "p", path, sizeof(path));
	json_end(&b);
	assert_false(b.failed);
	assert_int_equal(b.len, sizeof(path) + strlen("{\"p\":\"\"}"));
	assert_int_equal(b.data[b.len - 2], '"');
	json_free(&b);
}

static void assert_time_formats(time_t sec, long nsec, const char *expected)
{
	struct timespec ts = {.tv_sec = sec, .tv_nsec = nsec};
	char out[64];

	assert_int_equal(json_format_time(&ts, out, sizeof(out)), 0);
	assert_string_equal(out, expected);
}

static void test_format_time(void **state)
{
	(void)state;
	assert_time_formats(0, 0, "1970-01-01T00:00:00.000000000Z");
	assert_time_formats(1796223845, 123456789, "2026-12-02T15:04:05.123456789Z");
	assert_time_formats(1796223845, 7, "2026-12-02T15:04:05.000000007Z");
	assert_time_formats(951825600, 999999999, "2000-02-29T12:00:00.999999999Z");
}

static void test_format_time_errors(void **state)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000000L};
	char out[64];

	(void)state;
	assert_int_equal(json_format_time(&ts, out, sizeof(out)), -EINVAL);
	ts.tv_nsec = -1;
	assert_int_equal(json_format_time(&ts, out, sizeof(out)), -EINVAL);
	ts = (struct timespec){.tv_sec = 253402300800LL}; /* 10000-01-01 */
	assert_int_equal(json_format_time(&ts, out, sizeof(out)), -EOVERFLOW);
	ts = (struct timespec){.tv_sec = 0};
	assert_int_equal(json_format_time(&ts, out, 30), -ENOSPC);
	assert_int_equal(json_format_time(&ts, out, 31), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quote_and_backslash),
	    cmocka_unit_test(test_short_escapes),
	    cmocka_unit_test(test_every_control_byte_and_del),
	    cmocka_unit_test(test_nul_is_data),
	    cmocka_unit_test(test_valid_utf8_passes_through),
	    cmocka_unit_test(test_invalid_utf8_replaced_with_hex_twin),
	    cmocka_unit_test(test_invalid_byte_among_escapes),
	    cmocka_unit_test(test_members_and_numbers),
	    cmocka_unit_test(test_reset_starts_a_new_object),
	    cmocka_unit_test(test_large_value_grows_buffer),
	    cmocka_unit_test(test_format_time),
	    cmocka_unit_test(test_format_time_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
