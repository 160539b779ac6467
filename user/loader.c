// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgward.skel.h"
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
	return 0;
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

	if (ret == -EPERM)
		hint = " (this kernel lists bpf as an LSM but refuses BPF LSM programs, or the "
		       "caller lacks CAP_BPF and CAP_SYS_ADMIN)";
	while (libbpf_log_len && libbpf_log[libbpf_log_len - 1] == '\n')
		libbpf_log_len--;
	snprintf(err, errlen, "cannot load the BPF programs: %s%s%s%.*s", strerror(-ret), hint,
		 libbpf_log_len ? "\n" : "", (int)libbpf_log_len, libbpf_log);
}

/* The number of parameters of a kernel function, from the kernel's BTF; negative if unknown. */
static int kernel_function_arity(const char *name)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const struct btf_type *func;
	int id, arity = -ENOENT;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	if (id > 0) {
		func = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
		arity = btf_vlen(func);
	}
	btf__free(vmlinux);
	return arity;
}

/* inode_setattr gained a leading idmap (user namespace) argument in 6.2: keep the matching one. */
static void select_hook_variants(struct cgward_bpf *skel)
{
	bool idmapped = kernel_function_arity("bpf_lsm_inode_setattr") != 2;

	bpf_program__set_autoload(skel->progs.inode_setattr, !idmapped);
	bpf_program__set_autoload(skel->progs.inode_setattr_idmapped, idmapped);
}

int loader_load(struct cgward_bpf **skel, char *err, size_t errlen)
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

	if (ret)
		snprintf(err, errlen, "cannot attach the BPF programs: %s", strerror(-ret));
	return ret;
}

void loader_close(struct cgward_bpf *skel)
{
	cgward_bpf__destroy(skel);
}
