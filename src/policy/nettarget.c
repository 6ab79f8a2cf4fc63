/*
 * nettarget.c - host names, "host:port" targets and allowlist rules: the
 * normalisation every proxy decision and every network.proxy-target.v1
 * grant starts from, and the matching of a target against the rules
 * (docs/network.md, "The allowlist" and "Normalisation").  Pure.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/netrule.h"

/* --------------------------------------------------------------- hosts */

static int is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static int is_ldh(char c)
{
        return is_digit(c) || (c >= 'a' && c <= 'z') || c == '-';
}

/* The last label reads as a number to inet_aton and to URL parsers: all
 * digits, or "0x" and hex digits. */
static int numeric_label(const char *l, size_t n)
{
        size_t i = 0;

        if (n >= 2 && l[0] == '0' && l[1] == 'x') {
                for (i = 2; i < n; i++)
                        if (!is_digit(l[i]) && !(l[i] >= 'a' && l[i] <= 'f'))
                                return 0;
                return 1;
        }
        for (i = 0; i < n; i++)
                if (!is_digit(l[i]))
                        return 0;
        return 1;
}

static sbx_code host_name(const char *what, const char *s, size_t n, struct sbx__net_host *out,
                          sbx_error *err)
{
        size_t i, label = 0, last = 0;

        if (n > 0 && s[n - 1] == '.')
                n--;                            /* the root: "example.com." */
        if (n == 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: empty host name", what);
        if (n > SBX__NET_NAME_MAX)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: host name longer than %d bytes",
                                 what, SBX__NET_NAME_MAX);
        for (i = 0; i < n; i++) {
                char c = (char) sbx__ascii_lower((unsigned char) s[i]);

                if ((unsigned char) s[i] >= 0x80)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: host name is not ASCII "
                                         "(write an internationalised name in its xn-- form)",
                                         what);
                if (c == '.') {
                        if (label == 0 || s[i - 1] == '-')
                                return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\" has an "
                                                 "empty label or one ending in '-'", what,
                                                 (int) n, s);
                        label = 0;
                        last = i + 1;
                        out->text[i] = '.';
                        continue;
                }
                if (!is_ldh(c))
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: host name has a character "
                                         "other than letters, digits, '-' and '.' (0x%02x)",
                                         what, (unsigned char) s[i]);
                if (label == 0 && c == '-')
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: a label of \"%.*s\" starts "
                                         "with '-'", what, (int) n, s);
                if (++label > 63)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: a label of the host name "
                                         "is longer than 63 bytes", what);
                out->text[i] = c;
        }
        if (label == 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\" has an empty label",
                                 what, (int) n, s);
        if (s[n - 1] == '-')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\" ends with '-'", what,
                                 (int) n, s);
        out->text[n] = '\0';
        if (numeric_label(out->text + last, n - last))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\" is neither a dotted-quad "
                                 "IPv4 address nor a host name (its last label is a number)",
                                 what, (int) n, s);
        out->is_addr = 0;
        memset(&out->addr, 0, sizeof(out->addr));
        return SBX_OK;
}

static sbx_code raw_host_parse(const char *what, const char *s, size_t n, int bracketed,
                             struct sbx__net_host *out, sbx_error *err)
{
        struct sbx__net_host h;

        memset(&h, 0, sizeof(h));
        if (n > 0 && s[0] == '[') {
                if (!bracketed || n < 2 || s[n - 1] != ']')
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: misplaced '['", what);
                if (memchr(s + 1, ':', n - 2) == NULL ||
                    sbx__net_addr_parse(s + 1, n - 2, &h.addr) < 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\" is not an IPv6 "
                                         "address (no zone ids)", what, (int) n, s);
                h.is_addr = 1;
        } else if (memchr(s, ':', n) != NULL) {
                if (bracketed || sbx__net_addr_parse(s, n, &h.addr) < 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: \"%.*s\": an IPv6 address "
                                         "is written in brackets, [::1]:443", what, (int) n, s);
                h.is_addr = 1;
        } else if (sbx__net_addr_parse(s, n, &h.addr) == 0) {
                h.is_addr = 1;
        } else {
                sbx_code r = host_name(what, s, n, &h, err);

                if (r != SBX_OK)
                        return r;
        }
        if (h.is_addr)
                (void) sbx__net_addr_format(&h.addr, h.text);
        *out = h;
        return SBX_OK;
}

