// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgward.skel.h"
#include "cgward_abi.h"
#include "loader.h"

#define SECURITYFS  "/sys/kernel/security"
#define ACTIVE_LSMS SECURITYFS "/lsm"
#define BPFFS	    "/sys/fs/bpf"
#define KERNEL_BTF  "/sys/kernel/btf/vmlinux"

static int ensure_mounted(const char *dir, const char *fstype, long magic)
{
	struct statfs fs;

	if (statfs(dir, &fs) == 0 && fs.f_type == magic)
		return 0;
	if (mount(fstype, dir, fstype, 0, NULL) != 0)
		return -errno;
	return 0;
}

static int read_active_lsms(char *lsms, size_t len)
{
	FILE *f = fopen(ACTIVE_LSMS, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(lsms, (int)len, f))
		ret = -EIO;
	fclose(f);
	return ret;
}

static bool lsm_list_has_bpf(const char *lsms)
{
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", lsms);
	copy[strcspn(copy, "\n")] = '\0';
	for (char *lsm = strtok_r(copy, ",", &save); lsm; lsm = strtok_r(NULL, ",", &save)) {
		if (strcmp(lsm, "bpf") == 0)
			return true;
	}
	return false;
}

/* Global BPF functions with pointer arguments (the path walks) arrived in 5.13. */
static int check_kernel_version(char *err, size_t errlen)
{
	struct utsname uts;
	unsigned int major, minor;

	if (uname(&uts) || sscanf(uts.release, "%u.%u", &major, &minor) != 2)
		return 0; /* the verifier will tell */
	if (major > 5 || (major == 5 && minor >= 13))
		return 0;
	snprintf(err, errlen, "Linux %s is too old: cgward needs 5.13 or later", uts.release);
	return -EOPNOTSUPP;
}

/*
 * Helpers are probed from a kprobe program: LSM ones cannot be probed
 * without a hook to attach to, and these helpers are offered to every
 * tracing type alike. Each probe is a program load, so this runs only for
 * doctor and to explain a failed load, not on every start.
 */
int loader_probe_features(char *err, size_t errlen)
{
	static const struct {
		enum bpf_func_id helper;
		const char *name;
	} helpers[] = {
	    {BPF_FUNC_ringbuf_output, "bpf_ringbuf_output"},
	    {BPF_FUNC_ktime_get_boot_ns, "bpf_ktime_get_boot_ns"},
	    {BPF_FUNC_get_current_ancestor_cgroup_id, "bpf_get_current_ancestor_cgroup_id"},
	};

	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 0) {
		snprintf(err, errlen, "this kernel offers no BPF ring buffer map");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, helpers[i].helper, NULL) == 0) {
			snprintf(err, errlen, "this kernel does not offer the BPF helper %s",
				 helpers[i].name);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

int loader_probe(char *err, size_t errlen)
{
	char lsms[256];
	int ret;

	ret = ensure_mounted(SECURITYFS, "securityfs", SECURITYFS_MAGIC);
	if (ret) {
		snprintf(err, errlen, "cannot mount securityfs on %s: %s", SECURITYFS,
			 strerror(-ret));
		return ret;
	}
	ret = read_active_lsms(lsms, sizeof(lsms));
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", ACTIVE_LSMS, strerror(-ret));
		return ret;
	}
	if (!lsm_list_has_bpf(lsms)) {
		lsms[strcspn(lsms, "\n")] = '\0';
		snprintf(
		    err, errlen,
		    "the BPF LSM is not active (active: %s): boot with lsm=%s,bpf on the kernel "
		    "command line (needs CONFIG_BPF_LSM=y)",
		    lsms, lsms);
		return -EOPNOTSUPP;
	}
	if (access(KERNEL_BTF, R_OK) != 0) {
		snprintf(err, errlen, "no kernel BTF at %s (needs CONFIG_DEBUG_INFO_BTF=y)",
			 KERNEL_BTF);
		return -EOPNOTSUPP;
	}
	ret = ensure_mounted(BPFFS, "bpf", BPF_FS_MAGIC);
	if (ret) {
		snprintf(err, errlen, "cannot mount bpffs on %s: %s", BPFFS, strerror(-ret));
		return ret;
	}
	return check_kernel_version(err, errlen);
}

