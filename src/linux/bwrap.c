/*
 * bwrap.c - the bubblewrap backend: confine = rewrite argv into a bwrap
 * command line built from the plan; spawn = fork/exec that command line.
 *
 * What bwrap enforces by itself, and what it does not, is in
 * docs/backends.md ("bwrap").  In short: mount, pid, ipc, uts, cgroup and
 * (unless the network is allowed) net namespaces in a new user namespace,
 * every capability dropped, no_new_privs, a new session, a read-only or
 * empty view of the host with the writable roots bound read-write, hidden
 * carve-outs / HOME / /tmp (/run too when the network is denied), the
 * protected paths bound read-only, and a scrubbed environment.  sbx_spawn
 * also hands bwrap the rung-1 seccomp deny list (--seccomp FD, a memfd),
 * which bwrap loads right before it execs the command; the argv Confine
 * returns cannot carry that fd, so it claims neither the syscall filter
 * nor, on a host with a vsock transport, network-deny.  No resource
 * limits: that guarantee is never claimed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>

#include "backend/backend.h"
#include "linux/ladder.h"
#include "paths/paths_internal.h"

extern char **environ;

#define R_ SBX__FS_READ
#define W_ SBX__FS_WRITE

/* How long the probe's `true` may take before it counts as failed. */
#define PROBE_TIMEOUT_MS 10000

/* ------------------------------------------------------------ guarantees */

/* Whether this host can create an AF_VSOCK socket (a loaded vsock
 * transport), checked once per process. */
static pthread_once_t vsock_once = PTHREAD_ONCE_INIT;
static int vsock_yes;

static void vsock_probe(void)
{
        int fd = socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0);

        vsock_yes = fd >= 0 || (errno != EAFNOSUPPORT && errno != EINVAL);
        if (fd >= 0)
                close(fd);
}

static int vsock_reachable(void)
{
        (void) pthread_once(&vsock_once, vsock_probe);
        return vsock_yes;
}

uint32_t sbx__bwrap_guarantees(const struct sbx_plan *plan)
{
        uint32_t g;

        if (plan == NULL || plan->direct)
                return 0;
        /* Filesystem: host read-only (or absent), writable roots bound rw,
         * carve-outs and the caller's HOME hidden behind tmpfs, protected
         * paths bound read-only.  --clearenv + --setenv: env scrub.
         * --unshare-pid + fresh /proc: process isolation.  bwrap always
         * sets no_new_privs; --cap-drop ALL drops every capability.
         * --new-session: no controlling terminal (TIOCSTI needs it).
         * Not SBX_G_PROTECTED_PATHS: the protected paths are bound
         * read-only, but bwrap execs the command itself, so no supervisor
         * can refuse a new .git or HEAD (docs/git.md); a workspace-write
         * profile runs here only with accept_unprotected_git. */
        g = SBX_G_WRITE_BOUNDARY | SBX_G_READ_BOUNDARY | SBX_G_ENV_SCRUB |
            SBX_G_PROCESS_ISOLATION | SBX_G_NO_NEW_PRIVS |
            SBX_G_TTY_ISOLATION;
        /* The spawn passes rung 1's deny list (--seccomp): namespaces,
         * mounts, ptrace, keyctl, bpf, io_uring, ... and every socket
         * family but unix, inet, inet6 and netlink are refused, vsock
         * included, which --unshare-net alone does not confine (it reaches
         * the hypervisor's and the host's port space).  With it,
         * --unshare-net leaves a loopback only. */
        g |= SBX_G_SYSCALL_FILTER;
        if (plan->network != SBX__NET_ALLOW)
                g |= SBX_G_NETWORK_DENY;
        if (plan->home == SBX__ENV_DIR_SCRATCH)
                g |= SBX_G_HOME_ISOLATION;      /* --tmpfs over the caller's HOME */
        /* Never: FD_ISOLATION (bwrap passes every inherited fd on; only our
         * spawn closes them, and says so per child), RESOURCE_LIMITS,
         * TARGET_NETWORK, ADDRESS_NETWORK. */
        return g;
}

/* What the argv sbx__bwrap_confine returns enforces when the host runs it:
 * no seccomp program (an argv cannot carry the fd), so no syscall filter,
 * and network-deny only where no vsock transport can be reached. */
uint32_t sbx__bwrap_confine_guarantees(const struct sbx_plan *plan)
{
        uint32_t g = sbx__bwrap_guarantees(plan) & ~SBX_G_SYSCALL_FILTER;

        if (vsock_reachable())
                g &= ~SBX_G_NETWORK_DENY;
        return g;
}

/* ------------------------------------------------------- seccomp program */

