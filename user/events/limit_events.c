// SPDX-License-Identifier: GPL-2.0
/* A run's limits hit, as typed events (limit_events.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/inotify.h>

#include "limit_events.h"

static const char *const event_files[LIMIT_EVENT_FILES] = {
    [LIMIT_MEMORY_EVENTS] = "memory.events",
    [LIMIT_PIDS_EVENTS] = "pids.events",
};

/* The value of key in a flat-keyed cgroup file open at fd ("key value" lines); 0 when absent. */
static __u64 read_key_fd(int fd, const char *key)
{
	char text[1024], *line, *next;
	size_t len = strlen(key);
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, key, len) == 0 && line[len] == ' ')
			return strtoull(line + len + 1, NULL, 10);
	}
	return 0;
}

/* The same, of the file name in dir. */
static __u64 read_key(const char *dir, const char *name, const char *key)
{
	char path[PATH_MAX + 32];
	__u64 value;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	value = read_key_fd(fd, key);
	close(fd);
	return value;
}

/* Its own descriptor: each .events file that exists, in an epoll woken by its changes. */
static int watch_own(struct limit_watch *w)
{
	char path[PATH_MAX + 32];
	int watched = 0;

	w->notify_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->notify_fd < 0)
		return -errno;
	for (int i = 0; i < LIMIT_EVENT_FILES; i++) {
		struct epoll_event ev = {.events = EPOLLPRI};

		snprintf(path, sizeof(path), "%s/%s", w->dir, event_files[i]);
		w->files[i] = open(path, O_RDONLY | O_CLOEXEC);
		watched += w->files[i] >= 0 &&
			   epoll_ctl(w->notify_fd, EPOLL_CTL_ADD, w->files[i], &ev) == 0;
	}
	if (watched == 0) {
		close(w->notify_fd);
		w->notify_fd = -1;
	}
	return 0;
}

/*
 * The agent's descriptor: a watch on each .events file that exists. A file
 * that does not is never read: a controller is the run's from its cgroup's
 * making, or never (on each of its wake-ups, the agent reads every run's).
 */
static void watch_shared(struct limit_watch *w)
{
	char path[PATH_MAX + 32];
	int watched = 0;

	for (int i = 0; i < LIMIT_EVENT_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->dir, event_files[i]);
		w->wds[i] = inotify_add_watch(w->notify_fd, path, IN_MODIFY);
		watched += w->wds[i] >= 0;
	}
	if (watched == 0)
		w->notify_fd = -1;
}

int limit_watch_open(struct limit_watch *w, const char *dir, const char *cgroup, long long uid,
		     bool cpu_limited, int inotify_fd)
{
	*w = (struct limit_watch){.notify_fd = inotify_fd,
				  .owns_fd = inotify_fd < 0,
				  .files = {-1, -1},
				  .wds = {-1, -1},
				  .uid = uid,
				  .cpu_limited = cpu_limited};
	json_init(&w->line);
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(w->cgroup, sizeof(w->cgroup), "%s", cgroup);
	if (w->owns_fd)
		return watch_own(w);
	watch_shared(w);
	return 0;
}

int limit_watch_fd(const struct limit_watch *w)
{
	return w->owns_fd ? w->notify_fd : -1;
}

bool limit_watch_has(const struct limit_watch *w, int wd)
{
	for (int i = 0; i < LIMIT_EVENT_FILES; i++) {
		if (w->wds[i] >= 0 && w->wds[i] == wd)
			return true;
	}
	return false;
}

/* A counter of one of the .events files, through its own descriptor if it has one. */
static __u64 event_counter(const struct limit_watch *w, int file, const char *key)
{
	if (w->files[file] >= 0)
		return read_key_fd(w->files[file], key);
	return w->wds[file] >= 0 ? read_key(w->dir, event_files[file], key) : 0;
}

/* A line's first members: when, which limit, what happened, the kernel's count. */
static void begin_hit(struct limit_watch *w, const char *limit, const char *event, __u64 count)
{
	struct timespec now;
	char time[40];

	clock_gettime(CLOCK_REALTIME, &now);
	json_reset(&w->line);
	json_begin(&w->line);
	if (json_format_time(&now, time, sizeof(time)) == 0)
		json_key_cstr(&w->line, "time", time);
	json_key_cstr(&w->line, "op", "limit");
	json_key_cstr(&w->line, "limit", limit);
	json_key_cstr(&w->line, "event", event);
	json_key_u64(&w->line, "count", count);
}

