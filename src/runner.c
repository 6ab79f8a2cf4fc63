/*
 * runner.c - the stage-2 runner: the argv grammar Confine writes for the
 * native and landlock backends, and sbx_init(), which parses it back in
 * the re-executed runner (sandbox-run), builds the same profile and plan,
 * spawns the command confined and exits with its status.
 *
 * sbx_init in stage-2 mode is the one place the library prints and exits:
 * at that point it *is* the runner process's main(), and the host tells a
 * runner failure from a command failure by exactly that one stderr line
 * and exit status 125 (docs/backends.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "runner.h"

#ifndef SBX_INSTALL_BINDIR
#  define SBX_INSTALL_BINDIR "/usr/local/bin"
#endif

/* ------------------------------------------------------ string vectors */

void sbx__strv_push(struct sbx__strv *s, const char *str)
{
        char *copy;

        if (s->failed)
                return;
        if (s->n + 1 >= s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 32;
                char **v = realloc(s->v, cap * sizeof(*v));

                if (v == NULL) {
                        s->failed = 1;
                        return;
                }
                s->v = v;
                s->cap = cap;
        }
        copy = sbx__strdup(str);
        if (copy == NULL) {
                s->failed = 1;
                return;
        }
        s->v[s->n++] = copy;
        s->v[s->n] = NULL;
}

void sbx__strv_push2(struct sbx__strv *s, const char *a, const char *b)
{
        size_t na = strlen(a), nb = strlen(b);
        char *t;

        if (s->failed)
                return;
        t = malloc(na + nb + 1);
        if (t == NULL) {
                s->failed = 1;
                return;
        }
        memcpy(t, a, na);
        memcpy(t + na, b, nb + 1);
        sbx__strv_push(s, t);
        free(t);
}

void sbx__strv_discard(struct sbx__strv *s)
{
        size_t i;

        for (i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        s->v = NULL;
        s->n = s->cap = 0;
}

char **sbx__strv_finish(struct sbx__strv *s, size_t *n_out)
{
        char **v;

        if (!s->failed && s->v == NULL) {
                s->v = calloc(1, sizeof(*s->v));
                if (s->v == NULL)
                        s->failed = 1;
        }
        if (s->failed) {
                sbx__strv_discard(s);
                return NULL;
        }
        v = s->v;
        if (n_out != NULL)
                *n_out = s->n;
        s->v = NULL;
        s->n = s->cap = 0;
        return v;
}

/* ------------------------------------------------------------- helpers */

const char *sbx__secure_getenv(const char *name)
{
#if defined(__GLIBC__)
        return secure_getenv(name);
#else
        if (getuid() != geteuid() || getgid() != getegid())
                return NULL;
        return getenv(name);
#endif
}

static int executable_file(const char *path)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EACCES;
        if (access(path, X_OK) < 0)
                return -errno;
        return 0;
}

int sbx__which(const char *name, const char *path_list, char **out)
{
        const char *p;
        int best = -ENOENT;

        if (name == NULL || name[0] == '\0')
                return -ENOENT;
        if (strchr(name, '/') != NULL) {
                int r;

                if (name[0] != '/')
                        return -EINVAL;
                r = executable_file(name);
                if (r < 0)
                        return r;
                *out = sbx__strdup(name);
                return *out != NULL ? 0 : -ENOMEM;
        }
        if (path_list == NULL || path_list[0] == '\0')
                path_list = "/usr/local/bin:/usr/bin:/bin";
        for (p = path_list;;) {
                const char *end = strchr(p, ':');
                size_t len = end != NULL ? (size_t) (end - p) : strlen(p);
                char buf[SBX_PATH_MAX];

                /* Only absolute PATH entries: "" and "." would make the
                 * result depend on the working directory. */
                if (len > 0 && p[0] == '/' && len + strlen(name) + 2 <= sizeof(buf)) {
                        int r;

                        memcpy(buf, p, len);
                        buf[len] = '/';
                        memcpy(buf + len + 1, name, strlen(name) + 1);
                        r = executable_file(buf);
                        if (r == 0) {
                                *out = sbx__strdup(buf);
                                return *out != NULL ? 0 : -ENOMEM;
                        }
                        if (r != -ENOENT && r != -ENOTDIR)
                                best = r;
                }
                if (end == NULL)
                        break;
                p = end + 1;
        }
        return best;
}

