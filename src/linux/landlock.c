/*
 * landlock.c - the Landlock ruleset of the Linux backends (rung 1 adds it on
 * top of the namespaces, rung 2 relies on it).
 *
 * The ruleset is built in the parent (sbx__landlock_prepare) and only
 * enforced in the child (sbx__landlock_enforce_child), which is two
 * async-signal-safe system calls.
 *
 * Kernel ABI facts this file relies on (Documentation/userspace-api/
 * landlock.rst and include/uapi/linux/landlock.h).  They are defined here
 * rather than taken from <linux/landlock.h> because distribution headers lag
 * the running kernel (Debian 12 ships the 6.1 header, ABI 2):
 *
 *   - landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION (1))
 *     returns the highest ABI the kernel supports; ENOSYS (not built) or
 *     EOPNOTSUPP (built but disabled at boot) mean none.
 *   - struct landlock_ruleset_attr grows with the ABI: handled_access_fs
 *     (ABI 1), handled_access_net (ABI 4), scoped (ABI 6), each a __u64.
 *     The size passed is the one of the layout the running ABI knows; the
 *     kernel rejects unknown access bits in a known field (EINVAL) and
 *     unknown non-zero trailing bytes (E2BIG).
 *   - Filesystem rights: EXECUTE 1<<0, WRITE_FILE 1<<1, READ_FILE 1<<2,
 *     READ_DIR 1<<3, REMOVE_DIR 1<<4, REMOVE_FILE 1<<5, MAKE_CHAR 1<<6,
 *     MAKE_DIR 1<<7, MAKE_REG 1<<8, MAKE_SOCK 1<<9, MAKE_FIFO 1<<10,
 *     MAKE_BLOCK 1<<11, MAKE_SYM 1<<12 (ABI 1); REFER 1<<13 (ABI 2);
 *     TRUNCATE 1<<14 (ABI 3); IOCTL_DEV 1<<15 (ABI 5).
 *   - Network rights (ABI 4): BIND_TCP 1<<0, CONNECT_TCP 1<<1.
 *   - Scopes (ABI 6): ABSTRACT_UNIX_SOCKET 1<<0, SIGNAL 1<<1.
 *   - A rule on a non-directory may only carry EXECUTE, WRITE_FILE,
 *     READ_FILE, TRUNCATE and IOCTL_DEV (EINVAL otherwise).  A rule on a
 *     directory applies to the directory and everything below it; there is
 *     no "this directory only" rule.
 *   - landlock_add_rule with allowed_access == 0 fails with ENOMSG.
 *   - Rights are a union along the path: a deeper rule can add rights but
 *     never take away what a rule on an ancestor grants.
 *   - REFER is always denied when not granted, even by an ABI-1 ruleset
 *     that cannot name it: on ABI 1 every cross-directory rename/link is
 *     refused (EXDEV).  With REFER, a rename/link also needs the
 *     destination to grant no more than the source (else EXDEV).
 *   - The ruleset fd is created O_CLOEXEC by the kernel.
 *   - landlock_restrict_self needs no_new_privs (or CAP_SYS_ADMIN) and
 *     restricts the calling thread and its future children.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "linux_internal.h"

/* The system call numbers are the same on every architecture that has
 * them (the unified table); glibc >= 2.33 headers name them. */
#if !defined(SYS_landlock_create_ruleset) || !defined(SYS_landlock_add_rule) || \
    !defined(SYS_landlock_restrict_self)
#  error "<sys/syscall.h> lacks the Landlock system calls (glibc >= 2.33 needed)"
#endif

/* ------------------------------------------------------------ kernel ABI */

#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH      1

#define LL_FS_EXECUTE     (1ull << 0)
#define LL_FS_WRITE_FILE  (1ull << 1)
#define LL_FS_READ_FILE   (1ull << 2)
#define LL_FS_READ_DIR    (1ull << 3)
#define LL_FS_REMOVE_DIR  (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_CHAR   (1ull << 6)
#define LL_FS_MAKE_DIR    (1ull << 7)
#define LL_FS_MAKE_REG    (1ull << 8)
#define LL_FS_MAKE_SOCK   (1ull << 9)
#define LL_FS_MAKE_FIFO   (1ull << 10)
#define LL_FS_MAKE_BLOCK  (1ull << 11)
#define LL_FS_MAKE_SYM    (1ull << 12)
#define LL_FS_REFER       (1ull << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE    (1ull << 14)      /* ABI 3 */
#define LL_FS_IOCTL_DEV   (1ull << 15)      /* ABI 5 */

#define LL_FS_ABI1        ((1ull << 13) - 1ull)

