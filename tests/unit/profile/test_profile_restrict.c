/*
 * test_profile_restrict.c - sbx_profile_restrict: examples, arguments, and
 * a property test over ~2000 random valid pairs of profiles on a small path
 * universe below a canonical mkdtemp directory T:
 *
 *   roots   T, T/w, T/w/a, T/w/a/b, T/x, T/x/y    (T/w, T/w/a, T/x exist)
 *   probes  the roots plus T/w/a/b/c, T/w/ab, T/wa, T/x/y/z, T/z, "/", "/etc"
 *
 * For every pair (b, c), r = restrict(b, c) and every probe and kind:
 *   access(r) == min(access(b), access(c)) (so never wider than either);
 *   tree: scopes exist exactly for the roots of b and c (and both workspace
 *   roots) with the minimum of both profiles' access there;
 *   restrict(r, c) and restrict(r, b) have r's fingerprint (idempotent);
 *   restrict(b, b) has b's fingerprint;
 *   restrict(c, b) grants the same access as r;
 *   force_workspace and accept_unprotected_git are the minimum, the unix
 *   sockets (from T/s0.sock, T/s1.sock, T/s2.sock) the intersection.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/profile_internal.h"

static char T[PATH_MAX];
static char sentinel_storage;
#define SENTINEL ((sbx_profile *) &sentinel_storage)

enum { N_UNIVERSE = 6, N_PROBES = 13, MAX_RANDOM_ROOTS = 4, N_SOCKETS = 3 };
static char universe[N_UNIVERSE][PATH_MAX];
static char sockets[N_SOCKETS][PATH_MAX];
static char probes[N_PROBES][PATH_MAX];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static int setup(void **state)
{
        static const char *const u[N_UNIVERSE] = { "", "/w", "/w/a", "/w/a/b", "/x", "/x/y" };
        static const char *const extra[] = {
                "/w/a/b/c", "/w/ab", "/wa", "/x/y/z", "/z",
        };
        char tmpl[] = "/tmp/sbx-restrict-XXXXXX";
        char buf[PATH_MAX * 2];
        size_t i, n = 0;

        (void) state;
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, T) == NULL)
                return -1;
        (void) snprintf(buf, sizeof(buf), "%s/w", T);
        if (mkdir(buf, 0755) != 0)
                return -1;
        (void) snprintf(buf, sizeof(buf), "%s/w/a", T);
        if (mkdir(buf, 0755) != 0)
                return -1;
        (void) snprintf(buf, sizeof(buf), "%s/x", T);
        if (mkdir(buf, 0755) != 0)
                return -1;
        for (i = 0; i < N_UNIVERSE; i++) {
                (void) snprintf(universe[i], PATH_MAX, "%s%s", T, u[i]);
                (void) snprintf(probes[n++], PATH_MAX, "%s", universe[i]);
        }
        for (i = 0; i < SBX__ARRAY_SIZE(extra); i++)
                (void) snprintf(probes[n++], PATH_MAX, "%s%s", T, extra[i]);
        for (i = 0; i < N_SOCKETS; i++)
                if (snprintf(sockets[i], PATH_MAX, "%.4000s/s%zu.sock", T, i) >= PATH_MAX)
                        return -1;
        (void) snprintf(probes[n++], PATH_MAX, "/");
        (void) snprintf(probes[n++], PATH_MAX, "/etc");
        return n == N_PROBES ? 0 : -1;
}

static int teardown(void **state)
{
        (void) state;
        if (T[0] == '\0')
                return 0;
        return nftw(T, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int32_t min32(int32_t a, int32_t b)
{
        return a < b ? a : b;
}

static sbx_profile *must_new(const sbx_profile_config *cfg)
{
        sbx_error e;
        sbx_profile *p = NULL;
        sbx_code r = sbx_profile_new(cfg, &p, &e);

        if (r != SBX_OK)
                fail_msg("sbx_profile_new = %s: %s", sbx_code_name(r), e.message);
        return p;
}

static sbx_profile *must_restrict(const sbx_profile *b, const sbx_profile *c)
{
        sbx_error e;
        sbx_profile *p = NULL;
        sbx_code r = sbx_profile_restrict(b, c, &p, &e);

        if (r != SBX_OK)
                fail_msg("sbx_profile_restrict = %s: %s", sbx_code_name(r), e.message);
        assert_non_null(p);
        return p;
}

static int32_t access_of(const sbx_profile *p, const char *kind, const char *scope)
{
        sbx_error e;
        int32_t a = -1;
        sbx_code r = sbx_profile_access_for(p, 1, kind, scope, &a, &e);

        if (r != SBX_OK)
                fail_msg("access_for(%s, %s) = %s: %s", kind, scope, sbx_code_name(r),
                         e.message);
        assert_true(a >= SBX_ACCESS_DENY && a <= SBX_ACCESS_ALLOW);
        return a;
}

static void fingerprint(const sbx_profile *p, char out[SBX_FINGERPRINT_SIZE])
{
        assert_int_equal(sbx_profile_fingerprint(p, out, SBX_FINGERPRINT_SIZE, NULL), SBX_OK);
}

/* ------------------------------------------------------------ examples */

