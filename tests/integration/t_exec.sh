# cgward exec: the boundary, its events and its cgroup (issue: foundation).
# shellcheck shell=bash

test_write_inside_root_succeeds() {
	cgx --root "$W" -- sh -c "echo hi > $W/file"
	expect_content "$W/file" hi
	expect_events 0 'true'
}

test_write_outside_existing_file_is_denied() {
	echo original >"$O/file"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$O/file" changed
	expect_content "$O/file" original
	expect_deny open_write "$O/file"
	expect_events 1 'true'
}

test_create_outside_is_denied_and_file_absent() {
	expect EPERM cgx --root "$W" -- "$FSOP" write "$O/new" data
	expect_absent "$O/new"
	expect_deny create "$O/new"
}

test_shell_redirect_outside_fails_with_eperm() {
	local err
	err=$(cgx --root "$W" -- sh -c "echo hi > $O/file" 2>&1) && fail "sh succeeded"
	case $err in *"Operation not permitted"*) ;; *) fail "sh said: $err" ;; esac
	expect_absent "$O/file"
}

test_outside_the_cgroup_writes_freely() {
	cgx --root "$W" -- true
	expect ok "$FSOP" write "$O/file" free
	expect_content "$O/file" free
}

test_dotdot_and_absolute_paths_outside_are_denied() {
	expect EPERM cgx --root "$W" -- sh -c "cd $W && exec $FSOP write ../outside/a x"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$W/../outside/b" x
	expect_absent "$O/a"
	expect_absent "$O/b"
	expect_deny create "$O/a"
}

test_symlink_inside_root_pointing_outside_is_denied() {
	ln -s "$O" "$W/escape"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$W/escape/file" x
	expect_absent "$O/file"
	expect_deny create "$O/file"
}

test_open_truncate_outside_is_denied() {
	echo keep >"$O/file"
	expect EPERM cgx --root "$W" -- "$FSOP" open-trunc "$O/file"
	expect_content "$O/file" keep
}

test_reads_outside_are_never_blocked() {
	echo readable >"$O/file"
	expect readable cgx --root "$W" -- cat "$O/file"
	cgx --root "$W" -- ls / >/dev/null
	expect ok cgx --root "$W" -- "$FSOP" open-read "$O/file"
	expect_events 0 'true'
}

test_dev_null_and_pipes_stay_writable() {
	expect "" cgx --root "$W" -- sh -c 'echo x > /dev/null'
	expect piped cgx --root "$W" -- sh -c 'echo piped | cat'
}

test_default_root_is_current_directory() {
	(cd "$W" && cgx -- "$FSOP" write here x) >/dev/null
	expect_content "$W/here" x
	(cd "$W" && expect EPERM cgx -- "$FSOP" write "$O/there" x)
}

test_invalid_roots_exit_2_and_run_nothing() {
	ln -s "$W" "$T/link"
	touch "$T/plain"
	for root in relative "$T/missing" / "$T/plain" "$T/link" "$W/../work"; do
		(cd "$T" && expect_status 2 cgx --root "$root" -- touch "$T/ran")
		expect_absent "$T/ran"
	done
	(cd "$T" && expect_status 2 cgx --root "$W" --root "$W" -- touch "$T/ran")
	expect_absent "$T/ran"
}

test_invalid_root_error_names_the_problem() {
	local err
	err=$(cgx --root / -- true 2>&1) || true
	[ "$err" = "cgward: '/' cannot be a root" ] || fail "got: $err"
}

test_exit_status_is_the_commands() {
	expect_status 3 cgx --root "$W" -- sh -c 'exit 3'
	expect_status 127 cgx --root "$W" -- "$T/no-such-command"
	expect_status 137 cgx --root "$W" -- sh -c 'kill -9 $$'
}

test_cgroup_is_removed_after_the_run() {
	cgx --root "$W" -- sh -c "cat /proc/self/cgroup > $W/cgroup"
	grep -q "^0::/cgward-test-$$/cgward-" "$W/cgroup" || fail "ran in $(cat "$W/cgroup")"
	[ -z "$(find "$SUITE_CGROUP" -mindepth 1 -type d)" ] || fail "cgroup left behind"
}

