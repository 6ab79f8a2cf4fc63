/*
 * test_profile_v2.c - the version-2 fields of sbx_profile_config
 * (force_workspace, accept_unprotected_git, unix_sockets): validation and
 * its messages, the first layout still accepted and never read past
 * ack_unconfined, config_get filling only what out->version has room for,
 * the fingerprint (unchanged for defaults, sensitive to each field, the
 * documented serialization) and restrict (never wider).
 *
 * The fixture is a canonical mkdtemp directory F under /tmp with F/real/
 * and F/link -> F/real (a socket path below the link is not canonical).
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

#include <nettle/sha2.h>
#include <nettle/version.h>

#include "profile/profile_internal.h"

#define WS "/nonexistent-sbx-test/ws"
#define S1 "/nonexistent-sbx-test/run/a.sock"
#define S2 "/nonexistent-sbx-test/run/b.sock"
#define S3 "/nonexistent-sbx-test/c.sock"

static char fx[PATH_MAX];
static char sentinel_storage;
#define SENTINEL ((sbx_profile *) &sentinel_storage)

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static int setup(void **state)
{
        char tmpl[] = "/tmp/sbx-profile-v2-XXXXXX";
        char a[PATH_MAX + 16], b[PATH_MAX + 16];

        (void) state;
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, fx) == NULL)
                return -1;
        (void) snprintf(a, sizeof(a), "%s/real", fx);
        (void) snprintf(b, sizeof(b), "%s/link", fx);
        if (mkdir(a, 0755) != 0 || symlink(a, b) != 0)
                return -1;
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        return fx[0] != '\0' ? nftw(fx, rm_entry, 16, FTW_DEPTH | FTW_PHYS) : 0;
}

/* A sandboxed config whose workspace exposes nothing new (everything
 * Gated, HOME real), so no host home directory is consulted. */
static sbx_profile_config base_cfg(void)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        cfg.workspace_root = WS;
        cfg.workspace_read = SBX_ACCESS_GATED;
        cfg.workspace_write = SBX_ACCESS_GATED;
        cfg.host_read = SBX_ACCESS_GATED;
        cfg.host_write = SBX_ACCESS_GATED;
        cfg.network = SBX_ACCESS_GATED;
        cfg.command = SBX_ACCESS_GATED;
        cfg.home = SBX_HOME_REAL;
        return cfg;
}