/*
 * libbpf's warnings (the verifier log among them) are kept for the one error
 * message: the tail, where the verifier says what it rejected.
 */
static char libbpf_log[8192];
static size_t libbpf_log_len;

static int keep_libbpf_warnings(enum libbpf_print_level level, const char *format, va_list args)
{
	static char message[1 << 20]; /* a whole verifier log comes as one message */
	size_t len, keep;
	int n;

	if (level > LIBBPF_WARN)
		return 0;
	n = vsnprintf(message, sizeof(message), format, args);
	if (n <= 0)
		return 0;
	len = (size_t)n < sizeof(message) ? (size_t)n : sizeof(message) - 1;
	if (len > sizeof(libbpf_log) / 2) {
		memcpy(libbpf_log, message + len - sizeof(libbpf_log) / 2, sizeof(libbpf_log) / 2);
		libbpf_log_len = sizeof(libbpf_log) / 2;
		return 0;
	}
	if (libbpf_log_len + len > sizeof(libbpf_log)) {
		keep = sizeof(libbpf_log) - len;
		memmove(libbpf_log, libbpf_log + libbpf_log_len - keep, keep);
		libbpf_log_len = keep;
	}
	memcpy(libbpf_log + libbpf_log_len, message, len);
	libbpf_log_len += len;
	return 0;
}

static void describe_load_error(int ret, char *err, size_t errlen)
{
	const char *hint = "";

	if (loader_probe_features(err, errlen))
		return;
	if (ret == -EPERM)
		hint = " (this kernel lists bpf as an LSM but refuses BPF LSM programs, or the "
		       "caller lacks CAP_BPF and CAP_SYS_ADMIN)";
	while (libbpf_log_len && libbpf_log[libbpf_log_len - 1] == '\n')
		libbpf_log_len--;
	snprintf(err, errlen, "cannot load the BPF programs: %s%s%s%.*s", strerror(-ret), hint,
		 libbpf_log_len ? "\n" : "", (int)libbpf_log_len, libbpf_log);
}

/* The number of parameters of a kernel function, from the kernel's BTF; negative if unknown. */
static int kernel_function_arity(const struct btf *vmlinux, const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);

	if (id < 0)
		return id;
	return btf_vlen(btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type));
}

/*
 * Programs for hooks that differ within the kernels supported (5.13+): each
 * is loaded only where the kernel's hook has its number of arguments, so a
 * hook the kernel lacks loads none. inode_setattr gained a leading idmap in
 * 6.2; the POSIX ACL hooks are new in 6.2. Appended arguments need no
 * variant: a program declares only the leading ones it reads.
 */
static const struct {
	const char *hook; /* the kernel's bpf_lsm_<hook> */
	int arity;
	const char *prog;
} hook_variants[] = {
    {"bpf_lsm_inode_setattr", 2, "inode_setattr"},
    {"bpf_lsm_inode_setattr", 3, "inode_setattr_idmapped"},
    {"bpf_lsm_inode_set_acl", 4, "inode_set_acl"},
    {"bpf_lsm_inode_remove_acl", 3, "inode_remove_acl"},
};

static void select_hook_variants(struct cgward_bpf *skel)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();

	for (size_t i = 0; i < sizeof(hook_variants) / sizeof(hook_variants[0]); i++) {
		struct bpf_program *prog =
		    bpf_object__find_program_by_name(skel->obj, hook_variants[i].prog);
		bool matches = vmlinux && kernel_function_arity(vmlinux, hook_variants[i].hook) ==
					      hook_variants[i].arity;

		bpf_program__set_autoload(prog, matches);
	}
	btf__free(vmlinux);
}

/*
 * The network programs, for a policy that asks for them: each attached
 * program runs on every call of its hook and costs a detach at exit.
 */
static void select_policy_programs(struct cgward_bpf *skel, __u32 policy_flags)
{
	bool network = policy_flags & CGWARD_POLICY_NO_NETWORK;
	bool unix_outside = policy_flags & CGWARD_POLICY_NO_UNIX_OUTSIDE;

	bpf_program__set_autoload(skel->progs.socket_connect, network);
	bpf_program__set_autoload(skel->progs.socket_bind, network);
	bpf_program__set_autoload(skel->progs.socket_sendmsg, network);
	bpf_program__set_autoload(skel->progs.unix_stream_connect, unix_outside);
	bpf_program__set_autoload(skel->progs.unix_may_send, unix_outside);
}

