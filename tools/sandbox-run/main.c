/*
 * sandbox-run - run one command confined by libsandbox, and the stage-2
 * runner that sbx_confine() wraps commands with.
 *
 *   sandbox-run [--mode read-only|workspace-write|danger-full-access]
 *               [--workspace DIR] [--network deny|allow]
 *               [--allow-read PATH]... [--allow-write PATH]...
 *               [--backend auto|native|landlock|bwrap]
 *               [--memory BYTES] [--pids N] [--timeout SECONDS] [--explain] [--json]
 *               [--force-workspace] [--accept-unprotected-git]
 *               [--allow-unix PATH]... [--policy FILE | --no-policy]
 *               -- CMD [ARGS...]
 *
 * Uses only the public header.  Exit status: the command's (128 + signal
 * when it was killed), 125 for sandbox-run's own failures, 126 / 127 when
 * the command cannot be executed / is not found.  See sandbox-run.1.
 *
 * The options are options.c's, the policy files policy.c's, messages and
 * --explain explain.c's; this file builds the profile and runs the
 * command.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define TAIL_MAX     (64 * 1024)               /* stderr kept for the denial check */

/* timeout(1)'s status when the time limit ended the command. */
#define EXIT_TIMED_OUT 124

/* Everything main() allocates, released at exit() on every path (also the
 * error paths), so leak checkers see a clean process. */
static struct {
        struct opts        *opts;
        char               *ws;
        sbx_profile        *profile;
        sbx_plan           *plan;
        char               *plan_text;
        sbx_confined_argv  *confined;
        sbx_child          *child;
} g;

static void release_all(void)
{
        size_t i;

        sbx_child_free(g.child);
        sbx_confined_argv_free(g.confined);
        sbx_free(g.plan_text);
        sbx_plan_free(g.plan);
        sbx_profile_free(g.profile);
        sbx_free(g.ws);
        if (g.opts != NULL) {
                for (i = 0; i < g.opts->n_extra; i++)
                        sbx_free(g.opts->extra[i].path);
                for (i = 0; i < g.opts->n_unix; i++)
                        sbx_free(g.opts->unix_sockets[i]);
                for (i = 0; i < g.opts->n_env; i++)
                        free(g.opts->env_set[i]);
                for (i = 0; i < g.opts->n_files; i++)
                        sbx_policy_file_free(g.opts->files[i].pf);
        }
        memset(&g, 0, sizeof(g));
}

/* Version managers that find their own directory through $HOME, which
 * the sandbox replaces (rung 2's scratch HOME is elsewhere): the variable
 * that names it, set to its real path when some of it is exposed. */
static const struct { const char *dir, *var; } toolchain_homes[] = {
        { ".rustup", "RUSTUP_HOME" }, { ".elan", "ELAN_HOME" },
        { ".volta", "VOLTA_HOME" }, { ".pyenv", "PYENV_ROOT" },
        { ".rbenv", "RBENV_ROOT" }, { ".asdf", "ASDF_DATA_DIR" },
        { ".local/share/mise", "MISE_DATA_DIR" }, { "go/pkg/mod", "GOMODCACHE" },
};

