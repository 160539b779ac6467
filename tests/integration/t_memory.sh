# cgward exec --memory: the kernel's limit on the command's cgroup, the
# out-of-memory report, and cgroups that never outlive a run (issue 4).
# shellcheck shell=bash

# The memory.max of the cgroup the command runs in, read by the command.
MEMORY_MAX_OF_SELF="cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/memory.max"

test_memory_limit_kills_a_command_past_it() {
	local err status=0
	command -v python3 >/dev/null || fail "python3 is not on PATH"
	err=$(cgx --root "$W" --memory 32 -- python3 -c 'b = bytearray(256 << 20)' 2>&1) ||
		status=$?
	[ "$status" -eq 137 ] || fail "exited $status, want 137; stderr: $err"
	[ "$err" = "cgward: python3 killed: out of memory (limit 32 MiB)" ] || fail "stderr: $err"
	expect_limit_event "$EV" memory oom_kill
	expect_no_cgroups
}

test_memory_limit_lets_a_command_under_it_complete() {
	expect completed cgx --root "$W" --memory 32 -- \
		python3 -c 'b = bytearray(8 << 20); b[-1] = 1; print("completed")'
	expect_no_cgroups
}

test_memory_limit_is_the_cgroups_memory_max() {
	expect 33554432 cgx --root "$W" --memory 32 -- sh -c "$MEMORY_MAX_OF_SELF"
	expect_no_cgroups
}

# After a run with a limit (which enables the memory controller for its
# cgroup, so that memory.max exists), a run with 0 has none.
test_memory_0_sets_no_limit() {
	expect 33554432 cgx --root "$W" --memory 32 -- sh -c "$MEMORY_MAX_OF_SELF"
	expect max cgx --root "$W" --memory 0 -- sh -c "$MEMORY_MAX_OF_SELF"
	expect_no_cgroups
}

test_invalid_memory_limits_exit_2_and_run_nothing() {
	local mib
	for mib in -1 1.5 4096MB true ""; do
		expect_status 2 cgx --root "$W" --memory "$mib" -- touch "$T/ran"
		expect_absent "$T/ran"
	done
	expect_no_cgroups
}

# Each waits (up to 60 s) until the other has started, and fails if it does
# not: the two run at the same time.
test_concurrent_execs_run_in_distinct_cgroups() {
	# shellcheck disable=SC2016 # expanded by the command's shell
	local wait_for='i=0; while [ ! -e $0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; [ -e $0 ]'
	cgx --root "$W" --memory 64 -- sh -c "cat /proc/self/cgroup > $W/a; $wait_for" "$W/b" &
	local first=$!
	cgx --root "$W" --memory 64 -- sh -c "cat /proc/self/cgroup > $W/b; $wait_for" "$W/a"
	wait "$first"
	grep -q "^0::/cgward-test-$$/cgward-" "$W/a" || fail "a ran in $(cat "$W/a")"
	grep -q "^0::/cgward-test-$$/cgward-" "$W/b" || fail "b ran in $(cat "$W/b")"
	[ "$(cat "$W/a")" != "$(cat "$W/b")" ] || fail "both ran in $(cat "$W/a")"
	expect_no_cgroups
}

# The child ignores SIGTERM and is still running when CMD exits: the
# cgroup's removal must kill it rather than leave the cgroup behind.
test_no_cgroup_outlives_a_child_that_ignores_sigterm() {
	local child
	expect_status 0 cgx --root "$W" --memory 32 -- sh -c \
		"sh -c 'trap \"\" TERM; echo \$\$ > $W/child; exec sleep 600' </dev/null >/dev/null 2>&1 &
		while [ ! -s $W/child ]; do sleep 0.1; done"
	child=$(cat "$W/child")
	expect_no_cgroups
	if [ -e "/proc/$child" ] && [ "$(awk '{print $3}' "/proc/$child/stat" 2>/dev/null)" != Z ]; then
		fail "child $child still running: $(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null)"
	fi
}
