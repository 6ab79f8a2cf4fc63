/*
 * ladder.c - the native Linux enforcement ladder, parent side.
 *
 *   rung 1 ("native"):  user + mount + pid + ipc + uts + cgroup (+ net
 *                       unless the network is allowed) namespaces, a
 *                       read-only view of the host with the writable roots
 *                       bound read-write, protected paths and carve-outs
 *                       re-mounted, fresh /proc, minimal /dev, private /tmp
 *                       and /dev/shm, an empty scratch HOME; then Landlock
 *                       and seccomp on top (mounts.c, llrules.c, child.c).
 *   rung 2 ("landlock"): Landlock + seccomp + no_new_privs on the host view,
 *                       with host scratch HOME/TMPDIR directories.
 *
 * Everything is prepared here: strings, the mount operation list, the
 * Landlock ruleset fd, the seccomp program, argv, envp, the resolved
 * executable.  The child is started by the one launcher (launch.c).
 *
 * Detection is by doing (docs/backends.md): a rung's probe is a cheap
 * check of what it needs; the first spawn whose namespace setup the
 * environment refuses marks rung 1 unusable for the process, and the
 * caller moves down the chain.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/capability.h>
#include <linux/openat2.h>

#include "backend/backend.h"
#include "linux/ladder.h"
#include "paths/paths_internal.h"

/* ---------------------------------------------------------- guarantees */

static uint32_t hardening(void)
{
        return SBX_G_SYSCALL_FILTER | SBX_G_NO_NEW_PRIVS | SBX_G_TTY_ISOLATION | SBX_G_FD_ISOLATION |
               SBX_G_ENV_SCRUB;
}

uint32_t sbx__native_guarantees(const struct sbx_plan *plan)
{
        uint32_t g = hardening() | SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY |
                     SBX_G_PROCESS_ISOLATION | SBX_G_HOME_ISOLATION | SBX_G_PROTECTED_PATHS;

        /* Proxied: the namespace's only way out is the listener the exec
         * layer serves with the egress proxy (targets and address classes
         * checked there); it fails the spawn when it cannot serve it. */
        if (sbx__plan_proxied(plan))
                g |= SBX_G_TARGET_NETWORK | SBX_G_ADDRESS_NETWORK;
        else if (plan->network != SBX__NET_ALLOW)
                g |= SBX_G_NETWORK_DENY;
        return g;
}

/* What a Confine argv achieves: a runner the host starts itself has no
 * egress proxy behind its listener, so a proxied plan loses target- and
 * address-network there (and its Confine fails closed). */
uint32_t sbx__native_confine_guarantees(const struct sbx_plan *plan)
{
        return sbx__native_guarantees(plan) &
               ~(uint32_t) (SBX_G_TARGET_NETWORK | SBX_G_ADDRESS_NETWORK);
}

uint32_t sbx__landlock_guarantees(const struct sbx_plan *plan)
{
        int abi = sbx__landlock_abi();
        uint32_t g;

        if (abi < 1)
                return 0;
        g = hardening() | SBX_G_READ_BOUNDARY | SBX_G_HOME_ISOLATION | SBX_G_PROTECTED_PATHS;
        if (abi >= 5)
                g |= SBX_G_WRITE_BOUNDARY;      /* truncate (ABI 3) and device ioctls (ABI 5) */
        if (plan->network != SBX__NET_ALLOW && abi >= 6 && !sbx__plan_proxied(plan))
                g |= SBX_G_NETWORK_DENY;        /* TCP (ABI 4), abstract unix scope (ABI 6), seccomp */
        /* No SBX_G_PROCESS_ISOLATION: signals are scoped (ABI 6) and ptrace
         * refused, but host processes stay visible in /proc (command lines
         * included), which the guarantee excludes. */
        /* Narrower paths inside a granted tree (protected paths, carve-outs,
         * the hidden HOME) are expressed by expanding the tree into its
         * entries (llrules.c); chmod/chown/utimes/xattrs, which Landlock
         * does not cover, are refused by seccomp on this rung. */
        return g;
}

/* ------------------------------------------------------ parent helpers */

/* Rung 1 is unusable in this process once the environment refused to
 * create or map its namespaces (not for plan-specific failures). */
static atomic_int native_broken;
/* Test-only: the next rung-1 spawns fail at clone as if the environment
 * refused user namespaces (sticky, like the real refusal). */
static atomic_int refuse_namespaces;


/* A rung proved itself by a spawn that reached execve (no verify needed). */
static atomic_int rung_proven[2];

void sbx__fault_refuse_namespaces(void)
{
        /* As in a process that never ran rung 1 where it is refused. */
        atomic_store(&rung_proven[0], 0);
        atomic_store(&refuse_namespaces, 1);
}

static int environment_refused(int step, int e)
{
        /* Once rung 1 ran here, a later failure is that spawn's, not the
         * environment's. */
        if (atomic_load(&rung_proven[0]))
                return 0;
        switch (step) {
        case STEP_FORK:
                /* Not ENOSPC/EUSERS: running out of namespaces is a load,
                 * not a refusal -- that spawn fails, the next may not. */
                return e == EPERM || e == EINVAL || e == ENOSYS;
        case STEP_SETGROUPS:
        case STEP_UID_MAP:
        case STEP_GID_MAP:
        case STEP_MAKE_PRIVATE:
        case STEP_BASE_TMPFS:
                return e == EPERM || e == EACCES;
        default:
                return 0;
        }
}

