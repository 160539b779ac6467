// SPDX-License-Identifier: GPL-2.0
/*
 * cgward agent --metrics: Prometheus text format over libevent's HTTP server,
 * in a thread of its own. libevent links statically (libmicrohttpd would
 * bring GnuTLS's shared libraries into every cgward exec's start-up).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "plane.h"
#include "metrics.h"

#ifndef CGWARD_VERSION
#define CGWARD_VERSION "unknown"
#endif

struct metrics_server {
	struct event_base *base;
	struct evhttp *http;
	struct event *stop_event;
	int stop_fd; /* an eventfd: written by metrics_stop, read in the server's thread */
	pthread_t thread;
	bool thread_started;
	int listen_fd;
	struct policy_maps maps; /* only policy_info_fd: the kernel's counters */
	const char *bpffs;
	/* Written by the agent's loop, read by the scrapes in the server's thread. */
	pthread_mutex_t lock;
	struct metrics_snapshot published;
};

/* A label value: backslash, double quote and newline are escaped (text format 0.0.4). */
static void put_label_value(FILE *out, const char *value)
{
	for (const char *c = value; *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(out, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", out);
		else
			fputc(*c, out);
	}
}

static void put_family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

enum policy_value { POLICY_DENIED, POLICY_AUDITED, POLICY_CGROUPS_BOUND };

static void put_per_policy(FILE *out, const struct metrics_snapshot *s, const char *name,
			   enum policy_value which)
{
	for (size_t i = 0; i < s->n_policies; i++) {
		const struct metrics_policy *p = &s->policies[i];
		__u64 value = which == POLICY_DENIED	? p->denied
			      : which == POLICY_AUDITED ? p->audited
							: p->cgroups_bound;

		fprintf(out, "%s{policy=\"", name);
		put_label_value(out, p->name);
		fprintf(out, "\"} %llu\n", (unsigned long long)value);
	}
}

static void put_reloads(FILE *out, const struct metrics_snapshot *s)
{
	static const char *const results[METRICS_RELOAD_RESULTS] = {
	    [METRICS_RELOAD_OK] = "ok",
	    [METRICS_RELOAD_INVALID] = "invalid",
	    [METRICS_RELOAD_ERROR] = "error",
	};

	put_family(out, "cgward_reloads_total", "counter",
		   "Policy reloads by result: ok, invalid (the file was rejected), error.");
	for (int r = 0; r < METRICS_RELOAD_RESULTS; r++)
		fprintf(out, "cgward_reloads_total{result=\"%s\"} %llu\n", results[r],
			(unsigned long long)s->reloads[r]);
}

static void put_limit_hits(FILE *out, const struct metrics_snapshot *s)
{
	put_family(out, "cgward_limit_events_total", "counter",
		   "Limits the runs of the exec socket hit: processes the OOM killer killed, "
		   "forks refused at pids.max, periods throttled at cpu.max.");
	fprintf(out, "cgward_limit_events_total{limit=\"memory\",event=\"oom_kill\"} %llu\n",
		(unsigned long long)s->limit_hits.oom_kill);
	fprintf(out, "cgward_limit_events_total{limit=\"pids\",event=\"max\"} %llu\n",
		(unsigned long long)s->limit_hits.pids_max);
	fprintf(out, "cgward_limit_events_total{limit=\"cpu\",event=\"throttled\"} %llu\n",
		(unsigned long long)s->limit_hits.cpu_throttled);
}

/* The plane's labels are empty when none is pinned: Prometheus reads them as absent. */
static void put_build_info(FILE *out, const struct metrics_snapshot *s)
{
	put_family(out, "cgward_build_info", "gauge",
		   "This cgward's version and the build of its BPF programs (abi, object), and "
		   "the build of the plane pinned (plane_abi, plane_object).");
	fprintf(out, "cgward_build_info{version=\"");
	put_label_value(out, s->version);
	fprintf(out, "\",abi=\"%u\",object=\"%016llx\",plane_abi=\"", s->build.abi_version,
		(unsigned long long)s->build.object_hash);
	if (s->plane.abi_version)
		fprintf(out, "%u\",plane_object=\"%016llx", s->plane.abi_version,
			(unsigned long long)s->plane.object_hash);
	else
		fputs("\",plane_object=\"", out);
	fputs("\"} 1\n", out);
}

static void put_policy_info(FILE *out, const struct metrics_snapshot *s)
{
	put_family(out, "cgward_policy_info", "gauge",
		   "The policy file in force: its path, the SHA-256 of its content, its rules.");
	if (!s->policy_sha256[0])
		return;
	fprintf(out, "cgward_policy_info{file=\"");
	put_label_value(out, s->policy_file);
	fprintf(out, "\",sha256=\"%s\",rules=\"%zu\"} 1\n", s->policy_sha256, s->n_policies);
}

char *metrics_render(const struct metrics_snapshot *s, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (!out)
		return NULL;
	put_build_info(out, s);
	put_policy_info(out, s);
	put_family(out, "cgward_denies_total", "counter",
		   "Operations the kernel denied under a policy since the agent installed it.");
	put_per_policy(out, s, "cgward_denies_total", POLICY_DENIED);
	put_family(out, "cgward_audits_total", "counter",
		   "Would-be denies the kernel allowed under an audit policy.");
	put_per_policy(out, s, "cgward_audits_total", POLICY_AUDITED);
	put_family(out, "cgward_cgroups_bound", "gauge", "Cgroups the agent bound to a policy.");
	put_per_policy(out, s, "cgward_cgroups_bound", POLICY_CGROUPS_BOUND);
	put_family(out, "cgward_events_lost_total", "counter",
		   "Deny and audit events the kernel could not queue (ring buffer full).");
	fprintf(out, "cgward_events_lost_total %llu\n", (unsigned long long)s->events_lost);
	put_family(out, "cgward_programs_attached", "gauge",
		   "BPF programs whose link is pinned, so attached.");
	fprintf(out, "cgward_programs_attached %d\n", s->programs_attached);
	put_reloads(out, s);
	put_limit_hits(out, s);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int parse_port(const char *text, in_port_t *port)
{
	char *end;
	unsigned long value;

	errno = 0;
	value = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] < '0' || text[0] > '9' || value == 0 ||
	    value > 65535)
		return -EINVAL;
	*port = htons((in_port_t)value);
	return 0;
}

