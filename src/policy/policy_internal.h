/*
 * policy_internal.h - the policy layer's private types, shared with the
 * layers below it (paths, session, compile).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_POLICY_INTERNAL_H
#define SBX_POLICY_INTERNAL_H

#include "core/internal.h"

struct sbx_policy_service {
        int32_t default_mode;
        char    fallback_root[SBX_PATH_MAX];
};

struct sbx_exec_policy {
        int32_t mode;
        char   *workspace_root;         /* absolute, lexically clean */
        char   *session_id;             /* NULL when agentless */
};

struct sbx_confined_policy {
        int32_t          mode;          /* sbx_confined_mode */
        sbx_exec_policy *exec;          /* owned copy */
};

/* Validate one event; message names `what`. */
sbx_code sbx__mode_event_check(const sbx_mode_event *ev, const char *what, sbx_error *err);

/* ------------------------------------------------------------ denial.c */

/* The errno a stderr line reports. */
#define SBX__DL_EACCES 1        /* "Permission denied" */
#define SBX__DL_EPERM  2        /* "Operation not permitted" */
#define SBX__DL_EROFS  3        /* "Read-only file system" */
#define SBX__DL_ENOENT 4        /* "No such file or directory": a hidden path */

/* What the line was doing, from its words (docs/policy.md). */
#define SBX__DL_OP_UNKNOWN 0
#define SBX__DL_OP_WRITE   1    /* create, remove, rename, write (EROFS always) */
#define SBX__DL_OP_META    2    /* chmod, chown, utimes, xattrs */
#define SBX__DL_OP_READ    3    /* open for reading, list, stat */
#define SBX__DL_OP_EXEC    4    /* execute */
#define SBX__DL_OP_SHELL   5    /* "<shell>: [N: ]<path>: ...": exec or a redirection */

/* One line of a failed command's stderr, as far as text tells. */
struct sbx__denial_line {
        int    net;             /* a refused/unreachable connection or failed lookup */
        int    err;             /* SBX__DL_E*, 0 = no errno text */
        size_t err_off;         /* where the errno text starts */
        int    op;              /* SBX__DL_OP_* (with err) */
        int    net_words;       /* the line is about a socket or connection */
        int    dev_net;         /* its path was bash's /dev/tcp or /dev/udp */
        int    has_path;        /* the path the errno is about: */
        size_t path_off, path_len;      /* its spelling, quotes excluded */
        size_t q_open, q_close;         /* quote bytes around it (0 unquoted) */
};

/* Scan line[0..len) (no newline; any bytes).  Pure. */
void sbx__denial_scan_line(const char *line, size_t len, struct sbx__denial_line *out);

#endif /* SBX_POLICY_INTERNAL_H */
