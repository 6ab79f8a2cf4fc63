/*
 * confine.c - the seed's Confine(): argv rewriting for hosts that spawn
 * the command themselves.  The result is runner + profile args + "--" +
 * the original argv, with what the backend enforces, its denial
 * signatures and its runner failure rules.
 *
 * Fail closed: no backend, a backend that cannot enforce a *required*
 * guarantee, a command the profile does not allow, or any preparation
 * error is an error; an argv is only returned when everything the profile
 * requires is enforced by the backend that will run it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "exec/executor.h"
#include "policy/runner_start.h"
#include "profile/profile_internal.h"

struct sbx_confined_argv {
        char   **argv;                  /* NULL-terminated */
        size_t   argc;
        int32_t  backend;               /* sbx_backend_id */
        int32_t  enforcement;           /* sbx_enforcement */
        uint32_t achieved;              /* SBX_G_* the backend enforces */
        const char *const *denials;     /* the backend's, static */
        size_t   n_denials;
        sbx_runner_rule *rules;         /* owned: sbx__runner_start_rules */
        size_t   n_rules;
};

/* "read-boundary, network-deny" for the bits of mask. */
void sbx__guarantee_names(uint32_t mask, char *buf, size_t bufsz)
{
        size_t used = 0;
        uint32_t bit;

        buf[0] = '\0';
        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1) {
                int n;

                if (!(mask & bit))
                        continue;
                n = snprintf(buf + used, bufsz - used, "%s%s", used > 0 ? ", " : "",
                             sbx_guarantee_name(bit));
                if (n < 0 || (size_t) n >= bufsz - used)
                        break;
                used += (size_t) n;
        }
}

