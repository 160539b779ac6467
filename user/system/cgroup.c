// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "run_limits.h"

#define NAME_RANDOM_DIGITS 16
#define BACKOFF_FIRST_NS   1000000L   /* 1 ms */
#define BACKOFF_MAX_NS	   100000000L /* 100 ms */
#define CONTROL_FILE_MAX   4096
/* Rounds of moving a cgroup's processes into its leaf before cgward gives up. */
#define DELEGATE_MOVE_ROUNDS 8

static int join_path(char *out, size_t outlen, const char *dir, const char *name)
{
	int len = snprintf(out, outlen, "%s/%s", dir, name);

	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}

static int write_control(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t written;
	int fd, r;

	r = join_path(path, sizeof(path), dir, file);
	if (r)
		return r;
	/* O_TRUNC as `echo >` does: cgroupfs ignores it, the tests' plain files need it. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* cgroupfs takes a control value in one write and reports its verdict there. */
	written = write(fd, text, len);
	r = written < 0 ? -errno : (size_t)written == len ? 0 : -EIO;
	close(fd);
	return r;
}

/* Reads a control file as a NUL-terminated string into buf. */
static int read_control(const char *dir, const char *file, char *buf, size_t buflen)
{
	char path[PATH_MAX];
	ssize_t len;
	int fd, r;

	r = join_path(path, sizeof(path), dir, file);
	if (r)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, buflen - 1);
	r = len < 0 ? -errno : 0;
	close(fd);
	buf[len < 0 ? 0 : len] = '\0';
	return r;
}

/* True when word is one of the items of list, separated by any of seps. */
static bool list_has(const char *list, const char *word, const char *seps)
{
	size_t wordlen = strlen(word);
	const char *item = list;

	while (*item) {
		size_t itemlen = strcspn(item, seps);

		if (itemlen == wordlen && !strncmp(item, word, wordlen))
			return true;
		item += itemlen;
		item += strspn(item, seps);
	}
	return false;
}

/* mountinfo writes space, tab, newline and backslash in paths as \ooo. */
static int unescape_mount_path(char *out, size_t outlen, const char *in)
{
	size_t len = 0;

	while (*in) {
		if (len + 1 >= outlen)
			return -ENAMETOOLONG;
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			out[len++] =
			    (char)((in[1] - '0') << 6 | (in[2] - '0') << 3 | (in[3] - '0'));
			in += 4;
		} else {
			out[len++] = *in++;
		}
	}
	out[len] = '\0';
	return 0;
}

/* Fields of a mountinfo line: "id parent maj:min root mountpoint options [optional...] - fstype
 * source superoptions". */
static void note_cgroup_mount(char *line, struct cgroup_layout *layout)
{
	char *root, *mountpoint, *fstype, *superopts, *field, *save;
	int skip;

	strtok_r(line, " \n", &save);
	for (skip = 0; skip < 2; skip++)
		strtok_r(NULL, " \n", &save);
	root = strtok_r(NULL, " \n", &save);
	mountpoint = strtok_r(NULL, " \n", &save);
	do
		field = strtok_r(NULL, " \n", &save);
	while (field && strcmp(field, "-"));
	fstype = strtok_r(NULL, " \n", &save);
	strtok_r(NULL, " \n", &save);
	superopts = strtok_r(NULL, " \n", &save);
	if (!superopts)
		return;

	if (!strcmp(fstype, "cgroup2") && !layout->unified[0]) {
		if (unescape_mount_path(layout->unified, sizeof(layout->unified), mountpoint))
			layout->unified[0] = '\0';
	} else if (!strcmp(fstype, "cgroup") && list_has(superopts, "memory", ",") &&
		   !layout->memory_v1[0]) {
		if (unescape_mount_path(layout->memory_v1, sizeof(layout->memory_v1), mountpoint) ||
		    unescape_mount_path(layout->memory_v1_root, sizeof(layout->memory_v1_root),
					root))
			layout->memory_v1[0] = '\0';
	}
}

