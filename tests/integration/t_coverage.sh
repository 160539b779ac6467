# Every write operation the boundary covers: denied outside the roots with
# EPERM from the real syscall, the file system unchanged and one deny event;
# the same operation inside a root succeeds (issue: coverage).
# shellcheck shell=bash

test_create_outside_is_denied_inside_allowed() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP create $O/f; $FSOP create $W/f"
	expect_absent "$O/f"
	[ -f "$W/f" ] || fail "$W/f not created"
	expect_denies "create $O/f"
}

test_mkdir_outside_is_denied_inside_allowed() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP mkdir $O/d; $FSOP mkdir $W/d"
	expect_absent "$O/d"
	[ -d "$W/d" ] || fail "$W/d not created"
	expect_denies "mkdir $O/d"
}

test_rmdir_outside_is_denied_inside_allowed() {
	mkdir "$O/d" "$W/d"
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP rmdir $O/d; $FSOP rmdir $W/d"
	[ -d "$O/d" ] || fail "$O/d removed"
	expect_absent "$W/d"
	expect_denies "rmdir $O/d"
}

test_unlink_outside_is_denied_inside_allowed() {
	echo keep >"$O/f"
	echo gone >"$W/f"
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP unlink $O/f; $FSOP unlink $W/f"
	expect_content "$O/f" keep
	expect_absent "$W/f"
	expect_denies "unlink $O/f"
}

test_mkfifo_outside_is_denied_as_mknod_inside_allowed() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP mkfifo $O/p; $FSOP mkfifo $W/p"
	expect_absent "$O/p"
	[ -p "$W/p" ] || fail "$W/p is not a fifo"
	expect_denies "mknod $O/p"
}

test_symlink_outside_is_denied_inside_allowed() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP symlink /etc/passwd $O/l; $FSOP symlink /etc/passwd $W/l"
	expect_absent "$O/l"
	[ "$(readlink "$W/l")" = /etc/passwd ] || fail "$W/l is not the symlink"
	expect_denies "symlink $O/l"
}

test_link_outside_is_denied_inside_allowed() {
	echo a >"$O/a"
	echo a >"$W/a"
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP link $O/a $O/b; $FSOP link $W/a $W/b"
	expect_absent "$O/b"
	[ "$W/a" -ef "$W/b" ] || fail "$W/b is not a link of $W/a"
	expect_denies "link $O/a $O/b"
}

test_rename_of_a_file_across_the_boundary_is_denied() {
	echo in >"$W/in"
	echo out >"$O/out"
	expect "$(lines EPERM EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP rename $W/in $O/moved; $FSOP rename $O/out $W/moved; $FSOP rename $W/in $W/renamed"
	expect_absent "$O/moved"
	expect_absent "$W/moved"
	expect_absent "$W/in"
	expect_content "$O/out" out
	expect_content "$W/renamed" in
	expect_denies "rename $W/in $O/moved" "rename $O/out $W/moved"
}

test_rename_of_a_directory_across_the_boundary_is_denied() {
	mkdir "$W/in" "$O/out"
	echo in >"$W/in/f"
	echo out >"$O/out/f"
	expect "$(lines EPERM EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP rename $W/in $O/moved; $FSOP rename $O/out $W/moved; $FSOP rename $W/in $W/renamed"
	expect_absent "$O/moved"
	expect_absent "$W/moved"
	expect_content "$O/out/f" out
	expect_content "$W/renamed/f" in
	expect_denies "rename $W/in $O/moved" "rename $O/out $W/moved"
}

test_rename_exchange_across_the_boundary_is_denied() {
	echo a >"$W/a"
	echo b >"$O/b"
	echo c >"$W/c"
	expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP exchange $W/a $O/b; $FSOP exchange $W/a $W/c"
	expect_content "$O/b" b
	expect_content "$W/a" c
	expect_content "$W/c" a
	expect_denies "$(exchange_denied "$W/a" "$O/b")"
}

test_truncate_by_path_outside_is_denied_inside_allowed() {
	echo keep >"$O/f"
	echo gone >"$W/f"
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP truncate $O/f; $FSOP truncate $W/f"
	expect_content "$O/f" keep
	[ ! -s "$W/f" ] || fail "$W/f not truncated"
	expect_denies "truncate $O/f"
}

