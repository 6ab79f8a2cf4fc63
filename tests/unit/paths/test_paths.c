/*
 * test_paths.c - sbx_path_canonical, sbx_writable_roots, sbx_path_is_within.
 *
 * The fixture lives in a mkdtemp directory under /tmp, canonicalised first
 * (/tmp may itself be a symlink elsewhere), and is removed at the end:
 *
 *   F/a/b/file              regular file
 *   F/a/bc/                 sibling whose name extends "b"
 *   F/link      -> F/a/b    absolute symlink to a directory
 *   F/rel       -> a/b      relative symlink to a directory
 *   F/s         -> F/a/b    a short name for a longer target
 *   F/ws-link   -> F/a      a symlinked workspace root
 *   F/loop1 <-> F/loop2     symlink loop
 *   F/dangling  -> F/nowhere/target
 *   F/locked/inner/         F/locked is mode 0 (EACCES unless privileged)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"
#include "paths/paths_internal.h"

static char fx[PATH_MAX];       /* canonical fixture root */

/* fx + suffix, in a rotating set of static buffers. */
static const char *F(const char *suffix)
{
        static char bufs[64][PATH_MAX * 2];
        static unsigned next;
        char *b = bufs[next++ % 64];

        (void) snprintf(b, PATH_MAX * 2, "%s%s", fx, suffix);
        return b;
}

static void mk_dir(const char *suffix)
{
        assert_int_equal(mkdir(F(suffix), 0755), 0);
}

