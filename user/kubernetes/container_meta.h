/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a Kubernetes container is, read from its OCI bundle on the node: the
 * config.json that the CRI runtime wrote before it created the container's
 * cgroup, whose annotations name the pod (containerd's CRI plugin and CRI-O
 * each with keys of their own).
 */
#ifndef CGWARD_CONTAINER_META_H
#define CGWARD_CONTAINER_META_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct meta_pair {
	char *key, *value;
};

struct container_meta {
	char namespace[254]; /* the pod's namespace */
	char pod_name[254];
	char pod_uid[64];
	char container_name[254];
	char sandbox_id[65];	  /* the pod's sandbox, as the CRI names it */
	bool sandbox;		  /* the pod's sandbox (pause) container */
	char root_path[PATH_MAX]; /* the container's root file system, on the node */
	/* Pod labels and annotations, where the bundle carries them (CRI-O). */
	struct meta_pair *labels, *annotations;
	size_t n_labels, n_annotations;
	bool has_labels; /* labels known (possibly none) */
	/* Bind mounts (volumes): where the container sees each, and its source on the node. */
	struct meta_pair *binds; /* key: destination, value: source */
	size_t n_binds;
};

/* Where CRI runtimes keep bundles: containerd's k8s.io tasks, CRI-O's containers. */
#define CONTAINERD_BUNDLES "/run/containerd/io.containerd.runtime.v2.task/k8s.io"
#define CRIO_BUNDLES	   "/run/containers/storage/overlay-containers"

/*
 * Parses a bundle's config.json (its text, len bytes). Returns 0, or
 * -ENOENT when it names no pod (no CRI annotations), -EINVAL when it is
 * not JSON; err says why.
 */
int container_meta_parse(const char *json, size_t len, struct container_meta *meta, char *err,
			 size_t errlen);

/*
 * Where a path inside the container is on the node: the source of the bind
 * mount whose destination holds it (the rest of the path in *rest), or the
 * root file system (rest = path). Returns the directory to resolve rest in.
 */
const char *container_meta_locate(const struct container_meta *meta, const char *path,
				  const char **rest);

/*
 * Finds container id's config.json in one of the bundle directories
 * (DIR/<id>/config.json, or CRI-O's DIR/<id>/userdata/config.json) and parses
 * it. -ENOENT when no directory has it.
 */
int container_meta_find(const char *const *bundle_dirs, size_t n_dirs, const char *id,
			struct container_meta *meta, char *err, size_t errlen);

const char *container_meta_label(const struct container_meta *meta, const char *key);
const char *container_meta_annotation(const struct container_meta *meta, const char *key);

/* Frees n pairs and their array. */
void meta_pairs_free(struct meta_pair *pairs, size_t n);

/* The pod's labels and annotations, taken over (the old ones freed): known from now on. */
void container_meta_set_pod_labels(struct container_meta *meta, struct meta_pair *labels,
				   size_t n_labels, struct meta_pair *annotations,
				   size_t n_annotations);

void container_meta_free(struct container_meta *meta);

#endif
