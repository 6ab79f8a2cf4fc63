/*
 * test_nft.c - the transparent-mode route and nftables rules (src/linux/nft.c).
 *
 * Pure cases check what sbx__nft_build refuses and the shape of what it
 * builds.  The namespace cases fork a child that makes its own user and
 * network namespace (as root or not), brings lo up, gives lo the
 * documentation address 192.0.2.1/32 (the only non-loopback address this
 * test ever uses besides the destination 192.0.2.7 it connects to, both
 * inside that namespace, where nothing leaves lo), applies the messages
 * the parent built, and checks from inside:
 *   - TCP to 192.0.2.7:443 (and :53, and as the IPv4-mapped
 *     [::ffff:192.0.2.7]) reaches the listener on 127.0.0.1:TCP_PORT, and
 *     SO_ORIGINAL_DST gives the address dialled;
 *   - UDP to 192.0.2.7:53 reaches the DNS socket on 127.0.0.1:DNS_PORT
 *     (what IP_RECVORIGDSTADDR says is reported), and the answer comes back
 *     from 192.0.2.7:53; from a socket bound to 192.0.2.1 it arrives too,
 *     but the answer to 192.0.2.1 is refused (only loopback destinations
 *     pass the filter, answers included);
 *   - UDP to 192.0.2.7:123 and to 192.0.2.1:123, and an ICMP echo to
 *     192.0.2.7, are refused (EPERM) and reach nothing (a socket on
 *     0.0.0.0:123 would have caught 192.0.2.1's; it does catch
 *     127.0.0.1:123's);
 *   - TCP to 127.0.0.1 / [::1] / 127.0.0.2 is not redirected.
 * A machine without user namespaces skips them (fails with SBX_REQUIRE_ALL=1).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>

#include "unit/sbx_test.h"
#include "linux/nft.h"

#ifndef SO_ORIGINAL_DST
#  define SO_ORIGINAL_DST 80            /* <linux/netfilter_ipv4.h> */
#endif
#ifndef IP6T_SO_ORIGINAL_DST
#  define IP6T_SO_ORIGINAL_DST 80       /* <linux/netfilter_ipv6/ip6_tables.h> */
#endif

#define TCP_PORT   15001
#define DNS_PORT   15053
#define OTHER_PORT 15002
#define WAIT_MS    10000                /* a bound on waiting for what must come */
#define QUIET_MS   1000                 /* how long "nothing arrives" is watched */

#define EXIT_SKIP 77

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* ------------------------------------------------------------- pure */

static void test_nft__bad_input_is_refused(void **state)
{
        struct sbx__nft_spec spec = { TCP_PORT, DNS_PORT, 0 };
        struct sbx__nft_msgs m, before;
        (void) state;

        memset(&m, 0xa5, sizeof(m));
        before = m;
        assert_sbx_fails(sbx__nft_build(NULL, &m, err), SBX_E_INVALID, "spec or out");
        assert_sbx_fails(sbx__nft_build(&spec, NULL, err), SBX_E_INVALID, "spec or out");
        spec.tcp_port = 0;
        assert_sbx_fails(sbx__nft_build(&spec, &m, err), SBX_E_INVALID, "port of 0");
        spec.tcp_port = TCP_PORT;
        spec.dns_port = 0;
        assert_sbx_fails(sbx__nft_build(&spec, &m, err), SBX_E_INVALID, "port of 0");
        spec.dns_port = DNS_PORT;
        spec.flags = 1u << 7;
        assert_sbx_fails(sbx__nft_build(&spec, &m, err), SBX_E_INVALID, "unknown flags 0x80");
        assert_memory_equal(&m, &before, sizeof(m));        /* out untouched */
        /* NULL err is allowed. */
        assert_int_equal(sbx__nft_build(NULL, &m, NULL), SBX_E_INVALID);
        assert_int_equal(sbx__nft_apply(NULL, NULL), -EINVAL);
}

static void test_nft__free_null_and_twice(void **state)
{
        struct sbx__nft_spec spec = { TCP_PORT, DNS_PORT, 0 };
        struct sbx__nft_msgs m;
        (void) state;

        sbx__nft_msgs_free(NULL);
        assert_int_equal(sbx__nft_build(&spec, &m, NULL), SBX_OK);
        sbx__nft_msgs_free(&m);
        assert_null(m.route.data);
        sbx__nft_msgs_free(&m);
        assert_string_equal(sbx__nft_msg_name(&m, 0), "a netlink message");
        assert_string_equal(sbx__nft_msg_name(NULL, 3), "a netlink message");
}

