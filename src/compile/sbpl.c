/*
 * sbpl.c - compile a sandboxed plan into a macOS Seatbelt (SBPL) profile.
 *
 * Pure and portable (no OS calls), golden-tested on Linux; the darwin
 * backend only hands the text to the kernel.  docs/seatbelt.md describes
 * the output; the outline:
 *
 *   (version 1) (deny default), a few non-file process basics, the root
 *   directory's own data, then one entry per path -- the plan's rules, the
 *   fixed runtime roots, the per-spawn TMPDIR / HOME and the hidden caller
 *   HOME -- sorted shallow to deep.  SBPL lets the last matching rule win,
 *   so that order gives the plan's "deepest rule decides": an entry allows
 *   what it grants and denies (a carve-out) what an earlier, containing
 *   entry granted.  Then the literal ancestor metadata, then the network.
 *
 * Every path is emitted in its /private and its public spelling together
 * (/tmp <-> /private/tmp, /var <-> /private/var, /etc <-> /private/etc).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/sbpl.h"

#define R SBX__FS_READ
#define W SBX__FS_WRITE
#define X SBX__FS_EXEC

/* Sorted by path; docs/seatbelt.md explains each one. */
const struct sbx__sbpl_root sbx__sbpl_runtime_default[] = {
        { "/Library/Apple", R | X, SBX__FS_TREE },
        { "/Library/Developer/CommandLineTools", R | X, SBX__FS_TREE },
        { "/System/Cryptexes", R | X, SBX__FS_TREE },
        { "/System/Library", R | X, SBX__FS_TREE },
        { "/System/Volumes/Preboot/Cryptexes", R | X, SBX__FS_TREE },
        { "/bin", R | X, SBX__FS_TREE },
        { "/dev/null", R | W, SBX__FS_EXACT },
        { "/dev/random", R, SBX__FS_EXACT },
        { "/dev/tty", R | W, SBX__FS_EXACT },
        { "/dev/urandom", R, SBX__FS_EXACT },
        { "/dev/zero", R | W, SBX__FS_EXACT },
        { "/private/etc/localtime", R, SBX__FS_EXACT },
        { "/private/etc/ssl", R, SBX__FS_TREE },
        { "/private/var/db/dyld", R, SBX__FS_TREE },
        { "/private/var/db/timezone", R, SBX__FS_TREE },
        { "/private/var/select/sh", R, SBX__FS_EXACT },
        { "/sbin", R | X, SBX__FS_TREE },
        { "/usr", R | X, SBX__FS_TREE },
};
const size_t sbx__sbpl_n_runtime_default = SBX__ARRAY_SIZE(sbx__sbpl_runtime_default);

/* ------------------------------------------------------------ quoting */

/*
 * 1 if every byte of s can sit inside an SBPL string literal as itself or
 * behind a backslash: no byte below 0x20, no 0x7F, and the bytes >= 0x80
 * form valid UTF-8 (shortest form, no surrogates, <= U+10FFFF).
 */
static int bytes_ok(const char *str)
{
        const unsigned char *s = (const unsigned char *) str;
        size_t n = strlen(str), i = 0, len;
        uint32_t cp;

        while (i < n) {
                len = sbx__utf8_decode(s + i, n - i, &cp);
                if (len == 0 || cp < 0x20 || cp == 0x7f)
                        return 0;
                i += len;
        }
        return 1;
}

/* Append the literal; the caller has checked bytes_ok. */
static void sb_quote(struct sbx__buf *s, const char *p)
{
        const char *run = p;

        sbx__buf_add(s, "\"", 1);
        for (; *p != '\0'; p++) {
                if (*p == '"' || *p == '\\') {
                        sbx__buf_add(s, run, (size_t) (p - run));
                        sbx__buf_add(s, "\\", 1);
                        run = p;        /* the quote or backslash itself follows */
                }
        }
        sbx__buf_add(s, run, (size_t) (p - run));
        sbx__buf_add(s, "\"", 1);
}

int sbx__sbpl_quote(const char *path, char **out)
{
        struct sbx__buf s = { NULL, 0, 0, 0 };

        if (path == NULL || out == NULL || !bytes_ok(path))
                return -EINVAL;
        sb_quote(&s, path);
        if (s.oom) {
                free(s.b);
                return -ENOMEM;
        }
        *out = s.b;
        return 0;
}

