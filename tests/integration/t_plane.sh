# The resident enforcement plane (issue 14): one set of programs, shared by
# every cgward exec and the agent, that outlives whoever loaded it.
# shellcheck shell=bash

# pinned_links: how many links the plane pinned.
pinned_links() {
	find "$PINS/links" -mindepth 1 | wc -l
}

# run_cgroup PID: the cgroup of the cgward exec whose pid is PID, in the suite's.
run_cgroup() {
	find "$SUITE_CGROUP" -mindepth 1 -maxdepth 1 -name "cgward-$1-*"
}

test_plane_exec_killed_with_sigkill_leaves_its_command_confined() {
	local exec_pid cg policy
	agent_policy nothing "$W" false "$REL/no-such-cgroup" >"$T/policy.yaml"
	agent_start
	# shellcheck disable=SC2016 # expanded by the confined shell
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --root "$W" -- sh -c '
		: >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.05; done
		"$2" write "$3/escaped" x >"$1/result" 2>&1
		: >"$1/done"' sh "$W" "$FSOP" "$O" 2>"$T/exec.err" &
	exec_pid=$!
	wait_file "$W/ready"
	cg=$(run_cgroup "$exec_pid")
	[ -n "$cg" ] || fail "no cgroup for exec $exec_pid"
	kill -9 "$exec_pid"
	wait "$exec_pid" 2>/dev/null || true
	touch "$W/go"
	wait_file "$W/done"
	[ "$(cat "$W/result")" = EPERM ] || fail "after the kill: $(cat "$W/result")"
	expect_absent "$O/escaped"
	# The agent receives every deny of the host, the killed exec's included.
	wait_line "$EV" "\"path\":\"$O/escaped\""
	expect_events 1 ".path == \"$O/escaped\" and .op == \"create\" and .policy == \"exec\""
	policy=$(jq -r "select(.path == \"$O/escaped\") | .cgroup_id" "$EV")
	[ "$policy" = "$(stat -c %i "$cg")" ] || fail "event cgroup_id $policy, cgroup $cg"
	# The command has ended: gc removes its empty cgroup, then its policy.
	for _ in $(seq 200); do grep -q "populated 0" "$cg/cgroup.events" && break; sleep 0.05; done
	"$CGWARD" gc --cgroup-parent "$SUITE_CGROUP" >"$T/gc.out"
	grep -qx "$cg" "$T/gc.out" || fail "gc: $(cat "$T/gc.out")"
	grep -q "^policy [0-9]*$" "$T/gc.out" || fail "gc removed no policy: $(cat "$T/gc.out")"
	expect_absent "$cg"
	"$CGWARD" status | grep -q "^policy exec" && fail "exec policy left: $("$CGWARD" status)"
	agent_stop
}

test_plane_two_first_execs_race_and_one_loads() {
	cgward_ok unload --force
	cgx --root "$W" -- "$FSOP" write "$W/a" x >"$T/a.out" 2>&1 &
	local first=$!
	cgx --root "$W" -- "$FSOP" write "$W/b" x >"$T/b.out" 2>&1 &
	local second=$!
	expect_status 0 wait "$first"
	expect_status 0 wait "$second"
	expect_content "$W/a" x
	expect_content "$W/b" x
	expect_status 0 "$CGWARD" status >/dev/null
	# One set of links: what is pinned is all the kernel has.
	[ "$(bpftool link show | grep -c '^[0-9]*:')" -eq "$(pinned_links)" ] ||
		fail "links: $(bpftool link show | grep -c '^[0-9]*:'), pinned $(pinned_links)"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$O/f" x
}

test_plane_stays_attached_and_execs_add_no_links() {
	local links
	cgward_ok load
	links=$(bpftool link show | grep -c '^[0-9]*:')
	cgx --root "$W" -- sh -c ": >'$W/ready'; while [ ! -e '$W/go' ]; do sleep 0.05; done" &
	local running=$!
	wait_file "$W/ready"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$O/f" x
	[ "$(bpftool link show | grep -c '^[0-9]*:')" -eq "$links" ] || fail "links grew"
	touch "$W/go"
	expect_status 0 wait "$running"
	[ "$(bpftool link show | grep -c '^[0-9]*:')" -eq "$links" ] || fail "links changed"
	# Refused while a cgroup is bound, and not bound once the execs are done.
	expect_status 0 "$CGWARD" unload
	[ ! -e "$PINS" ] || fail "$PINS left: $(find "$PINS")"
}

