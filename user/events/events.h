/* SPDX-License-Identifier: GPL-2.0 */
/* Deny events: from the ring buffer's records to JSON lines. */
#ifndef CGWARD_EVENTS_H
#define CGWARD_EVENTS_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "cgward_abi.h"
#include "json.h"
#include "roots.h"

/* What the kernel's record does not carry: names for the ids in it. */
struct event_context {
	const struct root_spec *roots; /* to name the deciding root */
	size_t n_roots;
	const char *cgroup_path; /* relative to the cgroup2 root */
	const char *policy_name;
	/* A Kubernetes container's namespace, pod and container names (its bundle's), or NULL. */
	const char *k8s_namespace, *pod_name, *container_name;
	__s64 boot_to_realtime_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	/*
	 * When set (the agent: many cgroups and policies), names an event's
	 * cgroup_id and policy_id: it overrides roots, n_roots, cgroup_path and
	 * policy_name for that event, leaving NULL what it does not know.
	 */
	void (*lookup)(const struct cgward_event *e, struct event_context *names, void *arg);
	void *lookup_arg;
};

const char *event_op_name(__u16 op);
const char *event_reason_name(__u16 reason);
__s64 event_clock_offset(void);

/* Formats one record as a JSON object; -EINVAL when the record is malformed. */
int event_to_json(const void *record, size_t size, const struct event_context *ctx,
		  struct json_buf *out);

/* The line that reports count events lost to a full ring buffer. */
void event_lost_to_json(__u64 count, const struct event_context *ctx, struct json_buf *out);

#endif
