/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which Kubernetes pod and container a cgroup belongs to, read from the shape
 * of its cgroup2 path: the kubelet and the container runtime name the
 * cgroups they create after the pod UID and the container ID.
 */
#ifndef CGWARD_POD_IDENTITY_H
#define CGWARD_POD_IDENTITY_H

struct pod_identity {
	char pod_uid[37];      /* 8-4-4-4-12 lowercase hex, or 32 hex for static pods */
	char container_id[65]; /* 64 lowercase hex, "" for the pod's own cgroup */
	char runtime[16];      /* "containerd", "cri-o", "docker", "" when the path doesn't say */
	char qos[16];	       /* "guaranteed", "burstable", "besteffort" */
};

/*
 * Parses a cgroup2 path relative to the root, e.g.
 * "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid with _>.slice/
 * cri-containerd-<id>.scope", for both kubelet cgroup drivers:
 * - systemd: "[<root>-]kubepods[-<qos>]-pod<uid with _>.slice" holding
 *   "cri-containerd-<id>.scope", "crio-<id>.scope" or "docker-<id>.scope";
 *   also containerd's "<pod slice>:cri-containerd:<id>" left by a runtime
 *   that runs the cgroupfs driver under a systemd kubelet;
 * - cgroupfs: "kubepods[/<qos>]/pod<uid>" holding "<id>" (containerd,
 *   cri-dockerd: runtime "") or "crio-<id>",
 * anywhere below a prefix such as "/system.slice/containerd.service" or a kind
 * node's "/kubelet.slice/kubelet-kubepods.slice/...". Components below the
 * container's cgroup are the container's. CRI-O's "crio-conmon-<id>" holds
 * the monitor, not the container: container_id "", runtime "cri-o"; any other
 * unrecognised child of the pod cgroup is likewise pod-level.
 *
 * Returns 0 when a pod was found (container_id "" for the pod-level cgroup),
 * -ENOENT otherwise (id then zeroed), -EINVAL for NULL arguments. Reads only
 * up to the string's NUL; IDs are validated (UUID or 32 hex, 64 hex).
 */
int pod_identity_parse(const char *cgroup_path, struct pod_identity *id);

#endif
