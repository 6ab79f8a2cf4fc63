/*
 * test_profile_access.c - the gate seam: sbx_profile_access_for's kinds and
 * scope grammar, well-formed and malformed, and that an error never writes
 * an access value.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "profile/profile_internal.h"

#define WS "/nonexistent-sbx-test/ws"
#define UNTOUCHED 77

/*
 * workspace  WS                  read allow, write gated
 * roots      WS/vendor           read gated, write deny
 *            /nonexistent-sbx-test/cache   read allow, write allow
 *            /opt                read deny,  write deny
 * host                           read gated, write deny
 * network gated, command allow
 */
static sbx_profile *make(int32_t network, int32_t command)
{
        sbx_root_access r[3] = {
                { WS "/vendor", SBX_ACCESS_GATED, SBX_ACCESS_DENY },
                { "/nonexistent-sbx-test/cache", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },
                { "/opt", SBX_ACCESS_DENY, SBX_ACCESS_DENY },
        };
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL;
        sbx_error e;

        cfg.workspace_root = WS;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_GATED;
        cfg.host_read = SBX_ACCESS_GATED;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = network;
        cfg.command = command;
        cfg.additional_roots = r;
        cfg.n_additional_roots = 3;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        return p;
}

static int setup(void **state)
{
        *state = make(SBX_ACCESS_GATED, SBX_ACCESS_ALLOW);
        return *state == NULL ? -1 : 0;
}

static int teardown(void **state)
{
        sbx_profile_free(*state);
        return 0;
}

static void expect_access(const sbx_profile *p, const char *kind, const char *scope,
                          int32_t want)
{
        sbx_error e;
        int32_t a = UNTOUCHED;
        sbx_code r = sbx_profile_access_for(p, 1, kind, scope, &a, &e);

        if (r != SBX_OK)
                fail_msg("access_for(%s, \"%s\") = %s: %s", kind, scope, sbx_code_name(r),
                         e.message);
        if (a != want)
                fail_msg("access_for(%s, \"%s\") = %d, want %d", kind, scope, (int) a,
                         (int) want);
}

static void expect_fails(const sbx_profile *p, const char *kind, const char *scope,
                         sbx_code code, const char *needle)
{
        int32_t a = UNTOUCHED;

        assert_sbx_fails(sbx_profile_access_for(p, 1, kind, scope, &a, err), code, needle);
        assert_int_equal(a, UNTOUCHED);
        assert_int_equal(sbx_profile_access_for(p, 1, kind, scope, &a, NULL), code);
        assert_int_equal(a, UNTOUCHED);
}

/* ---------------------------------------------------------- arguments */

static void test_profile__access_for_arguments(void **state)
{
        const sbx_profile *p = *state;
        int32_t a = UNTOUCHED;

        assert_sbx_fails(sbx_profile_access_for(NULL, 1, "network", "*", &a, err),
                         SBX_E_INVALID, "profile");
        assert_sbx_fails(sbx_profile_access_for(p, 1, NULL, "*", &a, err), SBX_E_INVALID,
                         "kind");
        assert_sbx_fails(sbx_profile_access_for(p, 1, "network", NULL, &a, err), SBX_E_INVALID,
                         "scope");
        assert_sbx_fails(sbx_profile_access_for(p, 1, "network", "*", NULL, err),
                         SBX_E_INVALID, "access_out");
        assert_int_equal(a, UNTOUCHED);
}

static void test_profile__access_for_rejects_other_versions(void **state)
{
        const sbx_profile *p = *state;
        static const uint32_t bad[] = { 0, 2, 3, UINT32_MAX };
        size_t i;
        int32_t a = UNTOUCHED;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                assert_sbx_fails(sbx_profile_access_for(p, bad[i], "network", "*", &a, err),
                                 SBX_E_UNSUPPORTED, "version");
                assert_int_equal(a, UNTOUCHED);
        }
        assert_int_equal(sbx_profile_access_for(p, sbx_profile_access_version(), "network", "*",
                                                &a, NULL), SBX_OK);
}

static void test_profile__access_for_rejects_unknown_kinds(void **state)
{
        static const char *const bad[] = {
                "", "filesystem", "filesystem.", "filesystem.READ", "Filesystem.read",
                "filesystem.read ", " network", "network\n", "networks", "command",
                "command.start", "command.execute.v1", "filesystem.execute", "*",
                "network\x1b[31m",
        };
        const sbx_profile *p = *state;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                expect_fails(p, bad[i], "/", SBX_E_INVALID, "unknown kind");
        /* the kind is echoed without its control characters */
        {
                sbx_error e = { 0, 0, "" };
                int32_t a;

                assert_int_equal(sbx_profile_access_for(p, 1, "network\x1b[31m", "*", &a, &e),
                                 SBX_E_INVALID);
                assert_null(strchr(e.message, '\x1b'));
        }
}

