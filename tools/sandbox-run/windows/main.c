/*
 * sandbox-run.exe - the Windows build's CLI (docs/windows.md, "sandbox-run
 * on Windows"): a small subset of tools/sandbox-run, through the facade
 * only.  It runs one command under a mode's profile (or the host-writable
 * profile, the only one the restricted tier can run: it claims env-scrub
 * alone) and exits with the command's status.
 *
 *   sandbox-run.exe [--mode M] [--workspace DIR] [--network deny|allow]
 *                   [--host-write] [--timeout SECONDS] [--explain]
 *                   -- COMMAND [ARG...]
 *
 * Paths may be given as drive paths (C:\x) or in the POSIX spelling the
 * library uses on Windows (/c/x).  Exit status: the command's, or 125 when
 * sandbox-run itself fails (SBX_EXIT_RUNNER_FAILURE).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <sandbox.h>

#define FAIL SBX_EXIT_RUNNER_FAILURE

static const char usage[] =
        "usage: sandbox-run.exe [options] -- COMMAND [ARG...]\n"
        "Run COMMAND under libsandbox's Windows backend (docs/windows.md).\n"
        "\n"
        "  --mode MODE        read-only, workspace-write (default), danger-full-access\n"
        "  --workspace DIR    the workspace root (default: the current directory)\n"
        "  --network N        deny (default) or allow\n"
        "  --host-write       the profile the restricted tier can run: host read and\n"
        "                     write, the real HOME, the network as --network says\n"
        "                     (it claims env-scrub only)\n"
        "  --timeout SECONDS  kill the command's whole job after SECONDS\n"
        "  --explain          print the plan and what the backend claims, run nothing\n"
        "  --version          print the library version\n"
        "  -h, --help         this text\n"
        "\n"
        "Unverified on real Windows: the restricted token, the job object and the\n"
        "ACLs are applied, but only env-scrub is claimed (docs/backends.md).\n";

static int say(const char *what, const sbx_error *e)
{
        fprintf(stderr, "sandbox-run: %s%s%s\n", what, e != NULL ? ": " : "",
                e != NULL ? e->message : "");
        return FAIL;
}

/* "C:\x\y" -> "/c/x/y" (spelling only: the library checks the path). */
static char *posix_spelling(const char *p)
{
        size_t n = strlen(p), i;
        char *s;

        if (p[0] == '/' || n < 2 || p[1] != ':')
                return _strdup(p);
        s = malloc(n + 2);
        if (s == NULL)
                return NULL;
        s[0] = '/';
        s[1] = (char) ((p[0] >= 'A' && p[0] <= 'Z') ? p[0] - 'A' + 'a' : p[0]);
        for (i = 2; i <= n; i++)
                s[i] = p[i] == '\\' ? '/' : p[i];
        if (n == 2 || (n == 3 && s[2] == '/'))
                s[2] = '\0';
        return s;
}

static char *current_dir(void)
{
        wchar_t w[MAX_PATH + 1];
        char u[4 * MAX_PATH + 4];
        DWORD n = GetCurrentDirectoryW(MAX_PATH + 1, w);

        if (n == 0 || n > MAX_PATH ||
            WideCharToMultiByte(CP_UTF8, 0, w, -1, u, sizeof(u), NULL, NULL) <= 0)
                return NULL;
        return posix_spelling(u);
}

static void explain(const sbx_plan *plan)
{
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        uint32_t achieved = 0, bit;
        int32_t enf = SBX_ENFORCEMENT_NONE, backend = SBX_BACKEND_AUTO;
        char *text = NULL;
        sbx_error e;

        memset(&e, 0, sizeof(e));
        if (sbx_plan_describe(plan, &text, &e) == SBX_OK) {
                fputs(text, stdout);
                sbx_free(text);
        }
        (void) sbx_plan_guarantees(plan, &rep, NULL);
        if (sbx_backend_detect(&backend, &e) == SBX_OK)
                (void) sbx_backend_guarantees(backend, plan, &achieved, &enf, NULL);
        printf("backend: %s\nrequired:", sbx_backend_name(backend));
        for (bit = 1; bit & SBX_G_ALL; bit <<= 1)
                if (rep.required & bit)
                        printf(" %s", sbx_guarantee_name(bit));
        printf("\nclaimed:");
        for (bit = 1; bit & SBX_G_ALL; bit <<= 1)
                if (achieved & bit)
                        printf(" %s", sbx_guarantee_name(bit));
        printf("\nenforcement: %s\n", enf == SBX_ENFORCEMENT_FULL ? "full"
                                      : enf == SBX_ENFORCEMENT_PARTIAL ? "partial" : "none");
}

