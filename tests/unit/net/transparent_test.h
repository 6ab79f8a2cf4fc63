/*
 * transparent_test.h - what test_transparent.c and test_transparent_dns.c
 * share: sockets on 127.0.0.1, a test resolver, the origdst hook (the
 * original destination by the client's source port), an engine with one
 * execution serving a proxy listener, a transparent listener and a DNS
 * socket, and the group's fd/thread leak check.
 */
#ifndef SBX_TEST_TRANSPARENT_H
#define SBX_TEST_TRANSPARENT_H

#include "unit/sbx_test.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"

extern char **environ;

#define IO_TIMEOUT_S 10

/* ---------------------------------------------------------------- sockets */

static inline int count_dir(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *de;
        int n = 0;

        if (d == NULL)
                return -1;
        while ((de = readdir(d)) != NULL)
                n += de->d_name[0] != '.';
        (void) closedir(d);
        return n - 1;
}

static inline void sleep_ms(int ms)
{
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };

        (void) nanosleep(&ts, NULL);
}

static inline void set_timeouts(int fd)
{
        struct timeval tv = { IO_TIMEOUT_S, 0 };

        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static inline struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
        struct sockaddr_in a;

        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
        return a;
}

/* A socket of `type` bound to ip:port (0: ephemeral), listening if TCP. */
static inline int bound(int type, const char *ip, uint16_t *port)
{
        struct sockaddr_in a = sin_of(ip, *port);
        socklen_t sl = sizeof(a);
        int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        if (bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0 ||
            (type == SOCK_STREAM && listen(fd, 16) < 0)) {
                (void) close(fd);
                return -1;
        }
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &sl), 0);
        *port = ntohs(a.sin_port);
        return fd;
}

static inline void send_all(int fd, const void *b, size_t n)
{
        const char *s = b;

        while (n > 0) {
                ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

                assert_true(w > 0);
                s += w;
                n -= (size_t) w;
        }
}

static inline void recv_n(int fd, void *b, size_t n)
{
        size_t got = 0;

        while (got < n) {
                ssize_t r = recv(fd, (char *) b + got, n - got, 0);

                assert_true(r > 0);
                got += (size_t) r;
        }
}