/* ------------------------------------------------------------- grammar */

static const char *home_text(int32_t h)
{
        return h == SBX_HOME_REAL ? "real" : "isolated";
}

static int parse_access(const char *s, int32_t *out)
{
        if (strcmp(s, "deny") == 0)
                *out = SBX_ACCESS_DENY;
        else if (strcmp(s, "gated") == 0)
                *out = SBX_ACCESS_GATED;
        else if (strcmp(s, "allow") == 0)
                *out = SBX_ACCESS_ALLOW;
        else
                return -1;
        return 0;
}

static void push_u64(struct sbx__strv *s, uint64_t v)
{
        char buf[32];

        (void) snprintf(buf, sizeof(buf), "%" PRIu64, v);
        sbx__strv_push(s, buf);
}

sbx_code sbx__runner_format(const sbx_profile *profile, int32_t backend,
                            const struct sbx__runner_limits *limits, const char *runner,
                            const char *const *argv, char ***out, sbx_error *err)
{
        static const char fn[] = "sbx__runner_format";
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        struct sbx__strv s = SBX__STRV_INIT;
        size_t i;
        sbx_code r;

        if (profile == NULL || runner == NULL || argv == NULL || argv[0] == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: NULL argument", fn);
        if (backend != SBX_BACKEND_NATIVE && backend != SBX_BACKEND_LANDLOCK)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: backend %d has no stage-2 runner", fn, (int) backend);
        r = sbx_profile_config_get(profile, &cfg, err);
        if (r != SBX_OK)
                return r;
        if (cfg.isolation != SBX_ISOLATION_SANDBOXED)
                return sbx__fail(err, SBX_E_DANGER_NOT_CONFINABLE, 0,
                                 "%s: an unconfined profile has no runner argv", fn);

        sbx__strv_push(&s, runner);
        sbx__strv_push(&s, SBX__STAGE2_FLAG);
        sbx__strv_push(&s, "--backend");
        sbx__strv_push(&s, sbx_backend_name(backend));
        sbx__strv_push(&s, "--workspace");
        sbx__strv_push(&s, cfg.workspace_root);
        sbx__strv_push(&s, "--workspace-read");
        sbx__strv_push(&s, sbx_access_name(cfg.workspace_read));
        sbx__strv_push(&s, "--workspace-write");
        sbx__strv_push(&s, sbx_access_name(cfg.workspace_write));
        sbx__strv_push(&s, "--host-read");
        sbx__strv_push(&s, sbx_access_name(cfg.host_read));
        sbx__strv_push(&s, "--host-write");
        sbx__strv_push(&s, sbx_access_name(cfg.host_write));
        sbx__strv_push(&s, "--network");
        sbx__strv_push(&s, sbx_access_name(cfg.network));
        sbx__strv_push(&s, "--command");
        sbx__strv_push(&s, sbx_access_name(cfg.command));
        sbx__strv_push(&s, "--home");
        sbx__strv_push(&s, home_text(cfg.home));
        sbx__strv_push(&s, "--isolation");
        sbx__strv_push(&s, "sandboxed");
        for (i = 0; i < cfg.n_additional_roots; i++) {
                const sbx_root_access *ra = &cfg.additional_roots[i];
                char *v;
                size_t n = strlen(ra->path) + 16;

                v = malloc(n);
                if (v == NULL) {
                        s.failed = 1;
                        break;
                }
                (void) snprintf(v, n, "%s:%s:%s", ra->path, sbx_access_name(ra->read),
                                sbx_access_name(ra->write));
                sbx__strv_push(&s, "--root");
                sbx__strv_push(&s, v);
                free(v);
        }
        if (limits != NULL && limits->memory_max > 0) {
                sbx__strv_push(&s, "--memory");
                push_u64(&s, limits->memory_max);
        }
        if (limits != NULL && limits->pids_max > 0) {
                sbx__strv_push(&s, "--pids");
                push_u64(&s, limits->pids_max);
        }
        sbx__strv_push(&s, "--");
        for (i = 0; argv[i] != NULL; i++)
                sbx__strv_push(&s, argv[i]);
        *out = sbx__strv_finish(&s, NULL);
        if (*out == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        return SBX_OK;
}

static int parse_u64(const char *s, uint64_t *out)
{
        uint64_t v = 0;

        if (*s == '\0')
                return -1;
        for (; *s != '\0'; s++) {
                if (*s < '0' || *s > '9')
                        return -1;
                if (v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
                        return -1;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        if (v == 0)
                return -1;
        *out = v;
        return 0;
}

/* Split "PATH:READ:WRITE" at its last two ':' into ra (the path is
 * malloc'd into *path_out). */
static int parse_root(const char *v, sbx_root_access *ra, char **path_out)
{
        const char *c2 = strrchr(v, ':'), *c1;
        char rd[16], *path;
        size_t n;

        if (c2 == NULL || c2 == v)
                return -1;
        for (c1 = c2 - 1; c1 > v && *c1 != ':'; c1--)
                ;
        if (*c1 != ':' || c1 == v)
                return -1;
        n = (size_t) (c2 - c1 - 1);
        if (n == 0 || n >= sizeof(rd))
                return -1;
        memcpy(rd, c1 + 1, n);
        rd[n] = '\0';
        if (parse_access(rd, &ra->read) < 0 || parse_access(c2 + 1, &ra->write) < 0)
                return -1;
        n = (size_t) (c1 - v);
        path = malloc(n + 1);
        if (path == NULL)
                return -2;
        memcpy(path, v, n);
        path[n] = '\0';
        ra->path = path;
        *path_out = path;
        return 0;
}

void sbx__runner_args_free(struct sbx__runner_args *a)
{
        size_t i;

        if (a == NULL)
                return;
        if (a->roots != NULL)
                for (i = 0; i < a->cfg.n_additional_roots; i++)
                        free((char *) a->roots[i].path);
        free(a->roots);
        a->roots = NULL;
        a->cfg.additional_roots = NULL;
        a->cfg.n_additional_roots = 0;
}

enum flag_id {
        F_BACKEND, F_WORKSPACE, F_WS_READ, F_WS_WRITE, F_HOST_READ, F_HOST_WRITE, F_NETWORK,
        F_COMMAND, F_HOME, F_ISOLATION, F_MEMORY, F_PIDS, F_ROOT, F__COUNT
};

static const struct {
        const char *name;
        int         required;
} flags[F__COUNT] = {
        [F_BACKEND] = { "--backend", 1 },
        [F_WORKSPACE] = { "--workspace", 1 },
        [F_WS_READ] = { "--workspace-read", 1 },
        [F_WS_WRITE] = { "--workspace-write", 1 },
        [F_HOST_READ] = { "--host-read", 1 },
        [F_HOST_WRITE] = { "--host-write", 1 },
        [F_NETWORK] = { "--network", 1 },
        [F_COMMAND] = { "--command", 1 },
        [F_HOME] = { "--home", 1 },
        [F_ISOLATION] = { "--isolation", 1 },
        [F_MEMORY] = { "--memory", 0 },
        [F_PIDS] = { "--pids", 0 },
        [F_ROOT] = { "--root", 0 },
};

sbx_code sbx__runner_parse(int argc, const char *const *argv, struct sbx__runner_args *out,
                           sbx_error *err)
{
        static const char fn[] = "stage-2 arguments";
        struct sbx__runner_args a;
        int seen[F__COUNT] = { 0 };
        size_t n_roots = 0, cap_roots = 0;
        int i, k;
        sbx_code r = SBX_OK;

        memset(&a, 0, sizeof(a));
        a.cfg.version = SBX_PROFILE_CONFIG_VERSION;
        if (argv == NULL || argc < 2 || argv[1] == NULL || strcmp(argv[1], SBX__STAGE2_FLAG) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv[1] is not %s", fn,
                                 SBX__STAGE2_FLAG);
        for (i = 2; i < argc; i += 2) {
                const char *flag = argv[i], *val;

                if (flag == NULL)
                        break;
                if (strcmp(flag, "--") == 0)
                        break;
                for (k = 0; k < F__COUNT; k++)
                        if (strcmp(flag, flags[k].name) == 0)
                                break;
                if (k == F__COUNT) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown flag \"%.64s\"", fn,
                                      flag);
                        goto fail;
                }
                if (i + 1 >= argc || argv[i + 1] == NULL) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: %s needs a value", fn, flag);
                        goto fail;
                }
                val = argv[i + 1];
                if (k != F_ROOT && seen[k]) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: %s given twice", fn, flag);
                        goto fail;
                }
                seen[k] = 1;
                switch ((enum flag_id) k) {
                case F_BACKEND:
                        if (strcmp(val, "native") == 0)
                                a.backend = SBX_BACKEND_NATIVE;
                        else if (strcmp(val, "landlock") == 0)
                                a.backend = SBX_BACKEND_LANDLOCK;
                        else
                                goto bad_value;
                        break;
                case F_WORKSPACE:
                        a.cfg.workspace_root = val;
                        break;
                case F_WS_READ:
                        if (parse_access(val, &a.cfg.workspace_read) < 0)
                                goto bad_value;
                        break;
                case F_WS_WRITE:
                        if (parse_access(val, &a.cfg.workspace_write) < 0)
                                goto bad_value;
                        break;
                case F_HOST_READ:
                        if (parse_access(val, &a.cfg.host_read) < 0)
                                goto bad_value;
                        break;
                case F_HOST_WRITE:
                        if (parse_access(val, &a.cfg.host_write) < 0)
                                goto bad_value;
                        break;
                case F_NETWORK:
                        if (parse_access(val, &a.cfg.network) < 0)
                                goto bad_value;
                        break;
                case F_COMMAND:
                        if (parse_access(val, &a.cfg.command) < 0)
                                goto bad_value;
                        break;
                case F_HOME:
                        if (strcmp(val, "isolated") == 0)
                                a.cfg.home = SBX_HOME_ISOLATED;
                        else if (strcmp(val, "real") == 0)
                                a.cfg.home = SBX_HOME_REAL;
                        else
                                goto bad_value;
                        break;
                case F_ISOLATION:
                        /* The runner never runs anything unconfined. */
                        if (strcmp(val, "sandboxed") != 0)
                                goto bad_value;
                        a.cfg.isolation = SBX_ISOLATION_SANDBOXED;
                        break;
                case F_MEMORY:
                        if (parse_u64(val, &a.limits.memory_max) < 0)
                                goto bad_value;
                        break;
                case F_PIDS:
                        if (parse_u64(val, &a.limits.pids_max) < 0)
                                goto bad_value;
                        break;
                case F_ROOT: {
                        char *path = NULL;
                        int pr;

                        if (n_roots == cap_roots) {
                                size_t cap = cap_roots ? cap_roots * 2 : 8;
                                sbx_root_access *v;

                                v = realloc(a.roots, cap * sizeof(*v));
                                if (v == NULL) {
                                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory",
                                                      fn);
                                        goto fail;
                                }
                                a.roots = v;
                                cap_roots = cap;
                        }
                        pr = parse_root(val, &a.roots[n_roots], &path);
                        if (pr == -2) {
                                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                                goto fail;
                        }
                        if (pr < 0)
                                goto bad_value;
                        n_roots++;
                        a.cfg.additional_roots = a.roots;
                        a.cfg.n_additional_roots = n_roots;
                        break;
                }
                case F__COUNT:
                default:
                        goto bad_value;
                }
                continue;
bad_value:
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: bad value \"%.64s\" for %s", fn, val,
                              flag);
                goto fail;
        }
        if (i >= argc || argv[i] == NULL || strcmp(argv[i], "--") != 0) {
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: missing \"--\" before the command",
                              fn);
                goto fail;
        }
        for (k = 0; k < F__COUNT; k++) {
                if (flags[k].required && !seen[k]) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is missing", fn,
                                      flags[k].name);
                        goto fail;
                }
        }
        i++;
        if (i >= argc || argv[i] == NULL || argv[i][0] == '\0') {
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: no command after \"--\"", fn);
                goto fail;
        }
        a.command = argv + i;
        a.n_command = (size_t) (argc - i);
        for (k = i; k < argc; k++) {
                if (argv[k] == NULL) {
                        a.n_command = (size_t) (k - i);
                        break;
                }
        }
        *out = a;
        return SBX_OK;
