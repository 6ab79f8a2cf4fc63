/*
 * lookup.c - the one PATH lookup, shared by every backend and by the runner
 * (docs/architecture.md); the environment lookup and the HOME resolver it
 * uses are the platform's (posix/home.c, win32/home.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"

static int executable_file(const char *path)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EACCES;
        if (access(path, X_OK) < 0)
                return -errno;
        return 0;
}

int sbx__which(const char *name, const char *path_list, char **out)
{
        return sbx__which_visible(name, path_list, NULL, NULL, out);
}

int sbx__which_visible(const char *name, const char *path_list,
                       int (*visible)(const char *path, void *ctx), void *ctx, char **out)
{
        const char *p;
        int best = -ENOENT;

        if (name == NULL || name[0] == '\0')
                return -ENOENT;
        if (strchr(name, '/') != NULL) {
                int r;

                if (name[0] != '/')
                        return -EINVAL;
                r = executable_file(name);
                if (r < 0)
                        return r;
                *out = sbx__strdup(name);
                return *out != NULL ? 0 : -ENOMEM;
        }
        if (path_list == NULL || path_list[0] == '\0')
                path_list = SBX__DEFAULT_PATH;
        for (p = path_list;;) {
                const char *end = strchr(p, ':');
                size_t len = end != NULL ? (size_t) (end - p) : strlen(p);
                char buf[SBX_PATH_MAX];

                /* Only absolute PATH entries: "" and "." would make the
                 * result depend on the working directory. */
                if (len > 0 && p[0] == '/' && len + strlen(name) + 2 <= sizeof(buf)) {
                        int r;

                        memcpy(buf, p, len);
                        buf[len] = '/';
                        memcpy(buf + len + 1, name, strlen(name) + 1);
                        r = executable_file(buf);
                        if (r == 0 && visible != NULL && !visible(buf, ctx))
                                r = -ENOENT;    /* not there in the sandbox's view */
                        if (r == 0) {
                                *out = sbx__strdup(buf);
                                return *out != NULL ? 0 : -ENOMEM;
                        }
                        if (r != -ENOENT && r != -ENOTDIR)
                                best = r;
                }
                if (end == NULL)
                        break;
                p = end + 1;
        }
        return best;
}

int sbx__command_lookup(const char *argv0, const char *const *envp, char **out)
{
        return sbx__command_lookup_visible(argv0, envp, NULL, NULL, out);
}

int sbx__command_lookup_visible(const char *argv0, const char *const *envp,
                                int (*visible)(const char *path, void *ctx), void *ctx,
                                char **out)
{
        if (argv0 == NULL || argv0[0] == '\0')
                return -ENOENT;
        if (strchr(argv0, '/') != NULL) {
                /* Used as is: a relative one is resolved by execve in the
                 * sandbox's working directory. */
                *out = sbx__strdup(argv0);
                return *out != NULL ? 0 : -ENOMEM;
        }
        return sbx__which_visible(argv0, sbx__env_get(envp, "PATH"), visible, ctx, out);
}
