/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps every concern shares. Each .bpf.c includes this header; the
 * definitions are __weak so that `bpftool gen object` merges them into one
 * map each in the linked object.
 */
#ifndef CGWARD_MAPS_BPF_H
#define CGWARD_MAPS_BPF_H

#include "cgward_abi.h"

#define NAME_MAX 255

/* cgroup id -> policy. A missing entry is the fast path: not enforced. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct cgward_cgroup_policy);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} cgroup_policy SEC(".maps") __weak;

/* (policy, directory identity) -> access: the write roots and read-only exceptions. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__type(key, struct cgward_root_key);
	__type(value, struct cgward_root_value);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} write_roots SEC(".maps") __weak;

/* Directory inode -> struct cgward_root_tag: which directories are some policy's roots. */
struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cgward_root_tag);
} root_tags SEC(".maps") __weak;

/*
 * What the fast walk found above a directory: a write root (of some policy)
 * on its file system, at a value of rename_lock's sequence count and a time.
 * The programs' own: each entry is created whole and never written after (a
 * stale one is deleted and created again), so no reader sees half of one.
 */
struct walk_cache_entry {
	__u64 root_ino;
	__u64 jiffies;
	__u32 rename_seq;
	__u32 unused;
};

struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct walk_cache_entry);
} walk_cache SEC(".maps") __weak;

/* The boundary whose task made something: a user namespace, a tmpfs in one. */
struct boundary_owner {
	__u64 boundary_id;
	__u32 policy_id;
	__u32 unused;
};

/*
 * On the root inode of a tmpfs or ramfs that a boundary's task mounted in a
 * user namespace's mount namespace: that boundary (mounts.bpf.c). The
 * programs' own, freed with the file system; a plane loaded since knows none.
 */
struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct boundary_owner);
} namespace_fs SEC(".maps") __weak;

/*
 * cgroup id -> boot time of the exec that started its workload, for the
 * cgroups bound under CGWARD_POLICY_FROM_EXEC. Written by the kernel side at
 * that exec (and by the agent for a container it finds already running);
 * removed with the cgroup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} container_started SEC(".maps") __weak;

/*
 * policy id -> name and verdict counts. The agent creates the entry of each
 * rule it installs; a policy without one (cgward exec's) is not counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CGWARD_POLICY_INFO_MAX);
	__type(key, __u32);
	__type(value, struct cgward_policy_info);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} policy_info SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} deny_events SEC(".maps") __weak;

/*
 * Each `cgward exec` run's own ring buffer, keyed by its policy id: the run
 * reads exactly its cgroup's events, while deny_events carries every event
 * of the host to the agent.
 */
struct exec_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CGWARD_EXEC_RING_SIZE);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, CGWARD_EXEC_MAX);
	__type(key, __u32);
	__array(values, struct exec_ring);
} exec_events SEC(".maps") __weak;

/* Written by userspace alone: struct cgward_plane_info. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgward_plane_info);
} plane_info SEC(".maps") __weak;

/* Events that did not fit in deny_events, so that userspace can report the loss. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_events SEC(".maps") __weak;

/* An event is too large for the 512-byte BPF stack: build it here. */
struct event_scratch {
	struct cgward_event event;
	/* A path's components, written leaf first from the end; room for one name past it. */
	char reversed[CGWARD_PATH_MAX + NAME_MAX + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event_scratch);
} event_scratch SEC(".maps") __weak;

#endif
