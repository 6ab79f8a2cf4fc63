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
                if (k != F_ROOT && k != F_UNIX_SOCKET && seen[k]) {
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
                case F_FORCE_WS:
                        if (strcmp(val, "1") != 0)
                                goto bad_value;
                        a.cfg.force_workspace = 1;
                        break;
                case F_ACCEPT_GIT:
                        if (strcmp(val, "1") != 0)
                                goto bad_value;
                        a.cfg.accept_unprotected_git = 1;
                        break;
                case F_UNIX_SOCKET: {
                        const char **v;

                        if (a.cfg.n_unix_sockets >= SBX__RUNNER_MAX_SOCKETS)
                                goto bad_value;
                        v = realloc(a.sockets, (a.cfg.n_unix_sockets + 1) * sizeof(*v));
                        if (v == NULL) {
                                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                                goto fail;
                        }
                        a.sockets = v;
                        a.sockets[a.cfg.n_unix_sockets++] = val;
                        a.cfg.unix_sockets = a.sockets;
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