fail:
        a.cfg.n_additional_roots = n_roots;
        sbx__runner_args_free(&a);
        return r;
}

/* ---------------------------------------------------- vtable: confine */

static sbx_code runner_path(const char *forced, char **out, sbx_error *err)
{
        const char *want = forced, *source = "sbx_local_config.runner_command";
        int r;

        if (want == NULL) {
                want = sbx__secure_getenv("SBX_RUNNER");
                source = "SBX_RUNNER";
                if (want == NULL || want[0] == '\0') {
                        want = SBX_INSTALL_BINDIR "/sandbox-run";
                        source = "the installed runner";
                }
        }
        r = sbx__which(want, sbx__secure_getenv("PATH"), out);
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_confine: no memory");
        if (r == -EINVAL)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "sbx_confine: runner \"%.200s\" (%s) must be an absolute path "
                                 "or a bare name", want, source);
        if (r < 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -r,
                                 "sbx_confine: the sandbox runner \"%.200s\" (%s) is not usable: "
                                 "%s; install sandbox-run or set SBX_RUNNER / "
                                 "sbx_local_config.runner_command", want, source, strerror(-r));
        return SBX_OK;
}

static sbx_code runner_confine(int32_t backend, const sbx_profile *profile, const char *runner,
                               const char *const *argv, char ***argv_out, sbx_error *err)
{
        char *path = NULL;
        sbx_code r;

        r = runner_path(runner, &path, err);
        if (r != SBX_OK)
                return r;
        r = sbx__runner_format(profile, backend, NULL, path, argv, argv_out, err);
        free(path);
        return r;
}

