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
 *               [--allow-unix PATH]...
 *               -- CMD [ARGS...]
 *
 * Uses only the public header.  Exit status: the command's (128 + signal
 * when it was killed), 125 for sandbox-run's own failures, 126 / 127 when
 * the command cannot be executed / is not found.  See sandbox-run.1.
 *
 * The JSON of --json is written by hand (the tool links only libsandbox):
 * strings are escaped per RFC 8259, and bytes that are not valid UTF-8
 * become U+FFFD so the output is always valid JSON.
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

#include <sandbox.h>

#define EXIT_FAIL    SBX_EXIT_RUNNER_FAILURE   /* 125 */
#define EXIT_NOEXEC  126
#define EXIT_NOTFOUND 127
#define TAIL_MAX     (64 * 1024)               /* stderr kept for the denial check */
#define MAX_EXTRA    256
#define MAX_UNIX     64                        /* as many as a profile holds */
#define MAX_ENV      256                       /* as many as sbx_spawn takes */

struct extra_root {
        char *path;             /* canonical, sbx_free */
        int   write;
        int   toolchain;        /* 1: added from the toolchain list, not a flag */
};

struct opts {
        int32_t mode;
        const char *workspace_arg;
        int32_t network;        /* -1 = not given */
        int32_t backend;        /* -1 = not given */
        struct extra_root extra[MAX_EXTRA];
        size_t n_extra;
        uint64_t memory;
        uint64_t pids;
        int explain;
        int json;
        uint64_t timeout_ms;    /* --timeout: 0 = none */
        const char *cwd_arg;    /* --cwd DIR, or NULL */
        int allow_missing;      /* --allow-missing: --allow-read/-write may name nothing */
        int no_toolchains;      /* --no-toolchains: HOME's toolchains stay hidden too */
        unsigned seen;          /* single-valued options given (SEEN_*) */
        int force_workspace;    /* --force-workspace: allow /, a home or its ancestor */
        int accept_unprotected_git;     /* --accept-unprotected-git */
        char *unix_sockets[MAX_UNIX];   /* --allow-unix, canonical, sbx_free */
        char *env_set[MAX_ENV];         /* --env / --env-file: "NAME=VALUE", free */
        size_t n_env;
        size_t n_unix;
        char **command;
};

static int json_mode;

/* Options that take one value: given twice is an error, not "the last wins". */
enum { SEEN_MODE = 1u << 0, SEEN_WORKSPACE = 1u << 1, SEEN_NETWORK = 1u << 2,
       SEEN_BACKEND = 1u << 3, SEEN_MEMORY = 1u << 4, SEEN_PIDS = 1u << 5,
       SEEN_TIMEOUT = 1u << 6, SEEN_CWD = 1u << 7 };

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
        }
        memset(&g, 0, sizeof(g));
}

/* ------------------------------------------------------------------ JSON */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
        size_t len, i;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xC2 && s[0] <= 0xDF) {
                len = 2;
                cp = s[0] & 0x1F;
        } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
                len = 3;
                cp = s[0] & 0x0F;
        } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
                len = 4;
                cp = s[0] & 0x07;
        } else {
                return 0;
        }
        if (n < len)
                return 0;
        for (i = 1; i < len; i++) {
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3F);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
                return 0;
        return len;
}

static void json_str(FILE *f, const char *str)
{
        const unsigned char *s = (const unsigned char *) str;
        size_t n = strlen(str), i = 0;

        fputc('"', f);
        while (i < n) {
                unsigned char c = s[i];
                size_t l;

                switch (c) {
                case '"':
                        fputs("\\\"", f);
                        i++;
                        continue;
                case '\\':
                        fputs("\\\\", f);
                        i++;
                        continue;
                case '\n':
                        fputs("\\n", f);
                        i++;
                        continue;
                case '\r':
                        fputs("\\r", f);
                        i++;
                        continue;
                case '\t':
                        fputs("\\t", f);
                        i++;
                        continue;
                default:
                        break;
                }
                if (c < 0x20 || c == 0x7F) {
                        fprintf(f, "\\u%04x", c);
                        i++;
                        continue;
                }
                l = utf8_len(s + i, n - i);
                if (l == 0) {
                        fputs("\\ufffd", f);
                        i++;
                        continue;
                }
                fwrite(s + i, 1, l, f);
                i += l;
        }
        fputc('"', f);
}

