/*
 * query.c - the pure questions every profile file asks: the syntax of a
 * canonical path (sbx__path_syntax), the access a built profile gives a
 * path and the deepest root containing it, and the printable copy of
 * untrusted text for a message.  A leaf: profile.c, secrets.c, access.c,
 * the policy file and the plan compiler call it; it calls only the paths
 * layer.  Split from profile.c so that profile.c and secrets.c do not call
 * each other.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

/*
 * Copy up to 48 bytes of untrusted text for a message, replacing anything
 * that is not printable ASCII with '?', so an error message never carries
 * control characters (terminal escapes) into a log.
 */
const char *sbx__printable(const char *s, char *buf, size_t bufsz)
{
        size_t i;

        for (i = 0; i + 1 < bufsz && i < 48 && s[i] != '\0'; i++)
                buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
        buf[i] = '\0';
        if (s[i] != '\0' && i >= 3) {
                buf[i - 1] = '.';
                buf[i - 2] = '.';
                buf[i - 3] = '.';
        }
        return buf;
}

/* ------------------------------------------------------- path syntax */

const char *sbx__path_syntax_text(enum path_syntax s)
{
        switch (s) {
        case PATH_OK:
                return "is canonical";
        case PATH_EMPTY:
                return "is empty";
        case PATH_RELATIVE:
                return "is not absolute";
        case PATH_TOO_LONG:
                return "is too long";
        case PATH_TRAILING_SLASH:
                return "is not canonical (trailing slash)";
        case PATH_EMPTY_COMPONENT:
                return "is not canonical (\"//\")";
        case PATH_DOT:
                return "is not canonical (a \".\" component)";
        case PATH_DOTDOT:
                return "is not canonical (a \"..\" component)";
        }
        return "is invalid";
}

/*
 * The syntax of a canonical absolute path, with no file system access:
 * absolute, shorter than SBX_PATH_MAX, no empty, "." or ".." component and
 * no trailing slash (except "/" itself).
 */
enum path_syntax sbx__path_syntax(const char *path)
{
        const char *p = path;
        size_t n;

        if (path[0] == '\0')
                return PATH_EMPTY;
        if (path[0] != '/')
                return PATH_RELATIVE;
        n = strnlen(path, SBX_PATH_MAX);
        if (n >= SBX_PATH_MAX)
                return PATH_TOO_LONG;
        if (n == 1)
                return PATH_OK;
        if (path[n - 1] == '/')
                return PATH_TRAILING_SLASH;
        while (*p != '\0') {
                const char *seg = ++p;  /* skip the '/' */
                size_t len;

                while (*p != '\0' && *p != '/')
                        p++;
                len = (size_t) (p - seg);
                if (len == 0)
                        return PATH_EMPTY_COMPONENT;
                if (len == 1 && seg[0] == '.')
                        return PATH_DOT;
                if (len == 2 && seg[0] == '.' && seg[1] == '.')
                        return PATH_DOTDOT;
        }
        return PATH_OK;
}

/* ------------------------------------------------------- path access */

int32_t sbx__profile_path_access(const sbx_profile *p, const char *path, int write)
{
        size_t best_len, i;
        int32_t r, w;

        SBX__INVARIANT(p != NULL && path != NULL, "sbx__profile_path_access: NULL argument");
        if (p == NULL || path == NULL)
                return SBX_ACCESS_DENY;
        r = p->host_read;
        w = p->host_write;
        best_len = 0;
        if (sbx__path_has_prefix(path, p->workspace_root)) {
                best_len = strlen(p->workspace_root);
                r = p->workspace_read;
                w = p->workspace_write;
        }
        for (i = 0; i < p->n_roots; i++) {
                size_t len;

                if (!sbx__path_has_prefix(path, p->roots[i].path))
                        continue;
                /* "/" (length 1) contains everything and is the shallowest
                 * root; a later match is deeper iff its path is longer. */
                len = strlen(p->roots[i].path);
                if (len > best_len) {
                        best_len = len;
                        r = p->roots[i].read;
                        w = p->roots[i].write;
                }
        }
        return write ? w : r;
}

const char *sbx__profile_deepest_root(const sbx_profile *p, const char *path)
{
        const char *best = NULL;
        size_t best_len = 0, i;

        if (p == NULL || path == NULL)
                return NULL;
        if (sbx__path_has_prefix(path, p->workspace_root)) {
                best = p->workspace_root;
                best_len = strlen(best);
        }
        for (i = 0; i < p->n_roots; i++) {
                size_t len = strlen(p->roots[i].path);

                if (len > best_len && sbx__path_has_prefix(path, p->roots[i].path)) {
                        best = p->roots[i].path;
                        best_len = len;
                }
        }
        return best;
}
