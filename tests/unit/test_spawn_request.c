// SPDX-License-Identifier: GPL-2.0
/* A spawn as the agent sends it to its spawner (user/agent/spawn_request.c): encoded, decoded. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <cmocka.h>

#include "cgward_abi.h"
#include "spawn_request.h"

static char *argv[] = {"sh", "-c", "echo \"caf\xc3\xa9\" >f", NULL};
static char *env[] = {"PATH=/usr/bin:/bin", "EMPTY=", NULL};
static gid_t groups[] = {1000, 27};

/* A spawn of uid 1000 with two roots and a unix socket, its descriptors numbered 10 on. */
struct sample {
	struct exec_spawn spawn;
	struct exec_spawn_run run;
	struct run_core core;
	struct policy_maps maps;
	struct root_spec roots[2], nodes[1];
};

static void spec(struct root_spec *spec, const char *path, __u32 access, __u32 dev, __u64 ino)
{
	*spec = (struct root_spec){.access = access, .dev = dev, .ino = ino, .fd = 99};
	snprintf(spec->path, sizeof(spec->path), "%s", path);
}

static struct sample *sample_new(void)
{
	struct sample *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->spawn = (struct exec_spawn){.caller_pid = 4321,
				       .uid = 1000,
				       .gid = 1000,
				       .groups = groups,
				       .n_groups = 2,
				       .pidfd = 10,
				       .cwd_fd = 11,
				       .stdio_fds = {12, 13, 14},
				       .exit_fd = 15,
				       .argv = argv,
				       .env = env,
				       .umask = 022,
				       .private_tmp = false}; /* --spawn */
	/* root_tags absent, as in a plane pinned by a build before tags. */
	s->maps = (struct policy_maps){.cgroup_policy_fd = 20,
				       .write_roots_fd = 21,
				       .policy_info_fd = 22,
				       .exec_events_fd = 23,
				       .root_tags_fd = -1,
				       .container_started_fd = 25};
	s->core.maps = &s->maps;
	s->core.policy_id = 77;
	snprintf(s->core.cgroup.path, sizeof(s->core.cgroup.path), "/sys/fs/cgroup/cgward-1-ab");
	spec(&s->roots[0], "/home/u/ws", CGWARD_ACCESS_WRITE, 0x800003, 1234567890123ULL);
	spec(&s->roots[1], "/home/u/ws/.git", CGWARD_ACCESS_READ_ONLY, 0x800003, 42);
	spec(&s->nodes[0], "/run/user/1000/bus", CGWARD_ACCESS_UNIX_PEER, 25, 7);
	s->run = (struct exec_spawn_run){
	    .core = &s->core, .roots = s->roots, .n_roots = 2, .nodes = s->nodes, .n_nodes = 1};
	return s;
}

