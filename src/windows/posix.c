/*
 * posix.c - what the portable layers ask of the OS, answered on Windows:
 * realpath and lstat over the POSIX spelling of drive paths ("/c/Users/me",
 * docs/windows.md "Paths"), fcntl(F_GETFD), and the UTF-8 / UTF-16 and
 * error helpers of the backend.  Every path goes through the Windows path
 * rules (sbx__winpath_from_posix / _to_posix).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <io.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_internal.h"
#include "paths/paths_internal.h"

/* ---------------------------------------------------------- strings */

wchar_t *sbx__win_wide(const char *s)
{
        wchar_t *w;
        int n;

        if (s == NULL)
                return NULL;
        n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
        if (n <= 0)
                return NULL;
        w = malloc((size_t) n * sizeof(*w));
        if (w == NULL)
                return NULL;
        if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
                free(w);
                return NULL;
        }
        return w;
}

char *sbx__win_narrow(const wchar_t *w)
{
        char *s;
        int n;

        if (w == NULL)
                return NULL;
        n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
        if (n <= 0)
                return NULL;
        s = malloc((size_t) n);
        if (s == NULL)
                return NULL;
        if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
                free(s);
                return NULL;
        }
        return s;
}

int sbx__win_errno(DWORD e)
{
        switch (e) {
        case ERROR_FILE_NOT_FOUND:
        case ERROR_PATH_NOT_FOUND:
        case ERROR_INVALID_DRIVE:
        case ERROR_BAD_NETPATH:
                return ENOENT;
        case ERROR_ACCESS_DENIED:
        case ERROR_PRIVILEGE_NOT_HELD:
        case ERROR_SHARING_VIOLATION:
                return EACCES;
        case ERROR_NOT_ENOUGH_MEMORY:
        case ERROR_OUTOFMEMORY:
                return ENOMEM;
        case ERROR_ALREADY_EXISTS:
        case ERROR_FILE_EXISTS:
                return EEXIST;
        case ERROR_DIRECTORY:
                return ENOTDIR;
        case ERROR_CANT_RESOLVE_FILENAME:
                return ELOOP;
        case ERROR_INVALID_PARAMETER:
        case ERROR_INVALID_NAME:
                return EINVAL;
        default:
                return EIO;
        }
}

/* ------------------------------------------------- realpath and lstat */

/* The drive form of a POSIX-spelled path as UTF-16; NULL with errno. */
static wchar_t *drive_path(const char *posix)
{
        char win[SBX__WINPATH_BUF];
        wchar_t *w;

        if (sbx__winpath_from_posix(posix, win, sizeof(win), NULL) != SBX_OK) {
                errno = ENOENT;         /* no such drive path can exist */
                return NULL;
        }
        w = sbx__win_wide(win);
        if (w == NULL)
                errno = ENOMEM;
        return w;
}

char *sbx_win_realpath(const char *path, char *resolved)
{
        wchar_t *w, final[SBX__WINPATH_BUF + 8];
        char *narrow = NULL, posix[SBX__WINPATH_BUF];
        const wchar_t *p;
        HANDLE h;
        DWORD n;

        if (path == NULL) {
                errno = EINVAL;
                return NULL;
        }
        if (strcmp(path, "/") == 0) {
                (void) strcpy(posix, "/");
                goto out;
        }
        w = drive_path(path);
        if (w == NULL)
                return NULL;
        /* The handle names the file itself: junctions and symlinks on the
         * way are resolved by the system, not by string rules. */
        h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE |
                        FILE_SHARE_DELETE, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
        free(w);
        if (h == INVALID_HANDLE_VALUE) {
                errno = sbx__win_errno(GetLastError());
                return NULL;
        }
        n = GetFinalPathNameByHandleW(h, final, (DWORD) (sizeof(final) / sizeof(final[0])),
                                      FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
        (void) CloseHandle(h);
        if (n == 0 || n >= sizeof(final) / sizeof(final[0])) {
                errno = n == 0 ? sbx__win_errno(GetLastError()) : ENAMETOOLONG;
                return NULL;
        }
        p = final;
        if (wcsncmp(p, L"\\\\?\\", 4) == 0)
                p += 4;         /* "\\?\C:\x" is C:\x; "\\?\UNC\..." stays refused */
        narrow = sbx__win_narrow(p);
        if (narrow == NULL) {
                errno = ENOMEM;
                return NULL;
        }
        if (sbx__winpath_to_posix(narrow, posix, sizeof(posix), NULL) != SBX_OK) {
                free(narrow);
                errno = EINVAL;         /* it resolves somewhere the rules refuse */
                return NULL;
        }
        free(narrow);
out:
        if (resolved == NULL)
                return sbx__strdup(posix);
        memcpy(resolved, posix, strlen(posix) + 1);     /* callers pass PATH_MAX */
        return resolved;
}

int sbx_win_lstat(const char *path, struct stat *st)
{
        WIN32_FILE_ATTRIBUTE_DATA a;
        wchar_t *w;

        memset(st, 0, sizeof(*st));
        if (strcmp(path, "/") == 0) {
                st->st_mode = S_IFDIR | 0755;
                return 0;
        }
        w = drive_path(path);
        if (w == NULL)
                return -1;
        if (!GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
                errno = sbx__win_errno(GetLastError());
                free(w);
                return -1;
        }
        free(w);
        if (a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
                st->st_mode = S_IFLNK | 0777;
        else if (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
                st->st_mode = S_IFDIR | 0755;
        else
                st->st_mode = S_IFREG | ((a.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0444
                                                                                  : 0644);
        st->st_size = (off_t) (((uint64_t) a.nFileSizeHigh << 32) | a.nFileSizeLow);
        return 0;
}

int sbx_win_fcntl(int fd, int cmd, ...)
{
        if (cmd != F_GETFD) {
                errno = EINVAL;
                return -1;
        }
        if (fd < 0 || _get_osfhandle(fd) == -1) {
                errno = EBADF;
                return -1;
        }
        return 0;
}
