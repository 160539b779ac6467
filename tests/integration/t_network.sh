# The network policy (issue 8): --no-network denies connect, bind and sendmsg
# to IPv4 and IPv6 addresses; --allow-loopback keeps loopback reachable.
# Nothing listens on port 9 (discard) here, so a connect that reaches the
# network stack is refused; 192.0.2.1 (TEST-NET-1) is not routed.
# shellcheck shell=bash

# not_eperm CMD...: CMD's answer is the network's own, not a deny.
not_eperm() {
	local got
	got=$("$@" 2>&1) || true
	[ "$got" != EPERM ] || fail "'$*' was denied"
}

test_no_network_denies_connect_bind_and_sendto() {
	expect "$(lines EPERM EPERM EPERM EPERM)" cgx --root "$W" --no-network -- sh -c "
		$HATCHOP connect 127.0.0.1 9; $HATCHOP connect ::1 9
		$HATCHOP bind 0.0.0.0 0; $HATCHOP sendto 192.0.2.1 9"
	expect_events 4 '.verdict == "deny" and .reason == "network"'
	expect_events 1 '.op == "connect" and .family == "inet" and .address == "127.0.0.1" and .port == 9'
	expect_events 1 '.op == "connect" and .family == "inet6" and .address == "::1" and .port == 9'
	expect_events 1 '.op == "bind" and .address == "0.0.0.0"'
	expect_events 1 '.op == "sendmsg" and .address == "192.0.2.1" and .port == 9'
	# The controls: outside, and inside a boundary that leaves the network alone.
	expect ECONNREFUSED "$HATCHOP" connect 127.0.0.1 9
	not_eperm "$HATCHOP" sendto 192.0.2.1 9
	expect "$(lines ECONNREFUSED ok)" cgx --root "$W" -- sh -c "
		$HATCHOP connect 127.0.0.1 9; $HATCHOP bind 0.0.0.0 0"
	expect_events 4 true
}

test_allow_loopback_keeps_only_loopback() {
	expect "$(lines ECONNREFUSED ECONNREFUSED ok EPERM EPERM)" \
		cgx --root "$W" --no-network --allow-loopback -- sh -c "
		$HATCHOP connect 127.0.0.1 9; $HATCHOP connect ::1 9; $HATCHOP bind 127.0.0.1 0
		$HATCHOP connect 192.0.2.1 9; $HATCHOP bind 0.0.0.0 0"
	expect_events 1 '.op == "connect" and .address == "192.0.2.1" and .reason == "network"'
	expect_events 1 '.op == "bind" and .address == "0.0.0.0"'
	expect_events 2 true
}

test_allow_loopback_without_no_network_is_a_usage_error() {
	expect_status 2 cgx --root "$W" --allow-loopback -- touch "$W/ran"
	expect_absent "$W/ran"
}

# A stream listener and a datagram socket outside the roots, a listener inside.
test_no_unix_outside_denies_sockets_outside_the_roots() {
	local servers=()
	# All three append: a writer without O_APPEND would write its "ok" at
	# offset 0, over another's.
	: >"$T/serve.out"
	"$HATCHOP" unix-serve "$O/stream" >>"$T/serve.out" &
	servers+=($!)
	"$HATCHOP" unix-serve "$O/dgram" dgram >>"$T/serve.out" &
	servers+=($!)
	"$HATCHOP" unix-serve "$W/stream" >>"$T/serve.out" &
	servers+=($!)
	wait_line "$T/serve.out" ok 3
	expect "$(lines EPERM EPERM ok)" cgx --root "$W" --no-unix-outside -- sh -c "
		$HATCHOP unix-connect $O/stream; $HATCHOP unix-sendto $O/dgram
		$HATCHOP unix-connect $W/stream"
	expect_events 1 ".verdict == \"deny\" and .op == \"unix_connect\" and .path == \"$O/stream\"
		and .reason == \"outside_roots\""
	expect_events 1 ".op == \"unix_connect\" and .path == \"$O/dgram\""
	expect_events 2 true
	# The controls: a boundary with --allow-unix-all, and outside.
	expect "$(lines ok ok)" cgx --root "$W" --allow-unix-all -- sh -c "
		$HATCHOP unix-connect $O/stream; $HATCHOP unix-sendto $O/dgram"
	expect ok "$HATCHOP" unix-connect "$O/stream"
	kill "${servers[@]}"
}