test_sigterm_to_cgward_kills_and_cleans_up() {
	(exec "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --root "$W" -- \
		sh -c "trap '' TERM; echo \$\$ > $W/pid; sleep 60") &
	local cgward=$!
	while [ ! -s "$W/pid" ]; do sleep 0.1; done
	kill -TERM "$cgward"
	expect_status 143 wait "$cgward"
	kill -0 "$(cat "$W/pid")" 2>/dev/null && fail "command still running"
	[ -z "$(find "$SUITE_CGROUP" -mindepth 1 -type d)" ] || fail "cgroup left behind"
}

test_concurrent_execs_see_only_their_own_events() {
	local ev_a=$T/a.jsonl ev_b=$T/b.jsonl
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$ev_a" --root "$W" -- \
		sh -c "sleep 1; $FSOP write $O/a x" >/dev/null &
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$ev_b" --root "$O" -- \
		sh -c "sleep 1; $FSOP write $W/b x; $FSOP write $O/b-ok x" >/dev/null &
	wait
	expect_absent "$O/a"
	expect_absent "$W/b"
	expect_content "$O/b-ok" x
	EV=$ev_a expect_deny create "$O/a"
	EV=$ev_a expect_events 1 true
	EV=$ev_b expect_deny create "$W/b"
	EV=$ev_b expect_events 1 true
}

# Runs of one user started at once take the rings earlier runs parked: each
# claims a parked ring's policy id alone (two claimers of one id once held
# it together, each with the other's roots too), so that no run can write
# into another's root.
test_concurrent_execs_claiming_parked_rings_keep_their_own_roots() {
	local i next
	for i in 1 2 3 4; do
		cgx --root "$W" -- true # each run parks its ring
	done
	for i in 1 2 3 4 5 6 7 8; do mkdir "$T/r$i"; done
	for i in 1 2 3 4 5 6 7 8; do
		next=$((i % 8 + 1))
		cgx --root "$T/r$i" -- sh -c "sleep 0.5; $FSOP write $T/r$next/from-$i x" >"$T/out$i" &
	done
	wait
	for i in 1 2 3 4 5 6 7 8; do
		next=$((i % 8 + 1))
		expect_absent "$T/r$next/from-$i"
		expect_content "$T/out$i" EPERM
	done
}

# The ids of the runs' ring buffers alive in the kernel (unnamed ring buffer maps).
exec_ring_ids() {
	bpftool -j map list | jq -r '.[] | select(.type == "ringbuf" and (.name // "") == "") | .id' |
		sort -n | tr '\n' ' '
}

# A run's ring buffer stays for the next run (no map of maps update, whose
# RCU wait costs start-up): the next gets only its own events, and gc keeps it.
test_exec_ring_parked_serves_the_next_run_with_its_own_events_only() {
	local parked removed
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/1.jsonl" \
		--root "$W" -- "$FSOP" write "$O/one" x
	parked=$(exec_ring_ids)
	[ -n "$parked" ] || fail "no ring buffer parked after a run"
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/2.jsonl" \
		--root "$W" -- "$FSOP" write "$O/two" x
	[ "$(exec_ring_ids)" = "$parked" ] || fail "rings: $(exec_ring_ids), parked: $parked"
	EV=$T/1.jsonl expect_deny create "$O/one"
	EV=$T/1.jsonl expect_events 1 true
	EV=$T/2.jsonl expect_deny create "$O/two"
	EV=$T/2.jsonl expect_events 1 true
	removed=$("$CGWARD" gc) || fail "gc failed: $removed"
	[ -z "$removed" ] || fail "gc removed: $removed"
	[ "$(exec_ring_ids)" = "$parked" ] || fail "gc dropped the parked rings"
}

test_leaving_the_cgroup_via_cgroup_procs_is_denied() {
	expect EPERM cgx --root "$W" -- sh -c "exec $FSOP append $CG2/cgroup.procs \$\$"
	expect_deny open_write "$CG2/cgroup.procs"
}

# A cgroup created beneath an enforced one (by anyone) inherits its policy.
test_child_cgroup_inherits_the_policy() {
	cgx --root "$W" -- sh -c "echo \$\$ > $W/pid; while [ ! -e $W/moved ]; do sleep 0.1; done
		exec $FSOP write $O/from-child x > $W/result" &
	local cgward=$! pid cgroup
	while [ ! -s "$W/pid" ]; do sleep 0.1; done
	pid=$(cat "$W/pid")
	cgroup=$CG2$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	mkdir "$cgroup/nested"
	echo "$pid" >"$cgroup/nested/cgroup.procs"
	touch "$W/moved"
	wait "$cgward" || true
	expect_content "$W/result" EPERM
	expect_absent "$O/from-child"
	# The run's end removes the cgroups made beneath its own, then its own.
	expect_absent "$cgroup"
}