static void test_profile__restrict_arguments(void **state)
{
        sbx_profile *a = NULL, *out = SENTINEL;

        (void) state;
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_READ_ONLY, universe[1], &a, NULL),
                         SBX_OK);
        assert_sbx_fails(sbx_profile_restrict(NULL, a, &out, err), SBX_E_INVALID,
                         "sbx_profile_restrict: base");
        assert_sbx_fails(sbx_profile_restrict(a, NULL, &out, err), SBX_E_INVALID, "ceiling");
        assert_sbx_fails(sbx_profile_restrict(a, a, NULL, err), SBX_E_INVALID, "out");
        assert_ptr_equal(out, SENTINEL);
        sbx_profile_free(a);
}

static void test_profile__restrict_danger_by_read_only(void **state)
{
        sbx_profile *danger = NULL, *ro = NULL, *r;
        sbx_profile_config got = SBX_PROFILE_CONFIG_INIT;

        (void) state;
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, universe[1], &danger,
                                               NULL), SBX_OK);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_READ_ONLY, universe[4], &ro, NULL),
                         SBX_OK);
        r = must_restrict(danger, ro);
        assert_int_equal(sbx_profile_config_get(r, &got, NULL), SBX_OK);
        assert_string_equal(got.workspace_root, universe[1]);   /* base's */
        assert_int_equal(got.workspace_read, SBX_ACCESS_ALLOW);
        assert_int_equal(got.workspace_write, SBX_ACCESS_DENY); /* host write of ro */
        assert_int_equal(got.host_read, SBX_ACCESS_ALLOW);
        assert_int_equal(got.host_write, SBX_ACCESS_DENY);
        assert_int_equal(got.network, SBX_ACCESS_DENY);
        assert_int_equal(got.command, SBX_ACCESS_ALLOW);
        assert_int_equal(got.home, SBX_HOME_ISOLATED);
        assert_int_equal(got.isolation, SBX_ISOLATION_SANDBOXED);
        assert_int_equal(got.ack_unconfined, 0);
        /* the ceiling's workspace root is kept as a root, with the minimum */
        assert_int_equal(got.n_additional_roots, 1);
        assert_string_equal(got.additional_roots[0].path, universe[4]);
        assert_int_equal(got.additional_roots[0].read, SBX_ACCESS_ALLOW);
        assert_int_equal(got.additional_roots[0].write, SBX_ACCESS_DENY);
        sbx_profile_free(r);

        /* the other way round keeps the read-only workspace */
        r = must_restrict(ro, danger);
        assert_int_equal(sbx_profile_config_get(r, &got, NULL), SBX_OK);
        assert_string_equal(got.workspace_root, universe[4]);
        assert_int_equal(got.isolation, SBX_ISOLATION_SANDBOXED);
        sbx_profile_free(r);

        /* unconfined with unconfined stays unconfined, acknowledged */
        r = must_restrict(danger, danger);
        assert_int_equal(sbx_profile_config_get(r, &got, NULL), SBX_OK);
        assert_int_equal(got.isolation, SBX_ISOLATION_UNCONFINED);
        assert_int_equal(got.ack_unconfined, 1);
        assert_int_equal(got.home, SBX_HOME_REAL);
        assert_int_equal(got.n_additional_roots, 0);
        sbx_profile_free(r);
        sbx_profile_free(danger);
        sbx_profile_free(ro);
}

