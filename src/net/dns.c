/*
 * dns.c - transparent mode's DNS answerer, the pure part (docs/network.md,
 * "The DNS answerer"): one query per datagram parsed (bounds-checked, no
 * compression in the question), a response built around it, and the two
 * decisions the answerer makes from the rules: is a name admitted on some
 * port, and may an address of it be given out.  Fuzzed by fuzz/fuzz_dns.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "net/net.h"

#define HDR        12
#define F_QR       0x8000u
#define F_OPCODE   0x7800u
#define F_RD       0x0100u
#define F_RA       0x0080u

static uint16_t get16(const uint8_t *p)
{
        return (uint16_t) (p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint32_t v)
{
        p[0] = (uint8_t) (v >> 8);
        p[1] = (uint8_t) v;
}

static int ldh(uint8_t c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
}

int sbx__dns_parse_query(const uint8_t *buf, size_t len, struct sbx__dns_query *q)
{
        size_t off = HDR, text = 0;

        memset(q, 0, sizeof(*q));
        if (len < HDR)
                return -1;                      /* not even a header: no answer */
        q->id = get16(buf);
        q->flags = get16(buf + 2);
        if (q->flags & F_QR)
                return -1;                      /* a response: never answered */
        if ((q->flags & F_OPCODE) != 0)
                return SBX__DNS_NOTIMP;         /* only QUERY */
        if (get16(buf + 4) != 1 || get16(buf + 6) != 0 || get16(buf + 8) != 0)
                return SBX__DNS_FORMERR;        /* one question, no answers */
        /* The name: labels of 1..63, no pointers, 255 bytes in all. */
        q->name_ok = 1;
        for (;;) {
                size_t l, i;

                if (off >= len)
                        return SBX__DNS_FORMERR;
                l = buf[off];
                if (l == 0)
                        break;
                if (l > 63)
                        return SBX__DNS_FORMERR;        /* a pointer or an extended label */
                if (off - HDR + 1 + l + 1 > SBX__DNS_NAME_WIRE || l + 1 > len - off)
                        return SBX__DNS_FORMERR;
                for (i = 0; i < l; i++)
                        q->name_ok &= ldh(buf[off + 1 + i]);
                if (q->name_ok) {
                        if (text > 0)
                                q->name[text++] = '.';
                        memcpy(q->name + text, buf + off + 1, l);
                        text += l;
                }
                off += 1 + l;
        }
        off++;                                  /* the root label */
        q->name_ok &= text > 0;
        q->name[q->name_ok ? text : 0] = '\0';
        q->wire_len = off - HDR;
        memcpy(q->wire, buf + HDR, q->wire_len);
        if (len - off < 4)
                return SBX__DNS_FORMERR;
        q->qtype = get16(buf + off);
        q->qclass = get16(buf + off + 2);
        q->has_question = 1;
        return SBX__DNS_NOERROR;                /* what follows (EDNS OPT) is ignored */
}

size_t sbx__dns_response(const struct sbx__dns_query *q, int rcode,
                         const struct sbx__net_addr *addrs, size_t n, uint32_t ttl,
                         uint8_t *out, size_t outsz)
{
        size_t off = HDR, i, na = 0;

        if (outsz < HDR)
                return 0;
        put16(out, q->id);
        put16(out + 2, F_QR | (q->flags & (F_OPCODE | F_RD)) | F_RA | ((uint32_t) rcode & 15));
        put16(out + 4, q->has_question ? 1 : 0);
        put16(out + 6, 0);
        put16(out + 8, 0);
        put16(out + 10, 0);
        if (!q->has_question)
                return off;
        if (q->wire_len + 4 > outsz - off)
                return 0;
        memcpy(out + off, q->wire, q->wire_len);
        off += q->wire_len;
        put16(out + off, q->qtype);
        put16(out + off + 2, q->qclass);
        off += 4;
        for (i = 0; i < n && na < SBX__DNS_ANSWERS_MAX; i++) {
                size_t alen = addrs[i].family == 4 ? 4 : 16;

                if (12 + alen > outsz - off)
                        break;
                put16(out + off, 0xc000 | HDR);         /* the question's name */
                put16(out + off + 2, addrs[i].family == 4 ? SBX__DNS_A : SBX__DNS_AAAA);
                put16(out + off + 4, SBX__DNS_IN);
                put16(out + off + 6, ttl >> 16);
                put16(out + off + 8, ttl & 0xffff);
                put16(out + off + 10, (uint32_t) alen);
                memcpy(out + off + 12, addrs[i].b, alen);
                off += 12 + alen;
                na++;
        }
        put16(out + 6, (uint32_t) na);
        return off;
}

/* ------------------------------------------------------------ decisions */

/* Does rule r, alone, admit name h (on the rule's own port)? */
static int rule_admits(const struct sbx__net_rule *r, const struct sbx__net_host *h,
                       uint32_t *classes)
{
        struct sbx__net_rules one;
        struct sbx__net_target t;

        if (r->kind != SBX__NET_RULE_NAME && r->kind != SBX__NET_RULE_WILDCARD)
                return 0;
        one.v = (struct sbx__net_rule *) r;
        one.n = one.cap = 1;
        memset(&t, 0, sizeof(t));
        t.host = *h;
        t.port = r->port;
        return sbx__net_rules_admit(&one, &t, classes);
}

int sbx__dns_name_admitted(const struct sbx__net_rules *rs, const struct sbx__net_host *h)
{
        uint32_t cls;
        size_t i;

        if (rs == NULL || h->is_addr)
                return 0;
        for (i = 0; i < rs->n; i++)
                if (rule_admits(&rs->v[i], h, &cls))
                        return 1;
        return 0;
}

/* Would a connection to h on port (0: a port no rule names) be dialled at a? */
static int ok_on(const struct sbx__net_rules *rs, const struct sbx__net_host *h,
                 const struct sbx__net_addr *a, uint16_t port)
{
        struct sbx__net_target t;
        uint32_t cls = 0;

        memset(&t, 0, sizeof(t));
        t.host = *h;
        t.port = port;
        return sbx__net_rules_admit(rs, &t, &cls) && sbx__net_rules_address_ok(rs, cls, a, port);
}

int sbx__dns_address_ok(const struct sbx__net_rules *rs, const struct sbx__net_host *h,
                        const struct sbx__net_addr *a)
{
        uint32_t cls;
        size_t i;

        if (rs == NULL || h->is_addr)
                return 0;
        /* Port 0 matches only the rules without a port, exactly what any
         * port no rule names would match. */
        if (ok_on(rs, h, a, 0))
                return 1;
        for (i = 0; i < rs->n; i++) {
                const struct sbx__net_rule *r = &rs->v[i];
                int cand = r->port != 0 &&
                           (rule_admits(r, h, &cls) ||
                            (r->kind == SBX__NET_RULE_ADDR &&
                             sbx__net_addr_equal(&r->host.addr, a)));

                if (cand && ok_on(rs, h, a, r->port))
                        return 1;
        }
        return 0;
}
