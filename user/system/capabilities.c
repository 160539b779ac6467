// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "capabilities.h"

/* include/uapi/linux/capability.h, by number. */
static const char *const names[CAPABILITY_COUNT] = {
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
};

/* Docker's default set (moby's oci/caps/defaults.go), and DAC_READ_SEARCH. */
static const char *const default_kept[] = {
    "CHOWN",   "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER",	 "FSETID",
    "KILL",    "SETGID",       "SETUID",	  "SETPCAP",	 "NET_BIND_SERVICE",
    "NET_RAW", "SYS_CHROOT",   "MKNOD",		  "AUDIT_WRITE", "SETFCAP",
};

const char *capability_name(unsigned int cap)
{
	return cap < CAPABILITY_COUNT ? names[cap] : NULL;
}

int capability_parse(const char *name, unsigned int *cap)
{
	const char *bare = strncasecmp(name, "CAP_", 4) == 0 ? name + 4 : name;

	for (unsigned int i = 0; i < CAPABILITY_COUNT; i++) {
		if (strcasecmp(bare, names[i] + 4) == 0) {
			*cap = i;
			return 0;
		}
	}
	return -EINVAL;
}

__u64 capabilities_default_dropped(void)
{
	__u64 dropped = CAPABILITIES_ALL_DROPPED;
	unsigned int cap;

	for (size_t i = 0; i < sizeof(default_kept) / sizeof(default_kept[0]); i++) {
		if (capability_parse(default_kept[i], &cap) == 0)
			dropped &= ~(1ULL << cap);
	}
	return dropped;
}

int capabilities_change(__u64 *dropped, bool keep, const char *name, const char *option, char *err,
			size_t errlen)
{
	unsigned int cap;

	if (strcasecmp(name, "all") == 0) {
		*dropped = keep ? CAPABILITIES_NONE_DROPPED : CAPABILITIES_ALL_DROPPED;
		return 0;
	}
	if (capability_parse(name, &cap)) {
		snprintf(err, errlen, "%s: unknown capability '%s'", option, name);
		return -EINVAL;
	}
	if (keep)
		*dropped &= ~(1ULL << cap);
	else
		*dropped |= 1ULL << cap;
	return 0;
}
