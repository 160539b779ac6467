# Read roots (issue 39): with --read or --read-system, a run may read, list
# and execute only its read roots, its write roots and the system set; on
# tmpfs, ext4 and overlayfs, for files made after the run started, for other
# processes' /proc entries, for root inside and for an ordinary user through
# the agent. The helpers run from $HELPERS, which each run names.
# shellcheck shell=bash

# read_tree DIR: DIR/in and DIR/out, each with a file, a directory and an
# executable true.
read_tree() {
	local side
	for side in in out; do
		mkdir -p "$1/$side/sub"
		echo "$side" >"$1/$side/file"
		cp /bin/true "$1/$side/true"
	done
}

# expect_read_roots DIR: in a run that reads DIR/in (read_tree's), reading,
# listing and executing there work; the same outside are denied, each with
# its event.
expect_read_roots() {
	local d=$1
	expect "$(lines ok ok ok EPERM EPERM EPERM)" cgx --root "$W" --read "$HELPERS" \
		--read "$d/in" -- sh -c "$FSOP open-read $d/in/file; $FSOP open-read $d/in/sub
		$FSOP exec $d/in/true; $FSOP open-read $d/out/file; $FSOP open-read $d/out/sub
		$FSOP exec $d/out/true"
	expect_denies "open_read $d/out/file" "readdir $d/out/sub" "exec $d/out/true"
	expect_events 3 '.reason == "outside_roots" and .root == null'
}

test_read_roots_on_tmpfs() {
	read_tree "$O"
	expect_read_roots "$O"
}

test_read_roots_on_ext4() {
	mount_ext4 "$T/ext4"
	read_tree "$T/ext4"
	expect_read_roots "$T/ext4"
}

# On an overlay, as a container's root file system, the trees in its lower
# layer: overlayfs opens the layers' directories for a listing, and (from
# 6.8) their files for a read, on mounts of its own that no path reaches.
test_read_roots_on_overlayfs() {
	mount_overlay read_tree
	expect_read_roots "$OVERLAY/merged"
}

# A read root is not writable, a write root nested in it is, and a hidden
# path in it is not readable: the most specific entry wins.
test_read_root_is_not_writable_and_nesting_holds() {
	read_tree "$O"
	mkdir "$O/in/ws"
	echo key >"$O/in/sub/key"
	expect "$(lines EPERM ok ok EPERM)" cgx --root "$O/in/ws" --read "$HELPERS" \
		--read "$O/in" --hide "$O/in/sub" -- sh -c "$FSOP write $O/in/file x
		$FSOP write $O/in/ws/new x; $FSOP open-read $O/in/ws/new
		$FSOP open-read $O/in/sub/key"
	expect_content "$O/in/file" in
	expect_events 1 ".op == \"open_write\" and .path == \"$O/in/file\""
	expect_events 1 ".op == \"open_read\" and .reason == \"hidden\""
}

# The kernel judges each open: a file made outside after the run started is
# unreadable too.
test_read_holds_for_a_file_made_after_the_run_started() {
	read_tree "$O"
	cgx --root "$W" --read "$HELPERS" -- sh -c "touch $W/started
		while [ ! -e $W/go ]; do sleep 0.1; done; $FSOP open-read $O/out/later" \
		>"$T/out" &
	wait_file "$W/started"
	echo later >"$O/out/later"
	touch "$W/go"
	wait $! || true
	expect_content "$T/out" EPERM
}

# Another process's environment, memory map and open files are reads of the
# outside; the run's own processes stay readable to each other. /proc
# answers EACCES for a process it may not show.
test_read_other_processes_proc_entries_are_denied() {
	sleep 600 &
	local outside=$!
	# shellcheck disable=SC2064 # the pid is fixed now
	trap "kill $outside" EXIT
	expect "$(lines EACCES EACCES EACCES ok ok)" cgx --root "$W" --read "$HELPERS" -- sh -c "
		$FSOP open-read /proc/$outside/environ; $FSOP open-read /proc/$outside/maps
		$FSOP open-read /proc/$outside/auxv; $FSOP open-read /proc/self/environ
		sleep 600 & inside=\$!; $FSOP open-read /proc/\$inside/environ; kill \$inside"
	expect_events 3 ".op == \"ptrace\" and .reason == \"outside_boundary\" and .target_pid == $outside"
}

# --read-system none: only what the run lists, so a program from /usr runs
# only when /usr is listed; the default set runs it.
test_read_system_none_reads_only_what_is_listed() {
	expect_status 126 cgx --root "$W" --read-system none -- /bin/true 2>"$T/err"
	grep -q "Operation not permitted" "$T/err" || fail "exec denied: $(cat "$T/err")"
	expect_events 1 '.op == "exec" and .path == "/usr/bin/true"'
	expect_status 0 cgx --root "$W" --read-system none --read /usr -- /bin/true
	expect_status 0 cgx --root "$W" --read-system default -- /bin/true
}

