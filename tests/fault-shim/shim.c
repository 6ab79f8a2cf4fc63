/*
 * shim.c - fault injection for test_faults: the Nth call of one kind of
 * libc entry point made by the library fails with the errno the real
 * call would give when the resource runs out.
 *
 * The shim is linked into the test executable with -Wl,--wrap=<symbol>
 * for every entry point below (tests/CMakeLists.txt), not LD_PRELOADed:
 * the library is the static archive, so every call src/ makes to one of
 * these goes to __wrap_<symbol> here, and __real_<symbol> is whatever the
 * process would have called (libc's, or the ASan runtime's interceptor
 * in a sanitizer build, which an LD_PRELOADed shim would have to be
 * ordered after).  Calls libc makes internally (fopen's malloc) and
 * calls from other shared libraries (libseccomp, libcmocka) are not
 * counted.
 *
 *   kind   entry points                                    errno
 *   alloc  malloc calloc realloc strdup strndup            ENOMEM
 *          realpath(p, NULL) opendir fdopendir
 *   fd     open openat fopen socket socketpair pipe pipe2  EMFILE
 *          eventfd accept4 memfd_create dup2
 *          syscall(openat2 | pidfd_open | memfd_create)
 *   clone  clone syscall(clone | clone3) fork             EAGAIN
 *          pthread_create (returns EAGAIN)
 *   mkdir  mkdir mkdirat mkdtemp                           ENOSPC
 *
 * Only the process that armed the shim counts: a clone child (which may
 * share the memory, CLONE_VM) sees another getpid() and passes through
 * untouched, so what runs between clone and execve is never failed here
 * and the wrappers stay async-signal-safe (getpid and atomics only).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "shim.h"

#include <dirent.h>
#include <execinfo.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

static int   armed_kind = SBX_FAULT_NONE;
static long  armed_n;
static pid_t armed_pid;
static long  counts[SBX_FAULT_KINDS];
static long  fired;
static int   backtrace_on;      /* SBX_FAULT_BACKTRACE=1: the failed call's stack on stderr */

static const int kind_errno[SBX_FAULT_KINDS] = { 0, ENOMEM, EMFILE, EAGAIN, ENOSPC };
static const char *const kind_name[SBX_FAULT_KINDS] = { "none", "alloc", "fd", "clone", "mkdir" };

void sbx_fault_arm(int kind, long n)
{
        int k;

        for (k = 0; k < SBX_FAULT_KINDS; k++)
                __atomic_store_n(&counts[k], 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&fired, 0, __ATOMIC_SEQ_CST);
        armed_n = n;
        backtrace_on = getenv("SBX_FAULT_BACKTRACE") != NULL;
        armed_pid = getpid();
        __atomic_store_n(&armed_kind, kind, __ATOMIC_SEQ_CST);
}

void sbx_fault_disarm(void)
{
        __atomic_store_n(&armed_kind, SBX_FAULT_NONE, __ATOMIC_SEQ_CST);
        armed_pid = 0;
}

long sbx_fault_count(int kind)
{
        return kind > 0 && kind < SBX_FAULT_KINDS ? __atomic_load_n(&counts[kind], __ATOMIC_SEQ_CST)
                                                  : 0;
}

long sbx_fault_fired(void)
{
        return __atomic_load_n(&fired, __ATOMIC_SEQ_CST);
}

const char *sbx_fault_kind_name(int kind)
{
        return kind >= 0 && kind < SBX_FAULT_KINDS ? kind_name[kind] : "?";
}

int sbx_fault_kind_parse(const char *s)
{
        int k;

        for (k = 1; s != NULL && k < SBX_FAULT_KINDS; k++)
                if (strcmp(s, kind_name[k]) == 0)
                        return k;
        return SBX_FAULT_NONE;
}

/* 1 if this call of kind is the one to fail (errno is set then).  Every
 * call of the armed process is counted (the counts of a sweep's first,
 * fault-free run give its range), only the armed kind's Nth fails. */
static int fault(int kind)
{
        long c;

        if (armed_pid == 0 || getpid() != armed_pid)
                return 0;
        c = __atomic_add_fetch(&counts[kind], 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&armed_kind, __ATOMIC_SEQ_CST) != kind || c != armed_n)
                return 0;
        __atomic_add_fetch(&fired, 1, __ATOMIC_SEQ_CST);
        if (backtrace_on) {
                void *frames[32];

                backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
        }
        errno = kind_errno[kind];
        return 1;
}

/* ------------------------------------------------------------- alloc */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real_realpath(const char *p, char *out);
DIR *__real_opendir(const char *p);
DIR *__real_fdopendir(int fd);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
char *__wrap_realpath(const char *p, char *out);
DIR *__wrap_opendir(const char *p);
DIR *__wrap_fdopendir(int fd);

void *__wrap_malloc(size_t n)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_strndup(s, n);
}

char *__wrap_realpath(const char *p, char *out)
{
        return out == NULL && fault(SBX_FAULT_ALLOC) ? NULL : __real_realpath(p, out);
}

DIR *__wrap_opendir(const char *p)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_opendir(p);
}

DIR *__wrap_fdopendir(int fd)
{
        return fault(SBX_FAULT_ALLOC) ? NULL : __real_fdopendir(fd);
}

/* ---------------------------------------------------------------- fd */

