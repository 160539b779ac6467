// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pod_label_cache.h"

#define NO_CRI "/nonexistent/cgward-test-cri.sock"

static void wait_answered(struct pod_label_cache *cache)
{
	struct pollfd pfd = {.fd = pod_label_cache_fd(cache), .events = POLLIN};

	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_true(pod_label_cache_answered(cache));
}

/* Each test's cache, asking a CRI socket that is not there. */
static int open_cache(void **state)
{
	struct pod_label_cache *cache = calloc(1, sizeof(*cache));

	assert_non_null(cache);
	assert_int_equal(pod_label_cache_open(cache, NO_CRI, 2000), 0);
	*state = cache;
	return 0;
}

static int close_cache(void **state)
{
	pod_label_cache_close(*state);
	free(*state);
	return 0;
}

/* A question is answered off the caller's thread; a failure is told once, then asked again. */
static void test_failed_answer_is_reported_once(void **state)
{
	struct pod_label_cache *cache = *state;
	struct container_meta meta = {0};
	char err[512] = "";

	assert_false(pod_label_cache_answered(cache));
	assert_int_equal(pod_label_cache_get(cache, "abc", false, &meta, err, sizeof(err)),
			 -EINPROGRESS);
	wait_answered(cache);
	assert_int_equal(pod_label_cache_get(cache, "abc", false, &meta, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, NO_CRI));
	assert_false(meta.has_labels);
	/* Forgotten once told: asked again. */
	assert_int_equal(pod_label_cache_get(cache, "abc", false, &meta, err, sizeof(err)),
			 -EINPROGRESS);
}

/* With wait, the caller gets the answer itself. */
static void test_wait_blocks_until_the_answer(void **state)
{
	struct pod_label_cache *cache = *state;
	struct container_meta meta = {0};
	char err[512] = "";

	assert_int_equal(pod_label_cache_get(cache, "sandbox-2", true, &meta, err, sizeof(err)),
			 -EIO);
	assert_non_null(strstr(err, NO_CRI));
}

/* A prefetch that failed is nobody's failure: the first get asks again. */
static void test_failed_prefetch_is_asked_again(void **state)
{
	struct pod_label_cache *cache = *state;
	struct container_meta meta = {0};
	char err[512] = "";

	pod_label_cache_prefetch(cache, "sandbox-1");
	wait_answered(cache);
	assert_int_equal(pod_label_cache_get(cache, "sandbox-1", false, &meta, err, sizeof(err)),
			 -EINPROGRESS);
	assert_int_equal(pod_label_cache_get(cache, "sandbox-1", true, &meta, err, sizeof(err)),
			 -EIO);
}

/* More questions than slots: the oldest answers make room, pending ones are refused. */
static void test_bounded(void **state)
{
	struct pod_label_cache *cache = *state;
	struct container_meta meta = {0};
	char err[512], id[32];
	int ret, refused = 0;

	for (int i = 0; i < 2 * POD_LABEL_CACHE_SIZE; i++) {
		snprintf(id, sizeof(id), "s%d", i);
		ret = pod_label_cache_get(cache, id, false, &meta, err, sizeof(err));
		assert_true(ret == -EINPROGRESS || ret == -EAGAIN);
		refused += ret == -EAGAIN;
	}
	assert_true(refused <= POD_LABEL_CACHE_SIZE);
	/* Answers make room for new questions. */
	while ((ret = pod_label_cache_get(cache, "last", true, &meta, err, sizeof(err))) == -EAGAIN)
		wait_answered(cache);
	assert_int_equal(ret, -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_failed_answer_is_reported_once, open_cache,
					    close_cache),
	    cmocka_unit_test_setup_teardown(test_wait_blocks_until_the_answer, open_cache,
					    close_cache),
	    cmocka_unit_test_setup_teardown(test_failed_prefetch_is_asked_again, open_cache,
					    close_cache),
	    cmocka_unit_test_setup_teardown(test_bounded, open_cache, close_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
