/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgward agent --metrics: the Prometheus text format at /metrics, served by
 * libevent's HTTP server from its own thread. The agent publishes what only it knows
 * (its rules, the cgroups it bound, events lost, reloads) from its loop; a
 * scrape adds the kernel's per-policy counters and the pinned links, read
 * from bpffs at that moment, so the counts are exact whenever it is read.
 */
#ifndef CGWARD_METRICS_H
#define CGWARD_METRICS_H

#include <stddef.h>
#include <sys/socket.h>
#include <linux/types.h>

#include "agent_tree.h"
#include "limit_events.h"

/* Where `--metrics PORT` listens: scrapes from other hosts need an address given. */
#define METRICS_DEFAULT_ADDRESS "127.0.0.1"

enum metrics_reload_result {
	METRICS_RELOAD_OK,
	METRICS_RELOAD_INVALID,
	METRICS_RELOAD_ERROR,
	METRICS_RELOAD_RESULTS,
};

/* One rule of the policy in force, under its policy id in the maps. */
struct metrics_policy {
	char name[CGWARD_POLICY_NAME_LEN];
	__u32 policy_id;
	__u64 cgroups_bound;
	__u64 denied, audited; /* the kernel's counters in policy_info */
};

struct metrics_snapshot {
	const char *version;
	struct cgward_plane_info build; /* this cgward's BPF programs */
	struct cgward_plane_info plane; /* the plane pinned; abi_version 0 when none is */
	const char *policy_file;
	char policy_sha256[POLICY_SHA256_SIZE]; /* of the policy in force; empty before one is */
	struct metrics_policy *policies;
	size_t n_policies;
	__u64 events_lost;
	__u64 reloads[METRICS_RELOAD_RESULTS];
	struct limit_counts limit_hits; /* of the runs through the exec socket */
	int programs_attached;
};

/* The Prometheus text exposition (format 0.0.4) of s, malloc'd; NULL when out of memory. */
char *metrics_render(const struct metrics_snapshot *s, size_t *len);

/*
 * ADDR:PORT, [ADDR6]:PORT or PORT alone (on METRICS_DEFAULT_ADDRESS), into
 * addr. Returns 0, or -EINVAL with the reason in err.
 */
int metrics_parse_address(const char *spec, struct sockaddr_storage *addr, char *err,
			  size_t errlen);

struct metrics_server;

/* Listens on spec; policy_info_fd and bpffs are read at each scrape. */
int metrics_start(struct metrics_server **server, const char *spec, int policy_info_fd,
		  const char *bpffs, const char *policy_file, char *err, size_t errlen);
/*
 * The agent's side of the next scrapes: the policy in force and its rules,
 * the cgroups it bound, lost events, reloads, its runs' limits hit.
 */
void metrics_publish(struct metrics_server *server, const struct agent_tree *tree,
		     __u64 events_lost, const __u64 reloads[METRICS_RELOAD_RESULTS],
		     const struct limit_counts *limit_hits);
/* Stops serving (waiting for a scrape in progress) and frees server; NULL is a no-op. */
void metrics_stop(struct metrics_server *server);

#endif