static void test_profile__restrict_nested_roots(void **state)
{
        /* base: workspace T/w allow/allow, root T/w/a/b deny/deny, host gated/deny.
         * ceiling: workspace T allow/gated, root T/w/a allow/allow. */
        sbx_root_access rb = { NULL, SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        sbx_root_access rc = { NULL, SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW };
        sbx_profile_config cb = SBX_PROFILE_CONFIG_INIT, cc = SBX_PROFILE_CONFIG_INIT;
        sbx_profile_config got = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *b, *c, *r;
        char path[PATH_MAX * 2];

        (void) state;
        rb.path = universe[3];
        cb.workspace_root = universe[1];
        cb.workspace_read = SBX_ACCESS_ALLOW;
        cb.workspace_write = SBX_ACCESS_ALLOW;
        cb.host_read = SBX_ACCESS_GATED;
        cb.additional_roots = &rb;
        cb.n_additional_roots = 1;
        cb.command = SBX_ACCESS_GATED;
        rc.path = universe[2];
        cc.workspace_root = universe[0];
        cc.workspace_read = SBX_ACCESS_ALLOW;
        cc.workspace_write = SBX_ACCESS_GATED;
        cc.host_read = SBX_ACCESS_ALLOW;
        cc.additional_roots = &rc;
        cc.n_additional_roots = 1;
        cc.network = SBX_ACCESS_ALLOW;
        cc.command = SBX_ACCESS_ALLOW;
        b = must_new(&cb);
        c = must_new(&cc);
        r = must_restrict(b, c);
        assert_int_equal(sbx_profile_config_get(r, &got, NULL), SBX_OK);
        assert_int_equal(got.workspace_write, SBX_ACCESS_GATED);        /* c's T */
        assert_int_equal(got.n_additional_roots, 3);
        assert_string_equal(got.additional_roots[0].path, universe[0]);
        assert_int_equal(got.additional_roots[0].read, SBX_ACCESS_GATED);  /* b's host */
        assert_int_equal(got.additional_roots[0].write, SBX_ACCESS_DENY);
        assert_string_equal(got.additional_roots[1].path, universe[2]);
        assert_int_equal(got.additional_roots[1].read, SBX_ACCESS_ALLOW);
        assert_int_equal(got.additional_roots[1].write, SBX_ACCESS_ALLOW); /* b's T/w, c's T/w/a */
        assert_string_equal(got.additional_roots[2].path, universe[3]);
        assert_int_equal(got.additional_roots[2].read, SBX_ACCESS_DENY);
        assert_int_equal(got.network, SBX_ACCESS_DENY);
        assert_int_equal(got.command, SBX_ACCESS_GATED);
        (void) snprintf(path, sizeof(path), "%s/w/file", T);
        assert_int_equal(access_of(r, "filesystem.write", path), SBX_ACCESS_GATED);
        (void) snprintf(path, sizeof(path), "%s/w/a/file", T);
        assert_int_equal(access_of(r, "filesystem.write", path), SBX_ACCESS_ALLOW);
        (void) snprintf(path, sizeof(path), "%s/w/a/b/file", T);
        assert_int_equal(access_of(r, "filesystem.read", path), SBX_ACCESS_DENY);
        (void) snprintf(path, sizeof(path), "%s/other", T);
        assert_int_equal(access_of(r, "filesystem.read", path), SBX_ACCESS_GATED);
        assert_int_equal(access_of(r, "filesystem.read", "/etc"), SBX_ACCESS_GATED);
        sbx_profile_free(r);
        sbx_profile_free(b);
        sbx_profile_free(c);
}

static void test_profile__restrict_ceiling_root_at_base_workspace(void **state)
{
        sbx_root_access rc = { NULL, SBX_ACCESS_GATED, SBX_ACCESS_DENY };
        sbx_profile_config cc = SBX_PROFILE_CONFIG_INIT;
        sbx_profile_config got = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *b = NULL, *c, *r;

        (void) state;
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, universe[1], &b, NULL),
                         SBX_OK);
        rc.path = universe[1];
        cc.workspace_root = universe[4];
        cc.workspace_read = SBX_ACCESS_ALLOW;
        cc.workspace_write = SBX_ACCESS_ALLOW;
        cc.host_read = SBX_ACCESS_ALLOW;
        cc.command = SBX_ACCESS_ALLOW;
        cc.additional_roots = &rc;
        cc.n_additional_roots = 1;
        c = must_new(&cc);
        r = must_restrict(b, c);
        assert_int_equal(sbx_profile_config_get(r, &got, NULL), SBX_OK);
        assert_string_equal(got.workspace_root, universe[1]);
        assert_int_equal(got.workspace_read, SBX_ACCESS_GATED);
        assert_int_equal(got.workspace_write, SBX_ACCESS_DENY);
        assert_int_equal(got.n_additional_roots, 1);    /* only c's workspace */
        assert_string_equal(got.additional_roots[0].path, universe[4]);
        assert_int_equal(got.additional_roots[0].read, SBX_ACCESS_ALLOW);
        assert_int_equal(got.additional_roots[0].write, SBX_ACCESS_DENY);
        sbx_profile_free(r);
        sbx_profile_free(b);
        sbx_profile_free(c);
}