int loader_load(struct cgward_bpf **skel, __u32 policy_flags, char *err, size_t errlen)
{
	int ret = loader_probe(err, errlen);

	if (ret)
		return ret;
	libbpf_set_print(keep_libbpf_warnings);
	libbpf_log_len = 0;
	*skel = cgward_bpf__open();
	if (!*skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	select_hook_variants(*skel);
	select_policy_programs(*skel, policy_flags);
	ret = cgward_bpf__load(*skel);
	if (ret) {
		describe_load_error(ret, err, errlen);
		cgward_bpf__destroy(*skel);
		*skel = NULL;
	}
	return ret;
}

int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen)
{
	int ret = cgward_bpf__attach(skel);

	/* E2BIG: a trampoline holds BPF_MAX_TRAMP_LINKS programs (38 on x86). */
	if (ret)
		snprintf(err, errlen, "cannot attach the BPF programs: %s%s", strerror(-ret),
			 ret == -E2BIG ? " (a kernel hook takes at most 38 BPF programs, and "
					 "each concurrent cgward exec attaches one to each hook)"
				       : "");
	return ret;
}

void loader_close(struct cgward_bpf *skel)
{
	cgward_bpf__destroy(skel);
}

/* The maps the agent shares with its successor; event_scratch is per load. */
static const char *const pinned_map_names[] = {"cgroup_policy", "write_roots", "policy_info",
					       "deny_events", "lost_events"};