#define LL_NET_BIND_TCP    (1ull << 0)      /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1)      /* ABI 4 */

#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)  /* ABI 6 */
#define LL_SCOPE_SIGNAL               (1ull << 1)  /* ABI 6 */

/* The rights a rule on a non-directory may carry. */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
                           LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;    /* ABI >= 4 */
        uint64_t scoped;                /* ABI >= 6 */
};

struct ll_path_beneath_attr {
        uint64_t allowed_access;
        int32_t  parent_fd;
} __attribute__((packed));

/* ------------------------------------------------------------------- abi */

static pthread_once_t abi_once = PTHREAD_ONCE_INIT;
static int abi_version;

static void abi_probe(void)
{
        long r = syscall(SYS_landlock_create_ruleset, NULL, (size_t) 0,
                         (uint32_t) LL_CREATE_RULESET_VERSION);

        /* ENOSYS, EOPNOTSUPP (disabled at boot) or anything odd: none. */
        if (r <= 0)
                abi_version = 0;
        else
                abi_version = r > INT_MAX ? INT_MAX : (int) r;
}

int sbx__landlock_abi(void)
{
        if (pthread_once(&abi_once, abi_probe) != 0)
                return 0;
        return abi_version;
}

/* Every filesystem right `abi` knows. */
static uint64_t fs_rights_of_abi(int abi)
{
        uint64_t fs = LL_FS_ABI1;

        if (abi >= 2)
                fs |= LL_FS_REFER;
        if (abi >= 3)
                fs |= LL_FS_TRUNCATE;
        if (abi >= 5)
                fs |= LL_FS_IOCTL_DEV;
        return fs;
}

/* The size of struct landlock_ruleset_attr as `abi` knows it. */
static size_t attr_size_of_abi(int abi)
{
        if (abi >= 6)
                return sizeof(struct ll_ruleset_attr);
        if (abi >= 4)
                return offsetof(struct ll_ruleset_attr, scoped);
        return offsetof(struct ll_ruleset_attr, handled_access_net);
}

/* ----------------------------------------------------------------- rules */

/*
 * The Landlock rights of one rule, from its SBX__FS_* access and the type
 * of the object the path names.
 *
 *   READ  -> READ_FILE | READ_DIR
 *   EXEC  -> EXECUTE
 *   WRITE -> WRITE_FILE | TRUNCATE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR |
 *            MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM | REFER
 *
 * Decisions:
 *   - MAKE_CHAR and MAKE_BLOCK are never granted: no device node can be
 *     created anywhere, writable trees included.
 *   - REFER only comes with WRITE on a directory, so a rename or link can
 *     move a file only between writable trees; it can never pull a file out
 *     of (or push one into) a tree that is only readable, and a hardlink to
 *     a read-only file cannot be planted in a writable tree.
 *   - IOCTL_DEV is granted only on a rule that names a character device
 *     itself (e.g. "/dev/null") and carries WRITE.  Tree rules never grant
 *     it, so a readable /dev (host read) gives no device ioctls; ioctls on
 *     fds the child inherits were opened before the domain and are not
 *     covered at all (seccomp refuses TIOCSTI/TIOCLINUX).
 *   - A rule on a non-directory keeps only the file rights (the kernel
 *     refuses the others).
 *   - An exact rule (tree == 0) on a directory grants nothing: Landlock
 *     cannot grant a directory without everything below it, and granting
 *     less than asked fails closed.  The caller sees it in *missing_out
 *     only if the rule lies below a wider tree rule (nesting_losses).
 */
static uint64_t rule_rights(const struct sbx__ll_rule *rule, mode_t mode)
{
        uint64_t a = 0;

        if (S_ISDIR(mode)) {
                if (!rule->tree)
                        return 0;
                if (rule->access & SBX__FS_READ)
                        a |= LL_FS_READ_FILE | LL_FS_READ_DIR;
                if (rule->access & SBX__FS_EXEC)
                        a |= LL_FS_EXECUTE;
                if (rule->access & SBX__FS_WRITE)
                        a |= LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_REMOVE_DIR |
                             LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
                             LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM |
                             LL_FS_REFER;
                return a;
        }
        if (rule->access & SBX__FS_READ)
                a |= LL_FS_READ_FILE;
        if (rule->access & SBX__FS_EXEC)
                a |= LL_FS_EXECUTE;
        if (rule->access & SBX__FS_WRITE) {
                a |= LL_FS_WRITE_FILE | LL_FS_TRUNCATE;
                if (S_ISCHR(mode))
                        a |= LL_FS_IOCTL_DEV;
        }
        return a & LL_FS_FILE_RIGHTS;
}

