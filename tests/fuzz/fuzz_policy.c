// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds arbitrary bytes to policy_load as a policy file and checks its
 * contract: valid means rules and no diagnostics, invalid means diagnostics
 * with real positions and nothing left in the set. ASan finds the leaks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy.h"
#include "fuzz_check.h"

static const char *const cgroup_paths[] = {
    "/",
    "/ci.slice/job-1.scope",
    "/kubepods.slice/kubepods-burstable.slice/"
    "kubepods-burstable-pod0f3c2a1e_9b7d_4c5e_8a6f_112233445566.slice/"
    "cri-containerd-4bd2c7f1e8a9b0c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b.scope",
};

static void check_diags(const struct policy_diags *diags)
{
	for (size_t i = 0; i < diags->n; i++) {
		const struct policy_diag *d = &diags->items[i];

		CHECK(d->line >= 1 && d->column >= 1);
		CHECK(memchr(d->message, '\0', sizeof(d->message)) && d->message[0]);
		if (i > 0)
			CHECK(d->line > d[-1].line ||
			      (d->line == d[-1].line && d->column >= d[-1].column));
	}
}

static void check_valid_set(const struct policy_set *set)
{
	CHECK(set->n_rules >= 1 && set->n_rules <= POLICY_MAX_RULES);
	for (size_t i = 0; i < set->n_rules; i++) {
		const struct policy_rule *rule = &set->rules[i];

		/* Write roots of the host, or roots inside the containers it selects. */
		CHECK(rule->name[0] && rule->n_roots + rule->n_container_paths >= 1 &&
		      rule->n_roots <= POLICY_MAX_ROOTS &&
		      rule->n_container_paths <= POLICY_MAX_ROOTS);
		CHECK(rule->n_cgroup_globs + rule->n_pod_uids + rule->n_container_ids >= 1 ||
		      rule->kubernetes.present);
		CHECK(!rule->n_container_paths || rule->kubernetes.present || rule->n_pod_uids ||
		      rule->n_container_ids);
		for (size_t r = 0; r < rule->n_roots; r++)
			CHECK(rule->roots[r].fd >= 0);
	}
	for (size_t i = 0; i < sizeof(cgroup_paths) / sizeof(cgroup_paths[0]); i++) {
		const struct policy_rule *rule = policy_match(set, cgroup_paths[i]);

		CHECK(!rule || policy_rule_selects(rule, cgroup_paths[i]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_diags diags;
	struct policy_set set;
	char path[64];
	int fd, ret;

	fd = memfd_create("policy", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = policy_load(path, &set, &diags);
	close(fd);
	check_diags(&diags);
	if (ret == 0) {
		CHECK(diags.n == 0);
		check_valid_set(&set);
	} else {
		CHECK(ret == -EINVAL && diags.n > 0);
		CHECK(set.n_rules == 0 && !set.rules);
	}
	policy_set_free(&set);
	policy_diags_free(&diags);
	return 0;
}
