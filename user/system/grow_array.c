// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow_array.h"

#define FIRST_CAPACITY 16

int grow_array(void **items, size_t *capacity, size_t need, size_t size)
{
	size_t cap = *capacity ? *capacity : FIRST_CAPACITY;
	void *grown;

	if (need <= *capacity)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	if (size && cap > SIZE_MAX / size)
		return -ENOMEM;
	grown = realloc(*items, cap * size);
	if (!grown)
		return -ENOMEM;
	*items = grown;
	*capacity = cap;
	return 0;
}
