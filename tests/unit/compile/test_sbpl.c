/*
 * test_sbpl.c - the Seatbelt profile compiler (compile/sbpl.c).
 *
 * Golden files: tests/unit/compile/golden/sbpl/<name>.sb, one per mode x
 * home x network x extra-roots combination plus a few more.  The output
 * must match byte for byte; SBX_UPDATE_GOLDEN=1 rewrites them (then review
 * the diff).  A golden file no case produces is an error too.
 *
 * Every generated profile also goes through a small S-expression reader
 * (below) that checks it is balanced, that every string literal uses only
 * the \" and \\ escapes and no raw control byte, and that paths round-trip:
 * the decoded literal of a (subpath ...) or (literal ...) filter is the
 * original path, for paths with quotes, backslashes, parentheses and
 * non-ASCII.  Paths with control bytes or invalid UTF-8 are refused.
 *
 * Roots live below "/nonexistent-sbx-golden" (canonical without existing),
 * so the output is the same on every machine and run.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "compile/plan_internal.h"
#include "compile/sbpl.h"

#define G "/nonexistent-sbx-golden"
#define WS G "/ws"
#define CALLER_HOME "/Users/sbx-golden"
#define SCRATCH "/private/var/folders/sb/T/sbx-golden"
#define PROXY_PORT 18877u

/* ------------------------------------------------------------ helpers */

static sbx_plan *plan_of(const sbx_profile_config *cfg)
{
        sbx_profile *p = NULL;
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_new(cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        if (sbx_plan_compile(p, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        sbx_profile_free(p);
        return plan;
}

/* The config sbx_profile_from_mode builds for a sandboxed mode. */
static sbx_profile_config mode_config(int32_t mode)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        cfg.workspace_root = WS;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = mode == SBX_MODE_WORKSPACE_WRITE ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = SBX_ACCESS_DENY;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_ISOLATED;
        cfg.isolation = SBX_ISOLATION_SANDBOXED;
        return cfg;
}

static struct sbx__sbpl_opts default_opts(void)
{
        struct sbx__sbpl_opts o;

        memset(&o, 0, sizeof(o));
        o.tmpdir = SCRATCH "/tmp";
        o.scratch_home = SCRATCH "/home";
        o.caller_home = CALLER_HOME;
        o.proxy_port = 0;
        o.runtime = sbx__sbpl_runtime_default;
        o.n_runtime = sbx__sbpl_n_runtime_default;
        return o;
}

static char *compile_ok(const sbx_plan *plan, const struct sbx__sbpl_opts *o)
{
        char *text = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx__sbpl_compile(plan, o, &text, &e) != SBX_OK)
                fail_msg("sbx__sbpl_compile: %s", e.message);
        assert_non_null(text);
        return text;
}

/* --------------------------------------------------- S-expression reader */

/* One string literal: its decoded bytes and the head atom of its list. */
struct lit {
        char *text;
        char  head[32];
};

struct sexp {
        struct lit *lits;
        size_t      n;
        int         forms;      /* top-level forms */
};

static void sexp_free(struct sexp *x)
{
        size_t i;

        for (i = 0; i < x->n; i++)
                free(x->lits[i].text);
        free(x->lits);
        memset(x, 0, sizeof(*x));
}

static int atom_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '*';
}

/*
 * Read the whole profile.  Returns NULL if it is well formed, else a
 * reason.  Well formed: only comments (";" to end of line), whitespace,
 * parentheses, atoms of [a-z0-9*-] and string literals; depth never below
 * zero and zero at the end; every top-level form is a list whose head is
 * version, allow or deny; a string literal is closed, holds no raw byte
 * below 0x20 or 0x7F, and uses no escape other than \" and \\.
 */
