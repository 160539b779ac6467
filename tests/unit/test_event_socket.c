// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "event_socket.h"

struct fixture {
	char dir[48];
	char path[96];
	struct event_socket s;
};

static int set_up(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	snprintf(f->dir, sizeof(f->dir), "/tmp/cgward-unit.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/run/events.sock", f->dir);
	assert_int_equal(event_socket_open(&f->s, f->path, err, sizeof(err)), 0);
	*state = f;
	return 0;
}

static int tear_down(void **state)
{
	struct fixture *f = *state;
	char run[96];

	event_socket_close(&f->s);
	snprintf(run, sizeof(run), "%s/run", f->dir);
	rmdir(run);
	rmdir(f->dir);
	free(f);
	return 0;
}

static int subscribe(struct fixture *f)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", f->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	event_socket_accept(&f->s);
	return fd;
}

/* What the subscriber has been sent so far. */
static void assert_received(int fd, const char *want)
{
	char got[4096];
	ssize_t n = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);

	got[n < 0 ? 0 : n] = '\0';
	assert_string_equal(got, want);
}

static void test_socket_is_root_only(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char run[96];

	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(run, sizeof(run), "%s/run", f->dir);
	assert_int_equal(stat(run, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
}

static void test_recent_lines_then_an_empty_line_then_live(void **state)
{
	struct fixture *f = *state;
	int fd;

	event_socket_write(&f->s, "{\"n\":1}\n{\"n\":2}\n{\"n\"", 20);
	fd = subscribe(f);
	assert_received(fd, "{\"n\":1}\n{\"n\":2}\n\n");
	/* A line written in pieces goes out whole. */
	event_socket_write(&f->s, ":3}", 3);
	assert_received(fd, "");
	event_socket_write(&f->s, "\n", 1);
	assert_received(fd, "{\"n\":3}\n");
	close(fd);
}

static void test_only_the_newest_lines_are_kept(void **state)
{
	struct fixture *f = *state;
	char line[32], got[16];
	FILE *stream;
	int fd;

	for (int i = 0; i < EVENT_SOCKET_BACKLOG + 10; i++) {
		snprintf(line, sizeof(line), "%d\n", i);
		event_socket_write(&f->s, line, strlen(line));
	}
	fd = subscribe(f);
	stream = fdopen(fd, "r");
	assert_non_null(fgets(got, sizeof(got), stream));
	assert_string_equal(got, "10\n");
	fclose(stream);
}

static void test_a_subscriber_that_stops_reading_is_dropped(void **state)
{
	struct fixture *f = *state;
	static char line[64 << 10];
	char buf[4096];
	ssize_t n;
	int fd = subscribe(f), sndbuf = 64 << 10;

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	/* The agent's buffer is smaller without CAP_NET_ADMIN: fill whatever it is. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof(sndbuf));
	for (int i = 0; i < 256; i++)
		event_socket_write(&f->s, line, sizeof(line));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	assert_int_equal(n, 0); /* EOF: the agent closed it rather than block */
	close(fd);
}

static void test_stale_socket_is_replaced_a_live_one_is_not(void **state)
{
	struct fixture *f = *state;
	struct event_socket second;
	char err[256];
	int fd;

	assert_int_equal(event_socket_open(&second, f->path, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "another agent serves events there"));
	/* Killed with -9: the socket file stays, nobody listens. */
	close(f->s.listen_fd);
	f->s.listen_fd = -1;
	assert_int_equal(event_socket_open(&f->s, f->path, err, sizeof(err)), 0);
	fd = subscribe(f);
	assert_received(fd, "\n");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_socket_is_root_only, set_up, tear_down),
	    cmocka_unit_test_setup_teardown(test_recent_lines_then_an_empty_line_then_live, set_up,
					    tear_down),
	    cmocka_unit_test_setup_teardown(test_only_the_newest_lines_are_kept, set_up, tear_down),
	    cmocka_unit_test_setup_teardown(test_a_subscriber_that_stops_reading_is_dropped, set_up,
					    tear_down),
	    cmocka_unit_test_setup_teardown(test_stale_socket_is_replaced_a_live_one_is_not, set_up,
					    tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
