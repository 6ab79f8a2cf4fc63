/*
 * policy.c - the policy service, resolution of one tool call's execution
 * policy, and the one-way conversion to a confined policy.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_internal.h"

/* Clean an absolute root; "." and ".." components are refused because a
 * lexical ".." over a symlink would name a different directory. */
static sbx_code clean_root(const char *fn, const char *field, const char *path, char *out,
                           sbx_error *err)
{
        sbx_code r;

        if (path == NULL || path[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is missing", fn, field);
        if (strlen(path) >= SBX_PATH_MAX)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: %s is longer than %d bytes", fn,
                                 field, SBX_PATH_MAX - 1);
        if (path[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s \"%.200s\" is not absolute",
                                 fn, field, path);
        r = sbx__path_clean(path, 0, out, SBX_PATH_MAX);
        if (r == SBX_E_INVALID)
                return sbx__fail(err, r, 0, "%s: %s \"%.200s\" contains a \"..\" component",
                                 fn, field, path);
        if (r != SBX_OK)
                return sbx__fail(err, r, 0, "%s: %s is too long", fn, field);
        return SBX_OK;
}

sbx_code sbx_policy_service_new(int32_t default_mode, const char *fallback_root,
                                sbx_policy_service **out, sbx_error *err)
{
        sbx_policy_service *svc;
        sbx_code r;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_policy_service_new: out is NULL");
        if (!sbx_mode_is_valid(default_mode))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_policy_service_new: invalid default_mode %d",
                                 (int) default_mode);
        svc = calloc(1, sizeof(*svc));
        if (svc == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_policy_service_new: no memory");
        r = clean_root("sbx_policy_service_new", "fallback_root", fallback_root,
                       svc->fallback_root, err);
        if (r != SBX_OK) {
                free(svc);
                return r;
        }
        svc->default_mode = default_mode;
        *out = svc;
        return SBX_OK;
}

void sbx_policy_service_free(sbx_policy_service *svc)
{
        free(svc);
}

void sbx_exec_policy_free(sbx_exec_policy *policy)
{
        if (policy == NULL)
                return;
        free(policy->workspace_root);
        free(policy->session_id);
        free(policy);
}

static sbx_exec_policy *exec_policy_new(int32_t mode, const char *root, const char *session_id)
{
        sbx_exec_policy *p = calloc(1, sizeof(*p));

        if (p == NULL)
                return NULL;
        p->mode = mode;
        p->workspace_root = sbx__strdup(root);
        if (session_id != NULL)
                p->session_id = sbx__strdup(session_id);
        if (p->workspace_root == NULL || (session_id != NULL && p->session_id == NULL)) {
                sbx_exec_policy_free(p);
                return NULL;
        }
        return p;
}

sbx_code sbx_policy_service_resolve(const sbx_policy_service *svc,
                                    const sbx_policy_request *request, sbx_exec_policy **out,
                                    sbx_error *err)
{
        static const sbx_policy_request none = SBX_POLICY_REQUEST_INIT;
        const sbx_policy_request *req = request != NULL ? request : &none;
        const char *fn = "sbx_policy_service_resolve";
        char root[SBX_PATH_MAX];
        int32_t mode;
        sbx_exec_policy *p;
        sbx_code r;

        if (svc == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: service and out must not be NULL", fn);
        if (req->version != SBX_POLICY_REQUEST_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported request version %u",
                                 fn, (unsigned) req->version);
        if (req->mode_override != SBX_MODE_NONE && !sbx_mode_is_valid(req->mode_override))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid mode_override %d", fn,
                                 (int) req->mode_override);
        if (req->session_id != NULL && req->session_id[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: session_id is empty", fn);
        if (req->session_id != NULL && strlen(req->session_id) > 1024)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: session_id is longer than 1024 bytes", fn);

        /* Mode: explicit override > last sandbox/mode event > default.  The
         * events are validated even when an override makes them moot, so a
         * corrupt session never goes unnoticed. */
        r = sbx_mode_events_effective(req->events, req->n_events, &mode, err);
        if (r == SBX_E_NOT_FOUND)
                mode = svc->default_mode;
        else if (r != SBX_OK)
                return r;
        if (req->mode_override != SBX_MODE_NONE)
                mode = req->mode_override;

        /* Workspace root: session cwd > fallback root. */
        if (req->session_cwd != NULL) {
                r = clean_root(fn, "session_cwd", req->session_cwd, root, err);
                if (r != SBX_OK)
                        return r;
        } else {
                memcpy(root, svc->fallback_root, sizeof(root));
        }

        SBX__INVARIANT(sbx_mode_is_valid(mode), "invalid sandbox mode %d", (int) mode);
        SBX__INVARIANT(root[0] == '/', "workspace root \"%s\" is not absolute", root);
        p = exec_policy_new(mode, root, req->session_id);
        if (p == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        *out = p;
        return SBX_OK;
}

int32_t sbx_exec_policy_mode(const sbx_exec_policy *policy)
{
        return policy != NULL ? policy->mode : SBX_MODE_NONE;
}

const char *sbx_exec_policy_workspace_root(const sbx_exec_policy *policy)
{
        return policy != NULL ? policy->workspace_root : NULL;
}

const char *sbx_exec_policy_session_id(const sbx_exec_policy *policy)
{
        return policy != NULL ? policy->session_id : NULL;
}

int sbx_exec_policy_is_danger(const sbx_exec_policy *policy)
{
        return policy != NULL && policy->mode == SBX_MODE_DANGER_FULL_ACCESS;
}

sbx_code sbx_exec_policy_to_confined(const sbx_exec_policy *policy, sbx_confined_policy **out,
                                     sbx_error *err)
{
        const char *fn = "sbx_exec_policy_to_confined";
        sbx_confined_policy *c;
        int32_t cmode;

        if (policy == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy and out must not be NULL", fn);
        switch (policy->mode) {
        case SBX_MODE_READ_ONLY:
                cmode = SBX_CONFINED_READ_ONLY;
                break;
        case SBX_MODE_WORKSPACE_WRITE:
                cmode = SBX_CONFINED_WORKSPACE_WRITE;
                break;
        case SBX_MODE_DANGER_FULL_ACCESS:
                return sbx__fail(err, SBX_E_DANGER_NOT_CONFINABLE, 0,
                                 "%s: cannot confine danger-full-access; the caller must "
                                 "bypass the sandbox (check sbx_exec_policy_is_danger first)", fn);
        case SBX_MODE_NONE:
        default:
                SBX__INVARIANT(0, "invalid sandbox mode %d", (int) policy->mode);
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid mode %d", fn,
                                 (int) policy->mode);
        }
        c = calloc(1, sizeof(*c));
        if (c == NULL ||
            (c->exec = exec_policy_new(policy->mode, policy->workspace_root,
                                       policy->session_id)) == NULL) {
                free(c);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        c->mode = cmode;
        *out = c;
        return SBX_OK;
}

void sbx_confined_policy_free(sbx_confined_policy *policy)
{
        if (policy == NULL)
                return;
        sbx_exec_policy_free(policy->exec);
        free(policy);
}

int32_t sbx_confined_policy_mode(const sbx_confined_policy *policy)
{
        return policy != NULL ? policy->mode : 0;
}

const sbx_exec_policy *sbx_confined_policy_exec(const sbx_confined_policy *policy)
{
        return policy != NULL ? policy->exec : NULL;
}
