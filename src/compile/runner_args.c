/*
 * runner_args.c - the stage-2 runner grammar: the argv Confine writes for
 * the native and landlock backends (sbx__runner_format) and its parser
 * (sbx__runner_parse), which sbx_init uses in the re-executed runner to
 * rebuild the same profile.  docs/backends.md describes the grammar.
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

#include "compile/runner_args.h"

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
        /* Version-2 fields, only when not the default (the argv of every
         * other profile stays as it was). */
        if (cfg.force_workspace) {
                sbx__strv_push(&s, "--force-workspace");
                sbx__strv_push(&s, "1");
        }
        if (cfg.accept_unprotected_git) {
                sbx__strv_push(&s, "--accept-unprotected-git");
                sbx__strv_push(&s, "1");
        }
        for (i = 0; i < cfg.n_unix_sockets; i++) {
                sbx__strv_push(&s, "--unix-socket");
                sbx__strv_push(&s, cfg.unix_sockets[i]);
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
        free(a->sockets);
        a->sockets = NULL;
        a->cfg.unix_sockets = NULL;
        a->cfg.n_unix_sockets = 0;
}

enum flag_id {
        F_BACKEND, F_WORKSPACE, F_WS_READ, F_WS_WRITE, F_HOST_READ, F_HOST_WRITE, F_NETWORK,
        F_COMMAND, F_HOME, F_ISOLATION, F_MEMORY, F_PIDS, F_ROOT, F_FORCE_WS, F_ACCEPT_GIT,
        F_UNIX_SOCKET, F__COUNT
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
        [F_FORCE_WS] = { "--force-workspace", 0 },
        [F_ACCEPT_GIT] = { "--accept-unprotected-git", 0 },
        [F_UNIX_SOCKET] = { "--unix-socket", 0 },
};

/* The arguments being parsed, with the roots vector's capacity. */
struct parse_state {
        struct sbx__runner_args a;
        size_t n_roots, cap_roots;
};

static int parse_add_root(struct parse_state *st, const char *val)
{
        struct sbx__runner_args *a = &st->a;
        char *path = NULL;
        int pr;

        if (st->n_roots == st->cap_roots) {
                size_t cap = st->cap_roots ? st->cap_roots * 2 : 8;
                sbx_root_access *v;

                v = realloc(a->roots, cap * sizeof(*v));
                if (v == NULL)
                        return -2;
                a->roots = v;
                st->cap_roots = cap;
        }
        pr = parse_root(val, &a->roots[st->n_roots], &path);
        if (pr < 0)
                return pr;
        st->n_roots++;
        a->cfg.additional_roots = a->roots;
        a->cfg.n_additional_roots = st->n_roots;
        return 0;
}

static int parse_add_socket(struct sbx__runner_args *a, const char *val)
{
        const char **v;

        if (a->cfg.n_unix_sockets >= SBX__RUNNER_MAX_SOCKETS)
                return -1;
        v = realloc(a->sockets, (a->cfg.n_unix_sockets + 1) * sizeof(*v));
        if (v == NULL)
                return -2;
        a->sockets = v;
        a->sockets[a->cfg.n_unix_sockets++] = val;
        a->cfg.unix_sockets = a->sockets;
        return 0;
}

static int parse_word(const char *val, const char *one, int v1, const char *two, int v2,
                      int32_t *out)
{
        if (strcmp(val, one) == 0)
                *out = v1;
        else if (two != NULL && strcmp(val, two) == 0)
                *out = v2;
        else
                return -1;
        return 0;
}