test_plane_exec_while_an_agent_runs_and_after_it_stops() {
	agent_policy nothing "$W" false "$REL/no-such-cgroup" >"$T/policy.yaml"
	agent_start
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/exec1.ev" \
		--root "$W" -- "$FSOP" write "$O/during" x
	grep -q "\"path\":\"$O/during\".*\"policy\":\"exec\"" "$T/exec1.ev" ||
		fail "exec events: $(cat "$T/exec1.ev")"
	wait_line "$EV" "\"path\":\"$O/during\""
	kill -TERM "$AGENT_PID"
	expect_status 0 wait "$AGENT_PID"
	AGENT_PID=
	expect EPERM "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/exec2.ev" \
		--root "$W" -- "$FSOP" write "$O/after" x
	expect ok "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/exec2.ev" \
		--root "$W" -- "$FSOP" write "$W/after" x
	[ "$(wc -l <"$T/exec2.ev")" -eq 1 ] && grep -q "\"path\":\"$O/after\"" "$T/exec2.ev" ||
		fail "exec events: $(cat "$T/exec2.ev")"
	expect_absent "$O/during"
	expect_absent "$O/after"
	agent_stop
}

test_plane_each_exec_receives_only_its_own_events() {
	local a b
	cgx --root "$W" -- sh -c "
		: >'$W/a.ready'; while [ ! -e '$W/go' ]; do sleep 0.05; done
		for i in 1 2 3; do '$FSOP' write '$O/a\$i' x; done; true" >/dev/null 2>&1 &
	a=$!
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$T/b.ev" --root "$W" -- sh -c "
		: >'$W/b.ready'; while [ ! -e '$W/go' ]; do sleep 0.05; done
		for i in 1 2; do '$FSOP' write '$O/b\$i' x; done; true" >/dev/null 2>&1 &
	b=$!
	wait_file "$W/a.ready"
	wait_file "$W/b.ready"
	touch "$W/go"
	expect_status 0 wait "$a"
	expect_status 0 wait "$b"
	expect_events 3 ".op == \"create\" and (.path | startswith(\"$O/a\"))"
	expect_events 0 "(.path // \"\") | startswith(\"$O/b\")"
	EV=$T/b.ev expect_events 2 ".op == \"create\" and (.path | startswith(\"$O/b\"))"
	EV=$T/b.ev expect_events 0 "(.path // \"\") | startswith(\"$O/a\")"
}

# A plane pinned by another build is never adopted: the command does not run.
test_plane_of_another_build_is_refused_and_nothing_runs() {
	cgward_ok unload --force
	mkdir -p "$PINS/maps"
	bpftool map create "$PINS/maps/cgroup_policy" type hash key 8 value 16 entries 16 \
		name cgroup_policy
	expect_status 125 "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --root "$W" -- \
		touch "$W/ran" 2>"$T/err"
	expect_absent "$W/ran"
	grep -q "has no version.*cgward unload --force" "$T/err" || fail "stderr: $(cat "$T/err")"
	expect_status 125 "$CGWARD" load 2>/dev/null
	expect_status 0 "$CGWARD" unload --force 2>/dev/null
	expect ok cgx --root "$W" -- "$FSOP" write "$W/f" x
}

# The ids of the programs behind the plane's pinned links, sorted. One
# bpftool for all links, -f naming each one's pins: a bpftool and a jq per
# link took 100 s beside a write loop under emulation.
pinned_program_ids() {
	bpftool -j -f link show | jq --arg pins "$PINS/links/" \
		'.[] | select(any(.pinned[]?; startswith($pins))) | .prog_id' | sort -n
}

# program_detached ID: the kernel runs program ID no more, within 10 s (a
# link is released from an RCU callback).
program_detached() {
	for _ in $(seq 100); do
		bpftool prog show id "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	fail "program $1 still loaded"
}