static void add_toolchain_env(struct opts *o, const char *const *v, size_t n)
{
        static const struct origin from = { "toolchains", NULL, 0 };
        const char *home = getenv("HOME");
        char path[SBX_PATH_MAX], *canon, *entry;
        size_t i, k, vl;

        if (home == NULL || home[0] != '/')
                return;
        for (i = 0; i < sizeof(toolchain_homes) / sizeof(toolchain_homes[0]); i++) {
                sbx_error e = { 0, 0, { 0 } };
                int used = 0, set = 0;

                vl = strlen(toolchain_homes[i].var);
                for (k = 0; k < o->n_env; k++)
                        set |= strncmp(o->env_set[k], toolchain_homes[i].var, vl) == 0 &&
                               o->env_set[k][vl] == '=';
                if (set || (size_t) snprintf(path, sizeof(path), "%s/%s", home,
                                             toolchain_homes[i].dir) >= sizeof(path))
                        continue;
                if (sbx_path_canonical(path, &canon, &e) != SBX_OK) {
                        if (e.code == SBX_E_NOMEM)
                                die_err(&e);    /* a toolchain would be left out */
                        continue;               /* not there: nothing to name */
                }
                for (k = 0; k < n; k++)
                        used |= sbx_path_is_within(v[k], (const char *const *) &canon, 1);
                if (used) {
                        entry = malloc(vl + strlen(canon) + 2);
                        if (entry == NULL) {
                                sbx_free(canon);
                                die(EXIT_FAIL, SBX_E_NOMEM, "cannot name HOME's toolchains: "
                                    "out of memory");
                        }
                        (void) sprintf(entry, "%s=%s", toolchain_homes[i].var, canon);
                        add_env(o, entry, "toolchains", &from);     /* too many: an error */
                        free(entry);
                }
                sbx_free(canon);
        }
}

/* The toolchain locations below HOME (sbx_toolchain_roots: the subtrees
 * each toolchain runs from, docs/secrets.md): exposed read-only at their
 * real paths while the rest of HOME stays hidden, so `cargo`, a pyenv
 * `python3` or an nvm `node` still run and the configuration beside
 * them (an nvm node's etc/npmrc, ~/.cargo/config.toml) does not show. */
static void add_toolchains(struct opts *o)
{
        sbx_error e = { 0, 0, { 0 } };
        char **v = NULL;
        size_t n = 0, i, k;

        if (sbx_toolchain_roots(NULL, &v, &n, &e) != SBX_OK) {
                /* Out of memory: an error, never a run that silently
                 * lacks them.  Otherwise none shown (closed), and said. */
                if (e.code == SBX_E_NOMEM)
                        die_err(&e);
                say(e.code, "HOME's toolchains are not shown: %s", e.message);
                return;
        }
        add_toolchain_env(o, (const char *const *) v, n);
        for (i = 0; i < n; i++) {
                int dup = 0;

                for (k = 0; k < o->n_extra; k++)
                        dup |= strcmp(o->extra[k].path, v[i]) == 0;
                if (dup)
                        continue;
                if (o->n_extra == MAX_EXTRA) {
                        /* Never a run that silently lacks one. */
                        say(SBX_E_RANGE, "too many roots: HOME's toolchain %.400s does not fit "
                            "beside the --allow-read/--allow-write paths (at most %d; "
                            "--no-toolchains runs without them)", v[i], MAX_EXTRA);
                        for (k = i; k < n; k++)
                                sbx_free(v[k]);
                        sbx_free(v);
                        exit(EXIT_FAIL);
                }
                o->extra[o->n_extra].path = v[i];       /* freed with sbx_free */
                v[i] = NULL;
                o->extra[o->n_extra].write = 0;
                o->extra[o->n_extra].toolchain = 1;
                o->n_extra++;
        }
        for (i = 0; i < n; i++)
                sbx_free(v[i]);
        sbx_free(v);
}

/* ------------------------------------------------------------- profile */

/* The mode's configuration is sbx_profile_from_mode's own, read off a
 * profile built on this placeholder root (canonical, nothing there, no
 * home below it), so that the flags -- --force-workspace among them --
 * apply before the real workspace root is validated. */
#define TEMPLATE_ROOT "/nonexistent-sandbox-run"

