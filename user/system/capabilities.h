/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capabilities by name, and a boundary's set of them as the kernel side
 * holds it: the capabilities dropped (struct cgward_cgroup_policy's
 * dropped_caps), so that 0 keeps every one.
 */
#ifndef CGWARD_CAPABILITIES_H
#define CGWARD_CAPABILITIES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* CAP_CHOWN (0) to CAP_CHECKPOINT_RESTORE (40): every one Linux 5.10 to 6.18 knows. */
#define CAPABILITY_COUNT 41

#define CAPABILITIES_NONE_DROPPED 0
#define CAPABILITIES_ALL_DROPPED  (~(__u64)0)

/*
 * What a run or rule keeps when it names no set: Docker's 14 and
 * DAC_READ_SEARCH (docs/threat-model.md says why), as the dropped set.
 */
__u64 capabilities_default_dropped(void);

/* capabilities(7)'s name of cap ("CAP_SYS_TIME"); NULL for a number it does not know. */
const char *capability_name(unsigned int cap);

/*
 * The number of name, in any case and with or without "CAP_" ("sys_time",
 * "CAP_SYS_TIME"); -EINVAL for a name no capability has.
 */
int capability_parse(const char *name, unsigned int *cap);

/*
 * Keeps (keep) or drops name, or "all" of them, in *dropped; an unknown
 * name is an error named after option in err (-EINVAL).
 */
int capabilities_change(__u64 *dropped, bool keep, const char *name, const char *option, char *err,
			size_t errlen);

#endif