/* 1 if path is absolute, lexically clean and quotable. */
static int path_ok(const char *path)
{
        char buf[SBX_PATH_MAX];

        if (path == NULL || path[0] != '/' || !bytes_ok(path))
                return 0;
        if (sbx__path_clean(path, 0, buf, sizeof(buf)) != SBX_OK)
                return 0;
        return strcmp(buf, path) == 0;
}

/* A path for an error message: at most 96 bytes, controls as '?'. */
static const char *shown(const char *path, char *buf, size_t size)
{
        size_t i;

        if (path == NULL)
                return "(null)";
        for (i = 0; path[i] != '\0' && i + 1 < size; i++)
                buf[i] = ((unsigned char) path[i] < 0x20 || path[i] == 0x7f) ? '?' : path[i];
        buf[i] = '\0';
        return buf;
}

/* --------------------------------------------------- /private spellings */

static const char *const private_dirs[] = { "/etc", "/tmp", "/var" };
#define PRIVATE "/private"
#define PRIVATE_LEN (sizeof(PRIVATE) - 1)

/* 1 if path is `dir` or below it. */
static int at_or_under(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        if (strcmp(dir, "/") == 0)
                return 1;
        return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * The other spelling of path, malloc'd into *out, or *out = NULL when it
 * has none.  -ENOMEM.
 */
static int twin_of(const char *path, char **out)
{
        size_t i;

        *out = NULL;
        for (i = 0; i < SBX__ARRAY_SIZE(private_dirs); i++) {
                const char *d = private_dirs[i];

                if (at_or_under(path, d)) {
                        size_t n = strlen(path);

                        if ((*out = malloc(PRIVATE_LEN + n + 1)) == NULL)
                                return -ENOMEM;
                        memcpy(*out, PRIVATE, PRIVATE_LEN);
                        memcpy(*out + PRIVATE_LEN, path, n + 1);
                        return 0;
                }
                if (strncmp(path, PRIVATE, PRIVATE_LEN) == 0 &&
                    at_or_under(path + PRIVATE_LEN, d)) {
                        if ((*out = sbx__strdup(path + PRIVATE_LEN)) == NULL)
                                return -ENOMEM;
                        return 0;
                }
        }
        return 0;
}

/* ------------------------------------------------------------ entries */

/* Kinds, also the order of entries that share a path: the hidden caller
 * HOME first, so a configured root at the same path overrides it; the
 * per-spawn directories last, so nothing closes them. */
#define K_HOME_DENY 0
#define K_PLAN      1
#define K_RUNTIME   2
#define K_SCRATCH   3

struct entry {
        const char *path;       /* as given */
        char       *twin;       /* other spelling or NULL (owned) */
        const char *norm;       /* the /private spelling: path or twin */
        uint32_t    access;
        int32_t     scope;
        int         kind;
        uint32_t    origin;     /* plan rules only */
        size_t      seq;        /* input order, the last tie-break */
};

static int entry_cmp(const void *a, const void *b)
{
        const struct entry *x = a, *y = b;
        int c = strcmp(x->norm, y->norm);

        if (c != 0)
                return c;
        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static int str_cmp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* 1 if an SBPL filter of `outer` matches the path of `inner`. */
static int covers(const struct entry *outer, const struct entry *inner)
{
        if (strcmp(outer->norm, inner->norm) == 0)
                return 1;
        return outer->scope == SBX__FS_TREE && at_or_under(inner->norm, outer->norm);
}

static void emit_filters(struct sbx__buf *s, const struct entry *e)
{
        const char *kw = e->scope == SBX__FS_TREE ? " (subpath " : " (literal ";

        sbx__buf_adds(s, kw);
        sb_quote(s, e->path);
        sbx__buf_adds(s, ")");
        if (e->twin != NULL) {
                sbx__buf_adds(s, kw);
                sb_quote(s, e->twin);
                sbx__buf_adds(s, ")");
        }
}

/* "(allow|deny OPS FILTERS)\n" for the access bits `bits` of e. */
static void emit_rule(struct sbx__buf *s, const char *verb, uint32_t bits, const struct entry *e)
{
        sbx__buf_adds(s, "(");
        sbx__buf_adds(s, verb);
        if (bits & R)
                sbx__buf_adds(s, " file-read*");
        if (bits & W)
                /* A runtime device node is written, never created,
                 * unlinked or renamed. */
                sbx__buf_adds(s, (e->kind == K_RUNTIME && e->scope == SBX__FS_EXACT) ?
                                   " file-write-data" : " file-write*");
        if (bits & X)
                sbx__buf_adds(s, " process-exec");
        emit_filters(s, e);
        sbx__buf_adds(s, ")\n");
}

struct build {
        struct entry *v;
        size_t        n, cap;
        char        **anc;       /* ancestor spellings (owned) */
        size_t        n_anc, cap_anc;
};

static int push_entry(struct build *b, const char *path, uint32_t access, int32_t scope,
                      int kind, uint32_t origin)
{
        struct entry *e;
        int r;

        if (b->n == b->cap) {
                size_t cap = b->cap ? 2 * b->cap : 32;
                struct entry *nv = realloc(b->v, cap * sizeof(*nv));

                if (nv == NULL)
                        return -ENOMEM;
                b->v = nv;
                b->cap = cap;
        }
        e = &b->v[b->n];
        e->path = path;
        if ((r = twin_of(path, &e->twin)) < 0)
                return r;
        e->norm = (e->twin != NULL && strncmp(e->twin, PRIVATE "/", PRIVATE_LEN + 1) == 0) ?
                          e->twin : path;
        e->access = access;
        e->scope = scope;
        e->kind = kind;
        e->origin = origin;
        e->seq = b->n;
        b->n++;
        return 0;
}

static int push_anc(struct build *b, const char *p, size_t len)
{
        char *c;

        if (b->n_anc == b->cap_anc) {
                size_t cap = b->cap_anc ? 2 * b->cap_anc : 64;
                char **nv = realloc(b->anc, cap * sizeof(*nv));

                if (nv == NULL)
                        return -ENOMEM;
                b->anc = nv;
                b->cap_anc = cap;
        }
        if ((c = malloc(len + 1)) == NULL)
                return -ENOMEM;
        memcpy(c, p, len);
        c[len] = '\0';
        b->anc[b->n_anc++] = c;
        return 0;
}

/* Every strict ancestor of path except "/". */
static int push_ancestors(struct build *b, const char *path)
{
        size_t i;
        int r;

        for (i = 1; path[i] != '\0'; i++)
                if (path[i] == '/' && (r = push_anc(b, path, i)) < 0)
                        return r;
        return 0;
}

static void build_free(struct build *b)
{
        size_t i;

        for (i = 0; i < b->n; i++)
                free(b->v[i].twin);
        for (i = 0; i < b->n_anc; i++)
                free(b->anc[i]);
        free(b->v);
        free(b->anc);
}

/* ------------------------------------------------------------ compile */

static sbx_code check_opts(const char *fn, const struct sbx_plan *plan,
                           const struct sbx__sbpl_opts *opts, sbx_error *err)
{
        char sh[96];
        size_t i;

        if (plan->tmpdir == SBX__ENV_DIR_SCRATCH && !path_ok(opts->tmpdir))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: opts->tmpdir \"%s\" must be an absolute, clean path of "
                                 "valid UTF-8 without control bytes", fn,
                                 shown(opts->tmpdir, sh, sizeof(sh)));
        if (plan->home == SBX__ENV_DIR_SCRATCH) {
                if (!path_ok(opts->scratch_home))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: opts->scratch_home \"%s\" must be an absolute, "
                                         "clean path of valid UTF-8 without control bytes "
                                         "(the plan isolates HOME)", fn,
                                         shown(opts->scratch_home, sh, sizeof(sh)));
                if (opts->caller_home != NULL && !path_ok(opts->caller_home))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: opts->caller_home \"%s\" cannot be hidden: it is "
                                         "not an absolute, clean path of valid UTF-8 without "
                                         "control bytes", fn,
                                         shown(opts->caller_home, sh, sizeof(sh)));
        }
        if (opts->proxy_port > 65535)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: opts->proxy_port %u is not a port",
                                 fn, (unsigned) opts->proxy_port);
        if (opts->proxy_port != 0 && plan->network != SBX__NET_DENY_UNLESS_GRANT)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: a loopback proxy port needs a Gated network "
                                 "(deny-unless-grant); this plan's network is %s", fn,
                                 plan->network == SBX__NET_ALLOW ? "allow" : "deny");
        if (opts->runtime == NULL && opts->n_runtime != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: opts->runtime is NULL", fn);
        for (i = 0; i < opts->n_runtime; i++) {
                const struct sbx__sbpl_root *rt = &opts->runtime[i];

                if (!path_ok(rt->path) || rt->access == 0 || (rt->access & ~(R | W | X)) != 0 ||
                    (rt->scope != SBX__FS_EXACT && rt->scope != SBX__FS_TREE))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: opts->runtime[%zu] (\"%s\") is malformed", fn, i,
                                         shown(rt->path, sh, sizeof(sh)));
        }
        return SBX_OK;
}

