// SPDX-License-Identifier: GPL-2.0
/*
 * The plane loaded and pinned, adopted, and unloaded; the pinned maps' table.
 * A plane of another build is upgraded in place by plane_upgrade.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgward.skel.h"
#include "cgward_object.h"
#include "cgward_abi.h"
#include "clock.h"
#include "loader.h"
#include "plane.h"
#include "plane_pins.h"
#include "plane_upgrade.h"

/*
 * Every map but the programs' own: event_scratch (per-CPU scratch space) and
 * walk_cache (what their walks found, which no other program needs).
 */
const struct pinned_map pinned_maps[N_PINNED_MAPS] = {
    [CGROUP_POLICY_MAP] = {"cgroup_policy", offsetof(struct plane, maps.cgroup_policy_fd)},
    {"write_roots", offsetof(struct plane, maps.write_roots_fd)},
    {"policy_info", offsetof(struct plane, maps.policy_info_fd)},
    {"exec_events", offsetof(struct plane, maps.exec_events_fd)},
    {"root_tags", offsetof(struct plane, maps.root_tags_fd)},
    {"deny_events", offsetof(struct plane, deny_events_fd)},
    {"lost_events", offsetof(struct plane, lost_events_fd)},
    {"container_started", offsetof(struct plane, maps.container_started_fd)},
    [PLANE_INFO_MAP] = {"plane_info", NOT_KEPT},
};

int pin_path(char *out, size_t outlen, const char *dir, const char *kind, const char *name)
{
	int len = snprintf(out, outlen, "%s/%s%s%s", dir, kind, name ? "/" : "", name ? name : "");

	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}

int map_pin_path(char *out, size_t outlen, const char *dir, size_t i, bool staged)
{
	char name[128];

	/* bpffs takes no '.' in a name; a map's (a C identifier) has no '-'. */
	snprintf(name, sizeof(name), "%s%s", staged ? "staged-" : "", pinned_maps[i].name);
	return pin_path(out, outlen, dir, "maps", name);
}

/* Where plane keeps map i of pinned_maps open, or NULL. */
static int *kept_fd(struct plane *plane, size_t i)
{
	return pinned_maps[i].fd == NOT_KEPT ? NULL : (int *)((char *)plane + pinned_maps[i].fd);
}

static int make_dir(const char *dir, const char *sub)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");

	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* How many pins dir/kind holds (0 when it does not exist). */
static int count_pins(const char *dir, const char *kind)
{
	char path[PATH_MAX];
	struct dirent *entry;
	int n = 0;
	DIR *d = pin_path(path, sizeof(path), dir, kind, NULL) == 0 ? opendir(path) : NULL;

	while (d && (entry = readdir(d))) {
		if (entry->d_name[0] != '.')
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

int refuse_stale(const char *dir, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "the enforcement plane pinned under %s %s: it keeps enforcing, and this cgward "
		 "will not use it. Run the cgward that pinned it, or stop its agent and execs "
		 "and run `cgward unload --force` (cgroups bound to it are unenforced until the "
		 "next load)",
		 dir, what);
	return -ESTALE;
}

/* check_pinned(): a complete plane of an older ABI that this build upgrades in place. */
#define PINNED_UPGRADABLE 1

/*
 * 0: a complete plane of this ABI is pinned (of this build, or of another:
 * info says which); PINNED_UPGRADABLE: one of an older ABI from
 * CGWARD_ABI_UPGRADES_FROM; -ENOENT: none is, or one is still being loaded
 * or was left half attached; -ESTALE: one of an ABI this build cannot read.
 * Maps without plane_info are another build's only when seen under the
 * lock: a loader pins plane_info among the other maps, in the object's order.
 */
static int check_pinned(const char *dir, bool locked, struct cgward_plane_info *info, char *err,
			size_t errlen)
{
	char what[128];
	int ret;

	*info = (struct cgward_plane_info){};
	ret = plane_read_info(dir, info);
	if (ret == -ENOENT) {
		if (locked && (count_pins(dir, "maps") || count_pins(dir, "links")))
			return refuse_stale(dir, "has no version (an older cgward pinned it)", err,
					    errlen);
		return -ENOENT;
	}
	if (ret)
		return ret;
	/* Zero: the loader holding the lock has not written it yet. */
	if (info->abi_version == 0)
		return -ENOENT;
	if (info->abi_version < CGWARD_ABI_UPGRADES_FROM ||
	    info->abi_version > CGWARD_ABI_VERSION) {
		snprintf(what, sizeof(what),
			 "has a map layout this cgward cannot read (ABI %u, object %016llx; this "
			 "cgward: ABI %u, upgrades from %u)",
			 info->abi_version, (unsigned long long)info->object_hash,
			 CGWARD_ABI_VERSION, CGWARD_ABI_UPGRADES_FROM);
		return refuse_stale(dir, what, err, errlen);
	}
	if (count_pins(dir, "links") < (int)info->n_links)
		return -ENOENT;
	return info->abi_version < CGWARD_ABI_VERSION ? PINNED_UPGRADABLE : 0;
}

struct cgward_plane_info plane_build_info(void)
{
	return (struct cgward_plane_info){.abi_version = CGWARD_ABI_VERSION,
					  .object_hash = CGWARD_OBJECT_HASH};
}

int plane_read_info(const char *dir, struct cgward_plane_info *info)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int fd, ret = map_pin_path(path, sizeof(path), dir, PLANE_INFO_MAP, false);

	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -ENOENT;
	ret = bpf_map_lookup_elem(fd, &zero, info) ? -errno : 0;
	close(fd);
	return ret;
}

