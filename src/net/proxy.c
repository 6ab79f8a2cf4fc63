/*
 * proxy.c - the egress proxy engine: executions (a listener, a
 * credential, rules, an optional upstream, the refusals recorded), the
 * accept thread that hands each client connection to a thread of its
 * own within the connection limits, release of one execution and the
 * global stop (docs/network.md, "The engine").
 *
 * Threads: one accept thread, a few resolver threads (resolve.c), one
 * thread per client connection (conn.c).  Every wait of a connection
 * also watches its execution's cancel eventfd, which release (and the
 * global stop) makes readable once and for good, so cutting an execution
 * needs no signal and touches no other execution.  Only the accept thread
 * closes a listener, only a connection's thread closes its sockets, and
 * finished threads are joined by the accept thread (or by the stop).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy_internal.h"

static const struct sbx__proxy_limits defaults = {
        .max_conns = 256, .max_conns_per_exec = 64, .head_max = 32768,
        .request_timeout_ms = 10000, .resolve_timeout_ms = 10000,
        .connect_timeout_ms = 10000, .idle_timeout_ms = 300000, .events_max = 256,
        .resolvers = 4, .peek_timeout_ms = 1000,
};

/* ------------------------------------------------------- the accept thread */

static void join_all(struct sbx__proxy_conn *c)
{
        while (c != NULL) {
                struct sbx__proxy_conn *next = c->next;

                (void) pthread_join(c->thread, NULL);
                free(c);
                c = next;
        }
}

/* Over a limit, or the thread did not start: a 503, best effort, never
 * blocking (the socket is non-blocking and the answer small).  A
 * transparent connection (TLS or anything) is just closed. */
static void refuse_busy(struct sbx__proxy_exec *x, int fd, int transparent)
{
        static const char body[] = "sandbox proxy: too many connections; try again later\n";
        char resp[512];
        size_t n = sbx__http_response(503, body, resp, sizeof(resp));

        /* The event first: a client that sees the end may look for it. */
        sbx__proxy_event_via(x, transparent ? SBX__NET_VIA_TRANSPARENT : SBX__NET_VIA_PROXY,
                             SBX__NET_R_LIMIT, transparent ? 0 : 503, NULL, NULL, -1);
        if (!transparent)
                (void) send(fd, resp, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void) close(fd);
}

/* Accept what is waiting on lfd, a listener of x (transparent or not).
 * -1 when the process is out of fds (back off), -2 when the listener is
 * no longer one, else 0. */
static int accept_some(struct sbx__proxy_engine *e, struct sbx__proxy_exec *x, int lfd,
                       int transparent)
{
        int i;

        for (i = 0; i < 64; i++) {
                struct sbx__proxy_conn *c;
                int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), ok;

                if (fd < 0) {
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return 0;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                            errno == ENOMEM)
                                return -1;
                        if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK ||
                            errno == EFAULT)
                                return -2;
                        continue;       /* the connection's own error (man accept4) */
                }
                (void) pthread_mutex_lock(&e->lock);
                ok = !x->released && !e->stopping && e->nconns < e->lim.max_conns &&
                     x->nconns < e->lim.max_conns_per_exec;
                if (ok) {
                        e->nconns++;
                        x->nconns++;
                }
                (void) pthread_mutex_unlock(&e->lock);
                c = ok ? calloc(1, sizeof(*c)) : NULL;
                if (c != NULL) {
                        c->e = e;
                        c->x = x;
                        c->fd = fd;
                        c->transparent = transparent;
                        if (sbx__proxy_thread_start(&c->thread, transparent ?
                                                    sbx__proxy_tconn_main :
                                                    sbx__proxy_conn_main, c,
                                                    SBX__PROXY_STACK) == 0)
                                continue;
                        free(c);
                }
                if (ok) {
                        (void) pthread_mutex_lock(&e->lock);
                        e->nconns--;
                        x->nconns--;
                        (void) pthread_cond_broadcast(&e->cond);
                        (void) pthread_mutex_unlock(&e->lock);
                }
                refuse_busy(x, fd, transparent);
        }
        return 0;
}

/* The listener fd of x in slot (-1: the proxy listener, else a
 * transparent one).  Under e->lock. */
static int *slot_fd(struct sbx__proxy_exec *x, int slot)
{
        return slot < 0 ? &x->listen_fd : &x->tl_fd[slot];
}

