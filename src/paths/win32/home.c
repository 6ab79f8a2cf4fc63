/*
 * home.c - the environment lookup and the one HOME resolver on Windows
 * (posix/home.c is the POSIX sibling): names are case-insensitive, and the
 * home is HOME when it is a POSIX spelling, else USERPROFILE (docs/windows.md
 * "Paths").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "paths/paths_internal.h"

const char *sbx__env_get(const char *const *envp, const char *name)
{
        const char *found = NULL;
        size_t n = strlen(name), i, k;

        if (envp == NULL)
                return NULL;
        /* Windows names are case-insensitive ("Path" is PATH). */
        for (i = 0; envp[i] != NULL; i++) {
                for (k = 0; k < n; k++)
                        if (sbx__ascii_lower((unsigned char) envp[i][k]) !=
                            sbx__ascii_lower((unsigned char) name[k]))
                                break;
                if (k == n && envp[i][n] == '=')
                        found = envp[i] + n + 1;
        }
        return found;
}

/* A drive path (or its POSIX spelling) made canonical in the POSIX
 * spelling; 0 with *out NULL when it does not exist. */
static int home_from(const char *value, char **out)
{
        char posix[SBX__WINPATH_BUF], *real;

        *out = NULL;
        if (value == NULL || value[0] == '\0')
                return 0;
        if (value[0] == '/')
                (void) snprintf(posix, sizeof(posix), "%s", value);
        else if (sbx__winpath_to_posix(value, posix, sizeof(posix), NULL) != SBX_OK)
                return -EINVAL;         /* a home the rules refuse: fail closed */
        real = realpath(posix, NULL);
        if (real == NULL)
                return errno == ENOENT ? 0 : -errno;
        if (strcmp(real, "/") == 0) {
                free(real);
                return 0;
        }
        *out = real;
        return 0;
}

int sbx__caller_home(const char *const *envp, char **out)
{
        const char *home = sbx__env_get(envp, "HOME");

        if (home != NULL && home[0] == '/')
                return home_from(home, out);
        return home_from(sbx__env_get(envp, "USERPROFILE"), out);
}

int sbx__account_home(char **out)
{
        wchar_t w[SBX__WINPATH_BUF];
        char s[4 * SBX__WINPATH_BUF];
        DWORD n;

        /* The profile directory of this process's account. */
        n = GetEnvironmentVariableW(L"USERPROFILE", w, (DWORD) (sizeof(w) / sizeof(w[0])));
        *out = NULL;
        if (n == 0 || n >= sizeof(w) / sizeof(w[0]))
                return 0;
        if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, (int) sizeof(s),
                                NULL, NULL) == 0)
                return -EINVAL;         /* not UTF-16: fail closed */
        return home_from(s, out);
}