/* Rung 1's options: bwrap, like rung 1, shows host files read-only and
 * confines IP with a network namespace, so new unix sockets are refused
 * (no host socket file is reachable; stream socketpairs stay) and inet stays to
 * the namespace. */
#define BWRAP_SC_OPTS SBX__SC_DENY_UNIX_PATH

/* A memfd holding the deny-list program, at offset 0 (bwrap reads its
 * --seccomp fd to EOF), close-on-exec.  *fd_out on success.  Errors:
 * those of sbx__seccomp_build, SBX_E_NOMEM, SBX_E_IO. */
static sbx_code seccomp_memfd(const char *fn, int *fd_out, sbx_error *err)
{
        struct sbx__bpf bpf = { NULL, 0 };
        const char *p;
        size_t len, off = 0;
        sbx_code r;
        int fd, e = 0;

        r = sbx__seccomp_build(BWRAP_SC_OPTS, &bpf, err);
        if (r != SBX_OK)
                return r;
        fd = memfd_create("sbx-bwrap-seccomp", MFD_CLOEXEC);
        if (fd < 0) {
                r = sbx__fail(err, errno == ENOMEM ? SBX_E_NOMEM : SBX_E_IO, errno,
                              "%s: cannot pass bwrap its seccomp program: memfd_create: %s",
                              fn, sbx__strerror(errno));
                goto out;
        }
        p = (const char *) bpf.filter;
        len = bpf.len * sizeof(struct sock_filter);
        while (off < len && e == 0) {
                ssize_t w = write(fd, p + off, len - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        e = errno;
                else if (w == 0)
                        e = EIO;
                else
                        off += (size_t) w;
        }
        if (e == 0 && lseek(fd, 0, SEEK_SET) != 0)
                e = errno;
        if (e != 0) {
                (void) close(fd);
                r = sbx__fail(err, e == ENOMEM || e == ENOSPC ? SBX_E_NOMEM : SBX_E_IO, e,
                              "%s: cannot pass bwrap its seccomp program: %s", fn, sbx__strerror(e));
                goto out;
        }
        *fd_out = fd;
out:
        sbx__seccomp_free(&bpf);
        return r;
}

/* ------------------------------------------------------------ argv build */

static int is_under(const char *path, const char *dir)
{
        return strcmp(path, dir) != 0 && sbx__path_has_prefix(path, dir);
}

static int in_tree(const char *path, const char *dir)
{
        return sbx__path_has_prefix(path, dir);
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void push3(struct sbx__strv *s, const char *a, const char *b, const char *c)
{
        sbx__strv_push(s, a);
        sbx__strv_push(s, b);
        if (c != NULL)
                sbx__strv_push(s, c);
}

/* The bwrap options for one plan rule (not the host rule, /dev or /proc).
 * SBX_OK, or SBX_E_IO when the path cannot be examined (fail closed: we
 * would not know whether it must be hidden). */
static sbx_code emit_rule(struct sbx__strv *s, const struct sbx_plan_fs_rule *rule,
                          int host_visible, sbx_error *err)
{
        const char *path = rule->path;
        struct stat st;

        if (lstat(path, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return SBX_OK;  /* nothing there to bind or to hide */
                return sbx__fail(err, SBX_E_IO, errno,
                                 "bwrap: cannot examine \"%.200s\" for the %s rule: %s", path,
                                 rule->access == 0 ? "hidden" : "bind", sbx__strerror(errno));
        }
        if (S_ISLNK(st.st_mode)) {
                char target[SBX_PATH_MAX];
                ssize_t n;

                if (rule->origin == SBX__ORIGIN_PROTECTED) {
                        /* bwrap follows the link: its target becomes read-only. */
                        push3(s, "--ro-bind", path, path);
                        return SBX_OK;
                }
                /* Merged-/usr links (/bin -> usr/bin) in an empty root; with
                 * the host visible the link is already there. */
                if (host_visible || rule->origin != SBX__ORIGIN_RUNTIME)
                        return SBX_OK;
                n = readlink(path, target, sizeof(target) - 1);
                if (n < 0)
                        return sbx__fail(err, SBX_E_IO, errno,
                                         "bwrap: cannot read the link \"%.200s\": %s", path,
                                         sbx__strerror(errno));
                target[n] = '\0';
                push3(s, "--symlink", target, path);
                return SBX_OK;
        }
        if (rule->access == 0) {
                /* A carve-out: hidden behind an empty read-only object.
                 * Another sandbox's scratch may be removed before bwrap
                 * runs (bwrap fails on a mountpoint that is gone): its
                 * own empty directory, which goes last, is bound over it
                 * while it is there (docs/backends.md "Scratch and /tmp"). */
                if (S_ISDIR(st.st_mode) && rule->origin == SBX__ORIGIN_SCRATCH) {
                        char empty[SBX_PATH_MAX + 16];

                        (void) snprintf(empty, sizeof(empty), "%s/" SBX__SCRATCH_EMPTY, path);
                        push3(s, "--ro-bind-try", empty, path);
                } else if (S_ISDIR(st.st_mode)) {
                        push3(s, "--tmpfs", path, NULL);
                        push3(s, "--remount-ro", path, NULL);
                } else {
                        push3(s, "--ro-bind", "/dev/null", path);
                }
                return SBX_OK;
        }
        if (rule->origin == SBX__ORIGIN_PROTECTED)
                push3(s, "--ro-bind", path, path);
        else if (rule->access & W_)
                push3(s, "--bind", path, path);
        else if (rule->origin == SBX__ORIGIN_RUNTIME)
                push3(s, "--ro-bind-try", path, path);
        else
                push3(s, "--ro-bind", path, path);
        return SBX_OK;
}

/* 1 if `name=...` of envp entry e passes into the sandbox. */
static int env_name(const char *e, char *name, size_t namesz)
{
        const char *eq = strchr(e, '=');
        size_t n;

        if (eq == NULL || eq == e)
                return 0;
        n = (size_t) (eq - e);
        if (n >= namesz)
                return 0;
        memcpy(name, e, n);
        name[n] = '\0';
        return 1;
}

static sbx_code build_homes(const struct sbx_plan *plan, const char *bwrap,
                            const char *const *argv, const char *const *envp, const char *home,
                            const char *home2, const char *cwd, int seccomp_fd,
                            char ***argv_out, sbx_error *err);

sbx_code sbx__bwrap_build(const struct sbx_plan *plan, const char *bwrap,
                          const char *const *argv, const char *const *envp, const char *home,
                          const char *cwd, char ***argv_out, sbx_error *err)
{
        return build_homes(plan, bwrap, argv, envp, home, NULL, cwd, -1, argv_out, err);
}

/* What bwrap cannot run at all, and bad arguments.  *home: cleared when
 * it is not absolute. */
static sbx_code check_args(const struct sbx_plan *plan, const char *bwrap,
                           const char *const *argv, const char **home, const char *cwd,
                           char ***argv_out, sbx_error *err)
{
        static const char fn[] = "bwrap";

        if (plan == NULL || bwrap == NULL || argv == NULL || argv[0] == NULL ||
            argv_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: NULL argument", fn);
        /* bwrap execs the command itself: no supervisor can make its
         * connects, so a listed socket could only be reached by leaving
         * every other host socket reachable too.  Refused, not dropped. */
        if (plan->scratch_dir != NULL)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: executors run on the native "
                                 "and landlock backends only", fn);
        if (plan->n_unix_sockets > 0)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: --allow-unix (unix_sockets) "
                                 "needs the native or landlock backend: bwrap cannot limit "
                                 "connect to the listed sockets", fn);
        if (plan->direct)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: a direct plan has no sandbox", fn);
        if (*home != NULL && (*home)[0] != '/')
                *home = NULL;
        if (cwd != NULL && cwd[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd must be absolute", fn);
        return SBX_OK;
}

/* Areas hidden behind a fresh tmpfs: /tmp always (TMPDIR is scratch),
 * the caller's HOME when it is isolated, /run when the network is denied
 * (host sockets such as docker.sock live there).  Sorted, into hides[4];
 * their number.  *home_hidden: HOME is one of them. */
static size_t hidden_areas(const struct sbx_plan *plan, const char *home, const char *home2,
                           const char *hides[4], int *home_hidden)
{
        struct stat st;
        size_t nh = 0;

        hides[nh++] = "/tmp";
        if (plan->home == SBX__ENV_DIR_SCRATCH && home != NULL && strcmp(home, "/") != 0 &&
            strcmp(home, "/tmp") != 0 && !is_under(home, "/tmp") && stat(home, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
                hides[nh++] = home;
                *home_hidden = 1;
        }
        if (plan->home == SBX__ENV_DIR_SCRATCH && home2 != NULL && strcmp(home2, "/tmp") != 0 &&
            !is_under(home2, "/tmp") && (home == NULL || strcmp(home2, home) != 0) &&
            stat(home2, &st) == 0 && S_ISDIR(st.st_mode))
                hides[nh++] = home2;
        if (plan->network != SBX__NET_ALLOW && stat("/run", &st) == 0 && S_ISDIR(st.st_mode))
                hides[nh++] = "/run";
        qsort(hides, nh, sizeof(hides[0]), cmp_cstr);
        return nh;
}

/* Pass 0: the rules outside every hidden area; then each hidden area
 * (sorted, so a nested one follows its parent) followed by the rules
 * whose deepest hidden area it is.  Rules are sorted by path, so a parent
 * is always mounted before its children. */
static sbx_code emit_rules(struct sbx__strv *s, const struct sbx_plan *plan,
                           const char *const *hides, size_t nh, int host_visible,
                           sbx_error *err)
{
        sbx_code r = SBX_OK;
        size_t h, i, k;

        for (h = 0; h <= nh && r == SBX_OK; h++) {
                if (h > 0) {
                        /* The scratch HOME and TMPDIR (/tmp) are
                         * owner-only, like rung 2's (bwrap's tmpfs is 0755
                         * by default). */
                        if (hides[h - 1] != NULL && strcmp(hides[h - 1], "/run") != 0)
                                push3(s, "--perms", "0700", NULL);
                        push3(s, "--tmpfs", hides[h - 1], NULL);
                }
                for (i = 0; i < plan->n_rules && r == SBX_OK; i++) {
                        const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                        size_t deepest = 0;

                        if (rule->origin == SBX__ORIGIN_HOST || in_tree(rule->path, "/dev") ||
                            in_tree(rule->path, "/proc"))
                                continue;       /* --dev and --proc below */
                        for (k = 0; k < nh; k++)
                                if (in_tree(rule->path, hides[k]))
                                        deepest = k + 1;
                        if (deepest != h)
                                continue;
                        r = emit_rule(s, rule, host_visible, err);
                }
        }
        return r;
}

/* The environment: the one filter every backend uses (the plan's
 * allow-list, then HOME and TMPDIR), as --setenv pairs.  0, -ENOMEM. */
static int push_env(struct sbx__strv *s, const struct sbx_plan *plan, const char *const *envp,
                    const char *home_env)
{
        char **env = sbx__plan_env(plan, envp, home_env, "/tmp");
        size_t i;

        if (env == NULL)
                return -ENOMEM;
        sbx__strv_push(s, "--clearenv");
        for (i = 0; env[i] != NULL; i++) {
                char name[256];

                if (env_name(env[i], name, sizeof(name)))
                        push3(s, "--setenv", name, env[i] + strlen(name) + 1);
        }
        sbx_strv_free(env);
        return 0;
}

/* home2: the account's home when it is not HOME (hidden too), or NULL.
 * seccomp_fd: the fd number bwrap will read its seccomp program from
 * (--seccomp), or -1 for none. */
static sbx_code build_homes(const struct sbx_plan *plan, const char *bwrap,
                            const char *const *argv, const char *const *envp, const char *home,
                            const char *home2, const char *cwd, int seccomp_fd,
                            char ***argv_out, sbx_error *err)
{
        static const char fn[] = "bwrap";
        struct sbx__strv s = SBX__STRV_INIT;
        const struct sbx_plan_fs_rule *host = NULL, *top;
        const char *hides[4], *home_env = NULL;
        size_t nh, i;
        int host_visible, home_hidden = 0;
        sbx_code r;

        r = check_args(plan, bwrap, argv, &home, cwd, argv_out, err);
        if (r != SBX_OK)
                return r;

        for (i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin == SBX__ORIGIN_HOST)
                        host = &plan->rules[i];
        top = sbx__plan_rule_for(plan, "/");
        host_visible = top != NULL && (top->access & R_);

        sbx__strv_push(&s, bwrap);
        /* The host: read-only (or read-write when host_write is Allow), or
         * nothing at all -- bwrap's root is then an empty tmpfs and only
         * the rules below are visible. */
        if (host != NULL && (host->access & R_))
                push3(&s, (host->access & W_) ? "--bind" : "--ro-bind", "/", "/");
        push3(&s, "--unshare-user", "--unshare-pid", "--unshare-ipc");
        push3(&s, "--unshare-uts", "--unshare-cgroup-try", NULL);
        if (plan->network != SBX__NET_ALLOW)
                sbx__strv_push(&s, "--unshare-net");
        push3(&s, "--die-with-parent", "--new-session", NULL);
        push3(&s, "--cap-drop", "ALL", NULL);
        if (seccomp_fd >= 0) {
                /* Loaded by bwrap right before it execs the command (and in
                 * its pid-1 init), after its own namespace and mount work. */
                char num[16];

                (void) snprintf(num, sizeof(num), "%d", seccomp_fd);
                push3(&s, "--seccomp", num, NULL);
        }

        nh = hidden_areas(plan, home, home2, hides, &home_hidden);

        r = emit_rules(&s, plan, hides, nh, host_visible, err);
        if (r != SBX_OK) {
                sbx__strv_discard(&s);
                return r;
        }
        /* A minimal /dev (null, zero, full, random, urandom, tty, pts, shm)
         * and a /proc of the new pid namespace. */
        push3(&s, "--dev", "/dev", NULL);
        /* Read-only whole: bwrap run by root leaves the command's kuid 0,
         * which the sysctl permission check trusts whatever the dropped
         * capabilities, so a writable /proc/sys (core_pattern!) would be
         * the host's.  Every knob, present and future, is refused. */
        push3(&s, "--proc", "/proc", NULL);
        push3(&s, "--remount-ro", "/proc", NULL);

        if (plan->home == SBX__ENV_DIR_CALLER)
                home_env = home;
        else
                home_env = home_hidden ? home : "/tmp";   /* both are private tmpfs */
        if (push_env(&s, plan, envp, home_env) < 0) {
                sbx__strv_discard(&s);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        if (cwd != NULL)
                push3(&s, "--chdir", cwd, NULL);
        sbx__strv_push(&s, "--");
        for (i = 0; argv[i] != NULL; i++)
                sbx__strv_push(&s, argv[i]);
        *argv_out = sbx__strv_finish(&s, NULL);
        if (*argv_out == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        return SBX_OK;
}

/* HOME and the account's home, as every backend resolves them
 * (paths/posix/home.c).  With an isolated HOME, one that exists but cannot be
 * resolved cannot be hidden: fail closed, as the other rungs do. */
static sbx_code resolve_homes(const struct sbx_plan *plan, const char *const *envp, char **home,
                              char **home2, const char *fn, sbx_error *err)
{
        int r = sbx__caller_home(envp, home), r2 = 0;

        *home2 = NULL;
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (plan->home == SBX__ENV_DIR_SCRATCH) {
                if (r == 0)
                        r2 = sbx__account_home(home2);
                if (r < 0 || r2 < 0 || (*home != NULL && strcmp(*home, "/") == 0)) {
                        free(*home);
                        free(*home2);
                        *home = *home2 = NULL;
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, r < 0 ? -r : -r2,
                                         "%s: the caller's home cannot be hidden (HOME is / or "
                                         "cannot be resolved); refusing to run with an isolated "
                                         "HOME", fn);
                }
        }
        return SBX_OK;
}

/* ------------------------------------------------------ process start */

struct start {
        const char        *path;        /* absolute */
        char *const       *argv;
        char *const       *envp;
        int                stdio[3];    /* -1 = inherit */
        const int         *keep;        /* become 3, 4, ... */
        size_t             n_keep;
        int                seccomp_fd;  /* becomes 3 + n_keep; -1 = none */
        int                new_session;
        pid_t              parent;
};

/* The program's process, below its keeper: async-signal-safe only.
 * Never returns. */
static void program_exec(void *arg, struct sbx__chan *ch) SBX__NORETURN;
static void program_exec(void *arg, struct sbx__chan *ch)
{
        const struct start *st = arg;
        int r, sc = st->seccomp_fd;


        /* The seccomp program refuses keyctl, add_key and request_key to
         * the command, but the session keyring survives exec: bwrap and
         * what it runs get a fresh, empty one instead of the caller's all
         * the same.  Each one counts against the user's key quota (200
         * keys for a user, kernel.keys.maxkeys) until the kernel collects
         * it: a burst of spawns can meet EDQUOT, and then the command
         * keeps the caller's keyring, unreachable to it as on both native
         * rungs. */
        if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0 &&
            errno != ENOSYS && errno != EDQUOT)
                sbx__child_fail(ch, STEP_CAPS, errno, 0);
        if ((r = sbx__child_arrange_fds(ch, sc >= 0 ? &sc : NULL, st->stdio, st->keep,
                                        st->n_keep)) < 0)
                sbx__child_fail(ch, STEP_FDS, r, 0);
        /* The program's fd goes right after keep_fds, inheritable; bwrap
         * reads it to EOF and closes it before the command runs. */
        if (sc >= 0 && dup2(sc, 3 + (int) st->n_keep) < 0)
                sbx__child_fail(ch, STEP_FDS, errno, 0);
        (void) sbx__child_at(ch, STEP_EXEC);
        execve(st->path, st->argv, st->envp);
        sbx__child_fail(ch, STEP_EXEC, errno, 0);
}

/* The launched child: async-signal-safe only.  It keeps the program
 * (keeper.c): a host killed while bwrap starts its inner process leaves
 * nothing running.  Never returns. */
static void child_exec(void *arg, struct sbx__chan *ch) SBX__NORETURN;
static void child_exec(void *arg, struct sbx__chan *ch)
{
        const struct start *st = arg;
        int sc = st->seccomp_fd;

        sbx__child_reset_signals();
        {
                int need[68];
                size_t n = 0, k;

                for (k = 0; k < 3; k++)
                        need[n++] = st->stdio[k];
                for (k = 0; k < st->n_keep && n < SBX__ARRAY_SIZE(need) - 1; k++)
                        need[n++] = st->keep[k];
                need[n++] = sc;
                sbx__child_close_others(ch, need, n);
        }
        if (sbx__child_at(ch, STEP_PDEATHSIG))
                sbx__child_fail(ch, STEP_PDEATHSIG, EPERM, 0);
        /* The keeper leads the run's session: the host finds what is left
         * by it if the keeper itself is killed (tree.c). */
        if (st->new_session && (sbx__child_at(ch, STEP_SETSID) || setsid() < 0))
                sbx__child_fail(ch, STEP_SETSID, errno, 0);
        sbx__keeper_run(ch, st->parent, program_exec, (void *) st);
}

/* Start the process through the one launcher; *proc on success (its
 * channel closed).  Errors: SBX_E_IO (names what). */
static sbx_code start_process(struct start *st, const char *what, struct sbx__proc *proc,
                              sbx_error *err)
{
        struct sbx__child_report rep;
        int r;

        if (st->n_keep > 64)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: more than 64 fds to pass", what);
        st->parent = getpid();
        r = sbx__launch(0, 0, child_exec, st, proc);
        if (r < 0)
                return sbx__fail(err, SBX_E_IO, -r, "%s: cannot start a process: %s", what,
                                 sbx__strerror(-r));
        r = sbx__launch_wait_exec(proc, &rep);
        if (r != 0) {
                sbx__proc_abort(proc);
                if (r < 0 && r != -ETIMEDOUT)
                        rep.err = -r;
                return sbx__fail(err, SBX_E_IO, rep.err, "%s: cannot execute \"%.200s\": %s",
                                 what, st->path, sbx__strerror(rep.err));
        }
        sbx__proc_close_channel(proc);
        return SBX_OK;
}

/* ----------------------------------------------------------------- probe */

/* The probe runs under probe_lock until it has a final answer: bwrap runs
 * `true`, or the environment refuses it (not found, bwrap fails).  A
 * failure for a passing reason (no fd, no memory, a timeout under load)
 * is SBX_E_IO for that call, and the next call probes again. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_done;                  /* under probe_lock */
static sbx_code probe_code = SBX_E_SANDBOX_UNAVAILABLE;
static int probe_errno;
static char probe_msg[SBX_ERROR_SIZE];
static char *bwrap_bin;                 /* set once by the probe */

static void probe_fail(const char *fmt, ...) SBX__PRINTF(1, 2);
static void probe_fail(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(probe_msg, sizeof(probe_msg), fmt, ap);
        va_end(ap);
}

/* The probe failed for a passing reason (errno e): not final. */
static void probe_transient(int e)
{
        probe_code = SBX_E_IO;
        probe_errno = e;
}

/* Wait for the probe at most timeout_ms, then kill it.  The wait status,
 * or -1 on timeout. */
static int wait_bounded(struct sbx__proc *proc, int timeout_ms)
{
        int status = 0;

        if (sbx__proc_reap(proc, timeout_ms, &status) == 0) {
                if (proc->pidfd >= 0)
                        (void) close(proc->pidfd);
                proc->pidfd = -1;
                return status;
        }
        sbx__proc_abort(proc);
        return -1;
}

static void probe_run(void)
{
        const char *runner = sbx__local_runner();
        const char *path = sbx__secure_getenv("PATH");
        char *const envp[] = { (char *) "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
        char *argv[] = {
                NULL, (char *) "--ro-bind", (char *) "/", (char *) "/", (char *) "--dev",
                (char *) "/dev", (char *) "--proc", (char *) "/proc", (char *) "--remount-ro",
                (char *) "/proc", (char *) "--unshare-user",
                (char *) "--unshare-pid", (char *) "--unshare-ipc", (char *) "--unshare-uts",
                (char *) "--unshare-cgroup-try", (char *) "--unshare-net",
                (char *) "--die-with-parent", (char *) "--new-session", (char *) "--cap-drop",
                (char *) "ALL", (char *) "--seccomp", (char *) "3", (char *) "--tmpfs",
                (char *) "/tmp", (char *) "--clearenv", (char *) "--setenv", (char *) "PATH",
                (char *) "/usr/local/bin:/usr/bin:/bin", (char *) "--", (char *) "true", NULL,
        };
        struct start st;
        sbx_error e = { 0, 0, { 0 } };
        char out[160];
        int devnull = -EBADF, pipefd[2] = { -EBADF, -EBADF }, scfd = -EBADF, status, r;
        struct sbx__proc proc;
        ssize_t n = 0;

        probe_code = SBX_E_SANDBOX_UNAVAILABLE;
        probe_errno = 0;
        probe_msg[0] = '\0';
        r = bwrap_bin != NULL ? 0 : sbx__which(runner != NULL ? runner : "bwrap", path, &bwrap_bin);
        if (r == -ENOMEM) {
                probe_transient(ENOMEM);
                probe_fail("bwrap: no memory to find bwrap");
                return;
        }
        if (r < 0) {
                if (runner != NULL)
                        probe_fail("bwrap: the runner command \"%.200s\" is not usable: %s",
                                   runner, sbx__strerror(-r));
                else
                        probe_fail("bwrap: not found in PATH%s",
                                   r == -ENOENT ? "" : " (or not executable)");
                return;
        }
        argv[0] = bwrap_bin;
        devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
                probe_transient(errno);
                probe_fail("bwrap: probe setup failed: %s", sbx__strerror(errno));
                goto out;
        }
        /* The spawn's seccomp program too, on fd 3 (no keep_fds here). */
        if (seccomp_memfd("bwrap probe", &scfd, &e) != SBX_OK) {
                probe_transient(e.sys_errno);
                probe_fail("%s", e.message);
                goto out;
        }
        memset(&st, 0, sizeof(st));
        st.path = bwrap_bin;
        st.argv = argv;
        st.envp = envp;
        st.stdio[0] = devnull;
        st.stdio[1] = devnull;
        st.stdio[2] = pipefd[1];
        st.seccomp_fd = scfd;
        st.new_session = 1;
        if (start_process(&st, "bwrap probe", &proc, &e) != SBX_OK) {
                /* bwrap that cannot be executed is the environment's
                 * answer; a process that cannot be started is not. */
                if (strstr(e.message, "cannot start a process") != NULL)
                        probe_transient(e.sys_errno);
                probe_fail("%s", e.message);
                goto out;
        }
        (void) close(pipefd[1]);
        pipefd[1] = -EBADF;
        (void) close(scfd);
        scfd = -EBADF;
        status = wait_bounded(&proc, PROBE_TIMEOUT_MS);
        /* bwrap's own complaint, if any (it fits in the pipe buffer). */
        (void) fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
        n = read(pipefd[0], out, sizeof(out) - 1);
        out[n > 0 ? n : 0] = '\0';
        out[strcspn(out, "\n")] = '\0';
        if (status == -1) {
                probe_transient(ETIMEDOUT);
                probe_fail("bwrap: `true` under bwrap did not finish within %d ms",
                           PROBE_TIMEOUT_MS);
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                probe_fail("bwrap: `true` under bwrap failed (status 0x%x)%s%.160s",
                           (unsigned) status, out[0] != '\0' ? ": " : "", out);
        } else {
                probe_code = SBX_OK;
        }
out:
        if (devnull >= 0)
                (void) close(devnull);
        if (scfd >= 0)
                (void) close(scfd);
        if (pipefd[0] >= 0)
                (void) close(pipefd[0]);
        if (pipefd[1] >= 0)
                (void) close(pipefd[1]);
}

sbx_code sbx__bwrap_probe(sbx_error *err)
{
        sbx_code r;

        (void) pthread_mutex_lock(&probe_lock);
        if (!probe_done) {
                probe_run();
                probe_done = probe_code != SBX_E_IO;
        }
        r = probe_code;
        if (r != SBX_OK)
                r = sbx__fail(err, r, probe_errno, "%s", probe_msg);
        (void) pthread_mutex_unlock(&probe_lock);
        return r;
}

/* -------------------------------------------------------- confine, spawn */

sbx_code sbx__bwrap_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                            const char *runner, const char *const *argv,
                            char ***argv_out, sbx_error *err)
{
        char *bin = NULL, *home = NULL, *home2 = NULL;
        sbx_code r;
        int rc;

        (void) profile;
        if (runner != NULL) {
                rc = sbx__which(runner, sbx__secure_getenv("PATH"), &bin);
                if (rc == -ENOMEM)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_confine: no memory");
                if (rc < 0)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -rc,
                                         "sbx_confine: the bwrap runner \"%.200s\" is not "
                                         "usable: %s", runner, sbx__strerror(-rc));
        } else {
                r = sbx__bwrap_probe(err);
                if (r != SBX_OK)
                        return r;
                bin = sbx__strdup(bwrap_bin);
                if (bin == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_confine: no memory");
        }
        r = resolve_homes(plan, (const char *const *) environ, &home, &home2, "sbx_confine", err);
        /* No --chdir: like every runner, the command starts in the
         * directory the host runs the argv from. */
        if (r == SBX_OK)
                r = build_homes(plan, bin, argv, (const char *const *) environ, home, home2,
                                NULL, -1, argv_out, err);
        free(home);
        free(home2);
        free(bin);
        return r;
}

sbx_code sbx__bwrap_spawn(const struct sbx_plan *plan, const char *const *argv,
                          const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        const char *const *src_env;
        const char *path_value = NULL;
        char **bargv = NULL, *home = NULL, *home2 = NULL, *found = NULL, *path_env = NULL;
        char *envp[2] = { NULL, NULL };
        struct start st;
        struct sbx__proc proc;
        sbx_code r;
        size_t i;
        int rc, scfd = -EBADF;

        if (plan == NULL || argv == NULL || argv[0] == NULL || opts == NULL || child == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: NULL argument", fn);
        if (plan->direct)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: a direct plan is not run by bwrap",
                                 fn);
        if (sbx__sigchld_ignored())
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: the process ignores SIGCHLD "
                                 "(SIG_IGN or SA_NOCLDWAIT), so the bwrap child would be reaped "
                                 "before its status is known; restore SIGCHLD's default or use "
                                 "the native or landlock backend", fn);
        /* No limits here: the row does not claim SBX__ROW_LIMITS, so the
         * exec layer refused them. */
        r = sbx__bwrap_probe(err);
        if (r != SBX_OK)
                return r;

        src_env = opts->envp != NULL ? opts->envp : (const char *const *) environ;
        for (i = 0; src_env[i] != NULL; i++)
                if (strncmp(src_env[i], "PATH=", 5) == 0)
                        path_value = src_env[i] + 5;
        /* A bare name not found in PATH on the host view is not found in
         * the sandbox either (the host is shown at the same paths, or less
         * of it).  A name with a '/' is bwrap's to resolve (relative to the
         * working directory); so are other errors (EACCES...). */
        rc = sbx__command_lookup(argv[0], src_env, &found);
        free(found);
        if (rc == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (rc == -ENOENT)
                return sbx__fail(err, SBX_E_NOT_FOUND, ENOENT,
                                 "%s: command \"%.200s\" not found in PATH", fn, argv[0]);

        r = resolve_homes(plan, src_env, &home, &home2, fn, err);
        if (r != SBX_OK)
                goto out;
        /* The seccomp program, on the fd right after keep_fds. */
        r = seccomp_memfd(fn, &scfd, err);
        if (r != SBX_OK)
                goto out;
        r = build_homes(plan, bwrap_bin, argv, src_env, home, home2,
                        opts->cwd != NULL ? opts->cwd : plan->workspace_root,
                        3 + (int) opts->n_keep_fds, &bargv, err);
        if (r != SBX_OK)
                goto out;
        path_env = malloc(strlen(path_value != NULL ? path_value : "") + 6);
        if (path_env == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        /* bwrap itself gets only PATH (its command gets --setenv's). */
        (void) sprintf(path_env, "PATH=%s", path_value != NULL ? path_value : "");
        envp[0] = path_value != NULL ? path_env : NULL;

        memset(&st, 0, sizeof(st));
        st.path = bwrap_bin;
        st.argv = bargv;
        st.envp = envp;
        st.stdio[0] = opts->stdin_fd;
        st.stdio[1] = opts->stdout_fd;
        st.stdio[2] = opts->stderr_fd;
        st.keep = opts->keep_fds;
        st.n_keep = opts->n_keep_fds;
        st.seccomp_fd = scfd;
        st.new_session = 1;
        r = start_process(&st, "sbx_spawn (bwrap)", &proc, err);
        if (r != SBX_OK)
                goto out;
        child->pid = proc.pid;
        child->pidfd = proc.pidfd;
        child->required = plan->required;
        /* This spawn closed every fd but stdio and keep_fds before exec,
         * and passed the seccomp program (bwrap exits 1 without running
         * the command if it cannot load it). */
        child->achieved = sbx__bwrap_guarantees(plan) | SBX_G_FD_ISOLATION;
out:
        if (scfd >= 0)
                (void) close(scfd);
        free(path_env);
        free(home);
        free(home2);
        sbx_strv_free(bargv);
        return r;
}
