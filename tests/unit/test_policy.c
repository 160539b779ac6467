// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgward_abi.h"
#include "policy.h"
#include "policy_cmd.h"

/* The fixtures name roots under this directory; setup creates it. */
#define ROOTS	 "/tmp/cgward-unit-policy"
#define FIXTURES "tests/unit/policy/"
#define EXAMPLES "policy/examples/"

#define POD_UID	     "0f3c2a1e-9b7d-4c5e-8a6f-112233445566"
#define CONTAINER_ID "4bd2c7f1e8a9b0c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b"

struct expected_diag {
	int line, column;
	const char *message;
};

struct error_fixture {
	const char *file;
	struct expected_diag diags[12];
};

static const struct error_fixture error_fixtures[] = {
    {"unknown_keys.yaml",
     {{5, 7,
       "unknown key 'namespaces' in 'selector' (expected cgroups, pod_uids, container_ids, "
       "kubernetes)"},
      {7, 5,
       "unknown key 'writeroots' in a policy (expected name, selector, write_roots, "
       "read_only, hide, read_roots, read_system, mode, mandatory, network, unix_outside, "
       "private_tmp, container_roots, container_read_roots, container_hide, allow_devices, "
       "capabilities, limits)"},
      {8, 1, "unknown key 'version' in the file (expected policies, exec_socket)"}}},
    {"bad_exec_socket.yaml",
     {{6, 9, "'path' must be an absolute path shorter than 108 bytes"},
      {7, 9, "'mode' must be an octal mode up to 0777, not '0999'"},
      {8, 10, "'group': no group 'cgward-unit-no-such-group' on this host"},
      {9, 22, "'max_runs_per_user' must be a whole number from 1 to 65536, not '0'"},
      {10, 24, "'requests_per_second' must be a whole number from 1 to 100000, not '-3'"},
      {11, 18, "'request_burst' must be a whole number from 1 to 100000, not 'many'"},
      {12, 3,
       "unknown key 'socket' in 'exec_socket' (expected path, mode, group, "
       "max_runs_per_user, requests_per_second, request_burst)"}}},
    {"exec_socket_word.yaml", {{5, 14, "'exec_socket' must be off or a mapping, not 'on'"}}},
    {"wrong_types.yaml",
     {{2, 11, "'name' must be a string, not a list"},
      {4, 16, "'cgroups' must be a list, not a string"},
      {6, 7, "'write_roots' must be a list, not a mapping"},
      {7, 16, "'mandatory' must be true or false, not the quoted string \"true\""},
      {9, 15, "'selector' must be a mapping, not a string"},
      {11, 16, "'mandatory' must be true or false, not 'yes'"},
      {13, 26, "an entry of 'cgroups' must be a string, not a list"},
      {15, 16, "'mandatory' must be true or false, not '1'"},
      {16, 11, "'mode' must be a string, not a mapping"},
      {20, 15, "'mandatory' must be true or false, not null"}}},
    {"unknown_mode.yaml", {{5, 11, "unknown mode 'permissive' (expected enforce or audit)"}}},
    {"bad_capabilities.yaml",
     {{5, 37, "'capabilities': unknown capability 'CAP_FOO'"},
      {5, 46, "'capabilities': unknown capability '4'"},
      {9, 19, "'capabilities' must be all or a list of capabilities, not a string"},
      {13, 19, "'capabilities' must be all or a list of capabilities, not a mapping"}}},
    {"bad_limits.yaml",
     {{6, 26, "memory_mib: '-1' is not a whole number of MiB"},
      {6, 36, "pids: '1.5' is not a whole number of processes"},
      {6, 47, "cpus: 'true' is not a number of CPUs (such as 0.5 or 2)"},
      {11, 26, "memory_mib must be a number, not the string \"4096\""},
      {11, 50, "cpus: '0.001' is out of range (0.01 to 65536 CPUs, or 0: none)"},
      {15, 13,
       "'limits' needs 'mandatory: true': a run's own boundary replaces a rule that is not "
       "mandatory, whose limits would never hold"},
      {20, 14, "unknown key 'disk' in 'limits' (expected memory_mib, pids, cpus)"}}},
    {"private_tmp.yaml",
     {{5, 18,
       "'private_tmp' cannot apply to a policy: the agent binds cgroups whose processes "
       "already run; use cgward exec --private-tmp"}}},
    {"unknown_network.yaml",
     {{5, 14, "unknown network 'none' (expected allow, deny or loopback)"},
      {6, 19, "unknown unix_outside 'yes' (expected allow or deny)"}}},
    {"missing_keys.yaml",
     {{2, 5, "a policy is missing required key 'name'"},
      {2, 5, "a policy is missing required key 'selector'"},
      {2, 5, "a policy is missing required key 'write_roots' (or 'container_roots')"},
      {4, 15, "'selector' needs at least one of cgroups, pod_uids, container_ids, kubernetes"}}},
    {"missing_policies.yaml", {{2, 1, "the file is missing required key 'policies'"}}},
    {"empty_lists.yaml",
     {{4, 16, "'cgroups' must not be empty"},
      {5, 17, "'pod_uids' must not be empty"},
      {6, 18, "'write_roots' must not be empty"},
      {7, 16, "'read_only' must not be empty"}}},
    {"empty_policies.yaml", {{1, 11, "'policies' must not be empty"}}},
    {"duplicate_names.yaml", {{8, 11, "duplicate policy name 'same' (first at line 2)"}}},
    {"bad_names.yaml",
     {{2, 11, "bad policy name 'has space': use 1 to 63 of A-Z a-z 0-9 . _ -"},
      {5, 11, "bad policy name '': use 1 to 63 of A-Z a-z 0-9 . _ -"},
      {8, 11,
       "bad policy name 'a234567890123456789012345678901234567890123456789012345678901234': "
       "use 1 to 63 of A-Z a-z 0-9 . _ -"},
      {11, 11, "'name' must be a string, not null"}}},
    {"bad_devices.yaml",
     {{6, 9, "allow_devices 'dev/null': not an absolute path"},
      {7, 9, "allow_devices '/dev/cgward-unit-absent': No such file or directory"},
      {8, 9, "allow_devices '" ROOTS "/work': not a device node"},
      {10, 9, "root '/dev/null' is listed twice"}}},
    {"relative_root.yaml", {{5, 9, "root 'tmp/cgward-unit-policy/work': not an absolute path"}}},
    {"missing_root.yaml", {{5, 9, "root '" ROOTS "/absent': does not exist"}}},
    {"slash_root.yaml", {{5, 9, "'/' cannot be a root"}}},
    {"not_directory_root.yaml", {{5, 9, "root '" ROOTS "/file': not a directory"}}},
    {"symlink_root.yaml", {{5, 9, "root '" ROOTS "/link': is a symbolic link"}}},
    {"duplicate_roots.yaml",
     {{6, 9, "root '" ROOTS "/work' is listed twice"},
      {7, 9, "roots '" ROOTS "/work' and '" ROOTS "/alias/work' are the same directory"},
      {9, 9, "root '" ROOTS "/work' is listed twice"}}},
    {"read_only_outside.yaml",
     {{7, 9, "read-only root '" ROOTS "/work' is not inside any of the policy's write roots"},
      {8, 9, "read-only root '" ROOTS "/other' is not inside any of the policy's write roots"}}},
    {"hide_nesting.yaml",
     {{5, 9,
       "root '" ROOTS "/work/build' is inside the hidden path '" ROOTS
       "/work': nothing in it could be read"},
      {8, 9, "root '" ROOTS "/link': is a symbolic link"}}},
    {"bad_read_roots.yaml",
     {{6, 18,
       "root '" ROOTS "/work/build' is inside the hidden path '" ROOTS
       "/work': nothing in it could be read"},
      {7, 18, "unknown read_system 'some' (expected default or none)"}}},
    {"bad_container_paths.yaml",
     {{4, 23,
       "container root '/data/secret/cache' is inside the hidden path '/data/secret': nothing "
       "in it could be read"},
      {5, 28, "container path '/tmp' is listed twice"},
      {5, 34, "bad container read root '/a/../b': root '/a/../b': contains '.' or '..'"},
      {6, 22, "bad hidden container path 'var/run': root 'var/run': not an absolute path"},
      {6, 31, "bad hidden container path '/': '/' cannot be a root"},
      {6, 48, "container path '/data/secret' is listed twice"},
      {7, 18,
       "'read_system: default' is the node's system set, not a container's: list the "
       "container's own (/usr, /etc, /lib, /proc, /dev) in 'container_read_roots'"},
      {11, 21,
       "'container_hide' needs a selector of containers (kubernetes, pod_uids or "
       "container_ids)"},
      {15, 21, "'container_hide' must not be empty"}}},
    {"bad_globs.yaml",
     {{5, 11, "bad cgroup glob 'ci.slice/job-*.scope': must start with '/'"},
      {6, 11, "bad cgroup glob '/ci.slice//job': empty path component"},
      {7, 11, "bad cgroup glob '/ci.slice/***': '***' is not a valid pattern"},
      {8, 11, "bad cgroup glob '/ci.slice/job-[0-9.scope': unbalanced '['"},
      {9, 11, "bad cgroup glob '/ci.slice/': empty path component"}}},
    {"bad_pod_uids.yaml",
     {{2, 5, "a policy is missing required key 'write_roots' (or 'container_roots')"},
      {5, 11,
       "bad pod UID '0F3C2A1E-9B7D-4C5E-8A6F-112233445566': not a lowercase UUID "
       "(8-4-4-4-12 hex digits) or static pod hash (32 hex digits)"},
      {6, 11,
       "bad pod UID '0f3c2a1e-9b7d-4c5e-8a6f': not a lowercase UUID (8-4-4-4-12 hex "
       "digits) or static pod hash (32 hex digits)"}}},
    {"bad_container_ids.yaml",
     {{5, 11,
       "bad container ID "
       "'docker://4bd2c7f1e8a9b0c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60': not 64 "
       "lowercase hex digits"}}},
    {"syntax_error.yaml",
     {{4, 5,
       "YAML syntax error: did not find expected ',' or '}' (while parsing a flow mapping "
       "started at 3:15)"}}},
    {"duplicate_keys.yaml", {{5, 5, "duplicate key 'name' in a policy"}}},
    {"anchors.yaml",
     {{3, 15, "anchors are not supported ('&sel')"}, {6, 15, "aliases are not supported"}}},
    {"tags.yaml", {{2, 11, "tags are not supported ('tag:yaml.org,2002:str')"}}},
    {"multiple_documents.yaml", {{5, 1, "multiple documents are not supported"}}},
    {"not_a_mapping.yaml", {{1, 1, "the file must be a mapping, not a list"}}},
    {"empty.yaml", {{1, 1, "the file is empty: expected a mapping with key 'policies'"}}},
};

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

