// SPDX-License-Identifier: GPL-2.0
/* cgward status: the pinned links and, from the pinned maps, the policies in force. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "exit_codes.h"
#include "grow_array.h"
#include "plane.h"
#include "policy_maps.h"
#include "status_cmd.h"

static const char usage[] =
    "Usage: cgward status [--bpffs DIR]\n"
    "Show what the agent pinned under DIR (default " PLANE_DIR "): each program\n"
    "and whether its link is pinned (attached); the build of the plane (its ABI\n"
    "and object hash) and whether it is this cgward's; the policy file the agent\n"
    "installed, by path and the SHA-256 of its content, and the ids of its rules;\n"
    "and each policy in the maps: its rule's name and id, how many cgroups are\n"
    "bound to it, how many roots it has, and how many operations the kernel\n"
    "denied and audited under it since the agent installed it (a reload installs\n"
    "the rules anew, counting from zero).\n"
    "\n"
    "      --bpffs DIR  where the agent pinned its programs and maps\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: 0 every program is attached (the agent's readiness probe);\n"
    "1 not attached, or the pins cannot be read; 2 usage error.\n";

static const struct option long_options[] = {
    {"bpffs", required_argument, NULL, 'b'},
    {"help", no_argument, NULL, 'h'},
    {},
};

static void print_link(const char *prog, int link_fd, void *arg)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	(*(int *)arg)++;
	if (link_fd < 0) {
		printf("program %s: not attached\n", prog);
		return;
	}
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len) == 0)
		printf("program %s: attached (link %u, prog %u)\n", prog, info.id, info.prog_id);
	else
		printf("program %s: attached\n", prog);
}

struct policy_count {
	__u32 policy_id;
	unsigned long cgroups, roots;
};

struct policy_counts {
	struct policy_count *items;
	size_t n, capacity;
	bool failed;
};

static void count_policy(__u64 cgroup_id, __u32 policy_id, __u32 flags, void *arg)
{
	struct policy_counts *counts = arg;
	size_t i;

	(void)flags;
	for (i = 0; i < counts->n && counts->items[i].policy_id != policy_id; i++)
		;
	if (i == counts->n) {
		if (grow_array((void **)&counts->items, &counts->capacity, counts->n + 1,
			       sizeof(*counts->items))) {
			counts->failed = true;
			return;
		}
		counts->items[counts->n++] = (struct policy_count){.policy_id = policy_id};
	}
	if (cgroup_id)
		counts->items[i].cgroups++;
	else
		counts->items[i].roots++;
}

static int by_id(const void *a, const void *b)
{
	const struct policy_count *x = a, *y = b;

	return x->policy_id < y->policy_id ? -1 : x->policy_id > y->policy_id;
}

static void print_policy(const struct policy_maps *maps, const struct policy_count *count)
{
	struct cgward_policy_info info;

	if (policy_maps_get_info(maps, count->policy_id, &info)) {
		printf("policy %u: %lu cgroups bound, %lu roots\n", count->policy_id,
		       count->cgroups, count->roots);
		return;
	}
	printf("policy %.*s (id %u): %lu cgroups bound, %lu roots, %llu denied, %llu audited\n",
	       (int)sizeof(info.name), info.name, count->policy_id, count->cgroups, count->roots,
	       (unsigned long long)info.denied, (unsigned long long)info.audited);
}

/* The plane's build, against this cgward's: another build's is never adopted. */
static void print_plane_build(const char *dir)
{
	struct cgward_plane_info plane, own = plane_build_info();
	int ret = plane_read_info(dir, &plane);

	if (ret == -ENOENT || (ret == 0 && plane.abi_version == 0)) {
		printf("plane: not pinned\n");
		return;
	}
	if (ret) {
		printf("plane: cannot be read (%s)\n", strerror(-ret));
		return;
	}
	printf("plane: ABI %u, object %016llx", plane.abi_version,
	       (unsigned long long)plane.object_hash);
	if (plane.abi_version == own.abi_version && plane.object_hash == own.object_hash)
		printf(" (this cgward's)\n");
	else
		printf(" (this cgward: ABI %u, object %016llx)\n", own.abi_version,
		       (unsigned long long)own.object_hash);
}

static void print_agent_policy(const char *dir)
{
	struct plane_agent_policy policy;
	int ret = plane_get_agent_policy(dir, &policy);

	if (ret == -ENOENT) {
		printf("policy file: none installed by an agent\n");
		return;
	}
	if (ret) {
		printf("policy file: cannot be read (%s)\n", strerror(-ret));
		return;
	}
	printf("policy file %.*s: sha256 %.*s, %u rules", (int)sizeof(policy.path), policy.path,
	       (int)sizeof(policy.sha256), policy.sha256, policy.n_rules);
	if (policy.n_rules)
		printf(" (ids %u-%u)", policy.first_id, policy.first_id + policy.n_rules - 1);
	printf("\n");
}

static void print_policies(const char *dir)
{
	struct plane plane;
	struct policy_counts counts = {};
	const struct policy_maps *maps = &plane.maps;
	char err[4096 + 128];

	if (plane_open_pinned(dir, &plane, err, sizeof(err))) {
		printf("maps: not pinned (%s)\n", err);
		return;
	}
	if (policy_maps_visit(maps, count_policy, &counts) || counts.failed)
		printf("maps: cannot be read\n");
	if (counts.n)
		qsort(counts.items, counts.n, sizeof(*counts.items), by_id);
	for (size_t i = 0; i < counts.n; i++)
		print_policy(maps, &counts.items[i]);
	if (!counts.n)
		printf("policies: none\n");
	free(counts.items);
	plane_close(&plane);
}

int cmd_status(int argc, char **argv)
{
	const char *dir = PLANE_DIR;
	int c, expected = 0, attached;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case 'b':
			dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgward: status: unexpected argument '%s'\n%s", argv[optind],
			usage);
		return EXIT_USAGE;
	}
	attached = plane_links(dir, print_link, &expected);
	if (attached < 0) {
		fprintf(stderr, "cgward: status: %s\n", strerror(-attached));
		return EXIT_RUNTIME_ERROR;
	}
	print_plane_build(dir);
	print_agent_policy(dir);
	print_policies(dir);
	printf("%s: %d of %d programs attached\n", dir, attached, expected);
	return expected > 0 && attached == expected ? 0 : EXIT_RUNTIME_ERROR;
}
