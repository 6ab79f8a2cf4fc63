/*
 * nft.c - the route and nftables rules of rung 1's transparent network
 * mode (libnftnl + libmnl wrapper; docs/transparent.md).
 *
 * The only file that talks to libnftnl (docs/style.md, "Layers").  Every
 * attribute id and every fixed-size value handed to it below is a
 * compile-time constant of the type its setter takes (u32 for u32
 * attributes, s32 for the chain priority, explicit lengths for data), so
 * libnftnl's attribute validation -- which exit()s on a bad id or length
 * -- can never fire: there is no run-time id to check.
 *
 * Parent (sbx__nft_build, may allocate): three flat buffers of netlink
 * messages, each request carrying NLM_F_ACK and a sequence number unique
 * across the buffers:
 *   route  RTM_NEWROUTE default dev lo src 127.0.0.1 (and ::/0 src ::1),
 *   inet   one NFNL batch creating table inet sbx,
 *   split  the same rules as table ip sbx + table ip6 sbx (the fallback
 *          for kernels without nat chains in inet tables, before 5.2).
 * The rules, in nft syntax (a chain per hook, priority as nft's "dstnat"
 * and "filter"):
 *
 *   table inet sbx {
 *     chain nat_output {
 *       type nat hook output priority -100; policy accept;
 *       meta l4proto udp udp dport 53 redirect to :DNS_PORT   (loopback too)
 *       ip daddr 127.0.0.0/8 accept
 *       ip6 daddr ::1 accept
 *       meta l4proto tcp redirect to :TCP_PORT
 *     }
 *     chain filter_output {
 *       type filter hook output priority 0; policy drop;
 *       ip daddr 127.0.0.0/8 accept
 *       ip6 daddr ::1 accept
 *     }
 *   }
 *
 * The filter chain runs after the nat chain, so it sees the redirected
 * packets with their new loopback destination; whatever still has a
 * non-loopback destination (other UDP, ICMP, any other protocol, and any
 * packet NAT did not rewrite) is dropped: the sender gets EPERM.
 *
 * Child (sbx__nft_apply, async-signal-safe): a NETLINK_ROUTE and a
 * NETLINK_NETFILTER socket, one sendto each, every ACK read and checked.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_nat.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "linux/nft.h"

#ifndef NETLINK_CAP_ACK
#  define NETLINK_CAP_ACK 10
#endif
#ifndef SOL_NETLINK
#  define SOL_NETLINK 270
#endif

/* A batch is a dozen messages of well under 512 bytes; the limit is only a
 * guard (mnl writes one message past it, hence the doubled buffer). */
#define BATCH_LIMIT 8192

/* ------------------------------------------------------- message names */

/* What each message is, for the error text (what[seq - 1]). */
enum {
        T_TABLE, T_NAT_CHAIN, T_NAT_LO4, T_NAT_LO6, T_NAT_TCP, T_NAT_DNS,
        T_FILTER_CHAIN, T_FILTER_LO4, T_FILTER_LO6, T__N
};
#define FAMILY_TEXTS(f) { \
        [T_TABLE] = "table " f " sbx", \
        [T_NAT_CHAIN] = "chain " f " sbx nat_output (type nat hook output priority -100)", \
        [T_NAT_LO4] = "rule " f " sbx nat_output: ip daddr 127.0.0.0/8 accept", \
        [T_NAT_LO6] = "rule " f " sbx nat_output: ip6 daddr ::1 accept", \
        [T_NAT_TCP] = "rule " f " sbx nat_output: meta l4proto tcp redirect", \
        [T_NAT_DNS] = "rule " f " sbx nat_output: udp dport 53 redirect", \
        [T_FILTER_CHAIN] = "chain " f " sbx filter_output (type filter hook output policy drop)", \
        [T_FILTER_LO4] = "rule " f " sbx filter_output: ip daddr 127.0.0.0/8 accept", \
        [T_FILTER_LO6] = "rule " f " sbx filter_output: ip6 daddr ::1 accept", \
}
enum { F_INET, F_IP, F_IP6, F__N };
static const char *const family_texts[F__N][T__N] = {
        [F_INET] = FAMILY_TEXTS("inet"),
        [F_IP] = FAMILY_TEXTS("ip"),
        [F_IP6] = FAMILY_TEXTS("ip6"),
};
static const uint8_t family_proto[F__N] = {
        [F_INET] = NFPROTO_INET, [F_IP] = NFPROTO_IPV4, [F_IP6] = NFPROTO_IPV6,
};

