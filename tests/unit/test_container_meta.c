// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "container_meta.h"
#include "cri_client.h"
#include "policy.h"

/* The annotations containerd 1.6's CRI plugin wrote for a pod's app container (trimmed). */
static const char containerd_app[] =
    "{\"ociVersion\":\"1.0.2-dev\",\"root\":{\"path\":\"rootfs\"},"
    "\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
    "{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/var/lib/kubelet/pods/x/vol\","
    "\"options\":[\"rbind\",\"rprivate\",\"rw\"]},"
    "{\"destination\":\"/data/cache\",\"type\":\"bind\",\"source\":\"/srv/cache\"}],"
    "\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
    "\"io.kubernetes.cri.container-name\":\"app\","
    "\"io.kubernetes.cri.sandbox-id\":\"71c3\","
    "\"io.kubernetes.cri.sandbox-name\":\"web\","
    "\"io.kubernetes.cri.sandbox-namespace\":\"team-a\","
    "\"io.kubernetes.cri.sandbox-uid\":\"0a0a0a0a-0000-4000-8000-000000000001\","
    "\"cgward.test/confine\":\"yes\"}}";

static const char containerd_sandbox[] =
    "{\"root\":{\"path\":\"rootfs\"},\"annotations\":{"
    "\"io.kubernetes.cri.container-type\":\"sandbox\","
    "\"io.kubernetes.cri.sandbox-name\":\"web\","
    "\"io.kubernetes.cri.sandbox-namespace\":\"team-a\","
    "\"io.kubernetes.cri.sandbox-uid\":\"0a0a0a0a-0000-4000-8000-000000000001\"}}";

static const char crio_app[] =
    "{\"root\":{\"path\":\"/var/lib/containers/storage/overlay/abc/merged\"},\"annotations\":{"
    "\"io.kubernetes.cri-o.ContainerType\":\"container\","
    "\"io.kubernetes.container.name\":\"worker\","
    "\"io.kubernetes.pod.name\":\"jobs-1\","
    "\"io.kubernetes.pod.namespace\":\"batch\","
    "\"io.kubernetes.pod.uid\":\"2cde702b-a0cf-438d-a228-fb164e54434b\","
    "\"io.kubernetes.cri-o.Labels\":\"{\\\"app\\\":\\\"jobs\\\",\\\"tier\\\":\\\"1\\\"}\","
    "\"io.kubernetes.cri-o.Annotations\":\"{\\\"owner\\\":\\\"ops\\\"}\"}}";

static void parse(const char *json, struct container_meta *meta)
{
	char err[256];

	assert_int_equal(container_meta_parse(json, strlen(json), meta, err, sizeof(err)), 0);
}

static void test_containerd(void **state)
{
	struct container_meta meta;
	const char *rest;

	(void)state;
	parse(containerd_app, &meta);
	assert_string_equal(meta.namespace, "team-a");
	assert_string_equal(meta.pod_name, "web");
	assert_string_equal(meta.pod_uid, "0a0a0a0a-0000-4000-8000-000000000001");
	assert_string_equal(meta.container_name, "app");
	assert_false(meta.sandbox);
	assert_false(meta.has_labels);
	assert_string_equal(container_meta_annotation(&meta, "cgward.test/confine"), "yes");
	assert_null(container_meta_annotation(&meta, "io.kubernetes.cri.sandbox-id"));
	/* The deepest bind mount holds a path; /proc is not a bind. */
	assert_string_equal(container_meta_locate(&meta, "/data/cache/x", &rest), "/srv/cache");
	assert_string_equal(rest, "/x");
	assert_string_equal(container_meta_locate(&meta, "/data", &rest),
			    "/var/lib/kubelet/pods/x/vol");
	assert_string_equal(rest, "/");
	assert_string_equal(container_meta_locate(&meta, "/database", &rest), "rootfs");
	assert_string_equal(rest, "/database");
	container_meta_free(&meta);

	parse(containerd_sandbox, &meta);
	assert_true(meta.sandbox);
	container_meta_free(&meta);
}

static void test_crio(void **state)
{
	struct container_meta meta;

	(void)state;
	parse(crio_app, &meta);
	assert_string_equal(meta.namespace, "batch");
	assert_string_equal(meta.container_name, "worker");
	assert_true(meta.has_labels);
	assert_string_equal(container_meta_label(&meta, "app"), "jobs");
	assert_string_equal(container_meta_annotation(&meta, "owner"), "ops");
	assert_null(container_meta_label(&meta, "owner"));
	container_meta_free(&meta);
}

static void test_not_a_pod(void **state)
{
	struct container_meta meta;
	char err[256];

	(void)state;
	assert_int_equal(container_meta_parse("{\"annotations\":{}}", 18, &meta, err, sizeof(err)),
			 -ENOENT);
	container_meta_free(&meta);
	assert_int_equal(container_meta_parse("{", 1, &meta, err, sizeof(err)), -EINVAL);
	container_meta_free(&meta);
}

static int write_policy(char *path, const char *text)
{
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	return close(fd);
}

