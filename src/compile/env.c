/*
 * env.c - the one environment filter every backend uses: the plan's
 * allow-list applied to the caller's environment, plus the HOME and TMPDIR
 * the backend decided.  Pure (allocation only).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "compile/plan_internal.h"

static char *join(const char *name, const char *value)
{
        size_t a = strlen(name), b = strlen(value);
        char *s = malloc(a + b + 2);

        if (s == NULL)
                return NULL;
        memcpy(s, name, a);
        s[a] = '=';
        memcpy(s + a + 1, value, b + 1);
        return s;
}

/* 1 if entry ("NAME=...") sets name. */
static int sets(const char *entry, const char *name, size_t nl)
{
        return strncmp(entry, name, nl) == 0 && entry[nl] == '=';
}

char **sbx__plan_env(const struct sbx_plan *plan, const char *const *src, const char *home,
                     const char *tmpdir)
{
        size_t n = 0, i, k, o = 0;
        char **env;

        while (src != NULL && src[n] != NULL)
                n++;
        env = calloc(n + plan->n_env_set + 3, sizeof(*env));
        if (env == NULL)
                return NULL;
        for (i = 0; i < n; i++) {
                const char *eq = strchr(src[i], '=');
                char name[256];
                size_t nl;

                if (eq == NULL || (nl = (size_t) (eq - src[i])) == 0 || nl >= sizeof(name))
                        continue;
                memcpy(name, src[i], nl);
                name[nl] = '\0';
                /* The backend's HOME and TMPDIR replace the caller's, unless
                 * the environment passes unchanged (a direct plan). */
                if ((home != NULL || !plan->env_passthrough) && strcmp(name, "HOME") == 0)
                        continue;
                if ((tmpdir != NULL || !plan->env_passthrough) && strcmp(name, "TMPDIR") == 0)
                        continue;
                if (!sbx__plan_env_allowed(plan, name))
                        continue;
                for (k = 0; k < plan->n_env_set && !sets(plan->env_set[k], name, nl); k++)
                        ;
                if (k < plan->n_env_set)
                        continue;       /* the spawn sets its own value */
                if ((env[o++] = strdup(src[i])) == NULL)
                        goto oom;
        }
        /* What the caller set for this spawn (never HOME or TMPDIR:
         * sbx_spawn refuses those), after the filter. */
        for (k = 0; k < plan->n_env_set; k++)
                if ((env[o++] = strdup(plan->env_set[k])) == NULL)
                        goto oom;
        if (home != NULL && (env[o++] = join("HOME", home)) == NULL)
                goto oom;
        if (tmpdir != NULL && (env[o++] = join("TMPDIR", tmpdir)) == NULL)
                goto oom;
        return env;
oom:
        for (i = 0; i < o; i++)
                free(env[i]);
        free(env);
        return NULL;
}