/* -------------------------------------------------------------- messages */

/* sandbox-run's own one-line message on stderr (JSON with --json). */
static void say(int32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int32_t code, const char *fmt, ...)
{
        char msg[1024];
        va_list ap;
        char *nl;

        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        while ((nl = strchr(msg, '\n')) != NULL)
                *nl = ' ';
        if (json_mode) {
                fputs("{\"error\":{\"code\":", stderr);
                json_str(stderr, sbx_code_name(code));
                fputs(",\"message\":", stderr);
                json_str(stderr, msg);
                fputs("}}\n", stderr);
        } else {
                fprintf(stderr, "sandbox-run: %s\n", msg);
        }
        fflush(stderr);
}

static void die(int status, int32_t code, const char *msg) __attribute__((noreturn));
static void die(int status, int32_t code, const char *msg)
{
        say(code, "%s", msg);
        exit(status);
}

static void die_err(const sbx_error *e) __attribute__((noreturn));
static void die_err(const sbx_error *e)
{
        die(EXIT_FAIL, e->code, e->message[0] != '\0' ? e->message : sbx_strerror(e->code));
}

static void usage(FILE *f)
{
        fputs("usage: sandbox-run [--mode read-only|workspace-write|danger-full-access]\n"
              "                   [--workspace DIR] [--network deny|allow]\n"
              "                   [--allow-read PATH]... [--allow-write PATH]...\n"
              "                   [--backend auto|native|landlock|bwrap]\n"
              "                   [--memory BYTES] [--pids N] [--timeout SECONDS] [--cwd DIR]\n"
              "                   [--env NAME[=VALUE]]... [--env-file FILE]...\n"
              "                   [--explain] [--json] [--allow-missing] [--no-toolchains]\n"
              "                   [--force-workspace] [--accept-unprotected-git]\n"
              "                   [--allow-unix PATH]...\n"
              "                   -- CMD [ARGS...]\n", f);
}

/* --------------------------------------------------------------- options */

/* --timeout: decimal seconds, a fraction allowed ("2", "0.5"), more than 0
 * and at most a year; into *ms (at least 1).  0 or -1. */
static int parse_seconds(const char *s, uint64_t *ms)
{
        uint64_t whole = 0, frac = 0, scale = 1000;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
                whole = whole * 10 + (uint64_t) (*p - '0');
                if (whole > 366ull * 24 * 3600)
                        return -1;
        }
        if (*p == '.') {
                for (p++; *p >= '0' && *p <= '9'; p++)
                        if (scale > 1) {
                                scale /= 10;
                                frac += (uint64_t) (*p - '0') * scale;
                        }
        }
        if (*p != '\0' || (whole == 0 && frac == 0) || whole * 1000 + frac > 365ull * 24 * 3600 * 1000)
                return -1;
        *ms = whole * 1000 + frac > 0 ? whole * 1000 + frac : 1;
        return 0;
}

static int parse_size(const char *s, uint64_t *out, int suffixes)
{
        uint64_t v = 0, mul = 1;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -1;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        if (*p != '\0') {
                if (!suffixes || p[1] != '\0')
                        return -1;
                switch (*p) {
                case 'k': case 'K': mul = 1ull << 10; break;
                case 'm': case 'M': mul = 1ull << 20; break;
                case 'g': case 'G': mul = 1ull << 30; break;
                case 't': case 'T': mul = 1ull << 40; break;
                default: return -1;
                }
        }
        if (v == 0 || v > UINT64_MAX / mul)
                return -1;
        *out = v * mul;
        return 0;
}

/* An absolute, canonical spelling of a command-line path. */
static char *canonical_arg(const char *what, const char *arg)
{
        char cwd[SBX_PATH_MAX], buf[2 * SBX_PATH_MAX];
        sbx_error e = { 0, 0, { 0 } };
        char *out = NULL;

        if (arg[0] == '\0')
                die(EXIT_FAIL, SBX_E_INVALID, "an empty path is not a path");
        if (arg[0] != '/') {
                if (getcwd(cwd, sizeof(cwd)) == NULL)
                        die(EXIT_FAIL, SBX_E_IO, "cannot determine the current directory");
                if ((size_t) snprintf(buf, sizeof(buf), "%s/%s", cwd, arg) >= sizeof(buf))
                        die(EXIT_FAIL, SBX_E_RANGE, "path too long");
                arg = buf;
        }
        if (sbx_path_canonical(arg, &out, &e) != SBX_OK) {
                say(e.code, "%s %s: %s", what, arg, e.message);
                exit(EXIT_FAIL);
        }
        return out;
}

