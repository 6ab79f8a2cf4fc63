/*
 * observe.c - the denial observer (SBX_SPAWN_OBSERVE), run by the
 * supervisor in the rung-1 init / rung-2 monitor: async-signal-safe code
 * only (docs/events.md).
 *
 * The observer never decides anything.  With SBX__NF_OBSERVE the command's
 * filter (seccomp_notify.c) also sends every open, exec, remove and rename
 * it does not already send for the git veto.  For those the supervisor
 * copies the path, makes it absolute in the sandbox's view, evaluates it
 * against the plan's rules (flattened by the parent into struct sbx__obs)
 * and answers SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel then runs the
 * call under the same mounts, Landlock domain and seccomp filter as
 * without the observer, so a path the observer misjudges changes a record,
 * never an outcome.  Calls the supervisor does itself (the git veto's,
 * --allow-unix connects) are recorded from their real result.
 *
 * A record is written when the plan denies the operation; the host then
 * keeps it only if the target exists on the host (a file that exists
 * nowhere is not a denial; exec/events.c).  Rung 1 also asks its own view:
 * a path the command can see was not hidden from it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "backend/backend.h"
#include "compile/plan_internal.h"
#include "linux/ladder.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#  define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

#define NPATH 4096
#define SENT_MAX 256            /* records one spawn's supervisor sends at most */

/* The counts live in a shared mapping (struct sbx__obs_shared): the
 * supervisor's forked workers (a connect, a FIFO open) count with it, so
 * the cap, the repeats and the room kept for the summary hold for all. */
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define GET(p)    __atomic_load_n((p), __ATOMIC_RELAXED)

static void cont(const struct sbx__nreq *q)
{
        struct seccomp_notif_resp resp;

        memset(&resp, 0, sizeof(resp));
        resp.id = q->id;
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        (void) ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static uint64_t hash(uint8_t op, const char *s, size_t n)
{
        uint64_t h = 1469598103934665603ull ^ op;
        size_t i;

        for (i = 0; i < n; i++)
                h = (h ^ (uint8_t) s[i]) * 1099511628211ull;
        return h;
}

static void emit(const struct sbx__obs *o, uint8_t op, uint8_t flags, int err, pid_t pid,
                 const char *target, size_t len)
{
        char buf[sizeof(struct sbx__obs_rec) + SBX__OBS_TARGET_MAX];
        struct sbx__obs_shared *sh = o->sh;
        struct sbx__obs_rec r;
        struct timespec ts;
        uint64_t h = hash(op, target, len);
        unsigned i, n = GET(&sh->n_seen);

        for (i = 0; i < n && i < SBX__OBS_SEEN_MAX; i++)
                if (GET(&sh->seen[i]) == h)
                        return;                 /* a repeat counts once */
        i = ADD(&sh->n_seen, 1) - 1;
        if (i < SBX__OBS_SEEN_MAX)
                __atomic_store_n(&sh->seen[i], h, __ATOMIC_RELAXED);
        if (len > SBX__OBS_TARGET_MAX) {
                len = SBX__OBS_TARGET_MAX;
                flags |= SBX__OBS_TRUNC;
        }
        /* The cap, and room left in the pipe for the summary record. */
        if (ADD(&sh->sent, 1) > SENT_MAX ||
            ADD(&sh->bytes, sizeof(r) + len) + sizeof(r) > o->pipe_size) {
                ADD(&sh->dropped, 1);
                return;
        }
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        memset(&r, 0, sizeof(r));
        r.len = (uint16_t) len;
        r.op = op;
        r.flags = flags;
        r.err = err;
        r.pid = (int32_t) pid;
        r.time_ms = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        memcpy(buf, &r, sizeof(r));
        memcpy(buf + sizeof(r), target, len);
        if (write(o->fd, buf, sizeof(r) + len) != (ssize_t) (sizeof(r) + len))
                ADD(&sh->dropped, 1);
}

void sbx__observe_finish(const struct sbx__obs *o)
{
        struct sbx__obs_rec r;

        if (o == NULL)
                return;
        memset(&r, 0, sizeof(r));
        r.dropped = GET(&o->sh->dropped);
        (void) write(o->fd, &r, sizeof(r));
}

/* ------------------------------------------------------------ paths */

static int copy_str(pid_t pid, uint64_t addr, char *out)
{
        struct iovec local = { out, NPATH }, remote = { (void *) (uintptr_t) addr, NPATH };
        ssize_t n;

        /* Page by page would be exact; one read of NPATH may stop at an
         * unmapped page, so retry shorter up to the page end. */
        n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0) {
                size_t room = 4096 - (size_t) (addr & 4095);

                local.iov_len = remote.iov_len = room;
                n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        }
        if (n <= 0 || memchr(out, '\0', (size_t) n) == NULL)
                return -1;
        return 0;
}

