/*
 * netrule.h - the network allowlist's pure grammar, shared by the layers
 * that check it (profile, policy files), compile it into plans, and
 * enforce it (the egress proxy, src/net/): address literals and their
 * classes (netaddr.c), host names, targets and allowlist rules
 * (nettarget.c).  No OS calls.  docs/network.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_POLICY_NETRULE_H
#define SBX_POLICY_NETRULE_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* ------------------------------------------------------------ addresses */

/* An IPv4 (family 4, b[0..4)) or IPv6 (family 6, b[0..16)) address.  An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) is always held as the IPv4
 * address it maps: one address, one spelling. */
struct sbx__net_addr {
        uint8_t family;                 /* 4 or 6 */
        uint8_t b[16];
};

/* The longest formatted address ("ffff:...:255.255.255.255" is 45) + NUL. */
#define SBX__NET_ADDR_TEXT 46

/*
 * Address classes, most specific first (169.254.169.254 is METADATA, not
 * LINK_LOCAL).  A proxy dials a PUBLIC address of an admitted target; any
 * other class only when the matching rule allows that class or an
 * address rule names that very address.  UNSPECIFIED and MULTICAST are
 * never dialled.  Values are bit numbers in class masks.
 */
enum sbx__net_class {
        SBX__NET_PUBLIC      = 0,
        SBX__NET_LOOPBACK    = 1,       /* 127/8, ::1 */
        SBX__NET_PRIVATE     = 2,       /* 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10 */
        SBX__NET_LINK_LOCAL  = 3,       /* 169.254/16, fe80::/10 */
        SBX__NET_CGNAT       = 4,       /* 100.64/10 */
        SBX__NET_METADATA    = 5,       /* cloud instance metadata endpoints */
        SBX__NET_RESERVED    = 6,       /* documentation, benchmarking, 240/4, ... */
        SBX__NET_UNSPECIFIED = 7,       /* 0/8, :: (a connect to 0.0.0.0 is loopback) */
        SBX__NET_MULTICAST   = 8,       /* 224/4, ff00::/8, 255.255.255.255 */
        SBX__NET_CLASS_N     = 9
};
#define SBX__NET_CLASS_BIT(c) (1u << (unsigned) (c))
/* The classes a rule may name ("+loopback"): all but PUBLIC (always
 * allowed), UNSPECIFIED and MULTICAST (never). */
#define SBX__NET_CLASSES_NAMEABLE \
        (SBX__NET_CLASS_BIT(SBX__NET_LOOPBACK) | SBX__NET_CLASS_BIT(SBX__NET_PRIVATE) | \
         SBX__NET_CLASS_BIT(SBX__NET_LINK_LOCAL) | SBX__NET_CLASS_BIT(SBX__NET_CGNAT) | \
         SBX__NET_CLASS_BIT(SBX__NET_METADATA) | SBX__NET_CLASS_BIT(SBX__NET_RESERVED))

/* Parse exactly s[0..n): a dotted quad (four decimal parts, no leading
 * zeros) or an RFC 4291 IPv6 address (no zone id, no brackets).  0, or -1
 * when it is not an address literal. */
int sbx__net_addr_parse(const char *s, size_t n, struct sbx__net_addr *out);
/* The canonical text (dotted quad; RFC 5952 for IPv6) into buf, which
 * holds SBX__NET_ADDR_TEXT.  Returns buf. */
char *sbx__net_addr_format(const struct sbx__net_addr *a, char *buf);
int sbx__net_addr_equal(const struct sbx__net_addr *a, const struct sbx__net_addr *b);
/* The class of an address.  NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
 * addresses are the class of the IPv4 address they embed. */
enum sbx__net_class sbx__net_addr_class(const struct sbx__net_addr *a);
/* "loopback", "private", "link-local", "cgnat", "metadata", "reserved",
 * "unspecified", "multicast", "public"; never NULL. */
const char *sbx__net_class_name(int cls);
/* The nameable class named s[0..n), or -1. */
int sbx__net_class_lookup(const char *s, size_t n);

/* ---------------------------------------------------- hosts and targets */

#define SBX__NET_NAME_MAX 253           /* a host name without its trailing dot */

/* A normalised host: a name (lower case, no trailing dot, LDH labels) or
 * an address literal.  text is the canonical spelling either way (an
 * IPv6 literal without brackets). */
struct sbx__net_host {
        int                  is_addr;
        struct sbx__net_addr addr;      /* is_addr */
        char                 text[SBX__NET_NAME_MAX + 1];
};