static sbx_code report_child_failure(const struct sbx__prep *p,
                                     const struct sbx__child_report *rep, const char *backend,
                                     sbx_error *err)
{
        const char *what = sbx__step_name(rep->step);
        const char *path = "";

        if (what == NULL)
                what = "an unknown step";
        if (rep->step == STEP_MOUNT_OP || rep->step == STEP_LANDLOCK_ADD) {
                if (rep->index >= 0 && (size_t) rep->index < p->n_ops)
                        path = p->ops[rep->index].dst;
        }
        if (rep->err == ETIMEDOUT && rep->index == -1)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ETIMEDOUT,
                                 "sbx_spawn: %s sandbox setup did not finish within %d ms (it was "
                                 "%s); the command was not run", backend, sbx__launch_timeout(),
                                 what);
        if (rep->err == ECHILD && rep->index == -1)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ECHILD,
                                 "sbx_spawn: the %s sandbox process died while %s%s; the command "
                                 "was not run", backend, what,
                                 p->memory_max > 0 ? " (memory_max is set: the limit may be "
                                 "too small to start the command)" : "");
        if (rep->step == STEP_EXEC && (rep->err == ENOENT || rep->err == ENOTDIR))
                return sbx__fail(err, SBX_E_NOT_FOUND, rep->err, "sbx_spawn: command \"%.200s\" "
                                 "not found in the sandbox: %s", p->exec_path, sbx__strerror(rep->err));
        if (rep->step == STEP_EXEC)
                return sbx__fail(err, SBX_E_IO, rep->err, "sbx_spawn: cannot execute \"%.200s\" in "
                                 "the sandbox: %s", p->exec_path, sbx__strerror(rep->err));
        /* The cwd as the sandbox sees it (spawn.c checked the host's). */
        if (rep->step == STEP_CHDIR)
                return sbx__fail(err, rep->err == ENOENT || rep->err == ENOTDIR ? SBX_E_NOT_FOUND
                                 : rep->err == ENAMETOOLONG ? SBX_E_RANGE : SBX_E_IO, rep->err,
                                 "sbx_spawn: %s sandbox setup failed while %s \"%.200s\": %s; "
                                 "the command was not run", backend, what, p->cwd,
                                 sbx__strerror(rep->err));
        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, rep->err,
                         "sbx_spawn: %s sandbox setup failed while %s%s%s%s: %s; the command "
                         "was not run", backend, what, path[0] ? " \"" : "", path,
                         path[0] ? "\"" : "", sbx__strerror(rep->err));
}

/* Resource limits, each on its own: a cgroup where one can be made (v2,
 * else v1), which is one total for the whole process tree; otherwise an
 * rlimit.  memory: RLIMIT_AS, per process (a tree of N processes may use N
 * times the limit), set only without a memory cgroup.  pids: RLIMIT_NPROC,
 * the kernel's count of the user's processes -- in rung 1's own user
 * namespace that is the tree (plus its init), on rung 2 every process of
 * the user on the host -- which does not bind root at all, so root
 * without a pids cgroup fails closed.  kinds[0] / kinds[1]: how memory /
 * pids are enforced (sbx_limit_kind). */
static sbx_code prepare_limits(struct sbx__prep *p, int rung, const sbx_spawn_options *opts,
                               char **cgdirs, int32_t *kinds, sbx_error *err)
{
        kinds[0] = kinds[1] = SBX_LIMIT_NONE;
        if (opts->pids_max > 0 || opts->memory_max > 0) {
                (void) sbx__cgroup_prepare(opts->pids_max, opts->memory_max, 0, cgdirs);
                if (opts->pids_max > 0 && cgdirs[0] == NULL && geteuid() == 0)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                         "sbx_spawn: a pids limit for root needs a writable "
                                         "cgroup (v2 with the pids controller, or v1); none was "
                                         "found, refusing to run unlimited");
        }
        /* Rung 2 has no pid namespace whose end takes every descendant
         * along: where a cgroup can be made, track the command in one and
         * kill what is left when it is reaped.  (Unprivileged without a
         * delegated cgroup, a subreaper monitor does it: child.c.) */
        if (rung == 2 && cgdirs[0] == NULL && cgdirs[1] == NULL)
                (void) sbx__cgroup_prepare(0, 0, 1, cgdirs);
        if (opts->pids_max > 0 && cgdirs[0] != NULL) {
                kinds[1] = SBX_LIMIT_CGROUP;
        } else if (opts->pids_max > 0) {
                kinds[1] = SBX_LIMIT_PER_USER;
                p->set_nproc = 1;
                /* Never looser than asked. */
                p->rl_nproc.rlim_cur = p->rl_nproc.rlim_max =
                        (rlim_t) opts->pids_max + (rung == 1 ? 1 : 0);
        }
        if (opts->memory_max > 0 && cgdirs[1] != NULL) {
                kinds[0] = SBX_LIMIT_CGROUP;
        } else if (opts->memory_max > 0) {
                kinds[0] = SBX_LIMIT_PER_PROCESS;
                p->set_as = 1;
                p->rl_as.rlim_cur = p->rl_as.rlim_max = (rlim_t) opts->memory_max;
        }
        /* Limits are a property of the spawn, not of the plan: claimed only
         * when asked for and applied (the child fails closed otherwise). */
        if (opts->pids_max > 0 || opts->memory_max > 0)
                p->achieved |= SBX_G_RESOURCE_LIMITS;
        return SBX_OK;
}

/* An O_PATH fd on path, following no symbolic link in any component
 * (openat2 RESOLVE_NO_SYMLINKS; before Linux 5.6, O_NOFOLLOW for the last
 * one and a check that the fd's path is still the one asked for). */
static int open_no_links(const char *path)
{
        struct open_how how;
        char link[64], real[SBX_PATH_MAX];
        ssize_t n;
        int fd;

        memset(&how, 0, sizeof(how));
        how.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW;
        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        fd = (int) syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
                return fd;
        fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -1;
        (void) snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, real, sizeof(real) - 1);
        if (n < 0 || (real[n] = '\0', strcmp(real, path) != 0)) {
                (void) close(fd);
                errno = ELOOP;
                return -1;
        }
        return fd;
}

/* What a rung hides whatever the plan's host rule says (mounts.c,
 * llrules.c): the caller's HOME when isolated, /run, and on rung 1 the
 * host's /tmp (its own is a tmpfs). */
struct view {
        const struct sbx_plan *plan;
        int rung;
        const char *home, *home2;
};

static int in_dir(const char *path, const char *dir)
{
        return dir != NULL && strcmp(dir, "/") != 0 &&
               (strcmp(path, dir) == 0 || sbx__under(path, dir));
}

