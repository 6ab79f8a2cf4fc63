/*
 * transparent.c - the engine's transparent mode (docs/network.md,
 * "Transparent mode"): the command's network namespace redirects every
 * outbound TCP connection to a listener of the execution, and every DNS
 * datagram to a UDP socket of it.
 *
 * A redirected connection, on a thread of its own: its original
 * destination (SO_ORIGINAL_DST), its first bytes (bounded in size and
 * time) read as a TLS ClientHello (the server name, sni.c), an HTTP/1
 * request (the Host header, http.c) or neither (the original address is
 * the target); then exactly the proxy's decisions: a rule admits the
 * target (the host, the original port), the name is resolved and only
 * addresses that pass the class check are dialled (the original address
 * first when it is one of them: it is a hint, never a permission), the
 * bytes read are replayed to the origin and the rest relayed.  A refusal
 * closes the connection after a TLS alert or an HTTP response when the
 * protocol has one, and is an event of the execution.
 *
 * A DNS answerer, one thread per socket: every query parsed (dns.c); a
 * name no rule admits is NXDOMAIN (an event); an admitted one is resolved
 * by the engine's resolver, without blocking the other queries, and only
 * the addresses a connection to it could be dialled at are answered.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_internal.h"

#ifndef SO_ORIGINAL_DST
#  define SO_ORIGINAL_DST 80            /* <linux/netfilter_ipv4.h> */
#endif
#ifndef IP6T_SO_ORIGINAL_DST
#  define IP6T_SO_ORIGINAL_DST 80       /* <linux/netfilter_ipv6/ip6_tables.h> */
#endif

#define TLS_ALERT_ACCESS_DENIED  49
#define TLS_ALERT_DECODE_ERROR   50
#define TLS_ALERT_INTERNAL_ERROR 80

#define DNS_PENDING_MAX 32              /* lookups in flight per DNS socket */
#define DNS_BUF         4096

/* ------------------------------------------------ the original destination */

/* A sockaddr into addr and port (IPv4-mapped as IPv4); -EAFNOSUPPORT. */
static int from_sockaddr(const struct sockaddr_storage *ss, struct sbx__net_addr *addr,
                         uint16_t *port)
{
        static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

        memset(addr, 0, sizeof(*addr));
        if (ss->ss_family == AF_INET) {
                const struct sockaddr_in *a = (const struct sockaddr_in *) ss;

                addr->family = 4;
                memcpy(addr->b, &a->sin_addr, 4);
                *port = ntohs(a->sin_port);
                return 0;
        }
        if (ss->ss_family == AF_INET6) {
                const struct sockaddr_in6 *a = (const struct sockaddr_in6 *) ss;

                addr->family = 6;
                memcpy(addr->b, &a->sin6_addr, 16);
                if (memcmp(addr->b, mapped, 12) == 0) {
                        memmove(addr->b, addr->b + 12, 4);
                        memset(addr->b + 4, 0, 12);
                        addr->family = 4;
                }
                *port = ntohs(a->sin6_port);
                return 0;
        }
        return -EAFNOSUPPORT;
}

int sbx__net_original_dst(int fd, struct sbx__net_addr *addr, uint16_t *port, void *userdata)
{
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int r;

        (void) userdata;
        memset(&ss, 0, sizeof(ss));
        if (getsockname(fd, (struct sockaddr *) &ss, &sl) < 0)
                return -errno;
        if (ss.ss_family == AF_INET6) {
                sl = sizeof(struct sockaddr_in6);
                if (getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, &ss, &sl) == 0)
                        return from_sockaddr(&ss, addr, port);
        }
        /* IPv4, and IPv4 on a dual-stack socket (conntrack's IPv4 entry). */
        memset(&ss, 0, sizeof(ss));
        sl = sizeof(struct sockaddr_in);
        r = getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &ss, &sl);
        if (r < 0)
                return -errno;
        return from_sockaddr(&ss, addr, port);
}

/* ------------------------------------------------------- one connection */

enum { KIND_TLS = 1, KIND_HTTP = 2, KIND_OTHER = 3 };

