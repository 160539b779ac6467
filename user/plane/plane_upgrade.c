// SPDX-License-Identifier: GPL-2.0
/*
 * A plane pinned by another build, upgraded in place: its programs replaced
 * link by link, and its maps of another layout migrated to this build's.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgward.skel.h"
#include "loader.h"
#include "plane_pins.h"
#include "plane_upgrade.h"

/*
 * Attaches prog and pins its link over the pin of the link it replaces, if
 * any: the new program runs before the old one is detached, so the hook is
 * never without one. The pin goes to a name of its own first, then a rename
 * replaces the old pin, whose link the kernel then detaches. A pin left at
 * that name by an upgrade that stopped half way still has the old one in
 * place: it is removed first. unpin_foreign_links() removes the rest.
 */
static int replace_link(struct bpf_program *prog, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], staged[PATH_MAX], name[128];
	struct bpf_link *link = NULL;
	int ret = pin_path(path, sizeof(path), dir, "links", bpf_program__name(prog));

	/* bpffs takes no '.' in a name; a program's (a C identifier) has no '-'. */
	snprintf(name, sizeof(name), "staged-%s", bpf_program__name(prog));
	if (ret == 0)
		ret = pin_path(staged, sizeof(staged), dir, "links", name);
	if (ret == 0 && unlink(staged) != 0 && errno != ENOENT)
		ret = -errno;
	if (ret == 0) {
		link = bpf_program__attach(prog);
		ret = link ? bpf_link__pin(link, staged) : -errno;
	}
	if (ret == 0 && rename(staged, path) != 0) {
		ret = -errno;
		unlink(staged);
	}
	bpf_link__destroy(link);
	if (ret)
		snprintf(err, errlen, "cannot attach and pin %s in place of its link: %s",
			 bpf_program__name(prog), strerror(-ret));
	return ret;
}

static bool is_program_of(struct cgward_bpf *skel, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, name);

	return prog && bpf_program__autoload(prog);
}

/* Unpins the links of programs that this build does not have: they are detached. */
static int unpin_foreign_links(struct cgward_bpf *skel, const char *dir)
{
	char links[PATH_MAX];
	struct dirent *entry;
	int ret = pin_path(links, sizeof(links), dir, "links", NULL);
	DIR *d = ret ? NULL : opendir(links);

	if (!d)
		return ret ? ret : -errno;
	while ((entry = readdir(d))) {
		if (entry->d_name[0] == '.' || is_program_of(skel, entry->d_name))
			continue;
		if (unlinkat(dirfd(d), entry->d_name, 0) != 0 && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	return ret;
}

/* Whether the pinned map (its kernel info) has map's layout: libbpf reuses it as it is. */
static bool has_layout(const struct bpf_map_info *pinned, const struct bpf_map *map)
{
	return pinned->type == bpf_map__type(map) && pinned->key_size == bpf_map__key_size(map) &&
	       pinned->value_size == bpf_map__value_size(map) &&
	       pinned->max_entries == bpf_map__max_entries(map) &&
	       pinned->map_flags == bpf_map__map_flags(map);
}

/* What cgward_abi.h calls migratable: a hash map's value grown, or its max_entries. */
static bool is_migratable(const struct bpf_map_info *pinned, const struct bpf_map *map)
{
	return (pinned->type == BPF_MAP_TYPE_HASH || pinned->type == BPF_MAP_TYPE_HASH_OF_MAPS) &&
	       pinned->type == bpf_map__type(map) && pinned->key_size == bpf_map__key_size(map) &&
	       pinned->value_size <= bpf_map__value_size(map) &&
	       pinned->max_entries <= bpf_map__max_entries(map) &&
	       pinned->map_flags == bpf_map__map_flags(map);
}

/*
 * Whether the map is frozen, as its fdinfo says (5.2+): freezing it again
 * fails with EBUSY before 6.x and EPERM after (the frozen map's fd lost its
 * write right), which no check of errno tells from a real refusal.
 */
static bool map_frozen(int fd)
{
	char path[64], line[128];
	bool frozen = false;
	unsigned int value;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "frozen: %u", &value) == 1) {
			frozen = value != 0;
			break;
		}
	}
	fclose(f);
	return frozen;
}