/* 1 if the command would find path (a PATH candidate) in its view. */
static int visible_in_view(const char *path, void *arg)
{
        const struct view *v = arg;
        const struct sbx_plan_fs_rule *rule;
        char real[PATH_MAX];

        if (realpath(path, real) == NULL)
                return 0;
        rule = sbx__plan_rule_for(v->plan, real);
        if (rule == NULL || !(rule->access & SBX__FS_READ))
                return 0;
        if (rule->origin != SBX__ORIGIN_HOST)
                return 1;       /* a root or a runtime path shows it */
        if (v->plan->home == SBX__ENV_DIR_SCRATCH && (in_dir(real, v->home) || in_dir(real, v->home2)))
                return 0;
        return !in_dir(real, "/run") && !(v->rung == 1 && in_dir(real, "/tmp"));
}

/*
 * --allow-unix: an O_PATH fd on each listed socket, opened now without
 * following a symbolic link, for the supervisor to connect through
 * (/proc/self/fd/N): what the command reaches is the socket file that was
 * there at spawn, whatever is renamed or mounted over its path later.  A
 * missing socket is -1 (its connect fails with ENOENT); anything but a
 * socket there fails the spawn.
 */
int sbx__ladder_lookup(int rung, const struct sbx_plan *plan, const char *home,
                       const char *home2, const char *argv0, char *const *envp, char **out)
{
        /* In the sandbox's view: a PATH entry into the hidden HOME (pyenv
         * shims, ~/.cargo/bin) must not shadow /usr/bin. */
        struct view v = { plan, rung, home, home2 };

        return sbx__command_lookup_visible(argv0, (const char *const *) envp, visible_in_view, &v,
                                           out);
}

static sbx_code pin_sockets(struct sbx__prep *p, const struct sbx_plan *plan, const char *fn,
                            sbx_error *err)
{
        size_t i;

        if (plan->n_unix_sockets == 0)
                return SBX_OK;
        if (plan->n_unix_sockets > SBX__MAX_UNIX_FDS)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: %zu unix sockets; at most %d", fn,
                                 plan->n_unix_sockets, SBX__MAX_UNIX_FDS);
        p->unix_fds = malloc(plan->n_unix_sockets * sizeof(*p->unix_fds));
        if (p->unix_fds == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        for (i = 0; i < plan->n_unix_sockets; i++)
                p->unix_fds[i] = -1;
        p->n_unix_fds = plan->n_unix_sockets;
        for (i = 0; i < plan->n_unix_sockets; i++) {
                const char *path = plan->unix_sockets[i];
                struct stat st;
                int fd = open_no_links(path);

                if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
                        continue;
                if (fd < 0 && errno == ELOOP)
                        return sbx__fail(err, SBX_E_INVALID, ELOOP, "%s: unix socket %.200s: a "
                                         "component is now a symbolic link (the path was "
                                         "canonical when the profile was made)", fn, path);
                if (fd < 0)
                        return sbx__fail(err, errno == EMFILE || errno == ENFILE ? SBX_E_IO
                                         : SBX_E_INVALID, errno, "%s: unix socket %.200s: %s",
                                         fn, path, sbx__strerror(errno));
                p->unix_fds[i] = fd;
                if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: unix socket %.200s is not "
                                         "a socket (%s)", fn, path,
                                         S_ISLNK(st.st_mode) ? "a symbolic link" : "another file type");
        }
        p->notify_ctx.unix_paths = (const char *const *) plan->unix_sockets;
        p->notify_ctx.unix_fds = p->unix_fds;
        p->notify_ctx.n_unix = p->n_unix_fds;
        return SBX_OK;
}

static void seccomp_and_landlock_opts(int rung, const struct sbx_plan *plan, uint32_t *ll,
                                      uint32_t *sc)
{
        *ll = *sc = 0;
        if (plan->network != SBX__NET_ALLOW) {
                /* Rung 1's own network namespace has a loopback and nothing
                 * else: the command may bind and connect there (a test
                 * suite's server); rung 2 has only the host's, so no
                 * socket of an internet family at all. */
                *ll |= SBX__LL_SCOPE_ABSTRACT;
                if (rung == 2) {
                        *ll |= SBX__LL_NET_DENY;
                        *sc |= SBX__SC_DENY_INET;
                }
        }
        /* Both rungs show host files, and neither a read-only mount nor
         * Landlock mediates connect(2) to a socket file: whatever the
         * network decision, new unix sockets are refused so no host socket
         * (a database's, docker.sock, an ssh agent) can be reached;
         * stream and seqpacket socketpairs still work (a datagram pair
         * could sendto any socket file, so it is refused).  With
         * --allow-unix, stream sockets are allowed and every connect goes
         * to the supervisor, which reaches only the listed sockets. */
        *sc |= plan->n_unix_sockets > 0 ? SBX__SC_UNIX_STREAM : SBX__SC_DENY_UNIX_PATH;
        /* Rung 2 shares the host's pid and IPC namespaces. */
        if (rung == 2)
                *sc |= SBX__SC_DENY_METADATA | SBX__SC_HOST_NS;
        /* Host abstract unix sockets (session buses, X11) are never the
         * sandbox's to reach, whatever the network decision. */
        *ll |= SBX__LL_SCOPE_SIGNAL | SBX__LL_SCOPE_ABSTRACT;
}

/* ------------------------------------------------------------ the spawn
 *
 * A rung's setup is a list of features (below).  Each is one block in one
 * place: what it prepares on the host before the clone (prepare), what it
 * does once the child exists but waits for the go byte (started), what it
 * takes over once the command exec'd (running), and what it undoes when
 * the spawn fails (undo).  What the child itself does for a feature is
 * the part of struct sbx__prep the feature fills (child.c reads it, in
 * its own fixed, async-signal-safe order). */

struct ns_ctx {
        int      rung;
        const char *fn, *backend;
        const struct sbx_plan *plan;
        const sbx_spawn_options *opts;
        const char *const *argv;
        const char *const *src_env;
        struct sbx__warm *zy;           /* a zygote's start, or NULL */
        struct sbx__prep p;
        struct sbx__proc proc;
        char    *home, *home2, *scratch;
        char     scratch_home[SBX_PATH_MAX + 8], scratch_tmp[SBX_PATH_MAX + 8];
        char    *cgdirs[2];
        int32_t  limit_kinds[2];
        uint32_t ll_opts, sc_opts;
        int      ctrl[2];
        int      net_fds[5];            /* the proxy's listeners, once received */
};

