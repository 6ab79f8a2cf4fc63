/*
 * proc.c - start, wait for, kill and clean up a Windows child
 * (docs/windows.md, "A spawn, step by step").  Unverified on real Windows;
 * under Wine only process start, the job object and exit codes are
 * exercised (scripts/ci-windows).
 *
 * A restricted spawn, in order (each failure stops it and undoes the
 * steps before):
 *   1. the per-spawn temp directory (%TEMP%\sbx-<pid>-<n>, with tmp\ and,
 *      for an isolated HOME, home\);
 *   2. the ACL plan for a random spawn SID, applied;
 *   3. the restricted token (if it cannot be made, the caller's token is
 *      used and the child is marked degraded: the seed's partial level);
 *   4. the environment block (the plan's filter, the Windows runtime
 *      names, TEMP/TMP/TMPDIR, HOME/USERPROFILE), sorted;
 *   5. the program (argv[0] in the filtered PATH; .bat/.cmd refused);
 *   6. the job object (kill on close, no breakaway, UI restrictions);
 *   7. CreateProcessAsUserW, suspended, inheriting only the three stdio
 *      handles (PROC_THREAD_ATTRIBUTE_HANDLE_LIST); assigned to the job;
 *      resumed.
 * A direct (unconfined) spawn does 4 (the environment unchanged), 5, 6
 * without UI restrictions, and 7 with the caller's token.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "win_internal.h"
#include "paths/paths_internal.h"

/* ------------------------------------------------------- command line */

/* One argument as CommandLineToArgvW and the C runtime read it back. */
static void quote_arg(const wchar_t *a, wchar_t *out, size_t *o)
{
        size_t bs = 0;

        if (a[0] != L'\0' && wcspbrk(a, L" \t\n\v\"") == NULL) {
                while (*a)
                        out[(*o)++] = *a++;
                return;
        }
        out[(*o)++] = L'"';
        for (;; a++) {
                if (*a == L'\\') {
                        bs++;
                        continue;
                }
                if (*a == L'\0' || *a == L'"') {
                        /* Backslashes before a quote (ours or theirs) double. */
                        size_t k = *a == L'"' ? 2 * bs + 1 : 2 * bs;

                        while (k-- > 0)
                                out[(*o)++] = L'\\';
                        if (*a == L'\0')
                                break;
                        out[(*o)++] = L'"';
                } else {
                        while (bs-- > 0)
                                out[(*o)++] = L'\\';
                        out[(*o)++] = *a;
                }
                bs = 0;
        }
        out[(*o)++] = L'"';
}

static wchar_t *command_line(const char *const *argv, sbx_error *err)
{
        wchar_t **w;
        wchar_t *line = NULL;
        size_t n = 0, cap = 1, i, o = 0;

        while (argv[n] != NULL)
                n++;
        w = calloc(n, sizeof(*w));
        if (w == NULL)
                goto nomem;
        for (i = 0; i < n; i++) {
                w[i] = sbx__win_wide(argv[i]);
                if (w[i] == NULL) {
                        (void) sbx__fail(err, SBX_E_INVALID, 0, "sbx_spawn: argv[%zu] is not "
                                         "valid UTF-8", i);
                        goto out;
                }
                /* argv[0] is read without escapes: a quote cannot be kept. */
                if (i == 0 && wcschr(w[i], L'"') != NULL) {
                        (void) sbx__fail(err, SBX_E_INVALID, 0, "sbx_spawn: argv[0] holds a "
                                         "double quote, which Windows cannot pass");
                        goto out;
                }
                cap += 2 * wcslen(w[i]) + 3;
        }
        if (cap > 32767) {
                (void) sbx__fail(err, SBX_E_RANGE, 0, "sbx_spawn: the command line is longer "
                                 "than Windows allows (32767 UTF-16 code units)");
                goto out;
        }
        line = malloc(cap * sizeof(*line));
        if (line == NULL)
                goto nomem;
        for (i = 0; i < n; i++) {
                if (i > 0)
                        line[o++] = L' ';
                if (i == 0) {
                        line[o++] = L'"';
                        (void) wcscpy(line + o, w[0]);
                        o += wcslen(w[0]);
                        line[o++] = L'"';
                } else {
                        quote_arg(w[i], line, &o);
                }
        }
        line[o] = L'\0';
        goto out;
nomem:
        (void) sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
out:
        for (i = 0; w != NULL && i < n; i++)
                free(w[i]);
        free(w);
        return line;
}

