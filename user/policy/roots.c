// SPDX-License-Identifier: GPL-2.0
#include "roots.h"
#include "cgward_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/openat2.h>
#include <unistd.h>

#define KERNEL_MINORBITS 20

__u32 root_kernel_dev(dev_t st_dev)
{
	/*
	 * stat() reports new_encode_dev() of a kernel dev_t, whose major has 12
	 * bits and minor 20, so both always fit the MKDEV layout.
	 */
	return (__u32)major(st_dev) << KERNEL_MINORBITS | (__u32)minor(st_dev);
}

/* '.' and '..' make a path name something other than what it spells. */
static bool has_dot_component(const char *path)
{
	const char *p = path;
	size_t n;

	while (*p) {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return true;
		p += n;
	}
	return false;
}

static void strip_trailing_slashes(char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
}

static int check_path(const char *given, char *path, char *err, size_t errlen)
{
	if (given[0] != '/') {
		snprintf(err, errlen, "root '%s': not an absolute path", given);
		return -EINVAL;
	}
	if (strlen(given) >= PATH_MAX) {
		snprintf(err, errlen, "root '%.64s...': path too long", given);
		return -ENAMETOOLONG;
	}
	strcpy(path, given);
	strip_trailing_slashes(path);
	if (strcmp(path, "/") == 0) {
		snprintf(err, errlen, "'/' cannot be a root");
		return -EINVAL;
	}
	if (has_dot_component(path)) {
		snprintf(err, errlen, "root '%s': contains '.' or '..'", given);
		return -EINVAL;
	}
	return 0;
}

/* open() folds several causes into ENOTDIR; lstat() tells them apart for the message. */
static int explain_open_error(const char *path, int open_errno, char *err, size_t errlen)
{
	struct stat st;
	int e = open_errno;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "root '%s': is a symbolic link", path);
			return -ELOOP;
		}
		if (!S_ISDIR(st.st_mode))
			e = ENOTDIR;
	} else {
		e = errno;
	}
	if (e == ENOENT)
		snprintf(err, errlen, "root '%s': does not exist", path);
	else if (e == ENOTDIR)
		snprintf(err, errlen, "root '%s': not a directory", path);
	else
		snprintf(err, errlen, "root '%s': %s", path, strerror(e));
	return -e;
}

bool path_within(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

char *path_parent(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash)
		slash[slash == path] = '\0';
	return path;
}

bool root_may_be_file(__u32 access)
{
	return access == CGWARD_ACCESS_HIDDEN || access == CGWARD_ACCESS_READ;
}

bool root_file_type_fits(__u32 access, mode_t mode)
{
	return root_may_be_file(access) ? !S_ISLNK(mode) : S_ISDIR(mode);
}

int root_resolve(const char *path, __u32 access, struct root_spec *root, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	root->fd = -1;
	ret = check_path(path, root->path, err, errlen);
	if (ret)
		return ret;
	/*
	 * The identity comes from the opened fd, so a swap after this open
	 * cannot fool it.
	 */
	root->fd = open(root->path, O_PATH | O_NOFOLLOW | O_CLOEXEC |
					(root_may_be_file(access) ? 0 : O_DIRECTORY));
	if (root->fd < 0)
		return explain_open_error(root->path, errno, err, errlen);
	ret = fstat(root->fd, &st) < 0			 ? -errno
	      : !root_file_type_fits(access, st.st_mode) ? -ELOOP
							 : 0;
	if (ret) {
		snprintf(err, errlen, "root '%s': %s", root->path,
			 ret == -ELOOP ? "is a symbolic link" : strerror(-ret));
		root_close(root);
		return ret;
	}
	root->access = access;
	root->dev = root_kernel_dev(st.st_dev);
	root->ino = st.st_ino;
	return 0;
}

int root_resolve_node(const char *what, const char *path, __u32 access, struct root_spec *node,
		      char *err, size_t errlen)
{
	bool socket = access == CGWARD_ACCESS_UNIX_PEER;
	struct stat st;

	node->fd = -1;
	if (path[0] != '/' || strlen(path) >= sizeof(node->path)) {
		snprintf(err, errlen, "%s '%.64s': not an absolute path", what, path);
		return -EINVAL;
	}
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
		return -errno;
	}
	if (socket ? !S_ISSOCK(st.st_mode) : !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s '%s': not a %s", what, path,
			 socket ? "unix socket" : "device node");
		return socket ? -ENOTSOCK : -ENODEV;
	}
	strcpy(node->path, path);
	node->access = access;
	if (socket) {
		node->dev = root_kernel_dev(st.st_dev);
		node->ino = st.st_ino;
	} else {
		node->dev = 0;
		node->ino = CGWARD_DEVICE_KEY(S_ISBLK(st.st_mode), root_kernel_dev(st.st_rdev));
	}
	return 0;
}

int roots_check_duplicates(const struct root_spec *roots, size_t n, char *err, size_t errlen)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (strcmp(roots[i].path, roots[j].path) == 0) {
				snprintf(err, errlen, "root '%s' is listed twice", roots[i].path);
				return -EINVAL;
			}
			if (roots[i].dev == roots[j].dev && roots[i].ino == roots[j].ino) {
				snprintf(err, errlen, "roots '%s' and '%s' are the same directory",
					 roots[i].path, roots[j].path);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int root_verify_unchanged(const struct root_spec *root, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(root->path, &st) == 0 && root_file_type_fits(root->access, st.st_mode) &&
	    root_kernel_dev(st.st_dev) == root->dev && st.st_ino == root->ino)
		return 0;
	snprintf(err, errlen, "root '%s' changed after it was validated", root->path);
	return -ESTALE;
}

