// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

#define SHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

/* The whole exposition, byte for byte: names, HELP and TYPE lines, label escapes. */
static void test_render_exact_text(void **state)
{
	struct metrics_policy policies[] = {
	    {.name = "ci", .policy_id = 7, .cgroups_bound = 12, .denied = 41, .audited = 0},
	    {.name = "a\"b\\c", .policy_id = 8, .cgroups_bound = 0, .denied = 0, .audited = 3},
	};
	struct metrics_snapshot s = {
	    .version = "1.2.3",
	    .build = {.abi_version = 9, .object_hash = 0x5a84931fe13fb85bULL},
	    .plane = {.abi_version = 8, .object_hash = 0xf914cbeb7465ULL},
	    .policy_file = "/etc/cgward/\"policy\".yaml",
	    .policy_sha256 = SHA256,
	    .policies = policies,
	    .n_policies = 2,
	    .events_lost = 5,
	    .reloads = {4, 1, 0},
	    .limit_hits = {.oom_kill = 2, .pids_max = 7, .cpu_throttled = 31},
	    .programs_attached = 30};
	const char *want =
	    "# HELP cgward_build_info This cgward's version and the build of its BPF programs "
	    "(abi, object), and the build of the plane pinned (plane_abi, plane_object).\n"
	    "# TYPE cgward_build_info gauge\n"
	    "cgward_build_info{version=\"1.2.3\",abi=\"9\",object=\"5a84931fe13fb85b\","
	    "plane_abi=\"8\",plane_object=\"0000f914cbeb7465\"} 1\n"
	    "# HELP cgward_policy_info The policy file in force: its path, the SHA-256 of its "
	    "content, its rules.\n"
	    "# TYPE cgward_policy_info gauge\n"
	    "cgward_policy_info{file=\"/etc/cgward/\\\"policy\\\".yaml\",sha256=\"" SHA256
	    "\",rules=\"2\"} 1\n"
	    "# HELP cgward_denies_total Operations the kernel denied under a policy since the "
	    "agent installed it.\n"
	    "# TYPE cgward_denies_total counter\n"
	    "cgward_denies_total{policy=\"ci\"} 41\n"
	    "cgward_denies_total{policy=\"a\\\"b\\\\c\"} 0\n"
	    "# HELP cgward_audits_total Would-be denies the kernel allowed under an audit "
	    "policy.\n"
	    "# TYPE cgward_audits_total counter\n"
	    "cgward_audits_total{policy=\"ci\"} 0\n"
	    "cgward_audits_total{policy=\"a\\\"b\\\\c\"} 3\n"
	    "# HELP cgward_cgroups_bound Cgroups the agent bound to a policy.\n"
	    "# TYPE cgward_cgroups_bound gauge\n"
	    "cgward_cgroups_bound{policy=\"ci\"} 12\n"
	    "cgward_cgroups_bound{policy=\"a\\\"b\\\\c\"} 0\n"
	    "# HELP cgward_events_lost_total Deny and audit events the kernel could not queue "
	    "(ring buffer full).\n"
	    "# TYPE cgward_events_lost_total counter\n"
	    "cgward_events_lost_total 5\n"
	    "# HELP cgward_programs_attached BPF programs whose link is pinned, so attached.\n"
	    "# TYPE cgward_programs_attached gauge\n"
	    "cgward_programs_attached 30\n"
	    "# HELP cgward_reloads_total Policy reloads by result: ok, invalid (the file was "
	    "rejected), error.\n"
	    "# TYPE cgward_reloads_total counter\n"
	    "cgward_reloads_total{result=\"ok\"} 4\n"
	    "cgward_reloads_total{result=\"invalid\"} 1\n"
	    "cgward_reloads_total{result=\"error\"} 0\n"
	    "# HELP cgward_limit_events_total Limits the runs of the exec socket hit: processes "
	    "the OOM killer killed, forks refused at pids.max, periods throttled at cpu.max.\n"
	    "# TYPE cgward_limit_events_total counter\n"
	    "cgward_limit_events_total{limit=\"memory\",event=\"oom_kill\"} 2\n"
	    "cgward_limit_events_total{limit=\"pids\",event=\"max\"} 7\n"
	    "cgward_limit_events_total{limit=\"cpu\",event=\"throttled\"} 31\n";
	size_t len;
	char *text = metrics_render(&s, &len);

	(void)state;
	assert_non_null(text);
	assert_string_equal(text, want);
	assert_int_equal(len, strlen(want));
	free(text);
}

/*
 * No policy yet, no plane pinned: each family is still announced, with no
 * samples; the plane's labels are empty (absent, to Prometheus).
 */
static void test_render_without_policies(void **state)
{
	struct metrics_snapshot s = {.version = "1.2.3", .build = {.abi_version = 9}};
	size_t len;
	char *text = metrics_render(&s, &len);

	(void)state;
	assert_non_null(text);
	assert_non_null(strstr(text, "# TYPE cgward_denies_total counter\n# HELP cgward_audits"));
	assert_null(strstr(text, "policy="));
	assert_non_null(strstr(text, "# TYPE cgward_policy_info gauge\n# HELP cgward_denies"));
	assert_non_null(strstr(text, "cgward_build_info{version=\"1.2.3\",abi=\"9\",object=\""
				     "0000000000000000\",plane_abi=\"\",plane_object=\"\"} 1\n"));
	free(text);
}

static void assert_address(const char *spec, int family, const char *host, int port)
{
	struct sockaddr_storage addr;
	char err[256], got[INET6_ADDRSTRLEN];
	const void *raw;
	int got_port;

	assert_int_equal(metrics_parse_address(spec, &addr, err, sizeof(err)), 0);
	assert_int_equal(addr.ss_family, family);
	if (family == AF_INET) {
		raw = &((struct sockaddr_in *)&addr)->sin_addr;
		got_port = ntohs(((struct sockaddr_in *)&addr)->sin_port);
	} else {
		raw = &((struct sockaddr_in6 *)&addr)->sin6_addr;
		got_port = ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
	}
	assert_non_null(inet_ntop(family, raw, got, sizeof(got)));
	assert_string_equal(got, host);
	assert_int_equal(got_port, port);
}

static void test_parse_address(void **state)
{
	(void)state;
	assert_address("127.0.0.1:9464", AF_INET, "127.0.0.1", 9464);
	assert_address("9464", AF_INET, "127.0.0.1", 9464); /* a port alone: localhost */
	assert_address("0.0.0.0:1", AF_INET, "0.0.0.0", 1);
	assert_address("[::1]:65535", AF_INET6, "::1", 65535);
	assert_address("[::]:9464", AF_INET6, "::", 9464);
}

static void test_parse_address_rejects(void **state)
{
	const char *bad[] = {
	    "",		":9464", "localhost:9464", "127.0.0.1:", "127.0.0.1:0",	    "1.2.3.4:65536",
	    "::1:9464", "[::1]", "9464x",	   "+9464",	 "127.0.0.1: 9464", "[1.2.3.4]:80"};
	struct sockaddr_storage addr;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (metrics_parse_address(bad[i], &addr, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err, bad[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_exact_text),
	    cmocka_unit_test(test_render_without_policies),
	    cmocka_unit_test(test_parse_address),
	    cmocka_unit_test(test_parse_address_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