static void mk_link(const char *target, const char *suffix)
{
        assert_int_equal(symlink(target, F(suffix)), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static int setup(void **state)
{
        char tmpl[] = "/tmp/sbx-paths-XXXXXX";
        int fd;

        (void) state;
        if (mkdtemp(tmpl) == NULL)
                return -1;
        if (realpath(tmpl, fx) == NULL)
                return -1;
        mk_dir("/a");
        mk_dir("/a/b");
        mk_dir("/a/bc");
        fd = open(F("/a/b/file"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        mk_link(F("/a/b"), "/link");
        mk_link("a/b", "/rel");
        mk_link(F("/a/b"), "/s");
        mk_link(F("/a"), "/ws-link");
        mk_link("loop2", "/loop1");
        mk_link("loop1", "/loop2");
        mk_link(F("/nowhere/target"), "/dangling");
        mk_dir("/locked");
        mk_dir("/locked/inner");
        assert_int_equal(chmod(F("/locked"), 0), 0);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        if (fx[0] == '\0')
                return 0;
        (void) chmod(F("/locked"), 0755);
        return nftw(fx, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Canonicalise and compare; the result must also satisfy the shape rules. */
static void expect_canon(const char *in, const char *want)
{
        sbx_error err;
        char *out = NULL;
        sbx_code r = sbx_path_canonical(in, &out, &err);

        if (r != SBX_OK)
                fail_msg("sbx_path_canonical(\"%s\") = %s: %s", in, sbx_code_name(r),
                         err.message);
        assert_non_null(out);
        assert_string_equal(out, want);
        assert_true(out[0] == '/');
        assert_null(strstr(out, "//"));
        assert_null(strstr(out, "/./"));
        assert_null(strstr(out, "/../"));
        if (strcmp(out, "/") != 0)
                assert_true(out[strlen(out) - 1] != '/');
        sbx_free(out);
}

/* Expect failure with code (and sys_errno if e != 0); out is untouched. */
static void expect_canon_fail(const char *in, sbx_code code, int e, const char *needle)
{
        sbx_error err = { 0, 0, "" };
        char *out = (char *) "untouched";

        assert_int_equal(sbx_path_canonical(in, &out, &err), code);
        assert_string_equal(out, "untouched");
        assert_int_equal(err.code, code);
        if (e != 0)
                assert_int_equal(err.sys_errno, e);
        if (needle != NULL && strstr(err.message, needle) == NULL)
                fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

static sbx_confined_policy *make_policy(int32_t mode, const char *cwd)
{
        sbx_policy_service *svc = NULL;
        sbx_exec_policy *ep = NULL;
        sbx_confined_policy *cp = NULL;
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;

        assert_int_equal(sbx_policy_service_new(SBX_MODE_READ_ONLY, "/", &svc, NULL), SBX_OK);
        req.session_cwd = cwd;
        req.mode_override = mode;
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &ep, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_to_confined(ep, &cp, NULL), SBX_OK);
        sbx_exec_policy_free(ep);
        sbx_policy_service_free(svc);
        return cp;
}

/* sbx_writable_roots must succeed and equal want[0..n_want). */
static void expect_roots(const sbx_confined_policy *p, const char *const *extra, size_t n_extra,
                         const char *const *want, size_t n_want)
{
        sbx_error err;
        char **out = NULL;
        size_t n = 999, i;
        sbx_code r = sbx_writable_roots(p, extra, n_extra, &out, &n, &err);

        if (r != SBX_OK)
                fail_msg("sbx_writable_roots = %s: %s", sbx_code_name(r), err.message);
        assert_non_null(out);
        assert_int_equal(n, n_want);
        for (i = 0; i < n_want; i++) {
                assert_non_null(out[i]);
                assert_string_equal(out[i], want[i]);
        }
        assert_null(out[n_want]);
        sbx_strv_free(out);
}

static void expect_roots_fail(const sbx_confined_policy *p, const char *const *extra,
                              size_t n_extra, sbx_code code, const char *needle)
{
        sbx_error err = { 0, 0, "" };
        char **sentinel = (char **) &err;
        char **out = sentinel;
        size_t n = 999;

        assert_int_equal(sbx_writable_roots(p, extra, n_extra, &out, &n, &err), code);
        assert_ptr_equal(out, sentinel);
        assert_int_equal(n, 999);
        assert_int_equal(err.code, code);
        if (needle != NULL && strstr(err.message, needle) == NULL)
                fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

/* ------------------------------------------------------- sbx_path_canonical */

static void test_paths__canonical_rejects_invalid(void **state)
{
        sbx_error err;
        char *out = NULL;

        (void) state;
        expect_canon_fail(NULL, SBX_E_INVALID, 0, "path is NULL");
        expect_canon_fail("", SBX_E_INVALID, 0, "path is empty");
        expect_canon_fail("a/b", SBX_E_INVALID, 0, "not absolute");
        expect_canon_fail("./a", SBX_E_INVALID, 0, "not absolute");
        expect_canon_fail("../a", SBX_E_INVALID, 0, "not absolute");
        assert_int_equal(sbx_path_canonical("/", NULL, &err), SBX_E_INVALID);
        assert_non_null(strstr(err.message, "out"));
        /* err may be NULL. */
        assert_int_equal(sbx_path_canonical(NULL, &out, NULL), SBX_E_INVALID);
        assert_null(out);
}

/* prefix + "/c/c/c..." to exactly SBX_PATH_MAX - 1 bytes (big holds
 * SBX_PATH_MAX + 1). */
static void fill_to_max(char *big, const char *prefix, char c)
{
        size_t i = strlen(prefix);

        memcpy(big, prefix, i);
        while (i + 2 <= SBX_PATH_MAX - 1) {
                big[i++] = '/';
                big[i++] = c;
        }
        if (i < SBX_PATH_MAX - 1)
                big[i++] = c;
        big[i] = '\0';
}

static void test_paths__canonical_rejects_overlong(void **state)
{
        char *big = malloc(SBX_PATH_MAX + 1);
        size_t i;

        (void) state;
        assert_non_null(big);
        /* SBX_PATH_MAX bytes (no room for the NUL): SBX_E_RANGE. */
        for (i = 0; i < SBX_PATH_MAX; i++)
                big[i] = (i % 2 == 0) ? '/' : 'x';
        big[SBX_PATH_MAX] = '\0';
        expect_canon_fail(big, SBX_E_RANGE, 0, "longer than");

        /* SBX_PATH_MAX - 1 bytes that do not exist: accepted, lexical. */
        fill_to_max(big, F("/missing"), 'y');
        assert_int_equal(strlen(big), SBX_PATH_MAX - 1);
        expect_canon(big, big);

        /* Short enough as written, too long once a symlink is expanded. */
        fill_to_max(big, F("/s"), 'z');
        assert_int_equal(strlen(big), SBX_PATH_MAX - 1);
        expect_canon_fail(big, SBX_E_RANGE, ENAMETOOLONG, NULL);
        free(big);
}

static void test_paths__canonical_existing_path(void **state)
{
        char *rp;

        (void) state;
        expect_canon("/", "/");
        expect_canon(F("/a/b"), F("/a/b"));
        expect_canon(F("/a/b/file"), F("/a/b/file"));
        /* An existing path is exactly what realpath(3) says. */
        rp = realpath("/tmp", NULL);
        assert_non_null(rp);
        expect_canon("/tmp", rp);
        free(rp);
}

static void test_paths__canonical_cleans_slashes_and_dots(void **state)
{
        (void) state;
        expect_canon(F("/a/b/"), F("/a/b"));
        expect_canon(F("//a///b//"), F("/a/b"));
        expect_canon(F("/./a/./b/."), F("/a/b"));
        expect_canon("//", "/");
        expect_canon("/.", "/");
        /* Same rules on a path that does not exist yet. */
        expect_canon(F("//a/./new//x/"), F("/a/new/x"));
        expect_canon(F("/a/new/./x/."), F("/a/new/x"));
}

static void test_paths__canonical_dotdot_through_real_dir(void **state)
{
        (void) state;
        expect_canon(F("/a/b/../b/file"), F("/a/b/file"));
        expect_canon(F("/a/b/.."), F("/a"));
        expect_canon(F("/a/bc/../b"), F("/a/b"));
        expect_canon("/..", "/");
        expect_canon("/../../..", "/");
        expect_canon(F("/a/b/../new"), F("/a/new"));
}

static void test_paths__canonical_dotdot_after_symlink(void **state)
{
        (void) state;
        /* Like the kernel: ".." is taken from the link's target, F/a/b. */
        expect_canon(F("/link/.."), F("/a"));
        expect_canon(F("/link/../b/file"), F("/a/b/file"));
        expect_canon(F("/rel/.."), F("/a"));
        /* Also when the rest does not exist (the walk, not realpath). */
        expect_canon(F("/link/../new"), F("/a/new"));
        expect_canon(F("/link/../new/deeper"), F("/a/new/deeper"));
}

static void test_paths__canonical_missing_leaf_under_symlink(void **state)
{
        (void) state;
        expect_canon(F("/link/newfile"), F("/a/b/newfile"));
        expect_canon(F("/rel/newfile"), F("/a/b/newfile"));
        expect_canon(F("/ws-link/b/newfile"), F("/a/b/newfile"));
}

static void test_paths__canonical_missing_multilevel(void **state)
{
        (void) state;
        expect_canon(F("/link/n1/n2/n3"), F("/a/b/n1/n2/n3"));
        /* ".." in the remainder pops only remainder names ... */
        expect_canon(F("/link/n1/n2/../n3"), F("/a/b/n1/n3"));
        /* ... and, once the remainder is empty, continues on the resolved
         * prefix like the kernel would. */
        expect_canon(F("/link/n1/../../.."), fx);
        /* Back on real directories, symlinks are followed again. */
        expect_canon(F("/missing/../link/x"), F("/a/b/x"));
        expect_canon(F("/missing/m2/../../rel/x/y"), F("/a/b/x/y"));
}

static void test_paths__canonical_file_used_as_directory(void **state)
{
        (void) state;
        /* ENOTDIR: nothing can exist below a file, so the rest is lexical. */
        expect_canon(F("/a/b/file/x"), F("/a/b/file/x"));
        expect_canon(F("/a/b/file/"), F("/a/b/file"));
        expect_canon(F("/a/b/file/x/.."), F("/a/b/file"));
}

static void test_paths__canonical_symlink_loop_is_error(void **state)
{
        (void) state;
        expect_canon_fail(F("/loop1"), SBX_E_IO, ELOOP, "loop1");
        expect_canon_fail(F("/loop1/x"), SBX_E_IO, ELOOP, NULL);
        expect_canon_fail(F("/a/../loop2/x/y"), SBX_E_IO, ELOOP, NULL);
}

static void test_paths__canonical_dangling_symlink_is_error(void **state)
{
        (void) state;
        /* Writes through a dangling link land in its target; the cleaned
         * link path would be the wrong answer, so it is an error. */
        expect_canon_fail(F("/dangling"), SBX_E_IO, ENOENT, "dangling symlink");
        expect_canon_fail(F("/dangling/x"), SBX_E_IO, ENOENT, "dangling symlink");
        expect_canon_fail(F("/dangling/"), SBX_E_IO, ENOENT, NULL);
}

static void test_paths__canonical_unsearchable_ancestor_is_error(void **state)
{
        struct stat st;

        (void) state;
        if (lstat(F("/locked/inner"), &st) == 0) {
                /* Privileged (CAP_DAC_OVERRIDE): the prefix can be resolved. */
                expect_canon(F("/locked/inner/new"), F("/locked/inner/new"));
                return;
        }
        assert_int_equal(errno, EACCES);
        /* Never the cleaned path: an unreadable prefix could hide a symlink. */
        expect_canon_fail(F("/locked/inner/new"), SBX_E_IO, EACCES, "locked");
        expect_canon_fail(F("/locked/inner"), SBX_E_IO, EACCES, NULL);
        /* The locked directory itself is resolvable. */
        expect_canon(F("/locked"), F("/locked"));
}

/* ------------------------------------------------------ sbx_writable_roots */

static void test_paths__roots_read_only_is_empty(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_READ_ONLY, F("/a"));
        char **out = NULL;

        (void) state;
        expect_roots(p, NULL, 0, NULL, 0);
        /* n_out may be NULL; out is never NULL. */
        assert_int_equal(sbx_writable_roots(p, NULL, 0, &out, NULL, NULL), SBX_OK);
        assert_non_null(out);
        assert_null(out[0]);
        sbx_strv_free(out);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_workspace_write_is_canonical_root(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *want[] = { F("/a/b") };

        (void) state;
        expect_roots(p, NULL, 0, want, 1);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_symlinked_workspace_resolved(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/ws-link"));
        const char *want[] = { F("/a") };
        const char *ws_link = F("/ws-link");

        (void) state;
        expect_roots(p, NULL, 0, want, 1);
        /* The FS fence sees the same answer for a file under either name. */
        assert_int_equal(sbx_path_is_within(F("/a/b/file"), want, 1), 1);
        assert_int_equal(sbx_path_is_within(F("/ws-link/b/file"), want, 1), 0);
        assert_int_equal(sbx_path_is_within(F("/a/b/file"), &ws_link, 1), 0);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_missing_workspace_resolved_lexically(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/link/not-yet"));
        const char *want[] = { F("/a/b/not-yet") };

        (void) state;
        expect_roots(p, NULL, 0, want, 1);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_extras_in_both_modes(void **state)
{
        sbx_confined_policy *ro = make_policy(SBX_MODE_READ_ONLY, F("/a/b"));
        sbx_confined_policy *ww = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *extra[] = { F("/rel/../bc"), F("/link/cache") };
        const char *want_ro[] = { F("/a/b/cache"), F("/a/bc") };
        const char *want_ww[] = { F("/a/b"), F("/a/bc") };

        (void) state;
        expect_roots(ro, extra, 2, want_ro, 2);
        expect_roots(ww, extra, 2, want_ww, 2);
        sbx_confined_policy_free(ro);
        sbx_confined_policy_free(ww);
}

static void test_paths__roots_duplicates_removed(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *extra[] = { F("/link"), F("/a/b/"), F("/rel"), F("/a//b") };
        const char *want[] = { F("/a/b") };

        (void) state;
        expect_roots(p, extra, 4, want, 1);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_nested_collapse(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *extra[] = { F("/a/b/x/y"), F("/a/b-x"), F("/a"), F("/a/b/z") };
        const char *extra2[] = { F("/a/b/x/y"), F("/a/b-x"), F("/a/b/z") };
        const char *want[] = { F("/a") };
        const char *want2[] = { F("/a/b"), F("/a/b-x") };

        (void) state;
        expect_roots(p, extra, 4, want, 1);
        /* "/a/b-x" sorts between "/a/b" and "/a/b/x/y"; still collapsed. */
        expect_roots(p, extra2, 3, want2, 2);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_sibling_prefix_not_nested(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *extra[] = { F("/a/bc"), F("/a/bc/deep") };
        const char *want[] = { F("/a/b"), F("/a/bc") };

        (void) state;
        expect_roots(p, extra, 2, want, 2);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_slash_collapses_everything(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *extra[] = { F("/a/bc"), "/", "/usr", F("/link") };
        const char *want[] = { "/" };

        (void) state;
        expect_roots(p, extra, 4, want, 1);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_sorted(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_READ_ONLY, F("/a/b"));
        const char *extra[] = { F("/z/q"), F("/m"), F("/a/bc"), F("/a/b-"), F("/B") };
        const char *want[] = { F("/B"), F("/a/b-"), F("/a/bc"), F("/m"), F("/z/q") };

        (void) state;
        expect_roots(p, extra, 5, want, 5);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_invalid_extras_name_index(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/a/b"));
        const char *null_entry[] = { F("/a"), NULL };
        const char *relative[] = { F("/a"), F("/m"), "rel/dir" };
        const char *empty[] = { "" };
        const char *loop[] = { F("/a"), F("/loop1/x") };
        char *big = malloc(SBX_PATH_MAX + 1);
        const char *overlong[2];

        (void) state;
        assert_non_null(big);
        memset(big, 'x', SBX_PATH_MAX);
        big[0] = '/';
        big[SBX_PATH_MAX] = '\0';
        overlong[0] = F("/a");
        overlong[1] = big;

        expect_roots_fail(p, null_entry, 2, SBX_E_INVALID, "extra[1] is NULL");
        expect_roots_fail(p, relative, 3, SBX_E_INVALID, "extra[2]");
        expect_roots_fail(p, empty, 1, SBX_E_INVALID, "extra[0] is empty");
        expect_roots_fail(p, overlong, 2, SBX_E_RANGE, "extra[1]");
        expect_roots_fail(p, loop, 2, SBX_E_IO, "extra[1]");
        /* An invalid argument is reported before any file system error. */
        {
                const char *both[] = { F("/loop1"), "" };

                expect_roots_fail(p, both, 2, SBX_E_INVALID, "extra[1]");
        }
        expect_roots_fail(p, NULL, 1, SBX_E_INVALID, "extra is NULL");
        expect_roots_fail(NULL, NULL, 0, SBX_E_INVALID, "policy");
        assert_int_equal(sbx_writable_roots(p, NULL, 0, NULL, NULL, NULL), SBX_E_INVALID);
        free(big);
        sbx_confined_policy_free(p);
}

static void test_paths__roots_workspace_error_is_named(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/dangling"));
        sbx_confined_policy *ro = make_policy(SBX_MODE_READ_ONLY, F("/dangling"));

        (void) state;
        expect_roots_fail(p, NULL, 0, SBX_E_IO, "workspace root");
        /* Read-only never looks at the workspace root. */
        expect_roots(ro, NULL, 0, NULL, 0);
        sbx_confined_policy_free(p);
        sbx_confined_policy_free(ro);
}

/* ------------------------------------------------------ sbx_path_is_within */

static void test_paths__is_within_components(void **state)
{
        const char *roots[] = { "/a/b", "/srv/x" };

        (void) state;
        assert_int_equal(sbx_path_is_within("/a/b", roots, 2), 1);
        assert_int_equal(sbx_path_is_within("/a/b/c", roots, 2), 1);
        assert_int_equal(sbx_path_is_within("/a/b/c/d", roots, 2), 1);
        assert_int_equal(sbx_path_is_within("/srv/x/y", roots, 2), 1);
        assert_int_equal(sbx_path_is_within("/a/bc", roots, 2), 0);
        assert_int_equal(sbx_path_is_within("/a/b-", roots, 2), 0);
        assert_int_equal(sbx_path_is_within("/a", roots, 2), 0);
        assert_int_equal(sbx_path_is_within("/", roots, 2), 0);
        assert_int_equal(sbx_path_is_within("/srv/xy", roots, 2), 0);
        /* Only the first n roots count. */
        assert_int_equal(sbx_path_is_within("/srv/x", roots, 1), 0);
}

static void test_paths__is_within_slash_root(void **state)
{
        const char *roots[] = { "/" };

        (void) state;
        assert_int_equal(sbx_path_is_within("/", roots, 1), 1);
        assert_int_equal(sbx_path_is_within("/anything/at/all", roots, 1), 1);
}

static void test_paths__is_within_edge_cases(void **state)
{
        const char *roots[] = { NULL, "/a/b", NULL };
        const char *bad_roots[] = { "", "a/b", "." };
        const char *ws[] = { "/ws" };

        (void) state;
        assert_int_equal(sbx_path_is_within(NULL, roots, 3), 0);
        assert_int_equal(sbx_path_is_within("/a/b", NULL, 3), 0);
        assert_int_equal(sbx_path_is_within("/a/b", NULL, 0), 0);
        assert_int_equal(sbx_path_is_within("/a/b", roots, 0), 0);
        /* NULL entries are skipped. */
        assert_int_equal(sbx_path_is_within("/a/b/c", roots, 3), 1);
        assert_int_equal(sbx_path_is_within("/x", roots, 3), 0);
        /* An empty or relative root never matches (it must not widen). */
        assert_int_equal(sbx_path_is_within("/a", bad_roots, 3), 0);
        assert_int_equal(sbx_path_is_within("a/b/c", bad_roots, 3), 0);
        /* A relative path is within nothing, not even "/". */
        assert_int_equal(sbx_path_is_within("a/b", roots, 3), 0);
        assert_int_equal(sbx_path_is_within("", roots, 3), 0);
        /* A path that is not canonical fails closed. */
        assert_int_equal(sbx_path_is_within("/ws/../etc/passwd", ws, 1), 0);
        assert_int_equal(sbx_path_is_within("/ws/./x", ws, 1), 0);
        assert_int_equal(sbx_path_is_within("/ws/..", ws, 1), 0);
        /* Names that merely start with dots are ordinary. */
        assert_int_equal(sbx_path_is_within("/ws/..x/.y/...", ws, 1), 1);
}

static void test_paths__has_prefix_internal(void **state)
{
        (void) state;
        assert_int_equal(sbx__path_has_prefix("/a/b", "/a/b"), 1);
        assert_int_equal(sbx__path_has_prefix("/a/b/c", "/a/b"), 1);
        assert_int_equal(sbx__path_has_prefix("/a/bc", "/a/b"), 0);
        assert_int_equal(sbx__path_has_prefix("/a/b/c", "/a/b/"), 1);
        assert_int_equal(sbx__path_has_prefix("/a/b", "/a/b/"), 1);
        assert_int_equal(sbx__path_has_prefix("/x", "/"), 1);
        assert_int_equal(sbx__path_has_prefix("/x", "//"), 1);
        assert_int_equal(sbx__path_has_prefix("/a", "/a/b"), 0);
        assert_int_equal(sbx__path_has_prefix(NULL, "/"), 0);
        assert_int_equal(sbx__path_has_prefix("/a", NULL), 0);
        assert_int_equal(sbx__path_has_prefix("/a", ""), 0);
}

/* The writable roots and the fence agree for every fixture path. */
static void test_paths__roots_and_fence_agree(void **state)
{
        sbx_confined_policy *p = make_policy(SBX_MODE_WORKSPACE_WRITE, F("/ws-link"));
        const char *probes[] = { F("/ws-link/b/file"), F("/link/new"), F("/rel/../bc/x"),
                                 F("/a"), F("/a/../outside"), F("/missing/../a/b") };
        const int inside[] = { 1, 1, 1, 1, 0, 1 };
        char **roots = NULL;
        size_t n = 0, i;

        (void) state;
        assert_int_equal(sbx_writable_roots(p, NULL, 0, &roots, &n, NULL), SBX_OK);
        for (i = 0; i < SBX__ARRAY_SIZE(probes); i++) {
                char *c = NULL;

                assert_int_equal(sbx_path_canonical(probes[i], &c, NULL), SBX_OK);
                if (sbx_path_is_within(c, (const char *const *) roots, n) != inside[i])
                        fail_msg("%s (-> %s): expected within=%d", probes[i], c, inside[i]);
                sbx_free(c);
        }
        sbx_strv_free(roots);
        sbx_confined_policy_free(p);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

/* Make path (relative to home) as a directory (text NULL) or a file with
 * text and mode, creating its parents. */
static void tc_put(const char *home, const char *rel, const char *text, mode_t mode)
{
        char p[PATH_MAX * 2], *c;
        FILE *f;

        (void) snprintf(p, sizeof(p), "%s/%s", home, rel);
        for (c = p + strlen(home) + 1; (c = strchr(c, '/')) != NULL; c++) {
                *c = '\0';
                (void) mkdir(p, 0755);
                *c = '/';
        }
        if (text == NULL) {
                assert_int_equal(mkdir(p, 0755), 0);
                return;
        }
        f = fopen(p, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(p, mode), 0);
}

static void tc_link(const char *home, const char *rel, const char *target)
{
        char p[PATH_MAX * 2];

        (void) snprintf(p, sizeof(p), "%s/%s", home, rel);
        assert_int_equal(symlink(target, p), 0);
}

/*
 * sbx_toolchain_roots: each toolchain's named subtrees, nothing else of its
 * directory (docs/secrets.md, "Toolchains"): a version exposes its runtime
 * subtrees and not its etc/ or top-level files; a glob matches no dot name
 * and no name another pattern spells (go's pkg/mod/cache, a JDK's
 * conf/management beside its named conf/security); a program
 * pattern takes executable files only; links are judged where they lead
 * (a version linked to another is listed once, one leading out of the
 * toolchain is dropped, a toolchain root linked out of the home is
 * skipped, a root that is a file is no toolchain); canonical and sorted.
 */
static void test_paths__toolchain_roots(void **state)
{
        static const char *const want[] = {
                ".cargo/bin",
                ".cargo/registry/src",
                ".local/share/pnpm/pnpm",
                ".local/share/pnpm/store",
                ".rbenv/bin",
                ".rbenv/shims",
                ".rbenv/version",
                ".rbenv/versions/3.2.0/bin",
                ".rbenv/versions/3.2.0/lib",
                ".sdkman/candidates/gradle/8.5/bin",
                ".sdkman/candidates/gradle/8.5/lib",
                ".sdkman/candidates/java/21/bin",
                ".sdkman/candidates/java/21/conf/net.properties",
                ".sdkman/candidates/java/21/conf/security",
                ".sdkman/candidates/java/21/lib",
                ".sdkman/candidates/maven/3.9/bin",
                ".sdkman/candidates/maven/3.9/lib",
                "go/bin",
                "go/pkg/mod/cache/download",
                "go/pkg/mod/github.com",
                "nvm-real/versions/node/v20.1.0/bin",
                "nvm-real/versions/node/v20.1.0/include",
                "nvm-real/versions/node/v20.1.0/lib",
                "nvm-real/versions/node/v20.1.0/share",
        };
        char base[] = "/var/tmp/sbx-tool-XXXXXX", home[PATH_MAX + 8], p[PATH_MAX * 2];
        char real[PATH_MAX], **v = NULL;
        size_t n = 99, i;
        (void) state;

        assert_non_null(mkdtemp(base));
        assert_non_null(realpath(base, real));
        (void) snprintf(home, sizeof(home), "%s/h", real);
        assert_int_equal(mkdir(home, 0755), 0);
        /* cargo: bin and the registry's sources; its config and tokens not */
        tc_put(home, ".cargo/bin", NULL, 0);
        tc_put(home, ".cargo/registry/src", NULL, 0);
        tc_put(home, ".cargo/config.toml", "token\n", 0600);
        tc_put(home, ".cargo/credentials.toml", "token\n", 0600);
        tc_put(home, ".cargo/env", "export PATH\n", 0644);
        tc_put(home, ".cargo/git/db", NULL, 0);
        /* nvm through a link inside the home: the version's runtime trees */
        tc_put(home, "nvm-real/versions/node/v20.1.0/bin", NULL, 0);
        tc_put(home, "nvm-real/versions/node/v20.1.0/lib/node_modules", NULL, 0);
        tc_put(home, "nvm-real/versions/node/v20.1.0/include", NULL, 0);
        tc_put(home, "nvm-real/versions/node/v20.1.0/share", NULL, 0);
        tc_put(home, "nvm-real/versions/node/v20.1.0/etc/npmrc", "token\n", 0600);
        tc_put(home, "nvm-real/versions/node/v20.1.0/CHANGELOG.md", "x\n", 0644);
        tc_put(home, "nvm-real/versions/node/.hidden/bin", NULL, 0);
        tc_put(home, "nvm-real/alias/default", "20\n", 0644);
        tc_put(home, "nvm-real/.git/config", "[remote]\n", 0644);
        tc_link(home, ".nvm", "nvm-real");
        /* pyenv linked out of the home: skipped; rustup a file: no toolchain */
        tc_link(home, ".pyenv", real);
        tc_put(home, ".rustup", "", 0644);
        /* rbenv: a version linked to another is listed once; one leading
         * out of the toolchain is dropped; etc/gemrc and .git not listed */
        tc_put(home, ".rbenv/bin", NULL, 0);
        tc_put(home, ".rbenv/shims", NULL, 0);
        tc_put(home, ".rbenv/version", "3.2.0\n", 0644);
        tc_put(home, ".rbenv/versions/3.2.0/bin", NULL, 0);
        tc_put(home, ".rbenv/versions/3.2.0/lib", NULL, 0);
        tc_put(home, ".rbenv/versions/3.2.0/etc/gemrc", "token\n", 0600);
        tc_put(home, ".rbenv/versions/3.2.0/.gemrc", "token\n", 0600);
        tc_link(home, ".rbenv/versions/3.2", "3.2.0");
        tc_link(home, ".rbenv/versions/out", "/usr");
        tc_put(home, ".rbenv/.git/config", "[remote]\n", 0644);
        /* go: modules and cache/download, not the rest of the cache */
        tc_put(home, "go/bin", NULL, 0);
        tc_put(home, "go/pkg/mod/github.com/x/y@v1", NULL, 0);
        tc_put(home, "go/pkg/mod/cache/download/github.com", NULL, 0);
        tc_put(home, "go/pkg/mod/cache/vcs/0123/config", "[remote]\n", 0644);
        tc_put(home, "go/pkg/mod/.hidden", NULL, 0);
        tc_put(home, "go/pkg/sumdb", NULL, 0);
        /* pnpm: executables at the top, the store; not rc files or dirs */
        tc_put(home, ".local/share/pnpm/pnpm", "#!/bin/sh\n", 0755);
        tc_put(home, ".local/share/pnpm/notes", "token\n", 0644);
        tc_put(home, ".local/share/pnpm/.npmrc", "token\n", 0755);
        tc_put(home, ".local/share/pnpm/store", NULL, 0);
        tc_put(home, ".local/share/pnpm/other", NULL, 0);
        /* sdkman: java's conf, not maven's (settings.xml) nor gradle's init.d */
        tc_put(home, ".sdkman/candidates/java/21/bin", NULL, 0);
        tc_put(home, ".sdkman/candidates/java/21/lib", NULL, 0);
        tc_put(home, ".sdkman/candidates/java/21/conf/security", NULL, 0);
        tc_put(home, ".sdkman/candidates/java/21/conf/net.properties", "x\n", 0644);
        tc_put(home, ".sdkman/candidates/java/21/conf/management/jmxremote.password", "pw\n",
               0600);
        tc_put(home, ".sdkman/candidates/maven/3.9/bin", NULL, 0);
        tc_put(home, ".sdkman/candidates/maven/3.9/lib", NULL, 0);
        tc_put(home, ".sdkman/candidates/maven/3.9/conf/settings.xml", "pw\n", 0600);
        tc_put(home, ".sdkman/candidates/gradle/8.5/bin", NULL, 0);
        tc_put(home, ".sdkman/candidates/gradle/8.5/lib", NULL, 0);
        tc_put(home, ".sdkman/candidates/gradle/8.5/init.d", NULL, 0);
        tc_put(home, ".sdkman/etc/config", "x\n", 0644);

        assert_int_equal(sbx_toolchain_roots(home, &v, &n, NULL), SBX_OK);
        for (i = 0; i < n && i < SBX__ARRAY_SIZE(want); i++) {
                (void) snprintf(p, sizeof(p), "%s/%s", home, want[i]);
                if (strcmp(v[i], p) != 0)
                        fail_msg("entry %zu: %s, want %s", i, v[i], p);
        }
        if (n != SBX__ARRAY_SIZE(want))
                fail_msg("%zu entries, want %zu (next: %s)", n, SBX__ARRAY_SIZE(want),
                         n > SBX__ARRAY_SIZE(want) ? v[SBX__ARRAY_SIZE(want)] : "-");
        assert_null(v[n]);
        sbx_strv_free(v);

        assert_int_equal(sbx_toolchain_roots("relative", &v, &n, NULL), SBX_E_INVALID);
        assert_int_equal(sbx_toolchain_roots("/", &v, &n, NULL), SBX_OK);
        assert_int_equal(n, 0);
        assert_null(v[0]);
        sbx_strv_free(v);
        assert_int_equal(nftw(real, rm_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paths__canonical_rejects_invalid),
                cmocka_unit_test(test_paths__canonical_rejects_overlong),
                cmocka_unit_test(test_paths__canonical_existing_path),
                cmocka_unit_test(test_paths__canonical_cleans_slashes_and_dots),
                cmocka_unit_test(test_paths__canonical_dotdot_through_real_dir),
                cmocka_unit_test(test_paths__canonical_dotdot_after_symlink),
                cmocka_unit_test(test_paths__canonical_missing_leaf_under_symlink),
                cmocka_unit_test(test_paths__canonical_missing_multilevel),
                cmocka_unit_test(test_paths__canonical_file_used_as_directory),
                cmocka_unit_test(test_paths__canonical_symlink_loop_is_error),
                cmocka_unit_test(test_paths__canonical_dangling_symlink_is_error),
                cmocka_unit_test(test_paths__canonical_unsearchable_ancestor_is_error),
                cmocka_unit_test(test_paths__roots_read_only_is_empty),
                cmocka_unit_test(test_paths__roots_workspace_write_is_canonical_root),
                cmocka_unit_test(test_paths__roots_symlinked_workspace_resolved),
                cmocka_unit_test(test_paths__roots_missing_workspace_resolved_lexically),
                cmocka_unit_test(test_paths__roots_extras_in_both_modes),
                cmocka_unit_test(test_paths__roots_duplicates_removed),
                cmocka_unit_test(test_paths__roots_nested_collapse),
                cmocka_unit_test(test_paths__roots_sibling_prefix_not_nested),
                cmocka_unit_test(test_paths__roots_slash_collapses_everything),
                cmocka_unit_test(test_paths__roots_sorted),
                cmocka_unit_test(test_paths__roots_invalid_extras_name_index),
                cmocka_unit_test(test_paths__roots_workspace_error_is_named),
                cmocka_unit_test(test_paths__is_within_components),
                cmocka_unit_test(test_paths__is_within_slash_root),
                cmocka_unit_test(test_paths__is_within_edge_cases),
                cmocka_unit_test(test_paths__has_prefix_internal),
                cmocka_unit_test(test_paths__roots_and_fence_agree),
                cmocka_unit_test(test_paths__toolchain_roots),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
