/*
 * test_denial_marker.c - sandbox-run's model-facing marker tells the
 * truth: it names what the sandbox denied (file write, file read, network
 * access) and is absent for failures the sandbox did not cause (a script
 * without its execute bit in a writable workspace, a refused connection
 * with the network allowed, an ordinary error, a file's own mode bits).
 * Each case runs the built sandbox-run ($SBX_SANDBOX_RUN) under the native
 * and landlock backends where they work, and checks the side effect from
 * the host as well (the victim is unchanged, the listener saw nothing).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "enforcement/spawn_util.h"

struct cli {
        int  status;            /* exit code, 128 + signal */
        char err[16384];
};

/* Run sandbox-run [--backend B] args... in dir with the fixture's
 * environment; stderr kept (bounded). */
static void run_cli(struct fx *f, int32_t backend, const char *dir, const char *const *args,
                    struct cli *r)
{
        const char *cli = getenv("SBX_SANDBOX_RUN");
        const char *argv[40];
        int p[2], st = 0;
        size_t n = 0, i, len = 0;
        long deadline = now_ms() + WAIT_MS;
        pid_t pid;

        assert_non_null(cli);
        argv[n++] = cli;
        argv[n++] = "--backend";
        argv[n++] = sbx_backend_name(backend);
        argv[n++] = "--workspace";
        argv[n++] = f->ws;
        for (i = 0; args[i] != NULL && n < 39; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);

                if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(p[1], 2) < 0 ||
                    chdir(dir) < 0)
                        _exit(120);
                execve(argv[0], (char *const *) argv, (char *const *) f->envp);
                _exit(127);
        }
        close(p[1]);
        memset(r, 0, sizeof(*r));
        for (;;) {
                struct pollfd pf = { p[0], POLLIN, 0 };
                ssize_t k;

                if (now_ms() > deadline) {
                        kill(pid, SIGKILL);
                        fail_msg("sandbox-run did not finish within %d ms", WAIT_MS);
                }
                if (poll(&pf, 1, 1000) <= 0)
                        continue;
                k = read(p[0], r->err + len, sizeof(r->err) - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0 || (len += (size_t) k) == sizeof(r->err) - 1)
                        break;
        }
        r->err[len] = '\0';
        close(p[0]);
        while (waitpid(pid, &st, 0) < 0)
                assert_int_equal(errno, EINTR);
        r->status = ecode(st);
}

/* The marker lines sandbox-run printed ("" for none). */
static const char *marker_of(const struct cli *r)
{
        static char m[128];
        const char *p = strstr(r->err, "[sandbox:");
        size_t n;

        if (p == NULL)
                return "";
        n = strcspn(p, "\n");
        snprintf(m, sizeof(m), "%.*s", (int) n, p);
        if (strstr(p + n, "[sandbox:") != NULL)
                return "(more than one marker)";
        return m;
}

static int usable(struct fx *f, int32_t backend)
{
        if (getenv("SBX_SANDBOX_RUN") == NULL) {
                cannot_test("SBX_SANDBOX_RUN is not set");
                return 0;
        }
        return backend_usable(f, backend);
}

#define EXPECT(f, r, want, what) \
        CHECK((f), strcmp(marker_of(r), (want)) == 0, "%s: marker \"%s\", want \"%s\"; " \
              "status %d, stderr: %s", (what), marker_of(r), (want), (r)->status, (r)->err)

static void test_denial_marker__file_write_and_read(void **state)
{
        struct fx *f = *state;
        size_t b;

        for (b = 0; b < N_BACKENDS; b++) {
                struct cli *r = calloc(1, sizeof(*r));
                char script[PATH_MAX + 64], before[64];

                assert_non_null(r);
                if (!usable(f, BACKENDS[b])) {
                        free(r);
                        continue;
                }
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, NULL);
                fx_populate(f);
                /* A write outside the workspace. */
                snprintf(script, sizeof(script), "echo pwned > '%s'", P(f->outside, "victim"));
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--", "sh", "-c", script, NULL }, r);
                EXPECT(f, r, "[sandbox: file write denied under read-only mode]", "write outside");
                CHECK(f, r->status != 0 && read_file(P(f->outside, "victim"), before,
                                                     sizeof(before)) > 0 &&
                         strcmp(before, ORIGINAL) == 0, "the victim changed: \"%s\"", before);
                /* A new file in a read-only workspace. */
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--", "touch", "new", NULL }, r);
                EXPECT(f, r, "[sandbox: file write denied under read-only mode]", "touch");
                CHECK(f, !exists(P(f->ws, "new")), "touch created the file");
                /* The caller's home is hidden: a read the sandbox refused. */
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--", "cat", P(f->home, "secret"), NULL }, r);
                EXPECT(f, r, "[sandbox: file read denied under read-only mode]", "hidden home");
                CHECK(f, strstr(r->err, "home-secret") == NULL, "the secret was read");
                free(r);
        }
        fx_done(f);
}