/* -------------------------------------------------------- environment */

/* The environment of this process as UTF-8 "NAME=VALUE" (names as they
 * are; drive-cwd entries "=C:=..." left out). */
static char **process_env(void)
{
        wchar_t *block = GetEnvironmentStringsW(), *p;
        struct sbx__strv v = { 0 };

        if (block == NULL)
                return NULL;
        for (p = block; *p != L'\0'; p += wcslen(p) + 1) {
                char *s;

                if (p[0] == L'=')
                        continue;
                s = sbx__win_narrow(p);
                if (s != NULL)
                        sbx__strv_push(&v, s);
                free(s);
        }
        (void) FreeEnvironmentStringsW(block);
        return sbx__strv_finish(&v, NULL);
}

/* Windows needs these to start programs at all (the loader, cmd.exe,
 * Winsock); none holds a secret.  USERPROFILE only with the real HOME. */
static const char *const runtime_names[] = {
        "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "SYSTEMDRIVE",
        "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
};

static int name_is(const char *entry, const char *name)
{
        size_t i;

        for (i = 0; name[i] != '\0'; i++)
                if (sbx__ascii_lower((unsigned char) entry[i]) !=
                    sbx__ascii_lower((unsigned char) name[i]))
                        return 0;
        return entry[i] == '=';
}

static int wcmp_names(const void *a, const void *b)
{
        const wchar_t *x = *(const wchar_t *const *) a, *y = *(const wchar_t *const *) b;

        for (; *x != L'=' && *y != L'=' && *x && *y; x++, y++) {
                wint_t cx = towupper(*x), cy = towupper(*y);

                if (cx != cy)
                        return cx < cy ? -1 : 1;
        }
        return (*x == L'=' ? 0 : *x) - (*y == L'=' ? 0 : *y);
}

/* entries (UTF-8) to a sorted CREATE_UNICODE_ENVIRONMENT block. */
static wchar_t *env_block(char **entries, sbx_error *err)
{
        wchar_t **w, *block = NULL;
        size_t n = 0, i, len = 1, o = 0;

        while (entries[n] != NULL)
                n++;
        w = calloc(n + 1, sizeof(*w));
        if (w == NULL)
                goto nomem;
        for (i = 0; i < n; i++) {
                w[i] = sbx__win_wide(entries[i]);
                if (w[i] == NULL)
                        goto nomem;
                len += wcslen(w[i]) + 1;
        }
        qsort(w, n, sizeof(*w), wcmp_names);
        block = malloc(len * sizeof(*block));
        if (block == NULL)
                goto nomem;
        for (i = 0; i < n; i++) {
                (void) wcscpy(block + o, w[i]);
                o += wcslen(w[i]) + 1;
        }
        block[o] = L'\0';
        goto out;
nomem:
        (void) sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
out:
        for (i = 0; w != NULL && i < n; i++)
                free(w[i]);
        free(w);
        return block;
}

/* The child's environment (UTF-8): the plan's filter over `src` with the
 * names upper-cased (Windows names are case-insensitive: "Path" is PATH),
 * the runtime names, then the directories.  NULL on ENOMEM. */
