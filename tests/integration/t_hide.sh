# Hidden paths (issue 39): --hide PATH denies reading, listing and
# executing a file or tree, and writing it, whatever root it is in; for root
# inside, on tmpfs, ext4 and overlayfs, through io_uring, for files made
# after the run started, and for an ordinary user through the agent.
# shellcheck shell=bash

# hide_tree DIR: DIR/secret (key, sub/, an executable true) and DIR/open/file.
hide_tree() {
	mkdir -p "$1/secret/sub" "$1/open"
	echo key >"$1/secret/key"
	cp /bin/true "$1/secret/true"
	echo open >"$1/open/file"
}

# expect_hidden DIR: in a run that hides DIR/secret (hide_tree's),
# reading, listing and executing in it are denied, each with its event;
# DIR/open stays readable.
expect_hidden() {
	local d=$1
	expect "$(lines EPERM EPERM EPERM EPERM ok ok)" cgx --root "$W" --hide "$d/secret" -- \
		sh -c "$FSOP open-read $d/secret/key; $FSOP open-read $d/secret/sub
		       $FSOP exec $d/secret/true; $HATCHOP uring-open-read $d/secret/key
		       $FSOP open-read $d/open/file; $FSOP exec /bin/true"
	expect_denies "open_read $d/secret/key" "readdir $d/secret/sub" "exec $d/secret/true" \
		"open_read $d/secret/key"
	expect_events 4 '.reason == "hidden"'
}

test_hide_denies_reads_listing_and_exec_on_tmpfs() {
	hide_tree "$O"
	expect_hidden "$O"
}

test_hide_denies_reads_listing_and_exec_on_ext4() {
	mount_ext4 "$T/ext4"
	hide_tree "$T/ext4"
	expect_hidden "$T/ext4"
}

# On an overlay, as a container's root file system: the hidden tree in its
# lower layer.
test_hide_denies_reads_listing_and_exec_on_overlayfs() {
	mount_overlay hide_tree
	expect_hidden "$OVERLAY/merged"
}

# Real tools see the same: cat, ls and a shell's exec fail; the command's
# own stderr says why.
test_hide_real_tools_are_denied() {
	hide_tree "$O"
	cgx --root "$W" --hide "$O/secret" -- sh -c "cat $O/secret/key; ls $O/secret; $O/secret/true
		cat $O/open/file" >"$T/out" 2>"$T/err" || true
	expect_content "$T/out" open
	[ "$(grep -c "Operation not permitted" "$T/err")" -eq 3 ] || fail "stderr: $(cat "$T/err")"
	# A pipe has no path either, and is no file handle's: reopened, it stays readable.
	expect piped sh -c "printf piped | $CGWARD exec --cgroup-parent $SUITE_CGROUP \
		--events $EV --root $W --hide $O/secret -- cat /proc/self/fd/0"
}

# A file made in the hidden tree after the run started is hidden too: the
# kernel judges each open, not a list made at the start.
test_hide_holds_for_a_file_made_after_the_run_started() {
	hide_tree "$O"
	cgx --root "$W" --hide "$O/secret" -- sh -c "touch $W/started
		while [ ! -e $W/go ]; do sleep 0.1; done; $FSOP open-read $O/secret/sub/later" \
		>"$T/out" &
	wait_file "$W/started"
	echo later >"$O/secret/sub/later"
	touch "$W/go"
	wait $! || true
	expect_content "$T/out" EPERM
}

# A hidden tree inside a write root: neither readable nor writable, and it
# cannot be moved, linked or removed out of hiding; the rest of the root is
# writable.
test_hide_inside_a_write_root_is_neither_readable_nor_writable() {
	hide_tree "$W"
	expect "$(lines EPERM EPERM EPERM EPERM EPERM EPERM EPERM ok)" \
		cgx --root "$W" --hide "$W/secret" -- sh -c "
		$FSOP open-read $W/secret/key; $FSOP write $W/secret/key x
		$FSOP write $W/secret/new x; $FSOP unlink $W/secret/key
		$FSOP rename $W/secret $W/moved; $FSOP link $W/secret/key $W/linked
		$FSOP rmdir $W/secret/sub; $FSOP write $W/open/file changed"
	expect_content "$W/secret/key" key
	expect_absent "$W/secret/new"
	expect_absent "$W/moved"
	expect_absent "$W/linked"
	expect_content "$W/open/file" changed
}

