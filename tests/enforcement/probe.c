/*
 * probe.c - sbx-probe, the program the enforcement tests run INSIDE the
 * sandbox.  Each subcommand tries one thing and exits 0 if it worked, or
 * with the errno (1..119) that stopped it; 120 = usage error.  The tests
 * then check the effect from outside.  Built without sanitizers: their
 * runtimes use ptrace and /proc in ways the sandbox refuses.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/mman.h>
#include <mqueue.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#ifndef TIOCLINUX
#  define TIOCLINUX 0x541C
#endif

static int fail(void)
{
        int e = errno;

        if (e <= 0)
                e = 119;
        return e > 119 ? 119 : e;
}

#define TRY(expr) do { if ((expr) < 0) return fail(); } while (0)

static int sock_connect(int family, int type, const struct sockaddr *sa, socklen_t len)
{
        int fd = socket(family, type | SOCK_CLOEXEC, 0);

        TRY(fd);
        if (type == SOCK_DGRAM) {
                TRY(sendto(fd, "x", 1, 0, sa, len));
                return 0;
        }
        TRY(connect(fd, sa, len));
        (void) !write(fd, "x", 1);
        close(fd);
        return 0;
}

static int inet(const char *host, const char *port, int type)
{
        struct sockaddr_in sin;

        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t) atoi(port));
        if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
                return 120;
        return sock_connect(AF_INET, type, (struct sockaddr *) &sin, sizeof(sin));
}

/* The egress proxy named by $http_proxy ("http://user:pass@127.0.0.1:PORT"):
 * a connected socket and "Basic <base64(user:pass)>" in auth (1 KiB), or
 * -1. */
static int proxy_dial(char *auth, size_t authsz)
{
        static const char b64[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *u = getenv("http_proxy"), *at, *colon;
        struct sockaddr_in sin;
        char cred[512];
        size_t n, i, o = 0;
        int fd;

        if (u == NULL || strncmp(u, "http://", 7) != 0 || (at = strrchr(u, '@')) == NULL)
                return -1;
        n = (size_t) (at - (u + 7));
        if (n >= sizeof(cred))
                return -1;
        memcpy(cred, u + 7, n);
        cred[n] = '\0';
        o = (size_t) snprintf(auth, authsz, "Basic ");
        for (i = 0; i < n && o + 5 < authsz; i += 3) {
                unsigned v = (unsigned char) cred[i] << 16 |
                             (i + 1 < n ? (unsigned char) cred[i + 1] << 8 : 0) |
                             (i + 2 < n ? (unsigned char) cred[i + 2] : 0);

                auth[o++] = b64[v >> 18 & 63];
                auth[o++] = b64[v >> 12 & 63];
                auth[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
                auth[o++] = i + 2 < n ? b64[v & 63] : '=';
        }
        auth[o] = '\0';
        colon = strrchr(at, ':');
        if (colon == NULL)
                return -1;
        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t) atoi(colon + 1));
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sin, sizeof(sin)) < 0)
                return -1;
        return fd;
}

/* Read what fd sends until EOF (at most size - 1 bytes) into buf. */
static size_t read_all(int fd, char *buf, size_t size)
{
        size_t got = 0;
        ssize_t n;

        while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
                got += (size_t) n;
        buf[got] = '\0';
        return got;
}

/* GET url through the proxy (without the credential when noauth); the
 * response on stdout.  0 for a 200, 3 for another status, 2 when the
 * proxy cannot be reached. */
static int proxy_get(const char *url, int noauth)
{
        char auth[1024], req[4096], resp[8192];
        int fd = proxy_dial(auth, sizeof(auth));

        if (fd < 0)
                return 2;
        (void) snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n%s%s%s"
                        "Connection: close\r\n\r\n", url, noauth ? "" : "Proxy-Authorization: ",
                        noauth ? "" : auth, noauth ? "" : "\r\n");
        if (write(fd, req, strlen(req)) != (ssize_t) strlen(req))
                return 2;
        (void) read_all(fd, resp, sizeof(resp));
        (void) close(fd);
        fputs(resp, stdout);
        return strncmp(resp, "HTTP/1.1 200", 12) == 0 || strncmp(resp, "HTTP/1.0 200", 12) == 0
               ? 0 : 3;
}

/* CONNECT hostport through the proxy, then "ping\n" and one line back on
 * stdout.  0 when the tunnel answered "pong". */
static int proxy_connect(const char *hostport)
{
        char auth[1024], req[3072], resp[4096];
        size_t got = 0;
        ssize_t n;
        int fd = proxy_dial(auth, sizeof(auth));

        if (fd < 0)
                return 2;
        (void) snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n"
                        "Proxy-Authorization: %s\r\n\r\n", hostport, hostport, auth);
        if (write(fd, req, strlen(req)) != (ssize_t) strlen(req))
                return 2;
        /* the response head, byte by byte up to its empty line */
        while (got + 1 < sizeof(resp) && (n = read(fd, resp + got, 1)) == 1) {
                got++;
                resp[got] = '\0';
                if (got >= 4 && memcmp(resp + got - 4, "\r\n\r\n", 4) == 0)
                        break;
        }
        resp[got] = '\0';
        if (strncmp(resp, "HTTP/1.1 200", 12) != 0 && strncmp(resp, "HTTP/1.0 200", 12) != 0) {
                fputs(resp, stdout);
                return 3;
        }
        if (write(fd, "ping\n", 5) != 5)
                return 4;
        (void) read_all(fd, resp, sizeof(resp));
        fputs(resp, stdout);
        return strncmp(resp, "pong", 4) == 0 ? 0 : 5;
}

