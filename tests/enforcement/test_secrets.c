/*
 * test_secrets.c - a forced workspace that is a home directory keeps the
 * home's well-known secrets hidden (docs/secrets.md), checked from the
 * outside with the built sandbox-run on the native, landlock and bwrap
 * backends (each one this host can run; none at all is a skip, or a
 * failure with SBX_REQUIRE_ALL=1).
 *
 * The fake home H (HOME for sandbox-run) is below a canonical mkdtemp
 * directory under /var/tmp (/tmp is hidden in the sandbox): H/.ssh/id_rsa,
 * H/.aws/credentials and H/notes.txt.  With --force-workspace
 * --mode workspace-write --workspace H the command must not read the two
 * secrets (nothing of them in its output, its reads fail) nor overwrite
 * them (the host's files are unchanged), while notes.txt is readable and
 * writable (the host sees the append).  Without --force-workspace the
 * command never runs.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit/sbx_test.h"

#define RUN_TIMEOUT_MS 60000
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define KEY "KEY-e1b0c44298fc1c149afb"
#define AWS "AWS-4fc1c149afbf4c8996fb"

static char sandbox_run[PATH_MAX];
static char base[64], home[128], plain[128];    /* plain: a workspace without a home */
static const char *usable[3];
static int needs_allow[3];      /* bwrap without network-deny here */
static size_t n_usable;