# One file: its siblings stay readable.
test_hide_a_single_file() {
	hide_tree "$O"
	echo sibling >"$O/secret/sibling"
	expect "$(lines EPERM ok)" cgx --root "$W" --hide "$O/secret/key" -- \
		sh -c "$FSOP open-read $O/secret/key; $FSOP open-read $O/secret/sibling"
	expect_denies "open_read $O/secret/key"
}

# What --hide refuses, with exit 2 and the reason, running nothing.
test_hide_bad_paths_exit_2_and_run_nothing() {
	local arg
	hide_tree "$O"
	ln -s "$O/secret" "$O/link"
	for arg in relative/path "$O/missing" / "$O/link" "$W"; do
		expect_status 2 cgx --root "$W" --hide "$arg" -- touch "$W/ran" 2>"$T/err"
		[ -s "$T/err" ] || fail "--hide $arg: no reason given"
	done
	expect_status 2 cgx --root "$O/secret/sub" --hide "$O/secret" -- touch "$W/ran" 2>"$T/err"
	grep -q "inside --hide '$O/secret'" "$T/err" || fail "a root inside a hidden tree: $(cat "$T/err")"
	expect_absent "$W/ran"
}

# An ordinary user's run through the agent's exec socket: the user hides a
# tree it could read itself.
test_hide_through_the_agent_for_an_ordinary_user() {
	user_dirs
	user_agent_start
	hide_tree "$UO"
	expect ok as_user "$FSOP" open-read "$UO/secret/key"
	expect "$(lines EPERM EPERM ok)" as_user "$CGWARD" exec --root "$UW" --hide "$UO/secret" \
		--events "$UW/events.jsonl" -- \
		sh -c "$FSOP open-read $UO/secret/key; $FSOP exec $UO/secret/true
		       $FSOP open-read $UO/open/file"
	wait_line "$AEV" '"op":"exec_request"'
	jq -s -e "any(.[]; .op == \"exec_request\" and .hide == [\"$UO/secret\"])" "$AEV" \
		>/dev/null || fail "the request's hidden paths in the agent's events: $(cat "$AEV")"
}

# Other names of the same directories: /proc/self/root, and a bind mount of
# the hidden tree made in a user namespace of the run's own (mounts there
# are allowed): the walk goes up from the file's own directories.
test_hide_holds_by_other_names_of_the_tree() {
	hide_tree "$O"
	mkdir "$W/bound"
	expect "$(lines EPERM EPERM)" cgx --root "$W" --hide "$O/secret" -- sh -c "
		$FSOP open-read /proc/self/root$O/secret/key
		unshare -Urm sh -c 'mount --bind $O/secret $W/bound && $FSOP open-read $W/bound/key'"
}

# With --private-tmp: a hidden tree under /tmp outside the roots is gone
# with the host's /tmp (the suite's trees are there unless TMPDIR says
# otherwise); one inside a root brought back stays hidden.
test_hide_with_private_tmp() {
	local outside=EPERM
	[[ $O != /tmp/* && $O != /var/tmp/* ]] || outside=ENOENT
	hide_tree "$W"
	hide_tree "$O"
	expect "$(lines EPERM "$outside" ok)" cgx --root "$W" --private-tmp --hide "$W/secret" \
		--hide "$O/secret" -- sh -c "$FSOP open-read $W/secret/key
		$FSOP open-read $O/secret/key; $FSOP open-read $W/open/file"
}

# Root inside keeps CAP_DAC_READ_SEARCH: a hidden file opened by its handle
# once its dentry is out of the cache has no path up to the hidden tree (a
# disconnected dentry, ext4's d_obtain_alias). Its read is denied all the
# same: the walk cannot tell where the file lies.
test_hide_holds_for_a_file_opened_by_its_handle() {
	mount_ext4 "$T/ext4"
	hide_tree "$T/ext4"
	cgx --root "$W" --hide "$T/ext4/secret" -- \
		"$HATCHOP" handle-read "$T/ext4" "$T/ext4/secret/key" "$W" >"$T/out" &
	wait_file "$W/taken"
	sync
	echo 2 >/proc/sys/vm/drop_caches
	touch "$W/go"
	wait $! || true
	expect_content "$T/out" EPERM
	expect_events 1 '.op == "open_read" and .reason == "disconnected"'
}