static const char *sexp_read(const char *p, struct sexp *x)
{
        int depth = 0, head_next = 0;
        char head[16][32];

        memset(x, 0, sizeof(*x));
        memset(head, 0, sizeof(head));
        while (*p != '\0') {
                if (*p == ';') {
                        while (*p != '\0' && *p != '\n')
                                p++;
                } else if (*p == ' ' || *p == '\n') {
                        p++;
                } else if (*p == '(') {
                        if (depth == 0)
                                x->forms++;
                        if (++depth >= 16)
                                return "nested too deep";
                        head[depth][0] = '\0';
                        head_next = 1;
                        p++;
                } else if (*p == ')') {
                        if (--depth < 0)
                                return "unbalanced: ')' without '('";
                        head_next = 0;
                        p++;
                } else if (*p == '"') {
                        char *buf = malloc(strlen(p) + 1);
                        size_t n = 0;

                        assert_non_null(buf);
                        if (depth == 0) {
                                free(buf);
                                return "a string outside a list";
                        }
                        for (p++; *p != '"'; p++) {
                                if (*p == '\0') {
                                        free(buf);
                                        return "unterminated string";
                                }
                                if ((unsigned char) *p < 0x20 || *p == 0x7f) {
                                        free(buf);
                                        return "raw control byte in a string";
                                }
                                if (*p == '\\') {
                                        p++;
                                        if (*p != '"' && *p != '\\') {
                                                free(buf);
                                                return "an escape other than \\\" or \\\\";
                                        }
                                }
                                buf[n++] = *p;
                        }
                        buf[n] = '\0';
                        p++;
                        x->lits = realloc(x->lits, (x->n + 1) * sizeof(*x->lits));
                        assert_non_null(x->lits);
                        x->lits[x->n].text = buf;
                        memcpy(x->lits[x->n].head, head[depth], sizeof(head[depth]));
                        x->n++;
                        head_next = 0;
                } else if (atom_char(*p)) {
                        size_t n = 0;
                        char atom[32];

                        while (atom_char(*p) && n + 1 < sizeof(atom))
                                atom[n++] = *p++;
                        atom[n] = '\0';
                        if (atom_char(*p))
                                return "atom too long";
                        if (depth == 0)
                                return "an atom outside a list";
                        if (head_next) {
                                memcpy(head[depth], atom, sizeof(atom));
                                if (depth == 1 && strcmp(atom, "version") != 0 &&
                                    strcmp(atom, "allow") != 0 && strcmp(atom, "deny") != 0)
                                        return "a top-level form that is not version/allow/deny";
                        }
                        head_next = 0;
                } else {
                        return "a byte outside every string, atom or comment";
                }
        }
        return depth == 0 ? NULL : "unbalanced: '(' without ')'";
}

/* Read text, failing the test if it is not well formed. */
static void sexp_check(const char *text, struct sexp *x)
{
        const char *why = sexp_read(text, x);

        if (why != NULL) {
                print_message("%s", text);
                fail_msg("the profile is not well formed: %s", why);
        }
        assert_true(x->forms >= 2);
}

/* How many (head "s") filters the profile has. */
static size_t count_filter(const struct sexp *x, const char *head, const char *s)
{
        size_t i, n = 0;

        for (i = 0; i < x->n; i++)
                if (strcmp(x->lits[i].head, head) == 0 && strcmp(x->lits[i].text, s) == 0)
                        n++;
        return n;
}

/* ------------------------------------------------------------ goldens */

static const char *golden_dir(char *buf, size_t size)
{
        const char *src = getenv("SBX_TEST_SRCDIR");

        if (src == NULL || src[0] == '\0')
                fail_msg("SBX_TEST_SRCDIR is not set (run through ctest)");
        (void) snprintf(buf, size, "%s/tests/unit/compile/golden/sbpl", src);
        return buf;
}

static int updating(void)
{
        const char *u = getenv("SBX_UPDATE_GOLDEN");

        return u != NULL && strcmp(u, "1") == 0;
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "rb");
        char *b = NULL;
        size_t n = 0, cap = 0, got;

        if (f == NULL)
                return NULL;
        do {
                if (cap - n < 4096) {
                        cap = cap ? 2 * cap : 8192;
                        b = realloc(b, cap + 1);
                        assert_non_null(b);
                }
                got = fread(b + n, 1, cap - n, f);
                n += got;
        } while (got > 0);
        fclose(f);
        b[n] = '\0';
        return b;
}

