/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A write root (or read-only exception) as the kernel identifies it: the
 * directory's super block dev_t and inode number, pinned by an O_PATH
 * descriptor while the root is in force.
 */
#ifndef CGWARD_ROOTS_H
#define CGWARD_ROOTS_H

#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct root_spec {
	char path[PATH_MAX]; /* as given, after removing trailing slashes */
	__u32 access;	     /* enum cgward_access from bpf/cgward_abi.h */
	__u32 dev;	     /* kernel dev_t of the directory's super block: major << 20 | minor */
	__u64 ino;
	int fd; /* O_PATH|O_DIRECTORY|O_NOFOLLOW, held while the root is in force; -1 after close */
};

/*
 * Validates and resolves one root: an absolute, canonical path (no '.' or
 * '..' components) to an existing directory other than '/' (for a hidden
 * path, any file), whose last component is not a symbolic link. Returns 0, or -EINVAL, -ENOENT,
 * -ENOTDIR, -ELOOP, -ENAMETOOLONG (or another open(2) error) with a
 * message naming the path in err. root->fd is -1 on error.
 */
int root_resolve(const char *path, __u32 access, struct root_spec *root, char *err, size_t errlen);

/*
 * An entry that names one file that is not a directory: a unix socket that
 * may be connected and sent to (--allow-unix, access CGWARD_ACCESS_UNIX_PEER,
 * by its inode's identity), or a device that may be opened for writing and
 * given ioctls through any node of it (--allow-dev, allow_devices; access
 * CGWARD_ACCESS_DEVICE, dev 0 and ino CGWARD_DEVICE_KEY of the node's
 * device, a character or block device). The path must be
 * absolute; symbolic links are followed, as connect() and open() follow
 * them. fd is -1. Returns 0, or -EINVAL, -ENOENT, -ENOTSOCK, -ENODEV with a
 * message in err that names the entry as what.
 */
int root_resolve_node(const char *what, const char *path, __u32 access, struct root_spec *node,
		      char *err, size_t errlen);

/* -EINVAL when two roots are the same path or the same directory (dev+ino). */
int roots_check_duplicates(const struct root_spec *roots, size_t n, char *err, size_t errlen);

/*
 * -ESTALE when root->path no longer names the directory that was validated
 * (renamed away, replaced, or swapped for a symbolic link).
 */
int root_verify_unchanged(const struct root_spec *root, char *err, size_t errlen);

/*
 * A container path as a policy names it (container_roots, container_hide,
 * container_read_roots): an absolute, canonical path other than '/'. Only
 * its spelling is checked: it names a file inside containers, resolved when
 * each is bound. canonical (PATH_MAX bytes) gets it without trailing '/'.
 */
int root_check_container_path(const char *path, char *canonical, char *err, size_t errlen);

/*
 * Resolves path (a container path) inside the directory dir_fd as if it were
 * '/': symbolic links and '..' cannot leave it (openat2 RESOLVE_IN_ROOT), so
 * an image's link to a host path names the path inside the container; a
 * link at its end is followed. Path "/" is dir_fd itself, which may then be
 * a file (a bind mount's source). The result must be a directory, or for an
 * access that root_may_be_file, any file. root->path is set to shown.
 */
int root_resolve_in(int dir_fd, const char *path, const char *shown, __u32 access,
		    struct root_spec *root, char *err, size_t errlen);

void root_close(struct root_spec *root);

/* Whether a root of access may be a file: a hidden or readable one (~/.netrc, an interpreter). */
bool root_may_be_file(__u32 access);

/*
 * Whether a file of mode may be a root of access: a directory; for one that
 * may be a file, any file but a symbolic link, which no path lookup stops at.
 */
bool root_file_type_fits(__u32 access, mode_t mode);

/* Whether the path string is dir or beneath it (no '/' at dir's end). */
bool path_within(const char *path, const char *dir);

/* Cuts the absolute path to its directory ("/" for a top-level name); returns it. */
char *path_parent(char *path);

/* glibc's dev_t to the kernel's internal MKDEV layout (MINORBITS 20). */
__u32 root_kernel_dev(dev_t st_dev);

/* The nearest root among roots[0..n) with access that is a proper ancestor of dir; NULL if none. */
const struct root_spec *root_above(const struct root_spec *dir, const struct root_spec *roots,
				   size_t n, __u32 access);

/*
 * How roots may nest, for a run's and a rule's alike: each read-only root
 * inside a write root, and no write, read-only or readable root inside a
 * hidden path (CGWARD_ACCESS_HIDDEN), where nothing could be read; a hidden
 * path inside a root is what hiding is for. *hidden is that path for
 * ROOT_INSIDE_HIDDEN.
 */
enum root_nesting { ROOT_NESTS, ROOT_READ_ONLY_OUTSIDE, ROOT_INSIDE_HIDDEN };
enum root_nesting root_nesting(const struct root_spec *root, const struct root_spec *roots,
			       size_t n, const struct root_spec **hidden);

/* root_nesting of each of a run's roots: 0, or -EINVAL with the first fault in err. */
int roots_check_nesting(const struct root_spec *roots, size_t n, char *err, size_t errlen);

#endif
