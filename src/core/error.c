/*
 * error.c - sbx_error, code names and texts, sbx_free, invariants.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

sbx_code sbx__fail(sbx_error *err, sbx_code code, int sys_errno, const char *fmt, ...)
{
        va_list ap;

        if (err != NULL) {
                err->code = (int32_t) code;
                err->sys_errno = sys_errno;
                va_start(ap, fmt);
                (void) vsnprintf(err->message, sizeof(err->message), fmt, ap);
                va_end(ap);
        }
        return code;
}

/* The codes are 0 .. SBX__CODE_END - 1: each is in range, and the switch
 * below refuses a duplicate. */
#define SBX__CODE_DENSE(name, value, text) \
        _Static_assert((value) >= 0 && (value) < SBX__CODE_END, "sbx_code " #name " out of range");
SBX_CODE_MAP(SBX__CODE_DENSE)
#undef SBX__CODE_DENSE

const char *sbx_code_name(int32_t code)
{
        switch (code) {
#define SBX__CODE_NAME(name, value, text) case value: return "SBX_" #name;
        SBX_CODE_MAP(SBX__CODE_NAME)
#undef SBX__CODE_NAME
        default:
                return "SBX_E_UNKNOWN";
        }
}

const char *sbx_strerror(int32_t code)
{
        switch (code) {
#define SBX__CODE_TEXT(name, value, text) case value: return text;
        SBX_CODE_MAP(SBX__CODE_TEXT)
#undef SBX__CODE_TEXT
        default:
                return "unknown error";
        }
}

void sbx_free(void *ptr)
{
        free(ptr);
}

void sbx_strv_free(char **strv)
{
        size_t i;

        if (strv == NULL)
                return;
        for (i = 0; strv[i] != NULL; i++)
                free(strv[i]);
        free(strv);
}

#ifdef NDEBUG
#  define SBX__INVARIANTS_DEFAULT 0
#else
#  define SBX__INVARIANTS_DEFAULT 1
#endif

static atomic_int invariants_on = SBX__INVARIANTS_DEFAULT;

void sbx_invariants_set_enabled(int enabled)
{
        atomic_store(&invariants_on, enabled ? 1 : 0);
}

int sbx_invariants_enabled(void)
{
        return atomic_load(&invariants_on);
}

void sbx__invariant_fail(const char *fmt, ...)
{
        char line[512];
        va_list ap;
        int n;

        n = snprintf(line, sizeof(line), "[sandbox invariant] ");
        va_start(ap, fmt);
        (void) vsnprintf(line + n, sizeof(line) - (size_t) n - 1, fmt, ap);
        va_end(ap);
        n = (int) strlen(line);
        line[n++] = '\n';
        /* One write(2): no stdio buffering between us and abort(). */
        (void) !write(STDERR_FILENO, line, (size_t) n);
        abort();
}