# The default of cgward exec (issue 18): unix sockets outside the roots are
# denied unless --allow-unix names them; that makes nothing writable.
test_unix_sockets_outside_are_denied_by_default_unless_allowed() {
	local servers=()
	: >"$T/serve.out"
	"$HATCHOP" unix-serve "$O/agent.sock" >>"$T/serve.out" &
	servers+=($!)
	"$HATCHOP" unix-serve "$O/other" >>"$T/serve.out" &
	servers+=($!)
	"$HATCHOP" unix-serve "$O/dgram" dgram >>"$T/serve.out" &
	servers+=($!)
	wait_line "$T/serve.out" ok 3
	ln -s "$O/agent.sock" "$T/agent-link"
	expect "$(lines EPERM EPERM)" cgx --root "$W" -- sh -c "
		$HATCHOP unix-connect $O/agent.sock; $HATCHOP unix-sendto $O/dgram"
	expect_events 1 ".op == \"unix_connect\" and .path == \"$O/agent.sock\" and .reason == \"outside_roots\""
	: >"$EV"
	# Through a symbolic link, as \$SSH_AUTH_SOCK may be; with --private-tmp
	# (O lies beneath /tmp) the socket is bound back at its path.
	expect "$(lines ok ok EPERM EPERM EPERM)" \
		cgx --root "$W" --allow-unix "$T/agent-link" -- sh -c "
		$HATCHOP unix-connect $O/agent.sock; $HATCHOP unix-connect $T/agent-link
		$HATCHOP unix-connect $O/other; $FSOP chmod $O/agent.sock
		$FSOP unlink $O/agent.sock"
	expect_events 1 ".op == \"unix_connect\" and .path == \"$O/other\""
	expect_events 1 ".op == \"setattr\" and .path == \"$O/agent.sock\""
	expect_events 1 ".op == \"unlink\" and .path == \"$O/agent.sock\""
	# With --private-tmp (T lies beneath /tmp) the socket is bound back at the
	# path given; a chmod through that bind mount is denied as well.
	expect "$(lines ok EPERM ENOENT)" \
		cgx --root "$W" --allow-unix "$T/agent-link" --private-tmp -- sh -c "
		$HATCHOP unix-connect $T/agent-link; $FSOP chmod $T/agent-link
		$HATCHOP unix-connect $O/other"
	expect_events 2 ".op == \"setattr\" and .reason == \"outside_roots\""
	[ "$(stat -c %a "$O/agent.sock")" != 600 ] || fail "the socket was chmodded"
	[ -S "$O/agent.sock" ] || fail "the socket is gone"
	expect_status 2 cgx --root "$W" --allow-unix "$T/serve.out" -- true
	expect_status 2 cgx --root "$W" --allow-unix-all --allow-unix "$O/other" -- true
	kill "${servers[@]}"
}

# Abstract sockets: those created inside the boundary are reachable, others
# are not (as Landlock scopes them), unless --allow-unix-all.
test_abstract_unix_sockets_outside_the_boundary_are_denied() {
	local server name=cgward-test-$$
	"$HATCHOP" unix-serve "@$name" >"$T/serve.out" &
	server=$!
	wait_line "$T/serve.out" ok
	expect "$(lines EPERM ok)" cgx --root "$W" -- sh -c "
		$HATCHOP unix-connect @$name
		$HATCHOP unix-serve @$name-in > $W/in.out &
		for i in \$(seq 200); do grep -q ok $W/in.out && break; sleep 0.05; done
		$HATCHOP unix-connect @$name-in; kill \$!"
	expect_events 1 ".op == \"unix_connect\" and .path == \"@$name\" and .reason == \"outside_boundary\""
	expect_events 1 true
	expect ok cgx --root "$W" --allow-unix-all -- "$HATCHOP" unix-connect "@$name"
	kill "$server"
}

# The policy file's keys: network and unix_outside, applied by the agent.
test_agent_policy_denies_the_network_and_unix_sockets_outside() {
	"$HATCHOP" unix-serve "$O/stream" >"$T/serve.out" &
	local server=$!
	wait_line "$T/serve.out" ok
	{
		agent_policy jobs "$W" false "$REL/job"
		printf '    network: loopback\n    unix_outside: deny\n'
	} >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job"
	agent_start
	expect "$(lines EPERM ECONNREFUSED EPERM)" in_cg "$SUITE_CGROUP/job" sh -c "
		$HATCHOP connect 192.0.2.1 9; $HATCHOP connect 127.0.0.1 9
		$HATCHOP unix-connect $O/stream"
	wait_line "$EV" '"op":"unix_connect"'
	expect_events 1 '.op == "connect" and .address == "192.0.2.1" and .policy == "jobs"'
	expect_events 1 ".op == \"unix_connect\" and .path == \"$O/stream\" and .policy == \"jobs\""
	kill "$server"
	agent_stop
}