/* The entries of plan and opts, unsorted.  -ENOMEM. */
static int collect(struct build *b, const struct sbx_plan *plan,
                   const struct sbx__sbpl_opts *opts)
{
        size_t i, k;
        int r;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *rule = &plan->rules[i];

                /* The plan's runtime rules are Linux spellings (/lib64,
                 * /etc/ld.so.cache); opts->runtime replaces them. */
                if (rule->origin == SBX__ORIGIN_RUNTIME)
                        continue;
                if ((r = push_entry(b, rule->path, rule->access, rule->scope, K_PLAN,
                                    rule->origin)) < 0)
                        return r;
        }
        for (i = 0; i < opts->n_runtime; i++) {
                const struct sbx__sbpl_root *rt = &opts->runtime[i];
                int replaced = 0;

                if ((r = push_entry(b, rt->path, rt->access, rt->scope, K_RUNTIME, 0)) < 0)
                        return r;
                /* A configured root at the same path replaces the runtime
                 * root: configuration is never widened by a necessity. */
                for (k = 0; k + 1 < b->n && !replaced; k++)
                        replaced = b->v[k].kind == K_PLAN &&
                                   strcmp(b->v[k].norm, b->v[b->n - 1].norm) == 0;
                if (replaced) {
                        free(b->v[b->n - 1].twin);
                        b->n--;
                }
        }
        if (plan->home == SBX__ENV_DIR_SCRATCH) {
                if (opts->caller_home != NULL && strcmp(opts->caller_home, "/") != 0 &&
                    (r = push_entry(b, opts->caller_home, 0, SBX__FS_TREE, K_HOME_DENY, 0)) < 0)
                        return r;
                if ((r = push_entry(b, opts->scratch_home, R | W | X, SBX__FS_TREE, K_SCRATCH,
                                    0)) < 0)
                        return r;
        }
        if (plan->tmpdir == SBX__ENV_DIR_SCRATCH &&
            (r = push_entry(b, opts->tmpdir, R | W | X, SBX__FS_TREE, K_SCRATCH, 0)) < 0)
                return r;
        return 0;
}