int write_plane_info(struct cgward_bpf *skel, char *err, size_t errlen)
{
	struct cgward_plane_info info = plane_build_info();
	struct bpf_program *prog;
	__u32 zero = 0;

	bpf_object__for_each_program(prog, skel->obj) info.n_links += bpf_program__autoload(prog);
	if (bpf_map__update_elem(skel->maps.plane_info, &zero, sizeof(zero), &info, sizeof(info),
				 BPF_ANY)) {
		snprintf(err, errlen, "cannot write plane_info: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Attaches and pins each program whose link is not pinned yet. */
static int attach_missing(struct cgward_bpf *skel, const char *dir, int *attached, char *err,
			  size_t errlen)
{
	struct bpf_program *prog;
	char path[PATH_MAX];

	bpf_object__for_each_program(prog, skel->obj)
	{
		struct bpf_link *link;
		int ret;

		if (!bpf_program__autoload(prog))
			continue;
		ret = pin_path(path, sizeof(path), dir, "links", bpf_program__name(prog));
		if (ret == 0 && access(path, F_OK) == 0)
			continue;
		link = ret ? NULL : bpf_program__attach(prog);
		if (!ret && !link)
			ret = -errno;
		if (!ret)
			ret = bpf_link__pin(link, path);
		/* Pinned, the link outlives its fd; unpinned, closing it detaches. */
		bpf_link__destroy(link);
		if (ret) {
			snprintf(err, errlen, "cannot attach and pin %s: %s",
				 bpf_program__name(prog), strerror(-ret));
			return ret;
		}
		(*attached)++;
	}
	return 0;
}

/*
 * While cgroup_policy migrates, cgroup_mkdir binds new cgroups in the old
 * map too (bpf/cgroup_inherit.bpf.c): its cgroup_policy_old is the old map.
 */
static int reuse_old_cgroup_policy(struct cgward_bpf *skel, const char *dir, char *err,
				   size_t errlen)
{
	char path[PATH_MAX];
	int fd, ret = map_pin_path(path, sizeof(path), dir, CGROUP_POLICY_MAP, false);

	if (ret == 0) {
		fd = bpf_obj_get(path);
		ret = fd < 0 ? -errno : bpf_map__reuse_fd(skel->maps.cgroup_policy_old, fd);
		if (fd >= 0)
			close(fd); /* libbpf keeps a duplicate */
	}
	if (ret)
		snprintf(err, errlen, "cannot open the migrating map %s: %s", path, strerror(-ret));
	return ret;
}

int load_with_pinned_maps(const char *dir, const bool *staged, struct cgward_bpf **loaded,
			  char *err, size_t errlen)
{
	struct cgward_bpf *skel;
	char path[PATH_MAX];
	int ret = loader_open(&skel, err, errlen);

	for (size_t i = 0; ret == 0 && i < N_PINNED_MAPS; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, pinned_maps[i].name);

		ret = map ? map_pin_path(path, sizeof(path), dir, i, staged && staged[i]) : -ENOENT;
		if (!ret)
			ret = bpf_map__set_pin_path(map, path);
		if (ret)
			snprintf(err, errlen, "cannot pin map %s: %s", pinned_maps[i].name,
				 strerror(-ret));
	}
	if (ret == 0 && staged && staged[CGROUP_POLICY_MAP])
		ret = reuse_old_cgroup_policy(skel, dir, err, errlen);
	if (ret == 0) {
		ret = cgward_bpf__load(skel);
		if (ret)
			loader_describe_error(ret, err, errlen);
	}
	if (ret == 0)
		*loaded = skel;
	else if (skel)
		cgward_bpf__destroy(skel);
	return ret;
}

/* Loads the programs, writes plane_info, then attaches what is not attached yet. */
static int load_and_pin(const char *dir, struct plane *plane, char *err, size_t errlen)
{
	struct cgward_bpf *skel;
	int ret = load_with_pinned_maps(dir, NULL, &skel, err, errlen);

	if (ret)
		return ret;
	ret = write_plane_info(skel, err, errlen);
	if (ret == 0)
		ret = attach_missing(skel, dir, &plane->links_attached, err, errlen);
	cgward_bpf__destroy(skel);
	return ret;
}

size_t pinned_prog_ids(const char *dir, __u32 *ids)
{
	char links[PATH_MAX];
	DIR *d = pin_path(links, sizeof(links), dir, "links", NULL) == 0 ? opendir(links) : NULL;
	struct dirent *entry;
	size_t n = 0;

	while (d && (entry = readdir(d)) && n < MAX_LINKS) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		char path[PATH_MAX];
		int fd = -1;

		if (entry->d_name[0] != '.' &&
		    pin_path(path, sizeof(path), dir, "links", entry->d_name) == 0)
			fd = bpf_obj_get(path);
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			ids[n++] = info.prog_id;
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	return n;
}

int wait_programs_released(const __u32 *ids, size_t n)
{
	__u64 deadline = monotonic_ms() + PROGRAMS_RELEASE_WAIT_MS;

	while (monotonic_ms() < deadline) {
		size_t alive = 0;

		for (size_t i = 0; i < n; i++) {
			int fd = bpf_prog_get_fd_by_id(ids[i]);

			if (fd >= 0) {
				close(fd);
				alive++;
			}
		}
		if (!alive)
			return 0;
		usleep(10000);
	}
	return -EBUSY;
}

/* Whether a caller finding the plane that check_pinned() found must load or replace programs. */
static bool must_load(int pinned, const struct cgward_plane_info *info, bool own)
{
	return pinned == -ENOENT || pinned == PINNED_UPGRADABLE ||
	       (pinned == 0 && own && info->object_hash != CGWARD_OBJECT_HASH);
}

static int make_plane_dirs(const char *dir, char *err, size_t errlen)
{
	int ret = make_dir(dir, NULL);

	if (!ret)
		ret = make_dir(dir, "maps");
	if (!ret)
		ret = make_dir(dir, "links");
	if (ret)
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
	return ret;
}

/* An exclusive lock on the directory path: an fd to close, or negative errno. */
static int lock_dir(const char *path)
{
	int ret, fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) != 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The first caller loads, or upgrades, under an exclusive lock on dir; the
 * others wait, then adopt.
 */
static int load_once(const char *dir, bool own, struct plane *plane, char *err, size_t errlen)
{
	struct cgward_plane_info info;
	int lock, ret = loader_probe(err, errlen);

	if (!ret)
		ret = make_plane_dirs(dir, err, errlen);
	if (ret)
		return ret;
	lock = lock_dir(dir);
	if (lock < 0) {
		snprintf(err, errlen, "cannot lock %s: %s", dir, strerror(-lock));
		return lock;
	}
	ret = check_pinned(dir, true, &info, err, errlen);
	if (ret == -ENOENT) {
		ret = load_and_pin(dir, plane, err, errlen);
	} else if (must_load(ret, &info, own)) {
		plane->upgraded_from = info.object_hash;
		ret = plane_upgrade_in_place(dir, &plane->links_attached, err, errlen);
	}
	close(lock);
	return ret;
}

int plane_check(const char *dir, char *err, size_t errlen)
{
	struct cgward_plane_info info;
	int ret = check_pinned(dir, true, &info, err, errlen);

	/* Another build's plane: one that its owners (own) would replace. */
	if (ret != -ENOENT && must_load(ret, &info, true)) {
		snprintf(err, errlen,
			 "pinned under %s by another build (ABI %u, object %016llx): this cgward "
			 "upgrades it in place when it loads (cgward load, cgward agent)%s",
			 dir, info.abi_version, (unsigned long long)info.object_hash,
			 ret ? " or runs a command" : "");
		return -EXDEV;
	}
	return ret;
}

int plane_open(const char *dir, bool own, struct plane *plane, char *err, size_t errlen)
{
	struct cgward_plane_info info;
	int ret = check_pinned(dir, false, &info, err, errlen);

	plane->links_attached = 0;
	plane->upgraded_from = 0;
	if (must_load(ret, &info, own))
		ret = load_once(dir, own, plane, err, errlen);
	return ret ? ret : plane_open_pinned(dir, plane, err, errlen);
}

int plane_open_pinned(const char *dir, struct plane *plane, char *err, size_t errlen)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		if (kept_fd(plane, i))
			*kept_fd(plane, i) = -1;
	}
	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		int *fd = kept_fd(plane, i);
		int ret;

		if (!fd)
			continue;
		ret = map_pin_path(path, sizeof(path), dir, i, false);
		if (ret == 0) {
			*fd = bpf_obj_get(path);
			ret = *fd < 0 ? -errno : 0;
		}
		if (ret) {
			snprintf(err, errlen, "cannot open the pinned map %s: %s", path,
				 strerror(-ret));
			plane_close(plane);
			return ret;
		}
	}
	return 0;
}