static sbx_profile *build_profile(const struct opts *o, const char *ws)
{
        sbx_root_access roots[MAX_EXTRA];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *base = NULL, *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        size_t i, n = 0;

        if (sbx_profile_from_mode(o->mode, o->mode == SBX_MODE_DANGER_FULL_ACCESS ? ws
                                           : TEMPLATE_ROOT, &base, &e) != SBX_OK)
                die_err(&e);
        g.profile = base;
        if (o->mode == SBX_MODE_DANGER_FULL_ACCESS)
                return base;
        if (sbx_profile_config_get(base, &cfg, &e) != SBX_OK)
                die_err(&e);
        cfg.workspace_root = ws;
        cfg.force_workspace = o->force_workspace;
        cfg.accept_unprotected_git = o->accept_unprotected_git;
        cfg.unix_sockets = o->n_unix > 0 ? (const char *const *) o->unix_sockets : NULL;
        cfg.n_unix_sockets = o->n_unix;
        cfg.allow_hosts = o->n_hosts > 0 ? o->allow_hosts : NULL;
        cfg.n_allow_hosts = o->n_hosts;
        if (o->network >= 0)
                cfg.network = o->network;
        for (i = 0; i < o->n_extra; i++) {
                if (strcmp(o->extra[i].path, ws) == 0) {
                        /* The workspace itself: already readable. */
                        if (o->extra[i].write)
                                cfg.workspace_write = SBX_ACCESS_ALLOW;
                        continue;
                }
                roots[n].path = o->extra[i].path;
                roots[n].read = SBX_ACCESS_ALLOW;
                roots[n].write = o->extra[i].write ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY;
                n++;
        }
        cfg.additional_roots = n > 0 ? roots : NULL;
        cfg.n_additional_roots = n;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK) {
                /* The library refuses a workspace that is /, a home
                 * directory or an ancestor of one unless forced. */
                if (e.code == SBX_E_INVALID && strstr(e.message, "force_workspace") != NULL) {
                        say(e.code, "%s (run from a project directory, pass --workspace DIR, "
                            "or --force-workspace to run there anyway)", e.message);
                        exit(EXIT_FAIL);
                }
                die_err(&e);
        }
        sbx_profile_free(base);
        g.profile = p;
        return p;
}

/* ----------------------------------------------------------- running */

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
        pid_t pid = (pid_t) child_pid;

        if (pid > 0)
                (void) kill(pid, sig);
}

static void install_forwarding(pid_t pid)
{
        static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };
        struct sigaction sa;
        size_t i;

        child_pid = (sig_atomic_t) pid;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = forward_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                (void) sigaction(sigs[i], &sa, NULL);
}

static int exit_status_of(int wstatus)
{
        if (WIFEXITED(wstatus))
                return WEXITSTATUS(wstatus);
        if (WIFSIGNALED(wstatus))
                return 128 + WTERMSIG(wstatus);
        return EXIT_FAIL;
}

