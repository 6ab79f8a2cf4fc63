/* Host names, targets, allowlist rules, matching and the route fingerprint
 * (src/net/target.c, src/net/route.c). */
#include "unit/sbx_test.h"

#include <stdio.h>

#include "net/net.h"

static const char *norm(const char *in)
{
        static char buf[SBX__NET_TARGET_TEXT];

        if (sbx__net_target_normalize(in, buf, sizeof(buf), NULL) != SBX_OK)
                return "";
        return buf;
}

static void test_net_target__normalise(void **state)
{
        char small[8];
        (void) state;

        assert_string_equal(norm("Registry.NPMJS.org:443"), "registry.npmjs.org:443");
        assert_string_equal(norm("example.com.:80"), "example.com:80");
        assert_string_equal(norm("localhost:8080"), "localhost:8080");
        assert_string_equal(norm("xn--bcher-kva.example:443"), "xn--bcher-kva.example:443");
        assert_string_equal(norm("127.0.0.1:65535"), "127.0.0.1:65535");
        assert_string_equal(norm("[::1]:8080"), "[::1]:8080");
        assert_string_equal(norm("[0:0::1]:1"), "[::1]:1");
        assert_string_equal(norm("[::ffff:127.0.0.1]:22"), "127.0.0.1:22");
        assert_string_equal(norm("a-b.c:0080"), "a-b.c:80");
        assert_sbx_fails(sbx__net_target_normalize("example.com", small, sizeof(small), err),
                         SBX_E_RANGE, "outsz");
        assert_sbx_fails(sbx__net_target_normalize(NULL, small, sizeof(small), err),
                         SBX_E_INVALID, "required");
}

static void test_net_target__refusals_say_why(void **state)
{
        static const struct { const char *in, *why; } t[] = {
                { "example.com", "port is required" },
                { "example.com:", "empty port" },
                { "example.com:0", "port 0" },
                { "example.com:65536", "1 to 65535" },
                { "example.com:-1", "1 to 65535" },
                { "example.com:8a", "1 to 65535" },
                { ":80", "empty host" },
                { ".:80", "empty host" },
                { "a..b:80", "empty label" },
                { "example.com..:80", "empty label" },
                { "-a.com:80", "starts with '-'" },
                { "a-.com:80", "ending in '-'" },
                { "a.com-:80", "ends with '-'" },
                { "a_b.com:80", "other than letters" },
                { "a b:80", "other than letters" },
                { "b\xc3\xbc" "cher.example:443", "not ASCII" },
                { "127.1:80", "last label is a number" },
                { "2130706433:80", "last label is a number" },
                { "0x7f.1:80", "last label is a number" },
                { "1.2.3.04:80", "last label is a number" },
                { "example.0x1f:80", "last label is a number" },
                { "::1:80", "brackets" },
                { "[::1:80", "without ']'" },
                { "[::1]x:80", "after ']'" },
                { "[1.2.3.4]:80", "not an IPv6" },
                { "[fe80::1%eth0]:80", "not an IPv6" },
                { "[example.com]:80", "not an IPv6" },
        };
        char out[SBX__NET_TARGET_TEXT], longname[300];
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(t); i++) {
                sbx_error e = { 0, 0, { 0 } };

                if (sbx__net_target_normalize(t[i].in, out, sizeof(out), &e) != SBX_E_INVALID)
                        fail_msg("\"%s\" normalised to %s", t[i].in, out);
                if (strstr(e.message, t[i].why) == NULL)
                        fail_msg("\"%s\": \"%s\" lacks \"%s\"", t[i].in, e.message, t[i].why);
        }
        /* Labels up to 63, names up to 253. */
        memset(longname, 'a', 63);
        strcpy(longname + 63, ".com:1");
        assert_string_not_equal(norm(longname), "");
        memset(longname, 'a', 64);
        strcpy(longname + 64, ".com:1");
        assert_sbx_fails(sbx__net_target_normalize(longname, out, sizeof(out), err),
                         SBX_E_INVALID, "longer than 63");
        for (i = 0; i < 4; i++) {
                memset(longname + 64 * i, 'a', 63);
                longname[64 * i + 63] = '.';
        }
        longname[253] = '\0';                   /* 4 labels of 63 + 3 dots = 255, cut */
        assert_true(strlen(longname) == 253);
        strcat(longname, ":1");
        assert_string_not_equal(norm(longname), "");
        longname[253] = 'a';
        strcpy(longname + 254, ":1");
        assert_sbx_fails(sbx__net_target_normalize(longname, out, sizeof(out), err),
                         SBX_E_INVALID, "longer than 253");
}

