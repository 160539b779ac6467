/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF ring buffer read through its mapping alone: no bpf() call, so a
 * process without the privilege to call it (a cgward exec run as an ordinary
 * user, given the run's ring by the agent) reads its records as root does.
 * The layout is the kernel's (kernel/bpf/ringbuf.c): a consumer page the
 * reader writes, then a producer page and the data area mapped twice, read-only.
 */
#ifndef CGWARD_RING_READER_H
#define CGWARD_RING_READER_H

#include <stddef.h>

struct ring_reader {
	int fd; /* the map's: polls readable when records wait */
	unsigned long *consumer_pos;
	unsigned long *producer_pos;
	void *data;
	size_t data_size; /* a power of 2: the map's max_entries */
	size_t page_size;
};

typedef int (*ring_record_fn)(void *ctx, void *data, size_t size);

/* Maps the ring of fd, data_size bytes of data; fd stays the caller's. */
int ring_reader_open(struct ring_reader *ring, int fd, size_t data_size);

/* The data size of a ring buffer map: its max_entries, asked of the kernel (bpf()). */
int ring_reader_map_size(int fd, size_t *data_size);

/* Calls on_record for every committed record, in order; returns how many, or its error. */
int ring_reader_consume(struct ring_reader *ring, ring_record_fn on_record, void *ctx);

/* Gives back every record the ring holds unread, as if consumed: a reused ring's old ones. */
void ring_reader_skip(struct ring_reader *ring);

/*
 * The same for the ring of fd, not mapped: only its two position pages
 * are, for the while (the whole ring is some 130 pages, each mapped and
 * unmapped one by one). Returns 0 or negative errno.
 */
int ring_reader_skip_unread(int fd);

void ring_reader_close(struct ring_reader *ring);

#endif