/* Close one listener of x (under e->lock; only the accept thread). */
static void close_listener(struct sbx__proxy_engine *e, struct sbx__proxy_exec *x, int slot)
{
        int *fd = slot_fd(x, slot);

        if (*fd < 0)
                return;
        (void) close(*fd);
        *fd = -EBADF;
        x->listening--;
        (void) pthread_cond_broadcast(&e->cond);
}

static void *acceptor(void *arg)
{
        struct sbx__proxy_engine *e = arg;
        struct pollfd *p = NULL, *pp, ctl_only;
        struct sbx__proxy_exec **px = NULL;
        int *ps = NULL;
        size_t cap = 0;
        int backoff = 0;

        for (;;) {
                struct sbx__proxy_conn *done;
                struct sbx__proxy_exec *x;
                size_t n = 1, need = 1, i;
                int stop, r, slot;

                (void) pthread_mutex_lock(&e->lock);
                done = e->done;
                e->done = NULL;
                stop = e->stopping;
                for (x = e->execs; x != NULL; x = x->next) {
                        if (x->listening > 0 && (x->released || stop))
                                for (slot = -1; slot < (int) x->tl_n; slot++)
                                        close_listener(e, x, slot);
                        need += x->listening;
                }
                if (need > cap) {
                        struct pollfd *np = realloc(p, need * sizeof(*p));
                        struct sbx__proxy_exec **nx = np != NULL ?
                                realloc(px, need * sizeof(*px)) : NULL;
                        int *ns = nx != NULL ? realloc(ps, need * sizeof(*ps)) : NULL;

                        if (np != NULL)
                                p = np;
                        if (nx != NULL)
                                px = nx;
                        if (ns != NULL) {
                                ps = ns;
                                cap = need;
                        }
                }
                /* Out of memory for the array: the control fd alone, and
                 * the listeners on the next round. */
                pp = cap > 0 ? p : &ctl_only;
                pp[0].fd = e->ctl_fd;
                pp[0].events = POLLIN;
                for (x = e->execs; x != NULL && !backoff; x = x->next) {
                        for (slot = -1; slot < (int) x->tl_n && n < cap; slot++) {
                                if (*slot_fd(x, slot) < 0)
                                        continue;
                                pp[n].fd = *slot_fd(x, slot);
                                pp[n].events = POLLIN;
                                px[n] = x;
                                ps[n++] = slot;
                        }
                }
                (void) pthread_mutex_unlock(&e->lock);
                join_all(done);
                if (stop)
                        break;
                for (i = 0; i < n; i++)
                        pp[i].revents = 0;
                r = poll(pp, n, backoff || n < need ? 100 : -1);
                backoff = 0;
                if (r < 0)
                        continue;               /* EINTR (ENOMEM: try again) */
                if (pp[0].revents & POLLIN) {
                        uint64_t v;
                        ssize_t rr = read(e->ctl_fd, &v, sizeof(v));

                        (void) rr;
                }
                for (i = 1; i < n; i++) {
                        int a = 0;

                        /* Only this thread closes listeners: pp[i].fd is
                         * still x's. */
                        if (pp[i].revents & POLLIN) {
                                a = accept_some(e, px[i], pp[i].fd, ps[i] >= 0);
                                backoff |= a == -1;
                        }
                        if (a == -2 || (!(pp[i].revents & POLLIN) &&
                                        (pp[i].revents & (POLLERR | POLLHUP | POLLNVAL)))) {
                                /* shut down under us: stop listening on it */
                                (void) pthread_mutex_lock(&e->lock);
                                close_listener(e, px[i], ps[i]);
                                (void) pthread_mutex_unlock(&e->lock);
                        }
                }
        }
        free(p);
        free(px);
        free(ps);
        return NULL;
}

/* ------------------------------------------------------------ the engine */

static void exec_destroy(struct sbx__proxy_exec *x)
{
        uint32_t i;

        sbx__proxy_dns_stop(x);
        for (i = 0; i < x->tl_n; i++)
                if (x->tl_fd[i] >= 0)
                        (void) close(x->tl_fd[i]);
        if (x->listen_fd >= 0)
                (void) close(x->listen_fd);
        if (x->cancel_fd >= 0)
                (void) close(x->cancel_fd);
        sbx__net_rules_clear(&x->rules);
        sbx__net_upstream_clear(&x->upstream);
        memset(x->token, 0, sizeof(x->token));
        memset(x->upstream_auth, 0, sizeof(x->upstream_auth));
        free(x->ev);
        free(x);
}

