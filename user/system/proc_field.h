/* SPDX-License-Identifier: GPL-2.0 */
/* "Name: numbers" lines of the kernel's files: /proc/<pid>/status, fdinfo, cgroup.events. */
#ifndef CGWARD_PROC_FIELD_H
#define CGWARD_PROC_FIELD_H

/* The first numbers after field at the start of a line of path; -ENOENT when absent. */
int read_proc_field(const char *path, const char *field, long values[2]);

#endif
