// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc_field.h"

int read_proc_field(const char *path, const char *field, long values[2])
{
	char line[256];
	size_t len = strlen(field);
	FILE *f = fopen(path, "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, len) == 0 &&
		    sscanf(line + len, "%ld %ld", &values[0], &values[1]) >= 1) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}