struct shape {
        unsigned n, routes, tables, chains, rules, begins, ends, noack;
        uint32_t seq_min, seq_max;
};

/* NLMSG_OK / NLMSG_NEXT for an unsigned length. */
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

static void walk(const struct sbx__nft_buf *b, struct shape *s)
{
        const struct nlmsghdr *h = b->data;
        size_t rem = b->len;

        for (; msg_ok(h, rem); h = msg_next(h, &rem)) {
                uint16_t t = h->nlmsg_type;

                s->n++;
                if (!(h->nlmsg_flags & NLM_F_ACK) || !(h->nlmsg_flags & NLM_F_REQUEST))
                        s->noack++;
                if (s->seq_min == 0 || h->nlmsg_seq < s->seq_min)
                        s->seq_min = h->nlmsg_seq;
                if (h->nlmsg_seq > s->seq_max)
                        s->seq_max = h->nlmsg_seq;
                if (t == RTM_NEWROUTE)
                        s->routes++;
                else if (t == NFNL_MSG_BATCH_BEGIN)
                        s->begins++;
                else if (t == NFNL_MSG_BATCH_END)
                        s->ends++;
                else if (t == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE))
                        s->tables++;
                else if (t == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWCHAIN))
                        s->chains++;
                else if (t == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE))
                        s->rules++;
        }
        assert_int_equal(rem, 0);                       /* nothing left over */
}

static void test_nft__build_shape(void **state)
{
        struct sbx__nft_spec spec = { TCP_PORT, DNS_PORT, 0 };
        struct sbx__nft_msgs m;
        struct shape r = { 0 }, in = { 0 }, sp = { 0 };
        uint32_t i;
        (void) state;

        assert_int_equal(sbx__nft_build(&spec, &m, NULL), SBX_OK);
        walk(&m.route, &r);
        walk(&m.inet, &in);
        walk(&m.split, &sp);
        assert_int_equal(r.n, 2);
        assert_int_equal(r.routes, 2);
        /* inet: table, 2 chains, 4 + 2 rules inside begin .. end */
        assert_int_equal(in.begins, 1);
        assert_int_equal(in.ends, 1);
        assert_int_equal(in.tables, 1);
        assert_int_equal(in.chains, 2);
        assert_int_equal(in.rules, 6);
        /* split: ip and ip6, each 3 + 1 rules */
        assert_int_equal(sp.begins, 1);
        assert_int_equal(sp.tables, 2);
        assert_int_equal(sp.chains, 4);
        assert_int_equal(sp.rules, 8);
        assert_int_equal(r.noack + in.noack + sp.noack, 0);
        /* Unique, dense sequence numbers; ACKs awaited for the inner ones. */
        assert_int_equal(r.seq_min, 1);
        assert_int_equal(in.seq_min, r.seq_max + 1);
        assert_int_equal(sp.seq_min, in.seq_max + 1);
        assert_int_equal(sp.seq_max, m.n_msgs);
        assert_int_equal(m.route.seq_lo, 1);
        assert_int_equal(m.route.seq_hi, 2);
        assert_int_equal(m.inet.seq_lo, in.seq_min + 1);
        assert_int_equal(m.inet.seq_hi, in.seq_max - 1);
        assert_int_equal(m.split.seq_lo, sp.seq_min + 1);
        assert_int_equal(m.split.seq_hi, sp.seq_max - 1);
        for (i = 0; i < m.n_msgs; i++)
                assert_non_null(m.what[i]);
        assert_non_null(strstr(sbx__nft_msg_name(&m, 0), "IPv4 default route"));
        assert_non_null(strstr(sbx__nft_msg_name(&m, (int) m.inet.seq_lo - 1), "table inet sbx"));
        sbx__nft_msgs_free(&m);

        /* No IPv6: one route, no ip6 table; split only: no inet batch. */
        spec.flags = SBX__NFT_NO_IPV6 | SBX__NFT_SPLIT_TABLES;
        assert_int_equal(sbx__nft_build(&spec, &m, NULL), SBX_OK);
        memset(&r, 0, sizeof(r));
        memset(&sp, 0, sizeof(sp));
        walk(&m.route, &r);
        walk(&m.split, &sp);
        assert_int_equal(r.routes, 1);
        assert_null(m.inet.data);
        assert_int_equal(m.inet.len, 0);
        assert_int_equal(sp.tables, 1);
        assert_int_equal(sp.rules, 4);
        sbx__nft_msgs_free(&m);
}

