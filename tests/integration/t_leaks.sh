# valgrind over one real cgward exec run: an allowed write, a denied one and its event.
# valgrind needs the dynamically linked build (build/cgward is static).
# shellcheck shell=bash

CGWARD_DYNAMIC=${CGWARD_DYNAMIC:-$PWD/build/cgward-dynamic}

test_exec_run_has_no_leaks() {
	expect_status 0 tests/leakcheck "$CGWARD_DYNAMIC" exec --cgroup-parent "$SUITE_CGROUP" \
		--events "$EV" --root "$W" -- sh -c "echo a > $W/a; echo b > $O/b; true"
	expect_content "$W/a" a
	expect_absent "$O/b"
	expect_deny create "$O/b"
}