static void assert_spec_equal(const struct root_spec *got, const struct root_spec *want)
{
	assert_string_equal(got->path, want->path);
	assert_int_equal(got->access, want->access);
	assert_int_equal(got->dev, want->dev);
	assert_true(got->ino == want->ino);
	assert_int_equal(got->fd, -1); /* the caller's descriptor is not the supervisor's */
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The supervisor ends with its copies; a test frees them. */
static void free_request(struct spawn_request *req)
{
	free_strings(req->spawn.argv);
	free_strings(req->spawn.env);
	free(req->spawn.groups);
	free(req->roots);
	free(req->nodes);
	free(req);
}

/* A sample spawn, encoded with setup pipe 16, and a request to decode it into. */
struct encoded {
	struct sample *s;
	struct spawn_request *req;
	int fds[SPAWN_REQUEST_MAX_FDS];
	size_t n_fds;
	char *text;
};

static int setup_encoded(void **state)
{
	struct encoded *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->s = sample_new();
	e->req = calloc(1, sizeof(*e->req));
	assert_non_null(e->req);
	e->text = spawn_request_encode(&e->s->spawn, &e->s->run, 16, e->fds, &e->n_fds);
	assert_non_null(e->text);
	*state = e;
	return 0;
}

static int teardown_encoded(void **state)
{
	struct encoded *e = *state;

	free(e->text);
	free(e->s);
	free_request(e->req);
	free(e);
	return 0;
}

static void test_round_trip(void **state)
{
	struct encoded *e = *state;
	struct spawn_request *req = e->req;
	struct sample *s = e->s;

	/* The caller's seven, then the five maps the plane has. */
	assert_int_equal(e->n_fds, 12);
	assert_int_equal(e->fds[0], 15);
	assert_int_equal(e->fds[1], 16);
	assert_int_equal(spawn_request_decode(e->text, e->fds, e->n_fds, req), 0);
	assert_int_equal(req->spawn.caller_pid, 4321);
	assert_int_equal(req->spawn.uid, 1000);
	assert_int_equal(req->spawn.gid, 1000);
	assert_int_equal(req->spawn.n_groups, 2);
	assert_int_equal(req->spawn.groups[1], 27);
	assert_int_equal(req->spawn.umask, 022);
	assert_false(req->spawn.private_tmp);
	assert_int_equal(req->spawn.pidfd, 10);
	assert_int_equal(req->spawn.cwd_fd, 11);
	assert_memory_equal(req->spawn.stdio_fds, s->spawn.stdio_fds, sizeof(s->spawn.stdio_fds));
	assert_int_equal(req->spawn.exit_fd, 15);
	assert_int_equal(req->setup_fd, 16);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(i < 3 ? req->spawn.argv[i] : "end", i < 3 ? argv[i] : "end");
	assert_null(req->spawn.argv[3]);
	assert_string_equal(req->spawn.env[1], "EMPTY=");
	assert_null(req->spawn.env[2]);
	assert_memory_equal(&req->maps, &s->maps, sizeof(s->maps));
	assert_ptr_equal(req->run.core, &req->core);
	assert_ptr_equal(req->core.maps, &req->maps);
	assert_int_equal(req->core.policy_id, 77);
	assert_string_equal(req->core.cgroup.path, s->core.cgroup.path);
	assert_string_equal(req->core.cgroup.memory_path, "");
	assert_int_equal(req->run.n_roots, 2);
	assert_int_equal(req->run.n_nodes, 1);
	for (size_t i = 0; i < 2; i++)
		assert_spec_equal(&req->run.roots[i], &s->roots[i]);
	assert_spec_equal(&req->run.nodes[0], &s->nodes[0]);
}

/* What the agent would never send is refused, the exit socket known when there is one. */
static void test_refuses_malformed(void **state)
{
	struct encoded *e = *state;

	assert_int_equal(spawn_request_decode("{", e->fds, e->n_fds, e->req), -EPROTO);
	assert_int_equal(e->req->spawn.exit_fd, 15);
	assert_int_equal(spawn_request_decode(e->text, e->fds, 6, e->req), -EPROTO);
	assert_int_equal(spawn_request_decode(e->text, e->fds, 0, e->req), -EPROTO);
	assert_int_equal(e->req->spawn.exit_fd, -1);
	/* Maps' indexes past the descriptors sent. */
	assert_int_equal(spawn_request_decode(e->text, e->fds, 8, e->req), -EPROTO);
}

/* What is not UTF-8 cannot be sent (the caller's request was JSON already): no message, nothing
 * leaked. */
static void test_no_message_for_what_json_cannot_hold(void **state)
{
	struct sample *s = sample_new();
	char *bad_argv[] = {"sh", "\xff", NULL};
	int fds[SPAWN_REQUEST_MAX_FDS];
	size_t n_fds;

	(void)state;
	s->spawn.argv = bad_argv;
	assert_null(spawn_request_encode(&s->spawn, &s->run, 16, fds, &n_fds));
	s->spawn.argv = argv;
	snprintf(s->roots[1].path, sizeof(s->roots[1].path), "/w/\xfe");
	assert_null(spawn_request_encode(&s->spawn, &s->run, 16, fds, &n_fds));
	free(s);
}

#define ENCODED_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_encoded, teardown_encoded)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    ENCODED_TEST(test_round_trip),
	    ENCODED_TEST(test_refuses_malformed),
	    cmocka_unit_test(test_no_message_for_what_json_cannot_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
