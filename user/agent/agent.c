// SPDX-License-Identifier: GPL-2.0
/*
 * cgward agent: adopts the enforcement plane (or loads and pins it),
 * applies the policy file to every cgroup and to each new one, reloads it
 * live, and streams every deny event of the host. Enforcement outlives the
 * agent; only `cgward unload` ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include "agent.h"
#include "agent_tree.h"
#include "cgroup.h"
#include "clock.h"
#include "event_socket.h"
#include "event_stream.h"
#include "events.h"
#include "exec_socket.h"
#include "exit_codes.h"
#include "gc.h"
#include "json.h"
#include "metrics.h"
#include "plane.h"
#include "pod_label_cache.h"
#include "policy.h"
#include "policy_maps.h"
#include "wait_loop.h"

/* What the agent holds, released by agent_cleanup(). */
struct agent {
	struct agent_options opt;
	struct policy_set set; /* in force */
	struct plane plane;
	bool plane_open;
	struct policy_maps maps;
	struct agent_tree tree;
	struct pod_label_cache *pod_labels; /* asked of the CRI socket off the loop */
	__u32 next_id; /* ids below are or were live in the maps: never reused */
	struct event_context ctx;
	struct event_stream events;
	bool events_open;
	__u32 policy_first_id;	    /* the ids of the rules in force, from it on */
	__u64 events_lost_recorded; /* events.lost_reported, as last written in the plane */
	FILE *sink;
	int events_fd; /* --events FILE, or -1 */
	struct event_socket socket;
	bool socket_open;
	struct exec_service exec; /* confines commands for users who are not root */
	bool exec_open;
	int policy_watch_fd;
	int policy_dir_wd;		       /* the policy file's directory */
	int policy_target_wd;		       /* the directory of the file it resolves to, or -1 */
	char policy_target_name[NAME_MAX + 1]; /* that file's name in it */
	/* The content last read, valid or not: only another one is reloaded. */
	char policy_seen_sha256[POLICY_SHA256_SIZE];
	int gc_timer_fd;    /* the policies of killed execs are collected on each tick */
	int retry_timer_fd; /* when the next unresolved container is tried again */
	int signal_fd;
	int epoll_fd;
	struct json_buf line;
	struct cgroup_layout layout;
	struct metrics_server *metrics; /* NULL without --metrics */
	__u64 reloads[METRICS_RELOAD_RESULTS];
};

/* A policy holds an open descriptor per root: far more than a soft limit of 1024. */
static void raise_open_file_limit(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		setrlimit(RLIMIT_NOFILE, &limit);
	}
}

/*
 * Gives the free heap back to the kernel. Loading the plane (libbpf parses
 * the kernel's BTF) and a policy leave megabytes of it, whose page tables
 * each fork of a spawned run's supervisor would copy, and whose pages the
 * agent would then copy on its next write to them.
 */
static void trim_heap(void)
{
	malloc_trim(0);
}

/* Reads the policy file; an error is printed, and kept in err. */
static int read_policy(const char *path, struct policy_file *file, char *err, size_t errlen)
{
	int ret = policy_file_read(path, file);

	if (ret) {
		fprintf(stderr, "cgward: %s: %s\n", path, strerror(-ret));
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	}
	return ret;
}

/* Parses the file read from path; every error is printed, the first one kept in first_error. */
static int parse_policy(const char *path, const struct policy_file *file, struct policy_set *set,
			char *first_error, size_t errlen, size_t *n_errors)
{
	struct policy_diags diags;
	int ret = policy_parse(file, set, &diags);

	first_error[0] = '\0';
	*n_errors = diags.n;
	for (size_t i = 0; i < diags.n; i++) {
		fprintf(stderr, "%s:%d:%d: error: %s\n", path, diags.items[i].line,
			diags.items[i].column, diags.items[i].message);
		if (i == 0)
			snprintf(first_error, errlen, "%s:%d:%d: error: %s", path,
				 diags.items[i].line, diags.items[i].column,
				 diags.items[i].message);
	}
	if (ret && ret != -EINVAL) {
		fprintf(stderr, "cgward: %s: %s\n", path, strerror(-ret));
		snprintf(first_error, errlen, "%s: %s", path, strerror(-ret));
	}
	policy_diags_free(&diags);
	return ret;
}

