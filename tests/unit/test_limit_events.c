// SPDX-License-Identifier: GPL-2.0
/* Limit events from a fake cgroup's files: a line for each counter that grew, once. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "limit_events.h"

struct fake {
	char dir[64];
	char *out;
	size_t out_len;
	FILE *sink;
};

static void write_file(const struct fake *f, const char *name, const char *text)
{
	char path[128];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	file = fopen(path, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/cgward-limits-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	write_file(f, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	write_file(f, "pids.events", "max 0\n");
	f->sink = open_memstream(&f->out, &f->out_len);
	*state = f;
	return f->sink ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fake *f = *state;
	int ret = nftw(f->dir, remove_entry, 4, FTW_DEPTH | FTW_PHYS);

	fclose(f->sink);
	free(f->out);
	free(f);
	return ret;
}

/* The sink's text so far (the stream flushed). */
static const char *lines(struct fake *f)
{
	fflush(f->sink);
	return f->out;
}

static void test_each_counter_that_grew_is_one_typed_line(void **state)
{
	struct fake *f = *state;
	struct limit_watch w;
	struct limit_counts hits = {0};
	union {
		struct inotify_event event;
		char bytes[sizeof(struct inotify_event) + NAME_MAX + 1];
	} ev;

	/* The agent's way: watches on an inotify descriptor of its own (epoll takes no plain file).
	 */
	int agent_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	assert_true(agent_fd >= 0);
	assert_int_equal(limit_watch_open(&w, f->dir, "/jobs/cgward-1-2", 1000, false, agent_fd),
			 0);
	assert_int_equal(limit_watch_fd(&w), -1);
	limit_watch_report(&w, f->sink, &hits);
	assert_string_equal(lines(f), "");

	write_file(f, "memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\n");
	/* The agent reports a run whose watch an event names. */
	assert_true(read(agent_fd, &ev, sizeof(ev)) >= (ssize_t)sizeof(ev.event));
	assert_true(limit_watch_has(&w, ev.event.wd));
	assert_false(limit_watch_has(&w, ev.event.wd + 100));
	limit_watch_report(&w, f->sink, &hits);
	assert_non_null(strstr(lines(f),
			       "\"op\":\"limit\",\"limit\":\"memory\",\"event\":\"oom_kill\","
			       "\"count\":2,\"cgroup\":\"/jobs/cgward-1-2\",\"uid\":1000}\n"));
	assert_int_equal(hits.oom_kill, 2);
	/* Reported once: a second look at the same counters writes nothing. */
	limit_watch_report(&w, f->sink, &hits);
	assert_null(strchr(strchr(lines(f), '\n') + 1, '{'));

	write_file(f, "pids.events", "max 3\n");
	limit_watch_report(&w, f->sink, &hits);
	assert_non_null(strstr(lines(f), "\"limit\":\"pids\",\"event\":\"max\",\"count\":3,"));
	assert_int_equal(hits.pids_max, 3);
	limit_watch_close(&w);
	assert_int_equal(close(agent_fd), 0); /* the agent's, left open by the watch */
}

static void test_cpu_throttling_is_reported_at_the_end(void **state)
{
	struct fake *f = *state;
	struct limit_watch w;
	struct limit_counts hits = {0};

	write_file(f, "cpu.stat",
		   "usage_usec 2000000\nuser_usec 1900000\nsystem_usec 100000\nnr_periods 40\n"
		   "nr_throttled 19\nthrottled_usec 950000\n");
	assert_int_equal(limit_watch_open(&w, f->dir, "/r", -1, true, -1), 0);
	limit_watch_report(&w, f->sink, &hits);
	assert_string_equal(lines(f), "");
	limit_watch_end(&w, f->sink, &hits);
	assert_non_null(strstr(lines(f), "\"limit\":\"cpu\",\"event\":\"throttled\",\"count\":19,"
					 "\"throttled_usec\":950000,\"usage_usec\":2000000,"
					 "\"cgroup\":\"/r\"}\n"));
	assert_int_equal(hits.cpu_throttled, 19);
	limit_watch_close(&w);
}

/* A cgroup without the controllers' files: nothing to watch, nothing reported, no error. */
static void test_a_cgroup_without_the_files_watches_nothing(void **state)
{
	struct fake *f = *state;
	struct limit_watch w;
	char empty[80];

	snprintf(empty, sizeof(empty), "%s/empty", f->dir);
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(limit_watch_open(&w, empty, "/e", -1, true, -1), 0);
	assert_int_equal(limit_watch_fd(&w), -1);
	limit_watch_end(&w, f->sink, NULL);
	assert_string_equal(lines(f), "");
	limit_watch_close(&w);
}

/* The agent's way, without the files: no watch that an event could name. */
static void test_the_agents_watch_without_the_files_watches_nothing(void **state)
{
	struct fake *f = *state;
	struct limit_watch w;
	int agent_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	char empty[80];

	assert_true(agent_fd >= 0);
	snprintf(empty, sizeof(empty), "%s/empty", f->dir);
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(limit_watch_open(&w, empty, "/e", -1, false, agent_fd), 0);
	for (int wd = 0; wd < 8; wd++)
		assert_false(limit_watch_has(&w, wd));
	limit_watch_end(&w, f->sink, NULL);
	assert_string_equal(lines(f), "");
	limit_watch_close(&w);
	assert_int_equal(close(agent_fd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_each_counter_that_grew_is_one_typed_line, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_throttling_is_reported_at_the_end, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_a_cgroup_without_the_files_watches_nothing, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_the_agents_watch_without_the_files_watches_nothing,
					    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
