# cgward agent: policies applied to the host's cgroups, pinned, reloaded live (issue 5).
# Each test runs one agent in the background; agent_stop (an EXIT trap of the
# test's subshell) stops it and unloads, whether the test passed or not.
# shellcheck shell=bash

PINS=/sys/fs/bpf/cgward
AGENT_PID=
REL=${SUITE_CGROUP#"$CG2"} # the suite cgroup relative to the cgroup2 root

# agent_policy NAME ROOT MANDATORY GLOB...: a one-rule policy, on stdout.
agent_policy() {
	local name=$1 root=$2 mandatory=$3 glob
	shift 3
	printf 'policies:\n  - name: %s\n    selector:\n      cgroups:\n' "$name"
	for glob; do printf '        - %s\n' "$glob"; done
	printf '    write_roots: [%s]\n    mandatory: %s\n' "$root" "$mandatory"
}

# agent_start [OPTION...]: an agent in the background, ready; a restarted one
# too (its own "ready:" line, not the one its predecessor left in the log).
# Its policy file is $T/policy.yaml, or $POLICY.
agent_start() {
	local readies
	readies=$(grep -c -F "ready:" "$T/agent.log" 2>/dev/null) || true
	"$CGWARD" agent --policy "${POLICY:-$T/policy.yaml}" --events "$EV" "$@" >"$T/agent.out" \
		2>>"$T/agent.log" &
	AGENT_PID=$!
	trap agent_stop EXIT
	agent_wait_log "ready:" $((readies + 1))
}

# agent_halt: the agent stopped with SIGTERM (its plane stays, as with
# systemd's stop); it must exit 0: any other status fails the test, with the
# end of its log (which goes with the test's own files).
agent_halt() {
	local status=0
	if [ -n "$AGENT_PID" ]; then
		kill -TERM "$AGENT_PID" 2>/dev/null || true
		kill -CONT "$AGENT_PID" 2>/dev/null || true # a test may have stopped it
		wait "$AGENT_PID" 2>/dev/null || status=$?
		AGENT_PID=
	fi
	[ "$status" -eq 0 ] ||
		fail "the agent exited with status $status; its log ends:
$(tail -n 40 "$T/agent.log" 2>/dev/null)"
}

# agent_stop: the agent halted and its plane unloaded, so that the next test
# counts its own policies and links from none.
agent_stop() {
	local status=0
	agent_halt || status=1
	"$CGWARD" agent --unload --force >/dev/null 2>&1 || true
	if [ -e "$PINS" ]; then
		echo "agent_stop: $PINS left behind" >&2
		exit 1
	fi
	return $status
}

# wait_line FILE TEXT [COUNT]: FILE has a line with TEXT (COUNT of them), within 60 s.
# grep, not jq, while waiting: jq costs half a second in the VM.
wait_line() {
	for _ in $(seq 1200); do
		[ "$(grep -c -F -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.05
	done
	fail "no line with '$2' in $1: $(cat "$1")"
}

agent_wait_log() {
	wait_line "$T/agent.log" "$@"
}

# shellcheck disable=SC2016 # expanded by sh -c
IN_CG='echo $$ > "$1/cgroup.procs" && shift && exec "$@"'

# in_cg DIR CMD...: CMD moved into the cgroup DIR first.
in_cg() {
	sh -c "$IN_CG" sh "$@"
}

# in_cg_bg DIR CMD...: the same in the background, CMD's pid in $! (a
# function run with & would leave its own subshell's pid there instead).
in_cg_bg() {
	sh -c "$IN_CG" sh "$@" &
}

test_agent_enforces_existing_and_new_cgroups() {
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-0"
	agent_start
	expect EPERM in_cg "$SUITE_CGROUP/job-0" "$FSOP" write "$O/zero" x
	mkdir "$SUITE_CGROUP/job-1" "$SUITE_CGROUP/other"
	agent_wait_log "bound $REL/job-1 to policy jobs"
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/one" x
	expect ok in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$W/one" x
	expect ok in_cg "$SUITE_CGROUP/other" "$FSOP" write "$O/other" x
	expect_absent "$O/zero"
	expect_absent "$O/one"
	expect_content "$W/one" x
	wait_line "$EV" "\"path\":\"$O/one\""
	wait_line "$EV" "\"path\":\"$O/zero\""
	expect_events 1 ".op == \"create\" and .path == \"$O/one\" and .policy == \"jobs\" and .cgroup == \"$REL/job-1\""
	expect_events 1 ".path == \"$O/zero\" and .policy == \"jobs\" and .cgroup == \"$REL/job-0\""
	expect_events 2 '.verdict == "deny"'
	agent_stop
}

test_agent_child_of_enforced_cgroup_is_enforced_at_once() {
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job"
	agent_start
	# No wait for the agent: the kernel side inherits the parent's binding.
	mkdir "$SUITE_CGROUP/job/child"
	expect EPERM in_cg "$SUITE_CGROUP/job/child" "$FSOP" write "$O/f" x
	mkdir "$SUITE_CGROUP/job/child/grandchild"
	expect EPERM in_cg "$SUITE_CGROUP/job/child/grandchild" "$FSOP" write "$O/f" x
	expect_absent "$O/f"
	wait_line "$EV" "\"path\":\"$O/f\"" 2
	expect_events 1 ".path == \"$O/f\" and .policy == \"jobs\" and .cgroup == \"$REL/job/child\""
	expect_events 1 ".path == \"$O/f\" and .cgroup == \"$REL/job/child/grandchild\""
	agent_stop
}

# cgward events: the agent's recent lines, then live ones, filtered; root's only.
test_agent_events_follow_receives_a_deny_within_1_s() {
	local follower started status=0
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-1" "$SUITE_CGROUP/job-2"
	agent_start
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/before" x
	wait_line "$EV" "\"path\":\"$O/before\""
	"$CGWARD" events --follow --cgroup "$REL/job-1" --op create >"$T/follow.out" 2>&1 &
	follower=$!
	# A recent line reached it: it is subscribed, later lines come live.
	wait_line "$T/follow.out" "\"path\":\"$O/before\""
	expect EPERM in_cg "$SUITE_CGROUP/job-2" "$FSOP" write "$O/other-cgroup" x
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" mkdir "$O/other-op"
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/live" x
	started=$EPOCHREALTIME
	wait_line "$T/follow.out" "\"path\":\"$O/live\""
	awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 1) }' ||
		fail "the deny took more than 1 s to arrive"
	# In order: had the other two passed the filters, they would be there.
	[ "$(wc -l <"$T/follow.out")" -eq 2 ] || fail "follow printed: $(cat "$T/follow.out")"
	expect 4 sh -c "'$CGWARD' events --verdict deny | grep -c '\"verdict\":\"deny\"'"
	expect_status 2 "$CGWARD" events --verdict allow
	expect_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$CGWARD" events
	agent_stop
	wait "$follower" || status=$?
	[ "$status" -eq 1 ] || fail "the follower exited $status when the agent stopped, want 1"
	grep -q "the agent closed the stream" "$T/follow.out" || fail "$(cat "$T/follow.out")"
}

