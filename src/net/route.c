/*
 * route.c - the upstream organisation proxy's configuration and the route
 * fingerprint: a non-secret digest of where the proxy lets connections go,
 * which grants bind (docs/network.md, "Route fingerprint").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "net/net.h"

sbx_code sbx__net_upstream_set(struct sbx__net_upstream *u, const char *hostport,
                               const char *user, const char *password, sbx_error *err)
{
        struct sbx__net_upstream n;
        sbx_code r;

        if (u == NULL || hostport == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "upstream proxy: u and hostport are "
                                 "required");
        memset(&n, 0, sizeof(n));
        r = sbx__net_authority_parse("upstream proxy", hostport, strlen(hostport), 0,
                                     &n.target, err);
        if (r != SBX_OK)
                return r;
        if (user != NULL && strchr(user, ':') != NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "upstream proxy: a user name cannot "
                                 "hold ':'");
        if (user != NULL || password != NULL) {
                n.user = sbx__strdup(user != NULL ? user : "");
                n.password = sbx__strdup(password != NULL ? password : "");
                if (n.user == NULL || n.password == NULL) {
                        sbx__net_upstream_clear(&n);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "upstream proxy: no memory");
                }
        }
        *u = n;
        return SBX_OK;
}

void sbx__net_upstream_clear(struct sbx__net_upstream *u)
{
        if (u == NULL)
                return;
        if (u->password != NULL) {
                /* volatile: the store is not optimised away */
                volatile char *p = u->password;

                while (*p != '\0')
                        *p++ = '\0';
        }
        free(u->user);
        free(u->password);
        u->user = u->password = NULL;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void fp_line(struct sbx__sha256 *ctx, const char *key, const char *value)
{
        sbx__sha256_update(ctx, (const uint8_t *) key, strlen(key));
        sbx__sha256_update(ctx, (const uint8_t *) "=", 1);
        sbx__sha256_update(ctx, (const uint8_t *) value, strlen(value));
        sbx__sha256_update(ctx, (const uint8_t *) "\n", 1);
}

/*
 * The serialization:
 *
 *   sbx-route-v2
 *   route=proxy
 *   upstream=<host:port> | direct
 *   rules=<n>
 *   rule=<canonical entry>       n times, sorted by strcmp, each once
 *
 * every line ending in "\n".  Rule order does not change it; the
 * upstream's credential and the engine's limits are not part of it.
 */
void sbx__net_route_fingerprint(const struct sbx__net_rules *rs,
                                const struct sbx__net_upstream *upstream, char *out)
{
        struct sbx__sha256 ctx;
        uint8_t d[SBX__SHA256_SIZE];
        char tbuf[SBX__NET_TARGET_TEXT], num[32];
        char (*text)[SBX__NET_RULE_TEXT] = NULL;
        char **sorted = NULL;
        size_t n = rs != NULL ? rs->n : 0, i, uniq = 0;

        sbx__sha256_init(&ctx);
        sbx__sha256_update(&ctx, (const uint8_t *) "sbx-route-v2\n", 13);
        fp_line(&ctx, "route", "proxy");
        fp_line(&ctx, "upstream", upstream != NULL ?
                sbx__net_target_format(&upstream->target, tbuf) : "direct");
        if (n > 0) {
                text = malloc(n * sizeof(*text));
                sorted = malloc(n * sizeof(*sorted));
        }
        if (n > 0 && (text == NULL || sorted == NULL)) {
                /* No memory to sort: a digest no configuration has, so a
                 * grant bound to the real one fails closed. */
                fp_line(&ctx, "rules", "unavailable");
                n = 0;
        } else {
                for (i = 0; i < n; i++)
                        sorted[i] = sbx__net_rule_format(&rs->v[i], text[i]);
                if (n > 1)
                        qsort(sorted, n, sizeof(*sorted), cmp_str);
                for (i = 0; i < n; i++)
                        uniq += i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0;
                (void) snprintf(num, sizeof(num), "%zu", uniq);
                fp_line(&ctx, "rules", num);
        }
        for (i = 0; i < n; i++)
                if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
                        fp_line(&ctx, "rule", sorted[i]);
        free(text);
        free(sorted);
        if (sbx__sha256_final(&ctx, d) < 0)
                memset(d, 0, sizeof(d));        /* nettle cannot fail; CNG is not built here */
        sbx__hex_encode(d, sizeof(d), out);
}
