# cgward exec as a user who is not root, confined by the agent through its
# exec socket (issue 28). Each test starts an agent in a cgroup of its own
# in the suite's; the runs' cgroups are made within the caller's, this
# shell's (RUNS_PARENT).
# shellcheck shell=bash

USER_UID=65534
EXEC_SOCK=/run/cgward/exec.sock

# as_user CMD...: CMD as the user. In the background, "${AS_USER[@]}" CMD &
# leaves CMD's own pid in $! (a function would leave its subshell's there).
AS_USER=(setpriv "--reuid=$USER_UID" "--regid=$USER_UID" --clear-groups --)
as_user() {
	"${AS_USER[@]}" "$@"
}

# user_dirs: UW (the user's write root) and UO (outside it), both the user's.
user_dirs() {
	chmod 0755 "$T"
	UW=$T/uw
	UO=$T/uo
	mkdir "$UW" "$UO"
	chown $USER_UID:$USER_UID "$UW" "$UO"
	AEV=$T/agent-events.jsonl
	: >"$AEV"
}

# user_agent_start [EXEC_SOCKET_YAML]: an agent whose policy binds nothing
# (or holds the rules in $USER_RULES), with the exec_socket key given and the
# options in the array USER_AGENT_OPTS, in $SUITE_CGROUP/agent, started
# through the command in the array USER_AGENT_WRAP if set.
user_agent_start() {
	local readies
	readies=$(grep -c -F "ready:" "$T/agent.log" 2>/dev/null) || true
	mkdir -p "$T/agent-root" "$SUITE_CGROUP/agent"
	if [ -n "${USER_RULES:-}" ]; then
		printf '%s\n' "$USER_RULES" >"$T/policy.yaml"
	else
		agent_policy quiet "$T/agent-root" false "/no-such-cgroup-*" >"$T/policy.yaml"
	fi
	[ -z "${1:-}" ] || printf 'exec_socket: %s\n' "$1" >>"$T/policy.yaml"
	# shellcheck disable=SC2016 # expanded by sh -c
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$SUITE_CGROUP/agent" \
		${USER_AGENT_WRAP[@]+"${USER_AGENT_WRAP[@]}"} "$CGWARD" agent --policy "$T/policy.yaml" --events "$AEV" \
		${USER_AGENT_OPTS[@]+"${USER_AGENT_OPTS[@]}"} >"$T/agent.out" 2>>"$T/agent.log" &
	AGENT_PID=$!
	trap user_agent_stop EXIT
	agent_wait_log "ready:" $((readies + 1))
}

# Where the user's runs go: within the cgroup of the caller, this shell.
RUNS_PARENT=$CG2$(sed -n 's/^0:://p' /proc/self/cgroup)
RUNS_PARENT=${RUNS_PARENT%/}

# The runs' cgroups there (cgward-PID-RANDOM), if any.
runs_left() {
	find "$RUNS_PARENT" -mindepth 1 -maxdepth 1 -type d -name 'cgward-[0-9]*'
}

# The agent stopped (SIGTERM: its runs stay, as with KillMode=process) and started again.
user_agent_restart() {
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID" || true
	AGENT_PID=
	user_agent_start
}

# The agent stopped; no run's cgroup may be left. The plane stays
# loaded for the next test (the agent's load and unload would cost it 10 s
# under emulation): these tests count no policy or link.
user_agent_stop() {
	local status=0 left
	agent_halt || status=1
	left=$(runs_left)
	find "$RUNS_PARENT" -mindepth 1 -maxdepth 1 -type d -name 'cgward-[0-9]*' \
		-exec rmdir {} + 2>/dev/null
	rmdir "$SUITE_CGROUP/agent" 2>/dev/null
	[ -z "$left" ] || fail "runs' cgroups left behind: $left"
	return $status
}

# events_of TEXT: the JSON events in TEXT (stderr), a line each. An event may
# follow the command's own message on its line: dash writes a message's
# newline apart, and the run's events share its stderr.
events_of() {
	grep -o '{"time":.*}' <<<"$1"
}