/* ------------------------------------------------------------- targets */

/* Split "host[:port]" / "[v6][:port]" at the port; *port 0 when absent. */
static sbx_code split_port(const char *what, const char *s, size_t n, size_t *host_len,
                           uint16_t *port, sbx_error *err)
{
        const char *colon = NULL;
        size_t i;
        unsigned v = 0;

        if (n > 0 && s[0] == '[') {
                const char *close = memchr(s, ']', n);

                if (close == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: '[' without ']'", what);
                if ((size_t) (close + 1 - s) < n) {
                        if (close[1] != ':')
                                return sbx__fail(err, SBX_E_INVALID, 0, "%s: text after ']' "
                                                 "that is not \":port\"", what);
                        colon = close + 1;
                }
        } else {
                colon = memchr(s, ':', n);
                if (colon != NULL && memchr(colon + 1, ':', n - (size_t) (colon + 1 - s)))
                        colon = NULL;           /* a bare IPv6 address: no port */
        }
        *port = 0;
        *host_len = colon != NULL ? (size_t) (colon - s) : n;
        if (colon == NULL)
                return SBX_OK;
        if ((size_t) (colon + 1 - s) == n)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: empty port", what);
        for (i = (size_t) (colon + 1 - s); i < n; i++) {
                if (!is_digit(s[i]) || (v = v * 10 + (unsigned) (s[i] - '0')) > 65535)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: the port is not a number "
                                         "from 1 to 65535", what);
        }
        if (v == 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: port 0", what);
        *port = (uint16_t) v;
        return SBX_OK;
}

static sbx_code raw_authority_parse(const char *what, const char *s, size_t n,
                                  uint16_t default_port, struct sbx__net_target *out,
                                  sbx_error *err)
{
        struct sbx__net_target t;
        size_t hlen;
        uint16_t port;
        sbx_code r;

        r = split_port(what, s, n, &hlen, &port, err);
        if (r != SBX_OK)
                return r;
        r = raw_host_parse(what, s, hlen, 1, &t.host, err);
        if (r != SBX_OK)
                return r;
        if (port == 0 && default_port == 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: a port is required (host:port)",
                                 what);
        t.port = port != 0 ? port : default_port;
        *out = t;
        return SBX_OK;
}

char *sbx__net_target_format(const struct sbx__net_target *t, char *buf)
{
        int v6 = t->host.is_addr && t->host.addr.family == 6;

        (void) snprintf(buf, SBX__NET_TARGET_TEXT, "%s%s%s:%u", v6 ? "[" : "", t->host.text,
                        v6 ? "]" : "", (unsigned) t->port);
        return buf;
}

static sbx_code raw_target_normalize(const char *in, char *out, size_t outsz, sbx_error *err)
{
        const char *fn = "sbx__net_target_normalize";
        struct sbx__net_target t;
        char what[300];
        sbx_code r;

        if (in == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: in and out are required", fn);
        if (outsz < SBX__NET_TARGET_TEXT)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: outsz < %d", fn,
                                 SBX__NET_TARGET_TEXT);
        (void) snprintf(what, sizeof(what), "target \"%.200s\"", in);
        r = raw_authority_parse(what, in, strlen(in), 0, &t, err);
        if (r != SBX_OK)
                return r;
        (void) sbx__net_target_format(&t, out);
        return SBX_OK;
}

/* --------------------------------------------------------------- rules */

static sbx_code raw_rule_parse(const char *entry, struct sbx__net_rule *out, sbx_error *err)
{
        struct sbx__net_rule r;
        char what[300];
        const char *plus, *s = entry;
        size_t n, hlen;
        sbx_code rc;

        if (entry == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "allowlist entry: NULL");
        (void) snprintf(what, sizeof(what), "allowlist entry \"%.200s\"", entry);
        memset(&r, 0, sizeof(r));
        plus = strchr(entry, '+');
        n = plus != NULL ? (size_t) (plus - entry) : strlen(entry);
        while (plus != NULL) {
                const char *name = plus + 1, *next = strchr(name, '+');
                size_t len = next != NULL ? (size_t) (next - name) : strlen(name);
                int cls = sbx__net_class_lookup(name, len);

                if (cls < 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown address class "
                                         "\"+%.*s\" (loopback, private, link-local, cgnat, "
                                         "metadata, reserved)", what, (int) len, name);
                r.classes |= SBX__NET_CLASS_BIT(cls);
                plus = next;
        }
        if (n >= 2 && s[0] == '*' && s[1] == '.') {
                r.kind = SBX__NET_RULE_WILDCARD;
                s += 2;
                n -= 2;
        }
        rc = split_port(what, s, n, &hlen, &r.port, err);
        /* A bare IPv6 address is an entry too (split_port saw no port). */
        if (rc == SBX_OK)
                rc = raw_host_parse(what, s, hlen, hlen > 0 && s[0] == '[', &r.host, err);
        if (rc != SBX_OK)
                return rc;
        if (r.host.is_addr) {
                int cls = sbx__net_addr_class(&r.host.addr);

                if (r.kind == SBX__NET_RULE_WILDCARD)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: a wildcard is for names, "
                                         "not addresses", what);
                if (r.classes != 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: an address entry already "
                                         "names its address; +class is for names", what);
                if (cls == SBX__NET_UNSPECIFIED || cls == SBX__NET_MULTICAST)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: a %s address is never "
                                         "dialled", what, sbx__net_class_name(cls));
                r.kind = SBX__NET_RULE_ADDR;
        } else if (r.kind == SBX__NET_RULE_WILDCARD) {
                if (strchr(r.host.text, '.') == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: a wildcard covers the "
                                         "names below a domain of two labels or more, not a "
                                         "whole top-level domain", what);
        } else {
                r.kind = SBX__NET_RULE_NAME;
        }
        *out = r;
        return SBX_OK;
}

