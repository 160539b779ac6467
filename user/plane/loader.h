/* SPDX-License-Identifier: GPL-2.0 */
/* Opening and loading the BPF object, and the probes that say whether this kernel can enforce. */
#ifndef CGWARD_LOADER_H
#define CGWARD_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct cgward_bpf;

/*
 * Checks what enforcement needs before anything is loaded: securityfs and
 * bpffs mounted (mounting them when they are not), "bpf" among the active
 * LSMs, kernel BTF, Linux 5.8+. Fills err with the first missing piece and
 * how to fix it.
 */
int loader_probe(char *err, size_t errlen);

/* What the programs need beyond BPF LSM: the ring buffer and the helpers of 5.8. */
int loader_probe_features(char *err, size_t errlen);

/*
 * Whether this kernel gets the object whose path walks take no pointer
 * arguments (before 5.13), and the bytes of the object it gets.
 */
bool loader_scalar_walks(void);
const void *loader_object_bytes(size_t *size);

/* Whether the programs recognize overlayfs' own writes here; if not, why. */
bool loader_overlay_recognized(const char **why);

/*
 * Whether skel's programs judge a write in a directory written in before
 * there, while no dentry has moved (the walk cache).
 */
bool loader_walk_cache(const struct cgward_bpf *skel, const char **why);

/* Opens the object (nothing loaded yet) with the hook variants this kernel needs. */
int loader_open(struct cgward_bpf **skel, char *err, size_t errlen);

/*
 * Calls visit for each optional hook this kernel lacks (loaded false), with
 * what stands in for it, and for each hook with an older signature here
 * (loaded true), with what differs.
 */
void loader_hook_notes(struct cgward_bpf *skel,
		       void (*visit)(const char *prog, bool loaded, const char *note));

/* Explains a failed cgward_bpf__load() in err: a missing feature, or the verifier's words. */
void loader_describe_error(int ret, char *err, size_t errlen);

/* Probes, opens and loads every program (the verifier runs here), without pinning. */
int loader_load(struct cgward_bpf **skel, char *err, size_t errlen);

/* Attaches every program: from here on, writes of enforced cgroups are checked. */
int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen);

void loader_close(struct cgward_bpf *skel);

#endif
