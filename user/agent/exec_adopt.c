// SPDX-License-Identifier: GPL-2.0
/*
 * The runs an earlier agent left (it was restarted): still confined, found
 * by their cgroups under the slice, and adopted so that each ends as the
 * runs of this agent do.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>

#include "cgroup.h"
#include "cgward_abi.h"
#include "exec_service_run.h"
#include "exec_socket.h"

/*
 * A run an earlier agent bound (it was restarted): adopted, so that it ends
 * as the others do, once empty. Its roots are found by its policy id.
 */
static void adopt_run(struct exec_service *svc, const char *path, uid_t uid)
{
	struct exec_service_run *run = calloc(1, sizeof(*run));
	struct exec_service_user *user = exec_service_find_user(svc, uid);
	struct cgward_cgroup_policy binding;
	char events[PATH_MAX + 16];

	if (!run || !user) {
		free(run);
		return;
	}
	*run = (struct exec_service_run){.conn_fd = -1, .uid = uid, .setup_fd = -1};
	run_core_init(&run->core, svc->maps, uid);
	run->core.roots_elsewhere = true; /* installed by an earlier agent */
	snprintf(run->core.cgroup.path, sizeof(run->core.cgroup.path), "%s", path);
	run->core.cgroup_created = cgroup_read_id(path, &run->core.cgroup.id) == 0;
	if (run->core.cgroup_created &&
	    policy_maps_get_binding(svc->maps, run->core.cgroup.id, &binding) == 0 &&
	    binding.policy_id >= CGWARD_EXEC_POLICY_MIN)
		run->core.policy_id = binding.policy_id;
	if (!run->core.cgroup_created || exec_service_add_run(svc, run)) {
		exec_service_free_run(run);
		return;
	}
	user->runs++;
	snprintf(events, sizeof(events), "%s/cgroup.events", path);
	inotify_add_watch(svc->inotify_fd, events, IN_MODIFY);
	if (!exec_service_run_populated(run))
		exec_service_end_run(svc, svc->n_runs - 1);
}

/* Every run's cgroup directly under dir (a user's), adopted. */
static void adopt_user_runs(struct exec_service *svc, const char *dir, uid_t uid)
{
	char path[PATH_MAX];
	struct dirent *entry;
	DIR *runs = opendir(dir);
	pid_t creator;

	while (runs && (entry = readdir(runs))) {
		if (exec_cgroup_name_parse(entry->d_name, &creator) &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name) <
			sizeof(path))
			adopt_run(svc, path, uid);
	}
	if (runs)
		closedir(runs);
}

void exec_service_adopt(struct exec_service *svc)
{
	char dir[PATH_MAX];
	struct dirent *entry;
	unsigned int uid;
	DIR *users;

	if (!svc->slice[0] || !(users = opendir(svc->slice)))
		return;
	while ((entry = readdir(users))) {
		if (sscanf(entry->d_name, "user-%u", &uid) == 1 &&
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", svc->slice, entry->d_name) <
			sizeof(dir))
			adopt_user_runs(svc, dir, (uid_t)uid);
	}
	closedir(users);
}