static void make_symlink(const char *target, const char *path)
{
	if (symlink(target, path) && errno != EEXIST)
		fail_msg("symlink %s: %s", path, strerror(errno));
}

/* policy_load holds a descriptor per root, and the limit tests load thousands. */
static void raise_open_file_limit(void)
{
	struct rlimit limit;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &limit), 0);
	limit.rlim_cur = limit.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &limit), 0);
}

static int make_roots(void **state)
{
	char path[PATH_MAX];
	int fd;

	(void)state;
	raise_open_file_limit();
	make_dir(ROOTS);
	make_dir(ROOTS "/work");
	make_dir(ROOTS "/work/.git");
	make_dir(ROOTS "/work/build");
	make_dir(ROOTS "/other");
	make_dir(ROOTS "/many");
	for (int i = 0; i <= POLICY_MAX_ROOTS; i++) {
		snprintf(path, sizeof(path), ROOTS "/many/%d", i);
		make_dir(path);
	}
	make_symlink("work", ROOTS "/link");
	make_symlink(".", ROOTS "/alias");
	fd = open(ROOTS "/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", ROOTS "/file", strerror(errno));
	close(fd);
	return 0;
}

static void print_diags(const struct policy_diags *diags)
{
	for (size_t i = 0; i < diags->n; i++)
		print_message("  %d:%d: %s\n", diags->items[i].line, diags->items[i].column,
			      diags->items[i].message);
}

