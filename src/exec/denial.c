/*
 * denial.c - sbx_plan_denial: did the sandbox cause this failure, and
 * what did it deny?  Each stderr line is scanned (src/policy/denial.c) for
 * an errno text, the path it is about and what the line was doing; the
 * plan the command ran under then says whether it granted that access.
 * docs/policy.md ("Denial marker") has the rules and their limits.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "compile/plan_internal.h"
#include "exec/exec.h"
#include "paths/paths_internal.h"
#include "policy/policy_internal.h"

extern char **environ;

struct judge {
        const sbx_plan *plan;
        sbx_plan *found;        /* the discovered plan, made at most once */
        int discovered;
        char *homes[2];         /* the hidden homes (isolated HOME), looked up once */
        int homes_known;
        int32_t backend;
        const char *cwd;
        int exit_code;
};

/* 1 if the row that ran the command refuses metadata changes everywhere
 * (a row this build lacks refuses nothing it could report). */
static int meta_refused(int32_t backend)
{
        const struct sbx_backend *be = sbx__backend_get(backend);

        return be != NULL && (be->supports & SBX__ROW_META_REFUSED);
}

/* 1 if the backends hide path as the caller's home: an isolated HOME
 * hides $HOME and the account's home unless a root configured inside it
 * (the rule deciding for path) shows it again. */
static int in_hidden_home(struct judge *j, const char *path, const struct sbx_plan_fs_rule *rule)
{
        size_t i;

        if (j->plan->home != SBX__ENV_DIR_SCRATCH)
                return 0;
        if (!j->homes_known) {
                (void) sbx__caller_home((const char *const *) environ, &j->homes[0]);
                (void) sbx__account_home(&j->homes[1]);
                j->homes_known = 1;
        }
        for (i = 0; i < 2; i++)
                if (j->homes[i] != NULL && strcmp(j->homes[i], "/") != 0 &&
                    sbx__path_has_prefix(path, j->homes[i]) &&
                    (rule == NULL || !sbx__path_has_prefix(rule->path, j->homes[i])))
                        return 1;
        return 0;
}

/* The access the plan (with the git locations on disk, when it protects
 * paths and grants the write) gives canonical path. */
static sbx_code access_of(struct judge *j, const char *path, uint32_t *out, sbx_error *err)
{
        const struct sbx_plan_fs_rule *rule = sbx__plan_rule_for(j->plan, path);
        sbx_code r;

        *out = rule != NULL && !in_hidden_home(j, path, rule) ? rule->access : 0;
        if (!(*out & SBX__FS_WRITE) || !(j->plan->required & SBX_G_PROTECTED_PATHS))
                return SBX_OK;
        if (!j->discovered) {
                r = sbx__plan_discover(j->plan, "sbx_plan_denial", &j->found, err);
                if (r != SBX_OK)
                        return r;
                j->discovered = 1;
        }
        rule = sbx__plan_rule_for(j->found != NULL ? j->found : j->plan, path);
        *out = rule != NULL ? rule->access : 0;
        return SBX_OK;
}

/* The canonical form of the path spelled s[0..len), relative to the
 * working directory; 0, or -1 when it cannot be one (too long, a NUL). */
static int resolve(const struct judge *j, const char *s, size_t len, char *out)
{
        char joined[2 * SBX_PATH_MAX + 2];
        char *canon = NULL;
        int n;

        if (len >= SBX_PATH_MAX || memchr(s, '\0', len) != NULL)
                return -1;
        if (s[0] == '/')
                n = snprintf(joined, sizeof(joined), "%.*s", (int) len, s);
        else
                n = snprintf(joined, sizeof(joined), "%s/%.*s", j->cwd, (int) len, s);
        if (n < 0 || (size_t) n >= sizeof(joined))
                return -1;
        /* Symlinks resolved as the host sees them; a path that cannot be
         * (an ancestor we may not search) is taken lexically. */
        if (sbx_path_canonical(joined, &canon, NULL) == SBX_OK && strlen(canon) < SBX_PATH_MAX) {
                memcpy(out, canon, strlen(canon) + 1);
                sbx_free(canon);
                return 0;
        }
        sbx_free(canon);
        return sbx__path_clean(joined, 1, out, SBX_PATH_MAX) == SBX_OK ? 0 : -1;
}

