/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzz targets' assertion: a failed check is a crash libFuzzer records. */
#ifndef CGWARD_FUZZ_CHECK_H
#define CGWARD_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

#endif
