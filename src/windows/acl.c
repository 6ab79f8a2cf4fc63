/*
 * acl.c - apply the ACL plan of a spawn (compile/winacl.c) for its spawn
 * SID, and take it away again (docs/windows.md, "The ACL plan").
 * Unverified on real Windows.
 *
 * Undo removes exactly the entries that name the spawn SID, rather than
 * writing back a saved DACL: two spawns on one workspace (or a user who
 * changes an ACL meanwhile) would otherwise undo each other's changes.
 * Writing a directory's DACL makes Windows propagate its inheritable
 * entries again, so the inherited copies below it go too.  ACL edits are
 * read-modify-write: one lock serialises them within the process; another
 * process editing the same DACL at the same moment can still lose an
 * edit (documented).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <aclapi.h>

#include "win_internal.h"

static SRWLOCK acl_lock = SRWLOCK_INIT;

static DWORD mask_of(uint32_t rights, int32_t kind)
{
        DWORD m = 0;

        if (kind == SBX__WINACL_ALLOW) {
                if (rights & SBX__WINACL_READ)
                        m |= FILE_GENERIC_READ;
                if (rights & SBX__WINACL_WRITE)
                        m |= FILE_GENERIC_WRITE | DELETE | FILE_DELETE_CHILD;
                if (rights & SBX__WINACL_EXEC)
                        m |= FILE_GENERIC_EXECUTE;
                return m;
        }
        /* A deny never takes SYNCHRONIZE, READ_CONTROL or the attributes
         * read: they are part of every open, and stat must still work. */
        if (rights & SBX__WINACL_READ)
                m |= FILE_READ_DATA | FILE_READ_EA;
        if (rights & SBX__WINACL_WRITE)
                m |= FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES |
                     DELETE | FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER;
        if (rights & SBX__WINACL_EXEC)
                m |= FILE_EXECUTE;
        return m;
}

static DWORD add_entry(const wchar_t *path, const struct sbx__winacl_entry *e, PSID sid)
{
        PSECURITY_DESCRIPTOR sd = NULL;
        PACL dacl = NULL, next = NULL;
        EXPLICIT_ACCESS_W ea;
        DWORD r;

        r = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                  &dacl, NULL, &sd);
        if (r != ERROR_SUCCESS)
                return r;
        memset(&ea, 0, sizeof(ea));
        ea.grfAccessPermissions = mask_of(e->rights, e->kind);
        ea.grfAccessMode = e->kind == SBX__WINACL_ALLOW ? GRANT_ACCESS : DENY_ACCESS;
        ea.grfInheritance = e->inherit ? SUB_CONTAINERS_AND_OBJECTS_INHERIT : NO_INHERITANCE;
        ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
        ea.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
        ea.Trustee.ptstrName = (LPWSTR) sid;
        r = SetEntriesInAclW(1, &ea, dacl, &next);
        if (r == ERROR_SUCCESS)
                r = SetNamedSecurityInfoW((LPWSTR) path, SE_FILE_OBJECT,
                                          DACL_SECURITY_INFORMATION, NULL, NULL, next, NULL);
        (void) LocalFree(next);
        (void) LocalFree(sd);
        return r;
}

static int remember(struct sbx__win_acl_undo *u, const wchar_t *path)
{
        wchar_t **v;
        size_t i;

        for (i = 0; i < u->n; i++)
                if (wcscmp(u->paths[i], path) == 0)
                        return 0;
        v = realloc(u->paths, (u->n + 1) * sizeof(*v));
        if (v == NULL)
                return -ENOMEM;
        u->paths = v;
        u->paths[u->n] = _wcsdup(path);
        if (u->paths[u->n] == NULL)
                return -ENOMEM;
        u->n++;
        return 0;
}

sbx_code sbx__win_acl_apply(const struct sbx__winacl_plan *plan, PSID sid,
                            struct sbx__win_acl_undo *undo, sbx_error *err)
{
        sbx_code r = SBX_OK;
        size_t i;