/* Normalise s[0..n) as a host: "[v6]" (brackets required for IPv6 when
 * `bracketed`, refused otherwise), a dotted quad, or a name.  A name is
 * ASCII letters, digits and hyphens in labels of 1..63 (no hyphen first
 * or last), at most 253 in all, one trailing dot dropped; its last label
 * is not numeric ("127.1", "0x7f.1" and "2130706433" are refused: the C
 * library would read them as IPv4).  Non-ASCII is refused; "xn--" labels
 * are plain LDH.  `what` starts the error message. */
sbx_code sbx__net_host_parse(const char *what, const char *s, size_t n, int bracketed,
                             struct sbx__net_host *out, sbx_error *err);

/* A request target: a host and a port (1..65535). */
struct sbx__net_target {
        struct sbx__net_host host;
        uint16_t             port;
};

/* Parse an authority "host[:port]" / "[v6][:port]" from s[0..n).  Without
 * a port, default_port is used, and 0 there means the port is required
 * (CONNECT). */
sbx_code sbx__net_authority_parse(const char *what, const char *s, size_t n,
                                  uint16_t default_port, struct sbx__net_target *out,
                                  sbx_error *err);
/* "host:port" or "[v6]:port" into buf (SBX__NET_TARGET_TEXT). */
#define SBX__NET_TARGET_TEXT (SBX__NET_NAME_MAX + 1 + 2 + 6)
char *sbx__net_target_format(const struct sbx__net_target *t, char *buf);
/*
 * The normalised spelling of a "host:port" target, the form a
 * network.proxy-target.v1 grant binds: the port is required, the host
 * normalised as above.  SBX_E_INVALID naming the problem, SBX_E_RANGE
 * when outsz < SBX__NET_TARGET_TEXT.
 */
sbx_code sbx__net_target_normalize(const char *in, char *out, size_t outsz, sbx_error *err);

/* ------------------------------------------------------- allowlist rules */

enum sbx__net_rule_kind {
        SBX__NET_RULE_NAME     = 1,     /* exactly this name */
        SBX__NET_RULE_WILDCARD = 2,     /* "*.suffix": names below suffix, not suffix */
        SBX__NET_RULE_ADDR     = 3      /* this address literal */
};

/*
 * One allowlist entry (docs/network.md, "The allowlist"):
 *   HOST[:PORT][+CLASS...]   *.HOST[:PORT][+CLASS...]
 *   A.B.C.D[:PORT]   [V6][:PORT]   V6 (bare, no port)
 * No port: every port.  +CLASS (loopback, private, link-local, cgnat,
 * metadata, reserved) lets the names of that entry resolve to addresses
 * of that class.
 */
struct sbx__net_rule {
        int                  kind;      /* enum sbx__net_rule_kind */
        uint16_t             port;      /* 0: any port */
        uint32_t             classes;   /* SBX__NET_CLASS_BITs, name and wildcard rules */
        struct sbx__net_host host;      /* wildcard: the suffix */
};

#define SBX__NET_RULES_MAX 4096
#define SBX__NET_RULE_TEXT (2 + SBX__NET_NAME_MAX + 2 + 6 + 64)

sbx_code sbx__net_rule_parse(const char *entry, struct sbx__net_rule *out, sbx_error *err);
/* The canonical spelling (what the fingerprint hashes) into buf
 * (SBX__NET_RULE_TEXT). */
char *sbx__net_rule_format(const struct sbx__net_rule *r, char *buf);

/* A set of rules, in the order added, duplicates dropped. */
struct sbx__net_rules {
        struct sbx__net_rule *v;
        size_t                n, cap;
};
#define SBX__NET_RULES_INIT { NULL, 0, 0 }

/* Parse and add one entry.  SBX_E_INVALID for a bad entry, SBX_E_RANGE
 * past SBX__NET_RULES_MAX, SBX_E_NOMEM. */
sbx_code sbx__net_rules_add(struct sbx__net_rules *rs, const char *entry, sbx_error *err);
sbx_code sbx__net_rules_copy(const struct sbx__net_rules *from, struct sbx__net_rules *to,
                             sbx_error *err);
void sbx__net_rules_clear(struct sbx__net_rules *rs);

/*
 * Is the target admitted?  A name target by a name rule for it or a
 * wildcard rule above it, an address target by an address rule for that
 * address; the port must match in both.  Returns 1 and sets *classes to
 * the union of the extra classes of every matching rule, else 0.
 */
int sbx__net_rules_admit(const struct sbx__net_rules *rs, const struct sbx__net_target *t,
                         uint32_t *classes);
/*
 * May an admitted target (its rules' classes) be dialled at addr?  A
 * public address, an address of a class in `classes`, or one an address
 * rule names for this port: 1.  Otherwise 0 (and never for UNSPECIFIED
 * or MULTICAST).
 */
int sbx__net_rules_address_ok(const struct sbx__net_rules *rs, uint32_t classes,
                              const struct sbx__net_addr *addr, uint16_t port);

#endif /* SBX_POLICY_NETRULE_H */
