// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "clock.h"

__u64 monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (__u64)now.tv_sec * 1000 + (__u64)now.tv_nsec / 1000000;
}
