# Devices, file system ioctls and terminals (issue 27). A device node opens
# everything behind it, so a root process inside a boundary may make no
# device node, even inside its roots, open no device for writing but the
# harmless ones and those --allow-dev names, and give a device no ioctl but
# the few the VFS answers itself; file system ioctls that act beyond the
# file, and input pushed into a terminal, are denied. Each test shows the
# same call working from outside, so that it would fail on a kernel side
# without the rule. The runs keep every capability (--cap-add all), as a
# workload given SYS_RAWIO or LINUX_IMMUTABLE would: these rules hold
# without the capability set's help.
# shellcheck shell=bash

# A loop device over a file of the test's own, detached when the test ends:
# its node in LOOP, its numbers as MAJOR:MINOR in LOOP_NUMBERS.
attach_loop() {
	load_loop_driver
	truncate -s 4M "$T/disk.img"
	LOOP=$(losetup -f --show "$T/disk.img")
	trap 'losetup -d "$LOOP"' EXIT
	LOOP_NUMBERS=$(printf '%d:%d' "0x$(stat -c %t "$LOOP")" "0x$(stat -c %T "$LOOP")")
}

test_device_nodes_cannot_be_made_even_inside_a_root() {
	expect "$(lines EPERM EPERM ok ok)" cgx --cap-add all --root "$W" -- sh -c "
		$HATCHOP mknod $W/disk b 7:0; $HATCHOP mknod $W/mem c 1:1
		$HATCHOP mknod $W/whiteout c 0:0; $FSOP mkfifo $W/fifo"
	expect_absent "$W/disk"
	expect_absent "$W/mem"
	[ -c "$W/whiteout" ] || fail "the whiteout (0:0) was not made"
	expect_denies "mknod $W/disk" "mknod $W/mem"
	expect_events 2 '.reason == "device"'
	expect ok "$HATCHOP" mknod "$O/disk" b 7:0
}

test_block_devices_cannot_be_opened_for_writing_wherever_the_node_is() {
	attach_loop
	mknod "$W/disk" b "${LOOP_NUMBERS%:*}" "${LOOP_NUMBERS#*:}"
	expect "$(lines EPERM EPERM ok)" cgx --cap-add all --root "$W" -- sh -c \
		"$FSOP open-write $W/disk; $FSOP open-write $LOOP; $FSOP open-read $W/disk"
	expect_denies "open_write $W/disk" "open_write $LOOP"
	expect_events 2 '.reason == "device"'
	expect ok "$FSOP" open-write "$W/disk"
	expect ok cgx --cap-add all --root "$W" --allow-dev "$LOOP" -- "$FSOP" open-write "$W/disk"
}

test_char_devices_but_the_harmless_ones_are_not_opened_for_writing() {
	expect "$(lines EPERM ok ok ok ok)" cgx --cap-add all --root "$W" -- sh -c "
		$FSOP open-write /dev/kmsg; $FSOP open-read /dev/kmsg
		$FSOP open-write /dev/null; $FSOP open-write /dev/urandom; $FSOP open-write /dev/ptmx"
	expect_denies "open_write /dev/kmsg"
	expect_events 1 '.reason == "device"'
	expect ok cgx --cap-add all --root "$W" --allow-dev /dev/kmsg -- "$FSOP" open-write /dev/kmsg
	expect_events 1 true
}

# LOOP_CTL_GET_FREE (0x4C82) needs only a read-only descriptor: with it, and
# LOOP_SET_FD on a loop device, a root could attach any file it can read.
test_device_ioctls_are_denied_unless_the_device_is_allowed() {
	load_loop_driver
	expect "$(lines EPERM ok ok)" cgx --cap-add all --root "$W" -- sh -c "
		$HATCHOP ioctl /dev/loop-control 0x4C82; $HATCHOP ioctl /dev/loop-control 0x5451
		$HATCHOP ioctl /dev/urandom 0x80045200"
	expect_events 1 '.op == "ioctl" and .path == "/dev/loop-control" and .ioctl_cmd == 19586
		and .reason == "device"'
	expect_events 1 true
	expect ok "$HATCHOP" ioctl /dev/loop-control 0x4C82
	expect ok cgx --cap-add all --root "$W" --allow-dev /dev/loop-control -- \
		"$HATCHOP" ioctl /dev/loop-control 0x4C82
	expect_status 2 cgx --cap-add all --root "$W" --allow-dev "$W" -- touch "$W/ran"
	expect_absent "$W/ran"
}

