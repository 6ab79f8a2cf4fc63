/*
 * canonical.c - canonical paths and the single writable-roots helper that
 * every backend and the FS fence share, so the two can never disagree about
 * which directories are writable.
 *
 * How a path is made canonical
 * ----------------------------
 * 1. If realpath(3) resolves the whole path, that is the answer.
 *
 * 2. Otherwise the path is walked one component at a time from "/", the
 *    way the kernel's lookup does it.  `cur` always holds a canonical
 *    existing prefix, possibly followed by a "remainder" of names that do
 *    not exist:
 *      - ""  and "."  are skipped (this also removes "//" and a trailing
 *        slash);
 *      - a name below an existing prefix is lstat(2)ed.  A non-symlink is
 *        appended (the prefix is canonical, so the result is too); a
 *        symlink is resolved with realpath(3) of prefix + name, exactly as
 *        the kernel would follow it;
 *      - a name that does not exist (ENOENT, or ENOTDIR because the prefix
 *        is not a directory) starts the remainder, and every later name is
 *        appended lexically: nothing below a missing name can exist;
 *      - ".." removes the last component of `cur`.  On the existing prefix
 *        that is the kernel's rule (".." is taken from the *resolved*
 *        directory, so "/f/link/.." with link -> /f/a/b is "/f/a", not
 *        "/f"); in the remainder it only pops remainder names, and once
 *        the remainder is empty the walk is back on real directories and
 *        resolves symlinks again ("/f/missing/../link/x" follows link).
 *        ".." therefore never climbs through a name lexically when that
 *        name is a symlink that exists.
 *    The result is absolute, has no "//", "." or ".." and no trailing
 *    slash (except "/" itself).
 *
 * Decisions (fail closed: a guess here could make the sandbox and the FS
 * fence disagree about which directory a path names):
 *    - A prefix that exists but cannot be examined (EACCES on a directory
 *      that is not searchable, EIO, ...) is SBX_E_IO with that errno.  We do
 *      NOT fall back to the lexically cleaned path: if the unreadable part
 *      held a symlink, the lexical answer would name another directory.
 *    - A symlink that exists but whose target cannot be resolved -- a
 *      dangling symlink, as the leaf or in the middle -- is SBX_E_IO with
 *      the errno realpath(3) gave (ENOENT for a missing target).  Treating
 *      it as a missing name would be wrong (writes through the name follow
 *      the link and land in the target), and resolving the target by hand
 *      would duplicate the kernel's rules for relative targets and chains.
 *    - A symlink loop (or a chain longer than the kernel's limit) is
 *      SBX_E_IO with ELOOP.
 *    - A resolved name that is not a directory but is followed by more
 *      names ("/f/file/x") is treated as missing (the kernel says ENOTDIR,
 *      nothing can exist below it); a following ".." is applied to the
 *      resolved name as it would be once the file became a directory.  The
 *      kernel refuses both paths today, so no access can reach either name.
 *    - A result that would not fit in SBX_PATH_MAX bytes (symlinks can make
 *      a path longer) is SBX_E_RANGE.
 *
 * Canonicalisation is a snapshot: the file system can change afterwards.
 * Enforcement itself opens paths once and then uses fds (docs/style.md,
 * "Threads, processes, descriptors").
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths/paths_internal.h"
#include "policy/policy_internal.h"

/* A short text for the errnos a lookup can give (no strerror: not
 * guaranteed thread-safe). */
static const char *errno_text(int e)
{
        switch (e) {
        case EACCES:
                return "permission denied (a directory on the way is not searchable)";
        case ELOOP:
                return "too many levels of symbolic links (a symlink loop?)";
        case ENOENT:
                return "no such file or directory";
        case ENOTDIR:
                return "not a directory";
        case ENAMETOOLONG:
                return "name too long";
        case EIO:
                return "input/output error";
        case ENOMEM:
                return "out of memory";
        default:
                return "system error";
        }
}

/* lstat(2), retried on EINTR.  0 or -errno. */
static int lstat_retry(const char *path, struct stat *st)
{
        int r;

        do {
                r = lstat(path, st);
        } while (r < 0 && errno == EINTR);
        return r < 0 ? -errno : 0;
}

/* realpath(3) into out (SBX_PATH_MAX bytes), retried on EINTR.  0 or
 * -errno; -ENAMETOOLONG if the answer does not fit. */
static int realpath_into(const char *path, char *out)
{
        char *res;
        size_t n;
        int e;

        do {
                errno = 0;
                res = realpath(path, NULL);
        } while (res == NULL && errno == EINTR);
        if (res == NULL) {
                e = errno;
                return e != 0 ? -e : -EIO;
        }
        n = strlen(res);
        if (n >= SBX_PATH_MAX) {
                free(res);
                return -ENAMETOOLONG;
        }
        memcpy(out, res, n + 1);
        free(res);
        return 0;
}

