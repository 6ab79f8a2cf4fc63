/*
 * fuzz_sni.c - libFuzzer harness for what transparent mode reads from the
 * first bytes of a redirected connection: the TLS ClientHello's server
 * name (src/net/sni.c), and an HTTP/1 request sent to an origin
 * (sbx__http_parse_origin, src/net/http.c).
 *
 * Properties (a violation traps): the result is one of SBX__TLS_*; a
 * complete ClientHello ends within the input, after a record header and a
 * handshake header, and every shorter prefix of it asks for more; the
 * same bytes parse the same again; a server name is 1..255 bytes, as long
 * as its text, and normalises (when it does) to a name of at most 253
 * bytes; a scratch buffer too small never reads or writes past it; an
 * origin request's spans lie within the head and its target has the
 * original port.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static uint8_t scratch[65536];

static void check_tls(const uint8_t *data, size_t size)
{
        struct sbx__tls_hello h, h2;
        struct sbx__net_host host;
        uint8_t small[64];
        int r = sbx__tls_client_hello(data, size, scratch, sizeof(scratch), &h);

        CHECK(r >= SBX__TLS_BAD && r <= SBX__TLS_NOT);
        CHECK(r != SBX__TLS_BAD || h.why != NULL);
        (void) sbx__tls_client_hello(data, size, small, sizeof(small), &h2);
        if (r != SBX__TLS_OK)
                return;
        CHECK(h.hello_end >= 9 && h.hello_end <= size);
        CHECK(sbx__tls_client_hello(data, h.hello_end - 1, scratch, sizeof(scratch), &h2) ==
              SBX__TLS_MORE);
        CHECK(sbx__tls_client_hello(data, h.hello_end, scratch, sizeof(scratch), &h2) ==
              SBX__TLS_OK);
        CHECK(h2.has_sni == h.has_sni && h2.sni_len == h.sni_len &&
              memcmp(h2.sni, h.sni, h.sni_len) == 0);
        if (!h.has_sni)
                return;
        CHECK(h.sni_len >= 1 && h.sni_len <= SBX__TLS_SNI_MAX && strlen(h.sni) == h.sni_len);
        if (sbx__net_host_parse("TLS server name", h.sni, h.sni_len, 0, &host, NULL) == SBX_OK)
                CHECK(strlen(host.text) <= SBX__NET_NAME_MAX);
}

static void check_http(const uint8_t *data, size_t size)
{
        static struct sbx__http_request req;
        const char *buf = (const char *) data;
        size_t end = sbx__http_head_end(buf, size), i;

        if (end == 0 || sbx__http_parse_origin(buf, end, 443, &req, NULL) != SBX_OK)
                return;
        CHECK(!req.is_connect);
        CHECK(req.path.off + req.path.len <= end);
        for (i = 0; i < req.nheaders; i++)
                CHECK(req.headers[i].value.off + req.headers[i].value.len <= end);
        CHECK(!req.target_ok || req.target.port == 443);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        check_tls(data, size);
        check_http(data, size);
        return 0;
}
