// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's side of the exec socket. A caller is known only by its
 * SO_PEERCRED and by the descriptors it passes: the process to confine must
 * be its own child (a pidfd, checked against /proc), and every root is a
 * directory it opened itself. No path of the caller's is ever resolved here.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <jansson.h>
#include <linux/types.h>

#include "agent_tree.h"
#include "capabilities.h"
#include "cgward_abi.h"
#include "clock.h"
#include "event_socket.h"
#include "exec_message.h"
#include "exec_roots.h"
#include "exec_run.h"
#include "exec_service_run.h"
#include "exec_socket.h"
#include "exec_spawn.h"
#include "grow_array.h"
#include "json.h"
#include "proc_field.h"
#include "roots.h"
#include "run_core.h"
#include "wait_loop.h"

/* Its directory must let every allowed user reach the socket: search rights for all. */
static int make_socket_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	dirname(dir);
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST || stat(dir, &st))
		return -errno;
	/* The event socket's directory (0700, root's): its socket is 0600 itself. */
	if (st.st_uid == 0 && (st.st_mode & 07777) == 0700 && chmod(dir, 0755))
		return -errno;
	return 0;
}

static int listen_on(struct exec_service *svc, char *err, size_t errlen)
{
	const struct exec_socket_config *config = &svc->config;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int ret = make_socket_dir(config->path);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", config->path);
	if (ret == 0) {
		svc->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		ret = svc->listen_fd < 0 ? -errno : 0;
	}
	if (ret == 0)
		ret = unix_socket_bind(svc->listen_fd, &addr);
	/* Bound 0600: the group, then the mode, so that no one else ever gets in. */
	if (ret == 0 && config->has_group && chown(config->path, 0, (gid_t)config->group))
		ret = -errno;
	if (ret == 0 && chmod(config->path, (mode_t)config->mode))
		ret = -errno;
	if (ret == 0 && listen(svc->listen_fd, 64))
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "exec socket %s: %s", config->path,
			 ret == -EADDRINUSE ? "another agent serves there" : strerror(-ret));
	return ret;
}

int exec_service_open(struct exec_service *svc, const struct exec_socket_config *config,
		      const char *plane_dir, const struct policy_maps *maps,
		      const struct cgroup_layout *layout, struct agent_tree *tree, FILE *sink,
		      char *err, size_t errlen)
{
	int ret;

	*svc = (struct exec_service){.config = *config,
				     .listen_fd = -1,
				     .epoll_fd = -1,
				     .inotify_fd = -1,
				     .plane_dir = plane_dir,
				     .maps = maps,
				     .layout = layout,
				     .tree = tree,
				     .sink = sink,
				     .spawner = {.sock = -1}};
	for (size_t i = 0; i < EXEC_SERVICE_PENDING; i++)
		svc->pending[i].fd = -1;
	if (!config->path[0])
		return 0;
	ret = listen_on(svc, err, errlen);
	if (ret)
		return ret;
	svc->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	svc->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	ret = svc->inotify_fd < 0 || svc->epoll_fd < 0 ? -errno : 0;
	if (ret == 0)
		ret = wait_loop_watch(svc->epoll_fd, svc->listen_fd);
	if (ret == 0)
		ret = wait_loop_watch(svc->epoll_fd, svc->inotify_fd);
	if (ret)
		snprintf(err, errlen, "exec socket: %s", strerror(-ret));
	return ret;
}

int exec_service_fd(const struct exec_service *svc)
{
	return svc->epoll_fd;
}

const char *exec_service_run_cgroup(const struct exec_service *svc, __u64 cgroup_id)
{
	for (size_t i = 0; i < svc->n_runs; i++) {
		if (svc->runs[i]->core.cgroup.id == cgroup_id)
			return cgroup_relative_path(svc->layout, svc->runs[i]->core.cgroup.path);
	}
	return NULL;
}

struct exec_service_user *exec_service_find_user(struct exec_service *svc, uid_t uid)
{
	for (size_t i = 0; i < svc->n_users; i++) {
		if (svc->users[i].uid == uid)
			return &svc->users[i];
	}
	if (grow_array((void **)&svc->users, &svc->cap_users, svc->n_users + 1,
		       sizeof(*svc->users)))
		return NULL;
	svc->users[svc->n_users] = (struct exec_service_user){
	    .uid = uid, .tokens = svc->config.request_burst, .refilled_ms = monotonic_ms()};
	return &svc->users[svc->n_users++];
}

/* The user's limits: a token per request, and its runs below max_runs_per_user. */
static int admit(struct exec_service *svc, struct exec_service_user *user, char *err, size_t errlen)
{
	const struct exec_socket_config *c = &svc->config;
	__u64 now = monotonic_ms();

	user->tokens += (double)(now - user->refilled_ms) * c->requests_per_second / 1000.0;
	if (user->tokens > c->request_burst)
		user->tokens = c->request_burst;
	user->refilled_ms = now;
	if (user->tokens < 1) {
		snprintf(err, errlen,
			 "uid %u is over its request rate limit (requests_per_second %u, "
			 "request_burst %u); try again later",
			 (unsigned int)user->uid, c->requests_per_second, c->request_burst);
		return -EAGAIN;
	}
	user->tokens -= 1;
	if (user->runs >= c->max_runs_per_user) {
		snprintf(err, errlen, "uid %u has %u runs already (max_runs_per_user %u)",
			 (unsigned int)user->uid, user->runs, c->max_runs_per_user);
		return -EUSERS;
	}
	return 0;
}