static sbx_profile *must_new(const sbx_profile_config *cfg)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile *p = NULL;

        if (sbx_profile_new(cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        assert_non_null(p);
        return p;
}

static void expect_new_fails(const sbx_profile_config *cfg, sbx_code code, const char *needle)
{
        sbx_profile *p = SENTINEL;

        assert_sbx_fails(sbx_profile_new(cfg, &p, err), code, needle);
        assert_ptr_equal(p, SENTINEL);
}

static void fingerprint(const sbx_profile *p, char out[SBX_FINGERPRINT_SIZE])
{
        assert_int_equal(sbx_profile_fingerprint(p, out, SBX_FINGERPRINT_SIZE, NULL), SBX_OK);
}

static void fingerprint_cfg(const sbx_profile_config *cfg, char out[SBX_FINGERPRINT_SIZE])
{
        sbx_profile *p = must_new(cfg);

        fingerprint(p, out);
        sbx_profile_free(p);
}

/* ------------------------------------------------------------ layout */

static void test_profile_v2__init_is_version_2(void **state)
{
        sbx_profile_config a = SBX_PROFILE_CONFIG_INIT, b;

        (void) state;
        assert_int_equal(SBX_PROFILE_CONFIG_VERSION, 3);   /* version 3: allow_hosts */
        memset(&b, 0xAA, sizeof(b));
        sbx_profile_config_init(&b);
        assert_int_equal(b.version, 3);
        assert_int_equal(a.force_workspace, 0);
        assert_int_equal(b.force_workspace, 0);
        assert_int_equal(b.accept_unprotected_git, 0);
        assert_null(b.unix_sockets);
        assert_int_equal(b.n_unix_sockets, 0);
}

/* Versions 0 and 1 end at ack_unconfined: what follows is never read. */
static void test_profile_v2__first_layout_is_accepted_and_not_read_past(void **state)
{
        sbx_profile_config cfg;
        sbx_profile_config got;
        sbx_profile *p;
        unsigned char *tail;
        size_t off = offsetof(sbx_profile_config, force_workspace), i;
        uint32_t v;

        (void) state;
        for (v = 0; v <= 1; v++) {
                sbx_profile_config ref = base_cfg();
                char f1[SBX_FINGERPRINT_SIZE], f2[SBX_FINGERPRINT_SIZE];

                ref.version = v;
                memset(&cfg, 0xAA, sizeof(cfg));        /* garbage in the v2 fields */
                memcpy(&cfg, &ref, off);
                p = must_new(&cfg);
                assert_int_equal(sbx__profile_force_workspace(p), 0);
                assert_int_equal(sbx__profile_accept_unprotected_git(p), 0);
                assert_null(sbx__profile_unix_sockets(p, NULL));
                fingerprint(p, f1);
                ref.version = 2;
                fingerprint_cfg(&ref, f2);
                assert_string_equal(f1, f2);    /* defaults change nothing */

                /* config_get with an old layout writes nothing past it */
                memset(&got, 0xCC, sizeof(got));
                got.version = v;
                assert_int_equal(sbx_profile_config_get(p, &got, NULL), SBX_OK);
                assert_int_equal(got.version, v);
                assert_string_equal(got.workspace_root, WS);
                assert_int_equal(got.network, SBX_ACCESS_GATED);
                tail = (unsigned char *) &got;
                for (i = off; i < sizeof(got); i++)
                        assert_int_equal(tail[i], 0xCC);
                sbx_profile_free(p);
        }
}

/* ------------------------------------------------------------ validation */

static void test_profile_v2__flags_must_be_0_or_1(void **state)
{
        sbx_profile_config cfg = base_cfg();

        (void) state;
        cfg.force_workspace = 2;
        expect_new_fails(&cfg, SBX_E_INVALID, "force_workspace is 2");
        cfg.force_workspace = -1;
        expect_new_fails(&cfg, SBX_E_INVALID, "force_workspace");
        cfg.force_workspace = 1;
        cfg.accept_unprotected_git = 7;
        expect_new_fails(&cfg, SBX_E_INVALID, "accept_unprotected_git is 7");
        cfg.accept_unprotected_git = 1;
        sbx_profile_free(must_new(&cfg));
}

static void test_profile_v2__unix_sockets_are_validated(void **state)
{
        const char *bad_rel[] = { S1, "run/x.sock" };
        const char *bad_null[] = { S1, NULL };
        const char *bad_dotdot[] = { "/nonexistent-sbx-test/../x.sock" };
        const char *bad_slash[] = { "/nonexistent-sbx-test/x.sock/" };
        const char *dup[] = { S1, S2, S1 };
        const char *many[SBX__PROFILE_MAX_UNIX_SOCKETS + 1];
        char names[SBX__PROFILE_MAX_UNIX_SOCKETS + 1][64];
        char link_sock[PATH_MAX + 32];
        const char *via_link[1];
        sbx_profile_config cfg = base_cfg();
        size_t i;

        (void) state;
        cfg.n_unix_sockets = 1;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets is NULL but n_unix_sockets is 1");
        cfg.unix_sockets = bad_rel;
        cfg.n_unix_sockets = 2;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets[1] \"run/x.sock\" is not absolute");
        cfg.unix_sockets = bad_null;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets[1] is NULL");
        cfg.unix_sockets = bad_dotdot;
        cfg.n_unix_sockets = 1;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets[0]");
        cfg.unix_sockets = bad_slash;
        expect_new_fails(&cfg, SBX_E_INVALID, "trailing slash");
        cfg.unix_sockets = dup;
        cfg.n_unix_sockets = 3;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets[2] duplicates unix_sockets[0]");
        for (i = 0; i < SBX__ARRAY_SIZE(many); i++) {
                (void) snprintf(names[i], sizeof(names[i]), "/nonexistent-sbx-test/s%zu", i);
                many[i] = names[i];
        }
        cfg.unix_sockets = many;
        cfg.n_unix_sockets = SBX__ARRAY_SIZE(many);
        expect_new_fails(&cfg, SBX_E_RANGE, "n_unix_sockets is 65; at most 64");
        cfg.n_unix_sockets = SBX__PROFILE_MAX_UNIX_SOCKETS;
        sbx_profile_free(must_new(&cfg));
        /* canonical on the file system: no symlink component */
        (void) snprintf(link_sock, sizeof(link_sock), "%s/link/x.sock", fx);
        via_link[0] = link_sock;
        cfg.unix_sockets = via_link;
        cfg.n_unix_sockets = 1;
        expect_new_fails(&cfg, SBX_E_INVALID, "unix_sockets[0]");
        expect_new_fails(&cfg, SBX_E_INVALID, "is not canonical");
}

