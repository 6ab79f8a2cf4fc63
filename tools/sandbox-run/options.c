/*
 * options.c - sandbox-run's command line, parsed with getopt_long(3).
 *
 * Options end at "--" or at the first argument that is not an option
 * ("+" in the option string: the command's own options are never taken).
 * getopt_long's own messages are off (opterr = 0): every mistake is one
 * line of sandbox-run's (JSON with --json) and exit status 125 -- an
 * unknown or ambiguous option, a missing value, a value for an option
 * that takes none, a bad value (with the valid ones), and a single-valued
 * option given twice (never "the last one wins").  Long options may be
 * abbreviated to a unique prefix, as getopt_long allows.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

enum {
        OPT_MODE = 256, OPT_WORKSPACE, OPT_NETWORK, OPT_ALLOW_READ, OPT_ALLOW_WRITE,
        OPT_ALLOW_UNIX, OPT_BACKEND, OPT_MEMORY, OPT_PIDS, OPT_TIMEOUT, OPT_CWD, OPT_ENV,
        OPT_ENV_FILE, OPT_EXPLAIN, OPT_JSON, OPT_ALLOW_MISSING, OPT_NO_TOOLCHAINS,
        OPT_FORCE_WORKSPACE, OPT_ACCEPT_UNPROTECTED_GIT, OPT_POLICY, OPT_NO_POLICY,
        OPT_VERSION, OPT_ALLOW_HOST, OPT_UPSTREAM_PROXY, OPT_OBSERVE_READS
};

static const struct option long_opts[] = {
        { "mode", required_argument, NULL, OPT_MODE },
        { "workspace", required_argument, NULL, OPT_WORKSPACE },
        { "network", required_argument, NULL, OPT_NETWORK },
        { "allow-read", required_argument, NULL, OPT_ALLOW_READ },
        { "allow-write", required_argument, NULL, OPT_ALLOW_WRITE },
        { "allow-unix", required_argument, NULL, OPT_ALLOW_UNIX },
        { "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
        { "upstream-proxy", required_argument, NULL, OPT_UPSTREAM_PROXY },
        { "backend", required_argument, NULL, OPT_BACKEND },
        { "memory", required_argument, NULL, OPT_MEMORY },
        { "pids", required_argument, NULL, OPT_PIDS },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "cwd", required_argument, NULL, OPT_CWD },
        { "env", required_argument, NULL, OPT_ENV },
        { "env-file", required_argument, NULL, OPT_ENV_FILE },
        { "policy", required_argument, NULL, OPT_POLICY },
        { "no-policy", no_argument, NULL, OPT_NO_POLICY },
        { "explain", no_argument, NULL, OPT_EXPLAIN },
        { "json", no_argument, NULL, OPT_JSON },
        { "allow-missing", no_argument, NULL, OPT_ALLOW_MISSING },
        { "no-toolchains", no_argument, NULL, OPT_NO_TOOLCHAINS },
        { "observe-reads", no_argument, NULL, OPT_OBSERVE_READS },
        { "force-workspace", no_argument, NULL, OPT_FORCE_WORKSPACE },
        { "accept-unprotected-git", no_argument, NULL, OPT_ACCEPT_UNPROTECTED_GIT },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, OPT_VERSION },
        { NULL, 0, NULL, 0 },
};

/* "+": stop at the first non-option; ":": a missing value is ':'. */
#define SHORT_OPTS "+:h"

/* The single-valued options and their SEEN_ bits. */
static const struct { int opt; unsigned bit; } once[] = {
        { OPT_MODE, SEEN_MODE }, { OPT_WORKSPACE, SEEN_WORKSPACE },
        { OPT_NETWORK, SEEN_NETWORK }, { OPT_BACKEND, SEEN_BACKEND },
        { OPT_MEMORY, SEEN_MEMORY }, { OPT_PIDS, SEEN_PIDS }, { OPT_TIMEOUT, SEEN_TIMEOUT },
        { OPT_CWD, SEEN_CWD }, { OPT_POLICY, SEEN_POLICY },
        { OPT_UPSTREAM_PROXY, SEEN_UPSTREAM },
};

/* What a bad value of each checked option should have been. */
static const struct { int opt; const char *valid; } valid_values[] = {
        { OPT_MODE, "read-only, workspace-write, danger-full-access" },
        { OPT_NETWORK, "deny, allow" },
        { OPT_BACKEND, "auto, native, landlock, bwrap" },
        { OPT_MEMORY, "a size in bytes, with K, M, G or T" },
        { OPT_PIDS, "a positive number" },
        { OPT_TIMEOUT, "seconds, more than 0 (2, 0.5)" },
};