int cgroup_layout_detect(const char *mountinfo_path, struct cgroup_layout *layout)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *mountinfo;

	memset(layout, 0, sizeof(*layout));
	strcpy(layout->self_cgroup, "/proc/self/cgroup");
	mountinfo = fopen(mountinfo_path, "re");
	if (!mountinfo)
		return -errno;
	while (getline(&line, &cap, mountinfo) > 0)
		note_cgroup_mount(line, layout);
	free(line);
	fclose(mountinfo);
	return layout->unified[0] ? 0 : -ENOENT;
}

const char *cgroup_relative_path(const struct cgroup_layout *layout, const char *path)
{
	size_t len = strlen(layout->unified);

	return strncmp(path, layout->unified, len) == 0 ? path + len : path;
}

/* The part of a /proc/self/cgroup path below the mount's root, "" for the root itself. */
static const char *below_mount_root(const char *path, const char *root)
{
	size_t rootlen = strcmp(root, "/") ? strlen(root) : 0;

	if (strncmp(path, root, rootlen) || (path[rootlen] && path[rootlen] != '/'))
		return NULL;
	return strcmp(path + rootlen, "/") ? path + rootlen : "";
}

/* Finds the "hierarchy:controllers:path" line of the v1 memory controller. */
static int read_memory_v1_membership(const char *self_cgroup, char *path, size_t pathlen)
{
	char *line = NULL, *controllers, *member;
	size_t cap = 0;
	int r = -ENOENT;
	FILE *file;

	file = fopen(self_cgroup, "re");
	if (!file)
		return -errno;
	while (r == -ENOENT && getline(&line, &cap, file) > 0) {
		controllers = strchr(line, ':');
		member = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!member)
			continue;
		*member++ = '\0';
		member[strcspn(member, "\n")] = '\0';
		if (!list_has(controllers + 1, "memory", ","))
			continue;
		r = snprintf(path, pathlen, "%s", member) < (int)pathlen ? 0 : -ENAMETOOLONG;
	}
	free(line);
	fclose(file);
	return r;
}

