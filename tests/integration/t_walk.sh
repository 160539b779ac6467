# The path walk (issue 16): the fast walk over tagged roots hands over to
# the general walk past its steps, at a mount, and wherever a tag cannot be
# trusted; the verdicts are those of the general walk alone.
# shellcheck shell=bash

# A directory DEPTH components below $1, made; prints its path.
nested_dir() {
	local dir=$1 depth=$2
	for _ in $(seq "$depth"); do
		dir=$dir/d
	done
	mkdir -p "$dir"
	echo "$dir"
}

test_root_above_the_fast_walk_steps_allows_and_too_deep_denies() {
	local deep too_deep
	deep=$(nested_dir "$W" 40)
	too_deep=$(nested_dir "$W" 130)
	expect "$(lines ok EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP write $deep/f x; $FSOP write $too_deep/f x"
	expect_content "$deep/f" x
	expect_absent "$too_deep/f"
	expect_events 1 ".verdict == \"deny\" and .reason == \"too_deep\""
}

test_root_above_a_mount_point_allows_writes_in_the_mount() {
	mkdir "$W/mnt"
	mount -t tmpfs none "$W/mnt" || fail "cannot mount a tmpfs"
	mkdir "$W/mnt/sub"
	expect "$(lines ok ok EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP write $W/mnt/f x; $FSOP write $W/mnt/sub/f x; $FSOP write $O/f x"
	expect_content "$W/mnt/sub/f" x
	umount "$W/mnt"
	expect_denies "create $O/f"
}

# A root of a policy with exceptions beneath it is judged by the general
# walk for that policy alone: a run without them, on the same directory,
# writes there (tags, never removed, say only that some policy has a root).
test_a_root_with_exceptions_in_one_policy_serves_others() {
	mkdir "$W/ro"
	expect "$(lines EPERM ok)" cgx --root "$W" --ro "$W/ro" -- \
		sh -c "$FSOP write $W/ro/f x; $FSOP write $W/f x"
	expect "$(lines ok ok)" cgx --root "$W" -- \
		sh -c "$FSOP write $W/ro/f y; $FSOP write $W/g y"
	expect_content "$W/ro/f" y
	expect "$(lines EPERM)" cgx --root "$W" --ro "$W/ro" -- "$FSOP" write "$W/ro/f" z
	expect_content "$W/ro/f" y
	expect_events 2 ".verdict == \"deny\" and .reason == \"read_only\""
}

# A directory that was a root and is a root no more keeps its tag: the walk
# finds no entry for the policy there and goes on.
test_a_former_root_inside_a_root_is_not_one() {
	mkdir "$W/old"
	cgx --root "$W/old" -- true
	expect "$(lines ok ok)" cgx --root "$W" -- \
		sh -c "$FSOP write $W/old/f x; $FSOP write $W/f x"
	expect "$(lines EPERM)" cgx --root "$T" --ro "$W" -- "$FSOP" write "$W/old/g" x
	expect_absent "$W/old/g"
}

# The walk cache (walk_cache in bpf/decision.bpf.h): a directory remembers
# the write root that a walk from it met first. Each test fills it with a
# write, then changes one thing that the cache must not hide: a rename,
# another policy, a read-only exception, a bind mount.

test_a_directory_moved_out_of_its_root_is_judged_where_it_is() {
	mkdir -p "$W/a/b"
	cgx --root "$W" -- sh -c "$FSOP write $W/a/b/f x > $W/first; : > $W/filled
		while [ ! -e $W/moved ]; do sleep 0.1; done
		exec $FSOP write $O/a/b/g x > $W/second" &
	local cgward=$!
	while [ ! -e "$W/filled" ]; do sleep 0.1; done
	mv "$W/a" "$O/a"
	touch "$W/moved"
	wait "$cgward" || true
	expect_content "$W/first" ok
	expect_content "$W/second" EPERM
	expect_absent "$O/a/b/g"
	expect_denies "create $O/a/b/g"
}

test_a_root_cached_for_one_run_is_no_root_of_another() {
	mkdir -p "$W/a/b" "$W/other"
	expect ok cgx --root "$W" -- "$FSOP" write "$W/a/b/f" x
	expect "$(lines EPERM ok)" cgx --root "$W/other" -- \
		sh -c "$FSOP write $W/a/b/g x; $FSOP write $W/other/g x"
	expect_absent "$W/a/b/g"
	expect_denies "create $W/a/b/g"
}

test_a_read_only_exception_below_a_cached_root_holds() {
	mkdir -p "$W/ro/sub"
	expect ok cgx --root "$W" -- "$FSOP" write "$W/ro/sub/f" x
	expect EPERM cgx --root "$W" --ro "$W/ro" -- "$FSOP" write "$W/ro/sub/g" x
	expect_absent "$W/ro/sub/g"
	expect_denies "create $W/ro/sub/g"
	expect_events 1 ".reason == \"read_only\" and .root == \"$W/ro\""
}

test_a_bind_mount_of_a_cached_directory_outside_the_root_is_outside() {
	mkdir -p "$W/a/b" "$O/mnt"
	mount --bind "$W/a/b" "$O/mnt" || fail "cannot bind mount $W/a/b"
	# The first write fills the cache (mount(8) renames its utab: not before it).
	expect "$(lines ok EPERM)" cgx --root "$W" -- \
		sh -c "$FSOP write $W/a/b/f x; $FSOP write $O/mnt/g x"
	umount "$O/mnt"
	expect_content "$W/a/b/f" x
	expect_absent "$W/a/b/g"
	expect_denies "create $O/mnt/g"
}
