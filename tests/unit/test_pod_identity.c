// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pod_identity.h"

/* Shapes taken from systemd-cgls / /proc/<pid>/cgroup on real nodes. */
#define UID	   "2cde702b-a0cf-438d-a228-fb164e54434b"
#define UID_	   "2cde702b_a0cf_438d_a228_fb164e54434b"
#define STATIC_UID "8daa50c3a64c9ff60bb9eab7b44b56fd"
#define CID	   "0765f197c9158576f202e50498b488cd0d2b022fb2462b0a629f214bb51cd57d"

#define SYSTEMD_BURSTABLE_POD \
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice"
#define CGROUPFS_BURSTABLE_POD "/kubepods/burstable/pod" UID

static void assert_identity(const char *path, const char *pod_uid, const char *container_id,
			    const char *runtime, const char *qos)
{
	struct pod_identity id;

	assert_int_equal(pod_identity_parse(path, &id), 0);
	assert_string_equal(id.pod_uid, pod_uid);
	assert_string_equal(id.container_id, container_id);
	assert_string_equal(id.runtime, runtime);
	assert_string_equal(id.qos, qos);
}

static void assert_not_a_pod(const char *path)
{
	struct pod_identity id;

	memset(&id, 0x5a, sizeof(id));
	assert_int_equal(pod_identity_parse(path, &id), -ENOENT);
	/* no half-parsed identity is left for a caller that ignores the result */
	assert_string_equal(id.pod_uid, "");
	assert_string_equal(id.container_id, "");
	assert_string_equal(id.runtime, "");
	assert_string_equal(id.qos, "");
}

static void test_systemd_containerd(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD "/cri-containerd-" CID ".scope", UID, CID,
			"containerd", "burstable");
}

static void test_systemd_crio(void **state)
{
	(void)state;
	assert_identity("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
			".slice/crio-" CID ".scope",
			UID, CID, "cri-o", "besteffort");
}

static void test_systemd_crio_conmon_is_not_a_container(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD "/crio-conmon-" CID ".scope", UID, "", "cri-o",
			"burstable");
}

static void test_systemd_docker(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD "/docker-" CID ".scope", UID, CID, "docker",
			"burstable");
}

static void test_systemd_guaranteed_has_no_qos_slice(void **state)
{
	(void)state;
	assert_identity("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope",
			UID, CID, "containerd", "guaranteed");
}

static void test_systemd_pod_level_cgroup(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD, UID, "", "", "burstable");
	assert_identity(SYSTEMD_BURSTABLE_POD "/", UID, "", "", "burstable");
}

static void test_systemd_static_pod_hash_uid(void **state)
{
	(void)state;
	assert_identity("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" STATIC_UID
			".slice/cri-containerd-" CID ".scope",
			STATIC_UID, CID, "containerd", "burstable");
}

static void test_cgroupfs_containerd_or_dockerd(void **state)
{
	(void)state;
	/* the bare ID does not say which runtime made it */
	assert_identity(CGROUPFS_BURSTABLE_POD "/" CID, UID, CID, "", "burstable");
	assert_identity("/kubepods/besteffort/pod" UID "/" CID, UID, CID, "", "besteffort");
}

static void test_cgroupfs_crio(void **state)
{
	(void)state;
	assert_identity(CGROUPFS_BURSTABLE_POD "/crio-" CID, UID, CID, "cri-o", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD "/crio-conmon-" CID, UID, "", "cri-o", "burstable");
}

static void test_cgroupfs_guaranteed(void **state)
{
	(void)state;
	assert_identity("/kubepods/pod" UID "/" CID, UID, CID, "", "guaranteed");
	assert_identity("/kubepods/pod" UID, UID, "", "", "guaranteed");
}

static void test_cgroupfs_needs_kubepods_parent(void **state)
{
	(void)state;
	assert_not_a_pod("/pod" UID "/" CID);
	assert_not_a_pod("/burstable/pod" UID "/" CID);
	assert_not_a_pod("/other/burstable/pod" UID "/" CID);
	assert_not_a_pod("/kubepods/guaranteed/pod" UID "/" CID);
}

