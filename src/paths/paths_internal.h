/*
 * paths_internal.h - the paths layer's helpers shared with the layers above
 * it (compile, the backends, the FS fence).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_PATHS_INTERNAL_H
#define SBX_PATHS_INTERNAL_H

#include <stddef.h>

#include "internal.h"

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

#endif /* SBX_PATHS_INTERNAL_H */