void plane_close(struct plane *plane)
{
	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		int *fd = kept_fd(plane, i);

		if (!fd)
			continue;
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

int plane_lock_claims(const char *dir)
{
	char path[PATH_MAX];
	int ret = pin_path(path, sizeof(path), dir, "maps", NULL);

	return ret ? ret : lock_dir(path);
}

/* The kernel's id of a map, or 0. */
static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.id : 0;
}

const char *plane_superseded_map(const char *dir, struct plane *plane)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		int *fd = kept_fd(plane, i), pinned = -1;
		bool same;

		if (!fd || *fd < 0)
			continue;
		if (map_pin_path(path, sizeof(path), dir, i, false) == 0)
			pinned = bpf_obj_get(path);
		same = pinned >= 0 && map_id(pinned) == map_id(*fd);
		if (pinned >= 0)
			close(pinned);
		if (!same)
			return pinned_maps[i].name;
	}
	return NULL;
}

int plane_pinned_links(const char *dir)
{
	return count_pins(dir, "links");
}

/* maps/agent_policy, opened: -ENOENT when not pinned, -ESTALE when of another layout. */
static int open_agent_policy(const char *dir, char *path, size_t pathlen)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, ret = pin_path(path, pathlen, dir, "maps", "agent_policy");

	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	    info.value_size == sizeof(struct plane_agent_policy))
		return fd;
	close(fd);
	return -ESTALE;
}

