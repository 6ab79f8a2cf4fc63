/*
 * mounts.c - the rung-1 mount plan: a read-only (or empty) view of the
 * host, hidden scratch areas, every plan rule bound with its writability,
 * carve-outs and protected paths re-mounted read-only, a minimal /dev and
 * a fresh /proc.  Built in the parent as a list of operations; the child
 * runs them with sbx__run_op (async-signal-safe).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "linux/ladder.h"

#ifndef MOUNT_ATTR_RDONLY
#  define MOUNT_ATTR_RDONLY 0x00000001
#  define MOUNT_ATTR_NOSUID 0x00000002
#  define MOUNT_ATTR_NODEV  0x00000004
#  define MOUNT_ATTR_NOEXEC 0x00000008
#endif
#ifndef AT_RECURSIVE
#  define AT_RECURSIVE 0x8000
#endif

struct sbx__mount_attr {
        uint64_t attr_set;
        uint64_t attr_clr;
        uint64_t propagation;
        uint64_t userns_fd;
};

char *sbx__prep_str(struct sbx__prep *p, const char *a, const char *b)
{
        size_t la = strlen(a), lb = b != NULL ? strlen(b) : 0;
        char *s;

        if (SBX__GROW(p->strs, p->cap_strs, p->n_strs + 1, 64) < 0)
                return NULL;
        s = malloc(la + lb + 1);
        if (s == NULL)
                return NULL;
        memcpy(s, a, la);
        if (lb > 0)
                memcpy(s + la, b, lb);
        s[la + lb] = '\0';
        p->strs[p->n_strs++] = s;
        return s;
}

/* "/newroot" + p, with "/" mapping to "/newroot". */
static const char *nr(struct sbx__prep *p, const char *path)
{
        return sbx__prep_str(p, "/newroot", strcmp(path, "/") == 0 ? NULL : path);
}

static const char *orr(struct sbx__prep *p, const char *path)
{
        return sbx__prep_str(p, "/oldroot", strcmp(path, "/") == 0 ? NULL : path);
}

/* 1 if path lies strictly below directory dir (component-aware). */
int sbx__under(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        if (n == 1 && dir[0] == '/')
                return path[0] == '/' && path[1] != '\0';
        return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static int add_op(struct sbx__prep *p, int kind, const char *src, const char *dst, const char *data,
                  unsigned long flags, uint64_t attr, int optional)
{
        if (dst == NULL || ((kind == OP_BIND || kind == OP_BIND_NOFOLLOW) && src == NULL) ||
            (kind == OP_SYMLINK && src == NULL))
                return -ENOMEM;
        if (SBX__GROW(p->ops, p->cap_ops, p->n_ops + 1, 64) < 0)
                return -ENOMEM;
        p->ops[p->n_ops++] = (struct sbx__mop){ kind, optional, src, dst, data, flags, attr };
        return 0;
}

void sbx__prep_free(struct sbx__prep *p)
{
        size_t i;

        for (i = 0; i < p->n_strs; i++)
                free(p->strs[i]);
        free(p->strs);
        free(p->ops);
        free(p->exec_path);
        sbx_strv_free(p->envp);
        sbx__seccomp_free(&p->bpf);
        sbx__nft_msgs_free(&p->nft);
        if (p->ruleset_fd >= 0)
                close(p->ruleset_fd);
        p->ruleset_fd = -EBADF;
        if (p->parent_pidfd >= 0)
                close(p->parent_pidfd);
        p->parent_pidfd = -EBADF;
        if (p->scope_fd >= 0)
                close(p->scope_fd);
        p->scope_fd = -EBADF;
        if (p->notify != NULL) {        /* the sockets are set with the filter */
                if (p->notify_sock[0] >= 0)
                        close(p->notify_sock[0]);
                if (p->notify_sock[1] >= 0)
                        close(p->notify_sock[1]);
                p->notify_sock[0] = p->notify_sock[1] = -EBADF;
        }
        free(p->notify_prot);
        p->notify_prot = NULL;
        free(p->notify_wr);
        p->notify_wr = NULL;
        p->notify_ctx.wr = NULL;
        p->notify_ctx.n_wr = 0;
        sbx__observe_prep_free(p);
        for (i = 0; p->unix_fds != NULL && i < p->n_unix_fds; i++)
                if (p->unix_fds[i] >= 0)
                        close(p->unix_fds[i]);
        free(p->unix_fds);
        p->unix_fds = NULL;
        p->n_unix_fds = 0;
}

/* ------------------------------------------- async-signal-safe helpers */

static size_t as_strlen(const char *s)
{
        size_t n = 0;

        while (s[n] != '\0')
                n++;
        return n;
}

static int as_mkdirs(const char *path)
{
        char buf[SBX_PATH_MAX + 16];
        size_t i, n = as_strlen(path);

        if (n >= sizeof(buf))
                return -ENAMETOOLONG;
        for (i = 0; i <= n; i++) {
                buf[i] = path[i];
                if ((path[i] == '/' && i > 0) || path[i] == '\0') {
                        buf[i] = '\0';
                        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        buf[i] = path[i];
                }
        }
        return 0;
}

static int as_mount_setattr(const char *path, uint64_t set)
{
        struct sbx__mount_attr a = { set, 0, 0, 0 };

        if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof(a)) < 0)
                return -errno;
        return 0;
}

