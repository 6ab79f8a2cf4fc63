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

#endif /* SBX_POLICY_INTERNAL_H */
