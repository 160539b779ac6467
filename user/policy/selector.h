/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which cgroups a policy selects: cgroup2 path globs matched against a cgroup
 * path relative to the cgroup2 root ("/ci.slice/job-1.scope"), and the forms
 * of the Kubernetes pod UIDs and container IDs a selector may name
 * (pod_identity.h reads those from a cgroup path).
 */
#ifndef CGWARD_SELECTOR_H
#define CGWARD_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Checks a cgroup glob: starts with '/', no empty component, '**' only as a
 * whole component, no '***', balanced '[...]', no trailing '\'. Returns 0 or
 * -EINVAL with the reason in err.
 */
int selector_validate(const char *glob, char *err, size_t errlen);

/*
 * Whether a glob accepted by selector_validate matches cgroup_path. '*', '?'
 * and '[...]' match within one component; '**' matches zero or more whole
 * components. Runs in O(pattern * path) steps: no exponential backtracking.
 */
bool selector_match(const char *glob, const char *cgroup_path);

/*
 * A pod UID is a lowercase UUID (8-4-4-4-12 hex digits), or 32 lowercase hex
 * digits for a static pod. Returns 0 or -EINVAL.
 */
int selector_validate_pod_uid(const char *pod_uid, char *err, size_t errlen);

/* A container ID is 64 lowercase hex digits. Returns 0 or -EINVAL. */
int selector_validate_container_id(const char *container_id, char *err, size_t errlen);

#endif
