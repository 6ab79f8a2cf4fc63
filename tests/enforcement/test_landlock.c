/*
 * test_landlock.c - enforcement tests for src/linux/landlock.c.
 *
 * Every test builds a ruleset in the test process, forks a child that calls
 * sbx__landlock_enforce_child() and then either performs system calls
 * directly (a small table of operations whose errnos come back through a
 * pipe) or execs /bin/sh, and the parent checks the effect from outside:
 * a file really absent or unchanged on disk, a listener that really saw no
 * connection, a process that is really still alive.  Each operation that
 * must be refused has a positive control that must succeed, so a refusal
 * is never an artefact of a wrong path.
 *
 * Landlock needs no privilege: CI runs these as root and as an
 * unprivileged user.  Without Landlock (or with an ABI too old for a test)
 * the test skips, or fails when SBX_REQUIRE_ALL=1.  Every wait is bounded.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <sandbox.h>
#include "linux/linux_internal.h"

#define R  SBX__FS_READ
#define W  SBX__FS_WRITE
#define X  SBX__FS_EXEC

#define WAIT_LIMIT_MS   20000   /* upper bound for any child to finish */
#define ORIGINAL        "original\n"
#define SIBLING_SUFFIX  "-sibling"

/* ------------------------------------------------------------ availability */

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* Skip (or fail with SBX_REQUIRE_ALL=1) unless the ABI is at least `abi`. */
static void require_abi(int abi, const char *what)
{
        int have = sbx__landlock_abi();

        if (have >= abi)
                return;
        if (require_all())
                fail_msg("%s needs Landlock ABI >= %d, the kernel has %d "
                         "(SBX_REQUIRE_ALL=1)", what, abi, have);
        print_message("[  SKIP    ] %s needs Landlock ABI >= %d, the kernel has %d\n",
                      what, abi, have);
        skip();
}

/* ----------------------------------------------------------------- fixture */

#define MAX_TRACKED 8

struct fx {
        char  base[PATH_MAX];   /* realpath of a mkdtemp dir under /tmp */
        char  ro[PATH_MAX];     /* base/ro: the read-only tree */
        char  rw[PATH_MAX];     /* base/rw: the writable tree */
        int   fds[MAX_TRACKED]; /* closed by teardown */
        pid_t pids[MAX_TRACKED];/* killed and reaped by teardown */
};

/* out = a + "/" + b (PATH_MAX bytes); -1 if it does not fit. */
static int join_path(char *out, const char *a, const char *b)
{
        int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

        return n > 0 && n < PATH_MAX ? 0 : -1;
}

static void join(char *out, const char *a, const char *b)
{
        assert_int_equal(join_path(out, a, b), 0);
}

static int write_file(const char *path, const char *text)
{
        size_t len = strlen(text), off = 0;
        int fd = -EBADF;

        do
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        while (fd < 0 && errno == EINTR);
        if (fd < 0)
                return -1;
        while (off < len) {
                ssize_t w = write(fd, text + off, len - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        (void) close(fd);
                        return -1;
                }
                off += (size_t) w;
        }
        return close(fd);
}

/* The whole content of a small file into buf, or -1. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
        size_t off = 0;
        int fd = -EBADF;

        do
                fd = open(path, O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd < 0)
                return -1;
        while (off + 1 < size) {
                ssize_t r = read(fd, buf + off, size - 1 - off);

                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        (void) close(fd);
                        return -1;
                }
                if (r == 0)
                        break;
                off += (size_t) r;
        }
        buf[off] = '\0';
        (void) close(fd);
        return (ssize_t) off;
}

static void assert_content(const char *path, const char *want)
{
        char buf[256];

        if (read_file(path, buf, sizeof(buf)) < 0)
                fail_msg("cannot read \"%s\": %s", path, strerror(errno));
        if (strcmp(buf, want) != 0)
                fail_msg("\"%s\" holds \"%s\", expected \"%s\"", path, buf, want);
}

static void assert_absent(const char *path)
{
        struct stat st;

        if (lstat(path, &st) == 0)
                fail_msg("\"%s\" exists (mode 0%o) but must not", path, (unsigned) st.st_mode);
        assert_int_equal(errno, ENOENT);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) ftw;
        if (flag == FTW_DP)
                (void) rmdir(path);
        else
                (void) unlink(path);
        return 0;
}

static void fx_track_fd(struct fx *f, int fd)
{
        size_t i;

        for (i = 0; i < MAX_TRACKED; i++)
                if (f->fds[i] < 0) {
                        f->fds[i] = fd;
                        return;
                }
        fail_msg("too many tracked fds");
}

static void fx_track_pid(struct fx *f, pid_t pid)
{
        size_t i;

        for (i = 0; i < MAX_TRACKED; i++)
                if (f->pids[i] <= 0) {
                        f->pids[i] = pid;
                        return;
                }
        fail_msg("too many tracked processes");
}

static int fx_setup(void **state)
{
        char tmpl[] = "/tmp/sbx-landlock-XXXXXX";
        char p[PATH_MAX];
        struct fx *f = calloc(1, sizeof(*f));
        size_t i;

        if (f == NULL)
                return -1;
        for (i = 0; i < MAX_TRACKED; i++) {
                f->fds[i] = -EBADF;
                f->pids[i] = -1;
        }
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, f->base) == NULL) {
                free(f);
                return -1;
        }
        if (join_path(f->ro, f->base, "ro") < 0 || join_path(f->rw, f->base, "rw") < 0 ||
            mkdir(f->ro, 0755) < 0 || mkdir(f->rw, 0755) < 0)
                goto fail;
        if (join_path(p, f->ro, "file") < 0 || write_file(p, ORIGINAL) < 0)
                goto fail;
        if (join_path(p, f->rw, "existing") < 0 || write_file(p, "rw data\n") < 0)
                goto fail;
        if (join_path(p, f->rw, "sub") < 0 || mkdir(p, 0755) < 0)
                goto fail;
        if (join_path(p, f->base, "secret") < 0 || write_file(p, "secret\n") < 0)
                goto fail;
        *state = f;
        return 0;
fail:
        (void) nftw(f->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(f);
        return -1;
}

static void reap_bounded(pid_t pid, int *status_out);

static int fx_teardown(void **state)
{
        struct fx *f = *state;
        size_t i;

        if (f == NULL)
                return 0;
        for (i = 0; i < MAX_TRACKED; i++) {
                if (f->fds[i] >= 0)
                        (void) close(f->fds[i]);
                if (f->pids[i] > 0) {
                        int status;

                        (void) kill(f->pids[i], SIGKILL);
                        while (waitpid(f->pids[i], &status, 0) < 0 && errno == EINTR)
                                ;
                }
        }
        (void) nftw(f->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        /* write_outside_every_rule_refused's target beside base, should a
         * broken sandbox have let the child create it */
        if (strlen(f->base) + sizeof(SIBLING_SUFFIX) <= sizeof(f->base)) {
                char sib[PATH_MAX];

                memcpy(sib, f->base, strlen(f->base) + 1);
                strcat(sib, SIBLING_SUFFIX);
                (void) unlink(sib);
        }
        free(f);
        return 0;
}

/* ------------------------------------------------------------------- rules */

#define MAX_RULES 24

struct ruleset {
        struct sbx__ll_rule r[MAX_RULES];
        size_t n;
};