/*
 * The pidfd names the caller's own child: its parent is the peer, and its
 * real and effective uids are the peer's. The pid read here could be reused
 * before the move; the pidfd, alive after it, proves it was not.
 */
static int check_child(int pidfd, const struct ucred *peer, pid_t *pid, char *err, size_t errlen)
{
	static const char *const fields[] = {"PPid:", "Uid:"};
	long values[2] = {0, 0}, status[2][2] = {{0, -1}, {0, -1}};
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	ret = read_proc_field(path, "Pid:", values);
	if (ret || values[0] <= 0) {
		snprintf(err, errlen, "the first descriptor is not a pidfd of a live process");
		return -EINVAL;
	}
	*pid = (pid_t)values[0];
	snprintf(path, sizeof(path), "/proc/%d/status", *pid);
	if (read_proc_fields(path, 2, fields, status) || status[0][0] != peer->pid) {
		snprintf(err, errlen, "process %d is not a child of the caller (pid %d)", *pid,
			 peer->pid);
		return -EPERM;
	}
	if (status[1][0] != (long)peer->uid || status[1][1] != (long)peer->uid) {
		snprintf(err, errlen, "process %d does not run as the caller's uid %u", *pid,
			 (unsigned int)peer->uid);
		return -EPERM;
	}
	return 0;
}

/* The cgroup2 cgroup pid is in now, as /proc/PID/cgroup says it. */
static int read_member(pid_t pid, char *member, size_t size, char *err, size_t errlen)
{
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	ret = cgroup_member_of(path, member, size);
	if (ret)
		snprintf(err, errlen, "cannot read the cgroup of process %d", pid);
	return ret;
}

/* The cgroup.procs of the cgroup2 cgroup pid is in now, to move it back to. */
static int read_origin(const struct exec_service *svc, pid_t pid, char *origin_procs, size_t size,
		       char *err, size_t errlen)
{
	char member[PATH_MAX];
	int ret = read_member(pid, member, sizeof(member), err, errlen);

	if (ret == 0 && (size_t)snprintf(origin_procs, size, "%s%s/cgroup.procs",
					 svc->layout->unified, member) >= size) {
		snprintf(err, errlen, "the cgroup of process %d has too long a path", pid);
		ret = -ENAMETOOLONG;
	}
	return ret;
}

static void move_back(const char *origin_procs, pid_t pid)
{
	FILE *procs = fopen(origin_procs, "w");

	if (procs) {
		fprintf(procs, "%d\n", pid);
		fclose(procs);
	}
}

/*
 * The agent's rules over the run's cgroup and the user's directory: a
 * mandatory one over either is bound now, so that the run's own binding
 * takes it in before the child is moved. Only these: the other cgroups made
 * meanwhile (a pod's, whose labels may take the CRI seconds) wait for the
 * loop, not the caller.
 */
static int bind_run_cgroups(struct exec_service *svc, const struct exec_service_run *run, char *err,
			    size_t errlen)
{
	int ret = agent_tree_bind_path(svc->tree, run->core.cgroup.path);

	if (ret >= 0)
		return 0;
	snprintf(err, errlen, "cannot apply the agent's rules to %s: %s", run->core.cgroup.path,
		 strerror(-ret));
	return ret;
}

/* What a request asks, and the caller's cgroup, where its run goes. */
struct run_ask {
	__u32 flags;
	__u64 dropped_caps;
	struct run_limits limits;
	gid_t gid;
	char caller[PATH_MAX]; /* as /proc/PID/cgroup says it */
};

/*
 * The limits of the mandatory rule that governs the run (policy: limits):
 * the run's own lowered to them, before any process is in its cgroup.
 */
static int apply_rule_limits(struct exec_service *svc, struct exec_service_run *run, char *err,
			     size_t errlen)
{
	const struct agent_cgroup *cg = agent_tree_find(svc->tree, run->core.cgroup.id);
	const struct policy_rule *rule;
	int ret;

	if (!cg || cg->rule < 0 || !svc->tree->set)
		return 0;
	rule = &svc->tree->set->rules[cg->rule];
	if (!rule->mandatory)
		return 0;
	ret = exec_cgroup_lower(&run->core.cgroup, &rule->limits, err, errlen);
	if (ret)
		snprintf(err + strlen(err), errlen - strlen(err), " (limits of policy '%s')",
			 rule->name);
	return ret;
}