void root_close(struct root_spec *root)
{
	if (root->fd >= 0)
		close(root->fd);
	root->fd = -1;
}

/* The entry of roots[0..n) with access for the directory dev/ino, or NULL. */
static const struct root_spec *find_root(const struct root_spec *roots, size_t n, __u32 access,
					 __u32 dev, __u64 ino)
{
	for (size_t i = 0; i < n; i++) {
		if (roots[i].access == access && roots[i].dev == dev && roots[i].ino == ino)
			return &roots[i];
	}
	return NULL;
}

/* Whether roots[0..n) hold one with access. */
static bool any_access(const struct root_spec *roots, size_t n, __u32 access)
{
	for (size_t i = 0; i < n; i++) {
		if (roots[i].access == access)
			return true;
	}
	return false;
}

/*
 * The directory above root: '..' of a directory; a file's by its path, whose
 * last component is no symbolic link (root_resolve).
 */
static int open_parent(const struct root_spec *root, int fd)
{
	char parent[PATH_MAX];
	struct stat st;

	if (fd != root->fd || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)))
		return openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(parent, sizeof(parent), "%s", root->path);
	return open(path_parent(parent), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/*
 * Walks '..' from the opened directory, as the kernel walks dentries at
 * write time, rather than comparing strings, which a symlinked parent
 * would fool.
 */
const struct root_spec *root_above(const struct root_spec *dir, const struct root_spec *roots,
				   size_t n, __u32 access)
{
	const struct root_spec *found = NULL;
	__u32 dev = dir->dev;
	__u64 ino = dir->ino;
	int fd = dir->fd;

	if (!any_access(roots, n, access))
		return NULL; /* none to find: no walk (most runs hide nothing) */
	for (int depth = 0; depth < CGWARD_MAX_DEPTH && !found; depth++) {
		int parent = open_parent(dir, fd);
		struct stat st;

		if (fd != dir->fd)
			close(fd);
		fd = parent;
		if (fd < 0 || fstat(fd, &st) < 0)
			break;
		if (root_kernel_dev(st.st_dev) == dev && st.st_ino == ino)
			break; /* '/' is its own parent */
		dev = root_kernel_dev(st.st_dev);
		ino = st.st_ino;
		found = find_root(roots, n, access, dev, ino);
	}
	if (fd >= 0 && fd != dir->fd)
		close(fd);
	return found;
}

enum root_nesting root_nesting(const struct root_spec *root, const struct root_spec *roots,
			       size_t n, const struct root_spec **hidden)
{
	*hidden = NULL;
	if (root->access != CGWARD_ACCESS_WRITE && root->access != CGWARD_ACCESS_READ_ONLY &&
	    root->access != CGWARD_ACCESS_READ)
		return ROOT_NESTS;
	if (root->access == CGWARD_ACCESS_READ_ONLY &&
	    !root_above(root, roots, n, CGWARD_ACCESS_WRITE))
		return ROOT_READ_ONLY_OUTSIDE;
	*hidden = root_above(root, roots, n, CGWARD_ACCESS_HIDDEN);
	return *hidden ? ROOT_INSIDE_HIDDEN : ROOT_NESTS;
}

int roots_check_nesting(const struct root_spec *roots, size_t n, char *err, size_t errlen)
{
	const struct root_spec *hidden;

	for (size_t i = 0; i < n; i++) {
		switch (root_nesting(&roots[i], roots, n, &hidden)) {
		case ROOT_NESTS:
			break;
		case ROOT_READ_ONLY_OUTSIDE:
			snprintf(err, errlen, "--ro '%s' is not inside any --root", roots[i].path);
			return -EINVAL;
		case ROOT_INSIDE_HIDDEN:
			snprintf(err, errlen,
				 "root '%s' is inside --hide '%s': nothing in it could be read",
				 roots[i].path, hidden->path);
			return -EINVAL;
		}
	}
	return 0;
}

int root_check_container_path(const char *path, char *canonical, char *err, size_t errlen)
{
	return check_path(path, canonical, err, errlen);
}

/* path inside dir_fd as root_resolve_in finds it: an O_PATH descriptor, or -1 with errno. */
static int open_in(int dir_fd, const char *path, __u32 access)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (root_may_be_file(access) ? 0 : O_DIRECTORY),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	/* openat2 walks nothing from a file, not even "/": the file is the path. */
	if (strcmp(path, "/") == 0)
		return fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
	return (int)syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
}

int root_resolve_in(int dir_fd, const char *path, const char *shown, __u32 access,
		    struct root_spec *root, char *err, size_t errlen)
{
	struct stat st;
	int e = 0;

	snprintf(root->path, sizeof(root->path), "%s", shown);
	root->access = access;
	root->fd = open_in(dir_fd, path, access);
	if (root->fd < 0 || fstat(root->fd, &st) != 0)
		e = errno;
	else if (!root_file_type_fits(access, st.st_mode))
		e = ENOTDIR;
	if (e) {
		snprintf(err, errlen, "container path '%s': %s", shown, strerror(e));
		root_close(root);
		return -e;
	}
	root->dev = root_kernel_dev(st.st_dev);
	root->ino = st.st_ino;
	return 0;
}