static char **child_env(const struct sbx_plan *plan, const char *const *src, const char *tmp,
                        const char *home)
{
        struct sbx__strv up = { 0 }, v = { 0 };
        char **upper, **filtered;
        size_t i, k;

        for (i = 0; src[i] != NULL; i++) {
                char *e = sbx__strdup(src[i]);

                for (k = 0; e != NULL && e[k] != '\0' && e[k] != '='; k++)
                        if (e[k] >= 'a' && e[k] <= 'z')
                                e[k] = (char) (e[k] - 'a' + 'A');
                if (e != NULL)
                        sbx__strv_push(&up, e);
                free(e);
        }
        upper = sbx__strv_finish(&up, NULL);
        if (upper == NULL)
                return NULL;
        filtered = sbx__plan_env(plan, (const char *const *) upper, home, tmp);
        if (filtered == NULL) {
                sbx_strv_free(upper);
                return NULL;
        }
        for (i = 0; filtered[i] != NULL; i++)
                sbx__strv_push(&v, filtered[i]);
        for (k = 0; k < SBX__ARRAY_SIZE(runtime_names); k++)
                for (i = 0; upper[i] != NULL; i++)
                        if (name_is(upper[i], runtime_names[k]))
                                sbx__strv_push(&v, upper[i]);
        if (tmp != NULL) {
                sbx__strv_push2(&v, "TEMP=", tmp);
                sbx__strv_push2(&v, "TMP=", tmp);
        }
        if (home != NULL)
                sbx__strv_push2(&v, "USERPROFILE=", home);
        else
                for (i = 0; upper[i] != NULL; i++)
                        if (name_is(upper[i], "USERPROFILE"))
                                sbx__strv_push(&v, upper[i]);
        sbx_strv_free(upper);
        sbx_strv_free(filtered);
        return sbx__strv_finish(&v, NULL);
}

/* ------------------------------------------------------------ program */

/* An existing regular file whose name the path rules accept (a PATH
 * entry with a short name, a stream or a device is skipped). */
static int exists_file(const wchar_t *p)
{
        char canon[SBX__WINPATH_BUF], *s = sbx__win_narrow(p);
        int ok = s != NULL && sbx__winpath_check(s, canon, sizeof(canon), NULL) == SBX_OK;
        DWORD a;

        free(s);
        if (!ok)
                return 0;
        a = GetFileAttributesW(p);
        return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

static int is_script(const wchar_t *p)
{
        size_t n = wcslen(p);

        return n >= 4 && (_wcsicmp(p + n - 4, L".bat") == 0 || _wcsicmp(p + n - 4, L".cmd") == 0);
}

/* argv[0] as the program to start: a path (drive form or the POSIX
 * spelling) is used as is; a bare name is searched in the child's PATH
 * with the child's PATHEXT. */
static sbx_code find_program(const char *argv0, char **env, wchar_t **out, sbx_error *err)
{
        char canon[SBX__WINPATH_BUF];
        const char *path = sbx__env_get((const char *const *) env, "PATH");
        const char *ext = sbx__env_get((const char *const *) env, "PATHEXT");
        wchar_t *wpath = NULL, *wext = NULL, *name = NULL, *dir, *ctx = NULL;
        wchar_t cand[2 * SBX__WINPATH_BUF];
        sbx_code r;

        *out = NULL;
        if (strpbrk(argv0, "/\\:") != NULL) {
                r = argv0[0] == '/' ? sbx__winpath_from_posix(argv0, canon, sizeof(canon), err)
                                    : sbx__winpath_check(argv0, canon, sizeof(canon), err);
                if (r != SBX_OK)
                        return r;
                *out = sbx__win_wide(canon);
                if (*out == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
                if (!exists_file(*out))
                        r = sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "sbx_spawn: \"%.200s\" "
                                      "does not exist", canon);
                else if (is_script(*out))
                        r = sbx__fail(err, SBX_E_UNSUPPORTED, 0, "sbx_spawn: \"%.200s\" is a "
                                      "batch file; run it as cmd /c (its arguments are "
                                      "parsed by cmd.exe, not by the C runtime)", canon);
                if (r != SBX_OK) {
                        free(*out);
                        *out = NULL;
                }
                return r;
        }
        name = sbx__win_wide(argv0);
        wpath = sbx__win_wide(path != NULL ? path : "");
        wext = sbx__win_wide(ext != NULL ? ext : ".COM;.EXE");
        if (name == NULL || wpath == NULL || wext == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
                goto out;
        }
        r = SBX_E_NOT_FOUND;
        for (dir = wcstok_s(wpath, L";", &ctx); dir != NULL && r == SBX_E_NOT_FOUND;
             dir = wcstok_s(NULL, L";", &ctx)) {
                wchar_t *e, *ectx = NULL, *exts;
                int has_dot = wcschr(name, L'.') != NULL;

                if (wcslen(dir) + wcslen(name) + 16 >= SBX__ARRAY_SIZE(cand) ||
                    !((dir[0] | 0x20) >= L'a' && (dir[0] | 0x20) <= L'z' && dir[1] == L':'))
                        continue;       /* relative or over-long entries are skipped */
                (void) swprintf(cand, SBX__ARRAY_SIZE(cand), L"%ls\\%ls", dir, name);
                if (has_dot && exists_file(cand) && !is_script(cand)) {
                        r = SBX_OK;
                        break;
                }
                exts = _wcsdup(wext);
                if (exts == NULL) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
                        goto out;
                }
                for (e = wcstok_s(exts, L";", &ectx); e != NULL; e = wcstok_s(NULL, L";", &ectx)) {
                        (void) swprintf(cand, SBX__ARRAY_SIZE(cand), L"%ls\\%ls%ls", dir, name,
                                        e);
                        if (exists_file(cand) && !is_script(cand)) {
                                r = SBX_OK;
                                break;
                        }
                }
                free(exts);
        }
        if (r == SBX_E_NOT_FOUND) {
                r = sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "sbx_spawn: \"%.200s\" was not "
                              "found in the command's PATH", argv0);
                goto out;
        }
        *out = _wcsdup(cand);
        if (*out == NULL)
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
out:
        free(name);
        free(wpath);
        free(wext);
        return r;
}