/* One flag's value: 0, -1 (a bad value) or -2 (no memory). */
static int parse_flag(struct parse_state *st, enum flag_id k, const char *val)
{
        struct sbx__runner_args *a = &st->a;

        switch (k) {
        case F_BACKEND:
                return parse_word(val, "native", SBX_BACKEND_NATIVE, "landlock",
                                  SBX_BACKEND_LANDLOCK, &a->backend);
        case F_WORKSPACE:
                a->cfg.workspace_root = val;
                return 0;
        case F_WS_READ:
                return parse_access(val, &a->cfg.workspace_read);
        case F_WS_WRITE:
                return parse_access(val, &a->cfg.workspace_write);
        case F_HOST_READ:
                return parse_access(val, &a->cfg.host_read);
        case F_HOST_WRITE:
                return parse_access(val, &a->cfg.host_write);
        case F_NETWORK:
                return parse_access(val, &a->cfg.network);
        case F_COMMAND:
                return parse_access(val, &a->cfg.command);
        case F_HOME:
                return parse_word(val, "isolated", SBX_HOME_ISOLATED, "real", SBX_HOME_REAL,
                                  &a->cfg.home);
        case F_ISOLATION:
                /* The runner never runs anything unconfined. */
                return parse_word(val, "sandboxed", SBX_ISOLATION_SANDBOXED, NULL, 0,
                                  &a->cfg.isolation);
        case F_MEMORY:
                return parse_u64(val, &a->limits.memory_max);
        case F_PIDS:
                return parse_u64(val, &a->limits.pids_max);
        case F_ROOT:
                return parse_add_root(st, val);
        case F_FORCE_WS:
                return parse_word(val, "1", 1, NULL, 0, &a->cfg.force_workspace);
        case F_ACCEPT_GIT:
                return parse_word(val, "1", 1, NULL, 0, &a->cfg.accept_unprotected_git);
        case F_UNIX_SOCKET:
                return parse_add_socket(a, val);
        case F__COUNT:
        default:
                return -1;
        }
}

/* After the flags: "--", every required flag, a command.  i: the "--". */
static sbx_code parse_tail(struct parse_state *st, const int *seen, int argc,
                           const char *const *argv, int i, sbx_error *err)
{
        static const char fn[] = "stage-2 arguments";
        int k;

        if (i >= argc || argv[i] == NULL || strcmp(argv[i], "--") != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: missing \"--\" before the command",
                                 fn);
        for (k = 0; k < F__COUNT; k++)
                if (flags[k].required && !seen[k])
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is missing", fn,
                                         flags[k].name);
        i++;
        if (i >= argc || argv[i] == NULL || argv[i][0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: no command after \"--\"", fn);
        st->a.command = argv + i;
        st->a.n_command = (size_t) (argc - i);
        for (k = i; k < argc; k++) {
                if (argv[k] == NULL) {
                        st->a.n_command = (size_t) (k - i);
                        break;
                }
        }
        return SBX_OK;
}

sbx_code sbx__runner_parse(int argc, const char *const *argv, struct sbx__runner_args *out,
                           sbx_error *err)
{
        static const char fn[] = "stage-2 arguments";
        struct parse_state st;
        int seen[F__COUNT] = { 0 };
        int i, k, pr;
        sbx_code r = SBX_OK;

        memset(&st, 0, sizeof(st));
        st.a.cfg.version = SBX_PROFILE_CONFIG_VERSION;
        if (argv == NULL || argc < 2 || argv[1] == NULL || strcmp(argv[1], SBX__STAGE2_FLAG) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv[1] is not %s", fn,
                                 SBX__STAGE2_FLAG);
        for (i = 2; i < argc; i += 2) {
                const char *flag = argv[i], *val;

                if (flag == NULL || strcmp(flag, "--") == 0)
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
                if (k != F_ROOT && k != F_UNIX_SOCKET && seen[k]) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: %s given twice", fn, flag);
                        goto fail;
                }
                seen[k] = 1;
                pr = parse_flag(&st, (enum flag_id) k, val);
                if (pr == -2) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                        goto fail;
                }
                if (pr < 0) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: bad value \"%.64s\" for %s",
                                      fn, val, flag);
                        goto fail;
                }
        }
        r = parse_tail(&st, seen, argc, argv, i, err);
        if (r != SBX_OK)
                goto fail;
        *out = st.a;
        return SBX_OK;
fail:
        st.a.cfg.n_additional_roots = st.n_roots;
        sbx__runner_args_free(&st.a);
        return r;
}

