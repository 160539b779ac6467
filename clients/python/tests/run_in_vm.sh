#!/bin/sh
# The Python client's real runs, in the test VM (make test-python): its
# kernel tests as root, then the whole suite as an ordinary user, confined by
# an agent through its exec socket (private_tmp, the default, included).
# CGWARD names the binary. $PYTEST is split into words on purpose.
set -eu
: "${CGWARD:?CGWARD must name the cgward binary}"
export PYTHONDONTWRITEBYTECODE=1 # the tree is not the user's to write
PYTEST="/usr/bin/python3 -m pytest -p no:cacheprovider"
USER_UID=65534
cd "$(dirname "$0")/.."

$PYTEST -m kernel tests

# The agent in a cgroup of its own; the runs are made within their callers'.
work=$(mktemp -d /run/cgward-python.XXXXXX)
root=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
cgroup=$root/python-agent
printf 'policies:\n  - name: quiet\n    selector:\n      cgroups: [/no-such-cgroup-*]\n    write_roots: [%s]\n' \
	"$work" >"$work/policy.yaml"
mkdir "$cgroup"
# shellcheck disable=SC2016 # expanded by sh -c
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cgroup" \
	"$CGWARD" agent --policy "$work/policy.yaml" >"$work/agent.out" 2>"$work/agent.log" &
agent=$!
stop_agent() {
	kill -TERM "$agent" 2>/dev/null || true
	wait "$agent" || true
	"$CGWARD" agent --unload --force >/dev/null 2>&1 || true
	left=$(find "$root" -type d -name 'cgward-[0-9]*' 2>/dev/null) || true
	find "$root" -type d -name 'cgward-[0-9]*' -exec rmdir {} + 2>/dev/null || true
	rmdir "$cgroup" || left="$left $cgroup"
	rm -rf "$work"
	[ -z "$left" ] || { echo "run_in_vm: cgroups left behind: $left" >&2; exit 1; }
}
trap stop_agent EXIT
for _ in $(seq 600); do
	grep -q "ready:" "$work/agent.log" && break
	kill -0 "$agent" || { cat "$work/agent.log" >&2; exit 1; }
	sleep 0.1
done
grep -q "ready:" "$work/agent.log" || { echo "run_in_vm: the agent is not ready" >&2; exit 1; }

setpriv --reuid=$USER_UID --regid=$USER_UID --clear-groups -- env HOME=/nonexistent \
	$PYTEST tests