/* The command could not be started: 127 / 126 like a shell, else 125. */
static void die_spawn(const sbx_error *e, const char *cmd) __attribute__((noreturn));
static void die_spawn(const sbx_error *e, const char *cmd)
{
        /* Not found: the command (not the working directory, which is
         * named in the library's own message). */
        if (e->code == SBX_E_NOT_FOUND && strstr(e->message, "not found in ") != NULL) {
                say(e->code, "%.400s: command not found", cmd);
                exit(EXIT_NOTFOUND);
        }
        if (e->code == SBX_E_IO && strstr(e->message, "cannot execute") != NULL &&
            e->sys_errno != 0) {
                say(e->code, "%.400s: %s", cmd, strerror(e->sys_errno));
                exit(e->sys_errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
        }
        die_err(e);
}

/* Danger: no sandbox, no marker, nothing extra: exec the command. */
static void run_direct(char **cmd) __attribute__((noreturn));
static void run_direct(char **cmd)
{
        int e;

        (void) signal(SIGPIPE, SIG_DFL);        /* main ignores it for itself */
        execvp(cmd[0], cmd);
        e = errno;
        if (e == ENOENT) {
                say(SBX_E_NOT_FOUND, "%.400s: command not found", cmd[0]);
                exit(EXIT_NOTFOUND);
        }
        say(SBX_E_IO, "%.400s: %s", cmd[0], strerror(e));
        exit(EXIT_NOEXEC);
}

static void write_all(int fd, const char *buf, size_t n)
{
        while (n > 0) {
                ssize_t w = write(fd, buf, n);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;         /* our stderr is gone; keep draining */
                buf += w;
                n -= (size_t) w;
        }
}

struct tail {
        char   buf[TAIL_MAX];
        size_t len;
};

static void tail_add(struct tail *t, const char *p, size_t n)
{
        if (n > TAIL_MAX) {             /* only its last TAIL_MAX bytes are kept */
                p += n - TAIL_MAX;
                n = TAIL_MAX;
        }
        if (t->len + n > TAIL_MAX) {
                size_t drop = t->len + n - TAIL_MAX;

                memmove(t->buf, t->buf + drop, t->len - drop);
                t->len -= drop;
        }
        memcpy(t->buf + t->len, p, n);
        t->len += n;
}

/* Forward the child's stderr to ours as it arrives, keeping the tail.
 * Stops at EOF, or once the child has exited and the pipe is drained (a
 * background grandchild may hold the pipe open forever). */
static void pump(int rfd, int out_fd, sbx_child *child, struct tail *t)
{
        char buf[8192];
        int exited = 0;

        (void) fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK);
        for (;;) {
                struct pollfd pfd = { rfd, POLLIN, 0 };
                int pr = poll(&pfd, 1, exited ? 0 : 100);
                ssize_t n;

                if (pr < 0 && errno == EINTR)
                        continue;
                if (pr > 0) {
                        n = read(rfd, buf, sizeof(buf));
                        if (n > 0) {
                                write_all(out_fd, buf, (size_t) n);
                                tail_add(t, buf, (size_t) n);
                                continue;
                        }
                        if (n == 0)
                                return;
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        return;
                }
                if (exited)
                        return;         /* drained after exit */
                {
                        /* Reaps it once it exited (the status stays in the
                         * handle for sbx_child_wait) and, past --timeout,
                         * kills the whole tree, whatever still holds the
                         * pipe. */
                        int done = 0, st;

                        if (sbx_child_try_wait(child, &done, &st, NULL) != SBX_OK || done)
                                exited = 1;
                }
        }
}

/* The command starts in the current directory when that lies inside the
 * workspace or an --allow-read/--allow-write root (anything else may be
 * hidden in the sandbox: /tmp, HOME, /run); otherwise in the workspace. */
static int cwd_visible(const struct opts *o, const char *ws, const char *cwd)
{
        char *canon = NULL;
        size_t i;
        int ok = 0;

        if (cwd[0] != '/' || sbx_path_canonical(cwd, &canon, NULL) != SBX_OK)
                return 0;
        if (strcmp(canon, cwd) == 0) {
                if (sbx_path_is_within(cwd, &ws, 1))
                        ok = 1;
                for (i = 0; i < o->n_extra; i++) {
                        const char *r = o->extra[i].path;

                        if (sbx_path_is_within(cwd, &r, 1))
                                ok = 1;
                }
        }
        sbx_free(canon);
        return ok;
}

/* The path of this executable, for SBX_RUNNER. */
static void export_self_as_runner(void)
{
        char self[SBX_PATH_MAX];
        ssize_t n;

        if (getenv("SBX_RUNNER") != NULL)
                return;
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
                return;
        self[n] = '\0';
        (void) setenv("SBX_RUNNER", self, 0);
}