static void rs_add(struct ruleset *rs, const char *path, uint32_t access, int tree)
{
        assert_true(rs->n < MAX_RULES);
        rs->r[rs->n].path = path;
        rs->r[rs->n].access = access;
        rs->r[rs->n].tree = tree;
        rs->n++;
}

/* base/ro readable, base/rw readable and writable; nothing else. */
static void rs_fixture(struct ruleset *rs, const struct fx *f)
{
        rs_add(rs, f->ro, R, 1);
        rs_add(rs, f->rw, R | W, 1);
}

/* What /bin/sh and coreutils need (used with SBX__LL_SKIP_MISSING). */
static void rs_runtime(struct ruleset *rs)
{
        static const char *const trees[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
                                             "/lib64", "/libx32", "/etc/ld.so.conf.d" };
        size_t i;

        for (i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
                rs_add(rs, trees[i], R | X, 1);
        rs_add(rs, "/etc/ld.so.cache", R, 0);
        rs_add(rs, "/etc/ld.so.conf", R, 0);
        rs_add(rs, "/dev/null", R | W, 0);
}

/* A ruleset fd (tracked by the fixture); fails the test otherwise. */
static int prepare(struct fx *f, const struct ruleset *rs, uint32_t opts)
{
        sbx_error err;
        uint32_t missing = 0xdeadbeefu;
        sbx_code rc;
        int fd = -EBADF;

        memset(&err, 0, sizeof(err));
        rc = sbx__landlock_prepare(rs->r, rs->n, opts, &fd, &missing, &err);
        if (rc != SBX_OK)
                fail_msg("sbx__landlock_prepare: %s: %s", sbx_code_name(rc), err.message);
        assert_true(fd > 2);
        assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
        assert_int_equal(missing & ~SBX_G_ALL, 0);
        /* ABI >= 6 knows every right and scope these tests ask for. */
        if (sbx__landlock_abi() >= 6)
                assert_int_equal(missing, 0);
        fx_track_fd(f, fd);
        return fd;
}

/* ------------------------------------------------------- bounded waiting */

static long ms_since(const struct timespec *t0)
{
        struct timespec now;

        (void) clock_gettime(CLOCK_MONOTONIC, &now);
        return (long) (now.tv_sec - t0->tv_sec) * 1000L +
               (long) (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* waitpid with an upper bound: a child that hangs is killed and fails. */
static void reap_bounded(pid_t pid, int *status_out)
{
        struct timespec t0, nap = { 0, 5 * 1000 * 1000 };
        int status = 0;
        pid_t r;
#ifdef SYS_pidfd_open
        /* Wake on the exit itself; without a pidfd, look every 5 ms. */
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
#else
        int pidfd = -1;
#endif

        (void) clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
                r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                        break;
                if (r < 0 && errno != EINTR)
                        fail_msg("waitpid(%d): %s", (int) pid, strerror(errno));
                if (ms_since(&t0) > WAIT_LIMIT_MS) {
                        (void) kill(pid, SIGKILL);
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
                        if (pidfd >= 0)
                                (void) close(pidfd);
                        fail_msg("child %d did not finish within %d ms", (int) pid,
                                 WAIT_LIMIT_MS);
                }
                if (pidfd >= 0) {
                        struct pollfd p = { pidfd, POLLIN, 0 };

                        (void) poll(&p, 1, WAIT_LIMIT_MS);
                } else {
                        (void) nanosleep(&nap, NULL);
                }
        }
        if (pidfd >= 0)
                (void) close(pidfd);
        *status_out = status;
}

/* Read until EOF (bounded); returns the number of bytes read. */
static size_t read_until_eof(int fd, void *buf, size_t size, pid_t pid)
{
        struct timespec t0;
        size_t off = 0;

        (void) clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
                struct pollfd p = { fd, POLLIN, 0 };
                char sink[64];
                ssize_t r;
                int n;

                if (ms_since(&t0) > WAIT_LIMIT_MS) {
                        int st;

                        (void) kill(pid, SIGKILL);
                        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                                ;
                        fail_msg("child %d wrote no EOF within %d ms", (int) pid,
                                 WAIT_LIMIT_MS);
                }
                n = poll(&p, 1, 100);
                if (n < 0 && errno == EINTR)
                        continue;
                assert_true(n >= 0);
                if (n == 0)
                        continue;
                if (off < size)
                        r = read(fd, (char *) buf + off, size - off);
                else
                        r = read(fd, sink, sizeof(sink));
                if (r < 0 && errno == EINTR)
                        continue;
                assert_true(r >= 0);
                if (r == 0)
                        return off;
                if (off < size)
                        off += (size_t) r;
        }
}

/* 1 if a connection (or datagram) arrives on fd within ms, else 0. */
static int arrives_within(int fd, int ms)
{
        struct pollfd p = { fd, POLLIN, 0 };
        int n;

        do
                n = poll(&p, 1, ms);
        while (n < 0 && errno == EINTR);
        assert_true(n >= 0);
        return n > 0;
}

/* ------------------------------------------------ operations in the child */

enum op_kind {
        OP_OPEN = 1,            /* a = path, n1 = flags; the fd is closed again */
        OP_MKDIR,               /* a = path */
        OP_UNLINK,              /* a = path */
        OP_RENAME,              /* a -> b */
        OP_LINK,                /* a -> b (hardlink b to a) */
        OP_SYMLINK,             /* b -> a (symlink b pointing at a) */
        OP_MKNOD,               /* a = path, n1 = mode, n2 = dev */
        OP_TRUNCATE,            /* a = path, to 0 bytes */
        OP_CHMOD,               /* a = path, n1 = mode */
        OP_UNIX_BIND,           /* a = path of a new unix socket */
        OP_TCP_CONNECT,         /* n1 = port on 127.0.0.1 */
        OP_TCP_BIND,            /* n1 = port on 127.0.0.1 (0 = any) */
        OP_ABSTRACT_CONNECT,    /* a = abstract name (stream) */
        OP_ABSTRACT_SENDTO,     /* a = abstract name (datagram) */
        OP_KILL,                /* n1 = pid (KILL_SELF, KILL_PARENT), n2 = signal */
        OP_NO_NEW_PRIVS,        /* 0 if no_new_privs is set */
        OP_IOCTL_TCGETS         /* a = path opened with n1 flags, then TCGETS */
};

#define KILL_SELF   (-2L)
#define KILL_PARENT (-3L)
#define ANY_ERRNO   (-2)        /* `want`: refused with any errno */

struct op {
        int         kind;
        const char *a;
        const char *b;
        long        n1;
        long        n2;
        int         want;       /* expected errno, 0 = success, ANY_ERRNO */
        int         alt;        /* another acceptable errno, or -1 */
};

#define OPEN_(p, fl, w)        { OP_OPEN, (p), NULL, (fl), 0, (w), -1 }
#define MKDIR_(p, w)           { OP_MKDIR, (p), NULL, 0, 0, (w), -1 }
#define UNLINK_(p, w)          { OP_UNLINK, (p), NULL, 0, 0, (w), -1 }
#define RENAME_(a, b, w, alt)  { OP_RENAME, (a), (b), 0, 0, (w), (alt) }
#define LINK_(a, b, w, alt)    { OP_LINK, (a), (b), 0, 0, (w), (alt) }
#define SYMLINK_(t, p, w)      { OP_SYMLINK, (t), (p), 0, 0, (w), -1 }
#define MKNOD_(p, m, d, w)     { OP_MKNOD, (p), NULL, (m), (long) (d), (w), -1 }
#define TRUNCATE_(p, w)        { OP_TRUNCATE, (p), NULL, 0, 0, (w), -1 }
#define CHMOD_(p, m, w, alt)   { OP_CHMOD, (p), NULL, (m), 0, (w), (alt) }
#define UNIX_BIND_(p, w)       { OP_UNIX_BIND, (p), NULL, 0, 0, (w), -1 }
#define TCP_CONNECT_(port, w)  { OP_TCP_CONNECT, NULL, NULL, (port), 0, (w), -1 }
#define TCP_BIND_(port, w)     { OP_TCP_BIND, NULL, NULL, (port), 0, (w), -1 }
#define ABS_CONNECT_(nm, w)    { OP_ABSTRACT_CONNECT, (nm), NULL, 0, 0, (w), -1 }
#define ABS_SENDTO_(nm, w)     { OP_ABSTRACT_SENDTO, (nm), NULL, 0, 0, (w), -1 }
#define KILL_(pid, sig, w)     { OP_KILL, NULL, NULL, (long) (pid), (sig), (w), -1 }
#define NNP_()                 { OP_NO_NEW_PRIVS, NULL, NULL, 0, 0, 0, -1 }
#define TCGETS_(p, fl, w)      { OP_IOCTL_TCGETS, (p), NULL, (fl), 0, (w), -1 }

#define ERR_OF(expr) ((expr) < 0 ? errno : 0)

static const char *op_name(int kind)
{
        static const char *const names[] = {
                "?", "open", "mkdir", "unlink", "rename", "link", "symlink", "mknod",
                "truncate", "chmod", "bind(unix path)", "connect(tcp)", "bind(tcp)",
                "connect(abstract)", "sendto(abstract)", "kill", "no_new_privs",
                "ioctl(TCGETS)",
        };

        return kind > 0 && (size_t) kind < sizeof(names) / sizeof(names[0]) ? names[kind]
                                                                           : "?";
}

static void loopback(struct sockaddr_in *sa, long port)
{
        memset(sa, 0, sizeof(*sa));
        sa->sin_family = AF_INET;
        sa->sin_port = htons((uint16_t) port);
        sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *name)
{
        size_t len = strlen(name);

        memset(sa, 0, sizeof(*sa));
        sa->sun_family = AF_UNIX;
        if (len > sizeof(sa->sun_path) - 1)
                len = sizeof(sa->sun_path) - 1;
        memcpy(sa->sun_path + 1, name, len);    /* sun_path[0] = '\0': abstract */
        return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/* Runs in the confined child: async-signal-safe calls only. */
static int op_run(const struct op *op)
{
        struct sockaddr_in sin;
        struct sockaddr_un sun;
        socklen_t len;
        int fd, e;

        switch ((enum op_kind) op->kind) {
        case OP_OPEN:
                fd = open(op->a, (int) op->n1 | O_CLOEXEC, 0644);
                if (fd < 0)
                        return errno;
                (void) close(fd);
                return 0;
        case OP_MKDIR:
                return ERR_OF(mkdir(op->a, 0755));
        case OP_UNLINK:
                return ERR_OF(unlink(op->a));
        case OP_RENAME:
                return ERR_OF(rename(op->a, op->b));
        case OP_LINK:
                return ERR_OF(link(op->a, op->b));
        case OP_SYMLINK:
                return ERR_OF(symlink(op->a, op->b));
        case OP_MKNOD:
                return ERR_OF(mknod(op->a, (mode_t) op->n1, (dev_t) op->n2));
        case OP_TRUNCATE:
                return ERR_OF(truncate(op->a, 0));
        case OP_CHMOD:
                return ERR_OF(chmod(op->a, (mode_t) op->n1));
        case OP_UNIX_BIND:
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        return errno;
                memset(&sun, 0, sizeof(sun));
                sun.sun_family = AF_UNIX;
                if (strlen(op->a) >= sizeof(sun.sun_path)) {
                        (void) close(fd);
                        return ENAMETOOLONG;
                }
                memcpy(sun.sun_path, op->a, strlen(op->a));
                e = ERR_OF(bind(fd, (struct sockaddr *) &sun, sizeof(sun)));
                (void) close(fd);
                return e;
        case OP_TCP_CONNECT:
        case OP_TCP_BIND:
                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        return errno;
                loopback(&sin, op->n1);
                if (op->kind == OP_TCP_CONNECT)
                        e = ERR_OF(connect(fd, (struct sockaddr *) &sin, sizeof(sin)));
                else
                        e = ERR_OF(bind(fd, (struct sockaddr *) &sin, sizeof(sin)));
                (void) close(fd);
                return e;
        case OP_ABSTRACT_CONNECT:
        case OP_ABSTRACT_SENDTO:
                fd = socket(AF_UNIX, (op->kind == OP_ABSTRACT_CONNECT ? SOCK_STREAM
                                                                      : SOCK_DGRAM) |
                                     SOCK_CLOEXEC, 0);
                if (fd < 0)
                        return errno;
                len = abstract_addr(&sun, op->a);
                if (op->kind == OP_ABSTRACT_CONNECT)
                        e = ERR_OF(connect(fd, (struct sockaddr *) &sun, len));
                else
                        e = ERR_OF(sendto(fd, "x", 1, 0, (struct sockaddr *) &sun, len));
                (void) close(fd);
                return e;
        case OP_KILL:
                return ERR_OF(kill(op->n1 == KILL_SELF ? getpid()
                                   : op->n1 == KILL_PARENT ? getppid() : (pid_t) op->n1,
                                   (int) op->n2));
        case OP_NO_NEW_PRIVS:
                return prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) == 1 ? 0 : EPROTO;
        case OP_IOCTL_TCGETS: {
                struct termios t;

                fd = open(op->a, (int) op->n1 | O_CLOEXEC);
                if (fd < 0)
                        return EBADF;   /* distinct from what the ioctl gives */
                e = ERR_OF(ioctl(fd, TCGETS, &t));
                (void) close(fd);
                return e;
        }
        }
        return EPROTO;
}

#define MAX_OPS 24

/*
 * Fork, confine the child with ruleset_fd (after adding a tree rule for
 * add_path with sbx__landlock_add_child, when add_path is not NULL), run
 * ops[0..n) there and check every errno against its expectation.
 */
static void run_ops_ex(int ruleset_fd, const char *add_path, uint32_t add_access,
                       const struct op *ops, size_t n)
{
        int res[1 + MAX_OPS];
        int p[2] = { -EBADF, -EBADF };
        size_t got, i;
        pid_t pid;
        int status;

        assert_true(n <= MAX_OPS);
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int out[1 + MAX_OPS];
                size_t off = 0, len;

                (void) close(p[0]);
                out[0] = add_path != NULL
                                 ? sbx__landlock_add_child(ruleset_fd, add_path, add_access)
                                 : 0;
                if (out[0] == 0)
                        out[0] = sbx__landlock_enforce_child(ruleset_fd);
                len = sizeof(int);
                if (out[0] == 0) {
                        for (i = 0; i < n; i++)
                                out[1 + i] = op_run(&ops[i]);
                        len += n * sizeof(int);
                }
                while (off < len) {
                        ssize_t w = write(p[1], (char *) out + off, len - off);

                        if (w < 0 && errno == EINTR)
                                continue;
                        if (w <= 0)
                                _exit(3);
                        off += (size_t) w;
                }
                _exit(0);
        }
        (void) close(p[1]);
        got = read_until_eof(p[0], res, sizeof(res), pid);
        (void) close(p[0]);
        reap_bounded(pid, &status);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("probe child ended with status 0x%x", (unsigned) status);
        assert_true(got >= sizeof(int));
        if (res[0] != 0)
                fail_msg("sbx__landlock_%s_child: %s", add_path ? "add/enforce" : "enforce",
                         strerror(-res[0]));
        assert_int_equal(got, (1 + n) * sizeof(int));
        for (i = 0; i < n; i++) {
                const struct op *op = &ops[i];
                int e = res[1 + i];
                int ok = op->want == ANY_ERRNO ? e != 0 : (e == op->want || e == op->alt);

                if (!ok)
                        fail_msg("op %zu %s(%s%s%s): got %s (%d), expected %s%s%s",
                                 i, op_name(op->kind), op->a ? op->a : "",
                                 op->b ? ", " : "", op->b ? op->b : "",
                                 e ? strerror(e) : "success", e,
                                 op->want == ANY_ERRNO ? "a refusal"
                                 : op->want ? strerror(op->want) : "success",
                                 op->alt >= 0 ? " or " : "",
                                 op->alt >= 0 ? strerror(op->alt) : "");
        }
}

