# Shared by the integration tests: the suite's cgroup, per-test directories,
# and assertions on the kernel's answers and on deny events.
# shellcheck shell=bash

INTEGRATION=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CGWARD=${CGWARD:-$PWD/build/cgward}
FSOP=${FSOP:-$PWD/build/fsop}
HATCHOP=${HATCHOP:-$PWD/build/hatchop}
WRITELOOP=${WRITELOOP:-$PWD/build/writeloop}
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
SUITE_CGROUP=$CG2/cgward-test-$$
TEST_TMP=${TMPDIR:-/tmp}

suite_setup() {
	if [ -z "$CG2" ]; then
		echo "integration: no cgroup2 mounted" >&2
		return 1
	fi
	local doctor
	if ! doctor=$("$CGWARD" doctor); then
		echo "$doctor" >&2
		echo "integration: this kernel cannot enforce; run make test-vm" >&2
		return 1
	fi
	# What the overlay tests expect of a copy-up inside a root (cgward-doctor(8)).
	OVERLAY_RECOGNIZED=no
	if grep -q '^overlayfs  *ok  *recognized:' <<<"$doctor"; then
		OVERLAY_RECOGNIZED=yes
	fi
	# --memory needs the memory controller in the suite cgroup, which only its
	# parent can give it (a VM's fresh root cgroup delegates nothing).
	if grep -qw memory "$CG2/cgroup.controllers" &&
		! grep -qw memory "$CG2/cgroup.subtree_control"; then
		echo +memory >"$CG2/cgroup.subtree_control" || return 1
	fi
	copy_helpers || return 1
	mkdir "$SUITE_CGROUP" || {
		rm -rf "$HELPERS"
		return 1
	}
}

# Tests run fsop, hatchop and writeloop inside --private-tmp, whose empty /tmp, /var/tmp
# and /dev/shm would hide them in a tree cloned there: they run from a copy
# in a directory of the suite's own under /run, which no private tmp hides.
copy_helpers() {
	HELPERS=$(mktemp -d /run/cgward-test-helpers.XXXXXX) || return 1
	# Reachable by the tests that run a helper as an ordinary user.
	if ! { chmod 0755 "$HELPERS" && cp "$FSOP" "$HELPERS/fsop" &&
		cp "$HATCHOP" "$HELPERS/hatchop" && cp "$WRITELOOP" "$HELPERS/writeloop"; }; then
		rm -rf "$HELPERS"
		return 1
	fi
	FSOP=$HELPERS/fsop
	HATCHOP=$HELPERS/hatchop
	WRITELOOP=$HELPERS/writeloop
}

suite_teardown() {
	rm -rf "$HELPERS"
	rmdir "$SUITE_CGROUP" 2>/dev/null || {
		echo "integration: cgroups left behind:" >&2
		find "$SUITE_CGROUP" -mindepth 1 -type d >&2
		exit 1
	}
}

# Each test gets T (its directory), W (the write root), O (outside the root)
# and EV (the events file).
prepare_test() {
	T=$(mktemp -d "$TEST_TMP/cgward-test.XXXXXX")
	W=$T/work
	O=$T/outside
	EV=$T/events.jsonl
	mkdir "$W" "$O"
	: >"$EV"
}

clean_up_tests() {
	rm -rf "$TEST_TMP"/cgward-test.*
}

# reap_cgroups: removes the cgroups a test left under the suite's cgroup.
# Empty ones go quietly; where processes still run (only the tests' own:
# all are beneath it), it kills them, names the cgroups and fails, so the
# test that leaked them fails.
reap_cgroups() {
	local left dir
	find "$SUITE_CGROUP" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	left=$(find "$SUITE_CGROUP" -mindepth 1 -depth -type d)
	[ -n "$left" ] || return 0
	echo "cgroups left behind: $left"
	for dir in $left; do
		echo 1 >"$dir/cgroup.kill" 2>/dev/null || xargs -r kill -9 <"$dir/cgroup.procs"
	done
	for dir in $left; do
		for _ in $(seq 50); do rmdir "$dir" 2>/dev/null && break; sleep 0.1; done
	done
	return 1
}

# cgward_ok ARG...: cgward ARG... succeeds (a load, an unload); else the test
# fails with its message.
cgward_ok() {
	"$CGWARD" "$@" 2>"$T/cgward.err" || fail "cgward $* exited $?: $(cat "$T/cgward.err")"
}

# cgward exec in the suite's cgroup, events to EV.
cgx() {
	"$CGWARD" exec --cgroup-parent "$SUITE_CGROUP" --events "$EV" "$@"
}

# sha256_of FILE: the SHA-256 of its content, as the agent names a policy file.
sha256_of() {
	sha256sum <"$1" | cut -d' ' -f1
}

# lines A B...: one argument a line, to compare with the output of several fsops.
lines() {
	printf '%s\n' "$@"
}

fail() {
	echo "assertion failed: $*" >&2
	return 1
}

# expect WANT CMD...: CMD prints WANT (fsop prints ok or the errno name).
expect() {
	local want=$1 got
	shift
	got=$("$@" 2>&1) || true
	[ "$got" = "$want" ] || fail "'$*' printed '$got', want '$want'"
}

