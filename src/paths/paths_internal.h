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

#endif /* SBX_PATHS_INTERNAL_H */
