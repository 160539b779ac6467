/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which event lines `cgward events` prints: each filter given must match its
 * field of the line. A "lost" line always passes: it says that events,
 * matching ones among them, were dropped.
 */
#ifndef CGWARD_EVENT_FILTER_H
#define CGWARD_EVENT_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct event_filter {
	const char *cgroup_glob; /* a selector glob (selector.h) over "cgroup", or NULL */
	const char *op;		 /* equal to "op", or NULL */
	const char *verdict;	 /* equal to "verdict", or NULL */
};

/* Checks the filter's values: a valid glob, a known op, deny or audit. 0 or -EINVAL with err. */
int event_filter_validate(const struct event_filter *f, char *err, size_t errlen);

/* Whether a JSON line passes; a line that is not a JSON object never does. */
bool event_filter_match(const struct event_filter *f, const char *line);

#endif
