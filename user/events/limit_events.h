/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's limits, reported when the kernel says one was hit: the counters
 * of its cgroup's memory.events ("oom_kill") and pids.events ("max"),
 * watched with inotify (cgroupfs notifies each change: nothing is polled),
 * and cpu.stat's throttling at the run's end. Each is a typed JSON line:
 * {"time","op":"limit","limit":"memory","event":"oom_kill","count":N,
 * "cgroup"} (docs/events.md).
 */
#ifndef CGWARD_LIMIT_EVENTS_H
#define CGWARD_LIMIT_EVENTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "json.h"

/* How often each limit was hit: by the kernel's counters, or newly since a report. */
struct limit_counts {
	__u64 oom_kill;	     /* memory.events: processes the OOM killer killed */
	__u64 pids_max;	     /* pids.events: forks refused at pids.max */
	__u64 cpu_throttled; /* cpu.stat nr_throttled: periods that ran out of quota */
};

/* A run's counters at its end, as the agent reads them for its caller too. */
struct limit_final {
	struct limit_counts counts;
	__u64 throttled_usec, usage_usec; /* cpu.stat, with counts.cpu_throttled */
};

/* The .events files watched, in struct limit_watch's files. */
enum { LIMIT_MEMORY_EVENTS, LIMIT_PIDS_EVENTS, LIMIT_EVENT_FILES };

struct limit_watch {
	/*
	 * Its own: an epoll of the .events files, which cgroupfs wakes with
	 * EPOLLPRI on each change (an inotify instance would cost its closer
	 * an SRCU grace period once the cgroup is gone). Shared: the agent's
	 * inotify descriptor, which has a watch on each. -1 when neither file
	 * exists (no controller in the run's cgroup): nothing is read then.
	 */
	int notify_fd;
	bool owns_fd;
	int files[LIMIT_EVENT_FILES]; /* its own: the .events files, read with pread; -1 */
	int wds[LIMIT_EVENT_FILES];   /* shared: their watches on the agent's descriptor; -1 */
	char dir[PATH_MAX];	      /* the run's cgroup2 directory */
	char cgroup[PATH_MAX];	      /* the same, as events name it */
	long long uid;		      /* the run's owner, in the agent's lines; -1: none */
	bool cpu_limited; /* it has a cpu.max of its own: its cpu.stat is read at the end */
	struct limit_counts reported;
	struct json_buf line;
};

/*
 * Watches dir (named cgroup in the events): with a descriptor of its own
 * when inotify_fd is -1, else with watches on inotify_fd (the agent's, for
 * all its runs: it reports every run's on each of its wake-ups). Returns 0
 * or -errno.
 */
int limit_watch_open(struct limit_watch *w, const char *dir, const char *cgroup, long long uid,
		     bool cpu_limited, int inotify_fd);

/* Its own descriptor: readable when a watched counter may have changed; -1 when none. */
int limit_watch_fd(const struct limit_watch *w);

/* Shared: whether wd, of an event on the agent's descriptor, is one of its watches. */
bool limit_watch_has(const struct limit_watch *w, int wd);

/*
 * Reads the watched counters and writes a line to sink for each that grew
 * since the last report; the increases are added to *hits when hits is not
 * NULL. With a descriptor of its own, only when it says one changed; shared,
 * when its caller saw one of its watches in an event (limit_watch_has).
 */
void limit_watch_report(struct limit_watch *w, FILE *sink, struct limit_counts *hits);

/*
 * At the run's end, before its cgroup is removed: its counters read into
 * *final, notified or not (cgroupfs delays a notification that follows
 * another within 20 ms: an OOM kill after memory.max was hit), cpu.stat's
 * for a run with a cpu.max of its own.
 */
void limit_watch_read_final(struct limit_watch *w, struct limit_final *final);

/*
 * The lines for what grew by *final (read here, or by the agent, which
 * removes a socket run's cgroup): the counters' and, when cpu.max held the
 * run back, a "cpu" "throttled" one (throttled_usec, usage_usec).
 */
void limit_watch_report_final(struct limit_watch *w, FILE *sink, const struct limit_final *final,
			      struct limit_counts *hits);

/* Both, for a run whose cgroup is read here. */
void limit_watch_end(struct limit_watch *w, FILE *sink, struct limit_counts *hits);

/*
 * Stops watching: closes its own descriptors, keeping what it reported for
 * limit_watch_report_final: before the run's cgroup is removed, which
 * has to drain the files of it still open first.
 */
void limit_watch_unwatch(struct limit_watch *w);

void limit_watch_close(struct limit_watch *w);

#endif
