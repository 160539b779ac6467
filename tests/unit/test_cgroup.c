// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup layer against a fake cgroup root: a temp directory whose control
 * files the tests create, so no real cgroup is touched. What only cgroupfs
 * does (ids, EBUSY, killing members) is covered in the VM integration tests.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "cgroup.h"
#include "cgroup_placement.h"
#include "gc.h"

static const struct run_limits NO_LIMITS;

/* A live pid is never this large: pid_max is at most 2^22. */
#define DEAD_CREATOR "99999999"

struct fake_root {
	char dir[PATH_MAX];
	struct cgroup_layout layout;
};

/* snprintf that fails the test instead of truncating. */
__attribute__((format(printf, 3, 4))) static void format_fitting(char *out, size_t outlen,
								 const char *format, ...)
{
	va_list args;
	int len;

	va_start(args, format);
	len = vsnprintf(out, outlen, format, args);
	va_end(args);
	assert_true(len >= 0 && (size_t)len < outlen);
}

static void write_text(const char *path, const char *text)
{
	FILE *file = fopen(path, "w");

	assert_non_null(file);
	assert_int_equal(fputs(text, file) >= 0, 1);
	assert_int_equal(fclose(file), 0);
}

static char *read_text(const char *path)
{
	static char text[4096];
	FILE *file = fopen(path, "r");
	size_t len;

	assert_non_null(file);
	len = fread(text, 1, sizeof(text) - 1, file);
	text[len] = '\0';
	fclose(file);
	return text;
}

static const char *under(const struct fake_root *root, const char *name)
{
	static char path[PATH_MAX];

	format_fitting(path, sizeof(path), "%s/%s", root->dir, name);
	return path;
}

