// What the Kubernetes schemas cannot see in deploy/kubernetes: the
// kustomization lists every manifest, the manifests refer to each other by
// the right names, the DaemonSet has what the agent needs from the node, and
// every policy (the ConfigMap's, deploy/policy.yaml, the examples) has the
// shape of the policy format.
//
// Usage: node check_bundle.mjs DIR DEFAULT_POLICY   exit 1 on any failure.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import Ajv from "ajv";

const [dir, defaultPolicy] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const load = (file) => parse(readFileSync(file, "utf8"));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const kustomization = load(join(dir, "kustomization.yaml"));
const manifests = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
check(kustomization.apiVersion === "kustomize.config.k8s.io/v1beta1" && kustomization.kind === "Kustomization",
  "kustomization.yaml: apiVersion/kind");
for (const key of Object.keys(kustomization))
  check(["apiVersion", "kind", "resources", "images"].includes(key), `kustomization.yaml: unexpected key ${key}`);
check(same([...kustomization.resources].sort(), manifests),
  `kustomization.yaml: resources ${kustomization.resources} are not the manifests ${manifests}`);

const objects = manifests.map((f) => load(join(dir, f)));
const byKind = (kind) => objects.filter((o) => o.kind === kind);
const [namespace] = byKind("Namespace"), [account] = byKind("ServiceAccount");
const [configMap] = byKind("ConfigMap"), [daemonSet] = byKind("DaemonSet");
check(namespace && account && configMap && daemonSet, "one Namespace, ServiceAccount, ConfigMap and DaemonSet");
for (const o of objects.filter((o) => o.kind !== "Namespace"))
  check(o.metadata.namespace === namespace.metadata.name, `${o.kind}: namespace ${o.metadata.namespace}`);

const pod = daemonSet.spec.template.spec;
const [agent] = pod.containers;
check(pod.serviceAccountName === account.metadata.name, "DaemonSet: serviceAccountName");
check(pod.hostPID === true, "DaemonSet: hostPID");
check(pod.priorityClassName === "system-node-critical", "DaemonSet: priorityClassName");
check(same(pod.tolerations, [{ operator: "Exists" }]), "DaemonSet: tolerations operator Exists");
check(daemonSet.spec.updateStrategy?.type === "RollingUpdate", "DaemonSet: RollingUpdate");
check(same(daemonSet.spec.selector.matchLabels, daemonSet.spec.template.metadata.labels),
  "DaemonSet: selector matches the template's labels");
check(same(agent.readinessProbe?.exec?.command, ["/usr/bin/cgward", "status"]), "readinessProbe: cgward status");
check(same(agent.args, ["--policy", "/etc/cgward/policy.yaml", "--metrics", "0.0.0.0:9464"]), "agent args");
// Prometheus finds the agent by the pod's annotations, on the port it listens on.
const annotations = daemonSet.spec.template.metadata.annotations ?? {};
check(annotations["prometheus.io/scrape"] === "true", "pod annotation prometheus.io/scrape");
check(annotations["prometheus.io/port"] === "9464", "pod annotation prometheus.io/port: 9464");
check(annotations["prometheus.io/path"] === "/metrics", "pod annotation prometheus.io/path");
check(same(agent.ports, [{ name: "metrics", containerPort: 9464, protocol: "TCP" }]),
  "agent: containerPort 9464 named metrics");
for (const r of ["requests", "limits"])
  check(agent.resources?.[r]?.cpu && agent.resources?.[r]?.memory, `resources.${r}: cpu and memory`);

const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
const mounts = Object.fromEntries(agent.volumeMounts.map((m) => [m.mountPath, m]));
for (const m of agent.volumeMounts) check(volumes[m.name], `volumeMount ${m.name}: no such volume`);
const hostMounts = {
  "/sys/fs/bpf": { readOnly: false, propagation: "Bidirectional" },
  "/sys/kernel/btf": { readOnly: true },
  "/sys/fs/cgroup": { readOnly: false },
  "/sys/kernel/security": { readOnly: true },
  "/run/cgward": { readOnly: false },
  "/var/lib/kubelet/pods": { readOnly: true, propagation: "HostToContainer" },
  // Bundles and container root file systems: the kubernetes selector, container_roots.
  "/run/containerd": { readOnly: true, propagation: "HostToContainer" },
  "/run/containers/storage": { readOnly: true, propagation: "HostToContainer" },
};
for (const [path, want] of Object.entries(hostMounts)) {
  const m = mounts[path];
  check(m && volumes[m.name]?.hostPath?.path === path, `${path}: mounted from the host's ${path}`);
  check(m && Boolean(m.readOnly) === want.readOnly, `${path}: readOnly ${want.readOnly}`);
  check(m && (m.mountPropagation ?? "None") === (want.propagation ?? "None"), `${path}: propagation`);
}
check(volumes[mounts["/etc/cgward"]?.name]?.configMap?.name === configMap.metadata.name,
  "/etc/cgward: the policy ConfigMap");
// The API server refuses Bidirectional propagation to unprivileged containers.
check(agent.securityContext?.privileged === true, "agent: privileged (Bidirectional /sys/fs/bpf)");

const ajv = new Ajv({ allErrors: true });
const validatePolicy = ajv.compile(JSON.parse(readFileSync(new URL("policy.schema.json", import.meta.url))));
const policies = {
  [`${dir}/configmap.yaml data policy.yaml`]: parse(configMap.data["policy.yaml"]),
  [defaultPolicy]: load(defaultPolicy),
};
for (const f of readdirSync(join(dir, "examples")).filter((f) => f.endsWith(".yaml")))
  policies[join(dir, "examples", f)] = load(join(dir, "examples", f));
for (const [name, policy] of Object.entries(policies)) {
  if (!validatePolicy(policy))
    for (const e of validatePolicy.errors) failures.push(`${name}: ${e.instancePath || "/"} ${e.message}`);
}
check(same(policies[defaultPolicy], Object.values(policies)[0]),
  "the ConfigMap's policy is the default policy");

for (const f of failures) console.log(`FAIL: ${f}`);
console.log(failures.length ? `check_bundle: ${failures.length} failure(s)` : "check_bundle: ok");
process.exit(failures.length ? 1 : 0);
