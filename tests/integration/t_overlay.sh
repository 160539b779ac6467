# Stacked file systems (issue 18): a root inside an overlayfs merged
# directory, as in a container's root file system. Every write inside works,
# copy-up of lower-layer files included; the same writes outside the root on
# the same overlay, and the layers written by their own paths, are denied.
# shellcheck shell=bash

OVERLAY_FIXTURE=${here:?}/overlay-lower

# overlay_lower DIR: the lower-layer files overlay_ops writes, in DIR/in and DIR/out
# (tests/integration/overlay-lower/ is the same tree, committed).
overlay_lower() {
	local side name
	for side in in out; do
		mkdir -p "$1/$side/sub"
		for name in append write trunc utimes chmod chown xattr rename link unlink sub/deep; do
			printf 'lower\n' >"$1/$side/$name"
		done
	done
}

# overlay_ops DIR: a shell script of one fsop per operation on DIR's lower files
# (its trusted.* xattr needs CAP_SYS_ADMIN, which the runs add).
overlay_ops() {
	local d=$1
	echo "$FSOP append $d/append more; $FSOP append $d/sub/deep more
		$FSOP write $d/write new; $FSOP write $d/created new; $FSOP truncate $d/trunc
		$FSOP utimes $d/utimes; $FSOP chmod $d/chmod; $FSOP chown $d/chown
		$FSOP setxattr $d/xattr; $FSOP rename $d/rename $d/renamed
		$FSOP link $d/link $d/linked; $FSOP unlink $d/unlink; $FSOP mkdir $d/newdir"
}

mtime_of() {
	stat -c %y "$1"
}

# overlay_inside_works IN: every write inside the root IN works, copy-ups included.
overlay_inside_works() {
	local in=$1 utimes_before
	utimes_before=$(mtime_of "$in/utimes")
	expect "$(lines ok ok ok ok ok ok ok ok ok ok ok ok ok)" \
		cgx --cap-add sys_admin --root "$in" -- sh -c "$(overlay_ops "$in")"
	expect_events 0 true
	expect_content "$in/append" "$(printf 'lower\nmore')"
	expect_content "$in/sub/deep" "$(printf 'lower\nmore')"
	expect_content "$in/write" new
	expect_content "$in/created" new
	expect_content "$in/trunc" ""
	[ "$(mtime_of "$in/utimes")" != "$utimes_before" ] || fail "utimes changed nothing"
	[ "$(stat -c %a "$in/chmod")" = 600 ] || fail "chmod: mode $(stat -c %a "$in/chmod")"
	expect_absent "$in/rename"
	expect_content "$in/renamed" lower
	expect_content "$in/linked" lower
	expect_absent "$in/unlink"
	[ -d "$in/newdir" ] || fail "mkdir made no $in/newdir"
}

# overlay_copy_up_denied IN: where overlayfs' own writes are not recognized
# (cgward doctor), each write inside IN needs a copy-up of IN itself, which
# is denied with an event: closed, and nothing changes.
overlay_copy_up_denied() {
	local in=$1 name denies
	expect "$(lines EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM)" \
		cgx --cap-add sys_admin --root "$in" -- sh -c "$(overlay_ops "$in")"
	denies=$(jq -s 'map(select(.verdict == "deny" and .reason == "outside_roots")) | length' "$EV")
	[ "$denies" -ge 13 ] || fail "$denies denies for 13 copy-ups: $(cat "$EV")"
	for name in append sub/deep write trunc utimes chmod chown xattr rename link unlink; do
		expect_content "$in/$name" lower
	done
	expect_absent "$in/created"
	expect_absent "$in/newdir"
	: >"$EV"
}

# overlay_check MERGED: the writes inside MERGED/in work (or, where the
# kernel cannot tell overlayfs' own work, are denied whole), those in
# MERGED/out are denied and leave every file as it was.
overlay_check() {
	local in=$1/in out=$1/out utimes_before
	if [ "$OVERLAY_RECOGNIZED" = yes ]; then
		overlay_inside_works "$in"
	else
		overlay_copy_up_denied "$in"
	fi

	utimes_before=$(mtime_of "$out/utimes")
	expect "$(lines EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM)" \
		cgx --cap-add sys_admin --root "$in" -- sh -c "$(overlay_ops "$out")"
	# utimes names its path from the overlay's root when the task's
	# directories are on another file system (see guess_mount). O_CREAT of
	# the existing out/write is judged as a create, then as an open.
	expect_events 14 '.verdict == "deny"'
	expect_events 13 '.op != "create" or (.path | endswith("/out/created"))'
	expect_events 0 '(.path | endswith("/in/")) or (.path | contains("/in/"))'
	for name in append sub/deep write trunc utimes chmod chown xattr rename link unlink; do
		expect_content "$out/$name" lower
	done
	[ "$(mtime_of "$out/utimes")" = "$utimes_before" ] || fail "utimes changed $out/utimes"
	[ "$(stat -c %a "$out/chmod")" = 644 ] || fail "chmod: mode $(stat -c %a "$out/chmod")"
	expect_absent "$out/created"
	expect_absent "$out/renamed"
	expect_absent "$out/linked"
	expect_absent "$out/newdir"
}

test_overlay_on_tmpfs_writes_inside_root_and_denies_outside_and_layers() {
	local o=$T/ovl
	mkdir -p "$o/lower" "$o/upper" "$o/work" "$o/merged"
	overlay_lower "$o/lower"
	echo upper >"$o/upper/upper-only"
	# A lower file with an xattr: copy-up copies it with vfs_setxattr.
	"$FSOP" setxattr "$o/lower/in/append" >/dev/null
	mount -t overlay -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" overlay "$o/merged"
	trap "umount '$o/merged'" EXIT
	overlay_check "$o/merged"
	if [ "$OVERLAY_RECOGNIZED" = yes ]; then
		expect ok "$FSOP" open-read "$o/upper/in/append"
	else
		expect_absent "$o/upper/in"
	fi
	# Nothing outside the root was copied up.
	expect_absent "$o/upper/out"

	# The layers by their own paths are outside the root.
	: >"$EV"
	expect "$(lines EPERM EPERM EPERM EPERM EPERM)" cgx --root "$o/merged/in" -- sh -c "
		$FSOP append $o/lower/in/write more; $FSOP write $o/upper/new x
		$FSOP append $o/upper/upper-only more; $FSOP utimes $o/upper/upper-only
		$FSOP setxattr $o/upper/upper-only"
	expect_content "$o/lower/in/write" lower
	expect_absent "$o/upper/new"
	expect_content "$o/upper/upper-only" upper
	expect_events 5 '.verdict == "deny"'
}

# The VM's own root is an overlay (lower: the host over 9p, upper: a tmpfs),
# where the committed tree is a lower layer. Only there: elsewhere the test
# would write to the checkout.
test_overlay_of_the_vm_root_writes_inside_root_and_denies_outside() {
	if [ ! -d /run/cgward-vm ] || [ "$(stat -f -c %T "$OVERLAY_FIXTURE")" != overlayfs ]; then
		echo "not in the test VM's overlay root: skipped"
		return 0
	fi
	overlay_check "$OVERLAY_FIXTURE"
}
