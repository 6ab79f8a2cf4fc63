/*
 * notify.c - the git name veto's supervisor, run by the rung-1 init and the
 * rung-2 monitor: async-signal-safe code only (they are clones of the host
 * process that never exec).
 *
 * The command's filter (seccomp_notify.c) turns every call that can name a
 * directory entry into a notification.  The supervisor runs inside the same
 * confinement as the command (same mounts, same Landlock domain or its
 * parent, same credentials), so it can do nothing the command could not,
 * and it performs each operation itself on its own copy of the paths:
 *
 *   1. copy the path arguments out of the caller's memory (process_vm_readv);
 *   2. open the caller's directory fd or cwd through /proc/<pid> (O_PATH),
 *      then check that the notification is still live (so the pid was not
 *      reused);
 *   3. resolve the parent directory itself (openat O_PATH|O_DIRECTORY) and
 *      refuse with EPERM a name that could make a repository git would
 *      use (docs/git.md): ".git" (any case) anywhere, "HEAD" anywhere (a
 *      case variant too unless the directory is known to compare names
 *      byte for byte), and any name in a directory that holds a HEAD (so
 *      objects/, refs/, commondir, gitdir, config cannot complete one);
 *   4. otherwise do the operation on (parent fd, name) with the caller's
 *      umask and hand back the result (an opened file as a new fd in the
 *      caller, SECCOMP_ADDFD_FLAG_SEND).
 *
 * The kernel never re-reads the caller's memory, so changing the path in
 * another thread after the check changes nothing (no time-of-check race),
 * and the supervisor has no right the command lacks (no confused deputy).
 * An O_CREAT open whose final component is a symbolic link is followed here
 * link by link, each name vetted, the last open made with O_NOFOLLOW.  An
 * existing FIFO is opened by a short-lived worker process, so a blocking
 * open never stalls the supervisor.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>

#include "linux/ladder.h"

#ifndef SECCOMP_ADDFD_FLAG_SEND
#  define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef RENAME_EXCHANGE
#  define RENAME_EXCHANGE (1 << 1)
#endif

#define NPATH 4096
#define NOFD  (-100000)         /* no base fd (negative errnos are failures) */

/* ------------------------------------------------------------ helpers */

/* "/proc/<pid>/<what>[<n>]" into buf (>= 64 bytes). */
static void proc_path(char *buf, pid_t pid, const char *what, long n)
{
        char *p = buf;

        memcpy(p, "/proc/", 6);
        p = sbx__put_uint(p + 6, (unsigned long) pid);
        if (what != NULL) {
                *p++ = '/';
                while (*what != '\0')
                        *p++ = *what++;
        }
        if (n >= 0)
                p = sbx__put_uint(p, (unsigned long) n);
        *p = '\0';
}

/* Copy a NUL-terminated string from the caller; 0 or -errno. */
static int read_str(pid_t pid, uint64_t addr, char *out)
{
        size_t got = 0;

        if (addr == 0)
                return -EFAULT;
        while (got < NPATH) {
                size_t chunk = 4096 - (size_t) ((addr + got) & 4095);
                struct iovec l, r;
                ssize_t n;
                size_t i;

                if (chunk > NPATH - got)
                        chunk = NPATH - got;
                l.iov_base = out + got;
                l.iov_len = chunk;
                r.iov_base = (void *) (uintptr_t) (addr + got);
                r.iov_len = chunk;
                n = process_vm_readv(pid, &l, 1, &r, 1, 0);
                if (n <= 0)
                        return n < 0 && errno != EFAULT ? -errno : -EFAULT;
                for (i = got; i < got + (size_t) n; i++)
                        if (out[i] == '\0')
                                return 0;
                got += (size_t) n;
        }
        return -ENAMETOOLONG;
}

/* A path split into its parent directory (an O_PATH fd) and its last
 * component (trailing slashes kept; `len` counts without them). */
struct target {
        int         dirfd;
        const char *name;
        size_t      len;
};

/* The names that make a repository (notify_git.c). */
static int makes_repository(const struct target *t)
{
        return sbx__notify_makes_repository(t->dirfd, t->name, t->len);
}

static void drop(struct target *t)
{
        if (t->dirfd >= 0)
                (void) close(t->dirfd);
        t->dirfd = -1;
}

static int same_dir(int fd, const char *path)
{
        struct stat a, b;

        return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
}

/*
 * A parent that resolved to the supervisor's own /proc/self or
 * /proc/self/fd (through /proc/self, /proc/thread-self, /dev/fd, /dev/stdout
 * ...) names the caller's: swap in /proc/<caller> and /proc/<caller>/fd.
 */