int metrics_parse_address(const char *spec, struct sockaddr_storage *addr, char *err, size_t errlen)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
	const char *colon = strrchr(spec, ':');
	char host[INET6_ADDRSTRLEN + 2] = METRICS_DEFAULT_ADDRESS;
	size_t host_len = colon ? (size_t)(colon - spec) : 0;
	in_port_t port;

	memset(addr, 0, sizeof(*addr));
	if (parse_port(colon ? colon + 1 : spec, &port)) {
		snprintf(err, errlen, "'%s': want ADDR:PORT or PORT, PORT from 1 to 65535", spec);
		return -EINVAL;
	}
	if (colon && (host_len == 0 || host_len >= sizeof(host))) {
		snprintf(err, errlen, "'%s': want an IP address before the port", spec);
		return -EINVAL;
	}
	if (colon)
		snprintf(host, sizeof(host), "%.*s", (int)host_len, spec);
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = port;
		return 0;
	}
	/* IPv6 in brackets, as in URLs: [::1]:9464. */
	if (host[0] == '[' && host[host_len - 1] == ']') {
		host[host_len - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) == 1) {
			v6->sin6_family = AF_INET6;
			v6->sin6_port = port;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s': '%s' is not an IPv4 address or a bracketed IPv6 one", spec,
		 host);
	return -EINVAL;
}

/* The published snapshot, completed with the kernel's counters and the pinned links. */
static char *scrape(struct metrics_server *server, size_t *len)
{
	struct metrics_snapshot s;
	struct cgward_policy_info info;
	char *text = NULL;

	pthread_mutex_lock(&server->lock);
	s = server->published;
	s.policies = malloc((s.n_policies ? s.n_policies : 1) * sizeof(*s.policies));
	if (s.policies && s.n_policies)
		memcpy(s.policies, server->published.policies, s.n_policies * sizeof(*s.policies));
	pthread_mutex_unlock(&server->lock);
	if (!s.policies)
		return NULL;
	for (size_t i = 0; i < s.n_policies; i++) {
		if (policy_maps_get_info(&server->maps, s.policies[i].policy_id, &info) == 0) {
			s.policies[i].denied = info.denied;
			s.policies[i].audited = info.audited;
		}
	}
	s.programs_attached = plane_pinned_links(server->bpffs);
	if (plane_read_info(server->bpffs, &s.plane))
		s.plane = (struct cgward_plane_info){0};
	text = metrics_render(&s, len);
	free(s.policies);
	return text;
}

static void reply(struct evhttp_request *req, int status, const char *reason, const char *body,
		  size_t len, const char *content_type)
{
	struct evbuffer *out = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", content_type);
	if (out)
		evbuffer_add(out, body, len);
	evhttp_send_reply(req, status, reason, out);
	if (out)
		evbuffer_free(out);
}

static void reply_error(struct evhttp_request *req, int status, const char *reason,
			const char *text)
{
	reply(req, status, reason, text, strlen(text), "text/plain; charset=utf-8");
}

static void answer(struct evhttp_request *req, void *arg)
{
	enum evhttp_cmd_type method = evhttp_request_get_command(req);
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	char *text;
	size_t len;

	if (method != EVHTTP_REQ_GET && method != EVHTTP_REQ_HEAD)
		return reply_error(req, 405, "Method Not Allowed", "only GET and HEAD\n");
	if (!path || strcmp(path, "/metrics") != 0)
		return reply_error(req, 404, "Not Found",
				   "not found: the metrics are at /metrics\n");
	text = scrape(arg, &len);
	if (!text)
		return reply_error(req, 500, "Internal Server Error",
				   "cannot render the metrics: out of memory\n");
	reply(req, 200, "OK", text, len, "text/plain; version=0.0.4; charset=utf-8");
	free(text);
}

/* metrics_stop's wake-up: the loop ends in its own thread. */
static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