struct ns_feature {
        const char *name;
        sbx_code (*prepare)(struct ns_ctx *c, sbx_error *err);
        sbx_code (*started)(struct ns_ctx *c, sbx_error *err);
        sbx_code (*running)(struct ns_ctx *c, sbx_error *err);
        void     (*undo)(struct ns_ctx *c);
};

static sbx_code no_memory(const struct ns_ctx *c, sbx_error *err)
{
        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", c->fn);
}

/* The homes hidden from the command: the caller's HOME, and the account's
 * own home when HOME points elsewhere. */
static sbx_code homes_prepare(struct ns_ctx *c, sbx_error *err)
{
        int rc = sbx__caller_home(c->src_env, &c->home);

        if (rc == -ENOMEM)
                return no_memory(c, err);
        if (c->plan->home == SBX__ENV_DIR_SCRATCH && rc >= 0) {
                int rc2 = sbx__account_home(&c->home2);

                if (rc2 == -ENOMEM)
                        return no_memory(c, err);
                if (rc2 < 0)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -rc2,
                                         "%s: the account's home directory cannot be resolved, "
                                         "so it cannot be hidden; refusing to run with an "
                                         "isolated HOME", c->fn);
                if (c->home2 != NULL && c->home != NULL && strcmp(c->home2, c->home) == 0) {
                        free(c->home2);
                        c->home2 = NULL;
                }
                c->p.home2 = c->home2;
        }
        if (c->plan->home == SBX__ENV_DIR_SCRATCH &&
            (rc < 0 || (c->home != NULL && strcmp(c->home, "/") == 0)))
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -rc,
                                 "%s: the caller's HOME %s, so it cannot be hidden; refusing to "
                                 "run with an isolated HOME (set HOME to the real home "
                                 "directory)", c->fn, rc < 0 ? "cannot be resolved" : "is /");
        return SBX_OK;
}

static void homes_undo(struct ns_ctx *c)
{
        free(c->home);
        free(c->home2);
        c->home = c->home2 = NULL;
}

/* Environment, HOME and TMPDIR: an executor's own directories, rung 1's
 * private /tmp, or a host scratch directory for rung 2. */
static sbx_code env_prepare(struct ns_ctx *c, sbx_error *err)
{
        const struct sbx_plan *plan = c->plan;
        sbx_code r;

        if (plan->scratch_dir != NULL) {
                /* Kept across the executor's runs (the plan has read-write
                 * rules for both). */
                (void) snprintf(c->scratch_home, sizeof(c->scratch_home), "%s/home",
                                plan->scratch_dir);
                (void) snprintf(c->scratch_tmp, sizeof(c->scratch_tmp), "%s/tmp",
                                plan->scratch_dir);
        } else if (c->rung == 1) {
                const char *h = plan->home == SBX__ENV_DIR_CALLER ? c->home
                                : (c->home != NULL ? c->home : "/tmp");

                c->p.envp = sbx__plan_env(plan, c->src_env, h, "/tmp");
                return c->p.envp != NULL ? SBX_OK : no_memory(c, err);
        } else {
                r = sbx__make_scratch(&c->scratch, err);
                if (r != SBX_OK)
                        return r;
                (void) snprintf(c->scratch_home, sizeof(c->scratch_home), "%s/home", c->scratch);
                (void) snprintf(c->scratch_tmp, sizeof(c->scratch_tmp), "%s/tmp", c->scratch);
        }
        c->p.envp = sbx__plan_env(plan, c->src_env,
                                  plan->home == SBX__ENV_DIR_CALLER ? c->home : c->scratch_home,
                                  c->scratch_tmp);
        return c->p.envp != NULL ? SBX_OK : no_memory(c, err);
}

static void env_undo(struct ns_ctx *c)
{
        if (c->scratch != NULL) {
                (void) sbx__rm_rf(c->scratch);
                free(c->scratch);
                c->scratch = NULL;
        }
}

/* The executable, as the sandbox sees it (a zygote looks up each command
 * when it comes: warm.c). */
static sbx_code lookup_prepare(struct ns_ctx *c, sbx_error *err)
{
        int rc;

        if (c->zy != NULL)
                return SBX_OK;
        rc = sbx__ladder_lookup(c->rung, c->plan, c->home, c->home2, c->argv[0], c->p.envp,
                                &c->p.exec_path);
        if (rc == -ENOMEM)
                return no_memory(c, err);
        if (rc < 0)
                return sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "%s: command \"%.200s\" not "
                                 "found in PATH", c->fn, c->argv[0]);
        return SBX_OK;
}

/* Resource limits and the tracking cgroup.  A zygote has neither: it is a
 * subreaper (rung 2) or the namespace's init (rung 1).  The child waits
 * for the go byte until it is in its cgroups. */
static sbx_code limits_prepare(struct ns_ctx *c, sbx_error *err)
{
        if (c->zy != NULL)
                return SBX_OK;
        return prepare_limits(&c->p, c->rung, c->opts, c->cgdirs, c->limit_kinds, err);
}

static sbx_code limits_started(struct ns_ctx *c, sbx_error *err)
{
        if (sbx__cgroup_attach(c->cgdirs, c->proc.pid) < 0)
                return sbx__fail(err, sbx__errno_code(errno, SBX_E_SANDBOX_UNAVAILABLE), errno,
                                 "%s: cannot move the sandbox into its cgroup: %s; the command "
                                 "was not run", c->fn, sbx__strerror(errno));
        return SBX_OK;
}

static void limits_undo(struct ns_ctx *c)
{
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(c->cgdirs); i++) {
                sbx__cgroup_destroy(c->cgdirs[i]);
                free(c->cgdirs[i]);
                c->cgdirs[i] = NULL;
        }
}

