// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "event_stream.h"

static void write_line(struct event_stream *stream)
{
	fprintf(stream->sink, "%.*s\n", (int)stream->line.len, stream->line.data);
	fflush(stream->sink);
	stream->written++;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct event_stream *stream = ctx;

	if (stream->observe)
		stream->observe(stream->observe_arg, data, size);
	if (event_to_json(data, size, stream->ctx, &stream->line) == 0)
		write_line(stream);
	return 0;
}

int event_stream_open(struct event_stream *stream, int ring_fd, size_t ring_size,
		      event_lost_fn lost, void *lost_arg, FILE *sink,
		      const struct event_context *ctx)
{
	int ret;

	*stream =
	    (struct event_stream){.lost = lost, .lost_arg = lost_arg, .sink = sink, .ctx = ctx};
	ret = ring_reader_open(&stream->ring, ring_fd, ring_size);
	if (ret == 0)
		json_init(&stream->line);
	return ret;
}

int event_stream_fd(const struct event_stream *stream)
{
	return stream->ring.fd;
}

/* The per-CPU counters of records the kernel could not queue, summed. */
__u64 event_stream_lost_per_cpu(void *arg)
{
	int lost_events_fd = *(const int *)arg;
	int ncpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	__u64 total = 0, *per_cpu;

	if (ncpus <= 0)
		return 0;
	per_cpu = calloc((size_t)ncpus, sizeof(*per_cpu));
	if (per_cpu && bpf_map_lookup_elem(lost_events_fd, &zero, per_cpu) == 0) {
		for (int i = 0; i < ncpus; i++)
			total += per_cpu[i];
	}
	free(per_cpu);
	return total;
}

int event_stream_drain(struct event_stream *stream)
{
	int ret = ring_reader_consume(&stream->ring, on_record, stream);
	__u64 lost = stream->lost(stream->lost_arg);

	if (lost > stream->lost_reported) {
		event_lost_to_json(lost - stream->lost_reported, stream->ctx, &stream->line);
		write_line(stream);
		stream->lost_reported = lost;
	}
	return ret < 0 ? ret : 0;
}

void event_stream_skip(struct event_stream *stream)
{
	ring_reader_skip(&stream->ring);
}

void event_stream_close(struct event_stream *stream)
{
	ring_reader_close(&stream->ring);
	json_free(&stream->line);
}