# Before 6.1 chown is judged by inode_setattr (path_chown cannot be attached),
# which names the path through the working directory's mount, as utimes does.
test_chmod_and_chown_outside_are_denied_as_setattr() {
	echo x >"$O/f"
	echo x >"$W/f"
	chmod 0644 "$O/f" "$W/f"
	echo x >"$O/g"
	echo x >"$W/g"
	chown 1234:1234 "$O/g" "$W/g"
	(cd "$W" && expect "$(lines EPERM ok EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP chmod $O/f; $FSOP chmod $W/f; $FSOP chown $O/g; $FSOP chown $W/g")
	[ "$(stat -c %a "$O/f")" = 644 ] || fail "$O/f mode changed"
	[ "$(stat -c %a "$W/f")" = 600 ] || fail "$W/f mode unchanged"
	[ "$(stat -c %u:%g "$O/g")" = 1234:1234 ] || fail "$O/g owner changed"
	[ "$(stat -c %u:%g "$W/g")" = 0:0 ] || fail "$W/g owner unchanged"
	expect_denies "setattr $O/f" "setattr $O/g"
}

# The inode hooks carry no mount: cgward names the path through the working
# directory's mount, so the command runs where a user would, in its root.
test_utimes_outside_is_denied_as_setattr() {
	echo x >"$O/f"
	echo x >"$W/f"
	touch -d @0 "$O/f" "$W/f"
	(cd "$W" && expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP utimes $O/f; $FSOP utimes $W/f")
	[ "$(stat -c %Y "$O/f")" = 0 ] || fail "$O/f times changed"
	[ "$(stat -c %Y "$W/f")" != 0 ] || fail "$W/f times unchanged"
	expect_denies "setattr $O/f"
}

# removexattr outside the cgroup tells whether the attribute is there.
# trusted.* xattrs (tmpfs has no user.* before 6.6) need CAP_SYS_ADMIN.
test_setxattr_outside_is_denied_inside_allowed() {
	echo x >"$O/f"
	echo x >"$W/f"
	(cd "$W" && expect "$(lines ok EPERM)" cgx --cap-add sys_admin --root "$W" -- \
		sh -c "$FSOP setxattr $W/f; $FSOP setxattr $O/f")
	expect ENODATA "$FSOP" removexattr "$O/f"
	expect ok "$FSOP" removexattr "$W/f"
	expect_denies "setxattr $O/f"
}

test_removexattr_outside_is_denied_inside_allowed() {
	echo x >"$O/f"
	echo x >"$W/f"
	expect ok "$FSOP" setxattr "$O/f"
	expect ok "$FSOP" setxattr "$W/f"
	(cd "$W" && expect "$(lines ok EPERM)" cgx --cap-add sys_admin --root "$W" -- \
		sh -c "$FSOP removexattr $W/f; $FSOP removexattr $O/f")
	expect ok "$FSOP" removexattr "$O/f"
	expect ENODATA "$FSOP" removexattr "$W/f"
	expect_denies "removexattr $O/f"
}

# POSIX ACLs: the xattr hooks decide up to 6.1, their own hooks from 6.2.
test_posix_acl_outside_is_denied_inside_allowed() {
	echo x >"$O/f"
	echo x >"$O/g"
	echo x >"$W/f"
	expect ok "$FSOP" setacl "$O/g"
	(cd "$W" && expect "$(lines ok EPERM EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP setacl $W/f; $FSOP setacl $O/f; $FSOP removeacl $O/g")
	expect ENODATA "$FSOP" hasacl "$O/f"
	expect ok "$FSOP" hasacl "$O/g"
	expect ok "$FSOP" hasacl "$W/f"
	expect_denies "setxattr $O/f" "removexattr $O/g"
}

test_openat2_write_outside_is_denied_inside_allowed() {
	echo keep >"$O/f"
	echo keep >"$W/f"
	expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP openat2-write $O/f; $FSOP openat2-write $W/f"
	expect_content "$O/f" keep
	expect_denies "open_write $O/f"
}

test_reopen_for_write_through_proc_fd_is_denied_inside_allowed() {
	echo keep >"$O/f"
	echo keep >"$W/f"
	expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP reopen-write $O/f; $FSOP reopen-write $W/f"
	expect_content "$O/f" keep
	expect_denies "open_write $O/f"
}

# An O_TMPFILE is named "#<inode>" in its directory.
test_tmpfile_outside_is_denied_inside_allowed() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "$FSOP tmpfile $O; $FSOP tmpfile $W"
	[ -z "$(ls -A "$O")" ] || fail "$O holds $(ls -A "$O")"
	expect_events 1 ".verdict == \"deny\" and .op == \"open_write\"
		and (.path | test(\"^$O/#[0-9]+\$\"))"
	expect_events 1 true
}

test_read_only_exception_denies_writes_beneath_it() {
	mkdir -p "$W/ro/sub"
	echo keep >"$W/ro/existing"
	expect "$(lines EPERM EPERM EPERM EPERM ok)" cgx --root "$W" --ro "$W/ro" -- \
		sh -c "$FSOP write $W/ro/new x; $FSOP append $W/ro/existing x
			$FSOP mkdir $W/ro/sub/d; $FSOP unlink $W/ro/existing; $FSOP write $W/ok x"
	expect_absent "$W/ro/new"
	expect_absent "$W/ro/sub/d"
	expect_content "$W/ro/existing" keep
	expect_content "$W/ok" x
	expect_denies "create $W/ro/new" \
		"open_write $W/ro/existing" \
		"mkdir $W/ro/sub/d" \
		"unlink $W/ro/existing"
	expect_events 4 ".reason == \"read_only\" and .root == \"$W/ro\""
}

test_most_specific_root_wins_inside_a_read_only_exception() {
	mkdir -p "$W/ro/rw"
	expect "$(lines ok EPERM ok)" cgx --root "$W" --ro "$W/ro" --root "$W/ro/rw" -- \
		sh -c "$FSOP write $W/ro/rw/f x; $FSOP write $W/ro/f x; $FSOP mkdir $W/ro/rw/d"
	expect_content "$W/ro/rw/f" x
	[ -d "$W/ro/rw/d" ] || fail "$W/ro/rw/d not created"
	expect_absent "$W/ro/f"
	expect_denies "create $W/ro/f"
	expect_events 1 ".reason == \"read_only\" and .root == \"$W/ro\""
}

test_read_only_directory_itself_cannot_be_removed_or_renamed() {
	local dir
	mkdir "$W/ro" "$W/empty" "$W/other"
	expect "$(lines EPERM EPERM EPERM EPERM)" cgx --root "$W" --ro "$W/ro" -- \
		sh -c "$FSOP rmdir $W/ro; $FSOP rename $W/ro $W/moved
			$FSOP rename $W/empty $W/ro; $FSOP exchange $W/other $W/ro"
	for dir in "$W/ro" "$W/empty" "$W/other"; do
		[ -d "$dir" ] || fail "$dir is gone"
	done
	expect_absent "$W/moved"
	expect_denies "rmdir $W/ro" \
		"rename $W/ro $W/moved" \
		"rename $W/empty $W/ro" \
		"$(exchange_denied "$W/other" "$W/ro")"
	expect_events 4 ".reason == \"read_only\" and .root == \"$W/ro\""
}

test_read_only_outside_any_root_exits_2() {
	mkdir "$O/ro"
	expect_status 2 cgx --root "$W" --ro "$O/ro" -- touch "$T/ran"
	expect_absent "$T/ran"
}

test_audit_mode_allows_and_reports_audit_events() {
	expect "$(lines ok ok)" cgx --audit --root "$W" -- sh -c "$FSOP write $O/f x; $FSOP mkdir $O/d"
	expect_content "$O/f" x
	[ -d "$O/d" ] || fail "$O/d not created"
	expect_events 1 ".verdict == \"audit\" and .op == \"create\" and .path == \"$O/f\""
	expect_events 1 ".verdict == \"audit\" and .op == \"mkdir\" and .path == \"$O/d\""
	expect_events 0 '.verdict != "audit"'
}

test_stat_ls_and_exec_outside_the_roots_are_never_blocked() {
	echo data >"$O/f"
	printf '#!/bin/sh\necho script ran\n' >"$O/script"
	chmod +x "$O/script"
	cp "$FSOP" "$O/fsop"
	expect "$(lines data f fsop script 5 'script ran' ok)" cgx --root "$W" -- \
		sh -c "cat $O/f; ls $O; stat -c %s $O/f; $O/script; $O/fsop open-read $O/f"
	expect_events 0 true
}

# The tests above again, each on an ext4 file system on a loop device, as a
# CI host's or a laptop's disk is: the same verdicts, events and file system
# afterwards as on tmpfs.
test_every_write_above_on_ext4() {
	local mnt=$T/ext4 name failed='' status
	mount_ext4 "$mnt"
	for name in $(sed -n 's/^\(test_[a-z0-9_]*\)() {$/\1/p' "$INTEGRATION/t_coverage.sh"); do
		[ "$name" != "${FUNCNAME[0]}" ] || continue
		status=0
		# In the background, not in a condition, where bash would ignore set -e.
		(set -e && TEST_TMP=$mnt && prepare_test && "$name") >"$mnt/$name.log" 2>&1 &
		wait $! || status=$?
		if [ "$status" -ne 0 ]; then
			failed+=" $name"
			sed 's/^/    /' "$mnt/$name.log"
		fi
	done
	[ -z "$failed" ] || fail "on ext4:$failed"
}
