// SPDX-License-Identifier: GPL-2.0
/* One confined run of cgward exec: set-up, gate, wait and teardown. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "exec_agent.h"
#include "event_stream.h"
#include "exec_run.h"
#include "exit_codes.h"
#include "learn.h"
#include "limit_events.h"
#include "plane.h"
#include "policy_maps.h"
#include "private_tmp.h"
#include "read_system.h"
#include "roots.h"
#include "run_core.h"
#include "spawn.h"
#include "wait_loop.h"

/* What one execution holds, released in reverse order by exec_cleanup(). */
struct execution {
	const struct exec_request *req;
	/*
	 * Not root: the agent binds the run through its exec socket (agent_fd),
	 * and owns its cgroup; it tells the lost count and OOM kill at the end.
	 */
	bool via_agent;
	int agent_fd;
	struct exec_agent_grant grant;
	struct exec_agent_end agent_end;
	struct root_spec roots[EXEC_MAX_ROOTS + 1 + READ_SYSTEM_MAX]; /* the cwd, the system set */
	size_t n_roots;
	size_t n_given_roots;			       /* roots[] before the system set */
	struct learn learn;			       /* --learn */
	struct root_spec unix_sockets[EXEC_MAX_ROOTS]; /* --allow-unix */
	size_t n_unix_sockets;
	struct root_spec devices[EXEC_MAX_ROOTS]; /* --allow-dev */
	size_t n_devices;
	struct cgroup_layout layout;
	struct plane plane;
	bool plane_open;
	struct run_core core; /* direct: the run's policy, ring and cgroup */
	int agent_ring_fd;    /* through the agent: the run's ring, the agent's grant */
	struct event_context ctx;
	struct event_stream events;
	bool events_open;
	struct limit_watch limits; /* the run's limits hit, typed events to the sink */
	FILE *sink;
	int signal_fd;
	int epoll_fd;
};

static bool has_write_root(const struct exec_request *req)
{
	for (size_t i = 0; i < req->n_root_args; i++) {
		if (req->root_access[i] == CGWARD_ACCESS_WRITE)
			return true;
	}
	return false;
}

static int resolve_one(struct execution *x, const char *path, __u32 access)
{
	char err[PATH_MAX + 128];
	int ret = root_resolve(path, access, &x->roots[x->n_roots], err, sizeof(err));

	if (ret) {
		fprintf(stderr, "cgward: %s\n", err);
		return ret;
	}
	x->n_roots++;
	return 0;
}

/*
 * Each PATH of --allow-unix or --allow-dev must name a unix socket or a
 * device node now; its inode, or its device, is what the kernel allows.
 */
static int resolve_nodes(const char *option, const char *const *args, size_t n_args, __u32 access,
			 struct root_spec *nodes, size_t *n_nodes)
{
	char err[PATH_MAX + 128];
	int ret;

	for (size_t i = 0; i < n_args; i++) {
		ret = root_resolve_node(option, args[i], access, &nodes[i], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "cgward: %s\n", err);
			return ret;
		}
		(*n_nodes)++;
	}
	return 0;
}

static int resolve_allowed_nodes(struct execution *x)
{
	const struct exec_request *req = x->req;
	int ret = resolve_nodes("--allow-unix", req->unix_args, req->n_unix_args,
				CGWARD_ACCESS_UNIX_PEER, x->unix_sockets, &x->n_unix_sockets);

	if (ret)
		return ret;
	return resolve_nodes("--allow-dev", req->device_args, req->n_device_args,
			     CGWARD_ACCESS_DEVICE, x->devices, &x->n_devices);
}

