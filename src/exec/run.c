/*
 * run.c - sbx_executor_run and sbx_executor_cancel: one command, its
 * normalized form checked against the profile and the tokens, spawned
 * confined under the plan those tokens widen for this run only, its output
 * captured up to a cap, its tree killed on timeout or cancel.
 * docs/executors.md.
 * Builds on: POSIX (pipes and poll(2) for the capture; src/windows/unported.c answers on Windows).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/executor.h"
#include "paths/paths_internal.h"

#define OUTPUT_CAP_DEFAULT (1024 * 1024)
#define DRAIN_AFTER_EXIT_MS 2000        /* output still open after the tree died */

/* The argv form's normalized command: every argument a single-quoted
 * POSIX shell word, joined by one space.  Malloc'd or NULL. */
static char *argv_command(const char *const *argv)
{
        size_t n = 1, i;
        const char *c;
        char *s, *p;

        for (i = 0; argv[i] != NULL; i++) {
                n += 3;
                for (c = argv[i]; *c != '\0'; c++)
                        n += *c == '\'' ? 4 : 1;
        }
        p = s = malloc(n);
        if (s == NULL)
                return NULL;
        for (i = 0; argv[i] != NULL; i++) {
                if (i > 0)
                        *p++ = ' ';
                *p++ = '\'';
                for (c = argv[i]; *c != '\0'; c++) {
                        if (*c == '\'') {
                                memcpy(p, "'\\''", 4);
                                p += 4;
                        } else {
                                *p++ = *c;
                        }
                }
                *p++ = '\'';
        }
        *p = '\0';
        return s;
}

struct sink {
        int     fd;
        char   *buf;
        size_t  len, cap, limit;
        int     truncated;
};

/* Read what fd has; keep up to limit bytes, count the rest as truncated.
 * 0 at EOF (fd closed), 1 otherwise. */
static int sink_read(struct sink *k)
{
        char tmp[16384];
        ssize_t n = read(k->fd, tmp, sizeof(tmp));

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return 1;
        if (n <= 0) {
                (void) close(k->fd);
                k->fd = -1;
                return 0;
        }
        if (k->len < k->limit) {
                size_t take = (size_t) n < k->limit - k->len ? (size_t) n : k->limit - k->len;

                if (k->len + take + 1 > k->cap) {
                        size_t cap = k->cap ? k->cap : 4096;
                        char *b;

                        while (cap < k->len + take + 1)
                                cap *= 2;
                        b = realloc(k->buf, cap);
                        if (b == NULL) {
                                k->truncated = 1;
                                return 1;
                        }
                        k->buf = b;
                        k->cap = cap;
                }
                memcpy(k->buf + k->len, tmp, take);
                k->len += take;
                if (take < (size_t) n)
                        k->truncated = 1;
        } else {
                k->truncated = 1;
        }
        return 1;
}

/* write(2) that turns a reader gone into EPIPE, never into a SIGPIPE
 * that would end the host: blocked for this thread around the call, and a
 * SIGPIPE it raised is taken off the thread's queue. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
        static const struct timespec zero = { 0, 0 };
        sigset_t pipe, old;
        ssize_t w;
        int e;

        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        (void) pthread_sigmask(SIG_BLOCK, &pipe, &old);
        w = write(fd, buf, len);
        e = errno;
        if (w < 0 && e == EPIPE && !sigismember(&old, SIGPIPE))
                while (sigtimedwait(&pipe, NULL, &zero) > 0)
                        ;
        (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
        errno = e;
        return w;
}

static void close_fd(int *fd)
{
        if (*fd >= 0)
                (void) close(*fd);
        *fd = -1;
}

/*
 * Feed stdin, drain stdout and stderr, until the child exited and both
 * streams closed (or, once it exited, DRAIN_AFTER_EXIT_MS passed: a tree
 * already killed cannot keep them open longer).  Every poll is bounded.
 */
static void pump(sbx_child *child, int in_fd, const char *in, size_t in_len, struct sink *out,
                 struct sink *errs, atomic_int *cancel)
{
        size_t in_off = 0;
        int exited = 0, killed = 0;
        int64_t drain_until = 0;