/* ------------------------------------------------------ temp directory */

DWORD sbx__win_rmtree(const wchar_t *path)
{
        WIN32_FIND_DATAW fd;
        wchar_t *pat, *sub;
        HANDLE h;
        DWORD first = 0;
        size_t n = wcslen(path);

        pat = malloc((n + 3) * sizeof(*pat));
        if (pat == NULL)
                return ERROR_NOT_ENOUGH_MEMORY;
        (void) swprintf(pat, n + 3, L"%ls\\*", path);
        h = FindFirstFileW(pat, &fd);
        free(pat);
        if (h == INVALID_HANDLE_VALUE) {
                DWORD e = GetLastError();

                return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? 0 : e;
        }
        do {
                size_t m;

                if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
                        continue;
                m = n + wcslen(fd.cFileName) + 2;
                sub = malloc(m * sizeof(*sub));
                if (sub == NULL) {
                        first = first ? first : ERROR_NOT_ENOUGH_MEMORY;
                        continue;
                }
                (void) swprintf(sub, m, L"%ls\\%ls", path, fd.cFileName);
                (void) SetFileAttributesW(sub, FILE_ATTRIBUTE_NORMAL);
                /* A reparse point (junction, symlink) is removed itself,
                 * never followed. */
                if ((fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
                    !(fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
                        DWORD e = sbx__win_rmtree(sub);

                        first = first ? first : e;
                } else if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
                        if (!RemoveDirectoryW(sub))
                                first = first ? first : GetLastError();
                } else if (!DeleteFileW(sub)) {
                        first = first ? first : GetLastError();
                }
                free(sub);
        } while (FindNextFileW(h, &fd));
        (void) FindClose(h);
        if (!RemoveDirectoryW(path) && first == 0)
                first = GetLastError();
        return first;
}

static volatile LONG temp_counter;

/* %TEMP%\sbx-<pid>-<n> (long names, checked by the path rules). */
static sbx_code make_tempdir(wchar_t **out, char *canon, size_t canon_size, sbx_error *err)
{
        wchar_t base[MAX_PATH + 1], full[MAX_PATH + 1], dir[MAX_PATH + 1];
        DWORD n;
        char *s;
        sbx_code r;
        int tries;

        n = GetTempPathW(MAX_PATH + 1, base);
        if (n == 0 || n > MAX_PATH)
                return sbx__fail(err, SBX_E_IO, EIO, "windows: no temp directory (error %lu)",
                                 (unsigned long) GetLastError());
        n = GetLongPathNameW(base, full, MAX_PATH + 1);
        if (n == 0 || n > MAX_PATH)
                (void) wcscpy(full, base);
        n = (DWORD) wcslen(full);
        if (n > 0 && full[n - 1] == L'\\')
                full[n - 1] = L'\0';
        for (tries = 0; tries < 16; tries++) {
                (void) swprintf(dir, MAX_PATH + 1, L"%ls\\sbx-%lu-%ld", full,
                                (unsigned long) GetCurrentProcessId(),
                                (long) InterlockedIncrement(&temp_counter));
                if (CreateDirectoryW(dir, NULL))
                        break;
                if (GetLastError() != ERROR_ALREADY_EXISTS)
                        return sbx__fail(err, SBX_E_IO, sbx__win_errno(GetLastError()),
                                         "windows: cannot create the temp directory (error "
                                         "%lu)", (unsigned long) GetLastError());
        }
        if (tries == 16)
                return sbx__fail(err, SBX_E_IO, EEXIST, "windows: no free temp directory name");
        s = sbx__win_narrow(dir);
        r = s == NULL ? sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: no memory")
                      : sbx__winpath_check(s, canon, canon_size, err);
        free(s);
        if (r != SBX_OK) {
                (void) RemoveDirectoryW(dir);
                return r;
        }
        *out = _wcsdup(dir);
        if (*out == NULL) {
                (void) RemoveDirectoryW(dir);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "windows: no memory");
        }
        return SBX_OK;
}