struct tconn {
        struct sbx__proxy_conn          *c;
        struct sbx__proxy_exec          *x;
        const struct sbx__proxy_limits  *lim;
        int                              cancel_fd;
        struct sbx__net_addr             orig;
        uint16_t                         oport;
        char                            *buf;           /* head_max */
        uint8_t                         *scratch;       /* head_max */
        size_t                           have, end;     /* read; the head (HTTP) */
        int                              kind;
        struct sbx__tls_hello            hello;
        struct sbx__http_request         req;
        struct sbx__net_target           target;
        char                             ttext[SBX__NET_TARGET_TEXT];
};

static void addr_target(const struct sbx__net_addr *a, uint16_t port, struct sbx__net_target *t)
{
        memset(t, 0, sizeof(*t));
        t->host.is_addr = 1;
        t->host.addr = *a;
        (void) sbx__net_addr_format(a, t->host.text);
        t->port = port;
}

/* The refusal of a connection: its event, then what the protocol can
 * carry (a fatal TLS alert, an HTTP response; nothing otherwise). */
static void refuse(struct tconn *k, int reason, int status, int alert, const char *body,
                   const struct sbx__net_addr *addr, int addr_class)
{
        struct sbx__net_target t;
        char resp[2048];
        size_t n = 0;

        /* Before there is a target, the event names the original one. */
        if (k->target.port != 0)
                t = k->target;
        else if (k->oport != 0)
                addr_target(&k->orig, k->oport, &t);
        sbx__proxy_event_via(k->x, SBX__NET_VIA_TRANSPARENT, reason,
                             k->kind == KIND_HTTP ? status : 0,
                             k->target.port != 0 || k->oport != 0 ? &t : NULL, addr,
                             addr_class);
        if (k->kind == KIND_TLS) {
                uint16_t v = k->hello.record_version >= 0x0301 &&
                             k->hello.record_version <= 0x0303 ? k->hello.record_version
                                                              : 0x0301;

                resp[0] = 21;                   /* alert */
                resp[1] = (char) (v >> 8);
                resp[2] = (char) (v & 0xff);
                resp[3] = 0;
                resp[4] = 2;
                resp[5] = 2;                    /* fatal */
                resp[6] = (char) alert;
                n = 7;
        } else if (k->kind == KIND_HTTP) {
                n = sbx__http_response(status, body, resp, sizeof(resp));
        }
        if (n > 0)
                (void) sbx__proxy_send_all(k->c->fd, resp, n, k->cancel_fd,
                                           sbx__proxy_now_ms() + 2000);
}

/* An HTTP/1 request line starts with an upper-case method and a space: 1
 * when buf starts like one, 0 while it still may, -1 when it cannot. */
static int http_start(const char *buf, size_t len)
{
        size_t i;

        for (i = 0; i < len && i <= 20; i++) {
                if (buf[i] == ' ')
                        return i > 0 ? 1 : -1;
                if (buf[i] < 'A' || buf[i] > 'Z')
                        return -1;
        }
        return i > 20 ? -1 : 0;
}

/* What buf[0..have) is: KIND_*, 0 to read more, or -1 (a malformed
 * ClientHello). */
static int classify(struct tconn *k)
{
        int r = sbx__tls_client_hello((const uint8_t *) k->buf, k->have, k->scratch,
                                      k->lim->head_max, &k->hello);

        if (r == SBX__TLS_OK)
                return KIND_TLS;
        if (r == SBX__TLS_MORE)
                return 0;
        if (r == SBX__TLS_BAD)
                return -1;
        r = http_start(k->buf, k->have);
        if (r == 0)
                return 0;
        if (r < 0)
                return KIND_OTHER;
        k->end = sbx__http_head_end(k->buf, k->have);
        return k->end > 0 ? KIND_HTTP : 0;
}

/* Read until the first bytes say what they are.  KIND_*, or 0 when the
 * connection ended, was cut or was refused here. */
