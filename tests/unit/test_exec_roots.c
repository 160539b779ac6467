// SPDX-License-Identifier: GPL-2.0
/* The exec socket's descriptors to roots (user/agent/exec_roots.c), without a socket. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgward_abi.h"
#include "exec_roots.h"

#define MAX_FDS 8

/* A tree under /tmp (dir/ dir/sub/ other/ file sock) and a request being built over it. */
struct request {
	char top[64];
	char err[PATH_MAX + 256];
	json_t *kinds, *paths;
	int fds[MAX_FDS];
	size_t n_fds;
	struct exec_roots given;
};

/* One path at a time: the next call reuses it. */
static const char *path_of(const struct request *r, const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->top, rel);
	return path;
}

static int setup_request(void **state)
{
	struct request *r = calloc(1, sizeof(*r));
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int sock;
	FILE *f;

	assert_non_null(r);
	strcpy(r->top, "/tmp/cgward-test-exec-roots-XXXXXX");
	assert_non_null(mkdtemp(r->top));
	assert_int_equal(mkdir(path_of(r, "dir"), 0755), 0);
	assert_int_equal(mkdir(path_of(r, "dir/sub"), 0755), 0);
	assert_int_equal(mkdir(path_of(r, "other"), 0755), 0);
	assert_non_null(f = fopen(path_of(r, "file"), "w"));
	fclose(f);
	assert_true(strlen(path_of(r, "sock")) < sizeof(addr.sun_path));
	strcpy(addr.sun_path, path_of(r, "sock"));
	assert_true((sock = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(sock);
	r->kinds = json_array();
	r->paths = json_array();
	/* fds[0]: the pidfd's place, never taken. */
	json_array_append_new(r->kinds, json_string("pid"));
	json_array_append_new(r->paths, json_string(""));
	r->fds[0] = -1;
	r->n_fds = 1;
	*state = r;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown_request(void **state)
{
	struct request *r = *state;

	for (size_t i = 0; r->given.roots && i < r->given.n_roots; i++)
		root_close(&r->given.roots[i]);
	free(r->given.roots);
	free(r->given.nodes);
	for (size_t i = 0; i < r->n_fds; i++) {
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	}
	json_decref(r->kinds);
	json_decref(r->paths);
	nftw(r->top, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(r);
	return 0;
}

/* A descriptor of kind for rel (in the tree, or absolute), opened as the caller would. */
static void pass(struct request *r, const char *kind, const char *rel, int flags)
{
	const char *path = rel[0] == '/' ? rel : path_of(r, rel);
	int fd = open(path, flags | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(r->n_fds < MAX_FDS);
	json_array_append_new(r->kinds, json_string(kind));
	json_array_append_new(r->paths, json_string(path));
	r->fds[r->n_fds++] = fd;
}

static int take(struct request *r)
{
	return exec_roots_take(&r->given, r->kinds, r->paths, r->fds, r->n_fds, r->err,
			       sizeof(r->err));
}

static void assert_all_taken(const struct request *r)
{
	for (size_t i = 0; i < r->n_fds; i++)
		assert_int_equal(r->fds[i], -1);
}

static void test_roots_and_nodes(void **state)
{
	struct request *r = *state;
	struct stat st;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	pass(r, "ro", "dir/sub", O_PATH | O_DIRECTORY);
	pass(r, "unix", "sock", O_PATH);
	pass(r, "dev", "/dev/null", O_PATH);
	assert_int_equal(take(r), 0);
	assert_all_taken(r);
	assert_int_equal(r->given.n_roots, 2);
	assert_int_equal(r->given.n_nodes, 2);
	assert_int_equal(r->given.roots[0].access, CGWARD_ACCESS_WRITE);
	assert_int_equal(r->given.roots[1].access, CGWARD_ACCESS_READ_ONLY);
	assert_true(r->given.roots[0].fd >= 0);
	assert_string_equal(r->given.roots[0].path, path_of(r, "dir"));
	assert_int_equal(stat(path_of(r, "dir"), &st), 0);
	assert_int_equal(r->given.roots[0].ino, st.st_ino);
	assert_int_equal(r->given.roots[0].dev, root_kernel_dev(st.st_dev));
	assert_int_equal(r->given.nodes[0].access, CGWARD_ACCESS_UNIX_PEER);
	assert_int_equal(r->given.nodes[0].fd, -1);
	assert_int_equal(stat(path_of(r, "sock"), &st), 0);
	assert_int_equal(r->given.nodes[0].ino, st.st_ino);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_int_equal(r->given.nodes[1].access, CGWARD_ACCESS_DEVICE);
	assert_int_equal(r->given.nodes[1].dev, 0);
	assert_int_equal(r->given.nodes[1].ino, CGWARD_DEVICE_KEY(0, root_kernel_dev(st.st_rdev)));
	assert_int_equal(exec_roots_check(&r->given, r->err, sizeof(r->err)), 0);
}

static void test_rejects_unknown_kind_and_closes_the_rest(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	pass(r, "exec", "other", O_PATH | O_DIRECTORY);
	pass(r, "write", "other", O_PATH | O_DIRECTORY);
	assert_int_equal(take(r), -EINVAL);
	assert_string_equal(r->err, "descriptor 2: unknown kind");
	assert_all_taken(r);
	assert_int_equal(r->given.n_roots, 1); /* the third is closed, not taken */
}

/* A descriptor whose file is not of its kind: refused, with the option that names it. */
static void test_rejects_wrong_file_types(void **state)
{
	static const struct {
		const char *kind, *rel;
		int error;
		const char *says;
	} cases[] = {
	    {"write", "file", -ENOTDIR, "not a directory"},
	    {"unix", "file", -ENOTSOCK, "--allow-unix"},
	    {"dev", "sock", -ENODEV, "--allow-dev"},
	};
	struct request *r = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pass(r, cases[i].kind, cases[i].rel, O_PATH);
		assert_int_equal(take(r), cases[i].error);
		assert_non_null(strstr(r->err, cases[i].says));
		assert_all_taken(r);
		for (size_t k = 0; k < r->given.n_roots; k++)
			root_close(&r->given.roots[k]);
		free(r->given.roots);
		free(r->given.nodes);
		r->given = (struct exec_roots){0};
		json_array_remove(r->kinds, 1);
		json_array_remove(r->paths, 1);
		r->n_fds = 1;
	}
}

static void test_rejects_filesystem_root(void **state)
{
	struct request *r = *state;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	json_array_append_new(r->kinds, json_string("write"));
	json_array_append_new(r->paths, json_string("/"));
	r->fds[r->n_fds++] = fd;
	assert_int_equal(take(r), -EINVAL);
	assert_string_equal(r->err, "'/' cannot be a root");
}

static void test_skips_descriptors_taken_elsewhere(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	close(r->fds[1]);
	r->fds[1] = -1; /* as exec_spawn_read leaves one it took */
	pass(r, "write", "other", O_PATH | O_DIRECTORY);
	assert_int_equal(take(r), 0);
	assert_int_equal(r->given.n_roots, 1);
	assert_string_equal(r->given.roots[0].path, path_of(r, "other"));
}

/* Descriptors of the right kinds, taken, whose set exec_roots_check refuses, saying says. */
static void assert_check_refuses(struct request *r, const char *says)
{
	assert_int_equal(take(r), 0);
	assert_int_equal(exec_roots_check(&r->given, r->err, sizeof(r->err)), -EINVAL);
	assert_non_null(strstr(r->err, says));
}

static void test_check_needs_a_write_root(void **state)
{
	struct request *r = *state;

	pass(r, "unix", "sock", O_PATH);
	assert_check_refuses(r, "no write root");
}

static void test_check_ro_inside_a_write_root(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	pass(r, "ro", "other", O_PATH | O_DIRECTORY);
	assert_check_refuses(r, "is not inside any --root");
}

/* A hidden path may be a file; its descriptor is kept, as a root's is, to tag its inode. */
static void test_hides_a_file(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	pass(r, "hide", "file", O_PATH | O_NOFOLLOW);
	assert_int_equal(take(r), 0);
	assert_int_equal(r->given.n_roots, 2);
	assert_int_equal(r->given.roots[1].access, CGWARD_ACCESS_HIDDEN);
	assert_true(r->given.roots[1].fd >= 0);
	assert_int_equal(exec_roots_check(&r->given, r->err, sizeof(r->err)), 0);
}

static void test_check_no_root_inside_a_hidden_tree(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir/sub", O_PATH | O_DIRECTORY);
	pass(r, "hide", "dir", O_PATH | O_DIRECTORY);
	assert_check_refuses(r, "is inside --hide");
}

static void test_check_duplicates(void **state)
{
	struct request *r = *state;

	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	pass(r, "write", "dir", O_PATH | O_DIRECTORY);
	assert_check_refuses(r, "is listed twice");
}

#define REQUEST_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_request, teardown_request)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    REQUEST_TEST(test_roots_and_nodes),
	    REQUEST_TEST(test_rejects_unknown_kind_and_closes_the_rest),
	    REQUEST_TEST(test_rejects_wrong_file_types),
	    REQUEST_TEST(test_rejects_filesystem_root),
	    REQUEST_TEST(test_skips_descriptors_taken_elsewhere),
	    REQUEST_TEST(test_check_needs_a_write_root),
	    REQUEST_TEST(test_check_ro_inside_a_write_root),
	    REQUEST_TEST(test_hides_a_file),
	    REQUEST_TEST(test_check_no_root_inside_a_hidden_tree),
	    REQUEST_TEST(test_check_duplicates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