static void test_below_a_prefix(void **state)
{
	(void)state;
	/* minikube with CRI-O inside a docker container */
	assert_identity("/docker/d5d9ee5cf5ec9520d182418b737fb11f3aa6b739e91d7cb6ecd6786f6a2bcbd1"
			"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
			".slice/crio-" CID ".scope",
			UID, CID, "cri-o", "besteffort");
	/* kind node: the kubelet's cgroup root is /kubelet */
	assert_identity("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
			"kubelet-kubepods-burstable-pod" UID_ ".slice/cri-containerd-" CID ".scope",
			UID, CID, "containerd", "burstable");
	assert_identity(
	    "/system.slice/docker-d5d9ee5cf5ec9520d182418b737fb11f3aa6b739e91d7cb6ecd6786f6"
	    "a2bcbd1.scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
	    ".slice/cri-containerd-" CID ".scope",
	    UID, CID, "containerd", "guaranteed");
	assert_identity("/kubelet/kubepods/burstable/pod" UID "/" CID, UID, CID, "", "burstable");
}

static void test_containerd_cgroupfs_under_systemd_kubelet(void **state)
{
	(void)state;
	/* runc took the systemd-style cgroupsPath as a relative cgroupfs path */
	assert_identity("/system.slice/containerd.service/kubepods-burstable-pod" UID_
			".slice:cri-containerd:" CID,
			UID, CID, "containerd", "burstable");
}

static void test_subgroups_of_a_container_are_the_container(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD "/crio-" CID ".scope/container", UID, CID, "cri-o",
			"burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD "/" CID "/init.scope", UID, CID, "", "burstable");
}

#define OTHER_UID_ "11111111_2222_3333_4444_555555555555"
#define OTHER_CID  "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"

static void test_first_pod_from_the_root_wins(void **state)
{
	(void)state;
	/* a container that may create cgroups must not rename itself */
	assert_identity(SYSTEMD_BURSTABLE_POD "/cri-containerd-" CID
					      ".scope/kubepods.slice/kubepods-pod" OTHER_UID_
					      ".slice/cri-containerd-" OTHER_CID ".scope",
			UID, CID, "containerd", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD "/" CID "/kubepods/pod" OTHER_UID_ "/" OTHER_CID,
			UID, CID, "", "burstable");
}

static void test_unknown_child_is_pod_level(void **state)
{
	(void)state;
	assert_identity(SYSTEMD_BURSTABLE_POD "/libpod-" CID ".scope", UID, "", "", "burstable");
	assert_identity(SYSTEMD_BURSTABLE_POD "/cri-containerd-" CID, UID, "", "", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD "/cri-containerd-" CID ".scope", UID, "", "",
			"burstable");
}

static void test_bad_container_ids(void **state)
{
	(void)state;
	/* 63 and 65 digits, uppercase, a non-hex digit */
	assert_identity(SYSTEMD_BURSTABLE_POD
			"/cri-containerd-"
			"0765f197c9158576f202e50498b488cd0d2b022fb2462b0a629f214bb51cd57"
			".scope",
			UID, "", "", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD "/" CID "0", UID, "", "", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD
			"/0765F197C9158576F202E50498B488CD0D2B022FB2462B0A629F214BB51CD57D",
			UID, "", "", "burstable");
	assert_identity(CGROUPFS_BURSTABLE_POD
			"/g765f197c9158576f202e50498b488cd0d2b022fb2462b0a629f214bb51cd57d",
			UID, "", "", "burstable");
}

static void test_bad_pod_uids(void **state)
{
	(void)state;
	/* dashes in a systemd slice name, underscores under cgroupfs */
	assert_not_a_pod("/kubepods.slice/kubepods-pod" UID ".slice/cri-containerd-" CID ".scope");
	assert_not_a_pod("/kubepods/pod" UID_ "/" CID);
	/* short, long, uppercase, misplaced separator, non-hex */
	assert_not_a_pod("/kubepods.slice/kubepods-pod2cde702b_a0cf_438d_a228_fb164e54434.slice");
	assert_not_a_pod("/kubepods.slice/kubepods-pod2cde702b_a0cf_438d_a228_fb164e54434bb.slice");
	assert_not_a_pod("/kubepods.slice/kubepods-pod2CDE702B_A0CF_438D_A228_FB164E54434B.slice");
	assert_not_a_pod("/kubepods.slice/kubepods-pod2cde702_ba0cf_438d_a228_fb164e54434b.slice");
	assert_not_a_pod("/kubepods/podzcde702b-a0cf-438d-a228-fb164e54434b");
	assert_not_a_pod("/kubepods/pod8daa50c3a64c9ff60bb9eab7b44b56f");
	assert_not_a_pod("/kubepods/pod");
}