/* The next sequence number, recording what it is; 0 when out of room. */
static uint32_t take_seq(struct sbx__nft_msgs *m, const char *what)
{
        if (m->n_msgs >= SBX__NFT_MAX_MSGS)
                return 0;
        m->what[m->n_msgs] = what;
        return ++m->n_msgs;
}

const char *sbx__nft_msg_name(const struct sbx__nft_msgs *m, int i)
{
        if (m == NULL || i < 0 || (uint32_t) i >= m->n_msgs || m->what[i] == NULL)
                return "a netlink message";
        return m->what[i];
}

/* ------------------------------------------------------------- routes */

/* One RTM_NEWROUTE: the default route of family af through lo (ifindex 1
 * in every network namespace), with loopback as the preferred source so a
 * namespace whose only addresses are lo's can still pick one.  The length
 * or 0 (no room). */
static size_t put_route(char *buf, size_t room, int af, uint32_t seq)
{
        static const struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;
        const uint32_t lo4 = htonl(INADDR_LOOPBACK);
        struct nlmsghdr *nlh;
        struct rtmsg *rtm;

        if (room < 128)
                return 0;
        memset(buf, 0, 128);
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RTM_NEWROUTE;
        nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
        nlh->nlmsg_seq = seq;
        rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
        rtm->rtm_family = (unsigned char) af;
        rtm->rtm_dst_len = 0;                   /* default */
        rtm->rtm_table = RT_TABLE_MAIN;
        rtm->rtm_protocol = RTPROT_STATIC;
        rtm->rtm_scope = af == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
        rtm->rtm_type = RTN_UNICAST;
        mnl_attr_put_u32(nlh, RTA_OIF, 1);
        if (af == AF_INET)
                mnl_attr_put(nlh, RTA_PREFSRC, sizeof(lo4), &lo4);
        else
                mnl_attr_put(nlh, RTA_PREFSRC, sizeof(lo6), &lo6);
        return nlh->nlmsg_len;
}

static int build_routes(struct sbx__nft_msgs *m, const struct sbx__nft_spec *spec)
{
        union { struct nlmsghdr h; char c[256]; } buf;
        size_t len = 0, n;
        uint32_t seq;

        if ((seq = take_seq(m, "the IPv4 default route via lo")) == 0 ||
            (n = put_route(buf.c, sizeof(buf.c), AF_INET, seq)) == 0)
                return -ENOSPC;
        len += n;
        m->route.seq_lo = m->route.seq_hi = seq;
        if (!(spec->flags & SBX__NFT_NO_IPV6)) {
                if ((seq = take_seq(m, "the IPv6 default route via lo")) == 0 ||
                    (n = put_route(buf.c + len, sizeof(buf.c) - len, AF_INET6, seq)) == 0)
                        return -ENOSPC;
                len += n;
                m->route.seq_hi = seq;
        }
        if ((m->route.data = malloc(len)) == NULL)
                return -ENOMEM;
        memcpy(m->route.data, buf.c, len);
        m->route.len = (uint32_t) len;
        return 0;
}

/* ------------------------------------------------------- expressions */

/* Each returns NULL when out of memory. */

static struct nftnl_expr *x_meta(uint32_t key)
{
        struct nftnl_expr *e = nftnl_expr_alloc("meta");

        if (e != NULL) {
                nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
                nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
        }
        return e;
}

static struct nftnl_expr *x_payload(uint32_t base, uint32_t offset, uint32_t len)
{
        struct nftnl_expr *e = nftnl_expr_alloc("payload");

        if (e != NULL) {
                nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
                nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
                nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
                nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
        }
        return e;
}

/* reg 1 == data[0..len) */
static struct nftnl_expr *x_cmp_eq(const void *data, uint32_t len)
{
        struct nftnl_expr *e = nftnl_expr_alloc("cmp");

        if (e == NULL)
                return NULL;
        nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
        nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
        if (nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len) < 0) {
                nftnl_expr_free(e);
                return NULL;
        }
        return e;
}

static struct nftnl_expr *x_verdict(uint32_t verdict)
{
        struct nftnl_expr *e = nftnl_expr_alloc("immediate");

        if (e != NULL) {
                nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
                nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, verdict);
        }
        return e;
}

/* reg 1 = port (network order), then "redirect to :port". */
static struct nftnl_expr *x_port(uint16_t port)
{
        struct nftnl_expr *e = nftnl_expr_alloc("immediate");
        uint16_t be = htons(port);

