# A run lives within its caller (issue 38): the limits of the caller's cgroup
# and its ancestors hold for its runs, alone and together, and killing the
# caller's cgroup ends them, with nothing of theirs left; for root's cgward
# exec and for an ordinary user's, through the agent's exec socket. Each
# layout is a tree the test builds beneath the suite's cgroup.
# shellcheck shell=bash

# delegate DIR CONTROLLER...: DIR's children get the controllers.
delegate() {
	local dir=$1 controller
	shift
	for controller; do
		echo "+$controller" >"$dir/cgroup.subtree_control" ||
			fail "cannot enable $controller in $dir"
	done
}

# layout NAME: the cgroups of a layout, with memory and pids delegated down to
# the caller's. Sets CALLER (where the caller runs) and LIMITED (the cgroup
# the test puts its limits on):
#   session  user.slice/user-UID.slice/session-1.scope, limits on the slice
#   service  system.slice/ci-runner.service, limits on the service itself
#   bare     a cgroup of the suite's, limits on itself
layout() {
	delegate "$CG2" memory pids
	delegate "$SUITE_CGROUP" memory pids
	case $1 in
	session)
		LIMITED=$SUITE_CGROUP/user.slice/user-$USER_UID.slice
		mkdir -p "$LIMITED"
		delegate "$SUITE_CGROUP/user.slice" memory pids
		delegate "$LIMITED" memory pids
		CALLER=$LIMITED/session-1.scope
		;;
	service)
		mkdir "$SUITE_CGROUP/system.slice"
		delegate "$SUITE_CGROUP/system.slice" memory pids
		CALLER=$SUITE_CGROUP/system.slice/ci-runner.service
		LIMITED=$CALLER
		;;
	bare)
		CALLER=$SUITE_CGROUP/bare
		LIMITED=$CALLER
		;;
	esac
	mkdir "$CALLER"
}

# limit FILE VALUE: a limit on LIMITED (memory.max, pids.max).
limit() {
	echo "$2" >"$LIMITED/$1" || fail "cannot set $1 of $LIMITED to $2"
}

# as_caller root|user CMD...: CMD in the caller's cgroup, as root or as the user.
as_caller() {
	local who=$1
	shift
	[ "$who" = root ] || set -- "${AS_USER[@]}" "$@"
	# shellcheck disable=SC2016 # expanded by sh -c
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CALLER" "$@"
}

# placement_dirs root|user: WD, a write root of the caller's, and an agent for the user.
placement_dirs() {
	user_dirs
	if [ "$1" = root ]; then
		WD=$W
	else
		WD=$UW
		user_agent_start
	fi
}

# oom_kills: the OOM kills LIMITED's memory.events counts.
oom_kills() {
	awk '$1 == "oom_kill" { print $2 }' "$LIMITED/memory.events"
}

# runs_within DIR: the runs' cgroups beneath DIR.
runs_within() {
	find "$1" -type d -name 'cgward-[0-9]*'
}

# expect_no_runs_within DIR: no run's cgroup beneath DIR.
expect_no_runs_within() {
	[ -z "$(runs_within "$1")" ] || fail "runs' cgroups left in $1: $(runs_within "$1")"
}

# wait_runs_gone DIR: no run's cgroup beneath DIR, within 60 s.
wait_runs_gone() {
	for _ in $(seq 600); do
		[ -z "$(runs_within "$1")" ] && return 0
		sleep 0.1
	done
	fail "runs' cgroups left in $1: $(runs_within "$1")"
}