/* Map a failed lookup of `where` to an sbx_code with a message. */
static sbx_code lookup_fail(const char *fn, const char *what, const char *where, int e,
                            sbx_error *err)
{
        if (e == ENAMETOOLONG)
                return sbx__fail(err, SBX_E_RANGE, e,
                                 "%s: %s: \"%.150s\" resolves to a path longer than %d bytes",
                                 fn, what, where, SBX_PATH_MAX - 1);
        if (e == ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, e, "%s: %s: no memory", fn, what);
        return sbx__fail(err, SBX_E_IO, e, "%s: %s: cannot resolve \"%.150s\": %s", fn, what,
                         where, errno_text(e));
}

/* Check a path argument: present, not too long, absolute. */
static sbx_code check_path(const char *fn, const char *what, const char *path, sbx_error *err)
{
        if (path == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is NULL", fn, what);
        if (path[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is empty", fn, what);
        if (strnlen(path, SBX_PATH_MAX) >= SBX_PATH_MAX)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: %s is longer than %d bytes", fn,
                                 what, SBX_PATH_MAX - 1);
        if (path[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s \"%.150s\" is not absolute",
                                 fn, what, path);
        return SBX_OK;
}

/* Append "/" + seg[0..len) to cur (length *o).  0 or -ENAMETOOLONG. */
static int append(char *cur, size_t *o, const char *seg, size_t len)
{
        size_t sep = *o > 1 ? 1 : 0;

        if (*o + sep + len >= SBX_PATH_MAX)
                return -ENAMETOOLONG;
        if (sep)
                cur[(*o)++] = '/';
        memcpy(cur + *o, seg, len);
        *o += len;
        cur[*o] = '\0';
        return 0;
}

/* The component walk (see the top of the file).  path is checked. */
static sbx_code walk(const char *fn, const char *what, const char *path, char *out,
                     sbx_error *err)
{
        char cur[SBX_PATH_MAX];
        char res[SBX_PATH_MAX];
        size_t o = 1;           /* strlen(cur) */
        size_t existing = 1;    /* cur[0..existing) exists and is canonical */
        const char *p = path, *seg;
        size_t len;
        struct stat st;
        int r;

        cur[0] = '/';
        cur[1] = '\0';
        while ((seg = sbx__path_next(&p, &len)) != NULL) {
                size_t before;

                if (len == 1 && seg[0] == '.')
                        continue;
                if (len == 2 && seg[0] == '.' && seg[1] == '.') {
                        /* Drop the last component; "/.." is "/". */
                        sbx__path_pop(cur, &o);
                        if (o < existing)
                                existing = o;
                        continue;
                }
                before = o;
                if (append(cur, &o, seg, len) < 0)
                        return lookup_fail(fn, what, path, ENAMETOOLONG, err);
                if (before > existing)
                        continue;       /* below a missing name: lexical */
                r = lstat_retry(cur, &st);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue;       /* the remainder starts here */
                if (r < 0)
                        return lookup_fail(fn, what, cur, -r, err);
                if (S_ISLNK(st.st_mode)) {
                        r = realpath_into(cur, res);
                        if (r == -ENOENT || r == -ENOTDIR)
                                return sbx__fail(err, SBX_E_IO, -r,
                                                 "%s: %s: \"%.150s\" is a dangling symlink; "
                                                 "create its target first", fn, what, cur);
                        if (r < 0)
                                return lookup_fail(fn, what, cur, -r, err);
                        o = strlen(res);
                        memcpy(cur, res, o + 1);
                }
                existing = o;
        }
        memcpy(out, cur, o + 1);
        return SBX_OK;
}

sbx_code sbx__path_canonical_buf(const char *fn, const char *what, const char *path,
                                 char *out, sbx_error *err)
{
        char res[SBX_PATH_MAX];
        sbx_code c;
        int r;

        c = check_path(fn, what, path, err);
        if (c != SBX_OK)
                return c;
        r = realpath_into(path, res);
        if (r == 0) {
                memcpy(out, res, strlen(res) + 1);
                return SBX_OK;
        }
        if (r == -ENOMEM)
                return lookup_fail(fn, what, path, ENOMEM, err);
        /* Any other failure: the walk finds the missing part or names the
         * component that really cannot be resolved. */
        return walk(fn, what, path, out, err);
}

sbx_code sbx_path_canonical(const char *path, char **out, sbx_error *err)
{
        const char *fn = "sbx_path_canonical";
        char buf[SBX_PATH_MAX];
        char *s;
        sbx_code c;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        c = sbx__path_canonical_buf(fn, "path", path, buf, err);
        if (c != SBX_OK)
                return c;
        s = sbx__strdup(buf);
        if (s == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        *out = s;
        return SBX_OK;
}

/* 1 if path has a "." or ".." component (it is not canonical). */
static int has_dot_component(const char *path)
{
        const char *p = path;

        while (*p != '\0') {
                const char *seg;

                while (*p == '/')
                        p++;
                seg = p;
                while (*p != '\0' && *p != '/')
                        p++;
                if ((p - seg == 1 && seg[0] == '.') ||
                    (p - seg == 2 && seg[0] == '.' && seg[1] == '.'))
                        return 1;
        }
        return 0;
}

int sbx__path_has_prefix(const char *path, const char *root)
{
        size_t n;

        if (path == NULL || root == NULL || path[0] != '/' || root[0] != '/')
                return 0;
        /* "/ws/../etc" is not below "/ws": a path that is not canonical is
         * never within anything, so a caller's slip fails closed. */
        if (has_dot_component(path))
                return 0;
        n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
                n--;
        if (n == 1)
                return 1;       /* every absolute path is below "/" */
        return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int sbx_path_is_within(const char *path, const char *const *roots, size_t n)
{
        size_t i;

        if (path == NULL || roots == NULL)
                return 0;
        for (i = 0; i < n; i++)
                if (roots[i] != NULL && sbx__path_has_prefix(path, roots[i]))
                        return 1;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void strv_free_n(char **v, size_t n)
{
        size_t i;

        if (v == NULL)
                return;
        for (i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

sbx_code sbx__roots_collapse(char **v, size_t n, size_t *n_out)
{
        size_t kept = 0, i, j;

        if ((v == NULL && n > 0) || n_out == NULL)
                return SBX_E_INVALID;
        for (i = 0; i < n; i++)
                if (v[i] == NULL || v[i][0] != '/')
                        return SBX_E_INVALID;
        /* Sorted with strcmp, an ancestor ("/a/b") always precedes its
         * descendants ("/a/b/c") because it is their prefix, though not
         * necessarily adjacent ("/a/b-x" sorts between), so each root is
         * checked against every root kept so far.  An equal root counts as
         * covered, which removes duplicates. */
        if (n > 1)
                qsort(v, n, sizeof(*v), cmp_str);
        for (i = 0; i < n; i++) {
                int covered = 0;

                for (j = 0; j < kept && !covered; j++)
                        covered = sbx__path_has_prefix(v[i], v[j]);
                if (covered) {
                        free(v[i]);
                        v[i] = NULL;
                } else {
                        v[kept++] = v[i];
                        if (kept - 1 != i)
                                v[i] = NULL;
                }
        }
        *n_out = kept;
        return SBX_OK;
}

sbx_code sbx_writable_roots(const sbx_confined_policy *policy, const char *const *extra,
                            size_t n_extra, char ***out, size_t *n_out, sbx_error *err)
{
        const char *fn = "sbx_writable_roots";
        char buf[SBX_PATH_MAX];
        char what[48];
        char **v;
        size_t n = 0, kept = 0, i;
        int with_workspace;
        sbx_code c;

        if (policy == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (extra == NULL && n_extra > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: extra is NULL but n_extra is %zu",
                                 fn, n_extra);
        if (n_extra > SIZE_MAX / sizeof(char *) - 2)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: n_extra %zu is too large", fn,
                                 n_extra);
        switch (policy->mode) {
        case SBX_CONFINED_READ_ONLY:
                with_workspace = 0;
                break;
        case SBX_CONFINED_WORKSPACE_WRITE:
                with_workspace = 1;
                break;
        default:
                SBX__INVARIANT(0, "confined policy with invalid mode %d", (int) policy->mode);
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy has invalid mode %d", fn,
                                 (int) policy->mode);
        }
        if (with_workspace && (policy->exec == NULL || policy->exec->workspace_root == NULL)) {
                SBX__INVARIANT(0, "workspace-write confined policy without a workspace root");
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy has no workspace root", fn);
        }
        /* Every argument is checked before any file system access. */
        for (i = 0; i < n_extra; i++) {
                (void) snprintf(what, sizeof(what), "extra[%zu]", i);
                c = check_path(fn, what, extra[i], err);
                if (c != SBX_OK)
                        return c;
        }

        v = calloc(n_extra + 2, sizeof(*v));
        if (v == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        for (i = 0; i < n_extra + (size_t) with_workspace; i++) {
                const char *src;

                if (with_workspace && i == n_extra) {
                        src = policy->exec->workspace_root;
                        (void) snprintf(what, sizeof(what), "workspace root");
                } else {
                        src = extra[i];
                        (void) snprintf(what, sizeof(what), "extra[%zu]", i);
                }
                c = sbx__path_canonical_buf(fn, what, src, buf, err);
                if (c != SBX_OK) {
                        strv_free_n(v, n);
                        return c;
                }
                v[n] = sbx__strdup(buf);
                if (v[n] == NULL) {
                        strv_free_n(v, n);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                }
                n++;
        }

        c = sbx__roots_collapse(v, n, &kept);
        if (c != SBX_OK) {
                SBX__INVARIANT(0, "sbx__roots_collapse refused canonical roots");
                strv_free_n(v, n);
                return sbx__fail(err, SBX_E_INTERNAL, 0, "%s: internal error collapsing roots",
                                 fn);
        }
        v[kept] = NULL;

        *out = v;
        if (n_out != NULL)
                *n_out = kept;
        return SBX_OK;
}