/* The maps first, then the cgroup bound to them, then the caller's child moved in. */
static int bind_run(struct exec_service *svc, struct exec_service_run *run, pid_t pid, int pidfd,
		    const struct run_ask *ask, char *err, size_t errlen)
{
	char origin_procs[PATH_MAX];
	int ret = run_core_claim(&run->core, svc->plane_dir);

	if (ret == 0)
		ret = run_core_put_roots(&run->core, run->given.roots, run->given.n_roots);
	if (ret == 0)
		ret = run_core_put_roots(&run->core, run->given.nodes, run->given.n_nodes);
	if (ret) {
		snprintf(err, errlen, "cannot install the policy: %s", strerror(-ret));
		return ret;
	}
	ret = run_core_create_cgroup(&run->core, svc->layout, NULL, ask->caller, ask->gid,
				     &ask->limits, err, errlen);
	if (ret == 0)
		ret = bind_run_cgroups(svc, run, err, errlen);
	if (ret == 0)
		ret = apply_rule_limits(svc, run, err, errlen);
	if (ret == 0)
		ret = run_core_bind(&run->core, ask->flags, ask->dropped_caps, err, errlen);
	if (ret == 0 && (ret = run_core_ring_ready(&run->core)) != 0)
		snprintf(err, errlen, "cannot install the run's ring buffer: %s", strerror(-ret));
	if (run->spawned)
		return ret; /* its supervisor moves the command in (exec_spawn.h) */
	if (ret == 0)
		ret = read_origin(svc, pid, origin_procs, sizeof(origin_procs), err, errlen);
	if (ret == 0)
		ret = exec_cgroup_attach(&run->core.cgroup, pid, err, errlen);
	if (ret == 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0)) {
		/*
		 * Reaped, so its pid may have been reused by the process just
		 * moved: that one goes back, and is not killed with the cgroup.
		 */
		move_back(origin_procs, pid);
		snprintf(err, errlen, "process %d ended before it was confined", pid);
		ret = -ESRCH;
	}
	return ret;
}

/*
 * The caller's cgroup, where its run goes. A caller that cgward confines
 * gets no run: a run's own boundary replaces an agent rule's that is not
 * mandatory (cgroup_inherit.bpf.c), and a run placed above a subtree
 * delegated to the caller is not within the caller's boundary at all.
 */
static int read_unconfined_caller(const struct exec_service *svc, pid_t caller, struct run_ask *ask,
				  char *err, size_t errlen)
{
	char dir[2 * PATH_MAX];
	struct cgward_cgroup_policy binding;
	__u64 id;
	int ret = read_member(caller, ask->caller, sizeof(ask->caller), err, errlen);

	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s%s", svc->layout->unified, ask->caller);
	if (cgroup_read_id(dir, &id)) {
		snprintf(err, errlen, "cannot read the cgroup of process %d", caller);
		return -ESRCH;
	}
	if (policy_maps_get_binding(svc->maps, id, &binding) == 0) {
		snprintf(err, errlen,
			 "the caller is confined by cgward (its cgroup %s is bound to a policy): a "
			 "run of its own would not be within that boundary",
			 ask->caller);
		return -EPERM;
	}
	return 0;
}

/*
 * The run's roots in line: write roots and read-only exceptions as "roots",
 * hidden and readable paths under their kinds ("hide", "read").
 */
static void log_roots(json_t *line, const struct exec_service_run *run)
{
	json_object_set_new(line, "roots", json_array());
	for (size_t i = 0; run && run->given.roots && i < run->given.n_roots; i++) {
		const struct root_spec *root = &run->given.roots[i];
		const char *key =
		    root->access == CGWARD_ACCESS_HIDDEN || root->access == CGWARD_ACCESS_READ
			? exec_message_root_kind(root->access)
			: "roots";
		json_t *list = json_object_get(line, key);

		if (!list) {
			list = json_array();
			json_object_set_new(line, key, list);
		}
		json_array_append_new(list, json_string(root->path));
	}
}

/*
 * The request and its outcome, a line of the agent's event stream: "ok",
 * "refused", or "caller_starts" (a --spawn the agent cannot make the
 * caller's, whose own child comes next: no refusal of anything).
 */
static void log_request(struct exec_service *svc, const struct ucred *peer, pid_t pid,
			const char *argv0, const struct exec_service_run *run, const char *error,
			bool caller_starts)
{
	struct timespec now;
	char time[64];
	json_t *line = json_object();
	char *text;

	clock_gettime(CLOCK_REALTIME, &now);
	if (json_format_time(&now, time, sizeof(time)) == 0)
		json_object_set_new(line, "time", json_string(time));
	json_object_set_new(line, "op", json_string("exec_request"));
	json_object_set_new(line, "result",
			    json_string(caller_starts ? "caller_starts"
					: error	      ? "refused"
						      : "ok"));
	json_object_set_new(line, "uid", json_integer(peer->uid));
	json_object_set_new(line, "caller_pid", json_integer(peer->pid));
	if (pid > 0)
		json_object_set_new(line, "pid", json_integer(pid));
	if (run && run->spawned)
		json_object_set_new(line, "spawned", json_true());
	if (run && run->private_tmp)
		json_object_set_new(line, "private_tmp", json_true());
	if (argv0)
		json_object_set_new(line, "command", json_string(argv0));
	log_roots(line, run);
	if (error)
		json_object_set_new(line, "error", json_string(error));
	else
		json_object_set_new(
		    line, "cgroup",
		    json_string(cgroup_relative_path(svc->layout, run->core.cgroup.path)));
	text = json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (text) {
		fprintf(svc->sink, "%s\n", text);
		fflush(svc->sink);
	}
	free(text);
	json_decref(line);
}