static void emit_head(struct sbx__buf *s)
{
        sbx__buf_adds(s, "(version 1)\n");
        sbx__buf_adds(s, ";; libsandbox SBPL v1, compiled from a plan (docs/seatbelt.md)\n");
        sbx__buf_adds(s, "(deny default)\n");
        sbx__buf_adds(s, ";; process basics: no file, exec or network authority\n");
        sbx__buf_adds(s, "(allow process-fork)\n");
        sbx__buf_adds(s, "(allow signal (target same-sandbox))\n");
        sbx__buf_adds(s, "(allow process-info* (target same-sandbox))\n");
        sbx__buf_adds(s, "(allow sysctl-read)\n");
        sbx__buf_adds(s, ";; the root directory itself (its listing), nothing below it\n");
        sbx__buf_adds(s, "(allow file-read-data file-read-metadata (literal \"/\"))\n");
}

/* The listed host sockets (--allow-unix), each in both spellings; the
 * caller checked path_ok. */
static void emit_unix_sockets(struct sbx__buf *s, const struct sbx_plan *plan)
{
        size_t i;

        if (plan->n_unix_sockets == 0)
                return;
        sbx__buf_adds(s, ";; host unix sockets the command may connect to\n");
        sbx__buf_adds(s, "(allow network-outbound");
        for (i = 0; i < plan->n_unix_sockets; i++) {
                char *twin = NULL;

                sbx__buf_adds(s, "\n    (remote unix-socket (path-literal ");
                sb_quote(s, plan->unix_sockets[i]);
                sbx__buf_adds(s, "))");
                if (twin_of(plan->unix_sockets[i], &twin) < 0) {
                        s->oom = 1;
                } else if (twin != NULL) {
                        sbx__buf_adds(s, "\n    (remote unix-socket (path-literal ");
                        sb_quote(s, twin);
                        sbx__buf_adds(s, "))");
                        free(twin);
                }
        }
        sbx__buf_adds(s, ")\n");
}