struct result {
        int   status;
        char  out[65536];
        char  err[65536];
};

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run sandbox-run with args (NULL-terminated) and HOME=home. */
static void run(const char *const *args, struct result *r)
{
        const char *argv[32];
        int op[2], ep[2], status = 0;
        size_t n = 0, lens[2] = { 0, 0 }, i;
        long deadline;
        pid_t pid;

        argv[n++] = sandbox_run;
        for (i = 0; args[i] != NULL && n + 1 < N_OF(argv); i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        memset(r, 0, sizeof(*r));
        assert_int_equal(pipe2(op, O_CLOEXEC), 0);
        assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(op[1], 1);
                dup2(ep[1], 2);
                (void) setenv("HOME", home, 1);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        close(op[1]);
        close(ep[1]);
        deadline = now_ms() + RUN_TIMEOUT_MS;
        while (op[0] >= 0 || ep[0] >= 0) {
                struct pollfd pf[2] = { { op[0], POLLIN, 0 }, { ep[0], POLLIN, 0 } };

                if (poll(pf, 2, 1000) < 0 && errno != EINTR)
                        fail_msg("poll: %s", strerror(errno));
                if (now_ms() > deadline) {
                        kill(pid, SIGKILL);
                        fail_msg("sandbox-run did not finish within %d ms", RUN_TIMEOUT_MS);
                }
                for (i = 0; i < 2; i++) {
                        int *fd = i == 0 ? &op[0] : &ep[0];
                        char *buf = i == 0 ? r->out : r->err;
                        ssize_t k;

                        if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                continue;
                        k = read(*fd, buf + lens[i], sizeof(r->out) - 1 - lens[i]);
                        if (k > 0) {
                                lens[i] += (size_t) k;
                        } else if (k == 0 || errno != EINTR) {
                                close(*fd);
                                *fd = -1;
                        }
                }
        }
        while (waitpid(pid, &status, 0) < 0)
                assert_int_equal(errno, EINTR);
        r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int write_file(const char *path, const char *text, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -1;
}

static void read_file(const char *path, char *buf, size_t sz)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        assert_true(fd >= 0);
        n = read(fd, buf, sz - 1);
        close(fd);
        assert_true(n >= 0);
        buf[n] = '\0';
}

static const char *in_home(const char *suffix)
{
        static char bufs[8][256];
        static unsigned next;
        char *b = bufs[next++ % 8];

        (void) snprintf(b, sizeof(bufs[0]), "%s%s", home, suffix);
        return b;
}

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* 1 usable, 0 refused here (125 with sandbox-run's own line), -1 broken. */
static int backend_usable(const char *b, int allow)
{
        const char *const args[] = { "--backend", b, "--network", allow ? "allow" : "deny",
                                     "--mode", "workspace-write", "--workspace", plain,
                                     "--explain", "--", "true", NULL };
        struct result *r = malloc(sizeof(*r));
        int ok;

        assert_non_null(r);
        run(args, r);
        if (r->status == 0)
                ok = 1;
        else if (r->status == SBX_EXIT_RUNNER_FAILURE && strstr(r->err, "sandbox-run: ") != NULL)
                ok = 0;
        else
                ok = -1;
        if (ok != 1)
                fprintf(stderr, "# backend %s%s %s (status %d): %s", b,
                        allow ? " (network allowed)" : "",
                        ok == 0 ? "not usable here" : "BROKE sandbox-run", r->status, r->err);
        free(r);
        return ok;
}

static int setup(void **state)
{
        static const char *const all[] = { "native", "landlock", "bwrap" };
        const char *env = getenv("SBX_SANDBOX_RUN");
        char *canon = NULL;
        size_t i;

        (void) state;
        if (env == NULL || env[0] != '/') {
                fprintf(stderr, "SBX_SANDBOX_RUN is not set to the built sandbox-run\n");
                return -1;
        }
        (void) snprintf(sandbox_run, sizeof(sandbox_run), "%s", env);
        strcpy(base, "/var/tmp/sbx-secrets-XXXXXX");
        if (mkdtemp(base) == NULL)
                return -1;
        if (sbx_path_canonical(base, &canon, NULL) != SBX_OK || strlen(canon) >= sizeof(base))
                return -1;
        strcpy(base, canon);
        sbx_free(canon);
        (void) chmod(base, 0755);
        (void) snprintf(home, sizeof(home), "%s/home", base);
        (void) snprintf(plain, sizeof(plain), "%s/plain", base);
        if (mkdir(home, 0755) != 0 || mkdir(plain, 0755) != 0 || mkdir(in_home("/.ssh"), 0700) != 0 ||
            mkdir(in_home("/.aws"), 0700) != 0 ||
            write_file(in_home("/.ssh/id_rsa"), KEY "\n", 0600) != 0 ||
            write_file(in_home("/.aws/credentials"), AWS "\n", 0600) != 0 ||
            write_file(in_home("/notes.txt"), "notes\n", 0644) != 0)
                return -1;
        for (i = 0; i < N_OF(all); i++) {
                int u = backend_usable(all[i], 0), allow = 0;

                if (u == 0 && strcmp(all[i], "bwrap") == 0) {
                        u = backend_usable(all[i], 1);  /* only network-deny missing? */
                        allow = 1;
                }
                if (u < 0)
                        return -1;
                if (u == 1) {
                        needs_allow[n_usable] = allow;
                        usable[n_usable++] = all[i];
                        fprintf(stderr, "# backend %s: tested\n", all[i]);
                }
        }
        return 0;
}

static int teardown(void **state)
{
        char cmd[160];

        (void) state;
        if (base[0] == '\0')
                return 0;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

static void need_backend(void)
{
        if (n_usable > 0)
                return;
        if (require_all())
                fail_msg("no sandbox backend is usable on this host (SBX_REQUIRE_ALL=1)");
        skip();
}

/* ------------------------------------------------------------- tests */

static void test_secrets__forced_home_workspace_hides_secrets(void **state)
{
        char script[1024], marker[64], buf[4096];
        struct result *r = malloc(sizeof(*r));
        size_t i;
        (void) state;

        assert_non_null(r);
        need_backend();
        for (i = 0; i < n_usable; i++) {
                const char *b = usable[i];
                const char *const args[] = {
                        "--backend", b, "--network", needs_allow[i] ? "allow" : "deny",
                        "--force-workspace", "--mode", "workspace-write", "--workspace", home,
                        "--", "sh", "-c", script, NULL
                };

                (void) snprintf(marker, sizeof(marker), "written-by-%s", b);
                /* Each secret: a read and an overwrite, reported by name;
                 * then the normal file, read and appended to. */
                (void) snprintf(script, sizeof(script),
                                "cat '%s' && echo READ-SSH; cat '%s' && echo READ-AWS; "
                                "echo pwned > '%s' && echo WROTE-SSH; "
                                "echo pwned > '%s' && echo WROTE-AWS; "
                                "cat '%s' && echo %s >> '%s' && echo NOTES-OK",
                                in_home("/.ssh/id_rsa"), in_home("/.aws/credentials"),
                                in_home("/.ssh/id_rsa"), in_home("/.aws/credentials"),
                                in_home("/notes.txt"), marker, in_home("/notes.txt"));
                run(args, r);
                if (r->status != 0 || strstr(r->out, "NOTES-OK") == NULL)
                        fail_msg("[%s] status %d, out %s, err %s", b, r->status, r->out, r->err);
                if (strstr(r->out, KEY) != NULL || strstr(r->out, AWS) != NULL ||
                    strstr(r->err, KEY) != NULL || strstr(r->err, AWS) != NULL ||
                    strstr(r->out, "READ-") != NULL || strstr(r->out, "WROTE-") != NULL)
                        fail_msg("[%s] a secret was reachable: out %s, err %s", b, r->out,
                                 r->err);
                assert_non_null(strstr(r->out, "notes\n"));
                /* host side: the secrets are untouched, the append landed */
                read_file(in_home("/.ssh/id_rsa"), buf, sizeof(buf));
                assert_string_equal(buf, KEY "\n");
                read_file(in_home("/.aws/credentials"), buf, sizeof(buf));
                assert_string_equal(buf, AWS "\n");
                read_file(in_home("/notes.txt"), buf, sizeof(buf));
                if (strstr(buf, marker) == NULL)
                        fail_msg("[%s] the append to notes.txt did not reach the host: %s", b,
                                 buf);
        }
        free(r);
}

/* --explain lists the hidden secrets; without --force-workspace nothing
 * runs at all. */
static void test_secrets__explain_lists_them_and_unforced_is_refused(void **state)
{
        char script[512], line[256];
        struct result *r = malloc(sizeof(*r));
        const char *const explain[] = { "--force-workspace", "--mode", "workspace-write",
                                        "--network", "allow", "--workspace", home,
                                        "--explain", NULL };
        const char *const json[] = { "--force-workspace", "--mode", "read-only",
                                     "--network", "allow", "--workspace", home, "--explain",
                                     "--json", NULL };
        const char *const unforced[] = { "--mode", "read-only", "--workspace", home, "--",
                                         "sh", "-c", script, NULL };
        (void) state;

        assert_non_null(r);
        need_backend();
        run(explain, r);
        if (r->status != 0)
                fail_msg("--explain: status %d, err %s", r->status, r->err);
        assert_non_null(strstr(r->out, "force-workspace: yes\n"));
        (void) snprintf(line, sizeof(line), "  fs %s tree --- secret\n", in_home("/.ssh"));
        assert_non_null(strstr(r->out, line));
        (void) snprintf(line, sizeof(line), "  fs %s tree --- secret\n", in_home("/.aws"));
        assert_non_null(strstr(r->out, line));
        run(json, r);
        assert_int_equal(r->status, 0);
        assert_non_null(strstr(r->out, "\"force_workspace\":true"));
        assert_non_null(strstr(r->out, "\"accept_unprotected_git\":false"));
        assert_non_null(strstr(r->out, "\"unix_sockets\":[]"));
        (void) snprintf(line, sizeof(line), "\"fs %s tree --- secret\"", in_home("/.ssh"));
        assert_non_null(strstr(r->out, line));

        (void) snprintf(script, sizeof(script), "echo ran > '%s'", in_home("/ran"));
        run(unforced, r);
        if (r->status != SBX_EXIT_RUNNER_FAILURE || strstr(r->err, "--force-workspace") == NULL)
                fail_msg("unforced: status %d, err %s", r->status, r->err);
        assert_int_equal(access(in_home("/ran"), F_OK), -1);
        free(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_secrets__forced_home_workspace_hides_secrets),
                cmocka_unit_test(test_secrets__explain_lists_them_and_unforced_is_refused),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