void exec_service_free_run(struct exec_service_run *run)
{
	for (size_t i = 0; run->given.roots && i < run->given.n_roots; i++)
		root_close(&run->given.roots[i]);
	run_core_close(&run->core);
	limit_watch_close(&run->limits);
	if (run->setup_fd >= 0)
		close(run->setup_fd);
	if (run->conn_fd >= 0)
		close(run->conn_fd);
	free(run->given.roots);
	free(run->given.nodes);
	free(run);
}

void exec_service_watch_run(struct exec_service *svc, struct exec_service_run *run)
{
	char events[PATH_MAX + 16];

	snprintf(events, sizeof(events), "%s/cgroup.events", run->core.cgroup.path);
	run->events_wd = inotify_add_watch(svc->inotify_fd, events, IN_MODIFY);
	limit_watch_open(&run->limits, run->core.cgroup.path,
			 cgroup_relative_path(svc->layout, run->core.cgroup.path), run->uid,
			 run->core.cgroup.limits.cpu_milli > 0, svc->inotify_fd);
}

/*
 * The run's cgroup removed, first, so that no process is left with a half
 * policy; its limits' last hits (and its CPU throttling) reported before.
 */
static void end_cgroup(struct exec_service *svc, struct exec_service_run *run, bool *oom_killed)
{
	char err[PATH_MAX + 128];

	limit_watch_read_final(&run->limits, &run->final);
	limit_watch_report_final(&run->limits, svc->sink, &run->final, &svc->limit_hits);
	if (run_core_end(&run->core, oom_killed, err, sizeof(err)))
		fprintf(stderr, "cgward: agent: exec socket: %s\n", err);
}

/* Once no one reads the run's ring: its policy removed, the ring parked, the rest freed. */
static void release_run(struct exec_service_run *run)
{
	run_core_release(&run->core);
	exec_service_free_run(run);
}

int exec_service_add_run(struct exec_service *svc, struct exec_service_run *run)
{
	if (grow_array((void **)&svc->runs, &svc->cap_runs, svc->n_runs + 1, sizeof(*svc->runs)))
		return -ENOMEM;
	svc->runs[svc->n_runs++] = run;
	return 0;
}

/*
 * The run's cgroup and ring buffer, or why not: caller_starts, a --spawn
 * the agent cannot make the caller's, asks the caller to start its own
 * child and ask again.
 */
static void reply(int fd, const char *error, bool caller_starts, const struct exec_service_run *run,
		  const struct exec_service *svc)
{
	json_t *msg = json_object();
	char *text;

	if (error) {
		json_object_set_new(msg, "error", json_string(error));
		if (caller_starts)
			json_object_set_new(msg, "caller_starts", json_true());
	} else {
		json_object_set_new(
		    msg, "cgroup",
		    json_string(cgroup_relative_path(svc->layout, run->core.cgroup.path)));
		json_object_set_new(msg, "ring_size", json_integer(CGWARD_EXEC_RING_SIZE));
	}
	text = json_dumps(msg, JSON_COMPACT);
	if (text)
		exec_message_send(fd, text, strlen(text), error ? NULL : &run->core.ring_fd,
				  error ? 0 : 1);
	free(text);
	json_decref(msg);
}

/*
 * The request's fields, and its descriptors made into the run's roots. A
 * request without "dropped_caps" (an older cgward's) gets the default set.
 */
static int read_request(json_t *req, int *fds, size_t n_fds, struct exec_service_run *run,
			struct run_ask *ask, char *err, size_t errlen)
{
	json_t *kinds = json_object_get(req, "fds"), *paths = json_object_get(req, "paths");
	json_t *caps = json_object_get(req, "dropped_caps");
	json_int_t f = json_integer_value(json_object_get(req, "flags"));
	json_int_t mib = json_integer_value(json_object_get(req, "memory_mib"));
	json_int_t pids = json_integer_value(json_object_get(req, "pids_max"));
	json_int_t cpu = json_integer_value(json_object_get(req, "cpu_milli"));
	/*
	 * Audit too: the caller could run the command unconfined, and a
	 * mandatory rule's denies stay denies (policy_maps_bind_exec_cgroup).
	 */
	const __u32 known = CGWARD_POLICY_NO_NETWORK | CGWARD_POLICY_ALLOW_LOOPBACK |
			    CGWARD_POLICY_NO_UNIX_OUTSIDE | CGWARD_POLICY_READ_ROOTS |
			    CGWARD_POLICY_AUDIT;