/* Loads a file expected to be invalid and compares every diagnostic, in order. */
static void assert_diags(const char *path, const struct expected_diag *expected)
{
	struct policy_diags diags;
	struct policy_set set;
	size_t n_expected = 0;

	while (n_expected < 12 && expected[n_expected].message)
		n_expected++;
	assert_int_equal(policy_load(path, &set, &diags), -EINVAL);
	assert_int_equal(set.n_rules, 0);
	assert_null(set.rules);
	if (diags.n != n_expected) {
		print_diags(&diags);
		fail_msg("%s: %zu errors, expected %zu", path, diags.n, n_expected);
	}
	for (size_t i = 0; i < n_expected; i++) {
		assert_string_equal(diags.items[i].message, expected[i].message);
		assert_int_equal(diags.items[i].line, expected[i].line);
		assert_int_equal(diags.items[i].column, expected[i].column);
	}
	policy_diags_free(&diags);
}

static void test_error_fixture(void **state)
{
	const struct error_fixture *fixture = *state;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), FIXTURES "%s", fixture->file);
	assert_diags(path, fixture->diags);
}

static void load_valid(const char *path, struct policy_set *set)
{
	struct policy_diags diags;
	int ret = policy_load(path, set, &diags);

	if (ret) {
		print_diags(&diags);
		fail_msg("%s: policy_load returned %d", path, ret);
	}
	assert_int_equal(diags.n, 0);
	policy_diags_free(&diags);
}

