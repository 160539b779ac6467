// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "capabilities.h"
#include "events.h"
#include "pod_identity.h"

static const char *const op_names[CGWARD_OP_MAX] = {
    [CGWARD_OP_OPEN_WRITE] = "open_write",
    [CGWARD_OP_CREATE] = "create",
    [CGWARD_OP_MKDIR] = "mkdir",
    [CGWARD_OP_RMDIR] = "rmdir",
    [CGWARD_OP_UNLINK] = "unlink",
    [CGWARD_OP_MKNOD] = "mknod",
    [CGWARD_OP_SYMLINK] = "symlink",
    [CGWARD_OP_LINK] = "link",
    [CGWARD_OP_RENAME] = "rename",
    [CGWARD_OP_TRUNCATE] = "truncate",
    [CGWARD_OP_SETATTR] = "setattr",
    [CGWARD_OP_SETXATTR] = "setxattr",
    [CGWARD_OP_REMOVEXATTR] = "removexattr",
    [CGWARD_OP_MOUNT] = "mount",
    [CGWARD_OP_MOVE_MOUNT] = "move_mount",
    [CGWARD_OP_UMOUNT] = "umount",
    [CGWARD_OP_PIVOT_ROOT] = "pivot_root",
    [CGWARD_OP_BPF] = "bpf",
    [CGWARD_OP_KERNEL_MODULE] = "kernel_module",
    [CGWARD_OP_KEXEC] = "kexec",
    [CGWARD_OP_PTRACE] = "ptrace",
    [CGWARD_OP_SIGNAL] = "signal",
    [CGWARD_OP_CONNECT] = "connect",
    [CGWARD_OP_BIND] = "bind",
    [CGWARD_OP_SENDMSG] = "sendmsg",
    [CGWARD_OP_UNIX_CONNECT] = "unix_connect",
    [CGWARD_OP_CLONE_INTO_CGROUP] = "clone_into_cgroup",
    [CGWARD_OP_IOCTL] = "ioctl",
    [CGWARD_OP_FANOTIFY_PERM] = "fanotify_perm",
    [CGWARD_OP_FSCONFIG] = "fsconfig",
    [CGWARD_OP_CAPABILITY] = "capability",
    [CGWARD_OP_SETNICE] = "setnice",
    [CGWARD_OP_SETSCHEDULER] = "setscheduler",
    [CGWARD_OP_SETIOPRIO] = "setioprio",
    [CGWARD_OP_SETRLIMIT] = "setrlimit",
    [CGWARD_OP_MOVEMEMORY] = "movememory",
    [CGWARD_OP_URING_PERSONALITY] = "uring_personality",
    [CGWARD_OP_OPEN_READ] = "open_read",
    [CGWARD_OP_READDIR] = "readdir",
    [CGWARD_OP_EXEC] = "exec",
};

const char *event_op_name(__u16 op)
{
	return op < CGWARD_OP_MAX && op_names[op] ? op_names[op] : "unknown";
}

const char *event_reason_name(__u16 reason)
{
	switch (reason) {
	case CGWARD_REASON_OUTSIDE_ROOTS:
		return "outside_roots";
	case CGWARD_REASON_READ_ONLY:
		return "read_only";
	case CGWARD_REASON_TOO_DEEP:
		return "too_deep";
	case CGWARD_REASON_PROTECTED_FS:
		return "protected_fs";
	case CGWARD_REASON_ESCAPE_HATCH:
		return "escape_hatch";
	case CGWARD_REASON_OUTSIDE_BOUNDARY:
		return "outside_boundary";
	case CGWARD_REASON_NETWORK:
		return "network";
	case CGWARD_REASON_DEVICE:
		return "device";
	case CGWARD_REASON_CAPABILITY:
		return "capability";
	case CGWARD_REASON_HIDDEN:
		return "hidden";
	case CGWARD_REASON_DISCONNECTED:
		return "disconnected";
	}
	return "unknown";
}

