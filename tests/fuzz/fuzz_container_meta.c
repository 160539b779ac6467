// SPDX-License-Identifier: GPL-2.0
/*
 * What the agent reads from the node about containers, fed arbitrary bytes:
 * a bundle's config.json (container_meta_parse), and a CRI
 * PodSandboxStatusResponse (cri_parse_sandbox_status; the input's first byte
 * chooses). Either parses into well-formed strings or is refused.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "container_meta.h"
#include "cri_client.h"
#include "fuzz_check.h"

static void check_pairs(const struct meta_pair *pairs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		CHECK(pairs[i].key && pairs[i].value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct container_meta meta = {0};
	char err[512];

	if (size == 0)
		return 0;
	if (data[0] & 1) {
		if (cri_parse_sandbox_status(data + 1, size - 1, &meta) == 0)
			CHECK(meta.has_labels);
	} else if (container_meta_parse((const char *)data + 1, size - 1, &meta, err,
					sizeof(err)) == 0) {
		CHECK(memchr(meta.pod_uid, '\0', sizeof(meta.pod_uid)));
		CHECK(memchr(meta.root_path, '\0', sizeof(meta.root_path)));
	}
	check_pairs(meta.labels, meta.n_labels);
	check_pairs(meta.annotations, meta.n_annotations);
	check_pairs(meta.binds, meta.n_binds);
	container_meta_free(&meta);
	return 0;
}
