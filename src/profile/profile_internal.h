/*
 * profile_internal.h - the profile's private representation, shared with
 * the compile layer and the backends.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_PROFILE_INTERNAL_H
#define SBX_PROFILE_INTERNAL_H

#include "core/internal.h"

/* At most this many additional roots in a profile (sbx_profile_new and the
 * result of sbx_profile_restrict): SBX_E_RANGE beyond. */
#define SBX__PROFILE_MAX_ROOTS 256

/* The longest command.execute scope, in bytes (sandbox.h). */
#define SBX__COMMAND_MAX 65536

/* One configured additional root (canonical path, its own access). */
struct sbx_profile_root {
        char   *path;
        int32_t read;           /* sbx_access */
        int32_t write;          /* sbx_access, <= read */
};

/*
 * A validated, immutable profile.  Every field is normalized: the roots are
 * sorted by strcmp(path) and never include the workspace root; an
 * unconfined profile has every filesystem/network field Allow.
 */
struct sbx_profile {
        char   *workspace_root;         /* canonical */
        int32_t workspace_read;
        int32_t workspace_write;
        int32_t host_read;
        int32_t host_write;
        int32_t network;
        int32_t command;
        int32_t home;                   /* sbx_home */
        int32_t isolation;              /* sbx_isolation */
        int32_t ack_unconfined;         /* 0 or 1 */
        struct sbx_profile_root *roots; /* sorted by path */
        size_t  n_roots;
        sbx_root_access *view;          /* n_roots entries for sbx_profile_config_get */
};

/*
 * The access a canonical path has for reading (write = 0) or writing
 * (write = 1): the deepest configured root containing it (additional roots
 * and the workspace root) wins, else the host access.  Pure.
 */
int32_t sbx__profile_path_access(const sbx_profile *p, const char *path, int write);

enum path_syntax {
        PATH_OK = 0,
        PATH_EMPTY,
        PATH_RELATIVE,
        PATH_TOO_LONG,
        PATH_TRAILING_SLASH,
        PATH_EMPTY_COMPONENT,
        PATH_DOT,
        PATH_DOTDOT
};

/* Shared by profile.c and access.c. */
const char *sbx__path_syntax_text(enum path_syntax s);
enum path_syntax sbx__path_syntax(const char *path);
const char *sbx__printable(const char *s, char *buf, size_t bufsz);

#endif /* SBX_PROFILE_INTERNAL_H */