/* ---------------------------------------------------------------- job */

static sbx_code make_job(int ui_limits, HANDLE *out, uint32_t *layers, sbx_error *err)
{
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
        JOBOBJECT_BASIC_UI_RESTRICTIONS ui;
        HANDLE job = CreateJobObjectW(NULL, NULL);

        if (job == NULL)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, sbx__win_errno(GetLastError()),
                                 "windows: cannot create a job object (error %lu)",
                                 (unsigned long) GetLastError());
        memset(&li, 0, sizeof(li));
        /* The whole tree dies with the job handle; no breakaway is allowed
         * (JOB_OBJECT_LIMIT_BREAKAWAY_OK is not set). */
        li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
                                              JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
        if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li))) {
                DWORD e = GetLastError();

                (void) CloseHandle(job);
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, sbx__win_errno(e), "windows: "
                                 "cannot make the job kill its processes on close (error %lu)",
                                 (unsigned long) e);
        }
        if (ui_limits) {
                ui.UIRestrictionsClass = JOB_OBJECT_UILIMIT_DESKTOP |
                                         JOB_OBJECT_UILIMIT_DISPLAYSETTINGS |
                                         JOB_OBJECT_UILIMIT_EXITWINDOWS |
                                         JOB_OBJECT_UILIMIT_GLOBALATOMS |
                                         JOB_OBJECT_UILIMIT_HANDLES |
                                         JOB_OBJECT_UILIMIT_READCLIPBOARD |
                                         JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |
                                         JOB_OBJECT_UILIMIT_WRITECLIPBOARD;
                if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui)))
                        *layers &= ~SBX__WIN_LAYER_JOB;         /* reported, not hidden */
        }
        *out = job;
        return SBX_OK;
}

/* ------------------------------------------------------- the spawn */

static HANDLE std_handle(int32_t fd, DWORD which)
{
        HANDLE h = fd >= 0 ? (HANDLE) _get_osfhandle(fd) : GetStdHandle(which);

        return h == INVALID_HANDLE_VALUE ? NULL : h;
}

static void child_state_free(struct sbx__win_child *w)
{
        if (w == NULL)
                return;
        if (w->job != NULL) {
                (void) TerminateJobObject(w->job, 128 + SIGKILL);
                (void) CloseHandle(w->job);
        }
        if (w->process != NULL)
                (void) CloseHandle(w->process);
        (void) sbx__win_acl_undo(&w->undo);
        if (w->tempdir != NULL) {
                (void) sbx__win_rmtree(w->tempdir);
                free(w->tempdir);
        }
        (void) LocalFree(w->sid);
        free(w);
}

/* Steps 1 to 3 of a restricted spawn: the per-spawn temp directory (and
 * scratch HOME) in tmp and home, the spawn SID and the ACL plan applied
 * for it, the restricted token (or, where it cannot be made, the seed's
 * partial level: the token layer cleared). */
