/*
 * home.c - the environment lookup and the one HOME resolver on POSIX
 * systems (the password database); win32/home.c is the Windows sibling.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths/paths_internal.h"

const char *sbx__env_get(const char *const *envp, const char *name)
{
        size_t n = strlen(name), i;
        const char *v = NULL;

        for (i = 0; envp != NULL && envp[i] != NULL; i++)
                if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
                        v = envp[i] + n + 1;    /* the last one wins, as getenv */
        return v;
}

int sbx__account_home(char **out)
{
        struct passwd pw, *res = NULL;
        char *buf, canon[PATH_MAX];
        long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
        int r = 0;

        *out = NULL;
        if (sz < 1024 || sz > 1 << 20)
                sz = 16384;
        buf = malloc((size_t) sz);
        if (buf == NULL)
                return -ENOMEM;
        if (getpwuid_r(geteuid(), &pw, buf, (size_t) sz, &res) == 0 && res != NULL &&
            pw.pw_dir != NULL && pw.pw_dir[0] == '/') {
                if (realpath(pw.pw_dir, canon) == NULL) {
                        if (errno != ENOENT && errno != ENOTDIR)
                                r = errno != 0 ? -errno : -EIO;
                } else if (strcmp(canon, "/") != 0 && (*out = sbx__strdup(canon)) == NULL) {
                        r = -ENOMEM;
                }
        }
        free(buf);
        return r;
}

int sbx__caller_home(const char *const *envp, char **out)
{
        const char *h = sbx__env_get(envp, "HOME");
        struct passwd pw, *res = NULL;
        char *buf = NULL, canon[PATH_MAX];
        long sz;
        int r = 0;

        *out = NULL;
        if (h == NULL || h[0] != '/') {
                h = NULL;
                sz = sysconf(_SC_GETPW_R_SIZE_MAX);
                if (sz < 1024 || sz > 1 << 20)
                        sz = 16384;
                buf = malloc((size_t) sz);
                if (buf == NULL)
                        return -ENOMEM;
                if (getpwuid_r(geteuid(), &pw, buf, (size_t) sz, &res) == 0 && res != NULL &&
                    pw.pw_dir != NULL && pw.pw_dir[0] == '/')
                        h = pw.pw_dir;
        }
        if (h != NULL) {
                if (realpath(h, canon) == NULL) {
                        /* Nothing there is nothing to hide; anything else
                         * (EACCES, ELOOP) cannot be hidden: fail closed. */
                        if (errno != ENOENT && errno != ENOTDIR)
                                r = errno != 0 ? -errno : -EIO;
                } else if ((*out = sbx__strdup(canon)) == NULL) {
                        r = -ENOMEM;
                }
        }
        free(buf);
        return r;
}
