/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the BPF programs and the agent: map keys and values,
 * and the deny event record. Included by both sides, so only fixed-width
 * types from <linux/types.h> (userspace) or vmlinux.h (BPF).
 */
#ifndef CGWARD_ABI_H
#define CGWARD_ABI_H

/*
 * The layout of the pinned plane: map keys and values, the event record and
 * the programs' contract with them. Raised on any change to either; a cgward
 * finding a plane of another version does not adopt it as it is.
 */
#define CGWARD_TREE_ABI_VERSION 10
/*
 * build/relayout (the tests' migration): cgroup_policy's value gains a field
 * that cgroup_mkdir writes, so its programs and one map's layout change and
 * it migrates a plane of this tree's ABI (plane.c). Never released.
 */
#ifdef CGWARD_TEST_RELAYOUT
#define CGWARD_ABI_VERSION	 (CGWARD_TREE_ABI_VERSION + 1)
#define CGWARD_ABI_UPGRADES_FROM CGWARD_TREE_ABI_VERSION
#endif
#ifndef CGWARD_ABI_VERSION /* a test build's own: the Makefile's ABI_DEFINES */
#define CGWARD_ABI_VERSION CGWARD_TREE_ABI_VERSION
#endif
/*
 * The oldest ABI whose plane this build upgrades in place (plane.c): its
 * programs are replaced by this build's, each pinned map whose layout is
 * unchanged is kept, and each that changed in a migratable way is migrated
 * (copied into a map of this build's layout, which then takes its pin).
 * Migratable: a hash map (or hash of maps) whose type, key size and flags
 * are unchanged, whose value grew (fields appended: old entries get them
 * zeroed) and whose max_entries did not shrink; a map added; a map removed
 * (left pinned, unused). Any other change (a field moved or shrunk, a key
 * changed, an array, per-CPU, inode storage or ring buffer changed) is not:
 * a build making one raises this to its own ABI, and a plane of an older one
 * is refused with nothing detached. 7 added operations, reasons and an
 * access kind, and changed no map, key or value: a plane of 6 is upgraded.
 * 8 appended dropped_caps to cgroup_policy's value: migrated, its bindings
 * keep every capability until they are bound again. 9 added the read
 * operations, a reason, the hidden access kind and a policy flag, and
 * changed no map: a plane of 8 is upgraded, and a build of 8 refuses a
 * plane of 9 (its programs would take a hidden path for a write root). 10
 * added the readable access kind and two policy flags, and changed no map:
 * a build of 9 would take a readable tree for a write root.
 */
#ifndef CGWARD_ABI_UPGRADES_FROM
#define CGWARD_ABI_UPGRADES_FROM 6
#endif

#define CGWARD_PATH_MAX 4096
#define CGWARD_COMM_LEN 16
/* Path components (and mount crossings) walked before a write is denied as too deep. */
#define CGWARD_MAX_DEPTH 128

enum cgward_op {
	CGWARD_OP_OPEN_WRITE = 1,
	CGWARD_OP_CREATE,
	CGWARD_OP_MKDIR,
	CGWARD_OP_RMDIR,
	CGWARD_OP_UNLINK,
	CGWARD_OP_MKNOD,
	CGWARD_OP_SYMLINK,
	CGWARD_OP_LINK,
	CGWARD_OP_RENAME,
	CGWARD_OP_TRUNCATE,
	CGWARD_OP_SETATTR,
	CGWARD_OP_SETXATTR,
	CGWARD_OP_REMOVEXATTR,
	/* Escape hatches: denied to every task of an enforced cgroup. */
	CGWARD_OP_MOUNT,
	CGWARD_OP_MOVE_MOUNT,
	CGWARD_OP_UMOUNT,
	CGWARD_OP_PIVOT_ROOT,
	CGWARD_OP_BPF,
	CGWARD_OP_KERNEL_MODULE,
	CGWARD_OP_KEXEC,
	/* Tasks outside the caller's boundary (peer_pid names the target). */
	CGWARD_OP_PTRACE,
	CGWARD_OP_SIGNAL,
	/* Network, under CGWARD_POLICY_NO_NETWORK (family, addr and port name the peer). */
	CGWARD_OP_CONNECT,
	CGWARD_OP_BIND,
	CGWARD_OP_SENDMSG,
	/* Under CGWARD_POLICY_NO_UNIX_OUTSIDE: a unix socket outside the roots or the boundary. */
	CGWARD_OP_UNIX_CONNECT,
	/* clone3(CLONE_INTO_CGROUP): a child started in another cgroup. */
	CGWARD_OP_CLONE_INTO_CGROUP,
	/* ioctl(2) (arg: the command) on a terminal, a device, or a file outside the roots. */
	CGWARD_OP_IOCTL,
	/* A fanotify permission mark: it makes every process that opens the file wait for us. */
	CGWARD_OP_FANOTIFY_PERM,
	/* fsconfig(2) of a file system context (fspick of a mounted one: a remount). */
	CGWARD_OP_FSCONFIG,
	/* A capability the boundary dropped, used against the initial user namespace. */
	CGWARD_OP_CAPABILITY,
	/*
	 * Changing a task outside the caller's boundary (peer_pid): its nice
	 * value, scheduling policy or CPU affinity, I/O priority, resource
	 * limits, memory placement.
	 */
	CGWARD_OP_SETNICE,
	CGWARD_OP_SETSCHEDULER,
	CGWARD_OP_SETIOPRIO,
	CGWARD_OP_SETRLIMIT,
	CGWARD_OP_MOVEMEMORY,
	/* An io_uring request run with a registered personality other than the task's credentials.
	 */
	CGWARD_OP_URING_PERSONALITY,
	/*
	 * Reads, judged under CGWARD_POLICY_JUDGE_READS: a file opened to
	 * read, a directory to list, a file to execute.
	 */
	CGWARD_OP_OPEN_READ,
	CGWARD_OP_READDIR,
	CGWARD_OP_EXEC,
	CGWARD_OP_MAX,
};