	if (!json_is_array(kinds) || !json_is_array(paths) || json_array_size(kinds) != n_fds ||
	    json_array_size(paths) != n_fds || n_fds == 0 ||
	    (strcmp(json_string_value(json_array_get(kinds, 0)) ?: "", "pid") != 0 &&
	     !run->spawned) ||
	    f < 0 || (f & ~(json_int_t)known) || mib < 0 ||
	    (json_int_t)MEMORY_LIMIT_MAX_MIB < mib || pids < 0 || pids > PIDS_LIMIT_MAX ||
	    cpu < 0 || cpu > CPU_LIMIT_MAX_MILLI || (cpu > 0 && cpu < CPU_LIMIT_MIN_MILLI) ||
	    (caps && !json_is_integer(caps))) {
		snprintf(err, errlen, "malformed request");
		return -EINVAL;
	}
	ask->flags = (__u32)f;
	ask->dropped_caps = caps ? (__u64)json_integer_value(caps) : capabilities_default_dropped();
	ask->limits = (struct run_limits){
	    .memory_mib = (__u64)mib, .pids = (__u64)pids, .cpu_milli = (__u64)cpu};
	return exec_roots_take(&run->given, kinds, paths, fds, n_fds, err, errlen);
}

static void serve_end_again(struct exec_service *svc, int fd, const char *cgroup,
			    const struct ucred *peer);

/* A spawned run's supervisor: until its command is in the cgroup, an empty cgroup is no end. */
static void start_spawned(struct exec_service *svc, struct exec_service_run *run,
			  const struct exec_spawn *spawn)
{
	const struct exec_spawn_run what = {.core = &run->core,
					    .roots = run->given.roots,
					    .n_roots = run->given.n_roots,
					    .nodes = run->given.nodes,
					    .n_nodes = run->given.n_nodes};

	if (exec_spawn_start(&svc->spawner, spawn, &what, &run->setup_fd) == 0 &&
	    wait_loop_watch(svc->epoll_fd, run->setup_fd) != 0) {
		/* Unwatched, it would hold the run forever: the empty cgroup ends it instead. */
		close(run->setup_fd);
		run->setup_fd = -1;
	}
}

/* A spawned run's command is in its cgroup (or never will be): its end is the cgroup's now. */
static void spawn_set_up(struct exec_service *svc, size_t i)
{
	struct exec_service_run *run = svc->runs[i];
	struct private_tmp_report report;

	/* Out of the poll set first: a supervisor forked meanwhile may hold the pipe a moment. */
	epoll_ctl(svc->epoll_fd, EPOLL_CTL_DEL, run->setup_fd, NULL);
	if (read(run->setup_fd, &report, sizeof(report)) == sizeof(report))
		run_core_note_private_tmp(&run->core, &report);
	close(run->setup_fd);
	run->setup_fd = -1;
	if (!exec_service_run_populated(run))
		exec_service_end_run(svc, i);
}

/* One request: answered, and logged, whatever its outcome. */
static void serve_request(struct exec_service *svc, int fd, char *text, int *fds, size_t n_fds)
{
	struct ucred peer = {0};
	socklen_t len = sizeof(peer);
	struct exec_service_run *run = calloc(1, sizeof(*run));
	struct exec_service_user *user = NULL;
	json_t *req = json_loads(text, 0, NULL);
	const char *argv0 = json_string_value(json_object_get(req, "argv0"));
	char err[PATH_MAX + 256] = "";
	struct run_ask ask = {0};
	pid_t pid = 0;
	bool oom, caller_starts = false;
	struct exec_spawn spawn = {
	    .pidfd = -1, .cwd_fd = -1, .stdio_fds = {-1, -1, -1}, .exit_fd = -1};
	int ret = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) ? -errno : 0;

	if (ret == 0 && strcmp(json_string_value(json_object_get(req, "op")) ?: "", "end") == 0) {
		serve_end_again(svc, fd, json_string_value(json_object_get(req, "cgroup")), &peer);
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		free(run);
		json_decref(req);
		return;
	}
	if (ret == 0 && (!run || !(user = exec_service_find_user(svc, peer.uid))))
		ret = -ENOMEM;
	if (run) {
		*run = (struct exec_service_run){
		    .conn_fd = fd, .events_wd = -1, .setup_fd = -1, .limits.notify_fd = -1};
		run_core_init(&run->core, svc->maps, peer.uid);
	}
	if (ret)
		snprintf(err, sizeof(err), "%s", strerror(-ret));
	if (ret == 0)
		ret = admit(svc, user, err, sizeof(err));
	if (ret == 0)
		ret = read_unconfined_caller(svc, peer.pid, &ask, err, sizeof(err));
	if (ret == 0 && !req) {
		snprintf(err, sizeof(err), "malformed request");
		ret = -EINVAL;
	}
	if (ret == 0) {
		run->uid = peer.uid;
		ask.gid = peer.gid;
		run->spawned = exec_spawn_requested(req);
		if (run->spawned)
			ret = exec_spawn_read(req, fds, n_fds, fd, &peer, &spawn, err, sizeof(err));
		/* Its supervisor adds the private directories: every root goes at the end. */
		run->private_tmp = run->core.roots_elsewhere = run->spawned && spawn.private_tmp;
		caller_starts = ret == -EOPNOTSUPP && !run->private_tmp;
	}
	if (ret == 0)
		ret = read_request(req, fds, n_fds, run, &ask, err, sizeof(err));
	if (ret == 0)
		ret = exec_roots_check(&run->given, err, sizeof(err));
	if (ret == 0 && !run->spawned)
		ret = check_child(fds[0], &peer, &pid, err, sizeof(err));
	if (ret == 0)
		ret = bind_run(svc, run, pid, fds[0], &ask, err, sizeof(err));
	if (ret == 0)
		ret = exec_service_add_run(svc, run);
	log_request(svc, &peer, pid, argv0, run, ret ? err : NULL, caller_starts);
	reply(fd, ret ? err : NULL, caller_starts, run, svc);
	for (size_t i = 0; i < n_fds; i++) {
		if (fds[i] >= 0)
			close(fds[i]); /* the pidfd, and those of a request refused early */
	}
	json_decref(req);
	if (ret == 0) {
		user->runs++;
		exec_service_watch_run(svc, run);
		if (run->spawned)
			start_spawned(svc, run, &spawn);
		exec_spawn_free(&spawn);
		/* A command that ended before the watch never changes cgroup.events again. */
		if (run->setup_fd < 0 && !exec_service_run_populated(run))
			exec_service_end_run(svc, svc->n_runs - 1);
		return;
	}
	exec_spawn_free(&spawn);
	if (run) {
		end_cgroup(svc, run, &oom);
		release_run(run); /* closes fd */
	} else {
		close(fd);
	}
}

