// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds arbitrary bytes, made a C string, to pod_identity_parse and checks
 * what any identity it returns must satisfy: well-formed IDs that the path
 * really holds, known runtime and QoS names, and the same container for any
 * cgroup below the container's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pod_identity.h"
#include "fuzz_check.h"

static bool is_one_of(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0)
			return true;
	}
	return false;
}

static bool lower_hex_except_dashes(const char *s)
{
	for (; *s; s++) {
		if (*s != '-' && !((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	}
	return true;
}

/* The path spells the UID with '-' (cgroupfs) or '_' (systemd). */
static bool path_holds_uid(const char *path, const char *uid)
{
	char underscored[sizeof(((struct pod_identity *)0)->pod_uid)];

	strcpy(underscored, uid);
	for (char *c = underscored; *c; c++) {
		if (*c == '-')
			*c = '_';
	}
	return strstr(path, uid) || strstr(path, underscored);
}

static void check_identity(const char *path, const struct pod_identity *id)
{
	static const char *const runtimes[] = {"", "containerd", "cri-o", "docker"};
	static const char *const qos_classes[] = {"guaranteed", "burstable", "besteffort"};
	size_t uid_len = strnlen(id->pod_uid, sizeof(id->pod_uid));
	size_t cid_len = strnlen(id->container_id, sizeof(id->container_id));

	CHECK(uid_len == 32 || uid_len == 36);
	CHECK(lower_hex_except_dashes(id->pod_uid));
	if (uid_len == 36)
		CHECK(id->pod_uid[8] == '-' && id->pod_uid[13] == '-' && id->pod_uid[18] == '-' &&
		      id->pod_uid[23] == '-');
	else
		CHECK(!strchr(id->pod_uid, '-'));
	CHECK(path_holds_uid(path, id->pod_uid));
	CHECK(cid_len == 0 || cid_len == 64);
	CHECK(!strchr(id->container_id, '-') && lower_hex_except_dashes(id->container_id));
	CHECK(strstr(path, id->container_id));
	CHECK(strnlen(id->runtime, sizeof(id->runtime)) < sizeof(id->runtime));
	CHECK(is_one_of(id->runtime, runtimes, sizeof(runtimes) / sizeof(runtimes[0])));
	CHECK(is_one_of(id->qos, qos_classes, sizeof(qos_classes) / sizeof(qos_classes[0])));
}

/* A cgroup that a container makes below its own is still that container. */
static void check_child_keeps_container(const char *path, const struct pod_identity *id)
{
	size_t len = strlen(path);
	char *child = malloc(len + sizeof("/kubepods/pod"));
	struct pod_identity child_id;

	CHECK(child);
	memcpy(child, path, len);
	memcpy(child + len, "/kubepods/pod", sizeof("/kubepods/pod"));
	CHECK(pod_identity_parse(child, &child_id) == 0);
	CHECK(memcmp(&child_id, id, sizeof(*id)) == 0);
	free(child);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = malloc(size + 1);
	struct pod_identity id;
	int ret;

	CHECK(path);
	memcpy(path, data, size);
	path[size] = '\0';
	ret = pod_identity_parse(path, &id);
	CHECK(ret == 0 || ret == -ENOENT);
	if (ret == 0) {
		check_identity(path, &id);
		if (id.container_id[0])
			check_child_keeps_container(path, &id);
	} else {
		static const struct pod_identity empty;

		CHECK(memcmp(&id, &empty, sizeof(id)) == 0);
	}
	free(path);
	return 0;
}
