/*
 * sni.c - the server name of a TLS ClientHello, for transparent mode
 * (docs/network.md, "Transparent mode").  Pure and bounds-checked; fuzzed
 * by fuzz/fuzz_sni.c.
 *
 * What is read (RFC 8446 section 4.1.2, RFC 5246 section 7.4.1.2, RFC
 * 6066 section 3): TLSPlaintext records of type handshake (22), version
 * 3.x, 1 to 2^14 bytes each, whose fragments are joined until the first
 * handshake message is complete (a ClientHello may span records); that
 * message must be a client_hello (1): legacy_version 3.x, random,
 * session id (0..32), cipher suites (2..2^16-2, even), compression
 * methods (1..255), then the extensions, which must fill the message
 * exactly.  The server_name extension (0) holds a list that must fill it
 * exactly, of one host_name (type 0) entry of 1..255 bytes.  Anything
 * else is malformed: a second server_name extension, a second host_name,
 * another name type, a record of another type before the message is
 * complete, bytes left over.  Nothing after the ClientHello is looked at.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "net/net.h"

#define REC_HANDSHAKE   22
#define REC_MAX         16384           /* TLSPlaintext.length <= 2^14 */
#define HS_CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define EXT_ECH         0xfe0d          /* encrypted_client_hello */
#define NAME_HOST       0

/* A cursor over p[0..n). */
struct rd {
        const uint8_t *p;
        size_t         n, off;
};

static int take(struct rd *r, size_t k, const uint8_t **out)
{
        if (k > r->n - r->off)
                return -1;
        if (out != NULL)
                *out = r->p + r->off;
        r->off += k;
        return 0;
}

static int u8(struct rd *r, uint32_t *v)
{
        const uint8_t *b;

        if (take(r, 1, &b) < 0)
                return -1;
        *v = b[0];
        return 0;
}

static int u16(struct rd *r, uint32_t *v)
{
        const uint8_t *b;

        if (take(r, 2, &b) < 0)
                return -1;
        *v = (uint32_t) b[0] << 8 | b[1];
        return 0;
}

static int bad(struct sbx__tls_hello *out, const char *why)
{
        out->why = why;
        return SBX__TLS_BAD;
}

/* The server_name extension's body e[0..n). */
static int server_name(const uint8_t *e, size_t n, struct sbx__tls_hello *out)
{
        struct rd r = { e, n, 0 };
        uint32_t list, type, len;
        const uint8_t *name;

        if (u16(&r, &list) < 0 || list != n - 2 || list == 0)
                return bad(out, "the server_name list does not fill its extension");
        while (r.off < n) {
                if (u8(&r, &type) < 0)
                        return bad(out, "a truncated server_name entry");
                if (type != NAME_HOST)
                        return bad(out, "a server_name entry of a type other than host_name");
                if (u16(&r, &len) < 0 || take(&r, len, &name) < 0)
                        return bad(out, "a host_name longer than its list");
                if (out->has_sni)
                        return bad(out, "two host_name entries");
                if (len == 0 || len > SBX__TLS_SNI_MAX)
                        return bad(out, "a host_name of 0 or more than 255 bytes");
                if (memchr(name, '\0', len) != NULL)
                        return bad(out, "a NUL in the host_name");
                memcpy(out->sni, name, len);
                out->sni[len] = '\0';
                out->sni_len = len;
                out->has_sni = 1;
        }
        return SBX__TLS_OK;
}

/* The client_hello body h[0..n). */
static int client_hello(const uint8_t *h, size_t n, struct sbx__tls_hello *out)
{
        struct rd r = { h, n, 0 };
        uint32_t v, len, ext_len, type;
        const uint8_t *p;
        int seen_sni = 0;
        size_t end;

        if (u16(&r, &v) < 0 || (v >> 8) != 3)
                return bad(out, "the ClientHello's version is not 3.x");
        out->version = (uint16_t) v;
        if (take(&r, 32, NULL) < 0)
                return bad(out, "a truncated ClientHello random");
        if (u8(&r, &len) < 0 || len > 32 || take(&r, len, NULL) < 0)
                return bad(out, "a bad session id");
        if (u16(&r, &len) < 0 || len < 2 || len % 2 != 0 || take(&r, len, NULL) < 0)
                return bad(out, "a bad cipher suite list");
        if (u8(&r, &len) < 0 || len < 1 || take(&r, len, NULL) < 0)
                return bad(out, "a bad compression method list");
        if (r.off == n)
                return SBX__TLS_OK;             /* no extensions (TLS 1.2 allows it) */
        if (u16(&r, &ext_len) < 0 || ext_len != n - r.off)
                return bad(out, "the extensions do not fill the ClientHello");
        end = n;
        while (r.off < end) {
                int rc;

                if (u16(&r, &type) < 0 || u16(&r, &len) < 0 || take(&r, len, &p) < 0)
                        return bad(out, "an extension longer than the ClientHello");
                if (type == EXT_ECH)
                        out->has_ech = 1;
                if (type != EXT_SERVER_NAME)
                        continue;
                if (seen_sni)
                        return bad(out, "two server_name extensions");
                seen_sni = 1;
                rc = server_name(p, len, out);
                if (rc != SBX__TLS_OK)
                        return rc;
        }
        return SBX__TLS_OK;
}

int sbx__tls_client_hello(const uint8_t *buf, size_t len, uint8_t *scratch, size_t scratch_max,
                          struct sbx__tls_hello *out)
{
        size_t off = 0, have = 0, need = 0;
        uint32_t hs_len = 0;

        memset(out, 0, sizeof(*out));
        if (len == 0)
                return SBX__TLS_MORE;
        if (buf[0] != REC_HANDSHAKE)
                return SBX__TLS_NOT;
        if (len >= 2 && buf[1] != 3)
                return SBX__TLS_NOT;
        /* Join the handshake records' fragments into scratch until the
         * first message (4 bytes of header + hs_len) is there. */
        for (;;) {
                uint32_t rlen;
                size_t k;

                if (len - off < 5)
                        return SBX__TLS_MORE;
                if (buf[off] != REC_HANDSHAKE)
                        return bad(out, "a record other than a handshake before the "
                                   "ClientHello ends");
                if (buf[off + 1] != 3)
                        return bad(out, "a record version other than 3.x");
                rlen = (uint32_t) buf[off + 3] << 8 | buf[off + 4];
                if (rlen == 0 || rlen > REC_MAX)
                        return bad(out, "a record of 0 or more than 16384 bytes");
                if (len - off - 5 < rlen)
                        return SBX__TLS_MORE;
                if (off == 0)
                        out->record_version = (uint16_t) (buf[1] << 8 | buf[2]);
                k = rlen;
                if (need > 0 && k > need - have)
                        k = need - have;        /* the rest belongs to a later message */
                if (k > scratch_max - have)
                        return bad(out, "a ClientHello larger than the limit");
                memcpy(scratch + have, buf + off + 5, k);
                have += k;
                off += 5 + rlen;
                if (need == 0 && have >= 4) {
                        if (scratch[0] != HS_CLIENT_HELLO)
                                return bad(out, "the first handshake message is not a "
                                           "ClientHello");
                        hs_len = (uint32_t) scratch[1] << 16 | (uint32_t) scratch[2] << 8 |
                                 scratch[3];
                        if (hs_len > scratch_max - 4)
                                return bad(out, "a ClientHello larger than the limit");
                        need = 4 + (size_t) hs_len;
                        if (have > need)
                                have = need;
                }
                if (need > 0 && have >= need)
                        break;
        }
        out->hello_end = off;
        return client_hello(scratch + 4, hs_len, out);
}