static void assert_root(const struct root_spec *root, const char *path, __u32 access)
{
	struct stat st;

	assert_string_equal(root->path, path);
	assert_int_equal(root->access, access);
	assert_true(root->fd >= 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(root->ino, st.st_ino);
}

static void test_valid_file(void **state)
{
	const struct policy_rule *ci, *pod;
	struct policy_set set;

	(void)state;
	load_valid(FIXTURES "valid.yaml", &set);
	assert_int_equal(set.n_rules, 2);
	ci = &set.rules[0];
	assert_string_equal(ci->name, "ci-workspace");
	assert_int_equal(ci->line, 3);
	assert_int_equal(ci->n_cgroup_globs, 2);
	assert_string_equal(ci->cgroup_globs[0], "/ci.slice/job-*.scope");
	assert_string_equal(ci->cgroup_globs[1], "/build/agent-1");
	assert_int_equal(ci->n_pod_uids + ci->n_container_ids, 0);
	assert_int_equal(ci->n_roots, 4);
	assert_root(&ci->roots[0], ROOTS "/work", CGWARD_ACCESS_WRITE);
	assert_root(&ci->roots[1], ROOTS "/other", CGWARD_ACCESS_WRITE);
	assert_root(&ci->roots[2], ROOTS "/work/.git", CGWARD_ACCESS_READ_ONLY);
	assert_root(&ci->roots[3], ROOTS "/file", CGWARD_ACCESS_HIDDEN);
	assert_true(ci->hides);
	assert_false(ci->audit);
	assert_false(ci->mandatory);
	assert_true(ci->no_network);
	assert_false(ci->allow_loopback);
	assert_true(ci->no_unix_outside);
	assert_int_equal(ci->dropped_caps, ~((1ULL << 0) | (1ULL << 13)));

	pod = &set.rules[1];
	assert_string_equal(pod->name, "k8s.pod_1");
	assert_int_equal(pod->line, 20);
	assert_int_equal(pod->n_cgroup_globs, 0);
	assert_int_equal(pod->n_pod_uids, 1);
	assert_string_equal(pod->pod_uids[0], POD_UID);
	assert_int_equal(pod->n_container_ids, 1);
	assert_string_equal(pod->container_ids[0], CONTAINER_ID);
	assert_int_equal(pod->n_roots, 1);
	assert_false(pod->hides);
	assert_root(&pod->roots[0], ROOTS "/work/build", CGWARD_ACCESS_WRITE);
	assert_true(pod->audit);
	assert_true(pod->mandatory);
	assert_true(pod->no_network);
	assert_true(pod->allow_loopback);
	assert_false(pod->no_unix_outside);
	assert_int_equal(pod->dropped_caps, 0);
	assert_int_equal(pod->limits.memory_mib, 512);
	assert_int_equal(pod->limits.pids, 64);
	assert_int_equal(pod->limits.cpu_milli, 1500);
	assert_int_equal(ci->limits.memory_mib + ci->limits.pids + ci->limits.cpu_milli, 0);
	policy_set_free(&set);
	assert_null(set.rules);
}

/* exec_socket: its defaults when absent, each key set, and off. */
/* read_roots and read_system confine reads; the system set joins unless it is none. */
static void test_read_roots(void **state)
{
	const struct policy_rule *listed, *system;
	struct policy_set set;
	bool usr = false;

	(void)state;
	load_valid(FIXTURES "read_roots.yaml", &set);
	listed = &set.rules[0];
	assert_true(listed->read_roots);
	assert_false(listed->hides);
	assert_int_equal(listed->n_roots, 3);
	assert_root(&listed->roots[1], ROOTS "/other", CGWARD_ACCESS_READ);
	assert_root(&listed->roots[2], ROOTS "/file", CGWARD_ACCESS_READ);
	system = &set.rules[1];
	assert_true(system->read_roots);
	for (size_t i = 1; i < system->n_roots; i++) {
		assert_int_equal(system->roots[i].access, CGWARD_ACCESS_READ);
		usr |= strcmp(system->roots[i].path, "/usr") == 0;
	}
	assert_true(usr);
	assert_false(set.rules[0].audit);
	policy_set_free(&set);
}

/*
 * Container paths: in the order write, read, hidden (a hide is put last),
 * without trailing '/'; they make the rule judge (and confine) reads, and
 * the node's system set does not join a container's read roots.
 */
static void test_container_paths(void **state)
{
	static const struct {
		const char *path;
		__u32 access;
	} readers[] = {
	    {"/tmp", CGWARD_ACCESS_WRITE},
	    {"/data", CGWARD_ACCESS_WRITE},
	    {"/usr", CGWARD_ACCESS_READ},
	    {"/etc/passwd", CGWARD_ACCESS_READ},
	    {"/proc", CGWARD_ACCESS_READ},
	    {"/var/run/secrets/kubernetes.io/serviceaccount", CGWARD_ACCESS_HIDDEN},
	    {"/data/.env", CGWARD_ACCESS_HIDDEN},
	};
	const struct policy_rule *rule;
	struct policy_set set;

	(void)state;
	load_valid(FIXTURES "container_paths.yaml", &set);
	rule = &set.rules[0];
	assert_int_equal(rule->n_container_paths, sizeof(readers) / sizeof(readers[0]));
	for (size_t i = 0; i < rule->n_container_paths; i++) {
		assert_string_equal(rule->container_paths[i].path, readers[i].path);
		assert_int_equal(rule->container_paths[i].access, readers[i].access);
	}
	assert_true(rule->hides);
	assert_true(rule->read_roots);
	assert_int_equal(rule->n_roots, 0);
	rule = &set.rules[1];
	assert_int_equal(rule->n_container_paths, 2);
	assert_true(rule->hides);
	assert_false(rule->read_roots);
	assert_int_equal(rule->n_roots, 0);
	policy_set_free(&set);
}

static void test_exec_socket(void **state)
{
	static const char *const base = "policies:\n"
					"  - name: a\n"
					"    selector: {cgroups: [/a]}\n"
					"    write_roots: [" ROOTS "/work]\n";
	char text[1024];
	struct policy_file file = {.content = text};
	struct policy_diags diags;
	struct policy_set set;

	(void)state;
	file.len = (size_t)snprintf(text, sizeof(text), "%s", base);
	assert_int_equal(policy_parse(&file, &set, &diags), 0);
	assert_string_equal(set.exec_socket.path, "/run/cgward/exec.sock");
	assert_int_equal(set.exec_socket.mode, 0666);
	assert_false(set.exec_socket.has_group);
	assert_int_equal(set.exec_socket.max_runs_per_user, 128);
	assert_int_equal(set.exec_socket.requests_per_second, 20);
	assert_int_equal(set.exec_socket.request_burst, 200);
	policy_set_free(&set);
	policy_diags_free(&diags);

	file.len = (size_t)snprintf(text, sizeof(text),
				    "%sexec_socket: {path: /run/x.sock, mode: 0660, group: 0, "
				    "max_runs_per_user: 4, requests_per_second: 2, "
				    "request_burst: 3}\n",
				    base);
	assert_int_equal(policy_parse(&file, &set, &diags), 0);
	assert_string_equal(set.exec_socket.path, "/run/x.sock");
	assert_int_equal(set.exec_socket.mode, 0660);
	assert_true(set.exec_socket.has_group);
	assert_int_equal(set.exec_socket.group, 0);
	assert_int_equal(set.exec_socket.max_runs_per_user, 4);
	assert_int_equal(set.exec_socket.requests_per_second, 2);
	assert_int_equal(set.exec_socket.request_burst, 3);
	policy_set_free(&set);
	policy_diags_free(&diags);

	file.len = (size_t)snprintf(text, sizeof(text), "%sexec_socket: off\n", base);
	assert_int_equal(policy_parse(&file, &set, &diags), 0);
	assert_string_equal(set.exec_socket.path, "");
	policy_set_free(&set);
	policy_diags_free(&diags);
}

/* The nesting check walks the directories, so a symlinked parent in the spelling is fine. */
static void test_read_only_through_symlinked_parent(void **state)
{
	struct policy_set set;

	(void)state;
	load_valid(FIXTURES "read_only_via_symlink.yaml", &set);
	assert_int_equal(set.rules[0].n_roots, 2);
	assert_int_equal(set.rules[0].roots[1].access, CGWARD_ACCESS_READ_ONLY);
	policy_set_free(&set);
}

/* Writes text to a fresh temporary file; the caller unlinks path. */
static void write_temp(char *path, size_t size, const char *text, size_t len)
{
	int fd;

	snprintf(path, size, "/tmp/cgward-policy-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

struct text {
	char *data;
	size_t len, cap;
};

static void append(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n + 1);
		grown = realloc(t->data, t->cap);
		assert_non_null(grown);
		t->data = grown;
	}
	va_start(ap, fmt);
	vsnprintf(t->data + t->len, n + 1, fmt, ap);
	va_end(ap);
	t->len += n;
}

static void assert_text_diags(struct text *t, const struct expected_diag *expected)
{
	char path[64];

	write_temp(path, sizeof(path), t->data, t->len);
	assert_diags(path, expected);
	unlink(path);
	free(t->data);
}

static void test_too_many_rules(void **state)
{
	struct text t = {0};

	(void)state;
	append(&t, "policies:\n");
	for (int i = 0; i <= POLICY_MAX_RULES; i++)
		append(&t,
		       "- {name: p%d, selector: {cgroups: [/a]}, write_roots: [" ROOTS "/work]}\n",
		       i);
	assert_text_diags(&t, (const struct expected_diag[]){
				  {POLICY_MAX_RULES + 2, 3, "more than 4096 policies"}, {0}});
}

static void test_too_many_roots(void **state)
{
	struct text t = {0};

	(void)state;
	append(&t, "policies:\n- name: a\n  selector: {cgroups: [/a]}\n  write_roots:\n");
	for (int i = 0; i < POLICY_MAX_ROOTS; i++)
		append(&t, "  - " ROOTS "/many/%d\n", i);
	append(&t, "  read_only: [" ROOTS "/many/%d/]\n", POLICY_MAX_ROOTS);
	assert_text_diags(
	    &t, (const struct expected_diag[]){{69, 15, "more than 64 roots in one policy"}, {0}});
}

static void test_file_too_large(void **state)
{
	struct text t = {0};

	(void)state;
	append(&t, "policies:\n- {name: a, selector: {cgroups: [/a]}, write_roots: [/tmp]}\n");
	while (t.len <= POLICY_FILE_MAX)
		append(&t, "# %0120d\n", 0);
	assert_text_diags(&t, (const struct expected_diag[]){
				  {1, 1, "the file is larger than 1048576 bytes"}, {0}});
}

static void test_deep_nesting(void **state)
{
	struct text t = {0};

	(void)state;
	append(&t, "policies: ");
	for (int i = 0; i < 10000; i++)
		append(&t, "[");
	assert_text_diags(
	    &t, (const struct expected_diag[]){{1, 11 + 32, "nesting deeper than 32 levels"}, {0}});
}

static void test_nul_byte_and_bad_utf8(void **state)
{
	struct text nul = {0}, utf8 = {0};

	(void)state;
	append(&nul, "policies:\n- name: \"a\\0b\"\n  selector: {cgroups: [/a]}\n"
		     "  write_roots: [" ROOTS "/work]\n");
	assert_text_diags(
	    &nul, (const struct expected_diag[]){{2, 9, "'name' contains a NUL byte"}, {0}});
	append(&utf8, "policies:\n- name: a\xff\n");
	assert_text_diags(&utf8,
			  (const struct expected_diag[]){
			      {2, 10, "YAML syntax error: invalid leading UTF-8 octet"}, {0}});
}

static void test_io_errors(void **state)
{
	struct policy_diags diags;
	struct policy_set set;

	(void)state;
	assert_int_equal(policy_load(ROOTS "/absent.yaml", &set, &diags), -ENOENT);
	assert_int_equal(diags.n, 0);
	assert_int_equal(policy_load(ROOTS, &set, &diags), -EISDIR);
	assert_int_equal(diags.n, 0);
}

/*
 * The SHA-256 names the bytes read, valid or not (FIPS 180-2's "abc" vector);
 * a set parsed from them carries it, a set freed names nothing.
 */
static void test_file_sha256(void **state)
{
	char path[] = ROOTS "/sha256.XXXXXX", sha256[POLICY_SHA256_SIZE];
	struct policy_diags diags;
	struct policy_file file;
	struct policy_set set;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(policy_file_read(path, &file), 0);
	assert_string_equal(file.sha256,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(policy_parse(&file, &set, &diags), -EINVAL);
	assert_string_equal(set.sha256, "");
	policy_diags_free(&diags);
	policy_file_free(&file);
	unlink(path);

	assert_int_equal(policy_file_read(FIXTURES "precedence.yaml", &file), 0);
	snprintf(sha256, sizeof(sha256), "%s", file.sha256);
	assert_int_equal(strlen(sha256), POLICY_SHA256_SIZE - 1);
	assert_int_equal(policy_parse(&file, &set, &diags), 0);
	assert_string_equal(set.sha256, sha256);
	policy_set_free(&set);
	assert_string_equal(set.sha256, "");
	policy_diags_free(&diags);
	policy_file_free(&file);
	assert_int_equal(policy_load(FIXTURES "precedence.yaml", &set, &diags), 0);
	assert_string_equal(set.sha256, sha256);
	policy_set_free(&set);
	policy_diags_free(&diags);

	assert_int_equal(policy_file_read(ROOTS "/absent.yaml", &file), -ENOENT);
	assert_null(file.content);
	assert_string_equal(file.sha256, "");
}

static const char *matched_name(const struct policy_set *set, const char *cgroup_path)
{
	const struct policy_rule *rule = policy_match(set, cgroup_path);

	return rule ? rule->name : "(none)";
}

static void test_match_precedence(void **state)
{
	struct policy_set set;

	(void)state;
	load_valid(FIXTURES "precedence.yaml", &set);
	/* A mandatory rule wins over an earlier non-mandatory one; the first mandatory wins. */
	assert_string_equal(matched_name(&set, "/ci.slice/job-1.scope"), "ci-jobs-mandatory");
	/* Otherwise the first matching rule in file order. */
	assert_string_equal(matched_name(&set, "/ci.slice/other.scope"), "ci-any");
	assert_string_equal(matched_name(&set, "/ci.slice"), "ci-any");
	assert_string_equal(matched_name(&set, "/system.slice/cron.service"), "(none)");
	assert_string_equal(matched_name(&set, "/kubepods.slice/kubepods-burstable.slice/"
					       "kubepods-burstable-pod0f3c2a1e_9b7d_4c5e_8a6f_"
					       "112233445566.slice/cri-containerd-" CONTAINER_ID
					       ".scope"),
			    "pod");
	assert_string_equal(matched_name(&set,
					 "/kubepods/besteffort/"
					 "pod11111111-2222-3333-4444-555555555555/" CONTAINER_ID),
			    "container");
	assert_string_equal(matched_name(&set, "/kubepods/besteffort/"
					       "pod11111111-2222-3333-4444-555555555555"),
			    "(none)");
	assert_true(policy_rule_selects(&set.rules[0], "/ci.slice/job-1.scope"));
	assert_false(policy_rule_selects(&set.rules[1], "/ci.slice/job-1/x.scope"));
	policy_set_free(&set);
}

static bool only_missing_roots(const struct policy_diags *diags)
{
	for (size_t i = 0; i < diags->n; i++) {
		if (!strstr(diags->items[i].message, "': does not exist"))
			return false;
	}
	return diags->n > 0;
}

/* Every example is valid here, or fails only for roots that exist elsewhere (a node's). */
static void test_examples(void **state)
{
	DIR *dir = opendir(EXAMPLES);
	struct dirent *entry;
	int n_loaded = 0, n_examples = 0;

	(void)state;
	assert_non_null(dir);
	while ((entry = readdir(dir))) {
		struct policy_diags diags;
		struct policy_set set;
		char path[PATH_MAX];
		int ret;

		if (!strstr(entry->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), EXAMPLES "%s", entry->d_name);
		n_examples++;
		ret = policy_load(path, &set, &diags);
		if (ret == 0) {
			assert_true(set.n_rules > 0);
			n_loaded++;
		} else if (ret != -EINVAL || !only_missing_roots(&diags)) {
			print_diags(&diags);
			fail_msg("%s: policy_load returned %d", path, ret);
		}
		policy_set_free(&set);
		policy_diags_free(&diags);
	}
	closedir(dir);
	assert_int_equal(n_examples, 5);
	assert_true(n_loaded >= 4);
}

struct captured {
	int status;
	char out[4096], err[4096];
};

static void read_all(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

/* Runs cmd_policy with stdout and stderr captured. */
static void run_policy_cmd(struct captured *c, int argc, char **argv)
{
	int out = memfd_create("stdout", 0), err = memfd_create("stderr", 0);
	int saved_out = dup(1), saved_err = dup(2);

	assert_true(out >= 0 && err >= 0 && saved_out >= 0 && saved_err >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	c->status = cmd_policy(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	read_all(out, c->out, sizeof(c->out));
	read_all(err, c->err, sizeof(c->err));
}

#define RUN(c, ...) \
	run_policy_cmd(c, sizeof((char *[]){__VA_ARGS__}) / sizeof(char *), (char *[]){__VA_ARGS__})

static void test_cmd_check(void **state)
{
	struct captured c;

	(void)state;
	RUN(&c, "policy", "check", FIXTURES "valid.yaml");
	assert_int_equal(c.status, 0);
	assert_string_equal(c.out, FIXTURES "valid.yaml: ok (2 policies)\n");
	assert_string_equal(c.err, "");

	RUN(&c, "policy", "check", FIXTURES "valid.yaml", "--quiet");
	assert_int_equal(c.status, 0);
	assert_string_equal(c.out, "");

	RUN(&c, "policy", "check", FIXTURES "anchors.yaml");
	assert_int_equal(c.status, 2);
	assert_string_equal(c.out, "");
	assert_string_equal(
	    c.err,
	    FIXTURES "anchors.yaml:3:15: error: anchors are not supported ('&sel')\n" FIXTURES
		     "anchors.yaml:6:15: error: aliases are not supported\n");

	RUN(&c, "policy", "check", ROOTS "/absent.yaml");
	assert_int_equal(c.status, 1);
	assert_string_equal(c.err, "cgward: " ROOTS "/absent.yaml: No such file or directory\n");

	/* Invalid outranks unreadable; every file is still checked. */
	RUN(&c, "policy", "check", ROOTS "/absent.yaml", FIXTURES "slash_root.yaml",
	    FIXTURES "valid.yaml");
	assert_int_equal(c.status, 2);
	assert_string_equal(c.out, FIXTURES "valid.yaml: ok (2 policies)\n");
	assert_non_null(strstr(c.err, "slash_root.yaml:5:9: error: '/' cannot be a root\n"));

	RUN(&c, "policy", "check", "--", "-q");
	assert_int_equal(c.status, 1);
	assert_non_null(strstr(c.err, "cgward: -q: No such file or directory"));
}

static void test_cmd_usage(void **state)
{
	struct captured c;

	(void)state;
	RUN(&c, "policy", "--help");
	assert_int_equal(c.status, 0);
	assert_non_null(strstr(c.out, "usage: cgward policy check [--quiet] FILE..."));
	assert_non_null(strstr(c.out, "exit status:"));

	RUN(&c, "policy", "check", "-h");
	assert_int_equal(c.status, 0);
	assert_non_null(strstr(c.out, "  2  a file is invalid, or usage error"));

	RUN(&c, "policy");
	assert_int_equal(c.status, 2);
	assert_non_null(strstr(c.err, "cgward: policy: missing command\n"));

	RUN(&c, "policy", "lint", "x");
	assert_int_equal(c.status, 2);
	assert_non_null(strstr(c.err, "cgward: policy: unknown command 'lint'\n"));

	RUN(&c, "policy", "check");
	assert_int_equal(c.status, 2);
	assert_non_null(strstr(c.err, "cgward: policy: check needs at least one FILE\n"));

	RUN(&c, "policy", "check", "--verbose", FIXTURES "valid.yaml");
	assert_int_equal(c.status, 2);
	assert_string_equal(c.out, "");
	assert_non_null(strstr(c.err, "cgward: policy: unknown option '--verbose'\n"));
}

int main(void)
{
	static const struct CMUnitTest fixed_tests[] = {
	    cmocka_unit_test(test_valid_file),
	    cmocka_unit_test(test_read_roots),
	    cmocka_unit_test(test_container_paths),
	    cmocka_unit_test(test_exec_socket),
	    cmocka_unit_test(test_read_only_through_symlinked_parent),
	    cmocka_unit_test(test_too_many_rules),
	    cmocka_unit_test(test_too_many_roots),
	    cmocka_unit_test(test_file_too_large),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_nul_byte_and_bad_utf8),
	    cmocka_unit_test(test_io_errors),
	    cmocka_unit_test(test_file_sha256),
	    cmocka_unit_test(test_match_precedence),
	    cmocka_unit_test(test_examples),
	    cmocka_unit_test(test_cmd_check),
	    cmocka_unit_test(test_cmd_usage),
	};
	const size_t n_fixtures = sizeof(error_fixtures) / sizeof(error_fixtures[0]);
	const size_t n_fixed = sizeof(fixed_tests) / sizeof(fixed_tests[0]);
	struct CMUnitTest tests[sizeof(fixed_tests) / sizeof(fixed_tests[0]) +
				sizeof(error_fixtures) / sizeof(error_fixtures[0])];

	/* One named test per error fixture, so a failure says which file. */
	for (size_t i = 0; i < n_fixtures; i++)
		tests[i] = (struct CMUnitTest){
		    .name = error_fixtures[i].file,
		    .test_func = test_error_fixture,
		    .initial_state = (void *)&error_fixtures[i],
		};
	memcpy(tests + n_fixtures, fixed_tests, sizeof(fixed_tests));
	return _cmocka_run_group_tests("test_policy", tests, n_fixtures + n_fixed, make_roots,
				       NULL);
}