test_agent_kill_9_keeps_enforcing_and_restart_readopts() {
	local links bpf_links
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-1"
	cgward_ok unload --force # the first agent loads the plane
	agent_start
	grep -q "attached .* programs" "$T/agent.log" || fail "first agent: $(cat "$T/agent.log")"
	links=$(find "$PINS/links" -mindepth 1 | wc -l)
	bpf_links=$(bpftool link show | grep -c '^[0-9]*:')
	[ "$links" -gt 0 ] || fail "no links pinned"
	kill -9 "$AGENT_PID"
	wait "$AGENT_PID" 2>/dev/null || true
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/after-kill" x
	agent_start
	grep -q "adopted the programs" "$T/agent.log" || fail "second agent: $(cat "$T/agent.log")"
	[ "$(find "$PINS/links" -mindepth 1 | wc -l)" -eq "$links" ] || fail "pinned links changed"
	[ "$(bpftool link show | grep -c '^[0-9]*:')" -eq "$bpf_links" ] || fail "links doubled"
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/after-restart" x
	mkdir "$SUITE_CGROUP/job-2"
	agent_wait_log "bound $REL/job-2 to policy jobs"
	expect EPERM in_cg "$SUITE_CGROUP/job-2" "$FSOP" write "$O/new" x
	expect ok in_cg "$SUITE_CGROUP/job-2" "$FSOP" write "$W/new" x
	expect_absent "$O/after-kill"
	expect_absent "$O/after-restart"
	# The deny while no agent ran waited in the pinned ring buffer.
	wait_line "$EV" "\"path\":\"$O/after-kill\""
	wait_line "$EV" "\"path\":\"$O/after-restart\""
	expect_events 1 ".path == \"$O/after-restart\" and .policy == \"jobs\" and .cgroup == \"$REL/job-1\""
	agent_stop
}