/* A zygote's control pair (warm.c sends it each command). */
static sbx_code zygote_prepare(struct ns_ctx *c, sbx_error *err)
{
        if (c->zy == NULL)
                return SBX_OK;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->ctrl) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "%s: socketpair for the zygote failed",
                                 c->fn);
        c->p.ctrl_fd = c->ctrl[1];
        return SBX_OK;
}

static void zygote_undo(struct ns_ctx *c)
{
        if (c->ctrl[0] >= 0) {
                (void) close(c->ctrl[0]);
                (void) close(c->ctrl[1]);
        }
        c->ctrl[0] = c->ctrl[1] = -1;
}

/* The seccomp program (Landlock's options are fixed here too, its ruleset
 * is built last: landlock_prepare).  Observed, rung 2's internet sockets
 * are refused by the supervisor's filter instead, which records them
 * (observe.c). */
static sbx_code seccomp_prepare(struct ns_ctx *c, sbx_error *err)
{
        seccomp_and_landlock_opts(c->rung, c->plan, &c->ll_opts, &c->sc_opts);
        if (SBX__OBSERVING(c->opts->flags) && (c->sc_opts & SBX__SC_DENY_INET))
                c->sc_opts |= SBX__SC_INET_NOTIFY;
        return sbx__seccomp_build(c->sc_opts, &c->p.bpf, err);
}

/* The observer (observe.c): every path call and exec watched, every
 * connect done and seen. */
static sbx_code observer_prepare(struct ns_ctx *c, unsigned *flags, sbx_error *err)
{
        const char *sc1[] = { "/tmp", "/run", "/dev/shm", NULL };
        const char *sc2[] = { c->scratch_home, c->scratch_tmp, NULL };
        sbx_code r;

        if (c->zy != NULL)      /* observed runs are cold */
                return sbx__fail(err, SBX_E_INTERNAL, EINVAL, "%s: observed zygote", c->fn);
        *flags |= SBX__NF_OBSERVE | SBX__NF_CONNECT;
        if (c->opts->flags & SBX_SPAWN_OBSERVE_READS)
                *flags |= SBX__NF_READS;
        if (c->sc_opts & SBX__SC_INET_NOTIFY)
                *flags |= SBX__NF_INET;         /* the deny list left them to us */
        r = sbx__observe_prepare(&c->p, c->plan, c->home, c->home2, c->rung == 1 ? sc1 : sc2,
                                 err);
        if (r == SBX_OK)
                c->p.notify_ctx.obs = c->p.obs;
        return r;
}

/* The supervisor (notify.c) in the init/monitor: for protected paths it
 * vets every naming call (no new .git or HEAD anywhere; rung 2 also every
 * write: Landlock cannot keep .git read-only inside a tree whose root
 * stays creatable); for --allow-unix it makes every connect; on rung 2 it
 * does the metadata calls Landlock does not cover. */
static sbx_code supervisor_prepare(struct ns_ctx *c, sbx_error *err)
{
        const struct sbx_plan *plan = c->plan;
        struct sbx__prep *p = &c->p;
        unsigned flags = 0;
        size_t n = 0;
        sbx_code r;

        if (!plan->protects_git && plan->n_unix_sockets == 0 && !SBX__OBSERVING(c->opts->flags) &&
            c->rung != 2)
                return SBX_OK;
        /* Rung 2: Landlock does not cover chmod, chown, utimes or xattrs;
         * the supervisor does them where the ruleset grants writes (the
         * list landlock_prepare leaves in notify_ctx.wr). */
        if (c->rung == 2)
                flags |= SBX__NF_META;
        if (plan->protects_git)
                flags |= SBX__NF_NAMES | (c->rung == 2 ? SBX__NF_WRITES : 0);
        if (plan->n_unix_sockets > 0)
                flags |= SBX__NF_CONNECT;
        if (SBX__OBSERVING(c->opts->flags)) {
                r = observer_prepare(c, &flags, err);
                if (r != SBX_OK)
                        return r;
        }
        p->notify_ctx.flags = flags | ((flags & SBX__NF_WRITES) ? SBX__NF_NAMES : 0);
        p->notify_sock[0] = p->notify_sock[1] = -EBADF;
        r = sbx__notify_build(flags, &p->notify, &p->notify_ctx.map, err);
        if (r == SBX_OK)
                r = pin_sockets(p, plan, c->fn, err);
        if (r != SBX_OK)
                return r;
        if (sbx__notify_prot_build(plan, &p->notify_prot, &n) < 0)
                return no_memory(c, err);
        p->notify_ctx.prot = p->notify_prot;
        p->notify_ctx.n_prot = n;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->notify_sock) < 0)
                return sbx__fail(err, sbx__errno_code(errno, SBX_E_INTERNAL), errno,
                                 "%s: socketpair for the supervisor failed: %s", c->fn,
                                 sbx__strerror(errno));
        return SBX_OK;
}

/* The observer's record pipe: its read end is the handle's; the write end
 * lives on in the init/monitor only (its own fd table by now: the command
 * exec'd).  exec/events.c reads it. */
static sbx_code observer_running(struct ns_ctx *c, sbx_error *err)
{
        (void) err;
        if (c->p.obs == NULL)
                return SBX_OK;
        (void) close(c->p.obs_pipe[1]);
        c->p.obs_pipe[1] = -EBADF;
        return SBX_OK;
}

/* The egress proxy's listener comes from the child's own network
 * namespace (rung 1 only: rung 2 has none, and fails closed on the
 * guarantees).  Transparent mode: the child applies the nft rules. */
static sbx_code proxy_prepare(struct ns_ctx *c, sbx_error *err)
{
        struct sbx__nft_spec spec = { SBX__TPROXY_PORT, SBX__DNS_PORT, 0 };
        sbx_code r;
        int v6;

        if (c->rung != 1 || !sbx__plan_proxied(c->plan))
                return SBX_OK;
        /* IPv6 too where the kernel has it (a namespace without it gets no
         * IPv6 route: refused, never leaked). */
        v6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (v6 >= 0)
                (void) close(v6);
        else
                spec.flags |= SBX__NFT_NO_IPV6;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->p.proxy_sock) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "%s: socketpair for the proxy listener "
                                 "failed", c->fn);
        r = sbx__nft_build(&spec, &c->p.nft, err);
        if (r == SBX_OK)
                c->p.transparent = (spec.flags & SBX__NFT_NO_IPV6) ? 1 : 2;
        return r;
}

