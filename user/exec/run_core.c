// SPDX-License-Identifier: GPL-2.0
/* A run's enforcement, from its claimed policy id to its parked ring (run_core.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cgroup_placement.h"
#include "plane.h"
#include "ring_reader.h"
#include "run_core.h"

void run_core_init(struct run_core *core, const struct policy_maps *maps, uid_t uid)
{
	*core = (struct run_core){.maps = maps, .uid = uid, .ring_fd = -1};
}

static void *insert_ring(void *arg)
{
	struct run_core *core = arg;

	core->ring_insert.ret =
	    policy_maps_put_exec_ring(core->maps, core->policy_id, core->ring_fd);
	return NULL;
}

/* The thread blocks every signal: they are the caller's threads', as before it. */
static int start_ring_insert(struct run_core *core)
{
	sigset_t all, previous;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &previous);
	ret = -pthread_create(&core->ring_insert.thread, NULL, insert_ring, core);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	core->ring_insert.started = ret == 0;
	return ret;
}

int run_core_claim(struct run_core *core, const char *plane_dir)
{
	int lock = plane_lock_claims(plane_dir);
	int ret = lock < 0 ? lock
			   : policy_maps_claim_exec(core->maps, "exec", (__u32)getpid(), core->uid,
						    &core->policy_id, &core->ring_fd);

	if (lock >= 0)
		close(lock);
	if (ret)
		return ret;
	/*
	 * A parked ring's reader left nothing unread that was its own, but
	 * records may have come after: gone before the new run's reader maps
	 * it, so that neither root's reader nor an ordinary user's (given the
	 * ring by the agent) sees them.
	 */
	if (core->ring_fd >= 0)
		return ring_reader_skip_unread(core->ring_fd);
	/* No name: libbpf would load a probe program to learn whether names are supported. */
	core->ring_fd =
	    bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, CGWARD_EXEC_RING_SIZE, NULL);
	return core->ring_fd < 0 ? -errno : start_ring_insert(core);
}

int run_core_put_roots(struct run_core *core, const struct root_spec *roots, size_t n_roots)
{
	if (core->n_installed == RUN_CORE_ROOT_LISTS)
		return -E2BIG;
	core->installed[core->n_installed].roots = roots;
	core->installed[core->n_installed++].n = n_roots;
	return policy_maps_put_roots(core->maps, core->policy_id, roots, n_roots);
}

int run_core_put_private_tmp(struct run_core *core, const struct private_tmp_report *report,
			     char *err, size_t errlen)
{
	int ret;

	size_t n = private_tmp_roots(report, &core->own_roots[core->n_own_roots]);

	ret = policy_maps_put_roots(core->maps, core->policy_id,
				    &core->own_roots[core->n_own_roots], n);
	core->n_own_roots += n;
	if (ret)
		snprintf(err, errlen, "--private-tmp: cannot install its roots: %s",
			 strerror(-ret));
	return ret;
}

void run_core_note_private_tmp(struct run_core *core, const struct private_tmp_report *report)
{
	core->n_own_roots += private_tmp_roots(report, &core->own_roots[core->n_own_roots]);
	core->roots_elsewhere = false;
}

int run_core_create_cgroup(struct run_core *core, const struct cgroup_layout *layout,
			   const char *parent, const char *member, gid_t gid,
			   const struct run_limits *limits, char *err, size_t errlen)
{
	char within[PATH_MAX];
	int ret = parent ? 0
			 : cgroup_run_parent(layout, member, core->uid, gid, within, sizeof(within),
					     err, errlen);

	if (ret == 0)
		ret = exec_cgroup_create(layout, parent ?: within, limits, core->uid, &core->cgroup,
					 err, errlen);

	core->cgroup_created = ret == 0;
	return ret;
}