/* For the bwrap backend: did bwrap itself fail (setup, exec)? */
static void check_runner_failure(const sbx_confined_argv *c, int status, const struct tail *t,
                                 const char *cmd)
{
        const sbx_runner_rule *rules;
        const char *sig = NULL;
        size_t n, i;
        int matched = 0;

        if (sbx_confined_argv_backend(c) != SBX_BACKEND_BWRAP)
                return;
        rules = sbx_confined_argv_runner_rules(c, &n);
        for (i = 0; i < n && !matched; i++)
                if (sbx_runner_rule_matches(&rules[i], status, t->buf, t->len, &matched, &sig,
                                            NULL) != SBX_OK)
                        matched = 0;
        if (!matched)
                return;
        if (memmem(t->buf, t->len, "bwrap: execvp ", 14) != NULL) {
                if (memmem(t->buf, t->len, "No such file or directory", 25) != NULL) {
                        say(SBX_E_NOT_FOUND, "%.400s: command not found", cmd);
                        exit(EXIT_NOTFOUND);
                }
                say(SBX_E_IO, "%.400s: cannot execute", cmd);
                exit(EXIT_NOEXEC);
        }
        say(SBX_E_SANDBOX_UNAVAILABLE, "the bwrap sandbox failed to start (see its message "
            "above); the command did not run");
        exit(EXIT_FAIL);
}

/* danger-full-access runs the command unconfined: a value that would
 * narrow it cannot apply, and is an error rather than silently ignored
 * (naming the file and line when a policy file set it). */
static void check_danger(const struct opts *o)
{
        const struct { int set; const char *what; const struct origin *from; } v[] = {
                { o->network == SBX_ACCESS_DENY, "network deny", &o->network_from },
                { o->backend >= 0, "backend", &o->backend_from },
                { o->memory > 0, "memory", &o->memory_from },
                { o->pids > 0, "pids", &o->pids_from },
                { o->timeout_ms > 0, "timeout", &o->timeout_from },
                { o->n_extra > 0, "a read or write root",
                  o->n_extra > 0 ? &o->extra[0].from : NULL },
        };
        char buf[SBX_PATH_MAX + 32];
        size_t i;

        for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                if (!v[i].set)
                        continue;
                if (v[i].from->pf == NULL)
                        die(EXIT_FAIL, SBX_E_INVALID,
                            "danger-full-access runs the command unconfined: --network deny, "
                            "--allow-read/--allow-write, --backend, --memory, --pids and "
                            "--timeout cannot apply");
                say(SBX_E_INVALID, "danger-full-access runs the command unconfined: the %s of "
                    "%.400s cannot apply (pass --no-policy to run without the file)", v[i].what,
                    origin_text(v[i].from, "", buf, sizeof(buf)));
                exit(EXIT_FAIL);
        }
}