/* Its last members, whose run, and the line written. */
static void end_hit(struct limit_watch *w, FILE *sink)
{
	json_key_cstr(&w->line, "cgroup", w->cgroup);
	if (w->uid >= 0)
		json_key_i64(&w->line, "uid", w->uid);
	json_end(&w->line);
	if (!w->line.failed) {
		fprintf(sink, "%s\n", w->line.data);
		fflush(sink);
	}
}

/* A counter read now: a line, and the increase in *hit, when it grew. */
static void report_counter(struct limit_watch *w, FILE *sink, const char *limit, const char *event,
			   __u64 now, __u64 *reported, __u64 *hit)
{
	if (now <= *reported)
		return;
	if (hit)
		*hit += now - *reported;
	*reported = now;
	begin_hit(w, limit, event, now);
	end_hit(w, sink);
}

/* The .events counters read now. */
static void read_events(const struct limit_watch *w, struct limit_counts *counts)
{
	counts->oom_kill = event_counter(w, LIMIT_MEMORY_EVENTS, "oom_kill");
	counts->pids_max = event_counter(w, LIMIT_PIDS_EVENTS, "max");
}

/* A line for each .events counter of counts that grew. */
static void report_events(struct limit_watch *w, FILE *sink, const struct limit_counts *counts,
			  struct limit_counts *hits)
{
	report_counter(w, sink, "memory", "oom_kill", counts->oom_kill, &w->reported.oom_kill,
		       hits ? &hits->oom_kill : NULL);
	report_counter(w, sink, "pids", "max", counts->pids_max, &w->reported.pids_max,
		       hits ? &hits->pids_max : NULL);
}

void limit_watch_report(struct limit_watch *w, FILE *sink, struct limit_counts *hits)
{
	struct epoll_event ready[LIMIT_EVENT_FILES];
	struct limit_counts now;

	if (w->notify_fd < 0)
		return;
	/* Its own: the files are read only when the kernel said one changed (reading re-arms it).
	 */
	if (w->owns_fd && epoll_wait(w->notify_fd, ready, LIMIT_EVENT_FILES, 0) <= 0)
		return;
	read_events(w, &now);
	report_events(w, sink, &now, hits);
}

void limit_watch_read_final(struct limit_watch *w, struct limit_final *final)
{
	char path[PATH_MAX + 16];
	int fd;

	*final = (struct limit_final){0};
	if (w->notify_fd >= 0)
		read_events(w, &final->counts);
	if (!w->cpu_limited)
		return;
	snprintf(path, sizeof(path), "%s/cpu.stat", w->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	final->counts.cpu_throttled = read_key_fd(fd, "nr_throttled");
	final->throttled_usec = read_key_fd(fd, "throttled_usec");
	final->usage_usec = read_key_fd(fd, "usage_usec");
	close(fd);
}

void limit_watch_report_final(struct limit_watch *w, FILE *sink, const struct limit_final *final,
			      struct limit_counts *hits)
{
	__u64 throttled = final->counts.cpu_throttled;

	report_events(w, sink, &final->counts, hits);
	if (throttled <= w->reported.cpu_throttled)
		return;
	if (hits)
		hits->cpu_throttled += throttled - w->reported.cpu_throttled;
	w->reported.cpu_throttled = throttled;
	begin_hit(w, "cpu", "throttled", throttled);
	json_key_u64(&w->line, "throttled_usec", final->throttled_usec);
	json_key_u64(&w->line, "usage_usec", final->usage_usec);
	end_hit(w, sink);
}

void limit_watch_end(struct limit_watch *w, FILE *sink, struct limit_counts *hits)
{
	struct limit_final final;

	limit_watch_read_final(w, &final);
	limit_watch_report_final(w, sink, &final, hits);
}

void limit_watch_unwatch(struct limit_watch *w)
{
	for (int i = 0; w->owns_fd && i < LIMIT_EVENT_FILES; i++) {
		if (w->files[i] >= 0)
			close(w->files[i]);
		w->files[i] = -1;
	}
	if (w->owns_fd && w->notify_fd >= 0)
		close(w->notify_fd);
	w->notify_fd = -1;
}

void limit_watch_close(struct limit_watch *w)
{
	limit_watch_unwatch(w);
	json_free(&w->line);
}