test_agent_invalid_policy_on_reload_keeps_the_old_one() {
	local in_force
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	in_force=$(sha256_of "$T/policy.yaml")
	mkdir "$SUITE_CGROUP/job"
	agent_start
	# A change to the file reloads it (IN_CLOSE_WRITE).
	printf 'policies:\n  - name: jobs\n    colour: blue\n' >"$T/policy.yaml"
	wait_line "$EV" '"op":"reload"'
	expect_events 1 ".op == \"reload\" and .result == \"invalid\" and .errors >= 1
		and .sha256 == \"$in_force\" and .rejected_sha256 == \"$(sha256_of "$T/policy.yaml")\"
		and (.plane_abi | type == \"number\") and (.plane_object | test(\"^[0-9a-f]{16}$\"))"
	grep -q "policy.yaml:3:5: error:" "$T/agent.log" || fail "errors: $(cat "$T/agent.log")"
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/f" x
	expect ok in_cg "$SUITE_CGROUP/job" "$FSOP" write "$W/f" x
	expect_absent "$O/f"
	# The same content written again is no change: the next reload is the valid file's.
	cp "$T/policy.yaml" "$T/same.yaml" && cat "$T/same.yaml" >"$T/policy.yaml"
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	wait_line "$EV" '"result":"ok"'
	expect_events 2 '.op == "reload"'
	expect_events 1 ".op == \"reload\" and .result == \"ok\" and .sha256 == \"$in_force\""
	agent_stop
}

# kubelet_write DIR < CONTENT: what the kubelet's atomic writer does to a
# ConfigMap volume DIR holding policy.yaml: the content goes into a new
# ..<timestamp> directory, a ..data_tmp symlink to it is renamed over ..data,
# the old directory is removed; policy.yaml is a symlink to ..data/policy.yaml.
kubelet_write() {
	local dir=$1 old new
	old=$(readlink "$dir/..data") || old=
	new=$(mktemp -d "$dir/..$(date -u +%Y_%m_%d_%H_%M_%S).XXXXXXXXX")
	cat >"$new/policy.yaml"
	ln -s "${new##*/}" "$dir/..data_tmp"
	mv -T "$dir/..data_tmp" "$dir/..data"
	[ -e "$dir/policy.yaml" ] || ln -s ..data/policy.yaml "$dir/policy.yaml"
	if [ -n "$old" ]; then rm -rf "${dir:?}/$old"; fi
}

# A ConfigMap mounted as a volume: the file's own name is in no event of an
# update, and the directory its symlinks resolve to is a new one each time.
test_agent_reloads_a_configmap_volume_updated_by_the_kubelet() {
	local POLICY=$T/volume/policy.yaml
	mkdir "$T/volume" "$SUITE_CGROUP/job"
	agent_policy jobs "$W" false "$REL/job" | kubelet_write "$T/volume"
	agent_start
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/before" x
	agent_policy jobs "$O" false "$REL/job" | kubelet_write "$T/volume"
	wait_line "$EV" '"op":"reload"'
	expect_events 1 ".op == \"reload\" and .result == \"ok\" and .sha256 == \"$(sha256_of "$POLICY")\""
	expect ok in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/after" x
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$W/after" x
	"$CGWARD" status >"$T/status"
	grep -qxF "policy file $POLICY: sha256 $(sha256_of "$POLICY"), 1 rules (ids $(
		sed -n 's/^policy jobs (id \([0-9]*\)).*/\1-\1/p' "$T/status" | tail -n 1))" "$T/status" ||
		fail "status: $(cat "$T/status")"
	# Again, through the directory the first update made.
	agent_policy jobs "$W" false "$REL/job" | kubelet_write "$T/volume"
	wait_line "$EV" '"op":"reload"' 2
	expect_events 2 '.op == "reload" and .result == "ok"'
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/again" x
	expect_absent "$O/before"
	expect_absent "$O/again"
	expect_absent "$W/after"
	agent_stop
}