static void test_profile__restrict_root_limit(void **state)
{
        enum { HALF = SBX__PROFILE_MAX_ROOTS / 2 + 1 };
        static char pb[HALF][64], pc[HALF][64];
        sbx_root_access rb[HALF], rc[HALF];
        sbx_profile_config cb = SBX_PROFILE_CONFIG_INIT, cc = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *b, *c, *out = SENTINEL;
        size_t i;

        (void) state;
        for (i = 0; i < HALF; i++) {
                (void) snprintf(pb[i], sizeof(pb[i]), "/nonexistent-sbx-test/b%zu", i);
                (void) snprintf(pc[i], sizeof(pc[i]), "/nonexistent-sbx-test/c%zu", i);
                rb[i] = (sbx_root_access) { pb[i], SBX_ACCESS_GATED, SBX_ACCESS_DENY };
                rc[i] = (sbx_root_access) { pc[i], SBX_ACCESS_GATED, SBX_ACCESS_DENY };
        }
        cb.workspace_root = "/nonexistent-sbx-test/ws";
        cb.additional_roots = rb;
        cb.n_additional_roots = HALF;
        cc = cb;
        cc.additional_roots = rc;
        b = must_new(&cb);
        c = must_new(&cc);
        assert_sbx_fails(sbx_profile_restrict(b, c, &out, err), SBX_E_RANGE, "roots");
        assert_ptr_equal(out, SENTINEL);
        sbx_profile_free(b);
        sbx_profile_free(c);
}

/* ---------------------------------------------------- property test */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (uint32_t) ((rng_state >> 11) % n);
}

static void random_rw(int32_t *r, int32_t *w)
{
        *r = (int32_t) rnd(3);
        *w = (int32_t) rnd((uint32_t) *r + 1);
}

