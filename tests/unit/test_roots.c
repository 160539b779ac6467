// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgward_abi.h"
#include "roots.h"

/*
 * Every test gets a fresh tree under /tmp:
 *   dir/  file  link -> dir  dangling -> missing  real/sub/  alias -> real
 */
struct tree {
	char top[64];
	char err[2 * PATH_MAX + 128];
};

static char *tree_path(const struct tree *t, const char *rel)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", t->top, rel);
	return p;
}

static int setup_tree(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	FILE *f;

	assert_non_null(t);
	strcpy(t->top, "/tmp/cgward-test-roots-XXXXXX");
	assert_non_null(mkdtemp(t->top));
	assert_int_equal(mkdir(tree_path(t, "dir"), 0755), 0);
	assert_non_null(f = fopen(tree_path(t, "file"), "w"));
	fclose(f);
	assert_int_equal(symlink("dir", tree_path(t, "link")), 0);
	assert_int_equal(symlink("missing", tree_path(t, "dangling")), 0);
	assert_int_equal(mkdir(tree_path(t, "real"), 0755), 0);
	assert_int_equal(mkdir(tree_path(t, "real/sub"), 0755), 0);
	assert_int_equal(symlink("real", tree_path(t, "alias")), 0);
	*state = t;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int teardown_tree(void **state)
{
	struct tree *t = *state;

	nftw(t->top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return 0;
}

/* Resolves path, expecting failure with ret and exactly the message fmt % path. */
static void assert_rejected(struct tree *t, const char *path, int ret, const char *fmt)
{
	struct root_spec root;
	char expected[sizeof(t->err)];

	snprintf(expected, sizeof(expected), fmt, path);
	assert_int_equal(root_resolve(path, CGWARD_ACCESS_WRITE, &root, t->err, sizeof(t->err)),
			 ret);
	assert_string_equal(t->err, expected);
	assert_int_equal(root.fd, -1);
}

static void test_rejects_relative_and_empty(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, "", -EINVAL, "root '%s': not an absolute path");
	assert_rejected(t, "tmp/dir", -EINVAL, "root '%s': not an absolute path");
	assert_rejected(t, "./dir", -EINVAL, "root '%s': not an absolute path");
}

static void test_rejects_missing(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, tree_path(t, "missing"), -ENOENT, "root '%s': does not exist");
	assert_rejected(t, tree_path(t, "missing/below"), -ENOENT, "root '%s': does not exist");
}

static void test_rejects_non_directory(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, tree_path(t, "file"), -ENOTDIR, "root '%s': not a directory");
	assert_rejected(t, tree_path(t, "file/below"), -ENOTDIR, "root '%s': not a directory");
}

/* A hidden path may be a file; a symbolic link, which no walk meets, is refused as a root is. */
static void test_hidden_path_may_be_a_file_not_a_symlink(void **state)
{
	struct tree *t = *state;
	struct root_spec root;

	assert_int_equal(
	    root_resolve(tree_path(t, "file"), CGWARD_ACCESS_HIDDEN, &root, t->err, sizeof(t->err)),
	    0);
	assert_true(root.fd >= 0);
	assert_int_equal(root.access, CGWARD_ACCESS_HIDDEN);
	root_close(&root);
	assert_int_equal(
	    root_resolve(tree_path(t, "link"), CGWARD_ACCESS_HIDDEN, &root, t->err, sizeof(t->err)),
	    -ELOOP);
	assert_non_null(strstr(t->err, "is a symbolic link"));
	assert_int_equal(root.fd, -1);
}

/*
 * A readable path may be a file too; one inside a hidden tree is refused,
 * found through its parent directory, as a walk from the file would go.
 */