static void run_ops(int ruleset_fd, const struct op *ops, size_t n)
{
        run_ops_ex(ruleset_fd, NULL, 0, ops, n);
}

/*
 * Fork, confine, exec /bin/sh -c script; returns its exit status.  The
 * child reports a failed confinement or exec through a CLOEXEC pipe (EOF
 * means the confined exec happened), so a refusal can never be mistaken
 * for a broken harness.
 */
static int run_sh(int ruleset_fd, const char *script)
{
        char *const argv[] = { (char *) "sh", (char *) "-c", (char *) script, NULL };
        char *const envp[] = { (char *) "PATH=/usr/bin:/bin", (char *) "LC_ALL=C", NULL };
        int p[2] = { -EBADF, -EBADF };
        int report[2];
        size_t got;
        pid_t pid;
        int status;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int r;

                (void) close(p[0]);
                r = sbx__landlock_enforce_child(ruleset_fd);
                if (r == 0) {
                        (void) execve("/bin/sh", argv, envp);
                        report[0] = 2;
                        report[1] = errno;
                } else {
                        report[0] = 1;
                        report[1] = -r;
                }
                if (write(p[1], report, sizeof(report)) < 0)
                        _exit(126);
                _exit(127);
        }
        (void) close(p[1]);
        got = read_until_eof(p[0], report, sizeof(report), pid);
        (void) close(p[0]);
        reap_bounded(pid, &status);
        if (got != 0)
                fail_msg("confined child failed before running the script: %s: %s",
                         report[0] == 1 ? "enforce" : "execve", strerror(report[1]));
        if (!WIFEXITED(status))
                fail_msg("sh ended with status 0x%x", (unsigned) status);
        return WEXITSTATUS(status);
}

