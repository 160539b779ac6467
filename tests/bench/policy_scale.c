// SPDX-License-Identifier: GPL-2.0
/*
 * Policy at scale: loads and attaches cgward's programs, puts ROOTs (up to
 * 64) under one policy, and times binding CGROUPS cgroup ids to it with
 * policy_maps_bind_cgroup (median of REPS fills of the emptied map). Then it
 * runs CMD in a real cgroup that takes the place of one synthetic id, so
 * that CMD is enforced with CGROUPS entries and every root in the maps.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "cgward_abi.h"
#include "cgward.skel.h"
#include "loader.h"
#include "policy_maps.h"
#include "roots.h"
#include "spawn.h"

#define MAX_ROOTS 64
#define MAX_REPS  64
#define POLICY_ID 1
/* Far above any kernfs inode number, so that no synthetic id is a real cgroup's. */
#define SYNTHETIC_CGROUP_ID_BASE (1ULL << 48)
#define CGROUP_REMOVE_TIMEOUT_MS 5000

struct scale_options {
	long n_cgroups;
	int reps;
	char **root_paths;
	int n_roots;
	char **argv;
};

static const char usage[] = "usage: policy_scale CGROUPS REPS ROOT... -- CMD [ARGS...]\n";

static int parse_options(int argc, char **argv, struct scale_options *opt)
{
	int separator = 3;

	if (argc < 6)
		return -EINVAL;
	*opt = (struct scale_options){
	    .n_cgroups = strtol(argv[1], NULL, 10), .reps = atoi(argv[2]), .root_paths = &argv[3]};
	while (separator < argc && strcmp(argv[separator], "--") != 0)
		separator++;
	opt->n_roots = separator - 3;
	opt->argv = &argv[separator + 1];
	if (opt->n_cgroups < 1 || opt->reps < 1 || opt->reps > MAX_REPS || opt->n_roots < 1 ||
	    opt->n_roots > MAX_ROOTS || separator + 1 >= argc)
		return -EINVAL;
	return 0;
}

