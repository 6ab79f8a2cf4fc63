/*
 * conn.c - one client connection of the egress proxy, on a thread of its
 * own: read the request head (bounded in size and time), check it in
 * this order - well-formed (400), credential (407), a rule admits the
 * target (403) - then dial: directly (resolve once, check the class of
 * every address, dial only an address that passed; 403 when none did,
 * 502 when none answered) or through the upstream proxy with CONNECT
 * (502 when it fails, and then nothing else is tried).  A CONNECT gets
 * "200" and a byte tunnel; a forward request is sent on in origin form
 * and its response relayed back.  Every refusal is an event of the
 * execution (docs/network.md, "Requests" and "Refusals").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_internal.h"

/* A refusal or failure being answered. */
struct answer {
        int  status;
        int  reason;
        char body[1536];
};

struct conn_ctx {
        struct sbx__proxy_conn   *c;
        struct sbx__proxy_exec   *x;
        const struct sbx__proxy_limits *lim;
        int                       cancel_fd;
        struct sbx__http_request  req;
        char                      target[SBX__NET_TARGET_TEXT];
        /* what the dialled side already sent, for the client (upstream) */
        char                     *early;
        size_t                    early_len;
};

static void answer_send(struct conn_ctx *k, const struct answer *a)
{
        char resp[2048];
        size_t n = sbx__http_response(a->status, a->body, resp, sizeof(resp));

        (void) sbx__proxy_send_all(k->c->fd, resp, n, k->cancel_fd,
                                   sbx__proxy_now_ms() + 2000);
}

/* Refuse with status/reason: an event, then the answer. */
static void refuse(struct conn_ctx *k, struct answer *a, const struct sbx__net_addr *addr,
                   int addr_class)
{
        sbx__proxy_event(k->x, a->reason, a->status, k->req.target_ok ? &k->req.target : NULL,
                         addr, addr_class);
        answer_send(k, a);
}

static const char *errtext(int neg)
{
        switch (-neg) {
        case ENOENT:    return "no such name";
        case ETIMEDOUT: return "timed out";
        case EBUSY:     return "too many lookups waiting";
        case EAGAIN:    return "temporary resolver failure";
        default:        return sbx__strerror(-neg);
        }
}

/* Read the head into buf (size head_max): its length, and *have all bytes
 * read so far.  0 when the client went away or the execution was cut; -1
 * with *a filled to answer. */
static size_t read_head(struct conn_ctx *k, char *buf, size_t *have, struct answer *a)
{
        int64_t deadline = sbx__proxy_now_ms() + k->lim->request_timeout_ms;
        size_t len = 0, end;

        for (;;) {
                ssize_t n = recv(k->c->fd, buf + len, k->lim->head_max - len, 0);

                if (n > 0) {
                        len += (size_t) n;
                        end = sbx__http_head_end(buf, len);
                        if (end > 0) {
                                *have = len;
                                return end;
                        }
                        if (len == k->lim->head_max) {
                                a->status = 431;
                                a->reason = SBX__NET_R_MALFORMED;
                                (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: the "
                                                "request head is larger than %u bytes\n",
                                                (unsigned) k->lim->head_max);
                                return (size_t) -1;
                        }
                        continue;
                }
                if (n == 0)
                        return 0;
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK)
                        return 0;
                n = sbx__proxy_wait(k->c->fd, POLLIN, k->cancel_fd, deadline);
                if (n < 0)
                        return 0;
                if (n == 0) {
                        a->status = 408;
                        a->reason = SBX__NET_R_TIMEOUT;
                        (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: the request "
                                        "head did not arrive within %u ms\n",
                                        (unsigned) k->lim->request_timeout_ms);
                        return (size_t) -1;
                }
        }
}

/* ----------------------------------------------------------------- dialling */