/* A plain HTTP GET straight to ip:port (no proxy variables: a tool that
 * ignores them), with "Host: host"; the response on stdout.  0 for a 200,
 * 3 for another answer or none, 2 when the connection failed. */
static int http_direct(const char *ip, const char *port, const char *host)
{
        struct sockaddr_in sin;
        struct sockaddr_in6 sin6;
        char req[1024], resp[8192];
        int v6 = strchr(ip, ':') != NULL, fd;

        memset(&sin, 0, sizeof(sin));
        memset(&sin6, 0, sizeof(sin6));
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t) atoi(port));
        sin6.sin6_family = AF_INET6;
        sin6.sin6_port = sin.sin_port;
        if (v6 ? inet_pton(AF_INET6, ip, &sin6.sin6_addr) != 1
               : inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
                return 120;
        fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || (v6 ? connect(fd, (struct sockaddr *) &sin6, sizeof(sin6))
                          : connect(fd, (struct sockaddr *) &sin, sizeof(sin))) < 0)
                return 2;
        (void) snprintf(req, sizeof(req), "GET /direct HTTP/1.1\r\nHost: %.200s\r\n"
                        "Connection: close\r\n\r\n", host);
        if (write(fd, req, strlen(req)) != (ssize_t) strlen(req))
                return 2;
        (void) read_all(fd, resp, sizeof(resp));
        (void) close(fd);
        fputs(resp, stdout);
        return strncmp(resp, "HTTP/1.1 200", 12) == 0 || strncmp(resp, "HTTP/1.0 200", 12) == 0
               ? 0 : 3;
}

/* fork-chain N MARK: a chain of N processes, each the parent of the next,
 * every one paused; the deepest prints "deep" first.  Never returns. */
static int fork_chain(long n) __attribute__((noreturn));
static int fork_chain(long n)
{
        long i;

        for (i = 0; i < n; i++) {
                pid_t pid = fork();

                if (pid < 0)
                        break;
                if (pid > 0)
                        for (;;)
                                (void) pause();
        }
        (void) !write(1, "deep\n", 5);
        for (;;)
                (void) pause();
}

/* A private loopback: bind a TCP listener on `host` (127.0.0.1 or ::1),
 * port `port` (0 = any), connect to it, exchange a byte both ways; then a
 * UDP datagram to a socket bound the same way.  0 if all of it worked. */
static int loopback_echo(const char *host, const char *port)
{
        struct sockaddr_storage ss;
        socklen_t len;
        int fam = strchr(host, ':') != NULL ? AF_INET6 : AF_INET, l, c, a, u, v;
        char b = 'x';

        memset(&ss, 0, sizeof(ss));
        if (fam == AF_INET) {
                struct sockaddr_in *sin = (struct sockaddr_in *) &ss;

                sin->sin_family = AF_INET;
                sin->sin_port = htons((uint16_t) atoi(port));
                if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
                        return 120;
                len = sizeof(*sin);
        } else {
                struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &ss;

                sin6->sin6_family = AF_INET6;
                sin6->sin6_port = htons((uint16_t) atoi(port));
                if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
                        return 120;
                len = sizeof(*sin6);
        }
        l = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (l < 0 || bind(l, (struct sockaddr *) &ss, len) < 0 || listen(l, 1) < 0 ||
            getsockname(l, (struct sockaddr *) &ss, &len) < 0)
                return 1;
        c = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c < 0 || connect(c, (struct sockaddr *) &ss, len) < 0)
                return 2;
        a = accept(l, NULL, NULL);
        if (a < 0 || write(c, &b, 1) != 1 || read(a, &b, 1) != 1 || write(a, &b, 1) != 1 ||
            read(c, &b, 1) != 1)
                return 3;
        u = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        v = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fam == AF_INET)
                ((struct sockaddr_in *) &ss)->sin_port = 0;
        else
                ((struct sockaddr_in6 *) &ss)->sin6_port = 0;
        if (u < 0 || v < 0 || bind(u, (struct sockaddr *) &ss, len) < 0 ||
            getsockname(u, (struct sockaddr *) &ss, &len) < 0 ||
            sendto(v, &b, 1, 0, (struct sockaddr *) &ss, len) != 1 ||
            recv(u, &b, 1, 0) != 1)
                return 4;
        return 0;
}

/* A unix address for a socket file or an abstract name; its length, or
 * 0 when the name does not fit. */
