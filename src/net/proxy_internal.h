/*
 * proxy_internal.h - what the engine's files share (engine.c: the core
 * they all call -- threads, events, a finished connection; proxy.c: the
 * engine, executions, the accept thread; conn.c: one client
 * connection; relay.c: sockets and the byte relay; resolve.c: the
 * bounded resolver; transparent.c: redirected connections and DNS).
 * Only src/net/ includes it.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_NET_PROXY_INTERNAL_H
#define SBX_NET_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "net/net.h"

#define SBX__NET_ADDRS_MAX 16           /* addresses of one name that are tried */
#define SBX__PROXY_STACK   (256 * 1024) /* connection and resolver threads */
#define SBX__PROXY_BUF     (64 * 1024)  /* relay buffer, each direction, at first */
#define SBX__PROXY_BUF_MAX (2048 * 1024) /* ... grown to this for a bulk stream */
#define SBX__PROXY_BUF_ALL (64u << 20)  /* growth, all relays of the process */

struct sbx__proxy_dns;

struct sbx__proxy_exec {
        struct sbx__proxy_engine *e;
        struct sbx__proxy_exec   *next;         /* e->execs, guarded by e->lock */
        struct sbx__net_rules     rules;
        int                       has_upstream;
        struct sbx__net_upstream  upstream;
        char                      upstream_auth[512];   /* "Basic ..." or "" */
        char                      token[SBX__PROXY_TOKEN_SIZE];
        int                       listen_fd;    /* closed by the accept thread */
        int                       cancel_fd;    /* eventfd: readable once cut */
        /* guarded by e->lock: */
        int                       released;
        /* Transparent mode (transparent.c): listeners the accept thread
         * polls and closes like listen_fd (-EBADF once closed), and the
         * DNS answerers, a thread each, joined at release. */
        int                       tl_fd[SBX__PROXY_TRANSPARENT_MAX];
        uint32_t                  tl_n;
        struct sbx__proxy_dns    *dns[SBX__PROXY_TRANSPARENT_MAX];
        uint32_t                  dns_n;
        uint32_t                  listening;    /* listener fds the accept thread polls */
        uint32_t                  nconns;
        struct sbx__net_event    *ev;
        uint32_t                  ev_n;
        uint64_t                  ev_dropped;
};

/* One client connection, run by a thread of its own. */
struct sbx__proxy_conn {
        struct sbx__proxy_engine *e;
        struct sbx__proxy_exec   *x;
        pthread_t                 thread;
        int                       fd;
        int                       transparent;  /* accepted on a transparent listener */
        struct sbx__proxy_conn   *next;         /* e->done once finished */
};

struct sbx__net_resolver;

struct sbx__proxy_engine {
        pthread_mutex_t           lock;
        pthread_cond_t            cond;         /* a connection ended, a listener closed */
        struct sbx__proxy_limits  lim;
        int                       ctl_fd;       /* eventfd: wakes the accept thread */
        pthread_t                 acceptor;
        int                       acceptor_started;
        struct sbx__net_resolver *res;
        /* guarded by lock: */
        int                       stopping;
        struct sbx__proxy_exec   *execs;
        struct sbx__proxy_conn   *done;         /* finished threads to join */
        uint32_t                  nconns;
};

/* engine.c */
/* Record a refusal for x (host/addr may be NULL), via the proxy listener
 * or (_via) another path. */
void sbx__proxy_event(struct sbx__proxy_exec *x, int reason, int status,
                      const struct sbx__net_target *t, const struct sbx__net_addr *addr,
                      int addr_class);
void sbx__proxy_event_via(struct sbx__proxy_exec *x, int via, int reason, int status,
                          const struct sbx__net_target *t, const struct sbx__net_addr *addr,
                          int addr_class);
void sbx__proxy_poke(int efd);
/* Start a thread with every signal blocked (the host's signals go to its
 * own threads) and the given stack size (0: the default).  0 or -errno. */
int sbx__proxy_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, size_t stack);

/* conn.c: the thread of one connection; it ends with sbx__proxy_conn_done. */
void *sbx__proxy_conn_main(void *arg);
/* engine.c: the connection's last call (closes nothing; counts it out). */
void sbx__proxy_conn_done(struct sbx__proxy_conn *c);
/* conn.c: the addresses of an admitted target t (classes: its rules')
 * that may be dialled, in the resolver's order, into out
 * (SBX__NET_ADDRS_MAX) -- the literal itself for an address target.  0
 * with *n > 0; 1 when none passed (*refused and *refused_class: the first
 * one refused); -ECANCELED; or the resolver's -errno. */
