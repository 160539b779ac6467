/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and attaching the BPF programs, and the probe that says whether this kernel can enforce.
 */
#ifndef CGWARD_LOADER_H
#define CGWARD_LOADER_H

#include <stddef.h>
#include <linux/types.h>

struct cgward_bpf;

/*
 * Checks what enforcement needs before anything is loaded: securityfs and
 * bpffs mounted (mounting them when they are not), "bpf" among the active
 * LSMs, kernel BTF, Linux 5.13+. Fills err with the first missing piece and
 * how to fix it.
 */
int loader_probe(char *err, size_t errlen);

/* What the programs need beyond BPF LSM: the ring buffer and the helpers of 5.8. */
int loader_probe_features(char *err, size_t errlen);

/*
 * Probes, opens and loads the programs (the verifier runs here): those every
 * policy needs, and those policy_flags (CGWARD_POLICY_*) asks for.
 */
int loader_load(struct cgward_bpf **skel, __u32 policy_flags, char *err, size_t errlen);

/* Attaches every program: from here on, writes of enforced cgroups are checked. */
int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen);

void loader_close(struct cgward_bpf *skel);

/*
 * The agent's programs live on without it: maps pinned as DIR/maps/NAME,
 * links as DIR/links/PROGRAM, under a bpffs directory (default
 * /sys/fs/bpf/cgward).
 */
#define LOADER_PIN_DIR "/sys/fs/bpf/cgward"

struct loader_pinned {
	int cgroup_policy_fd;
	int write_roots_fd;
	int policy_info_fd;
	int deny_events_fd;
	int lost_events_fd;
	int links_attached; /* links this call attached and pinned: 0 when it re-adopted */
};

/*
 * Re-adopts the pinned maps and links under dir when every link is pinned:
 * nothing is loaded or attached again. Otherwise loads the programs reusing
 * whichever maps are pinned (pinning the others), attaches the programs
 * whose link is not pinned, and pins those links. The map fds are the
 * caller's to close (loader_pinned_close).
 */
int loader_pin_or_adopt(const char *dir, struct loader_pinned *pinned, char *err, size_t errlen);
void loader_pinned_close(struct loader_pinned *pinned);

/* Opens the pinned maps under dir, without loading or attaching anything. */
int loader_open_pinned(const char *dir, struct loader_pinned *pinned, char *err, size_t errlen);

/*
 * Calls visit for each program the agent attaches on this kernel, with the
 * fd of its pinned link (-1 when not pinned). Returns how many are pinned,
 * or negative errno.
 */
int loader_pinned_links(const char *dir, void (*visit)(const char *prog, int link_fd, void *arg),
			void *arg);

/* Removes every pin under dir and dir itself: enforcement ends when no fd is left. */
int loader_unpin(const char *dir, char *err, size_t errlen);

#endif
