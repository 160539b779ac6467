/* SPDX-License-Identifier: GPL-2.0 */
/* The deny_events ring buffer, written out as JSON lines, with losses reported. */
#ifndef CGWARD_EVENT_STREAM_H
#define CGWARD_EVENT_STREAM_H

#include <stdio.h>
#include <linux/types.h>

#include "events.h"
#include "json.h"
#include "ring_reader.h"

/* How many events the kernel could not queue so far: a counter that only grows. */
typedef __u64 (*event_lost_fn)(void *arg);

/* Sees each record of the ring buffer as it is read. */
typedef void (*event_observe_fn)(void *arg, const void *record, size_t size);

struct event_stream {
	struct ring_reader ring;
	event_observe_fn observe; /* NULL: none */
	void *observe_arg;
	event_lost_fn lost;
	void *lost_arg;
	__u64 lost_reported;
	FILE *sink;
	const struct event_context *ctx;
	struct json_buf line;
	unsigned long long written;
};

/* ring_size: the ring's data size (ring_reader_map_size); ring_fd stays the caller's. */
int event_stream_open(struct event_stream *stream, int ring_fd, size_t ring_size,
		      event_lost_fn lost, void *lost_arg, FILE *sink,
		      const struct event_context *ctx);

/* The event_lost_fn of the agent's ring buffer: arg points to the lost_events map's fd. */
__u64 event_stream_lost_per_cpu(void *arg);
/* A descriptor that polls readable when records wait. */
int event_stream_fd(const struct event_stream *stream);
/* Drops the records waiting: those a reused ring holds from its last run. */
void event_stream_skip(struct event_stream *stream);
/* Writes every waiting record, then a "lost" line if the kernel dropped any since the last call. */
int event_stream_drain(struct event_stream *stream);
void event_stream_close(struct event_stream *stream);

#endif
