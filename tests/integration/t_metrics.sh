# cgward agent --metrics: the Prometheus text format at /metrics (issue 17),
# checked by promtool and scraped by a real Prometheus server.
# shellcheck shell=bash

METRICS_PORT=19464
PROMETHEUS_PORT=19090
PROMETHEUS_PID=

# metrics_get [PATH]: the agent's answer on stdout; fails on an HTTP error.
metrics_get() {
	curl -sSf --max-time 10 "http://127.0.0.1:$METRICS_PORT${1:-/metrics}"
}

# wait_metric LINE: a scrape holds LINE exactly, within 10 s.
wait_metric() {
	for _ in $(seq 200); do
		metrics_get >"$T/metrics" && grep -qxF -- "$1" "$T/metrics" && return 0
		sleep 0.05
	done
	fail "no line '$1' in /metrics: $(cat "$T/metrics")"
}

prometheus_stop() {
	if [ -n "$PROMETHEUS_PID" ]; then
		kill "$PROMETHEUS_PID" 2>/dev/null
		wait "$PROMETHEUS_PID" 2>/dev/null
		PROMETHEUS_PID=
	fi
}

# The kernel's count, exact at once: no wait for the agent to read the events.
test_metrics_counts_denies_and_passes_promtool() {
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-1"
	agent_start --metrics "127.0.0.1:$METRICS_PORT"
	expect "$(lines EPERM EPERM EPERM ok)" in_cg "$SUITE_CGROUP/job-1" sh -c "
		'$FSOP' write '$O/a' x; '$FSOP' mkdir '$O/b'; '$FSOP' write '$O/c' x; '$FSOP' write '$W/c' x"
	metrics_get >"$T/metrics"
	promtool check metrics <"$T/metrics" >"$T/promtool.out" 2>&1 ||
		fail "promtool check metrics: $(cat "$T/promtool.out")"
	grep -qxF 'cgward_denies_total{policy="jobs"} 3' "$T/metrics" ||
		fail "want 3 denies: $(cat "$T/metrics")"
	grep -qxF 'cgward_audits_total{policy="jobs"} 0' "$T/metrics"
	grep -qxF 'cgward_cgroups_bound{policy="jobs"} 1' "$T/metrics"
	# The build of this cgward and of the plane it adopted: one and the same.
	grep -qx 'cgward_build_info{version="[0-9.]*",abi="\([0-9]*\)",object="\([0-9a-f]\{16\}\)",plane_abi="\1",plane_object="\2"} 1' \
		"$T/metrics" || fail "build info: $(grep build_info "$T/metrics")"
	"$CGWARD" status | grep -qF "$(sed -n \
		's/^cgward_build_info{.*plane_abi="\([0-9]*\)",plane_object="\([0-9a-f]*\)"} 1$/plane: ABI \1, object \2/p' \
		"$T/metrics")" || fail "status names another plane: $("$CGWARD" status)"
	grep -qxF "cgward_policy_info{file=\"$T/policy.yaml\",sha256=\"$(sha256_of "$T/policy.yaml")\",rules=\"1\"} 1" \
		"$T/metrics" || fail "policy info: $(grep policy_info "$T/metrics")"
	local in_force
	in_force=$(sha256_of "$T/policy.yaml")
	grep -qx 'cgward_programs_attached [1-9][0-9]*' "$T/metrics"
	grep -qxF 'cgward_events_lost_total 0' "$T/metrics"
	# A rejected reload is counted; the policy in force stays.
	printf 'policies:\n  - name: jobs\n    colour: blue\n' >"$T/policy.yaml"
	wait_metric 'cgward_reloads_total{result="invalid"} 1'
	grep -qxF 'cgward_reloads_total{result="ok"} 0' "$T/metrics"
	grep -qxF "cgward_policy_info{file=\"$T/policy.yaml\",sha256=\"$in_force\",rules=\"1\"} 1" \
		"$T/metrics" || fail "policy info after the rejected reload: $(grep policy_info "$T/metrics")"
	# A valid one is in force at the next scrape.
	agent_policy jobs "$O" false "$REL/job-*" "$REL/other" >"$T/policy.yaml"
	wait_metric "cgward_policy_info{file=\"$T/policy.yaml\",sha256=\"$(sha256_of "$T/policy.yaml")\",rules=\"1\"} 1"
	[ "$(grep -c '^cgward_policy_info{' "$T/metrics")" -eq 1 ] ||
		fail "policy info: $(grep policy_info "$T/metrics")"
	expect_status 22 curl -sf -o /dev/null "http://127.0.0.1:$METRICS_PORT/other"
	expect_absent "$O/a"
	agent_stop
}

test_metrics_bad_address_exits_2_and_loads_nothing() {
	cgward_ok unload --force # an earlier exec's plane
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	expect_status 2 "$CGWARD" agent --policy "$T/policy.yaml" --metrics localhost:9464
	[ ! -e "$PINS" ] || fail "pinned although the option was invalid"
}

# A real Prometheus server scrapes the agent every second and answers the
# query for the deny count through its HTTP API.
test_metrics_prometheus_server_scrapes_the_deny_count() {
	local query=$T/query.json
	agent_policy jobs "$W" false "$REL/job-*" >"$T/policy.yaml"
	mkdir "$SUITE_CGROUP/job-1"
	agent_start --metrics "127.0.0.1:$METRICS_PORT"
	trap 'prometheus_stop; agent_stop' EXIT
	expect "$(lines EPERM EPERM)" in_cg "$SUITE_CGROUP/job-1" sh -c "
		'$FSOP' write '$O/a' x; '$FSOP' mkdir '$O/b'"
	cat >"$T/prometheus.yml" <<-YAML
		global:
		  scrape_interval: 1s
		scrape_configs:
		  - job_name: cgward
		    static_configs:
		      - targets: ['127.0.0.1:$METRICS_PORT']
	YAML
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prometheus" \
		--web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >"$T/prometheus.log" 2>&1 &
	PROMETHEUS_PID=$!
	# Its start and first scrapes take seconds under emulation: up to 120 s.
	for _ in $(seq 600); do
		curl -sf --max-time 5 -G "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query" \
			--data-urlencode 'query=cgward_denies_total{policy="jobs"}' >"$query" 2>/dev/null &&
			grep -q '"value":\[[0-9.]*,"2"\]' "$query" && break
		sleep 0.2
	done
	grep -q '"value":\[[0-9.]*,"2"\]' "$query" ||
		fail "Prometheus answered: $(cat "$query"); its log: $(tail -n 20 "$T/prometheus.log")"
	jq -e '.data.result[0].metric | .job == "cgward" and .policy == "jobs"' "$query" >/dev/null ||
		fail "labels: $(cat "$query")"
	echo "prometheus answered: $(cat "$query")"
	# Which policy each node runs: one series per content, counting its nodes.
	curl -sf --max-time 5 -G "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query" \
		--data-urlencode 'query=count by (sha256) (cgward_policy_info)' >"$query" ||
		fail "query by sha256: $(cat "$query")"
	jq -e --arg sha "$(sha256_of "$T/policy.yaml")" \
		'.data.result == [{"metric": {"sha256": $sha}, "value": [.data.result[0].value[0], "1"]}]' \
		"$query" >/dev/null || fail "count by (sha256): $(cat "$query")"
	echo "prometheus answered: $(cat "$query")"
	prometheus_stop
	agent_stop
}