static char *put(char *p, char *end, const char *s)
{
        while (*s != '\0' && p < end)
                *p++ = *s++;
        return p;
}

/* The directory a relative path starts from: /proc/<pid>/cwd or
 * /proc/<pid>/fd/<dfd>, read as a link.  Its length, or -1. */
static ssize_t base_dir(pid_t pid, int dfd, char *out, size_t max)
{
        char link[64], *p = link, *end = link + sizeof(link) - 1;
        ssize_t n;

        p = put(p, end, "/proc/");
        p = sbx__put_uint(p, (unsigned long) pid);
        if (dfd == AT_FDCWD) {
                p = put(p, end, "/cwd");
        } else {
                if (dfd < 0)
                        return -1;
                p = put(p, end, "/fd/");
                p = sbx__put_uint(p, (unsigned long) dfd);
        }
        *p = '\0';
        n = readlink(link, out, max - 1);
        if (n <= 0 || out[0] != '/')
                return -1;
        out[n] = '\0';
        return n;
}

/* path made absolute (relative to dfd in pid) and cleaned lexically ("."
 * and ".." components, repeated slashes) into out; its length or -1. */
static ssize_t absolute(pid_t pid, int dfd, const char *path, char *out)
{
        static char joined[2 * NPATH + 2];
        size_t n = 0, o = 0, i;

        if (path[0] != '/') {
                ssize_t b = base_dir(pid, dfd, joined, NPATH);

                if (b < 0)
                        return -1;
                n = (size_t) b;
                joined[n++] = '/';
        }
        for (i = 0; path[i] != '\0' && n < sizeof(joined) - 1; i++)
                joined[n++] = path[i];
        joined[n] = '\0';
        for (i = 0; i < n;) {
                size_t s, len;

                while (i < n && joined[i] == '/')
                        i++;
                s = i;
                while (i < n && joined[i] != '/')
                        i++;
                len = i - s;
                if (len == 0 || (len == 1 && joined[s] == '.'))
                        continue;
                if (len == 2 && joined[s] == '.' && joined[s + 1] == '.') {
                        while (o > 0 && out[o - 1] != '/')
                                o--;
                        if (o > 0)
                                o--;
                        continue;
                }
                if (o + 1 + len >= NPATH)
                        return -1;
                out[o++] = '/';
                memcpy(out + o, joined + s, len);
                o += len;
        }
        if (o == 0)
                out[o++] = '/';
        out[o] = '\0';
        return (ssize_t) o;
}

/* path lies at or below the root of length n. */
static int under(const char *path, size_t plen, const char *root, size_t n)
{
        if (n == 1 && root[0] == '/')
                return 1;
        return plen >= n && memcmp(path, root, n) == 0 && (plen == n || path[n] == '/');
}

/* What the plan lets the command do at path (SBX__FS_*): the deepest of
 * the plan's rules and the backend's scratch (writable, not in the plan)
 * decides.  Below a hidden home a rule outside it says nothing: rung 2
 * shows none of it; rung 1 mounts an empty writable home there, so
 * writes work and a read finds only what the command made (judge() asks
 * the sandbox's own view). */