static socklen_t unix_addr(struct sockaddr_un *sun, const char *name, int abstract)
{
        memset(sun, 0, sizeof(*sun));
        sun->sun_family = AF_UNIX;
        if (strlen(name) + 2 > sizeof(sun->sun_path))
                return 0;
        if (!abstract) {
                strcpy(sun->sun_path, name);
                return sizeof(*sun);
        }
        memcpy(sun->sun_path + 1, name, strlen(name));
        return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static int unix_connect(const char *name, int abstract)
{
        struct sockaddr_un sun;
        socklen_t len = unix_addr(&sun, name, abstract);

        if (len == 0)
                return 120;
        return sock_connect(AF_UNIX, SOCK_STREAM, (struct sockaddr *) &sun, len);
}

/* A datagram socketpair (SOCK_DGRAM, else SOCK_RAW, which the kernel
 * makes a datagram pair) sending to a socket file or abstract name: by
 * sendto with the address, then by connect and send.  0 if either went. */
static int unix_dgram(const char *name, int abstract)
{
        struct sockaddr_un sun;
        socklen_t len = unix_addr(&sun, name, abstract);
        int sv[2], ok = 0;

        if (len == 0)
                return 120;
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
                TRY(socketpair(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0, sv));
        if (sendto(sv[0], "x", 1, 0, (struct sockaddr *) &sun, len) == 1)
                ok = 1;
        if (connect(sv[0], (struct sockaddr *) &sun, len) == 0 && write(sv[0], "y", 1) == 1)
                ok = 1;
        return ok ? 0 : fail();
}

/* unix-race: a thread flips one sockaddr between the allowed path and
 * another (same length) while the main thread connects n times through
 * it; a connection that went through writes "r".  Exits 0 when at least
 * one connect succeeded (to whichever path). */
static struct sockaddr_un ur_addr;
static char ur_paths[2][sizeof(ur_addr.sun_path)];
static volatile int ur_stop;

static void *ur_flip(void *arg)
{
        volatile char *v = ur_addr.sun_path;
        size_t i, n = strlen(ur_paths[0]);

        (void) arg;
        while (!ur_stop)
                for (i = 0; i < n; i++)
                        v[i] = ur_paths[(v[i] == ur_paths[0][i]) ? 1 : 0][i];
        return NULL;
}

static int unix_race(const char *allowed, const char *other, long n)
{
        pthread_t t;
        long i, ok = 0;

        if (strlen(allowed) != strlen(other) || strlen(allowed) + 1 > sizeof(ur_paths[0]))
                return 120;
        strcpy(ur_paths[0], allowed);
        strcpy(ur_paths[1], other);
        ur_addr.sun_family = AF_UNIX;
        strcpy(ur_addr.sun_path, allowed);
        if (pthread_create(&t, NULL, ur_flip, NULL) != 0)
                return 120;
        for (i = 0; i < n; i++) {
                /* nonblocking: a full backlog answers EAGAIN, never blocks */
                int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

                if (fd < 0)
                        break;
                if (connect(fd, (struct sockaddr *) &ur_addr, sizeof(ur_addr)) == 0) {
                        (void) !write(fd, "r", 1);
                        ok++;
                }
                close(fd);
        }
        ur_stop = 1;
        pthread_join(t, NULL);
        return ok > 0 ? 0 : 1;
}

/* unix-nb: a nonblocking connect (done inline by the supervisor). */
static int unix_nonblocking(const char *path)
{
        struct sockaddr_un sun;
        struct pollfd pf;
        int fd, err = 0;
        socklen_t len = sizeof(err);

        if (unix_addr(&sun, path, 0) == 0)
                return 120;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        TRY(fd);
        if (connect(fd, (struct sockaddr *) &sun, sizeof(sun)) < 0 && errno != EINPROGRESS)
                return fail();
        pf.fd = fd;
        pf.events = POLLOUT;
        if (poll(&pf, 1, 10000) != 1)
                return 110;
        TRY(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
        if (err != 0) {
                errno = err;
                return fail();
        }
        (void) !write(fd, "n", 1);
        close(fd);
        return 0;
}

/* unix-stall: connects that block (the listener's backlog is full and it
 * never accepts) do not stop the supervisor: the main thread fills the
 * backlog with nonblocking connects, a thread then blocks in a connect,
 * and the main thread's next calls (a nonblocking connect, a file
 * created) still get their answers.  Exit 0 when they did. */
static void *stall_connect(void *arg)
{
        struct sockaddr_un *sun = arg;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd >= 0)
                (void) connect(fd, (struct sockaddr *) sun, sizeof(*sun));
        return NULL;    /* never reached while the listener waits */
}

/* A socket whose O_NONBLOCK another thread keeps flipping, connected
 * over and over: a supervisor that looked at the flag and then connected
 * inline would block. */
static int flip_fd = -1;

static void *stall_flip(void *arg)
{
        (void) arg;
        for (;;) {
                (void) fcntl(flip_fd, F_SETFL, O_NONBLOCK);
                (void) fcntl(flip_fd, F_SETFL, 0);
        }
        return NULL;
}

static void *stall_flipped(void *arg)
{
        struct sockaddr_un *sun = arg;

        for (;;)
                (void) connect(flip_fd, (struct sockaddr *) sun, sizeof(*sun));
        return NULL;
}

static int unix_stall(const char *path, const char *file)
{
        static struct sockaddr_un sun;
        pthread_t t;
        int i, fd, e;

        if (unix_addr(&sun, path, 0) == 0)
                return 120;
        for (i = 0; i < 4096; i++) {
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                TRY(fd);
                if (connect(fd, (struct sockaddr *) &sun, sizeof(sun)) < 0) {
                        e = errno;
                        close(fd);
                        if (e != EAGAIN)
                                return e > 119 ? 119 : e;
                        break;
                }
        }
        if (i == 4096)
                return 111;     /* the backlog never filled */
        for (i = 0; i < 3; i++) {
                if (pthread_create(&t, NULL, stall_connect, &sun) != 0)
                        return 120;
                (void) pthread_detach(t);
        }
        flip_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        TRY(flip_fd);
        if (pthread_create(&t, NULL, stall_flip, NULL) != 0)
                return 120;
        (void) pthread_detach(t);
        if (pthread_create(&t, NULL, stall_flipped, &sun) != 0)
                return 120;
        (void) pthread_detach(t);
        usleep(300 * 1000);     /* let them block (nothing is asserted on it) */
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        TRY(fd);
        if (connect(fd, (struct sockaddr *) &sun, sizeof(sun)) == 0 || errno != EAGAIN)
                return 112;     /* the answer a full backlog gives */
        close(fd);
        fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        TRY(fd);
        close(fd);
        _exit(0);               /* the blocked threads go with the process */
}

static int write_file(const char *path, int flags, const char *data)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);

        TRY(fd);
        if (write(fd, data, strlen(data)) < 0)
                return fail();
        close(fd);
        return 0;
}