static void add_extra(struct opts *o, const char *arg, int write)
{
        char *path = canonical_arg(write ? "--allow-write" : "--allow-read", arg);
        size_t i;

        for (i = 0; i < o->n_extra; i++) {
                if (strcmp(o->extra[i].path, path) == 0) {
                        o->extra[i].write |= write;
                        sbx_free(path);
                        return;
                }
        }
        if (o->n_extra == MAX_EXTRA)
                die(EXIT_FAIL, SBX_E_RANGE, "too many --allow-read/--allow-write paths");
        o->extra[o->n_extra].path = path;
        o->extra[o->n_extra].write = write;
        o->n_extra++;
}

/* The toolchain locations below HOME (sbx_toolchain_roots): exposed
 * read-only at their real paths while the rest of HOME stays hidden, so
 * `cargo`, a pyenv `python3` or an nvm `node` still run.  The library
 * keeps the secret locations inside them hidden. */
static void add_toolchains(struct opts *o)
{
        char **v = NULL;
        size_t n = 0, i, k;

        if (sbx_toolchain_roots(NULL, &v, &n, NULL) != SBX_OK)
                return;
        for (i = 0; i < n; i++) {
                int dup = 0;

                for (k = 0; k < o->n_extra; k++)
                        dup |= strcmp(o->extra[k].path, v[i]) == 0;
                if (dup || o->n_extra == MAX_EXTRA)
                        continue;
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

/* --env NAME=VALUE, or --env NAME (its value here): the command gets it
 * on top of the filtered environment.  A later one for the same name
 * replaces an earlier. */
static void add_env(struct opts *o, const char *arg, const char *where)
{
        const char *eq = strchr(arg, '='), *c;
        size_t nl = eq != NULL ? (size_t) (eq - arg) : strlen(arg), i;
        char *entry;

        for (c = arg; c < arg + nl; c++)
                if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_' ||
                      (c > arg && *c >= '0' && *c <= '9')))
                        break;
        if (nl == 0 || c != arg + nl) {
                say(SBX_E_INVALID, "%s: \"%.100s\" is not NAME or NAME=VALUE (a name of "
                    "letters, digits and _)", where, arg);
                exit(EXIT_FAIL);
        }
        if ((nl == 4 && strncmp(arg, "HOME", 4) == 0) || (nl == 6 && strncmp(arg, "TMPDIR", 6) == 0)) {
                say(SBX_E_INVALID, "%s: %.*s is the sandbox's to set", where, (int) nl, arg);
                exit(EXIT_FAIL);
        }
        if (eq == NULL) {
                const char *v = getenv(arg);

                if (v == NULL) {
                        say(SBX_E_INVALID, "%s: %.100s is not set here (give NAME=VALUE)", where,
                            arg);
                        exit(EXIT_FAIL);
                }
                entry = malloc(nl + strlen(v) + 2);
                if (entry != NULL)
                        (void) sprintf(entry, "%s=%s", arg, v);
        } else {
                entry = strdup(arg);
        }
        if (entry == NULL)
                die(EXIT_FAIL, SBX_E_NOMEM, "out of memory");
        for (i = 0; i < o->n_env; i++)
                if (strncmp(o->env_set[i], entry, nl + 1) == 0) {
                        free(o->env_set[i]);
                        o->env_set[i] = entry;
                        return;
                }
        if (o->n_env == MAX_ENV) {
                free(entry);
                die(EXIT_FAIL, SBX_E_RANGE, "too many --env values (at most 256)");
        }
        o->env_set[o->n_env++] = entry;
}