# A run whose reads are confined reads its own cgroup, where its limits are
# that runtimes size themselves by (a JVM's heap, Node's constrainedMemory:
# with memory.max unreadable, each took the VM's whole memory), and no other.
test_read_confined_run_reads_its_own_cgroup_only() {
	mkdir "$SUITE_CGROUP/other"
	# shellcheck disable=SC2016 # expanded by the confined shell
	expect "$(lines 67108864 EPERM)" cgx --root "$W" --read "$HELPERS" --memory 64 -- sh -c \
		'cat "$1$(sed -n "s/^0:://p" /proc/self/cgroup)/memory.max"; "$2" open-read "$3"' \
		sh "$CG2" "$FSOP" "$SUITE_CGROUP/other/cgroup.procs"
	expect_denies "open_read $SUITE_CGROUP/other/cgroup.procs"
	rmdir "$SUITE_CGROUP/other"
}

# Root inside reads another user's private file only through a read root.
test_read_root_inside_cannot_read_outside() {
	read_tree "$O"
	chmod 0600 "$O/out/file"
	expect "$(lines EPERM)" cgx --root "$W" --read "$HELPERS" --cap-add all -- \
		"$FSOP" open-read "$O/out/file"
}

# The tools an agent runs work with the system set, and git with its
# configuration file as a read root: a file that exists but may not be read
# stops git ("unknown error occurred while reading the configuration
# files"), where a fresh mount namespace would show none.
test_read_real_tools_work_with_the_system_set() {
	tools_lower "$T/tools"
	mkdir "$T/home"
	printf '[init]\n\tdefaultBranch = main\n' >"$T/home/.gitconfig"
	HOME=$T/home real_tools_work_in "$T/tools/ws" --read-system default \
		--read "$T/home/.gitconfig"
}

# What --read refuses, with exit 2 and the reason, running nothing.
test_read_bad_paths_exit_2_and_run_nothing() {
	local arg
	read_tree "$O"
	ln -s "$O/in" "$O/link"
	for arg in relative/path "$O/missing" / "$O/link"; do
		expect_status 2 cgx --root "$W" --read "$arg" -- touch "$W/ran" 2>"$T/err"
		[ -s "$T/err" ] || fail "--read $arg: no reason given"
	done
	expect_status 2 cgx --root "$W" --read "$O/in/sub" --hide "$O/in" -- touch "$W/ran" \
		2>"$T/err"
	grep -q "inside --hide '$O/in'" "$T/err" || fail "a read root inside a hidden tree: $(cat "$T/err")"
	expect_status 2 cgx --root "$W" --read-system some -- touch "$W/ran" 2>"$T/err"
	grep -q "default or none" "$T/err" || fail "--read-system some: $(cat "$T/err")"
	expect_absent "$W/ran"
}