enum cgward_verdict {
	CGWARD_VERDICT_DENY = 1,
	CGWARD_VERDICT_AUDIT,
};

enum cgward_reason {
	CGWARD_REASON_OUTSIDE_ROOTS = 1, /* no write root above the target */
	CGWARD_REASON_READ_ONLY,	 /* the nearest root above it is read-only */
	CGWARD_REASON_TOO_DEEP,		 /* more than CGWARD_MAX_DEPTH components */
	CGWARD_REASON_PROTECTED_FS,	 /* bpffs or cgroupfs: never writable from inside */
	CGWARD_REASON_ESCAPE_HATCH,	 /* an operation that could lift the boundary */
	CGWARD_REASON_OUTSIDE_BOUNDARY,	 /* the target task is not in the caller's boundary */
	CGWARD_REASON_NETWORK,		 /* the policy denies the network */
	CGWARD_REASON_DEVICE,		 /* a device the policy does not allow (allow_devices) */
	CGWARD_REASON_CAPABILITY,	 /* a capability the policy dropped */
	CGWARD_REASON_HIDDEN,		 /* the nearest root above it is hidden (--hide) */
	/* Opened by a handle with no path up from it yet (open_by_handle_at): where it lies is
	   unknown. */
	CGWARD_REASON_DISCONNECTED,
};

/*
 * Policy of one cgroup2 cgroup, keyed by its id (the kernfs inode number).
 * boundary_id is the cgroup the policy was bound to; the cgroups below it
 * that inherit the policy keep it, so tasks with the same boundary_id are
 * inside one boundary (ptrace and signals between them are allowed).
 */
struct cgward_cgroup_policy {
	__u32 policy_id;
	__u32 flags;
	__u64 boundary_id;
	/*
	 * A mandatory agent rule above a `cgward exec` cgroup: its roots must
	 * allow a write too (the intersection); 0 for none.
	 */
	__u32 mandatory_id;
	/*
	 * Under CGWARD_POLICY_FROM_EXEC: the container runtime's mount
	 * namespace (its inode number), where runc's own exec of itself
	 * happens; the workload's exec happens in the container's.
	 */
	__u32 runtime_mnt_ns;
	/*
	 * Bit N: capability N may not be used against the initial user
	 * namespace (capabilities 64 and up: unless this is 0). 0: every one
	 * may, as in a binding migrated from ABI 7.
	 */
	__u64 dropped_caps;
	/* mandatory_id's own, which hold too (its denies are counted under it). */
	__u64 mandatory_dropped_caps;
#ifdef CGWARD_TEST_RELAYOUT
	__u64 inherited_from; /* build/relayout's: the parent cgroup, set by cgroup_mkdir */
#endif
};

/*
 * Policy ids from here up are `cgward exec` runs', each claimed by creating
 * its policy_info entry (BPF_NOEXIST); the agent's rules are numbered below.
 */
#define CGWARD_EXEC_POLICY_MIN 0x80000000U
/* Concurrent `cgward exec` runs on one host, and the ring buffer of each. */
#define CGWARD_EXEC_MAX	      8192
#define CGWARD_EXEC_RING_SIZE (256 * 1024)
/*
 * How the name of a `cgward exec` run's cgroup begins, followed by a digit
 * (user/system/cgroup.c's exec_cgroup_create): cgroup_mkdir tells its runs
 * from other cgroups by it.
 */