int sbx__proxy_checked_addrs(struct sbx__proxy_exec *x, const struct sbx__net_target *t,
                             uint32_t classes, int cancel_fd, struct sbx__net_addr *out,
                             size_t *n, struct sbx__net_addr *refused, int *refused_class)
{
        size_t got = 0, i, ok = 0;
        int rc;

        memset(refused, 0, sizeof(*refused));
        *refused_class = -1;
        if (t->host.is_addr) {
                out[0] = t->host.addr;
                got = 1;
        } else {
                rc = sbx__net_resolve(x->e->res, t->host.text, cancel_fd,
                                      sbx__proxy_now_ms() + x->e->lim.resolve_timeout_ms,
                                      out, SBX__NET_ADDRS_MAX, &got);
                if (rc < 0)
                        return rc;
        }
        /* Keep the addresses that pass, in order; dial nothing else. */
        for (i = 0; i < got; i++) {
                if (sbx__net_rules_address_ok(&x->rules, classes, &out[i], t->port)) {
                        out[ok++] = out[i];
                } else if (*refused_class < 0) {
                        *refused = out[i];
                        *refused_class = (int) sbx__net_addr_class(&out[i]);
                }
        }
        *n = ok;
        return ok > 0 ? 0 : 1;
}

int sbx__proxy_dial_first(struct sbx__proxy_exec *x, const struct sbx__net_addr *addrs,
                          size_t n, uint16_t port, int cancel_fd, size_t *last)
{
        int64_t deadline = sbx__proxy_now_ms() + x->e->lim.connect_timeout_ms;
        int fd = -EHOSTUNREACH;
        size_t i;

        *last = 0;
        for (i = 0; i < n; i++) {
                *last = i;
                fd = sbx__proxy_dial(&addrs[i], port, cancel_fd, deadline);
                if (fd >= 0 || fd == -ECANCELED || fd == -ETIMEDOUT)
                        break;
        }
        return fd;
}

/* Resolve (or take the literal), check every address, dial the ones that
 * passed in order.  The fd, or -1 with *a filled (and the event for an
 * address refusal recorded), or -2 when the execution was cut. */
static int dial_direct(struct conn_ctx *k, uint32_t classes, struct answer *a)
{
        const struct sbx__net_target *t = &k->req.target;
        struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX], refused;
        size_t ok = 0, last = 0;
        int rc, fd, refused_class = -1;
        char atext[SBX__NET_ADDR_TEXT];

        rc = sbx__proxy_checked_addrs(k->x, t, classes, k->cancel_fd, addrs, &ok, &refused,
                                      &refused_class);
        if (rc == -ECANCELED)
                return -2;
        if (rc < 0) {
                a->status = 502;
                a->reason = SBX__NET_R_RESOLVE;
                (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: cannot "
                                "resolve %s: %s\n", t->host.text, errtext(rc));
                return -1;
        }
        if (rc == 1) {
                const char *cls = sbx__net_class_name(refused_class);

                (void) sbx__net_addr_format(&refused, atext);
                a->status = 403;
                a->reason = SBX__NET_R_ADDRESS;
                if (t->host.is_addr || refused_class == SBX__NET_UNSPECIFIED ||
                    refused_class == SBX__NET_MULTICAST)
                        (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: %s refused: "
                                        "%s is a%s %s address, which is never dialled\n",
                                        k->target, atext, cls[0] == 'u' ? "n" : "", cls);
                else
                        (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: %s refused: "
                                        "%s resolves to %s, a%s %s address; allow that "
                                        "address with the entry %s%s%s:%u, or the class "
                                        "with %s:%u+%s\n", k->target, t->host.text, atext,
                                        cls[0] == 'u' ? "n" : "", cls,
                                        refused.family == 6 ? "[" : "", atext,
                                        refused.family == 6 ? "]" : "", (unsigned) t->port,
                                        t->host.text, (unsigned) t->port, cls);
                sbx__proxy_event(k->x, a->reason, a->status, t, &refused, refused_class);
                answer_send(k, a);
                a->status = 0;                  /* answered */
                return -1;
        }
        fd = sbx__proxy_dial_first(k->x, addrs, ok, t->port, k->cancel_fd, &last);
        if (fd >= 0)
                return fd;
        if (fd == -ECANCELED)
                return -2;
        a->status = 502;
        a->reason = SBX__NET_R_DIAL;
        (void) snprintf(a->body, sizeof(a->body), "sandbox proxy: cannot connect to %s (%s): "
                        "%s\n", k->target, sbx__net_addr_format(&addrs[last], atext),
                        sbx__strerror(-fd));
        return -1;
}

