# Ways to make a file outside the roots writable from inside, or to move a
# root away: each is denied by the kernel and leaves the file system as it
# was. Leaving the cgroup through cgroup.procs is in t_exec.sh.
# shellcheck shell=bash

test_hard_link_from_outside_into_a_root_is_denied() {
	echo keep >"$O/f"
	expect "$(lines EPERM ENOENT EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP link $O/f $W/f; $FSOP append $W/f x; $FSOP append $O/f x"
	expect_absent "$W/f"
	expect_content "$O/f" keep
	[ "$(stat -c %h "$O/f")" = 1 ] || fail "$O/f has $(stat -c %h "$O/f") links"
	expect_denies "link $O/f $W/f" "open_write $O/f"
}

test_rename_of_a_file_from_outside_into_a_root_is_denied() {
	echo keep >"$O/f"
	expect "$(lines EPERM ENOENT)" cgx --root "$W" -- \
		sh -c "$FSOP rename $O/f $W/f; $FSOP append $W/f x"
	expect_absent "$W/f"
	expect_content "$O/f" keep
	expect_denies "rename $O/f $W/f"
}

test_rename_of_a_directory_from_outside_into_a_root_is_denied() {
	mkdir "$O/d"
	echo keep >"$O/d/f"
	expect "$(lines EPERM ENOENT ENOENT)" cgx --root "$W" -- \
		sh -c "$FSOP rename $O/d $W/d; $FSOP append $W/d/f x; $FSOP write $W/d/new x"
	expect_absent "$W/d"
	expect_content "$O/d/f" keep
	expect_absent "$O/d/new"
	expect_denies "rename $O/d $W/d"
}

# The unnamed file is in the root; giving it a name outside is the write.
test_tmpfile_in_a_root_linked_outside_is_denied() {
	expect "$(lines EPERM ok)" cgx --root "$W" -- \
		sh -c "$FSOP tmpfile-link $W $O/f; $FSOP tmpfile-link $W $W/f"
	expect_absent "$O/f"
	[ -f "$W/f" ] || fail "$W/f not linked"
	expect_events 1 ".verdict == \"deny\" and .op == \"link\"
		and (.path | test(\"^$W/#[0-9]+\$\")) and .target == \"$O/f\""
	expect_events 1 true
}

# A root is allowed by identity, not by path: moving it or its parent away
# and putting another directory in its place must not be possible.
test_a_root_and_its_parent_cannot_be_moved_or_removed() {
	expect "$(lines EPERM EPERM EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP rename $T $T.moved; $FSOP rename $W $T/moved-root; $FSOP rmdir $W"
	[ -d "$W" ] || fail "$W is gone"
	expect_absent "$T.moved"
	expect_absent "$T/moved-root"
	expect_denies "rename $T $T.moved" "rename $W $T/moved-root" "rmdir $W"
}