#define CGWARD_EXEC_CGROUP_PREFIX "cgward-"

#define CGWARD_POLICY_AUDIT (1U << 0) /* report would-be denies, allow them */
/*
 * The agent's rule is mandatory: it is inherited even into the cgroups of a
 * `cgward exec` below it, so that both boundaries apply. Without it, such a
 * cgroup gets only the exec's own policy.
 */
#define CGWARD_POLICY_MANDATORY (1U << 1)
/* connect, bind and sendmsg to IPv4 and IPv6 addresses are denied... */
#define CGWARD_POLICY_NO_NETWORK (1U << 2)
/* ...except to loopback addresses (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104). */
#define CGWARD_POLICY_ALLOW_LOOPBACK (1U << 3)
/*
 * Connecting or sending to a unix socket whose file is outside the roots, or
 * to an abstract socket created outside the boundary, is denied.
 */
#define CGWARD_POLICY_NO_UNIX_OUTSIDE (1U << 4)
/*
 * A container's cgroup: the policy holds from the first exec in it made
 * outside runtime_mnt_ns (the workload's, where runc applies AppArmor), so
 * that runc init's own set-up in the cgroup (mounts, files under the
 * runtime's state directory, its exec of a copy of itself) is not judged.
 * container_started records that exec.
 */
#define CGWARD_POLICY_FROM_EXEC (1U << 5)
/*
 * The policy, or the mandatory one above it, hides paths or confines reads:
 * opening a file to read or execute and a directory to list are judged too.
 */
#define CGWARD_POLICY_JUDGE_READS (1U << 6)
/* Reads outside the policy's roots (of any access but hidden) are denied... */
#define CGWARD_POLICY_READ_ROOTS (1U << 7)
/* ...and those outside the mandatory policy's roots (its CGWARD_POLICY_READ_ROOTS). */
#define CGWARD_POLICY_MANDATORY_READ_ROOTS (1U << 8)

/*
 * A root is a directory identity, not a path string: the kernel's dev_t of its
 * super block (MKDEV layout: major << 20 | minor) and its inode number.
 */
struct cgward_root_key {
	__u32 policy_id;
	__u32 dev;
	__u64 ino;
};

enum cgward_access {
	CGWARD_ACCESS_READ_ONLY = 1,
	CGWARD_ACCESS_WRITE,
	/*
	 * Not a directory: a unix socket's inode that may be connected and sent
	 * to although it is outside the roots (cgward exec --allow-unix). It
	 * counts only for CGWARD_OP_UNIX_CONNECT; other writes to it are denied.
	 */
	CGWARD_ACCESS_UNIX_PEER,
	/*
	 * Not a directory: a device that may be opened for writing and given
	 * ioctls through any node of it (cgward exec --allow-dev), keyed by
	 * dev 0 and CGWARD_DEVICE_KEY: no super block has dev 0, so no walk
	 * meets the entry.
	 */
	CGWARD_ACCESS_DEVICE,
	/*
	 * A hidden file or tree (cgward exec --hide): not readable, listable
	 * or executable, nor writable, whatever root is above it. No root lies
	 * beneath one (userspace refuses it), so for a read the nearest entry
	 * decides: hidden, or any other root, which leaves it readable.
	 */
	CGWARD_ACCESS_HIDDEN,
	/*
	 * A readable file or tree (cgward exec --read, the system set): a read
	 * beneath it is allowed as beneath any other root, and a write passes
	 * over it to the roots above.
	 */
	CGWARD_ACCESS_READ,
};

/* A device's type and number (MKDEV layout), as a CGWARD_ACCESS_DEVICE entry's ino. */
#define CGWARD_DEVICE_KEY(block, rdev) (((__u64)(block) << 32) | (rdev))

struct cgward_root_value {
	__u32 access; /* enum cgward_access */
	__u32 flags;  /* CGWARD_ROOT_* */
};

/*
 * A write (or readable) root of a policy that also has read-only or hidden
 * paths, which may lie below it: a directory beneath it is not writable
 * (readable) for that alone, and neither the fast walk nor the walk cache
 * answers for it.
 */
#define CGWARD_ROOT_EXCEPTIONS (1U << 0)

/*
 * root_tags: BPF inode storage on the directory of every root and read-only
 * exception, set from userspace through the O_PATH descriptor that pins it
 * (the map's key is a file descriptor there). A tag is a hint for the walk:
 * a directory without one is no policy's root, so a step over it needs no
 * write_roots lookup. Tags are never removed; one left on a directory that
 * is no longer a root costs a lookup that finds nothing, and the tags die
 * with their inodes.
 */
