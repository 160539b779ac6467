// SPDX-License-Identifier: GPL-2.0
#include "selector.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "cgward_abi.h"

#define UUID_LEN	   36
#define STATIC_POD_UID_LEN 32
#define CONTAINER_ID_LEN   64

/* A path component: bytes [start, start + len), never containing '/'. */
struct component {
	const char *start;
	size_t len;
};

/* The component at or after *pos, skipping separators; false at the end of the string. */
static bool component_at(const char *pos, struct component *c)
{
	while (*pos == '/')
		pos++;
	if (*pos == '\0')
		return false;
	c->start = pos;
	c->len = strcspn(pos, "/");
	return true;
}

static const char *component_end(const struct component *c)
{
	return c->start + c->len;
}

static bool is_globstar(const struct component *c)
{
	return c->len == 2 && c->start[0] == '*' && c->start[1] == '*';
}

/*
 * Index just past the ']' closing the bracket expression at pat[open], or 0
 * when it is unbalanced. A ']' right after '[' or '[!' is a member, as in fnmatch.
 */
static size_t bracket_end(const char *pat, size_t len, size_t open)
{
	size_t i = open + 1;

	if (i < len && (pat[i] == '!' || pat[i] == '^'))
		i++;
	if (i < len && pat[i] == ']')
		i++;
	while (i < len && pat[i] != ']')
		i++;
	return i < len ? i + 1 : 0;
}

/* Whether c is a member of the bracket expression pat[open, end). */
static bool bracket_match(const char *pat, size_t open, size_t end, unsigned char c)
{
	size_t i = open + 1, last = end - 1;
	bool negate = pat[i] == '!' || pat[i] == '^';
	bool member = false;

	if (negate)
		i++;
	do {
		unsigned char lo = pat[i], hi = lo;

		if (i + 2 < last && pat[i + 1] == '-') {
			hi = pat[i + 2];
			i += 3;
		} else {
			i++;
		}
		if (c >= lo && c <= hi)
			member = true;
	} while (i < last);
	return member != negate;
}

/* Matches one pattern element (not '*') at pat[*i] against c and moves *i past it. */
static bool element_match(const char *pat, size_t len, size_t *i, char c)
{
	size_t end;

	switch (pat[*i]) {
	case '?':
		(*i)++;
		return true;
	case '\\':
		if (*i + 1 < len)
			(*i)++;
		return pat[(*i)++] == c;
	case '[':
		end = bracket_end(pat, len, *i);
		if (end) {
			bool member = bracket_match(pat, *i, end, c);

			*i = end;
			return member;
		}
		break;
	}
	return pat[(*i)++] == c;
}

/*
 * Glob match within one component. Backtracking returns only to the last '*'
 * seen, which is enough because every other element consumes exactly one
 * byte: O(pattern * name) steps.
 */
static bool component_match(const struct component *pat, const struct component *name)
{
	size_t pi = 0, ni = 0, star_pi = 0, star_ni = 0;
	bool have_star = false;

	while (ni < name->len) {
		size_t next = pi;

		if (pi < pat->len && pat->start[pi] == '*') {
			have_star = true;
			star_pi = ++pi;
			star_ni = ni;
		} else if (pi < pat->len &&
			   element_match(pat->start, pat->len, &next, name->start[ni])) {
			pi = next;
			ni++;
		} else if (have_star) {
			pi = star_pi;
			ni = ++star_ni;
		} else {
			return false;
		}
	}
	while (pi < pat->len && pat->start[pi] == '*')
		pi++;
	return pi == pat->len;
}

/*
 * The same last-star backtracking one level up: '**' is the star, every other
 * glob component consumes exactly one path component.
 */
