# shellcheck shell=bash
# Assertions shared by the tests/deploy shell tests: each failed check is
# printed, and the test exits non-zero at the end if any failed.
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

assert_eq() { # what expected actual
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

assert_mode() { # mode file
	if [ ! -f "$2" ]; then
		fail "$2: missing"
		return
	fi
	assert_eq "mode of $2" "$1" "$(stat -c %a "$2")"
}

assert_same_file() { # expected actual
	cmp -s "$1" "$2" || fail "$2 differs from $1"
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$0: $failures check(s) failed" >&2
		exit 1
	fi
	echo "$0: ok"
}
