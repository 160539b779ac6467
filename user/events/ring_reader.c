// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "ring_reader.h"

/*
 * A mapping of the ring, left out of every child forked: none reads it, and
 * the kernel maps a ring page by page (VM_MIXEDMAP), so a fork would copy
 * a page table entry for each (the agent's 4 MB ring, mapped twice: 2,049),
 * and the child's exec or exit would drop them again. The agent forks its
 * spawner with its ring mapped, a run as root its command with the run's.
 */
static void *map_ring(int fd, size_t size, int prot, off_t offset)
{
	void *addr = mmap(NULL, size, prot, MAP_SHARED, fd, offset);

	if (addr != MAP_FAILED && madvise(addr, size, MADV_DONTFORK)) {
		int ret = errno;

		munmap(addr, size);
		errno = ret;
		return MAP_FAILED;
	}
	return addr;
}

int ring_reader_open(struct ring_reader *ring, int fd, size_t data_size)
{
	void *consumer, *producer;

	*ring = (struct ring_reader){.fd = fd, .page_size = (size_t)sysconf(_SC_PAGESIZE)};
	if (data_size == 0 || (data_size & (data_size - 1)))
		return -EINVAL;
	consumer = map_ring(fd, ring->page_size, PROT_READ | PROT_WRITE, 0);
	if (consumer == MAP_FAILED)
		return -errno;
	/* The data area is mapped twice in a row, so a record that wraps reads as one piece. */
	producer = map_ring(fd, ring->page_size + 2 * data_size, PROT_READ, (off_t)ring->page_size);
	if (producer == MAP_FAILED) {
		int ret = -errno;

		munmap(consumer, ring->page_size);
		return ret;
	}
	ring->consumer_pos = consumer;
	ring->producer_pos = producer;
	ring->data = (char *)producer + ring->page_size;
	ring->data_size = data_size;
	return 0;
}

int ring_reader_map_size(int fd, size_t *data_size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*data_size = info.max_entries;
	return 0;
}

static size_t record_span(__u32 len)
{
	return ((size_t)len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
}

int ring_reader_consume(struct ring_reader *ring, ring_record_fn on_record, void *ctx)
{
	unsigned long consumed = __atomic_load_n(ring->consumer_pos, __ATOMIC_ACQUIRE);
	unsigned long produced;
	int n = 0, ret;

	do {
		produced = __atomic_load_n(ring->producer_pos, __ATOMIC_ACQUIRE);
		while (consumed < produced) {
			__u32 *header =
			    (__u32 *)((char *)ring->data + (consumed & (ring->data_size - 1)));
			__u32 len = __atomic_load_n(header, __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				goto done; /* reserved, not yet committed: later records wait */
			consumed += record_span(len & ~BPF_RINGBUF_DISCARD_BIT);
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				ret = on_record(ctx, (char *)header + BPF_RINGBUF_HDR_SZ,
						len & ~BPF_RINGBUF_DISCARD_BIT);
				n++;
				if (ret) {
					__atomic_store_n(ring->consumer_pos, consumed,
							 __ATOMIC_RELEASE);
					return ret;
				}
			}
			/* Each record given back at once: the kernel has room again. */
			__atomic_store_n(ring->consumer_pos, consumed, __ATOMIC_RELEASE);
		}
	} while (__atomic_load_n(ring->producer_pos, __ATOMIC_ACQUIRE) != produced);
done:
	return n;
}

void ring_reader_skip(struct ring_reader *ring)
{
	__atomic_store_n(ring->consumer_pos, __atomic_load_n(ring->producer_pos, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

int ring_reader_skip_unread(int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long *consumer = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	unsigned long *producer = consumer == MAP_FAILED
				      ? MAP_FAILED
				      : mmap(NULL, page, PROT_READ, MAP_SHARED, fd, (off_t)page);
	int ret = producer == MAP_FAILED ? -errno : 0;

	if (ret == 0) {
		ring_reader_skip(
		    &(struct ring_reader){.consumer_pos = consumer, .producer_pos = producer});
		munmap(producer, page);
	}
	if (consumer != MAP_FAILED)
		munmap(consumer, page);
	return ret;
}

void ring_reader_close(struct ring_reader *ring)
{
	if (ring->consumer_pos)
		munmap(ring->consumer_pos, ring->page_size);
	if (ring->producer_pos)
		munmap(ring->producer_pos, ring->page_size + 2 * ring->data_size);
	ring->consumer_pos = ring->producer_pos = NULL;
}
