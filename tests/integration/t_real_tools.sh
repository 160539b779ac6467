# Real tools (issue 18), as an agent or a build runs them: inside a root on
# overlayfs (a container's root file system), tmpfs and ext4, with
# --private-tmp. Each works;
# each pointed at a directory outside the root on the same overlay fails
# with a deny from the kernel and leaves nothing there.
# shellcheck shell=bash

# tools_lower DIR: what the tools work on, in the lower layer (DIR/ws and DIR/out).
tools_lower() {
	local side
	mkdir -p "$1/src/x"
	echo extracted >"$1/src/x/file"
	touch -d 2001-01-01 "$1/src/x/file"
	for side in ws out; do
		mkdir -p "$1/$side"
		printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' \
			>"$1/$side/hello.c"
		printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >"$1/$side/Makefile"
		echo in >"$1/$side/in.txt"
		echo lower >"$1/$side/lower.txt"
		echo lower >"$1/$side/lower2.txt"
	done
	tar cf "$1/ws/archive.tar" -C "$1/src" x
}

# Mounts the overlay (OVERLAY) and sets TW (the root) and TO (outside it).
tools_overlay() {
	mount_overlay tools_lower
	TW=$OVERLAY/merged/ws
	TO=$OVERLAY/merged/out
}

# real_tools_work_in WS [OPTION...]: every tool works in a root at WS
# (tools_lower's ws), with --private-tmp and the options, and none is denied
# anything.
real_tools_work_in() {
	# shellcheck disable=SC2016 # expanded by the confined shell
	expect "$(lines hello make ok sort 1 '[1, 4, 9]' tar extracted git ok sqlite 1 \
		appended edited)" cgx --root "$1" --private-tmp "${@:2}" -- sh -ec '
		cd "$1"
		gcc -o hello hello.c && ./hello
		make -s && [ -f out.txt ] && echo make
		f=$(mktemp) && d=$(mktemp -d) && echo x >"$f" && [ -d "$d" ] && echo ok
		seq 300000 -1 1 >big && sort -n -S 1M -o sorted big && echo sort && head -n 1 sorted
		python3 -c "
import multiprocessing, tempfile
with tempfile.NamedTemporaryFile() as f, tempfile.TemporaryDirectory() as d:
    f.write(b\"x\"); f.flush()
    with multiprocessing.Pool(2) as pool:
        print(pool.map(abs, [-1, -4, -9]))"
		mkdir t && tar xf archive.tar -C t && echo tar && cat t/x/file
		git init -q repo && cd repo && echo a >a && git add a &&
			git -c user.name=t -c user.email=t@example.org commit -qm m && echo git
		git log --oneline | grep -q m && echo ok && cd ..
		sqlite3 db.sqlite "create table t(x); insert into t values (1);" && echo sqlite
		sqlite3 db.sqlite "select x from t;"
		echo more >>lower.txt && [ "$(cat lower.txt)" = "$(printf "lower\nmore")" ] &&
			echo appended
		sed -i s/lower/edited/ lower2.txt && cat lower2.txt' sh "$1"
	expect_events 0 true
	# tar x kept the archive's times (on overlayfs, a utime after the copy-up).
	[ "$(stat -c %Y "$1/t/x/file")" = "$(date -d 2001-01-01 +%s)" ] ||
		fail "tar x did not set the time"
}

test_real_tools_work_inside_a_root_on_overlayfs_with_private_tmp() {
	if [ "$OVERLAY_RECOGNIZED" != yes ]; then
		# t_overlay.sh asserts that such copy-ups are denied.
		echo "overlayfs' own writes not recognized on this kernel (cgward doctor): skipped"
		return 0
	fi
	tools_overlay
	real_tools_work_in "$TW"
}

test_real_tools_work_inside_a_root_on_tmpfs_and_on_ext4_with_private_tmp() {
	tools_lower "$T/tmpfs"
	real_tools_work_in "$T/tmpfs/ws"
	mount_ext4 "$T/ext4"
	tools_lower "$T/ext4"
	real_tools_work_in "$T/ext4/ws"
}

# One confined shell runs every tool against TO; each must fail, and the
# kernel must have denied it (by its command name) a write beneath TO.
test_real_tools_outside_the_root_on_the_same_overlay_are_denied() {
	local tool comm status
	tools_overlay
	# shellcheck disable=SC2016 # expanded by the confined shell
	cgx --root "$TW" --private-tmp -- sh -c '
		cd "$1"
		tool() { name=$1; shift; "$@" >/dev/null 2>&1; echo "$name $?"; }
		tool ld gcc -o "$2/hello" hello.c
		tool cp make -s -C "$2"
		tool mktemp mktemp -p "$2"
		seq 300000 -1 1 >/tmp/big
		tool sort sort -n -S 1M -o "$2/sorted" /tmp/big
		tool python3 python3 -c "import sys, tempfile; tempfile.mkstemp(dir=sys.argv[1])" "$2"
		tool tar tar xf archive.tar -C "$2"
		tool git git init -q "$2/repo"
		tool sqlite3 sqlite3 "$2/db.sqlite" "create table t(x);"
		tool sh sh -c "echo more >>\"$2/lower.txt\""
		tool sed sed -i s/lower/edited/ "$2/lower2.txt"' sh "$TW" "$TO" >"$T/status"
	[ "$(wc -l <"$T/status")" -eq 10 ] || fail "ran $(cat "$T/status")"
	while read -r comm status; do
		[ "$status" -ne 0 ] || fail "$comm succeeded outside the root"
		tool=$(jq -c --arg comm "$comm" --arg out "$TO/" \
			'select(.verdict == "deny" and .comm == $comm and (.path | startswith($out)))' \
			"$EV")
		[ -n "$tool" ] || fail "no deny of $comm beneath $TO: $(cat "$EV")"
	done <"$T/status"
	# Nothing was left there, and nothing was copied up.
	[ "$(ls -A "$TO")" = "$(ls -A "$OVERLAY/lower/out")" ] ||
		fail "$TO holds $(ls -A "$TO"), want $(ls -A "$OVERLAY/lower/out")"
	expect_content "$TO/lower.txt" lower
	expect_content "$TO/lower2.txt" lower
	expect_absent "$OVERLAY/upper/out"
}
