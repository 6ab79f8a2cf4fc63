/*
 * token.c - the restricted token of the restricted tier and its per-spawn
 * SID (docs/windows.md, "The restricted token").  Unverified on real
 * Windows.
 *
 *   CreateRestrictedToken(process token, DISABLE_MAX_PRIVILEGE,
 *                         deny-only: BUILTIN\Administrators,
 *                         restricting: the spawn SID, Everyone, Users, the
 *                         logon SID (and the user's SID for a writable
 *                         host), as the ACL plan says)
 *
 * and a default DACL on the new token (the user, the spawn SID, SYSTEM),
 * so what the command creates without an inheritable ACL (pipes, events,
 * its own process object) is usable by it and by us.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "win_internal.h"

#include <bcrypt.h>

sbx_code sbx__win_spawn_sid(PSID *out, sbx_error *err)
{
        /* S-1-9-r1-r2-r3-r4: the resource-manager authority, 128 random
         * bits, so no other token anywhere holds it. */
        SID_IDENTIFIER_AUTHORITY auth = { { 0, 0, 0, 0, 0, 9 } };
        DWORD r[4];
        PSID sid = NULL;

        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, (PUCHAR) r, sizeof(r),
                                            BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
                return sbx__fail(err, SBX_E_INTERNAL, EIO, "windows: no random bits for the "
                                 "spawn SID");
        if (!AllocateAndInitializeSid(&auth, 4, r[0], r[1], r[2], r[3], 0, 0, 0, 0, &sid))
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: cannot make the spawn SID "
                                 "(error %lu)", (unsigned long) GetLastError());
        /* AllocateAndInitializeSid memory is freed with FreeSid; copy it
         * into LocalAlloc memory so every SID here is freed one way. */
        {
                DWORD len = GetLengthSid(sid);
                PSID copy = LocalAlloc(LMEM_FIXED, len);

                if (copy == NULL || !CopySid(len, copy, sid)) {
                        (void) LocalFree(copy);
                        (void) FreeSid(sid);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: no memory");
                }
                (void) FreeSid(sid);
                *out = copy;
        }
        return SBX_OK;
}

/* The token's user SID and logon SID (LocalAlloc'd copies; logon may be
 * NULL when the token has none). */
static DWORD token_sids(HANDLE tok, PSID *user, PSID *logon)
{
        TOKEN_GROUPS *g = NULL;
        TOKEN_USER *u = NULL;
        DWORD n = 0, i, e = 0;

        *user = *logon = NULL;
        (void) GetTokenInformation(tok, TokenUser, NULL, 0, &n);
        u = malloc(n);
        if (u == NULL || !GetTokenInformation(tok, TokenUser, u, n, &n)) {
                e = u == NULL ? ERROR_NOT_ENOUGH_MEMORY : GetLastError();
                goto out;
        }
        n = GetLengthSid(u->User.Sid);
        *user = LocalAlloc(LMEM_FIXED, n);
        if (*user == NULL || !CopySid(n, *user, u->User.Sid)) {
                e = ERROR_NOT_ENOUGH_MEMORY;
                goto out;
        }
        n = 0;
        (void) GetTokenInformation(tok, TokenGroups, NULL, 0, &n);
        g = malloc(n);
        if (g == NULL || !GetTokenInformation(tok, TokenGroups, g, n, &n)) {
                e = g == NULL ? ERROR_NOT_ENOUGH_MEMORY : GetLastError();
                goto out;
        }
        for (i = 0; i < g->GroupCount; i++) {
                if ((g->Groups[i].Attributes & SE_GROUP_LOGON_ID) == SE_GROUP_LOGON_ID) {
                        n = GetLengthSid(g->Groups[i].Sid);
                        *logon = LocalAlloc(LMEM_FIXED, n);
                        if (*logon == NULL || !CopySid(n, *logon, g->Groups[i].Sid)) {
                                e = ERROR_NOT_ENOUGH_MEMORY;
                                goto out;
                        }
                        break;
                }
        }
out:
        if (e != 0) {
                (void) LocalFree(*user);
                (void) LocalFree(*logon);
                *user = *logon = NULL;
        }
        free(u);
        free(g);
        return e;
}