test_agent_sighup_swaps_roots_under_a_running_writer() {
	local new=$T/new
	mkdir "$new" "$T/alias"
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	# Written through a hard link in another directory, the change is not seen
	# by the file watch: only SIGHUP reloads here.
	ln "$T/policy.yaml" "$T/alias/policy.yaml"
	mkdir "$SUITE_CGROUP/job"
	agent_start
	in_cg "$SUITE_CGROUP/job" sh -c "
		$FSOP write $W/before x; $FSOP write $new/before x
		while [ ! -e $T/go ]; do sleep 0.05; done
		$FSOP write $W/after x; $FSOP write $new/after x" >"$T/writer.out" 2>&1 &
	local writer=$!
	for _ in $(seq 100); do [ "$(wc -l <"$T/writer.out")" -ge 2 ] && break; sleep 0.05; done
	agent_policy jobs "$new" false "$REL/job" >"$T/alias/policy.yaml"
	kill -HUP "$AGENT_PID"
	wait_line "$EV" '"op":"reload"'
	expect_events 1 '.op == "reload" and .result == "ok"'
	touch "$T/go"
	wait "$writer" || true
	[ "$(tr '\n' ' ' <"$T/writer.out")" = "ok EPERM EPERM ok " ] ||
		fail "writer printed: $(cat "$T/writer.out")"
	wait_line "$EV" "\"path\":\"$W/after\""
	expect_events 1 ".path == \"$W/after\" and .policy == \"jobs\""
	expect_events 1 '.op == "reload"'
	agent_stop
}

test_agent_mandatory_policy_also_holds_inside_cgward_exec() {
	agent_policy floor "$W" true "$REL/sel" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/sel"
	agent_start
	# exec's root allows O, the agent's does not: both apply.
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP/sel" --events "$T/exec.ev" \
		--root "$O" -- "$FSOP" write "$O/f" x
	expect_absent "$O/f"
	wait_line "$EV" "\"path\":\"$O/f\""
	expect_events 1 ".path == \"$O/f\" and .policy == \"floor\""
	# Allowed by both.
	mkdir "$W/sub"
	expect ok "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP/sel" --events "$T/exec.ev" \
		--root "$W/sub" -- "$FSOP" write "$W/sub/f" x
	agent_stop
}

test_agent_non_mandatory_policy_gives_way_to_cgward_exec() {
	agent_policy default "$W" false "$REL/sel" "$REL/sel/**" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/sel"
	agent_start
	expect ok "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP/sel" --events "$T/exec.ev" \
		--root "$O" -- "$FSOP" write "$O/f" x
	expect_content "$O/f" x
	# The exec's own boundary applies unchanged: W is outside it.
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP/sel" --events "$T/exec.ev" \
		--root "$O" -- "$FSOP" write "$W/f" x
	expect_absent "$W/f"
	# The selected cgroup itself stays under the agent's policy.
	expect EPERM in_cg "$SUITE_CGROUP/sel" "$FSOP" write "$O/g" x
	agent_stop
	jq -e "select(.path == \"$O/f\")" "$EV" >/dev/null && fail "agent denied exec's write"
	true
}

test_agent_sigterm_keeps_enforcing_status_and_unload() {
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job"
	agent_start
	expect_status 0 "$CGWARD" status >"$T/status"
	grep -q "cgroups bound" "$T/status" || fail "status: $(cat "$T/status")"
	grep -qx "plane: ABI [0-9]*, object [0-9a-f]\{16\} (this cgward's)" "$T/status" ||
		fail "status: $(cat "$T/status")"
	kill -TERM "$AGENT_PID"
	expect_status 0 wait "$AGENT_PID"
	AGENT_PID=
	# What the agent installed stays in force, and named, without it.
	expect_status 0 "$CGWARD" status >"$T/status"
	grep -q "^policy file $T/policy.yaml: sha256 $(sha256_of "$T/policy.yaml"), 1 rules (ids " \
		"$T/status" || fail "status: $(cat "$T/status")"
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/f" x
	# Refused while a cgroup is bound: it would run unenforced.
	expect_status 1 "$CGWARD" agent --unload
	expect EPERM in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/f" x
	expect_status 0 "$CGWARD" agent --unload --force
	[ ! -e "$PINS" ] || fail "$PINS left: $(find "$PINS")"
	expect_status 1 "$CGWARD" status >/dev/null
	expect ok in_cg "$SUITE_CGROUP/job" "$FSOP" write "$O/f" x
}