static struct sbx__net_rule rule(const char *s)
{
        struct sbx__net_rule r;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx__net_rule_parse(s, &r, &e) != SBX_OK)
                fail_msg("rule \"%s\": %s", s, e.message);
        return r;
}

static const char *fmt(const char *s)
{
        static char buf[SBX__NET_RULE_TEXT];
        struct sbx__net_rule r = rule(s);

        return sbx__net_rule_format(&r, buf);
}

static void test_net_target__rule_grammar(void **state)
{
        static const struct { const char *in, *why; } bad[] = {
                { "*", "other than letters" },
                { "*.com", "top-level domain" },
                { "*.*.example.com", "other than letters" },
                { "a.*.example.com", "other than letters" },
                { "*.1.2.3.4", "for names" },
                { "*.[::1]", "for names" },
                { "127.0.0.1+loopback", "+class is for names" },
                { "localhost+nope", "unknown address class" },
                { "localhost+public", "unknown address class" },
                { "localhost+", "unknown address class" },
                { "0.0.0.0", "never dialled" },
                { "[::]:80", "never dialled" },
                { "224.0.0.1", "never dialled" },
                { "example.com:99999", "1 to 65535" },
                { "", "empty host" },
        };
        struct sbx__net_rule r;
        size_t i;
        (void) state;

        assert_string_equal(fmt("Registry.npmjs.org"), "registry.npmjs.org");
        assert_string_equal(fmt("*.PythonHosted.org:443"), "*.pythonhosted.org:443");
        assert_string_equal(fmt("localhost:8080+LOOPBACK"), "localhost:8080+loopback");
        assert_string_equal(fmt("db.corp:5432+private+metadata+private"),
                            "db.corp:5432+private+metadata");
        assert_string_equal(fmt("127.0.0.1:8080"), "127.0.0.1:8080");
        assert_string_equal(fmt("::1"), "[::1]");
        assert_string_equal(fmt("[::1]"), "[::1]");
        assert_string_equal(fmt("[0::1]:443"), "[::1]:443");
        assert_string_equal(fmt("169.254.169.254"), "169.254.169.254");
        r = rule("*.example.com:443+private");
        assert_int_equal(r.kind, SBX__NET_RULE_WILDCARD);
        assert_string_equal(r.host.text, "example.com");
        assert_int_equal(r.port, 443);
        assert_int_equal(r.classes, SBX__NET_CLASS_BIT(SBX__NET_PRIVATE));
        r = rule("example.com");
        assert_int_equal(r.kind, SBX__NET_RULE_NAME);
        assert_int_equal(r.port, 0);
        r = rule("[::1]:80");
        assert_int_equal(r.kind, SBX__NET_RULE_ADDR);
        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                sbx_error e = { 0, 0, { 0 } };

                if (sbx__net_rule_parse(bad[i].in, &r, &e) != SBX_E_INVALID)
                        fail_msg("rule \"%s\" parsed", bad[i].in);
                if (strstr(e.message, bad[i].why) == NULL || strstr(e.message, "allowlist") == NULL)
                        fail_msg("\"%s\": \"%s\" lacks \"%s\"", bad[i].in, e.message, bad[i].why);
        }
}

static struct sbx__net_target target(const char *s)
{
        struct sbx__net_target t;

        if (sbx__net_authority_parse("t", s, strlen(s), 0, &t, NULL) != SBX_OK)
                fail_msg("target \"%s\"", s);
        return t;
}

static int admits(const struct sbx__net_rules *rs, const char *t, uint32_t *cls)
{
        struct sbx__net_target tt = target(t);
        uint32_t c = 0xdead;
        int ok = sbx__net_rules_admit(rs, &tt, &c);

        if (cls != NULL)
                *cls = c;
        return ok;
}