static sbx_code restricted_setup(const char *fn, const struct sbx_plan *plan,
                                 const char *const *envp, struct sbx__win_child *w,
                                 char *tmp, size_t tmp_size, char *home, size_t home_size,
                                 struct sbx__winacl_plan *acl, HANDLE *token, uint32_t *layers,
                                 char **caller_home, sbx_error *err)
{
        sbx_code r;

        /* 1. the temp directory (and the scratch HOME) */
        r = make_tempdir(&w->tempdir, tmp, tmp_size - 8, err);
        if (r != SBX_OK)
                return r;
        (void) snprintf(home, home_size, "%s\\home", tmp);
        (void) strcat(tmp, "\\tmp");
        {
                wchar_t *wt = sbx__win_wide(tmp), *wh = sbx__win_wide(home);
                int ok = wt != NULL && wh != NULL && CreateDirectoryW(wt, NULL) &&
                         (plan->home != SBX__ENV_DIR_SCRATCH || CreateDirectoryW(wh, NULL));

                free(wt);
                free(wh);
                if (!ok) {
                        r = sbx__fail(err, SBX_E_IO, EIO, "%s: cannot create the "
                                      "per-spawn directories in %.200s", fn, tmp);
                        return r;
                }
        }
        /* 2. the ACL plan */
        if (sbx__caller_home(envp, caller_home) < 0)
                *caller_home = NULL;     /* nothing the rules accept: nothing to hide */
        r = sbx__win_spawn_sid(&w->sid, err);
        if (r == SBX_OK) {
                /* The ACL entry goes on the per-spawn root. */
                char root[SBX__WINPATH_BUF + 8];

                (void) snprintf(root, sizeof(root), "%s", tmp);
                root[strlen(root) - 4] = '\0';
                r = sbx__winacl_plan(plan, root, *caller_home, acl, err);
        }
        if (r == SBX_OK)
                r = sbx__win_acl_apply(acl, w->sid, &w->undo, err);
        if (r != SBX_OK)
                return r;
        /* 3. the restricted token, or the seed's partial level */
        if (sbx__win_restricted_token(acl->restricting, w->sid, token) != 0) {
                *token = NULL;
                *layers &= ~SBX__WIN_LAYER_TOKEN;
        }
        return SBX_OK;
}

/* Step 7's first half: the child's stdio, duplicated inheritable, and
 * the attribute list that lets it inherit those and nothing else. */
static sbx_code stdio_handles(const char *fn, const sbx_spawn_options *opts, HANDLE dups[3],
                              HANDLE list[3], size_t *n_list, STARTUPINFOEXW *si,
                              LPPROC_THREAD_ATTRIBUTE_LIST *attrs, sbx_error *err)
{
        SIZE_T asz = 0;
        size_t i;
        sbx_code r;

        for (i = 0; i < 3; i++) {
                static const DWORD which[3] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
                                                STD_ERROR_HANDLE };
                const int32_t fds[3] = { opts->stdin_fd, opts->stdout_fd, opts->stderr_fd };
                HANDLE h = std_handle(fds[i], which[i]);

                if (h != NULL && DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(),
                                                 &dups[i], 0, TRUE, DUPLICATE_SAME_ACCESS))
                        list[(*n_list)++] = dups[i];
        }
        memset(si, 0, sizeof(*si));
        si->StartupInfo.cb = sizeof(*si);
        si->StartupInfo.dwFlags = STARTF_USESTDHANDLES;
        si->StartupInfo.hStdInput = dups[0];
        si->StartupInfo.hStdOutput = dups[1];
        si->StartupInfo.hStdError = dups[2];
        (void) InitializeProcThreadAttributeList(NULL, 1, 0, &asz);
        *attrs = malloc(asz);
        if (*attrs == NULL || !InitializeProcThreadAttributeList(*attrs, 1, 0, &asz)) {
                free(*attrs);
                *attrs = NULL;
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: no attribute list for "
                              "the handle list", fn);
                return r;
        }
        if (*n_list > 0 &&
            !UpdateProcThreadAttribute(*attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
                                       *n_list * sizeof(HANDLE), NULL, NULL)) {
                /* Without the list every inheritable handle of the host
                 * would reach the child: refuse. */
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, sbx__win_errno(GetLastError()),
                              "%s: cannot restrict the inherited handles (error %lu)", fn,
                              (unsigned long) GetLastError());
                return r;
        }
        si->lpAttributeList = *attrs;
        return SBX_OK;
}

/* The process, suspended: as the restricted token where it can be
 * assigned, else (the seed's partial level, the token layer cleared) as
 * the caller. */