# expect_user_deny STDERR PATH: the deny event of PATH, on the user's stderr, with
# the user's uid and a run's cgroup of the user's; no message of cgward's.
expect_user_deny() {
	events_of "$1" | jq -s -e "any(.[]; .verdict == \"deny\" and .path == \"$2\"
		and .uid == $USER_UID and (.cgroup | test(\"/cgward-[0-9]+-[0-9a-f]+$\")))" \
		>/dev/null || fail "no deny event on stderr: $1"
	[ "$(grep -c '^cgward:' <<<"$1")" -eq 0 ] || fail "cgward's messages: $1"
}

# The user's runs' cgroups are all gone, within 60 s.
wait_no_runs() {
	for _ in $(seq 600); do
		[ -z "$(runs_left)" ] && return 0
		sleep 0.1
	done
	fail "runs' cgroups left: $(runs_left); the agent's log ends:
$(tail -n 20 "$T/agent.log")"
}

# The policies of the users' runs that still hold roots in the kernel
# (cgward status), the agent's own rule (quiet) aside.
run_policies_with_roots() {
	"$CGWARD" status | grep -E '^policy ([^ ]+ \(id [0-9]+\)|[0-9]+):' |
		grep -v '^policy quiet ' | grep -v ', 0 roots'
}

# Every run's roots are gone from the kernel's maps once its client ended,
# those a spawned run's supervisor put in (its private directories) too.
wait_run_roots_removed() {
	for _ in $(seq 150); do # cgward status takes a while under emulation
		[ -z "$(run_policies_with_roots)" ] && return 0
		sleep 0.1
	done
	fail "roots left: $(run_policies_with_roots)"
}

test_exec_user_writes_inside_and_is_denied_outside() {
	local err status=0
	user_dirs
	user_agent_start
	err=$(as_user "$CGWARD" exec --root "$UW" -- \
		sh -c "echo in >$UW/in; echo out >$UO/out || exit 3" 2>&1) || status=$?
	[ "$status" -eq 3 ] || fail "exited $status, want 3; stderr: $err"
	expect_content "$UW/in" in
	expect_absent "$UO/out"
	expect_user_deny "$err" "$UO/out"
	# The request, in the agent's stream.
	wait_line "$AEV" '"op":"exec_request"'
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"ok\" and .uid == $USER_UID
		and .roots == [\"$UW\"])" "$AEV" >/dev/null || fail "agent events: $(cat "$AEV")"
	# --events FILE, opened by the caller.
	as_user "$CGWARD" exec --root "$UW" --events "$UW/ev.jsonl" -- sh -c ": >$UO/out2" ||
		true
	expect_absent "$UO/out2"
	jq -s -e "any(.[]; .verdict == \"deny\" and .path == \"$UO/out2\")" "$UW/ev.jsonl" \
		>/dev/null || fail "events file: $(cat "$UW/ev.jsonl")"
	wait_no_runs
}

# A run through the socket is bound with the capabilities its caller asks
# for, as root's run is: a set-user-ID root hostname(1) inside holds every
# capability, and may use only the run's set (issue 36).
test_exec_user_capabilities_are_the_runs() {
	local name=cgward-test-host old err status=0
	user_dirs
	user_agent_start
	# The guest's own name may be one hostname(1) refuses, such as (none).
	old=$(cat /proc/sys/kernel/hostname)
	echo "$name" >/proc/sys/kernel/hostname
	cp /usr/bin/hostname "$T/hostname"
	chmod 4755 "$T/hostname"
	err=$(as_user "$CGWARD" exec --root "$UW" -- "$T/hostname" "$name" 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "sethostname through the socket succeeded: $err"
	events_of "$err" | jq -s -e "any(.[]; .op == \"capability\"
		and .capability == \"CAP_SYS_ADMIN\" and .uid == $USER_UID)" >/dev/null ||
		fail "no capability event on stderr: $err"
	# The same name again: allowed with the capability, and nothing changes.
	as_user "$CGWARD" exec --root "$UW" --cap-add sys_admin -- "$T/hostname" "$name" ||
		fail "--cap-add sys_admin through the socket: exited $?"
	[ "$(hostname)" = "$name" ] || fail "the hostname changed to $(hostname)"
	echo "$old" >/proc/sys/kernel/hostname
	wait_no_runs
}

test_exec_user_refusals_run_nothing() {
	local err status
	user_dirs
	user_agent_start
	# A root the user cannot open.
	mkdir -p /root/cgward-test-x
	chmod 0700 /root
	status=0
	err=$(as_user "$CGWARD" exec --root /root/cgward-test-x -- touch "$UW/ran" 2>&1) ||
		status=$?
	[ "$status" -eq 2 ] || fail "exited $status, want 2; stderr: $err"
	rmdir /root/cgward-test-x
	# What needs root for now.
	status=0
	err=$(as_user "$CGWARD" exec --root "$UW" --cgroup-parent "$SUITE_CGROUP" -- \
		touch "$UW/ran" 2>&1) || status=$?
	[ "$status" -eq 2 ] || fail "--cgroup-parent: exited $status: $err"
	expect_absent "$UW/ran"
	wait_no_runs
}

# Requests made by hand: the agent confines only the caller's own child.
test_exec_user_cannot_confine_a_foreign_process() {
	local victim sibling out
	user_dirs
	user_agent_start
	sleep 600 &
	victim=$!
	"${AS_USER[@]}" sleep 600 &
	sibling=$!
	# shellcheck disable=SC2016
	out=$(as_user python3 - "$EXEC_SOCK" "$UW" "$victim" "$sibling" <<'EOF'
import json, os, socket, subprocess, sys
path, root, victim, sibling = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def ask(pid):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    pidfd = os.pidfd_open(pid)
    d = os.open(root, os.O_PATH | os.O_DIRECTORY)
    req = {"argv0": "x", "flags": 0, "memory_mib": 0,
           "fds": ["pid", "write"], "paths": ["x", root]}
    socket.send_fds(s, [json.dumps(req).encode()], [pidfd, d])
    msg, fds, _, _ = socket.recv_fds(s, 4096, 1)
    return json.loads(msg).get("error", "granted")

print("root's:", ask(victim))
print("sibling:", ask(sibling))
child = subprocess.Popen(["sleep", "600"])
print("own:", ask(child.pid))
child.kill()
EOF
	)
	grep -q "^root's: process $victim is not a child of the caller" <<<"$out" || fail "$out"
	grep -q "^sibling: process $sibling is not a child of the caller" <<<"$out" || fail "$out"
	grep -q "^own: granted" <<<"$out" || fail "$out"
	# Neither moved.
	[ "$(cat /proc/$victim/cgroup)" = "$(cat /proc/self/cgroup)" ] || fail "victim moved"
	[ "$(cat /proc/$sibling/cgroup)" = "$(cat /proc/self/cgroup)" ] || fail "sibling moved"
	kill "$victim" "$sibling"
	wait_line "$AEV" '"result":"refused"' 2
	wait_no_runs
}

test_exec_user_without_agent_exits_125_and_runs_nothing() {
	local err status=0
	user_dirs
	err=$(as_user env CGWARD_EXEC_SOCKET=/run/cgward-test-none.sock "$CGWARD" exec \
		--root "$UW" -- touch "$UW/ran" 2>&1) || status=$?
	[ "$status" -eq 125 ] || fail "exited $status, want 125; stderr: $err"
	[[ "$err" == *"systemctl enable --now cgward"* ]] || fail "stderr: $err"
	expect_absent "$UW/ran"
}

test_exec_user_memory_limit() {
	local err status=0
	user_dirs
	user_agent_start
	expect 33554432 as_user "$CGWARD" exec --root "$UW" --memory 32 -- \
		sh -c "cat $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/memory.max"
	err=$(as_user "$CGWARD" exec --root "$UW" --memory 32 -- \
		python3 -c 'b = bytearray(256 << 20)' 2>&1) || status=$?
	[ "$status" -eq 137 ] || fail "exited $status, want 137; stderr: $err"
	[[ "$err" == *"cgward: python3 killed: out of memory (limit 32 MiB)"* ]] || fail "$err"
	wait_no_runs
}

test_exec_user_limit_of_runs_answers_clearly() {
	local err status=0 first
	user_dirs
	user_agent_start '{max_runs_per_user: 1}'
	as_user "$CGWARD" exec --root "$UW" -- \
		sh -c "touch $UW/started; while [ ! -e $UW/go ]; do sleep 0.1; done" &
	first=$!
	wait_file "$UW/started"
	err=$(as_user "$CGWARD" exec --root "$UW" -- touch "$UW/ran" 2>&1) || status=$?
	[ "$status" -eq 125 ] || fail "exited $status, want 125; stderr: $err"
	[[ "$err" == *"max_runs_per_user 1"* ]] || fail "stderr: $err"
	expect_absent "$UW/ran"
	touch "$UW/go"
	wait "$first"
	wait_no_runs
}

test_exec_user_client_killed_leaves_command_confined() {
	local client
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" -- sh -c "touch $UW/started
		while [ ! -e $UW/go ]; do sleep 0.1; done
		echo out >$UO/out; echo \$? >$UW/status" 2>/dev/null &
	client=$!
	wait_file "$UW/started"
	kill -9 "$client"
	wait "$client" 2>/dev/null || true
	touch "$UW/go"
	wait_written "$UW/status"
	expect_absent "$UO/out"
	[ "$(cat "$UW/status")" != 0 ] || fail "the write outside succeeded"
	wait_no_runs
}

test_exec_user_64_concurrent_runs_are_enforced() {
	local pids=() i
	user_dirs
	user_agent_start
	for i in $(seq 64); do
		as_user "$CGWARD" exec --root "$UW" -- \
			sh -c "echo $i >$UW/in-$i; echo $i >$UO/out-$i" 2>/dev/null &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || true; done
	for i in $(seq 64); do
		expect_content "$UW/in-$i" "$i"
		expect_absent "$UO/out-$i"
	done
	wait_no_runs
}

# A run through the socket parks its ring buffer once its caller has read
# the last records, as root's run does (t_exec.sh): the user's next run
# takes it, and gets only its own events.
test_exec_user_ring_parked_serves_the_next_run_with_its_own_events_only() {
	local parked
	user_dirs
	user_agent_start
	as_user "$CGWARD" exec --root "$UW" --events "$UW/1.jsonl" -- sh -c ": >$UO/one" ||
		true
	parked=$(exec_ring_ids)
	[ -n "$parked" ] || fail "no ring buffer after a run"
	as_user "$CGWARD" exec --root "$UW" --events "$UW/2.jsonl" -- sh -c ": >$UO/two" ||
		true
	[ "$(exec_ring_ids)" = "$parked" ] || fail "rings: $(exec_ring_ids), parked: $parked"
	expect_absent "$UO/one"
	expect_absent "$UO/two"
	EV=$UW/1.jsonl expect_events 1 ".verdict == \"deny\" and .path == \"$UO/one\""
	EV=$UW/1.jsonl expect_events 1 true
	EV=$UW/2.jsonl expect_events 1 ".verdict == \"deny\" and .path == \"$UO/two\""
	EV=$UW/2.jsonl expect_events 1 true
	wait_no_runs
}

# Runs of one user started at once through the socket take the rings its
# earlier runs parked, each a policy id of its own (t_exec.sh's twin): no
# run can write into another's root.
test_exec_user_concurrent_runs_claiming_parked_rings_keep_their_own_roots() {
	local pids=() i next
	user_dirs
	user_agent_start
	for i in 1 2 3 4; do
		as_user "$CGWARD" exec --root "$UW" -- true # each run parks its ring
	done
	for i in 1 2 3 4 5 6 7 8; do
		mkdir "$UW/r$i"
		chown $USER_UID:$USER_UID "$UW/r$i"
	done
	for i in 1 2 3 4 5 6 7 8; do
		next=$((i % 8 + 1))
		"${AS_USER[@]}" "$CGWARD" exec --root "$UW/r$i" -- \
			sh -c "sleep 0.5; echo x >$UW/r$next/from-$i; echo \$? >$UW/r$i/status" \
			2>/dev/null &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || true; done
	for i in 1 2 3 4 5 6 7 8; do
		next=$((i % 8 + 1))
		expect_absent "$UW/r$next/from-$i"
		[ "$(cat "$UW/r$i/status")" != 0 ] || fail "run $i wrote into run $next's root"
	done
	wait_no_runs
}

# The agent restarted while a run goes on: the run stays confined, its events
# still reach the caller, and the new agent removes its cgroup once it ends.
test_exec_user_agent_restart_keeps_the_run_confined() {
	local client
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" -- sh -c "touch $UW/started
		while [ ! -e $UW/go ]; do sleep 0.1; done
		echo out >$UO/out; echo \$? >$UW/status" 2>"$T/client.err" &
	client=$!
	wait_file "$UW/started"
	user_agent_restart
	touch "$UW/go"
	wait "$client" || true
	expect_absent "$UO/out"
	[ "$(cat "$UW/status")" != 0 ] || fail "the write outside succeeded"
	events_of "$(cat "$T/client.err")" | jq -s -e "any(.[]; .verdict == \"deny\" and .path == \"$UO/out\")" \
		>/dev/null || fail "no deny event: $(cat "$T/client.err")"
	# The new agent answered the end (and the lost count) for the old one.
	! grep -F "cgward:" "$T/client.err" || fail "client: $(cat "$T/client.err")"
	wait_no_runs
}

# A mandatory rule over the runs' cgroups holds from a user's first run (the
# agent binds it before the run's child is moved in: that ordering is not
# observable from here, the agent's loop binding it a moment later too).
test_exec_user_mandatory_rule_holds_from_the_first_run() {
	local err status=0
	user_dirs
	mkdir "$UW/m"
	chown $USER_UID:$USER_UID "$UW/m"
	USER_RULES=$(agent_policy users "$UW/m" true "${RUNS_PARENT#"$CG2"}/cgward-[0-9]*")
	user_agent_start
	err=$(as_user "$CGWARD" exec --root "$UW" -- \
		sh -c "echo in >$UW/m/in && echo out >$UW/out" 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "the write outside the mandatory root succeeded: $err"
	expect_content "$UW/m/in" in
	expect_absent "$UW/out"
	events_of "$err" | jq -s -e "any(.[]; .verdict == \"deny\" and .path == \"$UW/out\")" \
		>/dev/null || fail "no deny event on the user's stderr: $err"
	# The agent's line names the rule, and the run's cgroup.
	wait_line "$AEV" "\"path\":\"$UW/out\""
	jq -e "select(.path == \"$UW/out\") | .policy == \"users\" and
		(.cgroup | test(\"/cgward-[0-9]+-[0-9a-f]+$\"))" "$AEV" >/dev/null ||
		fail "the agent's deny line: $(grep -F "$UW/out" "$AEV")"
	wait_no_runs
}

# A user who connects and sends nothing, more times than the agent keeps
# connections waiting for their request, loses its own, not another user's.
test_exec_user_idle_connections_do_not_hold_off_other_users() {
	local other=65533 holder
	user_dirs
	user_agent_start
	# shellcheck disable=SC2016 # python's
	"${AS_USER[@]}" python3 -c '
import os, socket, sys, time
held = [socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(300)]
for s in held:
    s.connect(sys.argv[1])
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.1)
' "$EXEC_SOCK" "$UW/holding" "$UW/release" &
	holder=$!
	wait_file "$UW/holding"
	mkdir "$T/ow"
	chown $other:$other "$T/ow"
	setpriv --reuid=$other --regid=$other --clear-groups -- \
		"$CGWARD" exec --root "$T/ow" -- sh -c "echo ok >$T/ow/f" ||
		fail "another user's run was refused while the first held connections"
	expect_content "$T/ow/f" ok
	touch "$UW/release"
	wait "$holder"
	wait_no_runs
}

# SIGTERM to the client ends the run: what is left is killed, and the cgroup goes.
test_exec_user_sigterm_to_the_client_ends_the_run() {
	local client status=0
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" -- sh -c "echo \$\$ >$UW/pid; exec sleep 1000" &
	client=$!
	wait_written "$UW/pid"
	kill -TERM "$client"
	wait "$client" || status=$?
	[ "$status" -ne 0 ] || fail "the client exited 0 after SIGTERM"
	wait_no_runs
	! kill -0 "$(cat "$UW/pid")" 2>/dev/null || fail "the command outlived its run"
}

# run_dir: URUN, the user's, outside the roots and not beneath /tmp: a
# private /tmp would hide UO (beneath it), and a write there would fail for
# want of the directory, not because the kernel denied it.
run_dir() {
	URUN=$(mktemp -d /run/cgward-user-out.XXXXXX)
	chown $USER_UID:$USER_UID "$URUN"
}

# --private-tmp: the agent starts the command itself (its mount namespace
# needs root), as the user, in the user's cwd, with the user's stdio.
test_exec_user_private_tmp_runs_as_the_caller() {
	local err status=0
	user_dirs
	run_dir
	user_agent_start
	rm -f /tmp/x
	# UW lies beneath /tmp (the suite's TEST_TMP): it is bound back at its path.
	# Under a file limit of the caller's own, which the command takes.
	err=$(cd "$UW" && echo piped | as_user prlimit --nofile=777:777 "$CGWARD" exec --root "$UW" \
		--private-tmp -- sh -c "ls -A /tmp >tmp-list; echo x >/tmp/x && cat /tmp/x >tmp-read
		id -u >uid; id -G >groups; pwd >cwd; cat >stdin; echo out >$URUN/out
		grep -E '^(Uid|Gid|CapPrm|CapEff):' /proc/self/status >ids; ulimit -n >nofile; exit 7" \
		2>&1) || status=$?
	[ "$status" -eq 7 ] || fail "exited $status, want 7; stderr: $err"
	expect_content "$UW/tmp-list" "$(basename "$T")"
	expect_content "$UW/tmp-read" x
	expect_absent /tmp/x
	expect_content "$UW/uid" $USER_UID
	expect_content "$UW/groups" $USER_UID
	expect_content "$UW/cwd" "$UW"
	expect_content "$UW/stdin" piped
	# Every uid the caller's (the supervisor kept a saved one of 0 until the clone), no capability.
	expect_content "$UW/ids" "$(printf 'Uid:\t%s\t%s\t%s\t%s\nGid:\t%s\t%s\t%s\t%s\n' \
		$USER_UID $USER_UID $USER_UID $USER_UID $USER_UID $USER_UID $USER_UID $USER_UID
		printf 'CapPrm:\t%016x\nCapEff:\t%016x' 0 0)"
	expect_content "$UW/nofile" 777
	expect_absent "$URUN/out"
	expect_user_deny "$err" "$URUN/out"
	rm -rf "$URUN"
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"ok\" and .uid == $USER_UID
		and .private_tmp == true)" "$AEV" >/dev/null || fail "agent events: $(cat "$AEV")"
	# A command that cannot be executed: the direct path's status and message.
	status=0
	err=$(as_user "$CGWARD" exec --root "$UW" --private-tmp -- /no/such-command 2>&1) ||
		status=$?
	[ "$status" -eq 127 ] || fail "exited $status, want 127: $err"
	[ "$err" = "cgward: /no/such-command: No such file or directory" ] || fail "stderr: $err"
	wait_no_runs
	wait_run_roots_removed
}

# $UW/keys.py join-and-exec CMD...: CMD in a session keyring of its own
# that holds a key; keys.py search: "found" when the session keyring has it.
# In UW: a private /tmp hides the rest of T.
write_keys_helper() {
	cat >"$UW/keys.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_add_key, SYS_keyctl = 248, 250
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING = 1, 10, -3
def check(ret, what):
    if ret < 0:
        sys.exit(f"{what}: {os.strerror(ctypes.get_errno())}")
if sys.argv[1] == "join-and-exec":
    check(libc.syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, b"cgward-test-agent"), "join")
    check(libc.syscall(SYS_add_key, b"user", b"cgward-test-secret", b"s3cret", 6,
                       KEY_SPEC_SESSION_KEYRING), "add_key")
    os.execvp(sys.argv[2], sys.argv[2:])
found = libc.syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user",
                     b"cgward-test-secret", 0)
print("found" if found >= 0 else os.strerror(ctypes.get_errno()))
EOF
}

# A command the agent starts is not the caller's child: what a child would
# inherit, it takes from the caller (its CPUs, scheduling policy, I/O
# priority and audit login uid, set by taskset, chrt, ionice and a write of
# /proc/self/loginuid here), and the agent's session keyring, whose keys
# any process holding it may read whatever its uid, it does not keep.
test_exec_user_private_tmp_command_inherits_from_the_caller_not_the_agent() {
	local err
	user_dirs
	write_keys_helper
	USER_AGENT_WRAP=(python3 "$UW/keys.py" join-and-exec)
	user_agent_start
	grep -q cgward-test-secret /proc/keys || fail "no key in the agent's keyring: $(cat /proc/keys)"
	# shellcheck disable=SC2016 # expanded by sh -c
	err=$(cd "$UW" && sh -c 'echo 4321 >/proc/self/loginuid && exec "$@"' sh "${AS_USER[@]}" \
		taskset -c 0 chrt -b 0 ionice -c 3 "$CGWARD" exec --root "$UW" --private-tmp -- sh -c "
		taskset -cp \$\$ | sed 's/.*: //' >cpus; chrt -p \$\$ | sed -n 's/.*policy: //p' >policy
		ionice -p \$\$ >io; cat /proc/self/loginuid >loginuid; python3 keys.py search >keys" \
		2>&1) || fail "the run failed: $err"
	expect_content "$UW/cpus" 0
	expect_content "$UW/policy" SCHED_BATCH
	expect_content "$UW/io" idle
	expect_content "$UW/loginuid" 4321
	expect_content "$UW/keys" "Required key not available"
	wait_no_runs
}

test_exec_user_private_tmp_sigterm_ends_the_run() {
	local client status=0
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- sh -c "echo \$\$ >$UW/pid; sleep 600" \
		2>"$T/client.err" &
	client=$!
	wait_written "$UW/pid"
	kill -TERM "$client"
	wait "$client" || status=$?
	[ "$status" -eq 143 ] || fail "exited $status, want 143: $(cat "$T/client.err")"
	wait_no_runs
	! kill -0 "$(cat "$UW/pid")" 2>/dev/null || fail "the command outlived its run"
}

# The client killed, then the agent restarted: the command goes on confined,
# its supervisor outlives both, and its cgroup goes once it ends.
test_exec_user_private_tmp_outlives_client_and_agent() {
	local client
	user_dirs
	run_dir
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- sh -c "touch $UW/started
		while [ ! -e $UW/go ]; do sleep 0.1; done
		echo y >/tmp/y && cat /tmp/y >$UW/tmp-read
		echo out >$URUN/out; echo \$? >$UW/status" 2>/dev/null &
	client=$!
	wait_file "$UW/started"
	kill -9 "$client"
	wait "$client" 2>/dev/null || true
	user_agent_restart
	touch "$UW/go"
	wait_written "$UW/status"
	expect_content "$UW/tmp-read" y
	expect_absent "$URUN/out"
	[ "$(cat "$UW/status")" != 0 ] || fail "the write outside succeeded"
	rm -rf "$URUN"
	wait_no_runs
}

# The supervisors come from the agent's spawner, not from the agent, which
# forks nothing per run: cgward executed afresh, holding nothing of the
# agent's but its stdio (not by hand: refused). The spawner killed, the
# next run starts another.
test_exec_user_private_tmp_spawner_killed_starts_another() {
	local spawner supervisor err status=0
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- sh -c "echo \$PPID >$UW/ppid
		while [ ! -e $UW/go ]; do sleep 0.1; done" 2>"$T/client.err" &
	wait_written "$UW/ppid"
	supervisor=$(cat "$UW/ppid")
	spawner=$(pgrep -x -P "$AGENT_PID" cgward-spawner) || fail "no spawner under the agent"
	[ "$(ps -o ppid= -p "$supervisor" | tr -d ' ')" = "$spawner" ] ||
		fail "the supervisor $supervisor is not the spawner's ($spawner): $(ps -ef)"
	[ "$(tr '\0' ' ' <"/proc/$spawner/cmdline")" = "cgward-spawner " ] ||
		fail "the spawner is not cgward executed afresh: $(tr '\0' ' ' <"/proc/$spawner/cmdline")"
	[ "$(ls "/proc/$spawner/fd" | sort -n | paste -sd' ')" = "0 1 2 3" ] ||
		fail "the spawner holds more than its stdio and socket: $(ls -l "/proc/$spawner/fd")"
	err=$(bash -c 'exec -a cgward-spawner "$0"' "$CGWARD" 3</dev/null 2>&1) || status=$?
	[ "$status" = 2 ] && [[ $err == *"not by hand"* ]] ||
		fail "cgward-spawner by hand: status $status: $err"
	kill -9 "$spawner"
	touch "$UW/go"
	wait $! || fail "the run failed with its spawner killed: $(cat "$T/client.err")"
	err=$(cd "$UW" && "${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- \
		sh -c 'echo z >/tmp/z && cat /tmp/z >tmp-read' 2>&1) || fail "the next run failed: $err"
	expect_content "$UW/tmp-read" z
	agent_wait_log "the spawner ended; starting another"
	pgrep -x -P "$AGENT_PID" cgward-spawner >/dev/null || fail "no spawner started again"
	wait_no_runs
}

# The agent as its systemd unit runs it (deploy/systemd/cgward.service.in):
# root with only the unit's capabilities (bounding, inheritable and ambient
# sets) and no new privileges. An ordinary user's runs work, a private-tmp
# one (the Python client's default) too: its supervisor joins the caller's
# namespaces and takes the caller's identity with these capabilities alone.
test_exec_user_agent_with_the_units_capabilities_serves_private_tmp() {
	local caps list err eff
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$INTEGRATION/../../deploy/systemd/cgward.service.in")
	[ -n "$caps" ] || fail "no CapabilityBoundingSet= in the unit"
	list=$(for c in $caps; do c=${c#CAP_}; printf '+%s,' "${c,,}"; done)
	list=-all,${list%,}
	USER_AGENT_WRAP=(setpriv "--bounding-set=$list" "--inh-caps=$list" "--ambient-caps=$list"
		--no-new-privs --)
	user_dirs
	user_agent_start
	# Not root's full set: no CAP_SYS_MODULE (16), which the unit leaves out.
	eff=$((16#$(sed -n 's/^CapEff:\t//p' "/proc/$AGENT_PID/status")))
	(((eff & (1 << 16)) == 0)) || fail "the agent runs with CAP_SYS_MODULE: not the unit's set"
	err=$(cd "$UW" && "${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- \
		sh -c "grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status >caps
			echo z >/tmp/z && cat /tmp/z >tmp-read && echo x >$UO/out" 2>&1) &&
		fail "the write outside succeeded"
	[ -e "$UW/tmp-read" ] || fail "the private-tmp run failed: $err"
	expect_content "$UW/tmp-read" z
	# None of the agent's capabilities, the inheritable ones its unit sets included.
	expect_content "$UW/caps" "$(printf 'Cap%s:\t0000000000000000\n' Inh Prm Eff Amb)"
	expect_absent "$UO/out"
	err=$(cd "$UW" && "${AS_USER[@]}" "$CGWARD" exec --root "$UW" -- sh -c "echo y >moved" 2>&1) ||
		fail "a run without private tmp failed: $err"
	expect_content "$UW/moved" y
	wait_no_runs
}

# The agent restarted mid-run: its supervisor still tells the client the status.
test_exec_user_private_tmp_agent_restart_keeps_the_status() {
	local client status=0
	user_dirs
	user_agent_start
	"${AS_USER[@]}" "$CGWARD" exec --root "$UW" --private-tmp -- sh -c "touch $UW/started
		while [ ! -e $UW/go ]; do sleep 0.1; done; exit 5" 2>"$T/client.err" &
	client=$!
	wait_file "$UW/started"
	user_agent_restart
	touch "$UW/go"
	wait "$client" || status=$?
	[ "$status" -eq 5 ] || fail "exited $status, want 5: $(cat "$T/client.err")"
	wait_no_runs
}

# The user runs CMD... under an allow-all seccomp filter, installed by hand.
as_user_under_seccomp() {
	as_user python3 - "$@" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
allow = struct.pack("HBBI", 0x06, 0, 0, 0x7FFF0000)  # BPF_RET|BPF_K SECCOMP_RET_ALLOW
code = ctypes.create_string_buffer(allow)
prog = struct.pack("HxxxxxxQ", 1, ctypes.addressof(code))
prog_buf = ctypes.create_string_buffer(prog)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.addressof(prog_buf), 0, 0) == 0  # PR_SET_SECCOMP, FILTER
os.execvp(sys.argv[1], sys.argv[1:])
PY
}

# A caller confined in a way the agent could not give its command (a user
# namespace, a seccomp filter) is refused: nothing runs.
test_exec_user_private_tmp_refuses_a_confined_caller() {
	local err status
	user_dirs
	user_agent_start
	[ ! -e /proc/sys/kernel/unprivileged_userns_clone ] ||
		echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	status=0
	err=$(as_user unshare --user "$CGWARD" exec --root "$UW" --private-tmp -- \
		touch "$UW/ran" 2>&1) || status=$?
	[ "$status" -eq 125 ] || fail "in a user namespace: exited $status, want 125: $err"
	[[ "$err" == *"the caller is in another user or pid namespace"* ]] || fail "stderr: $err"
	# An allow-all seccomp filter: still one the command would lack.
	status=0
	err=$(as_user_under_seccomp "$CGWARD" exec --root "$UW" --private-tmp -- touch "$UW/ran" \
		2>&1) || status=$?
	[ "$status" -eq 125 ] || fail "under seccomp: exited $status, want 125: $err"
	[[ "$err" == *"the caller runs under seccomp"* ]] || fail "stderr: $err"
	expect_absent "$UW/ran"
	wait_line "$AEV" '"result":"refused"' 2
	wait_no_runs
}

# --spawn: the agent starts the command as the caller, as for --private-tmp,
# but with the host's /tmp; the command is no child of the caller's (a
# session of its own), and no migration into the cgroup.
test_exec_user_spawn_runs_as_the_caller_with_the_hosts_tmp() {
	local err status=0 caller_sid
	user_dirs
	user_agent_start
	echo host >"$T/host-file"
	chmod 0644 "$T/host-file"
	caller_sid=$(cut -d' ' -f6 /proc/$$/stat)
	err=$(cd "$UW" && echo piped | as_user "$CGWARD" exec --root "$UW" --spawn -- sh -c "
		cat $T/host-file >host; id -u >uid; pwd >cwd; cat >stdin
		cut -d' ' -f6 /proc/self/stat >sid; echo out >$UO/out; exit 7" 2>&1) || status=$?
	[ "$status" -eq 7 ] || fail "exited $status, want 7; stderr: $err"
	expect_content "$UW/host" host
	expect_content "$UW/uid" $USER_UID
	expect_content "$UW/cwd" "$UW"
	expect_content "$UW/stdin" piped
	[ "$(cat "$UW/sid")" != "$caller_sid" ] ||
		fail "the command is in the caller's session $caller_sid: it was not spawned"
	expect_absent "$UO/out"
	expect_user_deny "$err" "$UO/out"
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"ok\" and .spawned == true
		and .private_tmp == null and .pid == null)" "$AEV" >/dev/null ||
		fail "agent events: $(cat "$AEV")"
	wait_no_runs
	wait_run_roots_removed
}

# --spawn for a caller under seccomp, which the command the agent started
# would lack: the caller's own child runs instead, moved in, the filter kept.
test_exec_user_spawn_under_seccomp_confines_the_callers_child() {
	local err status=0
	user_dirs
	user_agent_start
	err=$(cd "$UW" && as_user_under_seccomp "$CGWARD" exec --root "$UW" --spawn -- sh -c "
		grep Seccomp: /proc/self/status >seccomp; echo out >$UO/out; exit 5" 2>&1) ||
		status=$?
	[ "$status" -eq 5 ] || fail "exited $status, want 5; stderr: $err"
	expect_content "$UW/seccomp" "$(printf 'Seccomp:\t2')"
	expect_absent "$UO/out"
	expect_user_deny "$err" "$UO/out"
	[[ "$err" != *"refused"* ]] || fail "the fallback is the caller's own business: $err"
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"caller_starts\" and .spawned == true
		and (.error | contains(\"seccomp\")))" "$AEV" >/dev/null ||
		fail "no spawn left to the caller in the agent events: $(cat "$AEV")"
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"ok\" and .pid != null
		and .spawned == null)" "$AEV" >/dev/null ||
		fail "no child moved in, in the agent events: $(cat "$AEV")"
	wait_no_runs
}

# --serve takes its commands from a client on its stdin, a socket (the
# Python client's Sandbox, whose runs through it clients/python/tests make),
# never from its command line, and only an ordinary user's: root runs
# cgward exec for each command.
test_exec_user_serve_takes_no_command_and_only_a_client() {
	user_dirs
	expect_status 2 "${AS_USER[@]}" "$CGWARD" exec --serve --root "$UW" -- touch "$UW/ran" \
		2>"$T/err"
	expect_absent "$UW/ran"
	grep -q "takes no command" "$T/err" || fail "a command: $(cat "$T/err")"
	expect_status 2 "${AS_USER[@]}" "$CGWARD" exec --serve --root "$UW" </dev/null 2>"$T/err"
	grep -q "the client's socket: Socket operation on non-socket" "$T/err" ||
		fail "no socket: $(cat "$T/err")"
	expect_status 2 "$CGWARD" exec --serve --root "$UW" </dev/null 2>"$T/err"
	grep -q "for ordinary users" "$T/err" || fail "root: $(cat "$T/err")"
}

# jail_with DIR BIN...: DIR holds each BIN and the libraries it loads, at their paths.
jail_with() {
	local dir=$1 bin file
	shift
	for bin in "$@"; do
		for file in "$bin" $(ldd "$bin" | grep -o '/[^ ]*'); do
			mkdir -p "$dir$(dirname "$file")"
			cp -L "$file" "$dir$file"
		done
	done
}

# A caller chrooted in the agent's mount namespace, whose command must keep
# its root: --private-tmp is refused, --spawn confines the caller's own
# child, which writes inside the jail and is denied outside its root.
test_exec_user_chrooted_caller_keeps_its_root() {
	local jail err status=0
	user_dirs
	jail=$T/jail
	mkdir -p "$jail/w"
	chown $USER_UID:$USER_UID "$jail/w"
	cp "$CGWARD" "$jail/cgward"
	jail_with "$jail" /bin/sh "$(command -v setpriv)"
	user_agent_start "{path: $jail/exec.sock}"
	err=$(CGWARD_EXEC_SOCKET=/exec.sock chroot "$jail" "$(command -v setpriv)" \
		--reuid=$USER_UID --regid=$USER_UID --clear-groups -- /cgward exec --root /w --spawn \
		-- /bin/sh -c 'echo in >/w/in; echo out >/out; exit 4' 2>&1) || status=$?
	[ "$status" -eq 4 ] || fail "--spawn, chrooted: exited $status, want 4: $err"
	expect_content "$jail/w/in" in
	expect_absent "$jail/out"
	events_of "$err" | jq -s -e 'any(.[]; .verdict == "deny" and .path == "/out")' >/dev/null ||
		fail "no deny event on stderr: $err"
	jq -s -e "any(.[]; .op == \"exec_request\" and .result == \"caller_starts\" and .spawned == true
		and (.error | contains(\"chrooted\")))" "$AEV" >/dev/null ||
		fail "no spawn left to the caller in the agent events: $(cat "$AEV")"
	status=0
	err=$(CGWARD_EXEC_SOCKET=/exec.sock chroot "$jail" "$(command -v setpriv)" \
		--reuid=$USER_UID --regid=$USER_UID --clear-groups -- /cgward exec --root /w \
		--private-tmp -- /bin/sh -c 'echo ran >/w/ran' 2>&1) || status=$?
	[ "$status" -eq 125 ] || fail "--private-tmp, chrooted: exited $status, want 125: $err"
	[[ "$err" == *"the caller runs chrooted"* ]] || fail "stderr: $err"
	expect_absent "$jail/w/ran"
	wait_no_runs
}

# A caller under an AppArmor profile of its own (the test VM boots with
# AppArmor): its child keeps the profile, a command the agent started
# would have the agent's label instead, so --private-tmp is refused.
test_exec_user_private_tmp_refuses_a_caller_under_its_own_label() {
	local err status label
	[ -d /sys/kernel/security/apparmor ] || fail "AppArmor is not enabled (the test VM boots with it)"
	user_dirs
	user_agent_start
	cat >"$T/caller.profile" <<'PROFILE'
profile cgward-test-caller {
  file,
  capability,
  network,
  signal,
  ptrace,
  unix,
  mount,
  umount,
  pivot_root,
  change_profile,
}
PROFILE
	apparmor_parser -r "$T/caller.profile" || fail "cannot load the caller's profile"
	label=$(as_user aa-exec -p cgward-test-caller -- "$CGWARD" exec --root "$UW" -- \
		cat /proc/self/attr/current) || fail "a run of the confined caller's own child failed"
	[ "$label" = "cgward-test-caller (enforce)" ] || fail "the caller's child runs as '$label'"
	status=0
	err=$(as_user aa-exec -p cgward-test-caller -- "$CGWARD" exec --root "$UW" --private-tmp -- \
		touch "$UW/ran" 2>&1) || status=$?
	apparmor_parser -R "$T/caller.profile" || fail "cannot unload the caller's profile"
	[ "$status" -eq 125 ] || fail "under its own profile: exited $status, want 125: $err"
	[[ "$err" == *'the caller runs under the security label "cgward-test-caller (enforce)"'* ]] ||
		fail "stderr: $err"
	expect_absent "$UW/ran"
	wait_line "$AEV" '"result":"refused"' 1
	# The agent's own label ("unconfined") is no refusal.
	as_user "$CGWARD" exec --root "$UW" --private-tmp -- touch "$UW/ran" ||
		fail "an unconfined caller's --private-tmp run failed"
	[ -e "$UW/ran" ] || fail "the unconfined caller's command did not run"
	wait_no_runs
}

# A caller that cgward confines (here a run of root's, the exec socket
# allowed to it) gets no run of its own: it would be beside its boundary.
test_exec_user_confined_caller_gets_no_run() {
	local err status option
	user_dirs
	user_agent_start
	for option in "" --private-tmp; do
		status=0
		err=$("$CGWARD" exec --root "$UW" --allow-unix "$EXEC_SOCK" -- "${AS_USER[@]}" \
			"$CGWARD" exec --root "$UO" ${option:+"$option"} -- touch "$UO/escaped" 2>&1) ||
			status=$?
		[ "$status" -eq 125 ] || fail "'$option': exited $status, want 125: $err"
		[[ "$err" == *"the caller is confined by cgward"* ]] || fail "'$option': stderr: $err"
		expect_absent "$UO/escaped"
	done
	wait_line "$AEV" '"result":"refused"' 2
	wait_no_runs
}

# slow_cri_start: a CRI runtime's socket at $T/cri.sock that accepts and never
# answers. Its state file $T/cri.state gets a line "accepted" for each
# connection and "closed" when its peer (the agent) hangs up.
slow_cri_start() {
	: >"$T/cri.state"
	python3 - "$T/cri.sock" "$T/cri.state" <<'EOF' &
import select, socket, sys
path, state = sys.argv[1], sys.argv[2]
def note(line):
    with open(state, "a") as f:
        f.write(line + "\n")
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(16)
note("listening")
peers = []
while True:
    ready, _, _ = select.select([server] + peers, [], [])
    for s in ready:
        if s is server:
            peers.append(server.accept()[0])
            note("accepted")
        elif not s.recv(65536):
            peers.remove(s)
            s.close()
            note("closed")
EOF
	SLOW_CRI_PID=$!
	wait_line "$T/cri.state" listening
}

# fake_container ID SANDBOX_ID: the OCI bundle of a pod's app container in
# $T/bundles, as containerd's CRI plugin writes it: a sandbox id, no labels.
fake_container() {
	mkdir -p "$T/bundles/$1/rootfs"
	cat >"$T/bundles/$1/config.json" <<JSON
{"root": {"path": "rootfs"}, "annotations": {
 "io.kubernetes.cri.container-type": "container",
 "io.kubernetes.cri.container-name": "app",
 "io.kubernetes.cri.sandbox-id": "$2",
 "io.kubernetes.cri.sandbox-name": "web",
 "io.kubernetes.cri.sandbox-namespace": "team-a",
 "io.kubernetes.cri.sandbox-uid": "0a0a0a0a-0000-4000-8000-000000000001"}}
JSON
}

# The agent asks the CRI for a new container's pod labels (a rule selects by
# them) and the CRI does not answer: a user's exec request through the socket
# is served meanwhile, not after the lookup gave up (issue 37). The
# container is bound to kubernetes-unresolved while its labels are pending.
test_exec_user_request_does_not_wait_on_a_cri_lookup() {
	local pod=$SUITE_CGROUP/kubepods/besteffort/pod0a0a0a0a-0000-4000-8000-000000000001
	local cid sandbox
	cid=$(printf 'c%.0s' $(seq 64))
	sandbox=$(printf '5%.0s' $(seq 64))
	user_dirs
	slow_cri_start
	fake_container "$cid" "$sandbox"
	USER_RULES='policies:
  - name: labelled
    selector:
      kubernetes:
        pod_labels: {app: labelled}
    container_roots: [/data]'
	USER_AGENT_OPTS=(--cri-socket "$T/cri.sock" --bundles "$T/bundles")
	user_agent_start
	trap 'user_agent_stop; kill "$SLOW_CRI_PID"' EXIT
	mkdir -p "$pod/$cid"
	wait_line "$T/cri.state" accepted
	as_user "$CGWARD" exec --root "$UW" -- sh -c "echo ran >$UW/ran" ||
		fail "the exec through the socket exited $?"
	expect_content "$UW/ran" ran
	# Still asking: the request was not held until the lookup gave up.
	! grep -qx closed "$T/cri.state" ||
		fail "the CRI lookup ended before the exec request was served: $(cat "$T/cri.state")"
	agent_wait_log "bound ${pod#"$CG2"}/$cid to policy kubernetes-unresolved"
	wait_no_runs
	rmdir "$pod/$cid" "$pod" "${pod%/*}" "$SUITE_CGROUP/kubepods"
}

# The DaemonSet's agent runs in a container with a cgroup namespace of its
# own (containerd's default on cgroup v2), where a host caller's
# /proc/PID/cgroup reads "/../..": the agent enters PID 1's namespace at
# start, and serves the user's run as anywhere else.
test_exec_user_agent_started_in_a_cgroup_namespace_of_its_own() {
	user_dirs
	USER_AGENT_WRAP=(unshare --cgroup)
	user_agent_start
	[ "$(readlink "/proc/$AGENT_PID/ns/cgroup")" = "$(readlink /proc/1/ns/cgroup)" ] ||
		fail "the agent stayed in its own cgroup namespace: $(cat "$T/agent.log")"
	as_user "$CGWARD" exec --root "$UW" -- sh -c "touch $UW/ran; touch $UO/denied" 2>"$T/err" &&
		fail "a write outside the root went through"
	[ -e "$UW/ran" ] || fail "the run did not write inside its root: $(cat "$T/err")"
	expect_absent "$UO/denied"
}
