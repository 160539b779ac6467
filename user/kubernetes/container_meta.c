// SPDX-License-Identifier: GPL-2.0
#include "container_meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

/* A config.json is a few KiB; a generous bound keeps a hostile one from costing much. */
#define CONFIG_JSON_MAX (4 * 1024 * 1024)

/* Annotation keys: containerd's CRI plugin, then CRI-O's (which also sets the kubelet's). */
static const char *const namespace_keys[] = {"io.kubernetes.cri.sandbox-namespace",
					     "io.kubernetes.pod.namespace"};
static const char *const pod_name_keys[] = {"io.kubernetes.cri.sandbox-name",
					    "io.kubernetes.pod.name"};
static const char *const pod_uid_keys[] = {"io.kubernetes.cri.sandbox-uid",
					   "io.kubernetes.pod.uid"};
static const char *const container_name_keys[] = {"io.kubernetes.cri.container-name",
						  "io.kubernetes.container.name"};
static const char *const container_type_keys[] = {"io.kubernetes.cri.container-type",
						  "io.kubernetes.cri-o.ContainerType"};

static const char *const sandbox_id_keys[] = {"io.kubernetes.cri.sandbox-id",
					      "io.kubernetes.cri-o.SandboxID"};

#define N_KEYS 2

static const char *annotation(json_t *annotations, const char *const keys[N_KEYS])
{
	for (size_t i = 0; i < N_KEYS; i++) {
		const char *value = json_string_value(json_object_get(annotations, keys[i]));

		if (value)
			return value;
	}
	return NULL;
}

static void copy(char *out, size_t outlen, const char *value)
{
	snprintf(out, outlen, "%s", value ? value : "");
}

/* CRI-O carries the pod's labels and annotations as JSON objects in one annotation each. */
static int parse_pairs(const char *text, struct meta_pair **pairs, size_t *n)
{
	json_t *object = text ? json_loads(text, 0, NULL) : NULL;
	const char *key;
	json_t *value;

	if (!object)
		return text ? -EINVAL : -ENOENT;
	*pairs = calloc(json_object_size(object) + 1, sizeof(**pairs));
	if (!*pairs) {
		json_decref(object);
		return -ENOMEM;
	}
	json_object_foreach(object, key, value)
	{
		if (!json_is_string(value))
			continue;
		(*pairs)[*n].key = strdup(key);
		(*pairs)[*n].value = strdup(json_string_value(value));
		if (!(*pairs)[*n].key || !(*pairs)[*n].value) {
			free((*pairs)[*n].key);
			free((*pairs)[*n].value);
			json_decref(object);
			return -ENOMEM;
		}
		(*n)++;
	}
	json_decref(object);
	return 0;
}

static int copy_annotations(json_t *annotations, struct container_meta *meta)
{
	const char *key;
	json_t *value;

	meta->annotations = calloc(json_object_size(annotations) + 1, sizeof(*meta->annotations));
	if (!meta->annotations)
		return -ENOMEM;
	json_object_foreach(annotations, key, value)
	{
		struct meta_pair *pair = &meta->annotations[meta->n_annotations];

		if (!json_is_string(value) || strncmp(key, "io.kubernetes.cri.", 18) == 0)
			continue;
		pair->key = strdup(key);
		pair->value = strdup(json_string_value(value));
		if (!pair->key || !pair->value) {
			free(pair->key);
			free(pair->value);
			return -ENOMEM;
		}
		meta->n_annotations++;
	}
	return 0;
}

static bool is_bind(json_t *mount)
{
	size_t i;
	json_t *option;

	if (json_is_string(json_object_get(mount, "type")) &&
	    strcmp(json_string_value(json_object_get(mount, "type")), "bind") == 0)
		return true;
	json_array_foreach(json_object_get(mount, "options"), i, option)
	{
		if (json_is_string(option) && (strcmp(json_string_value(option), "bind") == 0 ||
					       strcmp(json_string_value(option), "rbind") == 0))
			return true;
	}
	return false;
}

