/*
 * nft.h - the route and nftables rules of rung 1's transparent network
 * mode (docs/transparent.md): inside the command's network namespace a
 * default route through lo, and a table that redirects every TCP
 * connection and every DNS datagram to a non-loopback address to the
 * supervisor's listeners on 127.0.0.1 / [::1], and drops every other
 * packet to a non-loopback address.  Not installed.
 *
 * The parent builds the netlink messages (libnftnl + libmnl, may
 * allocate); the child, still holding its capabilities in its own user
 * namespace, sends them with raw syscalls (async-signal-safe).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_NFT_H
#define SBX_LINUX_NFT_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* sbx__nft_spec.flags */
#define SBX__NFT_NO_IPV6      (1u << 0)  /* no IPv6 route, no ip6 table (a kernel
                                          * without IPv6: socket(AF_INET6) fails
                                          * with EAFNOSUPPORT) */
#define SBX__NFT_SPLIT_TABLES (1u << 1)  /* tables ip + ip6 only, never inet (the
                                          * child falls back to them by itself) */
#define SBX__NFT_FLAGS_ALL    (SBX__NFT_NO_IPV6 | SBX__NFT_SPLIT_TABLES)

struct sbx__nft_spec {
        uint16_t tcp_port;      /* host order, not 0: the transparent TCP listener
                                 * on 127.0.0.1 and [::1] in the namespace */
        uint16_t dns_port;      /* host order, not 0: the DNS listener (UDP) there */
        uint32_t flags;         /* SBX__NFT_* */
};

/* The name of the table, in every family it is made in. */
#define SBX__NFT_TABLE "sbx"

/* Messages, one sequence number each (1 up, unique across the buffers). */
#define SBX__NFT_MAX_MSGS 48

/* Messages sent in one sendto(2); the kernel ACKs seq_lo..seq_hi, one each. */
struct sbx__nft_buf {
        void    *data;          /* malloc'd; NULL (len 0) = nothing to send */
        uint32_t len;
        uint32_t seq_lo, seq_hi;
};

struct sbx__nft_msgs {
        struct sbx__nft_buf route;      /* NETLINK_ROUTE: RTM_NEWROUTE, IPv4 (+ IPv6) */
        struct sbx__nft_buf inet;       /* NETLINK_NETFILTER: one batch, table inet sbx
                                         * (empty with SBX__NFT_SPLIT_TABLES) */
        struct sbx__nft_buf split;      /* the fallback batch: tables ip sbx + ip6 sbx */
        uint32_t    n_msgs;             /* sequence numbers 1..n_msgs are in use */
        const char *what[SBX__NFT_MAX_MSGS];    /* static text naming message seq s
                                                 * at what[s - 1] */
};

/*
 * Parent: build every message into *out, written only on success (then
 * the caller frees it with sbx__nft_msgs_free).  Returns SBX_OK,
 * SBX_E_INVALID (spec or out NULL, a port of 0, an unknown flag),
 * SBX_E_NOMEM, or SBX_E_INTERNAL (the messages do not fit: a bug).
 */
sbx_code sbx__nft_build(const struct sbx__nft_spec *spec, struct sbx__nft_msgs *out,
                        sbx_error *err);

/* Free what sbx__nft_build made and zero *m.  NULL-safe, idempotent. */
void sbx__nft_msgs_free(struct sbx__nft_msgs *m);

/*
 * Child, async-signal-safe (socket, setsockopt, bind, sendto, recvfrom,
 * close; no allocation): add the routes, then commit the inet batch; if
 * the kernel refuses it with ENOENT or EOPNOTSUPP (no nat chains or redir
 * in inet tables: before Linux 5.2) commit the split batch instead.  Every
 * ACK is read and checked; each receive waits at most SBX__NFT_TIMEOUT_MS.
 * Returns 0 or a negative errno: a refusing ACK's error, -ETIMEDOUT, or a
 * socket call's.  *failed (if not NULL) is set to the index into m->what of
 * the message refused (-1: none, e.g. a socket error).
 */
int sbx__nft_apply(const struct sbx__nft_msgs *m, int *failed);
#define SBX__NFT_TIMEOUT_MS 10000

/* m->what[i], or a fixed text when i is out of range.  Never NULL. */
const char *sbx__nft_msg_name(const struct sbx__nft_msgs *m, int i);

#endif