static void emit_network(struct sbx__buf *s, const struct sbx_plan *plan,
                         const struct sbx__sbpl_opts *opts)
{
        char line[96];

        if (plan->network == SBX__NET_ALLOW) {
                sbx__buf_adds(s, ";; network: the host network, but no host unix socket\n");
                sbx__buf_adds(s, "(allow network*)\n");
                sbx__buf_adds(s, "(deny network-outbound (remote unix-socket))\n");
        } else if (opts->proxy_port != 0) {
                sbx__buf_adds(s, ";; network: only the loopback proxy listener\n");
                (void) snprintf(line, sizeof(line),
                                "(allow network-outbound (remote ip \"localhost:%u\"))\n",
                                (unsigned) opts->proxy_port);
                sbx__buf_adds(s, line);
        } else {
                sbx__buf_adds(s, ";; network: none\n");
        }
        emit_unix_sockets(s, plan);
}

sbx_code sbx__sbpl_compile(const struct sbx_plan *plan, const struct sbx__sbpl_opts *opts,
                           char **text_out, sbx_error *err)
{
        const char *fn = "sbx__sbpl_compile";
        struct build b = { NULL, 0, 0, NULL, 0, 0 };
        struct sbx__buf s = { NULL, 0, 0, 0 };
        sbx_code c;
        size_t i, j;
        char sh[96];
        int r;

        if (plan == NULL || opts == NULL || text_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan, opts and text_out must not "
                                 "be NULL", fn);
        if (plan->direct)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: a direct (unconfined) plan has no boundary to compile", fn);
        if ((c = check_opts(fn, plan, opts, err)) != SBX_OK)
                return c;
        for (i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin != SBX__ORIGIN_RUNTIME && !path_ok(plan->rules[i].path))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: the plan path \"%s\" cannot be quoted safely in "
                                         "SBPL (a control byte or invalid UTF-8); it is refused, "
                                         "never emitted raw", fn,
                                         shown(plan->rules[i].path, sh, sizeof(sh)));
        for (i = 0; i < plan->n_unix_sockets; i++)
                if (!path_ok(plan->unix_sockets[i]))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: the unix socket \"%s\" cannot be quoted safely "
                                         "in SBPL; it is refused, never emitted raw", fn,
                                         shown(plan->unix_sockets[i], sh, sizeof(sh)));

        if ((r = collect(&b, plan, opts)) < 0)
                goto oom;
        qsort(b.v, b.n, sizeof(*b.v), entry_cmp);

        emit_head(&s);
        sbx__buf_adds(&s, ";; filesystem, shallow to deep: the last matching rule wins\n");
        for (i = 0; i < b.n; i++) {
                const struct entry *e = &b.v[i];
                uint32_t deny = 0;

                if (e->access != 0)
                        emit_rule(&s, "allow", e->access, e);
                /* Runtime roots only add; everything else closes what a
                 * containing entry before it opened. */
                if (e->kind != K_RUNTIME)
                        for (j = 0; j < i; j++)
                                if (covers(&b.v[j], e))
                                        deny |= b.v[j].access & ~e->access;
                if (deny != 0)
                        emit_rule(&s, "deny", deny, e);
                if (e->access != 0 && !(e->kind == K_PLAN && e->origin == SBX__ORIGIN_PROTECTED)) {
                        if ((r = push_ancestors(&b, e->path)) < 0 ||
                            (e->twin != NULL && (r = push_ancestors(&b, e->twin)) < 0))
                                goto oom;
                }
        }
        if (b.n_anc > 0) {
                qsort(b.anc, b.n_anc, sizeof(*b.anc), str_cmp);
                sbx__buf_adds(&s, ";; literal ancestor metadata of the roots (stat only, no listing)\n");
                sbx__buf_adds(&s, "(allow file-read-metadata");
                for (i = 0; i < b.n_anc; i++) {
                        if (i > 0 && strcmp(b.anc[i], b.anc[i - 1]) == 0)
                                continue;
                        sbx__buf_adds(&s, "\n    (literal ");
                        sb_quote(&s, b.anc[i]);
                        sbx__buf_adds(&s, ")");
                }
                sbx__buf_adds(&s, ")\n");
        }
        emit_network(&s, plan, opts);
        if (s.oom)
                goto oom;
        build_free(&b);
        *text_out = s.b;
        return SBX_OK;
oom:
        build_free(&b);
        free(s.b);
        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
}