int cgroup_memory_v1_self(const struct cgroup_layout *layout, char *dir, size_t dirlen, char *err,
			  size_t errlen)
{
	char member[PATH_MAX];
	const char *below;
	int r;

	r = read_memory_v1_membership(layout->self_cgroup, member, sizeof(member));
	if (r) {
		snprintf(err, errlen, "could not find our v1 memory cgroup in %s: %s",
			 layout->self_cgroup, strerror(-r));
		return r;
	}
	below = below_mount_root(member, layout->memory_v1_root);
	if (!below) {
		snprintf(err, errlen, "our v1 memory cgroup %s is outside the mount of %s at %s",
			 member, layout->memory_v1_root, layout->memory_v1);
		return -ENOENT;
	}
	if (snprintf(dir, dirlen, "%s%s", layout->memory_v1, below) >= (int)dirlen) {
		snprintf(err, errlen, "our v1 memory cgroup %s%s: %s", layout->memory_v1, below,
			 strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return 0;
}

bool exec_cgroup_name_parse(const char *name, pid_t *creator)
{
	size_t digits, hex;
	const char *c;

	if (strncmp(name, EXEC_CGROUP_NAME_PREFIX, strlen(EXEC_CGROUP_NAME_PREFIX)))
		return false;
	c = name + strlen(EXEC_CGROUP_NAME_PREFIX);
	digits = strspn(c, "0123456789");
	if (digits == 0 || digits > 9 || c[0] == '0' || c[digits] != '-')
		return false;
	hex = strspn(c + digits + 1, "0123456789abcdef");
	if (hex != NAME_RANDOM_DIGITS || c[digits + 1 + hex])
		return false;
	*creator = (pid_t)strtol(c, NULL, 10);
	return true;
}

/*
 * The pid tells `cgward gc` whose cgroup it is; 64 random bits make names of
 * threads of one process differ. mkdir is what makes a name ours: on EEXIST
 * the caller draws again.
 */
static int draw_name(char *name, size_t namelen)
{
	uint64_t random;

	if (getrandom(&random, sizeof(random), 0) != sizeof(random))
		return -errno;
	snprintf(name, namelen, EXEC_CGROUP_NAME_PREFIX "%d-%0*" PRIx64, getpid(),
		 NAME_RANDOM_DIGITS, random);
	return 0;
}

static int make_dirs_once(const char *parent, const char *memory_parent, struct exec_cgroup *cg,
			  char *err, size_t errlen)
{
	char name[64];
	int r;

	r = draw_name(name, sizeof(name));
	if (r) {
		snprintf(err, errlen, "could not draw a cgroup name: %s", strerror(-r));
		return r;
	}
	r = join_path(cg->path, sizeof(cg->path), parent, name);
	if (!r && mkdir(cg->path, 0755))
		r = -errno;
	if (r) {
		if (r != -EEXIST)
			snprintf(err, errlen, "could not create cgroup %s: %s", cg->path,
				 strerror(-r));
		cg->path[0] = '\0';
		return r;
	}
	if (!memory_parent)
		return 0;
	r = join_path(cg->memory_path, sizeof(cg->memory_path), memory_parent, name);
	if (!r && mkdir(cg->memory_path, 0755))
		r = -errno;
	if (r) {
		if (r != -EEXIST)
			snprintf(err, errlen, "could not create cgroup %s: %s", cg->memory_path,
				 strerror(-r));
		rmdir(cg->path);
		cg->path[0] = cg->memory_path[0] = '\0';
	}
	return r;
}

/* Creates the cgroup2 directory and, with memory_parent, the v1 memory one of the same name. */
static int make_dirs(const char *parent, const char *memory_parent, struct exec_cgroup *cg,
		     char *err, size_t errlen)
{
	int attempt, r = -EEXIST;

	for (attempt = 0; attempt < 8 && r == -EEXIST; attempt++)
		r = make_dirs_once(parent, memory_parent, cg, err, errlen);
	if (r == -EEXIST)
		snprintf(err, errlen,
			 "could not create a cgroup under %s: every name drawn was taken", parent);
	return r;
}

/* Linux's include/linux/exportfs.h, not exported to userspace. */
#define FILEID_KERNFS 0xfe

/*
 * A kernfs file handle is the 64-bit cgroup id that bpf_get_current_cgroup_id()
 * reports. Elsewhere (the unit tests' fake trees) handles mean something else,
 * and the inode number stands in: kernfs's inode number is the id too on
 * 64-bit kernels, but the handle is the documented way to get it.
 */
static int read_cgroup_id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} handle = {.fh.handle_bytes = MAX_HANDLE_SZ};
	struct stat st;
	int mount_id;

	if (!name_to_handle_at(AT_FDCWD, path, &handle.fh, &mount_id, 0) &&
	    handle.fh.handle_type == FILEID_KERNFS && handle.fh.handle_bytes == sizeof(*id)) {
		memcpy(id, handle.fh.f_handle, sizeof(*id));
		return 0;
	}
	if (stat(path, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

/*
 * Whether the process pid belongs to uid: its /proc directory's owner, which
 * is root's for a process that is not dumpable (a doubt refuses). One that
 * has exited meanwhile is nobody's to refuse.
 */
static int process_of(const char *pid, uid_t uid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s", pid);
	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return st.st_uid == uid ? 0 : -EPERM;
}

/*
 * Moves every process listed in from's cgroup.procs into to; *moved counts
 * them. For an ordinary user (uid not 0), only that user's processes: any
 * other's stops the move with -EPERM.
 */
static int move_members(const char *from, const char *to, uid_t uid, unsigned int *moved)
{
	char path[PATH_MAX], pid[16];
	FILE *procs;
	int ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", from) >= sizeof(path))
		return -ENAMETOOLONG;
	procs = fopen(path, "re");
	if (!procs)
		return -errno;
	*moved = 0;
	while (!ret && fscanf(procs, "%15s", pid) == 1) {
		ret = uid ? process_of(pid, uid) : 0;
		if (!ret)
			ret = write_control(to, "cgroup.procs", pid);
		*moved += ret == 0;
		if (ret == -ESRCH)
			ret = 0; /* it exited meanwhile */
	}
	fclose(procs);
	return ret;
}

/*
 * dir's processes into its leaf, until none is left: those forked meanwhile
 * are in the list of the next round.
 */
static int move_into_leaf(const char *dir, uid_t uid, char *err, size_t errlen)
{
	char leaf[PATH_MAX];
	unsigned int moved = 1;
	int ret = 0;

	if ((size_t)snprintf(leaf, sizeof(leaf), "%s/%s", dir, CGROUP_CALLER_LEAF) >= sizeof(leaf))
		ret = -ENAMETOOLONG;
	else if (mkdir(leaf, 0755) && errno != EEXIST)
		ret = -errno;
	for (int round = 0; !ret && moved && round < DELEGATE_MOVE_ROUNDS; round++)
		ret = move_members(dir, leaf, uid, &moved);
	if (!ret && moved)
		ret = -EBUSY;
	if (ret == -EPERM && uid)
		snprintf(err, errlen,
			 "a per-run limit needs a controller enabled in %s, which holds processes "
			 "of other users: give its processes a leaf cgroup of their own (systemd: "
			 "Delegate=yes), or run without --memory, --pids and --cpu",
			 dir);
	else if (ret)
		snprintf(err, errlen, "could not move the processes of %s into %s: %s", dir, leaf,
			 strerror(-ret));
	return ret;
}

/* Enables controller for dir's children: 0 or -errno of the write. */
static int enable(const char *dir, const char *controller)
{
	char text[32];

	snprintf(text, sizeof(text), "+%s", controller);
	return write_control(dir, "cgroup.subtree_control", text);
}

int cgroup_delegate(const char *dir, const char *controller, uid_t uid, char *err, size_t errlen)
{
	char subtree[CONTROL_FILE_MAX];
	int ret = read_control(dir, "cgroup.subtree_control", subtree, sizeof(subtree));

	if (ret) {
		snprintf(err, errlen, "could not enable the %s controller in %s: %s", controller,
			 dir, strerror(-ret));
		return ret;
	}
	if (list_has(subtree, controller, " \n"))
		return 0;
	ret = enable(dir, controller);
	if (ret == -EBUSY) {
		/* Processes of its own: cgroup v2's no-internal-process rule. */
		ret = move_into_leaf(dir, uid, err, errlen);
		if (ret)
			return ret;
		ret = enable(dir, controller);
	}
	if (ret == -ENOENT)
		snprintf(
		    err, errlen,
		    "the %s controller is not available in %s: its parent does not delegate it "
		    "(see its cgroup.controllers)",
		    controller, dir);
	else if (ret)
		snprintf(err, errlen, "could not enable the %s controller in %s: %s", controller,
			 dir, strerror(-ret));
	return ret;
}

static int write_limit(const char *dir, const char *file, const char *bytes, bool optional,
		       char *err, size_t errlen)
{
	int r = write_control(dir, file, bytes);

	if (r == -ENOENT && optional)
		return 0;
	if (r)
		snprintf(err, errlen, "could not set %s of cgroup %s: %s", file, dir, strerror(-r));
	return r;
}

/* The limit as the decimal byte count both hierarchies take. */
static int limit_bytes(__u64 mib, char bytes[32], char *err, size_t errlen)
{
	int r = memory_limit_bytes(mib, bytes, 32);

	if (r)
		snprintf(err, errlen, "memory limit of %" PRIu64 " MiB: %s", (uint64_t)mib,
			 strerror(-r));
	return r;
}

int cgroup_memory_limit_write_v2(const char *dir, __u64 mib, char *err, size_t errlen)
{
	char bytes[32];
	int r;

	r = limit_bytes(mib, bytes, err, errlen);
	if (r)
		return r;
	r = write_limit(dir, "memory.max", bytes, false, err, errlen);
	/* Without swap accounting there is no memory.swap.max, and nothing to swap to bypass the
	 * limit. */
	return r ? r : write_limit(dir, "memory.swap.max", "0", true, err, errlen);
}

int cgroup_memory_limit_write_v1(const char *dir, __u64 mib, char *err, size_t errlen)
{
	char bytes[32];
	int r;

	r = limit_bytes(mib, bytes, err, errlen);
	if (r)
		return r;
	/* memsw (memory + swap) may never be below limit_in_bytes, so it is set second. */
	r = write_limit(dir, "memory.limit_in_bytes", bytes, false, err, errlen);
	return r ? r : write_limit(dir, "memory.memsw.limit_in_bytes", bytes, true, err, errlen);
}

/*
 * The controllers of a run's cgroup2 limits, delegated by parent: memory,
 * pids, cpu; moving uid's processes only (0: any), as cgroup_delegate.
 */
static int delegate_v2_limits(const char *parent, const struct run_limits *limits, uid_t uid,
			      char *err, size_t errlen)
{
	int r = limits->memory_mib ? cgroup_delegate(parent, "memory", uid, err, errlen) : 0;

	if (r == 0 && limits->pids)
		r = cgroup_delegate(parent, "pids", uid, err, errlen);
	if (r == 0 && limits->cpu_milli)
		r = cgroup_delegate(parent, "cpu", uid, err, errlen);
	return r;
}

/* A run's cgroup2 limits: memory.max (and memory.swap.max), pids.max, cpu.max. */
static int write_v2_limits(const char *dir, const struct run_limits *limits, char *err,
			   size_t errlen)
{
	char value[64];
	int r = limits->memory_mib
		    ? cgroup_memory_limit_write_v2(dir, limits->memory_mib, err, errlen)
		    : 0;

	if (r == 0 && limits->pids) {
		snprintf(value, sizeof(value), "%" PRIu64, (uint64_t)limits->pids);
		r = write_limit(dir, "pids.max", value, false, err, errlen);
	}
	if (r == 0 && limits->cpu_milli) {
		r = cpu_limit_max(limits->cpu_milli, value, sizeof(value));
		if (r == 0)
			r = write_limit(dir, "cpu.max", value, false, err, errlen);
		else
			snprintf(err, errlen, "cpu limit of %" PRIu64 " thousandths: %s",
				 (uint64_t)limits->cpu_milli, strerror(-r));
	}
	return r;
}

int exec_cgroup_create(const struct cgroup_layout *layout, const char *parent,
		       const struct run_limits *limits, uid_t caller, struct exec_cgroup *cg,
		       char *err, size_t errlen)
{
	bool memory_v1 = limits->memory_mib > 0 && layout->memory_v1[0];
	struct run_limits v2 = *limits; /* those on cgroup2: memory too, unless it is on v1 */
	char memory_parent[PATH_MAX];
	int r = 0;

	memset(cg, 0, sizeof(*cg));
	if (!parent)
		parent = layout->unified;
	if (memory_v1) {
		v2.memory_mib = 0;
		r = cgroup_memory_v1_self(layout, memory_parent, sizeof(memory_parent), err,
					  errlen);
	}
	if (!r)
		r = delegate_v2_limits(parent, &v2, caller, err, errlen);
	if (!r)
		r = make_dirs(parent, memory_v1 ? memory_parent : NULL, cg, err, errlen);
	if (r)
		return r;

	r = read_cgroup_id(cg->path, &cg->id);
	if (r)
		snprintf(err, errlen, "could not read the id of cgroup %s: %s", cg->path,
			 strerror(-r));
	else if (memory_v1)
		r = cgroup_memory_limit_write_v1(cg->memory_path, limits->memory_mib, err, errlen);
	if (!r)
		r = write_v2_limits(cg->path, &v2, err, errlen);
	if (r) {
		/* Nothing has joined them yet, so they are empty and rmdir succeeds. */
		rmdir(cg->path);
		if (cg->memory_path[0])
			rmdir(cg->memory_path);
		memset(cg, 0, sizeof(*cg));
		return r;
	}
	cg->limits = *limits;
	return 0;
}

/* One limit of cap that is lower than the run's own (0: none), or 0 when it is not. */
static __u64 lower(__u64 own, __u64 cap)
{
	return cap && (!own || cap < own) ? cap : 0;
}

int exec_cgroup_lower(struct exec_cgroup *cg, const struct run_limits *limits, char *err,
		      size_t errlen)
{
	struct run_limits lowered = {.memory_mib = lower(cg->limits.memory_mib, limits->memory_mib),
				     .pids = lower(cg->limits.pids, limits->pids),
				     .cpu_milli = lower(cg->limits.cpu_milli, limits->cpu_milli)};
	char parent[PATH_MAX], *slash;
	int r;

	snprintf(parent, sizeof(parent), "%s", cg->path);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	/* The host's own caps: whoever's processes are there. */
	r = delegate_v2_limits(parent, &lowered, 0, err, errlen);
	if (!r)
		r = write_v2_limits(cg->path, &lowered, err, errlen);
	if (r)
		return r;
	cg->limits.memory_mib = lowered.memory_mib ?: cg->limits.memory_mib;
	cg->limits.pids = lowered.pids ?: cg->limits.pids;
	cg->limits.cpu_milli = lowered.cpu_milli ?: cg->limits.cpu_milli;
	return 0;
}

static int attach_to(const char *dir, pid_t pid, char *err, size_t errlen)
{
	char text[16];
	int r;

	snprintf(text, sizeof(text), "%d", pid);
	r = write_control(dir, "cgroup.procs", text);
	if (r)
		snprintf(err, errlen, "could not move pid %d into cgroup %s: %s", pid, dir,
			 strerror(-r));
	return r;
}

int exec_cgroup_attach_memory(const struct exec_cgroup *cg, pid_t pid, char *err, size_t errlen)
{
	return cg->memory_path[0] ? attach_to(cg->memory_path, pid, err, errlen) : 0;
}

int exec_cgroup_attach(const struct exec_cgroup *cg, pid_t pid, char *err, size_t errlen)
{
	int r = attach_to(cg->path, pid, err, errlen);

	return r ? r : exec_cgroup_attach_memory(cg, pid, err, errlen);
}

/* True when the "key value" line for key in dir/file has a value above 0. */
static bool counter_positive(const char *dir, const char *file, const char *key)
{
	char text[CONTROL_FILE_MAX], *line;
	size_t keylen = strlen(key);

	if (read_control(dir, file, text, sizeof(text)))
		return false;
	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, key, keylen) && line[keylen] == ' ')
			return strtoull(line + keylen + 1, NULL, 10) > 0;
	}
	return false;
}

