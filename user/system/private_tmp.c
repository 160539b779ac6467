// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgward_abi.h"
#include "private_tmp.h"

const char *const private_tmp_dirs[PRIVATE_TMP_DIRS] = {"/tmp", "/var/tmp", "/dev/shm"};

static int report_error(const char *what, const char *path)
{
	int ret = -errno;

	fprintf(stderr, "cgward: --private-tmp: %s %s: %s\n", what, path, strerror(errno));
	return ret;
}

/* Whether path is dir or beneath it. */
static bool path_within(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

const char *private_tmp_dir_of(const char *path)
{
	for (size_t i = 0; i < PRIVATE_TMP_DIRS; i++) {
		if (strcmp(path, private_tmp_dirs[i]) == 0)
			return private_tmp_dirs[i];
	}
	return NULL;
}

/* mkdir -p of path's components in the fresh tmpfs: the mount point of a bound-back root. */
static int make_mount_point(const char *path)
{
	char partial[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(partial))
		return -ENAMETOOLONG;
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(partial, path, i);
		partial[i] = '\0';
		if (mkdir(partial, 0755) != 0 && errno != EEXIST)
			return report_error("mkdir", partial);
	}
	return 0;
}

/* Whether another root beneath dir contains root: binding that one brings root along. */
static bool inside_other_root(const struct private_tmp_setup *setup, const struct root_spec *root,
			      const char *dir)
{
	for (size_t i = 0; i < setup->n_roots; i++) {
		const struct root_spec *other = &setup->roots[i];

		if (other != root && path_within(other->path, dir) &&
		    strlen(other->path) < strlen(root->path) && path_within(root->path, other->path))
			return true;
	}
	return false;
}

/* Whether root is beneath dir and must be bound back there (not brought along by another). */
static bool bound_back(const struct private_tmp_setup *setup, const struct root_spec *root,
		       const char *dir)
{
	return path_within(root->path, dir) && !inside_other_root(setup, root, dir);
}

/*
 * Opens, in the new namespace, each root beneath dir before the tmpfs hides
 * it: a bind mount's source must be a mount of the caller's namespace, which
 * the descriptors from validation are not. The identity must be the one
 * validated, or the path was swapped since.
 */
static int open_roots_below(const struct private_tmp_setup *setup, const char *dir, int fds[])
{
	struct stat st;

	for (size_t i = 0; i < setup->n_roots; i++)
		fds[i] = -1;
	for (size_t i = 0; i < setup->n_roots; i++) {
		const struct root_spec *root = &setup->roots[i];

		if (!bound_back(setup, root, dir))
			continue;
		fds[i] = open(root->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fds[i] < 0 || fstat(fds[i], &st) != 0)
			return report_error("open", root->path);
		if (root_kernel_dev(st.st_dev) != root->dev || st.st_ino != root->ino) {
			fprintf(stderr, "cgward: --private-tmp: root '%s' was replaced\n",
				root->path);
			return -ESTALE;
		}
	}
	return 0;
}

/* The roots beneath dir stay reachable at their paths, the same directories. */
static int bind_back_roots(const struct private_tmp_setup *setup, const int fds[])
{
	char source[64];
	int ret;

	for (size_t i = 0; i < setup->n_roots; i++) {
		const char *path = setup->roots[i].path;

		if (fds[i] < 0)
			continue;
		ret = make_mount_point(path);
		if (ret)
			return ret;
		snprintf(source, sizeof(source), "/proc/self/fd/%d", fds[i]);
		if (mount(source, path, NULL, MS_BIND | MS_REC, NULL) != 0)
			return report_error("bind", path);
	}
	return 0;
}

static int mount_private_dir(const struct private_tmp_setup *setup, size_t i,
			     struct private_tmp_report *report)
{
	const char *dir = private_tmp_dirs[i];
	int fds[setup->n_roots + 1];
	struct stat st;
	int ret;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* no such directory on this host: nothing to hide */
	ret = open_roots_below(setup, dir, fds);
	if (ret == 0 && mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		ret = report_error("mount tmpfs on", dir);
	if (ret == 0 && stat(dir, &st) != 0)
		ret = report_error("stat", dir);
	if (ret == 0) {
		report->dirs[i].dev = root_kernel_dev(st.st_dev);
		report->dirs[i].ino = st.st_ino;
		ret = bind_back_roots(setup, fds);
	}
	for (size_t j = 0; j < setup->n_roots; j++) {
		if (fds[j] >= 0)
			close(fds[j]);
	}
	return ret;
}

int private_tmp_enter(void *setup_arg, void *report_arg)
{
	const struct private_tmp_setup *setup = setup_arg;
	struct private_tmp_report *report = report_arg;
	int ret = 0;

	memset(report, 0, sizeof(*report));
	if (unshare(CLONE_NEWNS) != 0)
		return report_error("unshare", "the mount namespace");
	/*
	 * Slave, as systemd's PrivateTmp: the host's later mounts still show
	 * here, and nothing mounted here reaches the host.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
		return report_error("make slave", "/");
	for (size_t i = 0; ret == 0 && i < PRIVATE_TMP_DIRS; i++)
		ret = mount_private_dir(setup, i, report);
	return ret;
}

size_t private_tmp_roots(const struct private_tmp_report *report,
			 struct root_spec roots[PRIVATE_TMP_DIRS])
{
	size_t n = 0;

	for (size_t i = 0; i < PRIVATE_TMP_DIRS; i++) {
		if (!report->dirs[i].ino)
			continue;
		memset(&roots[n], 0, sizeof(roots[n]));
		snprintf(roots[n].path, sizeof(roots[n].path), "%s", private_tmp_dirs[i]);
		roots[n].access = CGWARD_ACCESS_WRITE;
		roots[n].dev = report->dirs[i].dev;
		roots[n].ino = report->dirs[i].ino;
		roots[n].fd = -1;
		n++;
	}
	return n;
}
