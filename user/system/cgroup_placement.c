// SPDX-License-Identifier: GPL-2.0
/* Where a run's cgroup goes, and where runs are found (cgroup_placement.h). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup_placement.h"

/*
 * Whether uid could write dir's cgroup.procs. A group write bit counts
 * whatever the group (the caller's supplementary groups are not known here)
 * unless the group is root's: a doubt places the run higher, never lower.
 */
static int procs_writable(const char *dir, uid_t uid, gid_t gid, bool *writable)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &st))
		return -errno;
	*writable = (st.st_uid == uid && (st.st_mode & S_IWUSR)) ||
		    ((st.st_mode & S_IWGRP) && (st.st_gid != 0 || gid == 0)) ||
		    (st.st_mode & S_IWOTH);
	return 0;
}

/*
 * Appends the member path's next component to dir, unless the caller could
 * write it or it is the caller's leaf (last): *stop then, dir unchanged.
 */
static int descend(char *dir, size_t dirlen, const char *name, size_t len, uid_t uid, gid_t gid,
		   bool last, bool *stop)
{
	size_t at = strlen(dir);
	bool writable = false;
	int ret;

	*stop =
	    last && len == strlen(CGROUP_CALLER_LEAF) && !strncmp(name, CGROUP_CALLER_LEAF, len);
	if (*stop)
		return 0;
	if ((len == 2 && !strncmp(name, "..", 2)) || (len == 1 && name[0] == '.'))
		return -EXDEV; /* outside this cgroup namespace's root */
	if (at + 1 + len >= dirlen)
		return -ENAMETOOLONG;
	snprintf(dir + at, dirlen - at, "/%.*s", (int)len, name);
	ret = uid == 0 ? 0 : procs_writable(dir, uid, gid, &writable);
	if (ret || writable)
		dir[at] = '\0';
	*stop = writable;
	return ret;
}

int cgroup_run_parent(const struct cgroup_layout *layout, const char *member, uid_t uid, gid_t gid,
		      char *dir, size_t dirlen, char *err, size_t errlen)
{
	const char *name = member;
	bool stop = false;
	int ret = 0;

	if ((size_t)snprintf(dir, dirlen, "%s", layout->unified) >= dirlen)
		ret = -ENAMETOOLONG;
	while (!ret && !stop && *(name += strspn(name, "/"))) {
		size_t len = strcspn(name, "/");

		ret = descend(dir, dirlen, name, len, uid, gid,
			      name[len + strspn(name + len, "/")] == '\0', &stop);
		name += len;
	}
	if (ret)
		snprintf(
		    err, errlen, "cannot place a run beneath the caller's cgroup %s: %s", member,
		    ret == -EXDEV ? "it is outside the agent's cgroup namespace" : strerror(-ret));
	return ret;
}

/* The walk of cgroup_each_run below path (a PATH_MAX buffer it extends and restores). */
static int each_run_below(char *path, int (*fn)(const char *, pid_t, void *), void *arg)
{
	size_t at = strlen(path);
	struct dirent *entry;
	DIR *dir = opendir(path);
	pid_t creator;
	int ret = dir ? 0 : -errno, below;

	while (!ret && dir && (entry = readdir(dir))) {
		if (entry->d_type != DT_DIR || !strcmp(entry->d_name, ".") ||
		    !strcmp(entry->d_name, "..") || at + 1 + strlen(entry->d_name) >= PATH_MAX)
			continue;
		snprintf(path + at, PATH_MAX - at, "/%s", entry->d_name);
		if (exec_cgroup_name_parse(entry->d_name, &creator))
			ret = fn(path, creator, arg);
		else if ((below = each_run_below(path, fn, arg)) > 0)
			ret = below; /* one gone meanwhile is passed over */
		path[at] = '\0';
	}
	if (dir)
		closedir(dir);
	return ret;
}

int cgroup_each_run(const char *top, int (*fn)(const char *path, pid_t creator, void *arg),
		    void *arg)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s", top) >= sizeof(path))
		return -ENAMETOOLONG;
	return each_run_below(path, fn, arg);
}
