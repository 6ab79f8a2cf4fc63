/*
 * spawn.c - the public spawn entry: argument and option checks, the one
 * admission check, the backend choice (detection by doing: a rung the
 * environment refuses is remembered and the next one tried), the
 * guarantee check, the deadline.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "exec/executor.h"
#include "net/net.h"

/* The smallest memory_max accepted: 1 MiB (sbx__spawn_options_normalize). */
#define SBX__MEMORY_MAX_MIN (1024u * 1024u)

#if defined(_WIN32)
/* executor.c, which keeps the scratch registry, is not built for Windows,
 * where no executor set can be made yet (src/windows/unported.c): the
 * registry is empty, so there is nothing to hide. */
sbx_code sbx__scratch_hide(const sbx_plan *plan, const char *fn, sbx_plan **out, sbx_error *err)
{
        (void) plan;
        (void) fn;
        (void) err;
        *out = NULL;
        return SBX_OK;
}
#endif

void sbx_spawn_options_init(sbx_spawn_options *opts)
{
        static const sbx_spawn_options init = SBX_SPAWN_OPTIONS_INIT;

        if (opts != NULL)
                *opts = init;
}

static int fd_open(int fd)
{
        return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

sbx_code sbx__spawn_options_normalize(const sbx_spawn_options *opts, const char *fn,
                                      sbx_spawn_options *out, sbx_error *err)
{
        size_t i;

        sbx_spawn_options_init(out);
        if (opts == NULL)
                return SBX_OK;
        if (opts->version < 1 || opts->version > SBX_SPAWN_OPTIONS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: unsupported options version %u (use SBX_SPAWN_OPTIONS_INIT)",
                                 fn, (unsigned) opts->version);
        /* Version 1 ends at flags: read nothing past it. */
        out->backend = opts->backend;
        out->cwd = opts->cwd;
        out->envp = opts->envp;
        out->keep_fds = opts->keep_fds;
        out->n_keep_fds = opts->n_keep_fds;
        out->memory_max = opts->memory_max;
        out->pids_max = opts->pids_max;
        out->flags = opts->flags;
        if (opts->version >= 2) {
                out->stdin_fd = opts->stdin_fd;
                out->stdout_fd = opts->stdout_fd;
                out->stderr_fd = opts->stderr_fd;
                out->timeout_ms = opts->timeout_ms;
        }
        if (opts->version >= 3) {
                out->env_set = opts->env_set;
                out->n_env_set = opts->n_env_set;
        }
        if (out->n_env_set > 256)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: more than 256 env_set entries", fn);
        if (out->n_env_set > 0 && out->env_set == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: env_set is NULL", fn);
        for (i = 0; i < out->n_env_set; i++) {
                const char *e = out->env_set[i], *c;

                if (e == NULL || !((e[0] >= 'A' && e[0] <= 'Z') || (e[0] >= 'a' && e[0] <= 'z') ||
                                   e[0] == '_'))
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: env_set[%zu] must be "
                                         "NAME=VALUE with a name of letters, digits and _", fn, i);
                for (c = e; *c != '=' && *c != '\0'; c++)
                        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                              (*c >= '0' && *c <= '9') || *c == '_'))
                                break;
                if (*c != '=')
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: env_set[%zu] must be "
                                         "NAME=VALUE with a name of letters, digits and _", fn, i);
                if ((c - e == 4 && strncmp(e, "HOME", 4) == 0) ||
                    (c - e == 6 && strncmp(e, "TMPDIR", 6) == 0))
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: env_set[%zu] sets %.*s, "
                                         "which the sandbox decides", fn, i, (int) (c - e), e);
        }
        if ((out->flags & ~(SBX_SPAWN_OBSERVE | SBX_SPAWN_OBSERVE_READS)) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown flags 0x%x", fn,
                                 (unsigned) out->flags);
        if (out->n_keep_fds > 0 && out->keep_fds == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: keep_fds is NULL", fn);
        if (out->n_keep_fds > 64)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: more than 64 keep_fds", fn);
        for (i = 0; i < out->n_keep_fds; i++)
                if (!fd_open(out->keep_fds[i]))
                        return sbx__fail(err, SBX_E_INVALID, EBADF, "%s: keep_fds[%zu] is not open",
                                         fn, i);
        if ((out->stdin_fd != -1 && !fd_open(out->stdin_fd)) ||
            (out->stdout_fd != -1 && !fd_open(out->stdout_fd)) ||
            (out->stderr_fd != -1 && !fd_open(out->stderr_fd)))
                return sbx__fail(err, SBX_E_INVALID, EBADF,
                                 "%s: stdin_fd, stdout_fd and stderr_fd must be -1 or open", fn);
        if (out->cwd != NULL && out->cwd[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd must be absolute", fn);
        if (out->cwd != NULL && strlen(out->cwd) >= SBX_PATH_MAX)
                return sbx__fail(err, SBX_E_RANGE, ENAMETOOLONG, "%s: cwd \"%.160s...\" is %zu "
                                 "bytes, longer than SBX_PATH_MAX (%d)", fn, out->cwd,
                                 strlen(out->cwd), SBX_PATH_MAX);
        /* Below this no process gets as far as its execve (its first page
         * faults are charged to the limit): a limit it could never run
         * under is a mistake in the options, said as such. */
        if (out->memory_max > 0 && out->memory_max < SBX__MEMORY_MAX_MIN)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: memory_max is %llu bytes, too small "
                                 "to start any command; at least %u bytes (1 MiB)", fn,
                                 (unsigned long long) out->memory_max,
                                 (unsigned) SBX__MEMORY_MAX_MIN);
        if (out->timeout_ms > (uint64_t) 1000 * 60 * 60 * 24 * 365)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: timeout_ms is more than a year", fn);
        return SBX_OK;
}

static sbx_code spawn_plan(const sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *o, sbx_child **out, sbx_error *err);

/* A working directory that does not exist, or that the profile hides,
 * can never be entered: say so now, naming it and the cause, not as a
 * failed setup step.  (The sandbox's view is the child's to check: a
 * directory that exists here may still be missing there.) */
static sbx_code check_cwd(const sbx_plan *plan, const sbx_spawn_options *o, const char *fn,
                          sbx_error *err)
{
        const char *cwd = o->cwd != NULL ? o->cwd : plan->workspace_root;
        const char *what = o->cwd != NULL ? "the working directory (cwd)" : "the workspace root";
        const struct sbx_plan_fs_rule *rule;
        struct stat st;

#if defined(_WIN32)
        /* A plan's paths are in the portable form ("/c/..."), not the
         * Win32 one stat() takes: the Windows backend checks the
         * directory itself when it starts the process. */
        (void) cwd;
        (void) what;
        (void) rule;
        (void) st;
        (void) plan;
        (void) o;
        (void) fn;
        (void) err;
        return SBX_OK;
#else
        if (stat(cwd, &st) < 0) {
                int e = errno;

                return sbx__fail(err, e == ENOENT || e == ENOTDIR ? SBX_E_NOT_FOUND
                                 : e == ENAMETOOLONG ? SBX_E_RANGE : SBX_E_IO, e,
                                 "%s: %s \"%.200s\": %s", fn, what, cwd, sbx__strerror(e));
        }
        if (!S_ISDIR(st.st_mode))
                return sbx__fail(err, SBX_E_INVALID, ENOTDIR, "%s: %s \"%.200s\" is not a "
                                 "directory", fn, what, cwd);
        if (plan->direct)
                return SBX_OK;
        rule = sbx__plan_rule_for(plan, cwd);
        if (rule == NULL || (rule->access & SBX__FS_READ) == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: the working directory \"%.200s\"%s is not readable under "
                                 "this profile, so nothing can run there; pass a cwd the "
                                 "profile can read", fn, cwd,
                                 o->cwd != NULL ? "" : " (the workspace root)");
        return SBX_OK;
#endif
}

sbx_code sbx_spawn(const sbx_plan *plan, const char *const *argv, const sbx_spawn_options *opts,
                   sbx_child **out, sbx_error *err)
{
        const char *fn = "sbx_spawn";
        sbx_spawn_options o;
        sbx_plan *found = NULL, *with_env = NULL, *hidden = NULL;
        sbx_code r;

        if (plan == NULL || argv == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan, argv and out must not be NULL", fn);
        if (argv[0] == NULL || argv[0][0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv[0] is missing", fn);
        r = sbx__spawn_options_normalize(opts, fn, &o, err);
        if (r != SBX_OK)
                return r;
        r = sbx__admit(plan, fn, err);
        if (r != SBX_OK)
                return r;
        if (o.n_env_set > 0) {
                if (sbx__plan_env_set(plan, o.env_set, o.n_env_set, &with_env) < 0)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                plan = with_env;
        }
        /* Every other sandbox's scratch stays hidden (executor.c); first,
         * so that discovery protects (and binds) nothing inside it. */
        r = sbx__scratch_hide(plan, fn, &hidden, err);
        if (r != SBX_OK)
                goto out;
        if (hidden != NULL)
                plan = hidden;
        /* The git locations on disk, protected like <root>/.git. */
        if (!plan->direct && plan->protects_git) {
                r = sbx__plan_discover(plan, fn, &found, err);
                if (r != SBX_OK)
                        goto out;
                plan = found;
        }
        r = spawn_plan(plan, argv, &o, out, err);
out:
        sbx_plan_free(found);
        sbx_plan_free(hidden);
        sbx_plan_free(with_env);
        return r;
}

static sbx_code spawn_backend(const sbx_plan *plan, const char *const *argv,
                              const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);

/* A proxied plan (an allowlist, network not Allow) gets the egress proxy's
 * variables in its environment before the spawn and the proxy serving its
 * listener after it; without the proxy the child is killed: no run. */
static sbx_code spawn_plan(const sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        char token[SBX__PROXY_TOKEN_SIZE];
        unsigned gen = 0;
        sbx_plan *with_proxy = NULL;
        sbx_child *child = NULL;
        sbx_code r;

        if (!sbx__plan_proxied(plan))
                return spawn_backend(plan, argv, opts, out, err);
        r = sbx__netproxy_prepare(plan, token, &gen, &with_proxy, err);
        if (r == SBX_OK)
                r = spawn_backend(with_proxy, argv, opts, &child, err);
        if (r == SBX_OK) {
                r = sbx__netproxy_attach(child, with_proxy, token, gen, err);
                if (r != SBX_OK)
                        sbx_child_free(child);  /* killed and reaped */
                else
                        *out = child;
        }
        {       /* the credential stays in the engine only */
                volatile char *t = token;
                size_t i;

                for (i = 0; i < sizeof(token); i++)
                        t[i] = 0;
        }
        sbx_plan_free(with_proxy);
        return r;
}

static sbx_code spawn_backend(const sbx_plan *plan, const char *const *argv,
                              const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        const char *fn = "sbx_spawn";
        const struct sbx_backend *be = NULL;
        sbx_spawn_options o;
        sbx_child *child = NULL;
        uint32_t achieved;
        sbx_code r;
        size_t tries;
        int64_t t0;

        o = *opts;
        r = check_cwd(plan, &o, fn, err);
        if (r != SBX_OK)
                return r;

        if (plan->direct) {
                be = sbx__backend_direct();
        } else if (o.backend == SBX_BACKEND_AUTO) {
                r = sbx__backend_chosen(&be, err);
                if (r != SBX_OK)
                        return r;
        } else {
                be = sbx__backend_get(o.backend);
                if (be == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid backend %d", fn,
                                         (int) o.backend);
                r = be->probe(err);
                if (r != SBX_OK)
                        return r;
        }
        t0 = sbx__now_ms();     /* before the init/monitor arms its own timer */
        for (tries = 0; tries < 8; tries++) {
                /* The unavailable row's own spawn says why (detection notes). */
                if (!plan->direct && !(be->supports & SBX__ROW_PLACEHOLDER)) {
                        achieved = be->guarantees(plan);
                        if ((achieved & plan->required) != plan->required) {
                                char names[SBX_ERROR_SIZE];

                                sbx__guarantee_names(plan->required & ~achieved, names,
                                                     sizeof(names));
                                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                                 "%s: the %s backend cannot enforce the required "
                                                 "%s; refusing to run less confined", fn,
                                                 be->name, names);
                        }
                }
                /* The observer lives in the native backends' supervisor. */
                if (SBX__OBSERVING(o.flags) && (plan->direct || !(be->supports & SBX__ROW_OBSERVE)))
                        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: the %s backend cannot "
                                         "observe denials (SBX_SPAWN_OBSERVE: native and "
                                         "landlock only)", fn, be->name);
                /* Nothing there would apply them: refused, not run unlimited. */
                if ((o.memory_max != 0 || o.pids_max != 0) && !(be->supports & SBX__ROW_LIMITS))
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: %s%s cannot "
                                         "apply memory or pids limits; refusing to run "
                                         "unlimited%s", fn, plan->direct ? "an unconfined plan "
                                         "runs directly and" : "the backend ",
                                         plan->direct ? "" : be->name,
                                         plan->direct ? "" : " (use the native backend)");
                child = sbx__child_alloc(be);
                if (child == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                r = be->spawn(plan, argv, &o, child, err);
                if (r == SBX_OK)
                        break;
                free(child);    /* the row left nothing in it */
                child = NULL;
                /* Detection by doing: the environment refused this rung
                 * (its cheap check now fails); try the next one. */
                if (r != SBX_E_SANDBOX_UNAVAILABLE || plan->direct ||
                    o.backend != SBX_BACKEND_AUTO || sbx__backend_forced() ||
                    be->probe(NULL) == SBX_OK)
                        return r;
                r = sbx__backend_fell_back(be, &be, err);
                if (r != SBX_OK)
                        return r;
        }
        if (child == NULL)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: no backend could start "
                                 "the sandbox", fn);
        if (o.timeout_ms > 0)
                child->deadline_ms = t0 + (int64_t) o.timeout_ms;
        *out = child;
        return SBX_OK;
}

/* ------------------------------------------------------ warm executors */

void sbx__warm_slot_stop(struct sbx__warm_slot *slot)
{
        const struct sbx_backend *be = sbx__backend_get(slot->backend);

        if (slot->warm != NULL && be != NULL && be->warm_stop != NULL)
                be->warm_stop(slot->warm);
        slot->warm = NULL;
        sbx_plan_free(slot->plan);
        slot->plan = NULL;
}

/* The workspace root's identity: a zygote holds the directory it bound or
 * ruled when it started, so a root replaced since needs a new one. */
static int root_id(const sbx_plan *plan, uint64_t *dev, uint64_t *ino)
{
        struct stat st;

        if (stat(plan->workspace_root, &st) < 0)
                return -errno;
        *dev = (uint64_t) st.st_dev;
        *ino = (uint64_t) st.st_ino;
        return 0;
}

sbx_code sbx__spawn_warm(struct sbx__warm_slot *slot, const sbx_plan *plan,
                         const char *const *argv, const sbx_spawn_options *opts,
                         sbx_child **out, sbx_error *err)
{
        const char *fn = "sbx_spawn";
        const struct sbx_backend *be;
        sbx_spawn_options o;
        sbx_plan *found = NULL, *hidden = NULL;
        const sbx_plan *use = plan;
        sbx_child *child = NULL;
        uint64_t dev = 0, ino = 0;
        uint32_t achieved;
        sbx_error we;
        int64_t t0;
        sbx_code r;

        if (plan == NULL || argv == NULL || argv[0] == NULL || argv[0][0] == '\0' || out == NULL)
                return sbx_spawn(plan, argv, opts, out, err);
        r = sbx__spawn_options_normalize(opts, fn, &o, err);
        if (r != SBX_OK)
                return r;
        r = sbx__admit(plan, fn, err);
        if (r != SBX_OK)
                return r;
        be = sbx__backend_get(o.backend);
        if (plan->direct || slot->off || be == NULL || be->warm_start == NULL ||
            sbx__plan_proxied(plan) || SBX__OBSERVING(o.flags) ||
            o.n_env_set > 0 || o.memory_max > 0 || o.pids_max > 0 || o.n_keep_fds > 0)
                return sbx_spawn(plan, argv, opts, out, err);
        /* Every other sandbox's scratch stays hidden (executor.c), before
         * discovery as for a cold spawn; a set made since the zygote
         * started makes a new plan, so a new zygote. */
        r = sbx__scratch_hide(use, fn, &hidden, err);
        if (r != SBX_OK)
                return r;
        if (hidden != NULL)
                use = hidden;
        /* The git locations on disk now, as a cold spawn finds them. */
        if (use->protects_git) {
                r = sbx__plan_discover(use, fn, &found, err);
                if (r != SBX_OK)
                        goto out;
                use = found;
        }
        r = check_cwd(use, &o, fn, err);
        if (r != SBX_OK)
                goto out;
        achieved = be->guarantees(use);
        if ((achieved & use->required) != use->required) {
                char names[SBX_ERROR_SIZE];

                sbx__guarantee_names(use->required & ~achieved, names, sizeof(names));
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: the %s backend cannot "
                              "enforce the required %s; refusing to run less confined", fn,
                              be->name, names);
                goto out;
        }
        /* The zygote must hold exactly this run's confinement. */
        if (root_id(use, &dev, &ino) < 0) {
                sbx__warm_slot_stop(slot);
                r = spawn_plan(use, argv, &o, out, err);
                goto out;
        }
        if (slot->warm != NULL && (slot->backend != o.backend || !sbx__plan_same(slot->plan, use) ||
                                   slot->root_dev != dev || slot->root_ino != ino))
                sbx__warm_slot_stop(slot);
        if (slot->warm == NULL) {
                sbx_error ignored;

                if (be->probe(&ignored) != SBX_OK ||
                    sbx__plan_widen(use, NULL, 0, 0, 0, NULL, &slot->plan) < 0 ||
                    be->warm_start(use, &o, &slot->warm, &ignored) != SBX_OK) {
                        /* No zygote here: this executor runs cold, and the
                         * cold spawn says what is wrong, if anything. */
                        sbx_plan_free(slot->plan);
                        slot->plan = NULL;
                        slot->warm = NULL;
                        slot->off = 1;
                        r = spawn_plan(use, argv, &o, out, err);
                        goto out;
                }
                slot->backend = o.backend;
                slot->root_dev = dev;
                slot->root_ino = ino;
        }
        t0 = sbx__now_ms();
        child = sbx__child_alloc(be);
        if (child == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        r = be->warm_spawn(slot->warm, use, argv, &o, child, &we);
        if (r != SBX_OK) {
                free(child);    /* the row left nothing in it */
                child = NULL;
        }
        if (r == SBX_E_SANDBOX_UNAVAILABLE && (we.sys_errno == ESRCH || we.sys_errno == ESTALE)) {
                /* Not started: the zygote is gone (ESRCH), or this run
                 * does not fit it (ESTALE: another HOME, too large). */
                if (we.sys_errno == ESRCH)
                        sbx__warm_slot_stop(slot);
                r = spawn_plan(use, argv, &o, out, err);
                goto out;
        }
        if (r != SBX_OK) {
                if (err != NULL)
                        *err = we;
                goto out;
        }
        if (o.timeout_ms > 0)
                child->deadline_ms = t0 + (int64_t) o.timeout_ms;
        *out = child;
out:
        sbx_plan_free(hidden);
        sbx_plan_free(found);
        return r;
}