/* --env-file FILE: NAME=VALUE lines; blank lines and # comments skipped. */
static void add_env_file(struct opts *o, const char *path)
{
        char line[8192], where[300];
        FILE *fp = fopen(path, "re");
        unsigned n = 0;

        if (fp == NULL) {
                say(SBX_E_INVALID, "--env-file %.200s: %s", path, strerror(errno));
                exit(EXIT_FAIL);
        }
        while (fgets(line, sizeof(line), fp) != NULL) {
                size_t len = strlen(line);
                char *p = line;

                n++;
                if (len > 0 && line[len - 1] == '\n')
                        line[--len] = '\0';
                else if (!feof(fp)) {
                        say(SBX_E_INVALID, "--env-file %.200s:%u: line too long", path, n);
                        exit(EXIT_FAIL);
                }
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '\0' || *p == '#')
                        continue;
                if (strchr(p, '=') == NULL) {
                        say(SBX_E_INVALID, "--env-file %.200s:%u: not NAME=VALUE", path, n);
                        exit(EXIT_FAIL);
                }
                (void) snprintf(where, sizeof(where), "--env-file %.200s:%u", path, n);
                add_env(o, p, where);
        }
        fclose(fp);
}

/* --allow-unix PATH: canonical, each once. */
static void add_unix(struct opts *o, const char *arg)
{
        char *path = canonical_arg("--allow-unix", arg);
        size_t i;

        for (i = 0; i < o->n_unix; i++) {
                if (strcmp(o->unix_sockets[i], path) == 0) {
                        sbx_free(path);
                        return;
                }
        }
        if (o->n_unix == MAX_UNIX)
                die(EXIT_FAIL, SBX_E_RANGE, "too many --allow-unix paths (at most 64)");
        o->unix_sockets[o->n_unix++] = path;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
        int i;

        o->mode = SBX_MODE_READ_ONLY;
        o->network = -1;
        o->backend = -1;
        /* --json changes how errors look, including option errors. */
        for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--json") == 0)
                        json_mode = 1;
        for (i = 1; i < argc; i++) {
                const char *a = argv[i], *val = NULL, *eq;
                char name[32];
                size_t nl;

                if (strcmp(a, "--") == 0) {
                        i++;
                        break;
                }
                if (a[0] != '-' || strcmp(a, "-") == 0)
                        break;          /* the command starts here */
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        usage(stdout);
                        exit(0);
                }
                if (strcmp(a, "--version") == 0) {
                        printf("sandbox-run (libsandbox) %s\n", sbx_version_string());
                        exit(0);
                }
                if (strcmp(a, "--explain") == 0) {
                        o->explain = 1;
                        continue;
                }
                if (strcmp(a, "--json") == 0) {
                        o->json = 1;
                        continue;
                }
                if (strcmp(a, "--force-workspace") == 0) {
                        o->force_workspace = 1;
                        continue;
                }
                if (strcmp(a, "--accept-unprotected-git") == 0) {
                        o->accept_unprotected_git = 1;
                        continue;
                }
                if (strcmp(a, "--allow-missing") == 0) {
                        o->allow_missing = 1;
                        continue;
                }
                if (strcmp(a, "--no-toolchains") == 0) {
                        o->no_toolchains = 1;
                        continue;
                }
                eq = strchr(a, '=');
                nl = eq != NULL ? (size_t) (eq - a) : strlen(a);
                if (nl >= sizeof(name)) {
                        say(SBX_E_INVALID, "unknown option %.64s", a);
                        exit(EXIT_FAIL);
                }
                memcpy(name, a, nl);
                name[nl] = '\0';
                if (eq != NULL) {
                        val = eq + 1;
                } else if (i + 1 < argc) {
                        val = argv[++i];
                } else {
                        say(SBX_E_INVALID, "%s needs a value", name);
                        exit(EXIT_FAIL);
                }
                {
                        static const struct { const char *name; unsigned bit; } once[] = {
                                { "--mode", SEEN_MODE }, { "--workspace", SEEN_WORKSPACE },
                                { "--network", SEEN_NETWORK }, { "--backend", SEEN_BACKEND },
                                { "--memory", SEEN_MEMORY }, { "--pids", SEEN_PIDS },
                                { "--timeout", SEEN_TIMEOUT }, { "--cwd", SEEN_CWD },
                        };
                        size_t k;

                        for (k = 0; k < sizeof(once) / sizeof(once[0]); k++) {
                                if (strcmp(name, once[k].name) != 0)
                                        continue;
                                if (o->seen & once[k].bit) {
                                        say(SBX_E_INVALID, "%s given twice", name);
                                        exit(EXIT_FAIL);
                                }
                                o->seen |= once[k].bit;
                        }
                }
                if (strcmp(name, "--mode") == 0) {
                        if (sbx_mode_parse(val, &o->mode, NULL) != SBX_OK)
                                goto bad;
                } else if (strcmp(name, "--workspace") == 0) {
                        o->workspace_arg = val;
                } else if (strcmp(name, "--network") == 0) {
                        if (strcmp(val, "deny") == 0)
                                o->network = SBX_ACCESS_DENY;
                        else if (strcmp(val, "allow") == 0)
                                o->network = SBX_ACCESS_ALLOW;
                        else
                                goto bad;
                } else if (strcmp(name, "--allow-read") == 0) {
                        add_extra(o, val, 0);
                } else if (strcmp(name, "--allow-write") == 0) {
                        add_extra(o, val, 1);
                } else if (strcmp(name, "--allow-unix") == 0) {
                        add_unix(o, val);
                } else if (strcmp(name, "--backend") == 0) {
                        if (sbx_backend_parse(val, &o->backend, NULL) != SBX_OK ||
                            o->backend == SBX_BACKEND_UNAVAILABLE)
                                goto bad;
                } else if (strcmp(name, "--memory") == 0) {
                        if (parse_size(val, &o->memory, 1) < 0)
                                goto bad;
                } else if (strcmp(name, "--pids") == 0) {
                        if (parse_size(val, &o->pids, 0) < 0)
                                goto bad;
                } else if (strcmp(name, "--cwd") == 0) {
                        o->cwd_arg = val;
                } else if (strcmp(name, "--env") == 0) {
                        add_env(o, val, "--env");
                } else if (strcmp(name, "--env-file") == 0) {
                        add_env_file(o, val);
                } else if (strcmp(name, "--timeout") == 0) {
                        if (parse_seconds(val, &o->timeout_ms) < 0)
                                goto bad;
                } else {
                        say(SBX_E_INVALID, "unknown option %.64s (see --help)", name);
                        exit(EXIT_FAIL);
                }
                continue;
bad:
                {
                        static const struct { const char *name, *valid; } valid[] = {
                                { "--mode", "read-only, workspace-write, danger-full-access" },
                                { "--network", "deny, allow" },
                                { "--backend", "auto, native, landlock, bwrap" },
                                { "--memory", "a size in bytes, with K, M, G or T" },
                                { "--pids", "a positive number" },
                                { "--timeout", "seconds, more than 0 (2, 0.5)" },
                        };
                        const char *v = NULL;
                        size_t k;

                        for (k = 0; k < sizeof(valid) / sizeof(valid[0]); k++)
                                if (strcmp(valid[k].name, name) == 0)
                                        v = valid[k].valid;
                        if (v != NULL)
                                say(SBX_E_INVALID, "bad value \"%.200s\" for %s (valid: %s)", val,
                                    name, v);
                        else
                                say(SBX_E_INVALID, "bad value \"%.200s\" for %s", val, name);
                }
                exit(EXIT_FAIL);
        }
        if (i >= argc || argv[i][0] == '\0') {
                if (!o->explain) {
                        say(SBX_E_INVALID, "no command given (usage: sandbox-run [OPTIONS] -- "
                            "CMD [ARGS...])");
                        exit(EXIT_FAIL);
                }
                o->command = NULL;
                return;
        }
        o->command = argv + i;
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