static unsigned int pending_of(const struct exec_service *svc, uid_t uid)
{
	unsigned int n = 0;

	for (size_t i = 0; i < EXEC_SERVICE_PENDING; i++)
		n += svc->pending[i].fd >= 0 && svc->pending[i].uid == uid;
	return n;
}

/*
 * A free pending slot; when none is, the slot of the oldest connection of
 * the user holding the most, closed.
 */
static size_t pending_slot(struct exec_service *svc)
{
	size_t evict = 0;
	unsigned int most = 0;

	for (size_t i = 0; i < EXEC_SERVICE_PENDING; i++) {
		const struct exec_service_pending *p = &svc->pending[i];
		unsigned int held;

		if (p->fd < 0)
			return i;
		held = pending_of(svc, p->uid);
		if (held > most || (held == most && p->accepted < svc->pending[evict].accepted)) {
			most = held;
			evict = i;
		}
	}
	close(svc->pending[evict].fd);
	svc->pending[evict].fd = -1;
	return evict;
}

static void accept_requests(struct exec_service *svc)
{
	for (;;) {
		int fd = accept4(svc->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred peer;
		socklen_t len = sizeof(peer);
		size_t i;

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) ||
		    wait_loop_watch(svc->epoll_fd, fd)) {
			close(fd);
			continue;
		}
		i = pending_slot(svc);
		svc->pending[i] = (struct exec_service_pending){
		    .fd = fd, .uid = peer.uid, .accepted = ++svc->accepted};
	}
}

static void read_pending(struct exec_service *svc, size_t i)
{
	static char text[EXEC_MESSAGE_MAX];
	int fds[EXEC_MESSAGE_MAX_FDS];
	size_t n_fds;
	int fd = svc->pending[i].fd;
	ssize_t n = exec_message_recv(fd, text, sizeof(text), fds, EXEC_MESSAGE_MAX_FDS, &n_fds,
				      MSG_DONTWAIT);

	if (n == -EAGAIN)
		return;
	svc->pending[i].fd = -1;
	if (n <= 0) {
		close(fd);
		return;
	}
	serve_request(svc, fd, text, fds, n_fds);
}

/* The answer to the caller's end: with the run's limit counters, read before its cgroup went. */
static void answer_end(int conn_fd, __u64 lost, bool oom, const struct limit_final *final)
{
	char text[320];
	int len = snprintf(text, sizeof(text), "{\"events_lost\":%llu,\"oom_killed\":%s",
			   (unsigned long long)lost, oom ? "true" : "false");

	if (final)
		len +=
		    snprintf(text + len, sizeof(text) - (size_t)len,
			     ",\"limits\":{\"oom_kill\":%llu,\"pids_max\":%llu,"
			     "\"cpu_throttled\":%llu,\"throttled_usec\":%llu,\"usage_usec\":%llu}",
			     (unsigned long long) final->counts.oom_kill,
			     (unsigned long long) final->counts.pids_max,
			     (unsigned long long) final->counts.cpu_throttled,
			     (unsigned long long) final->throttled_usec,
			     (unsigned long long) final->usage_usec);
	snprintf(text + len, sizeof(text) - (size_t)len, "}");
	exec_message_send(conn_fd, text, strlen(text), NULL, 0);
}

