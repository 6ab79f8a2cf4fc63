/*
 * spawn_demo.c - run one command under a workspace-write profile and show
 * what the library enforced: the write inside the workspace lands, the
 * write outside does not, and the report says which guarantees held.
 *
 *     cc spawn_demo.c $(pkg-config --cflags --libs sandbox) -o spawn_demo
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _XOPEN_SOURCE 700   /* mkdtemp, realpath under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox.h>

int main(int argc, char **argv)
{
        char ws_tmpl[] = "/tmp/sbx-spawn-demo-XXXXXX", cmd[1024], inside[300], outside[300];
        const char *argv_cmd[] = { "sh", "-c", cmd, NULL };
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        struct stat st;
        char *ws;
        int status = 0, rc = 1;
        uint32_t bit;

        /* A host that re-executes itself as the runner dispatches here. */
        if (sbx_init(argc, argv) != SBX_OK)
                return 1;
        if (mkdtemp(ws_tmpl) == NULL || (ws = realpath(ws_tmpl, NULL)) == NULL) {
                perror("workspace");
                return 1;
        }
        snprintf(inside, sizeof(inside), "%s/inside.txt", ws);
        snprintf(outside, sizeof(outside), "/var/tmp/sbx-spawn-demo-outside-%ld.txt", (long) getpid());
        snprintf(cmd, sizeof(cmd), "echo in > '%s'; (echo out > '%s') 2>/dev/null; exit 0", inside,
                 outside);

        if (sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, ws, &profile, &e) != SBX_OK ||
            sbx_plan_compile(profile, &plan, &e) != SBX_OK ||
            sbx_spawn(plan, argv_cmd, NULL, &child, &e) != SBX_OK ||
            sbx_child_wait(child, &status, &e) != SBX_OK ||
            sbx_child_report(child, &rep, &e) != SBX_OK) {
                fprintf(stderr, "spawn_demo: %s (%s)\n", e.message, sbx_code_name(e.code));
                goto out;
        }
        printf("command exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        printf("inside the workspace: %s\n", stat(inside, &st) == 0 ? "written" : "MISSING");
        printf("outside (/var/tmp):   %s\n", stat(outside, &st) == 0 ? "WRITTEN (leak!)" : "refused");
        printf("enforcement: %s\nachieved:",
               rep.enforcement == SBX_ENFORCEMENT_FULL ? "full" : "partial");
        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1)
                if (rep.achieved & bit)
                        printf(" %s", sbx_guarantee_name(bit));
        printf("\n");
        rc = stat(inside, &st) == 0 && stat(outside, &st) != 0 ? 0 : 1;
out:
        (void) unlink(inside);
        (void) unlink(outside);
        (void) rmdir(ws);
        free(ws);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        return rc;
}
