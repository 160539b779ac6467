/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a run's cgroup goes: within its caller's, so that every limit of the
 * caller's cgroup and its ancestors holds for the run, its usage is charged
 * where the caller's is, and killing the caller's cgroup ends it
 * (docs/exec.md, "Where a run's cgroup goes").
 */
#ifndef CGWARD_CGROUP_PLACEMENT_H
#define CGWARD_CGROUP_PLACEMENT_H

#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"

/*
 * The directory a run of a caller in cgroup member (as cgroup_member_of
 * reads it) is made under: the caller's cgroup itself, or its parent when
 * that is CGROUP_CALLER_LEAF. For a caller other than root, it is the
 * deepest cgroup on that path whose cgroup.procs, and every ancestor's, the
 * caller cannot write (a subtree delegated to uid is left whole): a common
 * ancestor the caller could write would let it move the run's processes out
 * of their boundary. Returns 0, or negative errno with the reason in err.
 */
int cgroup_run_parent(const struct cgroup_layout *layout, const char *member, uid_t uid, gid_t gid,
		      char *dir, size_t dirlen, char *err, size_t errlen);

/*
 * Runs' cgroups are wherever their callers were: calls fn for each cgroup
 * beneath top, at any depth, whose name has the shape exec_cgroup_create
 * gives (not descending into it), until fn returns nonzero. Returns that,
 * 0, or negative errno when top cannot be listed.
 */
int cgroup_each_run(const char *top, int (*fn)(const char *path, pid_t creator, void *arg),
		    void *arg);

#endif