/* -------------------------------------------------------------- the tests */

static void test_landlock__abi_is_detected(void **state)
{
        const char *want = getenv("SBX_TEST_LANDLOCK_ABI");
        long raw = syscall(SYS_landlock_create_ruleset, NULL, (size_t) 0, (uint32_t) 1);
        int abi = sbx__landlock_abi();

        (void) state;
        if (raw <= 0)
                assert_int_equal(abi, 0);
        require_abi(1, "Landlock");
        assert_int_equal(abi, raw);
        assert_int_equal(sbx__landlock_abi(), abi);     /* cached, stable */
        print_message("Landlock ABI %d\n", abi);
        if (want != NULL)
                assert_int_equal(abi, atoi(want));
}

static void test_landlock__prepare_rejects_bad_arguments(void **state)
{
        static const struct {
                const char *path;
                uint32_t    access;
                int         tree;
        } bad[] = {
                { "relative/path",  R,        1 },
                { "",               R,        1 },
                { "/tmp/../etc",    R,        1 },
                { "/tmp/./x",       R,        1 },
                { "/tmp//x",        R,        1 },
                { "/tmp/",          R,        1 },
                { "/tmp",           R | 8u,   1 },
                { "/tmp",           R,        2 },
        };
        struct sbx__ll_rule rule;
        struct sbx__ll_rule dup[2] = { { "/tmp", R, 1, 0 }, { "/tmp", R | W, 1, 0 } };
        sbx_error err;
        uint32_t missing = 0xabcdu;
        int fd = 1234;
        size_t i;

        (void) state;
        memset(&err, 0, sizeof(err));
        assert_int_equal(sbx__landlock_prepare(NULL, 0, 0, NULL, &missing, &err),
                         SBX_E_INVALID);
        assert_int_equal(sbx__landlock_prepare(NULL, 0, 0, &fd, NULL, &err), SBX_E_INVALID);
        assert_int_equal(sbx__landlock_prepare(NULL, 1, 0, &fd, &missing, &err),
                         SBX_E_INVALID);
        assert_int_equal(sbx__landlock_prepare(NULL, 0, 1u << 20, &fd, &missing, &err),
                         SBX_E_INVALID);
        assert_int_equal(err.code, SBX_E_INVALID);
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                rule.path = bad[i].path;
                rule.access = bad[i].access;
                rule.tree = bad[i].tree;
                memset(&err, 0, sizeof(err));
                if (sbx__landlock_prepare(&rule, 1, 0, &fd, &missing, &err) != SBX_E_INVALID)
                        fail_msg("rule \"%s\" 0x%x tree %d was accepted", bad[i].path,
                                 bad[i].access, bad[i].tree);
                assert_int_equal(err.code, SBX_E_INVALID);
                assert_non_null(strstr(err.message, bad[i].path));
        }
        rule.path = NULL;
        assert_int_equal(sbx__landlock_prepare(&rule, 1, 0, &fd, &missing, &err),
                         SBX_E_INVALID);
        assert_int_equal(sbx__landlock_prepare(dup, 2, 0, &fd, &missing, &err),
                         SBX_E_INVALID);
        assert_non_null(strstr(err.message, "/tmp"));
        /* Outputs are written only on success. */
        assert_int_equal(fd, 1234);
        assert_int_equal(missing, 0xabcdu);
}

static int count_open_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        assert_non_null(d);
        while ((de = readdir(d)) != NULL)
                if (de->d_name[0] != '.')
                        n++;
        (void) closedir(d);
        return n;
}