char *sbx__net_rule_format(const struct sbx__net_rule *r, char *buf)
{
        int v6 = r->kind == SBX__NET_RULE_ADDR && r->host.addr.family == 6;
        size_t o;
        int c;

        o = (size_t) snprintf(buf, SBX__NET_RULE_TEXT, "%s%s%s%s",
                              r->kind == SBX__NET_RULE_WILDCARD ? "*." : "", v6 ? "[" : "",
                              r->host.text, v6 ? "]" : "");
        if (r->port != 0)
                o += (size_t) snprintf(buf + o, SBX__NET_RULE_TEXT - o, ":%u",
                                       (unsigned) r->port);
        for (c = 0; c < SBX__NET_CLASS_N; c++)
                if (r->classes & SBX__NET_CLASS_BIT(c))
                        o += (size_t) snprintf(buf + o, SBX__NET_RULE_TEXT - o, "+%s",
                                               sbx__net_class_name(c));
        return buf;
}

static int rule_equal(const struct sbx__net_rule *a, const struct sbx__net_rule *b)
{
        return a->kind == b->kind && a->port == b->port && a->classes == b->classes &&
               strcmp(a->host.text, b->host.text) == 0;
}

static sbx_code rules_push(struct sbx__net_rules *rs, const struct sbx__net_rule *r,
                           sbx_error *err)
{
        size_t i;

        for (i = 0; i < rs->n; i++)
                if (rule_equal(&rs->v[i], r))
                        return SBX_OK;
        if (rs->n >= SBX__NET_RULES_MAX)
                return sbx__fail(err, SBX_E_RANGE, 0, "allowlist: more than %d entries",
                                 SBX__NET_RULES_MAX);
        if (SBX__GROW(rs->v, rs->cap, rs->n + 1, 8) < 0)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "allowlist: no memory");
        rs->v[rs->n++] = *r;
        return SBX_OK;
}

static sbx_code printable(sbx_code r, sbx_error *err);