bool selector_match(const char *glob, const char *cgroup_path)
{
	const char *star_glob = NULL, *star_path = NULL;
	struct component g, p;

	if (glob[0] != '/' || cgroup_path[0] != '/')
		return false;
	while (component_at(cgroup_path, &p)) {
		bool have_glob = component_at(glob, &g);

		if (have_glob && is_globstar(&g)) {
			glob = star_glob = component_end(&g);
			star_path = cgroup_path;
		} else if (have_glob && component_match(&g, &p)) {
			glob = component_end(&g);
			cgroup_path = component_end(&p);
		} else if (star_glob) {
			component_at(star_path, &p);
			cgroup_path = star_path = component_end(&p);
			glob = star_glob;
		} else {
			return false;
		}
	}
	while (component_at(glob, &g)) {
		if (!is_globstar(&g))
			return false;
		glob = component_end(&g);
	}
	return true;
}

static int reject(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

static int validate_bracket(const char *pat, size_t open, size_t end, char *err, size_t errlen)
{
	size_t i = open + 1, last = end - 1;

	if (pat[i] == '!' || pat[i] == '^')
		i++;
	do {
		if (i + 2 < last && pat[i + 1] == '-') {
			if ((unsigned char)pat[i] > (unsigned char)pat[i + 2]) {
				snprintf(err, errlen, "reversed range '%c-%c'", pat[i], pat[i + 2]);
				return -EINVAL;
			}
			i += 3;
		} else {
			i++;
		}
	} while (i < last);
	return 0;
}

static int validate_component(const struct component *c, char *err, size_t errlen)
{
	const char *pat = c->start;
	size_t i = 0, stars, end;
	int ret;

	if (is_globstar(c))
		return 0;
	while (i < c->len) {
		switch (pat[i]) {
		case '\\':
			if (i + 1 == c->len)
				return reject(err, errlen, "trailing '\\'");
			i += 2;
			break;
		case '*':
			stars = strspn(pat + i, "*");
			if (stars >= 3)
				return reject(err, errlen, "'***' is not a valid pattern");
			if (stars == 2)
				return reject(err, errlen, "'**' must be a whole path component");
			i++;
			break;
		case '[':
			end = bracket_end(pat, c->len, i);
			if (!end)
				return reject(err, errlen, "unbalanced '['");
			ret = validate_bracket(pat, i, end, err, errlen);
			if (ret)
				return ret;
			i = end;
			break;
		default:
			i++;
		}
	}
	return 0;
}

int selector_validate(const char *glob, char *err, size_t errlen)
{
	const char *pos = glob + 1;
	struct component c;
	int ret;

	if (glob[0] != '/')
		return reject(err, errlen, "must start with '/'");
	if (strlen(glob) >= CGWARD_PATH_MAX)
		return reject(err, errlen, "longer than the kernel's PATH_MAX");
	if (*pos == '\0')
		return 0; /* the root cgroup */
	for (;;) {
		c.start = pos;
		c.len = strcspn(pos, "/");
		if (c.len == 0)
			return reject(err, errlen, "empty path component");
		ret = validate_component(&c, err, errlen);
		if (ret)
			return ret;
		pos += c.len;
		if (*pos == '\0')
			return 0;
		pos++;
	}
}

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_lower_hex_string(const char *s, size_t len)
{
	if (strlen(s) != len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!is_lower_hex(s[i]))
			return false;
	}
	return true;
}

static bool is_uuid(const char *s)
{
	if (strlen(s) != UUID_LEN)
		return false;
	for (size_t i = 0; i < UUID_LEN; i++) {
		bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash_here ? s[i] != '-' : !is_lower_hex(s[i]))
			return false;
	}
	return true;
}

int selector_validate_pod_uid(const char *pod_uid, char *err, size_t errlen)
{
	/* The kubelet names a static pod after a hash of its manifest: 32 hex digits, no dashes. */
	if (!is_uuid(pod_uid) && !is_lower_hex_string(pod_uid, STATIC_POD_UID_LEN))
		return reject(err, errlen,
			      "not a lowercase UUID (8-4-4-4-12 hex digits) or static pod hash "
			      "(32 hex digits)");
	return 0;
}

int selector_validate_container_id(const char *container_id, char *err, size_t errlen)
{
	if (!is_lower_hex_string(container_id, CONTAINER_ID_LEN))
		return reject(err, errlen, "not 64 lowercase hex digits");
	return 0;
}