/* 1 if canonical `path` lies strictly below canonical directory `dir`. */
static int strictly_below(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        if (n == 1 && dir[0] == '/')
                return path[1] != '\0';
        return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/*
 * Landlock rights are a union along the path, so a rule below a tree rule
 * can never take away what the tree grants (a read-only .git/hooks inside a
 * writable workspace, an access-0 carve-out such as a hidden HOME inside a
 * readable tree).  Such a rule is still added (it may add EXEC), but what it
 * meant to take away is reported as every guarantee such a narrowing can be
 * part of, since the origin of a rule is not known here:
 *   lost READ  -> SBX_G_READ_BOUNDARY | SBX_G_HOME_ISOLATION
 *   lost WRITE -> SBX_G_WRITE_BOUNDARY | SBX_G_PROTECTED_PATHS
 * Lost EXEC has no guarantee bit and is not reported.  Purely lexical, so
 * rules whose path does not exist (yet, or skipped with SKIP_MISSING) count
 * too: the child could create them.
 */
static uint32_t nesting_losses(const struct sbx__ll_rule *rules, size_t n)
{
        uint32_t lost = 0;
        size_t i, j;

        for (i = 0; i < n; i++) {
                for (j = 0; j < n; j++) {
                        uint32_t gone;

                        if (i == j || !rules[j].tree ||
                            !strictly_below(rules[i].path, rules[j].path))
                                continue;
                        gone = rules[j].access & ~rules[i].access;
                        if (gone & SBX__FS_READ)
                                lost |= SBX_G_READ_BOUNDARY | SBX_G_HOME_ISOLATION;
                        if (gone & SBX__FS_WRITE)
                                lost |= SBX_G_WRITE_BOUNDARY | SBX_G_PROTECTED_PATHS;
                }
        }
        return lost;
}

static void close_fd(int *fd)
{
        if (*fd >= 0) {
                /* Never retried: on Linux the fd is gone even on EINTR. */
                (void) close(*fd);
                *fd = -EBADF;
        }
}

/* Validate the arguments; SBX_OK or SBX_E_INVALID naming the culprit. */
static sbx_code check_args(const struct sbx__ll_rule *rules, size_t n, uint32_t opts,
                           const int *ruleset_fd_out, const uint32_t *missing_out,
                           sbx_error *err)
{
        const uint32_t known_opts = SBX__LL_NET_DENY | SBX__LL_SCOPE_ABSTRACT |
                                    SBX__LL_SCOPE_SIGNAL | SBX__LL_SKIP_MISSING;
        const uint32_t known_access = SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC;
        char clean[PATH_MAX];
        size_t i, j;

        if (ruleset_fd_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "landlock: ruleset_fd_out is NULL");
        if (missing_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "landlock: missing_out is NULL");
        if (rules == NULL && n > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "landlock: rules is NULL with n = %zu",
                                 n);
        if (opts & ~known_opts)
                return sbx__fail(err, SBX_E_INVALID, 0, "landlock: unknown option bits 0x%x",
                                 opts & ~known_opts);
        for (i = 0; i < n; i++) {
                const struct sbx__ll_rule *r = &rules[i];

                if (r->path == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "landlock: rule %zu has no path",
                                         i);
                if (r->access & ~known_access)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "landlock: rule \"%.160s\" has unknown access bits 0x%x",
                                         r->path, r->access & ~known_access);
                if (r->tree != 0 && r->tree != 1)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "landlock: rule \"%.160s\" has tree = %d (0 or 1)",
                                         r->path, r->tree);
                /* Lexically canonical: the nesting check compares strings. */
                if (sbx__path_clean(r->path, 0, clean, sizeof(clean)) != SBX_OK ||
                    strcmp(clean, r->path) != 0)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "landlock: rule path \"%.160s\" is not canonical "
                                         "(absolute, no \".\", \"..\", \"//\" or trailing "
                                         "slash)", r->path);
                for (j = 0; j < i; j++)
                        if (strcmp(rules[j].path, r->path) == 0 &&
                            (rules[j].access != r->access || rules[j].tree != r->tree))
                                return sbx__fail(err, SBX_E_INVALID, 0,
                                                 "landlock: path \"%.160s\" has two different "
                                                 "rules", r->path);
        }
        return SBX_OK;
}

/* Open one rule's path and add it to the ruleset.  SBX_OK also when the
 * path is skipped (missing with SKIP_MISSING, or no right survives). */