static void test_landlock__prepare_closes_fds_and_reports_nothing_missing(void **state)
{
        struct fx *f = *state;
        struct ruleset rs = { .n = 0 };
        sbx_error err;
        uint32_t missing = 0xabcdu;
        int before, fd = -EBADF;
        sbx_code rc;

        require_abi(1, "Landlock");
        rs_fixture(&rs, f);
        rs_runtime(&rs);
        before = count_open_fds();
        memset(&err, 0, sizeof(err));
        rc = sbx__landlock_prepare(rs.r, rs.n,
                                   SBX__LL_SKIP_MISSING | SBX__LL_NET_DENY |
                                           SBX__LL_SCOPE_ABSTRACT | SBX__LL_SCOPE_SIGNAL,
                                   &fd, &missing, &err);
        if (rc != SBX_OK)
                fail_msg("%s: %s", sbx_code_name(rc), err.message);
        assert_true(fd > 2);
        assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
        assert_int_equal(count_open_fds(), before + 1);        /* the ruleset only */
        (void) close(fd);
        assert_int_equal(count_open_fds(), before);
        /* Exactly what the ABI lacks (landlock.c documents the mapping). */
        {
                int abi = sbx__landlock_abi();
                uint32_t want = 0;

                if (abi < 5)
                        want |= SBX_G_WRITE_BOUNDARY;
                if (abi < 6)
                        want |= SBX_G_NETWORK_DENY | SBX_G_PROCESS_ISOLATION;
                assert_int_equal(missing, want);
        }
}

