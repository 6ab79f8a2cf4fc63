/*
 * sandbox_approval.c - presets, a denied tool call and a justified
 * escalation, end to end (the seed's examples/sandbox_approval):
 *
 *   1. resolve the permission preset "safe": its sandbox mode (read-only)
 *      and approval policy (ask-dangerous) are chosen together;
 *   2. a tool call writes a file into the workspace under the preset's
 *      mode: the sandbox refuses it, and the host turns the failure into
 *      the model-facing denial marker plus an escalation hint;
 *   3. the model retries with sandbox_permissions = "workspace-write" and a
 *      justification; the host validates the pair and asks its approval
 *      channel (a C callback here) through sbx_escalation_approve;
 *   4. approved once: this one call runs under the granted mode, and the
 *      host checks on its side that the file now exists.  The session's
 *      mode is not changed by an escalation.
 *
 * The workspace is the current directory; the one file written there is
 * removed again.  Needs no terminal and no network; exits 0 unless the
 * sandbox or the library misbehaves.
 *
 *     cc sandbox_approval.c $(pkg-config --cflags --libs sandbox) -o sandbox_approval
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _XOPEN_SOURCE 700   /* realpath under -std=c99 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox.h>

static int fail(const char *what, const sbx_error *e)
{
        fprintf(stderr, "sandbox_approval: %s: %s (%s)\n", what, e->message,
                sbx_code_name(e->code));
        return 1;
}

/*
 * The host's approval channel, the same one that answers ask-dangerous
 * calls.  A real host shows the request to the user and waits, honouring
 * req->deadline_ms; this one approves once.  Any return other than
 * SBX_ESCALATION_APPROVED_ONCE counts as a denial.
 */
static int32_t approver(const sbx_escalation_request *req, void *userdata)
{
        const char *who = userdata;

        printf("  %s is asked: %s -> %s for `%s`\n  because: %s\n  answer: approve once\n",
               who, sbx_mode_name(req->current_mode), sbx_mode_name(req->target_mode),
               req->command, req->justification);
        return SBX_ESCALATION_APPROVED_ONCE;
}

/*
 * One tool call: run `sh -c cmd` confined by the profile of `mode` for
 * workspace ws, capture its stderr and judge whether the sandbox caused a
 * failure.  On SBX_OK *exit_out is its exit status and *denial_out an
 * sbx_denial_class.
 */