static uint32_t access_at(const struct sbx__obs *o, const char *path, size_t plen)
{
        const char *best = NULL;
        size_t best_len = 0, i;
        uint32_t acc = 0;

        for (i = 0; i < o->n_scratch; i++) {
                size_t n = strlen(o->scratch[i]);

                if (under(path, plen, o->scratch[i], n) && (best == NULL || n >= best_len)) {
                        best = o->scratch[i];
                        best_len = n;
                        acc = SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC;
                }
        }
        for (i = 0; i < o->n_rules; i++) {
                const struct sbx__obs_rule *r = &o->rules[i];

                if ((r->tree ? under(path, plen, r->path, r->len)
                             : plen == r->len && memcmp(path, r->path, plen) == 0) &&
                    (best == NULL || r->len >= best_len)) {
                        best = r->path;
                        best_len = r->len;
                        acc = r->access;
                }
        }
        for (i = 0; i < 2 && best != NULL; i++) {
                size_t hl = o->homes[i] != NULL ? strlen(o->homes[i]) : 0;

                if (hl > 1 && under(path, plen, o->homes[i], hl) &&
                    !under(best, best_len, o->homes[i], hl))
                        acc = o->rung == 1 ? SBX__FS_WRITE : 0;
        }
        return acc;
}

/* The kernel's own files, where the plan's rules say nothing useful. */
static int kernel_file(const char *path, size_t plen)
{
        return under(path, plen, "/proc", 5) || under(path, plen, "/sys", 4) ||
               under(path, plen, "/dev", 4);
}

/* ------------------------------------------------------------ calls */

/* The SBX_OP_* an open with flags is, and the access it needs. */
static uint8_t open_op(int flags, uint32_t *need)
{
        if (flags & O_CREAT) {
                *need = SBX__FS_WRITE;
                return SBX_OP_CREATE;
        }
        if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)) {
                *need = SBX__FS_WRITE;
                return SBX_OP_WRITE;
        }
        *need = SBX__FS_READ;
        return SBX_OP_READ;
}

/* Judge one path call; record it if the plan denies it. */
static void judge(const struct sbx__nreq *q, uint8_t op, uint32_t need, int dfd, const char *path,
                  int done_err)
{
        static char abs_path[NPATH];
        const struct sbx__obs *o = q->ctx->obs;
        ssize_t n = absolute(q->pid, dfd, path, abs_path);
        uint32_t acc;
        uint8_t flags = 0;
        int err;

        if (n <= 0 || kernel_file(abs_path, (size_t) n))
                return;
        acc = access_at(o, abs_path, (size_t) n);
        if ((acc & need) == need && done_err != EPERM)
                return;                 /* the plan allows it (a veto is EPERM) */
        if (done_err == 0 && o->rung == 1 && need != SBX__FS_WRITE &&
            faccessat(AT_FDCWD, abs_path, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return;                 /* visible in the sandbox: not hidden */
        if (done_err != 0) {
                err = done_err;
                flags |= SBX__OBS_DONE;
        } else if (o->rung == 1) {
                err = acc & SBX__FS_READ ? (need == SBX__FS_WRITE ? EROFS : EACCES) : ENOENT;
        } else {
                err = EACCES;
        }
        if (op == SBX_OP_CREATE || op == SBX_OP_RENAME)
                flags |= SBX__OBS_PARENT;
        emit(o, op, flags, err, q->pid, abs_path, (size_t) n);
}

static int32_t as_int(uint64_t v)
{
        return (int32_t) (uint32_t) v;
}

/* Which ops the supervisor does itself for this filter (never continued). */
static int done_by_supervisor(const struct sbx__notify_ctx *c, uint8_t op, const uint64_t *args)
{
        int flags;

        switch (op) {
        case SBX__N_OPEN: case SBX__N_OPENAT:
                flags = as_int(args[op == SBX__N_OPEN ? 1 : 2]);
                if ((c->flags & SBX__NF_NAMES) && (flags & O_CREAT))
                        return 1;
                return (c->flags & SBX__NF_WRITES) &&
                       ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC));
        case SBX__N_UNLINK: case SBX__N_UNLINKAT: case SBX__N_RMDIR: case SBX__N_TRUNCATE:
                return (c->flags & SBX__NF_WRITES) != 0;
        case SBX__N_EXECVE: case SBX__N_EXECVEAT:
                return 0;
        case SBX__N_CONNECT: case SBX__N_SOCKETCALL:
                return 1;
        default:
                if (op >= SBX__N_META_FIRST && op <= SBX__N_META_LAST)
                        return (c->flags & SBX__NF_META) != 0;
                return (c->flags & SBX__NF_NAMES) != 0;
        }
}

