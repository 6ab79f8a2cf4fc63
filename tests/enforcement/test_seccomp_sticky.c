/*
 * test_seccomp_sticky.c - no failure is sticky (issue 21): in a fresh
 * forked process, the first workspace-write spawn (with the supervisor)
 * meets EMFILE at each point in turn (RLIMIT_NOFILE lowered to what is
 * open + k, k = 0, 1, ...) and fails with an error; after the limit is
 * restored the next spawn in that process must succeed.  The sweep ends
 * at the first k where the first spawn succeeds.
 *
 * A limit only fails the call that reaches the high-water mark first, so
 * the second sweep fails the Nth fd-creating call of the host process
 * (open, openat, memfd_create, pipe2, socket, socketpair, dup3: this
 * binary defines them, so the library's calls land here) with EMFILE, for
 * N = 1, 2, ... until a spawn makes fewer than N: every call that could
 * prepare a filter meets the failure once.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "seccomp_spawn.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>

/* ----------------------------------------------- fd calls, interposed */

static pid_t g_pid;             /* 0: pass everything through */
static long g_fail_at;          /* the Nth call (1-based) fails with EMFILE */
static long g_seen;             /* fd calls of g_pid while armed */

static void *r_open, *r_open64, *r_openat, *r_openat64, *r_memfd, *r_pipe2, *r_socket,
            *r_socketpair, *r_dup3;

static void resolve(void)
{
        r_open = dlsym(RTLD_NEXT, "open");
        r_open64 = dlsym(RTLD_NEXT, "open64");
        r_openat = dlsym(RTLD_NEXT, "openat");
        r_openat64 = dlsym(RTLD_NEXT, "openat64");
        r_memfd = dlsym(RTLD_NEXT, "memfd_create");
        r_pipe2 = dlsym(RTLD_NEXT, "pipe2");
        r_socket = dlsym(RTLD_NEXT, "socket");
        r_socketpair = dlsym(RTLD_NEXT, "socketpair");
        r_dup3 = dlsym(RTLD_NEXT, "dup3");
        if (!r_open || !r_open64 || !r_openat || !r_openat64 || !r_memfd || !r_pipe2 ||
            !r_socket || !r_socketpair || !r_dup3)
                abort();
}

/* Async-signal-safe (a forked child of the library calls these too): only
 * the armed process counts. */
static int fault(void)
{
        if (g_pid == 0 || (pid_t) syscall(SYS_getpid) != g_pid)
                return 0;
        if (++g_seen != g_fail_at)
                return 0;
        errno = EMFILE;
        return 1;
}

static mode_t mode_arg(int flags, va_list ap)
{
        return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t) va_arg(ap, int)
                                                                     : 0;
}

int open(const char *path, int flags, ...)
{
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return fault() ? -1 : ((int (*)(const char *, int, ...)) r_open)(path, flags, m);
}

int open64(const char *path, int flags, ...)
{
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return fault() ? -1 : ((int (*)(const char *, int, ...)) r_open64)(path, flags, m);
}

int openat(int dfd, const char *path, int flags, ...)
{
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return fault() ? -1 : ((int (*)(int, const char *, int, ...)) r_openat)(dfd, path, flags,
                                                                               m);
}

int openat64(int dfd, const char *path, int flags, ...)
{
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return fault() ? -1 : ((int (*)(int, const char *, int, ...)) r_openat64)(dfd, path,
                                                                                 flags, m);
}

int memfd_create(const char *name, unsigned int flags)
{
        return fault() ? -1 : ((int (*)(const char *, unsigned int)) r_memfd)(name, flags);
}

int pipe2(int fds[2], int flags)
{
        return fault() ? -1 : ((int (*)(int *, int)) r_pipe2)(fds, flags);
}

int socket(int domain, int type, int protocol)
{
        return fault() ? -1 : ((int (*)(int, int, int)) r_socket)(domain, type, protocol);
}

int socketpair(int domain, int type, int protocol, int fds[2])
{
        return fault() ? -1 : ((int (*)(int, int, int, int *)) r_socketpair)(domain, type,
                                                                             protocol, fds);
}

int dup3(int fd, int fd2, int flags)
{
        return fault() ? -1 : ((int (*)(int, int, int)) r_dup3)(fd, fd2, flags);
}