# chattr changes a file through FS_IOC_SETFLAGS on a descriptor opened
# read-only; FIFREEZE (0xC0045877) freezes the whole file system from any
# file on it, one inside a root too.
test_file_system_ioctls_on_ext4() {
	local e=$T/ext4
	mount_ext4 "$e"
	mkdir "$e/work" "$e/out"
	echo keep >"$e/out/f"
	echo mine >"$e/work/f"
	expect_status 1 cgx --cap-add all --root "$e/work" -- chattr +i "$e/out/f"
	expect_status 0 cgx --cap-add all --root "$e/work" -- sh -c "chattr +a $e/work/f && lsattr $e/out/f"
	lsattr "$e/out/f" | grep -q '^[^ ]*i' && fail "$e/out/f was made immutable"
	lsattr "$e/work/f" | grep -q '^[^ ]*a' || fail "chattr +a inside the root did not hold"
	chattr -a "$e/work/f"
	expect EPERM cgx --cap-add all --root "$e/work" -- "$HATCHOP" ioctl "$e/work/f" 0xC0045877
	expect_events 1 ".op == \"ioctl\" and .path == \"$e/out/f\" and .ioctl_cmd == 1074292226
		and .reason == \"outside_roots\""
	expect_events 1 ".op == \"ioctl\" and .path == \"$e/work/f\" and .ioctl_cmd == 3221510263
		and .reason == \"escape_hatch\""
	expect_events 2 true
}

# in_terminal LINE...: each LINE typed into an interactive shell on a new pty
# (script(1)), the next only once the shell has run the one before; then exit.
in_terminal() {
	local line n=0
	for line; do
		n=$((n + 1))
		echo "$line; touch $T/typed-$n"
		wait_file "$T/typed-$n"
	done | {
		cat
		echo exit
	} | script -q -c "sh -i" /dev/null >"$T/terminal.log" 2>&1
}

# bubblewrap's CVE-2017-5226: pushed into the terminal, a line would run in
# the user's shell once the confined command exits. The control line,
# pushed from outside, shows that the shell does run what is pushed.
test_terminal_input_cannot_be_injected() {
	in_terminal \
		"$CGWARD exec --cgroup-parent $SUITE_CGROUP --events $EV --root $W -- \
			$HATCHOP tiocsti \$(tty) 'touch $O/injected' >$T/pushed-inside" \
		"$HATCHOP tiocsti \$(tty) 'touch $O/control' >$T/pushed-outside"
	expect_content "$T/pushed-inside" EPERM
	expect_content "$T/pushed-outside" ok
	wait_file "$O/control"
	expect_absent "$O/injected"
	expect_events 1 '.op == "ioctl" and .ioctl_cmd == 21522 and .reason == "escape_hatch"'
	expect_events 1 true
}

test_the_terminal_still_works_inside() {
	in_terminal "HOME=$W $CGWARD exec --cgroup-parent $SUITE_CGROUP --events $EV --root $W -- bash -ec '
		stty rows 40 cols 100; stty size >$W/size; stty -echo; stty echo
		echo paged | less -FX; set -m; sleep 0.1 & fg >/dev/null
		vim -N -u NONE -i NONE -c \"normal ihello\" -c wq $W/typed.txt'; echo \$? >$T/status"
	expect_content "$T/status" 0
	expect_content "$W/size" "40 100"
	expect_content "$W/typed.txt" hello
	expect_events 0 true
}

# An agent rule is held to the same, with its own allow_devices.
test_agent_rules_allow_their_devices_and_close_the_same_ways_out() {
	{
		agent_policy jobs "$W" false "$REL/job-*"
		echo '    allow_devices: [/dev/kmsg]'
		echo '    capabilities: all'
	} >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-1"
	load_loop_driver
	agent_start
	expect "$(lines ok EPERM EPERM EPERM)" in_cg "$SUITE_CGROUP/job-1" sh -c "
		$FSOP open-write /dev/kmsg; $HATCHOP mknod $W/mem c 1:1
		$HATCHOP clone-into-cgroup $CG2 $O/escaped; $HATCHOP ioctl /dev/loop-control 0x4C82"
	expect_absent "$W/mem"
	expect_absent "$O/escaped"
	wait_line "$EV" '"op":"ioctl"'
	expect_events 1 ".op == \"mknod\" and .reason == \"device\" and .policy == \"jobs\""
	expect_events 1 '.op == "clone_into_cgroup" and .reason == "escape_hatch"'
	expect_events 1 '.op == "ioctl" and .reason == "device"'
	agent_stop
}
