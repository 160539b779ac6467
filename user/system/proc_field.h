/* SPDX-License-Identifier: GPL-2.0 */
/* "Name: numbers" lines of the kernel's files: /proc/<pid>/status, fdinfo, cgroup.events. */
#ifndef CGWARD_PROC_FIELD_H
#define CGWARD_PROC_FIELD_H

/* The first numbers after field at the start of a line of path; -ENOENT when absent. */
int read_proc_field(const char *path, const char *field, long values[2]);

/*
 * The same for n fields (1 to 64) of one reading of path (the kernel
 * writes a /proc status file whole for each): values[i] for fields[i];
 * -ENOENT when one is absent.
 */
int read_proc_fields(const char *path, size_t n, const char *const *fields, long (*values)[2]);

#endif
