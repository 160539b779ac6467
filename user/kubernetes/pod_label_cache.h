/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pods' labels and annotations from the CRI runtime (cri_client.h), asked for
 * off the agent's loop: one thread of its own makes the calls, one at a time,
 * and a descriptor tells the loop when answers came. Answers are kept by
 * sandbox id: the kubelet gives a sandbox its labels when it creates it, and
 * the CRI has no call that changes them, so an answer holds for the
 * sandbox's life. Past POD_LABEL_CACHE_SIZE sandboxes, the oldest answer is
 * dropped (a node runs 110 pods by default).
 */
#ifndef CGWARD_POD_LABEL_CACHE_H
#define CGWARD_POD_LABEL_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "container_meta.h"

#define POD_LABEL_CACHE_SIZE 256

enum pod_labels_state {
	POD_LABELS_FREE,
	POD_LABELS_QUEUED, /* waiting for the thread */
	POD_LABELS_ASKING, /* the thread's call is under way */
	POD_LABELS_KNOWN,
	POD_LABELS_FAILED, /* until the next pod_label_cache_get, which reports it */
};

struct pod_labels_entry {
	char sandbox_id[sizeof(((struct container_meta *)0)->sandbox_id)];
	enum pod_labels_state state;
	unsigned long long order; /* when it was asked for: the lowest is the oldest */
	struct meta_pair *labels, *annotations;
	size_t n_labels, n_annotations;
	char error[256]; /* why it failed */
	/*
	 * Asked for by pod_label_cache_prefetch and by no get yet: a failure is
	 * then nobody's (a sandbox may not be in the CRI's store while its
	 * pause container starts), and the first get asks again.
	 */
	bool prefetched;
};

struct pod_label_cache {
	const char *cri_socket;
	int timeout_ms;	 /* of each call */
	int answered_fd; /* eventfd: readable once an answer came */
	pthread_t thread;
	pthread_mutex_t lock; /* entries, next_order, stopping */
	pthread_cond_t queued, answered;
	bool started, stopping;
	unsigned long long next_order;
	struct pod_labels_entry entries[POD_LABEL_CACHE_SIZE];
};

/* Starts the thread; calls time out after timeout_ms. Returns 0 or negative errno. */
int pod_label_cache_open(struct pod_label_cache *cache, const char *cri_socket, int timeout_ms);

/* The descriptor to poll: readable when answers came (pod_label_cache_answered). */
int pod_label_cache_fd(const struct pod_label_cache *cache);

/*
 * Fills meta's labels and annotations (replacing those it has) with sandbox
 * id's, and sets has_labels: 0. -EINPROGRESS while they are asked for (the
 * question queued if it was not); with wait, blocks until the answer
 * instead. A failed answer is returned once (negative errno, the reason in
 * err) and forgotten: the next call asks again. -EAGAIN when
 * POD_LABEL_CACHE_SIZE questions are pending.
 */
int pod_label_cache_get(struct pod_label_cache *cache, const char *sandbox_id, bool wait,
			struct container_meta *meta, char *err, size_t errlen);

/* Asks for sandbox id's labels now, unless they are known or asked for: a pod's containers follow.
 */
void pod_label_cache_prefetch(struct pod_label_cache *cache, const char *sandbox_id);

/* Whether answers came since the last call. */
bool pod_label_cache_answered(struct pod_label_cache *cache);

/* Stops the thread (after the call under way, at most timeout_ms) and frees the answers. */
void pod_label_cache_close(struct pod_label_cache *cache);

#endif
