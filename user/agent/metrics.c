// SPDX-License-Identifier: GPL-2.0
/* cgward agent --metrics: Prometheus text format over libmicrohttpd. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "loader.h"
#include "metrics.h"

#ifndef CGWARD_VERSION
#define CGWARD_VERSION "unknown"
#endif

struct metrics_server {
	struct MHD_Daemon *daemon;
	int listen_fd;
	struct policy_maps maps; /* only policy_info_fd: the kernel's counters */
	const char *bpffs;
	/* Written by the agent's loop, read by the scrapes in libmicrohttpd's thread. */
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

char *metrics_render(const struct metrics_snapshot *s, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (!out)
		return NULL;
	put_family(out, "cgward_build_info", "gauge",
		   "The cgward version, and the layout version of the pinned plane (abi).");
	fprintf(out, "cgward_build_info{version=\"");
	put_label_value(out, s->version);
	fprintf(out, "\",abi=\"%d\"} 1\n", CGWARD_ABI_VERSION);
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

/* loader_pinned_links returns how many links are pinned: nothing to do per link. */
static void ignore_link(const char *prog, int link_fd, void *arg)
{
	(void)prog;
	(void)link_fd;
	(void)arg;
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
	s.programs_attached = loader_pinned_links(server->bpffs, ignore_link, NULL);
	if (s.programs_attached < 0)
		s.programs_attached = 0;
	text = metrics_render(&s, len);
	free(s.policies);
	return text;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, char *body,
			     size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *response = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!response)
		return MHD_NO;
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8"
						      : "text/plain; charset=utf-8");
	ret = MHD_queue_response(conn, status, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **request)
{
	static char not_found[] = "not found: the metrics are at /metrics\n";
	static char not_allowed[] = "only GET and HEAD\n";
	static char failed[] = "cannot render the metrics: out of memory\n";
	char *text;
	size_t len;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)request;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
			     sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1,
			     MHD_RESPMEM_PERSISTENT);
	text = scrape(cls, &len);
	if (!text)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, failed, sizeof(failed) - 1,
			     MHD_RESPMEM_PERSISTENT);
	return reply(conn, MHD_HTTP_OK, text, len, MHD_RESPMEM_MUST_FREE);
}

/* Our own socket: bind's errno names the failure (libmicrohttpd would only log it). */
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
		  const char *bpffs, char *err, size_t errlen)
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
	s->maps = (struct policy_maps){
	    .cgroup_policy_fd = -1, .write_roots_fd = -1, .policy_info_fd = policy_info_fd};
	s->bpffs = bpffs;
	s->published.version = CGWARD_VERSION;
	pthread_mutex_init(&s->lock, NULL);
	s->listen_fd = listen_on(&addr, err, errlen, spec);
	if (s->listen_fd < 0) {
		ret = s->listen_fd;
		metrics_stop(s);
		return ret;
	}
	/* epoll, not select: the agent holds a descriptor per root, often past FD_SETSIZE. */
	s->daemon =
	    MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
			     MHD_OPTION_LISTEN_SOCKET, s->listen_fd, MHD_OPTION_CONNECTION_LIMIT,
			     32u, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	s->listen_fd = -1; /* libmicrohttpd's now: it closes it when it stops */
	if (!s->daemon) {
		snprintf(err, errlen, "cannot serve on %s: libmicrohttpd failed to start", spec);
		metrics_stop(s);
		return -EIO;
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
		     __u64 events_lost, const __u64 reloads[METRICS_RELOAD_RESULTS])
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
	}
	server->published.events_lost = events_lost;
	memcpy(server->published.reloads, reloads, sizeof(server->published.reloads));
	pthread_mutex_unlock(&server->lock);
	free(old);
}

void metrics_stop(struct metrics_server *server)
{
	if (!server)
		return;
	if (server->daemon)
		MHD_stop_daemon(server->daemon);
	if (server->listen_fd >= 0)
		close(server->listen_fd);
	pthread_mutex_destroy(&server->lock);
	free(server->published.policies);
	free(server);
}