# cgward load of another build of the same map layout (build/other: another
# fast walk) upgrades the plane in place while a run of this build goes on:
# the run's boundary and its own events hold, the old programs are detached,
# a new run of this build adopts the other build's plane as it is, and this
# build's load downgrades it again.
test_plane_of_another_build_is_upgraded_in_place_while_a_run_goes_on() {
	local other=$PWD/build/other/cgward run before after id
	[ -x "$other" ] || fail "no $other: make test-vm builds it"
	cgward_ok load
	before=$(pinned_program_ids)
	# shellcheck disable=SC2016 # expanded by the confined shell
	cgx --root "$W" -- sh -c '
		: >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.05; done
		"$2" write "$3/after" x; "$2" write "$1/after" x' sh "$W" "$FSOP" "$O" >"$T/run.out" &
	run=$!
	wait_file "$W/ready"
	"$other" load 2>"$T/load.err" || fail "load of the other build: $(cat "$T/load.err")"
	grep -q "upgraded in place" "$T/load.err" || fail "load: $(cat "$T/load.err")"
	after=$(pinned_program_ids)
	[ "$(wc -l <<<"$after")" -eq "$(pinned_links)" ] || fail "links: $after"
	# Files, not <(...): bash may close a process substitution's pipe before
	# comm opens /dev/fd/N inside a command substitution (seen on 6.12's run).
	echo "$before" >"$T/programs.before"
	echo "$after" >"$T/programs.after"
	[ -z "$(comm -12 "$T/programs.before" "$T/programs.after")" ] || fail "programs kept: $after"
	for id in $before; do program_detached "$id"; done
	touch "$W/go"
	expect_status 0 wait "$run"
	expect_content "$T/run.out" "$(lines EPERM ok)"
	expect_absent "$O/after"
	expect_denies "create $O/after"
	expect ok cgx --root "$W" -- "$FSOP" write "$W/f" x
	[ "$(pinned_program_ids)" = "$after" ] || fail "a run replaced the other build's programs"
	"$CGWARD" load 2>"$T/load.err" || fail "downgrade: $(cat "$T/load.err")"
	grep -q "upgraded in place" "$T/load.err" || fail "downgrade: $(cat "$T/load.err")"
	expect EPERM cgx --root "$W" -- "$FSOP" write "$O/f" x
	cgward_ok unload --force
}

# policy_info FIELD SELECT: FIELD of the plane's policy_info entries whose
# value matches the jq condition SELECT (.name, .owner_pid, ...).
policy_info() {
	bpftool -j map dump pinned "$PINS/maps/policy_info" |
		jq -r ".[].formatted.value | select($2) | .$1"
}

# loop_count FILE KEY: the count after KEY in writeloop's line in FILE.
loop_count() {
	awk -v key="$2" '{ for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }' "$1"
}

# expect_no_gap FILE: writeloop's counts in FILE: writes inside and outside
# were made, every one outside was denied, none inside was.
expect_no_gap() {
	wait_line "$1" inside_ok
	[ "$(loop_count "$1" outside_ok)" = 0 ] || fail "writes outside went through: $(cat "$1")"
	[ "$(loop_count "$1" inside_denied)" = 0 ] || fail "writes inside denied: $(cat "$1")"
	[ "$(loop_count "$1" other)" = 0 ] || fail "other errors: $(cat "$1")"
	[ "$(loop_count "$1" outside_denied)" -gt 0 ] || fail "no write outside: $(cat "$1")"
	[ "$(loop_count "$1" inside_ok)" -gt 0 ] || fail "no write inside: $(cat "$1")"
}

# within_overlap COUNTED DENIED: COUNTED is DENIED, or a few more. While a
# hook has the old build's program and the new one's attached (from the new
# link's attach to the old one's release, per hook), the kernel runs both:
# a write denied then is denied, counted and reported by each. A handful
# per upgrade; an event missing is never tolerated.
within_overlap() {
	[ "$1" -ge "$2" ] && [ "$1" -le $(($2 + 16)) ]
}

# accounted_denies EVENTS: the denies delivered in EVENTS, plus the losses it
# reports. awk, not jq: a tight loop's events are a million lines, which jq
# takes minutes to read under emulation. A path's quotes are escaped, so
# these keys match only the events' own members.
accounted_denies() {
	awk '/"verdict":"deny"/ { n++ }
		/"op":"lost"/ && match($0, /"count":[0-9]+/) { n += substr($0, RSTART + 8, RLENGTH - 8) }
		END { print n + 0 }' "$1"
}

# cgroup_inherited_from ID: build/relayout's field of cgroup ID's binding.
# The tree's own ABI (bpf/cgward_abi.h); build/relayout's is the next one.
TREE_ABI=$(awk '$2 == "CGWARD_TREE_ABI_VERSION" {print $3}' "$INTEGRATION/../../bpf/cgward_abi.h")