static void test_net_target__matching(void **state)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        uint32_t c;
        (void) state;

        assert_int_equal(sbx__net_rules_add(&rs, "registry.npmjs.org", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "*.pythonhosted.org:443", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "localhost:8080+loopback", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "127.0.0.1:9000", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "[::1]", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "Registry.npmjs.org.", NULL), SBX_OK);
        assert_int_equal(rs.n, 5);              /* the duplicate dropped */

        assert_true(admits(&rs, "registry.npmjs.org:443", &c));
        assert_int_equal(c, 0);
        assert_true(admits(&rs, "registry.npmjs.org:22", NULL));       /* any port */
        assert_false(admits(&rs, "npmjs.org:443", NULL));
        assert_false(admits(&rs, "evil-registry.npmjs.org:443", NULL));
        assert_true(admits(&rs, "files.pythonhosted.org:443", NULL));
        assert_true(admits(&rs, "a.b.pythonhosted.org:443", NULL));
        assert_false(admits(&rs, "pythonhosted.org:443", NULL));       /* not the apex */
        assert_false(admits(&rs, "files.pythonhosted.org:80", NULL));
        assert_false(admits(&rs, "xpythonhosted.org:443", NULL));
        assert_true(admits(&rs, "localhost:8080", &c));
        assert_int_equal(c, SBX__NET_CLASS_BIT(SBX__NET_LOOPBACK));
        assert_false(admits(&rs, "localhost:8081", NULL));
        /* Address targets only by address rules, names never by them. */
        assert_true(admits(&rs, "127.0.0.1:9000", NULL));
        assert_true(admits(&rs, "[::ffff:127.0.0.1]:9000", NULL));
        assert_false(admits(&rs, "127.0.0.1:8080", NULL));
        assert_false(admits(&rs, "127.0.0.2:9000", NULL));
        assert_true(admits(&rs, "[::1]:1", NULL));
        assert_true(admits(&rs, "[0:0:0::1]:65535", NULL));
        assert_false(admits(&rs, "[::2]:1", NULL));
        sbx__net_rules_clear(&rs);
        sbx__net_rules_clear(&rs);
        assert_false(admits(&rs, "registry.npmjs.org:443", NULL));
        sbx__net_rules_clear(NULL);
}

static int addr_ok(const struct sbx__net_rules *rs, uint32_t cls, const char *a, uint16_t port)
{
        struct sbx__net_addr ad;

        if (sbx__net_addr_parse(a, strlen(a), &ad) < 0)
                fail_msg("%s", a);
        return sbx__net_rules_address_ok(rs, cls, &ad, port);
}

static void test_net_target__address_rules(void **state)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        uint32_t lo = SBX__NET_CLASS_BIT(SBX__NET_LOOPBACK);
        (void) state;

        assert_int_equal(sbx__net_rules_add(&rs, "127.0.0.1:9000", NULL), SBX_OK);
        assert_int_equal(sbx__net_rules_add(&rs, "10.1.2.3", NULL), SBX_OK);
        assert_true(addr_ok(&rs, 0, "93.184.216.34", 443));             /* public */
        assert_true(addr_ok(&rs, 0, "2606:4700::1111", 443));
        assert_false(addr_ok(&rs, 0, "127.0.0.1", 8080));               /* loopback */
        assert_true(addr_ok(&rs, 0, "127.0.0.1", 9000));                /* named */
        assert_true(addr_ok(&rs, 0, "::ffff:127.0.0.1", 9000));
        assert_false(addr_ok(&rs, 0, "::1", 9000));
        assert_true(addr_ok(&rs, lo, "::1", 1));                        /* class allowed */
        assert_true(addr_ok(&rs, lo, "127.9.9.9", 1));
        assert_false(addr_ok(&rs, lo, "10.0.0.1", 1));
        assert_true(addr_ok(&rs, 0, "10.1.2.3", 1));
        assert_false(addr_ok(&rs, 0, "169.254.169.254", 80));
        assert_false(addr_ok(&rs, SBX__NET_CLASS_BIT(SBX__NET_LINK_LOCAL), "169.254.169.254", 80));
        assert_true(addr_ok(&rs, SBX__NET_CLASS_BIT(SBX__NET_METADATA), "169.254.169.254", 80));
        assert_false(addr_ok(&rs, 0xffffffffu, "0.0.0.0", 80));         /* never */
        assert_false(addr_ok(&rs, 0xffffffffu, "::", 80));
        assert_false(addr_ok(&rs, 0xffffffffu, "224.0.0.1", 80));
        assert_false(addr_ok(&rs, 0, "100.64.0.1", 80));
        assert_false(addr_ok(&rs, 0, "64:ff9b::7f00:1", 80));
        assert_false(addr_ok(&rs, 0, "fd00::1", 80));
        sbx__net_rules_clear(&rs);
}