int plane_put_agent_policy(const char *dir, const struct plane_agent_policy *policy)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int ret, fd = open_agent_policy(dir, path, sizeof(path));

	/* Another layout's record is replaced: only cgward status reads it. */
	if (fd == -ESTALE && unlink(path) == 0)
		fd = -ENOENT;
	if (fd == -ENOENT) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "agent_policy", sizeof(zero),
				    sizeof(*policy), 1, NULL);
		if (fd >= 0 && bpf_obj_pin(fd, path)) {
			ret = -errno;
			close(fd);
			return ret;
		}
	}
	if (fd < 0)
		return fd;
	ret = bpf_map_update_elem(fd, &zero, policy, BPF_ANY) ? -errno : 0;
	close(fd);
	return ret;
}

int plane_get_agent_policy(const char *dir, struct plane_agent_policy *policy)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int ret, fd = open_agent_policy(dir, path, sizeof(path));

	if (fd < 0)
		return fd;
	ret = bpf_map_lookup_elem(fd, &zero, policy) ? -errno : 0;
	close(fd);
	return ret;
}

int plane_links(const char *dir, void (*visit)(const char *prog, int link_fd, void *arg), void *arg)
{
	struct bpf_program *prog;
	struct cgward_bpf *skel;
	char path[PATH_MAX], err[256];
	int pinned = 0, ret = loader_open(&skel, err, sizeof(err));

	if (ret)
		return ret;
	bpf_object__for_each_program(prog, skel->obj)
	{
		int fd = -1;

		if (!bpf_program__autoload(prog))
			continue;
		if (pin_path(path, sizeof(path), dir, "links", bpf_program__name(prog)) == 0)
			fd = bpf_obj_get(path);
		if (fd >= 0)
			pinned++;
		visit(bpf_program__name(prog), fd, arg);
		if (fd >= 0)
			close(fd);
	}
	cgward_bpf__destroy(skel);
	return pinned;
}

