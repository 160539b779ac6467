/* SPDX-License-Identifier: GPL-2.0 */
/* The time base of deadlines and back-offs: CLOCK_MONOTONIC, which no clock change moves. */
#ifndef CGWARD_CLOCK_H
#define CGWARD_CLOCK_H

#include <linux/types.h>

/* CLOCK_MONOTONIC in milliseconds. */
__u64 monotonic_ms(void);

#endif