static sbx_code check_argv(const char *fn, const char *const *argv, sbx_error *err)
{
        if (argv == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv is NULL", fn);
        if (argv[0] == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv is empty", fn);
        if (argv[0][0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv[0] is empty", fn);
        return SBX_OK;
}

static sbx_code confine(const char *fn, const char *const *argv, const sbx_profile *profile,
                        sbx_confined_argv **out, sbx_error *err)
{
        const struct sbx_backend *be = NULL;
        sbx_confined_argv *c = NULL;
        sbx_plan *plan = NULL;
        const sbx_runner_rule *base;
        char names[SBX_ERROR_SIZE];
        uint32_t achieved, missing;
        size_t n;
        sbx_code r;

        r = check_argv(fn, argv, err);
        if (r != SBX_OK)
                return r;
        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (profile->isolation != SBX_ISOLATION_SANDBOXED)
                return sbx__fail(err, SBX_E_DANGER_NOT_CONFINABLE, 0,
                                 "%s: the profile is unconfined; the caller must run it "
                                 "directly, never through a sandbox that is not there", fn);

        r = sbx_plan_compile(profile, &plan, err);
        if (r != SBX_OK)
                return r;
        /* Confine carries no grants: a Gated command stays closed. */
        r = sbx__admit(plan, fn, err);
        if (r != SBX_OK)
                goto out;
        /* Every other sandbox's scratch stays hidden (executor.c). */
        {
                sbx_plan *hidden = NULL;

                r = sbx__scratch_hide(plan, fn, &hidden, err);
                if (r != SBX_OK)
                        goto out;
                if (hidden != NULL) {
                        sbx_plan_free(plan);
                        plan = hidden;
                }
        }

        r = sbx__backend_verified(&be, err);
        if (r != SBX_OK)
                goto out;
        if (be->supports & SBX__ROW_PLACEHOLDER) {
                /* Its confine always fails, with the detection notes. */
                char **unused = NULL;

                r = be->confine(plan, profile, sbx__local_runner(), argv, &unused, err);
                if (r == SBX_OK) {
                        sbx_strv_free(unused);
                        r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                      "no usable sandbox backend");
                }
                goto out;
        }
        /* What the returned argv enforces, which may be less than what
         * the backend's own spawn does (bwrap: no seccomp program). */
        achieved = be->confine_guarantees(plan);
        missing = plan->required & ~achieved;
        if (missing != 0) {
                sbx__guarantee_names(missing, names, sizeof(names));
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                              "%s: the %s backend cannot enforce the required %s; refusing to "
                              "run less confined", fn, be->name, names);
                goto out;
        }

        c = calloc(1, sizeof(*c));
        if (c == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        r = be->confine(plan, profile, sbx__local_runner(), argv, &c->argv, err);
        if (r != SBX_OK)
                goto out;
        for (n = 0; c->argv[n] != NULL; n++)
                ;
        c->argc = n;
        c->backend = be->id;
        c->achieved = achieved;
        /* Every required guarantee is enforced, or we failed above; the
         * expression stays honest should that check ever change. */
        c->enforcement = (achieved & plan->required) == plan->required
                                 ? SBX_ENFORCEMENT_FULL : SBX_ENFORCEMENT_PARTIAL;
        c->denials = be->denial_signatures;
        for (n = 0; c->denials != NULL && c->denials[n] != NULL; n++)
                ;
        c->n_denials = n;
        /* The backend's rules, then the runner's own failure to start
         * (loader, exec), which names its path: argv[0]. */
        base = sbx__backend_runner_rules(be->id, &n);
        c->rules = sbx__runner_start_rules(base, n, c->argv[0], &c->n_rules);
        if (c->rules == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        *out = c;
        c = NULL;
out:
        sbx_confined_argv_free(c);
        sbx_plan_free(plan);
        return r;
}

sbx_code sbx_confine_profile(const char *const *argv, const sbx_profile *profile,
                             sbx_confined_argv **out, sbx_error *err)
{
        return confine("sbx_confine_profile", argv, profile, out, err);
}

sbx_code sbx_confine(const char *const *argv, const sbx_confined_policy *policy,
                     sbx_confined_argv **out, sbx_error *err)
{
        static const char fn[] = "sbx_confine";
        const sbx_exec_policy *ep;
        sbx_profile *profile = NULL;
        char *root = NULL;
        int32_t mode;
        sbx_code r;

        r = check_argv(fn, argv, err);
        if (r != SBX_OK)
                return r;
        if (policy == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        mode = sbx_confined_policy_mode(policy);
        ep = sbx_confined_policy_exec(policy);
        if ((mode != SBX_CONFINED_READ_ONLY && mode != SBX_CONFINED_WORKSPACE_WRITE) ||
            ep == NULL || sbx_exec_policy_workspace_root(ep) == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: policy is not a confined policy", fn);
        /* The policy's root is cleaned lexically; the profile wants the
         * canonical spelling (symlinks resolved), as every backend does. */
        r = sbx_path_canonical(sbx_exec_policy_workspace_root(ep), &root, err);
        if (r != SBX_OK)
                return r;
        r = sbx_profile_from_mode(mode == SBX_CONFINED_READ_ONLY ? SBX_MODE_READ_ONLY
                                                                 : SBX_MODE_WORKSPACE_WRITE,
                                  root, &profile, err);
        sbx_free(root);
        if (r != SBX_OK)
                return r;
        r = confine(fn, argv, profile, out, err);
        sbx_profile_free(profile);
        return r;
}

void sbx_confined_argv_free(sbx_confined_argv *c)
{
        if (c == NULL)
                return;
        sbx_strv_free(c->argv);
        free(c->rules);
        free(c);
}

const char *const *sbx_confined_argv_argv(const sbx_confined_argv *c, size_t *argc_out)
{
        if (argc_out != NULL)
                *argc_out = c != NULL ? c->argc : 0;
        return c != NULL ? (const char *const *) c->argv : NULL;
}

int32_t sbx_confined_argv_backend(const sbx_confined_argv *c)
{
        return c != NULL ? c->backend : SBX_BACKEND_AUTO;
}

int32_t sbx_confined_argv_enforcement(const sbx_confined_argv *c)
{
        return c != NULL ? c->enforcement : SBX_ENFORCEMENT_NONE;
}

uint32_t sbx_confined_argv_guarantees(const sbx_confined_argv *c)
{
        return c != NULL ? c->achieved : 0;
}

const char *const *sbx_confined_argv_denial_signatures(const sbx_confined_argv *c,
                                                       size_t *n_out)
{
        if (n_out != NULL)
                *n_out = c != NULL ? c->n_denials : 0;
        return c != NULL ? c->denials : NULL;
}

const sbx_runner_rule *sbx_confined_argv_runner_rules(const sbx_confined_argv *c, size_t *n_out)
{
        if (n_out != NULL)
                *n_out = c != NULL ? c->n_rules : 0;
        return c != NULL ? c->rules : NULL;
}
