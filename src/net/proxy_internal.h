/*
 * proxy_internal.h - what the engine's files share (proxy.c: the engine,
 * executions, the accept thread and events; conn.c: one client
 * connection; relay.c: sockets and the byte relay; resolve.c: the
 * bounded resolver).  Only src/net/ includes it.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_NET_PROXY_INTERNAL_H
#define SBX_NET_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "net/net.h"

#define SBX__NET_ADDRS_MAX 16           /* addresses of one name that are tried */
#define SBX__PROXY_STACK   (256 * 1024) /* connection and resolver threads */
#define SBX__PROXY_BUF     (64 * 1024)  /* relay buffer, each direction */

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
        int                       listening;    /* the accept thread polls listen_fd */
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

/* proxy.c */
/* Record a refusal for x (host/addr may be NULL). */
void sbx__proxy_event(struct sbx__proxy_exec *x, int reason, int status,
                      const struct sbx__net_target *t, const struct sbx__net_addr *addr,
                      int addr_class);
/* Start a thread with every signal blocked (the host's signals go to its
 * own threads) and the given stack size (0: the default).  0 or -errno. */
int sbx__proxy_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, size_t stack);

/* conn.c: the thread of one connection; it ends with sbx__proxy_conn_done. */
void *sbx__proxy_conn_main(void *arg);
/* proxy.c: the connection's last call (closes nothing; counts it out). */
void sbx__proxy_conn_done(struct sbx__proxy_conn *c);

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

#endif /* SBX_NET_PROXY_INTERNAL_H */