static void make_dir(const char *path)
{
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Entries of dir named cgward-*. */
static int count_cgward_entries(const char *dir)
{
	struct dirent *entry;
	DIR *listing = opendir(dir);
	int count = 0;

	assert_non_null(listing);
	while ((entry = readdir(listing)))
		count += !strncmp(entry->d_name, "cgward-", 7);
	closedir(listing);
	return count;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

/* A pure cgroup2 layout rooted at <tmp>/v2, with <tmp>/self_cgroup as /proc/self/cgroup. */
static int setup_fake_root(void **state)
{
	struct fake_root *root = calloc(1, sizeof(*root));

	strcpy(root->dir, "/tmp/cgward-unit-XXXXXX");
	if (!mkdtemp(root->dir))
		return -1;
	format_fitting(root->layout.unified, PATH_MAX, "%s/v2", root->dir);
	format_fitting(root->layout.self_cgroup, PATH_MAX, "%s/self_cgroup", root->dir);
	mkdir(root->layout.unified, 0755);
	*state = root;
	return 0;
}

static int teardown_fake_root(void **state)
{
	struct fake_root *root = *state;
	int r = nftw(root->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

	free(root);
	return r;
}

/* Makes the fake root hybrid: v1 memory at <tmp>/memory, the caller in /mine there. */
static void make_hybrid(struct fake_root *root)
{
	format_fitting(root->layout.memory_v1, PATH_MAX, "%s/memory", root->dir);
	strcpy(root->layout.memory_v1_root, "/");
	make_dir(root->layout.memory_v1);
	make_dir(under(root, "memory/mine"));
	write_text(root->layout.self_cgroup, "5:devices:/\n4:memory:/mine\n0::/\n");
}

static void detect_from(const char *mountinfo, struct cgroup_layout *layout, int expected)
{
	char path[] = "/tmp/cgward-unit-mountinfo-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_text(path, mountinfo);
	assert_int_equal(cgroup_layout_detect(path, layout), expected);
	unlink(path);
}

static void test_layout_of_pure_v2_host(void **state)
{
	struct cgroup_layout layout;

	(void)state;
	detect_from(
	    "22 28 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
	    "26 21 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 "
	    "cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	    "27 21 0:25 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:5 - pstore "
	    "pstore rw\n",
	    &layout, 0);
	assert_string_equal(layout.unified, "/sys/fs/cgroup");
	assert_string_equal(layout.memory_v1, "");
	assert_string_equal(layout.self_cgroup, "/proc/self/cgroup");
}

/* The lines of this development host's /proc/self/mountinfo. */
static void test_layout_of_hybrid_host(void **state)
{
	struct cgroup_layout layout;

	(void)state;
	detect_from(
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
	    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
	    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
	    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
	    &layout, 0);
	assert_string_equal(layout.unified, "/sys/fs/cgroup/unified");
	assert_string_equal(layout.memory_v1, "/sys/fs/cgroup/memory");
	assert_string_equal(layout.memory_v1_root, "/");
}

static void test_layout_without_cgroup2_is_enoent(void **state)
{
	struct cgroup_layout layout;

	(void)state;
	detect_from("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n",
		    &layout, -ENOENT);
	detect_from("", &layout, -ENOENT);
	assert_int_equal(cgroup_layout_detect("/nonexistent/mountinfo", &layout), -ENOENT);
}

/* Escaped mount points, bind-mounted subtrees, options that only contain "memory". */
static void test_layout_unescapes_and_keeps_mount_root(void **state)
{
	struct cgroup_layout layout;

	(void)state;
	detect_from("50 40 0:50 / /run/my\\040cgroups rw - cgroup2 none rw\n"
		    "51 40 0:51 / /sys/fs/cgroup/x rw - cgroup cgroup rw,name=memory_like\n"
		    "52 40 0:52 /docker/abc /sys/fs/cgroup/memory rw shared:7 master:2 - cgroup "
		    "cgroup rw,memory\n",
		    &layout, 0);
	assert_string_equal(layout.unified, "/run/my cgroups");
	assert_string_equal(layout.memory_v1, "/sys/fs/cgroup/memory");
	assert_string_equal(layout.memory_v1_root, "/docker/abc");
}

static void assert_memory_self(struct cgroup_layout *layout, const char *mount_root,
			       const char *self, int expected, const char *dir_or_err)
{
	char dir[PATH_MAX] = "", err[PATH_MAX] = "";

	strcpy(layout->memory_v1, "/sys/fs/cgroup/memory");
	strcpy(layout->memory_v1_root, mount_root);
	write_text(layout->self_cgroup, self);
	assert_int_equal(cgroup_memory_v1_self(layout, dir, sizeof(dir), err, sizeof(err)),
			 expected);
	assert_string_equal(expected ? err : dir, dir_or_err);
}

static void test_own_memory_cgroup_is_found_below_the_mount(void **state)
{
	struct fake_root *root = *state;
	char message[PATH_MAX];

	assert_memory_self(&root->layout, "/", "4:memory:/process_api/793f\n0::/\n", 0,
			   "/sys/fs/cgroup/memory/process_api/793f");
	assert_memory_self(&root->layout, "/", "3:cpu,memory:/\n", 0, "/sys/fs/cgroup/memory");
	assert_memory_self(&root->layout, "/docker/abc", "9:memory:/docker/abc/job\n", 0,
			   "/sys/fs/cgroup/memory/job");
	assert_memory_self(&root->layout, "/docker/abc", "9:memory:/docker/abc\n", 0,
			   "/sys/fs/cgroup/memory");
	assert_memory_self(&root->layout, "/docker/abc", "9:memory:/docker/abcd\n", -ENOENT,
			   "our v1 memory cgroup /docker/abcd is outside the mount of /docker/abc "
			   "at /sys/fs/cgroup/memory");
	format_fitting(message, sizeof(message),
		       "could not find our v1 memory cgroup in %s: No such file or directory",
		       root->layout.self_cgroup);
	assert_memory_self(&root->layout, "/", "9:name=memory_like:/x\n0::/\n", -ENOENT, message);
}

static void test_own_cgroup2_id_is_read_from_the_0_line(void **state)
{
	struct fake_root *root = *state;
	__u64 id = 0, want = 0;

	make_dir(under(root, "v2/a"));
	make_dir(under(root, "v2/a/b"));
	write_text(root->layout.self_cgroup, "4:memory:/x\n0::/a/b\n");
	assert_int_equal(cgroup_read_id(under(root, "v2/a/b"), &want), 0);
	assert_int_equal(cgroup_read_self_id(&root->layout, &id), 0);
	assert_true(id == want);
	write_text(root->layout.self_cgroup, "4:memory:/x\n");
	assert_int_equal(cgroup_read_self_id(&root->layout, &id), -ENOENT);
}

static void test_name_shape(void **state)
{
	pid_t creator = 0;

	(void)state;
	assert_true(exec_cgroup_name_parse("cgward-1234-0123456789abcdef", &creator));
	assert_int_equal(creator, 1234);
	assert_false(exec_cgroup_name_parse("cgward-test-1234", &creator));
	assert_false(exec_cgroup_name_parse("cgward-1234-0123456789ABCDEF", &creator));
	assert_false(exec_cgroup_name_parse("cgward-1234-0123456789abcde", &creator));
	assert_false(exec_cgroup_name_parse("cgward-1234-0123456789abcdef0", &creator));
	assert_false(exec_cgroup_name_parse("cgward--0123456789abcdef", &creator));
	assert_false(exec_cgroup_name_parse("cgward-01234-0123456789abcdef", &creator));
	assert_false(exec_cgroup_name_parse("cgward-1234567890-0123456789abcdef", &creator));
	assert_false(exec_cgroup_name_parse("xcgward-1234-0123456789abcdef", &creator));
	assert_false(exec_cgroup_name_parse("cgward-1234-0123456789abcdef.bak", &creator));
}

static void test_create_makes_a_named_directory_under_parent(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char err[256] = "";
	size_t prefix = strlen(root->layout.unified);
	struct stat st;
	pid_t creator;

	assert_int_equal(
	    exec_cgroup_create(&root->layout, NULL, &NO_LIMITS, 0, &cg, err, sizeof(err)), 0);
	assert_memory_equal(cg.path, root->layout.unified, prefix);
	assert_int_equal(cg.path[prefix], '/');
	assert_true(exec_cgroup_name_parse(cg.path + prefix + 1, &creator));
	assert_int_equal(creator, getpid());
	assert_int_equal(stat(cg.path, &st), 0);
	/* Not cgroupfs: the inode number stands in for the cgroup id. */
	assert_int_equal(cg.id, st.st_ino);
	assert_string_equal(cg.memory_path, "");
	assert_int_equal(cg.limits.memory_mib, 0);
	assert_string_equal(err, "");
}

static void test_two_creates_give_distinct_cgroups(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup first, second;
	char err[256];

	make_dir(under(root, "parent"));
	assert_int_equal(exec_cgroup_create(&root->layout, under(root, "parent"), &NO_LIMITS, 0,
					    &first, err, sizeof(err)),
			 0);
	assert_int_equal(exec_cgroup_create(&root->layout, under(root, "parent"), &NO_LIMITS, 0,
					    &second, err, sizeof(err)),
			 0);
	assert_string_not_equal(first.path, second.path);
	assert_int_not_equal(first.id, second.id);
	assert_int_equal(count_cgward_entries(under(root, "parent")), 2);
	assert_int_equal(count_cgward_entries(root->layout.unified), 0);
}

#define THREADS		   4
#define CREATES_PER_THREAD 25

struct create_job {
	const struct cgroup_layout *layout;
	int failures;
};

static void *create_many(void *arg)
{
	struct create_job *job = arg;
	struct exec_cgroup cg;
	char err[256];
	int i;

	for (i = 0; i < CREATES_PER_THREAD; i++)
		job->failures += exec_cgroup_create(job->layout, NULL, &NO_LIMITS, 0, &cg, err,
						    sizeof(err)) != 0;
	return NULL;
}

/* Every concurrent create got its own directory: none failed and none was shared. */
static void test_concurrent_creates_never_share_a_name(void **state)
{
	struct fake_root *root = *state;
	struct create_job jobs[THREADS];
	pthread_t threads[THREADS];
	int i;

	for (i = 0; i < THREADS; i++) {
		jobs[i] = (struct create_job){.layout = &root->layout};
		assert_int_equal(pthread_create(&threads[i], NULL, create_many, &jobs[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
	assert_int_equal(count_cgward_entries(root->layout.unified), THREADS * CREATES_PER_THREAD);
}

/*
 * A fake directory has no limit files after mkdir, unlike cgroupfs, so a
 * limit cannot be set: create fails with -ENOENT, naming the file, and
 * leaves nothing. Returns what cgroup.subtree_control holds then.
 */
static const char *create_failing_on(struct fake_root *root, const char *subtree_before,
				     const struct run_limits *limits, const char *file)
{
	static char subtree[PATH_MAX];
	struct exec_cgroup cg;
	char err[PATH_MAX + 64], expected[64];

	format_fitting(subtree, sizeof(subtree), "%s/cgroup.subtree_control", root->layout.unified);
	write_text(subtree, subtree_before);
	assert_int_equal(exec_cgroup_create(&root->layout, NULL, limits, 0, &cg, err, sizeof(err)),
			 -ENOENT);
	format_fitting(expected, sizeof(expected), "could not set %s of cgroup ", file);
	assert_non_null(strstr(err, expected));
	assert_non_null(strstr(err, ": No such file or directory"));
	assert_int_equal(count_cgward_entries(root->layout.unified), 0);
	assert_string_equal(cg.path, "");
	return read_text(subtree);
}

static void test_v2_limit_enables_memory_and_cleans_up_on_failure(void **state)
{
	const struct run_limits one_mib = {.memory_mib = 1};

	assert_string_equal(create_failing_on(*state, "", &one_mib, "memory.max"), "+memory");
	assert_string_equal(create_failing_on(*state, "cpu memory io\n", &one_mib, "memory.max"),
			    "cpu memory io\n");
}

/* Each controller is delegated in turn (the fake file keeps the last write). */
static void test_pids_and_cpu_limits_delegate_their_controllers(void **state)
{
	const struct run_limits both = {.pids = 20, .cpu_milli = 500};

	assert_string_equal(create_failing_on(*state, "", &both, "pids.max"), "+cpu");
}

static void test_v2_limit_without_subtree_control_fails_before_mkdir(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char err[PATH_MAX + 64], expected[PATH_MAX + 64];

	format_fitting(expected, sizeof(expected),
		       "could not enable the memory controller in %s: No such file or directory",
		       root->layout.unified);
	assert_int_equal(exec_cgroup_create(&root->layout, NULL,
					    &(struct run_limits){.memory_mib = 1}, 0, &cg, err,
					    sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, expected);
	assert_int_equal(count_cgward_entries(root->layout.unified), 0);
}

static void test_one_mib_writes_1048576_to_memory_max(void **state)
{
	struct fake_root *root = *state;
	char err[256];

	make_dir(under(root, "v2/cg"));
	write_text(under(root, "v2/cg/memory.max"), "max\n");
	write_text(under(root, "v2/cg/memory.swap.max"), "max\n");
	assert_int_equal(cgroup_memory_limit_write_v2(under(root, "v2/cg"), 1, err, sizeof(err)),
			 0);
	assert_string_equal(read_text(under(root, "v2/cg/memory.max")), "1048576");
	assert_string_equal(read_text(under(root, "v2/cg/memory.swap.max")), "0");

	/* No swap accounting: no memory.swap.max, and none is created. */
	make_dir(under(root, "v2/noswap"));
	write_text(under(root, "v2/noswap/memory.max"), "max\n");
	assert_int_equal(
	    cgroup_memory_limit_write_v2(under(root, "v2/noswap"), 1, err, sizeof(err)), 0);
	assert_string_equal(read_text(under(root, "v2/noswap/memory.max")), "1048576");
	assert_false(exists(under(root, "v2/noswap/memory.swap.max")));
}

static void test_one_mib_writes_1048576_to_limit_in_bytes(void **state)
{
	struct fake_root *root = *state;
	char err[256];

	make_dir(under(root, "v1"));
	write_text(under(root, "v1/memory.limit_in_bytes"), "9223372036854771712\n");
	write_text(under(root, "v1/memory.memsw.limit_in_bytes"), "9223372036854771712\n");
	assert_int_equal(cgroup_memory_limit_write_v1(under(root, "v1"), 1, err, sizeof(err)), 0);
	assert_string_equal(read_text(under(root, "v1/memory.limit_in_bytes")), "1048576");
	assert_string_equal(read_text(under(root, "v1/memory.memsw.limit_in_bytes")), "1048576");
}

static void test_hybrid_limit_makes_v1_cgroup_and_cleans_up_on_failure(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char err[PATH_MAX + 64], prefix[PATH_MAX + 64];

	make_hybrid(root);
	assert_int_equal(exec_cgroup_create(&root->layout, NULL,
					    &(struct run_limits){.memory_mib = 32}, 0, &cg, err,
					    sizeof(err)),
			 -ENOENT);
	format_fitting(prefix, sizeof(prefix),
		       "could not set memory.limit_in_bytes of cgroup %s/cgward-",
		       under(root, "memory/mine"));
	assert_memory_equal(err, prefix, strlen(prefix));
	assert_int_equal(count_cgward_entries(root->layout.unified), 0);
	assert_int_equal(count_cgward_entries(under(root, "memory/mine")), 0);
}

static void test_hybrid_without_limit_makes_no_v1_cgroup(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char err[256];

	make_hybrid(root);
	assert_int_equal(
	    exec_cgroup_create(&root->layout, NULL, &NO_LIMITS, 0, &cg, err, sizeof(err)), 0);
	assert_string_equal(cg.memory_path, "");
	assert_int_equal(count_cgward_entries(under(root, "memory/mine")), 0);
}

/* A cgroup made by hand, as create would on cgroupfs, with both directories. */
static void make_fake_exec_cgroup(struct fake_root *root, struct exec_cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	make_hybrid(root);
	format_fitting(cg->path, PATH_MAX, "%s/cgward-1-0000000000000001", root->layout.unified);
	format_fitting(cg->memory_path, PATH_MAX, "%s/cgward-1-0000000000000001",
		       under(root, "memory/mine"));
	make_dir(cg->path);
	make_dir(cg->memory_path);
}

static void test_attach_writes_pid_to_both_cgroup_procs(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char procs[PATH_MAX + 16], memory_procs[PATH_MAX + 16], err[PATH_MAX + 64];

	make_fake_exec_cgroup(root, &cg);
	format_fitting(procs, sizeof(procs), "%s/cgroup.procs", cg.path);
	format_fitting(memory_procs, sizeof(memory_procs), "%s/cgroup.procs", cg.memory_path);
	write_text(procs, "");
	write_text(memory_procs, "");
	assert_int_equal(exec_cgroup_attach(&cg, 4242, err, sizeof(err)), 0);
	assert_string_equal(read_text(procs), "4242");
	assert_string_equal(read_text(memory_procs), "4242");
}

static void test_attach_failure_names_pid_and_cgroup(void **state)
{
	struct fake_root *root = *state;
	struct exec_cgroup cg;
	char err[PATH_MAX + 64], expected[PATH_MAX + 64];

	make_fake_exec_cgroup(root, &cg);
	format_fitting(expected, sizeof(expected),
		       "could not move pid 4242 into cgroup %s: No such file or directory",
		       cg.path);
	assert_int_equal(exec_cgroup_attach(&cg, 4242, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, expected);
}

static void test_oom_kill_counters(void **state)
{
	struct fake_root *root = *state;
	char events[PATH_MAX + 16], oom_control[PATH_MAX + 32];
	struct exec_cgroup cg;

	make_fake_exec_cgroup(root, &cg);
	format_fitting(events, sizeof(events), "%s/memory.events", cg.path);
	format_fitting(oom_control, sizeof(oom_control), "%s/memory.oom_control", cg.memory_path);
	assert_false(exec_cgroup_oom_killed(&cg));

	write_text(events, "low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\noom_group_kill 0\n");
	write_text(oom_control, "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
	assert_false(exec_cgroup_oom_killed(&cg));

	write_text(events, "low 0\nhigh 0\nmax 4\noom 1\noom_kill 2\noom_group_kill 0\n");
	assert_true(exec_cgroup_oom_killed(&cg));

	write_text(events, "oom_kill 0\n");
	write_text(oom_control, "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	assert_true(exec_cgroup_oom_killed(&cg));
}

static void test_destroy_removes_both_and_is_idempotent(void **state)
{
	struct fake_root *root = *state;
	char path[PATH_MAX], memory_path[PATH_MAX], err[PATH_MAX + 64] = "";
	struct exec_cgroup cg;

	make_fake_exec_cgroup(root, &cg);
	strcpy(path, cg.path);
	strcpy(memory_path, cg.memory_path);
	assert_int_equal(exec_cgroup_destroy(&cg, 100, err, sizeof(err)), 0);
	assert_false(exists(path));
	assert_false(exists(memory_path));
	assert_string_equal(cg.path, "");
	assert_string_equal(cg.memory_path, "");
	assert_int_equal(exec_cgroup_destroy(&cg, 100, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* Files in a fake directory stand in for a cgroup rmdir refuses: the error is reported. */
static void test_destroy_reports_what_it_could_not_remove(void **state)
{
	struct fake_root *root = *state;
	char kill_file[PATH_MAX + 16], err[PATH_MAX + 64], expected[PATH_MAX + 64];
	struct exec_cgroup cg;

	make_fake_exec_cgroup(root, &cg);
	format_fitting(kill_file, sizeof(kill_file), "%s/cgroup.kill", cg.path);
	write_text(kill_file, "");
	format_fitting(expected, sizeof(expected),
		       "could not remove cgroup %s: Directory not empty", cg.path);
	assert_int_equal(exec_cgroup_destroy(&cg, 100, err, sizeof(err)), -ENOTEMPTY);
	assert_string_equal(err, expected);
	assert_string_equal(read_text(kill_file), "1");
	assert_true(exists(cg.memory_path));
}

/*
 * Without cgroup.kill each listed member gets SIGKILL, and a 0 (a member in
 * another pid namespace) is skipped: kill(0) would have killed our own
 * process group, so destroy runs in a child leading a group of its own.
 */
static void test_destroy_without_cgroup_kill_kills_listed_members(void **state)
{
	struct fake_root *root = *state;
	char procs[PATH_MAX + 16], list[64], err[PATH_MAX + 64];
	struct exec_cgroup cg;
	int destroyer_status, member_status;
	pid_t member, destroyer;

	make_fake_exec_cgroup(root, &cg);
	member = fork();
	assert_true(member >= 0);
	if (member == 0) {
		pause();
		_exit(0);
	}
	format_fitting(procs, sizeof(procs), "%s/cgroup.procs", cg.path);
	format_fitting(list, sizeof(list), "0\n%d\n", member);
	write_text(procs, list);

	destroyer = fork();
	assert_true(destroyer >= 0);
	if (destroyer == 0) {
		setpgid(0, 0);
		_exit(exec_cgroup_destroy(&cg, 100, err, sizeof(err)) == -ENOTEMPTY ? 0 : 1);
	}
	assert_int_equal(waitpid(destroyer, &destroyer_status, 0), destroyer);
	/* A member destroy missed dies of this SIGTERM instead: the test fails, nothing leaks. */
	kill(member, SIGTERM);
	assert_int_equal(waitpid(member, &member_status, 0), member);
	assert_true(WIFEXITED(destroyer_status));
	assert_int_equal(WEXITSTATUS(destroyer_status), 0);
	assert_true(WIFSIGNALED(member_status));
	assert_int_equal(WTERMSIG(member_status), SIGKILL);
}

/* Leftovers, a running cgward's cgroup, and names of other shapes under one parent. */
static void make_gc_candidates(const char *dir, char *alive, size_t alivelen)
{
	static const char *const others[] = {
	    "cgward-test-1",
	    "cgward-" DEAD_CREATOR "-0123456789ABCDEF",
	    "cgward-" DEAD_CREATOR "-0123",
	    "cgward--0123456789abcdef",
	    "xcgward-" DEAD_CREATOR "-0123456789abcdef",
	    "cgward-" DEAD_CREATOR "-0123456789abcdef-x",
	};
	char path[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		format_fitting(path, sizeof(path), "%s/%s", dir, others[i]);
		make_dir(path);
	}
	format_fitting(path, sizeof(path), "%s/cgward-" DEAD_CREATOR "-0123456789abcdef", dir);
	make_dir(path);
	format_fitting(path, sizeof(path), "%s/cgward-" DEAD_CREATOR "-fedcba9876543210", dir);
	write_text(path, "a file, not a cgroup");
	format_fitting(alive, alivelen, "%s/cgward-%d-00000000000000aa", dir, getpid());
	make_dir(alive);
}

static char *run_gc(struct fake_root *root, const char *parent, bool dry_run, int expected)
{
	static char *listing;
	size_t len;
	FILE *out;

	free(listing);
	out = open_memstream(&listing, &len);
	assert_non_null(out);
	assert_int_equal(cgroup_gc(&root->layout, parent, dry_run, out), expected);
	fclose(out);
	return listing;
}

static void test_gc_dry_run_lists_only_leftovers_of_our_shape(void **state)
{
	struct fake_root *root = *state;
	char alive[PATH_MAX + 64], expected[PATH_MAX + 64];

	make_gc_candidates(root->layout.unified, alive, sizeof(alive));
	format_fitting(expected, sizeof(expected), "%s/cgward-" DEAD_CREATOR "-0123456789abcdef\n",
		       root->layout.unified);
	assert_string_equal(run_gc(root, NULL, true, 0), expected);
	/* A dry run removes nothing. */
	assert_int_equal(count_cgward_entries(root->layout.unified), 8);
}

static void test_gc_removes_leftovers_in_both_hierarchies(void **state)
{
	struct fake_root *root = *state;
	char alive[PATH_MAX + 64], memory_alive[PATH_MAX + 64], expected[3 * PATH_MAX];

	make_hybrid(root);
	make_gc_candidates(root->layout.unified, alive, sizeof(alive));
	make_gc_candidates(under(root, "memory/mine"), memory_alive, sizeof(memory_alive));
	format_fitting(expected, sizeof(expected),
		       "%s/cgward-" DEAD_CREATOR "-0123456789abcdef\n"
		       "%s/memory/mine/cgward-" DEAD_CREATOR "-0123456789abcdef\n",
		       root->layout.unified, root->dir);
	assert_string_equal(run_gc(root, NULL, false, 0), expected);
	assert_int_equal(count_cgward_entries(root->layout.unified), 7);
	assert_int_equal(count_cgward_entries(under(root, "memory/mine")), 7);
	assert_true(exists(alive));
	assert_true(exists(memory_alive));
	assert_string_equal(run_gc(root, NULL, false, 0), "");
}

static void test_gc_counts_what_it_could_not_remove(void **state)
{
	struct fake_root *root = *state;
	char removed[PATH_MAX + 64];

	make_dir(under(root, "v2/cgward-" DEAD_CREATOR "-0123456789abcdef"));
	make_dir(under(root, "v2/cgward-" DEAD_CREATOR "-1123456789abcdef"));
	write_text(under(root, "v2/cgward-" DEAD_CREATOR "-0123456789abcdef/cgroup.procs"), "");
	format_fitting(removed, sizeof(removed), "%s\n",
		       under(root, "v2/cgward-" DEAD_CREATOR "-1123456789abcdef"));
	assert_string_equal(run_gc(root, NULL, false, 1), removed);
	assert_true(exists(under(root, "v2/cgward-" DEAD_CREATOR "-0123456789abcdef")));
	assert_false(exists(under(root, "v2/cgward-" DEAD_CREATOR "-1123456789abcdef")));
	assert_string_equal(run_gc(root, under(root, "missing"), true, -ENOENT), "");
}

/* A cgroup the caller may not write: its cgroup.procs root's 0644, as cgroupfs makes it. */
static void make_cgroup(struct fake_root *root, const char *rel, mode_t procs_mode)
{
	char procs[PATH_MAX + 64];

	make_dir(under(root, rel));
	format_fitting(procs, sizeof(procs), "%s/cgroup.procs", under(root, rel));
	write_text(procs, "");
	assert_int_equal(chmod(procs, procs_mode), 0);
}

static void expect_run_parent(struct fake_root *root, const char *member, uid_t uid,
			      const char *expected_rel)
{
	char dir[PATH_MAX], err[PATH_MAX + 128];

	assert_int_equal(
	    cgroup_run_parent(&root->layout, member, uid, uid, dir, sizeof(dir), err, sizeof(err)),
	    0);
	assert_string_equal(dir, under(root, expected_rel));
}

static void test_run_goes_within_the_callers_cgroup(void **state)
{
	struct fake_root *root = *state;

	make_cgroup(root, "v2/service", 0644);
	make_cgroup(root, "v2/service/cgward.caller", 0644);
	expect_run_parent(root, "/service", 0, "v2/service");
	expect_run_parent(root, "/service", 1000, "v2/service");
	/* The leaf its processes were moved into stands for the cgroup. */
	expect_run_parent(root, "/service/cgward.caller", 1000, "v2/service");
	expect_run_parent(root, "/", 1000, "v2");
}

static void test_run_stays_out_of_a_subtree_the_caller_may_write(void **state)
{
	struct fake_root *root = *state;
	char dir[PATH_MAX], err[PATH_MAX + 128];

	make_cgroup(root, "v2/user.slice", 0644);
	make_cgroup(root, "v2/user.slice/user@1000.service", 0644);
	make_cgroup(root, "v2/user.slice/user@1000.service/app", 0666);
	make_cgroup(root, "v2/user.slice/user@1000.service/app/term", 0644);
	/* Below a cgroup.procs it can write, the caller could move the run's processes out. */
	expect_run_parent(root, "/user.slice/user@1000.service/app/term", 1000,
			  "v2/user.slice/user@1000.service");
	/* Root could anyway: its run goes where it is. */
	expect_run_parent(root, "/user.slice/user@1000.service/app/term", 0,
			  "v2/user.slice/user@1000.service/app/term");
	assert_int_equal(cgroup_run_parent(&root->layout, "/../../elsewhere", 1000, 1000, dir,
					   sizeof(dir), err, sizeof(err)),
			 -EXDEV);
	assert_non_null(strstr(err, "outside the agent's cgroup namespace"));
}

static void test_gc_finds_leftovers_at_any_depth(void **state)
{
	struct fake_root *root = *state;
	char expected[PATH_MAX + 64];

	make_dir(under(root, "v2/a"));
	make_dir(under(root, "v2/a/b"));
	make_dir(under(root, "v2/a/b/cgward-" DEAD_CREATOR "-0123456789abcdef"));
	format_fitting(expected, sizeof(expected), "%s\n",
		       under(root, "v2/a/b/cgward-" DEAD_CREATOR "-0123456789abcdef"));
	assert_string_equal(run_gc(root, NULL, false, 0), expected);
	assert_false(exists(under(root, "v2/a/b/cgward-" DEAD_CREATOR "-0123456789abcdef")));
	assert_true(exists(under(root, "v2/a/b")));
}

#define FAKE_ROOT_TEST(test) \
	cmocka_unit_test_setup_teardown(test, setup_fake_root, teardown_fake_root)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout_of_pure_v2_host),
	    FAKE_ROOT_TEST(test_own_cgroup2_id_is_read_from_the_0_line),
	    cmocka_unit_test(test_layout_of_hybrid_host),
	    cmocka_unit_test(test_layout_without_cgroup2_is_enoent),
	    cmocka_unit_test(test_layout_unescapes_and_keeps_mount_root),
	    cmocka_unit_test(test_name_shape),
	    FAKE_ROOT_TEST(test_own_memory_cgroup_is_found_below_the_mount),
	    FAKE_ROOT_TEST(test_create_makes_a_named_directory_under_parent),
	    FAKE_ROOT_TEST(test_two_creates_give_distinct_cgroups),
	    FAKE_ROOT_TEST(test_concurrent_creates_never_share_a_name),
	    FAKE_ROOT_TEST(test_v2_limit_enables_memory_and_cleans_up_on_failure),
	    FAKE_ROOT_TEST(test_v2_limit_without_subtree_control_fails_before_mkdir),
	    FAKE_ROOT_TEST(test_pids_and_cpu_limits_delegate_their_controllers),
	    FAKE_ROOT_TEST(test_one_mib_writes_1048576_to_memory_max),
	    FAKE_ROOT_TEST(test_one_mib_writes_1048576_to_limit_in_bytes),
	    FAKE_ROOT_TEST(test_hybrid_limit_makes_v1_cgroup_and_cleans_up_on_failure),
	    FAKE_ROOT_TEST(test_hybrid_without_limit_makes_no_v1_cgroup),
	    FAKE_ROOT_TEST(test_attach_writes_pid_to_both_cgroup_procs),
	    FAKE_ROOT_TEST(test_attach_failure_names_pid_and_cgroup),
	    FAKE_ROOT_TEST(test_oom_kill_counters),
	    FAKE_ROOT_TEST(test_destroy_removes_both_and_is_idempotent),
	    FAKE_ROOT_TEST(test_destroy_reports_what_it_could_not_remove),
	    FAKE_ROOT_TEST(test_destroy_without_cgroup_kill_kills_listed_members),
	    FAKE_ROOT_TEST(test_gc_dry_run_lists_only_leftovers_of_our_shape),
	    FAKE_ROOT_TEST(test_gc_removes_leftovers_in_both_hierarchies),
	    FAKE_ROOT_TEST(test_gc_counts_what_it_could_not_remove),
	    FAKE_ROOT_TEST(test_gc_finds_leftovers_at_any_depth),
	    FAKE_ROOT_TEST(test_run_goes_within_the_callers_cgroup),
	    FAKE_ROOT_TEST(test_run_stays_out_of_a_subtree_the_caller_may_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
