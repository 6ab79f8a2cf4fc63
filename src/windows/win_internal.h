/*
 * win_internal.h - shared by the files of the Windows backend (src/windows/,
 * built on _WIN32 only; docs/windows.md).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_WIN_INTERNAL_H
#define SBX_WIN_INTERNAL_H

#include <windows.h>

#include "backend/backend.h"
#include "compile/windows.h"

/* UTF-8 <-> UTF-16, malloc'd; NULL on bad input or no memory. */
wchar_t *sbx__win_wide(const char *s);
char *sbx__win_narrow(const wchar_t *w);

/* A Win32 error as the errno our messages and codes use. */
int sbx__win_errno(DWORD e);

/* ------------------------------------------------------------ token.c */

/* A random per-spawn SID (S-1-9-...), LocalAlloc'd (free with LocalFree). */
sbx_code sbx__win_spawn_sid(PSID *out, sbx_error *err);

/*
 * A restricted primary token from this process's token: every privilege
 * but SeChangeNotify removed (DISABLE_MAX_PRIVILEGE), Administrators
 * deny-only, the restricting SIDs of `restricting` (SBX__WINSID_*, the
 * spawn SID being `spawn_sid`), and a default DACL granting the user, the
 * spawn SID and SYSTEM.  0 with *out, or the Win32 error (nothing made).
 */
DWORD sbx__win_restricted_token(uint32_t restricting, PSID spawn_sid, HANDLE *out);

/* -------------------------------------------------------------- acl.c */

/* What an ACL plan changed, to undo it. */
struct sbx__win_acl_undo {
        wchar_t **paths;        /* the paths an entry was added to */
        size_t    n;
        PSID      sid;          /* borrowed: the spawn SID */
};

/*
 * Add the plan's entries for `sid` (a missing path is skipped: nothing to
 * open or to close there).  On failure what was added is taken away
 * again.  SBX_OK, SBX_E_IO naming the path, SBX_E_NOMEM.
 */
sbx_code sbx__win_acl_apply(const struct sbx__winacl_plan *plan, PSID sid,
                            struct sbx__win_acl_undo *undo, sbx_error *err);
/* Remove every entry naming the SID from each path, newest first; 0 or the
 * first Win32 error (the rest are still tried).  Frees the list. */
DWORD sbx__win_acl_undo(struct sbx__win_acl_undo *undo);

/* ------------------------------------------------------------- proc.c */

/* A child's Windows state (sbx_child.os). */
struct sbx__win_child {
        HANDLE  process;
        HANDLE  job;
        wchar_t *tempdir;               /* per-spawn temp directory, or NULL */
        struct sbx__win_acl_undo undo;
        PSID    sid;                    /* the spawn SID, or NULL */
};

/* Start argv: restricted = 1 for the restricted tier (token, ACLs, temp
 * dir, filtered environment), 0 for a direct plan (a job object only). */
sbx_code sbx__win_start(const struct sbx_plan *plan, const char *const *argv,
                        const sbx_spawn_options *opts, int restricted, sbx_child *child,
                        sbx_error *err);

/* Remove a directory tree (never following a reparse point out of it);
 * 0 (also when missing) or the first Win32 error. */
DWORD sbx__win_rmtree(const wchar_t *path);

#endif /* SBX_WIN_INTERNAL_H */
