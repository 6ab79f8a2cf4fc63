/*
 * netaddr.c - IP address literals: a strict parser, the canonical spelling
 * (RFC 5952) and the address classes the egress proxy refuses unless a
 * rule names them (docs/network.md, "Address classes").  Pure: no OS
 * calls, no inet_pton (whose accepted forms differ between C libraries).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "policy/netrule.h"

static const char *const class_names[SBX__NET_CLASS_N] = {
        [SBX__NET_PUBLIC]      = "public",
        [SBX__NET_LOOPBACK]    = "loopback",
        [SBX__NET_PRIVATE]     = "private",
        [SBX__NET_LINK_LOCAL]  = "link-local",
        [SBX__NET_CGNAT]       = "cgnat",
        [SBX__NET_METADATA]    = "metadata",
        [SBX__NET_RESERVED]    = "reserved",
        [SBX__NET_UNSPECIFIED] = "unspecified",
        [SBX__NET_MULTICAST]   = "multicast",
};

const char *sbx__net_class_name(int cls)
{
        if (cls < 0 || cls >= SBX__NET_CLASS_N)
                return "unknown";
        return class_names[cls];
}

int sbx__net_class_lookup(const char *s, size_t n)
{
        int c;
        size_t i;

        for (c = 0; c < SBX__NET_CLASS_N; c++) {
                const char *name = class_names[c];

                if (!(SBX__NET_CLASSES_NAMEABLE & SBX__NET_CLASS_BIT(c)) || strlen(name) != n)
                        continue;
                for (i = 0; i < n; i++)
                        if (sbx__ascii_lower((unsigned char) s[i]) != name[i])
                                break;
                if (i == n)
                        return c;
        }
        return -1;
}

/* ------------------------------------------------------------- parsing */

