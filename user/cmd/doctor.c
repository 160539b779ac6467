// SPDX-License-Identifier: GPL-2.0
/* cgward doctor: what this host supports, and whether cgward can enforce on it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "cgroup.h"
#include "doctor.h"
#include "exit_codes.h"
#include "cgward_abi.h"
#include "loader.h"
#include "plane.h"

static const char usage[] =
    "Usage: cgward doctor\n"
    "Check that this kernel can enforce write roots: BPF LSM active, kernel BTF,\n"
    "the BPF ring buffer and helpers the programs call (Linux 5.8+), cgroup2\n"
    "mounted, and a real load of cgward's BPF programs through the verifier, with\n"
    "its time, the optional hooks this kernel lacks with what stands in for them,\n"
    "what differs where a hook has an older signature, whether overlayfs' own\n"
    "writes (copy-up) are recognized, and whether the walk cache is on.\n"
    "\n"
    "Exit status: 0 when enforcement works; 1 when it cannot, with the reason.\n";

static void report(const char *what, bool ok, const char *detail)
{
	printf("%-12s %-4s %s\n", what, ok ? "ok" : "FAIL", detail);
}

static bool check_cgroups(void)
{
	struct cgroup_layout layout;
	char detail[2 * PATH_MAX + 64];
	bool ok = cgroup_layout_detect("/proc/self/mountinfo", &layout) == 0;

	if (!ok)
		snprintf(detail, sizeof(detail), "no cgroup2 hierarchy mounted");
	else if (layout.memory_v1[0])
		snprintf(detail, sizeof(detail), "hybrid: cgroup2 at %s, v1 memory at %s",
			 layout.unified, layout.memory_v1);
	else
		snprintf(detail, sizeof(detail), "cgroup2 at %s", layout.unified);
	report("cgroups", ok, detail);
	return ok;
}

/*
 * Not pinned is fine (the first exec or agent pins it), and so is another
 * build's plane of a layout this one reads; one of another layout is not.
 */
static bool check_plane(void)
{
	char err[PATH_MAX + 512];
	int ret = plane_check(PLANE_DIR, err, sizeof(err));
	bool ok = ret == 0 || ret == -ENOENT || ret == -EXDEV;

	if (ret == -ENOENT)
		report("plane", true, "not loaded: the first cgward exec or agent loads it");
	else
		report("plane", ok, ret == 0 ? "pinned under " PLANE_DIR ", this build's" : err);
	return ok;
}

static void report_hook_note(const char *prog, bool loaded, const char *note)
{
	char detail[256];

	snprintf(detail, sizeof(detail), "%s%s: %s", prog, loaded ? "" : " not loaded", note);
	report("hook", true, detail);
}

/* Closed either way; the line says whether copy-ups inside a root work. */
static void report_overlay(void)
{
	char detail[256];
	const char *why;

	if (loader_overlay_recognized(&why))
		snprintf(detail, sizeof(detail),
			 "recognized: copy-ups and overlayfs' own writes inside a root work");
	else
		snprintf(detail, sizeof(detail),
			 "not recognized (%s): writes inside a root that need a copy-up are denied",
			 why);
	report("overlayfs", true, detail);
}

/* The walk cache is speed alone: off, every write walks. */
static void report_walk_cache(const struct cgward_bpf *skel)
{
	char detail[256];
	const char *why;

	if (loader_walk_cache(skel, &why))
		snprintf(detail, sizeof(detail),
			 "on: a write in a directory written in since the last rename is judged "
			 "there");
	else
		snprintf(detail, sizeof(detail), "off (%s): every write walks to its root", why);
	report("walk cache", true, detail);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static bool check_bpf(void)
{
	struct cgward_bpf *skel;
	struct timespec start;
	char err[8192], detail[256];
	bool ok;

	ok = loader_probe(err, sizeof(err)) == 0;
	report("lsm", ok, ok ? "bpf is an active LSM, kernel BTF present" : err);
	if (!ok)
		return false;
	ok = loader_probe_features(err, sizeof(err)) == 0;
	report("features", ok, ok ? "BPF ring buffer and helpers present" : err);
	if (!ok)
		return false;
	report("walks", true,
	       loader_scalar_walks()
		   ? "state through a per-CPU map (no pointer arguments to global functions "
		     "before 5.13)"
		   : "state by pointer to global functions (5.13+)");
	clock_gettime(CLOCK_MONOTONIC, &start);
	ok = loader_load(&skel, err, sizeof(err)) == 0;
	snprintf(detail, sizeof(detail), "cgward's BPF programs pass the verifier (load: %.2f s)",
		 seconds_since(&start));
	report("programs", ok, ok ? detail : err);
	if (!ok)
		return false;
	loader_hook_notes(skel, report_hook_note);
	report_overlay();
	report_walk_cache(skel);
	loader_close(skel);
	return check_plane();
}

int cmd_doctor(int argc, char **argv)
{
	struct utsname uts;
	bool ok;

	if (argc > 1) {
		bool help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;

		fputs(usage, help ? stdout : stderr);
		return help ? 0 : EXIT_USAGE;
	}
	uname(&uts);
	report("kernel", true, uts.release);
	ok = check_cgroups();
	ok = check_bpf() && ok;
	printf("%s\n",
	       ok ? "cgward can enforce on this host" : "cgward cannot enforce on this host");
	return ok ? 0 : EXIT_RUNTIME_ERROR;
}