test_agent_invalid_policy_exits_2_and_loads_nothing() {
	cgward_ok unload --force # an earlier exec's plane
	printf 'policies:\n  - name: x\n    selector: {cgroups: [relative]}\n    write_roots: [%s]\n' \
		"$T/missing" >"$T/policy.yaml"
	expect_status 2 "$CGWARD" agent --policy "$T/policy.yaml" 2>"$T/err"
	[ "$(grep -c "^$T/policy.yaml:[0-9]*:[0-9]*: error: " "$T/err")" -eq 2 ] ||
		fail "errors: $(cat "$T/err")"
	[ ! -e "$PINS" ] || fail "pinned although invalid"
}

# With the agent stopped, 2000 denies of 4 KiB paths overflow the 4 MiB ring
# buffer: the agent reports what it could not read as one "lost" event, and
# delivered plus lost are all of them.
test_agent_ring_buffer_overflow_is_reported_as_lost() {
	local long deep delivered lost
	long=$(printf '%0250d' 0)
	deep=$O
	for _ in $(seq 15); do deep=$deep/$long; done
	mkdir -p "$deep"
	agent_policy jobs "$W" false "$REL/job" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job"
	agent_start
	kill -STOP "$AGENT_PID"
	# shellcheck disable=SC2016 # expanded by the job's shell
	in_cg "$SUITE_CGROUP/job" sh -c '
		cd "$1" && i=0
		while [ $i -lt 2000 ]; do true 2>/dev/null >f; i=$((i + 1)); done' sh "$deep"
	kill -CONT "$AGENT_PID"
	wait_line "$EV" '"op":"lost"'
	expect_events 1 '.op == "lost" and .count > 0'
	expect_absent "$deep/f"
	delivered=$(jq -c 'select(.op == "create")' "$EV" | wc -l)
	lost=$(jq -s 'map(select(.op == "lost") | .count) | add' "$EV")
	[ "$((delivered + lost))" -eq 2000 ] || fail "$delivered delivered + $lost lost, want 2000"
	# The kernel's count does not depend on the ring buffer.
	"$CGWARD" status | grep -q "^policy jobs (id [0-9]*): 1 cgroups bound, 1 roots, 2000 denied" ||
		fail "status: $("$CGWARD" status)"
	agent_stop
}

# cgward status names each rule and counts its denies and audits, in the kernel.
test_agent_status_counts_denies_and_audits_per_policy() {
	{
		agent_policy jobs "$W" false "$REL/job"
		agent_policy watch "$W" false "$REL/watch" | tail -n +2
		printf '    mode: audit\n'
	} >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job" "$SUITE_CGROUP/watch"
	agent_start
	expect "$(lines EPERM EPERM ok)" in_cg "$SUITE_CGROUP/job" sh -c "
		'$FSOP' write '$O/a' x; '$FSOP' mkdir '$O/b'; '$FSOP' write '$W/c' x"
	expect ok in_cg "$SUITE_CGROUP/watch" "$FSOP" write "$O/d" x
	# Audit lets the create through; the open of the file it created is not judged again.
	wait_line "$EV" '"verdict":"audit"' 1
	expect_events 1 ".verdict == \"audit\" and .op == \"create\" and .path == \"$O/d\""
	"$CGWARD" status >"$T/status"
	grep -q "^policy jobs (id [0-9]*): 1 cgroups bound, 1 roots, 2 denied, 0 audited$" \
		"$T/status" || fail "status: $(cat "$T/status")"
	grep -q "^policy watch (id [0-9]*): 1 cgroups bound, 1 roots, 0 denied, 1 audited$" \
		"$T/status" || fail "status: $(cat "$T/status")"
	agent_stop
}
