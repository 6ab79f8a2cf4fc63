/* Address literals and classes (src/net/addr.c). */
#include "unit/sbx_test.h"

#include "net/net.h"

static int parse(const char *s, struct sbx__net_addr *a)
{
        return sbx__net_addr_parse(s, strlen(s), a);
}

/* The canonical spelling of s, or "" when it is not a literal. */
static const char *canon(const char *s)
{
        static char buf[SBX__NET_ADDR_TEXT];
        struct sbx__net_addr a;

        if (parse(s, &a) < 0)
                return "";
        return sbx__net_addr_format(&a, buf);
}

static int cls(const char *s)
{
        struct sbx__net_addr a;

        if (parse(s, &a) < 0)
                fail_msg("\"%s\" does not parse", s);
        return (int) sbx__net_addr_class(&a);
}

static void test_net_addr__ipv4_is_strict(void **state)
{
        static const char *bad[] = {
                "", "1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.04", "01.2.3.4", "1..2.3",
                "1.2.3.", ".1.2.3", "0x7f.0.0.1", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4a",
                "2130706433", "1.2.3.1000", "-1.2.3.4",
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                if (canon(bad[i])[0] != '\0')
                        fail_msg("\"%s\" parsed", bad[i]);
        assert_string_equal(canon("127.0.0.1"), "127.0.0.1");
        assert_string_equal(canon("0.0.0.0"), "0.0.0.0");
        assert_string_equal(canon("255.255.255.255"), "255.255.255.255");
        assert_string_equal(canon("10.0.10.0"), "10.0.10.0");
}

static void test_net_addr__ipv6_parse_and_rfc5952(void **state)
{
        static const char *bad[] = {
                ":", ":::", "1:::2", "1::2::3", ":1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7",
                "12345::", "g::", "::1%eth0", "[::1]", "1:2:3:4:5:6:7:8::", "::1.2.3",
                "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4", "fe80::1%1", "1:", "::ffff:1.2.3.04",
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                if (canon(bad[i])[0] != '\0')
                        fail_msg("\"%s\" parsed as %s", bad[i], canon(bad[i]));
        assert_string_equal(canon("::"), "::");
        assert_string_equal(canon("::1"), "::1");
        assert_string_equal(canon("0:0:0:0:0:0:0:1"), "::1");
        assert_string_equal(canon("2001:DB8::0001"), "2001:db8::1");
        assert_string_equal(canon("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_string_equal(canon("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
        assert_string_equal(canon("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_string_equal(canon("1::"), "1::");
        assert_string_equal(canon("1:2:3:4:5:6:7::"), "1:2:3:4:5:6:7:0");
        assert_string_equal(canon("::2:3:4:5:6:7:8"), "0:2:3:4:5:6:7:8");
        assert_string_equal(canon("fe80::1:2"), "fe80::1:2");
        assert_string_equal(canon("64:ff9b::10.0.0.1"), "64:ff9b::a00:1");
        /* IPv4-mapped is the IPv4 address itself. */
        assert_string_equal(canon("::ffff:127.0.0.1"), "127.0.0.1");
        assert_string_equal(canon("::FFFF:7f00:1"), "127.0.0.1");
}

static void test_net_addr__classes(void **state)
{
        static const struct { const char *a; int c; } t[] = {
                { "8.8.8.8", SBX__NET_PUBLIC }, { "1.1.1.1", SBX__NET_PUBLIC },
                { "127.0.0.1", SBX__NET_LOOPBACK }, { "127.255.0.9", SBX__NET_LOOPBACK },
                { "::1", SBX__NET_LOOPBACK }, { "::ffff:127.0.0.1", SBX__NET_LOOPBACK },
                { "10.1.2.3", SBX__NET_PRIVATE }, { "172.16.0.1", SBX__NET_PRIVATE },
                { "172.31.255.255", SBX__NET_PRIVATE }, { "172.32.0.1", SBX__NET_PUBLIC },
                { "172.15.0.1", SBX__NET_PUBLIC }, { "192.168.1.1", SBX__NET_PRIVATE },
                { "fc00::1", SBX__NET_PRIVATE }, { "fd12:3456::1", SBX__NET_PRIVATE },
                { "fec0::1", SBX__NET_PRIVATE },
                { "169.254.1.1", SBX__NET_LINK_LOCAL }, { "fe80::1", SBX__NET_LINK_LOCAL },
                { "febf::1", SBX__NET_LINK_LOCAL },
                { "100.64.0.1", SBX__NET_CGNAT }, { "100.127.255.255", SBX__NET_CGNAT },
                { "100.128.0.1", SBX__NET_PUBLIC },
                { "169.254.169.254", SBX__NET_METADATA }, { "169.254.170.2", SBX__NET_METADATA },
                { "100.100.100.200", SBX__NET_METADATA }, { "168.63.129.16", SBX__NET_METADATA },
                { "fd00:ec2::254", SBX__NET_METADATA },
                { "::ffff:169.254.169.254", SBX__NET_METADATA },
                { "0.0.0.0", SBX__NET_UNSPECIFIED }, { "0.1.2.3", SBX__NET_UNSPECIFIED },
                { "::", SBX__NET_UNSPECIFIED },
                { "224.0.0.1", SBX__NET_MULTICAST }, { "239.1.1.1", SBX__NET_MULTICAST },
                { "255.255.255.255", SBX__NET_MULTICAST }, { "ff02::1", SBX__NET_MULTICAST },
                { "240.0.0.1", SBX__NET_RESERVED }, { "192.0.2.1", SBX__NET_RESERVED },
                { "198.51.100.1", SBX__NET_RESERVED }, { "203.0.113.9", SBX__NET_RESERVED },
                { "198.18.0.1", SBX__NET_RESERVED }, { "192.0.0.8", SBX__NET_RESERVED },
                { "2001:db8::1", SBX__NET_RESERVED }, { "2001::1", SBX__NET_RESERVED },
                { "100::1", SBX__NET_RESERVED }, { "::7f00:1", SBX__NET_RESERVED },
                { "4000::1", SBX__NET_RESERVED }, { "3fff::1", SBX__NET_RESERVED },
                { "2606:4700::1111", SBX__NET_PUBLIC }, { "2a00:1450::1", SBX__NET_PUBLIC },
                /* NAT64 and 6to4 are the class of the IPv4 address inside. */
                { "64:ff9b::127.0.0.1", SBX__NET_LOOPBACK },
                { "64:ff9b::169.254.169.254", SBX__NET_METADATA },
                { "64:ff9b::8.8.8.8", SBX__NET_PUBLIC },
                { "64:ff9b:1::1", SBX__NET_PRIVATE },
                { "2002:7f00:1::1", SBX__NET_LOOPBACK }, { "2002:a00:1::", SBX__NET_PRIVATE },
                { "2002:808:808::1", SBX__NET_PUBLIC },
                { "::ffff:0:10.0.0.1", SBX__NET_PRIVATE },
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(t); i++)
                if (cls(t[i].a) != t[i].c)
                        fail_msg("%s: class %s, want %s", t[i].a, sbx__net_class_name(cls(t[i].a)),
                                 sbx__net_class_name(t[i].c));
}

static void test_net_addr__class_names(void **state)
{
        int c;
        (void) state;

        for (c = 0; c < SBX__NET_CLASS_N; c++) {
                const char *n = sbx__net_class_name(c);
                int want = (SBX__NET_CLASSES_NAMEABLE & SBX__NET_CLASS_BIT(c)) ? c : -1;

                assert_int_equal(sbx__net_class_lookup(n, strlen(n)), want);
        }
        assert_int_equal(sbx__net_class_lookup("LOOPBACK", 8), SBX__NET_LOOPBACK);
        assert_int_equal(sbx__net_class_lookup("loop", 4), -1);
        assert_string_equal(sbx__net_class_name(99), "unknown");
        assert_string_equal(sbx__net_class_name(-1), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_net_addr__ipv4_is_strict),
                cmocka_unit_test(test_net_addr__ipv6_parse_and_rfc5952),
                cmocka_unit_test(test_net_addr__classes),
                cmocka_unit_test(test_net_addr__class_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