/* ------------------------------------------------------------- explain */

static const char *enforcement_name(int32_t e)
{
        switch (e) {
        case SBX_ENFORCEMENT_FULL:
                return "full";
        case SBX_ENFORCEMENT_PARTIAL:
                return "partial";
        default:
                return "none";
        }
}

static void print_guarantees(FILE *f, uint32_t mask)
{
        uint32_t bit;
        int first = 1;

        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1) {
                if (!(mask & bit))
                        continue;
                if (json_mode) {
                        fputs(first ? "" : ",", f);
                        json_str(f, sbx_guarantee_name(bit));
                } else {
                        fprintf(f, "%s%s", first ? "" : " ", sbx_guarantee_name(bit));
                }
                first = 0;
        }
        if (first && !json_mode)
                fputs("none", f);
}

/* A shell-readable rendering of one argument. */
static void print_shell_word(FILE *f, const char *s)
{
        const char *p;
        int plain = s[0] != '\0';

        for (p = s; *p != '\0'; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || strchr("/-_.:=,+@%", *p) != NULL))
                        plain = 0;
        if (plain) {
                fputs(s, f);
                return;
        }
        fputc('\'', f);
        for (p = s; *p != '\0'; p++) {
                if (*p == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*p, f);
        }
        fputc('\'', f);
}