static void test_readable_file_nests_by_its_directory(void **state)
{
	struct tree *t = *state;
	struct root_spec roots[3];
	const struct root_spec *hidden;
	FILE *f;

	assert_non_null(f = fopen(tree_path(t, "dir/inner"), "w"));
	fclose(f);
	assert_int_equal(root_resolve(tree_path(t, "dir"), CGWARD_ACCESS_HIDDEN, &roots[0], t->err,
				      sizeof(t->err)),
			 0);
	assert_int_equal(root_resolve(tree_path(t, "dir/inner"), CGWARD_ACCESS_READ, &roots[1],
				      t->err, sizeof(t->err)),
			 0);
	assert_int_equal(root_resolve(tree_path(t, "file"), CGWARD_ACCESS_READ, &roots[2], t->err,
				      sizeof(t->err)),
			 0);
	assert_int_equal(root_nesting(&roots[1], roots, 3, &hidden), ROOT_INSIDE_HIDDEN);
	assert_ptr_equal(hidden, &roots[0]);
	assert_int_equal(root_nesting(&roots[2], roots, 3, &hidden), ROOT_NESTS);
	assert_int_equal(roots_check_nesting(roots, 3, t->err, sizeof(t->err)), -EINVAL);
	assert_non_null(strstr(t->err, "is inside --hide"));
	for (int i = 0; i < 3; i++)
		root_close(&roots[i]);
}

static void test_rejects_filesystem_root(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, "/", -EINVAL, "'/' cannot be a root");
	assert_rejected(t, "///", -EINVAL, "'/' cannot be a root");
}

static void test_rejects_symlink_as_last_component(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, tree_path(t, "link"), -ELOOP, "root '%s': is a symbolic link");
	assert_rejected(t, tree_path(t, "dangling"), -ELOOP, "root '%s': is a symbolic link");
}

static void test_rejects_symlink_with_trailing_slash(void **state)
{
	struct tree *t = *state;
	char expected[PATH_MAX + 64];
	struct root_spec root;

	/* "link/" would follow the link in open(); the slash is stripped first. */
	snprintf(expected, sizeof(expected), "root '%s': is a symbolic link", tree_path(t, "link"));
	assert_int_equal(
	    root_resolve(tree_path(t, "link/"), CGWARD_ACCESS_WRITE, &root, t->err, sizeof(t->err)),
	    -ELOOP);
	assert_string_equal(t->err, expected);
}

static void test_rejects_dot_components(void **state)
{
	struct tree *t = *state;

	assert_rejected(t, tree_path(t, "real/../dir"), -EINVAL, "root '%s': contains '.' or '..'");
	assert_rejected(t, tree_path(t, "./dir"), -EINVAL, "root '%s': contains '.' or '..'");
	assert_rejected(t, tree_path(t, "dir/."), -EINVAL, "root '%s': contains '.' or '..'");
	assert_rejected(t, tree_path(t, "dir/../"), -EINVAL, "root '%s': contains '.' or '..'");
}

static void test_accepts_dotted_names(void **state)
{
	struct tree *t = *state;
	struct root_spec root;

	assert_int_equal(mkdir(tree_path(t, "..dir."), 0755), 0);
	assert_int_equal(root_resolve(tree_path(t, "..dir."), CGWARD_ACCESS_WRITE, &root, t->err,
				      sizeof(t->err)),
			 0);
	root_close(&root);
}