        for (;;) {
                if (!exited && !killed && atomic_load(cancel)) {
                        (void) sbx_child_kill(child, SIGKILL, NULL);
                        killed = 1;
                }
                struct pollfd pf[4];
                nfds_t n = 0;
                int ix_in = -1, ix_out = -1, ix_err = -1, ix_child = -1, done = 0, st;
                int pfd = exited ? -1 : sbx_child_pollfd(child);

                if (in_fd >= 0) {
                        ix_in = (int) n;
                        pf[n++] = (struct pollfd){ in_fd, POLLOUT, 0 };
                }
                if (out->fd >= 0) {
                        ix_out = (int) n;
                        pf[n++] = (struct pollfd){ out->fd, POLLIN, 0 };
                }
                if (errs->fd >= 0) {
                        ix_err = (int) n;
                        pf[n++] = (struct pollfd){ errs->fd, POLLIN, 0 };
                }
                if (pfd >= 0) {
                        ix_child = (int) n;
                        pf[n++] = (struct pollfd){ pfd, POLLIN, 0 };
                }
                if (exited && out->fd < 0 && errs->fd < 0)
                        break;
                if (exited && sbx__now_ms() >= drain_until)
                        break;
                if (poll(pf, n, 100) < 0 && errno != EINTR)
                        break;
                if (ix_in >= 0 && pf[ix_in].revents != 0) {
                        if (pf[ix_in].revents & (POLLERR | POLLHUP)) {
                                close_fd(&in_fd);
                        } else {
                                ssize_t w = write_nosigpipe(in_fd, in + in_off,
                                                            in_len - in_off);

                                if (w > 0)
                                        in_off += (size_t) w;
                                if ((w < 0 && errno != EINTR && errno != EAGAIN) ||
                                    in_off == in_len)
                                        close_fd(&in_fd);
                        }
                }
                if (ix_out >= 0 && pf[ix_out].revents != 0)
                        (void) sink_read(out);
                if (ix_err >= 0 && pf[ix_err].revents != 0)
                        (void) sink_read(errs);
                if (!exited && (ix_child < 0 || pf[ix_child].revents != 0 || pfd < 0)) {
                        /* try_wait reaps only when it exited (and kills on a
                         * passed timeout). */
                        if (sbx_child_try_wait(child, &done, &st, NULL) == SBX_OK && done) {
                                exited = 1;
                                drain_until = sbx__now_ms() + DRAIN_AFTER_EXIT_MS;
                        }
                }
        }
        close_fd(&in_fd);
}

static sbx_code build_argv(const char *fn, const sbx_run_options *o, char **cmd_out,
                           const char ***argv_out, sbx_error *err)
{
        static const char *sh[4] = { "/bin/sh", "-c", NULL, NULL };
        const char **v;

        if ((o->command == NULL) == (o->argv == NULL))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: give exactly one of command and argv",
                                 fn);
        if (o->argv != NULL) {
                if (o->argv[0] == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv is empty", fn);
                *cmd_out = argv_command(o->argv);
                *argv_out = (const char **) o->argv;
        } else {
                *cmd_out = sbx__strdup(o->command);
                v = malloc(sizeof(sh));
                if (v != NULL) {
                        memcpy(v, sh, sizeof(sh));
                        v[2] = o->command;
                }
                *argv_out = v;
                if (v == NULL) {
                        free(*cmd_out);
                        *cmd_out = NULL;
                }
        }
        if (*cmd_out == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        return SBX_OK;
}

/* The options a run needs, checked; res cleared (a version-1 caller's
 * result ends before the events). */
static sbx_code run_options_check(const char *fn, const sbx_executor *ex, const sbx_run_options *o,
                                  sbx_run_result *res, sbx_error *err)
{
        if (ex == NULL || o == NULL || res == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: ex, opts and res must not be NULL",
                                 fn);
        if (o->version < 1 || o->version > SBX_RUN_OPTIONS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported options version %u", fn,
                                 (unsigned) o->version);
        memset(res, 0, o->version >= 2 ? sizeof(*res) : offsetof(sbx_run_result, events));
        if (o->version >= 2 && (o->flags & ~(SBX_SPAWN_OBSERVE | SBX_SPAWN_OBSERVE_READS)) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown flags 0x%x", fn,
                                 (unsigned) o->flags);
        if (o->n_tokens > 0 && (o->tokens == NULL || o->execution_id == NULL ||
                                o->execution_id[0] == '\0'))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: tokens need the array and an "
                                 "execution_id", fn);
        if (o->stdin_len > 0 && o->stdin_data == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: stdin_data is NULL", fn);
        return SBX_OK;
}

/* The run's working directory: want, which must be canonical already. */
static sbx_code run_cwd(const char *fn, const char *want, char cwd[SBX_PATH_MAX], sbx_error *err)
{
        sbx_code r = sbx__path_canonical_buf(fn, "cwd", want, cwd, err);

        if (r == SBX_OK && strcmp(cwd, want) != 0)
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd \"%.200s\" is not canonical", fn,
                              want);
        return r;
}