static void usage(FILE *f)
{
        fputs("usage: sandbox-run [--mode read-only|workspace-write|danger-full-access]\n"
              "                   [--workspace DIR] [--network deny|allow]\n"
              "                   [--allow-read PATH]... [--allow-write PATH]...\n"
              "                   [--backend auto|native|landlock|bwrap]\n"
              "                   [--memory BYTES] [--pids N] [--timeout SECONDS] [--cwd DIR]\n"
              "                   [--env NAME[=VALUE]]... [--env-file FILE]...\n"
              "                   [--policy FILE | --no-policy]\n"
              "                   [--explain] [--json] [--observe-reads] [--allow-missing]\n"
              "                   [--no-toolchains]\n"
              "                   [--force-workspace] [--accept-unprotected-git]\n"
              "                   [--allow-unix PATH]... [--allow-host HOST[:PORT]]...\n"
              "                   [--upstream-proxy HOST:PORT]\n"
              "                   -- CMD [ARGS...]\n", f);
}

/* "--mode" for OPT_MODE. */
static const char *opt_name(int opt, char *buf, size_t sz)
{
        size_t i;

        for (i = 0; long_opts[i].name != NULL; i++)
                if (long_opts[i].val == opt) {
                        (void) snprintf(buf, sz, "--%s", long_opts[i].name);
                        return buf;
                }
        (void) snprintf(buf, sz, "-%c", opt);
        return buf;
}

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

/* --memory: the library's size grammar (sbx_size_parse); --pids: the same
 * without a suffix. */
static int parse_size(const char *s, uint64_t *out, int suffixes)
{
        if (!suffixes && s[strspn(s, "0123456789")] != '\0')
                return -1;
        return sbx_size_parse(s, out, NULL) == SBX_OK ? 0 : -1;
}

char *canonical_arg(const char *what, const char *arg)
{
        char cwd[SBX_PATH_MAX], buf[2 * SBX_PATH_MAX];
        sbx_error e = { 0, 0, { 0 } };
        char *out = NULL;

        if (arg[0] == '\0') {
                say(SBX_E_INVALID, "%s: an empty path is not a path", what);
                exit(EXIT_FAIL);
        }
        if (arg[0] != '/') {
                if (getcwd(cwd, sizeof(cwd)) == NULL)
                        die(EXIT_FAIL, SBX_E_IO, "cannot determine the current directory");
                if ((size_t) snprintf(buf, sizeof(buf), "%s/%s", cwd, arg) >= sizeof(buf))
                        die(EXIT_FAIL, SBX_E_RANGE, "path too long");
                arg = buf;
        }
        if (sbx_path_canonical(arg, &out, &e) != SBX_OK) {
                /* The library's message names its function first; ours
                 * names the option instead. */
                const char *m = strncmp(e.message, "sbx_path_canonical: ", 20) == 0
                                ? e.message + 20 : e.message;

                say(e.code, "%s %s: %s", what, arg, m);
                exit(EXIT_FAIL);
        }
        return out;
}

void add_extra(struct opts *o, char *path, int write, const struct origin *from)
{
        size_t i;

        for (i = 0; i < o->n_extra; i++) {
                if (strcmp(o->extra[i].path, path) == 0) {
                        if (write && !o->extra[i].write)
                                o->extra[i].from = *from;
                        o->extra[i].write |= write;
                        o->extra[i].toolchain = 0;
                        o->extra[i].flagged |= from->flag != NULL;
                        sbx_free(path);
                        return;
                }
        }
        if (o->n_extra == MAX_EXTRA) {
                sbx_free(path);
                die(EXIT_FAIL, SBX_E_RANGE, "too many --allow-read/--allow-write paths");
        }
        o->extra[o->n_extra].path = path;
        o->extra[o->n_extra].write = write;
        o->extra[o->n_extra].toolchain = 0;
        o->extra[o->n_extra].flagged = from->flag != NULL;
        o->extra[o->n_extra].from = *from;
        o->n_extra++;
}

void add_env(struct opts *o, const char *arg, const char *where, const struct origin *from)
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
                        if (from->flag == NULL && o->env_from[i].flag != NULL) {
                                free(entry);    /* a flag wins over a file */
                                return;
                        }
                        free(o->env_set[i]);
                        o->env_set[i] = entry;
                        o->env_from[i] = *from;
                        return;
                }
        if (o->n_env == MAX_ENV) {
                free(entry);
                die(EXIT_FAIL, SBX_E_RANGE, "too many --env values (at most 256)");
        }
        o->env_from[o->n_env] = *from;
        o->env_set[o->n_env++] = entry;
}

/* --env-file FILE: NAME=VALUE lines; blank lines and # comments skipped. */
static void add_env_file(struct opts *o, const char *path)
{
        static const struct origin flag = { "--env-file", NULL, 0 };
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
                add_env(o, p, where, &flag);
        }
        fclose(fp);
}