/*
 * The caller reads the ring's last records once answered: the run is
 * released when it hangs up (drained). A caller that never does holds a
 * place of EXEC_SERVICE_DRAINING; the oldest run's ring is parked for the next one.
 */
static void drain_run(struct exec_service *svc, struct exec_service_run *run)
{
	if (svc->n_draining == EXEC_SERVICE_DRAINING) {
		release_run(svc->draining[0]);
		svc->n_draining--;
		memmove(svc->draining, svc->draining + 1, svc->n_draining * sizeof(*svc->draining));
	}
	svc->draining[svc->n_draining++] = run;
}

/*
 * A draining run's connection is readable: its caller's end, which crossed
 * the answer (sent once the cgroup emptied), is passed over; its hang-up
 * releases the run.
 */
static void read_draining_conn(struct exec_service *svc, size_t i)
{
	char text[256];
	size_t n_fds;
	ssize_t n = exec_message_recv(svc->draining[i]->conn_fd, text, sizeof(text), NULL, 0,
				      &n_fds, MSG_DONTWAIT);

	if (n > 0 || n == -EAGAIN)
		return;
	release_run(svc->draining[i]);
	svc->n_draining--;
	memmove(svc->draining + i, svc->draining + i + 1,
		(svc->n_draining - i) * sizeof(*svc->draining));
}

/* Kept for a caller whose connection died with the agent before (exec_agent_end asks again). */
static void remember_ended(struct exec_service *svc, const char *cgroup, uid_t uid, __u64 lost,
			   bool oom)
{
	struct exec_service_ended *slot = &svc->ended[svc->next_ended];

	free(slot->cgroup);
	*slot = (struct exec_service_ended){
	    .cgroup = strdup(cgroup), .uid = uid, .events_lost = lost, .oom_killed = oom};
	svc->next_ended = (svc->next_ended + 1) % EXEC_SERVICE_ENDED;
}

void exec_service_end_run(struct exec_service *svc, size_t i)
{
	struct exec_service_run *run = svc->runs[i];
	int conn_fd = run->conn_fd;
	struct exec_service_user *user = exec_service_find_user(svc, run->uid);
	char cgroup[PATH_MAX];
	uid_t uid = run->uid;
	__u64 lost;
	bool oom;

	svc->runs[i] = svc->runs[--svc->n_runs];
	if (user && user->runs)
		user->runs--;
	snprintf(cgroup, sizeof(cgroup), "%s",
		 cgroup_relative_path(svc->layout, run->core.cgroup.path));
	end_cgroup(svc, run, &oom);
	lost = run_core_events_lost(&run->core);
	if (conn_fd >= 0) {
		answer_end(conn_fd, lost, oom, &run->final);
		drain_run(svc, run);
		return;
	}
	remember_ended(svc, cgroup, uid, lost, oom);
	release_run(run);
}

/*
 * An end asked on a new connection by a caller whose agent was restarted
 * (the connection it had died with that agent): its run, adopted, ends as
 * it would have; one that ended meanwhile is answered from what was kept.
 */
static void serve_end_again(struct exec_service *svc, int fd, const char *cgroup,
			    const struct ucred *peer)
{
	for (size_t i = 0; cgroup && i < svc->n_runs; i++) {
		struct exec_service_run *run = svc->runs[i];

		if (run->conn_fd < 0 && run->uid == peer->uid &&
		    strcmp(cgroup_relative_path(svc->layout, run->core.cgroup.path), cgroup) == 0) {
			run->conn_fd = fd; /* watched since it was accepted */
			if (!exec_service_run_populated(run) || exec_cgroup_kill(&run->core.cgroup))
				exec_service_end_run(svc, i);
			return;
		}
	}
	for (size_t i = 0; cgroup && i < EXEC_SERVICE_ENDED; i++) {
		struct exec_service_ended *ended = &svc->ended[i];

		if (ended->cgroup && ended->uid == peer->uid &&
		    strcmp(ended->cgroup, cgroup) == 0) {
			answer_end(fd, ended->events_lost, ended->oom_killed, NULL);
			close(fd);
			free(ended->cgroup);
			ended->cgroup = NULL;
			return;
		}
	}
	reply(fd, "no such run of this user", false, NULL, svc);
	close(fd);
}

/*
 * The caller's end: the run is over for it. Its hang-up alone changes nothing.
 * What is left of the run is killed; it ends, and the caller is answered,
 * once its cgroup is empty (end_empty_runs), so the agent never waits on
 * it. Without cgroup.kill (before 5.14) a kill per process can miss a fork:
 * exec_cgroup_destroy's loop, bounded, kills until none is left.
 */