static sbx_profile *random_profile(void)
{
        sbx_root_access roots[MAX_RANDOM_ROOTS];
        const char *socks[N_SOCKETS];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        int used[N_UNIVERSE] = { 0 };
        size_t ws = rnd(N_UNIVERSE), n = rnd(MAX_RANDOM_ROOTS + 1), i, k;
        int unconfined = rnd(8) == 0;

        used[ws] = 1;
        cfg.workspace_root = universe[ws];
        for (i = 0; i < n; i++) {
                do {
                        k = rnd(N_UNIVERSE);
                } while (used[k]);
                used[k] = 1;
                roots[i].path = universe[k];
                if (unconfined) {
                        roots[i].read = SBX_ACCESS_ALLOW;
                        roots[i].write = SBX_ACCESS_ALLOW;
                } else {
                        random_rw(&roots[i].read, &roots[i].write);
                }
        }
        cfg.additional_roots = n > 0 ? roots : NULL;
        cfg.n_additional_roots = n;
        cfg.command = (int32_t) rnd(3);
        cfg.force_workspace = (int32_t) rnd(2);
        cfg.accept_unprotected_git = (int32_t) rnd(2);
        for (i = 0; i < N_SOCKETS; i++)
                if (rnd(2))
                        socks[cfg.n_unix_sockets++] = sockets[N_SOCKETS - 1 - i];
        cfg.unix_sockets = cfg.n_unix_sockets > 0 ? socks : NULL;
        if (unconfined) {
                cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_ALLOW;
                cfg.host_read = cfg.host_write = SBX_ACCESS_ALLOW;
                cfg.network = SBX_ACCESS_ALLOW;
                cfg.home = SBX_HOME_REAL;
                cfg.isolation = SBX_ISOLATION_UNCONFINED;
                cfg.ack_unconfined = 1;
        } else {
                random_rw(&cfg.workspace_read, &cfg.workspace_write);
                random_rw(&cfg.host_read, &cfg.host_write);
                cfg.network = (int32_t) rnd(3);
                cfg.home = (int32_t) rnd(2);
        }
        return must_new(&cfg);
}

/* Is `path` a configured point (workspace or additional root) of p? */
static int is_point(const sbx_profile *p, const char *path)
{
        sbx_profile_config got = SBX_PROFILE_CONFIG_INIT;
        size_t i;

        assert_int_equal(sbx_profile_config_get(p, &got, NULL), SBX_OK);
        if (strcmp(got.workspace_root, path) == 0)
                return 1;
        for (i = 0; i < got.n_additional_roots; i++)
                if (strcmp(got.additional_roots[i].path, path) == 0)
                        return 1;
        return 0;
}

static int has_socket(const sbx_profile_config *cfg, const char *path)
{
        size_t i;

        for (i = 0; i < cfg->n_unix_sockets; i++)
                if (strcmp(cfg->unix_sockets[i], path) == 0)
                        return 1;
        return 0;
}