        if (e == NULL)
                return NULL;
        nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
        if (nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &be, sizeof(be)) < 0) {
                nftnl_expr_free(e);
                return NULL;
        }
        return e;
}

static struct nftnl_expr *x_redir(void)
{
        struct nftnl_expr *e = nftnl_expr_alloc("redir");

        if (e != NULL) {
                nftnl_expr_set_u32(e, NFTNL_EXPR_REDIR_REG_PROTO_MIN, NFT_REG_1);
                nftnl_expr_set_u32(e, NFTNL_EXPR_REDIR_FLAGS, NF_NAT_RANGE_PROTO_SPECIFIED);
        }
        return e;
}

/* ------------------------------------------------------------- rules */

enum rule_kind { R_LO4_ACCEPT, R_LO6_ACCEPT, R_TCP_REDIRECT, R_DNS_REDIRECT };

/* Append e (NULL: out of memory) to r; 0 or -ENOMEM. */
static int add(struct nftnl_rule *r, struct nftnl_expr *e)
{
        if (e == NULL)
                return -ENOMEM;
        nftnl_rule_add_expr(r, e);
        return 0;
}

/* The expressions of one rule.  In an inet table an address match is
 * guarded by the layer-3 protocol, as nft does ("ip daddr" implies "meta
 * nfproto ipv4"); a /8 prefix is one byte, so no bitwise mask. */
static int rule_exprs(struct nftnl_rule *r, enum rule_kind kind, uint8_t proto,
                      const struct sbx__nft_spec *spec)
{
        static const struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;
        const uint8_t v4 = NFPROTO_IPV4, v6 = NFPROTO_IPV6, net127 = 127;
        const uint8_t tcp = IPPROTO_TCP, udp = IPPROTO_UDP;
        const uint16_t dns = htons(53);
        int e = 0;

        switch (kind) {
        case R_LO4_ACCEPT:
                if (proto == NFPROTO_INET) {
                        e = add(r, x_meta(NFT_META_NFPROTO));
                        e = e ? e : add(r, x_cmp_eq(&v4, sizeof(v4)));
                }
                e = e ? e : add(r, x_payload(NFT_PAYLOAD_NETWORK_HEADER, 16, 1));
                e = e ? e : add(r, x_cmp_eq(&net127, sizeof(net127)));
                e = e ? e : add(r, x_verdict(NF_ACCEPT));
                break;
        case R_LO6_ACCEPT:
                if (proto == NFPROTO_INET) {
                        e = add(r, x_meta(NFT_META_NFPROTO));
                        e = e ? e : add(r, x_cmp_eq(&v6, sizeof(v6)));
                }
                e = e ? e : add(r, x_payload(NFT_PAYLOAD_NETWORK_HEADER, 24, 16));
                e = e ? e : add(r, x_cmp_eq(&lo6, sizeof(lo6)));
                e = e ? e : add(r, x_verdict(NF_ACCEPT));
                break;
        case R_TCP_REDIRECT:
                e = e ? e : add(r, x_meta(NFT_META_L4PROTO));
                e = e ? e : add(r, x_cmp_eq(&tcp, sizeof(tcp)));
                e = e ? e : add(r, x_port(spec->tcp_port));
                e = e ? e : add(r, x_redir());
                break;
        case R_DNS_REDIRECT:
                e = e ? e : add(r, x_meta(NFT_META_L4PROTO));
                e = e ? e : add(r, x_cmp_eq(&udp, sizeof(udp)));
                e = e ? e : add(r, x_payload(NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2));
                e = e ? e : add(r, x_cmp_eq(&dns, sizeof(dns)));
                e = e ? e : add(r, x_port(spec->dns_port));
                e = e ? e : add(r, x_redir());
                break;
        }
        return e;
}

/* ----------------------------------------------------------- batches */

struct bld {
        struct sbx__nft_msgs        *m;
        struct mnl_nlmsg_batch      *b;
        const struct sbx__nft_spec  *spec;
};

/* The header of the next message of the batch, for NFT_MSG_NEW* type in
 * family proto; NULL when out of sequence numbers. */
static struct nlmsghdr *next_hdr(struct bld *bd, uint16_t type, uint8_t proto,
                                 uint16_t flags, const char *what)
{
        uint32_t seq = take_seq(bd->m, what);

        if (seq == 0)
                return NULL;
        return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(bd->b), type, proto,
                                     flags | NLM_F_ACK, seq);
}