static int read_start(struct tconn *k)
{
        int64_t now = sbx__proxy_now_ms();
        int64_t first = now + k->lim->peek_timeout_ms, all = now + k->lim->request_timeout_ms;
        int kind = 0;

        while (kind == 0) {
                ssize_t n;
                int w;

                if (k->have < k->lim->head_max) {
                        n = recv(k->c->fd, k->buf + k->have, k->lim->head_max - k->have, 0);
                        if (n > 0) {
                                k->have += (size_t) n;
                                kind = classify(k);
                                continue;
                        }
                        if (n == 0)
                                return 0;       /* gone before it said anything useful */
                        if (errno == EINTR)
                                continue;
                        if (errno != EAGAIN && errno != EWOULDBLOCK)
                                return 0;
                } else {
                        /* The limit, and still not a whole ClientHello or head. */
                        k->kind = k->buf[0] == 22 ? KIND_TLS : KIND_HTTP;
                        refuse(k, SBX__NET_R_MALFORMED, 431, TLS_ALERT_DECODE_ERROR,
                               "sandbox: the request head is too large\n", NULL, -1);
                        return 0;
                }
                w = sbx__proxy_wait(k->c->fd, POLLIN, k->cancel_fd, k->have == 0 ? first : all);
                if (w < 0)
                        return 0;
                if (w == 0 && k->have == 0)
                        return KIND_OTHER;      /* a protocol whose server speaks first */
                if (w == 0) {
                        k->kind = k->buf[0] == 22 ? KIND_TLS : KIND_HTTP;
                        refuse(k, SBX__NET_R_TIMEOUT, 408, TLS_ALERT_DECODE_ERROR,
                               "sandbox: the request head did not arrive in time\n", NULL, -1);
                        return 0;
                }
        }
        if (kind < 0) {
                k->kind = KIND_TLS;
                refuse(k, SBX__NET_R_MALFORMED, 0, TLS_ALERT_DECODE_ERROR, NULL, NULL, -1);
                return 0;
        }
        return kind;
}

/* The target: the server name, the Host header, or the original address;
 * the port is always the original one.  0, or -1 when refused. */
static int find_target(struct tconn *k)
{
        char body[512];
        sbx_error err;

        memset(&err, 0, sizeof(err));
        if (k->kind == KIND_TLS && k->hello.has_sni) {
                if (sbx__net_host_parse("TLS server name", k->hello.sni, k->hello.sni_len, 0,
                                        &k->target.host, &err) != SBX_OK) {
                        refuse(k, SBX__NET_R_MALFORMED, 0, TLS_ALERT_DECODE_ERROR, NULL, NULL,
                               -1);
                        return -1;
                }
                k->target.port = k->oport;
                return 0;
        }
        if (k->kind == KIND_HTTP) {
                if (sbx__http_parse_origin(k->buf, k->end, k->oport, &k->req, &err) != SBX_OK) {
                        (void) snprintf(body, sizeof(body), "sandbox: bad request: %s\n",
                                        err.message);
                        refuse(k, SBX__NET_R_MALFORMED, 400, 0, body, NULL, -1);
                        return -1;
                }
                if (k->req.target_ok) {
                        k->target = k->req.target;
                        return 0;
                }
        }
        addr_target(&k->orig, k->oport, &k->target);
        return 0;
}

