/* SPDX-License-Identifier: GPL-2.0 */
/* The deny_events ring buffer, written out as JSON lines, with losses reported. */
#ifndef CGWARD_EVENT_STREAM_H
#define CGWARD_EVENT_STREAM_H

#include <stdio.h>
#include <linux/types.h>

#include "events.h"
#include "json.h"

struct ring_buffer;

struct event_stream {
	struct ring_buffer *ring;
	int lost_events_fd;
	__u64 lost_reported;
	FILE *sink;
	const struct event_context *ctx;
	struct json_buf line;
	unsigned long long written;
};

int event_stream_open(struct event_stream *stream, int ring_fd, int lost_events_fd, FILE *sink,
		      const struct event_context *ctx);
/* A descriptor that polls readable when records wait. */
int event_stream_fd(const struct event_stream *stream);
/* Writes every waiting record, then a "lost" line if the kernel dropped any since the last call. */
int event_stream_drain(struct event_stream *stream);
void event_stream_close(struct event_stream *stream);

#endif