/* Compare text with golden/<name>.sb (or rewrite it when updating). */
static void assert_golden(const char *name, const char *text)
{
        char dir[4096], path[4200];
        char *want;

        (void) snprintf(path, sizeof(path), "%s/%s.sb", golden_dir(dir, sizeof(dir)), name);
        if (updating()) {
                FILE *f = fopen(path, "wb");

                if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
                        fail_msg("cannot write %s: %s", path, strerror(errno));
                return;
        }
        want = slurp(path);
        if (want == NULL)
                fail_msg("golden file %s is missing (%s); SBX_UPDATE_GOLDEN=1 writes it", path,
                         strerror(errno));
        if (strcmp(want, text) != 0) {
                print_message("--- want (%s)\n%s--- got\n%s---\n", path, want, text);
                free(want);
                fail_msg("the SBPL output differs from golden/sbpl/%s.sb", name);
        }
        free(want);
}

#define MAX_GOLDEN 32
static char *golden_names[MAX_GOLDEN];
static size_t n_golden_names;

static void note_golden(const char *name)
{
        assert_true(n_golden_names < MAX_GOLDEN);
        golden_names[n_golden_names] = strdup(name);
        assert_non_null(golden_names[n_golden_names]);
        n_golden_names++;
}

/* Compile, check well-formedness and the invariants every profile keeps,
 * compare with the golden file. */
static void golden_case(const char *name, const sbx_profile_config *cfg,
                        const struct sbx__sbpl_opts *o)
{
        sbx_plan *plan = plan_of(cfg);
        char *text = compile_ok(plan, o), *again = compile_ok(plan, o);
        struct sexp x;

        assert_string_equal(text, again);       /* deterministic */
        sexp_check(text, &x);
        assert_true(strncmp(text, "(version 1)\n", 12) == 0);
        assert_non_null(strstr(text, "\n(deny default)\n"));
        /* No broad preamble: no unfiltered file-read*, process-exec or
         * file-write* rule. */
        assert_null(strstr(text, "(allow file-read*)"));
        assert_null(strstr(text, "(allow process-exec)"));
        assert_null(strstr(text, "(allow file-write*)"));
        assert_null(strstr(text, "(allow default"));
        /* The per-spawn TMPDIR is writable, in both spellings. */
        assert_int_equal(count_filter(&x, "subpath", SCRATCH "/tmp"), 1);
        assert_int_equal(count_filter(&x, "subpath", "/var/folders/sb/T/sbx-golden/tmp"), 1);
        sexp_free(&x);
        note_golden(name);
        assert_golden(name, text);
        free(text);
        free(again);
        sbx_plan_free(plan);
}

static void test_sbpl__golden_matrix(void **state)
{
        static const sbx_root_access extra[] = {
                { G "/cache", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },      /* read-only */
                { G "/out", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },       /* writable */
        };
        static const int32_t modes[] = { SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE };
        size_t m, h, n, r;
        (void) state;

        for (m = 0; m < 2; m++)
                for (h = 0; h < 2; h++)
                        for (n = 0; n < 2; n++)
                                for (r = 0; r < 2; r++) {
                                        sbx_profile_config cfg = mode_config(modes[m]);
                                        struct sbx__sbpl_opts o = default_opts();
                                        char name[128];

                                        cfg.home = h ? SBX_HOME_REAL : SBX_HOME_ISOLATED;
                                        if (n) {
                                                /* The proxy serves network grants: Gated. */
                                                cfg.network = SBX_ACCESS_GATED;
                                                o.proxy_port = PROXY_PORT;
                                        }
                                        if (r) {
                                                cfg.additional_roots = extra;
                                                cfg.n_additional_roots = 2;
                                        }
                                        (void) snprintf(name, sizeof(name),
                                                        "%s.home-%s.net-%s.roots-%s",
                                                        sbx_mode_name(modes[m]),
                                                        h ? "real" : "isolated",
                                                        n ? "proxy" : "deny",
                                                        r ? "ro-rw" : "none");
                                        golden_case(name, &cfg, &o);
                                }
}