sbx_code sbx__runner_confine_native(const struct sbx_plan *plan, const sbx_profile *profile,
                                    const char *runner, const char *const *argv,
                                    char ***argv_out, sbx_error *err)
{
        (void) plan;    /* the runner recompiles the same plan from the profile */
        return runner_confine(SBX_BACKEND_NATIVE, profile, runner, argv, argv_out, err);
}

sbx_code sbx__runner_confine_landlock(const struct sbx_plan *plan, const sbx_profile *profile,
                                      const char *runner, const char *const *argv,
                                      char ***argv_out, sbx_error *err)
{
        (void) plan;
        return runner_confine(SBX_BACKEND_LANDLOCK, profile, runner, argv, argv_out, err);
}

/* ------------------------------------------------------------ sbx_init */

static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig)
{
        pid_t pid = (pid_t) forward_pid;

        if (pid > 0)
                (void) kill(pid, sig);
}

static void runner_say(const char *what, const char *text) SBX__NORETURN;

/* The runner's one stderr line, then exit 125. */
static void runner_die(const char *message) SBX__NORETURN;
static void runner_die(const char *message)
{
        runner_say("cannot start sandbox runner", message);
}

static void runner_exit_line(int status, const char *text) SBX__NORETURN;
static void runner_exit_line(int status, const char *text)
{
        char line[SBX_ERROR_SIZE + 64];
        size_t n, off = 0;
        char *nl;

        (void) snprintf(line, sizeof(line), "sandbox-run: %s\n", text);
        /* One line: a newline inside the message would make two. */
        n = strlen(line);
        while ((nl = memchr(line, '\n', n - 1)) != NULL)
                *nl = ' ';
        while (off < n) {
                ssize_t w = write(STDERR_FILENO, line + off, n - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        break;
                off += (size_t) w;
        }
        exit(status);
}

static void runner_say(const char *what, const char *text)
{
        char line[SBX_ERROR_SIZE + 64];

        (void) snprintf(line, sizeof(line), "%s: %s", what, text);
        runner_exit_line(SBX_EXIT_RUNNER_FAILURE, line);
}

/* The command could not be started at all: 127 (not found) or 126 (found
 * but not executable), like a shell; anything else is a runner failure. */
static void spawn_failed(const sbx_error *e, const char *cmd) SBX__NORETURN;
static void spawn_failed(const sbx_error *e, const char *cmd)
{
        char line[SBX_ERROR_SIZE + 64];

        if (e->code == SBX_E_NOT_FOUND) {
                (void) snprintf(line, sizeof(line), "%.200s: command not found", cmd);
                runner_exit_line(127, line);
        }
        if (e->code == SBX_E_IO && strstr(e->message, "cannot execute") != NULL &&
            e->sys_errno != 0) {
                (void) snprintf(line, sizeof(line), "%.200s: %s", cmd, strerror(e->sys_errno));
                runner_exit_line(e->sys_errno == ENOENT ? 127 : 126, line);
        }
        runner_die(e->message);
}

static int cwd_visible(const struct sbx__runner_args *a, const char *cwd)
{
        char *canon = NULL;
        size_t i;
        int ok = 0;

        if (cwd[0] != '/' || sbx_path_canonical(cwd, &canon, NULL) != SBX_OK)
                return 0;
        if (strcmp(canon, cwd) == 0) {
                if (a->cfg.workspace_read == SBX_ACCESS_ALLOW &&
                    sbx_path_is_within(cwd, &a->cfg.workspace_root, 1))
                        ok = 1;
                for (i = 0; i < a->cfg.n_additional_roots; i++)
                        if (a->cfg.additional_roots[i].read == SBX_ACCESS_ALLOW &&
                            sbx_path_is_within(cwd, &a->cfg.additional_roots[i].path, 1))
                                ok = 1;
        }
        sbx_free(canon);
        return ok;
}

sbx_code sbx_init(int argc, char **argv)
{
        struct sbx__runner_args a;
        sbx_spawn_options opts = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        struct sigaction sa;
        char cwd[SBX_PATH_MAX];
        int status = 0;
        static const int fwd[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };
        size_t i;

        if (argc < 2 || argv == NULL || argv[0] == NULL || argv[1] == NULL ||
            strcmp(argv[1], SBX__STAGE2_FLAG) != 0)
                return SBX_OK;

        /* From here on this process is the stage-2 runner: it never returns. */
        if (sbx__runner_parse(argc, (const char *const *) argv, &a, &e) != SBX_OK)
                runner_die(e.message);
        if (sbx_profile_new(&a.cfg, &profile, &e) != SBX_OK)
                runner_die(e.message);
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                runner_die(e.message);
        if (plan->direct)
                runner_die("the runner never runs a command unconfined");
        if (plan->command != SBX_ACCESS_ALLOW)
                runner_die(plan->command == SBX_ACCESS_GATED
                                   ? "command.execute is gated and the runner holds no grant"
                                   : "command.execute is denied by the profile");

        opts.backend = a.backend;
        opts.memory_max = a.limits.memory_max;
        opts.pids_max = a.limits.pids_max;
        /* The command runs where the runner was started, like a shell, when
         * that is inside the workspace or a readable root (elsewhere may be
         * hidden in the sandbox); otherwise in the workspace root. */
        if (getcwd(cwd, sizeof(cwd)) != NULL && cwd_visible(&a, cwd))
                opts.cwd = cwd;
        if (sbx_spawn(plan, (const char *const *) a.command, &opts, &child, &e) != SBX_OK)
                spawn_failed(&e, a.command[0]);

        /* Pass the usual termination signals on to the confined command
         * (it runs in its own session, so a terminal's ^C reaches only us). */
        forward_pid = (sig_atomic_t) sbx_child_pid(child);
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = forward_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        for (i = 0; i < SBX__ARRAY_SIZE(fwd); i++)
                (void) sigaction(fwd[i], &sa, NULL);

        if (sbx_child_wait(child, &status, &e) != SBX_OK)
                runner_die(e.message);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        sbx__runner_args_free(&a);
        if (WIFEXITED(status))
                exit(WEXITSTATUS(status));
        if (WIFSIGNALED(status))
                exit(128 + WTERMSIG(status));
        exit(SBX_EXIT_RUNNER_FAILURE);
}