/* A root that is /tmp, /var/tmp or /dev/shm itself would be the shared directory again. */
static int check_private_tmp(const struct execution *x)
{
	for (size_t i = 0; x->req->private_tmp && i < x->n_roots; i++) {
		if (private_tmp_dir_of(x->roots[i].path)) {
			fprintf(stderr,
				"cgward: exec: root '%s' with --private-tmp: the command gets "
				"its own %s; use a directory beneath it\n",
				x->roots[i].path, x->roots[i].path);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Every root valid, no duplicates, every read-only exception inside a write
 * root; then, where reads are confined, the system set.
 */
static int resolve_roots(struct execution *x)
{
	char cwd[PATH_MAX], err[2 * PATH_MAX + 64] = "";
	int ret = 0;

	if (!has_write_root(x->req)) {
		if (!getcwd(cwd, sizeof(cwd))) {
			fprintf(stderr, "cgward: exec: current directory: %s\n", strerror(errno));
			return -errno;
		}
		ret = resolve_one(x, cwd, CGWARD_ACCESS_WRITE);
	}
	for (size_t i = 0; ret == 0 && i < x->req->n_root_args; i++)
		ret = resolve_one(x, x->req->root_args[i], x->req->root_access[i]);
	if (ret == 0)
		ret = roots_check_duplicates(x->roots, x->n_roots, err, sizeof(err));
	if (ret == 0)
		ret = roots_check_nesting(x->roots, x->n_roots, err, sizeof(err));
	x->n_given_roots = x->n_roots;
	if (ret == 0 && (x->req->policy_flags & CGWARD_POLICY_READ_ROOTS) &&
	    !x->req->read_system_none)
		ret = read_system_add(x->roots, &x->n_roots, sizeof(x->roots) / sizeof(x->roots[0]),
				      err, sizeof(err));
	if (err[0])
		fprintf(stderr, "cgward: %s\n", err);
	return ret ? ret : check_private_tmp(x);
}

/* Where events go: a served client's socket, --events FILE, or stderr. */
static int open_sink(struct execution *x)
{
	const char *path = x->req->events_path;
	int fd, ret;

	if (!x->req->client && !path) {
		/* --learn: its audit events are its report's, not each a line on stderr. */
		x->sink = x->req->learn ? fopen("/dev/null", "ae") : stderr;
		return x->sink ? 0 : -errno;
	}
	fd = x->req->client ? dup(x->req->client->reply_fd)
			    : open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0 && (x->sink = fdopen(fd, x->req->client ? "w" : "a")))
		return 0;
	ret = -errno;
	if (fd >= 0)
		close(fd);
	if (x->req->client)
		fprintf(stderr, "cgward: exec: the client's socket: %s\n", strerror(-ret));
	else
		fprintf(stderr, "cgward: --events %s: %s\n", path, strerror(-ret));
	return ret;
}

/* Signals that end the wait are read from a signalfd, so they are blocked. */
static int block_signals(struct execution *x, sigset_t *previous)
{
	sigset_t handled;
	int ret;

	sigemptyset(&handled);
	sigaddset(&handled, SIGCHLD);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	ret = wait_loop_signal_fd(&handled, previous);
	if (ret < 0)
		return ret;
	x->signal_fd = ret;
	return 0;
}

/* The lost counter of the run's own ring buffer: its policy_info entry's. */
static __u64 exec_events_lost(void *arg)
{
	const struct execution *x = arg;

	return x->via_agent ? x->agent_end.events_lost : run_core_events_lost(&x->core);
}

/*
 * The run's policy under an id of its own, with its roots, before its
 * cgroup exists: the cgroup is bound to a complete policy.
 */
static int install_policy(struct execution *x)
{
	int ret;

	run_core_init(&x->core, &x->plane.maps, getuid());
	ret = run_core_claim(&x->core, PLANE_DIR);
	if (ret == 0)
		ret = run_core_put_roots(&x->core, x->roots, x->n_roots);
	return ret;
}

/*
 * The run's limits, watched from here on both paths: the caller reads its
 * run's cgroup files as the agent would. No watch is no event, never a
 * failed run.
 */
static void watch_limits(struct execution *x, const char *cgroup_path)
{
	char dir[2 * PATH_MAX];

	if (!x->layout.unified[0] && cgroup_layout_detect("/proc/self/mountinfo", &x->layout))
		return;
	snprintf(dir, sizeof(dir), "%s%s", x->layout.unified, cgroup_path);
	limit_watch_open(&x->limits, dir, cgroup_path, -1, x->req->limits.cpu_milli > 0, -1);
}

/* The run's deny events, from its own ring buffer, as JSON lines to the sink. */
static int open_events(struct execution *x, int ring_fd, size_t ring_size, const char *cgroup_path)
{
	int ret;

	x->ctx = (struct event_context){.roots = x->roots,
					.n_roots = x->n_roots,
					.cgroup_path = cgroup_path,
					.policy_name = "exec",
					.boot_to_realtime_ns = event_clock_offset()};
	ret = event_stream_open(&x->events, ring_fd, ring_size, exec_events_lost, x, x->sink,
				&x->ctx);
	x->events_open = ret == 0;
	if (ret)
		fprintf(stderr, "cgward: cannot read deny events: %s\n", strerror(-ret));
	else
		watch_limits(x, cgroup_path);
	if (ret == 0 && x->req->learn) {
		x->events.observe = learn_note;
		x->events.observe_arg = &x->learn;
	}
	return ret;
}

/* The run's records and its limits' counters wake the wait for its command. */
static int watch_run(struct execution *x)
{
	int ret = wait_loop_watch(x->epoll_fd, event_stream_fd(&x->events));

	if (ret == 0 && limit_watch_fd(&x->limits) >= 0)
		ret = wait_loop_watch(x->epoll_fd, limit_watch_fd(&x->limits));
	return ret;
}

/*
 * The plane adopted (or loaded), the policy, the cgroup, the event stream:
 * everything but CMD. Through the agent, only its socket: the agent binds
 * CMD once it is at its gate (confine_through_agent).
 */
static int set_up_enforcement(struct execution *x)
{
	char err[PATH_MAX + 8192], own[PATH_MAX] = "";
	int ret;

	if (x->via_agent)
		return x->agent_fd >= 0 ? 0 : exec_agent_connect(&x->agent_fd);

	ret = cgroup_layout_detect("/proc/self/mountinfo", &x->layout);
	if (ret) {
		fprintf(stderr, "cgward: no cgroup2 hierarchy mounted: %s\n", strerror(-ret));
		return ret;
	}
	ret = plane_open(PLANE_DIR, false, &x->plane, err, sizeof(err));
	x->plane_open = ret == 0;
	if (ret) {
		fprintf(stderr, "cgward: %s\n", err);
		return ret;
	}
	ret = install_policy(x);
	if (ret) {
		fprintf(stderr, "cgward: cannot install the policy: %s\n", strerror(-ret));
		return ret;
	}
	ret = x->req->cgroup_parent ? 0 : cgroup_member_of(x->layout.self_cgroup, own, sizeof(own));
	if (ret)
		snprintf(err, sizeof(err), "cannot read cgward's own cgroup: %s", strerror(-ret));
	if (ret == 0)
		ret = run_core_create_cgroup(&x->core, &x->layout, x->req->cgroup_parent, own,
					     getgid(), &x->req->limits, err, sizeof(err));
	if (ret == 0)
		ret = run_core_bind(&x->core, x->req->policy_flags, x->req->dropped_caps, err,
				    sizeof(err));
	if (ret) {
		fprintf(stderr, "cgward: %s\n", err);
		return ret;
	}
	return open_events(x, x->core.ring_fd, CGWARD_EXEC_RING_SIZE,
			   cgroup_relative_path(&x->layout, x->core.cgroup.path));
}

static int exec_error_status(int err, const char *cmd)
{
	fprintf(stderr, "cgward: %s: %s\n", cmd, strerror(err));
	return err == ENOENT ? EXIT_CMD_NOT_FOUND : EXIT_CMD_CANNOT_EXECUTE;
}

/*
 * The agent moves the gated child into a cgroup of its own, bound to the
 * roots whose descriptors it was given, and hands over the run's ring buffer.
 * With pid 0 (--private-tmp, --spawn), the agent starts CMD itself (its
 * user/agent/exec_spawn.h) and says how it ended on grant.exit_fd.
 */
static int confine_through_agent(struct execution *x, pid_t pid)
{
	static struct root_spec nodes[2 * EXEC_MAX_ROOTS]; /* --allow-unix, then --allow-dev */
	struct exec_agent_ask ask = {.pid = pid,
				     .spawn = pid == 0,
				     .private_tmp = x->req->private_tmp,
				     .argv = x->req->argv,
				     .client = x->req->client,
				     .argv0 = x->req->argv[0],
				     .policy_flags = x->req->policy_flags,
				     .dropped_caps = x->req->dropped_caps,
				     .limits = x->req->limits,
				     .roots = x->roots,
				     .n_roots = x->n_roots,
				     .nodes = nodes,
				     .n_nodes = x->n_unix_sockets + x->n_devices};
	int ret;

	memcpy(nodes, x->unix_sockets, x->n_unix_sockets * sizeof(*nodes));
	memcpy(nodes + x->n_unix_sockets, x->devices, x->n_devices * sizeof(*nodes));
	ret = exec_agent_confine(x->agent_fd, &ask, &x->grant);
	if (ret == 0) {
		x->agent_ring_fd = x->grant.ring_fd;
		ret = open_events(x, x->agent_ring_fd, x->grant.ring_size, x->grant.cgroup);
	}
	return ret;
}

/* Has the gated child moved into the cgroup (if it was not started there). */
static int confine_child(struct execution *x, const struct spawned *child, char *err, size_t errlen)
{
	if (x->via_agent)
		return confine_through_agent(x, child->pid);
	if (child->in_cgroup)
		return exec_cgroup_attach_memory(&x->core.cgroup, child->pid, err, errlen);
	return exec_cgroup_attach(&x->core.cgroup, child->pid, err, errlen);
}

/* Confines the gated child, rechecks the roots, and lets it run. */
static int start_command(struct execution *x, struct spawned *child)
{
	char err[PATH_MAX + 128] = "";
	int ret = confine_child(x, child, err, sizeof(err));

	for (size_t i = 0; ret == 0 && i < x->n_roots; i++)
		ret = root_verify_unchanged(&x->roots[i], err, sizeof(err));
	if (ret == 0 && !x->via_agent && (ret = run_core_ring_ready(&x->core)) != 0)
		snprintf(err, sizeof(err), "cannot install the run's ring buffer: %s",
			 strerror(-ret));
	if (ret) {
		if (err[0])
			fprintf(stderr, "cgward: %s\n", err);
		spawn_abort(child);
		return EXIT_SETUP_FAILED;
	}
	ret = spawn_release(child);
	if (ret) {
		waitpid(child->pid, NULL, 0);
		return exec_error_status(-ret, x->req->argv[0]);
	}
	return 0;
}

/* How the command the agent started ended: its status, or why it never ran, as cgward's own. */
static int spawned_status(struct execution *x)
{
	struct exec_agent_exit outcome;
	int ret = exec_agent_read_exit(x->grant.exit_fd, &outcome);

	if (ret) {
		fprintf(stderr, "cgward: exec: the agent did not say how %s ended: %s\n",
			x->req->argv[0], strerror(-ret));
		return EXIT_SETUP_FAILED;
	}
	if (outcome.error[0]) {
		fprintf(stderr, "cgward: %s\n", outcome.error);
		return EXIT_SETUP_FAILED;
	}
	return outcome.exec_error ? exec_error_status(outcome.exec_error, x->req->argv[0])
				  : outcome.status;
}

/*
 * Streams events until CMD exits (pid 0: the agent's, until its exit
 * message); SIGINT, SIGTERM and SIGHUP to cgward end the run (the whole
 * cgroup is killed at teardown), with 128+signal, and so does a served
 * client's hang-up, as SIGTERM.
 */
static int wait_for_command(struct execution *x, pid_t pid)
{
	struct pollfd exit_fd = {.fd = x->grant.exit_fd, .events = POLLIN};
	struct epoll_event ev;
	struct signalfd_siginfo si;
	int wstatus;

	for (;;) {
		int n = epoll_wait(x->epoll_fd, &ev, 1, -1);

		if (n < 0 && errno != EINTR)
			return EXIT_SETUP_FAILED;
		event_stream_drain(&x->events);
		if (n == 1 && ev.data.fd == limit_watch_fd(&x->limits))
			limit_watch_report(&x->limits, x->sink, NULL);
		if (n == 1 && x->req->client && ev.data.fd == x->req->client->reply_fd)
			return 128 + SIGTERM;
		while (read(x->signal_fd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				return 128 + (int)si.ssi_signo;
		}
		if (pid && waitpid(pid, &wstatus, WNOHANG) == pid)
			return spawn_exit_status(wstatus);
		if (!pid && poll(&exit_fd, 1, 0) == 1)
			return spawned_status(x);
	}
}

/* The child's private tmpfs directories become write roots before it is let in. */
static int install_private_tmp(struct execution *x, const struct private_tmp_report *report)
{
	char err[128];
	int ret = run_core_put_private_tmp(&x->core, report, err, sizeof(err));

	if (ret)
		fprintf(stderr, "cgward: %s\n", err);
	return ret;
}

/*
 * The --allow-unix sockets' inodes and the --allow-dev devices, as entries
 * that count only for connecting to them and for using the device.
 */
static int install_allowed_nodes(struct execution *x)
{
	int ret = run_core_put_roots(&x->core, x->unix_sockets, x->n_unix_sockets);

	if (ret == 0)
		ret = run_core_put_roots(&x->core, x->devices, x->n_devices);
	if (ret)
		fprintf(stderr, "cgward: --allow-unix, --allow-dev: cannot install: %s\n",
			strerror(-ret));
	return ret;
}

/* Direct, CMD starts in its cgroup (through the agent, the agent moves it there). */
static int spawn_into_cgroup(struct execution *x, const sigset_t *previous, struct spawned *child)
{
	int cgroup_fd = -1, ret;

	if (!x->via_agent) {
		cgroup_fd = open(x->core.cgroup.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgroup_fd < 0)
			return -errno;
	}
	ret = spawn_gated(x->req->argv, previous, NULL, cgroup_fd, child);
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	return ret;
}

/* Starts CMD at its gate, in its own mount namespace with --private-tmp. */
static int spawn_command(struct execution *x, const sigset_t *previous, struct spawned *child)
{
	struct private_tmp_setup setup = {.roots = x->roots,
					  .n_roots = x->n_roots,
					  .sockets = x->unix_sockets,
					  .n_sockets = x->n_unix_sockets};
	struct private_tmp_report report;
	struct spawn_prepare prepare = {.run = private_tmp_enter,
					.arg = &setup,
					.report = &report,
					.report_size = sizeof(report)};
	int ret = x->via_agent ? 0 : install_allowed_nodes(x);

	if (ret)
		return ret;
	if (!x->req->private_tmp)
		return spawn_into_cgroup(x, previous, child);
	/* Outside the cgroup until moved: its mounts would be denied there. */
	ret = spawn_gated(x->req->argv, previous, &prepare, -1, child);
	if (ret == 0 && install_private_tmp(x, &report) != 0) {
		spawn_abort(child);
		ret = -EIO;
	}
	return ret;
}

/* A command the agent started: its exit comes on grant.exit_fd. */
static int wait_for_spawned(struct execution *x)
{
	int ret = watch_run(x);

	if (ret == 0)
		ret = wait_loop_watch(x->epoll_fd, x->grant.exit_fd);
	if (ret == 0 && x->req->client)
		ret = wait_loop_watch(x->epoll_fd, x->req->client->reply_fd);
	if (ret) {
		fprintf(stderr, "cgward: exec: %s\n", strerror(-ret));
		return EXIT_SETUP_FAILED; /* the agent ends the run at teardown */
	}
	return wait_for_command(x, 0);
}

/*
 * --spawn, for a caller the agent cannot start the command for (its
 * confinement would not carry over): its own child then, moved in, through
 * a new connection (the agent closed the one it refused).
 */
static int confine_own_child_instead(struct execution *x)
{
	close(x->grant.exit_fd);
	x->grant.exit_fd = -1;
	close(x->agent_fd);
	return exec_agent_connect(&x->agent_fd);
}

static int run_command(struct execution *x)
{
	struct spawned child;
	sigset_t previous;
	int ret;

	ret = block_signals(x, &previous);
	if (ret == 0) {
		x->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
		ret = x->epoll_fd < 0 ? -errno : 0;
	}
	if (ret == 0)
		ret = wait_loop_watch(x->epoll_fd, x->signal_fd);
	/* Through the agent, --private-tmp (only it can make the mount namespace) and --spawn. */
	if (ret == 0 && x->via_agent && (x->req->private_tmp || x->req->spawn)) {
		ret = confine_through_agent(x, 0);
		if (ret != -EOPNOTSUPP)
			return ret ? EXIT_SETUP_FAILED : wait_for_spawned(x);
		/* A served client's own child is not this process's to make: it asks itself. */
		if (x->req->client) {
			x->req->client->caller_starts = true;
			return EXIT_SETUP_FAILED;
		}
		ret = confine_own_child_instead(x);
	}
	if (ret == 0)
		ret = spawn_command(x, &previous, &child);
	if (ret) {
		fprintf(stderr, "cgward: cannot start %s: %s\n", x->req->argv[0], strerror(-ret));
		return EXIT_SETUP_FAILED;
	}
	ret = start_command(x, &child);
	if (ret)
		return ret;
	/* After the start: through the agent, the ring buffer comes with the binding. */
	ret = watch_run(x);
	if (ret) {
		kill(child.pid, SIGKILL);
		waitpid(child.pid, NULL, 0);
		return EXIT_SETUP_FAILED;
	}
	return wait_for_command(x, child.pid);
}

static int oom_killed_status(const struct execution *x)
{
	fprintf(stderr, "cgward: %s killed: out of memory (limit %llu MiB)\n", x->req->argv[0],
		(unsigned long long)x->req->limits.memory_mib);
	return 128 + SIGKILL;
}

/*
 * The agent kills what is left and removes the cgroup: its answer comes
 * once every event of the run is in the ring buffer. A run it never bound
 * has nothing to end.
 */
static int tear_down_through_agent(struct execution *x, int status)
{
	int ret = 0;

	if (x->events_open) {
		limit_watch_unwatch(&x->limits);
		ret = exec_agent_end(x->agent_fd, x->grant.cgroup, &x->agent_end);
		event_stream_drain(&x->events);
		/* The agent read the counters before it removed the cgroup, before we might. */
		limit_watch_report_final(&x->limits, x->sink, &x->agent_end.limits, NULL);
	}
	if (ret)
		fprintf(stderr, "cgward: exec: the agent did not confirm the run's end: %s\n",
			strerror(-ret));
	if (x->agent_end.oom_killed)
		return oom_killed_status(x);
	return status;
}

/* Kills what is left of the command, removes the cgroup; the exit status says if it failed. */
static int tear_down(struct execution *x, int status)
{
	char err[PATH_MAX + 128];
	bool oom_killed;

	if (x->via_agent)
		return tear_down_through_agent(x, status);
	if (x->events_open) {
		event_stream_drain(&x->events);
		limit_watch_end(&x->limits, x->sink, NULL);
	}
	limit_watch_unwatch(&x->limits);
	if (run_core_end(&x->core, &oom_killed, err, sizeof(err))) {
		if (oom_killed)
			status = oom_killed_status(x);
		fprintf(stderr, "cgward: %s\n", err);
		/* Its processes stay confined: cgward gc removes the policy later. */
		return status ? status : EXIT_SETUP_FAILED;
	}
	if (oom_killed)
		status = oom_killed_status(x);
	/*
	 * The cgroup is gone (its binding with it): no process can use the
	 * policy now, and the ring's last records are read before it is parked.
	 */
	if (x->events_open)
		event_stream_drain(&x->events);
	run_core_release(&x->core);
	return status;
}

static void exec_cleanup(struct execution *x)
{
	if (x->events_open)
		event_stream_close(&x->events);
	limit_watch_close(&x->limits);
	if (x->plane_open)
		plane_close(&x->plane);
	run_core_close(&x->core);
	if (x->agent_ring_fd >= 0)
		close(x->agent_ring_fd);
	for (size_t i = 0; i < x->n_roots; i++)
		root_close(&x->roots[i]);
	if (x->epoll_fd >= 0)
		close(x->epoll_fd);
	if (x->signal_fd >= 0)
		close(x->signal_fd);
	if (x->sink && x->sink != stderr)
		fclose(x->sink);
	learn_free(&x->learn);
	if (x->agent_fd >= 0)
		close(x->agent_fd);
	if (x->grant.exit_fd >= 0)
		close(x->grant.exit_fd);
}

/* What only root can ask for: said before anything is resolved or run. */
static int check_agent_request(const struct exec_request *req)
{
	if (!req->cgroup_parent)
		return 0;
	fprintf(stderr, "cgward: exec: --cgroup-parent is not yet supported for non-root users\n");
	return -EPERM;
}

/*
 * The run's state is on the heap: its root arrays make it near a megabyte,
 * which zeroed on the stack cost each run milliseconds of page faults under
 * emulation; calloc maps it untouched and only the pages used fault in.
 */
int exec_run(const struct exec_request *req)
{
	struct execution *x = calloc(1, sizeof(*x));
	int status;

	if (!x) {
		fprintf(stderr, "cgward: exec: %s\n", strerror(ENOMEM));
		return EXIT_SETUP_FAILED;
	}
	x->req = req;
	x->via_agent = geteuid() != 0;
	x->agent_fd = req->client ? req->client->agent_fd : -1; /* the client's connection */
	x->grant.exit_fd = x->signal_fd = x->epoll_fd = -1;
	x->limits.notify_fd = x->core.ring_fd = x->agent_ring_fd = -1;
	learn_init(&x->learn);
	if ((x->via_agent && check_agent_request(req)) || resolve_roots(x) ||
	    resolve_allowed_nodes(x) || open_sink(x)) {
		exec_cleanup(x);
		free(x);
		return EXIT_USAGE;
	}
	status = set_up_enforcement(x) ? EXIT_SETUP_FAILED : run_command(x);
	status = tear_down(x, status);
	if (req->learn && x->events_open)
		learn_report(&x->learn, x->roots, x->n_given_roots, exec_events_lost(x), stderr);
	exec_cleanup(x);
	free(x);
	return status;
}