/* Host read denied: the honest read boundary (no subpath "/" at all). */
static void test_sbpl__golden_host_read_denied(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_WORKSPACE_WRITE);
        struct sbx__sbpl_opts o = default_opts();
        sbx_plan *plan;
        struct sexp x;
        char *text;
        size_t i;
        (void) state;

        cfg.host_read = SBX_ACCESS_DENY;
        golden_case("host-read-denied", &cfg, &o);
        plan = plan_of(&cfg);
        text = compile_ok(plan, &o);
        sexp_check(text, &x);
        assert_int_equal(count_filter(&x, "subpath", "/"), 0);
        assert_int_equal(count_filter(&x, "literal", "/"), 1);  /* the root dir only */
        /* Nothing names the caller's HOME: with no host read there is
         * nothing to hide, so no carve-out either. */
        assert_int_equal(count_filter(&x, "subpath", CALLER_HOME), 0);
        /* Every readable subtree is a runtime root, the workspace, or a
         * per-spawn directory. */
        for (i = 0; i < x.n; i++) {
                const char *s = x.lits[i].text;
                size_t k;
                int known = 0;

                if (strcmp(x.lits[i].head, "subpath") != 0)
                        continue;
                for (k = 0; k < sbx__sbpl_n_runtime_default; k++) {
                        const char *rt = sbx__sbpl_runtime_default[k].path;

                        known |= strcmp(s, rt) == 0 ||
                                 (strncmp(rt, "/private", 8) == 0 && strcmp(s, rt + 8) == 0);
                }
                known |= strncmp(s, WS, strlen(WS)) == 0;
                known |= strncmp(s, SCRATCH, strlen(SCRATCH)) == 0;
                known |= strncmp(s, "/var/folders/sb/T/sbx-golden", 28) == 0;
                if (!known)
                        fail_msg("unexpected readable subtree \"%s\"", s);
        }
        sexp_free(&x);
        free(text);
        sbx_plan_free(plan);
}

/* The caller's HOME contains the workspace: hidden, then the workspace
 * re-opened below it (the last matching rule wins). */
static void test_sbpl__golden_workspace_under_home(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_WORKSPACE_WRITE);
        struct sbx__sbpl_opts o = default_opts();
        sbx_plan *plan;
        char *text, *deny, *allow;
        (void) state;

        o.caller_home = G;
        golden_case("workspace-under-home", &cfg, &o);
        plan = plan_of(&cfg);
        text = compile_ok(plan, &o);
        deny = strstr(text, "(deny file-read* process-exec (subpath \"" G "\"))\n");
        allow = strstr(text, "(allow file-read* file-write* process-exec (subpath \"" WS "\"))\n");
        assert_non_null(deny);
        assert_non_null(allow);
        assert_true(deny < allow);
        /* The protected carve-outs come after the workspace allow. */
        assert_true(allow < strstr(text, "(deny file-write* (subpath \"" WS "/.git\"))\n"));
        free(text);
        sbx_plan_free(plan);
}

/* Host rw, real HOME, host network. */
static void test_sbpl__golden_open_host(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_WORKSPACE_WRITE);
        struct sbx__sbpl_opts o = default_opts();
        (void) state;

        cfg.host_write = SBX_ACCESS_ALLOW;
        cfg.network = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        golden_case("host-rw.home-real.net-allow", &cfg, &o);
}

/* Named host sockets, with the host network (every other unix socket
 * denied) and without it; /var sockets in both spellings. */
