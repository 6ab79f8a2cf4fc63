/*
 * fuzz_dns.c - libFuzzer harness for transparent mode's DNS answerer
 * (src/net/dns.c): the query parser, the response built around it, and
 * the two decisions made from a fixed set of rules.
 *
 * Properties (a violation traps): the parser answers -1 or an RCODE it
 * may send; a question's name is 1..255 bytes on the wire, ends in the
 * root label, and when it is a host name, its text is at most 253 bytes
 * of letters, digits, '-' and '.'; every response fits 512 bytes, echoes
 * the id, is a response (so the parser would never answer it), and holds
 * at most SBX__DNS_ANSWERS_MAX answers; an address is only ever given
 * for an admitted name.
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

static struct sbx__net_rules rules = SBX__NET_RULES_INIT;
static struct sbx__net_addr addrs[10];

static void setup(void)
{
        static const char *const entries[] = {
                "registry.npmjs.org:443", "*.pythonhosted.org", "localhost:8080+loopback",
                "127.0.0.1:9000", "svc.test", "db.test:5432", "10.0.0.5:5432",
        };
        static const char *const a[] = {
                "93.184.216.34", "127.0.0.1", "10.0.0.5", "169.254.169.254", "::1",
                "2606:2800:220:1::1", "0.0.0.0", "100.64.0.1", "fd00::1", "10.0.0.6",
        };
        size_t i;

        if (rules.n > 0)
                return;
        for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
                CHECK(sbx__net_rules_add(&rules, entries[i], NULL) == SBX_OK);
        for (i = 0; i < 10; i++)
                CHECK(sbx__net_addr_parse(a[i], strlen(a[i]), &addrs[i]) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sbx__dns_query q, q2;
        struct sbx__net_host h;
        uint8_t out[512];
        size_t n, i;
        int rc;

        setup();
        rc = sbx__dns_parse_query(data, size, &q);
        CHECK(rc == -1 || rc == SBX__DNS_NOERROR || rc == SBX__DNS_FORMERR ||
              rc == SBX__DNS_NOTIMP);
        if (rc < 0)
                return 0;
        if (q.has_question) {
                CHECK(q.wire_len >= 1 && q.wire_len <= SBX__DNS_NAME_WIRE);
                CHECK(q.wire[q.wire_len - 1] == 0);
                if (q.name_ok) {
                        CHECK(strlen(q.name) >= 1 && strlen(q.name) <= SBX__NET_NAME_MAX);
                        for (i = 0; q.name[i] != '\0'; i++)
                                CHECK(q.name[i] == '.' || q.name[i] == '-' ||
                                      (q.name[i] >= '0' && q.name[i] <= '9') ||
                                      ((q.name[i] | 0x20) >= 'a' && (q.name[i] | 0x20) <= 'z'));
                }
        }
        n = sbx__dns_response(&q, rc == SBX__DNS_NOERROR ? SBX__DNS_NOERROR : rc, addrs, 10,
                              SBX__DNS_TTL, out, sizeof(out));
        CHECK(n >= 12 && n <= sizeof(out));
        CHECK(out[0] == (uint8_t) (q.id >> 8) && out[1] == (uint8_t) q.id);
        CHECK((out[2] & 0x80) && out[6] == 0 && out[7] <= SBX__DNS_ANSWERS_MAX);
        CHECK(sbx__dns_parse_query(out, n, &q2) == -1);
        if (q.name_ok && sbx__net_host_parse("DNS name", q.name, strlen(q.name), 0, &h, NULL) ==
            SBX_OK && !h.is_addr) {
                int admitted = sbx__dns_name_admitted(&rules, &h);

                for (i = 0; i < 10; i++)
                        CHECK(!sbx__dns_address_ok(&rules, &h, &addrs[i]) || admitted);
        }
        return 0;
}
