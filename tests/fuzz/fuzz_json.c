// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds arbitrary bytes to json_key_str and checks that the object is strict
 * JSON and that the value, with its _hex twin, gives back the input bytes.
 * The decoder here is deliberately written apart from user/events/json.c so that
 * one shared misreading of UTF-8 cannot hide in both.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "fuzz_check.h"

#define MAX_MEMBERS 4

struct bytes {
	unsigned char *data;
	size_t len;
};

struct member {
	struct bytes key;
	struct bytes str; /* the decoded value, when is_string */
	bool is_string;
	unsigned long long number;
};

struct decoder {
	const unsigned char *p, *end;
	size_t n_members;
	struct member members[MAX_MEMBERS];
};

/* Decodes one UTF-8 scalar value at s; returns its length, or 0 if ill-formed. */
static size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		*cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		*cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		*cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (avail < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min_for_len[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

static void put_utf8(struct bytes *out, uint32_t cp)
{
	unsigned char *o = out->data + out->len;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		out->len += 1;
	} else if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		out->len += 2;
	} else if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		out->len += 3;
	} else {
		o[0] = (unsigned char)(0xf0 | cp >> 18);
		o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[3] = (unsigned char)(0x80 | (cp & 0x3f));
		out->len += 4;
	}
}

static int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_u_escape(struct decoder *d, uint32_t *unit)
{
	int i, v;

	*unit = 0;
	if (d->end - d->p < 4)
		return false;
	for (i = 0; i < 4; i++) {
		v = hex_digit(*d->p++);
		if (v < 0)
			return false;
		*unit = *unit << 4 | (uint32_t)v;
	}
	return true;
}

/* After "\u": one code unit, or a surrogate pair; lone surrogates are not text. */
static bool decode_u_escape(struct decoder *d, uint32_t *cp)
{
	uint32_t low;

	if (!read_u_escape(d, cp) || (*cp >= 0xdc00 && *cp <= 0xdfff))
		return false;
	if (*cp < 0xd800 || *cp > 0xdbff)
		return true;
	if (d->end - d->p < 2 || d->p[0] != '\\' || d->p[1] != 'u')
		return false;
	d->p += 2;
	if (!read_u_escape(d, &low) || low < 0xdc00 || low > 0xdfff)
		return false;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (low - 0xdc00);
	return true;
}

static bool decode_escape(struct decoder *d, struct bytes *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	uint32_t cp;

	if (d->p == d->end)
		return false;
	if (*d->p == 'u') {
		d->p++;
		if (!decode_u_escape(d, &cp))
			return false;
		put_utf8(out, cp);
		return true;
	}
	hit = memchr(from, *d->p, sizeof(from) - 1);
	if (!hit)
		return false;
	out->data[out->len++] = (unsigned char)to[hit - from];
	d->p++;
	return true;
}

/* A decoded string is never longer than its encoding, so that much memory suffices. */
static bool decode_string(struct decoder *d, struct bytes *out)
{
	uint32_t cp;
	size_t n;

	if (d->p == d->end || *d->p++ != '"')
		return false;
	out->data = malloc((size_t)(d->end - d->p) + 1);
	CHECK(out->data);
	out->len = 0;
	while (d->p < d->end) {
		if (*d->p == '"') {
			d->p++;
			return true;
		}
		if (*d->p == '\\') {
			d->p++;
			if (!decode_escape(d, out))
				return false;
			continue;
		}
		/* Stricter than JSON, as the writer promises: DEL is escaped too. */
		if (*d->p < 0x20 || *d->p == 0x7f)
			return false;
		n = utf8_decode(d->p, (size_t)(d->end - d->p), &cp);
		if (n == 0)
			return false;
		memcpy(out->data + out->len, d->p, n);
		out->len += n;
		d->p += n;
	}
	return false;
}