static void test_sbpl__golden_unix_sockets(void **state)
{
        static const char *const socks[] = { "/private/var/run/sbx-golden.sock",
                                             G "/run/db.sock" };
        sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
        struct sbx__sbpl_opts o = default_opts();
        (void) state;

        cfg.unix_sockets = socks;
        cfg.n_unix_sockets = 2;
        golden_case("unix-sockets.net-deny", &cfg, &o);
        cfg.network = SBX_ACCESS_ALLOW;
        golden_case("unix-sockets.net-allow", &cfg, &o);
}

/* Last: every golden file on disk is one a case produced. */
static void test_sbpl__no_stale_goldens(void **state)
{
        char dir[4096];
        DIR *d;
        struct dirent *de;
        size_t i, files = 0;
        (void) state;

        d = opendir(golden_dir(dir, sizeof(dir)));
        if (d == NULL)
                fail_msg("cannot open %s: %s", dir, strerror(errno));
        while ((de = readdir(d)) != NULL) {
                size_t len = strlen(de->d_name);
                int found = 0;

                if (de->d_name[0] == '.')
                        continue;
                files++;
                for (i = 0; i < n_golden_names && !found; i++)
                        found = len == strlen(golden_names[i]) + 3 &&
                                strncmp(de->d_name, golden_names[i], len - 3) == 0 &&
                                strcmp(de->d_name + len - 3, ".sb") == 0;
                if (!found) {
                        closedir(d);
                        fail_msg("golden/sbpl/%s is produced by no case", de->d_name);
                }
        }
        closedir(d);
        assert_int_equal(files, n_golden_names);
        assert_int_equal(n_golden_names, 16 + 5);
        for (i = 0; i < n_golden_names; i++)
                free(golden_names[i]);
        n_golden_names = 0;
}

/* ------------------------------------------------------------ quoting */

static void test_sbpl__nasty_paths_round_trip(void **state)
{
        static const char *const nasty[] = {
                G "/q\"uote",
                G "/back\\slash",
                G "/trailing\\",
                G "/esc\\\"aped",
                G "/(paren) (allow default)",
                G "/\")(allow file-write* (subpath \"/\"))(\"",
                G "/semi;colon #t 'q",
                G "/caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x94\x92",
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(nasty); i++) {
                const sbx_root_access roots[] = {
                        { nasty[i], SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },
                };
                sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
                struct sbx__sbpl_opts o = default_opts();
                sbx_plan *plan;
                struct sexp x;
                char *text, *tmp, *q = NULL;
                size_t k;

                cfg.additional_roots = roots;
                cfg.n_additional_roots = 1;
                plan = plan_of(&cfg);
                assert_int_equal(asprintf(&tmp, "%s/t", nasty[i]), (int) strlen(nasty[i]) + 2);
                o.tmpdir = tmp;
                text = compile_ok(plan, &o);
                sexp_check(text, &x);
                /* The root is allowed as one (subpath ...) decoding to it,
                 * in the allow; the TMPDIR below it too. */
                assert_int_equal(count_filter(&x, "subpath", nasty[i]), 1);
                assert_int_equal(count_filter(&x, "subpath", tmp), 1);
                /* Its protected carve-outs name <root>/.git/... exactly. */
                {
                        char *hooks;

                        assert_true(asprintf(&hooks, "%s/.git", nasty[i]) > 0);
                        char *hq = NULL, *deny = NULL;

                        /* Its allow (read follows the root) and its deny. */
                        assert_int_equal(count_filter(&x, "subpath", hooks), 2);
                        assert_int_equal(sbx__sbpl_quote(hooks, &hq), 0);
                        assert_true(asprintf(&deny, "\n(deny file-write* (subpath %s))\n", hq) > 0);
                        assert_non_null(strstr(text, deny));
                        free(deny);
                        free(hq);
                        free(hooks);
                }
                /* Nothing forged: read-only mode reads the host, so "/"
                 * is a subpath exactly once (the host rule), and nothing
                 * grants writes on it. */
                assert_int_equal(count_filter(&x, "subpath", "/"), 1);
                assert_null(strstr(text, "(allow file-read* file-write* process-exec (subpath \"/\"))"));
                assert_null(strstr(text, "\n(allow default"));
                /* Every literal is a path that round-trips through the
                 * quoting helper to the same text. */
                for (k = 0; k < x.n; k++) {
                        assert_true(x.lits[k].text[0] == '/');
                        assert_int_equal(sbx__sbpl_quote(x.lits[k].text, &q), 0);
                        assert_non_null(strstr(text, q));
                        free(q);
                }
                sexp_free(&x);
                free(text);
                free(tmp);
                sbx_plan_free(plan);
        }
}