cgroup_inherited_from() {
	bpftool -j map dump pinned "$PINS/maps/cgroup_policy" |
		jq -r ".[].formatted | select(.key == $1) | .value.inherited_from"
}

# A run of this build and a cgroup of the agent's write inside and outside
# their roots in a tight loop while the agent is replaced by another build's
# (which upgrades the plane in place), this build downgrades it again, a
# build of an unmigratable map layout is refused with nothing detached, and
# the agent is replaced by one of a changed map layout (build/relayout),
# which migrates the plane, and which this build then cannot downgrade: no
# write outside goes through, none inside is denied, and every deny the
# kernel made is delivered or reported lost.
test_plane_upgrade_and_downgrade_under_load_open_no_gap() {
	local other=$PWD/build/other/cgward unmigratable=$PWD/build/unmigratable/cgward
	local relayout=$PWD/build/relayout/cgward run run_cg job programs denied
	[ -x "$other" ] && [ -x "$unmigratable" ] && [ -x "$relayout" ] ||
		fail "no $other, $unmigratable or $relayout: make test-vm"
	mkdir "$SUITE_CGROUP/load"
	agent_policy load "$W" false "$REL/load" >"$T/policy.yaml"
	agent_start
	# shellcheck disable=SC2016 # expanded by the confined shell
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --root "$W" --events "$T/run.jsonl" -- \
		sh -c '"$1" "$2/run" "$3/run" "$4/stop"; while [ ! -e "$4/end" ]; do sleep 0.05; done' \
		sh "$WRITELOOP" "$W" "$O" "$T" >"$T/run.counts" &
	run=$!
	in_cg_bg "$SUITE_CGROUP/load" "$WRITELOOP" "$W/job" "$O/job" "$T/stop" >"$T/job.counts"
	job=$!
	wait_file "$W/run"
	wait_file "$W/job"

	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	CGWARD=$other agent_start
	agent_wait_log "upgraded the plane under $PINS in place"
	"$CGWARD" load 2>"$T/load.err" || fail "downgrade: $(cat "$T/load.err")"
	grep -q "upgraded in place" "$T/load.err" || fail "downgrade: $(cat "$T/load.err")"
	programs=$(pinned_program_ids)
	expect_status 125 "$unmigratable" load 2>"$T/load.err"
	grep -q "has a map layout this cgward cannot read (ABI $TREE_ABI," "$T/load.err" ||
		fail "unmigratable: $(cat "$T/load.err")"
	[ "$(pinned_program_ids)" = "$programs" ] || fail "the refused load changed the programs"

	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	CGWARD=$relayout agent_start
	agent_wait_log "upgraded the plane under $PINS in place" 2
	# The run's binding was copied, its new field zero; a cgroup made in it
	# now has the field set by relayout's cgroup_mkdir (in the agent's, the
	# agent binds it again itself).
	run_cg=$(run_cgroup "$run")
	[ "$(cgroup_inherited_from "$(stat -c %i "$run_cg")")" = 0 ] ||
		fail "not migrated: $(bpftool map dump pinned "$PINS/maps/cgroup_policy")"
	mkdir "$run_cg/child"
	[ "$(cgroup_inherited_from "$(stat -c %i "$run_cg/child")")" = "$(stat -c %i "$run_cg")" ] ||
		fail "not relayout's cgroup_mkdir: $(bpftool map dump pinned "$PINS/maps/cgroup_policy")"
	rmdir "$run_cg/child"
	programs=$(pinned_program_ids)
	expect_status 125 "$CGWARD" load 2>"$T/load.err"
	grep -q "has a map layout this cgward cannot read (ABI $((TREE_ABI + 1))," "$T/load.err" ||
		fail "downgrade: $(cat "$T/load.err")"
	[ "$(pinned_program_ids)" = "$programs" ] || fail "the refused downgrade changed the programs"

	touch "$T/stop"
	expect_status 0 wait "$job"
	expect_no_gap "$T/job.counts"
	expect_no_gap "$T/run.counts"
	denied=$(policy_info denied ".owner_pid == $run")
	within_overlap "$denied" "$(loop_count "$T/run.counts" outside_denied)" ||
		fail "the run's denies: kernel $denied, $(cat "$T/run.counts")"
	touch "$T/end"
	expect_status 0 wait "$run"
	[ "$(accounted_denies "$T/run.jsonl")" = "$denied" ] ||
		fail "the run's events: $(accounted_denies "$T/run.jsonl") of $denied"
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	AGENT_PID=
	# The agent's stream has the run's denies too.
	denied=$((denied + $(loop_count "$T/job.counts" outside_denied)))
	within_overlap "$(accounted_denies "$EV")" "$denied" ||
		fail "the agent's events: $(accounted_denies "$EV") of $denied"
	agent_stop
}

