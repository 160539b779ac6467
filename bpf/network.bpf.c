// SPDX-License-Identifier: GPL-2.0
/*
 * The network, for cgroups whose policy denies it (CGWARD_POLICY_NO_NETWORK):
 * connect, bind and sendmsg to an IPv4 or IPv6 address. With
 * CGWARD_POLICY_ALLOW_LOOPBACK, loopback addresses stay reachable. Other
 * families (unix, netlink) are not the network; sendmsg without an address
 * goes where a checked connect already went.
 */
#include "decision.bpf.h"
#include <bpf/bpf_endian.h>

#define AF_INET	 2
#define AF_INET6 10

struct peer {
	__u16 family;
	__u16 port; /* host byte order */
	__u8 addr[16];
};

/* The IPv4 or IPv6 peer in address; false for any other family or a short address. */
static __always_inline bool read_peer(struct sockaddr *address, int addrlen, struct peer *peer)
{
	peer->family = BPF_CORE_READ(address, sa_family);
	if (peer->family == AF_INET && addrlen >= (int)sizeof(struct sockaddr_in)) {
		struct sockaddr_in *in = (struct sockaddr_in *)address;

		peer->port = bpf_ntohs(BPF_CORE_READ(in, sin_port));
		bpf_probe_read_kernel(peer->addr, 4, &in->sin_addr);
		return true;
	}
	if (peer->family == AF_INET6 && addrlen >= (int)sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)address;

		peer->port = bpf_ntohs(BPF_CORE_READ(in6, sin6_port));
		bpf_probe_read_kernel(peer->addr, 16, &in6->sin6_addr);
		return true;
	}
	return false;
}

/* 127.0.0.0/8, ::1, and 127.0.0.0/8 mapped into IPv6 (::ffff:127.x.y.z). */
static __always_inline bool is_loopback(const struct peer *peer)
{
	const __u8 *a = peer->addr;
	__u64 high, low;

	if (peer->family == AF_INET)
		return a[0] == 127;
	__builtin_memcpy(&high, a, 8);
	__builtin_memcpy(&low, a + 8, 8);
	if (high)
		return false;
	if (low == bpf_cpu_to_be64(1))
		return true;
	return a[8] == 0 && a[9] == 0 && a[10] == 0xff && a[11] == 0xff && a[12] == 127;
}

static __always_inline int decide_peer(__u16 op, struct sockaddr *address, int addrlen)
{
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);
	struct event_scratch *scratch;
	struct peer peer = {};

	if (!policy || !(policy->flags & CGWARD_POLICY_NO_NETWORK))
		return 0;
	if (!address || !read_peer(address, addrlen, &peer))
		return 0;
	if ((policy->flags & CGWARD_POLICY_ALLOW_LOOPBACK) && is_loopback(&peer))
		return 0;
	scratch = report_begin(policy, cgroup_id, op, CGWARD_REASON_NETWORK);
	if (scratch) {
		scratch->event.family = peer.family;
		scratch->event.port = peer.port;
		__builtin_memcpy(scratch->event.addr, peer.addr, sizeof(peer.addr));
		report_send(scratch, policy);
	}
	return denied(policy);
}

SEC("lsm/socket_connect")
int BPF_PROG(socket_connect, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	if (ret)
		return ret;
	return decide_peer(CGWARD_OP_CONNECT, address, addrlen);
}

SEC("lsm/socket_bind")
int BPF_PROG(socket_bind, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	if (ret)
		return ret;
	return decide_peer(CGWARD_OP_BIND, address, addrlen);
}

/* sendto(2) and sendmsg(2) name their peer in msg_name. */
SEC("lsm/socket_sendmsg")
int BPF_PROG(socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	if (ret)
		return ret;
	return decide_peer(CGWARD_OP_SENDMSG, BPF_CORE_READ(msg, msg_name),
			   BPF_CORE_READ(msg, msg_namelen));
}

