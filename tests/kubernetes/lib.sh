# Shared by the Kubernetes suite (in the VM): containerd with the CRI plugin
# on tmpfs, the local image, pods and containers made through CRI, the agent.
# shellcheck shell=bash

K8S_WORK=${K8S_WORK:-/tmp/cgward-k8s}
CRI_SOCK=$K8S_WORK/containerd.sock
CGWARD=${CGWARD:-$ROOT/build/cgward}
AGENT_PID=
CONTAINERD_PID=
CRI_PID=
CRI_REQUESTS=$K8S_WORK/cri.requests
# Generous: containerd, runc and node run under emulation, beside other VMs.
WAIT_S=${WAIT_S:-180}

log() { echo "k8s: $*" >&2; }

# wait_for SECONDS CMD...: until CMD succeeds; 1 after SECONDS.
wait_for() {
	local secs=$1 end
	shift
	end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# cri METHOD [ARG...]: a CRI call (cri.mjs), its reply on stdout, why it
# failed on stderr, its status. Through one node for the suite: a node per
# call loaded grpc-js for seconds under emulation. A request goes whole
# under a lock, as concurrent calls' could mix; the reply comes to a FIFO of
# the call's own, within a bound should the node be gone.
cri() {
	local reply status
	reply=$(mktemp -u "$K8S_WORK/cri-reply.XXXXXX")
	mkfifo "$reply" || return 1
	{ flock 9 && printf '%s\0' "$#" "$reply" "$@" >&"$CRI_FD"; } 9>"$CRI_REQUESTS.lock"
	timeout 900 cat "$reply" >"$reply.out"
	{
		read -r status
		if [ "$status" = 0 ]; then cat; else cat >&2; fi
	} <"$reply.out"
	rm -f "$reply" "$reply.out"
	return "${status:-1}"
}

# cri_start: cri.mjs serving cri's calls. The suite holds the requests' FIFO
# open too, so that a write never waits for a reader.
cri_start() {
	rm -f "$CRI_REQUESTS" && mkfifo "$CRI_REQUESTS" && exec {CRI_FD}<>"$CRI_REQUESTS" || return 1
	node "$HERE/cri.mjs" "$CRI_SOCK" "$CRI_REQUESTS" 2>"$K8S_WORK/cri.log" &
	CRI_PID=$!
}

cri_stop() {
	[ -n "$CRI_PID" ] || return 0
	kill "$CRI_PID" 2>/dev/null
	wait "$CRI_PID" 2>/dev/null
	CRI_PID=
}

containerd_start() {
	mkdir -p "$K8S_WORK"/{root,state,logs}
	cri_start || return 1
	cat >"$K8S_WORK/config.toml" <<TOML
version = 2
root = "$K8S_WORK/root"
state = "$K8S_WORK/state"
[grpc]
  address = "$CRI_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "cgward.test/pause:1"
  disable_apparmor = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
TOML
	containerd --config "$K8S_WORK/config.toml" >"$K8S_WORK/containerd.log" 2>&1 &
	CONTAINERD_PID=$!
	if ! wait_for "$WAIT_S" test -S "$CRI_SOCK" || ! wait_for "$WAIT_S" cri Version; then
		tail -20 "$K8S_WORK/containerd.log" >&2
		return 1
	fi
	"$HERE/make-image" "$K8S_WORK/images.tar" &&
		ctr -a "$CRI_SOCK" -n k8s.io images import "$K8S_WORK/images.tar" >/dev/null
}

containerd_stop() {
	cri_stop
	[ -n "$CONTAINERD_PID" ] || return 0
	kill "$CONTAINERD_PID" 2>/dev/null
	wait "$CONTAINERD_PID" 2>/dev/null
	CONTAINERD_PID=
}

# pod_config NAMESPACE NAME UID [LABELS-JSON [ANNOTATIONS-JSON]]: a host-network
# pod under the cgroupfs driver's kubepods/besteffort/pod<uid>, as the kubelet asks.
pod_config() {
	printf '{"metadata":{"name":"%s","uid":"%s","namespace":"%s","attempt":0},' "$2" "$3" "$1"
	printf '"hostname":"","log_directory":"%s/logs/%s","labels":%s,' "$K8S_WORK" "$3" "${4:-{\}}"
	printf '"annotations":%s,' "${5:-{\}}"
	printf '"linux":{"cgroup_parent":"/kubepods/besteffort/pod%s",' "$3"
	printf '"security_context":{"namespace_options":{"network":"NODE"}}}}'
}

# run_pod NAMESPACE NAME UID [LABELS-JSON [ANNOTATIONS-JSON]]: prints the sandbox id.
run_pod() {
	local config
	config=$(pod_config "$@")
	mkdir -p "$K8S_WORK/logs/$3"
	cri RunPodSandbox "{\"config\":$config}" | sed -n 's/.*"pod_sandbox_id":"\([0-9a-f]*\)".*/\1/p'
}

# create_container SANDBOX NAMESPACE NAME UID CONTAINER SCRIPT [MOUNTS-JSON [ANNOTATIONS-JSON]]:
# busybox sh -c SCRIPT (its newlines and tabs become spaces: end commands with ;);
# prints the container id.
create_container() {
	local sandbox=$1 config script
	config=$(pod_config "$2" "$3" "$4" "{}" "${8:-{\}}")
	script=$(printf '%s' "$6" | tr '\n\t' '  ' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
	cri CreateContainer "{\"pod_sandbox_id\":\"$sandbox\",\"sandbox_config\":$config,
		\"config\":{\"metadata\":{\"name\":\"$5\"},\"image\":{\"image\":\"cgward.test/busybox:1\"},
		\"command\":[\"/bin/sh\",\"-c\",\"$script\"],\"log_path\":\"$5.log\",
		\"mounts\":${7:-[]}}}" | sed -n 's/.*"container_id":"\([0-9a-f]*\)".*/\1/p'
}

start_container() { cri StartContainer "{\"container_id\":\"$1\"}" >/dev/null; }

# container_exit ID: waits for it to exit, prints its exit code.
container_exit() {
	cri wait-exit "$1" "$WAIT_S" | sed -n 's/.*"exit_code":\([0-9-]*\).*/\1/p'
}

container_status() { cri ContainerStatus "{\"container_id\":\"$1\"}"; }

# remove_pods: every pod sandbox, stopped and removed (all at once).
remove_pods() {
	local pods
	pods=$(cri ListPodSandbox | grep -o '"id":"[0-9a-f]*"' | cut -d'"' -f4) || return 1
	[ -z "$pods" ] && return 0
	# shellcheck disable=SC2086 # one argument per sandbox id
	cri remove-pods $pods >/dev/null
}

# agent_start POLICY EVENTS [BUNDLES]: the agent in its own cgroup, until it says ready.
agent_start() {
	mkdir -p /sys/fs/cgroup/cgward-k8s-agent
	(
		echo $BASHPID >/sys/fs/cgroup/cgward-k8s-agent/cgroup.procs
		exec "$CGWARD" agent --policy "$1" --events "$2" --socket "$K8S_WORK/events.sock" \
			--bundles "${3:-$K8S_WORK/state/io.containerd.runtime.v2.task/k8s.io}" \
			--cri-socket "$CRI_SOCK"
	) >"$K8S_WORK/agent.out" 2>"$K8S_WORK/agent.err" &
	AGENT_PID=$!
	if ! wait_for "$WAIT_S" grep -q 'agent: ready' "$K8S_WORK/agent.err"; then
		cat "$K8S_WORK/agent.err" >&2
		return 1
	fi
}

agent_stop() {
	[ -n "$AGENT_PID" ] || return 0
	kill "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
	AGENT_PID=
	: >"$K8S_WORK/agent.err"
}
