/* SPDX-License-Identifier: GPL-2.0 */
/* The --memory limit: a whole number of MiB, written to the kernel in bytes. */
#ifndef CGWARD_MEMORY_LIMIT_H
#define CGWARD_MEMORY_LIMIT_H

#include <stddef.h>
#include <linux/types.h>

/* The largest limit whose byte count (MiB << 20) still fits a __u64. */
#define MEMORY_LIMIT_MAX_MIB (~(__u64)0 >> 20)

/*
 * Parses text, the value of flag (named in err), as a non-negative whole
 * decimal number of MiB: digits only, "0" meaning no limit. Returns 0,
 * -EINVAL for anything else, -ERANGE above MEMORY_LIMIT_MAX_MIB.
 */
int memory_limit_parse(const char *flag, const char *text, __u64 *mib, char *err, size_t errlen);

/* Formats mib as the decimal byte count the kernel takes ("1048576" for 1). */
int memory_limit_bytes(__u64 mib, char *out, size_t outlen);

#endif