static void serve(struct tconn *k)
{
        struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX], refused;
        size_t n = 0, i, last = 0;
        uint32_t classes = 0;
        char body[1024], atext[SBX__NET_ADDR_TEXT];
        int rc, ofd, rcls = -1;

        rc = k->lim->origdst != NULL
             ? k->lim->origdst(k->c->fd, &k->orig, &k->oport, k->lim->origdst_userdata)
             : sbx__net_original_dst(k->c->fd, &k->orig, &k->oport, NULL);
        if (rc < 0 || k->oport == 0) {
                k->oport = 0;                   /* no target to name */
                refuse(k, SBX__NET_R_ORIGINAL, 0, 0, NULL, NULL, -1);
                return;
        }
        {
                /* Not redirected (loopback never is): the command dialled
                 * the listener itself.  Nothing to carry it to. */
                struct sockaddr_storage ss;
                struct sbx__net_addr local;
                socklen_t sl = sizeof(ss);
                uint16_t lport = 0;

                memset(&ss, 0, sizeof(ss));
                if (getsockname(k->c->fd, (struct sockaddr *) &ss, &sl) == 0 &&
                    from_sockaddr(&ss, &local, &lport) == 0 && lport == k->oport &&
                    sbx__net_addr_equal(&local, &k->orig)) {
                        addr_target(&k->orig, k->oport, &k->target);
                        refuse(k, SBX__NET_R_ORIGINAL, 0, 0, NULL, &k->orig,
                               (int) sbx__net_addr_class(&k->orig));
                        return;
                }
        }
        k->kind = read_start(k);
        if (k->kind == 0 || find_target(k) < 0)
                return;
        (void) sbx__net_target_format(&k->target, k->ttext);
        if (!sbx__net_rules_admit(&k->x->rules, &k->target, &classes)) {
                (void) snprintf(body, sizeof(body), "sandbox: %s refused: no allowlist entry or "
                                "grant covers %s port %u\n", k->ttext, k->target.host.text,
                                (unsigned) k->target.port);
                refuse(k, SBX__NET_R_NOT_ALLOWED, 403, TLS_ALERT_ACCESS_DENIED, body, NULL, -1);
                return;
        }
        if (k->x->has_upstream) {
                /* As for the proxy: the upstream resolves the name. */
                char *early = NULL;
                size_t early_len = 0;

                ofd = sbx__proxy_dial_upstream(k->x, k->ttext, k->cancel_fd, &early, &early_len,
                                               body, sizeof(body));
                if (ofd == -1)
                        refuse(k, SBX__NET_R_UPSTREAM, 502, TLS_ALERT_INTERNAL_ERROR, body,
                               NULL, -1);
                if (ofd >= 0) {
                        sbx__proxy_relay(k->c->fd, ofd, k->cancel_fd, k->lim->idle_timeout_ms,
                                         k->lim->relay_splice == 0, k->buf, k->have, early,
                                         early_len);
                        (void) close(ofd);
                }
                free(early);
                return;
        }
        rc = sbx__proxy_checked_addrs(k->x, &k->target, classes, k->cancel_fd, addrs, &n,
                                      &refused, &rcls);
        if (rc == -ECANCELED)
                return;
        if (rc == 1) {
                (void) snprintf(body, sizeof(body), "sandbox: %s refused: %s is a%s %s "
                                "address\n", k->ttext, sbx__net_addr_format(&refused, atext),
                                sbx__net_class_name(rcls)[0] == 'u' ? "n" : "",
                                sbx__net_class_name(rcls));
                refuse(k, SBX__NET_R_ADDRESS, 403, TLS_ALERT_ACCESS_DENIED, body, &refused,
                       rcls);
                return;
        }
        if (rc < 0) {
                (void) snprintf(body, sizeof(body), "sandbox: cannot resolve %s: %s\n",
                                k->target.host.text, sbx__strerror(-rc));
                refuse(k, SBX__NET_R_RESOLVE, 502, TLS_ALERT_INTERNAL_ERROR, body, NULL, -1);
                return;
        }
        /* The original address first, when it passed too. */
        for (i = 1; i < n; i++)
                if (sbx__net_addr_equal(&addrs[i], &k->orig)) {
                        struct sbx__net_addr t = addrs[0];

                        addrs[0] = addrs[i];
                        addrs[i] = t;
                        break;
                }
        ofd = sbx__proxy_dial_first(k->x, addrs, n, k->target.port, k->cancel_fd, &last);
        if (ofd == -ECANCELED)
                return;
        if (ofd < 0) {
                (void) snprintf(body, sizeof(body), "sandbox: cannot connect to %s (%s): %s\n",
                                k->ttext, sbx__net_addr_format(&addrs[last], atext),
                                sbx__strerror(-ofd));
                refuse(k, SBX__NET_R_DIAL, 502, TLS_ALERT_INTERNAL_ERROR, body, NULL, -1);
                return;
        }
        sbx__proxy_relay(k->c->fd, ofd, k->cancel_fd, k->lim->idle_timeout_ms,
                         k->lim->relay_splice == 0, k->buf, k->have, NULL, 0);
        (void) close(ofd);
}

void *sbx__proxy_tconn_main(void *arg)
{
        struct sbx__proxy_conn *c = arg;
        struct tconn *k = calloc(1, sizeof(*k));

        if (k != NULL) {
                k->c = c;
                k->x = c->x;
                k->lim = &c->e->lim;
                k->cancel_fd = c->x->cancel_fd;
                k->buf = malloc(k->lim->head_max);
                k->scratch = malloc(k->lim->head_max);
                if (k->buf != NULL && k->scratch != NULL)
                        serve(k);
                free(k->buf);
                free(k->scratch);
                free(k);
        }
        (void) shutdown(c->fd, SHUT_RDWR);
        (void) close(c->fd);
        c->fd = -EBADF;
        sbx__proxy_conn_done(c);
        return NULL;
}

/* ------------------------------------------------------- the DNS answerer */