void add_unix(struct opts *o, char *path, const struct origin *from)
{
        size_t i;

        for (i = 0; i < o->n_unix; i++) {
                if (strcmp(o->unix_sockets[i], path) == 0) {
                        sbx_free(path);
                        return;
                }
        }
        if (o->n_unix == MAX_UNIX) {
                sbx_free(path);
                die(EXIT_FAIL, SBX_E_RANGE, "too many --allow-unix paths (at most 64)");
        }
        o->unix_from[o->n_unix] = *from;
        o->unix_sockets[o->n_unix++] = path;
}

/* An --allow-host entry (checked when the profile is built: the one
 * allowlist grammar, docs/network.md); a repeat is dropped. */
void add_host(struct opts *o, const char *host, const struct origin *from)
{
        size_t i;

        for (i = 0; i < o->n_hosts; i++)
                if (strcmp(o->allow_hosts[i], host) == 0)
                        return;
        if (o->n_hosts == MAX_HOSTS)
                die(EXIT_FAIL, SBX_E_RANGE, "too many --allow-host entries (at most 256)");
        o->host_from[o->n_hosts] = *from;
        o->allow_hosts[o->n_hosts++] = host;
}

/* Exit 125 with the valid values of opt. */
static void bad_value(int opt, const char *val) __attribute__((noreturn));
static void bad_value(int opt, const char *val)
{
        char name[48];
        size_t k;

        for (k = 0; k < sizeof(valid_values) / sizeof(valid_values[0]); k++)
                if (valid_values[k].opt == opt) {
                        say(SBX_E_INVALID, "bad value \"%.200s\" for %s (valid: %s)", val,
                            opt_name(opt, name, sizeof(name)), valid_values[k].valid);
                        exit(EXIT_FAIL);
                }
        say(SBX_E_INVALID, "bad value \"%.200s\" for %s", val, opt_name(opt, name, sizeof(name)));
        exit(EXIT_FAIL);
}

/* What getopt_long refused in arg ("--allow", "--bogus=1", "-x"). */
static void bad_option(const char *arg, int optopt_) __attribute__((noreturn));
static void bad_option(const char *arg, int optopt_)
{
        char name[48], list[256];
        size_t nl, i, o = 0, matches = 0;

        if (optopt_ >= OPT_MODE) {
                say(SBX_E_INVALID, "%s takes no value", opt_name(optopt_, name, sizeof(name)));
                exit(EXIT_FAIL);
        }
        if (optopt_ != 0 || strncmp(arg, "--", 2) != 0) {
                say(SBX_E_INVALID, "unknown option -%c (see --help)",
                    optopt_ != 0 ? optopt_ : arg[1]);
                exit(EXIT_FAIL);
        }
        nl = strcspn(arg + 2, "=");
        list[0] = '\0';
        for (i = 0; long_opts[i].name != NULL; i++)
                if (nl > 0 && strncmp(long_opts[i].name, arg + 2, nl) == 0 &&
                    o + strlen(long_opts[i].name) + 5 < sizeof(list)) {
                        o += (size_t) snprintf(list + o, sizeof(list) - o, "%s--%s",
                                               matches > 0 ? ", " : "", long_opts[i].name);
                        matches++;
                }
        if (matches > 1)
                say(SBX_E_INVALID, "ambiguous option --%.*s (%s)", (int) (nl < 64 ? nl : 64),
                    arg + 2, list);
        else
                say(SBX_E_INVALID, "unknown option --%.*s (see --help)", (int) (nl < 64 ? nl : 64),
                    arg + 2);
        exit(EXIT_FAIL);
}