static void test_resolves_directory_identity(void **state)
{
	struct tree *t = *state;
	struct root_spec root;
	struct stat st;

	assert_int_equal(stat(tree_path(t, "dir"), &st), 0);
	assert_int_equal(root_resolve(tree_path(t, "dir"), CGWARD_ACCESS_READ_ONLY, &root, t->err,
				      sizeof(t->err)),
			 0);
	assert_string_equal(root.path, tree_path(t, "dir"));
	assert_int_equal(root.access, CGWARD_ACCESS_READ_ONLY);
	assert_int_equal(root.dev, (major(st.st_dev) << 20) | minor(st.st_dev));
	assert_int_equal(root.ino, st.st_ino);
	assert_true(root.fd >= 0);
	assert_int_equal(fcntl(root.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	root_close(&root);
	assert_int_equal(root.fd, -1);
}

static void test_strips_trailing_slashes(void **state)
{
	struct tree *t = *state;
	struct root_spec root;

	assert_int_equal(
	    root_resolve(tree_path(t, "dir//"), CGWARD_ACCESS_WRITE, &root, t->err, sizeof(t->err)),
	    0);
	assert_string_equal(root.path, tree_path(t, "dir"));
	root_close(&root);
}

static void test_accepts_symlink_in_parent(void **state)
{
	struct tree *t = *state;
	struct root_spec root;
	struct stat st;

	assert_int_equal(stat(tree_path(t, "real/sub"), &st), 0);
	assert_int_equal(root_resolve(tree_path(t, "alias/sub"), CGWARD_ACCESS_WRITE, &root, t->err,
				      sizeof(t->err)),
			 0);
	assert_int_equal(root.ino, st.st_ino);
	root_close(&root);
}

static void resolve_ok(struct tree *t, const char *rel, struct root_spec *root)
{
	assert_int_equal(
	    root_resolve(tree_path(t, rel), CGWARD_ACCESS_WRITE, root, t->err, sizeof(t->err)), 0);
}

static void test_duplicates(void **state)
{
	struct tree *t = *state;
	struct root_spec roots[3];
	char expected[sizeof(t->err)];

	resolve_ok(t, "dir", &roots[0]);
	resolve_ok(t, "real/sub", &roots[1]);
	resolve_ok(t, "alias/sub", &roots[2]);
	assert_int_equal(roots_check_duplicates(roots, 2, t->err, sizeof(t->err)), 0);
	snprintf(expected, sizeof(expected), "roots '%s' and '%s' are the same directory",
		 roots[1].path, roots[2].path);
	assert_int_equal(roots_check_duplicates(roots, 3, t->err, sizeof(t->err)), -EINVAL);
	assert_string_equal(t->err, expected);

	root_close(&roots[2]);
	resolve_ok(t, "dir/", &roots[2]);
	snprintf(expected, sizeof(expected), "root '%s' is listed twice", roots[0].path);
	assert_int_equal(roots_check_duplicates(roots, 3, t->err, sizeof(t->err)), -EINVAL);
	assert_string_equal(t->err, expected);
	for (int i = 0; i < 3; i++)
		root_close(&roots[i]);
}

static void assert_stale(struct tree *t, const struct root_spec *root)
{
	char expected[sizeof(t->err)];

	snprintf(expected, sizeof(expected), "root '%s' changed after it was validated",
		 root->path);
	assert_int_equal(root_verify_unchanged(root, t->err, sizeof(t->err)), -ESTALE);
	assert_string_equal(t->err, expected);
}

static void test_verify_detects_rename_swap(void **state)
{
	struct tree *t = *state;
	struct root_spec root;

	resolve_ok(t, "dir", &root);
	assert_int_equal(root_verify_unchanged(&root, t->err, sizeof(t->err)), 0);
	assert_int_equal(rename(tree_path(t, "dir"), tree_path(t, "dir.old")), 0);
	assert_stale(t, &root);
	assert_int_equal(mkdir(tree_path(t, "dir"), 0755), 0);
	assert_stale(t, &root);
	root_close(&root);
}

static void test_verify_detects_symlink_swap(void **state)
{
	struct tree *t = *state;
	struct root_spec root;

	resolve_ok(t, "dir", &root);
	assert_int_equal(rename(tree_path(t, "dir"), tree_path(t, "dir.old")), 0);
	/* The link leads to the very same directory, yet the path is no longer a directory. */
	assert_int_equal(symlink("dir.old", tree_path(t, "dir")), 0);
	assert_stale(t, &root);
	root_close(&root);
}

static void test_kernel_dev_encoding(void **state)
{
	(void)state;
	assert_int_equal(root_kernel_dev(makedev(8, 1)), (8U << 20) | 1);
	assert_int_equal(root_kernel_dev(makedev(259, 70000)), (259U << 20) | 70000);
	assert_int_equal(root_kernel_dev(makedev(0, 0xfffff)), 0xfffff);
	assert_int_equal(root_kernel_dev(makedev(0xfff, 0)), 0xfff00000U);
}

/* A unix socket bound at path, closed (its file stays). */
static void make_socket_file(const char *path)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	close(fd);
}

static void test_unix_socket_identity_through_symlink(void **state)
{
	struct tree *t = *state;
	struct root_spec sock;
	struct stat st;

	make_socket_file(tree_path(t, "dir/agent.sock"));
	assert_int_equal(symlink("dir/agent.sock", tree_path(t, "sock-link")), 0);
	assert_int_equal(stat(tree_path(t, "dir/agent.sock"), &st), 0);
	assert_int_equal(root_resolve_node("--allow-unix", tree_path(t, "sock-link"),
					   CGWARD_ACCESS_UNIX_PEER, &sock, t->err, sizeof(t->err)),
			 0);
	assert_string_equal(sock.path, tree_path(t, "sock-link"));
	assert_int_equal(sock.access, CGWARD_ACCESS_UNIX_PEER);
	assert_int_equal(sock.dev, (major(st.st_dev) << 20) | minor(st.st_dev));
	assert_int_equal(sock.ino, st.st_ino);
	assert_int_equal(sock.fd, -1);
}

static void test_unix_socket_rejects_files_relative_and_missing(void **state)
{
	struct tree *t = *state;
	struct root_spec sock;
	char expected[sizeof(t->err)];

	assert_int_equal(root_resolve_node("--allow-unix", tree_path(t, "file"),
					   CGWARD_ACCESS_UNIX_PEER, &sock, t->err, sizeof(t->err)),
			 -ENOTSOCK);
	snprintf(expected, sizeof(expected), "--allow-unix '%s': not a unix socket",
		 tree_path(t, "file"));
	assert_string_equal(t->err, expected);
	assert_int_equal(root_resolve_node("--allow-unix", "agent.sock", CGWARD_ACCESS_UNIX_PEER,
					   &sock, t->err, sizeof(t->err)),
			 -EINVAL);
	assert_string_equal(t->err, "--allow-unix 'agent.sock': not an absolute path");
	assert_int_equal(root_resolve_node("--allow-unix", tree_path(t, "missing"),
					   CGWARD_ACCESS_UNIX_PEER, &sock, t->err, sizeof(t->err)),
			 -ENOENT);
}

/* /dev/null is a character device on every host the tests run on. */
static void test_device_identity_and_rejects_other_files(void **state)
{
	struct tree *t = *state;
	struct root_spec device;
	struct stat st;
	char expected[sizeof(t->err)];

	assert_int_equal(stat("/dev/null", &st), 0);
	assert_int_equal(root_resolve_node("allow_devices", "/dev/null", CGWARD_ACCESS_DEVICE,
					   &device, t->err, sizeof(t->err)),
			 0);
	assert_int_equal(device.access, CGWARD_ACCESS_DEVICE);
	assert_int_equal(device.dev, 0);
	assert_int_equal(device.ino, (major(st.st_rdev) << 20) | minor(st.st_rdev));
	assert_int_equal(device.fd, -1);
	make_socket_file(tree_path(t, "dir/agent.sock"));
	assert_int_equal(root_resolve_node("--allow-dev", tree_path(t, "dir/agent.sock"),
					   CGWARD_ACCESS_DEVICE, &device, t->err, sizeof(t->err)),
			 -ENODEV);
	snprintf(expected, sizeof(expected), "--allow-dev '%s': not a device node",
		 tree_path(t, "dir/agent.sock"));
	assert_string_equal(t->err, expected);
	assert_int_equal(root_resolve_node("--allow-dev", tree_path(t, "dir"), CGWARD_ACCESS_DEVICE,
					   &device, t->err, sizeof(t->err)),
			 -ENODEV);
	assert_int_equal(root_resolve_node("--allow-dev", "dev/null", CGWARD_ACCESS_DEVICE, &device,
					   t->err, sizeof(t->err)),
			 -EINVAL);
}

/* The identity of the file at path: what root_resolve_in must find. */
static void assert_same_file(const struct root_spec *root, const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(root->dev, root_kernel_dev(st.st_dev));
	assert_int_equal(root->ino, st.st_ino);
}

/*
 * Container paths in a directory standing for a container's root (or a
 * volume's source): a hidden or readable one may be a file, a link at the
 * end is followed within it (the kubelet's token -> ..data/token), an
 * absolute link stays inside, and "/" names the directory, or the file, given.
 */
static void test_resolves_container_paths_inside(void **state)
{
	struct tree *t = *state;
	struct root_spec root;
	int dir_fd, file_fd;
	FILE *f;

	assert_int_equal(mkdir(tree_path(t, "real/..2026_12_01"), 0755), 0);
	assert_non_null(f = fopen(tree_path(t, "real/..2026_12_01/token"), "w"));
	fclose(f);
	assert_int_equal(symlink("..2026_12_01", tree_path(t, "real/..data")), 0);
	assert_int_equal(symlink("..data/token", tree_path(t, "real/token")), 0);
	assert_int_equal(symlink("/sub", tree_path(t, "real/abs")), 0);
	dir_fd = open(tree_path(t, "real"), O_PATH | O_CLOEXEC);
	assert_true(dir_fd >= 0);

	assert_int_equal(root_resolve_in(dir_fd, "/token", "/run/token", CGWARD_ACCESS_HIDDEN,
					 &root, t->err, sizeof(t->err)),
			 0);
	assert_string_equal(root.path, "/run/token");
	assert_same_file(&root, tree_path(t, "real/..2026_12_01/token"));
	root_close(&root);
	assert_int_equal(root_resolve_in(dir_fd, "/token", "/run/token", CGWARD_ACCESS_WRITE, &root,
					 t->err, sizeof(t->err)),
			 -ENOTDIR);
	assert_string_equal(t->err, "container path '/run/token': Not a directory");
	assert_int_equal(root.fd, -1);
	assert_int_equal(root_resolve_in(dir_fd, "/abs", "/abs", CGWARD_ACCESS_READ, &root, t->err,
					 sizeof(t->err)),
			 0);
	assert_same_file(&root, tree_path(t, "real/sub"));
	root_close(&root);
	assert_int_equal(
	    root_resolve_in(dir_fd, "/", "/v", CGWARD_ACCESS_HIDDEN, &root, t->err, sizeof(t->err)),
	    0);
	assert_same_file(&root, tree_path(t, "real"));
	root_close(&root);
	assert_int_equal(root_resolve_in(dir_fd, "/missing", "/missing", CGWARD_ACCESS_HIDDEN,
					 &root, t->err, sizeof(t->err)),
			 -ENOENT);
	close(dir_fd);

	file_fd = open(tree_path(t, "file"), O_PATH | O_CLOEXEC);
	assert_true(file_fd >= 0);
	assert_int_equal(root_resolve_in(file_fd, "/", "/f", CGWARD_ACCESS_HIDDEN, &root, t->err,
					 sizeof(t->err)),
			 0);
	assert_same_file(&root, tree_path(t, "file"));
	root_close(&root);
	assert_int_equal(
	    root_resolve_in(file_fd, "/", "/f", CGWARD_ACCESS_WRITE, &root, t->err, sizeof(t->err)),
	    -ENOTDIR);
	close(file_fd);
}

#define TREE_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_tree, teardown_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    TREE_TEST(test_rejects_relative_and_empty),
	    TREE_TEST(test_device_identity_and_rejects_other_files),
	    TREE_TEST(test_rejects_missing),
	    TREE_TEST(test_rejects_non_directory),
	    TREE_TEST(test_hidden_path_may_be_a_file_not_a_symlink),
	    TREE_TEST(test_readable_file_nests_by_its_directory),
	    TREE_TEST(test_rejects_filesystem_root),
	    TREE_TEST(test_rejects_symlink_as_last_component),
	    TREE_TEST(test_rejects_symlink_with_trailing_slash),
	    TREE_TEST(test_rejects_dot_components),
	    TREE_TEST(test_accepts_dotted_names),
	    TREE_TEST(test_resolves_directory_identity),
	    TREE_TEST(test_strips_trailing_slashes),
	    TREE_TEST(test_accepts_symlink_in_parent),
	    TREE_TEST(test_duplicates),
	    TREE_TEST(test_verify_detects_rename_swap),
	    TREE_TEST(test_verify_detects_symlink_swap),
	    TREE_TEST(test_unix_socket_identity_through_symlink),
	    TREE_TEST(test_unix_socket_rejects_files_relative_and_missing),
	    TREE_TEST(test_resolves_container_paths_inside),
	    cmocka_unit_test(test_kernel_dev_encoding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