int sbx__proxy_checked_addrs(struct sbx__proxy_exec *x, const struct sbx__net_target *t,
                             uint32_t classes, int cancel_fd, struct sbx__net_addr *out,
                             size_t *n, struct sbx__net_addr *refused, int *refused_class);
/* Dial addrs[0..n) at port in order, one deadline (the connect timeout)
 * for all: the fd, -ECANCELED, or the last failure's -errno (*last: the
 * index of the address it came from). */
int sbx__proxy_dial_first(struct sbx__proxy_exec *x, const struct sbx__net_addr *addrs,
                          size_t n, uint16_t port, int cancel_fd, size_t *last);

/* conn.c: CONNECT target ("host:port") through x's upstream proxy.  The
 * fd, with what the upstream sent after its answer in *early (malloc'd,
 * the caller frees it; NULL when nothing); -1 with why filled ("sandbox
 * proxy: ..."); -2 when cut.  Never anything but the upstream. */
int sbx__proxy_dial_upstream(struct sbx__proxy_exec *x, const char *target, int cancel_fd,
                             char **early, size_t *early_len, char *why, size_t whysz);

/* transparent.c */
/* The thread of a connection accepted on a transparent listener. */
void *sbx__proxy_tconn_main(void *arg);
/* Stop and join x's DNS answerers (x is cut already), free them.  Not
 * under e->lock. */
void sbx__proxy_dns_stop(struct sbx__proxy_exec *x);

/* relay.c */
int64_t sbx__proxy_now_ms(void);
/* Wait until fd has `events` or cancel_fd is readable or deadline_ms
 * (CLOCK_MONOTONIC) passes.  1 ready, 0 timed out, -ECANCELED, -errno. */
int sbx__proxy_wait(int fd, short events, int cancel_fd, int64_t deadline_ms);
/* Send all of buf on the non-blocking socket fd by the deadline.  0 or
 * -errno (-ETIMEDOUT, -ECANCELED). */
int sbx__proxy_send_all(int fd, const void *buf, size_t len, int cancel_fd,
                        int64_t deadline_ms);
/* A non-blocking, CLOEXEC TCP connection to addr:port by the deadline:
 * the fd, or -errno. */
int sbx__proxy_dial(const struct sbx__net_addr *addr, uint16_t port, int cancel_fd,
                    int64_t deadline_ms);
/* Relay bytes both ways between the non-blocking sockets a and b until
 * both directions end, one fails, cancel_fd is readable or nothing moves
 * for idle_ms.  a_to_b / b_to_a (may be empty) are sent first.  Bytes
 * move through a buffer when `copy`, else with splice(2) through a pipe
 * (where none can be had, through a buffer too). */
void sbx__proxy_relay(int a, int b, int cancel_fd, uint32_t idle_ms, int copy,
                      const char *a_to_b, size_t a_to_b_len, const char *b_to_a,
                      size_t b_to_a_len);

/* resolve.c */
sbx_code sbx__net_resolver_new(uint32_t threads, uint32_t queue_max, sbx__net_resolve_fn fn,
                               void *userdata, struct sbx__net_resolver **out,
                               sbx_error *err);
/* Stop and join the threads (each may finish a lookup first), free. */
void sbx__net_resolver_free(struct sbx__net_resolver *r);
/* Resolve host, waiting at most until deadline_ms or cancel_fd: 0 and
 * out[0..*n), -ETIMEDOUT, -ECANCELED, -EBUSY (queue full), or the
 * lookup's -errno (-ENOENT: no such name). */
int sbx__net_resolve(struct sbx__net_resolver *r, const char *host, int cancel_fd,
                     int64_t deadline_ms, struct sbx__net_addr *out, size_t max, size_t *n);
/* The same in two steps, for a thread that waits on many lookups: start
 * one (0, -EINVAL, -ENOMEM, -EBUSY), poll its fd (readable once it is
 * done), end it: the answer as above when it is done, else -ETIMEDOUT
 * (abandoned; out NULL abandons it in any case).  end frees the handle. */
struct sbx__net_lookup;
int sbx__net_resolve_start(struct sbx__net_resolver *r, const char *host,
                           struct sbx__net_lookup **out);
int sbx__net_lookup_fd(const struct sbx__net_lookup *l);
int sbx__net_resolve_end(struct sbx__net_resolver *r, struct sbx__net_lookup *l,
                         struct sbx__net_addr *out, size_t max, size_t *n);

#endif /* SBX_NET_PROXY_INTERNAL_H */