/* ------------------------------------------------------------ the sweeps */

/* How one forked process ended (its exit code). */
enum { EM_FAILED_THEN_OK = 10, EM_OK = 11, EM_STUCK = 12, EM_SETUP = 13, EM_HIT_OK = 14 };

/* In a fresh process: the first spawn with RLIMIT_NOFILE at what is open
 * + extra (nth == 0), or with the nth fd call failing; then one more. */
static int emfile_child(struct fx *f, int32_t backend, int extra, long nth, char *why,
                        size_t size)
{
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        struct rlimit old, low;
        int first, second, hit;

        if (getrlimit(RLIMIT_NOFILE, &old) != 0)
                return EM_SETUP;
        low = old;
        low.rlim_cur = (rlim_t) fx_count_fds() + (rlim_t) extra;
        if (nth == 0 && setrlimit(RLIMIT_NOFILE, &low) != 0)
                return EM_SETUP;
        g_seen = 0;
        g_fail_at = nth;
        g_pid = nth > 0 ? getpid() : 0;
        first = spawn_once(f, backend, p, 0, 1, why, size);
        g_pid = 0;
        hit = nth == 0 || g_seen >= nth;
        if (nth == 0 && setrlimit(RLIMIT_NOFILE, &old) != 0)
                return EM_SETUP;
        second = spawn_once(f, backend, p, 0, 2, why, size);
        sbx_profile_free(p);
        if (second != 0)
                return EM_STUCK;
        if (!hit)
                return EM_OK;           /* fewer than nth calls: the sweep is over */
        if (first == 0)                 /* a failure the spawn could do without */
                return nth == 0 ? EM_OK : EM_HIT_OK;
        return EM_FAILED_THEN_OK;
}

static void test_seccomp_sticky__emfile_is_not_sticky(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        struct fx *f = *state;
        size_t b;

        for (b = 0; b < 2 * N_OF(backends); b++) {
                const long by_call = (long) (b % 2);    /* 0: the limit; 1: the Nth call */
                int extra, failed = 0, done = 0;

                set_label(f, backends[b / 2], SBX_MODE_WORKSPACE_WRITE,
                          by_call ? "EMFILE at the Nth fd call" : "EMFILE by RLIMIT_NOFILE");
                /* Each point in a fresh process: nothing this process did
                 * may have warmed a cache (it spawns nothing itself). */
                for (extra = 0; extra < (by_call ? 400 : 64) && !done; extra++) {
                        int pipefd[2], st = 0, code;
                        char why[1024] = "";
                        pid_t pid;
                        ssize_t got;

                        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
                        pid = fork();
                        assert_true(pid >= 0);
                        if (pid == 0) {
                                close(pipefd[0]);
                                code = emfile_child(f, backends[b / 2], by_call ? 0 : extra,
                                                    by_call ? extra + 1 : 0, why, sizeof(why));
                                (void) !write(pipefd[1], why, strlen(why));
                                _exit(code);
                        }
                        close(pipefd[1]);
                        got = read(pipefd[0], why, sizeof(why) - 1);
                        why[got > 0 ? got : 0] = '\0';
                        close(pipefd[0]);
                        /* bounded: each spawn in the child is bounded */
                        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                                ;
                        code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                        if (getenv("SBX_TEST_VERBOSE") != NULL)
                                note("%d: code %d: %s", extra, code, why);
                        if (code == EM_FAILED_THEN_OK) {
                                failed++;
                        } else if (code == EM_OK) {
                                done = 1;
                        } else if (code == EM_HIT_OK) {
                                continue;
                        } else {
                                CHECK(f, 0, "point %d: %s (%s)", extra,
                                      code == EM_STUCK ? "the failure stuck: the spawn after "
                                                         "the fault ended failed"
                                                       : describe_status(st), why);
                                done = code != EM_STUCK;
                        }
                }
                CHECK(f, done, "the sweep did not end");
                CHECK(f, failed > 0, "no point met EMFILE");
                note("%s: %d EMFILE points (%s), every next spawn succeeded",
                     sbx_backend_name(backends[b / 2]), failed, by_call ? "Nth call" : "limit");
        }
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_seccomp_sticky__emfile_is_not_sticky),
        };
#undef T
        resolve();
        return cmocka_run_group_tests(tests, NULL, NULL);
}
