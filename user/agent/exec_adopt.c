// SPDX-License-Identifier: GPL-2.0
/*
 * The runs an earlier agent left (it was restarted), or a root cgward exec
 * that was killed: still confined, found by their cgroups wherever their
 * callers were, and adopted so that each ends as the runs of this agent do.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_placement.h"
#include "cgward_abi.h"
#include "exec_service_run.h"
#include "exec_socket.h"
#include "gc.h"
#include "proc_field.h"

/* Whose run it is: the real uid of a process in it (none: it ends at once, uid 0). */
static uid_t run_uid(const char *path)
{
	char pid[16], status[64];
	long values[2] = {0, 0};
	FILE *procs;

	snprintf(status, sizeof(status), "%s/cgroup.procs", path);
	procs = fopen(status, "re");
	if (!procs)
		return 0;
	if (fscanf(procs, "%15s", pid) == 1) {
		snprintf(status, sizeof(status), "/proc/%s/status", pid);
		if (read_proc_field(status, "Uid:", values))
			values[0] = 0;
	}
	fclose(procs);
	return (uid_t)values[0];
}

/*
 * A run bound to an exec policy whose cgward is gone: adopted, so that it
 * ends as the others do, once empty. Its roots are found by its policy id.
 */
static int adopt_run(const char *path, pid_t creator, void *arg)
{
	struct exec_service *svc = arg;
	struct cgward_cgroup_policy binding;
	struct exec_service_run *run;
	struct exec_service_user *user;
	__u64 id;
	uid_t uid;

	/* An agent that is pid 1 of its container has its predecessor's pid. */
	bool gone = creator == getpid() || !exec_creator_alive((__u32)creator);

	if (creator <= 0 || !gone || cgroup_read_id(path, &id) ||
	    policy_maps_get_binding(svc->maps, id, &binding) ||
	    binding.policy_id < CGWARD_EXEC_POLICY_MIN)
		return 0;
	uid = run_uid(path);
	run = calloc(1, sizeof(*run));
	user = exec_service_find_user(svc, uid);
	if (!run || !user) {
		free(run);
		return 0;
	}
	*run = (struct exec_service_run){
	    .conn_fd = -1, .uid = uid, .events_wd = -1, .setup_fd = -1, .limits.notify_fd = -1};
	run_core_init(&run->core, svc->maps, uid);
	run->core.roots_elsewhere = true; /* installed by an earlier agent */
	snprintf(run->core.cgroup.path, sizeof(run->core.cgroup.path), "%s", path);
	run->core.cgroup.id = id;
	run->core.cgroup_created = true;
	run->core.policy_id = binding.policy_id;
	if (exec_service_add_run(svc, run)) {
		exec_service_free_run(run);
		return 0;
	}
	user->runs++;
	exec_service_watch_run(svc, run);
	if (!exec_service_run_populated(run))
		exec_service_end_run(svc, svc->n_runs - 1);
	return 0;
}

void exec_service_adopt(struct exec_service *svc)
{
	if (svc->listen_fd >= 0)
		cgroup_each_run(svc->layout->unified, adopt_run, svc);
}
