/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and attaching the BPF programs, and the probe that says whether this kernel can enforce.
 */
#ifndef CGWARD_LOADER_H
#define CGWARD_LOADER_H

#include <stddef.h>

struct cgward_bpf;

/*
 * Checks what enforcement needs before anything is loaded: securityfs and
 * bpffs mounted (mounting them when they are not), "bpf" among the active
 * LSMs, kernel BTF. Fills err with the first missing piece and how to fix it.
 */
int loader_probe(char *err, size_t errlen);

/* Probes, opens and loads the programs (the verifier runs here). */
int loader_load(struct cgward_bpf **skel, char *err, size_t errlen);

/* Attaches every program: from here on, writes of enforced cgroups are checked. */
int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen);

void loader_close(struct cgward_bpf *skel);

#endif
