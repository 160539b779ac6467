// SPDX-License-Identifier: GPL-2.0
/* A run's own limits, from the user's numbers to the kernel's (run_limits.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run_limits.h"

/*
 * Digits only (strtoull would accept " 1", "+1", "-1" (wrapped) and "0x10"),
 * at most max: 0, -EINVAL, or -ERANGE.
 */
static int parse_whole(const char *text, size_t len, __u64 max, __u64 *value)
{
	*value = 0;
	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return -EINVAL;
		if (*value > (max - (__u64)(text[i] - '0')) / 10)
			return -ERANGE;
		*value = *value * 10 + (__u64)(text[i] - '0');
	}
	return 0;
}

/* A whole number of unit, at most max: the value, or the error that names flag. */
static int parse_count(const char *flag, const char *text, __u64 max, const char *unit, __u64 *out,
		       char *err, size_t errlen)
{
	__u64 value;
	int ret = parse_whole(text, strlen(text), max, &value);

	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: '%s' is not a whole number of %s", flag, text, unit);
	else if (ret)
		snprintf(err, errlen, "%s: '%s' is too large (at most %" PRIu64 " %s)", flag, text,
			 (uint64_t)max, unit);
	else
		*out = value;
	return ret;
}

int memory_limit_parse(const char *flag, const char *text, __u64 *mib, char *err, size_t errlen)
{
	return parse_count(flag, text, MEMORY_LIMIT_MAX_MIB, "MiB", mib, err, errlen);
}

int memory_limit_bytes(__u64 mib, char *out, size_t outlen)
{
	int len;

	if (mib > MEMORY_LIMIT_MAX_MIB)
		return -ERANGE;
	len = snprintf(out, outlen, "%" PRIu64, (uint64_t)(mib << 20));
	if (len < 0 || (size_t)len >= outlen)
		return -ENOSPC;
	return 0;
}

int pids_limit_parse(const char *flag, const char *text, __u64 *pids, char *err, size_t errlen)
{
	return parse_count(flag, text, PIDS_LIMIT_MAX, "processes", pids, err, errlen);
}

/* "W" or "W.F" with F of one to three digits, in thousandths: 0, -EINVAL or -ERANGE. */
static int parse_milli(const char *text, __u64 *milli)
{
	const char *point = strchr(text, '.');
	size_t whole_len = point ? (size_t)(point - text) : strlen(text);
	size_t frac_len = point ? strlen(point + 1) : 0;
	__u64 whole, frac = 0;
	int ret = parse_whole(text, whole_len, CPU_LIMIT_MAX_MILLI / 1000, &whole);

	if (ret == 0 && point)
		ret = frac_len > 3 ? -EINVAL : parse_whole(point + 1, frac_len, 999, &frac);
	for (size_t i = frac_len; ret == 0 && i < 3; i++)
		frac *= 10;
	*milli = whole * 1000 + frac;
	return ret;
}

int cpu_limit_parse(const char *flag, const char *text, __u64 *milli, char *err, size_t errlen)
{
	__u64 value;
	int ret = parse_milli(text, &value);

	if (ret == 0 && value != 0 && (value < CPU_LIMIT_MIN_MILLI || value > CPU_LIMIT_MAX_MILLI))
		ret = -ERANGE;
	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: '%s' is not a number of CPUs (such as 0.5 or 2)", flag,
			 text);
	else if (ret)
		snprintf(err, errlen, "%s: '%s' is out of range (0.01 to %d CPUs, or 0: none)",
			 flag, text, CPU_LIMIT_MAX_MILLI / 1000);
	else
		*milli = value;
	return ret;
}

int cpu_limit_max(__u64 milli, char *out, size_t outlen)
{
	int len;

	if (milli < CPU_LIMIT_MIN_MILLI || milli > CPU_LIMIT_MAX_MILLI)
		return -ERANGE;
	len = snprintf(out, outlen, "%" PRIu64 " %d", (uint64_t)(milli * CPU_PERIOD_US / 1000),
		       CPU_PERIOD_US);
	return len < 0 || (size_t)len >= outlen ? -ENOSPC : 0;
}