bool exec_cgroup_oom_killed(const struct exec_cgroup *cg)
{
	if (cg->memory_path[0] &&
	    counter_positive(cg->memory_path, "memory.oom_control", "oom_kill"))
		return true;
	return cg->path[0] && counter_positive(cg->path, "memory.events", "oom_kill");
}

/*
 * cgroup.kill (Linux 5.14+) kills every member at once, forks included. Older
 * kernels and v1 cgroups get a SIGKILL per listed process, repeated by the
 * caller until rmdir succeeds. Failures show up as rmdir's EBUSY.
 */
static void kill_members(const char *dir)
{
	char path[PATH_MAX];
	FILE *procs;
	int pid;

	if (write_control(dir, "cgroup.kill", "1") != -ENOENT)
		return;
	if (join_path(path, sizeof(path), dir, "cgroup.procs"))
		return;
	procs = fopen(path, "re");
	if (!procs)
		return;
	/* Members outside our pid namespace are listed as 0: kill(0) would hit our own group. */
	while (fscanf(procs, "%d", &pid) == 1) {
		if (pid > 0)
			kill(pid, SIGKILL);
	}
	fclose(procs);
}

int exec_cgroup_kill(const struct exec_cgroup *cg)
{
	return write_control(cg->path, "cgroup.kill", "1");
}