struct dns_pending {
        struct sbx__net_lookup *l;
        int64_t                 deadline;
        struct sbx__dns_query   q;
        struct sbx__net_host    host;
        struct sockaddr_storage from;
        socklen_t               fromlen;
};

struct sbx__proxy_dns {
        struct sbx__proxy_exec *x;
        int                     fd;
        pthread_t               thread;
        int                     started;
        size_t                  npend;
        struct dns_pending      pend[DNS_PENDING_MAX];
        uint8_t                 buf[DNS_BUF];
};

static void dns_send(struct sbx__proxy_dns *d, const struct sbx__dns_query *q, int rcode,
                     const struct sbx__net_addr *addrs, size_t n,
                     const struct sockaddr_storage *to, socklen_t tolen)
{
        uint8_t out[512];
        size_t len = sbx__dns_response(q, rcode, addrs, n, SBX__DNS_TTL, out, sizeof(out));

        if (len > 0)
                (void) sendto(d->fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL,
                              (const struct sockaddr *) to, tolen);
}

static void dns_event(struct sbx__proxy_dns *d, int reason, int rcode,
                      const struct sbx__net_host *h, const struct sbx__net_addr *addr,
                      int addr_class)
{
        struct sbx__net_target t;

        memset(&t, 0, sizeof(t));
        t.host = *h;
        sbx__proxy_event_via(d->x, SBX__NET_VIA_DNS, reason, rcode, &t, addr, addr_class);
}

/* One datagram: answered at once, or a lookup started. */
static void dns_query(struct sbx__proxy_dns *d, size_t len, const struct sockaddr_storage *from,
                      socklen_t fromlen)
{
        struct dns_pending *p = &d->pend[d->npend];
        int rc = sbx__dns_parse_query(d->buf, len, &p->q);

        if (rc < 0)
                return;
        if (rc != SBX__DNS_NOERROR) {
                dns_send(d, &p->q, rc, NULL, 0, from, fromlen);
                return;
        }
        /* Another class, or a name that is no host name (an address, a
         * service label): not ours to answer. */
        if (p->q.qclass != SBX__DNS_IN || !p->q.name_ok ||
            sbx__net_host_parse("DNS name", p->q.name, strlen(p->q.name), 0, &p->host,
                                NULL) != SBX_OK || p->host.is_addr) {
                dns_send(d, &p->q, SBX__DNS_REFUSED, NULL, 0, from, fromlen);
                return;
        }
        if (!sbx__dns_name_admitted(&d->x->rules, &p->host)) {
                dns_event(d, SBX__NET_R_DNS, SBX__DNS_NXDOMAIN, &p->host, NULL, -1);
                dns_send(d, &p->q, SBX__DNS_NXDOMAIN, NULL, 0, from, fromlen);
                return;
        }
        /* Other types of an admitted name: no records of that type. */
        if (p->q.qtype != SBX__DNS_A && p->q.qtype != SBX__DNS_AAAA) {
                dns_send(d, &p->q, SBX__DNS_NOERROR, NULL, 0, from, fromlen);
                return;
        }
        rc = sbx__net_resolve_start(d->x->e->res, p->host.text, &p->l);
        if (rc < 0) {
                dns_event(d, rc == -EBUSY ? SBX__NET_R_LIMIT : SBX__NET_R_RESOLVE,
                          SBX__DNS_SERVFAIL, &p->host, NULL, -1);
                dns_send(d, &p->q, SBX__DNS_SERVFAIL, NULL, 0, from, fromlen);
                return;
        }
        p->deadline = sbx__proxy_now_ms() + d->x->e->lim.resolve_timeout_ms;
        p->from = *from;
        p->fromlen = fromlen;
        d->npend++;
}

/* The lookup of pending i is done (or, done 0, out of time): answer it
 * and drop it. */
