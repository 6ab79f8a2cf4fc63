/*
 * paths_internal.h - the paths layer's helpers shared with the layers above
 * it (compile, the backends, the FS fence).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_PATHS_INTERNAL_H
#define SBX_PATHS_INTERNAL_H

#include <stddef.h>

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
 * at their own paths, so the host's answer names the same file.
 */
int sbx__command_lookup(const char *argv0, const char *const *envp, char **out);

/*
 * The caller's home directory, as every backend hides it: HOME from envp
 * when absolute, else the password database's entry for the effective
 * uid, made canonical (realpath) so the hidden path is the one the kernel
 * resolves.  0 with *out malloc'd, 0 with *out NULL when there is none or
 * it does not exist, -errno when it exists but cannot be resolved (the
 * caller fails closed), -ENOMEM.
 */
int sbx__caller_home(const char *const *envp, char **out);

/* rmtree.c: remove the directory tree at path (scratch cleanup); never
 * follows symlinks out of it.  0 (also when it does not exist) or -errno. */
int sbx__rm_rf(const char *path);

#endif /* SBX_PATHS_INTERNAL_H */