/* A dotted quad: four decimal parts 0..255, no leading zero, nothing else. */
static int parse4(const char *s, size_t n, uint8_t out[4])
{
        size_t i = 0;
        int part;

        for (part = 0; part < 4; part++) {
                unsigned v = 0, digits = 0;

                if (part > 0) {
                        if (i >= n || s[i] != '.')
                                return -1;
                        i++;
                }
                while (i < n && s[i] >= '0' && s[i] <= '9') {
                        if (digits > 0 && v == 0)
                                return -1;      /* leading zero: octal elsewhere */
                        v = v * 10 + (unsigned) (s[i] - '0');
                        if (++digits > 3 || v > 255)
                                return -1;
                        i++;
                }
                if (digits == 0)
                        return -1;
                out[part] = (uint8_t) v;
        }
        return i == n ? 0 : -1;
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* RFC 4291 section 2.2: eight groups of 1..4 hex digits, at most one "::"
 * standing for one or more zero groups, an optional dotted quad as the
 * last 32 bits.  No zone id ("%eth0"), no brackets. */
static int parse6(const char *s, size_t n, uint8_t out[16])
{
        uint16_t g[8];
        int ng = 0, gap = -1, k;
        size_t i = 0;

        if (n < 2)
                return -1;
        if (s[0] == ':') {
                if (s[1] != ':')
                        return -1;
                gap = 0;
                i = 2;
        }
        while (i < n) {
                size_t j = i, dots = 0;
                unsigned v = 0;

                while (j < n && s[j] != ':')
                        dots += s[j++] == '.';
                if (dots > 0) {                 /* the dotted quad ends it */
                        uint8_t q[4];

                        if (j != n || ng > 6 || parse4(s + i, j - i, q) < 0)
                                return -1;
                        g[ng++] = (uint16_t) (q[0] << 8 | q[1]);
                        g[ng++] = (uint16_t) (q[2] << 8 | q[3]);
                        i = j;
                        break;
                }
                if (j == i || j - i > 4 || ng == 8)
                        return -1;
                for (; i < j; i++) {
                        int h = hexval(s[i]);

                        if (h < 0)
                                return -1;
                        v = v << 4 | (unsigned) h;
                }
                g[ng++] = (uint16_t) v;
                if (j == n)
                        break;
                if (j + 1 < n && s[j + 1] == ':') {
                        if (gap >= 0)
                                return -1;
                        gap = ng;
                        i = j + 2;
                } else {
                        i = j + 1;
                        if (i == n)
                                return -1;      /* a trailing single colon */
                }
        }
        if (gap < 0 ? ng != 8 : ng > 7)
                return -1;
        memset(out, 0, 16);
        for (k = 0; k < ng; k++) {
                int pos = gap >= 0 && k >= gap ? 8 - (ng - k) : k;

                out[2 * pos] = (uint8_t) (g[k] >> 8);
                out[2 * pos + 1] = (uint8_t) g[k];
        }
        return 0;
}

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int sbx__net_addr_parse(const char *s, size_t n, struct sbx__net_addr *out)
{
        struct sbx__net_addr a;

        memset(&a, 0, sizeof(a));
        if (memchr(s, ':', n) == NULL) {
                if (parse4(s, n, a.b) < 0)
                        return -1;
                a.family = 4;
        } else {
                if (parse6(s, n, a.b) < 0)
                        return -1;
                a.family = 6;
                if (memcmp(a.b, v4mapped, 12) == 0) {
                        memmove(a.b, a.b + 12, 4);
                        memset(a.b + 4, 0, 12);
                        a.family = 4;
                }
        }
        *out = a;
        return 0;
}

int sbx__net_addr_equal(const struct sbx__net_addr *a, const struct sbx__net_addr *b)
{
        return a->family == b->family &&
               memcmp(a->b, b->b, a->family == 4 ? 4 : 16) == 0;
}

/* ----------------------------------------------------------- formatting */

char *sbx__net_addr_format(const struct sbx__net_addr *a, char *buf)
{
        int best = -1, best_len = 1, run = -1, k;
        char *p = buf;

        if (a->family == 4) {
                (void) snprintf(buf, SBX__NET_ADDR_TEXT, "%u.%u.%u.%u", a->b[0], a->b[1],
                                a->b[2], a->b[3]);
                return buf;
        }
        /* RFC 5952: the longest run of two or more zero groups (the first
         * of equals) becomes "::"; hex in lower case, no leading zeros. */
        for (k = 0; k <= 8; k++) {
                int zero = k < 8 && a->b[2 * k] == 0 && a->b[2 * k + 1] == 0;

                if (zero && run < 0)
                        run = k;
                if (!zero && run >= 0) {
                        if (k - run > best_len) {
                                best = run;
                                best_len = k - run;
                        }
                        run = -1;
                }
        }
        for (k = 0; k < 8; k++) {
                if (k == best) {
                        *p++ = ':';
                        *p++ = ':';
                        k += best_len - 1;
                        continue;
                }
                if (k > 0 && k != best + best_len)
                        *p++ = ':';
                p += snprintf(p, 6, "%x", (unsigned) (a->b[2 * k] << 8 | a->b[2 * k + 1]));
        }
        *p = '\0';
        return buf;
}

/* -------------------------------------------------------------- classes */

static int v4_in(const uint8_t *b, uint32_t net, int bits)
{
        uint32_t v = (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
        uint32_t mask = bits == 0 ? 0 : 0xffffffffu << (32 - bits);

        return (v & mask) == net;
}

#define V4(a, b, c, d) ((uint32_t) (a) << 24 | (uint32_t) (b) << 16 | (uint32_t) (c) << 8 | (d))

static enum sbx__net_class class4(const uint8_t *b)
{
        /* Cloud metadata endpoints: AWS, GCP, Azure, OCI, OpenStack and
         * DigitalOcean (169.254.169.254), AWS ECS (169.254.170.2),
         * Tencent (169.254.0.23), Alibaba (100.100.100.200) and Azure's
         * WireServer (168.63.129.16, a public address). */
        static const uint32_t metadata[] = {
                V4(169, 254, 169, 254), V4(169, 254, 170, 2), V4(169, 254, 0, 23),
                V4(100, 100, 100, 200), V4(168, 63, 129, 16),
        };
        static const struct { uint32_t net; int bits; enum sbx__net_class cls; } ranges[] = {
                { V4(0, 0, 0, 0),        8, SBX__NET_UNSPECIFIED },
                { V4(127, 0, 0, 0),      8, SBX__NET_LOOPBACK },
                { V4(10, 0, 0, 0),       8, SBX__NET_PRIVATE },
                { V4(172, 16, 0, 0),    12, SBX__NET_PRIVATE },
                { V4(192, 168, 0, 0),   16, SBX__NET_PRIVATE },
                { V4(169, 254, 0, 0),   16, SBX__NET_LINK_LOCAL },
                { V4(100, 64, 0, 0),    10, SBX__NET_CGNAT },
                { V4(255, 255, 255, 255), 32, SBX__NET_MULTICAST },   /* broadcast */
                { V4(224, 0, 0, 0),      4, SBX__NET_MULTICAST },
                { V4(240, 0, 0, 0),      4, SBX__NET_RESERVED },
                { V4(192, 0, 0, 0),     24, SBX__NET_RESERVED },      /* IETF assignments */
                { V4(192, 0, 2, 0),     24, SBX__NET_RESERVED },      /* TEST-NET-1 */
                { V4(198, 51, 100, 0),  24, SBX__NET_RESERVED },      /* TEST-NET-2 */
                { V4(203, 0, 113, 0),   24, SBX__NET_RESERVED },      /* TEST-NET-3 */
                { V4(198, 18, 0, 0),    15, SBX__NET_RESERVED },      /* benchmarking */
                { V4(192, 88, 99, 0),   24, SBX__NET_RESERVED },      /* 6to4 relays */
        };
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(metadata); i++)
                if (v4_in(b, metadata[i], 32))
                        return SBX__NET_METADATA;
        for (i = 0; i < SBX__ARRAY_SIZE(ranges); i++)
                if (v4_in(b, ranges[i].net, ranges[i].bits))
                        return ranges[i].cls;
        return SBX__NET_PUBLIC;
}

/* b[0..16) starts with the first `bits` bits of prefix. */
static int v6_in(const uint8_t *b, const uint8_t *prefix, int bits)
{
        int full = bits / 8, rest = bits % 8;

        if (memcmp(b, prefix, (size_t) full) != 0)
                return 0;
        return rest == 0 || ((b[full] ^ prefix[full]) & (0xff << (8 - rest))) == 0;
}

static enum sbx__net_class class6(const uint8_t *b)
{
        static const uint8_t zero[16] = { 0 };
        static const uint8_t siit[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
        static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };
        static const uint8_t nat64_local[6] = { 0, 0x64, 0xff, 0x9b, 0, 1 };
        static const uint8_t aws_metadata[16] = { 0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 0, 0, 0x02, 0x54 };
        static const struct { uint8_t p[4]; int bits; enum sbx__net_class cls; } ranges[] = {
                { { 0x20, 0x01, 0, 0 },   23, SBX__NET_RESERVED },      /* IETF, Teredo */
                { { 0x20, 0x01, 0x0d, 0xb8 }, 32, SBX__NET_RESERVED },  /* documentation */
                { { 0x3f, 0xff, 0, 0 },   20, SBX__NET_RESERVED },      /* documentation */
                { { 0xfc, 0, 0, 0 },       7, SBX__NET_PRIVATE },       /* unique local */
                { { 0xfe, 0x80, 0, 0 },   10, SBX__NET_LINK_LOCAL },
                { { 0xfe, 0xc0, 0, 0 },   10, SBX__NET_PRIVATE },       /* site-local */
                { { 0xff, 0, 0, 0 },       8, SBX__NET_MULTICAST },
        };
        size_t i;

        if (memcmp(b, zero, 15) == 0)
                return b[15] == 0 ? SBX__NET_UNSPECIFIED
                       : b[15] == 1 ? SBX__NET_LOOPBACK : SBX__NET_RESERVED;
        if (memcmp(b, v4mapped, 12) == 0 || memcmp(b, siit, 12) == 0 ||
            memcmp(b, nat64, 12) == 0)
                return class4(b + 12);
        if (memcmp(b, nat64_local, 6) == 0)
                return SBX__NET_PRIVATE;        /* local-use NAT64 (RFC 8215) */
        if (b[0] == 0x20 && b[1] == 0x02)
                return class4(b + 2);           /* 6to4: the relay's IPv4 */
        if (memcmp(b, zero, 12) == 0)
                return SBX__NET_RESERVED;       /* IPv4-compatible (deprecated) */
        if (memcmp(b, aws_metadata, 16) == 0)
                return SBX__NET_METADATA;
        if (b[0] == 0x01 && memcmp(b + 1, zero, 7) == 0)
                return SBX__NET_RESERVED;       /* 100::/64, discard */
        for (i = 0; i < SBX__ARRAY_SIZE(ranges); i++) {
                if (v6_in(b, ranges[i].p, ranges[i].bits))
                        return ranges[i].cls;
        }
        /* Global unicast is 2000::/3; anything else is not allocated. */
        return (b[0] & 0xe0) == 0x20 ? SBX__NET_PUBLIC : SBX__NET_RESERVED;
}

enum sbx__net_class sbx__net_addr_class(const struct sbx__net_addr *a)
{
        return a->family == 4 ? class4(a->b) : class6(a->b);
}