static int pin_path(char *out, size_t outlen, const char *dir, const char *kind, const char *name)
{
	int len = snprintf(out, outlen, "%s/%s/%s", dir, kind, name);

	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
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

/* Opens the object (no load) with the hook variants this kernel needs. */
static int open_object(struct cgward_bpf **skel, char *err, size_t errlen)
{
	libbpf_set_print(keep_libbpf_warnings);
	libbpf_log_len = 0;
	*skel = cgward_bpf__open();
	if (!*skel) {
		int ret = -errno;

		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	select_hook_variants(*skel);
	return 0;
}

static int visit_links(struct cgward_bpf *skel, const char *dir,
		       void (*visit)(const char *prog, int link_fd, void *arg), void *arg)
{
	struct bpf_program *prog;
	char path[PATH_MAX];
	int pinned = 0;

	bpf_object__for_each_program(prog, skel->obj)
	{
		int fd = -1;

		if (!bpf_program__autoload(prog))
			continue;
		if (pin_path(path, sizeof(path), dir, "links", bpf_program__name(prog)) == 0)
			fd = bpf_obj_get(path);
		if (fd >= 0)
			pinned++;
		if (visit)
			visit(bpf_program__name(prog), fd, arg);
		if (fd >= 0)
			close(fd);
	}
	return pinned;
}

static void count_expected(const char *prog, int link_fd, void *arg)
{
	(void)prog;
	(void)link_fd;
	(*(int *)arg)++;
}

int loader_pinned_links(const char *dir, void (*visit)(const char *prog, int link_fd, void *arg),
			void *arg)
{
	struct cgward_bpf *skel;
	char err[256];
	int ret = open_object(&skel, err, sizeof(err));

	if (ret)
		return ret;
	ret = visit_links(skel, dir, visit, arg);
	cgward_bpf__destroy(skel);
	return ret;
}

int loader_open_pinned(const char *dir, struct loader_pinned *pinned, char *err, size_t errlen)
{
	int *fds[] = {&pinned->cgroup_policy_fd, &pinned->write_roots_fd, &pinned->policy_info_fd,
		      &pinned->deny_events_fd, &pinned->lost_events_fd};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		*fds[i] = -1;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		int ret = pin_path(path, sizeof(path), dir, "maps", pinned_map_names[i]);

		if (ret == 0) {
			*fds[i] = bpf_obj_get(path);
			ret = *fds[i] < 0 ? -errno : 0;
		}
		if (ret) {
			snprintf(err, errlen, "cannot open the pinned map %s: %s", path,
				 strerror(-ret));
			loader_pinned_close(pinned);
			return ret;
		}
	}
	return 0;
}

void loader_pinned_close(struct loader_pinned *pinned)
{
	int fds[] = {pinned->cgroup_policy_fd, pinned->write_roots_fd, pinned->policy_info_fd,
		     pinned->deny_events_fd, pinned->lost_events_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	pinned->cgroup_policy_fd = pinned->write_roots_fd = pinned->policy_info_fd = -1;
	pinned->deny_events_fd = pinned->lost_events_fd = -1;
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

int loader_pin_or_adopt(const char *dir, struct loader_pinned *pinned, char *err, size_t errlen)
{
	struct cgward_bpf *skel = NULL;
	char path[PATH_MAX];
	int ret, expected = 0;

	pinned->links_attached = 0;
	ret = loader_probe(err, errlen);
	if (ret)
		return ret;
	ret = make_dir(dir, NULL);
	if (!ret)
		ret = make_dir(dir, "maps");
	if (!ret)
		ret = make_dir(dir, "links");
	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	ret = open_object(&skel, err, errlen);
	if (ret)
		return ret;
	if (visit_links(skel, dir, count_expected, &expected) == expected) {
		/* A previous agent's programs are attached: keep them, no gap, no duplicate. */
		cgward_bpf__destroy(skel);
		return loader_open_pinned(dir, pinned, err, errlen);
	}
	for (size_t i = 0; i < sizeof(pinned_map_names) / sizeof(pinned_map_names[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, pinned_map_names[i]);

		ret =
		    map ? pin_path(path, sizeof(path), dir, "maps", pinned_map_names[i]) : -ENOENT;
		if (!ret)
			ret = bpf_map__set_pin_path(map, path);
		if (ret) {
			snprintf(err, errlen, "cannot pin map %s: %s", pinned_map_names[i],
				 strerror(-ret));
			cgward_bpf__destroy(skel);
			return ret;
		}
	}
	/* libbpf reuses a map already pinned at its pin path, and pins the others. */
	ret = cgward_bpf__load(skel);
	if (ret) {
		describe_load_error(ret, err, errlen);
		cgward_bpf__destroy(skel);
		return ret;
	}
	ret = attach_missing(skel, dir, &pinned->links_attached, err, errlen);
	cgward_bpf__destroy(skel);
	if (ret)
		return ret;
	return loader_open_pinned(dir, pinned, err, errlen);
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

#define MAX_LINKS 128 /* more than the programs: one link each */

/* dir/kind: the directory of the links or of the maps. */
static int kind_dir(char *out, size_t outlen, const char *dir, const char *kind)
{
	int len = snprintf(out, outlen, "%s/%s", dir, kind);

	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}

/* The ids of the programs of the links pinned under dir, to tell when they are detached. */
static size_t pinned_prog_ids(const char *dir, __u32 *ids)
{
	char links[PATH_MAX];
	DIR *d = kind_dir(links, sizeof(links), dir, "links") == 0 ? opendir(links) : NULL;
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

/*
 * Unpinning drops the last reference, but the kernel may release a link
 * later, from an RCU callback's work item (seen on the PREEMPT_RT kernel).
 * A link's id goes before it is detached, its program's only after: the
 * programs' ids tell when enforcement has ended.
 */
static int wait_programs_released(const __u32 *ids, size_t n)
{
	for (int tries = 0; tries < 500; tries++) {
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

static int unpin_kind(const char *dir, const char *kind, char *path, size_t pathlen)
{
	int ret = kind_dir(path, pathlen, dir, kind);

	return ret ? ret : unpin_all(path);
}

int loader_unpin(const char *dir, char *err, size_t errlen)
{
	__u32 prog_ids[MAX_LINKS];
	size_t n_progs = pinned_prog_ids(dir, prog_ids);
	char path[PATH_MAX];
	int ret = unpin_kind(dir, "links", path, sizeof(path)); /* enforcement ends there */

	if (ret == 0 && wait_programs_released(prog_ids, n_progs)) {
		snprintf(err, errlen,
			 "the kernel still runs the programs unpinned from %s after 5 s", path);
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
