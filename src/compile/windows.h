/*
 * windows.h - the Windows backend's portable decisions: the ACL plan
 * (which directories get which access entry for a spawn's restricting
 * SID), the tier selection of sbx_windows_mode, and what each tier
 * claims.  Pure functions with no Windows headers: src/windows/ applies
 * them, tests/unit/compile/ checks them on Linux.  docs/windows.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_COMPILE_WINDOWS_H
#define SBX_COMPILE_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "compile/plan_internal.h"
#include "paths/paths_internal.h"

/* ------------------------------------------------------------ ACL plan */

/* Rights of one entry (mapped to FILE_GENERIC_READ / _WRITE / _EXECUTE). */
#define SBX__WINACL_READ  (1u << 0)
#define SBX__WINACL_WRITE (1u << 1)
#define SBX__WINACL_EXEC  (1u << 2)

#define SBX__WINACL_ALLOW 1     /* an access-allowed entry */
#define SBX__WINACL_DENY  2     /* an access-denied entry (a carve-out) */

/* Where an entry came from: a plan rule's SBX__ORIGIN_*, or: */
#define SBX__WINACL_ORIGIN_TEMP 100u    /* the per-spawn temp directory */

/* Which SIDs the restricted token's restricting set holds. */
#define SBX__WINSID_SPAWN    (1u << 0)  /* the per-spawn SID the entries name */
#define SBX__WINSID_EVERYONE (1u << 1)  /* S-1-1-0: system files */
#define SBX__WINSID_USERS    (1u << 2)  /* S-1-5-32-545: system files */
#define SBX__WINSID_LOGON    (1u << 3)  /* the logon SID: the session's desktop */
#define SBX__WINSID_USER     (1u << 4)  /* the user's own SID: what the user can write */

struct sbx__winacl_entry {
        char     path[SBX__WINPATH_BUF];        /* canonical drive path */
        uint32_t rights;        /* SBX__WINACL_READ | _WRITE | _EXEC */
        int32_t  kind;          /* SBX__WINACL_ALLOW or _DENY */
        int32_t  inherit;       /* 1: the subtree (container + object inherit) */
        uint32_t origin;        /* SBX__ORIGIN_* or SBX__WINACL_ORIGIN_TEMP */
};

struct sbx__winacl_plan {
        struct sbx__winacl_entry *v;    /* sorted by path, then allow before deny */
        size_t   n;
        uint32_t restricting;           /* SBX__WINSID_* */
};

/*
 * The ACL plan of one spawn of `plan` (sandboxed) with the per-spawn temp
 * directory `tempdir` (a drive path; NULL = none) and the caller's home
 * `caller_home` (POSIX spelling; NULL = none):
 *   - every rule that grants something gets an ALLOW of its rights for
 *     the spawn SID (a TREE rule inherits to the subtree); the temp
 *     directory gets read, write and execute;
 *   - every rule that takes away rights a shallower TREE rule grants (a
 *     carve-out, a protected .git path, a secret) gets a DENY of what it
 *     takes away; so does the caller's home when the plan isolates HOME
 *     (unless a rule names it: that rule decides);
 *   - the host rule "/" cannot be an entry: a writable host puts the
 *     user's SID in the restricting set (the command may write what the
 *     user may), otherwise only the spawn SID, Everyone, Users and the
 *     logon SID are there; runtime rules (Linux spellings) are skipped;
 *   - every other path must be a drive path in the POSIX spelling
 *     ("/c/x"): anything else fails the plan (SBX_E_INVALID), so a
 *     carve-out is never silently dropped.
 * *out is filled only on success (free with sbx__winacl_plan_free).
 * SBX_OK, SBX_E_INVALID (a direct plan, a path refused), SBX_E_RANGE,
 * SBX_E_NOMEM.  Deterministic and pure.
 */
sbx_code sbx__winacl_plan(const struct sbx_plan *plan, const char *tempdir,
                          const char *caller_home, struct sbx__winacl_plan *out,
                          sbx_error *err);
void sbx__winacl_plan_free(struct sbx__winacl_plan *p);

/* "allow rwx tree C:\a" lines, one per entry, then "restricting: ..."; a
 * malloc'd string for --explain and the tests, NULL on ENOMEM. */
char *sbx__winacl_describe(const struct sbx__winacl_plan *p);

/* ------------------------------------------------------ tiers and modes */

#define SBX__WIN_TIER_RESTRICTED 1      /* restricted token + job + ACLs */
#define SBX__WIN_TIER_ELEVATED   2      /* the installed broker */

/* What Setup / Inspect found (sbx_windows_inspect). */
struct sbx__win_setup_state {
        int32_t installed;      /* installation state exists */
        int32_t ready;          /* ... and it is verified and current */
};

/*
 * The tier for sbx_windows_mode `mode`, a plan requiring `required`
 * (SBX_G_*) and the setup state (NULL = absent):
 *   RESTRICTED_TOKEN: the restricted tier;
 *   ELEVATED: the elevated tier when ready, else SBX_E_SANDBOX_UNAVAILABLE
 *     (it never falls back);
 *   AUTO: the restricted tier when it claims all of `required`; otherwise
 *     the elevated tier when ready, SBX_E_SANDBOX_UNAVAILABLE when setup is
 *     installed but not ready (stale: never a fallback), and the
 *     restricted tier when setup is absent (whose spawn then refuses the
 *     plan: it never runs less confined).
 * SBX_E_INVALID for an unknown mode.  *tier_out only on success.  Pure.
 */
sbx_code sbx__win_select(int32_t mode, uint32_t required,
                         const struct sbx__win_setup_state *setup, int32_t *tier_out,
                         sbx_error *err);

/*
 * The SBX_G_* a tier claims.  The restricted tier claims env-scrub only:
 * its environment block is built from the plan's allow-list by our code,
 * while its token, job and ACLs can be bypassed through same-session
 * brokers (seed 003) and have not been run on real Windows.  The elevated
 * tier claims nothing in this version (it is never ready).
 */
uint32_t sbx__win_tier_guarantees(int32_t tier);

/* Layers of the restricted tier, as a spawn applied them. */
#define SBX__WIN_LAYER_TOKEN   (1u << 0)        /* the restricted token */
#define SBX__WIN_LAYER_JOB     (1u << 1)        /* the job object and its limits */
#define SBX__WIN_LAYER_HANDLES (1u << 2)        /* the explicit handle list */
#define SBX__WIN_LAYER_ACL     (1u << 3)        /* the ACL plan */
#define SBX__WIN_LAYERS_ALL    ((1u << 4) - 1u)

/*
 * The seed's partial level: FULL only when the tier claims all of
 * `required` and every layer was applied; PARTIAL when a layer is missing
 * (the restricted token could not be made: the command ran with the
 * caller's token) or a required guarantee is not claimed; NONE when
 * nothing is claimed.  Pure.
 */
int32_t sbx__win_enforcement(int32_t tier, uint32_t layers, uint32_t required);

#endif /* SBX_COMPILE_WINDOWS_H */