static void *serve_thread(void *arg)
{
	event_base_dispatch(arg);
	return NULL;
}

/* Our own socket, so that bind's errno names the failure. */
static int listen_on(const struct sockaddr_storage *addr, char *err, size_t errlen,
		     const char *spec)
{
	socklen_t addr_len =
	    addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int one = 1, ret;
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)addr, addr_len) || listen(fd, 64)) {
		ret = -errno;
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

int metrics_start(struct metrics_server **server, const char *spec, int policy_info_fd,
		  const char *bpffs, const char *policy_file, char *err, size_t errlen)
{
	struct sockaddr_storage addr;
	struct metrics_server *s;
	int ret = metrics_parse_address(spec, &addr, err, errlen);

	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->listen_fd = -1;
	s->stop_fd = -1;
	s->maps = (struct policy_maps){.cgroup_policy_fd = -1,
				       .write_roots_fd = -1,
				       .policy_info_fd = policy_info_fd,
				       .exec_events_fd = -1,
				       .root_tags_fd = -1,
				       .container_started_fd = -1};
	s->bpffs = bpffs;
	s->published.version = CGWARD_VERSION;
	s->published.build = plane_build_info();
	s->published.policy_file = policy_file;
	pthread_mutex_init(&s->lock, NULL);
	s->listen_fd = listen_on(&addr, err, errlen, spec);
	if (s->listen_fd < 0) {
		ret = s->listen_fd;
		metrics_stop(s);
		return ret;
	}
	/* libevent uses epoll: the agent holds a descriptor per root, often past FD_SETSIZE. */
	s->base = event_base_new();
	s->http = s->base ? evhttp_new(s->base) : NULL;
	s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->stop_event = s->http && s->stop_fd >= 0
			    ? event_new(s->base, s->stop_fd, EV_READ, on_stop, s->base)
			    : NULL;
	ret = s->stop_event && event_add(s->stop_event, NULL) == 0 &&
		      evhttp_accept_socket(s->http, s->listen_fd) == 0
		  ? 0
		  : -ENOMEM;
	if (ret == 0) {
		s->listen_fd = -1; /* libevent's now: evhttp_free closes it */
		evhttp_set_timeout(s->http, 10);
		evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD |
							EVHTTP_REQ_POST | EVHTTP_REQ_PUT |
							EVHTTP_REQ_DELETE);
		evhttp_set_gencb(s->http, answer, s);
		ret = -pthread_create(&s->thread, NULL, serve_thread, s->base);
		s->thread_started = ret == 0;
	}
	if (ret) {
		snprintf(err, errlen, "cannot serve on %s: %s", spec, strerror(-ret));
		metrics_stop(s);
		return ret;
	}
	*server = s;
	return 0;
}

/* How many cgroups of the tree each rule bound. */
static struct metrics_policy *policies_of(const struct agent_tree *tree, size_t *n)
{
	const struct policy_set *set = tree->set;
	struct metrics_policy *policies;

	*n = set ? set->n_rules : 0;
	policies = calloc(*n ? *n : 1, sizeof(*policies));
	if (!policies)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		snprintf(policies[i].name, sizeof(policies[i].name), "%s", set->rules[i].name);
		policies[i].policy_id = tree->first_id + (__u32)i;
	}
	for (size_t i = 0; i < tree->n_cgroups; i++) {
		int rule = tree->cgroups[i].rule;

		if (rule >= 0 && (size_t)rule < *n)
			policies[rule].cgroups_bound++;
	}
	return policies;
}

void metrics_publish(struct metrics_server *server, const struct agent_tree *tree,
		     __u64 events_lost, const __u64 reloads[METRICS_RELOAD_RESULTS],
		     const struct limit_counts *limit_hits)
{
	struct metrics_policy *policies, *old;
	size_t n;

	if (!server)
		return;
	policies = policies_of(tree, &n);
	pthread_mutex_lock(&server->lock);
	old = NULL;
	if (policies) { /* out of memory: the previous rules stay published */
		old = server->published.policies;
		server->published.policies = policies;
		server->published.n_policies = n;
		snprintf(server->published.policy_sha256, sizeof(server->published.policy_sha256),
			 "%s", tree->set ? tree->set->sha256 : "");
	}
	server->published.events_lost = events_lost;
	memcpy(server->published.reloads, reloads, sizeof(server->published.reloads));
	server->published.limit_hits = *limit_hits;
	pthread_mutex_unlock(&server->lock);
	free(old);
}

void metrics_stop(struct metrics_server *server)
{
	if (!server)
		return;
	if (server->thread_started) {
		eventfd_write(server->stop_fd, 1);
		pthread_join(server->thread, NULL);
	}
	if (server->stop_event)
		event_free(server->stop_event);
	if (server->http)
		evhttp_free(server->http);
	if (server->base)
		event_base_free(server->base);
	if (server->stop_fd >= 0)
		close(server->stop_fd);
	if (server->listen_fd >= 0)
		close(server->listen_fd);
	pthread_mutex_destroy(&server->lock);
	free(server->published.policies);
	free(server);
}