struct explain {
        const struct opts *o;
        const char *ws;
        int32_t network;                /* sbx_access */
        const char *backend;            /* name, or NULL for none */
        int32_t enforcement;
        uint32_t required, achieved;
        const char *const *argv;        /* the confined argv, or NULL */
        const char *plan_text;
        int limits_known;               /* limits: what a spawn with them got */
        sbx_limits_report limits;
};

/* What each way of enforcing a limit means, for --explain. */
static const char *limit_kind_text(int32_t kind)
{
        switch (kind) {
        case SBX_LIMIT_CGROUP:
                return "one total for the whole process tree";
        case SBX_LIMIT_PER_PROCESS:
                return "RLIMIT_AS, each process on its own: N processes may use N times it";
        case SBX_LIMIT_PER_USER:
                return "RLIMIT_NPROC, the kernel's count of the user's processes";
        default:
                return "not applied";
        }
}

/* One limit: "memory-limit: 1048576 bytes, cgroup (...)" or JSON. */
static void print_limit(FILE *f, const char *name, uint64_t asked, const char *unit,
                        const struct explain *x, int32_t kind)
{
        if (json_mode) {
                fprintf(f, "\"%s\":", name);
                if (asked == 0) {
                        fputs("null", f);
                        return;
                }
                fprintf(f, "{\"max\":%" PRIu64 ",\"enforcement\":", asked);
                if (x->limits_known)
                        json_str(f, sbx_limit_kind_name(kind));
                else
                        fputs("null", f);
                fputc('}', f);
                return;
        }
        fprintf(f, "%s-limit: ", name);
        if (asked == 0)
                fputs("none\n", f);
        else if (!x->limits_known)
                fprintf(f, "%" PRIu64 "%s, enforcement unknown (the sandbox could not start)\n",
                        asked, unit);
        else
                fprintf(f, "%" PRIu64 "%s, %s (%s)\n", asked, unit, sbx_limit_kind_name(kind),
                        limit_kind_text(kind));
}

/* The profile's force_workspace, accept_unprotected_git and unix_sockets
 * (text lines, or JSON members after a comma). */
static void print_v2_fields(FILE *f)
{
        sbx_profile_config c = SBX_PROFILE_CONFIG_INIT;
        size_t i, n;

        if (g.profile == NULL || sbx_profile_config_get(g.profile, &c, NULL) != SBX_OK)
                c = (sbx_profile_config) SBX_PROFILE_CONFIG_INIT;
        if (json_mode) {
                fprintf(f, ",\"force_workspace\":%s,\"accept_unprotected_git\":%s,"
                        "\"unix_sockets\":[", c.force_workspace ? "true" : "false",
                        c.accept_unprotected_git ? "true" : "false");
                for (i = 0; i < c.n_unix_sockets; i++) {
                        fputs(i > 0 ? "," : "", f);
                        json_str(f, c.unix_sockets[i]);
                }
                fputs("],\"toolchains\":[", f);
                for (i = 0, n = 0; g.opts != NULL && i < g.opts->n_extra; i++)
                        if (g.opts->extra[i].toolchain) {
                                fputs(n++ > 0 ? "," : "", f);
                                json_str(f, g.opts->extra[i].path);
                        }
                fputc(']', f);
                return;
        }
        fprintf(f, "force-workspace: %s\n", c.force_workspace ? "yes" : "no");
        fprintf(f, "accept-unprotected-git: %s\n", c.accept_unprotected_git ? "yes" : "no");
        if (c.workspace_write == SBX_ACCESS_ALLOW)
                fputs("git: the repositories are read-only: status, diff, log, show, blame and "
                      "grep work; add, commit, checkout, stash, fetch, init and clone do not; "
                      "no new .git or HEAD can be created (docs/git.md)\n", f);
        fputs("env-set:", f);
        for (i = 0; g.opts != NULL && i < g.opts->n_env; i++)
                fprintf(f, " %.*s", (int) strcspn(g.opts->env_set[i], "="), g.opts->env_set[i]);
        fputs(g.opts == NULL || g.opts->n_env == 0 ? " none\n" : " (values not shown)\n", f);
        fputs("toolchains:", f);
        for (i = 0, n = 0; g.opts != NULL && i < g.opts->n_extra; i++)
                if (g.opts->extra[i].toolchain) {
                        fputc(' ', f);
                        print_shell_word(f, g.opts->extra[i].path);
                        n++;
                }
        fputs(n == 0 ? " none\n" : " (read-only; --no-toolchains hides them)\n", f);
        fputs("unix-sockets:", f);
        for (i = 0; i < c.n_unix_sockets; i++) {
                fputc(' ', f);
                print_shell_word(f, c.unix_sockets[i]);
        }
        fputs(c.n_unix_sockets == 0 ? " none\n" : "\n", f);
}