static void dns_finish(struct sbx__proxy_dns *d, size_t i, int done)
{
        struct dns_pending *p = &d->pend[i];
        struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX], keep[SBX__DNS_ANSWERS_MAX], refused;
        uint8_t fam = p->q.qtype == SBX__DNS_A ? 4 : 6;
        size_t n = 0, k = 0, j;
        int rc, have_refused = 0;

        rc = done ? sbx__net_resolve_end(d->x->e->res, p->l, addrs, SBX__NET_ADDRS_MAX, &n)
                  : sbx__net_resolve_end(d->x->e->res, p->l, NULL, 0, NULL);
        if (!done)
                rc = -ETIMEDOUT;
        if (rc < 0) {
                int rcode = rc == -ENOENT ? SBX__DNS_NXDOMAIN : SBX__DNS_SERVFAIL;

                dns_event(d, SBX__NET_R_RESOLVE, rcode, &p->host, NULL, -1);
                dns_send(d, &p->q, rcode, NULL, 0, &p->from, p->fromlen);
        } else {
                for (j = 0; j < n; j++) {
                        if (addrs[j].family != fam)
                                continue;
                        if (sbx__dns_address_ok(&d->x->rules, &p->host, &addrs[j])) {
                                if (k < SBX__DNS_ANSWERS_MAX)
                                        keep[k++] = addrs[j];
                        } else if (!have_refused) {
                                refused = addrs[j];
                                have_refused = 1;
                        }
                }
                if (k == 0 && have_refused)
                        dns_event(d, SBX__NET_R_ADDRESS, SBX__DNS_NOERROR, &p->host, &refused,
                                  (int) sbx__net_addr_class(&refused));
                dns_send(d, &p->q, SBX__DNS_NOERROR, keep, k, &p->from, p->fromlen);
        }
        d->pend[i] = d->pend[--d->npend];
}

static void *dns_main(void *arg)
{
        struct sbx__proxy_dns *d = arg;
        struct pollfd pf[2 + DNS_PENDING_MAX];
        size_t i;

        for (;;) {
                int64_t now = sbx__proxy_now_ms(), soonest = -1;
                size_t np = d->npend, burst;
                int r, timeout;

                pf[0].fd = d->x->cancel_fd;
                pf[0].events = POLLIN;
                pf[1].fd = d->fd;
                pf[1].events = np < DNS_PENDING_MAX ? POLLIN : 0;
                for (i = 0; i < np; i++) {
                        pf[2 + i].fd = sbx__net_lookup_fd(d->pend[i].l);
                        pf[2 + i].events = POLLIN;
                        if (soonest < 0 || d->pend[i].deadline < soonest)
                                soonest = d->pend[i].deadline;
                }
                timeout = soonest < 0 ? -1 : soonest <= now ? 0
                        : soonest - now > 60000 ? 60000 : (int) (soonest - now);
                for (i = 0; i < 2 + np; i++)
                        pf[i].revents = 0;
                r = poll(pf, 2 + np, timeout);
                if (r < 0 && errno != EINTR && errno != ENOMEM)
                        break;
                if (r < 0)
                        continue;
                if (pf[0].revents != 0)
                        break;
                now = sbx__proxy_now_ms();
                /* From the end: a finished one is replaced by the last,
                 * which has been looked at already. */
                for (i = np; i-- > 0;) {
                        if (pf[2 + i].revents & POLLIN)
                                dns_finish(d, i, 1);
                        else if (d->pend[i].deadline <= now)
                                dns_finish(d, i, 0);
                }
                if (pf[1].revents & (POLLNVAL | POLLHUP))
                        break;                  /* the socket is gone (shut down) under us */
                if (pf[1].revents & POLLERR) {
                        int so = 0;
                        socklen_t sl = sizeof(so);

                        (void) getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &so, &sl);  /* clear it */
                }
                for (burst = 0; burst < 16 && (pf[1].revents & POLLIN) &&
                                d->npend < DNS_PENDING_MAX; burst++) {
                        struct sockaddr_storage from;
                        socklen_t fl = sizeof(from);
                        ssize_t n = recvfrom(d->fd, d->buf, sizeof(d->buf), MSG_DONTWAIT,
                                             (struct sockaddr *) &from, &fl);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                break;          /* EAGAIN, or an ICMP error queued */
                        dns_query(d, (size_t) n, &from, fl);
                }
        }
        for (i = 0; i < d->npend; i++)
                (void) sbx__net_resolve_end(d->x->e->res, d->pend[i].l, NULL, 0, NULL);
        d->npend = 0;
        return NULL;
}

void sbx__proxy_dns_stop(struct sbx__proxy_exec *x)
{
        uint32_t i;

        for (i = 0; i < x->dns_n; i++) {
                struct sbx__proxy_dns *d = x->dns[i];

                if (d->started)
                        (void) pthread_join(d->thread, NULL);
                if (d->fd >= 0)
                        (void) close(d->fd);
                free(d);
                x->dns[i] = NULL;
        }
        x->dns_n = 0;
}

