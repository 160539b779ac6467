# A process's own /proc state (issue 40): the per-process files of a process
# in the caller's boundary (/proc/self, /proc/PID, /proc/PID/task/TID) are
# inside it, whatever the roots; those of a process outside, /proc/sys and
# the other global entries stay outside, with their events.
# shellcheck shell=bash

# What real programs write to their own /proc: a renderer's oom_score_adj,
# a thread's name, core dump and timer settings, and the maps of a user
# namespace of its own (unshare -r; setgroups as a sandbox writes it before
# its gid_map: unshare does, before its exec, since a shell exec'd in the
# namespace unmapped has no capability left to). The children read back
# what they inherited; the name is the shell's. Run as sh -c, inside a root.
# shellcheck disable=SC2016 # expanded by that sh
OWN_PROC_WRITES='echo 500 >/proc/self/oom_score_adj && cat /proc/self/oom_score_adj
printf renamed >/proc/$$/comm && cat /proc/$$/comm
echo 0x33 >/proc/self/coredump_filter && cat /proc/self/coredump_filter
echo 100000 >/proc/self/timerslack_ns && cat /proc/self/timerslack_ns
echo 1 >/proc/self/clear_refs && echo cleared
unshare -r id -u
unshare -U --setgroups deny cat /proc/self/setgroups'
OWN_PROC_READ_BACK=$(lines 500 renamed 00000033 100000 cleared 0 deny)

test_own_proc_writes_succeed_inside_a_root() {
	expect "$OWN_PROC_READ_BACK" cgx --root "$W" -- sh -c "$OWN_PROC_WRITES"
	# A child's, by its PID, as a browser sets its renderers'; its own memory.
	expect "$(lines 300 ok)" cgx --root "$W" -- sh -c \
		'sleep 1000 & echo 300 >/proc/$!/oom_score_adj && cat /proc/$!/oom_score_adj; kill $!
		'"$FSOP"' open-write /proc/$$/mem'
	expect_events 0 true
}

# Python names its threads through /proc/self/task/TID/comm (as daemons do
# with pthread_setname_np); the names are read back while the threads live.
test_python_renames_its_threads() {
	cat >"$T/threads.py" <<'EOF'
import os
import threading

barrier = threading.Barrier(4)


def work(n):
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
        comm.write(f"worker-{n}")
    barrier.wait()
    barrier.wait()


threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
for thread in threads:
    thread.start()
barrier.wait()
names = []
for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/comm") as comm:
        names.append(comm.read().strip())
print(" ".join(sorted(names)))
barrier.wait()
for thread in threads:
    thread.join()
EOF
	expect "python3 worker-0 worker-1 worker-2" cgx --root "$W" -- /usr/bin/python3 "$T/threads.py"
	expect_events 0 true
}

# The files are the process's, not the root's: the same with the root on
# overlayfs and on ext4, with a real tool that makes a user namespace.
test_own_proc_writes_with_a_root_on_overlayfs_and_ext4() {
	local o=$T/ovl root
	mount_ext4 "$T/ext4"
	mkdir -p "$o/lower" "$o/upper" "$o/work" "$o/merged"
	mount -t overlay -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" overlay "$o/merged"
	# shellcheck disable=SC2064 # the directories are fixed now
	trap "umount '$o/merged' '$T/ext4'" EXIT
	for root in "$o/merged" "$T/ext4"; do
		expect "$(lines 0 500 ok)" cgx --root "$root" -- sh -c \
			"unshare -r id -u && echo 500 >/proc/self/oom_score_adj &&
			cat /proc/self/oom_score_adj && $FSOP write $root/f x"
		expect_content "$root/f" x
	done
	expect_events 0 true
}

# The same through the exec socket, as a user who is not root.
test_own_proc_writes_as_an_ordinary_user() {
	local err
	user_dirs
	user_agent_start
	err=$(as_user "$CGWARD" exec --root "$UW" -- sh -c "$OWN_PROC_WRITES" 2>&1) ||
		fail "exited $?: $err"
	[ "$err" = "$OWN_PROC_READ_BACK" ] || fail "printed '$err', want '$OWN_PROC_READ_BACK'"
	wait_no_runs
}

# wait_user_ns PID: PID has left this shell's user namespace (unshare -U is done).
wait_user_ns() {
	for _ in $(seq 600); do
		[ "$(readlink "/proc/$1/ns/user")" != "$(readlink /proc/self/ns/user)" ] && return 0
		sleep 0.1
	done
	fail "$1 made no user namespace in 60 s"
}