int main(int argc, char **argv)
{
        static struct opts o;   /* static: release_all() reads it after main returns */
        struct explain x;
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile *profile;
        sbx_plan *plan = NULL;
        sbx_confined_argv *confined = NULL;
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        char *ws, *plan_text = NULL, cwd[SBX_PATH_MAX];
        static struct tail tail;
        const char *const probe_argv[] = { "true", NULL };
        const char *const *cmd;
        int saved_err = -1, pipefd[2] = { -1, -1 }, wstatus = 0, status, piped = 0;
        int32_t denied;
        sbx_code r;
        struct stat st;

        /* The stage-2 runner: never returns when argv[1] is --sbx-stage2. */
        r = sbx_init(argc, argv);
        if (r != SBX_OK) {
                say(r, "cannot start sandbox runner: initialisation failed");
                return EXIT_FAIL;
        }

        /* A reader of our stderr (or stdout) that went away makes our own
         * writes fail with EPIPE instead of killing us, so the command's
         * status is still what we exit with.  The command itself starts
         * with every disposition at its default: the library resets them
         * in the sandbox's child, and run_direct before its exec. */
        (void) signal(SIGPIPE, SIG_IGN);
        memset(&o, 0, sizeof(o));
        g.opts = &o;
        if (atexit(release_all) != 0)
                die(EXIT_FAIL, SBX_E_INTERNAL, "atexit failed");
        parse_args(argc, argv, &o);
        apply_policy_files(&o);
        cmd = o.command != NULL ? (const char *const *) o.command : probe_argv;
        if (o.mode != SBX_MODE_DANGER_FULL_ACCESS && !o.no_toolchains)
                add_toolchains(&o);
        /* A root that names nothing is a typo more often than a plan (a
         * policy file's may not exist yet: it is written once for many
         * runs and machines). */
        if (!o.allow_missing) {
                size_t k;

                for (k = 0; k < o.n_extra; k++)
                        if (o.extra[k].flagged && stat(o.extra[k].path, &st) < 0) {
                                say(SBX_E_INVALID, "%s %.200s: %s (--allow-missing accepts a "
                                    "path that does not exist yet)",
                                    o.extra[k].write ? "--allow-write" : "--allow-read",
                                    o.extra[k].path, strerror(errno));
                                exit(EXIT_FAIL);
                        }
        }

        ws = workspace_of(&o);
        g.ws = ws;
        if (stat(ws, &st) < 0 || !S_ISDIR(st.st_mode)) {
                say(SBX_E_INVALID, "workspace %s is not a directory", ws);
                return EXIT_FAIL;
        }

        /* A workspace that is /, a home directory or an ancestor of one
         * would hand the command the user's dotfiles and keys: the library
         * refuses it unless --force-workspace sets force_workspace
         * (build_profile), and hides ~/.ssh and the like even then. */
        if (o.mode == SBX_MODE_DANGER_FULL_ACCESS) {
                check_danger(&o);
                for (size_t k = 0; !o.explain && k < o.n_env; k++)
                        (void) putenv(o.env_set[k]);    /* unconfined: set as given */
                if (!o.explain && o.cwd_arg != NULL && chdir(o.cwd_arg) < 0) {
                        say(SBX_E_INVALID, "--cwd %.200s: %s", o.cwd_arg, strerror(errno));
                        return EXIT_FAIL;
                }
                if (!o.explain)
                        run_direct(o.command);
        }

        if (o.backend >= 0) {
                lc.backend = o.backend;
                if (sbx_local_config_set(&lc, &e) != SBX_OK)
                        die_err(&e);
        }
        profile = build_profile(&o, ws);
        g.profile = profile;
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                die_err(&e);
        g.plan = plan;
        if (sbx_plan_guarantees(plan, &rep, &e) != SBX_OK ||
            sbx_plan_describe(plan, &plan_text, &e) != SBX_OK)
                die_err(&e);
        g.plan_text = plan_text;

        memset(&x, 0, sizeof(x));
        x.o = &o;
        x.profile = profile;
        x.ws = ws;
        x.network = o.mode == SBX_MODE_DANGER_FULL_ACCESS ? SBX_ACCESS_ALLOW
                    : o.network >= 0 ? o.network : SBX_ACCESS_DENY;
        x.required = rep.required;
        x.plan_text = plan_text;
        x.enforcement = SBX_ENFORCEMENT_NONE;

        if (o.mode == SBX_MODE_DANGER_FULL_ACCESS) {
                print_explain(&x);
                return 0;
        }

        /* Confine gives the backend, what it enforces, its denial
         * signatures and runner rules, and fails closed exactly as a host
         * using sbx_confine would.  The runner for the native backends is
         * this very program. */
        export_self_as_runner();
        if (o.explain) {
                r = sbx_confine_profile(cmd, profile, &confined, &e);
                g.confined = confined;
                if (r == SBX_OK) {
                        x.backend = sbx_backend_name(sbx_confined_argv_backend(confined));
                        x.achieved = sbx_confined_argv_guarantees(confined);
                        x.enforcement = sbx_confined_argv_enforcement(confined);
                        if (o.command != NULL)
                                x.argv = sbx_confined_argv_argv(confined, NULL);
                } else {
                        int32_t b = -1;
                        uint32_t ach = 0;
                        int32_t enf = SBX_ENFORCEMENT_NONE;

                        /* An allowlist needs the library's own spawn (its
                         * egress proxy): Confine refuses it, the run does
                         * not.  What the spawn achieves is shown. */
                        if (o.n_hosts > 0 && e.code == SBX_E_SANDBOX_UNAVAILABLE)
                                r = SBX_OK;
                        if (sbx_backend_detect(&b, NULL) == SBX_OK) {
                                x.backend = sbx_backend_name(b);
                                if (sbx_backend_guarantees(b, plan, &ach, &enf, NULL) == SBX_OK) {
                                        x.achieved = ach;
                                        x.enforcement = enf;
                                }
                        } else if (o.backend > 0) {
                                x.backend = sbx_backend_name(o.backend);
                        } else {
                                x.backend = "unavailable";
                        }
                }
                /* How the limits are enforced is learnt by doing: `true`
                 * started with them, as the command would be. */
                if (r == SBX_OK && (o.memory > 0 || o.pids > 0)) {
                        sbx_child *probe = NULL;

                        so.memory_max = o.memory;
                        so.pids_max = o.pids;
                        r = sbx_spawn(plan, probe_argv, &so, &probe, &e);
                        if (r == SBX_OK) {
                                g.child = probe;
                                x.limits = (sbx_limits_report) SBX_LIMITS_REPORT_INIT;
                                x.limits_known = sbx_child_limits(probe, &x.limits, NULL) ==
                                                 SBX_OK;
                                /* The spawn applied them: resource-limits. */
                                if (sbx_child_report(probe, &rep, NULL) == SBX_OK)
                                        x.achieved |= rep.achieved & SBX_G_RESOURCE_LIMITS;
                                (void) sbx_child_wait(probe, &wstatus, NULL);
                        }
                }
                /* Through an organisation proxy the address classes are its
                 * policy: address-network is neither required nor claimed
                 * (as the run does, docs/network.md). */
                if (o.upstream != NULL && o.n_hosts > 0) {
                        x.required &= ~(uint32_t) SBX_G_ADDRESS_NETWORK;
                        x.achieved &= ~(uint32_t) SBX_G_ADDRESS_NETWORK;
                }
                print_explain(&x);
                if (r != SBX_OK)
                        die_err(&e);
                return 0;
        }

        /* Run it.  The child's stderr is a pipe we forward from, keeping
         * the last TAIL_MAX bytes for the denial check. */
        so.memory_max = o.memory;
        so.pids_max = o.pids;
        so.timeout_ms = o.timeout_ms;
        so.env_set = (const char *const *) o.env_set;
        so.n_env_set = o.n_env;
        if (o.cwd_arg != NULL) {
                /* Asked for: inside what the sandbox shows, or an error
                 * (never silently the workspace root instead). */
                char *c = canonical_arg("--cwd", o.cwd_arg);

                if (strlen(c) >= sizeof(cwd) || stat(c, &st) < 0 || !S_ISDIR(st.st_mode) ||
                    !cwd_visible(&o, ws, c)) {
                        say(SBX_E_INVALID, "--cwd %.200s is not a directory inside the "
                            "workspace or an --allow-read/--allow-write root", c);
                        sbx_free(c);
                        return EXIT_FAIL;
                }
                strcpy(cwd, c);
                sbx_free(c);
                so.cwd = cwd;
        } else if (getcwd(cwd, sizeof(cwd)) != NULL && cwd_visible(&o, ws, cwd)) {
                so.cwd = cwd;
        }
        saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (saved_err >= 0) {
                if (pipe2(pipefd, O_CLOEXEC) < 0 || dup2(pipefd[1], STDERR_FILENO) < 0) {
                        say(SBX_E_IO, "cannot create the stderr pipe: %s", strerror(errno));
                        return EXIT_FAIL;
                }
                close(pipefd[1]);
                pipefd[1] = -1;
                piped = 1;
        }
        if (o.upstream != NULL) {
                /* The credential, if any, from the environment: never on a
                 * command line other users can read. */
                const char *auth = getenv("SBX_UPSTREAM_PROXY_AUTH");
                char user[256] = "";
                const char *pass = NULL;

                if (auth != NULL && (pass = strchr(auth, ':')) != NULL &&
                    (size_t) (pass - auth) < sizeof(user)) {
                        memcpy(user, auth, (size_t) (pass - auth));
                        user[pass - auth] = '\0';
                        pass++;
                } else if (auth != NULL) {
                        say(SBX_E_INVALID, "SBX_UPSTREAM_PROXY_AUTH must be USER:PASSWORD");
                        return EXIT_FAIL;
                }
                if (sbx_net_upstream_set(o.upstream, auth != NULL ? user : NULL, pass, &e) !=
                    SBX_OK)
                        die_err(&e);
        }
        /* The observer records what the sandbox refuses (docs/events.md);
         * a backend without it (bwrap) runs the command unobserved. */
        so.flags = o.observe_reads || json_mode ? SBX_SPAWN_OBSERVE_READS : SBX_SPAWN_OBSERVE;
        r = sbx_spawn(plan, cmd, &so, &child, &e);
        if (r == SBX_E_UNSUPPORTED) {
                so.flags = 0;
                r = sbx_spawn(plan, cmd, &so, &child, &e);
        }
        if (saved_err >= 0) {
                (void) dup2(saved_err, STDERR_FILENO);
                close(saved_err);
        }
        if (r != SBX_OK)
                die_spawn(&e, cmd[0]);
        g.child = child;
        /* Confine after the spawn: the same checks, and the backend that
         * just ran is proven, so no probe runs on this path (detection by
         * doing).  It gives the denial signatures and runner rules. */
        if (sbx_confine_profile(cmd, profile, &confined, &e) != SBX_OK)
                confined = NULL;
        g.confined = confined;
        install_forwarding((pid_t) sbx_child_pid(child));
        if (piped) {
                pump(pipefd[0], STDERR_FILENO, child, &tail);
                close(pipefd[0]);
        }
        if (sbx_child_wait(child, &wstatus, &e) != SBX_OK)
                die_err(&e);
        status = exit_status_of(wstatus);
        denied = report_run(child, status, so.flags,
                            confined != NULL ? sbx_backend_name(sbx_confined_argv_backend(confined))
                                             : NULL);
        if (sbx_child_timed_out(child)) {
                /* As timeout(1): the whole tree was killed. */
                char buf[SBX_PATH_MAX + 32];

                if (o.timeout_from.pf != NULL)
                        say(SBX_E_INVALID, "the command did not finish within the timeout of "
                            "%.400s; it was killed", origin_text(&o.timeout_from, "", buf,
                                                                 sizeof(buf)));
                else
                        say(SBX_E_INVALID, "the command did not finish within --timeout; it "
                            "was killed");
                return EXIT_TIMED_OUT;
        }
        if (status != 0 && piped) {
                int32_t cls = denied;
                char marker[SBX_DENIAL_CLASS_MARKER_MAX];

                if (confined != NULL)
                        check_runner_failure(confined, status, &tail, cmd[0]);
                /* The marker only for what the sandbox denied, naming it:
                 * from the events when the run was observed, else judged
                 * from stderr. */
                if (cls == SBX_DENIAL_NONE && so.flags != SBX_SPAWN_OBSERVE_READS &&
                    sbx_plan_denial(plan, confined != NULL ? sbx_confined_argv_backend(confined)
                                                           : SBX_BACKEND_AUTO,
                                    so.cwd, status, tail.buf, tail.len, &cls, NULL) == SBX_OK &&
                    so.flags != 0 && cls != SBX_DENIAL_FILE_READ)
                        cls = SBX_DENIAL_NONE;  /* the observer saw what else it was */
                if (cls != SBX_DENIAL_NONE &&
                    sbx_denial_class_marker(cls, o.mode, marker, sizeof(marker), NULL) == SBX_OK) {
                        fprintf(stderr, "%s\n", marker);
                        fflush(stderr);
                }
        }
        return status;          /* release_all() runs at exit */
}
