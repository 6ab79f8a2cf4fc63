/*
 * resolve.c - the engine's bounded resolver.  getaddrinfo blocks for as
 * long as the C library's resolver decides, so lookups run on a few
 * threads of their own and a connection waits for its answer only until
 * its deadline or until its execution is cut; an abandoned lookup
 * finishes on its thread and is thrown away.  The queue is bounded too.
 * The addresses returned are the ones the connection checks and dials:
 * nothing resolves the name a second time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_internal.h"

struct sbx__net_lookup {
        int                  refs;      /* the waiting connection, the queue/worker */
        int                  done;
        int                  rc;
        int                  efd;       /* eventfd, written when done */
        char                 host[SBX__NET_NAME_MAX + 1];
        struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX];
        size_t               n;
        struct sbx__net_lookup *next;
};

struct sbx__net_resolver {
        pthread_mutex_t      lock;
        pthread_cond_t       cond;
        struct sbx__net_lookup *head, *tail;
        size_t               queued, queue_max;
        int                  stopping;
        pthread_t           *threads;
        size_t               nthreads;
        sbx__net_resolve_fn  fn;
        void                *userdata;
};

int sbx__net_getaddrinfo(const char *host, struct sbx__net_addr *out, size_t max, size_t *n,
                         void *userdata)
{
        struct addrinfo hints, *res = NULL, *ai;
        size_t k = 0, j;
        int r;

        char abs[SBX__NET_NAME_MAX + 2];
        size_t len = strlen(host);

        (void) userdata;
        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        /* A name with a dot is looked up as the absolute name it is: the C
         * library would otherwise try the host's search domains when it
         * fails ("nx.example.com" as "nx.example.com.corp.internal", a host
         * no entry names).  A single-label name ("localhost", "db") still
         * resolves as the host resolves it (docs/network.md). */
        if (memchr(host, '.', len) != NULL && len + 2 <= sizeof(abs) && host[len - 1] != '.') {
                memcpy(abs, host, len);
                abs[len] = '.';
                abs[len + 1] = '\0';
                host = abs;
        }
        r = getaddrinfo(host, NULL, &hints, &res);
        switch (r) {
        case 0:
                break;
        case EAI_NONAME:
#ifdef EAI_NODATA
        case EAI_NODATA:
#endif
                return -ENOENT;
        case EAI_AGAIN:
                return -EAGAIN;
        case EAI_MEMORY:
                return -ENOMEM;
        case EAI_SYSTEM:
                return errno != 0 ? -errno : -EIO;
        default:
                return -EIO;
        }
        for (ai = res; ai != NULL && k < max; ai = ai->ai_next) {
                struct sbx__net_addr a;

                memset(&a, 0, sizeof(a));
                if (ai->ai_family == AF_INET &&
                    ai->ai_addrlen >= (socklen_t) sizeof(struct sockaddr_in)) {
                        a.family = 4;
                        memcpy(a.b, &((struct sockaddr_in *) ai->ai_addr)->sin_addr, 4);
                } else if (ai->ai_family == AF_INET6 &&
                           ai->ai_addrlen >= (socklen_t) sizeof(struct sockaddr_in6)) {
                        static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0,
                                                            0, 0, 0xff, 0xff };

                        a.family = 6;
                        memcpy(a.b, &((struct sockaddr_in6 *) ai->ai_addr)->sin6_addr, 16);
                        if (memcmp(a.b, mapped, 12) == 0) {
                                memmove(a.b, a.b + 12, 4);
                                memset(a.b + 4, 0, 12);
                                a.family = 4;
                        }
                } else {
                        continue;
                }
                for (j = 0; j < k; j++)
                        if (sbx__net_addr_equal(&out[j], &a))
                                break;
                if (j == k)
                        out[k++] = a;
        }
        freeaddrinfo(res);
        *n = k;
        return k > 0 ? 0 : -ENOENT;
}

static void lookup_unref(struct sbx__net_lookup *l)
{
        /* the caller holds the resolver's lock */
        if (--l->refs == 0) {
                (void) close(l->efd);
                free(l);
        }
}

static void *worker(void *arg)
{
        struct sbx__net_resolver *r = arg;

        (void) pthread_mutex_lock(&r->lock);
        for (;;) {
                struct sbx__net_lookup *l;
                struct sbx__net_addr addrs[SBX__NET_ADDRS_MAX];
                size_t n = 0;
                uint64_t one = 1;
                int rc;

                while (r->head == NULL && !r->stopping)
                        (void) pthread_cond_wait(&r->cond, &r->lock);
                if (r->stopping)
                        break;
                l = r->head;
                r->head = l->next;
                if (r->head == NULL)
                        r->tail = NULL;
                r->queued--;
                if (l->refs == 1) {             /* its connection gave up */
                        lookup_unref(l);
                        continue;
                }
                (void) pthread_mutex_unlock(&r->lock);
                rc = r->fn(l->host, addrs, SBX__NET_ADDRS_MAX, &n, r->userdata);
                if (rc == 0 && (n == 0 || n > SBX__NET_ADDRS_MAX))
                        rc = -ENOENT;
                (void) pthread_mutex_lock(&r->lock);
                l->rc = rc;
                l->done = 1;
                if (rc == 0) {
                        memcpy(l->addrs, addrs, n * sizeof(addrs[0]));
                        l->n = n;
                }
                while (write(l->efd, &one, sizeof(one)) < 0 && errno == EINTR)
                        ;
                lookup_unref(l);
        }
        (void) pthread_mutex_unlock(&r->lock);
        return NULL;
}

