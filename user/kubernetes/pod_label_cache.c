// SPDX-License-Identifier: GPL-2.0
#include "pod_label_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "cri_client.h"

static void clear_entry(struct pod_labels_entry *entry)
{
	meta_pairs_free(entry->labels, entry->n_labels);
	meta_pairs_free(entry->annotations, entry->n_annotations);
	*entry = (struct pod_labels_entry){.state = POD_LABELS_FREE};
}

static int copy_pairs(const struct meta_pair *from, size_t n, struct meta_pair **to, size_t *n_to)
{
	*n_to = 0;
	*to = calloc(n + 1, sizeof(**to)); /* + 1: calloc(0) may return NULL */
	if (!*to)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		(*to)[i].key = strdup(from[i].key);
		(*to)[i].value = strdup(from[i].value);
		(*n_to)++;
		if (!(*to)[i].key || !(*to)[i].value)
			return -ENOMEM;
	}
	return 0;
}

static struct pod_labels_entry *find_entry(struct pod_label_cache *cache, const char *sandbox_id)
{
	for (size_t i = 0; i < POD_LABEL_CACHE_SIZE; i++) {
		if (cache->entries[i].state != POD_LABELS_FREE &&
		    strcmp(cache->entries[i].sandbox_id, sandbox_id) == 0)
			return &cache->entries[i];
	}
	return NULL;
}

/* The oldest pending question, for the thread; NULL when none is. */
static struct pod_labels_entry *oldest_queued(struct pod_label_cache *cache)
{
	struct pod_labels_entry *oldest = NULL;

	for (size_t i = 0; i < POD_LABEL_CACHE_SIZE; i++) {
		struct pod_labels_entry *entry = &cache->entries[i];

		if (entry->state == POD_LABELS_QUEUED && (!oldest || entry->order < oldest->order))
			oldest = entry;
	}
	return oldest;
}

/* A free slot, or the oldest answer's; NULL when every slot waits for one. */
static struct pod_labels_entry *slot_for_question(struct pod_label_cache *cache)
{
	struct pod_labels_entry *oldest = NULL;

	for (size_t i = 0; i < POD_LABEL_CACHE_SIZE; i++) {
		struct pod_labels_entry *entry = &cache->entries[i];

		if (entry->state == POD_LABELS_FREE)
			return entry;
		if ((entry->state == POD_LABELS_KNOWN || entry->state == POD_LABELS_FAILED) &&
		    (!oldest || entry->order < oldest->order))
			oldest = entry;
	}
	if (oldest)
		clear_entry(oldest);
	return oldest;
}

/* With the lock held: the entry of sandbox_id, queued for the thread if it was not known. */
static struct pod_labels_entry *ask(struct pod_label_cache *cache, const char *sandbox_id)
{
	struct pod_labels_entry *entry = find_entry(cache, sandbox_id);

	if (entry)
		return entry;
	entry = slot_for_question(cache);
	if (!entry)
		return NULL;
	snprintf(entry->sandbox_id, sizeof(entry->sandbox_id), "%s", sandbox_id);
	entry->state = POD_LABELS_QUEUED;
	entry->order = cache->next_order++;
	pthread_cond_signal(&cache->queued);
	return entry;
}

/* With the lock held; the call itself is made without it. */
static void answer_one(struct pod_label_cache *cache, struct pod_labels_entry *entry)
{
	struct container_meta meta = {0};
	char sandbox_id[sizeof(entry->sandbox_id)], err[sizeof(entry->error)] = "";
	int ret;

	entry->state = POD_LABELS_ASKING; /* never dropped while asking: entry stays its own */
	memcpy(sandbox_id, entry->sandbox_id, sizeof(sandbox_id));
	pthread_mutex_unlock(&cache->lock);
	ret = cri_pod_metadata(cache->cri_socket, sandbox_id, cache->timeout_ms, &meta, err,
			       sizeof(err));
	pthread_mutex_lock(&cache->lock);
	if (ret == 0) {
		entry->labels = meta.labels;
		entry->n_labels = meta.n_labels;
		entry->annotations = meta.annotations;
		entry->n_annotations = meta.n_annotations;
		meta.labels = meta.annotations = NULL;
		meta.n_labels = meta.n_annotations = 0;
		entry->state = POD_LABELS_KNOWN;
	} else {
		memcpy(entry->error, err, sizeof(entry->error));
		entry->state = POD_LABELS_FAILED;
	}
	container_meta_free(&meta);
	pthread_cond_broadcast(&cache->answered);
	eventfd_write(cache->answered_fd, 1);
}