sbx_code sbx__net_rules_add(struct sbx__net_rules *rs, const char *entry, sbx_error *err)
{
        struct sbx__net_rule r;
        sbx_code rc;

        if (rs == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__net_rules_add: rs is NULL");
        rc = sbx__net_rule_parse(entry, &r, err);
        return rc != SBX_OK ? rc : rules_push(rs, &r, err);
}

sbx_code sbx__net_rules_copy(const struct sbx__net_rules *from, struct sbx__net_rules *to,
                             sbx_error *err)
{
        struct sbx__net_rules c = SBX__NET_RULES_INIT;

        if (from != NULL && from->n > 0) {
                c.v = malloc(from->n * sizeof(*c.v));
                if (c.v == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "allowlist: no memory");
                memcpy(c.v, from->v, from->n * sizeof(*c.v));
                c.n = c.cap = from->n;
        }
        *to = c;
        return SBX_OK;
}

void sbx__net_rules_clear(struct sbx__net_rules *rs)
{
        if (rs == NULL)
                return;
        free(rs->v);
        rs->v = NULL;
        rs->n = rs->cap = 0;
}

/* name is strictly below suffix: "a.b.example.com" below "example.com". */
static int below(const char *name, const char *suffix)
{
        size_t n = strlen(name), s = strlen(suffix);

        return n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, suffix) == 0;
}

int sbx__net_rules_admit(const struct sbx__net_rules *rs, const struct sbx__net_target *t,
                         uint32_t *classes)
{
        uint32_t cls = 0;
        int ok = 0;
        size_t i;

        for (i = 0; rs != NULL && i < rs->n; i++) {
                const struct sbx__net_rule *r = &rs->v[i];
                int m = 0;

                if (r->port != 0 && r->port != t->port)
                        continue;
                switch (r->kind) {
                case SBX__NET_RULE_ADDR:
                        m = t->host.is_addr && sbx__net_addr_equal(&r->host.addr, &t->host.addr);
                        break;
                case SBX__NET_RULE_NAME:
                        m = !t->host.is_addr && strcmp(r->host.text, t->host.text) == 0;
                        break;
                case SBX__NET_RULE_WILDCARD:
                        m = !t->host.is_addr && below(t->host.text, r->host.text);
                        break;
                default:
                        break;
                }
                if (m) {
                        ok = 1;
                        cls |= r->classes;
                }
        }
        if (ok)
                *classes = cls;
        return ok;
}

int sbx__net_rules_address_ok(const struct sbx__net_rules *rs, uint32_t classes,
                              const struct sbx__net_addr *addr, uint16_t port)
{
        int cls = (int) sbx__net_addr_class(addr);
        size_t i;

        if (cls == SBX__NET_PUBLIC)
                return 1;
        if (cls == SBX__NET_UNSPECIFIED || cls == SBX__NET_MULTICAST)
                return 0;
        if (classes & SBX__NET_CLASS_BIT(cls))
                return 1;
        for (i = 0; rs != NULL && i < rs->n; i++) {
                const struct sbx__net_rule *r = &rs->v[i];

                if (r->kind == SBX__NET_RULE_ADDR && (r->port == 0 || r->port == port) &&
                    sbx__net_addr_equal(&r->host.addr, addr))
                        return 1;
        }
        return 0;
}

/* ------------------------------------------------- printable messages */

/* A refused entry is quoted in the message as it came: bytes a terminal
 * or a log would take as control (below 0x20, 0x7f) become '?'. */
static sbx_code printable(sbx_code r, sbx_error *err)
{
        size_t i;

        if (r != SBX_OK && err != NULL)
                for (i = 0; i < sizeof(err->message) && err->message[i] != '\0'; i++)
                        if ((unsigned char) err->message[i] < 0x20 ||
                            (unsigned char) err->message[i] == 0x7f)
                                err->message[i] = '?';
        return r;
}

sbx_code sbx__net_host_parse(const char *what, const char *s, size_t n, int bracketed,
                             struct sbx__net_host *out, sbx_error *err)
{
        return printable(raw_host_parse(what, s, n, bracketed, out, err), err);
}

sbx_code sbx__net_authority_parse(const char *what, const char *s, size_t n,
                                  uint16_t default_port, struct sbx__net_target *out,
                                  sbx_error *err)
{
        return printable(raw_authority_parse(what, s, n, default_port, out, err), err);
}

sbx_code sbx__net_target_normalize(const char *in, char *out, size_t outsz, sbx_error *err)
{
        return printable(raw_target_normalize(in, out, outsz, err), err);
}

sbx_code sbx__net_rule_parse(const char *entry, struct sbx__net_rule *out, sbx_error *err)
{
        return printable(raw_rule_parse(entry, out, err), err);
}