static void test_sbpl__quote_escapes(void **state)
{
        static const struct {
                const char *in, *out;
        } ok[] = {
                { "/a", "\"/a\"" },
                { "/a\"b", "\"/a\\\"b\"" },
                { "/a\\b", "\"/a\\\\b\"" },
                { "/\\\"", "\"/\\\\\\\"\"" },
                { "/(x) ;y", "\"/(x) ;y\"" },
                { "/\xc3\xa9", "\"/\xc3\xa9\"" },
                { "/~ !#$%&'*+,-.:<=>?@[]^_`{|}", "\"/~ !#$%&'*+,-.:<=>?@[]^_`{|}\"" },
        };
        static const char *const bad[] = {
                "/new\nline", "/tab\t", "/cr\r", "/esc\x1b[31m", "/del\x7f", "/\x01",
                "/lone\x80", "/bad\xff", "/overlong\xc0\xaf", "/surrogate\xed\xa0\x80",
                "/big\xf4\x90\x80\x80", "/cut\xe6\x97",
        };
        size_t i;
        char *q;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(ok); i++) {
                q = NULL;
                assert_int_equal(sbx__sbpl_quote(ok[i].in, &q), 0);
                assert_string_equal(q, ok[i].out);
                free(q);
        }
        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                q = (char *) (uintptr_t) 1;
                assert_int_equal(sbx__sbpl_quote(bad[i], &q), -EINVAL);
                assert_ptr_equal(q, (char *) (uintptr_t) 1);
        }
        assert_int_equal(sbx__sbpl_quote(NULL, &q), -EINVAL);
}

/* A path that cannot be quoted safely is refused, never emitted. */
static void test_sbpl__unquotable_paths_refused(void **state)
{
        static const char *const bad[] = {
                G "/evil\n(allow default)", G "/esc\x1b", G "/bad\xff",
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                const sbx_root_access roots[] = { { bad[i], SBX_ACCESS_ALLOW, SBX_ACCESS_DENY } };
                sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
                struct sbx__sbpl_opts o = default_opts();
                sbx_plan *plan;
                char *text = (char *) (uintptr_t) 1;

                /* In the plan (the profile layer accepts any byte but NUL). */
                cfg.additional_roots = roots;
                cfg.n_additional_roots = 1;
                plan = plan_of(&cfg);
                assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID,
                                 "cannot be quoted safely");
                assert_ptr_equal(text, (char *) (uintptr_t) 1);
                sbx_plan_free(plan);

                /* In each per-spawn path. */
                cfg.n_additional_roots = 0;
                plan = plan_of(&cfg);
                o.tmpdir = bad[i];
                assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID,
                                 "opts->tmpdir");
                o = default_opts();
                o.scratch_home = bad[i];
                assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID,
                                 "opts->scratch_home");
                o = default_opts();
                o.caller_home = bad[i];
                assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID,
                                 "opts->caller_home");
                assert_ptr_equal(text, (char *) (uintptr_t) 1);
                sbx_plan_free(plan);
        }
}

/* ----------------------------------------------------- other behaviour */

