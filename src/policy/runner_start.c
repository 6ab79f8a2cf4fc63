/*
 * runner_start.c - runner failure rules for the runner binary's own start:
 * the loader cannot load it, or it cannot be executed at all.  A host that
 * runs a confined argv sees these as exit 127 / 126 with a line naming the
 * runner's path, and must not mistake them for the command's result.
 * Portable: string building and one allocation, no OS calls.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/runner_start.h"

/* ld.so: "<argv[0]>: error while loading shared libraries: <lib>: <why>". */
static const int32_t loader_codes[] = { 127 };
static const char loader_tail[] = ": error while loading shared libraries";

/* An exec that fails: 127 for a missing file, 126 for one that cannot be
 * executed.  dash says "sh: 1: <path>: not found", bash "bash: <path>: No
 * such file or directory", GNU env / timeout / nohup quote the path:
 * "env: '<path>': ..." ('...' in the C locale, U+2018 / U+2019 in UTF-8). */
static const int32_t exec_codes[] = { 126, 127 };
static const char *const exec_seps[] = { ": ", "': ", "\xe2\x80\x99: " };
static const char *const exec_reasons[] = {
        "not found", "No such file or directory", "Permission denied", "cannot execute",
        "Exec format error",
};

#define N_SEPS    (sizeof(exec_seps) / sizeof(exec_seps[0]))
#define N_REASONS (sizeof(exec_reasons) / sizeof(exec_reasons[0]))
#define N_EXEC    (N_SEPS * N_REASONS)

/* Append a, b, c and a NUL at *p; returns the string's start. */
static const char *put(char **p, const char *a, const char *b, const char *c)
{
        char *start = *p;
        size_t n;

        n = strlen(a);
        memcpy(*p, a, n);
        *p += n;
        n = strlen(b);
        memcpy(*p, b, n);
        *p += n;
        n = strlen(c);
        memcpy(*p, c, n + 1);
        *p += n + 1;
        return start;
}

sbx_runner_rule *sbx__runner_start_rules(const sbx_runner_rule *base, size_t n_base,
                                         const char *runner, size_t *n_out)
{
        size_t rlen = strlen(runner), text = 0, head, i, j, k;
        const char **sigs;
        sbx_runner_rule *rules;
        char *p;

        /* Far beyond any path: keeps the size arithmetic from wrapping. */
        if (rlen > 65536 || n_base > 64)
                return NULL;
        text += rlen + sizeof(loader_tail);
        for (i = 0; i < N_SEPS; i++)
                for (j = 0; j < N_REASONS; j++)
                        text += rlen + strlen(exec_seps[i]) + strlen(exec_reasons[j]) + 1;
        /* Rules, then the signature pointers (rules hold pointers, so the
         * pointer array after them is aligned), then the text. */
        head = (n_base + 2) * sizeof(*rules) + (1 + N_EXEC) * sizeof(*sigs);
        rules = malloc(head + text);
        if (rules == NULL)
                return NULL;
        sigs = (const char **) (void *) (rules + n_base + 2);
        p = (char *) rules + head;

        for (i = 0; i < n_base; i++)
                rules[i] = base[i];
        sigs[0] = put(&p, runner, loader_tail, "");
        k = 1;
        for (i = 0; i < N_SEPS; i++)
                for (j = 0; j < N_REASONS; j++)
                        sigs[k++] = put(&p, runner, exec_seps[i], exec_reasons[j]);

        rules[n_base] = (sbx_runner_rule) SBX_RUNNER_RULE_INIT;
        rules[n_base].allowed_exit_codes = loader_codes;
        rules[n_base].n_allowed_exit_codes = sizeof(loader_codes) / sizeof(loader_codes[0]);
        rules[n_base].fatal_signatures = sigs;
        rules[n_base].n_fatal_signatures = 1;
        rules[n_base + 1] = (sbx_runner_rule) SBX_RUNNER_RULE_INIT;
        rules[n_base + 1].allowed_exit_codes = exec_codes;
        rules[n_base + 1].n_allowed_exit_codes = sizeof(exec_codes) / sizeof(exec_codes[0]);
        rules[n_base + 1].fatal_signatures = sigs + 1;
        rules[n_base + 1].n_fatal_signatures = N_EXEC;
        *n_out = n_base + 2;
        return rules;
}
