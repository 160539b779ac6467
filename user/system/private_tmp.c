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

const char *private_tmp_dir_of(const char *path)
{
	for (size_t i = 0; i < PRIVATE_TMP_DIRS; i++) {
		if (strcmp(path, private_tmp_dirs[i]) == 0)
			return private_tmp_dirs[i];
	}
	return NULL;
}

/* The i-th thing to bind back, if beneath a private directory: roots, then sockets. */
static const struct root_spec *entry(const struct private_tmp_setup *setup, size_t i)
{
	return i < setup->n_roots ? &setup->roots[i] : &setup->sockets[i - setup->n_roots];
}

static size_t n_entries(const struct private_tmp_setup *setup)
{
	return setup->n_roots + setup->n_sockets;
}

static bool is_socket(const struct root_spec *spec)
{
	return spec->access == CGWARD_ACCESS_UNIX_PEER;
}

/*
 * The mount point of a bound-back directory, or of a file (a socket, a
 * readable file: file), in the fresh tmpfs, with the directories above it.
 */
static int make_mount_point(const struct root_spec *spec, bool file)
{
	char partial[PATH_MAX];
	size_t len = strlen(spec->path);
	int fd;

	for (size_t i = 1; i <= len; i++) {
		if (spec->path[i] != '/' && spec->path[i] != '\0')
			continue;
		memcpy(partial, spec->path, i);
		partial[i] = '\0';
		if (i == len && file) {
			fd = open(partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd < 0)
				return report_error("create", partial);
			close(fd);
		} else if (mkdir(partial, 0755) != 0 && errno != EEXIST) {
			return report_error("mkdir", partial);
		}
	}
	return 0;
}

/*
 * Whether spec is beneath dir and not inside another root beneath dir, which
 * brings it along. A hidden path is not brought back on its own: the fresh
 * tmpfs hides it already.
 */
static bool bound_back(const struct private_tmp_setup *setup, const struct root_spec *spec,
		       const char *dir)
{
	if (spec->access == CGWARD_ACCESS_HIDDEN || !path_within(spec->path, dir))
		return false;
	for (size_t i = 0; i < setup->n_roots; i++) {
		const struct root_spec *root = &setup->roots[i];

		if (root != spec && path_within(root->path, dir) &&
		    strlen(root->path) < strlen(spec->path) && path_within(spec->path, root->path))
			return false;
	}
	return true;
}

/*
 * Opens, in the new namespace, each root and socket beneath dir before the
 * tmpfs hides it: a bind mount's source must be a mount of the caller's
 * namespace, which the descriptors from validation are not. The identity
 * must be the one validated, or the path was swapped since.
 */
static int open_entries_below(const struct private_tmp_setup *setup, const char *dir, int fds[])
{
	struct stat st;

	for (size_t i = 0; i < n_entries(setup); i++)
		fds[i] = -1;
	for (size_t i = 0; i < n_entries(setup); i++) {
		const struct root_spec *spec = entry(setup, i);

		if (!bound_back(setup, spec, dir))
			continue;
		/* Sockets follow symbolic links, as connect() does; roots may not be one. */
		fds[i] =
		    open(spec->path,
			 O_PATH | O_CLOEXEC | (is_socket(spec) ? 0 : O_NOFOLLOW) |
			     (is_socket(spec) || root_may_be_file(spec->access) ? 0 : O_DIRECTORY));
		if (fds[i] < 0 || fstat(fds[i], &st) != 0)
			return report_error("open", spec->path);
		if (root_kernel_dev(st.st_dev) != spec->dev || st.st_ino != spec->ino) {
			fprintf(stderr, "cgward: --private-tmp: '%s' was replaced\n", spec->path);
			return -ESTALE;
		}
	}
	return 0;
}

/* The roots and sockets beneath dir stay reachable at their paths, the same inodes. */
static int bind_back(const struct private_tmp_setup *setup, const int fds[])
{
	char source[64];
	struct stat st;
	int ret;

	for (size_t i = 0; i < n_entries(setup); i++) {
		const struct root_spec *spec = entry(setup, i);

		if (fds[i] < 0)
			continue;
		ret = fstat(fds[i], &st) ? report_error("stat", spec->path)
					 : make_mount_point(spec, !S_ISDIR(st.st_mode));
		if (ret)
			return ret;
		snprintf(source, sizeof(source), "/proc/self/fd/%d", fds[i]);
		if (mount(source, spec->path, NULL, MS_BIND | MS_REC, NULL) != 0)
			return report_error("bind", spec->path);
	}
	return 0;
}

static int mount_private_dir(const struct private_tmp_setup *setup, size_t i,
			     struct private_tmp_report *report)
{
	const char *dir = private_tmp_dirs[i];
	int fds[n_entries(setup) + 1];
	struct stat st;
	int ret;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* no such directory on this host: nothing to hide */
	ret = open_entries_below(setup, dir, fds);
	if (ret == 0 && mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		ret = report_error("mount tmpfs on", dir);
	if (ret == 0 && stat(dir, &st) != 0)
		ret = report_error("stat", dir);
	if (ret == 0) {
		report->dirs[i].dev = root_kernel_dev(st.st_dev);
		report->dirs[i].ino = st.st_ino;
		ret = bind_back(setup, fds);
	}
	for (size_t j = 0; j < n_entries(setup); j++) {
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