# An ordinary user's run through the agent's exec socket: the user confines
# the reads of a run that could otherwise read its whole home (its own
# cgroup stays readable, as root's run's).
test_read_through_the_agent_for_an_ordinary_user() {
	user_dirs
	user_agent_start
	read_tree "$UO"
	chown -R "$USER_UID:$USER_UID" "$UO"
	expect "$(lines ok EPERM ok ok)" as_user "$CGWARD" exec --root "$UW" --read "$HELPERS" \
		--read "$UO/in" --events "$UW/events.jsonl" -- \
		sh -c "$FSOP open-read $UO/in/file; $FSOP open-read $UO/out/file
		       $FSOP open-read $UW
		       $FSOP open-read $CG2\$(sed -n 's/^0:://p' /proc/self/cgroup)/cgroup.procs"
	jq -s -e "any(.[]; .op == \"open_read\" and .path == \"$UO/out/file\")" \
		"$UW/events.jsonl" >/dev/null || fail "the run's deny: $(cat "$UW/events.jsonl")"
	wait_line "$AEV" '"op":"exec_request"'
	jq -s -e "any(.[]; .op == \"exec_request\" and (.read | index(\"$UO/in\")) and
		(.read | index(\"/usr\")))" "$AEV" >/dev/null ||
		fail "the request's read roots in the agent's events: $(cat "$AEV")"
}

# An agent rule's read_roots and hide: its cgroup's processes read only its
# roots and the system set, and nothing it hides; as a mandatory rule, in a
# cgward exec run beneath it too, which confines and hides nothing itself.
test_read_roots_and_hides_of_a_mandatory_agent_rule_hold_in_cgward_exec_beneath() {
	local reads
	read_tree "$O"
	mkdir "$O/in/secret"
	echo key >"$O/in/secret/key"
	{
		agent_policy floor "$W" true "$REL/sel"
		printf '    read_roots: [%s, %s]\n    hide: [%s]\n' "$O/in" "$HELPERS" "$O/in/secret"
	} >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/sel"
	agent_start
	reads="$FSOP open-read $O/in/file; $FSOP open-read $O/out/file
		$FSOP open-read $O/in/secret/key"
	expect "$(lines ok EPERM EPERM)" in_cg "$SUITE_CGROUP/sel" sh -c "$reads"
	expect "$(lines ok EPERM EPERM)" "$CGWARD" exec --cgroup-parent "$SUITE_CGROUP/sel" \
		--events "$T/exec.ev" --root "$W" -- sh -c "$reads"
	wait_line "$EV" "\"path\":\"$O/in/secret/key\"" 2
	expect_events 2 ".op == \"open_read\" and .reason == \"outside_roots\" and .policy == \"floor\""
	expect_events 2 ".op == \"open_read\" and .reason == \"hidden\" and .policy == \"floor\""
	agent_stop
}

# --learn audits what a run reads and writes outside its roots, lets it all
# happen, and proposes the roots: the same command run with the proposal
# is denied nothing.
test_read_learn_proposes_roots_that_run_with_no_deny() {
	local script proposal
	read_tree "$O"
	script="cat $O/in/file; ls $O/out/sub; echo x >$O/out/new; cat $W/mine"
	echo mine >"$W/mine"
	cgx --learn --root "$W" -- sh -c "$script" >"$T/out" 2>"$T/learn" ||
		fail "the learning run: $(cat "$T/learn")"
	expect_content "$T/out" "$(lines in mine)"
	expect_content "$O/out/new" x
	proposal=$(sed -n 2p "$T/learn")
	[ "$proposal" = "  --root $W --root $O/out --read $O/in --read-system default" ] ||
		fail "proposal: $(cat "$T/learn")"
	grep -q "    write_roots: \[$W, $O/out\]" "$T/learn" || fail "rule: $(cat "$T/learn")"
	expect_events 3 '.verdict == "audit"'
	rm "$O/out/new"
	: >"$EV"
	# shellcheck disable=SC2086 # the proposal's options, split into words
	expect "$(lines in mine)" cgx $proposal -- sh -c "$script"
	expect_events 0 true
	expect_content "$O/out/new" x
}

# An ordinary user's --learn through the agent's exec socket.
test_read_learn_through_the_agent_for_an_ordinary_user() {
	user_dirs
	user_agent_start
	read_tree "$UO"
	chown -R "$USER_UID:$USER_UID" "$UO"
	as_user "$CGWARD" exec --learn --root "$UW" -- cat "$UO/in/file" >"$T/out" 2>"$T/learn" ||
		fail "the learning run: $(cat "$T/learn")"
	expect_content "$T/out" in
	grep -qx -- "  --root $UW --read $UO/in --read-system default" "$T/learn" ||
		fail "proposal: $(cat "$T/learn")"
}

# Real tools under the roots --learn proposes: gcc, make, git, and pip
# installing a local package into a venv whose interpreter is a chain of
# links (venv/bin/python -> python3 -> /usr/bin/python3), both outside the
# write root (under /run: the private /tmp would hide them). Run again with
# the proposal, on the same state, they are denied nothing.
test_read_learn_proposal_runs_real_tools() {
	local proposal script v
	v=$(mktemp -d /run/cgward-learn.XXXXXX)
	# shellcheck disable=SC2064 # the directory is fixed now
	trap "rm -rf '$v'" EXIT
	tools_lower "$T/tools"
	mkdir -p "$v/pkg/demo" "$T/home"
	printf 'from setuptools import setup\nsetup(name="demo", version="1.0", packages=["demo"])\n' \
		>"$v/pkg/setup.py"
	echo 'X = 1' >"$v/pkg/demo/__init__.py"
	/usr/bin/python3 -m venv --system-site-packages "$v/venv"
	script="cd $T/tools/ws && rm -rf r && gcc -o hello hello.c && ./hello && make -s && echo made
		git init -q r && cd r && echo a >a && git add a &&
		git -c user.name=t -c user.email=t@example.org commit -qm m && echo git
		$v/venv/bin/python -m pip install -q --no-index --no-build-isolation $v/pkg
		$v/venv/bin/python -c 'import demo; print(demo.X)'"
	HOME=$T/home PIP_NO_CACHE_DIR=1 cgx --learn --private-tmp --root "$T/tools/ws" -- \
		sh -ec "$script" >"$T/out" 2>"$T/learn" || fail "the learning run: $(cat "$T/learn")"
	expect_content "$T/out" "$(lines hello made git 1)"
	proposal=$(sed -n 2p "$T/learn")
	# What the install made, undone (pip uninstall costs half a minute under emulation).
	rm -rf "$v"/venv/lib/python3*/site-packages/demo* "$v/pkg/build" "$v/pkg/demo.egg-info" \
		"$T/tools/ws/out.txt"
	: >"$EV"
	# shellcheck disable=SC2086 # the proposal's options, split into words
	HOME=$T/home PIP_NO_CACHE_DIR=1 cgx --private-tmp $proposal -- sh -ec "$script" \
		>"$T/out" 2>"$T/err" || fail "with '$proposal': $(cat "$T/err"; cat "$T/learn")"
	expect_content "$T/out" "$(lines hello made git 1)"
	expect_events 0 true
}
