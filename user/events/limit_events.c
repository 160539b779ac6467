// SPDX-License-Identifier: GPL-2.0
/* A run's limits hit, as typed events (limit_events.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "limit_events.h"

/* The value of key in a flat-keyed cgroup file ("key value" lines); 0 when absent. */
static __u64 read_key(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 32], name[64];
	unsigned long long value, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", name, &value) == 2) {
		if (strcmp(name, key) == 0) {
			found = value;
			break;
		}
	}
	fclose(f);
	return found;
}

static void watch_file(struct limit_watch *w, const char *file, int *watched)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", w->dir, file);
	*watched += inotify_add_watch(w->inotify_fd, path, IN_MODIFY) >= 0;
}

int limit_watch_open(struct limit_watch *w, const char *dir, const char *cgroup, long long uid,
		     bool cpu_limited, int inotify_fd)
{
	int watched = 0;

	*w = (struct limit_watch){.uid = uid,
				  .cpu_limited = cpu_limited,
				  .inotify_fd = inotify_fd,
				  .owns_fd = inotify_fd < 0};
	json_init(&w->line);
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(w->cgroup, sizeof(w->cgroup), "%s", cgroup);
	if (w->owns_fd)
		w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->inotify_fd < 0)
		return -errno;
	watch_file(w, "memory.events", &watched);
	watch_file(w, "pids.events", &watched);
	if (watched == 0 && w->owns_fd) {
		close(w->inotify_fd);
		w->inotify_fd = -1;
	}
	return 0;
}

int limit_watch_fd(const struct limit_watch *w)
{
	return w->owns_fd ? w->inotify_fd : -1;
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

void limit_watch_report(struct limit_watch *w, FILE *sink, struct limit_counts *hits)
{
	char drained[4096];

	bool changed = !w->owns_fd;

	if (w->inotify_fd < 0)
		return;
	while (w->owns_fd && read(w->inotify_fd, drained, sizeof(drained)) > 0)
		changed = true;
	if (!changed)
		return; /* the files are read only when the kernel said one changed */
	report_counter(w, sink, "memory", "oom_kill", read_key(w->dir, "memory.events", "oom_kill"),
		       &w->reported.oom_kill, hits ? &hits->oom_kill : NULL);
	report_counter(w, sink, "pids", "max", read_key(w->dir, "pids.events", "max"),
		       &w->reported.pids_max, hits ? &hits->pids_max : NULL);
}

void limit_watch_end(struct limit_watch *w, FILE *sink, struct limit_counts *hits)
{
	__u64 throttled;

	limit_watch_report(w, sink, hits);
	if (!w->cpu_limited)
		return;
	throttled = read_key(w->dir, "cpu.stat", "nr_throttled");
	if (throttled <= w->reported.cpu_throttled)
		return;
	if (hits)
		hits->cpu_throttled += throttled - w->reported.cpu_throttled;
	w->reported.cpu_throttled = throttled;
	begin_hit(w, "cpu", "throttled", throttled);
	json_key_u64(&w->line, "throttled_usec", read_key(w->dir, "cpu.stat", "throttled_usec"));
	json_key_u64(&w->line, "usage_usec", read_key(w->dir, "cpu.stat", "usage_usec"));
	end_hit(w, sink);
}

void limit_watch_close(struct limit_watch *w)
{
	if (w->owns_fd && w->inotify_fd >= 0)
		close(w->inotify_fd);
	w->inotify_fd = -1;
	json_free(&w->line);
}
