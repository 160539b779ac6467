// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "read_system.h"
#include "cgward_abi.h"

/*
 * Found by running the tools that agents run (sh, coreutils, git, gcc,
 * make, Python) with nothing else readable: the programs, libraries and
 * configuration (the loader's cache, passwd, locale, certificates), /proc
 * for the process's own state (others' are judged by ptrace_access_check),
 * the CPU list that nproc and os.cpu_count() read, the huge page settings
 * that a JVM and glibc's malloc tune themselves by, the devices that are
 * harmless (those any run may write, and the terminals), and the
 * resolver's files where /etc/resolv.conf links to them.
 */
const char *const read_system_words[READ_SYSTEM_SETS] = {"default", "none"};

static const char *const read_system_paths[] = {
    "/usr",
    "/etc",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/kernel/mm/transparent_hugepage",
    "/sys/kernel/mm/hugepages",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/run/systemd/resolve",
};

_Static_assert(sizeof(read_system_paths) / sizeof(read_system_paths[0]) <= READ_SYSTEM_MAX,
	       "READ_SYSTEM_MAX is the set's length at most");

static bool named_already(const struct root_spec *roots, size_t n, const struct root_spec *entry)
{
	for (size_t i = 0; i < n; i++) {
		if (roots[i].dev == entry->dev && roots[i].ino == entry->ino)
			return true;
	}
	return false;
}

int read_system_add(struct root_spec *roots, size_t *n, size_t max, char *err, size_t errlen)
{
	const size_t given = *n;
	char why[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(read_system_paths) / sizeof(read_system_paths[0]); i++) {
		struct root_spec *entry = &roots[*n];

		if (*n == max) {
			snprintf(err, errlen, "more than %zu roots with the system set", max);
			return -E2BIG;
		}
		if (root_resolve(read_system_paths[i], CGWARD_ACCESS_READ, entry, why, sizeof(why)))
			continue;
		if (named_already(roots, given, entry) ||
		    root_above(entry, roots, given, CGWARD_ACCESS_HIDDEN)) {
			root_close(entry);
			continue;
		}
		(*n)++;
	}
	return 0;
}
