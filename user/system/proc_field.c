// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc_field.h"

int read_proc_fields(const char *path, size_t n, const char *const *fields, long (*values)[2])
{
	unsigned long long missing = n < 64 ? (1ULL << n) - 1 : ~0ULL;
	char line[256];
	FILE *f;

	if (n == 0 || n > 64)
		return -EINVAL;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (missing && fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(fields[i]);

			if ((missing & (1ULL << i)) && strncmp(line, fields[i], len) == 0 &&
			    sscanf(line + len, "%ld %ld", &values[i][0], &values[i][1]) >= 1)
				missing &= ~(1ULL << i);
		}
	}
	fclose(f);
	return missing ? -ENOENT : 0;
}

int read_proc_field(const char *path, const char *field, long values[2])
{
	return read_proc_fields(path, 1, &field, (long(*)[2])values);
}