static sbx_code add_rule(int ruleset_fd, const struct sbx__ll_rule *rule, uint32_t opts,
                         uint64_t handled_fs, sbx_error *err)
{
        struct ll_path_beneath_attr pb;
        struct stat st;
        char eb[64];
        sbx_code rc = SBX_OK;
        int fd = -EBADF, e;

        do {
                if (rule->nofollow) {
                        struct open_how how;

                        memset(&how, 0, sizeof(how));
                        how.flags = O_PATH | O_CLOEXEC;
                        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
                        fd = (int) syscall(SYS_openat2, AT_FDCWD, rule->path, &how, sizeof(how));
                        if (fd >= 0 || errno != ENOSYS)
                                continue;
                }
                fd = open(rule->path, O_PATH | O_CLOEXEC);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) {
                e = errno;
                /* ENOTDIR: a component is not a directory, so the path
                 * cannot exist either. */
                if ((opts & SBX__LL_SKIP_MISSING) && (e == ENOENT || e == ENOTDIR))
                        return SBX_OK;
                return sbx__fail(err, SBX_E_IO, e,
                                 "landlock: cannot open rule path \"%.160s\": %s%s",
                                 rule->path, sbx__strerror_r(e, eb, sizeof(eb)),
                                 e == ENOENT ? " (create it, or let the backend skip "
                                               "missing paths)" : "");
        }
        if (fstat(fd, &st) < 0) {
                e = errno;
                rc = sbx__fail(err, SBX_E_IO, e, "landlock: cannot stat rule path \"%.160s\": %s",
                               rule->path, sbx__strerror_r(e, eb, sizeof(eb)));
                goto out;
        }

        memset(&pb, 0, sizeof(pb));
        pb.allowed_access = rule_rights(rule, st.st_mode) & handled_fs;
        pb.parent_fd = fd;
        if (pb.allowed_access == 0)
                goto out;       /* nothing to allow (ENOMSG otherwise) */
        if (syscall(SYS_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &pb,
                    (uint32_t) 0) < 0) {
                e = errno;
                rc = sbx__fail(err, SBX_E_INTERNAL, e,
                               "landlock: landlock_add_rule(\"%.160s\", 0x%llx) failed: %s",
                               rule->path, (unsigned long long) pb.allowed_access,
                               sbx__strerror_r(e, eb, sizeof(eb)));
        }
out:
        close_fd(&fd);
        return rc;
}

/*
 * What *missing_out reports (the options asked for, the ABI lacks):
 *
 *   ABI < 3 (no TRUNCATE)   SBX_G_WRITE_BOUNDARY: truncate(2) of any file the
 *                           child can name, readable ones included, cannot
 *                           be stopped.  (ABI 1 also lacks REFER, but that
 *                           is not a leak: without REFER the kernel refuses
 *                           every cross-directory rename/link.)
 *   ABI < 5 (no IOCTL_DEV)  SBX_G_WRITE_BOUNDARY: ioctls on any device the
 *                           child can open (e.g. below a readable /dev).
 *   NET_DENY, ABI < 4       SBX_G_NETWORK_DENY.
 *   SCOPE_ABSTRACT, ABI < 6 SBX_G_NETWORK_DENY (abstract unix sockets reach
 *                           host daemons).
 *   SCOPE_SIGNAL, ABI < 6   SBX_G_PROCESS_ISOLATION.
 *   a rule below a wider    READ_BOUNDARY|HOME_ISOLATION (read taken away),
 *   tree rule               WRITE_BOUNDARY|PROTECTED_PATHS (write taken
 *                           away); see nesting_losses.
 *
 * Even with everything present, Landlock alone is not SBX_G_NETWORK_DENY
 * (only TCP bind/connect are handled) -- see linux_internal.h.
 */
