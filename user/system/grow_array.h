/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow by doubling, so that appending n items copies O(n) bytes. */
#ifndef CGWARD_GROW_ARRAY_H
#define CGWARD_GROW_ARRAY_H

#include <stddef.h>

/*
 * Makes room for need items of size bytes in *items, which has room for
 * *capacity: the capacity doubles (from 16) until it holds need. Returns 0,
 * or -ENOMEM with *items and *capacity as they were.
 */
int grow_array(void **items, size_t *capacity, size_t need, size_t size);

#endif