/* --------------------------------------------------- in a namespace */

static int report_fd = -1;

/* In the child: say why and end (status 1, or EXIT_SKIP). */
static void child_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void child_say(const char *fmt, ...)
{
        char buf[512];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t) n > sizeof(buf) - 2)
                n = (int) sizeof(buf) - 2;
        buf[n++] = '\n';
        if (write(report_fd, buf, (size_t) n) < 0)
                _exit(2);
}

#define CHECK(cond, ...) \
        do { \
                if (!(cond)) { \
                        int e_ = errno; \
                        child_say("line %d: %s (errno %d %s)", __LINE__, #cond, e_, strerror(e_)); \
                        child_say(__VA_ARGS__); \
                        _exit(1); \
                } \
        } while (0)

static int put_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

        if (fd < 0)
                return -errno;
        if (write(fd, text, strlen(text)) != (ssize_t) strlen(text))
                r = -errno;
        close(fd);
        return r;
}

/* 1 if fd becomes readable (writable with out) within ms, else 0. */
static int ready(int fd, int ms, int out)
{
        struct pollfd p = { fd, (short) (out ? POLLOUT : POLLIN), 0 };
        int n;

        do
                n = poll(&p, 1, ms);
        while (n < 0 && errno == EINTR);
        return n == 1;
}

/* The test's own netlink request (RTM_NEWADDR): 192.0.2.1/32 on lo. */
static int add_own_address(void)
{
        struct {
                struct nlmsghdr h;
                struct ifaddrmsg a;
                struct rtattr l; struct in_addr lv;
                struct rtattr d; struct in_addr dv;
        } rq;
        union { struct nlmsghdr h; char c[1024]; } ack;
        struct sockaddr_nl k = { .nl_family = AF_NETLINK };
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), r = -EPROTO;
        ssize_t n;

        if (fd < 0)
                return -errno;
        memset(&rq, 0, sizeof(rq));
        rq.h.nlmsg_len = sizeof(rq);
        rq.h.nlmsg_type = RTM_NEWADDR;
        rq.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
        rq.h.nlmsg_seq = 1;
        rq.a.ifa_family = AF_INET;
        rq.a.ifa_prefixlen = 32;
        rq.a.ifa_index = 1;
        rq.l.rta_len = RTA_LENGTH(sizeof(rq.lv));
        rq.l.rta_type = IFA_LOCAL;
        rq.d.rta_len = RTA_LENGTH(sizeof(rq.dv));
        rq.d.rta_type = IFA_ADDRESS;
        inet_pton(AF_INET, "192.0.2.1", &rq.lv);
        rq.dv = rq.lv;
        if (sendto(fd, &rq, sizeof(rq), 0, (struct sockaddr *) &k, sizeof(k)) < 0)
                r = -errno;
        else if ((n = recv(fd, &ack, sizeof(ack), 0)) >= (ssize_t) NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
                 ack.h.nlmsg_type == NLMSG_ERROR)
                r = ((struct nlmsgerr *) NLMSG_DATA(&ack.h))->error;
        close(fd);
        return r;
}