/*
 * Which pinned maps this build migrates (staged[i], in the order of
 * pinned_maps): those of another layout, frozen here, so that no
 * cgward of the other build (an exec binding its cgroup) writes where no
 * program of this build will read: its write fails instead, and it runs
 * nothing. The programs of either build still write them. -ESTALE, and
 * nothing done, when one is not migratable; a map not pinned is added.
 */
static int plan_migration(const char *dir, struct cgward_bpf *skel, bool *staged, char *err,
			  size_t errlen)
{
	int fds[N_PINNED_MAPS];
	char path[PATH_MAX], what[192];
	int ret = 0;

	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, pinned_maps[i].name);
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		fds[i] = -1;
		staged[i] = false;
		if (ret || map_pin_path(path, sizeof(path), dir, i, false) ||
		    (fds[i] = bpf_obj_get(path)) < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fds[i], &info, &len) != 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot read the pinned map %s: %s", path,
				 strerror(-ret));
		} else if (!has_layout(&info, map) && !is_migratable(&info, map)) {
			snprintf(what, sizeof(what),
				 "has a map this cgward cannot migrate (%s: type %u, key %u, value "
				 "%u, %u entries, flags %#x)",
				 pinned_maps[i].name, info.type, info.key_size, info.value_size,
				 info.max_entries, info.map_flags);
			ret = refuse_stale(dir, what, err, errlen);
		} else {
			staged[i] = !has_layout(&info, map);
		}
	}
	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		/* Frozen already: a migration that stopped half way. */
		if (ret == 0 && staged[i] && !map_frozen(fds[i]) && bpf_map_freeze(fds[i]) != 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot freeze the pinned map %s: %s",
				 pinned_maps[i].name, strerror(-ret));
		}
		if (fds[i] >= 0)
			close(fds[i]);
	}
	return ret;
}

/*
 * Copies each entry of the pinned map i that its staged map lacks, the
 * value zero-extended: an entry there already is as new as this one (this
 * build's programs wrote it, or a copy pass before did). A hash of maps
 * gives inner map ids and takes fds.
 */
static int copy_entries(const char *dir, size_t i, char *err, size_t errlen)
{
	struct bpf_map_info from_info = {}, to_info = {};
	__u32 from_len = sizeof(from_info), to_len = sizeof(to_info);
	char path[PATH_MAX], staged[PATH_MAX];
	__u8 *key = NULL, *next = NULL, *value = NULL;
	int from = -1, to = -1, ret = map_pin_path(path, sizeof(path), dir, i, false);

	if (ret == 0)
		ret = map_pin_path(staged, sizeof(staged), dir, i, true);
	if (ret == 0 && ((from = bpf_obj_get(path)) < 0 || (to = bpf_obj_get(staged)) < 0 ||
			 bpf_obj_get_info_by_fd(from, &from_info, &from_len) ||
			 bpf_obj_get_info_by_fd(to, &to_info, &to_len)))
		ret = -errno;
	if (ret == 0) {
		key = calloc(1, from_info.key_size);
		next = calloc(1, from_info.key_size);
		value = calloc(1, to_info.value_size);
		ret = key && next && value ? 0 : -ENOMEM;
	}
	for (void *prev = NULL; ret == 0 && bpf_map_get_next_key(from, prev, next) == 0;
	     prev = key) {
		int inner = -1;

		memcpy(key, next, from_info.key_size);
		memset(value, 0, to_info.value_size);
		/* Gone meanwhile (a cgroup removed, an exec ended): nothing to copy. */
		if (bpf_map_lookup_elem(from, key, value) != 0)
			continue;
		if (from_info.type == BPF_MAP_TYPE_HASH_OF_MAPS) {
			inner = bpf_map_get_fd_by_id(*(__u32 *)value);
			if (inner < 0)
				continue;
			memcpy(value, &inner, sizeof(inner));
		}
		if (bpf_map_update_elem(to, key, value, BPF_NOEXIST) != 0 && errno != EEXIST)
			ret = -errno;
		if (inner >= 0)
			close(inner);
	}
	if (ret)
		snprintf(err, errlen, "cannot migrate the map %s: %s", pinned_maps[i].name,
			 strerror(-ret));
	free(key);
	free(next);
	free(value);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	return ret;
}