void parse_args(int argc, char **argv, struct opts *o)
{
        static const struct origin none = { NULL, NULL, 0 };
        struct origin from = none;
        char name[48];
        int c, k;

        o->mode = SBX_MODE_READ_ONLY;
        o->network = -1;
        o->backend = -1;
        opterr = 0;
        /* --json changes how errors look, including option errors: a first
         * pass finds it (mistakes are the second pass's to report). */
        optind = 0;
        while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, NULL)) != -1)
                if (c == OPT_JSON)
                        json_mode = 1;
        optind = 0;             /* glibc: 0 starts a new scan */
        while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, NULL)) != -1) {
                const char *val = optarg;

                if (c == '?')
                        bad_option(argv[optind - 1], optopt);
                if (c == ':') {
                        say(SBX_E_INVALID, "%s needs a value", opt_name(optopt, name,
                                                                        sizeof(name)));
                        exit(EXIT_FAIL);
                }
                for (k = 0; k < (int) (sizeof(once) / sizeof(once[0])); k++) {
                        if (once[k].opt != c)
                                continue;
                        if (o->seen & once[k].bit) {
                                say(SBX_E_INVALID, "%s given twice", opt_name(c, name,
                                                                             sizeof(name)));
                                exit(EXIT_FAIL);
                        }
                        o->seen |= once[k].bit;
                }
                switch (c) {
                case 'h':
                        usage(stdout);
                        exit(0);
                case OPT_VERSION:
                        printf("sandbox-run (libsandbox) %s\n", sbx_version_string());
                        exit(0);
                case OPT_EXPLAIN:
                        o->explain = 1;
                        break;
                case OPT_JSON:
                        o->json = 1;
                        break;
                case OPT_FORCE_WORKSPACE:
                        o->force_workspace = 1;
                        o->seen |= SEEN_FORCE_WORKSPACE;
                        o->force_workspace_from.flag = "--force-workspace";
                        break;
                case OPT_ACCEPT_UNPROTECTED_GIT:
                        o->accept_unprotected_git = 1;
                        o->seen |= SEEN_ACCEPT_UNPROTECTED_GIT;
                        o->accept_unprotected_git_from.flag = "--accept-unprotected-git";
                        break;
                case OPT_ALLOW_MISSING:
                        o->allow_missing = 1;
                        break;
                case OPT_NO_TOOLCHAINS:
                        o->no_toolchains = 1;
                        break;
                case OPT_OBSERVE_READS:
                        o->observe_reads = 1;
                        break;
                case OPT_NO_POLICY:
                        o->no_policy = 1;
                        break;
                case OPT_POLICY:
                        o->policy_arg = val;
                        break;
                case OPT_MODE:
                        if (sbx_mode_parse(val, &o->mode, NULL) != SBX_OK)
                                bad_value(c, val);
                        o->mode_from.flag = "--mode";
                        break;
                case OPT_WORKSPACE:
                        o->workspace_arg = val;
                        o->workspace_from.flag = "--workspace";
                        break;
                case OPT_NETWORK:
                        if (strcmp(val, "deny") == 0)
                                o->network = SBX_ACCESS_DENY;
                        else if (strcmp(val, "allow") == 0)
                                o->network = SBX_ACCESS_ALLOW;
                        else
                                bad_value(c, val);
                        o->network_from.flag = "--network";
                        break;
                case OPT_ALLOW_READ:
                case OPT_ALLOW_WRITE:
                        from.flag = c == OPT_ALLOW_WRITE ? "--allow-write" : "--allow-read";
                        add_extra(o, canonical_arg(from.flag, val), c == OPT_ALLOW_WRITE, &from);
                        break;
                case OPT_ALLOW_UNIX:
                        from.flag = "--allow-unix";
                        add_unix(o, canonical_arg("--allow-unix", val), &from);
                        break;
                case OPT_UPSTREAM_PROXY:
                        o->upstream = val;
                        break;
                case OPT_ALLOW_HOST:
                        from.flag = "--allow-host";
                        add_host(o, val, &from);
                        break;
                case OPT_BACKEND:
                        /* This CLI runs the Linux backends (the Windows one
                         * has its own, tools/sandbox-run/windows/). */
                        if (sbx_backend_parse(val, &o->backend, NULL) != SBX_OK ||
                            o->backend == SBX_BACKEND_UNAVAILABLE ||
                            o->backend == SBX_BACKEND_SEATBELT ||
                            o->backend == SBX_BACKEND_WINDOWS)
                                bad_value(c, val);
                        o->backend_from.flag = "--backend";
                        break;
                case OPT_MEMORY:
                        if (parse_size(val, &o->memory, 1) < 0)
                                bad_value(c, val);
                        o->memory_from.flag = "--memory";
                        break;
                case OPT_PIDS:
                        if (parse_size(val, &o->pids, 0) < 0)
                                bad_value(c, val);
                        o->pids_from.flag = "--pids";
                        break;
                case OPT_TIMEOUT:
                        if (parse_seconds(val, &o->timeout_ms) < 0)
                                bad_value(c, val);
                        o->timeout_from.flag = "--timeout";
                        break;
                case OPT_CWD:
                        o->cwd_arg = val;
                        break;
                case OPT_ENV:
                        from.flag = "--env";
                        add_env(o, val, "--env", &from);
                        break;
                case OPT_ENV_FILE:
                        add_env_file(o, val);
                        break;
                default:
                        bad_option(argv[optind - 1], 0);
                }
        }
        if (o->policy_arg != NULL && o->no_policy)
                die(EXIT_FAIL, SBX_E_INVALID, "--policy and --no-policy contradict each other: "
                    "give one");
        if (optind >= argc || argv[optind][0] == '\0') {
                if (!o->explain) {
                        say(SBX_E_INVALID, "no command given (usage: sandbox-run [OPTIONS] -- "
                            "CMD [ARGS...])");
                        exit(EXIT_FAIL);
                }
                o->command = NULL;
                return;
        }
        o->command = argv + optind;
}
