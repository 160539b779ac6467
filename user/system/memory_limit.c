// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "memory_limit.h"

int memory_limit_parse(const char *flag, const char *text, __u64 *mib, char *err, size_t errlen)
{
	__u64 value = 0;
	const char *c;

	/* strtoull would accept " 1", "+1", "-1" (wrapped) and "0x10"; digits only. */
	if (!*text)
		goto not_whole;
	for (c = text; *c; c++) {
		if (*c < '0' || *c > '9')
			goto not_whole;
		if (value > (MEMORY_LIMIT_MAX_MIB - (__u64)(*c - '0')) / 10) {
			snprintf(err, errlen, "%s: '%s' is too large (at most %" PRIu64 " MiB)",
				 flag, text, (uint64_t)MEMORY_LIMIT_MAX_MIB);
			return -ERANGE;
		}
		value = value * 10 + (__u64)(*c - '0');
	}
	*mib = value;
	return 0;

not_whole:
	snprintf(err, errlen, "%s: '%s' is not a whole number of MiB", flag, text);
	return -EINVAL;
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