/* Sent before the command's execve, so they are there now: the proxy's
 * listener and, in transparent mode, its TCP and DNS sockets. */
static sbx_code proxy_running(struct ns_ctx *c, sbx_error *err)
{
        char tag = 0;
        int rc;

        if (c->p.proxy_sock[0] < 0)
                return SBX_OK;
        rc = sbx__recv_fds(c->p.proxy_sock[0], c->net_fds, &tag);
        if (rc < 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -rc, "%s: the proxy listener "
                                 "did not arrive from the sandbox", c->fn);
        (void) close(c->p.proxy_sock[0]);
        (void) close(c->p.proxy_sock[1]);
        c->p.proxy_sock[0] = c->p.proxy_sock[1] = -EBADF;
        return SBX_OK;
}

static void proxy_undo(struct ns_ctx *c)
{
        size_t i;

        if (c->p.proxy_sock[0] >= 0) {
                (void) close(c->p.proxy_sock[0]);
                (void) close(c->p.proxy_sock[1]);
        }
        c->p.proxy_sock[0] = c->p.proxy_sock[1] = -EBADF;
        for (i = 0; i < SBX__ARRAY_SIZE(c->net_fds); i++) {
                if (c->net_fds[i] >= 0)
                        (void) close(c->net_fds[i]);
                c->net_fds[i] = -1;
        }
}

/* Rung 1's namespaces: the id maps, the network namespace unless the
 * network is allowed, and the mount plan. */
static sbx_code mounts_prepare(struct ns_ctx *c, sbx_error *err)
{
        struct sbx__prep *p = &c->p;

        if (c->rung != 1)
                return SBX_OK;
        (void) snprintf(p->uid_map, sizeof(p->uid_map), "%u %u 1\n", (unsigned) geteuid(),
                        (unsigned) geteuid());
        (void) snprintf(p->gid_map, sizeof(p->gid_map), "%u %u 1\n", (unsigned) getegid(),
                        (unsigned) getegid());
        p->net_ns = c->plan->network != SBX__NET_ALLOW;
        if (sbx__build_mounts(p, c->plan, c->home) < 0)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: cannot prepare the mount plan",
                                 c->fn);
        return SBX_OK;
}

/* The Landlock ruleset, last: it may name paths the others prepared.  Then
 * the whole setup must enforce what the plan requires, or nothing runs. */
static sbx_code landlock_prepare(struct ns_ctx *c, sbx_error *err)
{
        const struct sbx_plan *plan = c->plan;
        sbx_code r;

        if (sbx__landlock_abi() >= 1) {
                r = sbx__build_landlock(&c->p, plan, c->scratch, c->home, c->ll_opts, err);
                if (r != SBX_OK)
                        return r;
        } else if (c->rung == 2) {
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: Landlock is not "
                                 "available", c->fn);
        }
        if ((c->p.achieved & plan->required) != plan->required)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "%s: the %s backend cannot enforce guarantees 0x%x on this "
                                 "kernel; refusing to run less confined", c->fn, c->backend,
                                 (unsigned) (plan->required & ~c->p.achieved));
        return SBX_OK;
}

/* In setup order; failures undo in reverse. */
static const struct ns_feature ns_features[] = {
        { .name = "homes", .prepare = homes_prepare, .undo = homes_undo },
        { .name = "env", .prepare = env_prepare, .undo = env_undo },
        { .name = "lookup", .prepare = lookup_prepare },
        { .name = "limits", .prepare = limits_prepare, .started = limits_started,
          .undo = limits_undo },
        { .name = "zygote", .prepare = zygote_prepare, .undo = zygote_undo },
        { .name = "seccomp", .prepare = seccomp_prepare },
        { .name = "supervisor", .prepare = supervisor_prepare, .running = observer_running },
        { .name = "proxy", .prepare = proxy_prepare, .running = proxy_running,
          .undo = proxy_undo },
        { .name = "mounts", .prepare = mounts_prepare },
        { .name = "landlock", .prepare = landlock_prepare },
};

/* The prep every rung starts from: no descriptor held, the caller's stdio
 * and kept fds, the host's pidfd for the init/monitor to watch. */
static void ns_ctx_init(struct ns_ctx *c, int rung, const struct sbx_plan *plan,
                        const char *const *argv, const sbx_spawn_options *opts,
                        struct sbx__warm *zy)
{
        struct sbx__prep *p = &c->p;
        size_t i;