static void test_net_target__rules_limits_and_copy(void **state)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT, cp;
        char name[32];
        int i;
        (void) state;

        for (i = 0; i < SBX__NET_RULES_MAX; i++) {
                (void) snprintf(name, sizeof(name), "h%d.example", i);
                assert_int_equal(sbx__net_rules_add(&rs, name, NULL), SBX_OK);
        }
        assert_sbx_fails(sbx__net_rules_add(&rs, "one-more.example", err), SBX_E_RANGE,
                         "more than");
        assert_int_equal(sbx__net_rules_add(&rs, "h7.example", NULL), SBX_OK);  /* dup */
        assert_int_equal(sbx__net_rules_copy(&rs, &cp, NULL), SBX_OK);
        assert_int_equal(cp.n, rs.n);
        assert_string_equal(cp.v[7].host.text, "h7.example");
        sbx__net_rules_clear(&rs);
        sbx__net_rules_clear(&cp);
        assert_int_equal(sbx__net_rules_copy(NULL, &cp, NULL), SBX_OK);
        assert_int_equal(cp.n, 0);
        assert_sbx_fails(sbx__net_rules_add(NULL, "a.b", err), SBX_E_INVALID, "NULL");
}

static void fp(const char *const *entries, size_t n, const struct sbx__net_upstream *u,
               char *out)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        size_t i;

        for (i = 0; i < n; i++)
                assert_int_equal(sbx__net_rules_add(&rs, entries[i], NULL), SBX_OK);
        sbx__net_route_fingerprint(&rs, u, out);
        sbx__net_rules_clear(&rs);
}

static void test_net_target__route_fingerprint(void **state)
{
        static const char *const a[] = { "b.example:443", "*.a.example", "127.0.0.1:80" };
        static const char *const b[] = { "127.0.0.1:80", "B.example.:443", "*.a.example" };
        static const char *const c[] = { "b.example:443", "*.a.example", "127.0.0.1:81" };
        static const char *const d[] = { "b.example:443+private", "*.a.example", "127.0.0.1:80" };
        struct sbx__net_upstream u1, u2, u3;
        char f1[SBX_FINGERPRINT_SIZE], f2[SBX_FINGERPRINT_SIZE], f3[SBX_FINGERPRINT_SIZE];
        char f4[SBX_FINGERPRINT_SIZE], f0[SBX_FINGERPRINT_SIZE];
        (void) state;

        fp(a, 3, NULL, f1);
        assert_int_equal(strlen(f1), 64);
        fp(b, 3, NULL, f2);
        assert_string_equal(f1, f2);            /* order and spelling do not matter */
        fp(c, 3, NULL, f2);
        assert_string_not_equal(f1, f2);        /* a port does */
        fp(d, 3, NULL, f2);
        assert_string_not_equal(f1, f2);        /* a class does */
        fp(a, 0, NULL, f0);
        assert_string_not_equal(f1, f0);
        sbx__net_route_fingerprint(NULL, NULL, f2);
        assert_string_equal(f0, f2);

        assert_int_equal(sbx__net_upstream_set(&u1, "proxy.corp:3128", "me", "secret1", NULL),
                         SBX_OK);
        assert_int_equal(sbx__net_upstream_set(&u2, "PROXY.corp.:3128", "you", "secret2", NULL),
                         SBX_OK);
        assert_int_equal(sbx__net_upstream_set(&u3, "proxy.corp:8080", NULL, NULL, NULL),
                         SBX_OK);
        assert_null(u3.user);
        fp(a, 3, &u1, f3);
        fp(a, 3, &u2, f4);
        assert_string_equal(f3, f4);            /* the credential is not part of it */
        assert_string_not_equal(f3, f1);
        fp(a, 3, &u3, f4);
        assert_string_not_equal(f3, f4);
        /* The documented serialization, hashed by sha256sum: stable. */
        assert_string_equal(f0, "a1d37ee75e5c43a7c59aadbf337855dd64723222236e1700f9f4f260a85ba79a");
        sbx__net_upstream_clear(&u1);
        sbx__net_upstream_clear(&u2);
        sbx__net_upstream_clear(&u3);
        sbx__net_upstream_clear(NULL);
        assert_sbx_fails(sbx__net_upstream_set(&u1, "proxy.corp", NULL, NULL, err),
                         SBX_E_INVALID, "port is required");
        assert_sbx_fails(sbx__net_upstream_set(&u1, "proxy.corp:1", "a:b", "c", err),
                         SBX_E_INVALID, "':'");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_net_target__normalise),
                cmocka_unit_test(test_net_target__refusals_say_why),
                cmocka_unit_test(test_net_target__rule_grammar),
                cmocka_unit_test(test_net_target__matching),
                cmocka_unit_test(test_net_target__address_rules),
                cmocka_unit_test(test_net_target__rules_limits_and_copy),
                cmocka_unit_test(test_net_target__route_fingerprint),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