int sbx__observe_call(const struct sbx__nreq *q, uint8_t op, const uint64_t *args)
{
        static char a[NPATH];
        uint32_t need = SBX__FS_WRITE;
        uint8_t eop;
        int dfd = AT_FDCWD;
        uint64_t addr;

        if (q->ctx->obs == NULL || done_by_supervisor(q->ctx, op, args))
                return 0;
        switch (op) {
        case SBX__N_OPEN:
                addr = args[0];
                eop = open_op(as_int(args[1]), &need);
                break;
        case SBX__N_OPENAT:
                dfd = as_int(args[0]);
                addr = args[1];
                eop = open_op(as_int(args[2]), &need);
                break;
        case SBX__N_CREAT: case SBX__N_MKDIR: case SBX__N_MKNOD:
                addr = args[0];
                eop = SBX_OP_CREATE;
                break;
        case SBX__N_MKDIRAT: case SBX__N_MKNODAT:
                dfd = as_int(args[0]);
                addr = args[1];
                eop = SBX_OP_CREATE;
                break;
        case SBX__N_UNLINK: case SBX__N_RMDIR:
                addr = args[0];
                eop = SBX_OP_DELETE;
                break;
        case SBX__N_UNLINKAT:
                dfd = as_int(args[0]);
                addr = args[1];
                eop = SBX_OP_DELETE;
                break;
        case SBX__N_TRUNCATE:
                addr = args[0];
                eop = SBX_OP_WRITE;
                break;
        case SBX__N_RENAME:
                addr = args[1];
                eop = SBX_OP_RENAME;
                break;
        case SBX__N_RENAMEAT: case SBX__N_RENAMEAT2:
                dfd = as_int(args[2]);
                addr = args[3];
                eop = SBX_OP_RENAME;
                break;
        case SBX__N_EXECVE:
                addr = args[0];
                eop = SBX_OP_EXEC;
                need = SBX__FS_EXEC;
                break;
        case SBX__N_EXECVEAT:
                dfd = as_int(args[0]);
                addr = args[1];
                eop = SBX_OP_EXEC;
                need = SBX__FS_EXEC;
                break;
        default:                /* link, symlink: not watched (docs/events.md) */
                cont(q);
                return 1;
        }
        /* Judged before the answer: the caller waits, so its cwd and
         * descriptors are the ones the call would use. */
        if (copy_str(q->pid, addr, a) == 0 && sbx__nreq_valid(q))
                judge(q, eop, need, dfd, a, 0);
        cont(q);
        return 1;
}