/* 1 if table <family> sbx exists, 0 if not, else -errno (NFT_MSG_GETTABLE). */
static int table_exists(uint8_t family)
{
        struct {
                struct nlmsghdr h;
                struct nfgenmsg g;
                struct nlattr n; char name[4];
        } rq;
        union { struct nlmsghdr h; char c[4096]; } rb;
        struct sockaddr_nl k = { .nl_family = AF_NETLINK };
        const struct nlmsghdr *h;
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER), r = -EPROTO;
        int found = 0;
        size_t rem;
        ssize_t n;

        if (fd < 0)
                return -errno;
        memset(&rq, 0, sizeof(rq));
        rq.h.nlmsg_len = sizeof(rq);
        rq.h.nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE;
        rq.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        rq.h.nlmsg_seq = 1;
        rq.g.nfgen_family = family;
        rq.g.version = NFNETLINK_V0;
        rq.n.nla_len = NLA_HDRLEN + 4;
        rq.n.nla_type = NFTA_TABLE_NAME;
        memcpy(rq.name, "sbx", 4);
        if (sendto(fd, &rq, sizeof(rq), 0, (struct sockaddr *) &k, sizeof(k)) < 0)
                r = -errno;
        while (r == -EPROTO && ready(fd, WAIT_MS, 0) && (n = recv(fd, &rb, sizeof(rb), 0)) > 0)
                for (h = &rb.h, rem = (size_t) n; msg_ok(h, rem); h = msg_next(h, &rem)) {
                        if (h->nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE))
                                found = 1;
                        else if (h->nlmsg_type == NLMSG_ERROR) {
                                int e = ((const struct nlmsgerr *) NLMSG_DATA(h))->error;

                                r = e == 0 ? found : e == -ENOENT ? 0 : e;
                                break;
                        }
                }
        close(fd);
        return r;
}

static int lo_up(void)
{
        struct ifreq ifr;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

        if (fd < 0)
                return -errno;
        memset(&ifr, 0, sizeof(ifr));
        memcpy(ifr.ifr_name, "lo", 3);
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                r = -errno;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (r == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                r = -errno;
        close(fd);
        return r;
}

static struct sockaddr_storage sa(const char *ip, uint16_t port, socklen_t *len)
{
        struct sockaddr_storage s;
        struct sockaddr_in *s4 = (struct sockaddr_in *) &s;
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &s;

        memset(&s, 0, sizeof(s));
        if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
                s4->sin_family = AF_INET;
                s4->sin_port = htons(port);
                *len = sizeof(*s4);
        } else {
                s6->sin6_family = AF_INET6;
                s6->sin6_port = htons(port);
                if (inet_pton(AF_INET6, ip, &s6->sin6_addr) != 1)
                        abort();
                *len = sizeof(*s6);
        }
        return s;
}

/* "a.b.c.d:port" or "[v6]:port" */
static const char *fmt(const struct sockaddr_storage *s, char *buf, size_t size)
{
        char ip[INET6_ADDRSTRLEN] = "?";
        unsigned port = 0;

        if (s->ss_family == AF_INET) {
                const struct sockaddr_in *s4 = (const struct sockaddr_in *) s;
                inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
                port = ntohs(s4->sin_port);
                snprintf(buf, size, "%s:%u", ip, port);
        } else {
                const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *) s;
                inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
                port = ntohs(s6->sin6_port);
                snprintf(buf, size, "[%s]:%u", ip, port);
        }
        return buf;
}

