# Mounts in a user namespace of the run's own (issue 36): bubblewrap and
# unshare -Urm work inside a root, and their mounts change only what their
# namespace sees. The walk judges a path there within its file system, so
# a bind of a directory outside beneath a root lets nothing through, in a
# nested namespace too (where the kernel locks the copied bind). Before,
# every such mount was denied (op mount), and bwrap failed inside a root.
# shellcheck shell=bash

# bwrap_in DIR: root inside a root at DIR runs bubblewrap over the whole
# system, a tmpfs of its own at /tmp and DIR bound writable (bwrap makes
# its mount point in that tmpfs when DIR is beneath /tmp), and writes in
# both.
bwrap_in() {
	expect "$(lines hi scratch)" cgx --root "$1" -- bwrap --unshare-user --ro-bind / / \
		--tmpfs /tmp --bind "$1" "$1" -- sh -c "echo hi >$1/f && cat $1/f &&
			echo scratch >/tmp/s && cat /tmp/s"
	expect_content "$1/f" hi
	expect_events 0 true
}

test_bwrap_runs_inside_a_root_on_tmpfs_overlayfs_and_ext4() {
	local o=$T/ovl e=$T/ext4
	bwrap_in "$W"
	mount_ext4 "$e"
	mkdir -p "$o/lower/in" "$o/upper" "$o/work" "$o/merged"
	mount -t overlay -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" overlay "$o/merged"
	# shellcheck disable=SC2064 # the directories are fixed now
	trap "umount '$o/merged' '$e'" EXIT
	# The tree is in the lower layer: a write copies its directory up.
	if [ "$OVERLAY_RECOGNIZED" = yes ]; then
		bwrap_in "$o/merged/in"
	else
		echo "overlayfs' own writes are not recognized here (cgward doctor): skipped"
	fi
	bwrap_in "$e"
}

test_bwrap_runs_inside_a_users_run() {
	user_dirs
	user_agent_start
	expect hi as_user "$CGWARD" exec --root "$UW" -- bwrap --unshare-user --ro-bind / / \
		--bind "$UW" "$UW" -- sh -c "echo hi >$UW/f && cat $UW/f"
	expect_content "$UW/f" hi
}

test_a_bind_from_outside_beneath_a_root_lets_nothing_through() {
	mkdir "$W/sub"
	echo secret >"$O/f"
	# The bind is allowed (the namespace's own), the write through it is not;
	# nor is it from a nested namespace, where the copy of the bind is locked.
	expect "$(lines ok EPERM EPERM)" cgx --root "$W" -- unshare -Urm sh -c "
		$HATCHOP mount-bind $O $W/sub && $FSOP write $W/sub/f x
		unshare -Urm $FSOP write $W/sub/f x"
	expect_content "$O/f" secret
	# Judged within the file system, the name is the one there.
	expect_events 2 ".op == \"open_write\" and .reason == \"outside_roots\"
		and (.path | endswith(\"/outside/f\")) and .path_from_fs_root"
	expect_events 2 true
	# Writes beneath the root stay allowed there; outside, on a file system
	# mounted whole (the test's /tmp), the name is from its root too.
	: >"$EV"
	expect "$(lines ok EPERM)" cgx --root "$W" -- unshare -Urm sh -c \
		"$FSOP write $W/g x; $FSOP write $O/g x"
	expect_events 1 ".op == \"create\" and (.path | endswith(\"/outside/g\"))
		and .path_from_fs_root"
	expect_events 1 true
}

test_overlayfs_in_a_user_namespace_stays_denied() {
	mkdir -p "$W/upper" "$W/work" "$W/merged"
	# An overlay's mount writes its work directory (and could clean one
	# outside) with the mounter's credentials: not a file system a run's
	# namespace may mount.
	expect_status 32 cgx --root "$W" -- unshare -Urm mount -t overlay \
		-o "lowerdir=$O,upperdir=$W/upper,workdir=$W/work" overlay "$W/merged"
	expect_events 1 ".op == \"mount\" and .reason == \"escape_hatch\""
	expect_events 1 true
}

# A rootless container outside: a process in its own user and UTS
# namespaces. Root inside the run is its namespace's owner: the kernel lets
# it in. On a699ba6 lsm/capable judged only checks against the initial user
# namespace, and the call below named the container's host. The checks are
# judged now by the caller's credentials (the initial namespace's): setns(2)
# through a pidfd asks ptrace read access first, which across user
# namespaces needs SYS_PTRACE over the container's, then SYS_ADMIN over it
# to enter. The default set drops both; a run given SYS_PTRACE meets the
# second.
test_setns_into_namespaces_outside_is_judged() {
	local container name
	unshare -U -u --map-root-user sh -c 'hostname container-before; exec sleep 1000' &
	container=$!
	# shellcheck disable=SC2064 # the PID is fixed now
	trap "kill $container" EXIT
	for _ in $(seq 300); do
		name=$(nsenter -t "$container" -u hostname 2>/dev/null)
		[ "$name" = container-before ] && break
		sleep 0.1
	done
	[ "$name" = container-before ] || fail "the container did not name itself: '$name'"
	expect EPERM cgx --root "$W" -- "$HATCHOP" setns-sethostname "$container" cgward-escaped
	expect_events 1 '.op == "capability" and .capability == "CAP_SYS_PTRACE"'
	: >"$EV"
	expect EPERM cgx --cap-add sys_ptrace --root "$W" -- \
		"$HATCHOP" setns-sethostname "$container" cgward-escaped
	expect_events 1 '.op == "capability" and .capability == "CAP_SYS_ADMIN"'
	expect_events 1 true
	expect container-before nsenter -t "$container" -u hostname
	expect ok "$HATCHOP" setns-sethostname "$container" outside-ok
	expect outside-ok nsenter -t "$container" -u hostname
}