static long now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000L + now.tv_nsec;
}

static int remove_descendant(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type == FTW_DP && ftw->level > 0)
		rmdir(path);
	return 0;
}

int cgroup_remove_tree(const char *dir)
{
	if (rmdir(dir) == 0)
		return 0;
	if (errno != EBUSY)
		return -errno;
	/* nftw's frames are small, its paths on the heap: a deep chain cannot exhaust the stack. */
	nftw(dir, remove_descendant, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return rmdir(dir) ? -errno : 0;
}

/* A killed member leaves the cgroup only once the kernel has finished its exit: rmdir is EBUSY
 * until then. */
static int remove_until(const char *dir, long deadline_ns)
{
	struct timespec backoff = {.tv_nsec = BACKOFF_FIRST_NS};

	int r;

	for (;;) {
		kill_members(dir);
		r = cgroup_remove_tree(dir);
		if (!r || r == -ENOENT)
			return 0;
		if (r != -EBUSY || now_ns() >= deadline_ns)
			return r;
		nanosleep(&backoff, NULL);
		if (backoff.tv_nsec < BACKOFF_MAX_NS)
			backoff.tv_nsec *= 2;
	}
}

int exec_cgroup_destroy(struct exec_cgroup *cg, int timeout_ms, char *err, size_t errlen)
{
	char *dirs[] = {cg->path, cg->memory_path};
	long deadline_ns = now_ns() + timeout_ms * 1000000L;
	size_t i;
	int r;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i][0])
			continue;
		r = remove_until(dirs[i], deadline_ns);
		if (r) {
			snprintf(err, errlen, "could not remove cgroup %s: %s", dirs[i],
				 strerror(-r));
			return r;
		}
		dirs[i][0] = '\0';
	}
	return 0;
}