static int remap_self(const struct sbx__nreq *q, struct target *t)
{
        static const char *const ours[] = { "/proc/self", "/proc/thread-self",
                                            "/proc/self/fd", "/proc/thread-self/fd" };
        struct statfs sf;
        char p[64];
        size_t i;
        int fd;

        if (fstatfs(t->dirfd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)
                return 0;
        for (i = 0; i < 4; i++) {
                if (!same_dir(t->dirfd, ours[i]))
                        continue;
                proc_path(p, q->pid, i >= 2 ? "fd" : NULL, -1);
                fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                (void) close(t->dirfd);
                t->dirfd = fd;
                return 0;
        }
        return 0;
}

static int open_parent(const struct sbx__nreq *q, int base, char *path, struct target *t)
{
        size_t n = strlen(path), end = n, k;
        int fd;

        t->dirfd = -1;
        if (n == 0)
                return -ENOENT;
        while (end > 1 && path[end - 1] == '/')
                end--;
        k = end;
        while (k > 0 && path[k - 1] != '/')
                k--;
        t->name = path + k;
        t->len = end - k;
        if (t->len == 0) {                      /* the path is "/" */
                t->name = ".";
                t->len = 1;
                k = 0;
        }
        if (k == 0 && path[0] != '/') {         /* "name": the base itself */
                fd = (int) fcntl(base, F_DUPFD_CLOEXEC, 3);
        } else if (k <= 1) {                    /* "/name" or "/": the root */
                fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        } else {                                /* "dir/name" */
                path[k - 1] = '\0';
                fd = openat(base, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
                path[k - 1] = '/';
        }
        if (fd < 0)
                return -errno;
        t->dirfd = fd;
        return remap_self(q, t);
}

/* What is_prot matches: protected objects, tree roots only, or protected
 * objects and the pinned directories on the way to them. */
#define PROT_OBJECT 0
#define PROT_TREE   1
#define PROT_PINNED 2

/* 1 if (dev, ino) is protected in the sense of `which` (PROT_*). */
static int is_prot(const struct sbx__notify_ctx *c, const struct stat *st, int which)
{
        size_t i;

        for (i = 0; i < c->n_prot; i++)
                if (c->prot[i].dev == st->st_dev && c->prot[i].ino == st->st_ino &&
                    (which == PROT_PINNED || (which == PROT_TREE ? c->prot[i].tree == 1
                                                                 : c->prot[i].tree != 2)))
                        return 1;
        return 0;
}

/* 1 if st is one of the write-rule objects (any: also exact-file rules). */
static int is_wr(const struct sbx__notify_ctx *c, const struct stat *st, int any)
{
        size_t i;

        for (i = 0; i < c->n_wr; i++)
                if (c->wr[i].dev == st->st_dev && c->wr[i].ino == st->st_ino &&
                    (any || c->wr[i].tree == 1))
                        return 1;
        return 0;
}

/*
 * From directory dirfd up to the root through "..": 1 if a protected
 * tree is met, 0 at the root, -errno if the walk fails.  With wr, *wr is
 * set when a write-rule object is met on the way (dirfd itself may be
 * any rule's object when `self`, the others only tree rules).
 */
static int walk_up(const struct sbx__notify_ctx *c, int dirfd, int self, int *wr)
{
        struct stat st, up;
        int fd, nfd, depth;

        fd = (int) fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        for (depth = 0; depth < 4096; depth++) {
                if (fstat(fd, &st) < 0)
                        break;
                if (is_prot(c, &st, PROT_TREE)) {
                        (void) close(fd);
                        return 1;
                }
                if (wr != NULL && is_wr(c, &st, self && depth == 0))
                        *wr = 1;
                nfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (nfd < 0)
                        break;
                if (fstat(nfd, &up) < 0 || (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
                        (void) close(nfd);
                        (void) close(fd);
                        return 0;               /* the root */
                }
                (void) close(fd);
                fd = nfd;
        }
        (void) close(fd);
        return -EACCES;
}

/*
 * 1 if the entry (t->dirfd, t->name) is protected: it is a protected
 * object itself (or, when moving, a pinned directory on the way to one),
 * or its directory is at or below a protected tree (walked up through ".."
 * to the root; a protected tree cannot be moved, so the answer cannot
 * change under us).  -errno if the walk fails.
 */
static int protected_entry(const struct sbx__notify_ctx *c, const struct target *t, int moving)
{
        struct stat st;

        if (c->n_prot == 0)
                return 0;
        if (fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            is_prot(c, &st, moving ? PROT_PINNED : PROT_OBJECT))
                return 1;
        return walk_up(c, t->dirfd, 0, NULL);
}

/* refused()'s checks: the name (a new entry), a move or removal. */
#define R_NAME 1
#define R_MOVE 2

/* Refused if the name makes a repository or the entry is protected. */
static int refused(const struct sbx__nreq *q, const struct target *t, int checks)
{
        int r;

        if ((checks & R_NAME) && makes_repository(t))
                return EPERM;
        r = protected_entry(q->ctx, t, (checks & R_MOVE) != 0);
        if (r < 0)
                return -r;
        return r ? EACCES : 0;
}

/* 1 if the parent is a /proc/<pid>/fd directory (its entries are magic
 * links the kernel follows for us; readlink gives only a name). */
static int fd_dir(const struct target *t)
{
        struct statfs sf;
        char link[64];

        if (fstatfs(t->dirfd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)
                return 0;
        return readlinkat(t->dirfd, t->name, link, sizeof(link)) > 0;
}

/*
 * Follow the final component while it is a symbolic link (each hop a new
 * parent, each name vetted by the caller's checks afterwards).  A magic
 * link of a /proc/<pid>/fd directory is not followed textually: *magic is
 * set and the target's own path (when it has one) is checked instead.
 */
static int follow_final(const struct sbx__nreq *q, struct target *t, char *path, int *magic)
{
        static char link[NPATH];
        struct stat st;
        int hops;

        *magic = 0;
        for (hops = 0; hops <= 40; hops++) {
                struct target next;
                ssize_t n;
                int r;

                if (fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
                        return 0;
                if (fd_dir(t)) {
                        *magic = 1;
                        return 0;
                }
                n = readlinkat(t->dirfd, t->name, link, NPATH - 1);
                if (n < 0)
                        return -errno;
                link[n] = '\0';
                memcpy(path, link, (size_t) n + 1);
                r = open_parent(q, t->dirfd, path, &next);
                drop(t);
                *t = next;
                if (r < 0)
                        return r;
        }
        return -ELOOP;
}

/* For a magic fd link: refuse when the file behind it is protected. */
static int magic_refused(const struct sbx__nreq *q, const struct target *t)
{
        static char path[NPATH];
        struct target real;
        struct stat st;
        ssize_t n;
        int r, e;

        if (fstatat(t->dirfd, t->name, &st, 0) < 0)
                return errno;
        if (is_prot(q->ctx, &st, PROT_OBJECT))
                return EACCES;
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
                return 0;               /* pipes, sockets, terminals */
        n = readlinkat(t->dirfd, t->name, path, sizeof(path) - 1);
        if (n <= 0 || path[0] != '/')
                return EACCES;
        path[n] = '\0';
        if (n > 10 && strcmp(path + n - 10, " (deleted)") == 0)
                return st.st_nlink == 0 ? 0 : EACCES;
        r = open_parent(q, -1, path, &real);
        if (r == -ENOENT || r == -ENOTDIR) {
                /* Not reachable by that path in this view (a file the
                 * command inherited from outside): not in a protected
                 * tree, which is always in view and cannot be moved. */
                drop(&real);
                return 0;
        }
        if (r < 0) {
                drop(&real);
                return -r;
        }
        e = refused(q, &real, 0);
        drop(&real);
        return e;
}

/* The caller's umask from /proc/<pid>/status; 077 when it cannot be read
 * (never more permissive than the caller asked). */
static mode_t caller_umask(pid_t pid)
{
        char path[64], buf[1024];
        ssize_t n;
        int fd;
        char *p;
        mode_t m = 0;

        proc_path(path, pid, "status", -1);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 077;
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd);
        if (n <= 0)
                return 077;
        buf[n] = '\0';
        p = strstr(buf, "\nUmask:");
        if (p == NULL)
                return 077;
        p += 7;
        while (*p == ' ' || *p == '\t')
                p++;
        if (*p < '0' || *p > '7')
                return 077;
        while (*p >= '0' && *p <= '7')
                m = (mode_t) (m * 8 + (mode_t) (*p++ - '0'));
        return m & 0777;
}

/* /dev/tty means the caller's controlling terminal: its /dev/pts/N from
 * /proc/<pid>/stat, or -ENXIO. */
static int caller_tty(pid_t pid, int flags)
{
        char path[64], buf[512];
        unsigned long nr = 0;
        unsigned major, minor;
        ssize_t n;
        int fd, field = 1;
        char *p;

        proc_path(path, pid, "stat", -1);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -ENXIO;
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd);
        if (n <= 0)
                return -ENXIO;
        buf[n] = '\0';
        p = strrchr(buf, ')');          /* the command name may hold spaces */
        if (p == NULL)
                return -ENXIO;
        for (field = 2; *p != '\0' && field < 7; p++)
                if (*p == ' ')
                        field++;
        while (*p >= '0' && *p <= '9')
                nr = nr * 10 + (unsigned long) (*p++ - '0');
        major = (unsigned) ((nr >> 8) & 0xfff);
        minor = (unsigned) ((nr & 0xff) | ((nr >> 12) & 0xfff00));
        if (nr == 0 || major < 136 || major > 143)
                return -ENXIO;
        memcpy(path, "/dev/pts/", 9);
        *sbx__put_uint(path + 9, (unsigned long) ((major - 136) * 256 + minor)) = '\0';
        fd = open(path, (flags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_NOCTTY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}


/* Hand fd to the caller as the syscall's result (and close ours). */
static void send_fd(const struct sbx__nreq *q, int fd, int cloexec)
{
        struct seccomp_notif_addfd a;

        memset(&a, 0, sizeof(a));
        a.id = q->id;
        a.flags = SECCOMP_ADDFD_FLAG_SEND;
        a.srcfd = (uint32_t) fd;
        a.newfd_flags = cloexec ? O_CLOEXEC : 0;
        if (ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 && errno != ENOENT)
                sbx__nreq_respond(q, 0, errno == EMFILE ? EMFILE : EBADF);
        (void) close(fd);
}

/* The base for a relative path: the caller's dirfd or cwd (O_PATH). */
static int open_base(const struct sbx__nreq *q, int dfd, const char *path, int any_type)
{
        char p[64];
        int fd;

        if (path[0] == '/') {
                fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                return fd < 0 ? -errno : fd;
        }
        if (dfd == AT_FDCWD)
                proc_path(p, q->pid, "cwd", -1);
        else if (dfd >= 0)
                proc_path(p, q->pid, "fd/", dfd);
        else
                return -EBADF;
        fd = open(p, O_PATH | O_CLOEXEC | (any_type ? 0 : O_DIRECTORY));
        if (fd < 0)
                return errno == ENOENT ? -EBADF : -errno;
        return fd;
}

static int32_t as_int(uint64_t v)
{
        return (int32_t) (uint32_t) v;
}

/* ------------------------------------------------------------ the ops */

/* open/openat/creat that may create or write. */
static void do_open(const struct sbx__nreq *q, int base, char *path, int flags, mode_t mode)
{
        struct target t = { -1, NULL, 0 };
        struct stat st;
        int fd, r, e, magic = 0;

        if ((r = open_parent(q, base, path, &t)) < 0)
                goto fail;
        if (!(flags & (O_EXCL | O_NOFOLLOW)) && (r = follow_final(q, &t, path, &magic)) < 0)
                goto fail;
        if (magic) {
                /* /proc/<pid>/fd/N: the kernel follows it (pipes included). */
                if ((e = magic_refused(q, &t)) != 0) {
                        drop(&t);
                        sbx__nreq_respond(q, 0, e);
                        return;
                }
                fd = openat(t.dirfd, t.name, (flags & ~(O_CREAT | O_EXCL)) | O_NOCTTY | O_CLOEXEC);
                goto opened;
        }
        if ((e = refused(q, &t, (flags & O_CREAT) ? R_NAME : 0)) != 0) {
                drop(&t);
                sbx__nreq_respond(q, 0, e);
                return;
        }
        if (fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 0)) {
                        fd = caller_tty(q->pid, flags);         /* /dev/tty */
                        drop(&t);
                        if (fd < 0)
                                sbx__nreq_respond(q, 0, -fd);
                        else
                                send_fd(q, fd, (flags & O_CLOEXEC) != 0);
                        return;
                }
                if (S_ISFIFO(st.st_mode)) {
                        /* A blocking open: a worker does it and answers. */
                        pid_t w = sbx__clone_fork();

                        if (w == 0) {
                                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                                fd = openat(t.dirfd, t.name,
                                            flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
                                if (fd < 0)
                                        sbx__nreq_respond(q, 0, errno);
                                else
                                        send_fd(q, fd, (flags & O_CLOEXEC) != 0);
                                _exit(0);
                        }
                        drop(&t);
                        if (w < 0)
                                sbx__nreq_respond(q, 0, EAGAIN);
                        return;
                }
        }
        fd = openat(t.dirfd, t.name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
opened:
        e = errno;
        drop(&t);
        if (fd < 0)
                sbx__nreq_respond(q, 0, e);
        else
                send_fd(q, fd, (flags & O_CLOEXEC) != 0);
        return;
fail:
        drop(&t);
        sbx__nreq_respond(q, 0, -r);
}

/* One naming or removing call on (parent, name) after the checks. */
static int do_simple(const struct sbx__nreq *q, int op, int base, char *a, int base2, char *b,
                     const uint64_t *args)
{
        struct target o = { -1, NULL, 0 }, t = { -1, NULL, 0 };
        int at, r, e = 0;

        switch (op) {
        case SBX__N_MKDIR: case SBX__N_MKDIRAT: case SBX__N_MKNOD: case SBX__N_MKNODAT:
                at = op == SBX__N_MKDIRAT || op == SBX__N_MKNODAT;
                if ((r = open_parent(q, base, a, &t)) < 0)
                        e = -r;
                else if ((e = refused(q, &t, R_NAME)) != 0)
                        ;
                else if (op == SBX__N_MKDIR || op == SBX__N_MKDIRAT)
                        e = mkdirat(t.dirfd, t.name, (mode_t) args[at ? 2 : 1]) < 0 ? errno : 0;
                else
                        e = mknodat(t.dirfd, t.name, (mode_t) args[at ? 2 : 1],
                                    (dev_t) args[at ? 3 : 2]) < 0 ? errno : 0;
                break;
        case SBX__N_SYMLINK: case SBX__N_SYMLINKAT:
                if ((r = open_parent(q, base2, b, &t)) < 0)
                        e = -r;
                else if ((e = refused(q, &t, R_NAME)) == 0)
                        e = symlinkat(a, t.dirfd, t.name) < 0 ? errno : 0;
                break;
        case SBX__N_LINK: case SBX__N_LINKAT: {
                int flags = op == SBX__N_LINKAT ? as_int(args[4]) : 0;

                if ((r = open_parent(q, base2, b, &t)) < 0) {
                        e = -r;
                } else if ((e = refused(q, &t, R_NAME)) != 0) {
                        ;
                } else if (a[0] == '\0' && (flags & AT_EMPTY_PATH)) {
                        /* linkat(fd, "", ...): the file behind the fd. */
                        char p[64];
                        struct stat st;

                        proc_path(p, q->pid, "fd/", as_int(args[0]));
                        if (stat(p, &st) == 0 && is_prot(q->ctx, &st, PROT_OBJECT))
                                e = EACCES;
                        else
                                e = linkat(AT_FDCWD, p, t.dirfd, t.name, AT_SYMLINK_FOLLOW) < 0
                                    ? errno : 0;
                } else if ((r = open_parent(q, base, a, &o)) < 0) {
                        e = -r;
                } else if ((e = refused(q, &o, 0)) == 0) {
                        /* a link to a protected file would be a writable name for it */
                        e = linkat(o.dirfd, o.name, t.dirfd, t.name,
                                   flags & AT_SYMLINK_FOLLOW) < 0 ? errno : 0;
                }
                break;
        }
        case SBX__N_UNLINK: case SBX__N_UNLINKAT: case SBX__N_RMDIR: {
                int flags = op == SBX__N_RMDIR ? AT_REMOVEDIR
                            : op == SBX__N_UNLINKAT ? as_int(args[2]) : 0;

                if ((r = open_parent(q, base, a, &t)) < 0)
                        e = -r;
                else if ((e = refused(q, &t, R_NAME | R_MOVE)) == 0)
                        e = unlinkat(t.dirfd, t.name, flags) < 0 ? errno : 0;
                break;
        }
        default: {      /* rename, renameat, renameat2 */
                unsigned flags = op == SBX__N_RENAMEAT2 ? (unsigned) args[4] : 0;

                if ((r = open_parent(q, base, a, &o)) < 0 ||
                    (r = open_parent(q, base2, b, &t)) < 0)
                        e = -r;
                else if ((e = refused(q, &t, R_NAME | R_MOVE)) == 0 &&
                         (e = refused(q, &o, R_NAME | R_MOVE)) == 0)
                        e = syscall(SYS_renameat2, o.dirfd, o.name, t.dirfd, t.name, flags) < 0
                            ? errno : 0;
                break;
        }
        }
        drop(&o);
        drop(&t);
        return e;
}

/* truncate(path, length): follow the path, check, truncate through our fd. */
static int do_truncate(const struct sbx__nreq *q, int base, char *path, uint64_t length)
{
        struct target t = { -1, NULL, 0 };
        int r, e, magic = 0, fd;

        if ((r = open_parent(q, base, path, &t)) < 0 || (r = follow_final(q, &t, path, &magic)) < 0) {
                drop(&t);
                return -r;
        }
        e = magic ? magic_refused(q, &t) : refused(q, &t, 0);
        if (e == 0) {
                fd = openat(t.dirfd, t.name, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                                             (magic ? 0 : O_NOFOLLOW));
                if (fd < 0)
                        e = errno;
                else {
                        e = ftruncate(fd, (off_t) length) < 0 ? errno : 0;
                        (void) close(fd);
                }
        }
        drop(&t);
        return e;
}

/* The call's path arguments (into a, b: NPATH each), copied once from the
 * caller's memory.  0 or -errno. */
static int copy_paths(pid_t pid, uint8_t op, const uint64_t *args, char *a, char *b)
{
        int r;

        switch (op) {
        case SBX__N_OPEN: case SBX__N_CREAT: case SBX__N_MKDIR: case SBX__N_MKNOD:
        case SBX__N_UNLINK: case SBX__N_RMDIR: case SBX__N_TRUNCATE:
                r = read_str(pid, args[0], a);
                break;
        case SBX__N_OPENAT: case SBX__N_MKDIRAT: case SBX__N_MKNODAT: case SBX__N_UNLINKAT:
                r = read_str(pid, args[1], a);
                break;
        case SBX__N_LINK: case SBX__N_RENAME: case SBX__N_SYMLINK:
                r = read_str(pid, args[0], a);
                if (r == 0)
                        r = read_str(pid, args[1], b);
                break;
        case SBX__N_SYMLINKAT:
                r = read_str(pid, args[0], a);
                if (r == 0)
                        r = read_str(pid, args[2], b);
                break;
        default:        /* linkat, renameat, renameat2 */
                r = read_str(pid, args[1], a);
                if (r == 0)
                        r = read_str(pid, args[3], b);
                break;
        }
        return r;
}

/* The O_PATH bases of the call's paths (NOFD where it has none; a
 * negative errno where one failed). */
static void open_bases(const struct sbx__nreq *q, uint8_t op, const uint64_t *args,
                       const char *a, const char *b, int *base, int *base2)
{
        switch (op) {
        case SBX__N_OPEN: case SBX__N_CREAT: case SBX__N_MKDIR: case SBX__N_MKNOD:
        case SBX__N_UNLINK: case SBX__N_RMDIR: case SBX__N_TRUNCATE:
                *base = open_base(q, AT_FDCWD, a, 0);
                break;
        case SBX__N_OPENAT: case SBX__N_MKDIRAT: case SBX__N_MKNODAT: case SBX__N_UNLINKAT:
                *base = open_base(q, as_int(args[0]), a, 0);
                break;
        case SBX__N_LINK: case SBX__N_RENAME:
                *base = open_base(q, AT_FDCWD, a, 0);
                *base2 = open_base(q, AT_FDCWD, b, 0);
                break;
        case SBX__N_SYMLINK:
                *base2 = open_base(q, AT_FDCWD, b, 0);
                break;
        case SBX__N_SYMLINKAT:
                *base2 = open_base(q, as_int(args[1]), b, 0);
                break;
        case SBX__N_LINKAT:
                *base = open_base(q, as_int(args[0]), a,
                                  a[0] == '\0' && (args[4] & AT_EMPTY_PATH));
                *base2 = open_base(q, as_int(args[2]), b, 0);
                break;
        default:
                *base = open_base(q, as_int(args[0]), a, 0);
                *base2 = open_base(q, as_int(args[2]), b, 0);
                break;
        }
}

/* ------------------------------------------------------------ metadata
 *
 * Rung 2 (SBX__NF_META): chmod, chown, utimes and xattr writes, which
 * Landlock does not cover.  The supervisor finds the object as the kernel
 * would for the caller, holds it as an O_PATH fd, and makes the call on
 * that fd (/proc/self/fd/N) only when
 *   - the object lies at or below one the Landlock ruleset grants writes
 *     at (ctx->wr, walked up through ".."): the command could write it;
 *   - it is not protected (a protected object or pinned directory, or
 *     below a protected tree);
 *   - the change needs no privilege: no setuid/setgid bit (the seccomp
 *     filter refuses those first), chown only to the caller's own ids,
 *     xattrs only in the "user." namespace (never security.capability);
 *   - it is not a device node.
 * A name swapped after the check (a symbolic link put in its place)
 * changes nothing, the call goes to the held fd; an object moved after it
 * stays where the command may write, since Landlock lets it move only
 * between such places.  A file with no name left (deleted, O_TMPFILE,
 * memfd) changes nothing anyone else can reach and is allowed.
 */

struct meta {
        int         fd;         /* O_PATH on the object, or -1 */
        struct stat st;
        int         dirfd;      /* its directory (non-directories), or -1 */
        int         anon;       /* no name left (st_nlink == 0) */
        char       *where;      /* NPATH: its path, for the observer */
};

/* 1 if the walk from directory dirfd meets a write-rule object (see
 * walk_up), 0 if not, -EACCES if it meets a protected tree or fails. */
static int meta_walk(const struct sbx__notify_ctx *c, int dirfd, int self)
{
        int wr = 0;

        return walk_up(c, dirfd, self, &wr) != 0 ? -EACCES : wr;
}

/* 0 if the command may change m's metadata here, else a positive errno. */
static int meta_allowed(const struct sbx__notify_ctx *c, const struct meta *m)
{
        int r;

        if (S_ISCHR(m->st.st_mode) || S_ISBLK(m->st.st_mode))
                return EPERM;
        if (m->anon)
                return 0;
        if (is_prot(c, &m->st, PROT_PINNED))
                return EACCES;
        if (S_ISDIR(m->st.st_mode))
                r = meta_walk(c, m->fd, 1);
        else if (is_wr(c, &m->st, 1))
                r = meta_walk(c, m->dirfd, 0) < 0 ? -EACCES : 1;
        else
                r = meta_walk(c, m->dirfd, 0);
        return r == 1 ? 0 : EACCES;
}

/* "/proc/self/fd/<fd>" into buf (>= 32 bytes). */
static void self_fd(char *buf, int fd)
{
        memcpy(buf, "/proc/self/fd/", 14);
        *sbx__put_uint(buf + 14, (unsigned long) fd) = '\0';
}

/*
 * m from an fd the supervisor holds on the object (opened through the
 * caller's fd or a magic link): its path, and for a non-directory the
 * directory that holds that name, checked to still hold this object.
 */
static int meta_locate(const struct sbx__nreq *q, struct meta *m)
{
        char link[32];
        struct target t = { -1, NULL, 0 };
        struct stat st;
        ssize_t n;
        int r;

        if (fstat(m->fd, &m->st) < 0)
                return -errno;
        if (m->st.st_nlink == 0 && !S_ISDIR(m->st.st_mode)) {
                m->anon = 1;
                return 0;
        }
        self_fd(link, m->fd);
        n = readlink(link, m->where, NPATH - 1);
        if (n <= 0 || m->where[0] != '/')
                return n <= 0 ? -EACCES : -EPERM;       /* a pipe, socket or anon inode */
        m->where[n] = '\0';
        if (S_ISDIR(m->st.st_mode))
                return 0;                               /* walked from itself */
        {
                static char copy[NPATH];

                memcpy(copy, m->where, (size_t) n + 1);
                r = open_parent(q, -1, copy, &t);
        }
        if (r < 0 || fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            st.st_dev != m->st.st_dev || st.st_ino != m->st.st_ino) {
                drop(&t);
                return -EACCES;                         /* moved, or not in view */
        }
        m->dirfd = t.dirfd;
        return 0;
}

/* m from the caller's fd (or cwd for AT_FDCWD). */
static int meta_from_fd(const struct sbx__nreq *q, int cfd, struct meta *m)
{
        char p[64];

        if (cfd == AT_FDCWD)
                proc_path(p, q->pid, "cwd", -1);
        else if (cfd >= 0)
                proc_path(p, q->pid, "fd/", cfd);
        else
                return -EBADF;
        m->fd = open(p, O_PATH | O_CLOEXEC);
        if (m->fd < 0)
                return errno == ENOENT ? -EBADF : -errno;
        return meta_locate(q, m);
}

/* m from a path the caller gave (relative to cfd), following the final
 * symbolic link when `follow`. */
static int meta_from_path(const struct sbx__nreq *q, int cfd, char *path, int follow,
                          struct meta *m)
{
        struct target t = { -1, NULL, 0 };
        int base, r, magic = 0;

        base = open_base(q, cfd, path, 0);
        if (base < 0)
                return base;
        r = open_parent(q, base, path, &t);
        (void) close(base);
        if (r == 0 && follow)
                r = follow_final(q, &t, path, &magic);
        if (r < 0) {
                drop(&t);
                return r;
        }
        if (magic) {                    /* /proc/<pid>/fd/N: the kernel follows it */
                m->fd = openat(t.dirfd, t.name, O_PATH | O_CLOEXEC);
                drop(&t);
                return m->fd < 0 ? -errno : meta_locate(q, m);
        }
        m->fd = openat(t.dirfd, t.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (m->fd < 0 || fstat(m->fd, &m->st) < 0) {
                r = -errno;
                drop(&t);
                return r;
        }
        if (follow && S_ISLNK(m->st.st_mode)) {
                drop(&t);
                return -ELOOP;          /* made a link after follow_final: a race */
        }
        m->anon = 0;
        m->dirfd = t.dirfd;             /* the object's own directory, but for "." and ".." */
        if (S_ISDIR(m->st.st_mode)) {
                drop(&t);
                m->dirfd = -1;
        }
        return 0;
}

/* Copy len bytes from the caller; 0 or -EFAULT. */
static int read_mem(pid_t pid, uint64_t addr, void *out, size_t len)
{
        struct iovec l = { out, len }, r = { (void *) (uintptr_t) addr, len };

        if (addr == 0)
                return -EFAULT;
        return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t) len ? 0 : -EFAULT;
}

/* utime/utimes/futimesat/utimensat's times into ts (NULL: now). */
static int meta_times(pid_t pid, uint8_t op, uint64_t addr, struct timespec ts[2], int *now)
{
        *now = addr == 0;
        if (addr == 0)
                return 0;
        if (op == SBX__N_UTIME) {
                time_t t[2];

                if (read_mem(pid, addr, t, sizeof(t)) < 0)
                        return -EFAULT;
                ts[0].tv_sec = t[0];
                ts[1].tv_sec = t[1];
                ts[0].tv_nsec = ts[1].tv_nsec = 0;
        } else if (op == SBX__N_UTIMENSAT) {
                if (read_mem(pid, addr, ts, 2 * sizeof(*ts)) < 0)
                        return -EFAULT;
        } else {
                struct timeval tv[2];
                int i;

                if (read_mem(pid, addr, tv, sizeof(tv)) < 0)
                        return -EFAULT;
                for (i = 0; i < 2; i++) {
                        if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
                                return -EINVAL;
                        ts[i].tv_sec = tv[i].tv_sec;
                        ts[i].tv_nsec = tv[i].tv_usec * 1000;
                }
        }
        return 0;
}

/* 1 if id is the caller's own (or -1: unchanged). */
static int own_uid(uint64_t v)
{
        uid_t id = (uid_t) v;

        return id == (uid_t) -1 || id == geteuid();
}

static int own_gid(uint64_t v)
{
        gid_t id = (gid_t) v, groups[256];
        int i, n;

        if (id == (gid_t) -1 || id == getegid())
                return 1;
        n = getgroups(256, groups);
        for (i = 0; i < n; i++)
                if (groups[i] == id)
                        return 1;
        return 0;
}

/* An xattr name (into name, NPATH) the command may set or remove:
 * "user." only.  0 or a positive errno. */
static int meta_xattr_name(pid_t pid, uint64_t addr, char *name)
{
        int r = read_str(pid, addr, name);

        if (r < 0)
                return -r;
        if (strlen(name) > 255)
                return ERANGE;
        return strncmp(name, "user.", 5) == 0 ? 0 : EPERM;
}

/* The call itself, on m's fd, once the object passed meta_allowed. */
static int meta_do(const struct sbx__nreq *q, uint8_t op, const uint64_t *args,
                   const struct meta *m, char *b)
{
        static char value[65536];
        struct timespec ts[2];
        char fdp[32];
        mode_t mode;
        size_t k, size;
        int r, now = 0;

        self_fd(fdp, m->fd);
        switch (op) {
        case SBX__N_CHMOD: case SBX__N_FCHMOD: case SBX__N_FCHMODAT:
                mode = (mode_t) args[op == SBX__N_FCHMODAT ? 2 : 1];
                if (mode & (S_ISUID | S_ISGID))
                        return EPERM;
                if (S_ISLNK(m->st.st_mode))
                        return EOPNOTSUPP;
                return chmod(fdp, mode & 07777) < 0 ? errno : 0;
        case SBX__N_CHOWN: case SBX__N_LCHOWN: case SBX__N_FCHOWN: case SBX__N_FCHOWNAT:
                k = op == SBX__N_FCHOWNAT ? 2 : 1;
                if (!own_uid(args[k]) || !own_gid(args[k + 1]))
                        return EPERM;
                return fchownat(m->fd, "", (uid_t) args[k], (gid_t) args[k + 1], AT_EMPTY_PATH) < 0
                       ? errno : 0;
        case SBX__N_UTIME: case SBX__N_UTIMES: case SBX__N_FUTIMESAT: case SBX__N_UTIMENSAT:
                r = meta_times(q->pid, op, args[op == SBX__N_UTIME || op == SBX__N_UTIMES ? 1 : 2],
                               ts, &now);
                if (r < 0)
                        return -r;
                if (S_ISLNK(m->st.st_mode))
                        return utimensat(m->fd, "", now ? NULL : ts,
                                         AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
                return utimensat(AT_FDCWD, fdp, now ? NULL : ts, 0) < 0 ? errno : 0;
        default:                /* the xattr calls */
                r = meta_xattr_name(q->pid, args[1], b);
                if (r != 0)
                        return r;
                if (S_ISLNK(m->st.st_mode))
                        return EPERM;   /* no user. xattrs on links (the kernel's answer) */
                if (op == SBX__N_RMXATTR || op == SBX__N_LRMXATTR || op == SBX__N_FRMXATTR)
                        return removexattr(fdp, b) < 0 ? errno : 0;
                size = (size_t) args[3];
                if (size > sizeof(value))
                        return E2BIG;
                if (size > 0 && read_mem(q->pid, args[2], value, size) < 0)
                        return EFAULT;
                return setxattr(fdp, b, value, size, as_int(args[4])) < 0 ? errno : 0;
        }
}

/* How the call names its object: into *cfd, *path (0: by fd), *follow. */
static int meta_names(uint8_t op, const uint64_t *args, int *cfd, uint64_t *path, int *follow,
                      int *flags)
{
        *cfd = AT_FDCWD;
        *path = 0;
        *follow = 1;
        *flags = 0;
        switch (op) {
        case SBX__N_CHMOD: case SBX__N_CHOWN: case SBX__N_UTIME: case SBX__N_UTIMES:
        case SBX__N_SETXATTR: case SBX__N_RMXATTR:
                *path = args[0];
                return 0;
        case SBX__N_LCHOWN: case SBX__N_LSETXATTR: case SBX__N_LRMXATTR:
                *path = args[0];
                *follow = 0;
                return 0;
        case SBX__N_FCHMOD: case SBX__N_FCHOWN: case SBX__N_FSETXATTR: case SBX__N_FRMXATTR:
                *cfd = as_int(args[0]);
                return 0;
        case SBX__N_FCHMODAT: case SBX__N_FUTIMESAT:
                *cfd = as_int(args[0]);
                *path = args[1];
                return op == SBX__N_FUTIMESAT && *path == 0 && *cfd == AT_FDCWD ? -EFAULT : 0;
        default:                /* fchownat, utimensat */
                *cfd = as_int(args[0]);
                *path = args[1];
                *flags = as_int(args[op == SBX__N_FCHOWNAT ? 4 : 3]);
                if ((*flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) != 0 ||
                    (*path == 0 && *flags != 0))
                        return -EINVAL;
                if (op == SBX__N_FCHOWNAT && *path == 0)
                        return -EFAULT;
                if (*path == 0 && *cfd == AT_FDCWD)
                        return -EFAULT;
                *follow = !(*flags & AT_SYMLINK_NOFOLLOW);
                return 0;
        }
}

/* One metadata call (SBX__NF_META), answered. */
static void do_meta(struct sbx__nreq *q, uint8_t op, const uint64_t *args, char *a, char *b)
{
        static char where[NPATH];
        struct meta m = { -1, { 0 }, -1, 0, where };
        uint64_t path;
        int cfd, follow, flags, by_fd, r, e;
        ssize_t n;
        char link[32];

        where[0] = '\0';
        r = meta_names(op, args, &cfd, &path, &follow, &flags);
        by_fd = r == 0 && path == 0;
        if (r == 0 && path != 0 && (r = read_str(q->pid, path, a)) == 0 && a[0] == '\0') {
                if (flags & AT_EMPTY_PATH)
                        by_fd = 1;
                else
                        r = -ENOENT;
        }
        if (r == 0)
                r = by_fd ? meta_from_fd(q, cfd, &m) : meta_from_path(q, cfd, a, follow, &m);
        if (!sbx__nreq_valid(q))
                goto out;               /* gone, or its pid reused */
        if (r < 0) {
                e = -r;
        } else if ((e = meta_allowed(q->ctx, &m)) == EACCES) {
                /* Where it was refused, for the observer: a write. */
                if (where[0] == '\0') {
                        self_fd(link, m.fd);
                        n = readlink(link, where, NPATH - 1);
                        where[n > 0 ? n : 0] = '\0';
                }
                if (where[0] == '/') {
                        q->op = op;
                        q->path = where;
                        q->base = NOFD;
                }
        } else if (e == 0) {
                e = meta_do(q, op, args, &m, b);
        }
        sbx__nreq_respond(q, 0, e);
out:
        if (m.fd >= 0)
                (void) close(m.fd);
        if (m.dirfd >= 0)
                (void) close(m.dirfd);
}

int sbx__notify_serve(int lfd, const struct sbx__notify_ctx *ctx)
{
        /* Room for a kernel whose structs grew. */
        union {
                struct seccomp_notif n;
                char pad[512];
        } u;
        static char a[NPATH], b[NPATH];
        uint64_t args[6];
        struct sbx__nreq q;
        size_t i;
        uint8_t op = 0;
        int base = NOFD, base2 = NOFD, r = 0, e = 0;
        mode_t old_mask;

        memset(&u, 0, sizeof(u));
        if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &u.n) < 0)
                return errno == EINTR || errno == ENOENT ? 0 : -errno;
        memset(&q, 0, sizeof(q));
        q.lfd = lfd;
        q.id = u.n.id;
        q.pid = (pid_t) u.n.pid;
        q.ctx = ctx;
        q.base = NOFD;
        memcpy(args, u.n.data.args, sizeof(args));
        for (i = 0; i < ctx->map->n; i++)
                if (ctx->map->v[i].arch == u.n.data.arch && ctx->map->v[i].nr == u.n.data.nr)
                        op = ctx->map->v[i].op;
        if (op == SBX__N_SOCKET) {
                sbx__observe_socket(&q, args);          /* always EPERM */
                return 0;
        }
        if (op == 0 || (ctx->obs == NULL && (op == SBX__N_EXECVE || op == SBX__N_EXECVEAT))) {
                sbx__nreq_respond(&q, 0, ENOSYS);
                return 0;
        }
        /* Only watched (the observer): judged, then the kernel runs it. */
        if (sbx__observe_call(&q, op, args))
                return 0;
        if (op == SBX__N_CONNECT || op == SBX__N_SOCKETCALL) {
                sbx__notify_connect(&q, args, op == SBX__N_SOCKETCALL);
                return 0;
        }
        if (op >= SBX__N_META_FIRST && op <= SBX__N_META_LAST) {
                do_meta(&q, op, args, a, b);
                return 0;
        }

        /* 1. The path arguments, copied once. */
        r = copy_paths(q.pid, op, args, a, b);
        if (r < 0) {
                sbx__nreq_respond(&q, 0, -r);
                return 0;
        }

        /* 2. The bases, then: is the caller still waiting (same pid)? */
        open_bases(&q, op, args, a, b, &base, &base2);
        if ((base < 0 && base != NOFD) || (base2 < 0 && base2 != NOFD)) {
                e = base < 0 && base != NOFD ? -base : -base2;
                goto out;
        }
        if (!sbx__nreq_valid(&q))
                goto gone;
        /* What the observer records if it fails. */
        q.op = op;
        q.path = a;
        q.base = base;
        if (op == SBX__N_OPEN || op == SBX__N_OPENAT)
                q.oflags = as_int(args[op == SBX__N_OPEN ? 1 : 2]);
        else if (op == SBX__N_SYMLINK || op == SBX__N_SYMLINKAT || op == SBX__N_LINK ||
                 op == SBX__N_LINKAT || op == SBX__N_RENAME || op == SBX__N_RENAMEAT ||
                 op == SBX__N_RENAMEAT2) {
                q.path = b;             /* the new name */
                q.base = base2;
        }

        /* 3 and 4: vet and do it, with the caller's umask. */
        old_mask = umask(caller_umask(q.pid));
        switch (op) {
        case SBX__N_OPEN: case SBX__N_OPENAT: case SBX__N_CREAT: {
                int flags = op == SBX__N_CREAT ? O_CREAT | O_WRONLY | O_TRUNC
                            : as_int(args[op == SBX__N_OPEN ? 1 : 2]);
                mode_t mode = (mode_t) args[op == SBX__N_OPENAT ? 3 : op == SBX__N_OPEN ? 2 : 1];

                do_open(&q, base, a, flags, mode);
                (void) umask(old_mask);
                goto gone;
        }
        case SBX__N_TRUNCATE:
                e = do_truncate(&q, base, a, args[1]);
                break;
        default:
                e = do_simple(&q, op, base, a, base2, b, args);
                break;
        }
        (void) umask(old_mask);
out:
        sbx__nreq_respond(&q, 0, e);
gone:
        if (base >= 0)
                (void) close(base);
        if (base2 >= 0)
                (void) close(base2);
        return 0;
}