/*
 * Pod labels come from CRI-O's bundles, or from the CRI runtime's socket
 * (containerd's bundles carry none): a policy that selects by them with
 * neither would select nothing, so it is refused instead.
 */
static int check_label_source(const struct agent *a, const struct policy_set *set, char *err,
			      size_t errlen)
{
	struct stat st;

	for (size_t i = 0; i < set->n_rules; i++) {
		if (!set->rules[i].kubernetes.pod_labels.n)
			continue;
		if (stat(a->opt.cri_socket, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		for (size_t d = 0; d < a->opt.n_bundle_dirs; d++) {
			if (strstr(a->opt.bundle_dirs[d], "/containers/storage/"))
				return 0;
		}
		snprintf(err, errlen,
			 "%s: policy '%s' selects by pod_labels, which needs a label source: no "
			 "CRI socket at %s (--cri-socket), no CRI-O bundles (--bundles)",
			 a->opt.policy_path, set->rules[i].name, a->opt.cri_socket);
		return -EINVAL;
	}
	return 0;
}

/* Lines go to stdout, to the event socket's subscribers and, with --events, to the file. */
static ssize_t tee_write(void *cookie, const char *buf, size_t len)
{
	struct agent *a = cookie;

	if (fwrite(buf, 1, len, stdout) != len)
		return -1;
	fflush(stdout);
	event_socket_write(&a->socket, buf, len);
	for (size_t done = 0; a->events_fd >= 0 && done < len;) {
		ssize_t n = write(a->events_fd, buf + done, len - done);

		if (n < 0)
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int open_sink(struct agent *a)
{
	cookie_io_functions_t tee = {.write = tee_write};
	char err[PATH_MAX + 128];
	int ret;

	if (a->opt.events_path) {
		a->events_fd =
		    open(a->opt.events_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (a->events_fd < 0) {
			fprintf(stderr, "cgward: --events %s: %s\n", a->opt.events_path,
				strerror(errno));
			return -errno;
		}
	}
	ret = event_socket_open(&a->socket, a->opt.socket_path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cgward: agent: %s\n", err);
		return ret;
	}
	a->socket_open = true;
	a->sink = fopencookie(a, "a", tee);
	if (!a->sink) {
		fprintf(stderr, "cgward: agent: %s\n", strerror(errno));
		return -errno;
	}
	setvbuf(a->sink, NULL, _IOLBF, 0);
	return 0;
}

static void name_event(const struct cgward_event *e, struct event_context *names, void *arg)
{
	const struct agent *a = arg;
	const struct agent_cgroup *cg = agent_tree_find(&a->tree, e->cgroup_id);
	__u32 rule = e->policy_id - a->tree.first_id;

	if (cg) {
		names->cgroup_path = cg->path;
		names->k8s_namespace = cg->k8s_namespace;
		names->pod_name = cg->pod_name;
		names->container_name = cg->container_name;
	} else {
		names->cgroup_path = exec_service_run_cgroup(&a->exec, e->cgroup_id);
	}
	if (e->policy_id >= CGWARD_EXEC_POLICY_MIN)
		names->policy_name = "exec";
	else if (e->policy_id >= a->tree.first_id && rule == a->set.n_rules)
		names->policy_name = AGENT_UNRESOLVED_NAME;
	else if (e->policy_id >= a->tree.first_id && rule < a->set.n_rules) {
		names->policy_name = a->set.rules[rule].name;
		names->roots = a->set.rules[rule].roots;
		names->n_roots = a->set.rules[rule].n_roots;
	}
}

/*
 * What cgward status shows as in force, and the losses reported so far.
 * Enforcement does not depend on it: a failure is only reported.
 */
static void record_policy(struct agent *a)
{
	struct plane_agent_policy record = {.first_id = a->policy_first_id,
					    .n_rules = (__u32)a->set.n_rules,
					    .events_lost_reported = a->events.lost_reported};
	int ret;

	a->events_lost_recorded = record.events_lost_reported;
	snprintf(record.sha256, sizeof(record.sha256), "%s", a->set.sha256);
	snprintf(record.path, sizeof(record.path), "%s", a->opt.policy_path);
	ret = plane_put_agent_policy(a->opt.bpffs, &record);
	if (ret)
		fprintf(stderr, "cgward: agent: cannot record the policy in force under %s: %s\n",
			a->opt.bpffs, strerror(-ret));
}

/* The deny events so far; a new loss reported is recorded in the plane. */
static void drain_events(struct agent *a)
{
	event_stream_drain(&a->events);
	if (a->events.lost_reported != a->events_lost_recorded)
		record_policy(a);
}

/*
 * Losses an agent before this one reported are not reported again: the
 * kernel counts from the plane's load (a plane of a build before the
 * record's layout: from there).
 */
static void resume_lost_count(struct agent *a)
{
	struct plane_agent_policy record;

	if (plane_get_agent_policy(a->opt.bpffs, &record) == 0)
		a->events.lost_reported = record.events_lost_reported;
	a->events_lost_recorded = a->events.lost_reported;
}

/*
 * The swap policy_maps.h describes: the new roots under new ids, each
 * cgroup rebound with one map update (old roots or new, never a mix, never
 * none), the cgroups no longer selected unbound, and only then the old
 * roots deleted. On failure the old policy stays in force.
 */
static int install(struct agent *a, struct policy_set *set, char *err, size_t errlen)
{
	__u32 first_id = a->next_id;
	int ret = policy_maps_put_rules(&a->maps, set, first_id, AGENT_UNRESOLVED_NAME);

	if (ret) {
		snprintf(err, errlen, "cannot install the roots: %s", strerror(-ret));
		return ret;
	}
	a->next_id = first_id + (__u32)set->n_rules + 1;
	if (a->events_open)
		drain_events(a); /* named after the policy they came from */
	ret = agent_tree_apply(&a->tree, set, first_id);
	if (ret >= 0)
		ret = agent_tree_read_events(&a->tree, false);
	if (ret < 0) {
		/* Cgroups already rebound keep the new policy: retiring the old is still right. */
		snprintf(err, errlen, "cannot bind the cgroups: %s", strerror(-ret));
	}
	policy_set_free(&a->set);
	a->set = *set;
	*set = (struct policy_set){0};
	a->tree.set = &a->set; /* the set moved: new cgroups are matched against it */
	policy_maps_retire(&a->maps, first_id, a->next_id);
	a->policy_first_id = first_id;
	record_policy(a);
	return ret < 0 ? ret : 0;
}

/*
 * sha256 names the policy in force after the reload, which an invalid file
 * leaves as it was (rejected_sha256 names that file); plane_abi and
 * plane_object, the build of the plane pinned.
 */
static void reload_line(struct agent *a, const char *result, const char *error, size_t n_errors,
			const char *rejected_sha256)
{
	struct cgward_plane_info plane;
	struct timespec now;
	char time[64], object[17];

	clock_gettime(CLOCK_REALTIME, &now);
	json_reset(&a->line);
	json_begin(&a->line);
	if (json_format_time(&now, time, sizeof(time)) == 0)
		json_key_cstr(&a->line, "time", time);
	json_key_cstr(&a->line, "op", "reload");
	json_key_cstr(&a->line, "result", result);
	json_key_cstr(&a->line, "policy_file", a->opt.policy_path);
	json_key_cstr(&a->line, "sha256", a->set.sha256);
	if (rejected_sha256 && rejected_sha256[0])
		json_key_cstr(&a->line, "rejected_sha256", rejected_sha256);
	if (error) {
		json_key_u64(&a->line, "errors", n_errors);
		json_key_cstr(&a->line, "error", error);
	} else {
		json_key_u64(&a->line, "rules", a->set.n_rules);
		json_key_u64(&a->line, "cgroups", a->tree.n_cgroups);
	}
	if (plane_read_info(a->opt.bpffs, &plane) == 0) {
		snprintf(object, sizeof(object), "%016llx", (unsigned long long)plane.object_hash);
		json_key_u64(&a->line, "plane_abi", plane.abi_version);
		json_key_cstr(&a->line, "plane_object", object);
	}
	json_end(&a->line);
	if (!a->line.failed) {
		fprintf(a->sink, "%.*s\n", (int)a->line.len, a->line.data);
		fflush(a->sink);
	}
}

/* The file is rejected: reported, and the policy in force stays. */
static void reject(struct agent *a, const char *error, size_t n_errors, const char *rejected_sha256)
{
	a->reloads[METRICS_RELOAD_INVALID]++;
	fprintf(stderr, "cgward: agent: %s is invalid: the policy in force stays\n",
		a->opt.policy_path);
	reload_line(a, "invalid", error, n_errors, rejected_sha256);
}

static void reload(struct agent *a, const struct policy_file *file)
{
	struct policy_set set;
	char err[PATH_MAX + 512];
	size_t n_errors;
	int ret;

	memcpy(a->policy_seen_sha256, file->sha256, sizeof(a->policy_seen_sha256));
	ret = parse_policy(a->opt.policy_path, file, &set, err, sizeof(err), &n_errors);
	if (ret) {
		reject(a, err, n_errors ? n_errors : 1, file->sha256);
		return;
	}
	if (check_label_source(a, &set, err, sizeof(err))) {
		policy_set_free(&set);
		fprintf(stderr, "cgward: agent: %s\n", err);
		reject(a, err, 1, file->sha256);
		return;
	}
	ret = install(a, &set, err, sizeof(err));
	policy_set_free(&set);
	if (ret) {
		a->reloads[METRICS_RELOAD_ERROR]++;
		fprintf(stderr, "cgward: agent: reload: %s\n", err);
		reload_line(a, "error", err, 1, NULL);
		return;
	}
	a->reloads[METRICS_RELOAD_OK]++;
	trim_heap();
	fprintf(stderr, "cgward: agent: reloaded %s: %zu rules, %zu cgroups bound\n",
		a->opt.policy_path, a->set.n_rules, a->tree.n_cgroups);
	reload_line(a, "ok", NULL, 0, NULL);
}

/* SIGHUP: whatever the file holds now, changed or not. */
static void reload_on_signal(struct agent *a)
{
	struct policy_file file = {0};
	char err[PATH_MAX + 128];

	if (read_policy(a->opt.policy_path, &file, err, sizeof(err)) == 0)
		reload(a, &file);
	else
		reject(a, err, 1, NULL);
	policy_file_free(&file);
}

/*
 * The policy file is watched through its directory and through the
 * directory of the file it resolves to. Editors replace it by rename; the
 * kubelet updates a ConfigMap volume by renaming a new ..data symlink over
 * the old one (the file is a symlink through ..data), an event that does
 * not name the file. So a rename of anything in either directory, or a
 * write of the file itself, has the file read again, and reloaded when its
 * content is not the content last read. A write of another file is not
 * looked at: the policy file could be read while written in place.
 */
#define POLICY_WATCH_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO)

/* Aims the second watch at the directory the file now resolves to. */
static void watch_policy_target(struct agent *a)
{
	char target[PATH_MAX];
	int wd;

	if (!realpath(a->opt.policy_path, target))
		return; /* being replaced: the replacement's event aims it */
	snprintf(a->policy_target_name, sizeof(a->policy_target_name), "%s", basename(target));
	wd = inotify_add_watch(a->policy_watch_fd, dirname(target), POLICY_WATCH_EVENTS);
	if (wd == a->policy_target_wd)
		return;
	/* Already gone with its directory, as the kubelet's old ..<timestamp>. */
	if (a->policy_target_wd >= 0 && a->policy_target_wd != a->policy_dir_wd)
		inotify_rm_watch(a->policy_watch_fd, a->policy_target_wd);
	a->policy_target_wd = wd;
}

static int watch_policy_file(struct agent *a)
{
	char copy[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", a->opt.policy_path);
	a->policy_watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (a->policy_watch_fd < 0)
		return -errno;
	a->policy_dir_wd =
	    inotify_add_watch(a->policy_watch_fd, dirname(copy), POLICY_WATCH_EVENTS);
	if (a->policy_dir_wd < 0)
		return -errno;
	watch_policy_target(a);
	return 0;
}

/* Whether an event may have changed what the policy path resolves to. */
static bool policy_event(const struct agent *a, const struct inotify_event *ev, const char *name)
{
	if (ev->mask & (IN_MOVED_TO | IN_Q_OVERFLOW))
		return true;
	return ev->len &&
	       (strcmp(ev->name, name) == 0 || strcmp(ev->name, a->policy_target_name) == 0);
}

/* After events in the watched directories: file holds the content when it changed. */
static bool policy_file_changed(struct agent *a, struct policy_file *file)
{
	char buf[16 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	char copy[PATH_MAX];
	const char *name;
	bool candidate = false;
	ssize_t len;

	snprintf(copy, sizeof(copy), "%s", a->opt.policy_path);
	name = basename(copy);
	while ((len = read(a->policy_watch_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			candidate |= policy_event(a, ev, name);
			p += sizeof(*ev) + ev->len;
		}
	}
	if (!candidate)
		return false;
	watch_policy_target(a);
	/* Unreadable, as while a non-atomic writer replaces it: its next event tells. */
	if (policy_file_read(a->opt.policy_path, file))
		return false;
	if (strcmp(file->sha256, a->policy_seen_sha256) == 0) {
		policy_file_free(file);
		return false;
	}
	return true;
}

static int block_signals(struct agent *a)
{
	sigset_t handled;
	int ret;

	sigemptyset(&handled);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	ret = wait_loop_signal_fd(&handled, NULL);
	if (ret < 0)
		return ret;
	a->signal_fd = ret;
	return 0;
}

#define GC_INTERVAL_S 60

static int start_gc_timer(struct agent *a)
{
	struct itimerspec every = {.it_interval.tv_sec = GC_INTERVAL_S,
				   .it_value.tv_sec = GC_INTERVAL_S};

	a->gc_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (a->gc_timer_fd < 0 || timerfd_settime(a->gc_timer_fd, 0, &every, NULL))
		return -errno;
	return 0;
}

/*
 * A pod's labels are asked for while its container is being set up: not for
 * long. The call holds only the label cache's thread, never the loop.
 */
#define CRI_TIMEOUT_MS 2000

/*
 * The CRI's thread, started once signals are blocked: they stay for the
 * loop's signalfd.
 */
static int start_pod_labels(struct agent *a)
{
	int ret;

	a->pod_labels = calloc(1, sizeof(*a->pod_labels));
	if (!a->pod_labels)
		return -ENOMEM;
	ret = pod_label_cache_open(a->pod_labels, a->opt.cri_socket, CRI_TIMEOUT_MS);
	if (ret) {
		free(a->pod_labels);
		a->pod_labels = NULL;
		return ret;
	}
	a->tree.pod_labels = a->pod_labels;
	return 0;
}

/* The unresolved containers due are tried again; the timer set for the next. */
static void retry_unresolved(struct agent *a)
{
	struct itimerspec at = {0};
	__u64 ticks, next;

	if (read(a->retry_timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	next = agent_tree_retry_unresolved(&a->tree, monotonic_ms());
	at.it_value.tv_sec = (time_t)(next / 1000);
	at.it_value.tv_nsec = (long)(next % 1000) * 1000000;
	/* 0: disarmed. */
	timerfd_settime(a->retry_timer_fd, TFD_TIMER_ABSTIME, &at, NULL);
}

/*
 * On each tick, what `cgward gc` removes: the empty cgroups of execs that
 * were killed, then their policies. Whether it ticked.
 */
static bool collect_garbage(struct agent *a)
{
	__u64 ticks;

	if (read(a->gc_timer_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return false;
	cgroup_gc(&a->layout, NULL, false, stderr);
	if (exec_policies_gc(&a->maps, stderr) < 0)
		fprintf(stderr, "cgward: agent: cannot collect exec policies\n");
	return true;
}

/*
 * Whether the maps this agent writes are still the pinned plane's. After a
 * migration by another build (cgward load of a new release by hand), or an
 * unload, its bindings would reach no program: it exits then, so that its
 * service starts it again on the plane in force.
 */
static bool plane_still_pinned(struct agent *a)
{
	const char *name = plane_superseded_map(a->opt.bpffs, &a->plane);

	if (!name)
		return true;
	fprintf(stderr,
		"cgward: agent: the map %s pinned under %s is no longer the one this agent "
		"writes (another build migrated the plane, or it was unloaded): exiting, to be "
		"started again on the plane in force\n",
		name, a->opt.bpffs);
	return false;
}

/*
 * The exec socket, as the policy file (read at start) or --exec-socket sets
 * it; the runs an earlier agent left are adopted.
 */
static int start_exec_service(struct agent *a)
{
	struct exec_socket_config config = a->set.exec_socket;
	char err[PATH_MAX + 128];
	int ret;

	if (a->opt.exec_socket)
		snprintf(config.path, sizeof(config.path), "%s",
			 strcmp(a->opt.exec_socket, "off") ? a->opt.exec_socket : "");
	ret = exec_service_open(&a->exec, &config, a->opt.bpffs, &a->maps, &a->layout, &a->tree,
				a->sink, err, sizeof(err));
	a->exec_open = true; /* closes what was opened, even on failure */
	if (ret) {
		fprintf(stderr, "cgward: agent: %s\n", err);
		return ret;
	}
	exec_service_adopt(&a->exec);
	if (config.path[0])
		fprintf(stderr,
			"cgward: agent: confining cgward exec runs of other users, asked "
			"on %s\n",
			config.path);
	return 0;
}

/* The plane adopted or pinned, the policy applied, the watches and events set up. */
static int set_up(struct agent *a)
{
	struct cgroup_layout *layout = &a->layout;
	char err[PATH_MAX + 8192];
	size_t ring_size;
	int ret;

	ret = cgroup_layout_detect("/proc/self/mountinfo", layout);
	if (ret) {
		fprintf(stderr, "cgward: no cgroup2 hierarchy mounted: %s\n", strerror(-ret));
		return ret;
	}
	ret = plane_open(a->opt.bpffs, true, &a->plane, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cgward: %s\n", err);
		return ret;
	}
	a->plane_open = true;
	if (a->plane.upgraded_from)
		fprintf(stderr,
			"cgward: agent: upgraded the plane under %s in place: %d programs of this "
			"build replaced those of object %016llx\n",
			a->opt.bpffs, a->plane.links_attached,
			(unsigned long long)a->plane.upgraded_from);
	else if (a->plane.links_attached)
		fprintf(stderr, "cgward: agent: attached %d programs, pinned under %s\n",
			a->plane.links_attached, a->opt.bpffs);
	else
		fprintf(stderr, "cgward: agent: adopted the programs pinned under %s\n",
			a->opt.bpffs);
	a->maps = a->plane.maps;
	a->next_id = policy_maps_highest_id(&a->maps) + 1;
	snprintf(a->tree.root, sizeof(a->tree.root), "%s", layout->unified);
	a->tree.maps = &a->maps;
	a->tree.bundle_dirs = a->opt.bundle_dirs;
	a->tree.n_bundle_dirs = a->opt.n_bundle_dirs;
	{
		struct stat st;

		/* PID 1's: the host's, where the runtime runs (a DaemonSet needs hostPID). */
		if (stat("/proc/1/ns/mnt", &st) == 0)
			a->tree.runtime_mnt_ns = (__u32)st.st_ino;
		else
			fprintf(stderr, "cgward: agent: cannot read /proc/1/ns/mnt: %s\n",
				strerror(errno));
	}
	a->tree.inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ret = a->tree.inotify_fd < 0 ? -errno : 0;
	if (ret == 0 && cgroup_read_self_id(layout, &a->tree.self_id))
		fprintf(stderr,
			"cgward: agent: cannot find its own cgroup: a rule could bind it\n");
	if (ret == 0)
		ret = watch_policy_file(a);
	if (ret == 0)
		ret = block_signals(a);
	if (ret) {
		fprintf(stderr, "cgward: agent: cannot set up watches: %s\n", strerror(-ret));
		return ret;
	}
	ret = start_pod_labels(a);
	if (ret) {
		fprintf(stderr, "cgward: agent: cannot start the thread that asks the CRI: %s\n",
			strerror(-ret));
		return ret;
	}
	a->ctx = (struct event_context){
	    .boot_to_realtime_ns = event_clock_offset(), .lookup = name_event, .lookup_arg = a};
	ret = ring_reader_map_size(a->plane.deny_events_fd, &ring_size);
	if (ret == 0)
		ret = event_stream_open(&a->events, a->plane.deny_events_fd, ring_size,
					event_stream_lost_per_cpu, &a->plane.lost_events_fd,
					a->sink, &a->ctx);
	a->events_open = ret == 0;
	if (ret) {
		fprintf(stderr, "cgward: cannot read deny events: %s\n", strerror(-ret));
		return ret;
	}
	resume_lost_count(a);
	{
		struct policy_set set = a->set;

		a->set = (struct policy_set){0};
		a->tree.wait_for_labels = true; /* nothing is served yet */
		ret = install(a, &set, err, sizeof(err));
		a->tree.wait_for_labels = false;
		policy_set_free(&set);
	}
	if (ret) {
		fprintf(stderr, "cgward: agent: %s\n", err);
		return ret;
	}
	ret = start_exec_service(a);
	if (ret)
		return ret;
	a->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	ret = a->epoll_fd < 0 ? -errno : 0;
	if (ret == 0)
		ret = start_gc_timer(a);
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, a->gc_timer_fd);
	if (ret == 0) {
		a->retry_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		ret = a->retry_timer_fd < 0 ? -errno : 0;
	}
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, a->retry_timer_fd);
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, a->signal_fd);
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, event_stream_fd(&a->events));
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, a->tree.inotify_fd);
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, pod_label_cache_fd(a->pod_labels));
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, a->policy_watch_fd);
	if (ret == 0)
		ret = wait_loop_watch(a->epoll_fd, event_socket_listen_fd(&a->socket));
	if (ret == 0 && exec_service_fd(&a->exec) >= 0)
		ret = wait_loop_watch(a->epoll_fd, exec_service_fd(&a->exec));
	if (ret) {
		fprintf(stderr, "cgward: agent: epoll: %s\n", strerror(-ret));
		return ret;
	}
	trim_heap();
	fprintf(stderr, "cgward: agent: ready: %s: %zu rules, %zu cgroups bound\n",
		a->opt.policy_path, a->set.n_rules, a->tree.n_cgroups);
	return 0;
}

/* What the next scrapes of --metrics show of the agent's own state. */
static void publish_metrics(struct agent *a)
{
	metrics_publish(a->metrics, &a->tree, a->events.lost_reported, a->reloads,
			&a->exec.limit_hits);
}

/*
 * After set_up: the metrics server's thread inherits the blocked signals, so
 * SIGTERM still reaches the signalfd rather than killing the agent.
 */
static int start_metrics(struct agent *a)
{
	char err[256];
	int ret;

	if (!a->opt.metrics_address)
		return 0;
	ret = metrics_start(&a->metrics, a->opt.metrics_address, a->plane.maps.policy_info_fd,
			    a->opt.bpffs, a->opt.policy_path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cgward: agent: --metrics: %s\n", err);
		return ret;
	}
	fprintf(stderr, "cgward: agent: serving metrics on %s at /metrics\n",
		a->opt.metrics_address);
	return 0;
}

/* A change of the policy file's content, reloaded. */
static void reload_on_change(struct agent *a)
{
	struct policy_file file = {0};

	if (policy_file_changed(a, &file)) {
		reload(a, &file);
		policy_file_free(&file);
	}
}

/* SIGHUP reloads; true on SIGTERM or SIGINT, the stop. */
static bool read_signals(struct agent *a)
{
	struct signalfd_siginfo si;

	while (read(a->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			reload_on_signal(a);
			continue;
		}
		drain_events(a);
		fprintf(stderr,
			"cgward: agent: stopping (signal %u); enforcement stays pinned under %s\n",
			si.ssi_signo, a->opt.bpffs);
		return true;
	}
	return false;
}

/* New and removed cgroups bound and forgotten; whether any was. */
static bool read_tree_events(struct agent *a)
{
	int ret = agent_tree_read_events(&a->tree, true);

	if (ret < 0)
		fprintf(stderr, "cgward: agent: new cgroup: %s\n", strerror(-ret));
	return ret != 0;
}

/*
 * The work of the one source epoll found ready, and no other's: a run
 * wakes the agent some eight times, and reading every source at each
 * would be some ten system calls a wake. The events are drained
 * before the exec service's work, which may end a run whose deny events
 * are named by its cgroup. Returns -1 to go on, else the exit status.
 */
static int serve_ready(struct agent *a, int fd)
{
	bool changed = false;

	if (fd == exec_service_fd(&a->exec)) {
		drain_events(a);
		exec_service_serve(&a->exec);
	} else if (fd == event_stream_fd(&a->events)) {
		drain_events(a);
	} else if (fd == event_socket_listen_fd(&a->socket)) {
		event_socket_accept(&a->socket);
	} else if (fd == a->tree.inotify_fd) {
		changed = read_tree_events(a);
	} else if (fd == a->gc_timer_fd) {
		changed = collect_garbage(a);
	} else if (fd == pod_label_cache_fd(a->pod_labels)) {
		if (pod_label_cache_answered(a->pod_labels))
			agent_tree_labels_answered(&a->tree, monotonic_ms());
	} else if (fd == a->policy_watch_fd) {
		reload_on_change(a);
	} else if (fd == a->retry_timer_fd) {
		retry_unresolved(a);
	} else if (fd == a->signal_fd && read_signals(a)) {
		return 0;
	}
	if (changed && !plane_still_pinned(a))
		return EXIT_RUNTIME_ERROR;
	return -1;
}

/* Until SIGTERM or SIGINT: events, new cgroups, reloads. */
static int serve(struct agent *a)
{
	struct epoll_event ev;
	int status = -1;

	while (status < 0) {
		/* A container bound unresolved (at set-up too): its first try timed. */
		if (a->tree.resolve_scheduled)
			retry_unresolved(a);
		publish_metrics(a);
		if (epoll_wait(a->epoll_fd, &ev, 1, -1) < 0) {
			if (errno != EINTR)
				return EXIT_RUNTIME_ERROR;
			continue;
		}
		status = serve_ready(a, ev.data.fd);
	}
	return status;
}

static void agent_cleanup(struct agent *a)
{
	metrics_stop(a->metrics); /* first: its scrapes read the pinned maps */
	if (a->exec_open)
		exec_service_close(&a->exec);
	if (a->events_open)
		event_stream_close(&a->events);
	if (a->plane_open)
		plane_close(&a->plane);
	if (a->pod_labels)
		pod_label_cache_close(a->pod_labels);
	free(a->pod_labels);
	agent_tree_free(&a->tree);
	policy_set_free(&a->set);
	json_free(&a->line);
	if (a->tree.inotify_fd >= 0)
		close(a->tree.inotify_fd);
	if (a->policy_watch_fd >= 0)
		close(a->policy_watch_fd);
	if (a->gc_timer_fd >= 0)
		close(a->gc_timer_fd);
	if (a->retry_timer_fd >= 0)
		close(a->retry_timer_fd);
	if (a->signal_fd >= 0)
		close(a->signal_fd);
	if (a->epoll_fd >= 0)
		close(a->epoll_fd);
	if (a->sink)
		fclose(a->sink);
	if (a->socket_open)
		event_socket_close(&a->socket);
	if (a->events_fd >= 0)
		close(a->events_fd);
}

int agent_run(const struct agent_options *opt)
{
	struct agent a = {.opt = *opt,
			  .events_fd = -1,
			  .policy_watch_fd = -1,
			  .policy_target_wd = -1,
			  .gc_timer_fd = -1,
			  .retry_timer_fd = -1,
			  .signal_fd = -1,
			  .epoll_fd = -1,
			  .tree.inotify_fd = -1};
	struct policy_file file = {0};
	char err[PATH_MAX + 512];
	size_t n_errors;
	int ret, status;

	raise_open_file_limit();
	/* Its spawner (spawner.h) is its child, reaped by the kernel, as the spawner's are. */
	signal(SIGCHLD, SIG_IGN);
	/* Before any thread: each thread has a cgroup namespace of its own. */
	ret = cgroup_enter_host_namespace();
	if (ret)
		fprintf(
		    stderr,
		    "cgward: agent: cannot enter the host's cgroup namespace (/proc/1/ns/cgroup): "
		    "%s: the exec socket refuses callers outside its own\n",
		    strerror(-ret));
	json_init(&a.line);
	ret = read_policy(a.opt.policy_path, &file, err, sizeof(err));
	if (ret == 0) {
		memcpy(a.policy_seen_sha256, file.sha256, sizeof(a.policy_seen_sha256));
		ret = parse_policy(a.opt.policy_path, &file, &a.set, err, sizeof(err), &n_errors);
		policy_file_free(&file);
	}
	if (ret ||
	    (check_label_source(&a, &a.set, err, sizeof(err)) &&
	     fprintf(stderr, "cgward: agent: %s\n", err)) ||
	    open_sink(&a)) {
		agent_cleanup(&a);
		return EXIT_USAGE;
	}
	status = set_up(&a) || start_metrics(&a) ? EXIT_SETUP_FAILED : serve(&a);
	agent_cleanup(&a);
	return status;
}