static inline size_t recv_all(int fd, char *buf, size_t max)
{
        size_t len = 0;

        while (len + 1 < max) {
                ssize_t n = recv(fd, buf + len, max - 1 - len, 0);

                if (n <= 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        return len;
}

static inline int nothing_pending(int lfd)
{
        struct pollfd p = { lfd, POLLIN, 0 };

        return poll(&p, 1, 300) == 0;
}

/* ------------------------------------------- the resolver and origdst hooks */

static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slow_cond = PTHREAD_COND_INITIALIZER;
static int slow_done;

static inline int fake_resolve(const char *host, struct sbx__net_addr *out, size_t max,
                               size_t *n, void *ud)
{
        static const struct { const char *name, *addrs[2]; } names[] = {
                { "origin.test",   { "127.0.0.1", NULL } },
                { "tls.test",      { "127.0.0.1", NULL } },
                { "two.test",      { "127.0.0.2", "127.0.0.1" } },
                { "private.test",  { "10.0.0.1", NULL } },
                { "metadata.test", { "169.254.169.254", NULL } },
                { "mixed.test",    { "10.0.0.1", "127.0.0.1" } },
                { "v6.test",       { "::1", "127.0.0.1" } },
                { "pub.test",      { "93.184.216.34", "2606:2800:220:1::1" } },
        };
        size_t i, k;

        (void) ud;
        if (strcmp(host, "slow.test") == 0) {
                struct timespec ts;

                (void) clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 5;
                (void) pthread_mutex_lock(&slow_lock);
                while (!slow_done &&
                       pthread_cond_timedwait(&slow_cond, &slow_lock, &ts) != ETIMEDOUT)
                        ;
                (void) pthread_mutex_unlock(&slow_lock);
                return -ENOENT;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(names); i++) {
                if (strcmp(host, names[i].name) != 0)
                        continue;
                for (k = 0; k < 2 && names[i].addrs[k] != NULL && k < max; k++)
                        if (sbx__net_addr_parse(names[i].addrs[k], strlen(names[i].addrs[k]),
                                                &out[k]) < 0)
                                return -EINVAL;
                *n = k;
                return 0;
        }
        return -ENOENT;                         /* never the real DNS */
}

/* Original destinations by the client's source port. */
static pthread_mutex_t od_lock = PTHREAD_MUTEX_INITIALIZER;
static struct od { uint16_t cport; int rc; struct sbx__net_addr a; uint16_t port; } od_tab[64];
static size_t od_n;

static inline int test_origdst(int fd, struct sbx__net_addr *a, uint16_t *port, void *ud)
{
        struct sockaddr_in peer;
        socklen_t sl = sizeof(peer);
        int rc = -ENOENT;
        size_t i;

        (void) ud;
        if (getpeername(fd, (struct sockaddr *) &peer, &sl) < 0)
                return -errno;
        (void) pthread_mutex_lock(&od_lock);
        for (i = 0; i < od_n; i++)
                if (od_tab[i].cport == ntohs(peer.sin_port)) {
                        rc = od_tab[i].rc;
                        *a = od_tab[i].a;
                        *port = od_tab[i].port;
                }
        (void) pthread_mutex_unlock(&od_lock);
        return rc;
}

/* Every connection's original destination is 192.0.2.7:*(uint16_t *) ud. */
static inline int fixed_origdst(int fd, struct sbx__net_addr *a, uint16_t *port, void *ud)
{
        (void) fd;
        *port = *(const uint16_t *) ud;
        return sbx__net_addr_parse("192.0.2.7", 9, a);
}

/* ------------------------------------------------------------ the engine */

struct tp {
        struct sbx__proxy_engine *e;
        struct sbx__proxy_exec   *x;
        int                       plfd, tlfd, dfd;      /* the "integrator's" sockets */
        uint16_t                  pport, tport, dport;
};

static inline void tp_start(struct tp *p, struct sbx__proxy_limits *lim,
                            const char *const *rules)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        struct sbx__proxy_limits l;
        struct sbx__proxy_config cfg;
        sbx_error e = { 0, 0, { 0 } };

        memset(p, 0, sizeof(*p));
        if (lim == NULL) {
                memset(&l, 0, sizeof(l));
                l.resolve = fake_resolve;
                l.origdst = test_origdst;
                l.peek_timeout_ms = 300;
                lim = &l;
        }
        assert_int_equal(sbx__proxy_engine_new(lim, &p->e, NULL), SBX_OK);
        for (; rules != NULL && *rules != NULL; rules++)
                assert_int_equal(sbx__net_rules_add(&rs, *rules, NULL), SBX_OK);
        cfg.rules = &rs;
        cfg.upstream = NULL;
        cfg.token = NULL;
        p->plfd = bound(SOCK_STREAM, "127.0.0.1", &p->pport);
        p->tlfd = bound(SOCK_STREAM, "127.0.0.1", &p->tport);
        p->dfd = bound(SOCK_DGRAM, "127.0.0.1", &p->dport);
        assert_true(p->plfd >= 0 && p->tlfd >= 0 && p->dfd >= 0);
        if (sbx__proxy_exec_new(p->e, &cfg, p->plfd, &p->x, &e) != SBX_OK)
                fail_msg("%s", e.message);
        sbx__net_rules_clear(&rs);
        if (sbx__proxy_exec_transparent(p->x, p->tlfd, p->dfd, &e) != SBX_OK)
                fail_msg("%s", e.message);
}

static inline void tp_stop(struct tp *p)
{
        sbx__proxy_exec_release(p->x);
        sbx__proxy_engine_free(p->e);
        (void) close(p->plfd);
        (void) close(p->tlfd);
        (void) close(p->dfd);
        (void) pthread_mutex_lock(&od_lock);
        od_n = 0;
        (void) pthread_mutex_unlock(&od_lock);
}

static inline size_t events(const struct tp *p, struct sbx__net_event *ev, size_t max)
{
        return sbx__proxy_exec_events(p->x, ev, max, NULL);
}

/* --------------------------------------------------------------- the group */

static int fds_before, tasks_before;

static inline int group_setup(void **state)
{
        (void) state;
        (void) signal(SIGPIPE, SIG_IGN);
        fds_before = count_dir("/proc/self/fd");
        tasks_before = count_dir("/proc/self/task");
        return 0;
}

static inline int group_teardown(void **state)
{
        int fds = count_dir("/proc/self/fd"), tasks = count_dir("/proc/self/task");

        (void) state;
        if (fds != fds_before || tasks != tasks_before) {
                fprintf(stderr, "leak: %d fds (was %d), %d threads (was %d)\n", fds, fds_before,
                        tasks, tasks_before);
                return -1;
        }
        return 0;
}

#endif