/* --------------------------------------------------------- filesystem */

static void test_profile__access_for_filesystem_paths(void **state)
{
        const sbx_profile *p = *state;

        expect_access(p, "filesystem.read", "/", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.write", "/", SBX_ACCESS_DENY);
        expect_access(p, "filesystem.read", "/etc/passwd", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.read", WS, SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.write", WS, SBX_ACCESS_GATED);
        expect_access(p, "filesystem.read", WS "/src/a.c", SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.write", WS "/src/a.c", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.read", WS "x", SBX_ACCESS_GATED);  /* sibling: host */
        expect_access(p, "filesystem.read", WS "/vendor", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.write", WS "/vendor/x/y", SBX_ACCESS_DENY);
        expect_access(p, "filesystem.read", WS "/vendorx", SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.write", WS "/vendorx", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.write", "/nonexistent-sbx-test/cache/go",
                      SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.read", "/opt/x", SBX_ACCESS_DENY);
        expect_access(p, "filesystem.read", "/optx", SBX_ACCESS_GATED);
        /* any bytes are a path component; only the syntax is checked */
        expect_access(p, "filesystem.read", WS "/a b/\xff\x01", SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.read", WS "/...", SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.read", WS "/.hidden", SBX_ACCESS_ALLOW);
}

static void test_profile__access_for_filesystem_tree_and_host(void **state)
{
        const sbx_profile *p = *state;

        expect_access(p, "filesystem.read", "host", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.write", "host", SBX_ACCESS_DENY);
        expect_access(p, "filesystem.read", "tree:" WS, SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.write", "tree:" WS, SBX_ACCESS_GATED);
        expect_access(p, "filesystem.read", "tree:" WS "/vendor", SBX_ACCESS_GATED);
        expect_access(p, "filesystem.write", "tree:" WS "/vendor", SBX_ACCESS_DENY);
        expect_access(p, "filesystem.write", "tree:/nonexistent-sbx-test/cache",
                      SBX_ACCESS_ALLOW);
        expect_access(p, "filesystem.read", "tree:/opt", SBX_ACCESS_DENY);
        expect_fails(p, "filesystem.read", "tree:/", SBX_E_NOT_FOUND, "no configured root");
        expect_fails(p, "filesystem.read", "tree:/etc", SBX_E_NOT_FOUND, "tree:/etc");
        expect_fails(p, "filesystem.write", "tree:" WS "/src", SBX_E_NOT_FOUND, "root");
        expect_fails(p, "filesystem.read", "tree:/nonexistent-sbx-test", SBX_E_NOT_FOUND,
                     "root");
        expect_fails(p, "filesystem.read", "tree:/opt/x", SBX_E_NOT_FOUND, "root");
        expect_fails(p, "filesystem.read", "tree:/op", SBX_E_NOT_FOUND, "root");
        expect_fails(p, "filesystem.read", "tree:/zzz", SBX_E_NOT_FOUND, "root");
}

static void test_profile__access_for_filesystem_malformed(void **state)
{
        static const char *const bad[] = {
                "", "relative", "./x", "~/x", " /x",
                "/a/../b", "/a/..", "/..", "/a/./b", "/.", "/a/.", "/a//b", "//", "//a",
                "/a/", "/a/b/", "HOST", "host ", "Host", "hosts", "tree:", "tree: /a",
                "tree:rel", "tree:/a/", "tree:/a/../b", "tree://a", "tree:host", "TREE:/a",
                "tree/a", "tree:tree:/a",
        };
        const sbx_profile *p = *state;
        char *long_path = malloc(SBX_PATH_MAX + 16);
        size_t i;

        assert_non_null(long_path);
        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                expect_fails(p, "filesystem.read", bad[i], SBX_E_INVALID, "filesystem.read");
                expect_fails(p, "filesystem.write", bad[i], SBX_E_INVALID, "scope");
        }
        /* a trailing space is part of a name, not malformed */
        expect_access(p, "filesystem.read", "/x ", SBX_ACCESS_GATED);

        /* SBX_PATH_MAX - 1 bytes is the longest path, SBX_PATH_MAX too long */
        long_path[0] = '/';
        memset(long_path + 1, 'a', SBX_PATH_MAX);
        long_path[SBX_PATH_MAX - 1] = '\0';
        expect_access(p, "filesystem.read", long_path, SBX_ACCESS_GATED);
        long_path[SBX_PATH_MAX - 1] = 'a';
        long_path[SBX_PATH_MAX] = '\0';
        expect_fails(p, "filesystem.read", long_path, SBX_E_INVALID, "too long");
        free(long_path);
}

/* ------------------------------------------------------------ network */

static void test_profile__access_for_network_well_formed(void **state)
{
        static const char *const good[] = {
                "*", "example.com:443", "EXAMPLE.Com:443", "localhost:1", "a:65535",
                "a-b.c-d:8080", "x1.y2:22", "xn--bcher-kva.example:443", "1.2.3.4:80",
                "0.0.0.0:1", "255.255.255.255:65535", "10.0.0.1:22", "[::1]:22",
                "[::]:1", "[2001:db8::1]:443", "[2001:DB8:0:0:0:0:0:1]:443",
                "[::ffff:1.2.3.4]:80", "a1.b2.c3d:80", "1a:80", "a.1b:80", "3com.com:80",
                "0xz.com:80", "example.0xg1:80", "0x.example:80",
        };
        char label63[128], name253[300];
        sbx_profile *p;
        size_t i;
        int32_t level;

        for (level = SBX_ACCESS_DENY; level <= SBX_ACCESS_ALLOW; level++) {
                p = make(level, SBX_ACCESS_ALLOW);
                for (i = 0; i < SBX__ARRAY_SIZE(good); i++)
                        expect_access(p, "network", good[i], level);
                sbx_profile_free(p);
        }
        p = *state;
        /* a 63-byte label and a 253-byte name are the limits */
        memset(label63, 'a', 63);
        (void) snprintf(label63 + 63, sizeof(label63) - 63, ".com:443");
        expect_access(p, "network", label63, SBX_ACCESS_GATED);
        for (i = 0; i < 252; i++)
                name253[i] = (i % 2) ? '.' : 'a';
        name253[252] = 'b';     /* 127 one-byte labels: 253 bytes */
        (void) snprintf(name253 + 253, sizeof(name253) - 253, ":80");
        expect_access(p, "network", name253, SBX_ACCESS_GATED);
}

static void test_profile__access_for_network_malformed(void **state)
{
        static const char *const bad[] = {
                "", " ", "**", "* ", "*:80", "*.example.com:443", "example.com",
                "example.com:", ":80", ":", "host:0", "host:00", "host:65536", "host:99999",
                "host:123456", "host:080", "host:+80", "host:-1", "host: 80", "host:80 ",
                " host:80", "host:8a", "host:0x50", "a..b:1", ".a:1", "a.:1",
                "example.com.:443", /* trailing dot: not normalized */
                "-a:1", "a-:1", "a.-b:1", "a.b-:1", "exa mple.com:1", "under_score.com:1",
                "é.com:1", "a/b:1", "a@b:1", "user@host:22", "host:22:22",
                "[::1", "[::1]", "[::1]:", "[::1]22", "[::1]:0", "[::1]:65536", "[::1]:022",
                "::1:22", "::1", "[]:22", "[fe80::1%eth0]:22", "[1.2.3.4]:80", "[::1]]:22",
                "[[::1]:22", "[:::1]:22", "[::g]:22", "1.2.3.4]:80",
                "127.1:80", "127.0.1:80", "0x7f000001:80", "0X7F.0.0.1:80", "1.2.3.0x4:80",
                "2130706433:80", "1.2.3.4.5:80", "256.1.1.1:80", "01.2.3.4:80",
                "1.2.3.04:80", "1.2.3:80", "example.123:80", "example.0x:80",
                "example.0x1f:80",
        };
        const sbx_profile *p = *state;
        char label64[128], name254[300];
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                expect_fails(p, "network", bad[i], SBX_E_INVALID, "network scope");
        memset(label64, 'a', 64);
        (void) snprintf(label64 + 64, sizeof(label64) - 64, ".com:443");
        expect_fails(p, "network", label64, SBX_E_INVALID, "network");
        for (i = 0; i < 254; i++)
                name254[i] = (i % 2) ? '.' : 'a';
        name254[253] = 'b';
        (void) snprintf(name254 + 254, sizeof(name254) - 254, ":80");
        expect_fails(p, "network", name254, SBX_E_INVALID, "network");
}

/* ------------------------------------------------------------ command */

static void test_profile__access_for_command_well_formed(void **state)
{
        static const char *const good[] = {
                "ls", "go build ./...", "echo 'a  b'", "make -j4  all", "x",
                "\xc3\xa9\x63h\xc3\xb4",                /* échô */
                "echo \xf0\x9f\x98\x80",                /* U+1F600 */
                "echo \xef\xbf\xbf",                    /* U+FFFF */
                "echo \xf4\x8f\xbf\xbf",                /* U+10FFFF */
                "echo \xc2\xa0 x",                      /* NBSP inside */
                "echo \xc2\xa0x",
                "a\xe2\x80\x8b",                        /* ZWSP is not White_Space */
                "echo \xee\x80\x80",                    /* private use */
                "\"quoted\"",
        };
        char *big = malloc(SBX__COMMAND_MAX + 2);
        sbx_profile *p;
        size_t i;
        int32_t level;

        assert_non_null(big);
        for (level = SBX_ACCESS_DENY; level <= SBX_ACCESS_ALLOW; level++) {
                p = make(SBX_ACCESS_DENY, level);
                for (i = 0; i < SBX__ARRAY_SIZE(good); i++)
                        expect_access(p, "command.execute", good[i], level);
                sbx_profile_free(p);
        }
        memset(big, 'a', SBX__COMMAND_MAX);
        big[SBX__COMMAND_MAX] = '\0';
        expect_access(*state, "command.execute", big, SBX_ACCESS_ALLOW);
        big[SBX__COMMAND_MAX] = 'a';
        big[SBX__COMMAND_MAX + 1] = '\0';
        expect_fails(*state, "command.execute", big, SBX_E_INVALID, "65536");
        free(big);
}

static void test_profile__access_for_command_malformed(void **state)
{
        static const struct {
                const char *scope;
                const char *why;
        } bad[] = {
                { "", "empty" },
                { " ls", "leading whitespace" },
                { "ls ", "trailing whitespace" },
                { "  ", "whitespace" },
                { "\tls", "control" },
                { "ls\n", "control" },
                { "ls\r\nrm -rf /", "control" },
                { "a\x01" "b", "control" },
                { "a\x1b[31mb", "control" },
                { "a\x7f" "b", "control" },
                { "a\xc2\x85" "b", "control" },         /* NEL (C1) */
                { "a\xc2\x9b" "b", "control" },         /* CSI (C1) */
                { "a\xc2\x80", "control" },
                { "\xc2\xa0ls", "leading whitespace" }, /* NBSP */
                { "ls\xe3\x80\x80", "trailing whitespace" },    /* U+3000 */
                { "ls\xe2\x80\xa8", "trailing whitespace" },    /* U+2028 */
                { "\xe2\x80\x83ls", "leading whitespace" },     /* U+2003 */
                { "ls\xe1\x9a\x80", "trailing whitespace" },    /* U+1680 */
                { "a\xc0\xaf", "UTF-8" },               /* overlong '/' */
                { "a\xc1\xbf", "UTF-8" },
                { "a\xe0\x80\xaf", "UTF-8" },           /* overlong */
                { "a\xe0\x9f\xbf", "UTF-8" },
                { "a\xf0\x80\x80\xaf", "UTF-8" },       /* overlong */
                { "a\xf0\x8f\xbf\xbf", "UTF-8" },
                { "a\xed\xa0\x80", "UTF-8" },           /* U+D800 */
                { "a\xed\xbf\xbf", "UTF-8" },           /* U+DFFF */
                { "a\xf4\x90\x80\x80", "UTF-8" },       /* U+110000 */
                { "a\xf5\x80\x80\x80", "UTF-8" },
                { "a\xf8\x88\x80\x80\x80", "UTF-8" },
                { "a\xff", "UTF-8" },
                { "a\xfe", "UTF-8" },
                { "a\x80", "UTF-8" },                   /* stray continuation */
                { "a\xbf", "UTF-8" },
                { "a\xe2\x82", "UTF-8" },               /* truncated */
                { "a\xe2\x82z", "UTF-8" },
                { "a\xf0\x9f\x98", "UTF-8" },
                { "a\xc3", "UTF-8" },
        };
        const sbx_profile *p = *state;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                expect_fails(p, "command.execute", bad[i].scope, SBX_E_INVALID, bad[i].why);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profile__access_for_arguments),
                cmocka_unit_test(test_profile__access_for_rejects_other_versions),
                cmocka_unit_test(test_profile__access_for_rejects_unknown_kinds),
                cmocka_unit_test(test_profile__access_for_filesystem_paths),
                cmocka_unit_test(test_profile__access_for_filesystem_tree_and_host),
                cmocka_unit_test(test_profile__access_for_filesystem_malformed),
                cmocka_unit_test(test_profile__access_for_network_well_formed),
                cmocka_unit_test(test_profile__access_for_network_malformed),
                cmocka_unit_test(test_profile__access_for_command_well_formed),
                cmocka_unit_test(test_profile__access_for_command_malformed),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