static __s64 timespec_ns(const struct timespec *ts)
{
	return (__s64)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

__s64 event_clock_offset(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return timespec_ns(&real) - timespec_ns(&boot);
}

static void put_time(struct json_buf *out, __s64 realtime_ns)
{
	struct timespec ts = {.tv_sec = realtime_ns / 1000000000,
			      .tv_nsec = realtime_ns % 1000000000};
	char text[64];

	if (json_format_time(&ts, text, sizeof(text)) == 0)
		json_key_cstr(out, "time", text);
	else
		json_key_null(out, "time");
}

static void put_root(struct json_buf *out, const struct cgward_event *e,
		     const struct event_context *ctx)
{
	for (size_t i = 0; i < ctx->n_roots; i++) {
		if (ctx->roots[i].dev == e->root_dev && ctx->roots[i].ino == e->root_ino) {
			json_key_cstr(out, "root", ctx->roots[i].path);
			return;
		}
	}
	json_key_null(out, "root");
}

/* The other end of a network operation: "family", "address" and "port". */
static void put_address(struct json_buf *out, const struct cgward_event *e)
{
	char text[INET6_ADDRSTRLEN];
	int family = e->family == AF_INET6 ? AF_INET6 : AF_INET;

	json_key_cstr(out, "family", family == AF_INET6 ? "inet6" : "inet");
	if (inet_ntop(family, e->addr, text, sizeof(text)))
		json_key_cstr(out, "address", text);
	else
		json_key_null(out, "address");
	json_key_u64(out, "port", e->port);
}

/* capabilities(7)'s name, or CAP_N for a capability newer than this build. */
static void put_capability(struct json_buf *out, __u32 cap)
{
	char unknown[16];
	const char *name = capability_name(cap);

	if (!name) {
		snprintf(unknown, sizeof(unknown), "CAP_%u", cap);
		name = unknown;
	}
	json_key_cstr(out, "capability", name);
}

/* What a non-file operation acts on, besides its path. */
static void put_operands(struct json_buf *out, const struct cgward_event *e)
{
	switch (e->op) {
	case CGWARD_OP_PTRACE:
	case CGWARD_OP_SETNICE:
	case CGWARD_OP_SETSCHEDULER:
	case CGWARD_OP_SETIOPRIO:
	case CGWARD_OP_MOVEMEMORY:
		json_key_u64(out, "target_pid", e->peer_pid);
		break;
	case CGWARD_OP_SETRLIMIT:
		json_key_u64(out, "target_pid", e->peer_pid);
		json_key_u64(out, "resource", e->arg);
		break;
	case CGWARD_OP_CAPABILITY:
		put_capability(out, e->arg);
		break;
	case CGWARD_OP_SIGNAL:
		json_key_u64(out, "target_pid", e->peer_pid);
		json_key_u64(out, "signal", e->arg);
		break;
	case CGWARD_OP_MOUNT:
		json_key_u64(out, "mount_flags", e->arg);
		break;
	case CGWARD_OP_BPF:
		json_key_u64(out, "bpf_cmd", e->arg);
		break;
	case CGWARD_OP_IOCTL:
		json_key_u64(out, "ioctl_cmd", e->arg);
		break;
	case CGWARD_OP_FANOTIFY_PERM:
		json_key_u64(out, "fanotify_events", e->arg);
		break;
	case CGWARD_OP_CONNECT:
	case CGWARD_OP_BIND:
	case CGWARD_OP_SENDMSG:
		put_address(out, e);
		break;
	}
}

/* Kubernetes workloads are named by their pod and container, parsed from the cgroup path. */
static void put_pod_identity(struct json_buf *out, const char *cgroup_path)
{
	struct pod_identity pod;

	if (pod_identity_parse(cgroup_path, &pod) != 0)
		return;
	json_key_cstr(out, "pod_uid", pod.pod_uid);
	if (pod.container_id[0])
		json_key_cstr(out, "container_id", pod.container_id);
}

static void put_context(struct json_buf *out, const struct event_context *ctx)
{
	if (ctx->cgroup_path) {
		json_key_cstr(out, "cgroup", ctx->cgroup_path);
		put_pod_identity(out, ctx->cgroup_path);
	}
	if (ctx->k8s_namespace)
		json_key_cstr(out, "namespace", ctx->k8s_namespace);
	if (ctx->pod_name)
		json_key_cstr(out, "pod", ctx->pod_name);
	if (ctx->container_name)
		json_key_cstr(out, "container", ctx->container_name);
	if (ctx->policy_name)
		json_key_cstr(out, "policy", ctx->policy_name);
}

int event_to_json(const void *record, size_t size, const struct event_context *ctx,
		  struct json_buf *out)
{
	const struct cgward_event *e = record;
	size_t header = offsetof(struct cgward_event, path);
	struct event_context named;

	if (size < header || size - header < (size_t)e->path_len + e->target_len)
		return -EINVAL;
	if (ctx->lookup) {
		named = (struct event_context){.boot_to_realtime_ns = ctx->boot_to_realtime_ns};
		ctx->lookup(e, &named, ctx->lookup_arg);
		ctx = &named;
	}
	json_reset(out);
	json_begin(out);
	put_time(out, (__s64)e->boot_ns + ctx->boot_to_realtime_ns);
	json_key_cstr(out, "verdict", e->verdict == CGWARD_VERDICT_AUDIT ? "audit" : "deny");
	json_key_cstr(out, "op", event_op_name(e->op));
	json_key_cstr(out, "reason", event_reason_name(e->reason));
	if (e->path_len || e->op < CGWARD_OP_MOUNT) /* file operations always have one */
		json_key_str(out, "path", e->path, e->path_len);
	if (e->target_len)
		json_key_str(out, "target", e->path + e->path_len, e->target_len);
	if (e->flags & (CGWARD_EVENT_PATH_TRUNCATED | CGWARD_EVENT_TARGET_TRUNCATED))
		json_key_bool(out, "truncated", true);
	if (e->flags & CGWARD_EVENT_PATH_FROM_FS_ROOT)
		json_key_bool(out, "path_from_fs_root", true);
	if (e->flags & CGWARD_EVENT_TARGET_FROM_FS_ROOT)
		json_key_bool(out, "target_from_fs_root", true);
	put_root(out, e, ctx);
	put_operands(out, e);
	json_key_u64(out, "pid", e->tgid);
	json_key_u64(out, "tid", e->pid);
	json_key_u64(out, "uid", e->uid);
	json_key_str(out, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	json_key_u64(out, "cgroup_id", e->cgroup_id);
	put_context(out, ctx);
	json_end(out);
	return out->failed ? -ENOMEM : 0;
}

void event_lost_to_json(__u64 count, const struct event_context *ctx, struct json_buf *out)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	json_reset(out);
	json_begin(out);
	put_time(out, timespec_ns(&now));
	json_key_cstr(out, "op", "lost");
	json_key_u64(out, "count", count);
	put_context(out, ctx);
	json_end(out);
}