        memset(c, 0, sizeof(*c));
        c->rung = rung;
        c->fn = "sbx_spawn";
        c->backend = rung == 1 ? "native" : "landlock";
        c->plan = plan;
        c->opts = opts;
        c->argv = argv;
        c->src_env = opts->envp != NULL ? opts->envp : (const char *const *) environ;
        c->zy = zy;
        c->proc = (struct sbx__proc){ -1, -1, -1, -1, NULL, NULL };
        c->limit_kinds[0] = c->limit_kinds[1] = SBX_LIMIT_NONE;
        c->ctrl[0] = c->ctrl[1] = -1;
        for (i = 0; i < SBX__ARRAY_SIZE(c->net_fds); i++)
                c->net_fds[i] = -1;
        p->obs_pipe[0] = p->obs_pipe[1] = -EBADF;
        p->rung = rung;
        p->ctrl_fd = -EBADF;
        p->proxy_sock[0] = p->proxy_sock[1] = -EBADF;
        p->ruleset_fd = -EBADF;
        p->children_fd = -EBADF;
        /* The init/monitor watches this process through a pidfd (not a
         * death signal, which follows the spawning thread). */
        p->parent_pidfd = (int) syscall(SYS_pidfd_open, getpid(), 0U);
        if (p->parent_pidfd < 0)
                p->parent_pidfd = -EBADF;
        /* Rung 2: the command's nested signal scope (Landlock ABI >= 6). */
        p->scope_fd = rung == 2 ? sbx__landlock_scope_signal_fd() : -EBADF;
        if (p->scope_fd < 0)
                p->scope_fd = -EBADF;
        p->parent_pid = getpid();
        p->memory_max = opts->memory_max;
        p->timeout_ms = opts->timeout_ms;
        /* libcap, in the parent: how many capabilities this kernel has, so
         * the child drops exactly those from its bounding set. */
        p->cap_last = (int) cap_max_bits() - 1;
        if (p->cap_last < 0 || p->cap_last > 63)
                p->cap_last = 63;
        p->plan = plan;
        p->argv = (char *const *) argv;
        p->cwd = opts->cwd != NULL ? opts->cwd : plan->workspace_root;
        p->achieved = rung == 1 ? sbx__native_guarantees(plan) : sbx__landlock_guarantees(plan);
        p->stdio[0] = opts->stdin_fd;
        p->stdio[1] = opts->stdout_fd;
        p->stdio[2] = opts->stderr_fd;
        if (opts->n_keep_fds > 0)
                memcpy(p->keep, opts->keep_fds, opts->n_keep_fds * sizeof(int));
        p->n_keep = opts->n_keep_fds;
        /* Rung 2 always runs the command under a subreaper monitor: it
         * finds descendants that leave the process group, enforces the
         * timeout, and -- never exec'ing -- keeps the exit signal 0 that
         * makes the child invisible to a host's SIGCHLD policy and reapers
         * (execve resets a process's exit signal to SIGCHLD). */
        p->monitor = rung == 2;
}

/* Clone the child (it waits for the go byte), run every feature's started
 * step, let it go and learn whether execve succeeded. */
static sbx_code ns_launch(struct ns_ctx *c, size_t *done, sbx_error *err)
{
        struct sbx__child_report rep;
        uint64_t ns = 0;
        sbx_code r;
        size_t i;
        int rc;

        if (c->rung == 1) {
                ns = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                     CLONE_NEWCGROUP;
                if (c->p.net_ns)
                        ns |= CLONE_NEWNET;
        }
        rc = c->rung == 1 && atomic_load(&refuse_namespaces) ? -EPERM
             : sbx__launch(ns, 1, sbx__ladder_child, &c->p, &c->proc);
        if (rc < 0) {
                if (c->rung == 1 && !sbx__fault_active() && environment_refused(STEP_FORK, -rc))
                        atomic_store(&native_broken, 1);
                return sbx__fail(err, sbx__errno_code(-rc, SBX_E_SANDBOX_UNAVAILABLE), -rc,
                                 "%s: %s sandbox setup failed while creating the %s: %s", c->fn,
                                 c->backend, c->rung == 1 ? "namespaces (clone)"
                                 : "process (clone)", sbx__strerror(-rc));
        }
        for (i = 0; i < *done; i++) {
                if (ns_features[i].started != NULL &&
                    (r = ns_features[i].started(c, err)) != SBX_OK)
                        return r;
        }
        (void) sbx__launch_release(&c->proc);
        rc = sbx__launch_wait_exec(&c->proc, &rep);
        if (rc != 0) {
                if (rc < 0 && rc != -ETIMEDOUT)
                        rep = (struct sbx__child_report){ STEP_NONE, -rc, 0 };
                r = report_child_failure(&c->p, &rep, c->backend, err);
                if (c->rung == 1 && rc == 1 && !sbx__fault_active() &&
                    environment_refused(rep.step, rep.err))
                        atomic_store(&native_broken, 1);
                return r;
        }
        atomic_store(&rung_proven[c->rung - 1], 1);
        for (i = 0; i < *done; i++) {
                if (ns_features[i].running != NULL &&
                    (r = ns_features[i].running(c, err)) != SBX_OK)
                        return r;
        }
        return SBX_OK;
}

/* The zygote keeps the progress page; the host its end of the control
 * pair, the pidfd and the homes it hid. */
static void ns_hand_to_zygote(struct ns_ctx *c)
{
        struct sbx__warm *zy = c->zy;

        (void) close(c->proc.err_r);
        c->proc.err_r = -1;
        (void) close(c->ctrl[1]);
        zy->pid = c->proc.pid;
        zy->pidfd = c->proc.pidfd;
        zy->ctrl = c->ctrl[0];
        zy->shared = c->proc.shared;
        zy->achieved = c->p.achieved;
        zy->home = c->home;
        zy->home2 = c->home2;
        c->proc.pid = c->proc.pidfd = -1;
        c->proc.shared = NULL;
        c->ctrl[0] = c->ctrl[1] = -1;
        c->home = c->home2 = NULL;
}

/* The child handle takes the process, the report, the limits, the
 * listeners and the observer's pipe; what stays on the host (scratch,
 * cgroups, the progress page, on which the init/monitor reports the
 * signal that ended the command) is its private state. */
static void ns_hand_to_child(struct ns_ctx *c, struct sbx__lx_child *lx, sbx_child *child)
{
        size_t i;

        lx->scratch = c->scratch;
        lx->cgroup[0] = c->cgdirs[0];
        lx->cgroup[1] = c->cgdirs[1];
        lx->shared = c->proc.shared;
        c->scratch = NULL;
        c->cgdirs[0] = c->cgdirs[1] = NULL;
        c->proc.shared = NULL;
        child->os = lx;
        child->pid = c->proc.pid;
        child->pidfd = c->proc.pidfd;
        c->proc.pid = c->proc.pidfd = -1;
        child->backend = c->rung == 1 ? SBX_BACKEND_NATIVE : SBX_BACKEND_LANDLOCK;
        child->required = c->plan->required;
        child->achieved = c->p.achieved;
        child->memory_max = c->opts->memory_max;
        child->pids_max = c->opts->pids_max;
        child->memory_kind = c->limit_kinds[0];
        child->pids_kind = c->limit_kinds[1];
        child->net.fd = c->net_fds[0];
        child->net.tfd = c->net_fds[1];
        child->net.dfd = c->net_fds[2];         /* -1 unless transparent mode ('T', 'U') */
        child->net.tfd6 = c->net_fds[3];        /* -1 unless with IPv6 ('U') */
        child->net.dfd6 = c->net_fds[4];
        for (i = 0; i < SBX__ARRAY_SIZE(c->net_fds); i++)
                c->net_fds[i] = -1;
        if (c->p.obs != NULL) {
                child->events.obs_fd = c->p.obs_pipe[0];
                c->p.obs_pipe[0] = -EBADF;
        }
        sbx__proc_close_channel(&c->proc);
        homes_undo(c);          /* the plan's homes are the host's to keep */
}