/* A well-known SID in LocalAlloc memory, or NULL. */
static PSID well_known(WELL_KNOWN_SID_TYPE t)
{
        DWORD n = SECURITY_MAX_SID_SIZE;
        PSID s = LocalAlloc(LMEM_FIXED, n);

        if (s != NULL && !CreateWellKnownSid(t, NULL, s, &n)) {
                (void) LocalFree(s);
                s = NULL;
        }
        return s;
}

/* The new token's default DACL: GENERIC_ALL for the user, the spawn SID
 * and SYSTEM. */
static DWORD set_default_dacl(HANDLE tok, PSID user, PSID spawn, PSID system)
{
        PSID sids[3] = { user, spawn, system };
        TOKEN_DEFAULT_DACL dd;
        DWORD size = sizeof(ACL), e = 0, i;
        PACL acl;

        for (i = 0; i < 3; i++)
                size += sizeof(ACCESS_ALLOWED_ACE) - sizeof(DWORD) + GetLengthSid(sids[i]);
        acl = LocalAlloc(LMEM_FIXED, size);
        if (acl == NULL)
                return ERROR_NOT_ENOUGH_MEMORY;
        if (!InitializeAcl(acl, size, ACL_REVISION))
                e = GetLastError();
        for (i = 0; e == 0 && i < 3; i++)
                if (!AddAccessAllowedAce(acl, ACL_REVISION, GENERIC_ALL, sids[i]))
                        e = GetLastError();
        dd.DefaultDacl = acl;
        if (e == 0 && !SetTokenInformation(tok, TokenDefaultDacl, &dd, sizeof(dd)))
                e = GetLastError();
        (void) LocalFree(acl);
        return e;
}

DWORD sbx__win_restricted_token(uint32_t restricting, PSID spawn_sid, HANDLE *out)
{
        SID_AND_ATTRIBUTES deny[1], restrict_sids[5];
        PSID admins = NULL, everyone = NULL, users = NULL, system = NULL;
        PSID user = NULL, logon = NULL;
        HANDLE self = NULL, tok = NULL;
        DWORD e = 0, n = 0;

        memset(deny, 0, sizeof(deny));
        memset(restrict_sids, 0, sizeof(restrict_sids));
        if (!OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY |
                              TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT, &self))
                return GetLastError();
        e = token_sids(self, &user, &logon);
        if (e != 0)
                goto out;
        admins = well_known(WinBuiltinAdministratorsSid);
        everyone = well_known(WinWorldSid);
        users = well_known(WinBuiltinUsersSid);
        system = well_known(WinLocalSystemSid);
        if (admins == NULL || everyone == NULL || users == NULL || system == NULL) {
                e = ERROR_NOT_ENOUGH_MEMORY;
                goto out;
        }
        deny[0].Sid = admins;
        if (restricting & SBX__WINSID_SPAWN)
                restrict_sids[n++].Sid = spawn_sid;
        if (restricting & SBX__WINSID_EVERYONE)
                restrict_sids[n++].Sid = everyone;
        if (restricting & SBX__WINSID_USERS)
                restrict_sids[n++].Sid = users;
        if ((restricting & SBX__WINSID_LOGON) && logon != NULL)
                restrict_sids[n++].Sid = logon;
        if (restricting & SBX__WINSID_USER)
                restrict_sids[n++].Sid = user;
        if (!CreateRestrictedToken(self, DISABLE_MAX_PRIVILEGE, 1, deny, 0, NULL, n,
                                   restrict_sids, &tok)) {
                e = GetLastError();
                goto out;
        }
        e = set_default_dacl(tok, user, spawn_sid, system);
        if (e != 0) {
                (void) CloseHandle(tok);
                goto out;
        }
        *out = tok;
out:
        if (self != NULL)
                (void) CloseHandle(self);
        (void) LocalFree(admins);
        (void) LocalFree(everyone);
        (void) LocalFree(users);
        (void) LocalFree(system);
        (void) LocalFree(user);
        (void) LocalFree(logon);
        return e;
}