/* Whether a root list installed hides a path. */
static bool hides_paths(const struct run_core *core)
{
	for (size_t i = 0; i < core->n_installed; i++) {
		for (size_t j = 0; j < core->installed[i].n; j++) {
			if (core->installed[i].roots[j].access == CGWARD_ACCESS_HIDDEN)
				return true;
		}
	}
	return false;
}

/* The run's cgroup directory as a readable root of its policy. */
static int put_cgroup_readable(struct run_core *core, char *err, size_t errlen)
{
	struct root_spec *root = &core->own_roots[core->n_own_roots];
	int ret = root_resolve(core->cgroup.path, CGWARD_ACCESS_READ, root, err, errlen);

	if (ret)
		return ret;
	ret = policy_maps_put_roots(core->maps, core->policy_id, root, 1);
	root_close(root); /* tagged now; the cgroup lives as long as the binding */
	if (ret)
		snprintf(err, errlen, "cannot make the run's cgroup readable: %s", strerror(-ret));
	else
		core->n_own_roots++;
	return ret;
}

int run_core_bind(struct run_core *core, __u32 flags, __u64 dropped_caps, char *err, size_t errlen)
{
	bool judge_reads = hides_paths(core) || (flags & CGWARD_POLICY_READ_ROOTS);
	int ret = flags & CGWARD_POLICY_READ_ROOTS ? put_cgroup_readable(core, err, errlen) : 0;

	if (ret)
		return ret;
	ret = policy_maps_bind_exec_cgroup(core->maps, core->cgroup.id, core->policy_id,
					   flags | (judge_reads ? CGWARD_POLICY_JUDGE_READS : 0),
					   dropped_caps);
	if (ret)
		snprintf(err, errlen, "cannot bind the cgroup: %s", strerror(-ret));
	return ret;
}

int run_core_ring_ready(struct run_core *core)
{
	if (core->ring_insert.started) {
		pthread_join(core->ring_insert.thread, NULL);
		core->ring_insert.started = false;
	}
	return core->ring_insert.ret;
}

__u64 run_core_events_lost(const struct run_core *core)
{
	struct cgward_policy_info info;

	if (!core->policy_id || policy_maps_get_info(core->maps, core->policy_id, &info))
		return 0;
	return info.events_lost;
}

int run_core_end(struct run_core *core, bool *oom_killed, char *err, size_t errlen)
{
	int ret;

	run_core_ring_ready(core); /* a run that failed before its command started */
	*oom_killed = false;
	if (!core->cgroup_created)
		return 0;
	*oom_killed = exec_cgroup_oom_killed(&core->cgroup);
	ret = exec_cgroup_destroy(&core->cgroup, RUN_CORE_REMOVE_TIMEOUT_MS, err, errlen);
	if (ret) {
		core->policy_kept = true;
		return ret;
	}
	policy_maps_unbind_cgroup(core->maps, core->cgroup.id);
	core->cgroup_created = false;
	return 0;
}

void run_core_release(struct run_core *core)
{
	const struct root_spec *roots = core->installed[0].roots;
	size_t n_roots = core->installed[0].n;

	if (!core->policy_id || core->policy_kept)
		return;
	policy_maps_delete_roots(core->maps, core->policy_id, core->own_roots, core->n_own_roots);
	for (size_t i = 1; i < core->n_installed; i++)
		policy_maps_delete_roots(core->maps, core->policy_id, core->installed[i].roots,
					 core->installed[i].n);
	if (core->roots_elsewhere || core->n_installed == 0)
		roots = NULL; /* every root of the policy, found by a walk */
	if (core->ring_fd >= 0 && core->ring_insert.ret == 0)
		policy_maps_park_exec(core->maps, core->policy_id, roots, n_roots, core->uid,
				      core->ring_fd);
	else
		policy_maps_delete_exec(core->maps, core->policy_id, roots, n_roots);
	core->policy_id = 0;
}

void run_core_close(struct run_core *core)
{
	if (core->ring_fd >= 0)
		close(core->ring_fd);
	core->ring_fd = -1;
}
