// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_message.h"
#include "spawn_request.h"

/* The descriptors' order in a message: the caller's, then the maps'. */
enum { FD_EXIT, FD_SETUP, FD_PIDFD, FD_CWD, FD_STDIO, FD_MAPS = FD_STDIO + 3 };
#define MAP_FDS (SPAWN_REQUEST_MAX_FDS - FD_MAPS)

/* Where each map's descriptor is in struct policy_maps, in the message's order. */
static const size_t map_fd_offsets[MAP_FDS] = {
    offsetof(struct policy_maps, cgroup_policy_fd),
    offsetof(struct policy_maps, write_roots_fd),
    offsetof(struct policy_maps, policy_info_fd),
    offsetof(struct policy_maps, exec_events_fd),
    offsetof(struct policy_maps, root_tags_fd),
    offsetof(struct policy_maps, container_started_fd),
};

/*
 * Appends item to array; NULL (array released) when either is NULL: a
 * message missing one is none.
 */
static json_t *append(json_t *array, json_t *item)
{
	if (array && json_array_append_new(array, item) == 0)
		return array;
	json_decref(array);
	return NULL;
}

/* Roots and nodes as [path, access, dev, ino]: their descriptors are not the supervisor's. */
static json_t *specs_json(const struct root_spec *specs, size_t n)
{
	json_t *array = json_array();

	for (size_t i = 0; i < n; i++)
		array =
		    append(array, json_pack("[s,I,I,I]", specs[i].path, (json_int_t)specs[i].access,
					    (json_int_t)specs[i].dev, (json_int_t)specs[i].ino));
	return array;
}

char *spawn_request_encode(const struct exec_spawn *spawn, const struct exec_spawn_run *run,
			   int setup_fd, int *fds, size_t *n_fds)
{
	const struct run_core *core = run->core;
	json_t *groups = json_array(), *maps = json_array(), *msg;
	char *text;

	fds[FD_EXIT] = spawn->exit_fd;
	fds[FD_SETUP] = setup_fd;
	fds[FD_PIDFD] = spawn->pidfd;
	fds[FD_CWD] = spawn->cwd_fd;
	memcpy(&fds[FD_STDIO], spawn->stdio_fds, sizeof(spawn->stdio_fds));
	*n_fds = FD_MAPS;
	for (size_t i = 0; i < MAP_FDS; i++) {
		int fd = *(const int *)((const char *)core->maps + map_fd_offsets[i]);

		maps = append(maps, json_integer(fd >= 0 ? (json_int_t)*n_fds : -1));
		if (fd >= 0)
			fds[(*n_fds)++] = fd;
	}
	for (size_t i = 0; i < spawn->n_groups; i++)
		groups = append(groups, json_integer(spawn->groups[i]));
	msg = json_pack("{s:I,s:I,s:I,s:o,s:I,s:b,s:o,s:o,s:I,s:s,s:s,s:o,s:o,s:o}", "pid",
			(json_int_t)spawn->caller_pid, "uid", (json_int_t)spawn->uid, "gid",
			(json_int_t)spawn->gid, "groups", groups, "umask", (json_int_t)spawn->umask,
			"private_tmp", (int)spawn->private_tmp, "argv",
			exec_message_strings(spawn->argv), "env", exec_message_strings(spawn->env),
			"policy_id", (json_int_t)core->policy_id, "cgroup", core->cgroup.path,
			"memory_cgroup", core->cgroup.memory_path, "roots",
			specs_json(run->roots, run->n_roots), "nodes",
			specs_json(run->nodes, run->n_nodes), "maps", maps);
	text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	return text;
}

static int spec_from(json_t *item, struct root_spec *spec)
{
	json_int_t access, dev, ino;
	const char *path;

	if (json_unpack(item, "[s,I,I,I]", &path, &access, &dev, &ino) ||
	    strlen(path) >= sizeof(spec->path))
		return -EPROTO;
	snprintf(spec->path, sizeof(spec->path), "%s", path);
	spec->access = (__u32)access;
	spec->dev = (__u32)dev;
	spec->ino = (__u64)ino;
	spec->fd = -1;
	return 0;
}