static sbx_code create_process(const char *fn, const char *const *argv, const wchar_t *app,
                               wchar_t *line, wchar_t *block, const wchar_t *wcwd,
                               STARTUPINFOEXW *si, size_t n_list, HANDLE *token,
                               uint32_t *layers, PROCESS_INFORMATION *pi, sbx_error *err)
{
        sbx_code r;
        DWORD e;

        const DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT |
                            EXTENDED_STARTUPINFO_PRESENT;
        BOOL ok = FALSE;

        if (*token != NULL) {
                ok = CreateProcessAsUserW(*token, app, line, NULL, NULL, n_list > 0, flags,
                                          block, wcwd, &si->StartupInfo, pi);
                e = ok ? 0 : GetLastError();
                /* A token this process may not assign: the seed's
                 * fallback, reported as partial. */
                if (!ok && e == ERROR_PRIVILEGE_NOT_HELD) {
                        *layers &= ~SBX__WIN_LAYER_TOKEN;
                        (void) CloseHandle(*token);
                        *token = NULL;
                }
        }
        if (*token == NULL && !ok) {
                ok = CreateProcessW(app, line, NULL, NULL, n_list > 0, flags, block, wcwd,
                                    &si->StartupInfo, pi);
                e = ok ? 0 : GetLastError();
        }
        if (!ok) {
                r = sbx__fail(err, e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
                                       ? SBX_E_NOT_FOUND : SBX_E_IO,
                              sbx__win_errno(e), "%s: CreateProcess of \"%.200s\" failed "
                              "(error %lu)", fn, argv[0], (unsigned long) e);
                return r;
        }
        return SBX_OK;
}

sbx_code sbx__win_start(const struct sbx_plan *plan, const char *const *argv,
                        const sbx_spawn_options *opts, int restricted, sbx_child *child,
                        sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        struct sbx__win_child *w = NULL;
        struct sbx__winacl_plan acl = { NULL, 0, 0 };
        char tmp[SBX__WINPATH_BUF + 8], home[SBX__WINPATH_BUF + 8], cwd[SBX__WINPATH_BUF];
        char **src = NULL, **env = NULL, *caller_home = NULL;
        wchar_t *app = NULL, *line = NULL, *block = NULL, *wcwd = NULL;
        HANDLE token = NULL, dups[3] = { NULL, NULL, NULL }, list[3];
        LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
        STARTUPINFOEXW si;
        PROCESS_INFORMATION pi;
        uint32_t layers = SBX__WIN_LAYERS_ALL;
        size_t n_list = 0, i;
        sbx_code r;
        DWORD e;

        memset(&pi, 0, sizeof(pi));
        if (opts->n_keep_fds > 0)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: keep_fds: Windows passes no "
                                 "descriptors beyond stdio", fn);
        /* No limits here: the row does not claim SBX__ROW_LIMITS, so the
         * exec layer refused them (docs/windows.md). */
        r = sbx__winpath_from_posix(opts->cwd != NULL ? opts->cwd : plan->workspace_root, cwd,
                                    sizeof(cwd), err);
        if (r != SBX_OK)
                return r;
        w = calloc(1, sizeof(*w));
        if (w == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        src = opts->envp != NULL ? NULL : process_env();
        if (opts->envp == NULL && src == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: cannot read the environment", fn);
                goto fail;
        }
        if (restricted) {
                r = restricted_setup(fn, plan, opts->envp != NULL ? opts->envp
                                                : (const char *const *) src, w, tmp, sizeof(tmp),
                                     home, sizeof(home), &acl, &token, &layers, &caller_home,
                                     err);
                if (r != SBX_OK)
                        goto fail;
                env = child_env(plan, opts->envp != NULL ? opts->envp : (const char *const *) src,
                                tmp, plan->home == SBX__ENV_DIR_SCRATCH ? home : NULL);
        } else {
                env = sbx__plan_env(plan, opts->envp != NULL ? opts->envp
                                                             : (const char *const *) src,
                                    NULL, NULL);
        }
        /* 4. the environment block */
        if (env == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto fail;
        }
        block = env_block(env, err);
        if (block == NULL) {
                r = SBX_E_NOMEM;
                goto fail;
        }
        /* 5. the program and its command line */
        r = find_program(argv[0], env, &app, err);
        if (r != SBX_OK)
                goto fail;
        line = command_line(argv, err);
        wcwd = sbx__win_wide(cwd);
        if (line == NULL || wcwd == NULL) {
                r = line == NULL ? (sbx_code) (err != NULL ? err->code : SBX_E_NOMEM)
                                 : sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto fail;
        }
        /* 6. the job */
        r = make_job(restricted, &w->job, &layers, err);
        if (r != SBX_OK)
                goto fail;
        /* 7. stdio only, then the process */
        r = stdio_handles(fn, opts, dups, list, &n_list, &si, &attrs, err);
        if (r != SBX_OK)
                goto fail;
        r = create_process(fn, argv, app, line, block, wcwd, &si, n_list, &token, &layers, &pi,
                           err);
        if (r != SBX_OK)
                goto fail;
        if (!AssignProcessToJobObject(w->job, pi.hProcess)) {
                e = GetLastError();
                (void) TerminateProcess(pi.hProcess, 128 + SIGKILL);
                (void) CloseHandle(pi.hThread);
                (void) CloseHandle(pi.hProcess);
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, sbx__win_errno(e), "%s: cannot put "
                              "the command in its job object (error %lu)", fn, (unsigned long) e);
                goto fail;
        }
        w->process = pi.hProcess;
        (void) ResumeThread(pi.hThread);
        (void) CloseHandle(pi.hThread);
        child->pid = (pid_t) pi.dwProcessId;
        child->backend = restricted ? SBX_BACKEND_WINDOWS : SBX_BACKEND_AUTO;
        child->required = plan->direct ? 0 : plan->required;
        child->achieved = restricted ? sbx__win_tier_guarantees(SBX__WIN_TIER_RESTRICTED) : 0;
        child->degraded = restricted &&
                          sbx__win_enforcement(SBX__WIN_TIER_RESTRICTED, layers, plan->required) !=
                                  SBX_ENFORCEMENT_FULL;
        child->os = w;
        w = NULL;
        r = SBX_OK;
        goto out;