int __real_open(const char *p, int flags, ...);
int __real_openat(int dfd, const char *p, int flags, ...);
FILE *__real_fopen(const char *p, const char *m);
int __real_socket(int d, int t, int pr);
int __real_socketpair(int d, int t, int pr, int sv[2]);
int __real_pipe(int fds[2]);
int __real_pipe2(int fds[2], int flags);
int __real_eventfd(unsigned v, int flags);
int __real_accept4(int fd, struct sockaddr *a, socklen_t *l, int flags);
int __real_memfd_create(const char *n, unsigned flags);
int __real_dup2(int a, int b);
long __real_syscall(long nr, ...);
int __wrap_open(const char *p, int flags, ...);
int __wrap_openat(int dfd, const char *p, int flags, ...);
FILE *__wrap_fopen(const char *p, const char *m);
int __wrap_socket(int d, int t, int pr);
int __wrap_socketpair(int d, int t, int pr, int sv[2]);
int __wrap_pipe(int fds[2]);
int __wrap_pipe2(int fds[2], int flags);
int __wrap_eventfd(unsigned v, int flags);
int __wrap_accept4(int fd, struct sockaddr *a, socklen_t *l, int flags);
int __wrap_memfd_create(const char *n, unsigned flags);
int __wrap_dup2(int a, int b);
long __wrap_syscall(long nr, ...);

int __wrap_open(const char *p, int flags, ...)
{
        va_list ap;
        unsigned mode;

        va_start(ap, flags);
        mode = va_arg(ap, unsigned);    /* read always, as glibc's open does */
        va_end(ap);
        return fault(SBX_FAULT_FD) ? -1 : __real_open(p, flags, mode);
}

int __wrap_openat(int dfd, const char *p, int flags, ...)
{
        va_list ap;
        unsigned mode;

        va_start(ap, flags);
        mode = va_arg(ap, unsigned);
        va_end(ap);
        return fault(SBX_FAULT_FD) ? -1 : __real_openat(dfd, p, flags, mode);
}

FILE *__wrap_fopen(const char *p, const char *m)
{
        return fault(SBX_FAULT_FD) ? NULL : __real_fopen(p, m);
}

int __wrap_socket(int d, int t, int pr)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_socket(d, t, pr);
}

int __wrap_socketpair(int d, int t, int pr, int sv[2])
{
        return fault(SBX_FAULT_FD) ? -1 : __real_socketpair(d, t, pr, sv);
}

int __wrap_pipe(int fds[2])
{
        return fault(SBX_FAULT_FD) ? -1 : __real_pipe(fds);
}

int __wrap_pipe2(int fds[2], int flags)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_pipe2(fds, flags);
}

int __wrap_eventfd(unsigned v, int flags)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_eventfd(v, flags);
}

int __wrap_accept4(int fd, struct sockaddr *a, socklen_t *l, int flags)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_accept4(fd, a, l, flags);
}

int __wrap_memfd_create(const char *n, unsigned flags)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_memfd_create(n, flags);
}

int __wrap_dup2(int a, int b)
{
        return fault(SBX_FAULT_FD) ? -1 : __real_dup2(a, b);
}

/* syscall(2) passes six register-sized arguments whatever the number;
 * reading six here is what glibc's own syscall() does. */
long __wrap_syscall(long nr, ...)
{
        va_list ap;
        long a[6];
        int i, kind = SBX_FAULT_NONE;

        va_start(ap, nr);
        for (i = 0; i < 6; i++)
                a[i] = va_arg(ap, long);
        va_end(ap);
        switch (nr) {
#ifdef SYS_clone3
        case SYS_clone3:
#endif
        case SYS_clone:
                kind = SBX_FAULT_CLONE;
                break;
#ifdef SYS_openat2
        case SYS_openat2:
#endif
#ifdef SYS_pidfd_open
        case SYS_pidfd_open:
#endif
#ifdef SYS_memfd_create
        case SYS_memfd_create:
#endif
                kind = SBX_FAULT_FD;
                break;
        default:
                break;
        }
        if (kind != SBX_FAULT_NONE && fault(kind))
                return -1;
        return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ------------------------------------------------------------- clone */

int __real_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
pid_t __real_fork(void);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
pid_t __wrap_fork(void);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

int __wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
        va_list ap;
        void *ptid, *tls, *ctid;

        va_start(ap, arg);
        ptid = va_arg(ap, void *);
        tls = va_arg(ap, void *);
        ctid = va_arg(ap, void *);
        va_end(ap);
        if (fault(SBX_FAULT_CLONE))
                return -1;
        return __real_clone(fn, stack, flags, arg, ptid, tls, ctid);
}

pid_t __wrap_fork(void)
{
        return fault(SBX_FAULT_CLONE) ? -1 : __real_fork();
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
        return fault(SBX_FAULT_CLONE) ? EAGAIN : __real_pthread_create(t, a, fn, arg);
}

/* ------------------------------------------------------------- mkdir */

int __real_mkdir(const char *p, mode_t m);
int __real_mkdirat(int dfd, const char *p, mode_t m);
char *__real_mkdtemp(char *t);
int __wrap_mkdir(const char *p, mode_t m);
int __wrap_mkdirat(int dfd, const char *p, mode_t m);
char *__wrap_mkdtemp(char *t);

int __wrap_mkdir(const char *p, mode_t m)
{
        return fault(SBX_FAULT_MKDIR) ? -1 : __real_mkdir(p, m);
}

int __wrap_mkdirat(int dfd, const char *p, mode_t m)
{
        return fault(SBX_FAULT_MKDIR) ? -1 : __real_mkdirat(dfd, p, m);
}

char *__wrap_mkdtemp(char *t)
{
        return fault(SBX_FAULT_MKDIR) ? NULL : __real_mkdtemp(t);
}