static void test_sbpl__private_spellings_together(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_WORKSPACE_WRITE);
        struct sbx__sbpl_opts o = default_opts();
        sbx_plan *plan;
        char *text;
        (void) state;

        o.tmpdir = "/tmp/sbx-x";
        o.caller_home = "/private/etc/h";
        plan = plan_of(&cfg);
        text = compile_ok(plan, &o);
        assert_non_null(strstr(text, "(allow file-read* file-write* process-exec "
                                     "(subpath \"/tmp/sbx-x\") (subpath \"/private/tmp/sbx-x\"))\n"));
        assert_non_null(strstr(text, "(deny file-read* process-exec "
                                     "(subpath \"/private/etc/h\") (subpath \"/etc/h\"))\n"));
        assert_non_null(strstr(text, "(allow file-read* (literal \"/private/var/select/sh\") "
                                     "(literal \"/var/select/sh\"))\n"));
        /* Not a twin: a name that only starts like one. */
        assert_null(strstr(text, "/private/tmpx"));
        free(text);
        o.tmpdir = "/tmpx/t";
        text = compile_ok(plan, &o);
        assert_null(strstr(text, "/private/tmpx"));
        free(text);
        sbx_plan_free(plan);
}

static void test_sbpl__configured_root_replaces_runtime_root(void **state)
{
        const sbx_root_access roots[] = { { "/usr", SBX_ACCESS_DENY, SBX_ACCESS_DENY } };
        sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
        struct sbx__sbpl_opts o = default_opts();
        sbx_plan *plan;
        char *text;
        (void) state;

        cfg.host_read = SBX_ACCESS_DENY;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 1;
        plan = plan_of(&cfg);
        text = compile_ok(plan, &o);
        /* /usr is denied by configuration, so the runtime root does not
         * open it (and nothing earlier opened it, so no deny is needed). */
        assert_null(strstr(text, "(subpath \"/usr\")"));
        assert_non_null(strstr(text, "(subpath \"/bin\")"));
        free(text);
        sbx_plan_free(plan);
}

static void test_sbpl__network(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
        struct sbx__sbpl_opts o = default_opts();
        sbx_plan *plan;
        char *text = (char *) (uintptr_t) 1;
        (void) state;

        /* Deny: no network rule at all, and a proxy port is refused (a
         * Deny is never opened by a grant). */
        plan = plan_of(&cfg);
        text = compile_ok(plan, &o);
        assert_null(strstr(text, "network"  "-outbound"));
        assert_null(strstr(text, "(allow network"));
        free(text);
        o.proxy_port = PROXY_PORT;
        text = (char *) (uintptr_t) 1;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "Gated");
        assert_ptr_equal(text, (char *) (uintptr_t) 1);
        sbx_plan_free(plan);

        /* Gated: closed without a port, only the listener with one. */
        cfg.network = SBX_ACCESS_GATED;
        plan = plan_of(&cfg);
        o.proxy_port = 0;
        text = compile_ok(plan, &o);
        assert_null(strstr(text, "(allow network"));
        free(text);
        o.proxy_port = 65535;
        text = compile_ok(plan, &o);
        assert_non_null(strstr(text, "\n(allow network-outbound (remote ip \"localhost:65535\"))\n"));
        assert_null(strstr(text, "(allow network*"));
        free(text);
        o.proxy_port = 65536;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "not a port");
        sbx_plan_free(plan);

        /* Allow: the host network; a proxy port is refused there too. */
        cfg.network = SBX_ACCESS_ALLOW;
        plan = plan_of(&cfg);
        o.proxy_port = 0;
        text = compile_ok(plan, &o);
        assert_non_null(strstr(text, "\n(allow network*)\n"));
        free(text);
        o.proxy_port = PROXY_PORT;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "Gated");
        sbx_plan_free(plan);
}