static int unpin_all(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((entry = readdir(d))) {
		if (entry->d_name[0] == '.')
			continue;
		if (unlinkat(dirfd(d), entry->d_name, 0) != 0 && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	if (ret == 0 && rmdir(dir) != 0 && errno != ENOENT)
		ret = -errno;
	return ret;
}

static int unpin_kind(const char *dir, const char *kind, char *path, size_t pathlen)
{
	int ret = pin_path(path, pathlen, dir, kind, NULL);

	return ret ? ret : unpin_all(path);
}

int plane_unpin(const char *dir, char *err, size_t errlen)
{
	__u32 prog_ids[MAX_LINKS];
	size_t n_progs = pinned_prog_ids(dir, prog_ids);
	char path[PATH_MAX];
	int ret = unpin_kind(dir, "links", path, sizeof(path)); /* enforcement ends there */

	if (ret == 0 && wait_programs_released(prog_ids, n_progs)) {
		snprintf(err, errlen,
			 "the kernel still runs the programs unpinned from %s after %d s", path,
			 PROGRAMS_RELEASE_WAIT_MS / 1000);
		return -EBUSY;
	}
	if (ret == 0)
		ret = unpin_kind(dir, "maps", path, sizeof(path));
	if (ret == 0 && rmdir(dir) != 0 && errno != ENOENT)
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "cannot unpin %s: %s", path, strerror(-ret));
	return ret;
}

/* How many cgroups the pinned plane binds; 0 when none is pinned. */
static long bound_cgroups(const char *dir)
{
	struct plane plane;
	char err[PATH_MAX + 128];
	__u64 key, next;
	long n = 0;

	if (plane_open_pinned(dir, &plane, err, sizeof(err)))
		return 0;
	for (__u64 *prev = NULL;
	     bpf_map_get_next_key(plane.maps.cgroup_policy_fd, prev, &next) == 0; prev = &key) {
		key = next;
		n++;
	}
	plane_close(&plane);
	return n;
}

int plane_unload(const char *dir, bool force, char *err, size_t errlen)
{
	long bound = bound_cgroups(dir);

	if (bound && !force) {
		snprintf(
		    err, errlen,
		    "unload: %ld cgroups are bound to policies under %s; they would run "
		    "unenforced. Stop the agent and the cgward exec runs first, or use --force",
		    bound, dir);
		return -EBUSY;
	}
	return plane_unpin(dir, err, errlen);
}