sbx_code sbx__landlock_prepare(const struct sbx__ll_rule *rules, size_t n, uint32_t opts,
                               int *ruleset_fd_out, uint32_t *missing_out, sbx_error *err)
{
        struct ll_ruleset_attr attr;
        uint32_t missing = 0;
        sbx_code rc;
        size_t i;
        char eb[64];
        int abi, e, fd = -EBADF;

        rc = check_args(rules, n, opts, ruleset_fd_out, missing_out, err);
        if (rc != SBX_OK)
                return rc;

        abi = sbx__landlock_abi();
        if (abi <= 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "landlock: not available in this kernel (built without "
                                 "CONFIG_SECURITY_LANDLOCK, or not enabled in lsm=)");

        memset(&attr, 0, sizeof(attr));
        attr.handled_access_fs = fs_rights_of_abi(abi);
        if (abi < 5)
                missing |= SBX_G_WRITE_BOUNDARY;
        if (opts & SBX__LL_NET_DENY) {
                if (abi >= 4)
                        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
                else
                        missing |= SBX_G_NETWORK_DENY;
        }
        if (opts & SBX__LL_SCOPE_ABSTRACT) {
                if (abi >= 6)
                        attr.scoped |= LL_SCOPE_ABSTRACT_UNIX_SOCKET;
                else
                        missing |= SBX_G_NETWORK_DENY;
        }
        if (opts & SBX__LL_SCOPE_SIGNAL) {
                if (abi >= 6)
                        attr.scoped |= LL_SCOPE_SIGNAL;
                else
                        missing |= SBX_G_PROCESS_ISOLATION;
        }
        missing |= nesting_losses(rules, n);

        fd = (int) syscall(SYS_landlock_create_ruleset, &attr, attr_size_of_abi(abi),
                           (uint32_t) 0);
        if (fd < 0) {
                e = errno;
                if (e == ENOSYS || e == EOPNOTSUPP)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, e,
                                         "landlock: landlock_create_ruleset: %s",
                                         sbx__strerror_r(e, eb, sizeof(eb)));
                return sbx__fail(err, sbx__errno_code(e, SBX_E_INTERNAL), e,
                                 "landlock: landlock_create_ruleset (ABI %d) failed: %s", abi,
                                 sbx__strerror_r(e, eb, sizeof(eb)));
        }
        /* With stdio closed the kernel may hand out 0..2, which the child's
         * stdio setup would overwrite: move it above 2 (still CLOEXEC). */
        if (fd <= 2) {
                int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);

                e = errno;
                close_fd(&fd);
                if (moved < 0)
                        return sbx__fail(err, sbx__errno_code(e, SBX_E_INTERNAL), e,
                                         "landlock: cannot move the ruleset fd above 2: %s",
                                         sbx__strerror_r(e, eb, sizeof(eb)));
                fd = moved;
        }

        for (i = 0; i < n; i++) {
                rc = add_rule(fd, &rules[i], opts, attr.handled_access_fs, err);
                if (rc != SBX_OK) {
                        close_fd(&fd);
                        return rc;
                }
        }

        *ruleset_fd_out = fd;
        *missing_out = missing;
        return SBX_OK;
}

/*
 * In the child, before enforcing: one more tree rule (e.g. on a tmpfs the
 * child just mounted).  Async-signal-safe: no cached state is read (the
 * pthread_once of sbx__landlock_abi could be mid-flight in another thread
 * of the parent at fork time), the ABI is asked again with a raw system
 * call, so the handled rights match the ones sbx__landlock_prepare used.
 */
int sbx__landlock_add_child(int ruleset_fd, const char *path, uint32_t access)
{
        const uint32_t known_access = SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC;
        struct sbx__ll_rule rule;
        struct ll_path_beneath_attr pb;
        struct stat st;
        long abi;
        int fd = -EBADF, r = 0;

        if (ruleset_fd < 0)
                return -EBADF;
        if (path == NULL || path[0] != '/' || (access & ~known_access) != 0)
                return -EINVAL;
        if (access == 0)
                return 0;               /* nothing to allow */
        abi = syscall(SYS_landlock_create_ruleset, NULL, (size_t) 0,
                      (uint32_t) LL_CREATE_RULESET_VERSION);
        if (abi <= 0)
                return -EOPNOTSUPP;

        do
                fd = open(path, O_PATH | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                r = -errno;
                goto out;
        }
        rule.path = path;
        rule.access = access;
        rule.tree = 1;
        memset(&pb, 0, sizeof(pb));
        pb.allowed_access = rule_rights(&rule, st.st_mode) &
                            fs_rights_of_abi(abi > INT_MAX ? INT_MAX : (int) abi);
        pb.parent_fd = fd;
        if (pb.allowed_access != 0 &&
            syscall(SYS_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &pb,
                    (uint32_t) 0) < 0)
                r = -errno;
out:
        close_fd(&fd);
        return r;
}

/* In the child: async-signal-safe (prctl and two raw system calls). */
int sbx__landlock_enforce_child(int ruleset_fd)
{
        if (ruleset_fd < 0)
                return -EBADF;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0)
                return -errno;
        if (syscall(SYS_landlock_restrict_self, ruleset_fd, (uint32_t) 0) < 0)
                return -errno;
        return 0;
}

int sbx__landlock_scope_signal_fd(void)
{
        struct ll_ruleset_attr a;
        long fd;

        if (sbx__landlock_abi() < 6)
                return -EOPNOTSUPP;
        memset(&a, 0, sizeof(a));
        a.scoped = LL_SCOPE_SIGNAL;
        fd = syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0U);
        return fd < 0 ? -errno : (int) fd;
}