static int parse_binds(json_t *mounts, struct container_meta *meta)
{
	size_t i;
	json_t *mount;

	meta->binds = calloc(json_array_size(mounts) + 1, sizeof(*meta->binds));
	if (!meta->binds)
		return -ENOMEM;
	json_array_foreach(mounts, i, mount)
	{
		const char *dst = json_string_value(json_object_get(mount, "destination"));
		const char *src = json_string_value(json_object_get(mount, "source"));

		if (!dst || !src || dst[0] != '/' || src[0] != '/' || !is_bind(mount))
			continue;
		meta->binds[meta->n_binds].key = strdup(dst);
		meta->binds[meta->n_binds].value = strdup(src);
		if (!meta->binds[meta->n_binds].key || !meta->binds[meta->n_binds].value) {
			free(meta->binds[meta->n_binds].key);
			free(meta->binds[meta->n_binds].value);
			return -ENOMEM;
		}
		meta->n_binds++;
	}
	return 0;
}

/* Whether path is dir or below it; *rest is what follows dir ("" for dir itself). */
static bool path_under(const char *path, const char *dir, const char **rest)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (strncmp(path, dir, len) != 0 || (path[len] != '\0' && path[len] != '/'))
		return false;
	*rest = path + len;
	return true;
}

const char *container_meta_locate(const struct container_meta *meta, const char *path,
				  const char **rest)
{
	const char *best = NULL, *r;
	size_t best_len = 0;

	/* The deepest destination wins: it is mounted over the others. */
	for (size_t i = 0; i < meta->n_binds; i++) {
		if (path_under(path, meta->binds[i].key, &r) &&
		    strlen(meta->binds[i].key) >= best_len) {
			best = meta->binds[i].value;
			best_len = strlen(meta->binds[i].key);
			*rest = r[0] ? r : "/";
		}
	}
	if (best)
		return best;
	*rest = path;
	return meta->root_path;
}

int container_meta_parse(const char *json, size_t len, struct container_meta *meta, char *err,
			 size_t errlen)
{
	json_error_t error;
	json_t *config = json_loadb(json, len, 0, &error), *annotations;
	const char *type, *uid, *root;
	int ret = 0;

	memset(meta, 0, sizeof(*meta));
	if (!config) {
		snprintf(err, errlen, "not JSON: %s (line %d)", error.text, error.line);
		return -EINVAL;
	}
	annotations = json_object_get(config, "annotations");
	uid = annotation(annotations, pod_uid_keys);
	type = annotation(annotations, container_type_keys);
	if (!uid || !type) {
		snprintf(err, errlen, "no Kubernetes pod in its annotations");
		json_decref(config);
		return -ENOENT;
	}
	copy(meta->pod_uid, sizeof(meta->pod_uid), uid);
	copy(meta->namespace, sizeof(meta->namespace), annotation(annotations, namespace_keys));
	copy(meta->pod_name, sizeof(meta->pod_name), annotation(annotations, pod_name_keys));
	copy(meta->container_name, sizeof(meta->container_name),
	     annotation(annotations, container_name_keys));
	copy(meta->sandbox_id, sizeof(meta->sandbox_id), annotation(annotations, sandbox_id_keys));
	meta->sandbox = strcmp(type, "sandbox") == 0;
	root = json_string_value(json_object_get(json_object_get(config, "root"), "path"));
	copy(meta->root_path, sizeof(meta->root_path), root);
	if (parse_pairs(
		json_string_value(json_object_get(annotations, "io.kubernetes.cri-o.Labels")),
		&meta->labels, &meta->n_labels) == 0)
		meta->has_labels = true;
	ret = parse_pairs(
	    json_string_value(json_object_get(annotations, "io.kubernetes.cri-o.Annotations")),
	    &meta->annotations, &meta->n_annotations);
	/*
	 * containerd copies into a container's spec the pod annotations that its
	 * runtime's pod_annotations setting lists, under their own keys.
	 */
	if (ret == -ENOENT)
		ret = copy_annotations(annotations, meta);
	if (ret) {
		json_decref(config);
		return ret;
	}
	ret = parse_binds(json_object_get(config, "mounts"), meta);
	json_decref(config);
	return ret;
}

