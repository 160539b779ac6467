/* SPDX-License-Identifier: GPL-2.0 */
/* Opening and loading the BPF object, and the probes that say whether this kernel can enforce. */
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

/* Opens the object (nothing loaded yet) with the hook variants this kernel needs. */
int loader_open(struct cgward_bpf **skel, char *err, size_t errlen);

/* Explains a failed cgward_bpf__load() in err: a missing feature, or the verifier's words. */
void loader_describe_error(int ret, char *err, size_t errlen);

/* Probes, opens and loads every program (the verifier runs here), without pinning. */
int loader_load(struct cgward_bpf **skel, char *err, size_t errlen);

/* Attaches every program: from here on, writes of enforced cgroups are checked. */
int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen);

void loader_close(struct cgward_bpf *skel);

#endif