static void test_profile_v2__fields_are_copied_sorted_and_returned(void **state)
{
        char s1[] = S1, s2[] = S2, s3[] = S3;
        const char *in[] = { s2, s3, s1 };
        sbx_profile_config cfg = base_cfg(), got = SBX_PROFILE_CONFIG_INIT;
        const char *const *v;
        sbx_profile *p;
        size_t n = 99;

        (void) state;
        cfg.force_workspace = 1;
        cfg.accept_unprotected_git = 1;
        cfg.unix_sockets = in;
        cfg.n_unix_sockets = 3;
        p = must_new(&cfg);
        memset(s1, 'x', sizeof(s1) - 1);        /* copied, not borrowed */
        assert_int_equal(sbx__profile_force_workspace(p), 1);
        assert_int_equal(sbx__profile_accept_unprotected_git(p), 1);
        v = sbx__profile_unix_sockets(p, &n);
        assert_int_equal(n, 3);
        assert_string_equal(v[0], S3);          /* strcmp order */
        assert_string_equal(v[1], S1);
        assert_string_equal(v[2], S2);
        assert_int_equal(sbx_profile_config_get(p, &got, NULL), SBX_OK);
        assert_int_equal(got.version, SBX_PROFILE_CONFIG_VERSION);
        assert_int_equal(got.force_workspace, 1);
        assert_int_equal(got.accept_unprotected_git, 1);
        assert_int_equal(got.n_unix_sockets, 3);
        assert_string_equal(got.unix_sockets[1], S1);
        sbx_profile_free(p);
        assert_int_equal(sbx__profile_force_workspace(NULL), 0);
        assert_null(sbx__profile_unix_sockets(NULL, &n));
        assert_int_equal(n, 0);
}

/* ----------------------------------------------------------- fingerprint */

static void test_profile_v2__fingerprint_sees_every_field(void **state)
{
        const char *one[] = { S1 }, *two[] = { S1, S2 }, *two_rev[] = { S2, S1 };
        sbx_profile_config cfg = base_cfg();
        char f0[SBX_FINGERPRINT_SIZE], f[4][SBX_FINGERPRINT_SIZE];
        char g[SBX_FINGERPRINT_SIZE];
        size_t i, j;

        (void) state;
        fingerprint_cfg(&cfg, f0);
        cfg.force_workspace = 1;
        fingerprint_cfg(&cfg, f[0]);
        cfg.force_workspace = 0;
        cfg.accept_unprotected_git = 1;
        fingerprint_cfg(&cfg, f[1]);
        cfg.accept_unprotected_git = 0;
        cfg.unix_sockets = one;
        cfg.n_unix_sockets = 1;
        fingerprint_cfg(&cfg, f[2]);
        cfg.unix_sockets = two;
        cfg.n_unix_sockets = 2;
        fingerprint_cfg(&cfg, f[3]);
        for (i = 0; i < 4; i++) {
                assert_string_not_equal(f0, f[i]);
                for (j = 0; j < i; j++)
                        assert_string_not_equal(f[i], f[j]);
        }
        cfg.unix_sockets = two_rev;             /* order does not matter */
        fingerprint_cfg(&cfg, g);
        assert_string_equal(g, f[3]);
}

