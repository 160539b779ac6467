# A run's own limits (issue 38): --pids and --cpu beside --memory, and the
# typed event each writes to the run's stream when the kernel reports it hit
# ({"op":"limit",...}); as root and as an ordinary user through the agent.
# shellcheck shell=bash

# expect_limit_event FILE LIMIT EVENT: FILE holds the run's typed event.
expect_limit_event() {
	jq -s -e "any(.[]; .op == \"limit\" and .limit == \"$2\" and .event == \"$3\"
		and .count >= 1 and (.cgroup | test(\"/cgward-[0-9]+-[0-9a-f]+$\")))" "$1" >/dev/null ||
		fail "no $2 $3 event in $1: $(cat "$1")"
}

# The controllers a run's own pids and cpu limits need, from the root down.
delegate_limits() {
	delegate "$CG2" pids cpu
}

test_pids_limit_stops_a_fork_loop_with_its_event() {
	local started
	delegate_limits
	started=$(cgx --root "$W" --pids 16 -- sh -c \
		"cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/pids.max >$W/max;
		 $FORKS $W; touch $W/go") || fail "the run failed"
	expect_content "$W/max" 16
	[ "$started" -lt 16 ] || fail "$started processes started past --pids 16"
	expect_limit_event "$EV" pids max
	expect_no_cgroups
}

# BUSY: 4 s of a busy loop, then the run's usage of CPU time in that while,
# as a share of one CPU, from its cgroup's cpu.stat.
BUSY='
import time
stat = "/sys/fs/cgroup" + open("/proc/self/cgroup").read().split("::")[1].strip() + "/cpu.stat"
def usage():
    return int(dict(l.split() for l in open(stat))["usage_usec"])
u0, t0 = usage(), time.monotonic()
while time.monotonic() - t0 < 4:
    pass
print(round((usage() - u0) / 1e6 / (time.monotonic() - t0), 2))
'

test_cpu_limit_holds_a_busy_loop_near_its_share() {
	local share
	delegate_limits
	share=$(cgx --root "$W" --cpu 0.5 -- python3 -c "$BUSY") || fail "the run failed"
	awk -v s="$share" 'BEGIN { exit !(s >= 0.25 && s <= 0.7) }' ||
		fail "a busy loop under --cpu 0.5 used $share of a CPU"
	expect_limit_event "$EV" cpu throttled
	jq -s -e 'any(.[]; .op == "limit" and .limit == "cpu" and .throttled_usec > 0)' "$EV" \
		>/dev/null || fail "no throttled time in the cpu event: $(cat "$EV")"
	expect_no_cgroups
}

test_invalid_pids_and_cpu_limits_exit_2_and_run_nothing() {
	local value
	for value in -1 1.5 16p true ""; do
		expect_status 2 cgx --root "$W" --pids "$value" -- touch "$T/ran"
	done
	for value in -1 0.001 1.2345 half true ""; do
		expect_status 2 cgx --root "$W" --cpu "$value" -- touch "$T/ran"
	done
	expect_absent "$T/ran"
	expect_no_cgroups
}

# An ordinary user's run: the same limits and events, through the agent, whose
# stream and metrics count them too.
test_exec_user_pids_and_memory_limits_with_their_events() {
	local started status=0
	delegate_limits
	user_dirs
	USER_AGENT_OPTS=(--metrics "127.0.0.1:$METRICS_PORT")
	user_agent_start
	started=$(as_user "$CGWARD" exec --root "$UW" --pids 16 --events "$UW/ev" -- \
		sh -c "$FORKS $UW; touch $UW/go") || fail "the run failed"
	[ "$started" -lt 16 ] || fail "$started processes started past --pids 16"
	expect_limit_event "$UW/ev" pids max
	as_user "$CGWARD" exec --root "$UW" --memory 32 --events "$UW/ev2" -- \
		python3 -c 'b = bytearray(256 << 20)' 2>/dev/null || status=$?
	[ "$status" -eq 137 ] || fail "exited $status, want 137"
	expect_limit_event "$UW/ev2" memory oom_kill
	# The agent's stream (and cgward events) has them too, with the run's uid; so do its metrics.
	wait_line "$AEV" '"op":"limit","limit":"memory"'
	jq -s -e "any(.[]; .op == \"limit\" and .limit == \"pids\" and .uid == $USER_UID) and
		any(.[]; .op == \"limit\" and .limit == \"memory\" and .uid == $USER_UID)" "$AEV" \
		>/dev/null || fail "the agent's limit lines: $(grep '"op":"limit"' "$AEV")"
	wait_metric 'cgward_limit_events_total{limit="pids",event="max"} 1'
	wait_metric 'cgward_limit_events_total{limit="memory",event="oom_kill"} 1'
	wait_no_runs
}

# A mandatory rule's limits over the runs (policy: limits) hold whatever the
# run asks: its own --pids 64 is lowered to the rule's 12, and a run that asks
# for less keeps its own.
test_exec_user_rule_limits_cap_the_runs_own() {
	local started
	delegate_limits
	user_dirs
	USER_RULES="$(agent_policy capped "$UW" true "${RUNS_PARENT#"$CG2"}/cgward-[0-9]*")
    limits: {pids: 12, memory_mib: 256}"
	user_agent_start
	started=$(as_user "$CGWARD" exec --root "$UW" --pids 64 -- sh -c \
		"cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/pids.max >$UW/max;
		 cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/memory.max >$UW/mem;
		 $FORKS $UW; touch $UW/go") || fail "the run failed"
	expect_content "$UW/max" 12
	expect_content "$UW/mem" $((256 << 20))
	[ "$started" -lt 12 ] || fail "$started processes started past the rule's pids 12"
	rm "$UW/go"
	as_user "$CGWARD" exec --root "$UW" --pids 8 -- sh -c \
		"cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/pids.max >$UW/max"
	expect_content "$UW/max" 8
	wait_no_runs
}
