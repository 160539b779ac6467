/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgward exec --private-tmp: the command's own empty /tmp, /var/tmp and
 * /dev/shm, as systemd's PrivateTmp=. The child enters a mount namespace of
 * its own and mounts a fresh tmpfs on each, before it is moved into the
 * enforced cgroup (from then on mounts are refused). The tmpfs roots are
 * write roots of the run; they vanish with the namespace when the run ends.
 */
#ifndef CGWARD_PRIVATE_TMP_H
#define CGWARD_PRIVATE_TMP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "roots.h"

#define PRIVATE_TMP_DIRS 3

/* /tmp, /var/tmp and /dev/shm. */
extern const char *const private_tmp_dirs[PRIVATE_TMP_DIRS];

/* What the child tells the parent: each private directory's identity (ino 0: not there). */
struct private_tmp_report {
	struct {
		__u32 dev; /* kernel dev_t, as struct root_spec */
		__u32 unused;
		__u64 ino;
	} dirs[PRIVATE_TMP_DIRS];
};

/* The run's roots and --allow-unix sockets: those beneath a private directory are bound back. */
struct private_tmp_setup {
	const struct root_spec *roots;
	size_t n_roots;
	const struct root_spec *sockets;
	size_t n_sockets;
};

/*
 * In the process whose mount namespace the command gets, outside the
 * boundary: cgward exec's child as a spawn_prepare run, or the agent's
 * supervisor (setup: struct private_tmp_setup, report: struct
 * private_tmp_report). Prints what failed as cgward: ...
 * and returns a negative errno.
 */
int private_tmp_enter(void *setup, void *report);

/* The private directory that path is, or NULL: such a root would share it again. */
const char *private_tmp_dir_of(const char *path);

/* The report's directories as write roots (fd -1); returns how many. */
size_t private_tmp_roots(const struct private_tmp_report *report,
			 struct root_spec roots[PRIVATE_TMP_DIRS]);

#endif