static int resolve_roots(const struct scale_options *opt, struct root_spec *roots)
{
	char err[PATH_MAX + 128];

	for (int i = 0; i < opt->n_roots; i++) {
		if (root_resolve(opt->root_paths[i], CGWARD_ACCESS_WRITE, &roots[i], err,
				 sizeof(err)) != 0) {
			fprintf(stderr, "policy_scale: %s\n", err);
			while (i--)
				root_close(&roots[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int bind_synthetic(const struct policy_maps *maps, long n_cgroups)
{
	for (long i = 0; i < n_cgroups; i++) {
		__u64 id = SYNTHETIC_CGROUP_ID_BASE + (__u64)i;
		struct cgward_cgroup_policy policy = {.policy_id = POLICY_ID, .boundary_id = id};
		int ret = policy_maps_bind_cgroup(maps, id, &policy);

		if (ret)
			return ret;
	}
	return 0;
}

static void unbind_synthetic(const struct policy_maps *maps, long n_cgroups)
{
	for (long i = 0; i < n_cgroups; i++)
		policy_maps_unbind_cgroup(maps, SYNTHETIC_CGROUP_ID_BASE + (__u64)i);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Fills the emptied map REPS times; the last fill stays in place. */
static int time_binds(const struct policy_maps *maps, const struct scale_options *opt,
		      double *median_ms)
{
	double ms[MAX_REPS], start;
	int ret;

	for (int rep = 0; rep < opt->reps; rep++) {
		if (rep > 0)
			unbind_synthetic(maps, opt->n_cgroups);
		start = now_ms();
		ret = bind_synthetic(maps, opt->n_cgroups);
		ms[rep] = now_ms() - start;
		if (ret) {
			fprintf(stderr, "policy_scale: bind: %s\n", strerror(-ret));
			return ret;
		}
	}
	qsort(ms, (size_t)opt->reps, sizeof(ms[0]), compare_doubles);
	*median_ms = ms[opt->reps / 2];
	return 0;
}

static int status_of(int wstatus)
{
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* CMD in a new cgroup bound in place of the last synthetic id; returns its exit status. */
static int run_enforced(const struct policy_maps *maps, const struct scale_options *opt)
{
	struct cgroup_layout layout;
	struct exec_cgroup cgroup;
	struct spawned child;
	char err[PATH_MAX + 128];
	sigset_t mask;
	int ret, wstatus, status = 125;

	ret = cgroup_layout_detect("/proc/self/mountinfo", &layout);
	if (ret == 0)
		ret = exec_cgroup_create(&layout, NULL, &(struct run_limits){0}, 0, &cgroup, err,
					 sizeof(err));
	else
		snprintf(err, sizeof(err), "no cgroup2 hierarchy: %s", strerror(-ret));
	if (ret) {
		fprintf(stderr, "policy_scale: %s\n", err);
		return status;
	}
	policy_maps_unbind_cgroup(maps, SYNTHETIC_CGROUP_ID_BASE + (__u64)opt->n_cgroups - 1);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	if (spawn_gated(opt->argv, &mask, NULL, -1, &child) != 0) {
		fprintf(stderr, "policy_scale: cannot start %s\n", opt->argv[0]);
	} else if (exec_cgroup_attach(&cgroup, child.pid, err, sizeof(err)) != 0 ||
		   policy_maps_bind_cgroup(maps, cgroup.id,
					   &(struct cgward_cgroup_policy){
					       .policy_id = POLICY_ID, .boundary_id = cgroup.id}) !=
		       0) {
		fprintf(stderr, "policy_scale: cannot enforce on %s\n", opt->argv[0]);
		spawn_abort(&child);
	} else if (spawn_release(&child) != 0) {
		fprintf(stderr, "policy_scale: cannot execute %s\n", opt->argv[0]);
		waitpid(child.pid, NULL, 0);
	} else if (waitpid(child.pid, &wstatus, 0) == child.pid) {
		status = status_of(wstatus);
	}
	policy_maps_unbind_cgroup(maps, cgroup.id);
	if (exec_cgroup_destroy(&cgroup, CGROUP_REMOVE_TIMEOUT_MS, err, sizeof(err)) != 0)
		fprintf(stderr, "policy_scale: %s\n", err);
	return status;
}

static int load_programs(struct cgward_bpf **skel, struct policy_maps *maps)
{
	char err[8192];
	int ret = loader_load(skel, err, sizeof(err));

	if (ret == 0)
		ret = loader_attach(*skel, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "policy_scale: %s\n", err);
		return ret;
	}
	maps->cgroup_policy_fd = bpf_map__fd((*skel)->maps.cgroup_policy);
	maps->write_roots_fd = bpf_map__fd((*skel)->maps.write_roots);
	maps->policy_info_fd = bpf_map__fd((*skel)->maps.policy_info);
	maps->exec_events_fd = bpf_map__fd((*skel)->maps.exec_events);
	maps->root_tags_fd = bpf_map__fd((*skel)->maps.root_tags);
	maps->container_started_fd = bpf_map__fd((*skel)->maps.container_started);
	return 0;
}

static int put_roots(const struct policy_maps *maps, const struct root_spec *roots, int n_roots)
{
	int ret = policy_maps_put_roots(maps, POLICY_ID, roots, (size_t)n_roots);

	if (ret)
		fprintf(stderr, "policy_scale: cannot put the roots: %s\n", strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct scale_options opt;
	struct root_spec roots[MAX_ROOTS];
	struct cgward_bpf *skel = NULL;
	struct policy_maps maps;
	double median_ms;
	int status = 125;

	if (parse_options(argc, argv, &opt) != 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (resolve_roots(&opt, roots) != 0)
		return 2;
	if (load_programs(&skel, &maps) == 0 && put_roots(&maps, roots, opt.n_roots) == 0 &&
	    time_binds(&maps, &opt, &median_ms) == 0) {
		printf("cgroups=%ld roots=%d reps=%d apply_ms_median=%.2f\n", opt.n_cgroups,
		       opt.n_roots, opt.reps, median_ms);
		fflush(stdout);
		status = run_enforced(&maps, &opt);
	}
	if (skel)
		loader_close(skel);
	for (int i = 0; i < opt.n_roots; i++)
		root_close(&roots[i]);
	return status;
}
