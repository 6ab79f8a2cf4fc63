/*
 * fuzz_proxy_request.c - libFuzzer harness for the egress proxy's parsers
 * (src/net/http.c, target.c, addr.c).
 *
 * The input is a request head (any bytes, NUL included): head_end, parse,
 * the credential check, the rewrite of a forward request; and, as a
 * NUL-terminated string, an allowlist entry and a "host:port" target.
 *
 * Properties (a violation traps): a head end lies within the input and
 * ends in LF; a parsed head's spans lie within it; a parsed target
 * re-normalises to itself; a rewrite, when it fits, starts with the
 * method and ends with "Connection: close\r\n\r\n"; a rule's canonical
 * spelling parses back to the same spelling; an address literal's
 * canonical spelling parses back to the same address.
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

static void check_head(const char *buf, size_t size)
{
        static struct sbx__http_request req;
        static char out[8192];
        size_t end = sbx__http_head_end(buf, size), i, n;

        CHECK(end <= size);
        if (end == 0)
                return;
        CHECK(buf[end - 1] == '\n');
        if (sbx__http_parse(buf, end, &req, NULL) != SBX_OK)
                return;
        CHECK(req.method.off + req.method.len <= end);
        CHECK(req.nheaders <= SBX__HTTP_HEADERS_MAX);
        for (i = 0; i < req.nheaders; i++) {
                CHECK(req.headers[i].name.off + req.headers[i].name.len <= end);
                CHECK(req.headers[i].value.off + req.headers[i].value.len <= end);
        }
        {
                char t[SBX__NET_TARGET_TEXT], t2[SBX__NET_TARGET_TEXT];

                (void) sbx__net_target_format(&req.target, t);
                CHECK(sbx__net_target_normalize(t, t2, sizeof(t2), NULL) == SBX_OK);
                CHECK(strcmp(t, t2) == 0);
        }
        (void) sbx__http_auth_ok(buf, &req, SBX__PROXY_USER, "token");
        if (req.is_connect)
                return;
        CHECK(req.path.off + req.path.len <= end);
        n = sbx__http_rewrite(buf, &req, out, sizeof(out));
        if (n > 0) {
                CHECK(n <= sizeof(out) && n >= req.method.len + 24);
                CHECK(memcmp(out, buf + req.method.off, req.method.len) == 0);
                CHECK(memcmp(out + n - 21, "Connection: close\r\n\r\n", 21) == 0);
        }
}

static void check_strings(const char *s)
{
        struct sbx__net_rule r, r2;
        struct sbx__net_addr a, a2;
        char f[SBX__NET_RULE_TEXT], f2[SBX__NET_RULE_TEXT], t[SBX__NET_TARGET_TEXT];
        char at[SBX__NET_ADDR_TEXT];

        if (sbx__net_rule_parse(s, &r, NULL) == SBX_OK) {
                (void) sbx__net_rule_format(&r, f);
                CHECK(sbx__net_rule_parse(f, &r2, NULL) == SBX_OK);
                (void) sbx__net_rule_format(&r2, f2);
                CHECK(strcmp(f, f2) == 0);
        }
        (void) sbx__net_target_normalize(s, t, sizeof(t), NULL);
        if (sbx__net_addr_parse(s, strlen(s), &a) == 0) {
                (void) sbx__net_addr_format(&a, at);
                CHECK(sbx__net_addr_parse(at, strlen(at), &a2) == 0);
                CHECK(sbx__net_addr_equal(&a, &a2));
                CHECK((int) sbx__net_addr_class(&a) < SBX__NET_CLASS_N);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);

        if (s == NULL)
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';
        check_head(s, size);
        check_strings(s);
        free(s);
        return 0;
}
