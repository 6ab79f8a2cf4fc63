/*
 * engine.c - the core every file of the egress proxy engine shares
 * (docs/network.md, "The engine"): the names of the refusal reasons, a
 * thread started with every signal blocked, the eventfd poke, the
 * refusals an execution records, and a finished connection's hand-back
 * to the accept thread.  A leaf under proxy.c, conn.c, resolve.c and
 * transparent.c: it calls none of them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/proxy_internal.h"

static const char *const reason_names[] = {
        [SBX__NET_R_MALFORMED] = "malformed", [SBX__NET_R_AUTH] = "auth",
        [SBX__NET_R_NOT_ALLOWED] = "not-allowed", [SBX__NET_R_ADDRESS] = "address-class",
        [SBX__NET_R_RESOLVE] = "resolve", [SBX__NET_R_DIAL] = "dial",
        [SBX__NET_R_UPSTREAM] = "upstream", [SBX__NET_R_LIMIT] = "limit",
        [SBX__NET_R_TIMEOUT] = "timeout", [SBX__NET_R_UNSUPPORTED] = "unsupported",
        [SBX__NET_R_DNS] = "dns-refused", [SBX__NET_R_ORIGINAL] = "original-destination",
};

const char *sbx__net_reason_name(int reason)
{
        if (reason <= 0 || (size_t) reason >= SBX__ARRAY_SIZE(reason_names))
                return "unknown";
        return reason_names[reason];
}

int sbx__proxy_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, size_t stack)
{
        sigset_t all, old;
        pthread_attr_t a;
        int r;

        (void) sigfillset(&all);
        if (pthread_attr_init(&a) != 0)
                return -ENOMEM;
        if (stack > 0)
                (void) pthread_attr_setstacksize(&a, stack);
        (void) pthread_sigmask(SIG_SETMASK, &all, &old);
        r = pthread_create(t, &a, fn, arg);
        (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
        (void) pthread_attr_destroy(&a);
        return -r;
}

void sbx__proxy_poke(int efd)
{
        uint64_t one = 1;

        while (write(efd, &one, sizeof(one)) < 0 && errno == EINTR)
                ;
}

/* ---------------------------------------------------------------- events */

void sbx__proxy_event(struct sbx__proxy_exec *x, int reason, int status,
                      const struct sbx__net_target *t, const struct sbx__net_addr *addr,
                      int addr_class)
{
        sbx__proxy_event_via(x, SBX__NET_VIA_PROXY, reason, status, t, addr, addr_class);
}

void sbx__proxy_event_via(struct sbx__proxy_exec *x, int via, int reason, int status,
                          const struct sbx__net_target *t, const struct sbx__net_addr *addr,
                          int addr_class)
{
        struct sbx__proxy_engine *e = x->e;
        struct sbx__net_event ev;

        memset(&ev, 0, sizeof(ev));
        ev.time_ms = sbx__wall_ms();
        ev.reason = reason;
        ev.status = status;
        ev.via = via;
        ev.addr_class = addr != NULL ? addr_class : -1;
        if (t != NULL) {
                ev.port = t->port;
                memcpy(ev.host, t->host.text, sizeof(ev.host));
        }
        if (addr != NULL)
                (void) sbx__net_addr_format(addr, ev.addr);
        (void) pthread_mutex_lock(&e->lock);
        if (x->ev_n < e->lim.events_max)
                x->ev[x->ev_n++] = ev;
        else
                x->ev_dropped++;
        (void) pthread_mutex_unlock(&e->lock);
}

size_t sbx__proxy_exec_events(struct sbx__proxy_exec *x, struct sbx__net_event *out,
                              size_t max, uint64_t *dropped)
{
        size_t n;

        if (x == NULL)
                return 0;
        (void) pthread_mutex_lock(&x->e->lock);
        n = x->ev_n < max ? x->ev_n : max;
        if (n > 0)
                memcpy(out, x->ev, n * sizeof(*out));
        if (dropped != NULL)
                *dropped = x->ev_dropped + (x->ev_n - n);
        (void) pthread_mutex_unlock(&x->e->lock);
        return n;
}

uint32_t sbx__proxy_exec_active(struct sbx__proxy_exec *x)
{
        uint32_t n;

        (void) pthread_mutex_lock(&x->e->lock);
        n = x->nconns;
        (void) pthread_mutex_unlock(&x->e->lock);
        return n;
}

/* --------------------------------------------------- finished connections */

void sbx__proxy_conn_done(struct sbx__proxy_conn *c)
{
        struct sbx__proxy_engine *e = c->e;

        (void) pthread_mutex_lock(&e->lock);
        c->x->nconns--;
        e->nconns--;
        c->next = e->done;
        e->done = c;
        (void) pthread_cond_broadcast(&e->cond);
        (void) pthread_mutex_unlock(&e->lock);
        sbx__proxy_poke(e->ctl_fd);                /* the accept thread joins it */
}