expect_status() {
	local want=$1 got=0
	shift
	"$@" || got=$?
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, want $want"
}

expect_content() {
	[ "$(cat "$1" 2>&1)" = "$2" ] || fail "$1 holds '$(cat "$1" 2>&1)', want '$2'"
}

expect_absent() {
	[ ! -e "$1" ] && [ ! -L "$1" ] || fail "$1 exists"
}

# expect_events N JQ_CONDITION: exactly N events in EV satisfy the condition.
expect_events() {
	local want=$1 cond=$2 got
	got=$(jq -c "select($cond)" "$EV" | wc -l)
	[ "$got" -eq "$want" ] || fail "$got events match '$cond', want $want; events: $(cat "$EV")"
}

# A deny event with every field of the event format.
expect_deny() {
	local op=$1 path=$2
	expect_events 1 ".verdict == \"deny\" and .op == \"$op\" and .path == \"$path\""
	jq -s -e "map(select(.path == \"$path\")) | all(
		(.time | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\\\.[0-9]{9}Z\$\"))
		and (.pid | type == \"number\") and (.uid == 0) and (.comm | length > 0)
		and (.cgroup_id | type == \"number\") and (.cgroup | startswith(\"/cgward-test-\")))" \
		"$EV" >/dev/null || fail "event fields: $(cat "$EV")"
}

# The deny line of RENAME_EXCHANGE of $1 and $2. Before 5.19 the kernel checks
# an exchange as two renames, the reverse one first, whose deny names the
# ends the other way round.
exchange_denied() {
	if [ "$(printf '%s\n' "$(uname -r)" 5.19 | sort -V | head -n 1)" != 5.19 ]; then
		echo "rename $2 $1"
	else
		echo "rename $1 $2"
	fi
}

# expect_denies 'OP PATH [TARGET]'...: EV holds exactly these deny events, in
# any order, each with every field of the event format (TARGET: the second
# path of rename and link). One jq run: it costs half a second in the VM.
expect_denies() {
	local want got
	want=$(printf '%s\n' "$@" | sort)
	got=$(jq -r 'if .verdict == "deny"
		and (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{9}Z$"))
		and (.pid | type == "number") and (.tid | type == "number") and .uid == 0
		and (.comm | length > 0) and (.cgroup_id | type == "number")
		and (.cgroup | startswith("/cgward-test-")) and (.reason | type == "string")
		then [.op, .path, .target // empty] | join(" ")
		else "bad event: \(tojson)" end' "$EV" | sort)
	[ "$got" = "$want" ] || fail "deny events:
$got
want:
$want"
}

# No cgward-* cgroup is left in the suite's cgroup.
expect_no_cgroups() {
	local left
	left=$(find "$SUITE_CGROUP" -mindepth 1 -type d)
	[ -z "$left" ] || fail "cgroups left behind: $left"
}

# wait_file FILE: FILE exists, within 60 s.
wait_file() {
	for _ in $(seq 600); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "no $1 after 60 s"
}

# wait_written FILE: FILE holds a whole line, within 60 s. A shell's
# redirection makes the file before the command writes to it: its content is
# there once it ends in a newline.
wait_written() {
	for _ in $(seq 600); do
		[ -s "$1" ] && [ -z "$(tail -c 1 "$1")" ] && return 0
		sleep 0.1
	done
	fail "no line in $1 after 60 s: '$(cat "$1" 2>/dev/null)'"
}

# The loop driver (and /dev/loop-control), a module in Debian's kernels.
load_loop_driver() {
	modprobe loop 2>/dev/null || true
}

# mount_overlay FILL: an overlay under /run (a tmpfs, which no private /tmp
# hides) as a container's root file system, its lower layer filled by FILL
# DIR before the mount; OVERLAY is its directory (lower, upper, work,
# merged), unmounted and removed when the test ends.
mount_overlay() {
	OVERLAY=$(mktemp -d /run/cgward-overlay.XXXXXX)
	# shellcheck disable=SC2064 # the directory is fixed now
	trap "umount '$OVERLAY/merged'; rm -rf '$OVERLAY'" EXIT
	mkdir -p "$OVERLAY/lower" "$OVERLAY/upper" "$OVERLAY/work" "$OVERLAY/merged"
	"$1" "$OVERLAY/lower"
	mount -t overlay -o \
		"lowerdir=$OVERLAY/lower,upperdir=$OVERLAY/upper,workdir=$OVERLAY/work" \
		overlay "$OVERLAY/merged"
}

# mount_ext4 DIR: a new ext4 file system on a loop device at DIR, thawed
# (had a test frozen it) and unmounted when the test ends.
mount_ext4() {
	load_loop_driver
	truncate -s 64M "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img"
	mkdir -p "$1"
	mount -o loop "$T/ext4.img" "$1"
	# shellcheck disable=SC2064 # the directory is fixed now
	trap "fsfreeze -u '$1' 2>/dev/null || true; umount '$1'" EXIT
}
