// SPDX-License-Identifier: GPL-2.0
#include "cri_client.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <nghttp2/nghttp2.h>

#include "clock.h"
#include "kubernetes/cri_sandbox.pb-c.h"

#define CRI_PATH       "/runtime.v1.RuntimeService/PodSandboxStatus"
#define REPLY_MAX      (1024 * 1024)
#define SANDBOX_ID_MAX 128
/* gRPC's prefix: a compressed flag, then the message's length (big-endian). */
#define GRPC_PREFIX 5

/* A map<string, string> entry's strings, copied: they outlive the unpacked message. */
static int add_pair(struct meta_pair *pairs, size_t *n, const char *key, const char *value)
{
	pairs[*n].key = strdup(key);
	pairs[*n].value = strdup(value);
	if (!pairs[*n].key || !pairs[*n].value) {
		free(pairs[*n].key);
		free(pairs[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int cri_parse_sandbox_status(const unsigned char *buf, size_t len, struct container_meta *meta)
{
	Runtime__V1__PodSandboxStatusResponse *reply;
	const Runtime__V1__PodSandboxStatus *status;
	struct meta_pair *labels, *annotations;
	size_t n_labels = 0, n_annotations = 0;
	int ret = 0;

	/* NULL for malformed input and for want of memory alike: either way nothing is kept. */
	reply = runtime__v1__pod_sandbox_status_response__unpack(NULL, len, buf);
	if (!reply)
		return -EINVAL;
	status = reply->status;
	if (!status) {
		runtime__v1__pod_sandbox_status_response__free_unpacked(reply, NULL);
		return -ENOENT;
	}
	/* + 1: calloc(0) may return NULL, which is not want of memory. */
	labels = calloc(status->n_labels + 1, sizeof(*labels));
	annotations = calloc(status->n_annotations + 1, sizeof(*annotations));
	if (!labels || !annotations)
		ret = -ENOMEM;
	for (size_t i = 0; ret == 0 && i < status->n_labels; i++)
		ret = add_pair(labels, &n_labels, status->labels[i]->key, status->labels[i]->value);
	for (size_t i = 0; ret == 0 && i < status->n_annotations; i++)
		ret = add_pair(annotations, &n_annotations, status->annotations[i]->key,
			       status->annotations[i]->value);
	runtime__v1__pod_sandbox_status_response__free_unpacked(reply, NULL);
	if (ret) {
		meta_pairs_free(labels, n_labels);
		meta_pairs_free(annotations, n_annotations);
		return ret;
	}
	container_meta_set_pod_labels(meta, labels, n_labels, annotations, n_annotations);
	return 0;
}

struct call {
	int fd;
	/* The prefix, then PodSandboxStatusRequest: a tag, a two-byte length at most, the id. */
	unsigned char request[GRPC_PREFIX + 3 + SANDBOX_ID_MAX];
	size_t request_len, request_sent;
	unsigned char *reply;
	size_t reply_len;
	int32_t stream_id;
	bool closed;
	uint32_t http2_error;
	char grpc_status[8];
	char grpc_message[128];
};

static ssize_t send_bytes(nghttp2_session *session, const uint8_t *data, size_t len, int flags,
			  void *arg)
{
	struct call *call = arg;
	ssize_t n = send(call->fd, data, len, MSG_NOSIGNAL);

	(void)session;
	(void)flags;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? NGHTTP2_ERR_WOULDBLOCK
							       : NGHTTP2_ERR_CALLBACK_FAILURE;
	return n;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
		   size_t len, void *arg)
{
	struct call *call = arg;
	unsigned char *grown;

	(void)session;
	(void)flags;
	if (stream_id != call->stream_id)
		return 0;
	if (call->reply_len + len > REPLY_MAX)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	grown = realloc(call->reply, call->reply_len + len);
	if (!grown)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	memcpy(grown + call->reply_len, data, len);
	call->reply = grown;
	call->reply_len += len;
	return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
		     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
		     void *arg)
{
	struct call *call = arg;

	(void)session;
	(void)frame;
	(void)flags;
	if (namelen == 11 && memcmp(name, "grpc-status", 11) == 0)
		snprintf(call->grpc_status, sizeof(call->grpc_status), "%.*s", (int)valuelen,
			 (const char *)value);
	else if (namelen == 12 && memcmp(name, "grpc-message", 12) == 0)
		snprintf(call->grpc_message, sizeof(call->grpc_message), "%.*s", (int)valuelen,
			 (const char *)value);
	return 0;
}

static int on_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *arg)
{
	struct call *call = arg;

	(void)session;
	if (stream_id == call->stream_id) {
		call->closed = true;
		call->http2_error = error_code;
	}
	return 0;
}

static ssize_t read_request(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
			    size_t length, uint32_t *flags, nghttp2_data_source *source, void *arg)
{
	struct call *call = arg;
	size_t n = call->request_len - call->request_sent;

	(void)session;
	(void)stream_id;
	(void)source;
	if (n > length)
		n = length;
	memcpy(buf, call->request + call->request_sent, n);
	call->request_sent += n;
	if (call->request_sent == call->request_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static int connect_unix(const char *path, int timeout_ms)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Sends and receives until the stream closes or timeout_ms pass. */
static int exchange(nghttp2_session *session, struct call *call, int timeout_ms)
{
	long long deadline = (long long)monotonic_ms() + timeout_ms;
	unsigned char buf[16384];

	while (!call->closed) {
		struct pollfd pfd = {.fd = call->fd, .events = POLLIN};
		int left = (int)(deadline - (long long)monotonic_ms());
		ssize_t n;

		if (nghttp2_session_send(session) != 0)
			return -EIO;
		if (left <= 0)
			return -ETIMEDOUT;
		if (nghttp2_session_want_write(session))
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(call->fd, buf, sizeof(buf), 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (nghttp2_session_mem_recv(session, buf, (size_t)n) < 0)
			return -EPROTO;
	}
	return 0;
}

int cri_pod_metadata(const char *socket_path, const char *sandbox_id, int timeout_ms,
		     struct container_meta *meta, char *err, size_t errlen)
{
	struct call call = {.fd = -1, .stream_id = -1};
	Runtime__V1__PodSandboxStatusRequest request =
	    RUNTIME__V1__POD_SANDBOX_STATUS_REQUEST__INIT;
	size_t id_len = strlen(sandbox_id), body;
	nghttp2_session_callbacks *callbacks = NULL;
	nghttp2_session *session = NULL;
	nghttp2_data_provider provider = {.read_callback = read_request};
	const nghttp2_nv headers[] = {
#define NV(n, v) \
	{(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE}
	    NV(":method", "POST"),
	    NV(":scheme", "http"),
	    NV(":path", CRI_PATH),
	    NV(":authority", "localhost"),
	    NV("content-type", "application/grpc"),
	    NV("te", "trailers"),
#undef NV
	};
	int ret;

	if (id_len == 0 || id_len > SANDBOX_ID_MAX) {
		snprintf(err, errlen, "bad sandbox id");
		return -EINVAL;
	}
	/* pack only reads the string: protobuf-c's fields are not const. */
	request.pod_sandbox_id = (char *)sandbox_id;
	body = runtime__v1__pod_sandbox_status_request__pack(&request, call.request + GRPC_PREFIX);
	call.request[0] = 0;
	call.request[1] = (unsigned char)(body >> 24);
	call.request[2] = (unsigned char)(body >> 16);
	call.request[3] = (unsigned char)(body >> 8);
	call.request[4] = (unsigned char)body;
	call.request_len = GRPC_PREFIX + body;

	call.fd = connect_unix(socket_path, timeout_ms);
	if (call.fd < 0) {
		snprintf(err, errlen, "CRI socket %s: %s", socket_path, strerror(-call.fd));
		return call.fd;
	}
	ret = nghttp2_session_callbacks_new(&callbacks) ? -ENOMEM : 0;
	if (ret == 0) {
		nghttp2_session_callbacks_set_send_callback(callbacks, send_bytes);
		nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
		nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
		nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
		ret = nghttp2_session_client_new(&session, callbacks, &call) ? -ENOMEM : 0;
	}
	if (ret == 0 && nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, NULL, 0) != 0)
		ret = -EIO;
	if (ret == 0) {
		call.stream_id = nghttp2_submit_request(
		    session, NULL, headers, sizeof(headers) / sizeof(*headers), &provider, NULL);
		if (call.stream_id < 0)
			ret = -EIO;
	}
	if (ret == 0)
		ret = exchange(session, &call, timeout_ms);
	if (ret)
		snprintf(err, errlen, "CRI PodSandboxStatus over %s: %s", socket_path,
			 strerror(-ret));
	else if (call.http2_error || (call.grpc_status[0] && strcmp(call.grpc_status, "0") != 0)) {
		snprintf(err, errlen, "CRI PodSandboxStatus: gRPC status %s: %s",
			 call.grpc_status[0] ? call.grpc_status : "?", call.grpc_message);
		ret = -EPROTO;
	} else if (call.reply_len < GRPC_PREFIX || call.reply[0] != 0) {
		snprintf(err, errlen, "CRI PodSandboxStatus: no reply message");
		ret = -EPROTO;
	} else if ((ret = cri_parse_sandbox_status(call.reply + GRPC_PREFIX,
						   call.reply_len - GRPC_PREFIX, meta))) {
		snprintf(err, errlen, "CRI PodSandboxStatus: malformed reply");
	}
	nghttp2_session_del(session);
	nghttp2_session_callbacks_del(callbacks);
	free(call.reply);
	close(call.fd);
	return ret;
}