static bool migrating(const bool *staged)
{
	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		if (staged[i])
			return true;
	}
	return false;
}

static int copy_staged(const char *dir, const bool *staged, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < N_PINNED_MAPS; i++) {
		if (staged[i])
			ret = copy_entries(dir, i, err, errlen);
	}
	return ret;
}

/* The staged maps take the old maps' pins: cgward processes open them from here on. */
static int pin_staged(const char *dir, const bool *staged, char *err, size_t errlen)
{
	char path[PATH_MAX], staged_path[PATH_MAX];

	for (size_t i = 0; i < N_PINNED_MAPS; i++) {
		int ret = staged[i] ? map_pin_path(path, sizeof(path), dir, i, false) : 0;

		if (ret == 0 && staged[i])
			ret = map_pin_path(staged_path, sizeof(staged_path), dir, i, true);
		if (ret == 0 && staged[i] && rename(staged_path, path) != 0)
			ret = -errno;
		if (ret) {
			snprintf(err, errlen, "cannot pin the migrated map %s: %s",
				 pinned_maps[i].name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int plane_upgrade_in_place(const char *dir, int *links_attached, char *err, size_t errlen)
{
	static const char first[] = "cgroup_mkdir";
	bool staged[N_PINNED_MAPS];
	__u32 old_ids[MAX_LINKS];
	size_t n_old = pinned_prog_ids(dir, old_ids);
	struct bpf_program *prog;
	struct cgward_bpf *skel;
	int ret = loader_open(&skel, err, errlen);

	if (ret == 0) {
		ret = plan_migration(dir, skel, staged, err, errlen);
		cgward_bpf__destroy(skel);
	}
	if (ret == 0)
		ret = load_with_pinned_maps(dir, staged, &skel, err, errlen);
	if (ret)
		return ret;
	ret = copy_staged(dir, staged, err, errlen);
	skel->bss->migrating_cgroup_policy = staged[CGROUP_POLICY_MAP];
	prog = bpf_object__find_program_by_name(skel->obj, first);
	if (ret == 0 && prog && (ret = replace_link(prog, dir, err, errlen)) == 0) {
		(*links_attached)++;
		ret = copy_staged(dir, staged, err, errlen);
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		if (ret || !bpf_program__autoload(prog) ||
		    strcmp(bpf_program__name(prog), first) == 0)
			continue;
		ret = replace_link(prog, dir, err, errlen);
		if (ret == 0)
			(*links_attached)++;
	}
	if (ret == 0 && (ret = unpin_foreign_links(skel, dir)))
		snprintf(err, errlen, "cannot unpin the other build's links: %s", strerror(-ret));
	if (ret == 0 && migrating(staged) && wait_programs_released(old_ids, n_old) != 0) {
		ret = -EBUSY;
		snprintf(err, errlen, "the kernel still runs the other build's programs after %d s",
			 PROGRAMS_RELEASE_WAIT_MS / 1000);
	}
	if (ret == 0)
		skel->bss->migrating_cgroup_policy = false; /* no program reads the old map now */
	if (ret == 0)
		ret = copy_staged(dir, staged, err, errlen);
	if (ret == 0)
		ret = pin_staged(dir, staged, err, errlen);
	if (ret == 0)
		ret = write_plane_info(skel, err, errlen);
	cgward_bpf__destroy(skel);
	return ret;
}