# An agent of this build still running when build/relayout migrates the plane
# (cgward load of a new release by hand) would bind new cgroups in maps no
# program reads: at its next new cgroup it exits 1 and says why, and the new
# build's agent binds it. The same after an unload under a running agent.
test_plane_migrated_or_unloaded_under_an_agent_stops_it() {
	local relayout=$PWD/build/relayout/cgward
	[ -x "$relayout" ] || fail "no $relayout: make test-vm"
	cgward_ok unload --force
	agent_policy late "$W" false "$REL/late-*" >"$T/policy.yaml"
	agent_start
	CGWARD=$relayout cgward_ok load
	mkdir "$SUITE_CGROUP/late-1"
	agent_wait_log "is no longer the one this agent writes"
	expect_status 1 wait "$AGENT_PID"
	AGENT_PID=
	CGWARD=$relayout agent_start
	expect EPERM in_cg "$SUITE_CGROUP/late-1" "$FSOP" write "$O/late" x
	expect_absent "$O/late"

	cgward_ok unload --force
	mkdir "$SUITE_CGROUP/late-2"
	agent_wait_log "is no longer the one this agent writes" 2
	expect_status 1 wait "$AGENT_PID"
	AGENT_PID=
	agent_stop
}

# build/relayout's load killed (SIGKILL) half way through its migration, its
# staged maps pinned and some hooks already on its programs: a run bound
# before, and a cgroup made in it then, still write only inside; the next
# load of the same build finishes the migration, staged maps taken over.
test_plane_migration_killed_half_way_is_finished_by_the_next_load() {
	local relayout=$PWD/build/relayout/cgward run run_cg first_link load
	[ -x "$relayout" ] || fail "no $relayout: make test-vm"
	cgward_ok unload --force
	cgward_ok load
	# shellcheck disable=SC2016 # expanded by the confined shell
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --root "$W" --events "$EV" -- \
		sh -c ': >"$1/ready"; while [ ! -e "$1/end" ]; do sleep 0.05; done' sh "$W" &
	run=$! # cgward's own pid, which names the run's cgroup
	wait_file "$W/ready"
	run_cg=$(run_cgroup "$run")
	[ -d "$run_cg" ] || fail "no cgroup of run $run under $SUITE_CGROUP"
	first_link=$(stat -c %i "$PINS/links/cgroup_mkdir")
	"$relayout" load 2>"$T/load.err" &
	load=$!
	# cgroup_mkdir's link is replaced first (a new pin renamed over the old),
	# the other hooks' after it, the staged maps renamed last.
	for _ in $(seq 1200); do
		[ "$(stat -c %i "$PINS/links/cgroup_mkdir")" = "$first_link" ] || break
		sleep 0.05
	done
	kill -KILL "$load"
	wait "$load" || true
	[ "$(stat -c %i "$PINS/links/cgroup_mkdir")" != "$first_link" ] ||
		fail "cgroup_mkdir not replaced within 60 s: $(cat "$T/load.err")"
	[ -e "$PINS/maps/staged-cgroup_policy" ] || fail "the load ended before it was killed"

	mkdir "$run_cg/child"
	expect EPERM in_cg "$run_cg" "$FSOP" write "$O/half" x
	expect EPERM in_cg "$run_cg/child" "$FSOP" write "$O/child" x
	expect ok in_cg "$run_cg/child" "$FSOP" write "$W/child" x
	expect_absent "$O/half"
	expect_absent "$O/child"

	CGWARD=$relayout cgward_ok load
	grep -q "upgraded in place" "$T/cgward.err" || fail "the next load: $(cat "$T/cgward.err")"
	[ -z "$(find "$PINS" -name 'staged-*')" ] || fail "staged pins left: $(find "$PINS" -name 'staged-*')"
	expect EPERM in_cg "$run_cg/child" "$FSOP" write "$O/after" x
	expect ok in_cg "$run_cg" "$FSOP" write "$W/after" x
	expect_absent "$O/after"
	touch "$W/end"
	expect_status 0 wait "$run"
	cgward_ok unload --force
}
