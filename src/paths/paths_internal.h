/*
 * paths_internal.h - the paths layer's helpers shared with the layers above
 * it (compile, the backends, the FS fence).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_PATHS_INTERNAL_H
#define SBX_PATHS_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>

#include "core/internal.h"

/*
 * 1 if `path` equals `root` or lies below it, comparing whole components:
 * "/a/bc" is not below "/a/b", and every absolute path is below "/".
 * Trailing slashes on root are ignored.  0 if either is NULL or not
 * absolute (an empty or relative "root" never matches, so it can never
 * widen anything).  No I/O: both sides are expected to be canonical.
 */
int sbx__path_has_prefix(const char *path, const char *root);

/*
 * sbx_path_canonical() into a caller buffer of SBX_PATH_MAX bytes, with the
 * error message naming `fn` (the public function) and `what` (the argument,
 * e.g. "extra[2]").  `out` is written only on success.
 * Errors: as sbx_path_canonical() (never SBX_E_NOMEM).
 */
sbx_code sbx__path_canonical_buf(const char *fn, const char *what, const char *path,
                                 char *out, sbx_error *err);

/*
 * The one writable-roots collapse, shared by sbx_writable_roots() and the
 * compile layer's plan.  v[0..n) are malloc'd, already canonical absolute
 * paths.  Sorts them with strcmp, drops duplicates and every root nested
 * in another root (freeing the dropped strings), and compacts the
 * survivors into v[0..*n_out); v[*n_out..n) become NULL.  Pure: no I/O.
 * Returns SBX_OK, or SBX_E_INVALID (v NULL with n > 0, n_out NULL, or an
 * entry NULL or not absolute) before touching anything.
 */
sbx_code sbx__roots_collapse(char **v, size_t n, size_t *n_out);

/* ------------- posix/gitscan.c (win32/gitscan.c finds nothing), gitfound.c */

/* One location git reads as configuration or runs as code. */
struct sbx__gitloc {
        char *path;     /* canonical absolute */
        int   tree;     /* 1: the directory and everything below it */
};

struct sbx__gitscan {
        struct sbx__gitloc *v;
        size_t n, cap;
        char  *fail;    /* on error: the path the scan stopped at, or NULL */
};

/*
 * Walk the writable `roots` (canonical; no symlink followed) and list every
 * git location below them that must be read-only for a confined command:
 * .git directories and "gitdir:" files with their git and common dirs,
 * every directory holding a HEAD, and whatever the configuration git would
 * read names inside a root (hooks directories, included files, programs,
 * trusted and data files), the configuration resolved per repository as
 * git resolves it (docs/git.md).  `envp` is the caller's environment:
 * HOME, XDG_CONFIG_HOME, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL,
 * GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS and the GIT_*
 * variables naming programs are read from it (NULL: none).  A listed
 * location that does not exist yet is created empty.  0, or -errno with
 * out->fail naming the path (free with sbx__gitscan_free either way).
 */
int sbx__git_discover(const char *const *roots, size_t n_roots, const char *const *envp,
                      struct sbx__gitscan *out);
/* Free what a scan holds (NULL-safe, idempotent).  Inline, so every build
 * has this one definition, the Windows one (which scans nothing) too. */
static inline void sbx__gitscan_free(struct sbx__gitscan *g)
{
        size_t i;

        if (g == NULL)
                return;
        for (i = 0; i < g->n; i++)
                free(g->v[i].path);
        free(g->v);
        free(g->fail);
        g->v = NULL;
        g->n = g->cap = 0;
        g->fail = NULL;
}

/* ----------------------------------------------------------- lookup.c */

/* The PATH searched when the environment has none. */
#define SBX__DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/*
 * Resolve a program: a name with a '/' must be absolute and is used as is;
 * a bare name is searched in `path_list` (a PATH value; NULL or empty =
 * SBX__DEFAULT_PATH; relative entries are skipped).  The result must be an
 * executable regular file.  *out is malloc'd.  0, -ENOENT (not found),
 * -EINVAL (relative with a slash), -EACCES / other -errno (not
 * executable), -ENOMEM.
 */
