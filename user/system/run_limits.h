/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's own limits (--memory, --pids, --cpu): the numbers users give,
 * checked, and the values the kernel takes for them.
 */
#ifndef CGWARD_RUN_LIMITS_H
#define CGWARD_RUN_LIMITS_H

#include <stddef.h>
#include <linux/types.h>

/* The largest limit whose byte count (MiB << 20) still fits a __u64. */
#define MEMORY_LIMIT_MAX_MIB (~(__u64)0 >> 20)
/* The kernel's PID_MAX_LIMIT: no pids.max above it means anything. */
#define PIDS_LIMIT_MAX 4194304
/* cpu.max's period, in microseconds; a quota is at least 1000 of them. */
#define CPU_PERIOD_US	    100000
#define CPU_LIMIT_MIN_MILLI 10
#define CPU_LIMIT_MAX_MILLI 65536000

/* What a run may use beyond its caller's limits; 0 in a field: no limit of its own. */
struct run_limits {
	__u64 memory_mib; /* memory.max */
	__u64 pids;	  /* pids.max: processes and threads */
	__u64 cpu_milli;  /* cpu.max: thousandths of a CPU's time */
};

/*
 * Parses text, the value of flag (named in err), as a non-negative whole
 * decimal number of MiB: digits only, "0" meaning no limit. Returns 0,
 * -EINVAL for anything else, -ERANGE above MEMORY_LIMIT_MAX_MIB.
 */
int memory_limit_parse(const char *flag, const char *text, __u64 *mib, char *err, size_t errlen);

/* Formats mib as the decimal byte count the kernel takes ("1048576" for 1). */
int memory_limit_bytes(__u64 mib, char *out, size_t outlen);

/* As memory_limit_parse, for a number of processes: -ERANGE above PIDS_LIMIT_MAX. */
int pids_limit_parse(const char *flag, const char *text, __u64 *pids, char *err, size_t errlen);

/*
 * Parses text as CPUs' worth of time: digits, and at most three after a
 * point ("0.5", "2"); "0" means no limit. Returns 0, -EINVAL for anything
 * else, -ERANGE below 0.01 (the kernel's least quota) or above
 * CPU_LIMIT_MAX_MILLI.
 */
int cpu_limit_parse(const char *flag, const char *text, __u64 *milli, char *err, size_t errlen);

/* Formats milli as cpu.max takes it: "QUOTA PERIOD" in microseconds. */
int cpu_limit_max(__u64 milli, char *out, size_t outlen);

#endif