static void *ask_cri(void *arg)
{
	struct pod_label_cache *cache = arg;
	struct pod_labels_entry *entry;

	pthread_mutex_lock(&cache->lock);
	while (!cache->stopping) {
		entry = oldest_queued(cache);
		if (entry)
			answer_one(cache, entry);
		else
			pthread_cond_wait(&cache->queued, &cache->lock);
	}
	pthread_mutex_unlock(&cache->lock);
	return NULL;
}

int pod_label_cache_open(struct pod_label_cache *cache, const char *cri_socket, int timeout_ms)
{
	int ret;

	*cache = (struct pod_label_cache){.cri_socket = cri_socket, .timeout_ms = timeout_ms};
	cache->answered_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cache->answered_fd < 0)
		return -errno;
	pthread_mutex_init(&cache->lock, NULL);
	pthread_cond_init(&cache->queued, NULL);
	pthread_cond_init(&cache->answered, NULL);
	ret = pthread_create(&cache->thread, NULL, ask_cri, cache);
	if (ret) {
		close(cache->answered_fd);
		cache->answered_fd = -1;
		return -ret;
	}
	cache->started = true;
	return 0;
}

int pod_label_cache_fd(const struct pod_label_cache *cache)
{
	return cache->answered_fd;
}

/* With the lock held: the answer into meta, or why there is none. */
static int take_answer(struct pod_labels_entry *entry, struct container_meta *meta, char *err,
		       size_t errlen)
{
	struct meta_pair *labels = NULL, *annotations = NULL;
	size_t n_labels = 0, n_annotations = 0;
	int ret;

	if (entry->state == POD_LABELS_FAILED) {
		snprintf(err, errlen, "%s", entry->error);
		clear_entry(entry);
		return -EIO;
	}
	ret = copy_pairs(entry->labels, entry->n_labels, &labels, &n_labels);
	if (ret == 0)
		ret = copy_pairs(entry->annotations, entry->n_annotations, &annotations,
				 &n_annotations);
	if (ret) {
		meta_pairs_free(labels, n_labels);
		meta_pairs_free(annotations, n_annotations);
		snprintf(err, errlen, "pod labels: %s", strerror(-ret));
		return ret;
	}
	container_meta_set_pod_labels(meta, labels, n_labels, annotations, n_annotations);
	return 0;
}

int pod_label_cache_get(struct pod_label_cache *cache, const char *sandbox_id, bool wait,
			struct container_meta *meta, char *err, size_t errlen)
{
	struct pod_labels_entry *entry;
	int ret;

	pthread_mutex_lock(&cache->lock);
	entry = find_entry(cache, sandbox_id);
	if (entry && entry->prefetched && entry->state == POD_LABELS_FAILED)
		clear_entry(entry);
	entry = ask(cache, sandbox_id);
	if (entry)
		entry->prefetched = false;
	while (wait && entry &&
	       (entry->state == POD_LABELS_QUEUED || entry->state == POD_LABELS_ASKING))
		pthread_cond_wait(&cache->answered, &cache->lock);
	if (!entry) {
		snprintf(err, errlen, "%d pods' labels asked for already", POD_LABEL_CACHE_SIZE);
		ret = -EAGAIN;
	} else if (entry->state == POD_LABELS_QUEUED || entry->state == POD_LABELS_ASKING) {
		ret = -EINPROGRESS;
	} else {
		ret = take_answer(entry, meta, err, errlen);
	}
	pthread_mutex_unlock(&cache->lock);
	return ret;
}

void pod_label_cache_prefetch(struct pod_label_cache *cache, const char *sandbox_id)
{
	struct pod_labels_entry *entry;

	pthread_mutex_lock(&cache->lock);
	if (!find_entry(cache, sandbox_id) && (entry = ask(cache, sandbox_id)))
		entry->prefetched = true;
	pthread_mutex_unlock(&cache->lock);
}

bool pod_label_cache_answered(struct pod_label_cache *cache)
{
	eventfd_t count;

	return eventfd_read(cache->answered_fd, &count) == 0;
}

void pod_label_cache_close(struct pod_label_cache *cache)
{
	if (cache->started) {
		pthread_mutex_lock(&cache->lock);
		cache->stopping = true;
		pthread_cond_signal(&cache->queued);
		pthread_mutex_unlock(&cache->lock);
		pthread_join(cache->thread, NULL);
		cache->started = false;
	}
	for (size_t i = 0; i < POD_LABEL_CACHE_SIZE; i++)
		clear_entry(&cache->entries[i]);
	if (cache->answered_fd >= 0)
		close(cache->answered_fd);
	cache->answered_fd = -1;
}