void sbx__observe_answer(const struct sbx__nreq *q, int error)
{
        uint32_t need = SBX__FS_WRITE;
        uint8_t eop;
        char dir[NPATH];
        const char *path = q->path;
        int dfd = AT_FDCWD;

        if (q->ctx->obs == NULL || q->path == NULL || q->op == 0 ||
            (error != EACCES && error != EPERM && error != EROFS && error != ENOENT))
                return;
        switch (q->op) {
        case SBX__N_OPEN: case SBX__N_OPENAT:
                eop = open_op(q->oflags, &need);
                break;
        case SBX__N_UNLINK: case SBX__N_UNLINKAT: case SBX__N_RMDIR:
                eop = SBX_OP_DELETE;
                break;
        case SBX__N_TRUNCATE:
                eop = SBX_OP_WRITE;
                break;
        case SBX__N_RENAME: case SBX__N_RENAMEAT: case SBX__N_RENAMEAT2:
                eop = SBX_OP_RENAME;
                break;
        default:        /* metadata calls change the object: a write */
                eop = q->op >= SBX__N_META_FIRST && q->op <= SBX__N_META_LAST ? SBX_OP_WRITE
                                                                               : SBX_OP_CREATE;
                break;
        }
        /* The supervisor's base is an O_PATH fd of its own: its path. */
        if (path[0] != '/' && q->base >= 0) {
                char link[48], *p = put(link, link + sizeof(link) - 1, "/proc/self/fd/");
                ssize_t n;

                p = sbx__put_uint(p, (unsigned long) q->base);
                *p = '\0';
                n = readlink(link, dir, sizeof(dir) - 1);
                if (n <= 0)
                        return;
                dir[n] = '\0';
                dfd = -1;
                {
                        static char joined[NPATH];
                        char *j = put(joined, joined + sizeof(joined) - 1, dir);

                        j = put(j, joined + sizeof(joined) - 1, "/");
                        j = put(j, joined + sizeof(joined) - 1, path);
                        *j = '\0';
                        path = joined;
                }
        }
        judge(q, eop, need, dfd, path, error);
}

void sbx__observe_socket(const struct sbx__nreq *q, const uint64_t *args)
{
        const char *fam = (uint32_t) args[0] == AF_INET6 ? "inet6" : "inet";

        if (q->ctx->obs != NULL)
                emit(q->ctx->obs, SBX_OP_SOCKET, SBX__OBS_DONE, EPERM, q->pid, fam, strlen(fam));
        sbx__nreq_respond(q, 0, EPERM);
}

void sbx__observe_connect(const struct sbx__nreq *q, const void *sa, unsigned salen, int error)
{
        const struct sbx__obs *o = q->ctx->obs;
        const struct sockaddr *s = sa;
        char t[160], *p = t, *end = t + sizeof(t) - 1;

        if (o == NULL || error == 0 || error == EINPROGRESS || error == EAGAIN ||
            error == EINTR || salen < sizeof(sa_family_t))
                return;
        if (s->sa_family == AF_UNIX) {
                const struct sockaddr_un *u = sa;
                size_t off = offsetof(struct sockaddr_un, sun_path), n;

                if (salen <= off)
                        return;
                n = strnlen(u->sun_path, salen - off);
                if (n == 0)
                        return;
                emit(o, SBX_OP_UNIX_CONNECT, 0, error, q->pid, u->sun_path, n);
                return;
        }
        if (!o->net_denied)
                return;
        if (s->sa_family == AF_INET && salen >= sizeof(struct sockaddr_in)) {
                const struct sockaddr_in *in = sa;
                const uint8_t *b = (const uint8_t *) &in->sin_addr;
                int i;

                for (i = 0; i < 4; i++) {
                        p = sbx__put_uint(p, b[i]);
                        if (i < 3)
                                *p++ = '.';
                }
                *p++ = ':';
                p = sbx__put_uint(p, ntohs(in->sin_port));
        } else if (s->sa_family == AF_INET6 && salen >= sizeof(struct sockaddr_in6)) {
                const struct sockaddr_in6 *in6 = sa;
                static const char hex[] = "0123456789abcdef";
                int i;

                *p++ = '[';
                for (i = 0; i < 16; i += 2) {
                        unsigned w = (unsigned) in6->sin6_addr.s6_addr[i] << 8 |
                                     in6->sin6_addr.s6_addr[i + 1];
                        int d, started = 0;

                        for (d = 12; d >= 0; d -= 4)
                                if (started || ((w >> d) & 0xf) != 0 || d == 0) {
                                        *p++ = hex[(w >> d) & 0xf];
                                        started = 1;
                                }
                        if (i < 14)
                                *p++ = ':';
                }
                p = put(p, end, "]:");
                p = sbx__put_uint(p, ntohs(in6->sin6_port));
        } else {
                return;
        }
        *p = '\0';
        emit(o, SBX_OP_CONNECT, SBX__OBS_DONE, error, q->pid, t, (size_t) (p - t));
}