static void read_run_conn(struct exec_service *svc, size_t i)
{
	struct exec_service_run *run = svc->runs[i];
	char text[256];
	size_t n_fds;
	ssize_t n =
	    exec_message_recv(run->conn_fd, text, sizeof(text), NULL, 0, &n_fds, MSG_DONTWAIT);

	json_t *msg;
	bool end;

	if (n == -EAGAIN)
		return;
	msg = n > 0 ? json_loads(text, 0, NULL) : NULL;
	end = strcmp(json_string_value(json_object_get(msg, "op")) ?: "", "end") == 0;
	json_decref(msg);
	if (end) {
		if (!exec_service_run_populated(run) || exec_cgroup_kill(&run->core.cgroup))
			exec_service_end_run(svc, i);
		return;
	}
	close(run->conn_fd);
	run->conn_fd = -1;
}

bool exec_service_run_populated(const struct exec_service_run *run)
{
	char path[PATH_MAX + 16];
	long values[2];

	snprintf(path, sizeof(path), "%s/cgroup.events", run->core.cgroup.path);
	return read_proc_field(path, "populated", values) != 0 || values[0] != 0;
}

/* The watches named by the events on the service's inotify descriptor. */
struct woken {
	int wds[64];
	size_t n;
	bool all; /* more than wds holds, or the queue overflowed */
};

static void read_woken(int inotify_fd, struct woken *woken)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t len;

	while ((len = read(inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if ((ev->mask & IN_Q_OVERFLOW) ||
			    woken->n == sizeof(woken->wds) / sizeof(int))
				woken->all = true;
			else
				woken->wds[woken->n++] = ev->wd;
		}
	}
}

static bool was_woken(const struct woken *woken, int wd)
{
	for (size_t i = 0; i < woken->n; i++) {
		if (woken->wds[i] == wd)
			return true;
	}
	return woken->all;
}

static bool limits_woken(const struct woken *woken, const struct limit_watch *limits)
{
	for (size_t i = 0; i < woken->n; i++) {
		if (limit_watch_has(limits, woken->wds[i]))
			return true;
	}
	return woken->all;
}

/*
 * Runs' cgroup files changed: their limits' hits reported, and the runs
 * whose cgroup became empty ended. Only the runs whose files the events
 * name are read: sixteen runs at once are 32 wake-ups of the agent.
 */
static void end_empty_runs(struct exec_service *svc)
{
	struct woken woken = {.n = 0};

	read_woken(svc->inotify_fd, &woken);
	for (size_t i = 0; i < svc->n_runs; i++) {
		struct limit_watch *limits = &svc->runs[i]->limits;

		if (limits_woken(&woken, limits))
			limit_watch_report(limits, svc->sink, &svc->limit_hits);
	}
	for (size_t i = svc->n_runs; i-- > 0;) {
		const struct exec_service_run *run = svc->runs[i];

		if (run->setup_fd < 0 && was_woken(&woken, run->events_wd) &&
		    !exec_service_run_populated(run))
			exec_service_end_run(svc, i);
	}
}

void exec_service_serve(struct exec_service *svc)
{
	struct epoll_event ready[16];
	int n;

	if (svc->epoll_fd < 0)
		return;
	n = epoll_wait(svc->epoll_fd, ready, 16, 0);
	for (int e = 0; e < n; e++) {
		int fd = ready[e].data.fd;

		if (fd == svc->listen_fd) {
			accept_requests(svc);
		} else if (fd == svc->inotify_fd) {
			end_empty_runs(svc);
		} else {
			for (size_t i = 0; i < EXEC_SERVICE_PENDING; i++) {
				if (svc->pending[i].fd == fd)
					read_pending(svc, i);
			}
			for (size_t i = 0; i < svc->n_draining; i++) {
				if (svc->draining[i]->conn_fd == fd) {
					read_draining_conn(svc, i);
					break;
				}
			}
			for (size_t i = 0; i < svc->n_runs; i++) {
				if (svc->runs[i]->conn_fd == fd) {
					read_run_conn(svc, i);
					break;
				}
				if (svc->runs[i]->setup_fd == fd) {
					spawn_set_up(svc, i);
					break;
				}
			}
		}
	}
}

void exec_service_close(struct exec_service *svc)
{
	for (size_t i = 0; i < EXEC_SERVICE_PENDING; i++) {
		if (svc->pending[i].fd >= 0)
			close(svc->pending[i].fd);
	}
	/* The runs still going stay confined; the next agent removes them once empty. */
	for (size_t i = 0; i < svc->n_runs; i++)
		exec_service_free_run(svc->runs[i]);
	free(svc->runs);
	for (size_t i = 0; i < svc->n_draining; i++)
		release_run(svc->draining[i]);
	for (size_t i = 0; i < EXEC_SERVICE_ENDED; i++)
		free(svc->ended[i].cgroup);
	free(svc->users);
	spawner_stop(&svc->spawner);
	if (svc->listen_fd >= 0) {
		close(svc->listen_fd);
		unlink(svc->config.path);
	}
	if (svc->inotify_fd >= 0)
		close(svc->inotify_fd);
	if (svc->epoll_fd >= 0)
		close(svc->epoll_fd);
}
