/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgward exec --learn: a run whose reads and writes outside its roots are
 * audited, not denied, and the roots that would have let it run with no
 * deny, proposed from those audit events at its end.
 */
#ifndef CGWARD_LEARN_H
#define CGWARD_LEARN_H

#include <stdio.h>
#include <linux/types.h>

#include "roots.h"

struct learn {
	char **reads;  /* what a read needs: a directory, or a file in a shallow one */
	char **writes; /* the directories written in */
	char **secrets;
	char **shallow_writes; /* writes in /, a top-level directory or the home: never a root */
	size_t n_reads, n_writes, n_secrets, n_shallow_writes;
	size_t cap_reads, cap_writes, cap_secrets, cap_shallow_writes;
	unsigned long others; /* audited operations that name no path to learn from */
	char home[PATH_MAX];
};

void learn_init(struct learn *learn);

/* An event_observe_fn: one record of the run's ring buffer. */
void learn_note(void *arg, const void *record, size_t size);

/*
 * Writes the proposal to out: the run's roots (those it was given among
 * them) as cgward exec options and as a policy rule, and what was left out
 * (secrets, writes that no root should cover, other operations). lost: the
 * events the kernel could not queue, which the proposal misses.
 */
void learn_report(struct learn *learn, const struct root_spec *roots, size_t n_roots, __u64 lost,
		  FILE *out);

void learn_free(struct learn *learn);

#endif
