// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's side of `cgward events` cuts its output into lines for the
 * subscribers, and the client filters each line as JSON. Feeds arbitrary
 * bytes, in chunks whose size the first byte sets, and checks that the
 * newest line kept is the input's last complete line, then runs every kept
 * line through the filter.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_filter.h"
#include "event_socket.h"
#include "fuzz_check.h"

static struct event_socket sock;
static char sock_dir[] = "/tmp/cgward-fuzz.XXXXXX";

static void remove_socket(void)
{
	event_socket_close(&sock);
	rmdir(sock_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[64], err[256];

	(void)argc;
	(void)argv;
	CHECK(mkdtemp(sock_dir));
	snprintf(path, sizeof(path), "%s/events.sock", sock_dir);
	CHECK(event_socket_open(&sock, path, err, sizeof(err)) == 0);
	atexit(remove_socket);
	return 0;
}

static const char *newest_line(void)
{
	return sock.recent[(sock.next_recent + EVENT_SOCKET_BACKLOG - 1) % EVENT_SOCKET_BACKLOG];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct event_filter filter = {
	    .cgroup_glob = "/ci.slice/**", .op = "unlink", .verdict = "deny"};
	const char *text = (const char *)data + 1, *last_end, *last_start;
	size_t len = size ? size - 1 : 0, chunk = size ? data[0] % 17 + 1 : 1;

	event_socket_write(&sock, "\n", 1); /* ends what an earlier input left open */
	for (size_t done = 0; done < len; done += chunk)
		event_socket_write(&sock, text + done, len - done < chunk ? len - done : chunk);
	last_end = len ? memrchr(text, '\n', len) : NULL;
	if (last_end && !memchr(text, '\0', len)) {
		last_start = memrchr(text, '\n', (size_t)(last_end - text));
		last_start = last_start ? last_start + 1 : text;
		CHECK(strlen(newest_line()) == (size_t)(last_end - last_start) + 1);
		CHECK(memcmp(newest_line(), last_start, (size_t)(last_end - last_start) + 1) == 0);
	}
	for (size_t k = 0; k < EVENT_SOCKET_BACKLOG; k++)
		if (sock.recent[k])
			event_filter_match(&filter, sock.recent[k]);
	return 0;
}
