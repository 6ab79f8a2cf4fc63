/*
 * allowlist.c - a profile's network allowlist (sbx_profile_config version
 * 3, allow_hosts): each entry checked with the one grammar of
 * policy/netrule.h and kept in its canonical spelling, sorted; what a
 * restriction of two profiles keeps.  docs/network.md, "The allowlist".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/netrule.h"
#include "profile/profile_internal.h"

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void sbx__profile_allow_free(char **v, size_t n)
{
        size_t i;

        if (v == NULL)
                return;
        for (i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

sbx_code sbx__profile_allow_build(const char *fn, const char *const *in, size_t n,
                                  int32_t network, int32_t isolation, char ***out,
                                  size_t *n_out, sbx_error *err)
{
        char **v = NULL, buf[SBX__NET_RULE_TEXT];
        struct sbx__net_rule rule;
        sbx_error why;
        size_t i, j;

        *out = NULL;
        *n_out = 0;
        if (n == 0)
                return SBX_OK;
        if (in == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: allow_hosts is NULL but "
                                 "n_allow_hosts is %zu", fn, n);
        if (n > SBX__PROFILE_MAX_ALLOW_HOSTS)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: n_allow_hosts is %zu; at most %d are "
                                 "allowed", fn, n, SBX__PROFILE_MAX_ALLOW_HOSTS);
        if (isolation == SBX_ISOLATION_UNCONFINED || network == SBX_ACCESS_ALLOW)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: allow_hosts needs network deny or "
                                 "gated (with network allow every host is reachable already)",
                                 fn);
        v = calloc(n, sizeof(*v));
        if (v == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        for (i = 0; i < n; i++) {
                if (in[i] == NULL ||
                    sbx__net_rule_parse(in[i], &rule, &why) != SBX_OK) {
                        sbx__profile_allow_free(v, n);
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: allow_hosts[%zu]: %s", fn, i,
                                         in[i] == NULL ? "is NULL" : why.message);
                }
                v[i] = sbx__strdup(sbx__net_rule_format(&rule, buf));
                if (v[i] == NULL) {
                        sbx__profile_allow_free(v, n);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                }
                for (j = 0; j < i; j++)
                        if (strcmp(v[i], v[j]) == 0) {
                                sbx__profile_allow_free(v, n);
                                return sbx__fail(err, SBX_E_INVALID, 0, "%s: allow_hosts[%zu] "
                                                 "duplicates allow_hosts[%zu]", fn, i, j);
                        }
        }
        qsort(v, n, sizeof(*v), cmp_str);
        *out = v;
        *n_out = n;
        return SBX_OK;
}

/* What may a restriction of base by ceiling reach?  Allow reaches every
 * host; otherwise the allowlist.  The intersection: with both limited,
 * the entries both name (spelled alike); with one Allow, the other's. */
size_t sbx__profile_allow_restrict(const sbx_profile *base, const sbx_profile *ceiling,
                                   const char **out)
{
        const sbx_profile *only = NULL;
        size_t i, j, n = 0;

        if (base->network == SBX_ACCESS_ALLOW && ceiling->network == SBX_ACCESS_ALLOW)
                return 0;
        if (base->network == SBX_ACCESS_ALLOW)
                only = ceiling;
        else if (ceiling->network == SBX_ACCESS_ALLOW)
                only = base;
        if (only != NULL) {
                for (i = 0; i < only->n_allow_hosts; i++)
                        out[n++] = only->allow_hosts[i];
                return n;
        }
        for (i = 0; i < base->n_allow_hosts; i++)
                for (j = 0; j < ceiling->n_allow_hosts; j++)
                        if (strcmp(base->allow_hosts[i], ceiling->allow_hosts[j]) == 0) {
                                out[n++] = base->allow_hosts[i];
                                break;
                        }
        return n;
}

const char *const *sbx__profile_allow_hosts(const sbx_profile *p, size_t *n_out)
{
        if (n_out != NULL)
                *n_out = p != NULL ? p->n_allow_hosts : 0;
        return p != NULL ? (const char *const *) p->allow_hosts : NULL;
}