fail:
        child_state_free(w);
out:
        for (i = 0; i < 3; i++)
                if (dups[i] != NULL)
                        (void) CloseHandle(dups[i]);
        if (attrs != NULL) {
                DeleteProcThreadAttributeList(attrs);
                free(attrs);
        }
        if (token != NULL)
                (void) CloseHandle(token);
        sbx__winacl_plan_free(&acl);
        free(caller_home);
        sbx_strv_free(src);
        sbx_strv_free(env);
        free(app);
        free(line);
        free(block);
        free(wcwd);
        return r;
}

/* --------------------------------------------- wait, kill, release */

static int win_child_wait(sbx_child *child, int timeout_ms, int *status)
{
        struct sbx__win_child *w = child->os;
        DWORD r, code = 0;

        if (w == NULL || w->process == NULL)
                return -ECHILD;
        r = WaitForSingleObject(w->process, timeout_ms < 0 ? INFINITE : (DWORD) timeout_ms);
        if (r == WAIT_TIMEOUT)
                return -ETIMEDOUT;
        if (r != WAIT_OBJECT_0 || !GetExitCodeProcess(w->process, &code))
                return -sbx__win_errno(GetLastError());
        /* The command ended: so does everything it left in its job (as the
         * end of a pid namespace on Linux). */
        (void) TerminateJobObject(w->job, 128 + SIGKILL);
        /* Exit codes above 255 (NTSTATUS values) are reported as 255. */
        *status = (int) ((code > 255 ? 255 : code) << 8);
        return 0;
}

static int win_child_kill(sbx_child *child, int sig)
{
        struct sbx__win_child *w = child->os;

        if (w == NULL || w->job == NULL)
                return -ESRCH;
        /* Windows has no signals: an ending signal ends the whole job with
         * exit code 128 + sig; others are not supported. */
        if (sig != SIGKILL && sig != SIGTERM && sig != SIGINT && sig != SIGHUP)
                return -EINVAL;
        if (!TerminateJobObject(w->job, (UINT) (128 + sig)))
                return -sbx__win_errno(GetLastError());
        return 0;
}

static void win_child_release(sbx_child *child)
{
        child_state_free(child->os);
        child->os = NULL;
}

const struct sbx__child_ops sbx__win_child_ops = {
        .wait = win_child_wait, .kill = win_child_kill, .release = win_child_release,
};
