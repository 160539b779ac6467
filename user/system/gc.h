/* SPDX-License-Identifier: GPL-2.0 */
/* `cgward gc`: cgroups left behind by cgward runs that crashed. */
#ifndef CGWARD_GC_H
#define CGWARD_GC_H

#include <stdbool.h>
#include <stdio.h>

#include "cgroup.h"
#include "policy_maps.h"

/*
 * Lists (dry_run) or removes the empty cgroups named as exec_cgroup_create
 * names them beneath parent (NULL: layout->unified), at any depth, and
 * beneath the caller's v1 memory cgroup, printing each path a line to out. Cgroups whose
 * creating process is still alive belong to a running cgward, and those
 * with processes left run on, confined: both are left alone. Returns how many could not be removed,
 * each reported on stderr, or negative errno (also reported there).
 */
int cgroup_gc(const struct cgroup_layout *layout, const char *parent, bool dry_run, FILE *out);

/*
 * Whether the cgward whose pid a run's cgroup name (or its policy) holds is
 * alive: while it is, the run is its. EPERM still means the process exists.
 */
bool exec_creator_alive(__u32 creator);

/*
 * Removes the exec policies from the plane's maps that no cgroup is bound to
 * any more and whose cgward is gone, printing "policy ID" a line to out.
 * Returns how many, or negative errno.
 */
int exec_policies_gc(const struct policy_maps *maps, FILE *out);

#endif
