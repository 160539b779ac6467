// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "cgward_scalar.skel.h"
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

/* This kernel's version as major * 1000 + minor; 0 when unknown. */
static unsigned int kernel_version(void)
{
	struct utsname uts;
	unsigned int major, minor;

	if (uname(&uts) || sscanf(uts.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major * 1000 + minor;
}

/* The ring buffer arrived in 5.8 (before it, see docs/kernels.md's plan for a perf buffer). */
static int check_kernel_version(char *err, size_t errlen)
{
	unsigned int version = kernel_version();
	struct utsname uts;

	if (version == 0 || version >= 5008)
		return 0; /* unknown: the verifier will tell */
	uname(&uts);
	snprintf(err, errlen, "Linux %s is too old: cgward needs 5.8 or later", uts.release);
	return -EOPNOTSUPP;
}

/*
 * Global functions take pointer arguments from 5.12 on; before, the walks
 * pass their state through a per-CPU map (bpf/walk.bpf.h). 5.12 gets
 * that object too: the other was never tried on it.
 */
bool loader_scalar_walks(void)
{
	unsigned int version = kernel_version();

	return version != 0 && version < 5013;
}

/*
 * bpf/overlay.bpf.h recognizes overlayfs' own writes where the programs
 * can read struct ovl_fs: its BTF is in vmlinux, or in the overlay module's
 * (5.11+, the module loaded), and the object is not the scalar one (task
 * storage reaches LSM programs in 5.11).
 */
bool loader_overlay_recognized(const char **why)
{
	struct btf *vmlinux, *module = NULL;
	bool found;

	if (loader_scalar_walks()) {
		*why = "task storage and bpf_get_current_task_btf() reach LSM programs in 5.11";
		return false;
	}
	vmlinux = btf__load_vmlinux_btf();
	found = vmlinux && btf__find_by_name_kind(vmlinux, "ovl_fs", BTF_KIND_STRUCT) >= 0;
	if (vmlinux && !found) {
		module = btf__load_module_btf("overlay", vmlinux);
		found = module && btf__find_by_name_kind(module, "ovl_fs", BTF_KIND_STRUCT) >= 0;
	}
	btf__free(module);
	btf__free(vmlinux);
	*why = found ? "" : "no BTF for overlayfs (its module not loaded when the programs are)";
	return found;
}

/*
 * Whether skel's programs have the walk cache (walk_cache_serves() in
 * bpf/decision.bpf.h): x86-64, and rename_lock's address given.
 */
bool loader_walk_cache(const struct cgward_bpf *skel, const char **why)
{
#ifdef __x86_64__
	bool on = skel->rodata->rename_lock_addr != 0;

	*why = on ? ""
		  : "/proc/kallsyms does not give rename_lock's address: no "
		    "CONFIG_KALLSYMS_ALL, or kptr_restrict";
	return on;
#else
	*why = "x86-64 only: elsewhere BPF has no read barrier to order the walk after reading "
	       "the rename count";
	return false;
#endif
}

const void *loader_object_bytes(size_t *size)
{
	return loader_scalar_walks() ? cgward_scalar_bpf__elf_bytes(size)
				     : cgward_bpf__elf_bytes(size);
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

void loader_describe_error(int ret, char *err, size_t errlen)
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
 * Programs for hooks that differ within the kernels supported (5.8+): each
 * is loaded only where the kernel's hook has its number of arguments (any,
 * for -1) and the kernel is recent enough, so a hook the kernel lacks loads
 * none. The xattr hooks gained a leading user namespace (an idmap from 6.3)
 * in 5.12, inode_setattr in 6.2; the POSIX ACL hooks are new in 6.2,
 * uring_cmd in 6.0, uring_override_creds in 5.12 and file_ioctl_compat in 6.8; hooks
 * that take a struct by value (path_chown's kuid_t) attach from 6.1.
 * Appended arguments need no variant: a program declares only the leading
 * ones it reads. The note says what stands in where a program is not loaded.
 */
#define STRUCT_ARGS_VERSION 6001

static const struct {
	const char *hook; /* the kernel's bpf_lsm_<hook> */
	int arity;
	unsigned int min_version;
	const char *prog;
	const char *note;
} hook_variants[] = {
    {"bpf_lsm_inode_setattr", 2, 0, "inode_setattr", NULL},
    {"bpf_lsm_inode_setattr", 3, 0, "inode_setattr_idmapped", NULL},
    {"bpf_lsm_inode_setxattr", 5, 0, "inode_setxattr_unmapped", NULL},
    {"bpf_lsm_inode_setxattr", 6, 0, "inode_setxattr", NULL},
    {"bpf_lsm_inode_removexattr", 2, 0, "inode_removexattr_unmapped", NULL},
    {"bpf_lsm_inode_removexattr", 3, 0, "inode_removexattr", NULL},
    {"bpf_lsm_inode_set_acl", 4, 0, "inode_set_acl",
     "no such hook before 6.2: POSIX ACLs are set through setxattr, which inode_setxattr checks"},
    {"bpf_lsm_inode_remove_acl", 3, 0, "inode_remove_acl",
     "no such hook before 6.2: POSIX ACLs are removed through removexattr, which "
     "inode_removexattr checks"},
    {"bpf_lsm_path_chown", -1, STRUCT_ARGS_VERSION, "path_chown",
     "hooks that take a struct by value attach from 6.1: inode_setattr judges chown instead, "
     "on the mount guessed as for the other inode hooks"},
    {"bpf_lsm_file_ioctl_compat", -1, 0, "file_ioctl_compat",
     "no such hook before 6.8 (and its stable backports): 32-bit ioctls reach file_ioctl"},
    {"bpf_lsm_uring_cmd", -1, 0, "uring_cmd",
     "no such hook before 6.0, nor io_uring commands that reach drivers"},
    {"bpf_lsm_uring_override_creds", -1, 0, "uring_override_creds",
     "no such hook before 5.12: io_uring personalities are not refused (io_uring makes no "
     "socket there, so none reaches a privileged netlink family)"},
};

/*
 * The address of rename_lock (rename_count() in bpf/decision.bpf.h),
 * or 0 where /proc/kallsyms does not give it (no CONFIG_KALLSYMS_ALL, or
 * kptr_restrict): the programs then walk every time. Lines are "ADDRESS
 * TYPE NAME", modules' with a tab and "[MODULE]" after the name.
 */
static __u64 rename_lock_address(void)
{
	FILE *kallsyms = fopen("/proc/kallsyms", "re");
	char line[512];
	__u64 address = 0;

	while (kallsyms && fgets(line, sizeof(line), kallsyms)) {
		const char *name = strrchr(line, ' ');

		if (name && strcmp(name, " rename_lock\n") == 0) {
			address = strtoull(line, NULL, 16);
			break;
		}
	}
	if (kallsyms)
		fclose(kallsyms);
	return address;
}

static void select_hook_variants(struct cgward_bpf *skel)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	unsigned int version = kernel_version();

	for (size_t i = 0; i < sizeof(hook_variants) / sizeof(hook_variants[0]); i++) {
		struct bpf_program *prog =
		    bpf_object__find_program_by_name(skel->obj, hook_variants[i].prog);
		int arity = vmlinux ? kernel_function_arity(vmlinux, hook_variants[i].hook) : -1;
		bool matches = arity >= 0 &&
			       (hook_variants[i].arity < 0 || arity == hook_variants[i].arity) &&
			       (version == 0 || version >= hook_variants[i].min_version);

		bpf_program__set_autoload(prog, matches);
	}
	/* Both objects have these variables alone in .rodata: the skeleton's view fits either. */
	skel->rodata->setattr_judges_owner = !bpf_program__autoload(skel->progs.path_chown);
	skel->rodata->rename_lock_addr = rename_lock_address();
	btf__free(vmlinux);
}

/* Hooks whose older signature the same program fits, and what differs there. */
static const struct {
	const char *hook;
	int arity;
	const char *prog;
	const char *note;
} older_signatures[] = {
    {"bpf_lsm_path_rename", 4, "path_rename",
     "no flags argument before 5.19: RENAME_EXCHANGE calls the hook once per direction, and "
     "both ends are judged either way"},
};

void loader_hook_notes(struct cgward_bpf *skel,
		       void (*visit)(const char *prog, bool loaded, const char *note))
{
	struct btf *vmlinux = btf__load_vmlinux_btf();

	for (size_t i = 0; i < sizeof(hook_variants) / sizeof(hook_variants[0]); i++) {
		struct bpf_program *prog =
		    bpf_object__find_program_by_name(skel->obj, hook_variants[i].prog);

		if (hook_variants[i].note && !bpf_program__autoload(prog))
			visit(hook_variants[i].prog, false, hook_variants[i].note);
	}
	for (size_t i = 0; vmlinux && i < sizeof(older_signatures) / sizeof(older_signatures[0]);
	     i++) {
		if (kernel_function_arity(vmlinux, older_signatures[i].hook) ==
		    older_signatures[i].arity)
			visit(older_signatures[i].prog, true, older_signatures[i].note);
	}
	btf__free(vmlinux);
}

/*
 * The skeleton of the pointer-argument object serves both: they are built
 * from the same sources, so every map and program it names is in each.
 */
static struct cgward_bpf *open_object(void)
{
	struct cgward_bpf *skel = calloc(1, sizeof(*skel));
	int ret;

	if (!skel)
		return NULL;
	ret = cgward_bpf__create_skeleton(skel);
	if (!ret) {
		skel->skeleton->data = (void *)loader_object_bytes(&skel->skeleton->data_sz);
		ret = bpf_object__open_skeleton(skel->skeleton, NULL);
	}
	if (ret) {
		cgward_bpf__destroy(skel);
		errno = -ret;
		return NULL;
	}
	return skel;
}

/* Opens the object (no load) with the hook variants this kernel needs. */
int loader_open(struct cgward_bpf **skel, char *err, size_t errlen)
{
	libbpf_set_print(keep_libbpf_warnings);
	libbpf_log_len = 0;
	*skel = open_object();
	if (!*skel) {
		int ret = -errno;

		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	select_hook_variants(*skel);
	return 0;
}

int loader_load(struct cgward_bpf **skel, char *err, size_t errlen)
{
	int ret = loader_probe(err, errlen);

	if (ret)
		return ret;
	ret = loader_open(skel, err, errlen);
	if (ret)
		return ret;
	ret = cgward_bpf__load(*skel);
	if (ret) {
		loader_describe_error(ret, err, errlen);
		cgward_bpf__destroy(*skel);
		*skel = NULL;
	}
	return ret;
}

int loader_attach(struct cgward_bpf *skel, char *err, size_t errlen)
{
	int ret = cgward_bpf__attach(skel);

	if (ret)
		snprintf(err, errlen, "cannot attach the BPF programs: %s", strerror(-ret));
	return ret;
}

void loader_close(struct cgward_bpf *skel)
{
	cgward_bpf__destroy(skel);
}