/* Fork n children that all stay alive until every fork was tried: each
 * blocks reading a pipe whose write end only this process keeps, and
 * leaves at EOF, when this process closes it (or dies). */
static int fork_many(int n)
{
        int i, ok = 0, hold[2];
        char c;

        TRY(pipe2(hold, O_CLOEXEC));
        for (i = 0; i < n; i++) {
                pid_t p = fork();

                if (p == 0) {
                        close(hold[1]);
                        while (read(hold[0], &c, 1) < 0 && errno == EINTR)
                                ;
                        _exit(0);
                }
                if (p < 0)
                        break;
                ok++;
        }
        close(hold[1]);
        printf("%d\n", ok);
        fflush(stdout);
        while (wait(NULL) > 0)
                ;
        return ok == n ? 0 : EAGAIN;
}

static int alloc_mb(long mb)
{
        size_t len = (size_t) mb << 20;
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        size_t i;

        if (p == MAP_FAILED)
                return fail();
        for (i = 0; i < len; i += 4096)
                p[i] = 1;
        return 0;
}

/* alloc-tree: n processes at once, each holding mb MiB it touched.  0 once
 * all hold their memory together; EAGAIN when one could not (its mmap
 * failed, or it was killed: a memory total for the tree). */
static int tree_pipe = -1;

static void tree_child_gone(int sig)
{
        (void) sig;
        (void) !write(tree_pipe, "x", 1);
}

static int alloc_tree(int n, long mb)
{
        int res[2], hold[2], i, ok = 0, st;
        struct sigaction sa;
        char c;

        TRY(pipe2(res, O_CLOEXEC));
        TRY(pipe2(hold, O_CLOEXEC));
        tree_pipe = res[1];
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = tree_child_gone;
        sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
        TRY(sigaction(SIGCHLD, &sa, NULL));
        for (i = 0; i < n; i++) {
                pid_t p = fork();

                if (p == 0) {
                        close(hold[1]);
                        if (alloc_mb(mb) != 0)
                                _exit(1);
                        (void) !write(res[1], "k", 1);
                        while (read(hold[0], &c, 1) < 0 && errno == EINTR)
                                ;
                        _exit(0);
                }
                if (p < 0)
                        return fail();
        }
        /* Every child says "k" once it holds its memory; a child that ends
         * before the hold is released (failed or killed) makes an "x". */
        while (ok < n) {
                ssize_t r = read(res[0], &c, 1);

                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0 || c != 'k')
                        break;
                ok++;
        }
        /* A child the OOM killer chose after its "k" may not have died yet
         * when the last "k" came (its memory freed first, which let the
         * last one finish): give a kill in flight time to land, then any
         * child that ended means they never held it all at once. */
        if (ok == n) {
                siginfo_t si;
                struct timespec settle = { 0, 300 * 1000 * 1000 };

                (void) nanosleep(&settle, NULL);
                memset(&si, 0, sizeof(si));
                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0)
                        ok--;
        }
        close(hold[1]);
        while (wait(&st) > 0)
                ;
        printf("%d\n", ok);
        return ok == n ? 0 : EAGAIN;
}

/* "3" -> 3; anything that is not a small decimal number -> -1. */
static int fd_arg(const char *s)
{
        char *end;
        long v;

        if (s == NULL || *s < '0' || *s > '9')
                return -1;
        v = strtol(s, &end, 10);
        return *end == '\0' && v >= 0 && v < 1024 ? (int) v : -1;
}

/* tiocsti-fd / tioclinux-fd: optionally make fd the controlling tty first
 * (the sandboxed command is a session leader without one), print what
 * TIOCSCTTY did, then try the ioctl. */
static int tty_ioctl(int fd, const char *ctty, unsigned long req)
{
        char c = req == TIOCSTI ? 'x' : 6;

        if (fd < 0)
                return 120;
        if (ctty != NULL && strcmp(ctty, "ctty") == 0) {
                if (ioctl(fd, TIOCSCTTY, 0) < 0)
                        printf("ctty-failed %d\n", errno);
                else
                        printf("ctty-ok\n");
                fflush(stdout);
        }
        TRY(ioctl(fd, req, &c));
        return 0;
}

/* Print the fds open right now (collected before anything is printed, so
 * stdio opens nothing that shows up). */
static int list_fds(void)
{
        int fds[1024], n = 0, fd, i;

        for (fd = 0; fd < 1024; fd++)
                if (fcntl(fd, F_GETFD) >= 0)
                        fds[n++] = fd;
        for (i = 0; i < n; i++)
                printf("%d\n", fds[i]);
        return 0;
}

/* name-race: a thread flips the name between "xgit" and ".git" while
 * the main thread names entries with it through every naming call. */
static char race_name[8] = "xgit";
static volatile int race_stop;

