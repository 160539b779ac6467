/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the path walks (global functions in walk.bpf.c) reach their state.
 * The verifier checks a global function once, on its own, which keeps the
 * walks cheap to verify; but before 5.12 it accepts only scalar and context
 * arguments, and refuses a pointer to the caller's stack with EINVAL. The
 * object built with CGWARD_SCALAR_WALK_ARGS, for those kernels, passes no
 * pointer: the state goes through a per-CPU map. This is the only
 * difference between the two objects.
 *
 * Per-CPU state is shared by the tasks of a CPU: before 5.11 a BPF program
 * runs with preemption disabled (migrate_disable() was preempt_disable()),
 * but not on PREEMPT_RT, nor in 5.11 and 5.12 with CONFIG_PREEMPT. A walk
 * whose state another task took over meanwhile fails closed.
 */
#ifndef CGWARD_WALK_BPF_H
#define CGWARD_WALK_BPF_H

#ifdef CGWARD_SCALAR_WALK_ARGS

struct walk_scratch {
	struct walk_state state; /* first: the walk functions take its address as the value's */
	__u64 owner;		 /* pid_tgid of the task whose walk this is */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_scratch);
} walk_scratch SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct name_state);
} name_scratch SEC(".maps") __weak;

/*
 * The parameters of a walk function, the arguments it passes on, and how
 * its body finds its state. The one argument is the state's key in the
 * per-CPU maps (always 0): a parameter the function did not read would not
 * be passed at all, and the verifier would see whatever the register held.
 */
#define WALK_PARAMS __u32 scratch_key
#define WALK_ARGS   scratch_key
#define WALK_STATE(state) \
	struct walk_state *state = bpf_map_lookup_elem(&walk_scratch, &scratch_key)
#define NAME_PARAMS __u32 scratch_key
#define NAME_ARGS   scratch_key
#define NAME_STATE(state, scratch)                                                   \
	struct name_state *state = bpf_map_lookup_elem(&name_scratch, &scratch_key); \
	struct event_scratch *scratch __attribute__((unused)) =                      \
	    bpf_map_lookup_elem(&event_scratch, &scratch_key)

#else

#define WALK_PARAMS struct walk_state *state
#define WALK_ARGS   state
#define WALK_STATE(state)
#define NAME_PARAMS struct name_state *state, struct event_scratch *scratch
#define NAME_ARGS   state, scratch
#define NAME_STATE(state, scratch)

#endif

/* walk.bpf.c */
extern int walk_path(WALK_PARAMS);
extern int name_path(NAME_PARAMS);

/* Runs walk_path on state, which stays the caller's. */
static __always_inline void walk_path_on(struct walk_state *state)
{
#ifdef CGWARD_SCALAR_WALK_ARGS
	__u32 zero = 0;
	__u64 owner = bpf_get_current_pid_tgid();
	struct walk_scratch *scratch = bpf_map_lookup_elem(&walk_scratch, &zero);

	if (!scratch)
		return;
	/* The owner first: a task that runs in between leaves its own. */
	scratch->owner = owner;
	scratch->state = *state;
	walk_path(0);
	/* Taken over: the caller's state keeps its undecided result (too deep), a deny. */
	if (scratch->owner == owner)
		*state = scratch->state;
#else
	walk_path(state);
#endif
}

/* Runs name_path on state, naming into scratch. */
static __always_inline void name_path_on(struct name_state *state, struct event_scratch *scratch)
{
#ifdef CGWARD_SCALAR_WALK_ARGS
	__u32 zero = 0;
	struct name_state *name = bpf_map_lookup_elem(&name_scratch, &zero);

	if (!name)
		return;
	*name = *state;
	name_path(0);
	*state = *name;
#else
	name_path(state, scratch);
#endif
}

#endif