int sbx__proxy_dial_upstream(struct sbx__proxy_exec *x, const char *target, int cancel_fd,
                             char **early, size_t *early_len, char *why, size_t whysz)
{
        const struct sbx__net_upstream *u = &x->upstream;
        const struct sbx__proxy_limits *lim = &x->e->lim;
        struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX];
        char up[SBX__NET_TARGET_TEXT], req[1024], *head = NULL;
        size_t n = 0, i, len = 0, end = 0;
        int64_t deadline;
        int rc = 0, fd = -1, code;

        (void) sbx__net_target_format(&u->target, up);
        if (u->target.host.is_addr) {
                addrs[0] = u->target.host.addr;
                n = 1;
        } else {
                rc = sbx__net_resolve(x->e->res, u->target.host.text, cancel_fd,
                                      sbx__proxy_now_ms() + lim->resolve_timeout_ms,
                                      addrs, SBX__NET_ADDRS_MAX, &n);
                if (rc == -ECANCELED)
                        return -2;
                if (rc < 0) {
                        (void) snprintf(why, whysz, "sandbox proxy: the upstream "
                                        "proxy %s does not resolve: %s (no direct connection "
                                        "is tried)\n", up, errtext(rc));
                        return -1;
                }
        }
        deadline = sbx__proxy_now_ms() + lim->connect_timeout_ms;
        for (i = 0; i < n && fd < 0; i++) {
                fd = sbx__proxy_dial(&addrs[i], u->target.port, cancel_fd, deadline);
                if (fd == -ECANCELED)
                        return -2;
                if (fd < 0)
                        rc = fd;
        }
        if (fd < 0) {
                (void) snprintf(why, whysz, "sandbox proxy: the upstream proxy "
                                "%s is unreachable: %s (no direct connection is tried)\n", up,
                                sbx__strerror(-rc));
                return -1;
        }
        len = (size_t) snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s"
                                "\r\n", target, target,
                                x->upstream_auth[0] ? "Proxy-Authorization: " : "",
                                x->upstream_auth, x->upstream_auth[0] ? "\r\n" : "");
        rc = len < sizeof(req) ? sbx__proxy_send_all(fd, req, len, cancel_fd, deadline)
                               : -EOVERFLOW;
        memset(req, 0, sizeof(req));
        head = rc == 0 ? malloc(lim->head_max) : NULL;
        len = 0;
        while (head != NULL && end == 0 && len < lim->head_max) {
                ssize_t got = recv(fd, head + len, lim->head_max - len, 0);

                if (got > 0) {
                        len += (size_t) got;
                        end = sbx__http_head_end(head, len);
                } else if (got == 0) {
                        rc = -ECONNRESET;
                        break;
                } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                        rc = sbx__proxy_wait(fd, POLLIN, cancel_fd, deadline);
                        if (rc <= 0) {
                                rc = rc == 0 ? -ETIMEDOUT : rc;
                                break;
                        }
                        rc = 0;
                } else if (errno != EINTR) {
                        rc = -errno;
                        break;
                }
        }
        if (rc == -ECANCELED) {
                free(head);
                (void) close(fd);
                return -2;
        }
        code = end >= 12 && memcmp(head, "HTTP/1.", 7) == 0 && head[8] == ' ' &&
               head[9] >= '1' && head[9] <= '5' && head[10] >= '0' && head[10] <= '9' &&
               head[11] >= '0' && head[11] <= '9'
               ? (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0') : 0;
        if (code / 100 != 2) {
                if (code != 0)
                        (void) snprintf(why, whysz, "sandbox proxy: the upstream "
                                        "proxy %s answered %d to CONNECT %s (no direct "
                                        "connection is tried)\n", up, code, target);
                else
                        (void) snprintf(why, whysz, "sandbox proxy: the upstream "
                                        "proxy %s gave no usable answer to CONNECT %s: %s (no "
                                        "direct connection is tried)\n", up, target,
                                        rc < 0 ? sbx__strerror(-rc) : "not HTTP");
                free(head);
                (void) close(fd);
                return -1;
        }
        if (len > end) {
                memmove(head, head + end, len - end);
                *early = head;
                *early_len = len - end;
        } else {
                free(head);
        }
        return fd;
}

/* ------------------------------------------------------------ the request */

