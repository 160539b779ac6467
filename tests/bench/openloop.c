// SPDX-License-Identifier: GPL-2.0
/*
 * The write hot path under load: a loop of open(O_WRONLY)+close, of
 * create+close+unlink, or of creates the kernel must deny (EPERM), timed
 * with CLOCK_MONOTONIC; and the capable() hook's: open(O_RDONLY)+close of a
 * file whose mode refuses root, which the kernel allows after asking for
 * CAP_DAC_READ_SEARCH (generic_permission). With --landlock ROOT it first confines itself with
 * Landlock to the same boundary cgward would draw, as the in-kernel reference;
 * with --landlock-read ROOT, its reads too (READ_FILE beneath ROOT), the
 * reference for a run whose reads are confined.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/landlock.h>

/*
 * The rights of Landlock ABI 1 that write: every one of them is handled, and
 * granted only beneath the root. REFER (ABI 2) concerns rename and link only,
 * which no loop here does.
 */
#define LANDLOCK_WRITE_ACCESS                                            \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |     \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |   \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/*
 * Reads confined as a cgward read root confines them, for the loops' files:
 * READ_DIR would judge only opens of directories, which no loop does.
 */
#define LANDLOCK_READ_WRITE_ACCESS (LANDLOCK_WRITE_ACCESS | LANDLOCK_ACCESS_FS_READ_FILE)

enum loop_op { LOOP_OPEN, LOOP_CREATE, LOOP_DENY, LOOP_READ };

static const char *const op_names[] = {
    [LOOP_OPEN] = "open", [LOOP_CREATE] = "create", [LOOP_DENY] = "deny", [LOOP_READ] = "read"};

static const char usage[] =
    "usage: openloop [-n ITERATIONS] [--landlock ROOT | --landlock-read ROOT]\n"
    "                open|create|deny|read PATH...\n"
    "  open    open(O_WRONLY)+close of the existing file PATH\n"
    "  create  open(O_CREAT|O_EXCL)+close+unlink of PATH (must not exist)\n"
    "  deny    open(O_CREAT) of PATH, which the kernel must refuse with EPERM\n"
    "  read    open(O_RDONLY)+close of the existing file PATH (mode 000: root's\n"
    "          read then asks for CAP_DAC_READ_SEARCH)\n"
    "Prints, per PATH, the nanoseconds per operation over ITERATIONS of them.\n";

struct loop_options {
	long iterations;
	const char *landlock_root;
	__u64 landlock_access;
	enum loop_op op;
	char **paths;
	int n_paths;
};

/* Handles ACCESS, and grants all of it beneath ROOT alone. */
static int landlock_confine(const char *root, __u64 access)
{
	struct landlock_ruleset_attr ruleset = {.handled_access_fs = access};
	struct landlock_path_beneath_attr beneath = {.allowed_access = access};
	int ruleset_fd, ret = -1;

	ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &ruleset, sizeof(ruleset), 0);
	if (ruleset_fd < 0) {
		fprintf(stderr, "openloop: landlock_create_ruleset: %s\n", strerror(errno));
		return -1;
	}
	beneath.parent_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (beneath.parent_fd < 0)
		fprintf(stderr, "openloop: --landlock %s: %s\n", root, strerror(errno));
	else if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &beneath,
			 0) != 0)
		fprintf(stderr, "openloop: landlock_add_rule: %s\n", strerror(errno));
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		fprintf(stderr, "openloop: no_new_privs: %s\n", strerror(errno));
	else if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0)
		fprintf(stderr, "openloop: landlock_restrict_self: %s\n", strerror(errno));
	else
		ret = 0;
	if (beneath.parent_fd >= 0)
		close(beneath.parent_fd);
	close(ruleset_fd);
	return ret;
}

/* One operation; false (with errno) when its result is not the expected one. */
static bool run_once(enum loop_op op, const char *path)
{
	int fd;

	switch (op) {
	case LOOP_OPEN:
		fd = open(path, O_WRONLY | O_CLOEXEC);
		return fd >= 0 && close(fd) == 0;
	case LOOP_CREATE:
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		return fd >= 0 && close(fd) == 0 && unlink(path) == 0;
	case LOOP_DENY:
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			errno = 0;
		}
		return fd < 0 && errno == EPERM;
	case LOOP_READ:
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return fd >= 0 && close(fd) == 0;
	}
	return false;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * Nanoseconds per operation, or a negative value after reporting an
 * unexpected result. A tenth more iterations run first, untimed: they fill
 * the dentry cache and, under qemu TCG, the translation cache. Not for deny,
 * whose every iteration must be one event that the caller can count.
 */
static double time_loop(enum loop_op op, const char *path, long iterations)
{
	long warm_up = op == LOOP_DENY ? 0 : iterations / 10;
	double start = 0;

	for (long i = -warm_up; i < iterations; i++) {
		if (i == 0)
			start = now_ns();
		if (!run_once(op, path)) {
			fprintf(stderr, "openloop: %s %s: %s (iteration %ld)\n", op_names[op], path,
				errno ? strerror(errno) : "succeeded, want EPERM", i);
			return -1;
		}
	}
	return (now_ns() - start) / (double)iterations;
}

static int measure_path(const struct loop_options *opt, const char *path)
{
	double ns_per_op = time_loop(opt->op, path, opt->iterations);

	if (ns_per_op < 0)
		return -1;
	printf("op=%s iterations=%ld path=%s ns_per_op=%.1f\n", op_names[opt->op], opt->iterations,
	       path, ns_per_op);
	return 0;
}

static int parse_op(const char *name, enum loop_op *op)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
		if (strcmp(name, op_names[i]) == 0) {
			*op = (enum loop_op)i;
			return 0;
		}
	}
	return -1;
}

static int parse_options(int argc, char **argv, struct loop_options *opt)
{
	static const struct option long_options[] = {
	    {"landlock", required_argument, NULL, 'l'},
	    {"landlock-read", required_argument, NULL, 'L'},
	    {}};
	int c;

	*opt = (struct loop_options){.iterations = 200000};
	while ((c = getopt_long(argc, argv, "+n:", long_options, NULL)) != -1) {
		if (c == 'n')
			opt->iterations = strtol(optarg, NULL, 10);
		else if (c == 'l' || c == 'L') {
			opt->landlock_root = optarg;
			opt->landlock_access =
			    c == 'l' ? LANDLOCK_WRITE_ACCESS : LANDLOCK_READ_WRITE_ACCESS;
		} else
			return -1;
	}
	if (opt->iterations < 1 || argc - optind < 2 || parse_op(argv[optind], &opt->op) != 0)
		return -1;
	opt->paths = &argv[optind + 1];
	opt->n_paths = argc - optind - 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct loop_options opt;

	if (parse_options(argc, argv, &opt) != 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (opt.landlock_root && landlock_confine(opt.landlock_root, opt.landlock_access) != 0)
		return 1;
	for (int i = 0; i < opt.n_paths; i++) {
		if (measure_path(&opt, opt.paths[i]) != 0)
			return 1;
	}
	return 0;
}