static void test_sbpl__argument_checks(void **state)
{
        sbx_profile_config cfg = mode_config(SBX_MODE_READ_ONLY);
        struct sbx__sbpl_opts o = default_opts();
        struct sbx__sbpl_root bad_rt = { "/usr", 0, SBX__FS_TREE };
        sbx_profile *p = NULL;
        sbx_plan *plan, *direct = NULL;
        char *text = NULL;
        (void) state;

        plan = plan_of(&cfg);
        assert_sbx_fails(sbx__sbpl_compile(NULL, &o, &text, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx__sbpl_compile(plan, NULL, &text, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, NULL, err), SBX_E_INVALID, "NULL");

        o.tmpdir = NULL;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "tmpdir");
        o.tmpdir = "relative/tmp";
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "tmpdir");
        o.tmpdir = "/a/../b";
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "tmpdir");
        o.tmpdir = "/a//b";
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "tmpdir");
        o.tmpdir = "/a/b/";
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "tmpdir");
        o = default_opts();
        o.scratch_home = NULL;          /* the plan isolates HOME */
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "scratch_home");
        o = default_opts();
        o.runtime = &bad_rt;
        o.n_runtime = 1;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "runtime[0]");
        o.runtime = NULL;
        assert_sbx_fails(sbx__sbpl_compile(plan, &o, &text, err), SBX_E_INVALID, "runtime");
        assert_null(text);

        /* No caller HOME: nothing to hide; no runtime roots: allowed. */
        o = default_opts();
        o.caller_home = NULL;
        o.runtime = NULL;
        o.n_runtime = 0;
        text = compile_ok(plan, &o);
        assert_null(strstr(text, CALLER_HOME));
        assert_null(strstr(text, "\"/usr\""));
        free(text);
        o.caller_home = "/";            /* never a carve-out of everything */
        text = compile_ok(plan, &o);
        assert_null(strstr(text, "(deny file-read* process-exec (subpath \"/\"))"));
        free(text);
        sbx_plan_free(plan);

        /* A direct plan has no boundary. */
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, WS, &p, NULL), SBX_OK);
        assert_int_equal(sbx_plan_compile(p, &direct, NULL), SBX_OK);
        sbx_profile_free(p);
        o = default_opts();
        assert_sbx_fails(sbx__sbpl_compile(direct, &o, &text, err), SBX_E_INVALID, "direct");
        sbx_plan_free(direct);
}

/* The default runtime list is well formed and sorted. */
static void test_sbpl__runtime_default_list(void **state)
{
        size_t i;
        (void) state;

        assert_true(sbx__sbpl_n_runtime_default > 0);
        for (i = 0; i < sbx__sbpl_n_runtime_default; i++) {
                const struct sbx__sbpl_root *rt = &sbx__sbpl_runtime_default[i];

                assert_true(rt->path[0] == '/');
                assert_true(rt->access != 0);
                /* Never a writable subtree: only device nodes are written. */
                if (rt->access & SBX__FS_WRITE) {
                        assert_int_equal(rt->scope, SBX__FS_EXACT);
                        assert_true(strncmp(rt->path, "/dev/", 5) == 0);
                }
                /* Never the user data volume or all of /System or /Library. */
                assert_true(strcmp(rt->path, "/System") != 0);
                assert_true(strcmp(rt->path, "/Library") != 0);
                assert_true(strncmp(rt->path, "/System/Volumes/Data", 20) != 0);
                assert_true(strncmp(rt->path, "/Users", 6) != 0);
                if (i > 0)
                        assert_true(strcmp(sbx__sbpl_runtime_default[i - 1].path, rt->path) < 0);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sbpl__golden_matrix),
                cmocka_unit_test(test_sbpl__golden_host_read_denied),
                cmocka_unit_test(test_sbpl__golden_workspace_under_home),
                cmocka_unit_test(test_sbpl__golden_open_host),
                cmocka_unit_test(test_sbpl__golden_unix_sockets),
                cmocka_unit_test(test_sbpl__no_stale_goldens),
                cmocka_unit_test(test_sbpl__nasty_paths_round_trip),
                cmocka_unit_test(test_sbpl__quote_escapes),
                cmocka_unit_test(test_sbpl__unquotable_paths_refused),
                cmocka_unit_test(test_sbpl__private_spellings_together),
                cmocka_unit_test(test_sbpl__configured_root_replaces_runtime_root),
                cmocka_unit_test(test_sbpl__network),
                cmocka_unit_test(test_sbpl__argument_checks),
                cmocka_unit_test(test_sbpl__runtime_default_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
