// SPDX-License-Identifier: GPL-2.0
/* cgward load and cgward unload: the plane's lifecycle, by hand. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "plane.h"
#include "plane_cmd.h"

static const char load_usage[] =
    "Usage: cgward load [--bpffs DIR]\n"
    "Load, attach and pin the enforcement plane (the BPF programs and maps that\n"
    "cgward agent and every cgward exec share), or find it pinned already.\n"
    "cgward exec and cgward agent load it themselves when it is missing; loading\n"
    "it ahead (at boot) spares the first of them the verifier's time.\n"
    "\n"
    "      --bpffs DIR  where it is pinned (default " PLANE_DIR ")\n"
    "  -h, --help       this text\n"
    "\n"
    "A plane pinned by another cgward build whose map layout this one reads is\n"
    "upgraded (or downgraded) in place: this build's programs are attached, each\n"
    "before the other's is detached, and the maps, with every binding, are kept.\n"
    "\n"
    "Exit status: 0 pinned; 125 it cannot be loaded, or a plane of a map layout\n"
    "this cgward cannot read is pinned there (the message says how to proceed);\n"
    "2 usage.\n";

static const char unload_usage[] =
    "Usage: cgward unload [--force] [--bpffs DIR]\n"
    "Remove the enforcement plane: its programs are detached and its maps freed.\n"
    "Every cgroup bound to a policy (an agent's rules, running cgward exec\n"
    "commands) is unenforced from then on, so this refuses while any is bound.\n"
    "\n"
    "  -f, --force      unload even though cgroups are bound\n"
    "      --bpffs DIR  where it is pinned (default " PLANE_DIR ")\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: 0 unloaded (or nothing pinned); 1 cgroups are bound (without\n"
    "--force), or the pins could not be removed; 2 usage error.\n";

static const struct option long_options[] = {
    {"bpffs", required_argument, NULL, 'b'},
    {"force", no_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {},
};

/* Returns 0 to run, 1 when --help was shown, negative on a usage error. */
static int parse_options(int argc, char **argv, const char *usage, const char **dir, bool *force)
{
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, force ? "fh" : "h", long_options, NULL)) != -1) {
		if (c == 'b') {
			*dir = optarg;
		} else if (c == 'f' && force) {
			*force = true;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		} else {
			fputs(usage, stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgward: unexpected argument '%s'\n%s", argv[optind], usage);
		return -EINVAL;
	}
	return 0;
}

int cmd_load(int argc, char **argv)
{
	const char *dir = PLANE_DIR;
	struct plane plane;
	char err[PATH_MAX + 8192];
	int ret = parse_options(argc, argv, load_usage, &dir, NULL);

	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	ret = plane_open(dir, true, &plane, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cgward: %s\n", err);
		return EXIT_SETUP_FAILED;
	}
	if (plane.upgraded_from)
		fprintf(stderr,
			"cgward: load: upgraded in place under %s: %d programs of this build "
			"replaced those of object %016llx, maps and bindings kept\n",
			dir, plane.links_attached, (unsigned long long)plane.upgraded_from);
	else if (plane.links_attached)
		fprintf(stderr, "cgward: load: attached %d programs, pinned under %s\n",
			plane.links_attached, dir);
	else
		fprintf(stderr, "cgward: load: already pinned under %s\n", dir);
	plane_close(&plane);
	return 0;
}

int plane_cmd_unload(const char *dir, bool force)
{
	char err[PATH_MAX + 256];

	if (plane_unload(dir, force, err, sizeof(err))) {
		fprintf(stderr, "cgward: %s\n", err);
		return EXIT_RUNTIME_ERROR;
	}
	fprintf(stderr, "cgward: unloaded %s: enforcement ended\n", dir);
	return 0;
}

int cmd_unload(int argc, char **argv)
{
	const char *dir = PLANE_DIR;
	bool force = false;
	int ret = parse_options(argc, argv, unload_usage, &dir, &force);

	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	return plane_cmd_unload(dir, force);
}