static int batch_next(struct bld *bd)
{
        return mnl_nlmsg_batch_next(bd->b) ? 0 : -ENOSPC;
}

static int put_table(struct bld *bd, int fam)
{
        struct nftnl_table *t = nftnl_table_alloc();
        struct nlmsghdr *nlh;

        if (t == NULL)
                return -ENOMEM;
        nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, family_proto[fam]);
        if (nftnl_table_set_str(t, NFTNL_TABLE_NAME, SBX__NFT_TABLE) < 0) {
                nftnl_table_free(t);
                return -ENOMEM;
        }
        /* EXCL: a namespace that already has a table sbx is not ours. */
        nlh = next_hdr(bd, NFT_MSG_NEWTABLE, family_proto[fam], NLM_F_CREATE | NLM_F_EXCL,
                       family_texts[fam][T_TABLE]);
        if (nlh != NULL)
                nftnl_table_nlmsg_build_payload(nlh, t);
        nftnl_table_free(t);
        return nlh == NULL ? -ENOSPC : batch_next(bd);
}

static int put_chain(struct bld *bd, int fam, const char *name, const char *type,
                     int32_t prio, uint32_t policy, int text)
{
        struct nftnl_chain *c = nftnl_chain_alloc();
        struct nlmsghdr *nlh;

        if (c == NULL)
                return -ENOMEM;
        nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, family_proto[fam]);
        if (nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, SBX__NFT_TABLE) < 0 ||
            nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name) < 0 ||
            nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type) < 0) {
                nftnl_chain_free(c);
                return -ENOMEM;
        }
        nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_LOCAL_OUT);
        nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
        nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, policy);
        nlh = next_hdr(bd, NFT_MSG_NEWCHAIN, family_proto[fam], NLM_F_CREATE | NLM_F_EXCL,
                       family_texts[fam][text]);
        if (nlh != NULL)
                nftnl_chain_nlmsg_build_payload(nlh, c);
        nftnl_chain_free(c);
        return nlh == NULL ? -ENOSPC : batch_next(bd);
}

static int put_rule(struct bld *bd, int fam, const char *chain, enum rule_kind kind, int text)
{
        struct nftnl_rule *r = nftnl_rule_alloc();
        struct nlmsghdr *nlh;
        int e;

        if (r == NULL)
                return -ENOMEM;
        nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, family_proto[fam]);
        if (nftnl_rule_set_str(r, NFTNL_RULE_TABLE, SBX__NFT_TABLE) < 0 ||
            nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain) < 0)
                e = -ENOMEM;
        else
                e = rule_exprs(r, kind, family_proto[fam], bd->spec);
        if (e == 0) {
                nlh = next_hdr(bd, NFT_MSG_NEWRULE, family_proto[fam],
                               NLM_F_CREATE | NLM_F_APPEND, family_texts[fam][text]);
                if (nlh != NULL)
                        nftnl_rule_nlmsg_build_payload(nlh, r);
                e = nlh == NULL ? -ENOSPC : batch_next(bd);
        }
        nftnl_rule_free(r);
        return e;
}

/* Table, nat chain and filter chain of one family. */
static int put_family(struct bld *bd, int fam)
{
        int v4 = fam != F_IP6, v6 = fam != F_IP, e;

        e = put_table(bd, fam);
        e = e ? e : put_chain(bd, fam, "nat_output", "nat", -100, NF_ACCEPT, T_NAT_CHAIN);
        /* DNS first, to loopback too: a resolv.conf naming a local stub
         * resolver (systemd-resolved's 127.0.0.53, which the namespace does
         * not have) still reaches the answerer. */
        e = e ? e : put_rule(bd, fam, "nat_output", R_DNS_REDIRECT, T_NAT_DNS);
        if (v4)
                e = e ? e : put_rule(bd, fam, "nat_output", R_LO4_ACCEPT, T_NAT_LO4);
        if (v6)
                e = e ? e : put_rule(bd, fam, "nat_output", R_LO6_ACCEPT, T_NAT_LO6);
        e = e ? e : put_rule(bd, fam, "nat_output", R_TCP_REDIRECT, T_NAT_TCP);
        e = e ? e : put_chain(bd, fam, "filter_output", "filter", 0, NF_DROP, T_FILTER_CHAIN);
        if (v4)
                e = e ? e : put_rule(bd, fam, "filter_output", R_LO4_ACCEPT, T_FILTER_LO4);
        if (v6)
                e = e ? e : put_rule(bd, fam, "filter_output", R_LO6_ACCEPT, T_FILTER_LO6);
        return e;
}