# A run of 256 MiB where the caller's cgroup (or its slice) allows 64: the
# kernel's OOM killer ends it, in the caller's cgroup.
expect_memory_held() {
	local who=$1 where=$2 err status=0
	layout "$where"
	limit memory.max $((64 << 20))
	err=$(as_caller "$who" "$CGWARD" exec --root "$WD" -- \
		python3 -c "b = bytearray(256 << 20); open('$WD/done', 'w')" 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "$who in $where: 256 MiB allocated past a limit of 64"
	expect_absent "$WD/done"
	[ "$(oom_kills)" -ge 1 ] || fail "$who in $where: no OOM kill in $LIMITED; stderr: $err"
}

test_placement_root_run_is_held_by_the_callers_memory_limit() {
	placement_dirs root
	expect_memory_held root service
}

test_placement_user_run_is_held_by_the_callers_memory_limit() {
	placement_dirs user
	expect_memory_held user session
	wait_runs_gone "$CALLER"
}

# FORKS DIR: forks.py, whose children wait for DIR/go; prints how many started.
FORKS="python3 $here/forks.py"

# A pids.max of 20 on the caller's cgroup holds for the run's forks.
expect_pids_held() {
	local who=$1 where=$2 started
	layout "$where"
	limit pids.max 20
	started=$(as_caller "$who" "$CGWARD" exec --root "$WD" -- sh -c \
		"$FORKS $WD; touch $WD/go") || fail "$who in $where: the run failed"
	[ "$started" -lt 20 ] || fail "$who in $where: $started processes past a pids.max of 20"
}

test_placement_root_run_is_held_by_the_callers_pids_limit() {
	placement_dirs root
	expect_pids_held root session
}

test_placement_user_run_is_held_by_the_callers_pids_limit() {
	placement_dirs user
	expect_pids_held user service
	wait_runs_gone "$CALLER"
}

# Eight runs at once, each holding 16 MiB until $WD/go, where the caller's
# cgroup allows 64 MiB for all: they cannot all hold theirs.
expect_concurrent_runs_held() {
	local who=$1 i held=0 completed=0 pids=()
	layout bare
	limit memory.max $((64 << 20))
	for i in $(seq 8); do
		as_caller "$who" "$CGWARD" exec --root "$WD" -- python3 -c "
import os, time
b = bytearray(16 << 20)
open('$WD/held.$i', 'w')
for _ in range(1200):
    if os.path.exists('$WD/go'):
        break
    time.sleep(0.1)
" >/dev/null 2>&1 &
		pids+=($!)
	done
	# Each run either holds its 16 MiB or has ended, within 3 minutes.
	for i in $(seq 8); do
		for _ in $(seq 1800); do
			[ -e "$WD/held.$i" ] || ! kill -0 "${pids[i - 1]}" 2>/dev/null && break
			sleep 0.1
		done
	done
	touch "$WD/go"
	for i in $(seq 8); do
		wait "${pids[i - 1]}" && completed=$((completed + 1))
		[ ! -e "$WD/held.$i" ] || held=$((held + 1))
	done
	[ "$completed" -lt 8 ] || fail "$who: 8 runs held 16 MiB each under a limit of 64 for all"
	[ "$(oom_kills)" -ge 1 ] || fail "$who: no OOM kill in $LIMITED ($held held, $completed completed)"
}

test_placement_root_runs_together_are_held_by_the_callers_limit() {
	placement_dirs root
	expect_concurrent_runs_held root
}

test_placement_user_runs_together_are_held_by_the_callers_limit() {
	placement_dirs user
	expect_concurrent_runs_held user
	wait_runs_gone "$CALLER"
}

# kill_cgroup DIR: every process beneath DIR killed, as systemd stops a unit
# (cgroup.kill; a kill of each process before 5.14, again until none is left).
kill_cgroup() {
	local procs
	{ echo 1 >"$1/cgroup.kill"; } 2>/dev/null && return 0
	for _ in $(seq 100); do
		# A run's cgroup may go while find lists it (its agent removes it once empty).
		procs=$(find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null) || true
		[ -n "$procs" ] || return 0
		# shellcheck disable=SC2086 # one pid a word
		kill -9 $procs 2>/dev/null || true
		sleep 0.1
	done
}

# A run started from the caller's cgroup ends when that cgroup is killed.
# RUN_PID is the run's command, which writes $WD/beat until it is killed;
# CALLER_PID the caller's cgward exec.
start_and_kill_caller() {
	local who=$1
	layout bare
	as_caller "$who" "$CGWARD" exec --root "$WD" -- \
		sh -c "echo \$\$ >$WD/pid; while :; do date +%s%N >$WD/beat; sleep 0.2; done" \
		>/dev/null 2>&1 &
	CALLER_PID=$!
	wait_written "$WD/pid"
	RUN_PID=$(cat "$WD/pid")
	kill_cgroup "$CALLER"
	for _ in $(seq 600); do
		kill -0 "$RUN_PID" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$RUN_PID" 2>/dev/null ||
		fail "$who: the run (pid $RUN_PID) outlived its caller's cgroup: $(cat /proc/"$RUN_PID"/cgroup)"
}

test_placement_root_run_ends_with_its_callers_cgroup() {
	placement_dirs root
	start_and_kill_caller root
	# What systemd does next: the unit's cgroups removed, deepest first.
	find "$CALLER" -depth -type d -exec rmdir {} + ||
		fail "the caller's cgroup cannot be removed: $(find "$CALLER" -type d)"
	# The policy of the killed cgward exec goes with the next collection.
	"$CGWARD" gc >/dev/null 2>&1 || fail "cgward gc failed"
	wait "$CALLER_PID" 2>/dev/null || true # killed
	[ -z "$(policy_info owner_pid ".owner_pid == $CALLER_PID")" ] ||
		fail "the killed cgward exec's policy is left after cgward gc"
}

test_placement_user_run_ends_with_its_callers_cgroup() {
	placement_dirs user
	start_and_kill_caller user
	# The agent removes the run's cgroup, its binding and policy, once it is empty.
	wait_runs_gone "$CALLER"
	rmdir "$CALLER" || fail "the caller's cgroup cannot be removed: $(find "$CALLER" -type d)"
}

# A run's own memory limit, asked from a cgroup that has processes: those are
# moved into its leaf first (cgroup v2's no-internal-process rule), and the
# run is still within the caller's cgroup.
test_placement_own_limit_beneath_a_busy_caller() {
	local cgroup
	placement_dirs root
	layout service
	cgroup=$(as_caller root "$CGWARD" exec --root "$WD" --memory 32 -- \
		sh -c "sed -n 's/^0:://p' /proc/self/cgroup") || fail "the run failed"
	[[ "$CG2$cgroup" == "$CALLER"/cgward-[0-9]* ]] || fail "the run was in $cgroup"
	[ -d "$CALLER/cgward.caller" ] || fail "no leaf for the caller's processes in $CALLER"
	grep -qw memory "$CALLER/cgroup.subtree_control" || fail "memory not delegated in $CALLER"
	expect_no_runs_within "$CALLER"
}

# An ordinary user's own limit from a cgroup that also holds another user's
# process (a service running jobs as nobody): the agent does not move that
# process into a leaf (it would break the unit's service manager), and says
# so. Once the cgroup holds only the user's processes, the run goes ahead.
test_placement_user_limit_never_moves_another_users_process() {
	local other err where status=0
	placement_dirs user
	layout service
	sh -c 'echo $$ >"$0/cgroup.procs" && exec sleep 600' "$CALLER" &
	other=$!
	for _ in $(seq 600); do
		grep -qx "$other" "$CALLER/cgroup.procs" && break
		sleep 0.1
	done
	grep -qx "$other" "$CALLER/cgroup.procs" || fail "root's sleep never joined $CALLER"
	err=$(as_caller user "$CGWARD" exec --root "$WD" --memory 32 -- touch "$WD/ran" 2>&1) ||
		status=$?
	where=$(sed -n 's/^0:://p' "/proc/$other/cgroup")
	kill "$other"
	wait "$other" 2>/dev/null || true # killed
	[ "$status" -ne 0 ] || fail "the run started beside another user's process"
	expect_absent "$WD/ran"
	[[ $err == *"holds processes of other users"* ]] || fail "no reason given: $err"
	[ "$CG2$where" = "$CALLER" ] || fail "root's process was moved from $CALLER to $where"
	as_caller user "$CGWARD" exec --root "$WD" --memory 32 -- touch "$WD/ran" ||
		fail "the run failed with only the user's processes in $CALLER"
	[ -e "$WD/ran" ] || fail "the run did not write $WD/ran"
	wait_runs_gone "$CALLER"
}

# A caller in a subtree delegated to its user (systemd's user@UID.service):
# the run goes beside the subtree, where the user cannot write a common
# ancestor's cgroup.procs, so it cannot move the run's processes out.
test_placement_user_run_stays_out_of_a_subtree_the_user_owns() {
	local delegated run_pid err status=0
	placement_dirs user
	layout session
	delegated=$LIMITED/user@$USER_UID.service
	mkdir -p "$delegated/app"
	chown "$USER_UID:$USER_UID" "$delegated" "$delegated/cgroup.procs" "$delegated/app" \
		"$delegated/app/cgroup.procs"
	CALLER=$delegated/app
	as_caller user "$CGWARD" exec --root "$WD" -- \
		sh -c "echo \$\$ >$WD/pid; sed -n 's/^0:://p' /proc/self/cgroup >$WD/cg;
		       while [ ! -e $WD/go ]; do sleep 0.1; done" >/dev/null 2>&1 &
	wait_written "$WD/pid"
	wait_written "$WD/cg"
	run_pid=$(cat "$WD/pid")
	[[ "$CG2$(cat "$WD/cg")" == "$LIMITED"/cgward-[0-9]* ]] ||
		fail "the run is in $(cat "$WD/cg"), not beside the user's subtree in $LIMITED"
	# The user moves the run's command into a cgroup it owns: refused.
	err=$("${AS_USER[@]}" sh -c "echo $run_pid >$delegated/app/cgroup.procs" 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "the user moved the run's process out of its cgroup"
	grep -q "^0::$(cat "$WD/cg")\$" "/proc/$run_pid/cgroup" ||
		fail "the run's process left its cgroup: $(cat "/proc/$run_pid/cgroup"); $err"
	touch "$WD/go"
	wait_runs_gone "$LIMITED"
}
