// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cgroup_placement.h"
#include "gc.h"

bool exec_creator_alive(__u32 creator)
{
	return creator && (!kill((pid_t)creator, 0) || errno == EPERM);
}

struct collection {
	bool dry_run;
	FILE *out;
	int failed;
};

static int collect_run(const char *path, pid_t creator, void *arg)
{
	struct collection *c = arg;
	int r;

	if (exec_creator_alive((__u32)creator))
		return 0;
	r = c->dry_run ? 0 : cgroup_remove_tree(path);
	/* Its processes outlived their cgward: they run on, confined, until they exit. */
	if (r == -EBUSY) {
		fprintf(stderr, "cgward: %s still has processes (confined): kept\n", path);
		return 0;
	}
	if (r) {
		fprintf(stderr, "cgward: could not remove cgroup %s: %s\n", path, strerror(-r));
		c->failed++;
		return 0;
	}
	fprintf(c->out, "%s\n", path);
	return 0;
}

/* Runs' cgroups are wherever their callers were: the whole tree beneath dir. */
static int collect_dir(const char *dir, bool dry_run, FILE *out)
{
	struct collection c = {.dry_run = dry_run, .out = out};
	int r = cgroup_each_run(dir, collect_run, &c);

	if (r < 0) {
		fprintf(stderr, "cgward: could not list cgroup %s: %s\n", dir, strerror(-r));
		return r;
	}
	return c.failed;
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
	return policy_maps_collect_execs(maps, exec_creator_alive, print_removed_policy, out);
}