/* One NFNL batch holding the families fams[0..n) into *out. */
static int build_batch(struct sbx__nft_msgs *m, const struct sbx__nft_spec *spec,
                       const int *fams, size_t n, struct sbx__nft_buf *out)
{
        struct bld bd = { m, NULL, spec };
        struct nlmsghdr *nlh;
        char *buf = malloc(2 * BATCH_LIMIT);
        uint32_t seq;
        size_t i, len;
        int e = 0;

        if (buf == NULL)
                return -ENOMEM;
        if ((bd.b = mnl_nlmsg_batch_start(buf, BATCH_LIMIT)) == NULL) {
                free(buf);
                return -ENOMEM;
        }
        /* The kernel ACKs neither BATCH_BEGIN nor BATCH_END (only an
         * error of the commit, on BEGIN's sequence number): NLM_F_ACK
         * there is asked for and harmless, and not waited for. */
        if ((seq = take_seq(m, "the nftables batch (its commit)")) == 0)
                e = -ENOSPC;
        if (e == 0) {
                nlh = nftnl_batch_begin(mnl_nlmsg_batch_current(bd.b), seq);
                nlh->nlmsg_flags |= NLM_F_ACK;
                e = batch_next(&bd);
        }
        out->seq_lo = m->n_msgs + 1;
        for (i = 0; i < n && e == 0; i++)
                e = put_family(&bd, fams[i]);
        out->seq_hi = m->n_msgs;
        if (e == 0 && (seq = take_seq(m, "the end of the nftables batch")) == 0)
                e = -ENOSPC;
        if (e == 0) {
                nlh = nftnl_batch_end(mnl_nlmsg_batch_current(bd.b), seq);
                nlh->nlmsg_flags |= NLM_F_ACK;
                e = batch_next(&bd);
        }
        if (e == 0) {
                len = mnl_nlmsg_batch_size(bd.b);
                if ((out->data = malloc(len)) == NULL) {
                        e = -ENOMEM;
                } else {
                        memcpy(out->data, mnl_nlmsg_batch_head(bd.b), len);
                        out->len = (uint32_t) len;
                }
        }
        mnl_nlmsg_batch_stop(bd.b);
        free(buf);
        return e;
}

/* ------------------------------------------------------------- build */