        memset(undo, 0, sizeof(*undo));
        undo->sid = sid;
        AcquireSRWLockExclusive(&acl_lock);
        for (i = 0; i < plan->n && r == SBX_OK; i++) {
                const struct sbx__winacl_entry *e = &plan->v[i];
                wchar_t *w = sbx__win_wide(e->path);
                DWORD le;

                if (w == NULL) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: no memory");
                        break;
                }
                if (GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES) {
                        le = GetLastError();
                        free(w);
                        if (le == ERROR_FILE_NOT_FOUND || le == ERROR_PATH_NOT_FOUND)
                                continue;       /* nothing there to open or close */
                        r = sbx__fail(err, SBX_E_IO, sbx__win_errno(le), "windows: ACL plan: "
                                      "\"%.200s\": error %lu", e->path, (unsigned long) le);
                        break;
                }
                /* Remembered first: a half-applied entry is undone too. */
                if (remember(undo, w) < 0) {
                        free(w);
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: no memory");
                        break;
                }
                le = add_entry(w, e, sid);
                free(w);
                if (le != ERROR_SUCCESS)
                        r = sbx__fail(err, SBX_E_IO, sbx__win_errno(le), "windows: ACL plan: "
                                      "cannot add the %s entry on \"%.200s\" (error %lu)",
                                      e->kind == SBX__WINACL_ALLOW ? "allow" : "deny", e->path,
                                      (unsigned long) le);
        }
        ReleaseSRWLockExclusive(&acl_lock);
        if (r != SBX_OK)
                (void) sbx__win_acl_undo(undo);
        return r;
}

/* Remove the explicit entries naming sid from path's DACL. */
static DWORD remove_entries(const wchar_t *path, PSID sid)
{
        PSECURITY_DESCRIPTOR sd = NULL;
        SECURITY_DESCRIPTOR_CONTROL ctl = 0;
        ACL_SIZE_INFORMATION info;
        PACL dacl = NULL, next = NULL;
        DWORD r, i, rev = 0, flags;
        void *ace;

        r = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                  &dacl, NULL, &sd);
        if (r != ERROR_SUCCESS)
                return r == ERROR_FILE_NOT_FOUND || r == ERROR_PATH_NOT_FOUND ? 0 : r;
        if (dacl == NULL || !GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation)) {
                (void) LocalFree(sd);
                return dacl == NULL ? 0 : GetLastError();
        }
        (void) GetSecurityDescriptorControl(sd, &ctl, &rev);
        next = LocalAlloc(LMEM_FIXED, info.AclBytesInUse);
        if (next == NULL || !InitializeAcl(next, info.AclBytesInUse, dacl->AclRevision)) {
                r = next == NULL ? ERROR_NOT_ENOUGH_MEMORY : GetLastError();
                goto out;
        }
        for (i = 0; i < info.AceCount; i++) {
                ACE_HEADER *h;
                PSID ace_sid = NULL;

                if (!GetAce(dacl, i, &ace)) {
                        r = GetLastError();
                        goto out;
                }
                h = ace;
                if (h->AceType == ACCESS_ALLOWED_ACE_TYPE)
                        ace_sid = &((ACCESS_ALLOWED_ACE *) ace)->SidStart;
                else if (h->AceType == ACCESS_DENIED_ACE_TYPE)
                        ace_sid = &((ACCESS_DENIED_ACE *) ace)->SidStart;
                if (ace_sid != NULL && !(h->AceFlags & INHERITED_ACE) && EqualSid(ace_sid, sid))
                        continue;
                if (!AddAce(next, dacl->AclRevision, MAXDWORD, ace, h->AceSize)) {
                        r = GetLastError();
                        goto out;
                }
        }
        /* Keep the DACL's protection from inheritance as it was. */
        flags = DACL_SECURITY_INFORMATION | ((ctl & SE_DACL_PROTECTED)
                                             ? PROTECTED_DACL_SECURITY_INFORMATION
                                             : UNPROTECTED_DACL_SECURITY_INFORMATION);
        r = SetNamedSecurityInfoW((LPWSTR) path, SE_FILE_OBJECT, flags, NULL, NULL, next, NULL);
out:
        (void) LocalFree(next);
        (void) LocalFree(sd);
        return r;
}

DWORD sbx__win_acl_undo(struct sbx__win_acl_undo *undo)
{
        DWORD first = 0, r;
        size_t i;

        if (undo == NULL || undo->paths == NULL)
                return 0;
        AcquireSRWLockExclusive(&acl_lock);
        for (i = undo->n; i-- > 0;) {
                r = remove_entries(undo->paths[i], undo->sid);
                if (r != 0 && first == 0)
                        first = r;
                free(undo->paths[i]);
        }
        ReleaseSRWLockExclusive(&acl_lock);
        free(undo->paths);
        undo->paths = NULL;
        undo->n = 0;
        return first;
}
