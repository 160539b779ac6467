// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "gc.h"

/*
 * The creator's pid is in the name: while it lives, the cgroup is a running
 * cgward's. EPERM still means the process exists.
 */
static bool creator_alive(__u32 creator)
{
	return creator && (!kill((pid_t)creator, 0) || errno == EPERM);
}

static bool is_leftover(int dirfd, const char *name)
{
	struct stat st;
	pid_t creator;

	return exec_cgroup_name_parse(name, &creator) && !creator_alive((__u32)creator) &&
	       !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

static int collect_dir(const char *dir, bool dry_run, FILE *out)
{
	char path[PATH_MAX];
	struct dirent *entry;
	int failed = 0, r;
	DIR *listing;

	listing = opendir(dir);
	if (!listing) {
		r = -errno;
		fprintf(stderr, "cgward: could not list cgroup %s: %s\n", dir, strerror(-r));
		return r;
	}
	while ((entry = readdir(listing))) {
		if (!is_leftover(dirfd(listing), entry->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		r = dry_run ? 0 : cgroup_remove_tree(path);
		/* Its processes outlived their cgward: they run on, confined, until they exit. */
		if (r == -EBUSY) {
			fprintf(stderr, "cgward: %s still has processes (confined): kept\n", path);
			continue;
		}
		if (r) {
			fprintf(stderr, "cgward: could not remove cgroup %s: %s\n", path,
				strerror(-r));
			failed++;
			continue;
		}
		fprintf(out, "%s\n", path);
	}
	closedir(listing);
	return failed;
}

int cgroup_gc(const struct cgroup_layout *layout, const char *parent, bool dry_run, FILE *out)
{
	char memory_parent[PATH_MAX], err[PATH_MAX + 128];
	int failed, memory_failed, r;

	failed = collect_dir(parent ? parent : layout->unified, dry_run, out);
	if (failed < 0 || !layout->memory_v1[0])
		return failed;
	r = cgroup_memory_v1_self(layout, memory_parent, sizeof(memory_parent), err, sizeof(err));
	if (r) {
		fprintf(stderr, "cgward: %s\n", err);
		return r;
	}
	memory_failed = collect_dir(memory_parent, dry_run, out);
	return memory_failed < 0 ? memory_failed : failed + memory_failed;
}

static void print_removed_policy(__u32 policy_id, void *arg)
{
	fprintf(arg, "policy %u\n", policy_id);
}

int exec_policies_gc(const struct policy_maps *maps, FILE *out)
{
	return policy_maps_collect_execs(maps, creator_alive, print_removed_policy, out);
}