sbx_code sbx__nft_build(const struct sbx__nft_spec *spec, struct sbx__nft_msgs *out,
                        sbx_error *err)
{
        static const int inet[] = { F_INET }, split[] = { F_IP, F_IP6 };
        struct sbx__nft_msgs m;
        int e;

        if (spec == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__nft_build: spec or out is NULL");
        if (spec->tcp_port == 0 || spec->dns_port == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx__nft_build: tcp_port %u / dns_port %u: a port of 0",
                                 (unsigned) spec->tcp_port, (unsigned) spec->dns_port);
        if (spec->flags & ~SBX__NFT_FLAGS_ALL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__nft_build: unknown flags 0x%x",
                                 (unsigned) (spec->flags & ~SBX__NFT_FLAGS_ALL));
        memset(&m, 0, sizeof(m));
        e = build_routes(&m, spec);
        if (e == 0 && !(spec->flags & SBX__NFT_SPLIT_TABLES))
                e = build_batch(&m, spec, inet, 1, &m.inet);
        if (e == 0)
                e = build_batch(&m, spec, split, spec->flags & SBX__NFT_NO_IPV6 ? 1 : 2, &m.split);
        if (e < 0) {
                sbx__nft_msgs_free(&m);
                if (e == -ENOMEM)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx__nft_build: no memory");
                return sbx__fail(err, SBX_E_INTERNAL, -e,
                                 "sbx__nft_build: the netlink messages do not fit");
        }
        *out = m;
        return SBX_OK;
}

void sbx__nft_msgs_free(struct sbx__nft_msgs *m)
{
        if (m == NULL)
                return;
        free(m->route.data);
        free(m->inet.data);
        free(m->split.data);
        memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------- child */

/* NLMSG_OK / NLMSG_NEXT with an unsigned length (the macros compare
 * signed with unsigned).  Async-signal-safe. */
static int msg_ok(const struct nlmsghdr *h, size_t rem)
{
        return rem >= sizeof(*h) && h->nlmsg_len >= sizeof(*h) && h->nlmsg_len <= rem;
}

static const struct nlmsghdr *msg_next(const struct nlmsghdr *h, size_t *rem)
{
        size_t step = NLMSG_ALIGN(h->nlmsg_len);

        *rem = step < *rem ? *rem - step : 0;
        return (const struct nlmsghdr *) ((const char *) h + step);
}

/* Send b on a new socket of protocol proto and read every ACK: 0, the
 * first refusing ACK's error (*failed = its message), -ETIMEDOUT, or a
 * socket call's -errno.  Async-signal-safe. */
static int talk(const struct sbx__nft_msgs *m, int proto, const struct sbx__nft_buf *b,
                int *failed)
{
        struct sockaddr_nl kernel, from;
        struct timeval tv;
        union { struct nlmsghdr h; char c[8192]; } rb;
        uint32_t want, got = 0;
        socklen_t fl;
        ssize_t n;
        size_t rem;
        int fd, one = 1, r = 0;
        const struct nlmsghdr *h;
        const struct nlmsgerr *ne;

        if (b->len == 0)
                return 0;
        want = b->seq_hi >= b->seq_lo ? b->seq_hi - b->seq_lo + 1 : 0;
        memset(&kernel, 0, sizeof(kernel));
        kernel.nl_family = AF_NETLINK;          /* nl_pid 0: the kernel; bind: any */
        tv.tv_sec = SBX__NFT_TIMEOUT_MS / 1000;
        tv.tv_usec = (SBX__NFT_TIMEOUT_MS % 1000) * 1000;
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
        if (fd < 0)
                return -errno;
        /* Error ACKs without the request echoed (Linux 4.3+; optional). */
        (void) setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
            bind(fd, (const struct sockaddr *) &kernel, sizeof(kernel)) < 0) {
                r = -errno;
                goto out;
        }
        do
                n = sendto(fd, b->data, b->len, 0, (const struct sockaddr *) &kernel,
                           sizeof(kernel));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                r = -errno;
        else if ((size_t) n != b->len)
                r = -EMSGSIZE;
        while (r == 0 && got < want) {
                fl = sizeof(from);
                n = recvfrom(fd, rb.c, sizeof(rb.c), MSG_TRUNC, (struct sockaddr *) &from, &fl);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
                        break;
                }
                if (fl < sizeof(from) || from.nl_pid != 0)
                        continue;               /* not from the kernel */
                if ((size_t) n > sizeof(rb.c)) {
                        r = -EMSGSIZE;
                        break;
                }
                rem = (size_t) n;
                for (h = &rb.h; r == 0 && msg_ok(h, rem); h = msg_next(h, &rem)) {
                        if (h->nlmsg_type != NLMSG_ERROR)
                                continue;
                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ne))) {
                                r = -EBADMSG;
                                break;
                        }
                        ne = NLMSG_DATA(h);
                        if (ne->error != 0) {
                                r = ne->error < 0 ? ne->error : -EPROTO;
                                if (failed != NULL)
                                        *failed = h->nlmsg_seq >= 1 && h->nlmsg_seq <= m->n_msgs
                                                          ? (int) h->nlmsg_seq - 1 : -1;
                        } else if (h->nlmsg_seq >= b->seq_lo && h->nlmsg_seq <= b->seq_hi) {
                                got++;
                        }
                }
        }
out:
        (void) close(fd);
        return r;
}

int sbx__nft_apply(const struct sbx__nft_msgs *m, int *failed)
{
        int r, f = -1;

        if (failed != NULL)
                *failed = -1;
        if (m == NULL)
                return -EINVAL;
        r = talk(m, NETLINK_ROUTE, &m->route, &f);
        if (r == 0 && m->inet.len > 0) {
                r = talk(m, NETLINK_NETFILTER, &m->inet, &f);
                /* A kernel without nat chains or redir in inet tables (or
                 * without inet tables): the whole batch was refused, so
                 * nothing of it is left; the split tables instead. */
                if (f >= 0 && (r == -ENOENT || r == -EOPNOTSUPP || r == -EAFNOSUPPORT) &&
                    m->split.len > 0) {
                        f = -1;
                        r = talk(m, NETLINK_NETFILTER, &m->split, &f);
                }
        } else if (r == 0) {
                r = talk(m, NETLINK_NETFILTER, &m->split, &f);
        }
        if (failed != NULL)
                *failed = r < 0 ? f : -1;
        return r;
}
