/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An append-only writer of one-line JSON objects into a growable buffer.
 * Deny events leave cgward through it, so its output must stay valid JSON
 * whatever bytes a path or comm holds.
 */
#ifndef CGWARD_JSON_H
#define CGWARD_JSON_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct json_buf {
	char *data; /* NUL-terminated once anything was written, unless failed */
	size_t len, cap;
	bool failed; /* an allocation failed: the output is unusable */
	bool first;  /* no member written yet in the current object */
};

void json_init(struct json_buf *b);
void json_free(struct json_buf *b);
/* Empties the buffer and clears failed; keeps the memory for the next object. */
void json_reset(struct json_buf *b);
void json_begin(struct json_buf *b);
/* Closes the object; no newline, the caller frames lines. */
void json_end(struct json_buf *b);

/*
 * Keys are trusted literals, written unescaped. String values are arbitrary
 * bytes: valid UTF-8 passes through, each invalid byte becomes \ufffd, and
 * then a "<key>_hex" member follows with the raw bytes in hex.
 */
void json_key_str(struct json_buf *b, const char *key, const char *s, size_t len);
void json_key_cstr(struct json_buf *b, const char *key, const char *s);
void json_key_u64(struct json_buf *b, const char *key, __u64 v);
void json_key_i64(struct json_buf *b, const char *key, long long v);
void json_key_bool(struct json_buf *b, const char *key, bool v);
void json_key_null(struct json_buf *b, const char *key);

/*
 * RFC 3339 UTC with nanoseconds, e.g. "2026-12-02T15:04:05.123456789Z".
 * Returns 0, -EINVAL for tv_nsec outside [0, 1e9), -EOVERFLOW for a year
 * outside 0..9999, or -ENOSPC when outlen is too small (31 bytes suffice).
 */
int json_format_time(const struct timespec *ts, char *out, size_t outlen);

#endif