/* Bind src on dst through an fd opened with no symbolic link in any
 * component: what is bound is what was opened, whatever is swapped into
 * the path meanwhile.  Before Linux 5.6 (no openat2) or 5.2 (no
 * open_tree), a plain bind.  0 or -errno (ELOOP: a link). */
static int bind_nofollow(const char *src, const char *dst)
{
        struct open_how how;
        int fd, tree, e;

        memset(&how, 0, sizeof(how));
        how.flags = O_PATH | O_CLOEXEC;
        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        fd = (int) syscall(SYS_openat2, AT_FDCWD, src, &how, sizeof(how));
        if (fd < 0 && errno != ENOSYS)
                return -errno;
        if (fd >= 0) {
                tree = (int) syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                                                            AT_EMPTY_PATH | AT_RECURSIVE);
                e = errno;
                (void) close(fd);
                if (tree >= 0) {
                        if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst,
                                    MOVE_MOUNT_F_EMPTY_PATH) < 0) {
                                e = errno;
                                (void) close(tree);
                                return -e;
                        }
                        (void) close(tree);
                        return 0;
                }
                if (e != ENOSYS)
                        return -e;
        }
        if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
                return -errno;
        return 0;
}

int sbx__run_op(const struct sbx__mop *op, int ruleset_fd)
{
        struct stat st;
        int fd;

        switch (op->kind) {
        case OP_TMPFS:
                if (mount("tmpfs", op->dst, "tmpfs", op->flags, op->data) < 0)
                        return -errno;
                return 0;
        case OP_BIND:
                if (mount(op->src, op->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
                        return -errno;
                return 0;
        case OP_BIND_NOFOLLOW:
                return bind_nofollow(op->src, op->dst);
        case OP_SETATTR:
                return as_mount_setattr(op->dst, op->attr);
        case OP_MKDIRS:
                return as_mkdirs(op->dst);
        case OP_MKFILE:
                /* An existing one (a file of a read-only bound tree that a
                 * deeper rule binds again) is the mountpoint already. */
                if (fstatat(AT_FDCWD, op->dst, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        return 0;
                fd = open(op->dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (fd < 0)
                        return errno == EEXIST ? 0 : -errno;
                close(fd);
                return 0;
        case OP_SYMLINK:
                if (symlink(op->src, op->dst) < 0 && errno != EEXIST)
                        return -errno;
                return 0;
        case OP_PROC:
                /* Read-only whole: every kernel knob (sys/, sysrq-trigger,
                 * irq/, bus/, ... and whatever a later kernel adds) is
                 * refused by construction, even to a caller whose kuid is
                 * the host's root, which the sysctl check alone trusts. */
                if (mount("proc", op->dst, "proc",
                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                        return -errno;
                return 0;
        case OP_DEVPTS:
                if (mount("devpts", op->dst, "devpts", MS_NOSUID | MS_NOEXEC,
                          "newinstance,ptmxmode=0666,mode=0620") < 0)
                        return -errno;
                return 0;
        case OP_LL_TREE:
                if (ruleset_fd < 0)
                        return 0;
                return sbx__landlock_add_child(ruleset_fd, op->dst, (uint32_t) op->attr);
        default:
                return -EINVAL;
        }
}

#define OP(...) do { if ((r = add_op(p, __VA_ARGS__)) < 0) return r; } while (0)

/* Create the mountpoint for host object `path` (stat'ed as st) inside the
 * new root: a directory, or an empty file in its parent directory. */
static int emit_mountpoint(struct sbx__prep *p, const char *path, const struct stat *st)
{
        char buf[SBX_PATH_MAX + 32], *slash;
        int r;

        if (S_ISDIR(st->st_mode)) {
                OP(OP_MKDIRS, NULL, nr(p, path), NULL, 0, 0, 0);
                return 0;
        }
        snprintf(buf, sizeof(buf), "/newroot%s", path);
        slash = strrchr(buf, '/');
        *slash = '\0';
        OP(OP_MKDIRS, NULL, sbx__prep_str(p, buf, NULL), NULL, 0, 0, 0);
        OP(OP_MKFILE, NULL, nr(p, path), NULL, 0, 0, 0);
        return 0;
}

/* The writable rule a protected path belongs to (the deepest containing
 * rule with WRITE), or NULL. */
static const char *protected_root(const struct sbx_plan *plan, const char *path)
{
        const char *best = NULL;
        size_t i;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];

                if ((r->access & SBX__FS_WRITE) && r->scope == SBX__FS_TREE &&
                    sbx__under(path, r->path) && (best == NULL || strlen(r->path) > strlen(best)))
                        best = r->path;
        }
        return best;
}

/* The mount operations for one plan rule (not host, /dev or /proc). */
/* 1 if a rule granting something lies strictly below dir. */
static int rule_below(const struct sbx_plan *plan, const char *dir)
{
        size_t i;

        for (i = 0; plan != NULL && i < plan->n_rules; i++)
                if (plan->rules[i].access != 0 && sbx__under(plan->rules[i].path, dir))
                        return 1;
        return 0;
}

static int emit_rule(struct sbx__prep *p, const struct sbx_plan_fs_rule *rule, int host_read)
{
        const uint64_t ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const uint64_t rw = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const char *path = rule->path;
        char buf[SBX_PATH_MAX];
        struct stat st;
        ssize_t n;
        int r;

        if (lstat(path, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;       /* nothing to bind, and its parent decides creation */
                return -errno;
        }
        if (S_ISLNK(st.st_mode)) {
                /* Merged-/usr runtime links (/bin -> usr/bin) in an empty root;
                 * with the host visible the link is already there. */
                if (host_read || rule->origin != SBX__ORIGIN_RUNTIME)
                        return 0;
                n = readlink(path, buf, sizeof(buf) - 1);
                if (n < 0)
                        return -errno;
                buf[n] = '\0';
                OP(OP_SYMLINK, sbx__prep_str(p, buf, NULL), nr(p, path), NULL, 0, 0, 1);
                return 0;
        }
        if (rule->access == 0) {
                /* Carve-out: hide it behind an empty read-only object.  A
                 * path that is not in the new root at all (below a scratch
                 * /tmp, or outside every bound rule) is hidden already:
                 * the ops are optional (ENOENT/ENOTDIR are success). */
                int below = S_ISDIR(st.st_mode) && rule_below(p->plan, path);

                /* A rule below it (an executor's own directories in its
                 * set's hidden one) needs its mountpoint made in the
                 * tmpfs, and the command needs to pass through: the tmpfs
                 * stays writable for the setup and is mode 0111 (search
                 * only: nothing listed, nothing created by a command
                 * without capabilities). */
                if (S_ISDIR(st.st_mode))
                        OP(OP_TMPFS, NULL, nr(p, path), below ? "mode=0111,size=4k"
                                                              : "mode=0000,size=4k",
                           MS_NOSUID | MS_NODEV | MS_NOEXEC, 0, 1);
                else
                        OP(OP_BIND, sbx__prep_str(p, "/empty", NULL), nr(p, path), NULL, 0, 0, 1);
                if (!below)
                        OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, ro, 1);
                return 0;
        }
        if (rule->origin == SBX__ORIGIN_PROTECTED) {
                /* Pin every directory between the writable root and the
                 * protected path as a (writable) mountpoint: a mountpoint
                 * cannot be renamed or removed, so `mv .git .git-old` and a
                 * fresh .git with planted hooks are refused (EBUSY).  Then
                 * the host object itself, read-only. */
                char anc[SBX_PATH_MAX];
                const char *root = protected_root(p->plan, path);
                size_t i;

                if (root != NULL && strlen(path) < sizeof(anc)) {
                        for (i = strlen(root) + 1; path[i] != '\0'; i++) {
                                if (path[i] != '/')
                                        continue;
                                memcpy(anc, path, i);
                                anc[i] = '\0';
                                OP(OP_BIND, nr(p, anc), nr(p, anc), NULL, 0, 0, 1);
                        }
                }
                OP(OP_BIND, orr(p, path), nr(p, path), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, ro, 0);
                return 0;
        }
        if ((r = emit_mountpoint(p, path, &st)) < 0)
                return r;
        /* A configured root or a grant was canonical when the plan was
         * made: a link in its path now fails the spawn, never redirects it. */
        OP(rule->origin == SBX__ORIGIN_WORKSPACE || rule->origin == SBX__ORIGIN_ADDITIONAL
           ? OP_BIND_NOFOLLOW : OP_BIND, orr(p, path), nr(p, path), NULL, 0, 0, 0);
        OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, (rule->access & SBX__FS_WRITE) ? rw : ro, 0);
        return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Options of a scratch tmpfs: its mode, and with a memory limit also a
 * size, so files in /tmp, HOME or /dev/shm cannot hold more than the
 * command may use (tmpfs pages are not process memory). */
static const char *tmpfs_opts(struct sbx__prep *p, const char *mode)
{
        char buf[96];

        if (p->memory_max > 0)
                snprintf(buf, sizeof(buf), "mode=%s,size=%llu", mode,
                         (unsigned long long) p->memory_max);
        else
                snprintf(buf, sizeof(buf), "mode=%s", mode);
        return sbx__prep_str(p, buf, NULL);
}

/* The rung-1 mount plan: a read-only (or empty) view of the host, hidden
 * scratch areas (/tmp, the caller's HOME, /run when the network is
 * denied), every rule bound with its writability, carve-outs and protected
 * paths re-mounted read-only, a minimal /dev and a fresh /proc. */
int sbx__build_mounts(struct sbx__prep *p, const struct sbx_plan *plan, const char *home)
{
        static const char *const devs[] = { "null", "zero", "full", "random", "urandom", "tty" };
        const uint64_t ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const uint64_t rw = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const struct sbx_plan_fs_rule *host = NULL;
        const char *hides[5];
        size_t nh = 0, h, i, k;
        int host_read, host_write, r = 0;
        struct stat st;
        char buf[SBX_PATH_MAX + 32];

        for (i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin == SBX__ORIGIN_HOST)
                        host = &plan->rules[i];
        host_read = host != NULL && (host->access & SBX__FS_READ);
        host_write = host != NULL && (host->access & SBX__FS_WRITE);

        hides[nh++] = "/tmp";
        if (home != NULL && plan->home == SBX__ENV_DIR_SCRATCH && strcmp(home, "/") != 0 &&
            stat(home, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(home, "/tmp") != 0)
                hides[nh++] = home;
        if (p->home2 != NULL && plan->home == SBX__ENV_DIR_SCRATCH && stat(p->home2, &st) == 0 &&
            S_ISDIR(st.st_mode) && strcmp(p->home2, "/tmp") != 0 &&
            (home == NULL || strcmp(p->home2, home) != 0))
                hides[nh++] = p->home2;
        /* /run holds host IPC endpoints (docker.sock, the session and
         * system buses, ssh/gpg agents under /run/user): never the
         * sandbox's, whatever the network decision.  With the network
         * allowed, the resolver's directory comes back read-only below. */
        if (stat("/run", &st) == 0 && S_ISDIR(st.st_mode))
                hides[nh++] = "/run";
        qsort(hides, nh, sizeof(hides[0]), cmp_cstr);

        OP(OP_MKFILE, NULL, sbx__prep_str(p, "/empty", NULL), NULL, 0, 0, 0);
        if (host_read) {
                OP(OP_BIND, orr(p, "/"), nr(p, "/"), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, "/"), NULL, 0, host_write ? rw : ro, 0);
        } else {
                OP(OP_TMPFS, NULL, nr(p, "/"), "mode=0755", MS_NOSUID | MS_NODEV, 0, 0);
        }

        /* Pass 0: rules outside every hidden area.  Then each hidden area
         * (sorted, so a nested one follows its parent) and the rules whose
         * deepest hidden area it is.  Rules are sorted by path, so parents
         * are mounted before children. */
        for (h = 0; h <= nh; h++) {
                if (h > 0) {
                        const char *hide = hides[h - 1];

                        OP(OP_MKDIRS, NULL, nr(p, hide), NULL, 0, 0, 1);
                        OP(OP_TMPFS, NULL, nr(p, hide),
                           tmpfs_opts(p, strcmp(hide, "/tmp") == 0 ? "1777" : "0700"),
                           MS_NOSUID | MS_NODEV, 0, 0);
                        OP(OP_LL_TREE, NULL, nr(p, hide), NULL, 0,
                           SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 0);
                }
                for (i = 0; i < plan->n_rules; i++) {
                        const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                        size_t deepest = 0;

                        if (rule->origin == SBX__ORIGIN_HOST ||
                            strcmp(rule->path, "/dev") == 0 || sbx__under(rule->path, "/dev") ||
                            strcmp(rule->path, "/proc") == 0 || sbx__under(rule->path, "/proc"))
                                continue;       /* built below */
                        for (k = 0; k < nh; k++)
                                if (sbx__under(rule->path, hides[k]) || strcmp(rule->path, hides[k]) == 0)
                                        deepest = k + 1;
                        if (deepest != h)
                                continue;
                        if ((r = emit_rule(p, rule, host_read)) < 0)
                                return r;
                }
        }

        if (plan->network == SBX__NET_ALLOW && host_read &&
            stat(SBX__RESOLVER_DIR, &st) == 0 && S_ISDIR(st.st_mode)) {
                OP(OP_MKDIRS, NULL, nr(p, SBX__RESOLVER_DIR), NULL, 0, 0, 0);
                OP(OP_BIND, orr(p, SBX__RESOLVER_DIR), nr(p, SBX__RESOLVER_DIR), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, SBX__RESOLVER_DIR), NULL, 0, ro, 0);
        }

        /* A minimal /dev. */
        OP(OP_MKDIRS, NULL, nr(p, "/dev"), NULL, 0, 0, 1);
        OP(OP_TMPFS, NULL, nr(p, "/dev"), "mode=0755", MS_NOSUID | MS_NOEXEC, 0, 0);
        for (i = 0; i < SBX__ARRAY_SIZE(devs); i++) {
                snprintf(buf, sizeof(buf), "/dev/%s", devs[i]);
                if (stat(buf, &st) < 0)
                        continue;
                OP(OP_MKFILE, NULL, nr(p, buf), NULL, 0, 0, 0);
                OP(OP_BIND, orr(p, buf), nr(p, buf), NULL, 0, 0, 0);
        }
        OP(OP_SYMLINK, sbx__prep_str(p, "/proc/self/fd", NULL), nr(p, "/dev/fd"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, sbx__prep_str(p, "/proc/self/fd/0", NULL), nr(p, "/dev/stdin"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, sbx__prep_str(p, "/proc/self/fd/1", NULL), nr(p, "/dev/stdout"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, sbx__prep_str(p, "/proc/self/fd/2", NULL), nr(p, "/dev/stderr"), NULL, 0, 0, 0);
        OP(OP_MKDIRS, NULL, nr(p, "/dev/pts"), NULL, 0, 0, 0);
        OP(OP_DEVPTS, NULL, nr(p, "/dev/pts"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, sbx__prep_str(p, "pts/ptmx", NULL), nr(p, "/dev/ptmx"), NULL, 0, 0, 0);
        OP(OP_MKDIRS, NULL, nr(p, "/dev/shm"), NULL, 0, 0, 0);
        OP(OP_TMPFS, NULL, nr(p, "/dev/shm"), tmpfs_opts(p, "1777"), MS_NOSUID | MS_NODEV | MS_NOEXEC, 0, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/dev/shm"), NULL, 0, SBX__FS_READ | SBX__FS_WRITE, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/dev/pts"), NULL, 0, SBX__FS_READ | SBX__FS_WRITE, 0);

        /* A fresh, read-only /proc for the new pid namespace (OP_PROC). */
        OP(OP_MKDIRS, NULL, nr(p, "/proc"), NULL, 0, 0, 1);
        OP(OP_PROC, NULL, nr(p, "/proc"), NULL, 0, 0, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/proc"), NULL, 0, SBX__FS_READ, 0);
        (void) rw;
        return 0;
}
#undef OP

