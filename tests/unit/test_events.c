// SPDX-License-Identifier: GPL-2.0
/* Deny records as JSON lines: fields, names from the context, pod identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <sys/socket.h>

#include "events.h"

#define POD_UID	     "0f4c1c3e-6c8a-4d6e-9a53-2b1f8f3c9d10"
#define CONTAINER_ID "4b8e1c0f2a9d7e6b5c4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c"

static struct cgward_event record(const char *path)
{
	struct cgward_event e = {
	    .boot_ns = 1,
	    .cgroup_id = 42,
	    .pid = 7,
	    .tgid = 7,
	    .op = CGWARD_OP_CREATE,
	    .verdict = CGWARD_VERDICT_DENY,
	    .reason = CGWARD_REASON_OUTSIDE_ROOTS,
	    .path_len = (__u16)strlen(path),
	};

	memcpy(e.comm, "sh", 3);
	memcpy(e.path, path, e.path_len);
	return e;
}

static const char *format(const struct cgward_event *e, const char *cgroup, struct json_buf *out)
{
	struct event_context ctx = {.cgroup_path = cgroup, .policy_name = "p"};

	json_init(out);
	assert_int_equal(
	    event_to_json(e, offsetof(struct cgward_event, path) + e->path_len, &ctx, out), 0);
	return out->data;
}

static void test_signal_names_its_target(void **state)
{
	struct cgward_event e = record("");
	struct json_buf out;
	const char *line;

	(void)state;
	e.op = CGWARD_OP_SIGNAL;
	e.reason = CGWARD_REASON_OUTSIDE_BOUNDARY;
	e.peer_pid = 1;
	e.arg = 9;
	line = format(&e, "/cgward-1-ab", &out);
	assert_non_null(strstr(line, "\"op\":\"signal\",\"reason\":\"outside_boundary\",\"root\""));
	assert_non_null(strstr(line, "\"target_pid\":1,\"signal\":9,\"pid\":7"));
	json_free(&out);
}

static void test_connect_names_address_and_port(void **state)
{
	struct cgward_event e = record("");
	struct json_buf out;
	const char *line;

	(void)state;
	e.op = CGWARD_OP_CONNECT;
	e.reason = CGWARD_REASON_NETWORK;
	e.family = AF_INET6;
	e.port = 443;
	e.addr[0] = 0x20;
	e.addr[1] = 0x01;
	e.addr[2] = 0x0d;
	e.addr[3] = 0xb8;
	e.addr[15] = 1;
	line = format(&e, "/cgward-1-ab", &out);
	assert_non_null(
	    strstr(line, "\"family\":\"inet6\",\"address\":\"2001:db8::1\",\"port\":443"));
	e.family = AF_INET;
	memcpy(e.addr, (unsigned char[]){192, 0, 2, 7}, 4);
	json_free(&out);
	line = format(&e, "/cgward-1-ab", &out);
	assert_non_null(strstr(line, "\"family\":\"inet\",\"address\":\"192.0.2.7\",\"port\":443"));
	json_free(&out);
}

static void test_fields_of_a_deny(void **state)
{
	struct cgward_event e = record("/etc/x");
	struct json_buf out;
	const char *line = format(&e, "/cgward-1-ab", &out);

	(void)state;
	assert_non_null(strstr(line, "\"verdict\":\"deny\",\"op\":\"create\""));
	assert_non_null(strstr(line, "\"reason\":\"outside_roots\",\"path\":\"/etc/x\""));
	assert_non_null(
	    strstr(line, "\"root\":null,\"pid\":7,\"tid\":7,\"uid\":0,\"comm\":\"sh\""));
	assert_non_null(
	    strstr(line, "\"cgroup_id\":42,\"cgroup\":\"/cgward-1-ab\",\"policy\":\"p\"}"));
	assert_null(strstr(line, "pod_uid"));
	json_free(&out);
}

static void test_kubernetes_cgroup_names_pod_and_container(void **state)
{
	struct cgward_event e = record("/data/x");
	struct json_buf out;
	const char *line = format(
	    &e,
	    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	    "0f4c1c3e_6c8a_4d6e_9a53_2b1f8f3c9d10.slice/cri-containerd-" CONTAINER_ID ".scope",
	    &out);

	(void)state;
	assert_non_null(
	    strstr(line, "\"pod_uid\":\"" POD_UID "\",\"container_id\":\"" CONTAINER_ID "\""));
	json_free(&out);
}

static void test_truncated_record_is_rejected(void **state)
{
	struct cgward_event e = record("/etc/x");
	struct event_context ctx = {0};
	struct json_buf out;

	(void)state;
	json_init(&out);
	assert_int_equal(event_to_json(&e, offsetof(struct cgward_event, path) + 2, &ctx, &out),
			 -EINVAL);
	json_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signal_names_its_target),
	    cmocka_unit_test(test_connect_names_address_and_port),
	    cmocka_unit_test(test_fields_of_a_deny),
	    cmocka_unit_test(test_kubernetes_cgroup_names_pod_and_container),
	    cmocka_unit_test(test_truncated_record_is_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
