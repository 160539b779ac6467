# cgward exec --private-tmp (issue 18): the command's own empty /tmp,
# /var/tmp and /dev/shm, writable, gone when the run ends; roots beneath
# /tmp stay at their paths; everything else stays denied.
# shellcheck shell=bash

test_private_tmp_gives_own_empty_writable_dirs() {
	local mounts_before host_marker=/dev/shm/cgward-host-$$
	echo host >"$host_marker"
	echo host >"$T/host-file"
	mounts_before=$(wc -l </proc/self/mountinfo)
	# W lies beneath /tmp (the suite's TEST_TMP): it is bound back at its path.
	expect "$(lines "$(basename "$T")" empty empty ok ok ok ok ok private)" \
		cgx --root "$W" --private-tmp -- sh -c "
		ls -A /tmp; ls -A /var/tmp | grep -q . || echo empty
		[ -e $host_marker ] || echo empty
		$FSOP write /tmp/f x; $FSOP write /var/tmp/g y; $FSOP write /dev/shm/h z
		$FSOP write $W/in-root x; $FSOP mkdir /tmp/d
		[ -e $T/host-file ] || echo private"
	expect_content "$W/in-root" x
	expect_absent /tmp/f
	expect_absent /var/tmp/g
	expect_absent /dev/shm/h
	expect_absent /tmp/d
	expect_content "$host_marker" host
	rm -f "$host_marker"
	# The namespace's mounts never reached this one.
	[ "$(wc -l </proc/self/mountinfo)" -eq "$mounts_before" ] || fail "mounts changed"
	expect_events 0 true
}

# umount needs CAP_SYS_ADMIN: the run keeps every capability, so that the hook denies it.
test_private_tmp_still_denies_outside_and_mounts() {
	local outside=/run/cgward-private-tmp-$$
	expect "$(lines EPERM EPERM EPERM)" cgx --cap-add all --root "$W" --private-tmp -- sh -c "
		$FSOP write $outside x; $HATCHOP mount-tmpfs /tmp; $HATCHOP umount /tmp"
	expect_absent "$outside"
	expect_events 1 ".op == \"create\" and .path == \"$outside\""
	expect_events 1 '.op == "mount" and .reason == "escape_hatch"'
	expect_events 1 '.op == "umount"'
}

test_private_tmp_roots_under_tmp_and_ro_exceptions_keep_their_paths() {
	mkdir "$W/ro"
	echo keep >"$W/ro/file"
	expect "$(lines ok EPERM)" cgx --root "$W" --ro "$W/ro" --private-tmp -- sh -c "
		$FSOP write $W/new x; $FSOP write $W/ro/file changed"
	expect_content "$W/new" x
	expect_content "$W/ro/file" keep
	expect_events 1 ".reason == \"read_only\" and .path == \"$W/ro/file\""
}

test_private_tmp_with_tmp_itself_as_root_is_a_usage_error() {
	expect_status 2 cgx --root /tmp --private-tmp -- touch "$W/ran"
	expect_absent "$W/ran"
}