static void test_landlock__nested_narrower_rule_is_reported(void **state)
{
        struct fx *f = *state;
        char sub[PATH_MAX], hidden[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        sbx_error err;
        uint32_t missing = 0;
        int fd = -EBADF;

        require_abi(1, "Landlock");
        join(sub, f->rw, "sub");
        join(hidden, f->ro, "file");
        /* A read-only rule inside the writable tree (like .git/hooks in a
         * workspace) and an access-0 carve-out inside the readable tree:
         * Landlock rights are a union, neither can be enforced. */
        rs_fixture(&rs, f);
        rs_add(&rs, sub, R, 1);
        rs_add(&rs, hidden, 0, 0);
        memset(&err, 0, sizeof(err));
        assert_int_equal(sbx__landlock_prepare(rs.r, rs.n, 0, &fd, &missing, &err), SBX_OK);
        fx_track_fd(f, fd);
        assert_true((missing & SBX_G_WRITE_BOUNDARY) != 0);
        assert_true((missing & SBX_G_PROTECTED_PATHS) != 0);
        assert_true((missing & SBX_G_READ_BOUNDARY) != 0);
        assert_true((missing & SBX_G_HOME_ISOLATION) != 0);

        /* Only the write-narrowing: no read guarantee is lost. */
        rs.n = 3;
        assert_int_equal(sbx__landlock_prepare(rs.r, rs.n, 0, &fd, &missing, &err), SBX_OK);
        fx_track_fd(f, fd);
        assert_true((missing & (SBX_G_WRITE_BOUNDARY | SBX_G_PROTECTED_PATHS)) ==
                    (SBX_G_WRITE_BOUNDARY | SBX_G_PROTECTED_PATHS));
        assert_int_equal(missing & (SBX_G_READ_BOUNDARY | SBX_G_HOME_ISOLATION), 0);

        /* A nested rule that does not exist counts too: the child could
         * create the path and it would get the tree's rights. */
        join(sub, f->rw, "not-yet");
        rs.n = 2;
        rs_add(&rs, sub, R, 1);
        assert_int_equal(sbx__landlock_prepare(rs.r, rs.n, SBX__LL_SKIP_MISSING, &fd, &missing,
                                               &err), SBX_OK);
        fx_track_fd(f, fd);
        assert_true((missing & SBX_G_PROTECTED_PATHS) != 0);

        /* Without the nested rules nothing is missing (on ABI >= 5). */
        rs.n = 2;
        assert_int_equal(sbx__landlock_prepare(rs.r, rs.n, 0, &fd, &missing, &err), SBX_OK);
        fx_track_fd(f, fd);
        if (sbx__landlock_abi() >= 5)
                assert_int_equal(missing, 0);
}

static void test_landlock__missing_rule_path(void **state)
{
        struct fx *f = *state;
        char gone[PATH_MAX], ro_file[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        sbx_error err;
        uint32_t missing = 0xabcdu;
        int before, fd = 1234;

        require_abi(1, "Landlock");
        join(gone, f->base, "does-not-exist");
        join(ro_file, f->ro, "file");
        rs_fixture(&rs, f);
        rs_add(&rs, gone, R | W, 1);

        before = count_open_fds();
        memset(&err, 0, sizeof(err));
        assert_int_equal(sbx__landlock_prepare(rs.r, rs.n, 0, &fd, &missing, &err), SBX_E_IO);
        assert_int_equal(err.code, SBX_E_IO);
        assert_int_equal(err.sys_errno, ENOENT);
        if (strstr(err.message, gone) == NULL)
                fail_msg("message \"%s\" does not name \"%s\"", err.message, gone);
        assert_int_equal(fd, 1234);
        assert_int_equal(missing, 0xabcdu);
        assert_int_equal(count_open_fds(), before);    /* ruleset and rule fds closed */

        /* Skipped with SKIP_MISSING, and the skipped path is not writable:
         * the child cannot create it. */
        fd = prepare(f, &rs, SBX__LL_SKIP_MISSING);
        {
                const struct op ops[] = {
                        MKDIR_(gone, EACCES),
                        OPEN_(gone, O_WRONLY | O_CREAT, EACCES),
                        OPEN_(ro_file, O_RDONLY, 0),
                };

                run_ops(fd, ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(gone);
}

static void test_landlock__no_new_privs_is_set(void **state)
{
        struct fx *f = *state;
        struct ruleset rs = { .n = 0 };
        const struct op ops[] = { NNP_() };

        require_abi(1, "Landlock");
        rs_fixture(&rs, f);
        run_ops(prepare(f, &rs, 0), ops, 1);
}

static void test_landlock__enforce_child_rejects_a_bad_fd(void **state)
{
        int p[2] = { -EBADF, -EBADF };
        int r = 0;
        pid_t pid;
        int status;

        (void) state;
        assert_int_equal(sbx__landlock_enforce_child(-1), -EBADF);
        require_abi(1, "Landlock");
        /* A valid fd that is not a ruleset: refused, never a no-op success. */
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                r = sbx__landlock_enforce_child(p[0]);
                _exit(write(p[1], &r, sizeof(r)) == (ssize_t) sizeof(r) ? 0 : 3);
        }
        (void) close(p[1]);
        assert_int_equal(read_until_eof(p[0], &r, sizeof(r), pid), sizeof(r));
        (void) close(p[0]);
        reap_bounded(pid, &status);
        assert_true(r < 0);
}

/* A tree rule added in the child (as after mounting a tmpfs there). */
static void test_landlock__add_child_allows_one_more_tree(void **state)
{
        struct fx *f = *state;
        char extra[PATH_MAX], inside[PATH_MAX], outside[PATH_MAX], gone[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        int fd, p[2] = { -EBADF, -EBADF }, r[4] = { 0, 0, 0, 0 };
        pid_t pid;
        int status;

        require_abi(1, "Landlock");
        join(extra, f->base, "extra");
        join(inside, f->base, "extra/new");
        join(outside, f->base, "outside");
        join(gone, f->base, "does-not-exist");
        assert_int_equal(mkdir(extra, 0755), 0);
        rs_fixture(&rs, f);
        fd = prepare(f, &rs, 0);
        {
                const struct op ops[] = {
                        OPEN_(inside, O_WRONLY | O_CREAT | O_EXCL, 0),
                        OPEN_(outside, O_WRONLY | O_CREAT | O_EXCL, EACCES),
                };

                run_ops_ex(fd, extra, R | W, ops, 2);
        }
        assert_content(inside, "");
        assert_absent(outside);

        /* Bad arguments and a missing path are errors, never a silent
         * success (the caller fails the spawn). */
        assert_int_equal(sbx__landlock_add_child(-1, extra, R), -EBADF);
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int out[4];

                out[0] = sbx__landlock_add_child(fd, "relative", R);
                out[1] = sbx__landlock_add_child(fd, extra, 8u);
                out[2] = sbx__landlock_add_child(fd, gone, R);
                out[3] = sbx__landlock_add_child(fd, extra, 0);
                _exit(write(p[1], out, sizeof(out)) == (ssize_t) sizeof(out) ? 0 : 3);
        }
        (void) close(p[1]);
        assert_int_equal(read_until_eof(p[0], r, sizeof(r), pid), sizeof(r));
        (void) close(p[0]);
        reap_bounded(pid, &status);
        assert_int_equal(r[0], -EINVAL);
        assert_int_equal(r[1], -EINVAL);
        assert_int_equal(r[2], -ENOENT);
        assert_int_equal(r[3], 0);
}

static void test_landlock__write_into_ro_tree_refused(void **state)
{
        struct fx *f = *state;
        char file[PATH_MAX], nw[PATH_MAX], dir[PATH_MAX], sl[PATH_MAX], rwf[PATH_MAX];
        struct ruleset rs = { .n = 0 };

        require_abi(1, "Landlock");
        join(file, f->ro, "file");
        join(nw, f->ro, "new");
        join(dir, f->ro, "dir");
        join(sl, f->ro, "sl");
        join(rwf, f->rw, "control");
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        OPEN_(file, O_RDONLY, 0),                       /* control */
                        OPEN_(rwf, O_WRONLY | O_CREAT, 0),              /* control */
                        OPEN_(nw, O_WRONLY | O_CREAT | O_EXCL, EACCES),
                        OPEN_(file, O_WRONLY, EACCES),
                        OPEN_(file, O_RDWR | O_APPEND, EACCES),
                        MKDIR_(dir, EACCES),
                        SYMLINK_("file", sl, EACCES),
                        UNLINK_(file, EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(nw);
        assert_absent(dir);
        assert_absent(sl);
        assert_content(file, ORIGINAL);
}

static void test_landlock__write_outside_every_rule_refused(void **state)
{
        struct fx *f = *state;
        char out[PATH_MAX], dir[PATH_MAX], secret[PATH_MAX], tmp[PATH_MAX];
        struct ruleset rs = { .n = 0 };

        require_abi(1, "Landlock");
        join(out, f->base, "outside");
        join(dir, f->base, "outside-dir");
        join(secret, f->base, "secret");
        assert_true(snprintf(tmp, sizeof(tmp), "%s" SIBLING_SUFFIX, f->base) <
                    (int) sizeof(tmp));
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        OPEN_(out, O_WRONLY | O_CREAT | O_EXCL, EACCES),
                        OPEN_(secret, O_WRONLY, EACCES),
                        OPEN_(tmp, O_WRONLY | O_CREAT | O_EXCL, EACCES),
                        MKDIR_(dir, EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(tmp);
        assert_absent(out);
        assert_absent(dir);
        assert_content(secret, "secret\n");
}

static void test_landlock__read_outside_every_rule_refused(void **state)
{
        struct fx *f = *state;
        char secret[PATH_MAX], ro_file[PATH_MAX], rw_file[PATH_MAX];
        struct ruleset rs = { .n = 0 };

        require_abi(1, "Landlock");
        join(secret, f->base, "secret");
        join(ro_file, f->ro, "file");
        join(rw_file, f->rw, "existing");
        rs_fixture(&rs, f);     /* no host-read rule */
        {
                const struct op ops[] = {
                        OPEN_(ro_file, O_RDONLY, 0),                    /* control */
                        OPEN_(rw_file, O_RDONLY, 0),                    /* control */
                        OPEN_(f->ro, O_RDONLY | O_DIRECTORY, 0),        /* control */
                        OPEN_(secret, O_RDONLY, EACCES),
                        OPEN_(f->base, O_RDONLY | O_DIRECTORY, EACCES),
                        OPEN_("/etc/passwd", O_RDONLY, EACCES),
                        OPEN_("/etc", O_RDONLY | O_DIRECTORY, EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
}

static void test_landlock__truncate_of_readable_file_refused(void **state)
{
        struct fx *f = *state;
        char file[PATH_MAX], rwf[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        struct stat st;

        require_abi(3, "truncate control");
        join(file, f->ro, "file");
        join(rwf, f->rw, "existing");
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        OPEN_(file, O_RDONLY, 0),                       /* control */
                        TRUNCATE_(file, EACCES),
                        OPEN_(file, O_RDONLY | O_TRUNC, EACCES),
                        OPEN_(file, O_WRONLY | O_TRUNC, EACCES),
                        TRUNCATE_(rwf, 0),                              /* control */
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_content(file, ORIGINAL);
        assert_int_equal(stat(rwf, &st), 0);
        assert_int_equal(st.st_size, 0);
}

static void test_landlock__rename_and_link_across_trees_refused(void **state)
{
        struct fx *f = *state;
        char ro_file[PATH_MAX], ro_moved[PATH_MAX], ro_linked[PATH_MAX];
        char rw_file[PATH_MAX], rw_stolen[PATH_MAX], rw_hard[PATH_MAX], rw_sym[PATH_MAX];
        char rw_sub_moved[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        struct stat st;

        require_abi(2, "rename/link control (REFER)");
        join(ro_file, f->ro, "file");
        join(ro_moved, f->ro, "moved");
        join(ro_linked, f->ro, "linked");
        join(rw_file, f->rw, "existing");
        join(rw_stolen, f->rw, "stolen");
        join(rw_hard, f->rw, "hardlink");
        join(rw_sym, f->rw, "symlink");
        join(rw_sub_moved, f->rw, "sub/moved");
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        /* rw -> ro: ro grants neither MAKE_REG nor REFER. */
                        RENAME_(rw_file, ro_moved, EACCES, EXDEV),
                        LINK_(rw_file, ro_linked, EACCES, EXDEV),
                        /* ro -> rw: ro grants neither REMOVE_FILE nor REFER,
                         * and rw would widen the file's rights. */
                        RENAME_(ro_file, rw_stolen, EACCES, EXDEV),
                        LINK_(ro_file, rw_hard, EXDEV, EACCES),
                        /* the hardlink was never planted, so nothing to write */
                        OPEN_(rw_hard, O_WRONLY, ENOENT),
                        /* a symlink may be planted, but it writes nothing:
                         * Landlock checks the file it resolves to */
                        SYMLINK_(ro_file, rw_sym, 0),
                        OPEN_(rw_sym, O_WRONLY, EACCES),
                        OPEN_(rw_sym, O_WRONLY | O_TRUNC, EACCES),
                        /* control: renames between writable directories work */
                        RENAME_(rw_file, rw_sub_moved, 0, -1),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(ro_moved);
        assert_absent(ro_linked);
        assert_absent(rw_stolen);
        assert_absent(rw_hard);
        assert_content(ro_file, ORIGINAL);
        assert_int_equal(stat(ro_file, &st), 0);
        assert_int_equal(st.st_nlink, 1);
        assert_content(rw_sub_moved, "rw data\n");
}

static void test_landlock__special_files_in_ro_refused(void **state)
{
        struct fx *f = *state;
        char ro_fifo[PATH_MAX], ro_sock[PATH_MAX], rw_fifo[PATH_MAX], rw_sock[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        struct stat st;

        require_abi(1, "Landlock");
        join(ro_fifo, f->ro, "fifo");
        join(ro_sock, f->ro, "sock");
        join(rw_fifo, f->rw, "fifo");
        join(rw_sock, f->rw, "sock");
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        MKNOD_(ro_fifo, S_IFIFO | 0600, 0, EACCES),
                        UNIX_BIND_(ro_sock, EACCES),
                        MKNOD_(rw_fifo, S_IFIFO | 0600, 0, 0),          /* control */
                        UNIX_BIND_(rw_sock, 0),                         /* control */
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(ro_fifo);
        assert_absent(ro_sock);
        assert_int_equal(lstat(rw_fifo, &st), 0);
        assert_true(S_ISFIFO(st.st_mode));
        assert_int_equal(lstat(rw_sock, &st), 0);
        assert_true(S_ISSOCK(st.st_mode));
}

static void test_landlock__device_nodes_refused_even_in_rw(void **state)
{
        struct fx *f = *state;
        char rw_chr[PATH_MAX], rw_blk[PATH_MAX], ro_chr[PATH_MAX];
        struct ruleset rs = { .n = 0 };

        require_abi(1, "Landlock");
        join(rw_chr, f->rw, "null2");
        join(rw_blk, f->rw, "loop0");
        join(ro_chr, f->ro, "null2");
        rs_fixture(&rs, f);
        {
                /* EACCES, not EPERM: Landlock refuses before the CAP_MKNOD
                 * check, so this holds for root too. */
                const struct op ops[] = {
                        MKNOD_(rw_chr, S_IFCHR | 0666, makedev(1, 3), EACCES),
                        MKNOD_(rw_blk, S_IFBLK | 0600, makedev(7, 0), EACCES),
                        MKNOD_(ro_chr, S_IFCHR | 0666, makedev(1, 3), EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_absent(rw_chr);
        assert_absent(rw_blk);
        assert_absent(ro_chr);
}

/*
 * Landlock does not control chmod/chown/utimes/xattrs (rung 1's read-only
 * bind mounts and seccomp have to).  What it does guarantee is that a mode
 * change never opens the file for writing: the write boundary is by path,
 * not by mode bits.
 */
static void test_landlock__chmod_in_ro_does_not_open_writes(void **state)
{
        struct fx *f = *state;
        char file[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        struct stat st;

        require_abi(1, "Landlock");
        join(file, f->ro, "file");
        assert_int_equal(chmod(file, 0444), 0);
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        /* success today: Landlock has no right for chmod */
                        CHMOD_(file, 0666, 0, EACCES),
                        OPEN_(file, O_WRONLY, EACCES),
                        OPEN_(file, O_RDWR, EACCES),
                        TRUNCATE_(file, EACCES),        /* ABI >= 3 only */
                };
                size_t n = sizeof(ops) / sizeof(ops[0]);

                run_ops(prepare(f, &rs, 0), ops, sbx__landlock_abi() >= 3 ? n : n - 1);
        }
        assert_int_equal(stat(file, &st), 0);
        print_message("chmod inside the domain %s (Landlock does not control chmod)\n",
                      (st.st_mode & 07777) == 0666 ? "succeeded" : "was refused");
        assert_content(file, ORIGINAL);
}

static void test_landlock__exact_rules(void **state)
{
        struct fx *f = *state;
        char secret[PATH_MAX], sibling[PATH_MAX], ro_file[PATH_MAX];
        struct ruleset rs = { .n = 0 };

        require_abi(1, "Landlock");
        join(secret, f->base, "secret");
        join(sibling, f->base, "sibling");
        join(ro_file, f->ro, "file");
        assert_int_equal(write_file(sibling, "sibling\n"), 0);
        rs_add(&rs, secret, R, 0);              /* one file, read-only */
        rs_add(&rs, "/dev/null", R | W, 0);     /* a device, writable */
        rs_add(&rs, f->ro, R, 0);               /* exact on a directory: nothing */
        {
                const struct op ops[] = {
                        OPEN_(secret, O_RDONLY, 0),
                        OPEN_(secret, O_WRONLY, EACCES),
                        OPEN_(sibling, O_RDONLY, EACCES),
                        OPEN_("/dev/null", O_WRONLY, 0),
                        OPEN_("/dev/zero", O_RDONLY, EACCES),
                        OPEN_(f->ro, O_RDONLY | O_DIRECTORY, EACCES),
                        OPEN_(ro_file, O_RDONLY, EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
        assert_content(secret, "secret\n");
}

/*
 * Device ioctls (ABI 5) only on a rule that names a character device and
 * grants WRITE.  TCGETS on /dev/null or /dev/zero is ENOTTY from the driver
 * when the ioctl is allowed, EACCES when Landlock refuses it.
 */
static void test_landlock__device_ioctl_only_on_writable_exact_device(void **state)
{
        struct fx *f = *state;
        struct ruleset rs = { .n = 0 };

        require_abi(5, "device ioctl control");
        rs_add(&rs, "/dev", R, 1);              /* host read of /dev: no ioctls */
        rs_add(&rs, "/dev/null", R | W, 0);     /* exact, writable: ioctls */
        rs_add(&rs, "/dev/full", R, 0);         /* exact, read-only: none */
        {
                const struct op ops[] = {
                        TCGETS_("/dev/null", O_RDONLY, ENOTTY),
                        TCGETS_("/dev/null", O_WRONLY, ENOTTY),
                        TCGETS_("/dev/zero", O_RDONLY, EACCES),
                        TCGETS_("/dev/full", O_RDONLY, EACCES),
                };

                run_ops(prepare(f, &rs, 0), ops, sizeof(ops) / sizeof(ops[0]));
        }
}

static void test_landlock__shell_confined(void **state)
{
        struct fx *f = *state;
        char script[6 * PATH_MAX + 512];
        char p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX];
        struct ruleset rs = { .n = 0 };
        struct stat st;
        int fd, n;

        require_abi(2, "shell test (uses a rename between directories)");
        rs_fixture(&rs, f);
        rs_runtime(&rs);
        fd = prepare(f, &rs, SBX__LL_SKIP_MISSING);

        /* Writing the rw tree works: create, mkdir, rename across
         * directories, symlink, fifo, remove. */
        n = snprintf(script, sizeof(script),
                        "set -e; cd '%s'; echo hello > out; mkdir d; mv out d/out; "
                        "ln -s d/out sl; mkfifo fifo; cat existing > /dev/null; rm existing; "
                        "cat '%s/file' > copy",
                        f->rw, f->ro);
        assert_true(n > 0 && (size_t) n < sizeof(script));
        assert_int_equal(run_sh(fd, script), 0);
        join(p1, f->rw, "d/out");
        assert_content(p1, "hello\n");
        join(p1, f->rw, "copy");
        assert_content(p1, ORIGINAL);
        join(p1, f->rw, "existing");
        assert_absent(p1);
        join(p1, f->rw, "fifo");
        assert_int_equal(lstat(p1, &st), 0);
        assert_true(S_ISFIFO(st.st_mode));

        /* Writing the ro tree, or outside every rule, fails. */
        join(p1, f->ro, "new");
        join(p2, f->base, "outside");
        join(p3, f->ro, "file");
        n = snprintf(script, sizeof(script),
                        "echo pwned 2>/dev/null > '%s' && exit 10; "
                        "echo pwned 2>/dev/null > '%s' && exit 11; "
                        "echo pwned 2>/dev/null >> '%s' && exit 12; "
                        "cat '%s/secret' 2>/dev/null && exit 13; "
                        "ls '%s' >/dev/null 2>&1 && exit 14; "
                        "exit 0",
                        p1, p2, p3, f->base, f->base);
        assert_true(n > 0 && (size_t) n < sizeof(script));
        assert_int_equal(run_sh(fd, script), 0);
        assert_absent(p1);
        assert_absent(p2);
        assert_content(p3, ORIGINAL);
}

/* A listening TCP socket on 127.0.0.1 (ephemeral port). */
static int tcp_listener(struct fx *f, long *port)
{
        struct sockaddr_in sa;
        socklen_t len = sizeof(sa);
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(s >= 0);
        fx_track_fd(f, s);
        loopback(&sa, 0);
        assert_int_equal(bind(s, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(listen(s, 8), 0);
        assert_int_equal(getsockname(s, (struct sockaddr *) &sa, &len), 0);
        *port = ntohs(sa.sin_port);
        return s;
}

static void test_landlock__tcp_connect_refused(void **state)
{
        struct fx *f = *state;
        struct ruleset rs = { .n = 0 };
        long port;
        int ls, c;

        require_abi(4, "TCP control");
        ls = tcp_listener(f, &port);
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        TCP_CONNECT_(port, EACCES),
                        TCP_BIND_(0, EACCES),
                };

                run_ops(prepare(f, &rs, SBX__LL_NET_DENY), ops, 2);
        }
        /* The connect was synchronous and the child has been reaped: had it
         * reached the listener, the connection would already be queued. */
        assert_false(arrives_within(ls, 0));

        /* Control: the same child without NET_DENY does reach it. */
        {
                const struct op ops[] = { TCP_CONNECT_(port, 0) };

                run_ops(prepare(f, &rs, 0), ops, 1);
        }
        assert_true(arrives_within(ls, WAIT_LIMIT_MS));
        c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        assert_true(c >= 0);
        (void) close(c);
}

/* An abstract unix socket (stream listener or datagram receiver). */
static int abstract_socket(struct fx *f, int type, char *name, size_t size)
{
        static unsigned counter;
        struct sockaddr_un sa;
        socklen_t len;
        int s;

        (void) snprintf(name, size, "sbx-landlock-test-%ld-%u-%d", (long) getpid(),
                        ++counter, type);
        s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        assert_true(s >= 0);
        fx_track_fd(f, s);
        len = abstract_addr(&sa, name);
        assert_int_equal(bind(s, (struct sockaddr *) &sa, len), 0);
        if (type == SOCK_STREAM)
                assert_int_equal(listen(s, 8), 0);
        return s;
}

static void test_landlock__abstract_unix_connect_refused(void **state)
{
        struct fx *f = *state;
        char sname[96], dname[96], buf[4];
        struct ruleset rs = { .n = 0 };
        int ls, ds, c;

        require_abi(6, "abstract unix socket scoping");
        ls = abstract_socket(f, SOCK_STREAM, sname, sizeof(sname));
        ds = abstract_socket(f, SOCK_DGRAM, dname, sizeof(dname));
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        ABS_CONNECT_(sname, EPERM),
                        ABS_SENDTO_(dname, EPERM),
                };

                run_ops(prepare(f, &rs, SBX__LL_SCOPE_ABSTRACT), ops, 2);
        }
        assert_false(arrives_within(ls, 0));     /* unix connect: queued before it returns */
        assert_false(arrives_within(ds, 0));
        assert_true(recv(ds, buf, sizeof(buf), MSG_DONTWAIT) < 0);

        /* Control: without the scope both reach the host's sockets. */
        {
                const struct op ops[] = {
                        ABS_CONNECT_(sname, 0),
                        ABS_SENDTO_(dname, 0),
                };

                run_ops(prepare(f, &rs, 0), ops, 2);
        }
        assert_true(arrives_within(ls, WAIT_LIMIT_MS));
        c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        assert_true(c >= 0);
        (void) close(c);
        assert_int_equal(recv(ds, buf, sizeof(buf), MSG_DONTWAIT), 1);
}

static void test_landlock__signal_to_outside_refused(void **state)
{
        struct fx *f = *state;
        struct ruleset rs = { .n = 0 };
        pid_t sib;
        int status;

        require_abi(6, "signal scoping");
        sib = fork();
        assert_true(sib >= 0);
        if (sib == 0) {
                for (;;)
                        (void) pause();
        }
        fx_track_pid(f, sib);
        rs_fixture(&rs, f);
        {
                const struct op ops[] = {
                        KILL_(sib, SIGKILL, EPERM),
                        KILL_(sib, SIGTERM, EPERM),
                        KILL_(sib, 0, EPERM),
                        KILL_(KILL_PARENT, 0, EPERM),
                        KILL_(KILL_SELF, 0, 0),                 /* control: own domain */
                };

                run_ops(prepare(f, &rs, SBX__LL_SCOPE_SIGNAL), ops,
                        sizeof(ops) / sizeof(ops[0]));
        }
        /* The sibling is still alive. */
        assert_int_equal(waitpid(sib, &status, WNOHANG), 0);
        assert_int_equal(kill(sib, 0), 0);

        /* Control: without the scope the same probe reaches it. */
        {
                const struct op ops[] = { KILL_(sib, 0, 0) };

                run_ops(prepare(f, &rs, 0), ops, 1);
        }
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_landlock__abi_is_detected),
                cmocka_unit_test(test_landlock__prepare_rejects_bad_arguments),
                T(test_landlock__prepare_closes_fds_and_reports_nothing_missing),
                T(test_landlock__nested_narrower_rule_is_reported),
                T(test_landlock__missing_rule_path),
                T(test_landlock__no_new_privs_is_set),
                cmocka_unit_test(test_landlock__enforce_child_rejects_a_bad_fd),
                T(test_landlock__add_child_allows_one_more_tree),
                T(test_landlock__write_into_ro_tree_refused),
                T(test_landlock__write_outside_every_rule_refused),
                T(test_landlock__read_outside_every_rule_refused),
                T(test_landlock__truncate_of_readable_file_refused),
                T(test_landlock__rename_and_link_across_trees_refused),
                T(test_landlock__special_files_in_ro_refused),
                T(test_landlock__device_nodes_refused_even_in_rw),
                T(test_landlock__chmod_in_ro_does_not_open_writes),
                T(test_landlock__exact_rules),
                T(test_landlock__device_ioctl_only_on_writable_exact_device),
                T(test_landlock__shell_confined),
                T(test_landlock__tcp_connect_refused),
                T(test_landlock__abstract_unix_connect_refused),
                T(test_landlock__signal_to_outside_refused),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