static void serve(struct conn_ctx *k, char *buf)
{
        struct sbx__http_request *req = &k->req;
        struct answer a;
        char *fwd = NULL;
        size_t have = 0, end, fwd_len = 0;
        uint32_t classes = 0;
        sbx_error err;
        sbx_code r;
        int ofd;

        memset(&a, 0, sizeof(a));
        memset(&err, 0, sizeof(err));
        end = read_head(k, buf, &have, &a);
        if (end == 0)
                return;
        if (end == (size_t) -1) {
                req->target_ok = 0;
                refuse(k, &a, NULL, -1);
                return;
        }
        r = sbx__http_parse(buf, end, req, &err);
        if (r != SBX_OK) {
                a.status = 400;
                a.reason = r == SBX_E_UNSUPPORTED ? SBX__NET_R_UNSUPPORTED : SBX__NET_R_MALFORMED;
                (void) snprintf(a.body, sizeof(a.body), "sandbox proxy: bad request: %s\n",
                                err.message);
                refuse(k, &a, NULL, -1);
                return;
        }
        (void) sbx__net_target_format(&req->target, k->target);
        if (!sbx__http_auth_ok(buf, req, SBX__PROXY_USER, k->x->token)) {
                a.status = 407;
                a.reason = SBX__NET_R_AUTH;
                (void) snprintf(a.body, sizeof(a.body), "sandbox proxy: %s: missing or wrong "
                                "proxy credential (use the one in http_proxy/https_proxy)\n",
                                req->auth < 0 ? "no Proxy-Authorization" : "Proxy-Authorization");
                refuse(k, &a, NULL, -1);
                return;
        }
        if (!sbx__net_rules_admit(&k->x->rules, &req->target, &classes)) {
                a.status = 403;
                a.reason = SBX__NET_R_NOT_ALLOWED;
                (void) snprintf(a.body, sizeof(a.body), "sandbox proxy: %s refused: no "
                                "allowlist entry or grant covers %s port %u\n", k->target,
                                req->target.host.text, (unsigned) req->target.port);
                refuse(k, &a, NULL, -1);
                return;
        }
        if (!req->is_connect) {
                fwd = malloc(k->lim->head_max + 512);
                fwd_len = fwd != NULL ? sbx__http_rewrite(buf, req, fwd, k->lim->head_max + 512)
                                      : 0;
                if (fwd_len == 0) {
                        a.status = 400;
                        a.reason = SBX__NET_R_MALFORMED;
                        (void) snprintf(a.body, sizeof(a.body), "sandbox proxy: bad request: "
                                        "the rewritten head does not fit\n");
                        refuse(k, &a, NULL, -1);
                        free(fwd);
                        return;
                }
        }
        if (k->x->has_upstream) {
                a.status = 502;
                a.reason = SBX__NET_R_UPSTREAM;
                ofd = sbx__proxy_dial_upstream(k->x, k->target, k->cancel_fd, &k->early,
                                               &k->early_len, a.body, sizeof(a.body));
        } else {
                ofd = dial_direct(k, classes, &a);
        }
        if (ofd < 0) {
                if (ofd == -1 && a.status != 0)
                        refuse(k, &a, NULL, -1);
                free(fwd);
                return;
        }
        if (req->is_connect) {
                static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

                if (sbx__proxy_send_all(k->c->fd, ok, sizeof(ok) - 1, k->cancel_fd,
                                        sbx__proxy_now_ms() + k->lim->idle_timeout_ms) == 0)
                        sbx__proxy_relay(k->c->fd, ofd, k->cancel_fd, k->lim->idle_timeout_ms,
                                         k->lim->relay_splice == 0, buf + end, have - end,
                                         k->early, k->early_len);
        } else if (sbx__proxy_send_all(ofd, fwd, fwd_len, k->cancel_fd,
                                       sbx__proxy_now_ms() + k->lim->idle_timeout_ms) == 0) {
                sbx__proxy_relay(k->c->fd, ofd, k->cancel_fd, k->lim->idle_timeout_ms,
                                 k->lim->relay_splice == 0, buf + end, have - end, k->early,
                                 k->early_len);
        }
        free(fwd);
        (void) close(ofd);
}

void *sbx__proxy_conn_main(void *arg)
{
        struct sbx__proxy_conn *c = arg;
        struct conn_ctx *k = calloc(1, sizeof(*k));
        char *buf = malloc(c->e->lim.head_max);

        if (k != NULL && buf != NULL) {
                k->c = c;
                k->x = c->x;
                k->lim = &c->e->lim;
                k->cancel_fd = c->x->cancel_fd;
                serve(k, buf);
                free(k->early);
        }
        free(buf);
        free(k);
        (void) shutdown(c->fd, SHUT_RDWR);
        (void) close(c->fd);
        c->fd = -EBADF;
        sbx__proxy_conn_done(c);
        return NULL;
}