static void sha256_hex(const char *text, char out[SBX_FINGERPRINT_SIZE])
{
        static const char hex[] = "0123456789abcdef";
        uint8_t d[SHA256_DIGEST_SIZE];
        struct sha256_ctx ctx;
        size_t i;

        sha256_init(&ctx);
        sha256_update(&ctx, strlen(text), (const uint8_t *) text);
#if NETTLE_VERSION_MAJOR >= 4
        sha256_digest(&ctx, d);
#else
        sha256_digest(&ctx, sizeof(d), d);
#endif
        for (i = 0; i < sizeof(d); i++) {
                out[2 * i] = hex[d[i] >> 4];
                out[2 * i + 1] = hex[d[i] & 0xf];
        }
        out[64] = '\0';
}

/* The documented serialization (docs/profiles.md), v2 lines included. */
static void test_profile_v2__fingerprint_matches_documented_serialization(void **state)
{
        const char *socks[] = { S2, S1 };
        sbx_profile_config cfg = base_cfg();
        char want[SBX_FINGERPRINT_SIZE], got[SBX_FINGERPRINT_SIZE];

        (void) state;
        cfg.force_workspace = 1;
        cfg.accept_unprotected_git = 1;
        cfg.unix_sockets = socks;
        cfg.n_unix_sockets = 2;
        fingerprint_cfg(&cfg, got);
        sha256_hex("sbx-profile-v1\n"
                   "workspace_root=24:" WS "\n"
                   "workspace_read=gated\nworkspace_write=gated\n"
                   "host_read=gated\nhost_write=gated\n"
                   "network=gated\ncommand=gated\n"
                   "home=real\nisolation=sandboxed\nack_unconfined=0\n"
                   "roots=0\n"
                   "force_workspace=1\n"
                   "accept_unprotected_git=1\n"
                   "unix_sockets=2\n"
                   "unix_socket=32:" S1 "\n"
                   "unix_socket=32:" S2 "\n", want);
        assert_string_equal(got, want);
}

/* -------------------------------------------------------------- restrict */

static void test_profile_v2__restrict_is_never_wider(void **state)
{
        const char *sa[] = { S1, S2 }, *sb[] = { S2, S3 };
        sbx_profile_config ca = base_cfg(), cb = base_cfg();
        sbx_profile *a, *b, *r = NULL;
        const char *const *v;
        size_t n;

        (void) state;
        ca.force_workspace = 1;
        ca.accept_unprotected_git = 1;
        ca.unix_sockets = sa;
        ca.n_unix_sockets = 2;
        cb.accept_unprotected_git = 1;
        cb.unix_sockets = sb;
        cb.n_unix_sockets = 2;
        a = must_new(&ca);
        b = must_new(&cb);
        assert_int_equal(sbx_profile_restrict(a, b, &r, NULL), SBX_OK);
        assert_int_equal(sbx__profile_force_workspace(r), 0);           /* min */
        assert_int_equal(sbx__profile_accept_unprotected_git(r), 1);    /* both */
        v = sbx__profile_unix_sockets(r, &n);                           /* intersection */
        assert_int_equal(n, 1);
        assert_string_equal(v[0], S2);
        sbx_profile_free(r);
        cb.n_unix_sockets = 0;
        cb.unix_sockets = NULL;
        cb.accept_unprotected_git = 0;
        sbx_profile_free(b);
        b = must_new(&cb);
        assert_int_equal(sbx_profile_restrict(a, b, &r, NULL), SBX_OK);
        assert_int_equal(sbx__profile_accept_unprotected_git(r), 0);
        assert_null(sbx__profile_unix_sockets(r, &n));
        assert_int_equal(n, 0);
        sbx_profile_free(r);
        sbx_profile_free(a);
        sbx_profile_free(b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profile_v2__init_is_version_2),
                cmocka_unit_test(test_profile_v2__first_layout_is_accepted_and_not_read_past),
                cmocka_unit_test(test_profile_v2__flags_must_be_0_or_1),
                cmocka_unit_test(test_profile_v2__unix_sockets_are_validated),
                cmocka_unit_test(test_profile_v2__fields_are_copied_sorted_and_returned),
                cmocka_unit_test(test_profile_v2__fingerprint_sees_every_field),
                cmocka_unit_test(test_profile_v2__fingerprint_matches_documented_serialization),
                cmocka_unit_test(test_profile_v2__restrict_is_never_wider),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
