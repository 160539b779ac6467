// SPDX-License-Identifier: GPL-2.0
/* cgward gc: the command line of cgroup_gc(). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "gc.h"
#include "gc_cmd.h"
#include "plane.h"

static const char usage[] =
    "Usage: cgward gc [--dry-run] [--cgroup-parent DIR]\n"
    "Remove what cgward exec runs that were killed (SIGKILL, the OOM killer) left\n"
    "behind: their empty cgward-* cgroups (and v1 memory cgroups), then their\n"
    "policies in the plane's maps once no cgroup is bound to them. Cgroups of live\n"
    "runs are kept, and so are those whose command still runs: it stays confined\n"
    "until it exits. The agent does the same every minute.\n"
    "\n"
    "  -n, --dry-run            list the cgroups, remove nothing\n"
    "      --cgroup-parent DIR  look beneath this cgroup2 directory (default: the root)\n"
    "  -h, --help               this text\n"
    "\n"
    "Exit status: 0 when every one was removed (or listed); 1 when some could not\n"
    "be removed (each is named on stderr); 2: usage error.\n";

static const struct option long_options[] = {
    {"dry-run", no_argument, NULL, 'n'},
    {"cgroup-parent", required_argument, NULL, 'p'},
    {"help", no_argument, NULL, 'h'},
    {},
};

/* The policies of runs that are gone, when a plane is pinned. */
static int gc_policies(void)
{
	struct plane plane;
	char err[PATH_MAX + 128];
	int ret;

	if (plane_open_pinned(PLANE_DIR, &plane, err, sizeof(err)))
		return 0;
	ret = exec_policies_gc(&plane.maps, stdout);
	if (ret < 0)
		fprintf(stderr, "cgward: gc: the plane's maps: %s\n", strerror(-ret));
	plane_close(&plane);
	return ret;
}

int cmd_gc(int argc, char **argv)
{
	struct cgroup_layout layout;
	const char *parent = NULL;
	bool dry_run = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "nh", long_options, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'p':
			parent = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	ret = cgroup_layout_detect("/proc/self/mountinfo", &layout);
	if (ret) {
		fprintf(stderr, "cgward: gc: no cgroup2 hierarchy mounted: %s\n", strerror(-ret));
		return EXIT_RUNTIME_ERROR;
	}
	ret = cgroup_gc(&layout, parent, dry_run, stdout);
	if (ret < 0)
		fprintf(stderr, "cgward: gc: %s\n", strerror(-ret));
	if (!dry_run && gc_policies() < 0)
		ret = ret ? ret : -EIO;
	return ret == 0 ? 0 : EXIT_RUNTIME_ERROR;
}