/* The result of a reaped run (status st): how it ended, its report, its
 * output (taken from the sinks), usage and events. */
static sbx_code run_result(const char *fn, sbx_child *child, const sbx_run_options *o, int st,
                           struct sbx__running *me, struct sink *out, struct sink *errs,
                           sbx_run_result *res, sbx_error *err)
{
        res->version = o->version >= 2 ? 2 : 1;
        res->exited = WIFEXITED(st);
        res->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
        res->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        res->timed_out = sbx_child_timed_out(child);
        res->cancelled = atomic_load(&me->cancelled);
        if (res->timed_out || res->cancelled) {
                /* We killed the tree: say so, whatever status its init
                 * reported (128 + SIGKILL on the native rungs). */
                res->exited = 0;
                res->exit_code = 0;
                res->signal = SIGKILL;
        }
        sbx_guarantee_report_init(&res->guarantees);
        (void) sbx_child_report(child, &res->guarantees, NULL);
        res->out = out->buf != NULL ? out->buf : calloc(1, 1);
        res->err = errs->buf != NULL ? errs->buf : calloc(1, 1);
        out->buf = errs->buf = NULL;
        if (res->out == NULL || res->err == NULL) {
                sbx_run_result_free(res);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        res->out_len = out->len;
        res->out[out->len] = '\0';
        res->out_truncated = out->truncated;
        res->err_len = errs->len;
        res->err[errs->len] = '\0';
        res->err_truncated = errs->truncated;
        if (res->version >= 2) {
                size_t n = 0, i;

                res->usage = (sbx_usage) SBX_USAGE_INIT;
                (void) sbx_child_usage(child, &res->usage, NULL);
                (void) sbx_child_events(child, NULL, 0, &n, NULL, NULL);
                if (n > 0 && (res->events = calloc(n, sizeof(*res->events))) != NULL)
                        (void) sbx_child_events(child, res->events, n, &res->n_events,
                                                &res->events_dropped, NULL);
                else
                        (void) sbx_child_events(child, NULL, 0, &i, &res->events_dropped, NULL);
                if (n > 0 && res->events == NULL)
                        res->events_dropped += n;
        }
        return SBX_OK;
}

/* A run that failed: its denial class and marker, from the events when it
 * was observed, else judged from stderr. */
static void run_denial(const struct sbx_executor_set *s, const sbx_plan *plan, const char *cwd,
                       uint32_t flags, sbx_run_result *res)
{
        if (!res->timed_out && (!res->exited || res->exit_code != 0)) {
                int32_t cls = SBX_DENIAL_NONE;
                size_t i;

                /* From the events when the run was observed, else judged
                 * from stderr. */
                for (i = 0; res->version >= 2 && i < res->n_events && cls == SBX_DENIAL_NONE;
                     i++)
                        cls = sbx_event_denial_class(&res->events[i]);
                if (cls == SBX_DENIAL_NONE && !(flags & SBX_SPAWN_OBSERVE_READS) &&
                    sbx_plan_denial(plan, s->backend, cwd, res->exited ? res->exit_code : 128,
                                    res->err, res->err_len, &cls, NULL) == SBX_OK &&
                    flags != 0 && cls != SBX_DENIAL_FILE_READ)
                        cls = SBX_DENIAL_NONE;  /* the observer saw what else it was */
                if (cls != SBX_DENIAL_NONE) {
                        res->denial = cls;
                        (void) sbx_denial_class_marker(cls, s->mode, res->marker,
                                                       sizeof(res->marker), NULL);
                }
        }
}

/* The run leaves the set's list (a closing set waits for it). */
static void run_unregister(struct sbx_executor_set *s, struct sbx__running *me,
                           sbx_run_result *res)
{
        struct sbx__running **pp;

        (void) pthread_mutex_lock(&s->lock);
        res->cancelled = res->version != 0 ? atomic_load(&me->cancelled) : 0;
        for (pp = &s->running; *pp != NULL; pp = &(*pp)->next)
                if (*pp == me) {
                        *pp = me->next;
                        break;
                }
        s->n_running--;
        (void) pthread_cond_broadcast(&s->idle);
        (void) pthread_mutex_unlock(&s->lock);
}

/* One run's state, from its admission to its cleanup. */
struct run {
        sbx_executor *ex;
        const sbx_run_options *o;
        struct sbx__running me;
        sbx_plan *plan;
        sbx_child *child;
        char cwd[SBX_PATH_MAX];
        int po[2], pe[2], pi[2];
        size_t n_w, n_targets;          /* the grants' widenings and network targets */
        int registered, spent, started, warm_locked, net_allow;
};

/* Under the set's lock: the tokens taken, the plan of this one run
 * (the grants' strings are copied while the lock holds them), the run
 * registered so a cancel or a close finds it. */
static sbx_code run_admit(const char *fn, struct run *rn, const char *command, int gated,
                          sbx_error *err)
{
        struct sbx_executor_set *s = rn->ex->set;
        const sbx_run_options *o = rn->o;
        struct sbx__widen *w = NULL;
        const char **targets = NULL;
        size_t n_w = 0, n_targets = 0;
        int cmd_allow = 0;
        sbx_code r;

        (void) pthread_mutex_lock(&s->lock);
        if (s->closed) {
                (void) pthread_mutex_unlock(&s->lock);
                return sbx__fail(err, SBX_E_CLOSED, 0, "%s: the executor set is closed", fn);
        }
        r = sbx__grants_take(rn->ex, o->tokens, o->n_tokens, o->execution_id, command, rn->cwd,
                             gated, &w, &n_w, &rn->net_allow, &cmd_allow, &targets, &n_targets,
                             err);
        rn->spent = r == SBX_OK && o->n_tokens > 0;
        if (r == SBX_OK) {
                int e = sbx__plan_widen(s->plan, w, n_w, rn->net_allow, 0,
                                        s->plan->direct ? NULL : rn->ex->dir, &rn->plan);

                if (e == 0 && n_targets > 0)
                        e = sbx__plan_add_allow(rn->plan, targets, n_targets);
                if (e < 0)
                        r = sbx__fail(err, SBX_E_NOMEM, -e, "%s: no memory", fn);
                else if (cmd_allow)
                        rn->plan->command = SBX_ACCESS_ALLOW;
        }
        if (r == SBX_OK) {
                rn->me.ex = rn->ex;
                rn->me.child = NULL;
                rn->me.execution_id = o->execution_id;
                atomic_init(&rn->me.cancelled, 0);
                rn->me.next = s->running;
                s->running = &rn->me;
                s->n_running++;
                rn->registered = 1;
        }
        (void) pthread_mutex_unlock(&s->lock);
        rn->n_w = n_w;
        rn->n_targets = n_targets;
        free(w);
        free(targets);
        return r;
}

/* The output pipes (non-blocking on our side) and stdin: a pipe for
 * stdin_data, else /dev/null. */
static sbx_code run_pipes(const char *fn, struct run *rn, sbx_error *err)
{
        if (pipe2(rn->po, O_CLOEXEC) < 0 || pipe2(rn->pe, O_CLOEXEC) < 0 ||
            (rn->o->stdin_data != NULL ? pipe2(rn->pi, O_CLOEXEC)
                                       : (rn->pi[0] = open("/dev/null", O_RDONLY | O_CLOEXEC))) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "%s: cannot make the output pipes: %s", fn,
                                 sbx__strerror(errno));
        if (rn->pi[1] >= 0)
                (void) fcntl(rn->pi[1], F_SETFL, O_NONBLOCK);
        (void) fcntl(rn->po[0], F_SETFL, O_NONBLOCK);
        (void) fcntl(rn->pe[0], F_SETFL, O_NONBLOCK);
        return SBX_OK;
}

/* Start the command: on the executor's warm zygote when the run's plan is
 * the executor's own and no other run holds it, else a cold spawn. */
static sbx_code run_spawn(const char *fn, struct run *rn, const char *const *argv,
                          sbx_spawn_options *so, sbx_error *err)
{
        struct sbx_executor_set *s = rn->ex->set;
        sbx_code r;

        so->backend = s->plan->direct ? SBX_BACKEND_AUTO : s->backend;
        so->cwd = rn->cwd;
        so->envp = rn->o->envp;
        so->stdin_fd = rn->pi[0];
        so->stdout_fd = rn->po[1];
        so->stderr_fd = rn->pe[1];
        so->timeout_ms = rn->o->timeout_ms;
        if (rn->o->version >= 2)
                so->flags = rn->o->flags;       /* observed: a cold spawn (sbx__spawn_warm) */
        if (rn->n_w == 0 && rn->n_targets == 0 && !rn->net_allow && !s->plan->direct &&
            pthread_mutex_trylock(&rn->ex->warm_lock) == 0) {
                rn->warm_locked = 1;
                r = sbx__spawn_warm(&rn->ex->warm, rn->plan, argv, so, &rn->child, err);
        } else {
                r = sbx_spawn(rn->plan, argv, so, &rn->child, err);
        }
        close_fd(&rn->pi[0]);
        close_fd(&rn->po[1]);
        close_fd(&rn->pe[1]);
        if (r != SBX_OK && rn->n_w > 0 && err->sys_errno == ELOOP) {
                /* A granted target (or a root) became a link after it was
                 * verified: the backend refused to follow it. */
                char why[SBX_ERROR_SIZE];

                memcpy(why, err->message, sizeof(why));
                why[sizeof(why) - 1] = '\0';
                r = sbx__fail(err, SBX_E_GRANT_TARGET_CHANGED, ELOOP, "%s: a granted target "
                              "changed while the run started (%.160s)", fn, why);
        }
        return r;
}

/* Everything a run holds, released: the child (and the zygote it may
 * hold) first, as a closing set stops the zygotes once no run is
 * registered. */
static void run_release(struct run *rn, sbx_code r, sbx_run_result *res)
{
        struct sbx_executor_set *s = rn->ex->set;
        int i;

        if (rn->child != NULL)
                sbx_child_free(rn->child);
        rn->child = NULL;
        if (rn->warm_locked)
                (void) pthread_mutex_unlock(&rn->ex->warm_lock);
        if (rn->spent && !rn->started && r != SBX_E_GRANT_TARGET_CHANGED) {
                /* The command never ran: its tokens are not spent.  A
                 * changed target stays refused (it is not given back). */
                (void) pthread_mutex_lock(&s->lock);
                if (!s->closed)
                        sbx__grants_restore(rn->ex, rn->o->tokens, rn->o->n_tokens);
                (void) pthread_mutex_unlock(&s->lock);
        }
        if (rn->registered)
                run_unregister(s, &rn->me, res);
        for (i = 0; i < 2; i++) {
                close_fd(&rn->po[i]);
                close_fd(&rn->pe[i]);
                close_fd(&rn->pi[i]);
        }
        sbx_plan_free(rn->plan);
}

sbx_code sbx_executor_run(sbx_executor *ex, const sbx_run_options *o, sbx_run_result *res,
                          sbx_error *err)
{
        static const char fn[] = "sbx_executor_run";
        struct sbx_executor_set *s;
        struct run rn;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        struct sink out = { -1, NULL, 0, 0, 0, 0 }, errs = { -1, NULL, 0, 0, 0, 0 };
        char *command = NULL;
        const char **argv = NULL;
        int32_t access = SBX_ACCESS_DENY;
        int st = 0;
        sbx_error own_err;
        sbx_code r;

        if (err == NULL)
                err = &own_err;         /* the spawn's errno decides a code below */
        r = run_options_check(fn, ex, o, res, err);
        if (r != SBX_OK)
                return r;
        s = ex->set;
        memset(&rn, 0, sizeof(rn));
        rn.ex = ex;
        rn.o = o;
        rn.po[0] = rn.po[1] = rn.pe[0] = rn.pe[1] = rn.pi[0] = rn.pi[1] = -1;
        r = build_argv(fn, o, &command, &argv, err);
        if (r != SBX_OK)
                return r;
        /* The normalized command must be one access_for accepts. */
        r = sbx_profile_access_for(s->profile, SBX_PROFILE_ACCESS_VERSION, "command.execute",
                                   command, &access, err);
        if (r == SBX_OK)
                r = run_cwd(fn, o->cwd != NULL ? o->cwd : s->plan->workspace_root, rn.cwd, err);
        if (r == SBX_OK && access == SBX_ACCESS_DENY)
                r = sbx__fail(err, SBX_E_GRANT_DENIED, 0, "%s: command.execute is Deny for this "
                              "command", fn);
        if (r == SBX_OK)
                r = run_admit(fn, &rn, command, access == SBX_ACCESS_GATED, err);
        if (r == SBX_OK)
                r = run_pipes(fn, &rn, err);
        if (r == SBX_OK)
                r = run_spawn(fn, &rn, (const char *const *) argv, &so, err);
        if (r != SBX_OK)
                goto out;
        rn.started = 1;
        (void) pthread_mutex_lock(&s->lock);
        rn.me.child = rn.child;
        if (s->closed)                          /* closed while it started */
                atomic_store(&rn.me.cancelled, 1);
        (void) pthread_mutex_unlock(&s->lock);

        out.fd = rn.po[0];
        out.limit = o->output_cap > 0 ? o->output_cap : OUTPUT_CAP_DEFAULT;
        errs.fd = rn.pe[0];
        errs.limit = out.limit;
        rn.po[0] = rn.pe[0] = -1;
        pump(rn.child, rn.pi[1], o->stdin_data, o->stdin_len, &out, &errs, &rn.me.cancelled);
        rn.pi[1] = -1;
        close_fd(&out.fd);
        close_fd(&errs.fd);
        r = sbx_child_wait(rn.child, &st, err);
        if (r == SBX_OK)
                r = run_result(fn, rn.child, o, st, &rn.me, &out, &errs, res, err);
        if (r == SBX_OK)
                run_denial(s, rn.plan, rn.cwd, so.flags, res);
out:
        run_release(&rn, r, res);
        free(out.buf);
        free(errs.buf);
        if (o->command != NULL)
                free(argv);
        free(command);
        return r;
}

sbx_code sbx_executor_cancel(sbx_executor *ex, const char *execution_id, sbx_error *err)
{
        static const char fn[] = "sbx_executor_cancel";
        struct sbx_executor_set *s;
        struct sbx__running *run;

        if (ex == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: ex is NULL", fn);
        s = ex->set;
        (void) pthread_mutex_lock(&s->lock);
        if (s->closed) {
                (void) pthread_mutex_unlock(&s->lock);
                return sbx__fail(err, SBX_E_CLOSED, 0, "%s: the executor set is closed", fn);
        }
        for (run = s->running; run != NULL; run = run->next) {
                if (run->ex != ex)
                        continue;
                if (execution_id != NULL &&
                    (run->execution_id == NULL || strcmp(run->execution_id, execution_id) != 0))
                        continue;
                atomic_store(&run->cancelled, 1);       /* its thread kills the tree */
        }
        (void) pthread_mutex_unlock(&s->lock);
        return SBX_OK;
}