/* -------------------------------------------------------------- the API */

/* fd's type is `type` (and a listening one for SOCK_STREAM), IPv4 or 6. */
static int sock_is(int fd, int type)
{
        int v = 0, dom = 0, acc = 0;
        socklen_t l = sizeof(v), dl = sizeof(dom), al = sizeof(acc);

        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != type ||
            getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) < 0 ||
            (dom != AF_INET && dom != AF_INET6))
                return 0;
        if (type == SOCK_STREAM &&
            (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 || !acc))
                return 0;
        return 1;
}

static int dup_nonblock(int fd)
{
        int d = fcntl(fd, F_DUPFD_CLOEXEC, 3), fl, e;

        if (d < 0)
                return -errno;
        fl = fcntl(d, F_GETFL);
        if (fl < 0 || fcntl(d, F_SETFL, fl | O_NONBLOCK) < 0) {
                e = errno;
                (void) close(d);
                return -e;
        }
        return d;
}

sbx_code sbx__proxy_exec_transparent(struct sbx__proxy_exec *x, int tcp_listen_fd, int dns_fd,
                                     sbx_error *err)
{
        const char *fn = "sbx__proxy_exec_transparent";
        struct sbx__proxy_engine *e;
        struct sbx__proxy_dns *d = NULL;
        int tfd = -EBADF, rc;
        sbx_code r;

        if (x == NULL || (tcp_listen_fd < 0 && dns_fd < 0))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: x and one of tcp_listen_fd and "
                                 "dns_fd are required", fn);
        if (tcp_listen_fd >= 0 && !sock_is(tcp_listen_fd, SOCK_STREAM))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: tcp_listen_fd is not a listening "
                                 "TCP socket", fn);
        if (dns_fd >= 0 && !sock_is(dns_fd, SOCK_DGRAM))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: dns_fd is not a UDP socket", fn);
        e = x->e;
        if (tcp_listen_fd >= 0 && (tfd = dup_nonblock(tcp_listen_fd)) < 0)
                return sbx__fail(err, SBX_E_INTERNAL, -tfd, "%s: %s", fn, sbx__strerror(-tfd));
        if (dns_fd >= 0) {
                d = calloc(1, sizeof(*d));
                if (d == NULL) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                        goto fail;
                }
                d->x = x;
                d->fd = dup_nonblock(dns_fd);
                if (d->fd < 0) {
                        r = sbx__fail(err, SBX_E_INTERNAL, -d->fd, "%s: %s", fn,
                                      sbx__strerror(-d->fd));
                        goto fail;
                }
        }
        (void) pthread_mutex_lock(&e->lock);
        if (x->released || e->stopping) {
                (void) pthread_mutex_unlock(&e->lock);
                r = sbx__fail(err, SBX_E_CLOSED, 0, "%s: the execution is released", fn);
                goto fail;
        }
        if ((tfd >= 0 && x->tl_n == SBX__PROXY_TRANSPARENT_MAX) ||
            (d != NULL && x->dns_n == SBX__PROXY_TRANSPARENT_MAX)) {
                (void) pthread_mutex_unlock(&e->lock);
                r = sbx__fail(err, SBX_E_RANGE, 0, "%s: at most %d listeners and DNS sockets "
                              "each", fn, SBX__PROXY_TRANSPARENT_MAX);
                goto fail;
        }
        if (d != NULL) {
                rc = sbx__proxy_thread_start(&d->thread, dns_main, d, SBX__PROXY_STACK);
                if (rc < 0) {
                        (void) pthread_mutex_unlock(&e->lock);
                        r = sbx__fail(err, SBX_E_INTERNAL, -rc, "%s: cannot start the DNS "
                                      "thread", fn);
                        goto fail;
                }
                d->started = 1;
                x->dns[x->dns_n++] = d;
        }
        if (tfd >= 0) {
                x->tl_fd[x->tl_n++] = tfd;
                x->listening++;
        }
        (void) pthread_mutex_unlock(&e->lock);
        sbx__proxy_poke(e->ctl_fd);
        return SBX_OK;
fail:
        if (d != NULL && d->fd >= 0)
                (void) close(d->fd);
        free(d);
        if (tfd >= 0)
                (void) close(tfd);
        return r;
}