/* Shared by both rungs; zy != NULL starts a zygote instead of a command. */
static sbx_code ns_spawn(int rung, const struct sbx_plan *plan, const char *const *argv,
                         const sbx_spawn_options *opts, struct sbx__warm *zy, sbx_child *child,
                         sbx_error *err)
{
        struct ns_ctx c;
        struct sbx__lx_child *lx = NULL;
        size_t done = 0;
        sbx_code r = SBX_OK;
        int e;

        ns_ctx_init(&c, rung, plan, argv, opts, zy);
        for (done = 0; done < SBX__ARRAY_SIZE(ns_features) && r == SBX_OK; done++)
                r = ns_features[done].prepare(&c, err);
        if (r == SBX_OK && zy == NULL && (lx = calloc(1, sizeof(*lx))) == NULL)
                r = no_memory(&c, err);
        if (r == SBX_OK)
                r = ns_launch(&c, &done, err);
        if (r == SBX_OK) {
                if (zy != NULL)
                        ns_hand_to_zygote(&c);
                else
                        ns_hand_to_child(&c, lx, child);
                sbx__prep_free(&c.p);
                return SBX_OK;
        }
        e = errno;
        /* Still in its setup: kill it and reap it before anything it uses
         * goes. */
        sbx__proc_abort(&c.proc);
        while (done > 0) {
                done--;
                if (ns_features[done].undo != NULL)
                        ns_features[done].undo(&c);
        }
        free(lx);
        sbx__prep_free(&c.p);
        errno = e;
        return r;
}

sbx_code sbx__native_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        return ns_spawn(1, plan, argv, opts, NULL, child, err);
}

sbx_code sbx__landlock_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        return ns_spawn(2, plan, argv, opts, NULL, child, err);
}

sbx_code sbx__ladder_zygote(int rung, const struct sbx_plan *plan, const sbx_spawn_options *opts,
                            struct sbx__warm *zy, sbx_error *err)
{
        static const char *const none[] = { "/", NULL };

        return ns_spawn(rung, plan, none, opts, zy, NULL, err);
}

/* ------------------------------------------------------------- probes */

/* Cheap checks of what each rung needs; the real test is the first spawn
 * (docs/backends.md "Detection"). */
static int read_long(const char *path, long *v)
{
        char buf[32];
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return -EIO;
        buf[n] = '\0';
        *v = strtol(buf, NULL, 10);
        return 0;
}

sbx_code sbx__native_probe(sbx_error *err)
{
        long v = 0;

        if (atomic_load(&native_broken))
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, EPERM,
                                 "probe: this environment refused to create the native "
                                 "sandbox's namespaces");
        if (read_long("/proc/sys/user/max_user_namespaces", &v) == 0 && v == 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, EPERM,
                                 "probe: user namespaces are disabled "
                                 "(user.max_user_namespaces = 0)");
        if (geteuid() != 0) {
                if (read_long("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 && v == 0)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, EPERM,
                                         "probe: unprivileged user namespaces are disabled "
                                         "(kernel.unprivileged_userns_clone = 0)");
                if (read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 &&
                    v != 0)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, EPERM,
                                         "probe: AppArmor restricts unprivileged user namespaces");
        }
        return SBX_OK;
}

sbx_code sbx__landlock_probe(sbx_error *err)
{
        if (sbx__landlock_abi() < 1)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ENOSYS,
                                 "probe: Landlock is not available on this kernel");
        return SBX_OK;
}

/* ------------------------------------------------------------- verify */

/* Really run `true` under a read-only plan of `rung`. */
static sbx_code verify_rung(int rung, sbx_error *err)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        struct sbx_child child;
        const char *const argv[] = { "true", NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
        int status = -1, r2;
        sbx_code r;

        cfg.workspace_root = "/";
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        o.envp = envp;
        o.cwd = "/";
        r = sbx_profile_new(&cfg, &profile, err);
        if (r == SBX_OK)
                r = sbx_plan_compile(profile, &plan, err);
        sbx__child_init(&child, NULL);
        child.ops = &sbx__linux_child_ops;
        child.backend = rung == 1 ? SBX_BACKEND_NATIVE : SBX_BACKEND_LANDLOCK;
        if (r == SBX_OK)
                r = ns_spawn(rung, plan, argv, &o, NULL, &child, err);
        if (r == SBX_OK) {
                r2 = child.ops->wait(&child, 5000, &status);
                if (r2 < 0) {
                        (void) child.ops->kill(&child, SIGKILL);
                        (void) child.ops->wait(&child, 5000, &status);
                        r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -r2,
                                      "verify: `true` under the %s backend did not finish",
                                      rung == 1 ? "native" : "landlock");
                } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                        r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                      "verify: `true` under the %s backend exited with status 0x%x",
                                      rung == 1 ? "native" : "landlock", (unsigned) status);
                }
                child.ops->release(&child);
        }
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        return r;
}

/* Not cached on failure: a verify that failed for a passing reason (load,
 * a timeout) is tried again; an environment refusal is remembered by
 * native_broken, which the cheap probe reports. */
static sbx_code verify_cached(int rung, sbx_error *err)
{
        sbx_code r = rung == 1 ? sbx__native_probe(err) : sbx__landlock_probe(err);

        if (r != SBX_OK)
                return r;
        if (atomic_load(&rung_proven[rung - 1]))
                return SBX_OK;
        return verify_rung(rung, err);
}

sbx_code sbx__native_verify(sbx_error *err)
{
        return verify_cached(1, err);
}

sbx_code sbx__landlock_verify(sbx_error *err)
{
        return verify_cached(2, err);
}
