# Escape hatches (issue 8): a root process inside an enforced cgroup cannot
# change the mount tree, use bpf(), touch the pinned programs or the cgroup
# files, load kernel code, or reach processes outside its boundary. Each test
# proves the kernel's EPERM and its event, and that the same call works from
# outside. Controls that change mounts run in a private mount namespace
# (unshare -m) so that nothing outlives the test. The runs keep every
# capability (--cap-add all): most of these calls need one the default set
# drops (t_capabilities.sh), and the hooks here must hold without it, for a
# workload given them all.
# shellcheck shell=bash

# expect_hatch OP: EV holds exactly one event, a deny of OP for an escape hatch.
expect_hatch() {
	expect_events 1 ".verdict == \"deny\" and .op == \"$1\" and .reason == \"escape_hatch\"
		and (.cgroup | startswith(\"/cgward-test-\")) and (.comm | length > 0)"
	expect_events 1 true
}

# unshare -m would make the new namespace's mounts private first: a mount, so denied.
UNSHARE_M="unshare -m --propagation unchanged"

test_bind_mount_and_tmpfs_over_a_root_are_denied_in_any_namespace() {
	mkdir "$W/sub"
	echo secret >"$O/f"
	expect "$(lines EPERM EPERM)" cgx --cap-add all --root "$W" -- \
		$UNSHARE_M sh -c "$HATCHOP mount-bind $O $W/sub; $HATCHOP mount-tmpfs $O"
	# Had the bind happened, this would write O/f.
	expect ok cgx --cap-add all --root "$W" -- "$FSOP" write "$W/sub/f" x
	expect_content "$O/f" secret
	expect_denies "mount $W/sub" "mount $O"
	expect_events 2 '.reason == "escape_hatch"'
	expect "$(lines ok ok)" $UNSHARE_M sh -c "$HATCHOP mount-bind $O $W/sub; $HATCHOP mount-tmpfs $O"
}

test_move_mount_of_a_clone_and_fsmount_are_denied() {
	mkdir "$W/sub"
	expect "$(lines EPERM EPERM)" cgx --cap-add all --root "$W" -- \
		$UNSHARE_M sh -c "$HATCHOP move-mount $O $W/sub; $HATCHOP fsmount $W/sub"
	# The clone is detached: its name is the one within its file system.
	expect_events 1 ".op == \"move_mount\" and (.path | endswith(\"/outside\"))
		and .path_from_fs_root and .target == \"$W/sub\""
	expect_events 1 ".op == \"move_mount\" and .path == \"/\" and .target == \"$W/sub\"
		and .reason == \"escape_hatch\""
	expect "$(lines ok ok)" $UNSHARE_M sh -c "$HATCHOP move-mount $O $W/sub; $HATCHOP fsmount $O"
}

test_umount_and_pivot_root_are_denied() {
	mkdir "$T/m" "$T/newroot"
	# The mounts exist only in this private namespace, made outside the cgroup.
	expect "$(lines EPERM ok EPERM ok)" unshare -m sh -c "
		mount -t tmpfs tmpfs $T/m && mount -t tmpfs tmpfs $T/newroot &&
		mkdir $T/newroot/old && cd $T/newroot || exit
		$CGWARD exec --cgroup-parent $SUITE_CGROUP --events $EV --cap-add all --root $W -- \
			$HATCHOP umount $T/m
		$HATCHOP umount $T/m
		$CGWARD exec --cgroup-parent $SUITE_CGROUP --events $EV --cap-add all --root $W -- \
			$HATCHOP pivot-root . old
		exec $HATCHOP pivot-root . old"
	expect_events 1 ".op == \"umount\" and .path == \"$T/m\" and .reason == \"escape_hatch\""
	expect_events 1 ".op == \"pivot_root\" and .path == \"$T/newroot\"
		and .target == \"$T/newroot/old\" and .reason == \"escape_hatch\""
	expect_events 2 true
}

test_bpf_syscall_is_denied() {
	expect EPERM cgx --cap-add all --root "$W" -- "$HATCHOP" bpf-map-create
	expect_hatch bpf
	expect_events 1 '.bpf_cmd == 0' # BPF_MAP_CREATE
	expect ok "$HATCHOP" bpf-map-create
}

# Even when a root covers them: bpffs holds the pinned boundary, cgroupfs the cgroups.
test_pinned_objects_and_cgroup_files_are_protected_even_inside_roots() {
	local pin=/sys/fs/bpf/cgward-test-$$
	bpftool map create "$pin" type array key 4 value 4 entries 1 name cgward_test
	expect "$(lines EPERM EPERM EPERM EPERM)" cgx --cap-add all --root /sys/fs/bpf --root "$SUITE_CGROUP" -- \
		sh -c "$FSOP unlink $pin; $FSOP mkdir $pin-dir
			$FSOP mkdir $SUITE_CGROUP/escape; $FSOP open-write $SUITE_CGROUP/cgroup.subtree_control"
	[ -e "$pin" ] || fail "$pin was removed"
	expect_absent "$pin-dir"
	expect_absent "$SUITE_CGROUP/escape"
	expect_events 4 '.verdict == "deny" and .reason == "protected_fs"'
	expect_events 1 ".op == \"unlink\" and .path == \"$pin\""
	expect_events 1 ".op == \"mkdir\" and .path == \"$SUITE_CGROUP/escape\""
	expect ok "$FSOP" unlink "$pin"
	expect ok "$FSOP" mkdir "$pin-dir"
	expect ok "$FSOP" mkdir "$SUITE_CGROUP/escape"
	rmdir "$pin-dir" "$SUITE_CGROUP/escape"
}

test_kernel_module_loading_is_denied() {
	# The event names the file as the kernel reached it: /usr/lib on a merged /usr.
	# Trixie's kernel ships it as crc7.ko.xz.
	local module
	module=$(readlink -f "/lib/modules/$(uname -r)/kernel/lib/"crc7.ko*)
	[ -f "$module" ] || fail "no $module to load"
	grep -q '^crc7 ' /proc/modules && fail "crc7 is loaded already"
	expect EPERM cgx --cap-add all --root "$W" -- "$HATCHOP" finit-module "$module"
	grep -q '^crc7 ' /proc/modules && fail "crc7 was loaded from inside"
	expect_hatch kernel_module
	expect_events 1 ".path == \"$module\""
	expect ok "$HATCHOP" finit-module "$module"
	rmmod crc7
}

test_kexec_file_load_is_denied() {
	local image=/boot/vmlinuz-$(uname -r)
	[ -f "$image" ] || fail "no $image to load"
	expect EPERM cgx --cap-add all --root "$W" -- "$HATCHOP" kexec-file "$image"
	expect_hatch kexec
	expect_events 1 ".path == \"$image\""
	expect ok "$HATCHOP" kexec-file "$image" # loaded for a later kexec, then unloaded
}

# The same calls succeed on a process inside the boundary, and from outside.
test_ptrace_and_memory_access_outside_the_boundary_are_denied() {
	sleep 1000 &
	local victim=$!
	expect "$(lines EPERM EPERM EPERM)" cgx --cap-add all --root "$W" -- \
		sh -c "$HATCHOP ptrace $victim; $HATCHOP vm-write $victim; $HATCHOP pidfd-getfd $victim 0"
	expect "$(lines ok EFAULT ok)" cgx --cap-add all --root "$W" -- sh -c \
		"sleep 1000 & p=\$!; $HATCHOP ptrace \$p; $HATCHOP vm-write \$p; $HATCHOP pidfd-getfd \$p 0; kill \$p"
	expect "$(lines ok EFAULT)" sh -c "$HATCHOP ptrace $victim; $HATCHOP vm-write $victim"
	kill "$victim"
	expect_events 3 ".verdict == \"deny\" and .op == \"ptrace\" and .reason == \"outside_boundary\"
		and .target_pid == $victim"
	expect_events 3 true
}

test_signals_outside_the_boundary_are_denied() {
	sleep 1000 &
	local victim=$!
	expect "$(lines EPERM EPERM ok)" cgx --cap-add all --root "$W" -- \
		sh -c "$HATCHOP kill $victim 15; $HATCHOP kill $victim 9; $HATCHOP kill $victim 0"
	kill -0 "$victim" || fail "the process outside was killed"
	expect ok cgx --cap-add all --root "$W" -- sh -c "sleep 1000 & exec $HATCHOP kill \$! 15"
	expect_events 1 ".op == \"signal\" and .signal == 15 and .target_pid == $victim
		and .reason == \"outside_boundary\""
	expect_events 1 ".op == \"signal\" and .signal == 9"
	expect_events 2 true
	expect ok "$HATCHOP" kill "$victim" 15
}

# The agent's own boundary: its cgroups cannot signal it, nor each other.
test_agent_cannot_be_signalled_and_its_cgroups_are_separate() {
	{
		agent_policy jobs "$W" false "$REL/job-*"
		echo '    capabilities: all'
	} >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-a" "$SUITE_CGROUP/job-b"
	agent_start
	in_cg_bg "$SUITE_CGROUP/job-b" sleep 1000
	local other=$!
	expect "$(lines EPERM EPERM EPERM)" in_cg "$SUITE_CGROUP/job-a" sh -c \
		"$HATCHOP kill $AGENT_PID 9; $HATCHOP kill $other 9; $HATCHOP bpf-map-create"
	kill -0 "$AGENT_PID" || fail "the agent was killed"
	wait_line "$EV" '"op":"bpf"'
	expect_events 1 ".op == \"signal\" and .target_pid == $AGENT_PID and .policy == \"jobs\""
	expect_events 1 ".op == \"signal\" and .target_pid == $other and .cgroup == \"$REL/job-a\""
	kill "$other"
	agent_stop
}

# bpf() is denied in enforced cgroups: an agent that bound its own cgroup
# could neither reload nor be stopped cleanly, so it never binds it.
test_agent_never_binds_its_own_cgroup() {
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-agent" "$SUITE_CGROUP/job-1"
	in_cg_bg "$SUITE_CGROUP/job-agent" \
		"$CGWARD" agent --policy "$T/policy.yaml" --events "$EV" >"$T/agent.out" 2>>"$T/agent.log"
	AGENT_PID=$!
	trap agent_stop EXIT
	agent_wait_log "ready:"
	agent_wait_log "$REL/job-agent is the agent's own cgroup: not bound"
	expect EPERM in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/f" x
	agent_policy jobs "$O" false "$REL/job-*" >"$T/policy.yaml" # reloads it
	wait_line "$EV" '"op":"reload"'
	expect_events 1 '.op == "reload" and .result == "ok"'
	expect ok in_cg "$SUITE_CGROUP/job-1" "$FSOP" write "$O/f" x
	agent_stop
}

# clone3(CLONE_INTO_CGROUP) needs only a read-only descriptor of the target
# cgroup; the child, had it started there, would write the file outside.
test_clone_into_another_cgroup_is_denied() {
	expect EPERM cgx --cap-add all --root "$W" -- "$HATCHOP" clone-into-cgroup "$CG2" "$O/escaped"
	expect_absent "$O/escaped"
	expect_hatch clone_into_cgroup
	expect ok "$HATCHOP" clone-into-cgroup "$SUITE_CGROUP" "$O/control"
	[ -e "$O/control" ] || fail "the child of the control clone did not run"
}

# A permission event would make every opener of the file wait for the
# confined process's answer; a notification mark only reports.
test_fanotify_permission_marks_are_denied() {
	expect EPERM cgx --cap-add all --root "$W" -- "$HATCHOP" fanotify-perm "$O"
	expect_hatch fanotify_perm
	expect_events 1 ".path == \"$O\" and .fanotify_events == 65536"
	expect ok "$HATCHOP" fanotify-perm "$O"
}

# fspick(2) and fsconfig(2) remount a file system without mount(2).
test_fsconfig_of_a_mounted_file_system_is_denied() {
	mkdir "$T/m"
	expect "$(lines EPERM 'size=1024k' ok)" unshare -m sh -c "
		mount -t tmpfs -o size=1m tmpfs $T/m || exit
		$CGWARD exec --cgroup-parent $SUITE_CGROUP --events $EV --cap-add all --root $W -- \
			$HATCHOP fsconfig $T/m size 2m
		findmnt -n -o OPTIONS $T/m | grep -o 'size=[0-9]*k'
		$HATCHOP fsconfig $T/m size 2m"
	expect_hatch fsconfig
}

# A core_pattern that starts with | is run by the kernel, as root, outside
# every boundary, when any process crashes.
test_sysctls_and_other_processes_memory_are_outside_the_roots() {
	sleep 1000 &
	local victim=$! pattern
	pattern=$(cat /proc/sys/kernel/core_pattern)
	expect "$(lines EPERM EPERM)" cgx --cap-add all --root "$W" -- sh -c \
		"$FSOP write /proc/sys/kernel/core_pattern '|/bin/true'; $FSOP open-write /proc/$victim/mem"
	kill "$victim"
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$pattern" ] || fail "core_pattern changed"
	expect_denies "open_write /proc/sys/kernel/core_pattern" "open_write /proc/$victim/mem"
}

# Entering the mount namespace of a process outside (leaving --private-tmp's
# own) changes what paths name, not which directories are roots.
test_setns_into_a_mount_namespace_outside_keeps_the_boundary() {
	expect "$(lines EPERM ok)" cgx --cap-add all --root "$W" --private-tmp -- \
		nsenter -t 1 -m sh -c "$FSOP write $O/f x; $FSOP write $W/f x"
	expect_absent "$O/f"
	expect_content "$W/f" x
	expect_denies "create $O/f"
}

# io_uring's operations run in its workers, threads of the submitting task.
test_io_uring_operations_outside_are_denied() {
	echo keep >"$O/f"
	echo mine >"$W/f"
	expect "$(lines EPERM ok EPERM)" cgx --cap-add all --root "$W" -- sh -c \
		"$HATCHOP uring-open-write $O/f; $HATCHOP uring-open-write $W/f
		$HATCHOP uring-rename $O/f $W/stolen"
	expect_content "$O/f" keep
	expect_absent "$W/stolen"
	expect_denies "open_write $O/f" "rename $O/f $W/stolen"
	expect ok "$HATCHOP" uring-rename "$O/f" "$O/g"
}