static void test_not_kubepods(void **state)
{
	(void)state;
	assert_not_a_pod("");
	assert_not_a_pod("/");
	assert_not_a_pod("/kubepods.slice");
	assert_not_a_pod("/kubepods.slice/kubepods-burstable.slice");
	assert_not_a_pod("/kubepods/burstable");
	assert_not_a_pod("/system.slice/docker-" CID ".scope");
	assert_not_a_pod("/ci.slice/job-pod" UID_ ".slice");
	assert_not_a_pod("/ci.slice/notkubepods-pod" UID_ ".slice");
	assert_not_a_pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
			 ".scope");
}

static void test_null_arguments(void **state)
{
	struct pod_identity id;

	(void)state;
	assert_int_equal(pod_identity_parse(NULL, &id), -EINVAL);
	assert_int_equal(pod_identity_parse("/kubepods/pod" UID, NULL), -EINVAL);
}

/*
 * Every prefix of a full path, each in a heap block of its exact size so that
 * ASan reports a read past the NUL: nothing until the pod component is
 * complete, the pod alone until the container component is.
 */
static void assert_truncations(const char *full, size_t pod_end, const char *container_id)
{
	size_t full_len = strlen(full);

	for (size_t len = 0; len <= full_len; len++) {
		char *path = malloc(len + 1);
		struct pod_identity id;
		int ret;

		assert_non_null(path);
		memcpy(path, full, len);
		path[len] = '\0';
		ret = pod_identity_parse(path, &id);
		if (len < pod_end) {
			assert_int_equal(ret, -ENOENT);
		} else {
			assert_int_equal(ret, 0);
			assert_string_equal(id.pod_uid, UID);
			assert_string_equal(id.container_id, len == full_len ? container_id : "");
		}
		free(path);
	}
}

static void test_truncated_paths(void **state)
{
	(void)state;
	assert_truncations(SYSTEMD_BURSTABLE_POD "/cri-containerd-" CID ".scope",
			   strlen(SYSTEMD_BURSTABLE_POD), CID);
	assert_truncations(CGROUPFS_BURSTABLE_POD "/" CID, strlen(CGROUPFS_BURSTABLE_POD), CID);
	assert_truncations(CGROUPFS_BURSTABLE_POD "/crio-" CID, strlen(CGROUPFS_BURSTABLE_POD),
			   CID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_systemd_containerd),
	    cmocka_unit_test(test_systemd_crio),
	    cmocka_unit_test(test_systemd_crio_conmon_is_not_a_container),
	    cmocka_unit_test(test_systemd_docker),
	    cmocka_unit_test(test_systemd_guaranteed_has_no_qos_slice),
	    cmocka_unit_test(test_systemd_pod_level_cgroup),
	    cmocka_unit_test(test_systemd_static_pod_hash_uid),
	    cmocka_unit_test(test_cgroupfs_containerd_or_dockerd),
	    cmocka_unit_test(test_cgroupfs_crio),
	    cmocka_unit_test(test_cgroupfs_guaranteed),
	    cmocka_unit_test(test_cgroupfs_needs_kubepods_parent),
	    cmocka_unit_test(test_below_a_prefix),
	    cmocka_unit_test(test_containerd_cgroupfs_under_systemd_kubelet),
	    cmocka_unit_test(test_subgroups_of_a_container_are_the_container),
	    cmocka_unit_test(test_first_pod_from_the_root_wins),
	    cmocka_unit_test(test_unknown_child_is_pod_level),
	    cmocka_unit_test(test_bad_container_ids),
	    cmocka_unit_test(test_bad_pod_uids),
	    cmocka_unit_test(test_not_kubepods),
	    cmocka_unit_test(test_null_arguments),
	    cmocka_unit_test(test_truncated_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