/* Non-negative integers only: the writer emits nothing else for these members. */
static bool decode_number(struct decoder *d, unsigned long long *v)
{
	const unsigned char *start = d->p;

	*v = 0;
	while (d->p < d->end && *d->p >= '0' && *d->p <= '9') {
		CHECK(*v <= (UINT64_MAX - 9) / 10);
		*v = *v * 10 + (unsigned)(*d->p++ - '0');
	}
	return d->p > start && !(start[0] == '0' && d->p - start > 1);
}

static bool decode_member(struct decoder *d, struct member *m)
{
	if (!decode_string(d, &m->key) || d->p == d->end || *d->p++ != ':')
		return false;
	if (d->p < d->end && *d->p == '"') {
		m->is_string = true;
		return decode_string(d, &m->str);
	}
	return decode_number(d, &m->number);
}

/* The whole input must be exactly one object: no whitespace, nothing after it. */
static bool decode_object(struct decoder *d)
{
	if (d->p == d->end || *d->p++ != '{')
		return false;
	if (d->p < d->end && *d->p == '}')
		return ++d->p == d->end;
	for (;;) {
		if (d->n_members == MAX_MEMBERS || !decode_member(d, &d->members[d->n_members++]))
			return false;
		if (d->p == d->end)
			return false;
		if (*d->p == '}')
			return ++d->p == d->end;
		if (*d->p++ != ',')
			return false;
	}
}

static void decoder_free(struct decoder *d)
{
	size_t i;

	for (i = 0; i < d->n_members; i++) {
		free(d->members[i].key.data);
		free(d->members[i].str.data);
	}
}

static bool key_is(const struct member *m, const char *key)
{
	return m->key.len == strlen(key) && memcmp(m->key.data, key, m->key.len) == 0;
}

static bool bytes_equal(const struct bytes *b, const unsigned char *data, size_t len)
{
	return b->len == len && (len == 0 || memcmp(b->data, data, len) == 0);
}

/* What the value must decode to: the input with each ill-formed byte as U+FFFD. */
static bool expected_text(const unsigned char *in, size_t len, struct bytes *out)
{
	bool invalid = false;
	size_t i = 0, n;
	uint32_t cp;

	out->data = malloc(3 * len + 1);
	CHECK(out->data);
	out->len = 0;
	while (i < len) {
		n = utf8_decode(in + i, len - i, &cp);
		if (n == 0) {
			put_utf8(out, 0xfffd);
			invalid = true;
			n = 1;
		} else {
			memcpy(out->data + out->len, in + i, n);
			out->len += n;
		}
		i += n;
	}
	return invalid;
}

static void check_hex_twin(const struct member *m, const unsigned char *in, size_t len)
{
	size_t i;

	CHECK(key_is(m, "v_hex") && m->is_string);
	CHECK(m->str.len == 2 * len);
	for (i = 0; i < len; i++) {
		CHECK(hex_digit(m->str.data[2 * i]) >= 0 && hex_digit(m->str.data[2 * i + 1]) >= 0);
		CHECK((hex_digit(m->str.data[2 * i]) << 4 | hex_digit(m->str.data[2 * i + 1])) ==
		      in[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decoder d = {0};
	struct json_buf b;
	struct bytes expected;
	bool invalid;
	size_t next = 0;

	json_init(&b);
	json_begin(&b);
	json_key_str(&b, "v", (const char *)data, size);
	json_key_u64(&b, "n", size);
	json_end(&b);
	CHECK(!b.failed);
	CHECK(strlen(b.data) == b.len);

	d.p = (const unsigned char *)b.data;
	d.end = d.p + b.len;
	CHECK(decode_object(&d));

	invalid = expected_text(data, size, &expected);
	CHECK(d.n_members == (invalid ? 3u : 2u));
	CHECK(key_is(&d.members[next], "v") && d.members[next].is_string);
	CHECK(bytes_equal(&d.members[next].str, expected.data, expected.len));
	next++;
	if (invalid)
		check_hex_twin(&d.members[next++], data, size);
	CHECK(key_is(&d.members[next], "n") && !d.members[next].is_string);
	CHECK(d.members[next].number == size);

	free(expected.data);
	decoder_free(&d);
	json_free(&b);
	return 0;
}