static void test_denial_marker__not_for_failures_the_sandbox_allowed(void **state)
{
        struct fx *f = *state;
        size_t b;

        for (b = 0; b < N_BACKENDS; b++) {
                struct cli *r = calloc(1, sizeof(*r));

                assert_non_null(r);
                if (!usable(f, BACKENDS[b])) {
                        free(r);
                        continue;
                }
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, NULL);
                fx_populate(f);
                /* A script without its execute bit, in a writable workspace. */
                assert_int_equal(write_file(P(f->ws, "script.sh"), "#!/bin/sh\necho hi\n", 0644),
                                 0);
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--mode", "workspace-write", "--", "sh", "-c",
                                               "./script.sh", NULL }, r);
                CHECK(f, r->status == 126 && strstr(r->err, "Permission denied") != NULL,
                      "non-executable script: status %d, stderr %s", r->status, r->err);
                EXPECT(f, r, "", "non-executable script");
                /* The same script made executable runs: the sandbox allows it. */
                assert_int_equal(chmod(P(f->ws, "script.sh"), 0755), 0);
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--mode", "workspace-write", "--", "sh", "-c",
                                               "./script.sh", NULL }, r);
                CHECK(f, r->status == 0, "executable script: status %d, %s", r->status, r->err);
                /* An ordinary failure and a missing file. */
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--mode", "workspace-write", "--", "sh", "-c",
                                               "echo 'build: Permission denied? no' >&2; exit 3",
                                               NULL }, r);
                CHECK(f, r->status == 3, "exit 3: status %d", r->status);
                EXPECT(f, r, "", "ordinary failure");
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--", "cat", "/sbx-no-such-file", NULL }, r);
                EXPECT(f, r, "", "missing file");
                /* A file whose own mode bits refuse us (root reads through them). */
                if (geteuid() != 0) {
                        assert_int_equal(write_file(P(f->ws, "locked"), "x\n", 0000), 0);
                        run_cli(f, BACKENDS[b], f->ws,
                                (const char *const[]){ "--mode", "workspace-write", "--", "cat",
                                                       "locked", NULL }, r);
                        CHECK(f, r->status != 0, "cat of a mode-000 file succeeded");
                        EXPECT(f, r, "", "mode bits");
                }
                free(r);
        }
        fx_done(f);
}

/* A loopback listener; its port. */
static int listener(struct fx *f, int *port)
{
        struct sockaddr_in sin;
        socklen_t len = sizeof(sin);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        assert_true(fd >= 0);
        fx_track_fd(f, fd);
        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
        assert_int_equal(listen(fd, 4), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &sin, &len), 0);
        *port = ntohs(sin.sin_port);
        return fd;
}

static void test_denial_marker__network(void **state)
{
        struct fx *f = *state;
        size_t b;

        if (access("/bin/bash", X_OK) != 0) {
                cannot_test("no /bin/bash for /dev/tcp");
                return;
        }
        for (b = 0; b < N_BACKENDS; b++) {
                struct cli *r = calloc(1, sizeof(*r));
                char script[128];
                int fd, port, closed_port, c;

                assert_non_null(r);
                if (!usable(f, BACKENDS[b])) {
                        free(r);
                        continue;
                }
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "network");
                fx_populate(f);
                fd = listener(f, &port);
                snprintf(script, sizeof(script), "exec 3<>/dev/tcp/127.0.0.1/%d", port);
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--", "/bin/bash", "-c", script, NULL }, r);
                EXPECT(f, r, "[sandbox: network access denied under read-only mode]",
                       "connect with the network denied");
                c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                CHECK(f, c < 0, "the host listener got a connection");
                if (c >= 0)
                        close(c);
                /* Allowed network, a port nobody listens on: not the sandbox. */
                {
                        int tmp = listener(f, &closed_port);

                        fx_close_fd(f, tmp);
                }
                snprintf(script, sizeof(script), "exec 3<>/dev/tcp/127.0.0.1/%d", closed_port);
                run_cli(f, BACKENDS[b], f->ws,
                        (const char *const[]){ "--network", "allow", "--", "/bin/bash", "-c",
                                               script, NULL }, r);
                CHECK(f, r->status != 0 && strstr(r->err, "refused") != NULL,
                      "closed port: status %d, %s", r->status, r->err);
                EXPECT(f, r, "", "refused with the network allowed");
                fx_close_fd(f, fd);
                free(r);
        }
        fx_done(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_denial_marker__file_write_and_read,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(
                        test_denial_marker__not_for_failures_the_sandbox_allowed, fx_setup,
                        fx_teardown),
                cmocka_unit_test_setup_teardown(test_denial_marker__network, fx_setup,
                                                fx_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
