/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pod's labels and annotations from the CRI runtime, as the kubelet asks
 * for them: one unary gRPC call, RuntimeService/PodSandboxStatus, over the
 * runtime's unix socket (HTTP/2 by libnghttp2, the messages by protobuf-c from
 * cri_sandbox.proto).
 * containerd's bundles do not carry the pod's labels; its CRI does.
 */
#ifndef CGWARD_CRI_CLIENT_H
#define CGWARD_CRI_CLIENT_H

#include <stddef.h>

#include "container_meta.h"

#define CRI_DEFAULT_SOCKET "/run/containerd/containerd.sock"

/*
 * Fills meta's labels and annotations (replacing those it has) from
 * PodSandboxStatus of sandbox_id, and sets has_labels. Gives up after
 * timeout_ms. Returns 0, or negative errno with the reason in err.
 */
int cri_pod_metadata(const char *socket_path, const char *sandbox_id, int timeout_ms,
		     struct container_meta *meta, char *err, size_t errlen);

/* Decodes a PodSandboxStatusResponse (without the gRPC prefix); for tests and fuzzing. */
int cri_parse_sandbox_status(const unsigned char *buf, size_t len, struct container_meta *meta);

#endif