int cgroup_read_id(const char *path, __u64 *id)
{
	return read_cgroup_id(path, id);
}

int cgroup_member_of(const char *proc_cgroup, char *path, size_t pathlen)
{
	char *line = NULL;
	size_t cap = 0;
	int r = -ENOENT;
	FILE *file = fopen(proc_cgroup, "re");

	if (!file)
		return -errno;
	while (r == -ENOENT && getline(&line, &cap, file) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		r = snprintf(path, pathlen, "%s", line + 3) < (int)pathlen ? 0 : -ENAMETOOLONG;
	}
	free(line);
	fclose(file);
	return r;
}

int cgroup_read_self_id(const struct cgroup_layout *layout, __u64 *id)
{
	char member[PATH_MAX], dir[2 * PATH_MAX];
	int ret = cgroup_member_of(layout->self_cgroup, member, sizeof(member));

	if (ret)
		return ret;
	ret = join_path(dir, sizeof(dir), layout->unified, member);
	return ret ? ret : cgroup_read_id(dir, id);
}

int cgroup_enter_host_namespace(void)
{
	struct stat own, host;
	int fd, ret = 0;

	if (stat("/proc/self/ns/cgroup", &own) || stat("/proc/1/ns/cgroup", &host))
		return -errno;
	if (own.st_dev == host.st_dev && own.st_ino == host.st_ino)
		return 0;
	fd = open("/proc/1/ns/cgroup", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWCGROUP))
		ret = -errno;
	close(fd);
	return ret;
}