int sbx__which(const char *name, const char *path_list, char **out);

/* The value of `name` in envp (the last entry wins), or NULL. */
const char *sbx__env_get(const char *const *envp, const char *name);

/*
 * The command a sandbox runs, as every backend looks it up: a name with a
 * '/' is used as is (a relative one resolves in the sandbox's working
 * directory); a bare name is searched with sbx__which in the PATH of
 * `envp` (the environment the command gets).  The sandbox shows host files
 * at their own paths, so the host's answer names the same file when the
 * sandbox shows it (sbx__command_lookup_visible skips those it hides).
 */
int sbx__command_lookup(const char *argv0, const char *const *envp, char **out);

/* The same, skipping every PATH candidate for which visible(path, ctx) is
 * 0 (a file the sandbox hides: the command is looked up in the sandbox's
 * view of PATH, not the host's).  visible NULL: every file is. */
int sbx__which_visible(const char *name, const char *path_list,
                       int (*visible)(const char *path, void *ctx), void *ctx, char **out);
int sbx__command_lookup_visible(const char *argv0, const char *const *envp,
                                int (*visible)(const char *path, void *ctx), void *ctx,
                                char **out);

/*
 * The caller's home directory, as every backend hides it: HOME from envp
 * when absolute, else the password database's entry for the effective
 * uid, made canonical (realpath) so the hidden path is the one the kernel
 * resolves.  0 with *out malloc'd, 0 with *out NULL when there is none or
 * it does not exist, -errno when it exists but cannot be resolved (the
 * caller fails closed), -ENOMEM.
 */
int sbx__caller_home(const char *const *envp, char **out);

/*
 * The account's home from the password database (effective uid), made
 * canonical: hidden too when HOME points elsewhere, so a changed HOME
 * cannot uncover ~/.ssh.  0 with *out malloc'd, 0 with *out NULL when there
 * is none, it does not exist or it is "/" (nothing of its own to hide),
 * -errno when it exists but cannot be resolved, -ENOMEM.
 */
int sbx__account_home(char **out);

/* rmtree.c: remove the directory tree at path (scratch cleanup); never
 * follows symlinks out of it; a pass that met a passing shortage (EMFILE,
 * ENOMEM, ...) is tried once more.  0 (also when it does not exist) or
 * -errno. */
int sbx__rm_rf(const char *path);
/* rmtree.c: remove the directory `name` below dfd with all in it, if it is
 * a directory of this user (never a link; -EPERM otherwise).  0 or -errno. */
int sbx__rm_entry(int dfd, const char *name);
/* rmtree.c: "<pid>-<start>-<pidns>" of this process (start: field 22 of
 * /proc/self/stat; pidns: its pid namespace's inode), for the names of
 * what it leaves in shared places.  0 or -errno. */
int sbx__owner_tag(char *out, size_t size);
/* rmtree.c: 1 if the owner named at s ("<pid>-<start>-<pidns>-..." or the
 * older "<pid>-...") is certainly gone: no such pid, or that pid started
 * at another time; 0 alive, ours, of another pid namespace, or unknown. */
int sbx__owner_gone(const char *s);
/* rmtree.c: 1 if this process has not swept `key` within the last second
 * (then it is recorded as swept now). */
int sbx__sweep_due(const char *key);
/* rmtree.c: remove every directory <base>/<prefix><owner>... of this user
 * whose owner is gone (sbx__owner_gone), when due; base must be this
 * user's and writable by nobody else. */
void sbx__sweep_dirs(const char *base, const char *prefix);

/* ---------------------------------------------------------- winpath.c */

/*
 * Windows path rules (docs/windows.md), pure and portable: no I/O.
 * Limits in UTF-16 code units, as Windows counts: a whole path (MAX_PATH
 * less its NUL) and one component (NTFS).  SBX__WINPATH_BUF bytes always
 * hold an accepted path's UTF-8 canonical form and its NUL.
 */
