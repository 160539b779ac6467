/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plane's pins under its bpffs directory, private to user/plane/: the
 * table of pinned maps, their paths, the load of a build's programs over
 * them, and the programs of the pinned links. plane.c loads, adopts and
 * unloads with them; plane_upgrade.c replaces the programs and migrates maps.
 */
#ifndef CGWARD_PLANE_PINS_H
#define CGWARD_PLANE_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct cgward_bpf;

/* Indexes in pinned_maps. */
#define CGROUP_POLICY_MAP 0
#define PLANE_INFO_MAP	  8
#define N_PINNED_MAPS	  (PLANE_INFO_MAP + 1) /* plane_info is the last */

/* The fd of a map that plane_open_pinned does not open. */
#define NOT_KEPT ((size_t)-1)

struct pinned_map {
	const char *name;
	size_t fd; /* offsetof its descriptor in struct plane (plane_open_pinned), or NOT_KEPT */
};

extern const struct pinned_map pinned_maps[N_PINNED_MAPS];

/* dir/kind/name (dir/kind when name is NULL): 0 or -ENAMETOOLONG. */
int pin_path(char *out, size_t outlen, const char *dir, const char *kind, const char *name);

/* The pin of map i of pinned_maps, or of the map migrating into its place. */
int map_pin_path(char *out, size_t outlen, const char *dir, size_t i, bool staged);

/* -ESTALE, err saying that the plane under dir is what, and how to replace it. */
int refuse_stale(const char *dir, const char *what, char *err, size_t errlen);

/* plane_info, written: this build's ABI, object and number of links. */
int write_plane_info(struct cgward_bpf *skel, char *err, size_t errlen);

/*
 * Loads the programs with their maps pinned under dir: libbpf reuses a map
 * already pinned at its path (one left by a load that stopped half way, or
 * the plane of a build being upgraded), and fails a load whose map does not
 * match the pinned one's type and sizes. The maps staged[i] (NULL: none)
 * are pinned under their staged names instead, created there unless a
 * migration that stopped half way left them.
 */
int load_with_pinned_maps(const char *dir, const bool *staged, struct cgward_bpf **loaded,
			  char *err, size_t errlen);

#define MAX_LINKS 128 /* more than the programs: one link each */

/* The ids of the programs of the links pinned under dir, to tell when they are detached. */
size_t pinned_prog_ids(const char *dir, __u32 *ids);

/*
 * Unpinning drops the last reference, but the kernel may release a link
 * later, from an RCU callback's work item (seen on the PREEMPT_RT kernel).
 * A link's id goes before it is detached, its program's only after: the
 * programs' ids tell when enforcement has ended. Each hook's last detach
 * waits for RCU-tasks grace periods, one hook after the other: seconds in
 * all under emulation, more than 5 s beside another emulated VM.
 */
#define PROGRAMS_RELEASE_WAIT_MS 60000

/* 0 once none of the programs ids[0..n) is loaded; -EBUSY after PROGRAMS_RELEASE_WAIT_MS. */
int wait_programs_released(const __u32 *ids, size_t n);

#endif