static int read_small_file(int dirfd, const char *path, char **buf, size_t *len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t cap = 64 * 1024;
	ssize_t got;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		if (*len == cap || !*buf) {
			char *grown;

			if (*buf)
				cap *= 2;
			grown = cap > CONFIG_JSON_MAX ? NULL : realloc(*buf, cap);
			if (!grown) {
				free(*buf);
				close(fd);
				return -EFBIG;
			}
			*buf = grown;
		}
		got = read(fd, *buf + *len, cap - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		*len += (size_t)got;
	}
	close(fd);
	if (got < 0) {
		free(*buf);
		return -errno;
	}
	return 0;
}

/* containerd's root.path is relative to the bundle ("rootfs"); config is DIR/.../config.json. */
static int absolute_root(struct container_meta *meta, const char *dir, const char *config,
			 char *err, size_t errlen)
{
	char bundle[PATH_MAX], path[PATH_MAX];
	int len;

	if (!meta->root_path[0] || meta->root_path[0] == '/')
		return 0;
	len = snprintf(bundle, sizeof(bundle), "%s/%s", dir, config);
	if (len > 0 && (size_t)len < sizeof(bundle)) {
		*strrchr(bundle, '/') = '\0';
		len = snprintf(path, sizeof(path), "%s/%s", bundle, meta->root_path);
	}
	if (len < 0 || (size_t)len >= sizeof(path)) {
		snprintf(err, errlen, "%s/%s: root path too long", dir, config);
		return -ENAMETOOLONG;
	}
	memcpy(meta->root_path, path, (size_t)len + 1);
	return 0;
}

int container_meta_find(const char *const *bundle_dirs, size_t n_dirs, const char *id,
			struct container_meta *meta, char *err, size_t errlen)
{
	static const char *const layouts[] = {"%s/config.json", "%s/userdata/config.json"};
	char path[PATH_MAX];
	size_t len;
	char *buf;

	memset(meta, 0, sizeof(*meta));
	for (size_t d = 0; d < n_dirs; d++) {
		int dirfd = open(bundle_dirs[d], O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (dirfd < 0)
			continue;
		for (size_t l = 0; l < sizeof(layouts) / sizeof(*layouts); l++) {
			int ret;

			snprintf(path, sizeof(path), layouts[l], id);
			ret = read_small_file(dirfd, path, &buf, &len);
			if (ret == -ENOENT || ret == -ENOTDIR)
				continue;
			close(dirfd);
			if (ret) {
				snprintf(err, errlen, "%s/%s: %s", bundle_dirs[d], path,
					 strerror(-ret));
				return ret;
			}
			ret = container_meta_parse(buf, len, meta, err, errlen);
			free(buf);
			if (ret == 0)
				ret = absolute_root(meta, bundle_dirs[d], path, err, errlen);
			return ret;
		}
		close(dirfd);
	}
	snprintf(err, errlen, "no bundle of container %.64s", id);
	return -ENOENT;
}

static const char *lookup(const struct meta_pair *pairs, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(pairs[i].key, key) == 0)
			return pairs[i].value;
	}
	return NULL;
}

const char *container_meta_label(const struct container_meta *meta, const char *key)
{
	return lookup(meta->labels, meta->n_labels, key);
}

const char *container_meta_annotation(const struct container_meta *meta, const char *key)
{
	return lookup(meta->annotations, meta->n_annotations, key);
}

void meta_pairs_free(struct meta_pair *pairs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(pairs[i].key);
		free(pairs[i].value);
	}
	free(pairs);
}

void container_meta_set_pod_labels(struct container_meta *meta, struct meta_pair *labels,
				   size_t n_labels, struct meta_pair *annotations,
				   size_t n_annotations)
{
	meta_pairs_free(meta->labels, meta->n_labels);
	meta_pairs_free(meta->annotations, meta->n_annotations);
	meta->labels = labels;
	meta->n_labels = n_labels;
	meta->annotations = annotations;
	meta->n_annotations = n_annotations;
	meta->has_labels = true;
}

void container_meta_free(struct container_meta *meta)
{
	meta_pairs_free(meta->labels, meta->n_labels);
	meta_pairs_free(meta->annotations, meta->n_annotations);
	meta_pairs_free(meta->binds, meta->n_binds);
	meta->labels = meta->annotations = meta->binds = NULL;
	meta->n_labels = meta->n_annotations = meta->n_binds = 0;
	meta->has_labels = false;
}