/* Every key of a kubernetes selector must match; a sandbox is never selected. */
static void test_kubernetes_selector(void **state)
{
	char path[] = "/tmp/cgward-test-policy.XXXXXX";
	struct policy_diags diags;
	struct policy_set set;
	struct container_meta app, sandbox, crio;
	const char *cg = "/kubepods/besteffort/pod0a0a0a0a-0000-4000-8000-000000000001/x";

	(void)state;
	assert_int_equal(write_policy(path, "policies:\n"
					    "  - name: jobs\n"
					    "    selector:\n"
					    "      kubernetes:\n"
					    "        namespaces: [batch]\n"
					    "        pod_labels: {app: jobs}\n"
					    "    container_roots: [/tmp]\n"
					    "  - name: web-app\n"
					    "    selector:\n"
					    "      kubernetes:\n"
					    "        namespaces: [team-a, team-b]\n"
					    "        containers: [\"a*\"]\n"
					    "    container_roots: [/tmp, /data]\n"),
			 0);
	assert_int_equal(policy_load(path, &set, &diags), 0);
	unlink(path);
	assert_true(policy_selects_kubernetes(&set));
	assert_true(policy_needs_pod_labels(&set));
	parse(containerd_app, &app);
	parse(containerd_sandbox, &sandbox);
	parse(crio_app, &crio);
	assert_ptr_equal(policy_match_container(&set, cg, &app), &set.rules[1]);
	assert_null(policy_match_container(&set, cg, &sandbox));
	assert_ptr_equal(policy_match_container(&set, cg, &crio), &set.rules[0]);
	assert_null(policy_match(&set, cg));
	container_meta_free(&app);
	container_meta_free(&sandbox);
	container_meta_free(&crio);
	policy_set_free(&set);
	policy_diags_free(&diags);
}

static void test_bad_kubernetes_selectors(void **state)
{
	char path[] = "/tmp/cgward-test-policy.XXXXXX";
	struct policy_diags diags;
	struct policy_set set;

	(void)state;
	assert_int_equal(write_policy(path, "policies:\n"
					    "  - name: a\n"
					    "    selector:\n"
					    "      kubernetes:\n"
					    "        namespaces: [Team_A]\n"
					    "        pod_labels: {}\n"
					    "    container_roots: [tmp, /x/../y]\n"
					    "  - name: b\n"
					    "    selector: {cgroups: [/x]}\n"
					    "    container_roots: [/tmp]\n"),
			 0);
	assert_int_equal(policy_load(path, &set, &diags), -EINVAL);
	unlink(path);
	assert_int_equal(diags.n, 5);
	assert_non_null(strstr(diags.items[0].message, "bad namespace 'Team_A'"));
	assert_string_equal(diags.items[1].message, "'pod_labels' must not be empty");
	assert_non_null(strstr(diags.items[2].message, "not an absolute path"));
	assert_non_null(strstr(diags.items[3].message, "contains '.' or '..'"));
	assert_non_null(strstr(diags.items[4].message, "'container_roots' needs a selector"));
	policy_diags_free(&diags);
}

/*
 * PodSandboxStatusResponse{status: {id: "ab", labels: {app: web}, annotations:
 * {o: p}}, info: {x: y}}, encoded by hand as containerd sends it.
 */
static const unsigned char sandbox_status[] = {
    0x0a, 26,		   /* status, 26 bytes */
    0x0a, 2,	'a',  'b', /* id */
    0x18, 0x00,		   /* state: SANDBOX_READY (a varint) */
    0x3a, 10,	0x0a, 3,   'a', 'p',  'p', 0x12, 3, 'w', 'e', 'b', /* labels entry */
    0x42, 6,	0x0a, 1,   'o', 0x12, 1,   'p',			   /* annotations entry */
    0x12, 6,	0x0a, 1,   'x', 0x12, 1,   'y',			   /* info, ignored */
};

static void test_cri_sandbox_status(void **state)
{
	struct container_meta meta = {0};

	(void)state;
	assert_int_equal(cri_parse_sandbox_status(sandbox_status, sizeof(sandbox_status), &meta),
			 0);
	assert_true(meta.has_labels);
	assert_int_equal(meta.n_labels, 1);
	assert_string_equal(container_meta_label(&meta, "app"), "web");
	assert_string_equal(container_meta_annotation(&meta, "o"), "p");
	assert_null(container_meta_label(&meta, "x"));
	container_meta_free(&meta);
	/* Truncated anywhere: refused, nothing kept. */
	for (size_t len = 1; len < sizeof(sandbox_status) - 8; len++) {
		int ret = cri_parse_sandbox_status(sandbox_status, len, &meta);

		assert_true(ret == -EINVAL || ret == -ENOENT);
		assert_false(meta.has_labels);
		container_meta_free(&meta);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_containerd),
	    cmocka_unit_test(test_crio),
	    cmocka_unit_test(test_not_a_pod),
	    cmocka_unit_test(test_kubernetes_selector),
	    cmocka_unit_test(test_bad_kubernetes_selectors),
	    cmocka_unit_test(test_cri_sandbox_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