static int listener(int type, const char *ip, uint16_t port)
{
        socklen_t len;
        struct sockaddr_storage s = sa(ip, port, &len);
        int fd = socket(s.ss_family, type | SOCK_CLOEXEC, 0), one = 1;

        CHECK(fd >= 0, "socket for %s", ip);
        if (s.ss_family == AF_INET6)
                (void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        CHECK(bind(fd, (struct sockaddr *) &s, len) == 0, "bind %s:%u", ip, (unsigned) port);
        if (type == SOCK_STREAM)
                CHECK(listen(fd, 8) == 0, "listen %s", ip);
        return fd;
}

/* A non-blocking connect to ip:port from a socket of family af; the fd. */
static int dial(int af, const char *ip, uint16_t port)
{
        socklen_t len;
        struct sockaddr_storage s = sa(ip, port, &len);
        int fd = socket(af, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        CHECK(fd >= 0, "socket");
        CHECK(connect(fd, (struct sockaddr *) &s, len) == 0 || errno == EINPROGRESS,
              "connect %s:%u", ip, (unsigned) port);
        return fd;
}

/* The accepted end of a connection to ip:port that must arrive at lfd
 * (and at no other listener in others[]); its SO_ORIGINAL_DST in *orig. */
static int arrive(int lfd, int c, const int *others, size_t n_others,
                  struct sockaddr_storage *orig, const char *what)
{
        socklen_t ol = sizeof(*orig);
        char b[4] = { 0 };
        int a, so = -1;
        size_t i;

        CHECK(ready(lfd, WAIT_MS, 0), "%s: nothing arrived at the expected listener", what);
        a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        CHECK(a >= 0, "%s: accept", what);
        CHECK(ready(c, WAIT_MS, 1), "%s: the connect did not finish", what);
        ol = sizeof(so);
        CHECK(getsockopt(c, SOL_SOCKET, SO_ERROR, &so, &ol) == 0 && so == 0,
              "%s: connect failed (SO_ERROR %d)", what, so);
        for (i = 0; i < n_others; i++)
                CHECK(!ready(others[i], 0, 0), "%s: it also reached another listener", what);
        /* Bytes both ways. */
        CHECK(write(c, "ping", 4) == 4, "%s: write", what);
        CHECK(ready(a, WAIT_MS, 0) && read(a, b, 4) == 4 && memcmp(b, "ping", 4) == 0,
              "%s: the bytes did not arrive", what);
        CHECK(write(a, "pong", 4) == 4, "%s: write back", what);
        CHECK(ready(c, WAIT_MS, 0) && read(c, b, 4) == 4 && memcmp(b, "pong", 4) == 0,
              "%s: the answer did not arrive", what);
        memset(orig, 0, sizeof(*orig));
        ol = sizeof(*orig);
        if (getsockopt(a, SOL_IP, SO_ORIGINAL_DST, orig, &ol) < 0) {
                ol = sizeof(*orig);
                CHECK(getsockopt(a, SOL_IPV6, IP6T_SO_ORIGINAL_DST, orig, &ol) == 0,
                      "%s: SO_ORIGINAL_DST", what);
        }
        return a;
}

static void expect_redirect(int lfd, const int *others, size_t n, int af, const char *ip,
                            uint16_t port, const char *want)
{
        struct sockaddr_storage orig, peer;
        socklen_t pl = sizeof(peer);
        char got[80], seen[80];
        int c = dial(af, ip, port), a = arrive(lfd, c, others, n, &orig, ip);

        CHECK(strcmp(fmt(&orig, got, sizeof(got)), want) == 0,
              "%s:%u: SO_ORIGINAL_DST is %s, want %s", ip, (unsigned) port, got, want);
        /* The client sees the address it dialled (conntrack undoes it). */
        CHECK(getpeername(c, (struct sockaddr *) &peer, &pl) == 0, "getpeername");
        fmt(&peer, seen, sizeof(seen));
        CHECK(strstr(seen, ip) != NULL, "%s: the client's peer is %s", ip, seen);
        close(a);
        close(c);
}

static void tcp_checks(void)
{
        int l = listener(SOCK_STREAM, "127.0.0.1", TCP_PORT);
        int l6 = listener(SOCK_STREAM, "::1", TCP_PORT);
        int o = listener(SOCK_STREAM, "127.0.0.1", OTHER_PORT);
        int o6 = listener(SOCK_STREAM, "::1", OTHER_PORT);
        int not_l[] = { l6, o, o6 }, not_o[] = { l, l6, o6 }, not_o6[] = { l, l6, o };
        struct sockaddr_storage orig;
        char got[80], want[80];
        int c, a;

        expect_redirect(l, not_l, 3, AF_INET, "192.0.2.7", 443, "192.0.2.7:443");
        expect_redirect(l, not_l, 3, AF_INET, "192.0.2.7", 53, "192.0.2.7:53");
        /* A dual-stack client: IPv4 on the wire, the same rules. */
        expect_redirect(l, not_l, 3, AF_INET6, "::ffff:192.0.2.7", 80, "192.0.2.7:80");

        /* Loopback is not redirected: 127.0.0.1, ::1, and 127.0.0.2 (no
         * listener there: refused, not carried to TCP_PORT). */
        c = dial(AF_INET, "127.0.0.1", OTHER_PORT);
        a = arrive(o, c, not_o, 3, &orig, "127.0.0.1");
        snprintf(want, sizeof(want), "127.0.0.1:%u", OTHER_PORT);
        CHECK(strcmp(fmt(&orig, got, sizeof(got)), want) == 0, "127.0.0.1: original %s", got);
        close(a);
        close(c);
        c = dial(AF_INET6, "::1", OTHER_PORT);
        a = arrive(o6, c, not_o6, 3, &orig, "::1");
        snprintf(want, sizeof(want), "[::1]:%u", OTHER_PORT);
        CHECK(strcmp(fmt(&orig, got, sizeof(got)), want) == 0, "::1: original %s", got);
        close(a);
        close(c);
        {
                int so = 0;
                socklen_t sl = sizeof(so);

                c = dial(AF_INET, "127.0.0.2", OTHER_PORT);
                CHECK(ready(c, WAIT_MS, 1), "127.0.0.2: connect did not finish");
                CHECK(getsockopt(c, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && so == ECONNREFUSED,
                      "127.0.0.2:%u: want ECONNREFUSED, got %d", OTHER_PORT, so);
                CHECK(!ready(l, 0, 0) && !ready(o, 0, 0), "127.0.0.2 reached a listener");
                close(c);
        }
        close(l);
        close(l6);
        close(o);
        close(o6);
}

static void udp_checks(void)
{
        int d = listener(SOCK_DGRAM, "127.0.0.1", DNS_PORT);
        int catch = listener(SOCK_DGRAM, "0.0.0.0", 123);
        int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1, raw;
        struct sockaddr_storage to, from, od;
        socklen_t tl, fl;
        char buf[64], cbuf[256], t1[80], t2[80];
        struct iovec iov = { buf, sizeof(buf) };
        struct msghdr mh;
        struct cmsghdr *cm;
        struct icmphdr echo;
        struct pollfd pf[3];
        ssize_t n;
        int have_od = 0;

        CHECK(u >= 0, "udp socket");
        CHECK(setsockopt(d, SOL_IP, IP_RECVORIGDSTADDR, &one, sizeof(one)) == 0,
              "IP_RECVORIGDSTADDR");
        /* DNS: redirected, answered, the answer from the name server dialled. */
        to = sa("192.0.2.7", 53, &tl);
        CHECK(connect(u, (struct sockaddr *) &to, tl) == 0, "connect udp 192.0.2.7:53");
        CHECK(send(u, "q1", 2, 0) == 2, "send to 192.0.2.7:53");
        CHECK(ready(d, WAIT_MS, 0), "the datagram to 192.0.2.7:53 did not reach 127.0.0.1:%u",
              DNS_PORT);
        memset(&mh, 0, sizeof(mh));
        mh.msg_name = &from;
        mh.msg_namelen = sizeof(from);
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof(cbuf);
        n = recvmsg(d, &mh, MSG_CMSG_CLOEXEC);
        CHECK(n == 2 && memcmp(buf, "q1", 2) == 0, "the DNS socket read %zd bytes", n);
        for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
                if (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_ORIGDSTADDR) {
                        memset(&od, 0, sizeof(od));
                        memcpy(&od, CMSG_DATA(cm), sizeof(struct sockaddr_in));
                        have_od = 1;
                }
        CHECK(have_od, "no IP_ORIGDSTADDR on the redirected datagram");
        child_say("info: IP_RECVORIGDSTADDR on a REDIRECTed datagram gives %s (the datagram "
                  "was sent to 192.0.2.7:53, from %s)", fmt(&od, t1, sizeof(t1)),
                  fmt(&from, t2, sizeof(t2)));
        CHECK(sendto(d, "a1", 2, 0, (struct sockaddr *) &from, mh.msg_namelen) == 2, "answer");
        CHECK(ready(u, WAIT_MS, 0), "the answer did not come back");
        fl = sizeof(from);
        n = recvfrom(u, buf, sizeof(buf), 0, (struct sockaddr *) &from, &fl);
        CHECK(n == 2 && memcmp(buf, "a1", 2) == 0, "the client read %zd bytes", n);
        CHECK(strcmp(fmt(&from, t1, sizeof(t1)), "192.0.2.7:53") == 0,
              "the answer came from %s, want 192.0.2.7:53", t1);
        close(u);

        /* From our own non-loopback address: redirected, but the answer,
         * to 192.0.2.1, is refused like any packet to a non-loopback
         * address (the namespace of a real spawn has only loopback ones). */
        u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK(u >= 0, "udp socket");
        from = sa("192.0.2.1", 0, &fl);
        CHECK(bind(u, (struct sockaddr *) &from, fl) == 0, "bind 192.0.2.1");
        to = sa("192.0.2.7", 53, &tl);
        CHECK(sendto(u, "q2", 2, 0, (struct sockaddr *) &to, tl) == 2, "send from 192.0.2.1");
        CHECK(ready(d, WAIT_MS, 0), "the datagram from 192.0.2.1 did not arrive");
        fl = sizeof(from);
        n = recvfrom(d, buf, sizeof(buf), 0, (struct sockaddr *) &from, &fl);
        CHECK(n == 2 && memcmp(buf, "q2", 2) == 0, "the DNS socket read %zd bytes", n);
        CHECK(sendto(d, "a2", 2, 0, (struct sockaddr *) &from, fl) < 0 && errno == EPERM,
              "the answer to %s was not refused with EPERM", fmt(&from, t1, sizeof(t1)));
        close(u);

        /* Other UDP to non-loopback: refused at once (EPERM), and nothing
         * arrives; to loopback it does arrive (the catch socket works). */
        u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK(u >= 0, "udp socket");
        to = sa("192.0.2.7", 123, &tl);
        CHECK(sendto(u, "x", 1, 0, (struct sockaddr *) &to, tl) < 0 && errno == EPERM,
              "UDP to 192.0.2.7:123 was not refused with EPERM");
        to = sa("192.0.2.1", 123, &tl);
        CHECK(sendto(u, "x", 1, 0, (struct sockaddr *) &to, tl) < 0 && errno == EPERM,
              "UDP to 192.0.2.1:123 (our own address) was not refused with EPERM");
        /* ICMP (a raw socket: we hold CAP_NET_RAW in the namespace's owner). */
        raw = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
        CHECK(raw >= 0, "raw ICMP socket");
        memset(&echo, 0, sizeof(echo));
        echo.type = ICMP_ECHO;
        echo.checksum = htons((uint16_t) ~(ICMP_ECHO << 8));
        to = sa("192.0.2.7", 0, &tl);
        CHECK(sendto(raw, &echo, sizeof(echo), 0, (struct sockaddr *) &to, tl) < 0 &&
              errno == EPERM, "ICMP to 192.0.2.7 was not refused with EPERM");
        to = sa("127.0.0.1", 0, &tl);
        CHECK(sendto(raw, &echo, sizeof(echo), 0, (struct sockaddr *) &to, tl) ==
              (ssize_t) sizeof(echo), "ICMP to 127.0.0.1 was refused");
        close(raw);
        pf[0] = (struct pollfd) { d, POLLIN, 0 };
        pf[1] = (struct pollfd) { catch, POLLIN, 0 };
        pf[2] = (struct pollfd) { u, POLLIN, 0 };
        CHECK(poll(pf, 3, QUIET_MS) == 0, "a refused datagram arrived somewhere (%d %d %d)",
              pf[0].revents, pf[1].revents, pf[2].revents);
        to = sa("127.0.0.1", 123, &tl);
        CHECK(sendto(u, "y", 1, 0, (struct sockaddr *) &to, tl) == 1, "UDP to 127.0.0.1:123");
        CHECK(ready(catch, WAIT_MS, 0) && recv(catch, buf, sizeof(buf), 0) == 1 && buf[0] == 'y',
              "UDP to 127.0.0.1:123 did not arrive");
        CHECK(!ready(d, 0, 0), "UDP to 127.0.0.1:123 reached the DNS socket");
        close(u);
        close(catch);
        close(d);
}

/* The child: own namespaces, lo, the messages, the checks. */
static void ns_child(const struct sbx__nft_msgs *m, int want_inet)
{
        char map[64];
        uid_t uid = getuid();
        gid_t gid = getgid();
        int r, failed = -1;

        if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
                child_say("user namespaces unavailable: unshare: %s", strerror(errno));
                _exit(EXIT_SKIP);
        }
        /* The ladder's maps (src/linux/ladder.c): the same ids inside, so
         * a non-root caller is not root there; the capabilities the new
         * user namespace gives its creator last until execve. */
        snprintf(map, sizeof(map), "%u %u 1\n", (unsigned) uid, (unsigned) uid);
        if ((r = put_file("/proc/self/setgroups", "deny")) < 0 && r != -ENOENT) {
                child_say("writing setgroups: %s", strerror(-r));
                _exit(1);
        }
        if ((r = put_file("/proc/self/uid_map", map)) < 0) {
                child_say("writing uid_map: %s", strerror(-r));
                _exit(1);
        }
        snprintf(map, sizeof(map), "%u %u 1\n", (unsigned) gid, (unsigned) gid);
        if ((r = put_file("/proc/self/gid_map", map)) < 0) {
                child_say("writing gid_map: %s", strerror(-r));
                _exit(1);
        }
        CHECK((r = lo_up()) == 0, "lo up: %s", strerror(-r));
        CHECK((r = add_own_address()) == 0, "192.0.2.1/32 on lo: %s", strerror(-r));
        r = sbx__nft_apply(m, &failed);
        if (r == -ENOENT || r == -EOPNOTSUPP || r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT) {
                child_say("this kernel lacks nftables NAT: %s refused: %s",
                          sbx__nft_msg_name(m, failed), strerror(-r));
                _exit(EXIT_SKIP);
        }
        CHECK(r == 0, "sbx__nft_apply: %s: %s", sbx__nft_msg_name(m, failed), strerror(-r));
        CHECK(failed == -1, "failed is %d after success", failed);
        CHECK(table_exists(NFPROTO_INET) == want_inet && table_exists(NFPROTO_IPV4) == !want_inet &&
              table_exists(NFPROTO_IPV6) == !want_inet,
              "tables inet/ip/ip6 sbx: %d %d %d, want inet %d", table_exists(NFPROTO_INET),
              table_exists(NFPROTO_IPV4), table_exists(NFPROTO_IPV6), want_inet);
        tcp_checks();
        udp_checks();
        /* The same messages again: the route exists, refused by name. */
        r = sbx__nft_apply(m, &failed);
        CHECK(r == -EEXIST && failed == 0, "a second apply: %d, message %d", r, failed);
        CHECK(strstr(sbx__nft_msg_name(m, failed), "IPv4 default route") != NULL,
              "a second apply blamed %s", sbx__nft_msg_name(m, failed));
        _exit(0);
}

static void run_ns(uint32_t flags, int break_inet)
{
        struct sbx__nft_spec spec = { TCP_PORT, DNS_PORT, flags };
        struct sbx__nft_msgs m;
        char out[4096], why[4096], *line, *save = NULL;
        size_t len = 0;
        ssize_t n;
        int p[2], st;
        pid_t pid;

        assert_int_equal(sbx__nft_build(&spec, &m, NULL), SBX_OK);
        if (break_inet) {
                /* The inet nat chain's type "nat" becomes "nax": the kernel
                 * refuses the inet batch with ENOENT, as one without nat in
                 * inet tables does. */
                char *t = memmem(m.inet.data, m.inet.len, "nat", 4);

                assert_non_null(t);
                t[2] = 'x';
        }
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                report_fd = p[1];
                ns_child(&m, !(flags & SBX__NFT_SPLIT_TABLES) && !break_inet);
                _exit(3);
        }
        close(p[1]);
        while (len < sizeof(out) - 1 &&
               ((n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
                if (n > 0)
                        len += (size_t) n;
        out[len] = '\0';
        close(p[0]);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        sbx__nft_msgs_free(&m);
        /* "info: " lines are notes; the others say what went wrong. */
        why[0] = '\0';
        for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
                if (strncmp(line, "info: ", 6) == 0) {
                        print_message("[  NOTE    ] %s\n", line + 6);
                } else {
                        if (why[0] != '\0')
                                strncat(why, " -- ", sizeof(why) - strlen(why) - 1);
                        strncat(why, line, sizeof(why) - strlen(why) - 1);
                }
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                return;
        if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_SKIP) {
                if (require_all())
                        fail_msg("cannot test (SBX_REQUIRE_ALL=1): %s", why);
                print_message("[  SKIP    ] %s\n", why);
                skip();
        }
        fail_msg("the namespace child failed (status 0x%x): %s", (unsigned) st, why);
}

static void test_nft__transparent_inet(void **state)
{
        (void) state;
        run_ns(0, 0);
}

/* The fallback tables (ip + ip6), as a kernel before 5.2 gets them. */
static void test_nft__transparent_split_tables(void **state)
{
        (void) state;
        run_ns(SBX__NFT_SPLIT_TABLES, 0);
}

/* The kernel refuses the inet batch (ENOENT): the child commits the split
 * tables instead, and they enforce. */
static void test_nft__inet_refused_falls_back(void **state)
{
        (void) state;
        run_ns(0, 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nft__bad_input_is_refused),
                cmocka_unit_test(test_nft__free_null_and_twice),
                cmocka_unit_test(test_nft__build_shape),
                cmocka_unit_test(test_nft__transparent_inet),
                cmocka_unit_test(test_nft__transparent_split_tables),
                cmocka_unit_test(test_nft__inet_refused_falls_back),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