static void check_pair(const sbx_profile *b, const sbx_profile *c, unsigned iter)
{
        static const char *const fs_kinds[] = { "filesystem.read", "filesystem.write" };
        sbx_profile *r = must_restrict(b, c), *rc = must_restrict(c, b);
        sbx_profile *again;
        sbx_profile_config gb = SBX_PROFILE_CONFIG_INIT, gc = SBX_PROFILE_CONFIG_INIT;
        sbx_profile_config gr = SBX_PROFILE_CONFIG_INIT;
        char f1[SBX_FINGERPRINT_SIZE], f2[SBX_FINGERPRINT_SIZE];
        char tree[PATH_MAX + 8];
        size_t i, k;

        for (k = 0; k < 2; k++) {
                for (i = 0; i < N_PROBES; i++) {
                        int32_t ab = access_of(b, fs_kinds[k], probes[i]);
                        int32_t ac = access_of(c, fs_kinds[k], probes[i]);
                        int32_t ar = access_of(r, fs_kinds[k], probes[i]);

                        if (ar != min32(ab, ac))
                                fail_msg("iter %u: %s %s: restrict %d, base %d, ceiling %d",
                                         iter, fs_kinds[k], probes[i], (int) ar, (int) ab,
                                         (int) ac);
                        assert_int_equal(access_of(rc, fs_kinds[k], probes[i]), ar);

                        /* tree: exactly the points of either profile */
                        if (snprintf(tree, sizeof(tree), "tree:%s", probes[i]) >=
                            (int) sizeof(tree))
                                fail_msg("tree:%s does not fit", probes[i]);
                        if (is_point(b, probes[i]) || is_point(c, probes[i])) {
                                assert_int_equal(access_of(r, fs_kinds[k], tree), ar);
                        } else {
                                int32_t a = 99;

                                assert_int_equal(sbx_profile_access_for(r, 1, fs_kinds[k], tree,
                                                                        &a, NULL),
                                                 SBX_E_NOT_FOUND);
                                assert_int_equal(a, 99);
                        }
                }
                assert_int_equal(access_of(r, fs_kinds[k], "host"),
                                 min32(access_of(b, fs_kinds[k], "host"),
                                       access_of(c, fs_kinds[k], "host")));
        }
        assert_int_equal(access_of(r, "network", "*"),
                         min32(access_of(b, "network", "*"), access_of(c, "network", "*")));
        assert_int_equal(access_of(r, "network", "example.com:443"),
                         access_of(r, "network", "*"));
        assert_int_equal(access_of(r, "command.execute", "ls -l"),
                         min32(access_of(b, "command.execute", "ls -l"),
                               access_of(c, "command.execute", "ls -l")));

        assert_int_equal(sbx_profile_config_get(b, &gb, NULL), SBX_OK);
        assert_int_equal(sbx_profile_config_get(c, &gc, NULL), SBX_OK);
        assert_int_equal(sbx_profile_config_get(r, &gr, NULL), SBX_OK);
        assert_string_equal(gr.workspace_root, gb.workspace_root);
        assert_int_equal(gr.home, min32(gb.home, gc.home));
        assert_int_equal(gr.isolation, min32(gb.isolation, gc.isolation));
        assert_int_equal(gr.ack_unconfined, gr.isolation == SBX_ISOLATION_UNCONFINED);
        assert_int_equal(gr.force_workspace, min32(gb.force_workspace, gc.force_workspace));
        assert_int_equal(gr.accept_unprotected_git,
                         min32(gb.accept_unprotected_git, gc.accept_unprotected_git));
        for (i = 0; i < N_SOCKETS; i++)
                assert_int_equal(has_socket(&gr, sockets[i]),
                                 has_socket(&gb, sockets[i]) && has_socket(&gc, sockets[i]));
        assert_true(gr.n_unix_sockets <= gb.n_unix_sockets);

        /* idempotent, and restricting by something wider changes nothing */
        fingerprint(r, f1);
        again = must_restrict(r, c);
        fingerprint(again, f2);
        assert_string_equal(f1, f2);
        sbx_profile_free(again);
        again = must_restrict(r, b);
        fingerprint(again, f2);
        assert_string_equal(f1, f2);
        sbx_profile_free(again);
        /* the config round-trips through sbx_profile_new */
        again = must_new(&gr);
        fingerprint(again, f2);
        assert_string_equal(f1, f2);
        sbx_profile_free(again);

        sbx_profile_free(r);
        sbx_profile_free(rc);
}

static void test_profile__restrict_property(void **state)
{
        enum { PAIRS = 2000 };
        char f1[SBX_FINGERPRINT_SIZE], f2[SBX_FINGERPRINT_SIZE];
        unsigned iter;

        (void) state;
        for (iter = 0; iter < PAIRS; iter++) {
                sbx_profile *b = random_profile(), *c = random_profile(), *bb;

                check_pair(b, c, iter);
                bb = must_restrict(b, b);
                fingerprint(b, f1);
                fingerprint(bb, f2);
                assert_string_equal(f1, f2);
                sbx_profile_free(bb);
                sbx_profile_free(b);
                sbx_profile_free(c);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profile__restrict_arguments),
                cmocka_unit_test(test_profile__restrict_danger_by_read_only),
                cmocka_unit_test(test_profile__restrict_nested_roots),
                cmocka_unit_test(test_profile__restrict_ceiling_root_at_base_workspace),
                cmocka_unit_test(test_profile__restrict_root_limit),
                cmocka_unit_test(test_profile__restrict_property),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