struct cgward_root_tag {
	__u32 flags; /* CGWARD_TAG_* */
};

/*
 * write_roots holds this directory under some policy. Whether that
 * policy has exceptions beneath it is the policy's own entry's to say
 * (CGWARD_ROOT_EXCEPTIONS), not the tag's: tags outlive the runs that set
 * them, and one run's --hide must not slow another's walks. A plane
 * upgraded in place may carry tags with bit 1 set by older builds: it is
 * ignored.
 */
#define CGWARD_TAG_ROOT (1U << 0)

/*
 * policy_info: a policy's name (for cgward status) and how many operations
 * the kernel denied or audited under it, counted whether or not the event
 * fitted in deny_events.
 */
#define CGWARD_POLICY_NAME_LEN 64
/*
 * The agent's rules, twice (a reload installs the new ones before it retires
 * the old), and the exec runs.
 */
#define CGWARD_POLICY_INFO_MAX (2 * 4096 + CGWARD_EXEC_MAX)

/*
 * An exec id whose run ended but whose ring buffer stays in exec_events for
 * the next run of the same uid: inserting a ring into a map of maps, and
 * deleting or even looking one up from user space, each wait for an RCU
 * grace period. Its policy_info: owner_pid 0, name CGWARD_PARKED_PREFIX and
 * the uid in decimal, parked_ring the ring map's id. Older builds of this ABI
 * see an exec of a dead owner, and collect it.
 */
#define CGWARD_PARKED_PREFIX "parked:"

struct cgward_policy_info {
	__u64 denied;
	__u64 audited;
	__u64 events_lost; /* an exec's: events that did not fit its own ring buffer */
	__u32 owner_pid;   /* an exec's: the cgward that claimed the id; 0 for the agent's */
	__u32 parked_ring; /* a parked exec's (CGWARD_PARKED_PREFIX): its ring buffer's map id */
	char name[CGWARD_POLICY_NAME_LEN];
};

/*
 * plane_info: what the pinned plane was built from. A cgward adopts a plane
 * only when both match its own; the links it pinned are counted so that an
 * adopter can tell a complete plane from one still being attached.
 */
struct cgward_plane_info {
	__u32 abi_version; /* CGWARD_ABI_VERSION */
	__u32 n_links;
	__u64 object_hash; /* of the BPF object: CGWARD_OBJECT_HASH, made by the build */
};

/*
 * A deny (or audit) event. path holds path_len bytes of the target's path,
 * then target_len bytes of the second path for rename and link; neither is
 * NUL-terminated. Records are sent trimmed to their used length.
 */
struct cgward_event {
	__u64 boot_ns; /* bpf_ktime_get_boot_ns() */
	__u64 cgroup_id;
	__u32 pid; /* thread id */
	__u32 tgid;
	__u32 uid;
	__u32 policy_id;
	__u16 op;      /* enum cgward_op */
	__u16 verdict; /* enum cgward_verdict */
	__u16 reason;  /* enum cgward_reason */
	__u16 flags;   /* CGWARD_EVENT_* */
	__u16 path_len;
	__u16 target_len;
	__u32 root_dev; /* the deciding root for CGWARD_REASON_READ_ONLY, else 0 */
	__u64 root_ino;
	__u32 peer_pid; /* ptrace, signal: the target's tgid */
	/*
	 * signal: its number; mount: its flags; bpf, ioctl: the command;
	 * kernel_module, kexec: enum kernel_read_file_id; fanotify_perm: the
	 * mark's event bits; capability: its number; setrlimit: the resource
	 */
	__u32 arg;
	__u16 family;  /* connect, bind, sendmsg: AF_INET or AF_INET6 */
	__u16 port;    /* host byte order */
	__u8 addr[16]; /* network byte order; IPv4 in the first 4 bytes */
	char comm[CGWARD_COMM_LEN];
	char path[2 * CGWARD_PATH_MAX];
};

#define CGWARD_EVENT_PATH_TRUNCATED   (1U << 0)
#define CGWARD_EVENT_TARGET_TRUNCATED (1U << 1)
/*
 * The mount was unknown (inode hooks) or detached (open_tree, fsmount): the
 * path starts at its file system's root.
 */
#define CGWARD_EVENT_PATH_FROM_FS_ROOT	 (1U << 2)
#define CGWARD_EVENT_TARGET_FROM_FS_ROOT (1U << 3)

#endif
