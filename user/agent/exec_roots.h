/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's roots from the descriptors its caller passed on the exec socket:
 * what each descriptor is (fstat), never a path of the caller's resolved.
 */
#ifndef CGWARD_EXEC_ROOTS_H
#define CGWARD_EXEC_ROOTS_H

#include <stddef.h>
#include <jansson.h>

#include "roots.h"

struct exec_roots {
	struct root_spec *roots; /* --root, --ro: each holds the caller's descriptor */
	size_t n_roots;
	struct root_spec *nodes; /* --allow-unix, --allow-dev */
	size_t n_nodes;
};

/*
 * The request's roots and nodes, from fds[1..] with their kinds ("write",
 * "ro", "unix", "dev") and paths at the same index of kinds and paths;
 * fds[0] is the pidfd, and an fd of -1 is skipped. Each fd is taken: kept by
 * a root, closed otherwise, and set to -1. Returns 0 or negative errno, the
 * reason in err; given's arrays are allocated either way (free them).
 */
int exec_roots_take(struct exec_roots *given, json_t *kinds, json_t *paths, int *fds, size_t n_fds,
		    char *err, size_t errlen);

/*
 * The checks cgward exec makes on its roots: no duplicate, each --ro inside
 * a write root, and at least one write root. 0 or -EINVAL, the reason in err.
 */
int exec_roots_check(const struct exec_roots *given, char *err, size_t errlen);

#endif
