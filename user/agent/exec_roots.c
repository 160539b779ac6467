// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptors to roots: the caller opened each directory, socket or device
 * node itself, so what it may reach is what the descriptor is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cgward_abi.h"
#include "exec_message.h"
#include "exec_roots.h"

/* A root from a descriptor the caller opened: fstat gives what the kernel compares. */
static int root_from_fd(int fd, __u32 access, const char *path, struct root_spec *root, char *err,
			size_t errlen)
{
	struct stat st, top;

	snprintf(root->path, sizeof(root->path), "%s", path);
	root->fd = fd;
	root->access = access;
	if (fstat(fd, &st) || !root_file_type_fits(access, st.st_mode)) {
		snprintf(err, errlen, "root '%s': not a %s", path,
			 root_may_be_file(root->access) ? "file or directory" : "directory");
		return -ENOTDIR;
	}
	if (stat("/", &top) == 0 && top.st_dev == st.st_dev && top.st_ino == st.st_ino) {
		snprintf(err, errlen, "'/' cannot be a root");
		return -EINVAL;
	}
	root->dev = root_kernel_dev(st.st_dev);
	root->ino = st.st_ino;
	return 0;
}

/* A socket or device node: its identity only; the descriptor is closed. */
static int node_from_fd(int fd, const char *kind, const char *path, struct root_spec *node,
			char *err, size_t errlen)
{
	bool socket = strcmp(kind, "unix") == 0;
	struct stat st;
	int ret = fstat(fd, &st) ? -errno : 0;

	close(fd);
	node->fd = -1;
	snprintf(node->path, sizeof(node->path), "%s", path);
	if (ret == 0 &&
	    (socket ? !S_ISSOCK(st.st_mode) : !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)))
		ret = socket ? -ENOTSOCK : -ENODEV;
	if (ret) {
		snprintf(err, errlen, "%s '%s': not a %s", socket ? "--allow-unix" : "--allow-dev",
			 path, socket ? "unix socket" : "device node");
		return ret;
	}
	node->access = socket ? CGWARD_ACCESS_UNIX_PEER : CGWARD_ACCESS_DEVICE;
	node->dev = socket ? root_kernel_dev(st.st_dev) : 0;
	node->ino = socket ? st.st_ino
			   : CGWARD_DEVICE_KEY(S_ISBLK(st.st_mode), root_kernel_dev(st.st_rdev));
	return 0;
}

int exec_roots_take(struct exec_roots *given, json_t *kinds, json_t *paths, int *fds, size_t n_fds,
		    char *err, size_t errlen)
{
	int ret = 0;

	given->roots = calloc(n_fds, sizeof(*given->roots));
	given->nodes = calloc(n_fds, sizeof(*given->nodes));
	if (!given->roots || !given->nodes) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	for (size_t i = 1; i < n_fds; i++) {
		const char *kind = json_string_value(json_array_get(kinds, i));
		const char *path = json_string_value(json_array_get(paths, i));
		__u32 access = exec_message_root_access(kind);
		bool is_root = access != 0;
		bool is_node = kind && (!strcmp(kind, "unix") || !strcmp(kind, "dev"));

		if (fds[i] < 0)
			continue; /* taken by exec_spawn_read */
		if (ret == 0 && (!path || (!is_root && !is_node))) {
			snprintf(err, errlen, "descriptor %zu: unknown kind", i);
			ret = -EINVAL;
		}
		if (ret) {
			close(fds[i]);
		} else if (is_root) {
			ret = root_from_fd(fds[i], access, path, &given->roots[given->n_roots], err,
					   errlen);
			given->n_roots++;
		} else {
			ret = node_from_fd(fds[i], kind, path, &given->nodes[given->n_nodes], err,
					   errlen);
			given->n_nodes++;
		}
		fds[i] = -1;
	}
	return ret;
}

/* The checks of cgward exec, made again on what the descriptors are. */
int exec_roots_check(const struct exec_roots *given, char *err, size_t errlen)
{
	bool has_write_root = false;
	int ret = roots_check_duplicates(given->roots, given->n_roots, err, errlen);

	if (ret == 0)
		ret = roots_check_nesting(given->roots, given->n_roots, err, errlen);
	for (size_t i = 0; i < given->n_roots; i++)
		has_write_root |= given->roots[i].access == CGWARD_ACCESS_WRITE;
	if (ret == 0 && !has_write_root) {
		snprintf(err, errlen, "no write root");
		ret = -EINVAL;
	}
	return ret;
}