/* The class one line shows, or NONE. */
static sbx_code judge_line(struct judge *j, const char *line, size_t len, int32_t *cls,
                           sbx_error *err)
{
        struct sbx__denial_line dl;
        char path[SBX_PATH_MAX];
        uint32_t a;
        int net_denied = j->plan->network != SBX__NET_ALLOW, op;
        sbx_code r;

        *cls = SBX_DENIAL_NONE;
        sbx__denial_scan_line(line, len, &dl);
        if (dl.net && net_denied) {
                *cls = SBX_DENIAL_NETWORK;
                return SBX_OK;
        }
        if (dl.err == 0)
                return SBX_OK;
        if (!dl.has_path || resolve(j, line + dl.path_off, dl.path_len, path) < 0) {
                /* "connect: Permission denied", seccomp's EPERM for a socket. */
                if (net_denied && dl.net_words &&
                    (dl.err == SBX__DL_EACCES || dl.err == SBX__DL_EPERM))
                        *cls = SBX_DENIAL_NETWORK;
                return SBX_OK;
        }
        r = access_of(j, path, &a, err);
        if (r != SBX_OK)
                return r;
        if (dl.err == SBX__DL_ENOENT) {
                struct stat st;

                /* Missing only in the sandbox: hidden by it. */
                if (!(a & SBX__FS_READ) && lstat(path, &st) == 0)
                        *cls = SBX_DENIAL_FILE_READ;
                return SBX_OK;
        }
        op = dl.op;
        if (op == SBX__DL_OP_SHELL)     /* 126: the shell could not execute it */
                op = j->exit_code == 126 ? SBX__DL_OP_EXEC : SBX__DL_OP_UNKNOWN;
        switch (op) {
        case SBX__DL_OP_WRITE:
                if (!(a & SBX__FS_WRITE))
                        *cls = SBX_DENIAL_FILE_WRITE;
                break;
        case SBX__DL_OP_META:
                /* A row may refuse chmod, chown, utimes and xattrs
                 * everywhere (rung 2's seccomp, EPERM). */
                if (!(a & SBX__FS_WRITE) || (meta_refused(j->backend) && dl.err == SBX__DL_EPERM))
                        *cls = SBX_DENIAL_FILE_WRITE;
                break;
        case SBX__DL_OP_READ:
                if (!(a & SBX__FS_READ))
                        *cls = SBX_DENIAL_FILE_READ;
                break;
        case SBX__DL_OP_EXEC:
                if (!(a & SBX__FS_EXEC) || !(a & SBX__FS_READ))
                        *cls = SBX_DENIAL_COMMAND;
                break;
        default:
                /* No words say what it did.  Unreadable: a read denial.
                 * Readable but not writable: a write the sandbox refused,
                 * unless the file's own mode bits would refuse a read too
                 * (then nothing shows which it was). */
                if (!(a & SBX__FS_READ))
                        *cls = SBX_DENIAL_FILE_READ;
                else if (!(a & SBX__FS_WRITE) && dl.err == SBX__DL_EACCES &&
                         (access(path, R_OK) == 0 || errno == ENOENT))
                        *cls = SBX_DENIAL_FILE_WRITE;
                break;
        }
        return SBX_OK;
}

sbx_code sbx_plan_denial(const sbx_plan *plan, int32_t backend, const char *cwd, int exit_code,
                         const char *err_text, size_t err_len, int32_t *class_out, sbx_error *err)
{
        static const char fn[] = "sbx_plan_denial";
        struct judge j;
        int32_t cls = SBX_DENIAL_NONE;
        size_t start = 0, i;
        sbx_code r = SBX_OK;

        if (plan == NULL || class_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan and class_out must not be NULL",
                                 fn);
        if (err_text == NULL && err_len > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: err_text is NULL but err_len is %zu",
                                 fn, err_len);
        if (backend < SBX_BACKEND_AUTO || backend > SBX_BACKEND_WINDOWS)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid backend %d", fn,
                                 (int) backend);
        if (cwd != NULL && cwd[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd must be absolute", fn);
        if (exit_code == 0 || err_len == 0 || plan->direct) {
                *class_out = SBX_DENIAL_NONE;
                return SBX_OK;
        }
        memset(&j, 0, sizeof(j));
        j.plan = plan;
        j.backend = backend;
        j.cwd = cwd != NULL ? cwd : plan->workspace_root;
        j.exit_code = exit_code;
        /* The first line that shows a denial decides. */
        for (i = 0; i <= err_len && cls == SBX_DENIAL_NONE; i++) {
                if (i < err_len && err_text[i] != '\n')
                        continue;
                if (i > start) {
                        size_t n = i - start;

                        if (err_text[start + n - 1] == '\r')
                                n--;
                        r = judge_line(&j, err_text + start, n, &cls, err);
                        if (r != SBX_OK)
                                break;
                }
                start = i + 1;
        }
        sbx_plan_free(j.found);
        free(j.homes[0]);
        free(j.homes[1]);
        if (r != SBX_OK)
                return r;
        *class_out = cls;
        return SBX_OK;
}