#define SBX__WINPATH_MAX_UNITS 259
#define SBX__WINPATH_COMPONENT_MAX_UNITS 255
#define SBX__WINPATH_BUF (3 * SBX__WINPATH_MAX_UNITS + 1)

/* Why a path was refused; each has its own text (sbx__winpath_reason_text). */
typedef enum sbx__winpath_reason {
        SBX__WINPATH_OK = 0,
        SBX__WINPATH_NULL = 1,
        SBX__WINPATH_EMPTY = 2,
        SBX__WINPATH_BAD_UTF8 = 3,
        SBX__WINPATH_CONTROL = 4,
        SBX__WINPATH_UNC = 5,
        SBX__WINPATH_WIN32_NAMESPACE = 6,       /* \\?\ */
        SBX__WINPATH_GLOBALROOT = 7,
        SBX__WINPATH_PIPE = 8,
        SBX__WINPATH_DEVICE_NAMESPACE = 9,      /* \\.\ */
        SBX__WINPATH_NT_NAMESPACE = 10,         /* \??\, \Device\ */
        SBX__WINPATH_ROOTED_NO_DRIVE = 11,
        SBX__WINPATH_RELATIVE = 12,
        SBX__WINPATH_BAD_DRIVE = 13,
        SBX__WINPATH_DRIVE_RELATIVE = 14,
        SBX__WINPATH_EMPTY_COMPONENT = 15,
        SBX__WINPATH_DOT_COMPONENT = 16,
        SBX__WINPATH_COLON = 17,                /* alternate data streams */
        SBX__WINPATH_FORBIDDEN_CHAR = 18,
        SBX__WINPATH_BESTFIT_CHAR = 19,
        SBX__WINPATH_COMPONENT_TOO_LONG = 20,
        SBX__WINPATH_RESERVED_NAME = 21,
        SBX__WINPATH_NTFS_METAFILE = 22,
        SBX__WINPATH_TRAILING_DOT_SPACE = 23,
        SBX__WINPATH_SHORT_NAME = 24,
        SBX__WINPATH_TOO_LONG = 25,
        SBX__WINPATH_BUFFER = 26,
        SBX__WINPATH_REASON_END = 27
} sbx__winpath_reason;

/* A static text for r, never NULL. */
const char *sbx__winpath_reason_text(sbx__winpath_reason r);

/*
 * Classify `path` (UTF-8).  On SBX__WINPATH_OK writes its canonical form
 * ("C:\a\b": upper-case drive, backslashes, no trailing separator except
 * the root) to canon_out[0..canon_size); otherwise leaves canon_out
 * untouched and, if bad_at is not NULL, sets *bad_at to the byte offset of
 * the offending character or component (0 for whole-path reasons).
 */
sbx__winpath_reason sbx__winpath_classify(const char *path, char *canon_out,
                                          size_t canon_size, size_t *bad_at);

/*
 * Accept only a canonical local drive path (see winpath.c for every rule)
 * and write its canonical form to canon_out (written only on success).
 * Returns SBX_OK; SBX_E_INVALID (NULL arguments, or the path is refused:
 * the message starts "windows path refused: <reason>"); SBX_E_RANGE
 * (longer than the limits above, or canon_size too small).
 */
sbx_code sbx__winpath_check(const char *path, char *canon_out, size_t canon_size,
                            sbx_error *err);

/*
 * The POSIX spelling the portable layers use on Windows ("/c/Users/me" for
 * C:\Users\me, as MSYS2 writes it) to the checked drive form, and back.
 * from_posix: "/" + a drive letter + ("/" + rest, or nothing) only, no
 * backslash; then sbx__winpath_check.  to_posix: sbx__winpath_check, then
 * "/" + the lower-case letter + the rest with "/".  out is written only on
 * success.  SBX_OK, SBX_E_INVALID, SBX_E_RANGE.  Pure.
 */
sbx_code sbx__winpath_from_posix(const char *posix, char *out, size_t out_size,
                                 sbx_error *err);
sbx_code sbx__winpath_to_posix(const char *win, char *out, size_t out_size, sbx_error *err);

#endif /* SBX_PATHS_INTERNAL_H */