static void *race_flip(void *arg)
{
        volatile char *v = race_name;

        (void) arg;
        while (!race_stop) {
                v[0] = '.';
                v[0] = 'x';
        }
        return NULL;
}

static int name_race(long n)
{
        pthread_t t;
        long i;
        int fd;

        if (pthread_create(&t, NULL, race_flip, NULL) != 0)
                return 120;
        fd = open("src", O_WRONLY | O_CREAT, 0644);
        if (fd >= 0)
                close(fd);
        for (i = 0; i < n; i++) {
                switch (i % 5) {
                case 0:
                        if (mkdir(race_name, 0755) == 0)
                                (void) rmdir("xgit");
                        break;
                case 1:
                        fd = open(race_name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                        if (fd >= 0) {
                                close(fd);
                                (void) unlink("xgit");
                        }
                        break;
                case 2:
                        if (symlink("target", race_name) == 0)
                                (void) unlink("xgit");
                        break;
                case 3:
                        if (rename("src", race_name) == 0)
                                (void) rename("xgit", "src");
                        break;
                default:
                        if (link("src", race_name) == 0)
                                (void) unlink("xgit");
                        break;
                }
        }
        race_stop = 1;
        pthread_join(t, NULL);
        return 0;
}


/*
 * "open-w DIR DEPTH": try open(O_WRONLY) on every regular file below DIR
 * (no symlink followed, other processes' /proc/<pid> skipped) without
 * writing a byte: opening a sysctl or sysfs file for writing changes
 * nothing, yet succeeds exactly when a write would be permitted.  Prints
 * each file that opened; exits 0 if any did (the attack worked), else
 * EACCES.
 */
static int open_w_found;

static void open_w_walk(int dfd, const char *path, int depth)
{
        DIR *d;
        struct dirent *e;
        char sub[4096];
        int fd, self = 0;

        if (depth < 0 || (d = fdopendir(dfd)) == NULL) {
                close(dfd);
                return;
        }
        self = strcmp(path, "/proc") == 0;
        while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (self && e->d_name[0] >= '0' && e->d_name[0] <= '9')
                        continue;       /* other processes; /proc/self is checked */
                if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int) sizeof(sub))
                        continue;
                if (e->d_type == DT_DIR) {
                        fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                    O_CLOEXEC);
                        if (fd >= 0)
                                open_w_walk(fd, sub, depth - 1);
                } else if (e->d_type == DT_REG) {
                        fd = openat(dirfd(d), e->d_name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
                                    O_NOCTTY | O_CLOEXEC);
                        if (fd >= 0) {
                                close(fd);
                                if (open_w_found++ < 20)
                                        printf("%s\n", sub);
                        }
                }
        }
        closedir(d);
}

static int open_w(const char *dir, int depth)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return fail();
        open_w_walk(fd, dir, depth);
        if (strcmp(dir, "/proc") == 0) {
                fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0)
                        open_w_walk(fd, "/proc/self", depth - 1);
        }
        fflush(stdout);
        return open_w_found > 0 ? 0 : EACCES;
}

