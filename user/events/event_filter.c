// SPDX-License-Identifier: GPL-2.0
#include "event_filter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "events.h"
#include "selector.h"

/* The agent's own lines, beside the kernel's operations. */
static const char *const agent_ops[] = {"lost", "reload", "exec_request", "limit"};

static bool known_op(const char *op)
{
	if (strcmp(op, "unknown") == 0)
		return false; /* what event_op_name() says of an op it has no name for */
	for (__u16 i = 0; i < CGWARD_OP_MAX; i++)
		if (strcmp(op, event_op_name(i)) == 0)
			return true;
	for (size_t i = 0; i < sizeof(agent_ops) / sizeof(agent_ops[0]); i++)
		if (strcmp(op, agent_ops[i]) == 0)
			return true;
	return false;
}

int event_filter_validate(const struct event_filter *f, char *err, size_t errlen)
{
	char why[256];

	if (f->cgroup_glob && selector_validate(f->cgroup_glob, why, sizeof(why))) {
		snprintf(err, errlen, "--cgroup '%s': %s", f->cgroup_glob, why);
		return -EINVAL;
	}
	if (f->op && !known_op(f->op)) {
		snprintf(err, errlen, "--op '%s': not an operation events have", f->op);
		return -EINVAL;
	}
	if (f->verdict && strcmp(f->verdict, "deny") != 0 && strcmp(f->verdict, "audit") != 0) {
		snprintf(err, errlen, "--verdict '%s': deny or audit", f->verdict);
		return -EINVAL;
	}
	return 0;
}

static bool field_is(json_t *event, const char *key, const char *want)
{
	const char *value = json_string_value(json_object_get(event, key));

	return value && strcmp(value, want) == 0;
}

static bool passes(const struct event_filter *f, json_t *event)
{
	const char *cgroup;

	if (field_is(event, "op", "lost"))
		return true;
	if (f->op && !field_is(event, "op", f->op))
		return false;
	if (f->verdict && !field_is(event, "verdict", f->verdict))
		return false;
	if (f->cgroup_glob) {
		cgroup = json_string_value(json_object_get(event, "cgroup"));
		return cgroup && selector_match(f->cgroup_glob, cgroup);
	}
	return true;
}

bool event_filter_match(const struct event_filter *f, const char *line)
{
	json_t *event = json_loads(line, JSON_DECODE_ANY, NULL);
	bool match = json_is_object(event) && passes(f, event);

	json_decref(event);
	return match;
}
