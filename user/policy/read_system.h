/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system set: what programs need to start and run, readable in a run
 * that confines its reads unless it asks for none (--read-system none).
 * docs/exec.md lists it, and why each entry is there.
 */
#ifndef CGWARD_READ_SYSTEM_H
#define CGWARD_READ_SYSTEM_H

#include <stddef.h>

#include "roots.h"

/* The sets a run may read besides its roots, as --read-system and read_system: name them. */
enum read_system_set { READ_SYSTEM_DEFAULT, READ_SYSTEM_NONE, READ_SYSTEM_SETS };
extern const char *const read_system_words[READ_SYSTEM_SETS];
#define READ_SYSTEM_CHOICES "default or none"

/* At most this many entries: the set's length. */
#define READ_SYSTEM_MAX 24

/*
 * Appends the system set's entries to roots[*n..max) as readable roots:
 * each that exists and is no symbolic link (a merged /usr's /bin is in
 * /usr), is not one of roots[0..*n) already and lies inside none of their
 * hidden paths, where hiding wins. Returns 0, or -E2BIG with err set.
 */
int read_system_add(struct root_spec *roots, size_t *n, size_t max, char *err, size_t errlen);

#endif