void sbx__net_resolver_free(struct sbx__net_resolver *r)
{
        size_t i;

        if (r == NULL)
                return;
        (void) pthread_mutex_lock(&r->lock);
        r->stopping = 1;
        (void) pthread_cond_broadcast(&r->cond);
        (void) pthread_mutex_unlock(&r->lock);
        for (i = 0; i < r->nthreads; i++)
                (void) pthread_join(r->threads[i], NULL);
        /* Every connection has ended: what is queued is the queue's alone. */
        while (r->head != NULL) {
                struct sbx__net_lookup *l = r->head;

                r->head = l->next;
                lookup_unref(l);
        }
        free(r->threads);
        (void) pthread_cond_destroy(&r->cond);
        (void) pthread_mutex_destroy(&r->lock);
        free(r);
}

sbx_code sbx__net_resolver_new(uint32_t threads, uint32_t queue_max, sbx__net_resolve_fn fn,
                               void *userdata, struct sbx__net_resolver **out, sbx_error *err)
{
        struct sbx__net_resolver *r = calloc(1, sizeof(*r));
        int rc;

        if (r == NULL || (r->threads = calloc(threads, sizeof(*r->threads))) == NULL) {
                free(r);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "proxy resolver: no memory");
        }
        (void) pthread_mutex_init(&r->lock, NULL);
        (void) pthread_cond_init(&r->cond, NULL);
        r->queue_max = queue_max;
        r->fn = fn != NULL ? fn : sbx__net_getaddrinfo;
        r->userdata = userdata;
        for (; r->nthreads < threads; r->nthreads++) {
                rc = sbx__proxy_thread_start(&r->threads[r->nthreads], worker, r,
                                             SBX__PROXY_STACK);
                if (rc < 0) {
                        sbx__net_resolver_free(r);
                        return sbx__fail(err, SBX_E_INTERNAL, -rc, "proxy resolver: cannot "
                                         "start a thread");
                }
        }
        *out = r;
        return SBX_OK;
}

int sbx__net_resolve_start(struct sbx__net_resolver *r, const char *host,
                          struct sbx__net_lookup **out)
{
        struct sbx__net_lookup *l;
        int rc;

        if (strlen(host) > SBX__NET_NAME_MAX)
                return -EINVAL;
        l = calloc(1, sizeof(*l));
        if (l == NULL)
                return -ENOMEM;
        l->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (l->efd < 0) {
                rc = -errno;
                free(l);
                return rc;
        }
        strcpy(l->host, host);
        l->refs = 2;
        (void) pthread_mutex_lock(&r->lock);
        if (r->queued >= r->queue_max || r->stopping) {
                (void) pthread_mutex_unlock(&r->lock);
                (void) close(l->efd);
                free(l);
                return -EBUSY;
        }
        if (r->tail != NULL)
                r->tail->next = l;
        else
                r->head = l;
        r->tail = l;
        r->queued++;
        (void) pthread_cond_signal(&r->cond);
        (void) pthread_mutex_unlock(&r->lock);
        *out = l;
        return 0;
}

int sbx__net_lookup_fd(const struct sbx__net_lookup *l)
{
        return l->efd;
}

int sbx__net_resolve_end(struct sbx__net_resolver *r, struct sbx__net_lookup *l,
                         struct sbx__net_addr *out, size_t max, size_t *n)
{
        int rc = -ETIMEDOUT;

        (void) pthread_mutex_lock(&r->lock);
        if (l->done && out != NULL) {
                rc = l->rc;
                if (rc == 0) {
                        *n = l->n < max ? l->n : max;
                        memcpy(out, l->addrs, *n * sizeof(out[0]));
                }
        }
        lookup_unref(l);
        (void) pthread_mutex_unlock(&r->lock);
        return rc;
}

int sbx__net_resolve(struct sbx__net_resolver *r, const char *host, int cancel_fd,
                     int64_t deadline_ms, struct sbx__net_addr *out, size_t max, size_t *n)
{
        struct sbx__net_lookup *l = NULL;
        int w, rc;

        rc = sbx__net_resolve_start(r, host, &l);
        if (rc < 0)
                return rc;
        w = sbx__proxy_wait(l->efd, POLLIN, cancel_fd, deadline_ms);
        if (w <= 0) {
                (void) sbx__net_resolve_end(r, l, NULL, 0, NULL);       /* abandoned */
                return w == 0 ? -ETIMEDOUT : w;
        }
        return sbx__net_resolve_end(r, l, out, max, n);
}
