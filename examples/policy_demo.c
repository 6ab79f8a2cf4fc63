/*
 * policy_demo.c - how an agent host asks libsandbox what a tool call may
 * touch: resolve the effective policy, handle danger by bypassing, convert
 * to a confined policy, compute the writable roots, and run a justified
 * escalation through an approver.
 *
 * Build against an installed libsandbox:
 *     cc policy_demo.c $(pkg-config --cflags --libs sandbox) -o policy_demo
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sandbox.h>

/* The host's approval channel: here a user who approves one call. */
static int32_t approve_once(const sbx_escalation_request *req, void *userdata)
{
        const char *who = userdata;

        printf("  approver %s asked: %s -> %s for \"%s\" (%s): approved once\n", who,
               sbx_mode_name(req->current_mode), sbx_mode_name(req->target_mode),
               req->command != NULL ? req->command : "?", req->justification);
        return SBX_ESCALATION_APPROVED_ONCE;
}

static int fail(const char *what, const sbx_error *e)
{
        fprintf(stderr, "policy_demo: %s: %s (%s)\n", what, e->message, sbx_code_name(e->code));
        return 1;
}

int main(int argc, char **argv)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_policy_service *svc = NULL;
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_mode_event events[1] = { SBX_MODE_EVENT_INIT };
        sbx_escalation_request esc = SBX_ESCALATION_REQUEST_INIT;
        sbx_exec_policy *policy = NULL;
        sbx_confined_policy *confined = NULL;
        char cwd[4096], marker[128];
        char **roots = NULL;
        size_t n_roots = 0, i;
        int32_t granted = 0;
        int rc = 1;

        (void) argc;
        (void) argv;
        if (getcwd(cwd, sizeof(cwd)) == NULL) {
                perror("getcwd");
                return 1;
        }
        printf("libsandbox %s\n", sbx_version_string());

        /* Deployment default read-only; agentless calls fall back to /srv. */
        if (sbx_policy_service_new(SBX_MODE_READ_ONLY, "/srv", &svc, &e) != SBX_OK)
                return fail("policy service", &e);

        /* The session switched itself to workspace-write earlier. */
        events[0].mode = SBX_MODE_WORKSPACE_WRITE;
        events[0].source = SBX_MODE_SOURCE_USER;
        events[0].timestamp_ms = 1700000000000LL;
        req.session_id = "demo-session";
        req.session_cwd = cwd;
        req.events = events;
        req.n_events = 1;
        if (sbx_policy_service_resolve(svc, &req, &policy, &e) != SBX_OK) {
                fail("resolve", &e);
                goto out;
        }
        printf("resolved: mode=%s workspace=%s session=%s danger=%d\n",
               sbx_mode_name(sbx_exec_policy_mode(policy)), sbx_exec_policy_workspace_root(policy),
               sbx_exec_policy_session_id(policy), sbx_exec_policy_is_danger(policy));

        if (sbx_exec_policy_is_danger(policy)) {
                printf("danger-full-access: the host would bypass the sandbox\n");
        } else if (sbx_exec_policy_to_confined(policy, &confined, &e) != SBX_OK) {
                fail("to_confined", &e);
                goto out;
        } else if (sbx_writable_roots(confined, NULL, 0, &roots, &n_roots, &e) != SBX_OK) {
                fail("writable roots", &e);
                goto out;
        }
        for (i = 0; i < n_roots; i++)
                printf("writable root: %s\n", roots[i]);

        /* A later call runs read-only and the model asks to write. */
        esc.current_mode = SBX_MODE_READ_ONLY;
        esc.target_mode = SBX_MODE_WORKSPACE_WRITE;
        esc.justification = "write the generated build files";
        esc.command = "make";
        if (sbx_escalation_approve(&esc, approve_once, "alice", &granted, &e) != SBX_OK) {
                fail("escalation", &e);
                goto out;
        }
        printf("escalation: this one call runs %s\n", sbx_mode_name(granted));

        /* Without an approver, wider access is never granted. */
        if (sbx_escalation_approve(&esc, NULL, NULL, &granted, &e) == SBX_E_ESCALATION_NO_APPROVER)
                printf("no approver: %s\n", sbx_code_name(e.code));

        if (sbx_denial_marker(SBX_MODE_READ_ONLY, marker, sizeof(marker), &e) != SBX_OK) {
                fail("marker", &e);
                goto out;
        }
        printf("model-facing denial marker: %s\n", marker);
        rc = 0;
out:
        sbx_strv_free(roots);
        sbx_confined_policy_free(confined);
        sbx_exec_policy_free(policy);
        sbx_policy_service_free(svc);
        return rc;
}