sbx_code sbx__proxy_engine_new(const struct sbx__proxy_limits *limits,
                               struct sbx__proxy_engine **out, sbx_error *err)
{
        const char *fn = "sbx__proxy_engine_new";
        struct sbx__proxy_engine *e;
        struct sbx__proxy_limits l = limits != NULL ? *limits : defaults;
        sbx_code r;
        int rc;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
#define DEF(f) if (l.f == 0) l.f = defaults.f
        DEF(max_conns); DEF(max_conns_per_exec); DEF(head_max); DEF(request_timeout_ms);
        DEF(resolve_timeout_ms); DEF(connect_timeout_ms); DEF(idle_timeout_ms);
        DEF(events_max); DEF(resolvers); DEF(peek_timeout_ms);
#undef DEF
        if (l.head_max < 1024 || l.head_max > 1024 * 1024 || l.resolvers > 64 ||
            l.events_max > 65536)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: head_max must be 1 KiB to 1 MiB, "
                                 "resolvers at most 64, events_max at most 65536", fn);
        e = calloc(1, sizeof(*e));
        if (e == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        (void) pthread_mutex_init(&e->lock, NULL);
        (void) pthread_cond_init(&e->cond, NULL);
        e->lim = l;
        e->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (e->ctl_fd < 0) {
                r = sbx__fail(err, SBX_E_INTERNAL, errno, "%s: eventfd: %s", fn,
                              sbx__strerror(errno));
                goto fail;
        }
        r = sbx__net_resolver_new(l.resolvers, 2 * l.max_conns, l.resolve, l.resolve_userdata,
                                  &e->res, err);
        if (r != SBX_OK)
                goto fail;
        rc = sbx__proxy_thread_start(&e->acceptor, acceptor, e, SBX__PROXY_STACK);
        if (rc < 0) {
                r = sbx__fail(err, SBX_E_INTERNAL, -rc, "%s: cannot start the accept thread",
                              fn);
                goto fail;
        }
        e->acceptor_started = 1;
        *out = e;
        return SBX_OK;
fail:
        sbx__proxy_engine_free(e);
        return r;
}

void sbx__proxy_engine_free(struct sbx__proxy_engine *e)
{
        struct sbx__proxy_exec *x;
        struct sbx__proxy_conn *done;

        if (e == NULL)
                return;
        (void) pthread_mutex_lock(&e->lock);
        e->stopping = 1;
        for (x = e->execs; x != NULL; x = x->next)
                sbx__proxy_poke(x->cancel_fd);
        (void) pthread_mutex_unlock(&e->lock);
        if (e->acceptor_started) {
                sbx__proxy_poke(e->ctl_fd);
                (void) pthread_join(e->acceptor, NULL);
        }
        (void) pthread_mutex_lock(&e->lock);
        while (e->nconns > 0)
                (void) pthread_cond_wait(&e->cond, &e->lock);
        done = e->done;
        e->done = NULL;
        (void) pthread_mutex_unlock(&e->lock);
        join_all(done);
        for (x = e->execs; x != NULL; x = x->next)
                sbx__proxy_dns_stop(x);         /* before the resolver goes */
        sbx__net_resolver_free(e->res);
        while ((x = e->execs) != NULL) {
                e->execs = x->next;
                exec_destroy(x);
        }
        if (e->ctl_fd >= 0)
                (void) close(e->ctl_fd);
        (void) pthread_cond_destroy(&e->cond);
        (void) pthread_mutex_destroy(&e->lock);
        free(e);
}

/* --------------------------------------------------------- executions */

int sbx__proxy_token_new(char *out)
{
        return sbx__random_hex(out, (SBX__PROXY_TOKEN_SIZE - 1) / 2);
}