int main(int argc, char **argv)
{
        const char *mode_arg = "workspace-write", *ws_arg = NULL, *net_arg = "deny";
        int host_write = 0, do_explain = 0, i, st = 0;
        double timeout = 0;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        sbx_profile *prof = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        char *ws = NULL, *canon = NULL;
        int32_t mode = 0;
        sbx_error e;
        int rc = FAIL;

        memset(&e, 0, sizeof(e));
        for (i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (strcmp(a, "--") == 0) {
                        i++;
                        break;
                }
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        fputs(usage, stdout);
                        return 0;
                }
                if (strcmp(a, "--version") == 0) {
                        printf("sandbox-run (Windows) %s\n", sbx_version_string());
                        return 0;
                }
                if (strcmp(a, "--explain") == 0) {
                        do_explain = 1;
                } else if (strcmp(a, "--host-write") == 0) {
                        host_write = 1;
                } else if (i + 1 < argc && strcmp(a, "--mode") == 0) {
                        mode_arg = argv[++i];
                } else if (i + 1 < argc && strcmp(a, "--workspace") == 0) {
                        ws_arg = argv[++i];
                } else if (i + 1 < argc && strcmp(a, "--network") == 0) {
                        net_arg = argv[++i];
                } else if (i + 1 < argc && strcmp(a, "--timeout") == 0) {
                        timeout = atof(argv[++i]);
                        if (timeout <= 0)
                                return say("--timeout wants seconds, more than 0", NULL);
                } else {
                        fprintf(stderr, "sandbox-run: unknown option %s (see --help)\n", a);
                        return FAIL;
                }
        }
        if (i >= argc && !do_explain)
                return say("no command given (sandbox-run.exe [options] -- COMMAND)", NULL);
        if (strcmp(net_arg, "deny") != 0 && strcmp(net_arg, "allow") != 0)
                return say("--network wants deny or allow", NULL);
        if (sbx_mode_parse(mode_arg, &mode, &e) != SBX_OK)
                return say("--mode", &e);
        ws = ws_arg != NULL ? posix_spelling(ws_arg) : current_dir();
        if (ws == NULL)
                return say("the workspace directory cannot be named", NULL);
        if (sbx_path_canonical(ws, &canon, &e) != SBX_OK) {
                rc = say("--workspace", &e);
                goto out;
        }
        if (host_write) {
                cfg.workspace_root = canon;
                cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_ALLOW;
                cfg.host_read = cfg.host_write = SBX_ACCESS_ALLOW;
                cfg.network = strcmp(net_arg, "allow") == 0 ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY;
                cfg.command = SBX_ACCESS_ALLOW;
                cfg.home = SBX_HOME_REAL;
                cfg.isolation = SBX_ISOLATION_SANDBOXED;
                cfg.accept_unprotected_git = 1;
                if (sbx_profile_new(&cfg, &prof, &e) != SBX_OK) {
                        rc = say("profile", &e);
                        goto out;
                }
        } else if (sbx_profile_from_mode(mode, canon, &prof, &e) != SBX_OK) {
                rc = say("profile", &e);
                goto out;
        }
        if (sbx_plan_compile(prof, &plan, &e) != SBX_OK) {
                rc = say("plan", &e);
                goto out;
        }
        if (do_explain) {
                explain(plan);
                rc = 0;
                goto out;
        }
        so.timeout_ms = (uint64_t) (timeout * 1000.0);
        if (sbx_spawn(plan, (const char *const *) argv + i, &so, &child, &e) != SBX_OK) {
                rc = say("cannot run the command", &e);
                goto out;
        }
        if (sbx_child_report(child, &rep, NULL) == SBX_OK &&
            rep.enforcement == SBX_ENFORCEMENT_PARTIAL)
                fprintf(stderr, "sandbox-run: enforcement is partial: a layer of the Windows "
                        "backend could not be applied (docs/windows.md)\n");
        if (sbx_child_wait(child, &st, &e) != SBX_OK) {
                rc = say("wait", &e);
                goto out;
        }
        rc = (st >> 8) & 0xff;          /* the Windows backend's wait status */
out:
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(prof);
        sbx_free(canon);
        free(ws);
        return rc;
}