int main(int argc, char **argv)
{
        const char *cmd, *a, *b;

        /* "out N <subcommand...>": stdout goes to fd N (a pipe the test
         * passed with keep_fds), N itself is closed. */
        if (argc > 3 && strcmp(argv[1], "out") == 0) {
                int fd = fd_arg(argv[2]);

                if (fd < 0 || dup2(fd, 1) < 0)
                        return 120;
                if (fd != 1)
                        close(fd);
                argv += 2;
                argc -= 2;
        }
        cmd = argc > 1 ? argv[1] : "";
        a = argc > 2 ? argv[2] : NULL;
        b = argc > 3 ? argv[3] : NULL;

#define NEED(n) do { if (argc < (n) + 2) return 120; } while (0)
        if (strcmp(cmd, "name-race") == 0) {
                NEED(1);
                return name_race(atol(a));
        }
        if (strcmp(cmd, "write") == 0) {
                NEED(1);
                return write_file(a, O_CREAT | O_TRUNC, b != NULL ? b : "sandbox\n");
        }
        if (strcmp(cmd, "append") == 0) {
                NEED(1);
                return write_file(a, O_APPEND, "sandbox\n");
        }
        if (strcmp(cmd, "read") == 0) {
                char buf[64];
                int fd;

                NEED(1);
                fd = open(a, O_RDONLY | O_CLOEXEC);
                TRY(fd);
                TRY(read(fd, buf, sizeof(buf)));
                return 0;
        }
        if (strcmp(cmd, "truncate") == 0) {
                NEED(1);
                TRY(truncate(a, 0));
                return 0;
        }
        if (strcmp(cmd, "chmod") == 0) {
                NEED(2);
                TRY(chmod(a, (mode_t) strtol(b, NULL, 8)));
                return 0;
        }
        if (strcmp(cmd, "chown") == 0) {
                NEED(1);
                TRY(chown(a, getuid(), getgid()));
                return 0;
        }
        if (strcmp(cmd, "utimes") == 0) {
                struct timeval tv[2] = { { 946684800, 0 }, { 946684800, 0 } };

                NEED(1);
                TRY(utimes(a, tv));
                return 0;
        }
        if (strcmp(cmd, "setxattr") == 0) {
                NEED(1);
                TRY(setxattr(a, "user.sbx", "x", 1, 0));
                return 0;
        }
        if (strcmp(cmd, "mkfifo") == 0) {
                NEED(1);
                TRY(mknod(a, S_IFIFO | 0644, 0));
                return 0;
        }
        if (strcmp(cmd, "mknod-char") == 0) {
                NEED(1);
                TRY(mknod(a, S_IFCHR | 0644, makedev(1, 3)));
                return 0;
        }
        if (strcmp(cmd, "mknod-block") == 0) {
                NEED(1);
                TRY(mknod(a, S_IFBLK | 0644, makedev(7, 0)));
                return 0;
        }
        if (strcmp(cmd, "creat-setuid") == 0) {
                int fd;

                NEED(1);
                fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
                TRY(fd);
                close(fd);
                return 0;
        }
        if (strcmp(cmd, "mkdir-setgid") == 0) {
                NEED(1);
                TRY(mkdir(a, 02755));
                return 0;
        }
        if (strcmp(cmd, "link") == 0) {
                NEED(2);
                TRY(link(a, b));
                return 0;
        }
        if (strcmp(cmd, "symlink") == 0) {
                NEED(2);
                TRY(symlink(a, b));
                return 0;
        }
        if (strcmp(cmd, "rename") == 0) {
                NEED(2);
                TRY(rename(a, b));
                return 0;
        }
        if (strcmp(cmd, "unlink") == 0) {
                NEED(1);
                TRY(unlink(a));
                return 0;
        }
        if (strcmp(cmd, "tcp") == 0) {
                NEED(2);
                return inet(a, b, SOCK_STREAM);
        }
        if (strcmp(cmd, "udp") == 0) {
                NEED(2);
                return inet(a, b, SOCK_DGRAM);
        }
        if (strcmp(cmd, "proxy-get") == 0) {
                NEED(1);
                return proxy_get(a, b != NULL && strcmp(b, "noauth") == 0);
        }
        if (strcmp(cmd, "fork-chain") == 0) {
                NEED(2);        /* the second argument only marks the processes */
                return fork_chain(atol(a));
        }
        if (strcmp(cmd, "http-direct") == 0) {
                NEED(3);
                return http_direct(a, b, argv[4]);
        }
        if (strcmp(cmd, "proxy-connect") == 0) {
                NEED(1);
                return proxy_connect(a);
        }
        if (strcmp(cmd, "loopback-echo") == 0) {
                NEED(2);
                return loopback_echo(a, b);
        }
        if (strcmp(cmd, "unix") == 0) {
                NEED(1);
                return unix_connect(a, 0);
        }
        if (strcmp(cmd, "abstract") == 0) {
                NEED(1);
                return unix_connect(a, 1);
        }
        if (strcmp(cmd, "unix-race") == 0) {
                NEED(3);
                return unix_race(a, b, atol(argv[4]));
        }
        if (strcmp(cmd, "unix-nb") == 0) {
                NEED(1);
                return unix_nonblocking(a);
        }
        if (strcmp(cmd, "unix-stall") == 0) {
                NEED(2);
                return unix_stall(a, b);
        }
        if (strcmp(cmd, "unix-dgram") == 0) {
                NEED(1);
                return unix_dgram(a, 0);
        }
        if (strcmp(cmd, "abstract-dgram") == 0) {
                NEED(1);
                return unix_dgram(a, 1);
        }
        if (strcmp(cmd, "raw-socket") == 0) {
                int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

                TRY(fd);
                return 0;
        }
        if (strcmp(cmd, "packet-socket") == 0) {
                int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

                TRY(fd);
                return 0;
        }
        if (strcmp(cmd, "vsock") == 0) {
                int fd = socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0);

                TRY(fd);
                return 0;
        }
        if (strcmp(cmd, "kill") == 0) {
                NEED(1);
                TRY(kill((pid_t) atoi(a), SIGTERM));
                return 0;
        }
        /* Calls that act on a process named by pid (or a user's processes):
         * each tries to change the target; the test checks the target from
         * the host. */
        if (strcmp(cmd, "prlimit") == 0) {
                struct rlimit rl = { 3, 3 };

                NEED(1);
                TRY(prlimit((pid_t) atoi(a), RLIMIT_NOFILE, &rl, NULL));
                return 0;
        }
        if (strcmp(cmd, "setaffinity") == 0) {
                cpu_set_t set;

                int cpu = 0;

                NEED(1);
                /* the first CPU this process may use (CPU 0 may be outside
                 * the cpuset) */
                CPU_ZERO(&set);
                TRY(sched_getaffinity(0, sizeof(set), &set));
                while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
                        cpu++;
                CPU_ZERO(&set);
                CPU_SET(cpu, &set);
                TRY(sched_setaffinity((pid_t) atoi(a), sizeof(set), &set));
                return 0;
        }
        if (strcmp(cmd, "setscheduler") == 0) {
                struct sched_param sp = { 0 };

                NEED(1);
                TRY(sched_setscheduler((pid_t) atoi(a), SCHED_IDLE, &sp));
                return 0;
        }
        if (strcmp(cmd, "setattr") == 0) {
                uint32_t attr[14] = { 0 };      /* struct sched_attr, version 1 */

                NEED(1);
                attr[0] = sizeof(attr);
                attr[1] = SCHED_IDLE;
                TRY(syscall(SYS_sched_setattr, (pid_t) atoi(a), attr, 0));
                return 0;
        }
        if (strcmp(cmd, "setpriority") == 0) {
                NEED(2);        /* which who */
                TRY(setpriority(atoi(a), (id_t) atol(b), 19));
                return 0;
        }
        if (strcmp(cmd, "ioprio") == 0) {
                NEED(2);        /* which who; class IDLE (3) */
                TRY(syscall(SYS_ioprio_set, atoi(a), atoi(b), 3 << 13));
                return 0;
        }
        if (strcmp(cmd, "migrate") == 0) {
                unsigned long mask = 1;

                NEED(1);
                TRY(syscall(SYS_migrate_pages, (pid_t) atoi(a), 8 * sizeof(mask), &mask, &mask));
                return 0;
        }
        if (strcmp(cmd, "robust") == 0) {
                void *head = NULL;
                size_t len = 0;

                NEED(1);
                TRY(syscall(SYS_get_robust_list, (pid_t) atoi(a), &head, &len));
                return 0;
        }
        /* System V IPC and POSIX message queues of the host, by key/name. */
        if (strcmp(cmd, "shm") == 0) {
                char *m;
                int id;

                NEED(1);        /* key: attach, then overwrite */
                id = shmget((key_t) strtol(a, NULL, 0), 0, 0);
                TRY(id);
                m = shmat(id, NULL, 0);
                if (m == (void *) -1)
                        return fail();
                memcpy(m, "pwned", 5);
                return 0;
        }
        if (strcmp(cmd, "shm-rm") == 0) {
                int id;

                NEED(1);
                id = shmget((key_t) strtol(a, NULL, 0), 0, 0);
                TRY(id);
                TRY(shmctl(id, IPC_RMID, NULL));
                return 0;
        }
        if (strcmp(cmd, "shm-leave") == 0) {
                TRY(shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600));
                return 0;
        }
        if (strcmp(cmd, "msg") == 0) {
                struct { long type; char text[8]; } m = { 1, "pwned" };
                int id;

                NEED(1);
                id = msgget((key_t) strtol(a, NULL, 0), 0);
                TRY(id);
                TRY(msgsnd(id, &m, sizeof(m.text), IPC_NOWAIT));
                return 0;
        }
        if (strcmp(cmd, "sem") == 0) {
                struct sembuf op = { 0, -1, IPC_NOWAIT };
                int id;

                NEED(1);        /* take the host's semaphore */
                id = semget((key_t) strtol(a, NULL, 0), 0, 0);
                TRY(id);
                TRY(semop(id, &op, 1));
                return 0;
        }
        if (strcmp(cmd, "mq") == 0) {
                mqd_t q;

                NEED(1);
                q = mq_open(a, O_WRONLY | O_NONBLOCK);
                TRY(q);
                TRY(mq_send(q, "pwned", 5, 0));
                return 0;
        }
        if (strcmp(cmd, "open-w") == 0) {
                NEED(2);
                return open_w(a, atoi(b));
        }
        if (strcmp(cmd, "ptrace") == 0) {
                NEED(1);
                TRY(ptrace(PTRACE_ATTACH, (pid_t) atoi(a), NULL, NULL));
                return 0;
        }
        if (strcmp(cmd, "environ") == 0) {
                char path[64], buf[4096];
                ssize_t n;
                int fd;

                NEED(1);
                snprintf(path, sizeof(path), "/proc/%s/environ", a);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                TRY(fd);
                n = read(fd, buf, sizeof(buf));
                TRY(n);
                return n > 0 ? 0 : ENODATA;
        }
        if (strcmp(cmd, "tiocsti") == 0) {
                char c = 'x';
                int fd = a != NULL ? open(a, O_RDWR | O_CLOEXEC | O_NOCTTY) : 0;

                TRY(fd);
                TRY(ioctl(fd, TIOCSTI, &c));
                return 0;
        }
        if (strcmp(cmd, "tioclinux") == 0) {
                char sub = 6;

                TRY(ioctl(0, TIOCLINUX, &sub));
                return 0;
        }
        if (strcmp(cmd, "unshare-user") == 0) {
                TRY(unshare(CLONE_NEWUSER));
                return 0;
        }
        if (strcmp(cmd, "unshare-net") == 0) {
                TRY(unshare(CLONE_NEWNET));
                return 0;
        }
        if (strcmp(cmd, "mount") == 0) {
                NEED(1);
                TRY(mount("tmpfs", a, "tmpfs", 0, NULL));
                return 0;
        }
        if (strcmp(cmd, "keyctl") == 0) {
                TRY(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
                return 0;
        }
        if (strcmp(cmd, "bpf") == 0) {
                TRY(syscall(SYS_bpf, 0, NULL, 0));
                return 0;
        }
        if (strcmp(cmd, "io_uring") == 0) {
                char params[120] = { 0 };

                TRY(syscall(SYS_io_uring_setup, 1, params));
                return 0;
        }
        if (strcmp(cmd, "perf") == 0) {
                char attr[128] = { 0 };

                TRY(syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
                return 0;
        }
        if (strcmp(cmd, "userfaultfd") == 0) {
                TRY(syscall(SYS_userfaultfd, 0));
                return 0;
        }
        if (strcmp(cmd, "capeff") == 0) {
                /* Print the effective capability mask from /proc/self/status. */
                FILE *f = fopen("/proc/self/status", "re");
                char line[256];

                if (f == NULL)
                        return fail();
                while (fgets(line, sizeof(line), f) != NULL)
                        if (strncmp(line, "CapEff:", 7) == 0)
                                fputs(line + 7, stdout);
                fclose(f);
                return 0;
        }
        if (strcmp(cmd, "fchmodat2") == 0) {
                /* The raw fchmodat2 syscall (Linux 6.6), which libc may not
                 * expose; 452 on every architecture. */
                NEED(2);
                TRY(syscall(452, AT_FDCWD, a, (unsigned) strtol(b, NULL, 8), 0));
                return 0;
        }
        if (strcmp(cmd, "tmpfile-setuid") == 0) {
                /* An unnamed 04755 file in dir a, then linked in as b. */
                char proc[64];
                int fd;

                NEED(2);
                fd = open(a, O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
                TRY(fd);
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                TRY(linkat(AT_FDCWD, proc, AT_FDCWD, b, AT_SYMLINK_FOLLOW));
                return 0;
        }
        if (strcmp(cmd, "setcap") == 0) {
                /* A file capability (security.capability, VFS v2) granting
                 * CAP_SETUID: the setuid bit's modern twin. */
                struct { uint32_t magic; struct { uint32_t permitted, inheritable; } d[2]; } cap;

                NEED(1);
                memset(&cap, 0, sizeof(cap));
                cap.magic = 0x02000000u | 1u;   /* VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE */
                cap.d[0].permitted = 1u << 7;   /* CAP_SETUID */
                TRY(setxattr(a, "security.capability", &cap, sizeof(cap), 0));
                return 0;
        }
        if (strcmp(cmd, "fds") == 0)
                return list_fds();
        if (strcmp(cmd, "fstat") == 0) {
                /* "dev:ino" of an inherited fd. */
                struct stat st;

                NEED(1);
                if (fd_arg(a) < 0)
                        return 120;
                TRY(fstat(fd_arg(a), &st));
                printf("%lu:%lu\n", (unsigned long) st.st_dev, (unsigned long) st.st_ino);
                return 0;
        }
        if (strcmp(cmd, "openw") == 0) {
                /* Open for writing only: never writes a byte. */
                int fd;

                NEED(1);
                fd = open(a, O_WRONLY | O_CLOEXEC | O_NOCTTY);
                TRY(fd);
                close(fd);
                return 0;
        }
        if (strcmp(cmd, "tiocsti-fd") == 0) {
                NEED(1);
                return tty_ioctl(fd_arg(a), b, TIOCSTI);
        }
        if (strcmp(cmd, "tioclinux-fd") == 0) {
                NEED(1);
                return tty_ioctl(fd_arg(a), b, TIOCLINUX);
        }
        if (strcmp(cmd, "procstatus") == 0) {
                /* Print the value of one /proc/self/status field. */
                FILE *f = fopen("/proc/self/status", "re");
                char line[256];
                size_t n;
                int found = 0;

                NEED(1);
                if (f == NULL)
                        return fail();
                n = strlen(a);
                while (fgets(line, sizeof(line), f) != NULL)
                        if (strncmp(line, a, n) == 0 && line[n] == ':') {
                                fputs(line + n + 1 + strspn(line + n + 1, " \t"), stdout);
                                found = 1;
                        }
                fclose(f);
                return found ? 0 : ENOENT;
        }
        if (strcmp(cmd, "env") == 0) {
                extern char **environ;
                char **e;

                for (e = environ; *e != NULL; e++)
                        printf("%s\n", *e);
                return 0;
        }
        if (strcmp(cmd, "ls") == 0) {
                /* Entry names of a directory, "." and ".." left out. */
                DIR *d;
                struct dirent *de;

                NEED(1);
                d = opendir(a);
                if (d == NULL)
                        return fail();
                errno = 0;
                while ((de = readdir(d)) != NULL)
                        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                                printf("%s\n", de->d_name);
                closedir(d);
                return 0;
        }
        if (strcmp(cmd, "mkdir") == 0) {
                NEED(1);
                TRY(mkdir(a, 0755));
                return 0;
        }
        if (strcmp(cmd, "write-env") == 0) {
                /* write $VAR/NAME: a file in the directory an env var names. */
                const char *dir;
                char path[4096];

                NEED(2);
                dir = getenv(a);
                if (dir == NULL)
                        return ENOENT;
                if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, b) >= sizeof(path))
                        return 120;
                return write_file(path, O_CREAT | O_TRUNC, "sandbox\n");
        }
        if (strcmp(cmd, "getenv") == 0) {
                /* Print one variable; exit ENOENT if unset. */
                const char *v;

                NEED(1);
                v = getenv(a);
                if (v == NULL)
                        return ENOENT;
                printf("%s\n", v);
                return 0;
        }
        if (strcmp(cmd, "seccomp-listener") == 0) {
                /* A filter with a listener of our own: 0 if we got one,
                 * else the errno (EPERM: the deny list; EBUSY: ours). */
                struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
                struct sock_fprog prog = { 1, &allow };
                long fd;

                (void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                             SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
                return fd >= 0 ? 0 : fail();
        }
        if (strcmp(cmd, "fork") == 0) {
                NEED(1);
                return fork_many(atoi(a));
        }
        if (strcmp(cmd, "alloc") == 0) {
                NEED(1);
                return alloc_mb(atol(a));
        }
        if (strcmp(cmd, "alloc-tree") == 0) {
                NEED(2);
                return alloc_tree(atoi(a), atol(b));
        }
        if (strcmp(cmd, "exec") == 0) {
                NEED(1);
                execv(a, argv + 2);
                return fail();
        }
        return 120;
}