sbx_code sbx__proxy_exec_new(struct sbx__proxy_engine *e, const struct sbx__proxy_config *cfg,
                             int listen_fd, struct sbx__proxy_exec **out, sbx_error *err)
{
        const char *fn = "sbx__proxy_exec_new";
        struct sbx__proxy_exec *x;
        int acc = 0, fl, rc;
        socklen_t al = sizeof(acc);
        sbx_code r;

        if (e == NULL || cfg == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: e, cfg and out are required", fn);
        if (listen_fd < 0 || getsockopt(listen_fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 ||
            !acc)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: listen_fd is not a listening "
                                 "socket", fn);
        x = calloc(1, sizeof(*x));
        if (x == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        x->e = e;
        x->listen_fd = x->cancel_fd = -EBADF;
        r = sbx__net_rules_copy(cfg->rules, &x->rules, err);
        if (r != SBX_OK)
                goto fail;
        if (cfg->upstream != NULL) {
                const struct sbx__net_upstream *u = cfg->upstream;

                x->has_upstream = 1;
                x->upstream.target = u->target;
                if (u->user != NULL) {
                        x->upstream.user = sbx__strdup(u->user);
                        x->upstream.password = sbx__strdup(u->password != NULL ?
                                                           u->password : "");
                        if (x->upstream.user == NULL || x->upstream.password == NULL) {
                                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                                goto fail;
                        }
                        if (sbx__http_basic(u->user, x->upstream.password, x->upstream_auth,
                                            sizeof(x->upstream_auth)) == 0) {
                                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: the upstream "
                                              "credential is too long", fn);
                                goto fail;
                        }
                }
        }
        x->ev = calloc(e->lim.events_max, sizeof(*x->ev));
        if (x->ev == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto fail;
        }
        if (cfg->token != NULL) {
                size_t i, n = strlen(cfg->token);

                rc = n == SBX__PROXY_TOKEN_SIZE - 1 ? 0 : -EINVAL;
                for (i = 0; rc == 0 && i < n; i++)
                        if (!((cfg->token[i] >= '0' && cfg->token[i] <= '9') ||
                              (cfg->token[i] >= 'a' && cfg->token[i] <= 'f')))
                                rc = -EINVAL;
                if (rc == 0)
                        memcpy(x->token, cfg->token, n + 1);
        } else {
                rc = sbx__proxy_token_new(x->token);
        }
        if (rc < 0) {
                r = sbx__fail(err, rc == -EINVAL ? SBX_E_INVALID : SBX_E_INTERNAL, -rc, "%s: the "
                              "credential: %s", fn, sbx__strerror(-rc));
                goto fail;
        }
        x->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        x->listen_fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 3);
        if (x->cancel_fd < 0 || x->listen_fd < 0 ||
            (fl = fcntl(x->listen_fd, F_GETFL)) < 0 ||
            fcntl(x->listen_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
                r = sbx__fail(err, SBX_E_INTERNAL, errno, "%s: %s", fn, sbx__strerror(errno));
                goto fail;
        }
        (void) pthread_mutex_lock(&e->lock);
        if (e->stopping) {
                (void) pthread_mutex_unlock(&e->lock);
                r = sbx__fail(err, SBX_E_CLOSED, 0, "%s: the engine is stopping", fn);
                goto fail;
        }
        x->listening = 1;               /* listen_fd */
        x->next = e->execs;
        e->execs = x;
        (void) pthread_mutex_unlock(&e->lock);
        sbx__proxy_poke(e->ctl_fd);
        *out = x;
        return SBX_OK;
fail:
        exec_destroy(x);
        return r;
}

const char *sbx__proxy_exec_token(const struct sbx__proxy_exec *x)
{
        return x->token;
}

sbx_code sbx__proxy_exec_url(const struct sbx__proxy_exec *x, const char *listen, char *buf,
                             size_t bufsz, sbx_error *err)
{
        int n;

        if (x == NULL || listen == NULL || buf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__proxy_exec_url: x, listen and "
                                 "buf are required");
        n = snprintf(buf, bufsz, "http://%s:%s@%s", SBX__PROXY_USER, x->token, listen);
        if (n < 0 || (size_t) n >= bufsz) {
                if (bufsz > 0)
                        memset(buf, 0, bufsz);
                return sbx__fail(err, SBX_E_RANGE, 0, "sbx__proxy_exec_url: bufsz too small");
        }
        return SBX_OK;
}

void sbx__proxy_exec_release(struct sbx__proxy_exec *x)
{
        struct sbx__proxy_engine *e;
        struct sbx__proxy_exec **pp;

        if (x == NULL)
                return;
        e = x->e;
        (void) pthread_mutex_lock(&e->lock);
        x->released = 1;
        sbx__proxy_poke(x->cancel_fd);
        sbx__proxy_poke(e->ctl_fd);
        (void) pthread_mutex_unlock(&e->lock);
        sbx__proxy_dns_stop(x);
        (void) pthread_mutex_lock(&e->lock);
        while (x->listening > 0 || x->nconns > 0)
                (void) pthread_cond_wait(&e->cond, &e->lock);
        for (pp = &e->execs; *pp != NULL; pp = &(*pp)->next)
                if (*pp == x) {
                        *pp = x->next;
                        break;
                }
        (void) pthread_mutex_unlock(&e->lock);
        exec_destroy(x);
}