# A process outside, root's as the caller is, that made a user namespace and
# waits for its mapping; another whose oom_score_adj and names would change.
# Opens without O_CREAT: that asks path_mknod first where the entry is not
# in the dcache yet, an event more. From outside, the same opens and writes
# pass.
test_proc_of_processes_outside_stays_outside() {
	unshare -U sleep 1000 &
	local waiting=$!
	sleep 1000 &
	local victim=$!
	wait_user_ns "$waiting"
	expect "$(lines EPERM EPERM EPERM EPERM EPERM EPERM EPERM)" cgx --root "$W" -- sh -c "
		$FSOP open-write /proc/$waiting/uid_map; $FSOP open-write /proc/$waiting/setgroups
		$FSOP open-write /proc/$victim/oom_score_adj; $FSOP open-write /proc/$victim/comm
		$FSOP open-write /proc/$victim/task/$victim/comm
		$FSOP open-write /proc/sys/kernel/ctrl-alt-del; $FSOP open-write /proc/sysrq-trigger"
	expect_denies "open_write /proc/$waiting/uid_map" "open_write /proc/$waiting/setgroups" \
		"open_write /proc/$victim/oom_score_adj" "open_write /proc/$victim/comm" \
		"open_write /proc/$victim/task/$victim/comm" "open_write /proc/sys/kernel/ctrl-alt-del" \
		"open_write /proc/sysrq-trigger"
	expect_events 7 '.reason == "outside_roots"'
	expect "$(lines ok ok)" sh -c \
		"$FSOP write /proc/$waiting/uid_map '0 0 1'; $FSOP write /proc/$victim/oom_score_adj 500"
	expect_content "/proc/$waiting/uid_map" "         0          0          1"
	kill "$waiting" "$victim"
}

# A task of the boundary given what entering that namespace takes
# (SYS_PTRACE and SYS_ADMIN, dropped by default: t_userns_mounts.sh) may
# enter it; its /proc/PID/uid_map is then the outside namespace's, which
# only its own process may write (in the namespace, the kernel lets it map
# nothing but the owner's uid). Its parent, in the parent namespace, could
# write any map.
test_a_user_namespace_entered_from_outside_keeps_its_maps() {
	unshare -U sleep 1000 &
	local waiting=$! enter_and_map
	wait_user_ns "$waiting"
	# shellcheck disable=SC2016 # expanded by sh -c, which gets the PID as $1
	enter_and_map='nsenter -U -t "$1" --preserve-credentials sleep 1000 & child=$!
		until [ "$(readlink /proc/$child/ns/user)" = "$(readlink /proc/$1/ns/user)" ]; do
			sleep 0.1
		done
		echo $child >"$2/child"
		'"$FSOP"' open-write /proc/$child/uid_map; kill $child'
	expect EPERM cgx --cap-add sys_ptrace --cap-add sys_admin --root "$W" -- \
		sh -c "$enter_and_map" sh "$waiting" "$W"
	expect_denies "open_write /proc/$(cat "$W/child")/uid_map"
	expect ok sh -c "$enter_and_map" sh "$waiting" "$W"
	kill "$waiting"
}

# Debian's chromium, as a user through the exec socket: its sandbox makes a
# user namespace for its zygote (setgroups, uid_map, gid_map) and raises its
# renderers' oom_score_adj; without a usable sandbox it refuses to start.
# /tmp and /dev/shm are the run's own. 40 to 60 s under emulation.
test_chromium_runs_headless_with_its_sandbox_as_a_user() {
	local dom
	user_dirs
	user_agent_start
	echo '<p id="x">hello from a file</p>' >"$UW/page.html"
	dom=$(as_user "$CGWARD" exec --root "$UW" --private-tmp -- env HOME="$UW" chromium \
		--headless --no-first-run --user-data-dir="$UW/profile" --dump-dom "file://$UW/page.html" \
		2>"$T/chromium.err") || fail "exited $?: $(tail -n 20 "$T/chromium.err")"
	grep -qF '<p id="x">hello from a file</p>' <<<"$dom" || fail "no page: $dom"
	[ "$(grep '^{' "$T/chromium.err" | jq -s 'map(select(.path // "" | startswith("/proc"))) |
		length')" -eq 0 ] || fail "denies in /proc: $(grep '^{"' "$T/chromium.err")"
	wait_no_runs
}
