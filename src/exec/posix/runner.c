/*
 * runner.c - the stage-2 runner on POSIX systems: sbx_init (exec/init.c)
 * hands it the argv grammar Confine writes for the native and landlock
 * backends; it parses it back in the re-executed runner (sandbox-run),
 * builds the same profile and plan, spawns the command confined and exits
 * with its status.  win32/runner.c: Windows has no stage-2 runner.
 *
 * The runner is the one place the library prints and exits:
 * at that point it *is* the runner process's main(), and the host tells a
 * runner failure from a command failure by exactly that one stderr line
 * and exit status 125 (docs/backends.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile/runner_args.h"
#include "exec/exec.h"

static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig)
{
        pid_t pid = (pid_t) forward_pid;

        if (pid > 0)
                (void) kill(pid, sig);
}

static void runner_say(const char *what, const char *text) SBX__NORETURN;

/* The runner's one stderr line, then exit 125. */
static void runner_die(const char *message) SBX__NORETURN;
static void runner_die(const char *message)
{
        runner_say("cannot start sandbox runner", message);
}

static void runner_exit_line(int status, const char *text) SBX__NORETURN;
static void runner_exit_line(int status, const char *text)
{
        char line[SBX_ERROR_SIZE + 64], shown[SBX_ERROR_SIZE + 32];
        size_t n, off = 0;

        /* One printable line: a newline or escape sequence inside the
         * message (the command's name) is shown escaped. */
        (void) sbx__error_text(text, shown, sizeof(shown));
        (void) snprintf(line, sizeof(line), "sandbox-run: %s\n", shown);
        n = strlen(line);
        while (off < n) {
                ssize_t w = write(STDERR_FILENO, line + off, n - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        break;
                off += (size_t) w;
        }
        exit(status);
}

static void runner_say(const char *what, const char *text)
{
        char line[SBX_ERROR_SIZE + 64];

        (void) snprintf(line, sizeof(line), "%s: %s", what, text);
        runner_exit_line(SBX_EXIT_RUNNER_FAILURE, line);
}

/* The command could not be started at all: 127 (not found) or 126 (found
 * but not executable), like a shell; anything else is a runner failure. */
static void spawn_failed(const sbx_error *e, const char *cmd) SBX__NORETURN;
static void spawn_failed(const sbx_error *e, const char *cmd)
{
        char line[SBX_ERROR_SIZE + 64];

        if (e->code == SBX_E_NOT_FOUND && strstr(e->message, "not found in ") != NULL) {
                (void) snprintf(line, sizeof(line), "%.200s: command not found", cmd);
                runner_exit_line(127, line);
        }
        if (e->code == SBX_E_IO && strstr(e->message, "cannot execute") != NULL &&
            e->sys_errno != 0) {
                (void) snprintf(line, sizeof(line), "%.200s: %s", cmd, sbx__strerror(e->sys_errno));
                runner_exit_line(e->sys_errno == ENOENT ? 127 : 126, line);
        }
        runner_die(e->message);
}

static int cwd_visible(const struct sbx__runner_args *a, const char *cwd)
{
        char *canon = NULL;
        size_t i;
        int ok = 0;

        if (cwd[0] != '/' || sbx_path_canonical(cwd, &canon, NULL) != SBX_OK)
                return 0;
        if (strcmp(canon, cwd) == 0) {
                if (a->cfg.workspace_read == SBX_ACCESS_ALLOW &&
                    sbx_path_is_within(cwd, &a->cfg.workspace_root, 1))
                        ok = 1;
                for (i = 0; i < a->cfg.n_additional_roots; i++)
                        if (a->cfg.additional_roots[i].read == SBX_ACCESS_ALLOW &&
                            sbx_path_is_within(cwd, &a->cfg.additional_roots[i].path, 1))
                                ok = 1;
        }
        sbx_free(canon);
        return ok;
}

sbx_code sbx__runner_main(int argc, char **argv)
{
        struct sbx__runner_args a;
        sbx_spawn_options opts = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        struct sigaction sa;
        char cwd[SBX_PATH_MAX];
        int status = 0;
        static const int fwd[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };
        size_t i;

        /* This process is the stage-2 runner: it never returns. */
        if (sbx__runner_parse(argc, (const char *const *) argv, &a, &e) != SBX_OK)
                runner_die(e.message);
        if (sbx_profile_new(&a.cfg, &profile, &e) != SBX_OK)
                runner_die(e.message);
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                runner_die(e.message);
        if (plan->direct)
                runner_die("the runner never runs a command unconfined");
        if (sbx__admit(plan, "the runner", &e) != SBX_OK)
                runner_die(e.message);

        opts.backend = a.backend;
        opts.memory_max = a.limits.memory_max;
        opts.pids_max = a.limits.pids_max;
        /* The command runs where the runner was started, like a shell, when
         * that is inside the workspace or a readable root (elsewhere may be
         * hidden in the sandbox); otherwise in the workspace root. */
        if (getcwd(cwd, sizeof(cwd)) != NULL && cwd_visible(&a, cwd))
                opts.cwd = cwd;
        if (sbx_spawn(plan, (const char *const *) a.command, &opts, &child, &e) != SBX_OK)
                spawn_failed(&e, a.command[0]);

        /* Pass the usual termination signals on to the confined command
         * (it runs in its own session, so a terminal's ^C reaches only us). */
        forward_pid = (sig_atomic_t) sbx_child_pid(child);
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = forward_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        for (i = 0; i < SBX__ARRAY_SIZE(fwd); i++)
                (void) sigaction(fwd[i], &sa, NULL);

        if (sbx_child_wait(child, &status, &e) != SBX_OK)
                runner_die(e.message);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        sbx__runner_args_free(&a);
        if (WIFEXITED(status))
                exit(WEXITSTATUS(status));
        if (WIFSIGNALED(status))
                exit(128 + WTERMSIG(status));
        exit(SBX_EXIT_RUNNER_FAILURE);
}