static void print_explain(const struct explain *x)
{
        FILE *f = stdout;
        const char *line, *nl;
        size_t i;

        if (json_mode) {
                fputs("{\"mode\":", f);
                json_str(f, sbx_mode_name(x->o->mode));
                fputs(",\"workspace\":", f);
                json_str(f, x->ws);
                fputs(",\"network\":", f);
                json_str(f, sbx_access_name(x->network));
                print_v2_fields(f);
                fputs(",\"backend\":", f);
                if (x->backend != NULL)
                        json_str(f, x->backend);
                else
                        fputs("null", f);
                fputs(",\"enforcement\":", f);
                json_str(f, enforcement_name(x->enforcement));
                fputs(",\"required\":[", f);
                print_guarantees(f, x->required);
                fputs("],\"achieved\":[", f);
                print_guarantees(f, x->achieved);
                fputs("],\"argv\":", f);
                if (x->argv != NULL) {
                        fputc('[', f);
                        for (i = 0; x->argv[i] != NULL; i++) {
                                fputs(i > 0 ? "," : "", f);
                                json_str(f, x->argv[i]);
                        }
                        fputc(']', f);
                } else {
                        fputs("null", f);
                }
                fputs(",\"limits\":{", f);
                print_limit(f, "memory", x->o->memory, "", x, x->limits.memory_kind);
                fputc(',', f);
                print_limit(f, "pids", x->o->pids, "", x, x->limits.pids_kind);
                fprintf(f, "},\"timeout_ms\":%llu,\"plan\":[", (unsigned long long) x->o->timeout_ms);
                for (line = x->plan_text, i = 0; line != NULL && *line != '\0'; i++) {
                        char *copy;
                        size_t len;

                        nl = strchr(line, '\n');
                        len = nl != NULL ? (size_t) (nl - line) : strlen(line);
                        copy = strndup(line, len);
                        if (copy == NULL)
                                die(EXIT_FAIL, SBX_E_NOMEM, "no memory");
                        fputs(i > 0 ? "," : "", f);
                        json_str(f, copy);
                        free(copy);
                        line = nl != NULL ? nl + 1 : NULL;
                }
                fputs("]}\n", f);
                fflush(f);
                return;
        }
        fprintf(f, "mode: %s\n", sbx_mode_name(x->o->mode));
        fprintf(f, "workspace: %s\n", x->ws);
        fprintf(f, "network: %s\n", sbx_access_name(x->network));
        print_v2_fields(f);
        fprintf(f, "backend: %s\n", x->backend != NULL ? x->backend
                                    : "none (unconfined: the command runs directly)");
        fprintf(f, "enforcement: %s\n", enforcement_name(x->enforcement));
        fputs("required: ", f);
        print_guarantees(f, x->required);
        fputs("\nachieved: ", f);
        print_guarantees(f, x->achieved);
        fputc('\n', f);
        if (x->argv != NULL) {
                fputs("argv:", f);
                for (i = 0; x->argv[i] != NULL; i++) {
                        fputc(' ', f);
                        print_shell_word(f, x->argv[i]);
                }
                fputc('\n', f);
        }
        print_limit(f, "memory", x->o->memory, " bytes", x, x->limits.memory_kind);
        print_limit(f, "pids", x->o->pids, " processes", x, x->limits.pids_kind);
        if (x->o->timeout_ms > 0)
                fprintf(f, "timeout: %llu ms (the whole tree is killed; exit 124)\n",
                        (unsigned long long) x->o->timeout_ms);
        else
                fputs("timeout: none\n", f);
        fputs("plan:\n", f);
        for (line = x->plan_text; line != NULL && *line != '\0';) {
                nl = strchr(line, '\n');
                fprintf(f, "  %.*s\n", (int) (nl != NULL ? nl - line : (long) strlen(line)), line);
                line = nl != NULL ? nl + 1 : NULL;
        }
        fflush(f);
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
        if (e->code == SBX_E_NOT_FOUND) {
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
        sbx_code r;
        struct stat st;

        /* The stage-2 runner: never returns when argv[1] is --sbx-stage2. */
        r = sbx_init(argc, argv);
        if (r != SBX_OK) {
                say(r, "cannot start sandbox runner: initialisation failed");
                return EXIT_FAIL;
        }

        memset(&o, 0, sizeof(o));
        g.opts = &o;
        if (atexit(release_all) != 0)
                die(EXIT_FAIL, SBX_E_INTERNAL, "atexit failed");
        parse_args(argc, argv, &o);
        cmd = o.command != NULL ? (const char *const *) o.command : probe_argv;
        if (o.mode != SBX_MODE_DANGER_FULL_ACCESS && !o.no_toolchains)
                add_toolchains(&o);
        /* A root that names nothing is a typo more often than a plan. */
        if (!o.allow_missing) {
                size_t k;

                for (k = 0; k < o.n_extra; k++)
                        if (stat(o.extra[k].path, &st) < 0) {
                                say(SBX_E_INVALID, "%s %.200s: %s (--allow-missing accepts a "
                                    "path that does not exist yet)",
                                    o.extra[k].write ? "--allow-write" : "--allow-read",
                                    o.extra[k].path, strerror(errno));
                                exit(EXIT_FAIL);
                        }
        }

        if (o.workspace_arg != NULL) {
                ws = canonical_arg("--workspace", o.workspace_arg);
        } else {
                if (getcwd(cwd, sizeof(cwd)) == NULL)
                        die(EXIT_FAIL, SBX_E_IO, "cannot determine the current directory "
                            "(use --workspace)");
                ws = canonical_arg("workspace", cwd);
        }
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
                if (o.network == SBX_ACCESS_DENY || o.n_extra > 0 || o.backend >= 0 ||
                    o.memory > 0 || o.pids > 0 || o.timeout_ms > 0)
                        die(EXIT_FAIL, SBX_E_INVALID,
                            "danger-full-access runs the command unconfined: --network deny, "
                            "--allow-read/--allow-write, --backend, --memory, --pids and "
                            "--timeout cannot apply");
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
        r = sbx_spawn(plan, cmd, &so, &child, &e);
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
        if (sbx_child_timed_out(child)) {
                /* As timeout(1): the whole tree was killed. */
                say(SBX_E_INVALID, "the command did not finish within --timeout; it was killed");
                return EXIT_TIMED_OUT;
        }
        if (status != 0 && piped) {
                int32_t cls = SBX_DENIAL_NONE;
                char marker[SBX_DENIAL_CLASS_MARKER_MAX];

                if (confined != NULL)
                        check_runner_failure(confined, status, &tail, cmd[0]);
                /* The marker only for what the sandbox denied, naming it. */
                if (sbx_plan_denial(plan, confined != NULL ? sbx_confined_argv_backend(confined)
                                                           : SBX_BACKEND_AUTO,
                                    so.cwd, status, tail.buf, tail.len, &cls, NULL) == SBX_OK &&
                    cls != SBX_DENIAL_NONE &&
                    sbx_denial_class_marker(cls, o.mode, marker, sizeof(marker), NULL) == SBX_OK) {
                        fprintf(stderr, "%s\n", marker);
                        fflush(stderr);
                }
        }
        return status;          /* release_all() runs at exit */
}