static int specs_from(json_t *array, struct root_spec **specs, size_t *n)
{
	*n = json_array_size(array);
	*specs = calloc(*n ?: 1, sizeof(**specs));
	if (!json_is_array(array) || !*specs)
		return -EPROTO;
	for (size_t i = 0; i < *n; i++) {
		if (spec_from(json_array_get(array, i), &(*specs)[i]))
			return -EPROTO;
	}
	return 0;
}

/* The maps' descriptors, each an index into fds past the caller's, or -1: the plane has none. */
static int maps_from(json_t *array, const int *fds, size_t n_fds, struct policy_maps *maps)
{
	if (json_array_size(array) != MAP_FDS)
		return -EPROTO;
	for (size_t i = 0; i < MAP_FDS; i++) {
		json_t *index = json_array_get(array, i);
		json_int_t at = json_integer_value(index);

		if (!json_is_integer(index) || (at != -1 && (at < FD_MAPS || (size_t)at >= n_fds)))
			return -EPROTO;
		*(int *)((char *)maps + map_fd_offsets[i]) = at < 0 ? -1 : fds[at];
	}
	return 0;
}

static int groups_from(json_t *array, struct exec_spawn *spawn)
{
	spawn->n_groups = json_array_size(array);
	spawn->groups = calloc(spawn->n_groups ?: 1, sizeof(*spawn->groups));
	if (!json_is_array(array) || !spawn->groups)
		return -EPROTO;
	for (size_t i = 0; i < spawn->n_groups; i++) {
		json_t *gid = json_array_get(array, i);

		if (!json_is_integer(gid))
			return -EPROTO;
		spawn->groups[i] = (gid_t)json_integer_value(gid);
	}
	return 0;
}

int spawn_request_decode(const char *text, const int *fds, size_t n_fds, struct spawn_request *req)
{
	json_t *msg = json_loads(text, 0, NULL), *groups, *argv, *env, *roots, *nodes, *maps;
	json_int_t pid, uid, gid, umask, policy_id;
	const char *cgroup, *memory_cgroup;
	int private_tmp;
	struct exec_spawn *spawn = &req->spawn;
	int ret = -EPROTO;

	spawn->exit_fd = n_fds > FD_EXIT ? fds[FD_EXIT] : -1;
	if (n_fds >= FD_MAPS &&
	    !json_unpack(msg, "{s:I,s:I,s:I,s:o,s:I,s:b,s:o,s:o,s:I,s:s,s:s,s:o,s:o,s:o}", "pid",
			 &pid, "uid", &uid, "gid", &gid, "groups", &groups, "umask", &umask,
			 "private_tmp", &private_tmp, "argv", &argv, "env", &env, "policy_id",
			 &policy_id, "cgroup", &cgroup, "memory_cgroup", &memory_cgroup, "roots",
			 &roots, "nodes", &nodes, "maps", &maps)) {
		spawn->caller_pid = (pid_t)pid;
		spawn->uid = (uid_t)uid;
		spawn->gid = (gid_t)gid;
		spawn->umask = (unsigned int)umask;
		spawn->private_tmp = private_tmp;
		spawn->pidfd = fds[FD_PIDFD];
		spawn->cwd_fd = fds[FD_CWD];
		memcpy(spawn->stdio_fds, &fds[FD_STDIO], sizeof(spawn->stdio_fds));
		spawn->argv = exec_message_read_strings(argv, false);
		spawn->env = exec_message_read_strings(env, true);
		req->setup_fd = fds[FD_SETUP];
		req->core.maps = &req->maps;
		req->core.policy_id = (__u32)policy_id;
		snprintf(req->core.cgroup.path, sizeof(req->core.cgroup.path), "%s", cgroup);
		snprintf(req->core.cgroup.memory_path, sizeof(req->core.cgroup.memory_path), "%s",
			 memory_cgroup);
		req->run.core = &req->core;
		ret = spawn->argv && spawn->env ? groups_from(groups, spawn) : -EPROTO;
		if (ret == 0)
			ret = maps_from(maps, fds, n_fds, &req->maps);
		if (ret == 0)
			ret = specs_from(roots, &req->roots, &req->run.n_roots);
		if (ret == 0)
			ret = specs_from(nodes, &req->nodes, &req->run.n_nodes);
		req->run.roots = req->roots;
		req->run.nodes = req->nodes;
	}
	json_decref(msg);
	return ret;
}
