// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"

void json_init(struct json_buf *b)
{
	*b = (struct json_buf){.first = true};
}

void json_free(struct json_buf *b)
{
	free(b->data);
	json_init(b);
}

void json_reset(struct json_buf *b)
{
	b->len = 0;
	b->failed = false;
	b->first = true;
	if (b->data)
		b->data[0] = '\0';
}

/* Makes room for extra bytes plus the terminating NUL; false once failed. */
static bool reserve(struct json_buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (extra >= SIZE_MAX - b->len ||
	    grow_array((void **)&b->data, &b->cap, b->len + extra + 1, 1)) {
		b->failed = true;
		return false;
	}
	return true;
}

static void append(struct json_buf *b, const char *s, size_t len)
{
	if (!reserve(b, len))
		return;
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

static void append_cstr(struct json_buf *b, const char *s)
{
	append(b, s, strlen(s));
}

static void append_char(struct json_buf *b, char c)
{
	append(b, &c, 1);
}

void json_begin(struct json_buf *b)
{
	append_char(b, '{');
	b->first = true;
}

void json_end(struct json_buf *b)
{
	append_char(b, '}');
}

/* Writes the separator and "<key><suffix>": */
static void member(struct json_buf *b, const char *key, const char *suffix)
{
	if (!b->first)
		append_char(b, ',');
	b->first = false;
	append_char(b, '"');
	append_cstr(b, key);
	append_cstr(b, suffix);
	append(b, "\":", 2);
}

static bool is_continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629 table 3), or 0.
 * The narrowed second-byte ranges are what exclude overlongs (C0, C1, E0
 * 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points above U+10FFFF
 * (F4 90..BF, F5..FF).
 */
static size_t utf8_sequence_len(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (avail < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (!is_continuation(s[i]))
			return 0;
	}
	return len;
}

static void append_control(struct json_buf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};

	switch (c) {
	case '\b':
		append(b, "\\b", 2);
		return;
	case '\t':
		append(b, "\\t", 2);
		return;
	case '\n':
		append(b, "\\n", 2);
		return;
	case '\f':
		append(b, "\\f", 2);
		return;
	case '\r':
		append(b, "\\r", 2);
		return;
	}
	append(b, esc, sizeof(esc));
}

/* Appends s as a quoted JSON string; returns whether any byte was invalid UTF-8. */
static bool append_escaped(struct json_buf *b, const unsigned char *s, size_t len)
{
	bool invalid = false;
	size_t i = 0, n;

	append_char(b, '"');
	while (i < len) {
		n = utf8_sequence_len(s + i, len - i);
		if (n == 0) {
			append(b, "\\ufffd", 6);
			invalid = true;
			n = 1;
		} else if (s[i] == '"' || s[i] == '\\') {
			append_char(b, '\\');
			append_char(b, (char)s[i]);
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			append_control(b, s[i]);
		} else {
			append(b, (const char *)s + i, n);
		}
		i += n;
	}
	append_char(b, '"');
	return invalid;
}

static void append_hex(struct json_buf *b, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (len > SIZE_MAX / 2 - 2 || !reserve(b, 2 * len + 2))
		return;
	b->data[b->len++] = '"';
	for (i = 0; i < len; i++) {
		b->data[b->len++] = hex[s[i] >> 4];
		b->data[b->len++] = hex[s[i] & 0xf];
	}
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

void json_key_str(struct json_buf *b, const char *key, const char *s, size_t len)
{
	const unsigned char *bytes = (const unsigned char *)s;

	member(b, key, "");
	if (!append_escaped(b, bytes, len))
		return;
	/* \ufffd loses the original bytes; logs must keep the exact path. */
	member(b, key, "_hex");
	append_hex(b, bytes, len);
}

void json_key_cstr(struct json_buf *b, const char *key, const char *s)
{
	json_key_str(b, key, s, strlen(s));
}

void json_key_u64(struct json_buf *b, const char *key, __u64 v)
{
	char num[24];

	member(b, key, "");
	append(b, num, (size_t)snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)v));
}

void json_key_i64(struct json_buf *b, const char *key, long long v)
{
	char num[24];

	member(b, key, "");
	append(b, num, (size_t)snprintf(num, sizeof(num), "%lld", v));
}

void json_key_bool(struct json_buf *b, const char *key, bool v)
{
	member(b, key, "");
	append_cstr(b, v ? "true" : "false");
}

void json_key_null(struct json_buf *b, const char *key)
{
	member(b, key, "");
	append(b, "null", 4);
}

int json_format_time(const struct timespec *ts, char *out, size_t outlen)
{
	struct tm tm;
	int n;

	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return -EINVAL;
	/* RFC 3339 has exactly four year digits. */
	if (!gmtime_r(&ts->tv_sec, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return -EOVERFLOW;
	n = snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts->tv_nsec);
	if (n < 0 || (size_t)n >= outlen)
		return -ENOSPC;
	return 0;
}