static sbx_code tool_call(int32_t mode, const char *ws, const char *cmd, int *exit_out,
                          int32_t *denial_out, sbx_error *e)
{
        const char *argv[] = { "sh", "-c", cmd, NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        char errbuf[4096];
        size_t len = 0;
        ssize_t n;
        int p[2] = { -1, -1 }, status = 0;
        sbx_code c;

        if (pipe(p) != 0) {
                e->code = SBX_E_IO;
                e->sys_errno = errno;
                snprintf(e->message, sizeof(e->message), "pipe: %s", strerror(e->sys_errno));
                return SBX_E_IO;
        }
        (void) fcntl(p[0], F_SETFD, FD_CLOEXEC);
        (void) fcntl(p[1], F_SETFD, FD_CLOEXEC);
        o.stderr_fd = p[1];                     /* the child's fd 2 */
        o.timeout_ms = 60000;                   /* a hung tool call is killed */
        c = sbx_profile_from_mode(mode, ws, &profile, e);
        if (c == SBX_OK)
                c = sbx_plan_compile(profile, &plan, e);
        if (c == SBX_OK)
                c = sbx_spawn(plan, argv, &o, &child, e);
        (void) close(p[1]);                     /* the child holds its own copy */
        if (c == SBX_OK)
                c = sbx_child_wait(child, &status, e);
        /* Read after the wait: a few lines fit the pipe.  A host running
         * chatty commands reads while it waits (sbx_child_pollfd). */
        while (c == SBX_OK && len < sizeof(errbuf) - 1 &&
               (n = read(p[0], errbuf + len, sizeof(errbuf) - 1 - len)) > 0)
                len += (size_t) n;
        errbuf[len] = '\0';
        if (c == SBX_OK) {
                *exit_out = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                if (len > 0)
                        printf("  stderr: %s", errbuf);
                /* Did the sandbox cause the failure, and what did it deny? */
                c = sbx_plan_denial(plan, SBX_BACKEND_AUTO, NULL, *exit_out, errbuf, len,
                                    denial_out, e);
        }
        (void) close(p[0]);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        return c;
}

int main(int argc, char **argv)
{
        const char *justification = "write the generated report into the workspace";
        sbx_error e = { 0, 0, { 0 } };
        sbx_preset preset = SBX_PRESET_INIT, custom = SBX_PRESET_INIT;
        sbx_escalation_request req = SBX_ESCALATION_REQUEST_INIT;
        char path[SBX_PATH_MAX + 64], cmd[SBX_PATH_MAX + 128], marker[SBX_DENIAL_CLASS_MARKER_MAX];
        char *ws = NULL;
        struct stat st;
        int32_t target = SBX_MODE_NONE, granted = SBX_MODE_NONE, denial = SBX_DENIAL_NONE;
        int status = 0, rc = 1;

        /* A process the library re-executes as its runner dispatches here. */
        if (sbx_init(argc, argv) != SBX_OK)
                return 1;
        if ((ws = realpath(".", NULL)) == NULL) {   /* canonical workspace root */
                perror("sandbox_approval: workspace");
                return 1;
        }
        snprintf(path, sizeof(path), "%s/sandbox_approval-%ld.txt", ws, (long) getpid());
        snprintf(cmd, sizeof(cmd), "echo report > '%s'", path);

        /* 1. The preset: sandbox mode and approval policy together. */
        if (sbx_preset_resolve("safe", &preset, &e) != SBX_OK)
                return fail("preset", &e);
        printf("preset %s: sandbox %s, approval %s\n", sbx_preset_name(preset.id),
               sbx_mode_name(preset.sandbox_mode), sbx_approval_name(preset.approval));
        /* Overriding one half gives a derived state: named only if a preset
         * has that pair, else custom. */
        if (sbx_preset_custom(SBX_PRESET_SAFE, SBX_MODE_WORKSPACE_WRITE, 0, &custom, &e) != SBX_OK) {
                rc = fail("custom preset", &e);
                goto out;
        }
        printf("safe with workspace-write is: %s\n", sbx_preset_name(custom.id));

        /* 2. The tool call under the preset's mode.  The host checks the
         * outcome itself: the file must not exist. */
        printf("tool call under %s: %s\n", sbx_mode_name(preset.sandbox_mode), cmd);
        if (tool_call(preset.sandbox_mode, ws, cmd, &status, &denial, &e) != SBX_OK) {
                rc = fail("tool call", &e);
                goto out;
        }
        if (status == 0 || stat(path, &st) == 0) {
                fprintf(stderr, "sandbox_approval: the write was not refused\n");
                goto out;
        }
        /* The model is told what was denied (the generic marker when the
         * stderr did not show it) and how to ask for more. */
        if ((denial != SBX_DENIAL_NONE ?
             sbx_denial_class_marker(denial, preset.sandbox_mode, marker, sizeof(marker), &e) :
             sbx_denial_marker(preset.sandbox_mode, marker, sizeof(marker), &e)) != SBX_OK) {
                rc = fail("marker", &e);
                goto out;
        }
        printf("  exit %d, denied: %s\n  to the model: %s\n"
               "  hint: retry with sandbox_permissions and a justification\n",
               status, sbx_denial_class_name(denial), marker);

        /* 3. The model's retry.  Target and justification come as a pair;
         * either alone (or a blank justification) is refused. */
        if (sbx_escalation_validate_args("workspace-write", justification, &target, &e) != SBX_OK) {
                rc = fail("escalation arguments", &e);
                goto out;
        }
        req.current_mode = preset.sandbox_mode;
        req.target_mode = target;
        req.justification = justification;
        req.session_id = "demo-session";
        req.command = cmd;
        req.deadline_ms = 0;                    /* no deadline in this demo */
        printf("escalation request:\n");
        if (sbx_escalation_approve(&req, approver, "the user", &granted, &e) != SBX_OK) {
                /* Denied, timed out, cancelled: the call fails with the
                 * marker above.  Here that would be a surprise. */
                rc = fail("escalation", &e);
                goto out;
        }

        /* 4. This one call runs under the granted mode.  (A grant of
         * danger-full-access would bypass the sandbox, never confine.) */
        printf("tool call under %s (approved once):\n", sbx_mode_name(granted));
        if (tool_call(granted, ws, cmd, &status, &denial, &e) != SBX_OK) {
                rc = fail("tool call", &e);
                goto out;
        }
        if (status != 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
                fprintf(stderr, "sandbox_approval: the approved write did not land\n");
                goto out;
        }
        printf("  exit %d; the host sees %s (%lld bytes)\n", status, path, (long long) st.st_size);
        printf("the session stays %s: the next call is confined as before\n",
               sbx_mode_name(preset.sandbox_mode));
        rc = 0;
out:
        (void) unlink(path);
        free(ws);
        return rc;
}
