// SPDX-License-Identifier: GPL-2.0
/* cgward gc: the command line of cgroup_gc(). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "gc.h"
#include "gc_cmd.h"

static const char usage[] =
    "Usage: cgward gc [--dry-run] [--cgroup-parent DIR]\n"
    "Remove the cgward-* cgroups (and their v1 memory cgroups) left behind by\n"
    "cgward exec runs whose process is gone; cgroups of live runs are kept.\n"
    "\n"
    "  -n, --dry-run            list them, remove nothing\n"
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
	return ret == 0 ? 0 : EXIT_RUNTIME_ERROR;
}
