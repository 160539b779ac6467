/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enforcement plane: one set of programs and maps per host, attached
 * once and pinned in bpffs, shared by `cgward agent` and every `cgward exec`.
 * Whichever needs it first loads and pins it; the others adopt it. It stays
 * until `cgward unload`.
 *
 * Pins: DIR/maps/NAME and DIR/links/PROGRAM under a bpffs directory
 * (default /sys/fs/bpf/cgward, root's only, and bpffs is never writable
 * from inside a boundary).
 */
#ifndef CGWARD_PLANE_H
#define CGWARD_PLANE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "policy_maps.h"

#define PLANE_DIR "/sys/fs/bpf/cgward"

struct plane {
	struct policy_maps maps;
	int deny_events_fd;  /* every event of the host, for the agent */
	int lost_events_fd;  /* per-CPU count of those that did not fit */
	int links_attached;  /* links this call attached and pinned: 0 when it adopted */
	__u64 upgraded_from; /* the object hash of the build whose programs it replaced, or 0 */
};

/*
 * Adopts the plane pinned under dir, or loads, attaches and pins it when
 * none is (under a lock on dir, so that of two first callers one loads and
 * the other adopts). A plane of another build with this map layout (ABI)
 * is adopted as it is, unless own (the plane's owners: cgward load and the
 * agent), which upgrades or downgrades it in place to this build's
 * programs; one of an older layout that this build reads
 * (CGWARD_ABI_UPGRADES_FROM) is upgraded in place by any caller. A plane of
 * a layout this build cannot read is refused (-ESTALE, err says how to
 * proceed): its maps are never misread. The fds are the caller's
 * (plane_close).
 */
int plane_open(const char *dir, bool own, struct plane *plane, char *err, size_t errlen);

/*
 * What is pinned under dir: 0 a complete plane of this build, -ENOENT none
 * (or one being loaded), -EXDEV another build's that this one adopts or
 * upgrades (err says which), -ESTALE one of a layout this build cannot read.
 */
int plane_check(const char *dir, char *err, size_t errlen);

/* This cgward's own: CGWARD_ABI_VERSION and CGWARD_OBJECT_HASH (n_links is 0). */
struct cgward_plane_info plane_build_info(void);

/*
 * What the plane pinned under dir was built from (maps/plane_info): 0;
 * -ENOENT when none is pinned (or its pin cannot be opened); other negative
 * errno when it cannot be read.
 */
int plane_read_info(const char *dir, struct cgward_plane_info *info);

/*
 * The policy file the agent installed, in maps/agent_policy beside the maps it
 * fills, so that cgward status tells what is in force as long as the plane
 * lives, with or without an agent. No BPF program reads it: it is not in the
 * object, and a plane pinned without it is still this build's.
 */
struct plane_agent_policy {
	__u32 first_id; /* its rules are policies first_id to first_id + n_rules - 1 */
	__u32 n_rules;
	char sha256[POLICY_SHA256_SIZE]; /* of the file's content */
	char path[PATH_MAX];
	/*
	 * The deny_events losses the agents' event streams have reported: the
	 * kernel's count runs from the plane's load, and an agent that
	 * replaces another reports only what was lost after.
	 */
	__u64 events_lost_reported;
};

/* Creates maps/agent_policy (pinned) when missing, and writes policy into it. */
int plane_put_agent_policy(const char *dir, const struct plane_agent_policy *policy);

/* 0; -ENOENT when no agent installed a policy; -ESTALE when another layout's record is. */
int plane_get_agent_policy(const char *dir, struct plane_agent_policy *policy);

/*
 * An exclusive lock on DIR/maps for claims of parked rings
 * (policy_maps_claim_exec): an fd to close, or negative errno. Apart from
 * the plane's own lock on dir, which a load holds throughout.
 */
int plane_lock_claims(const char *dir);

/* Opens the pinned maps alone, loading nothing (status, gc, unload). */
int plane_open_pinned(const char *dir, struct plane *plane, char *err, size_t errlen);
void plane_close(struct plane *plane);

/*
 * The name of a map of plane that is no longer the one pinned under dir, or
 * NULL. Another build's migration, or an unload, leaves the holder of the
 * old maps writing bindings that no program reads.
 */
const char *plane_superseded_map(const char *dir, struct plane *plane);

/*
 * Calls visit for each program the plane attaches on this kernel, with the
 * fd of its pinned link (-1 when not pinned). Returns how many are pinned,
 * or negative errno.
 */
int plane_links(const char *dir, void (*visit)(const char *prog, int link_fd, void *arg),
		void *arg);

/* How many links are pinned under dir: a readdir, no BPF object opened (metrics scrapes). */
int plane_pinned_links(const char *dir);

/* Removes every pin under dir and dir itself, then waits until the kernel runs none of them. */
int plane_unpin(const char *dir, char *err, size_t errlen);

/*
 * plane_unpin, refused (-EBUSY, err says how many) while cgroups are bound
 * to policies, which would run unenforced from then on, unless force.
 */
int plane_unload(const char *dir, bool force, char *err, size_t errlen);

#endif
