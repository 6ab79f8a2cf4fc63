/*
 * sbpl.h - the macOS Seatbelt (SBPL) profile compiler (compile/sbpl.c).
 * Pure and portable: strings in, a profile text out, no OS calls, so it is
 * golden-tested on Linux.  The darwin backend hands the text to
 * sandbox_init / sandbox-exec -p.  docs/seatbelt.md describes the output.
 * Not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_COMPILE_SBPL_H
#define SBX_COMPILE_SBPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

/* One fixed runtime root: a backend necessity (loader, libraries, system
 * shell, /dev/null), not host-data access.  access is SBX__FS_* bits
 * (never 0), scope SBX__FS_EXACT or SBX__FS_TREE. */
struct sbx__sbpl_root {
        const char *path;       /* absolute, lexically clean */
        uint32_t    access;
        int32_t     scope;
};

/* The documented default list (docs/seatbelt.md), sorted by path. */
extern const struct sbx__sbpl_root sbx__sbpl_runtime_default[];
extern const size_t sbx__sbpl_n_runtime_default;

/* The per-spawn inputs.  Every path must be absolute and lexically clean
 * (no "//", ".", "..", trailing slash), valid UTF-8 without control bytes. */
struct sbx__sbpl_opts {
        const char *tmpdir;        /* the per-spawn TMPDIR (rwx); required when
                                    * plan->tmpdir is SCRATCH */
        const char *scratch_home;  /* the per-spawn HOME (rwx); required when
                                    * plan->home is SCRATCH, ignored otherwise */
        const char *caller_home;   /* the caller's canonical HOME: hidden when
                                    * plan->home is SCRATCH; NULL or "/" = nothing
                                    * to hide; ignored for a real HOME */
        uint32_t    proxy_port;    /* loopback proxy listener, 1..65535; 0 = none.
                                    * Only for a Gated network (deny-unless-grant) */
        const struct sbx__sbpl_root *runtime;  /* fixed runtime roots; may be NULL */
        size_t      n_runtime;                 /* ... when n_runtime is 0 */
};

/*
 * Compile a sandboxed plan into SBPL text (malloc'd, NUL-terminated, free
 * with sbx_free / free).  The text is deterministic: the same plan and
 * opts give the same bytes on every run and machine.  *text_out is
 * written only on success.
 *
 * Errors: SBX_E_INVALID (NULL argument; a direct plan, which has no
 * boundary to compile; a path that cannot be quoted safely -- a control
 * byte, invalid UTF-8, not absolute or not clean; a missing tmpdir or
 * scratch_home; a proxy port out of range or with a network decision other
 * than deny-unless-grant; a malformed runtime root), SBX_E_NOMEM.
 * Thread-safe on a shared plan.
 */
sbx_code sbx__sbpl_compile(const struct sbx_plan *plan, const struct sbx__sbpl_opts *opts,
                           char **text_out, sbx_error *err);

/*
 * The SBPL string literal for `path` (with its double quotes) appended to
 * nothing: malloc'd into *out.  -EINVAL if the path cannot be expressed
 * safely (a byte < 0x20 or 0x7F, invalid UTF-8), -ENOMEM.  '"' and '\\'
 * are backslash-escaped; every other byte is copied.
 */
int sbx__sbpl_quote(const char *path, char **out);

#endif /* SBX_COMPILE_SBPL_H */