/*
 * An abstract socket has no file, so no place among the roots. As Landlock
 * scopes them (ABI 6), it is reachable when it belongs to the caller's own
 * boundary: the cgroup that created it (sk_cgrp_data, recorded at socket
 * creation) is bound to the same boundary.
 */
static __always_inline bool in_same_boundary(struct sock *other,
					     const struct cgward_cgroup_policy *policy)
{
	struct cgward_cgroup_policy *owner;
	__u64 owner_cgroup;

	if (!bpf_core_field_exists(other->sk_cgrp_data.cgroup))
		return false; /* before 5.15 the field is a tagged word: treat as outside */
	owner_cgroup = BPF_CORE_READ(other, sk_cgrp_data.cgroup, kn, id);
	owner = bpf_map_lookup_elem(&cgroup_policy, &owner_cgroup);
	return owner && owner->boundary_id == policy->boundary_id;
}

/* Denies connecting to an abstract socket outside the boundary; the event's path is @NAME. */
static __always_inline int decide_abstract_peer(struct unix_sock *peer,
						const struct cgward_cgroup_policy *policy,
						__u64 cgroup_id)
{
	struct unix_address *addr = BPF_CORE_READ(peer, addr);
	struct event_scratch *scratch;
	__u32 name_len;

	if (!addr)
		return 0; /* unnamed (socketpair): connected before, like an inherited descriptor */
	if (in_same_boundary(&peer->sk, policy))
		return 0;
	scratch =
	    report_begin(policy, cgroup_id, CGWARD_OP_UNIX_CONNECT, CGWARD_REASON_OUTSIDE_BOUNDARY);
	if (scratch) {
		/* len counts sun_family and the leading NUL of the name. */
		name_len = (BPF_CORE_READ(addr, len) - 3) & 127;
		scratch->event.path[0] = '@';
		bpf_probe_read_kernel(&scratch->event.path[1], name_len,
				      (void *)addr->name[0].sun_path + 1);
		scratch->event.path_len = name_len + 1;
		report_send(scratch, policy);
	}
	return denied(policy);
}

/*
 * A unix socket outside the roots (CGWARD_POLICY_NO_UNIX_OUTSIDE): a daemon
 * listening there may write on the caller's behalf. A socket file is judged
 * by its place (an --allow-unix entry for its inode allows it); an abstract
 * socket by its owner's boundary.
 */
static __always_inline int decide_unix_peer(struct sock *other)
{
	struct unix_sock *peer = (struct unix_sock *)other; /* sk is its first member */
	struct write_request request = {.op = CGWARD_OP_UNIX_CONNECT};
	__u64 cgroup_id;
	struct cgward_cgroup_policy *policy = current_policy(&cgroup_id);

	if (!policy || !(policy->flags & CGWARD_POLICY_NO_UNIX_OUTSIDE))
		return 0;
	request.path.dentry = BPF_CORE_READ(peer, path.dentry);
	request.path.mnt = BPF_CORE_READ(peer, path.mnt);
	request.path.flags = TARGET_UNIX_PEER;
	if (!request.path.dentry)
		return decide_abstract_peer(peer, policy, cgroup_id);
	/* A struct unix_sock's fields cannot be loaded typed from a struct sock. */
	return decide_for(policy, cgroup_id, &request, false);
}

SEC("lsm/unix_stream_connect")
int BPF_PROG(unix_stream_connect, struct sock *sock, struct sock *other, struct sock *newsk,
	     int ret)
{
	if (ret)
		return ret;
	return decide_unix_peer(other);
}

/* Datagrams to a named socket (sendto, or connect of a datagram socket). */
SEC("lsm/unix_may_send")
int BPF_PROG(unix_may_send, struct socket *sock, struct socket *other, int ret)
{
	if (ret)
		return ret;
	return decide_unix_peer(BPF_CORE_READ(other, sk));
}
