/*
 * test_cli.c - the sandbox-run CLI, checked from the outside: the built
 * binary really runs commands and the test looks at exit statuses, stderr
 * and the file system / a TCP listener afterwards.
 *
 * The binary is $SBX_SANDBOX_RUN, else ../sandbox-run next to this test's
 * directory (/proc/self/exe).  Every case runs under the detected backend
 * and again with --backend bwrap when bwrap is usable and not the detected
 * one.  No usable backend at all is a skip, or a failure with
 * SBX_REQUIRE_ALL=1.
 *
 * The network probe run inside the sandbox is $SBX_PROBE ("sbx-probe tcp
 * 127.0.0.1 PORT": exit 0 or the errno); without it this binary doubles as
 * the probe ("test_cli --connect 127.0.0.1 PORT": exit 0 or 1).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "unit/sbx_test.h"

#define RUN_TIMEOUT_MS 60000

static char sandbox_run[PATH_MAX];
static char self_exe[PATH_MAX];
static char probe[PATH_MAX];     /* $SBX_PROBE (unsanitized), else this binary */
static char probe_dir[PATH_MAX]; /* made readable in the sandbox (may be below /tmp) */
static char base[64];           /* canonical temp dir (not below /tmp or $HOME) */
static char ws[128], outside[128];
static const char *backends[2];  /* NULL = the detected one, "bwrap" */
static size_t n_backends;

struct result {
        int   status;           /* exit status (128 + signal) */
        char *out, *err;
        size_t out_len, err_len;
};

static void result_free(struct result *r)
{
        free(r->out);
        free(r->err);
        memset(r, 0, sizeof(*r));
}

static void append(char **buf, size_t *len, const char *p, size_t n)
{
        char *nb = realloc(*buf, *len + n + 1);

        if (nb == NULL)
                abort();
        memcpy(nb + *len, p, n);
        *len += n;
        nb[*len] = '\0';
        *buf = nb;
}

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run sandbox-run with args (NULL-terminated) and "NAME=value" env
 * additions; capture stdout and stderr. */
static void run_exec(const char *const *argv, const char *const *env_add, struct result *r)
{
        int op[2], ep[2], status = 0;
        size_t i;
        long deadline;
        pid_t pid;

        memset(r, 0, sizeof(*r));
        assert_int_equal(pipe2(op, O_CLOEXEC), 0);
        assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(op[1], 1);
                dup2(ep[1], 2);
                for (i = 0; env_add != NULL && env_add[i] != NULL; i++)
                        putenv((char *) env_add[i]);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        close(op[1]);
        close(ep[1]);
        append(&r->out, &r->out_len, "", 0);
        append(&r->err, &r->err_len, "", 0);
        deadline = now_ms() + RUN_TIMEOUT_MS;
        while (op[0] >= 0 || ep[0] >= 0) {
                struct pollfd pf[2] = { { op[0], POLLIN, 0 }, { ep[0], POLLIN, 0 } };
                char buf[4096];
                ssize_t k;
                int pr;

                pr = poll(pf, 2, 1000);
                if (now_ms() > deadline) {
                        kill(pid, SIGKILL);
                        fail_msg("sandbox-run did not finish within %d ms", RUN_TIMEOUT_MS);
                }
                if (pr <= 0)
                        continue;
                for (i = 0; i < 2; i++) {
                        int *fd = i == 0 ? &op[0] : &ep[0];

                        if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                continue;
                        k = read(*fd, buf, sizeof(buf));
                        if (k > 0) {
                                if (i == 0)
                                        append(&r->out, &r->out_len, buf, (size_t) k);
                                else
                                        append(&r->err, &r->err_len, buf, (size_t) k);
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

static void run_cli(const char *const *args, const char *const *env_add, struct result *r)
{
        const char *argv[64];
        size_t n = 0, i;

        argv[n++] = sandbox_run;
        for (i = 0; args[i] != NULL; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        run_exec(argv, env_add, r);
}

/* args with "--backend B" inserted first when b is not NULL. */
/* Set when bwrap's Confine, which --explain uses, cannot promise
 * network-deny on this host (its argv carries no seccomp program, and the
 * host has a vsock transport): its runs then add --network allow, except
 * where a test names the network itself. */
static int bwrap_needs_allow;

static int names_network(const char *const *args)
{
        size_t i;

        for (i = 0; args[i] != NULL && strcmp(args[i], "--") != 0; i++)
                if (strcmp(args[i], "--network") == 0)
                        return 1;
        return 0;
}

static const char *const *with_backend(const char *b, const char *const *args, const char **buf)
{
        size_t n = 0, i;

        if (b != NULL) {
                buf[n++] = "--backend";
                buf[n++] = b;
                if (strcmp(b, "bwrap") == 0 && bwrap_needs_allow && !names_network(args)) {
                        buf[n++] = "--network";
                        buf[n++] = "allow";
                }
                /* bwrap has no supervisor to refuse a new .git: it runs
                 * workspace-write only when that is accepted (docs/git.md). */
                if (strcmp(b, "bwrap") == 0)
                        buf[n++] = "--accept-unprotected-git";
        }
        for (i = 0; args[i] != NULL; i++)
                buf[n++] = args[i];
        buf[n] = NULL;
        return buf;
}

static void run_b(const char *b, const char *const *args, const char *const *env,
                  struct result *r)
{
        const char *buf[64];

        run_cli(with_backend(b, args, buf), env, r);
}

static const char *bname(const char *b)
{
        return b != NULL ? b : "detected";
}

static int path_exists(const char *p)
{
        struct stat st;

        return lstat(p, &st) == 0;
}

static size_t count_lines(const char *s)
{
        size_t n = 0;

        for (; *s != '\0'; s++)
                n += *s == '\n';
        return n;
}

/* ----------------------------------------------------------- fixtures */

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* 1 usable, 0 not available here (sandbox-run said so: 125 + its line),
 * -1 anything else (a crash must never pass for "no backend"). */
static int backend_usable(const char *b)
{
        const char *const args[] = { "--workspace", ws, "--explain", "--", "true", NULL };
        struct result r;
        int ok;

        run_b(b, args, NULL, &r);
        if (r.status == 0)
                ok = 1;
        else if (r.status == SBX_EXIT_RUNNER_FAILURE && strstr(r.err, "sandbox-run: ") != NULL)
                ok = 0;
        else
                ok = -1;
        if (ok != 1)
                fprintf(stderr, "# backend %s %s (status %d): %s", bname(b),
                        ok == 0 ? "not usable here" : "BROKE sandbox-run", r.status, r.err);
        result_free(&r);
        return ok;
}

static int setup(void **state)
{
        const char *env = getenv("SBX_SANDBOX_RUN");
        char *canon = NULL, *slash;
        ssize_t n;

        (void) state;
        n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
        if (n <= 0)
                return -1;
        self_exe[n] = '\0';
        if (getenv("SBX_PROBE") != NULL && getenv("SBX_PROBE")[0] == '/')
                (void) snprintf(probe, sizeof(probe), "%s", getenv("SBX_PROBE"));
        else
                memcpy(probe, self_exe, (size_t) n + 1);
        memcpy(probe_dir, probe, sizeof(probe));
        *strrchr(probe_dir, '/') = '\0';
        if (env != NULL && env[0] != '\0') {
                (void) snprintf(sandbox_run, sizeof(sandbox_run), "%s", env);
        } else {
                char dir[PATH_MAX];

                memcpy(dir, self_exe, (size_t) n + 1);
                slash = strrchr(dir, '/');
                *slash = '\0';
                if ((size_t) snprintf(sandbox_run, sizeof(sandbox_run), "%.4000s/../sandbox-run",
                                      dir) >= sizeof(sandbox_run))
                        return -1;
        }
        if (access(sandbox_run, X_OK) != 0) {
                fprintf(stderr, "sandbox-run not found at %s (set SBX_SANDBOX_RUN)\n",
                        sandbox_run);
                return -1;
        }
        strcpy(base, "/var/tmp/sbx-cli-XXXXXX");
        if (mkdtemp(base) == NULL)
                return -1;
        if (sbx_path_canonical(base, &canon, NULL) != SBX_OK || strlen(canon) >= sizeof(base))
                return -1;
        strcpy(base, canon);
        sbx_free(canon);
        /* Others must reach the files when the tests run as root. */
        (void) chmod(base, 0755);
        (void) snprintf(ws, sizeof(ws), "%s/ws", base);
        (void) snprintf(outside, sizeof(outside), "%s/outside", base);
        if (mkdir(ws, 0755) < 0 || mkdir(outside, 0755) < 0)
                return -1;
        /* No user policy file of whoever runs the tests applies: this one
         * names a directory that does not exist. */
        {
                char xdg[128];

                (void) snprintf(xdg, sizeof(xdg), "%s/no-config", base);
                if (setenv("XDG_CONFIG_HOME", xdg, 1) != 0)
                        return -1;
        }

        n_backends = 0;
        switch (backend_usable(NULL)) {
        case 1:
                backends[n_backends++] = NULL;
                break;
        case 0:
                break;
        default:
                return -1;
        }
        n = backend_usable("bwrap");
        if (n == 0) {
                /* Refused: is it only the network-deny guarantee? */
                bwrap_needs_allow = 1;
                n = backend_usable("bwrap");
                if (n != 1)
                        bwrap_needs_allow = 0;
        }
        if (n < 0)
                return -1;
        if (n == 1) {
                /* Skip a duplicate run when bwrap is what detection picks. */
                const char *const args[] = { "--workspace", ws, "--explain", "--", "true",
                                             NULL };
                struct result r;

                run_cli(args, NULL, &r);
                if (strstr(r.out, "backend: bwrap") == NULL || n_backends == 0)
                        backends[n_backends++] = "bwrap";
                result_free(&r);
        }
        return 0;
}

static int teardown(void **state)
{
        char cmd[160];

        (void) state;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

/* Skip (or fail with SBX_REQUIRE_ALL=1) when no backend works here. */
static void need_backend(void)
{
        if (n_backends > 0)
                return;
        if (require_all())
                fail_msg("no sandbox backend is usable on this host (SBX_REQUIRE_ALL=1)");
        skip();
}

/* The --json result object: the last line of stderr (parsed; put it). */
static json_object *result_object(const struct result *r)
{
        const char *line = r->err, *p;
        json_object *j, *v;

        for (p = r->err; (p = strstr(p, "\n{\"schema\":")) != NULL; p++)
                line = p + 1;
        j = json_tokener_parse(line);
        if (j == NULL)
                fail_msg("no JSON result object on stderr: %s", r->err);
        assert_true(json_object_object_get_ex(j, "schema", &v));
        assert_string_equal(json_object_get_string(v), "sandbox-run/result");
        assert_true(json_object_object_get_ex(j, "version", &v));
        assert_int_equal(json_object_get_int(v), 1);
        return j;
}

/* 1 if the result's events hold (op, target[, source]). */
static int has_event(json_object *j, const char *op, const char *target, const char *source)
{
        json_object *a, *e, *v;
        size_t i;

        if (!json_object_object_get_ex(j, "events", &a))
                return 0;
        for (i = 0; i < json_object_array_length(a); i++) {
                e = json_object_array_get_idx(a, i);
                if (json_object_object_get_ex(e, "op", &v) &&
                    strcmp(json_object_get_string(v), op) == 0 &&
                    json_object_object_get_ex(e, "target", &v) &&
                    strcmp(json_object_get_string(v), target) == 0 &&
                    (source == NULL || (json_object_object_get_ex(e, "source", &v) &&
                                        strcmp(json_object_get_string(v), source) == 0)))
                        return 1;
        }
        return 0;
}

/* ------------------------------------------------------------- tests */

static void test_cli__explain_names_backend_and_guarantees(void **state)
{
        const char *const args[] = { "--workspace", ws, "--explain", "--", "true", NULL };
        const char *const jargs[] = { "--workspace", ws, "--explain", "--json", "--", "true",
                                      NULL };
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                struct result r;
                json_object *j, *v;

                run_b(backends[i], args, NULL, &r);
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, "mode: read-only\n"));
                assert_non_null(strstr(r.out, backends[i] != NULL && bwrap_needs_allow
                                                      ? "network: allow\n" : "network: deny\n"));
                if (backends[i] != NULL)
                        assert_non_null(strstr(r.out, "backend: bwrap\n"));
                else
                        assert_non_null(strstr(r.out, "backend: "));
                assert_non_null(strstr(r.out, "enforcement: full\n"));
                assert_non_null(strstr(r.out, "required: read-boundary write-boundary"));
                assert_non_null(strstr(r.out, "achieved: "));
                assert_non_null(strstr(r.out, "write-boundary"));
                assert_non_null(strstr(r.out, "plan:\n  plan v1\n"));
                assert_string_equal(r.err, "");
                result_free(&r);

                /* The same, machine-readable. */
                run_b(backends[i], jargs, NULL, &r);
                assert_int_equal(r.status, 0);
                j = json_tokener_parse(r.out);
                if (j == NULL)
                        fail_msg("not JSON: %s", r.out);
                assert_true(json_object_object_get_ex(j, "backend", &v));
                assert_true(json_object_is_type(v, json_type_string));
                assert_true(json_object_object_get_ex(j, "enforcement", &v));
                assert_string_equal(json_object_get_string(v), "full");
                assert_true(json_object_object_get_ex(j, "achieved", &v));
                assert_true(json_object_is_type(v, json_type_array));
                assert_true(json_object_array_length(v) >= 5);
                assert_true(json_object_object_get_ex(j, "plan", &v));
                assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)),
                                    "plan v1");
                json_object_put(j);
                result_free(&r);
        }
}

static void test_cli__write_outside_workspace_fails(void **state)
{
        char script[256], target[192];
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                const char *const args[] = { "--mode", "workspace-write", "--workspace", ws,
                                             "--", "sh", "-c", script, NULL };
                struct result r;

                (void) snprintf(target, sizeof(target), "%s/escape-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo pwned > '%s'", target);
                run_b(backends[i], args, NULL, &r);
                if (r.status == 0 || path_exists(target))
                        fail_msg("[%s] write outside the workspace: status %d, file %s",
                                 bname(backends[i]), r.status,
                                 path_exists(target) ? "EXISTS" : "absent");
                /* The sandbox said no, and the marker says so. */
                assert_non_null(strstr(r.err,
                                       "[sandbox: file write denied under workspace-write mode]"));
                result_free(&r);
        }
}

static void test_cli__write_inside_needs_workspace_write(void **state)
{
        char script[256], target[192], buf[16];
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                const char *const ro[] = { "--workspace", ws, "--", "sh", "-c", script, NULL };
                const char *const rw[] = { "--mode", "workspace-write", "--workspace", ws, "--",
                                           "sh", "-c", script, NULL };
                struct result r;
                FILE *f;

                (void) snprintf(target, sizeof(target), "%s/inside-%zu", ws, i);
                (void) snprintf(script, sizeof(script), "echo hello > '%s'", target);
                run_b(backends[i], ro, NULL, &r);
                if (r.status == 0 || path_exists(target))
                        fail_msg("[%s] read-only mode wrote the workspace: status %d",
                                 bname(backends[i]), r.status);
                assert_non_null(strstr(r.err,
                                       "[sandbox: file write denied under read-only mode]"));
                result_free(&r);

                run_b(backends[i], rw, NULL, &r);
                if (r.status != 0)
                        fail_msg("[%s] workspace-write failed: %d %s", bname(backends[i]),
                                 r.status, r.err);
                assert_null(strstr(r.err, "[sandbox:"));
                f = fopen(target, "re");
                assert_non_null(f);
                assert_non_null(fgets(buf, sizeof(buf), f));
                fclose(f);
                assert_string_equal(buf, "hello\n");
                result_free(&r);
        }
}

static void test_cli__allow_write_adds_a_root(void **state)
{
        char script[256], target[192];
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                const char *const args[] = { "--workspace", ws, "--allow-write", outside, "--",
                                             "sh", "-c", script, NULL };
                struct result r;

                (void) snprintf(target, sizeof(target), "%s/granted-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo ok > '%s'", target);
                run_b(backends[i], args, NULL, &r);
                if (r.status != 0 || !path_exists(target))
                        fail_msg("[%s] --allow-write: status %d %s", bname(backends[i]),
                                 r.status, r.err);
                result_free(&r);
        }
}

static void test_cli__exit_status_propagates(void **state)
{
        const char *const seven[] = { "--workspace", ws, "--", "sh", "-c", "exit 7", NULL };
        const char *const missing[] = { "--workspace", ws, "--", "no-such-command-sbx", NULL };
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                struct result r;

                run_b(backends[i], seven, NULL, &r);
                assert_int_equal(r.status, 7);
                assert_string_equal(r.err, "");
                result_free(&r);
                run_b(backends[i], missing, NULL, &r);
                assert_int_equal(r.status, 127);
                assert_non_null(strstr(r.err, "no-such-command-sbx"));
                result_free(&r);
        }
}

/* 1 while a process of this machine holds path open (the host sees every
 * pid namespace's processes in its /proc; another user's are unreadable
 * and cannot be the command's). */
static int held_open(const char *path)
{
        char fds[300], link[PATH_MAX], *end;
        DIR *proc = opendir("/proc"), *d;
        struct dirent *p, *q;
        int held = 0;

        assert_non_null(proc);
        while (!held && (p = readdir(proc)) != NULL) {
                (void) strtol(p->d_name, &end, 10);
                if (*end != '\0' || p->d_name[0] == '\0')
                        continue;
                (void) snprintf(fds, sizeof(fds), "/proc/%s/fd", p->d_name);
                d = opendir(fds);
                if (d == NULL)
                        continue;
                while (!held && (q = readdir(d)) != NULL) {
                        char fd[600];
                        ssize_t n;

                        (void) snprintf(fd, sizeof(fd), "%s/%s", fds, q->d_name);
                        n = readlink(fd, link, sizeof(link) - 1);
                        if (n > 0) {
                                link[n] = '\0';
                                held = strcmp(link, path) == 0;
                        }
                }
                closedir(d);
        }
        closedir(proc);
        return held;
}

/* --timeout kills the whole tree and exits 124, as timeout(1): a
 * background child that holds a file of the workspace open lets go of it
 * (checked from the host, in every pid namespace, until it has or
 * RUN_TIMEOUT_MS passed: a survivor holds it for 30 s). */
static void test_cli__timeout_kills_the_tree(void **state)
{
        char held[256], canon[PATH_MAX], script[512];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(held, sizeof(held), "%s/held", ws);
        (void) snprintf(script, sizeof(script),
                        "sh -c 'exec 3> \"$1\"; exec sleep 30' sh '%s' & sleep 30", held);
        for (i = 0; i < n_backends; i++) {
                const char *const args[] = { "--workspace", ws, "--mode", "workspace-write",
                                             "--timeout", "0.5", "--", "sh", "-c", script, NULL };
                struct result r;
                long deadline;

                (void) unlink(held);
                run_b(backends[i], args, NULL, &r);
                if (r.status != 124)
                        fail_msg("[%s] --timeout: status %d (want 124): %s", bname(backends[i]),
                                 r.status, r.err);
                result_free(&r);
                if (access(held, F_OK) != 0)
                        fail_msg("[%s] the background child never ran (no %s)",
                                 bname(backends[i]), held);
                /* /proc/<pid>/fd links name the canonical path */
                assert_non_null(realpath(held, canon));
                deadline = now_ms() + RUN_TIMEOUT_MS;
                while (held_open(canon) && now_ms() < deadline)
                        (void) usleep(20 * 1000);
                if (held_open(canon))
                        fail_msg("[%s] a child outlived --timeout (it still holds %s)",
                                 bname(backends[i]), held);
        }
}

/* A single-valued option given twice, a bad --timeout and a root that
 * names nothing are errors (125), not silently resolved; --allow-missing
 * accepts the last. */
static void test_cli__option_mistakes_are_errors(void **state)
{
        const char *const twice[] = { "--workspace", ws, "--mode", "read-only", "--mode",
                                      "workspace-write", "--", "true", NULL };
        const char *const bad_timeout[] = { "--workspace", ws, "--timeout", "soon", "--", "true",
                                            NULL };
        const char *const missing[] = { "--workspace", ws, "--allow-write", "/nonexistent-sbx-cli",
                                        "--", "true", NULL };
        const char *const allowed[] = { "--workspace", ws, "--allow-missing", "--allow-write",
                                        "/nonexistent-sbx-cli", "--", "true", NULL };
        struct result r;
        (void) state;

        need_backend();
        run_cli(twice, NULL, &r);
        assert_int_equal(r.status, 125);
        assert_non_null(strstr(r.err, "--mode given twice"));
        result_free(&r);
        run_cli(bad_timeout, NULL, &r);
        assert_int_equal(r.status, 125);
        assert_non_null(strstr(r.err, "--timeout"));
        result_free(&r);
        {
                const char *const bad_mode[] = { "--workspace", ws, "--mode", "rw", "--", "true",
                                                 NULL };

                run_cli(bad_mode, NULL, &r);
                assert_int_equal(r.status, 125);
                assert_non_null(strstr(r.err, "valid: read-only, workspace-write, "
                                              "danger-full-access"));
                result_free(&r);
        }
        run_cli(missing, NULL, &r);
        assert_int_equal(r.status, 125);
        assert_non_null(strstr(r.err, "/nonexistent-sbx-cli"));
        result_free(&r);
        run_cli(allowed, NULL, &r);
        assert_int_equal(r.status, 0);
        result_free(&r);
        /* --cwd: inside the workspace it is where the command starts;
         * outside what the sandbox shows it is an error */
        {
                char sub[256];
                const char *const in[] = { "--workspace", ws, "--cwd", sub, "--", "pwd", NULL };
                const char *const out[] = { "--workspace", ws, "--cwd", outside, "--", "pwd",
                                            NULL };

                (void) snprintf(sub, sizeof(sub), "%s/sub", ws);
                (void) mkdir(sub, 0755);
                run_cli(in, NULL, &r);
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, sub));
                result_free(&r);
                run_cli(out, NULL, &r);
                assert_int_equal(r.status, 125);
                assert_non_null(strstr(r.err, "--cwd"));
                result_free(&r);
        }
}

/* --env and --env-file pass a variable the filter would drop; HOME stays
 * the sandbox's; the names show in --explain, not the values. */
static void test_cli__env_passes_what_is_named(void **state)
{
        char file[256];
        size_t i;
        FILE *fp;
        (void) state;

        need_backend();
        (void) snprintf(file, sizeof(file), "%s/env", outside);
        fp = fopen(file, "w");
        assert_non_null(fp);
        fputs("# build settings\nGOFLAGS=-mod=mod\n\nFROM_FILE=two words\n", fp);
        fclose(fp);
        for (i = 0; i < n_backends; i++) {
                const char *const env[] = { "SBX_CLI_NAMED=from-here", "SBX_CLI_UNNAMED=dropped",
                                            NULL };
                const char *const args[] = { "--workspace", ws, "--env", "SBX_CLI_NAMED",
                                             "--env", "NODE_OPTIONS=--x", "--env-file", file, "--",
                                             "sh", "-c",
                                             "echo \"$SBX_CLI_NAMED|$NODE_OPTIONS|$GOFLAGS|"
                                             "$FROM_FILE|$SBX_CLI_UNNAMED\"", NULL };
                struct result r;

                run_b(backends[i], args, env, &r);
                if (r.status != 0 || strstr(r.out, "from-here|--x|-mod=mod|two words|\n") == NULL)
                        fail_msg("[%s] --env: status %d, out \"%s\" %s", bname(backends[i]),
                                 r.status, r.out, r.err);
                result_free(&r);
        }
        {
                const char *const home[] = { "--workspace", ws, "--env", "HOME=/x", "--", "true",
                                             NULL };
                const char *const explain[] = { "--workspace", ws, "--explain", "--env",
                                                "SBX_SHOWN=hidden-value", "--", "true", NULL };
                struct result r;

                run_cli(home, NULL, &r);
                assert_int_equal(r.status, 125);
                result_free(&r);
                run_cli(explain, NULL, &r);
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, "env-set: SBX_SHOWN"));
                assert_null(strstr(r.out, "hidden-value"));
                result_free(&r);
        }
}

/* Write text to path with mode, making its parent directories. */
static void put(const char *path, const char *text, mode_t mode)
{
        char dir[512], *p;
        FILE *fp;

        (void) snprintf(dir, sizeof(dir), "%s", path);
        for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
                *p = '\0';
                (void) mkdir(dir, 0755);
                *p = '/';
        }
        fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
        assert_int_equal(chmod(path, mode), 0);
}

/* Toolchains under HOME keep working while HOME stays hidden: fake
 * cargo, pyenv python3 and nvm node planted in a test HOME run under
 * workspace-write; ~/.ssh and ~/.cargo/credentials.toml stay unreadable;
 * --no-toolchains hides the tools too. */
static void test_cli__toolchains_run_secrets_stay_hidden(void **state)
{
        char home[256], henv[300], penv[1024], p[512], script[1024];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(home, sizeof(home), "%s/fakehome", base);
        (void) snprintf(p, sizeof(p), "%s/.cargo/bin/cargo", home);
        put(p, "#!/bin/sh\necho cargo-ran\n", 0755);
        (void) snprintf(p, sizeof(p), "%s/.pyenv/shims/python3", home);
        put(p, "#!/bin/sh\necho python-ran\n", 0755);
        (void) snprintf(p, sizeof(p), "%s/.nvm/versions/node/v20.0.0/bin/node", home);
        put(p, "#!/bin/sh\necho node-ran\n", 0755);
        (void) snprintf(p, sizeof(p), "%s/.ssh/id_ed25519", home);
        put(p, "ssh-secret\n", 0600);
        (void) snprintf(p, sizeof(p), "%s/.cargo/credentials.toml", home);
        put(p, "cargo-token\n", 0600);
        (void) chmod(home, 0755);
        (void) snprintf(henv, sizeof(henv), "HOME=%s", home);
        (void) snprintf(penv, sizeof(penv), "PATH=%s/.cargo/bin:%s/.pyenv/shims:"
                        "%s/.nvm/versions/node/v20.0.0/bin:/usr/bin:/bin", home, home, home);
        (void) snprintf(script, sizeof(script), "cargo; python3; node; "
                        "cat '%s/.ssh/id_ed25519' 2>/dev/null; "
                        "cat '%s/.cargo/credentials.toml' 2>/dev/null; true", home, home);
        for (i = 0; i < n_backends; i++) {
                const char *const env[] = { henv, penv, NULL };
                const char *const on[] = { "--workspace", ws, "--mode", "workspace-write", "--",
                                           "sh", "-c", script, NULL };
                const char *const off[] = { "--workspace", ws, "--no-toolchains", "--", "cargo",
                                            NULL };
                struct result r;

                run_b(backends[i], on, env, &r);
                if (r.status != 0 || strstr(r.out, "cargo-ran") == NULL ||
                    strstr(r.out, "python-ran") == NULL || strstr(r.out, "node-ran") == NULL)
                        fail_msg("[%s] the toolchains did not run (status %d): %s / %s",
                                 bname(backends[i]), r.status, r.out, r.err);
                if (strstr(r.out, "ssh-secret") != NULL || strstr(r.out, "cargo-token") != NULL)
                        fail_msg("[%s] a secret inside HOME was read: %s", bname(backends[i]),
                                 r.out);
                result_free(&r);
                run_b(backends[i], off, env, &r);
                /* The fake cargo is hidden: not found (127), or the host's
                 * own cargo, if it has one, runs instead. */
                if (strstr(r.out, "cargo-ran") != NULL ||
                    (r.status != 127 && access("/usr/bin/cargo", X_OK) != 0 &&
                     access("/bin/cargo", X_OK) != 0))
                        fail_msg("[%s] --no-toolchains: cargo status %d (want 127): %s / %s",
                                 bname(backends[i]), r.status, r.out, r.err);
                result_free(&r);
        }
}

/* A command killed by a signal: 128 + the signal, like a shell. */
static void test_cli__signal_death_is_128_plus_signal(void **state)
{
        const char *const args[] = { "--workspace", ws, "--", "sh", "-c", "kill -TERM $$; "
                                     "sleep 5; exit 3", NULL };
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                struct result r;

                run_b(backends[i], args, NULL, &r);
                if (r.status != 128 + SIGTERM)
                        fail_msg("[%s] SIGTERM: status %d, want %d", bname(backends[i]),
                                 r.status, 128 + SIGTERM);
                result_free(&r);
        }
}

static void test_cli__runner_failure_is_125_one_line(void **state)
{
        const char *const stage2[] = { "--sbx-stage2", "--bogus", "1", "--", "true", NULL };
        const char *const plain[] = { "--workspace", ws, "--", "true", NULL };
        const char *const unavailable[] = { "SBX_BACKEND=unavailable", NULL };
        const char *const bad_opt[] = { "--frobnicate", "--", "true", NULL };
        struct result r;
        (void) state;

        run_cli(stage2, NULL, &r);
        assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
        assert_int_equal(count_lines(r.err), 1);
        assert_true(strncmp(r.err, "sandbox-run: cannot start sandbox runner: ", 42) == 0);
        assert_string_equal(r.out, "");
        result_free(&r);

        /* No backend: fail closed, one line, the command never ran. */
        run_cli(plain, unavailable, &r);
        assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
        assert_int_equal(count_lines(r.err), 1);
        assert_non_null(strstr(r.err, "sandbox-run: no usable sandbox backend"));
        result_free(&r);

        run_cli(bad_opt, NULL, &r);
        assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
        assert_int_equal(count_lines(r.err), 1);
        result_free(&r);
}

static void test_cli__json_error_object(void **state)
{
        const char *const args[] = { "--json", "--workspace", ws, "--", "true", NULL };
        const char *const unavailable[] = { "SBX_BACKEND=unavailable", NULL };
        const char *const bad[] = { "--json", "--mode", "yolo", "--", "true", NULL };
        json_object *j, *e, *v;
        struct result r;
        (void) state;

        run_cli(args, unavailable, &r);
        assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
        assert_int_equal(count_lines(r.err), 1);
        j = json_tokener_parse(r.err);
        if (j == NULL)
                fail_msg("not JSON: %s", r.err);
        assert_true(json_object_object_get_ex(j, "error", &e));
        assert_true(json_object_object_get_ex(e, "code", &v));
        assert_string_equal(json_object_get_string(v), "SBX_E_SANDBOX_UNAVAILABLE");
        assert_true(json_object_object_get_ex(e, "message", &v));
        assert_non_null(strstr(json_object_get_string(v), "no usable sandbox backend"));
        json_object_put(j);
        result_free(&r);

        run_cli(bad, NULL, &r);
        assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
        j = json_tokener_parse(r.err);
        assert_non_null(j);
        assert_true(json_object_object_get_ex(j, "error", &e));
        assert_true(json_object_object_get_ex(e, "code", &v));
        assert_string_equal(json_object_get_string(v), "SBX_E_INVALID");
        json_object_put(j);
        result_free(&r);
}

/* The last line of s that starts with '{', parsed (put it), or NULL. */
static json_object *last_object(const char *s)
{
        const char *line = NULL, *p;
        json_object *j;
        char *copy;

        for (p = s; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL)
                if (*p == '{')
                        line = p;
        if (line == NULL)
                return NULL;
        copy = strndup(line, strcspn(line, "\n"));
        assert_non_null(copy);
        j = json_tokener_parse(copy);
        free(copy);
        return j;
}

/* Memory running out while the --json output is built (each json-c call
 * sandbox-run makes failed in turn, tests/fault-shim/jsonc_fail.c): the
 * whole object, or one SBX_E_NOMEM error object and 125, never part of
 * one on stdout or stderr. */
static void test_cli__json_nomem_is_whole(void **state)
{
        static const char nomem[] = "{\"error\":{\"code\":\"SBX_E_NOMEM\",\"message\":"
                                    "\"no memory for the JSON output\"}}\n";
        const char *const explain[] = { "--no-policy", "--workspace", ws, "--explain", "--json",
                                        "--", "true", NULL };
        const char *const bad[] = { "--no-policy", "--json", "--mode", "yolo", "--", "true",
                                    NULL };
        const char *const run[] = { "--no-policy", "--json", "--workspace", ws, "--", "sh",
                                    "-c", "exit 3", NULL };
        const struct { const char *const *args; int status; const char *key; } c[] = {
                { explain, 0, "plan" },
                { bad, SBX_EXIT_RUNNER_FAILURE, "error" },
                { run, 3, "schema" },
        };
        const char *env_shim = getenv("SBX_JSONC_FAIL_SHIM"), *asan = getenv("ASAN_OPTIONS");
        char shim[PATH_MAX], preload[PATH_MAX + 16], asan_opts[1024], nth[32];
        const char *const env[] = { preload, asan_opts, nth, NULL };
        struct result r;
        size_t i, len = sizeof(nomem) - 1;
        int n;
        (void) state;

        need_backend();
        if (env_shim != NULL && env_shim[0] == '/') {
                (void) snprintf(shim, sizeof(shim), "%s", env_shim);
        } else {
                (void) snprintf(shim, sizeof(shim), "%s", self_exe);
                (void) snprintf(strrchr(shim, '/'), sizeof(shim) - (size_t) (strrchr(shim, '/')
                                - shim), "/libsbx-jsonc-fail.so");
        }
        if (access(shim, R_OK) != 0) {
                if (require_all())
                        fail_msg("no json-c fault shim at %s (SBX_REQUIRE_ALL=1)", shim);
                skip();
        }
        (void) snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", shim);
        /* A sanitized sandbox-run: its runtime need not come first. */
        (void) snprintf(asan_opts, sizeof(asan_opts), "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
                        asan != NULL ? asan : "", asan != NULL && asan[0] != '\0' ? ":" : "");
        for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
                for (n = 0;; n++) {
                        json_object *j, *v;

                        if (n > 5000)
                                fail_msg("case %zu: the output never completed", i);
                        (void) snprintf(nth, sizeof(nth), "SBX_JSONC_FAIL=%d", n);
                        run_cli(c[i].args, env, &r);
                        if (r.err_len >= len && memcmp(r.err + r.err_len - len, nomem, len) == 0) {
                                if (r.status != SBX_EXIT_RUNNER_FAILURE || r.out_len != 0 ||
                                    strstr(r.err, "{\"schema\"") != NULL ||
                                    strstr(r.err, "{\"error\"") != r.err + r.err_len - len)
                                        fail_msg("case %zu, call %d failed: status %d, stdout "
                                                 "%.200s, stderr %.400s", i, n, r.status, r.out,
                                                 r.err);
                                result_free(&r);
                                continue;
                        }
                        j = last_object(i == 0 ? r.out : r.err);
                        if (r.status != c[i].status || j == NULL ||
                            !json_object_object_get_ex(j, c[i].key, &v))
                                fail_msg("case %zu, call %d failed: status %d, stdout %.200s, "
                                         "stderr %.400s", i, n, r.status, r.out, r.err);
                        json_object_put(j);
                        result_free(&r);
                        break;
                }
                if (n == 0)
                        fail_msg("case %zu: no json-c call was failed (the shim is not loaded)",
                                 i);
        }
}

/* The argv a host using sbx_confine would run (from --explain --json). */
static char **confined_argv(const char *b, const char *mode, const char *script)
{
        const char *const args[] = { "--mode", mode, "--workspace", ws, "--explain", "--json",
                                     "--", "sh", "-c", script, NULL };
        json_object *j, *v;
        struct result r;
        char **out;
        size_t n, i;

        run_b(b, args, NULL, &r);
        assert_int_equal(r.status, 0);
        j = json_tokener_parse(r.out);
        assert_non_null(j);
        assert_true(json_object_object_get_ex(j, "argv", &v));
        n = json_object_array_length(v);
        out = calloc(n + 1, sizeof(*out));
        assert_non_null(out);
        for (i = 0; i < n; i++)
                out[i] = strdup(json_object_get_string(json_object_array_get_idx(v, i)));
        json_object_put(j);
        result_free(&r);
        return out;
}

/* Run the confined argv directly, as a host would: the stage-2 runner
 * (native, landlock) or the bwrap command line enforces the policy. */
static void test_cli__confined_argv_runs_confined(void **state)
{
        char script[256], target[192];
        size_t i, k;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                struct result r;
                char **argv;

                argv = confined_argv(backends[i], "read-only", "exit 7");
                run_exec((const char *const *) argv, NULL, &r);
                if (r.status != 7)
                        fail_msg("[%s] confined argv: status %d %s", bname(backends[i]),
                                 r.status, r.err);
                result_free(&r);
                for (k = 0; argv[k] != NULL; k++)
                        free(argv[k]);
                free(argv);

                (void) snprintf(target, sizeof(target), "%s/confined-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo x > '%s'", target);
                argv = confined_argv(backends[i], "workspace-write", script);
                run_exec((const char *const *) argv, NULL, &r);
                if (r.status == 0 || path_exists(target))
                        fail_msg("[%s] confined argv wrote outside the workspace: status %d",
                                 bname(backends[i]), r.status);
                result_free(&r);
                for (k = 0; argv[k] != NULL; k++)
                        free(argv[k]);
                free(argv);
        }
}

static const char *probe_verb(void)
{
        return strcmp(probe, self_exe) == 0 ? "--connect" : "tcp";
}

/* A loopback listener; *port_out its port. */
static int listen_loopback(int *port_out)
{
        struct sockaddr_in a;
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        assert_true(fd >= 0);
        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(listen(fd, 8), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        *port_out = ntohs(a.sin_port);
        return fd;
}

/* 1 if a connection is waiting within ms.  After sandbox-run was reaped
 * the check passes 0: a loopback connect is queued on the listener before
 * connect() returns, so nothing can still be on its way. */
static int accepted_within(int lfd, int ms)
{
        struct pollfd p = { lfd, POLLIN, 0 };
        int c;

        if (poll(&p, 1, ms) <= 0)
                return 0;
        c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
                return 0;
        close(c);
        return 1;
}

/* The example: a write outside, a hidden secret and a refused
 * connection are the three denials --json lists (rung 2 refuses the
 * socket in its filter, unseen: two there), each without effect on the
 * host; without --json each gets a model-facing line. */
static void test_cli__json_lists_the_denials(void **state)
{
        char home[PATH_MAX], secret[PATH_MAX], victim[PATH_MAX], script[4 * PATH_MAX];
        char env_home[PATH_MAX + 8], hp[64], line[PATH_MAX + 64];
        const char *const b[] = { "native", "landlock" };
        int port, lfd, i, c;
        struct result r;
        (void) state;

        need_backend();
        if (strcmp(probe, self_exe) == 0) {
                if (require_all())
                        fail_msg("this test needs the sbx-probe binary ($SBX_PROBE)");
                return;
        }
        (void) snprintf(home, sizeof(home), "%s/home", base);
        (void) snprintf(secret, sizeof(secret), "%.2000s/.ssh/id_rsa", home);
        (void) snprintf(victim, sizeof(victim), "%.2000s/x", outside);
        (void) snprintf(env_home, sizeof(env_home), "HOME=%s", home);
        (void) mkdir(home, 0700);
        (void) snprintf(line, sizeof(line), "%.2000s/.ssh", home);
        (void) mkdir(line, 0700);
        {
                FILE *fp = fopen(secret, "we");

                assert_non_null(fp);
                fputs("key\n", fp);
                fclose(fp);
        }
        lfd = listen_loopback(&port);
        (void) snprintf(hp, sizeof(hp), "127.0.0.1:%d", port);
        (void) snprintf(script, sizeof(script), "echo x > %s; cat ~/.ssh/id_rsa; cat %s; "
                        "%s tcp 127.0.0.1 %d", victim, secret, probe, port);
        for (i = 0; i < 2; i++) {
                const char *const env[] = { env_home, NULL };
                const char *const args[] = { "--json", "--backend", b[i], "--workspace", ws,
                                             "--allow-read", probe_dir, "--", "sh", "-c",
                                             script, NULL };
                const char *const plain[] = { "--backend", b[i], "--workspace", ws,
                                              "--allow-read", probe_dir, "--", "sh", "-c",
                                              script, NULL };
                json_object *j;

                run_cli(args, env, &r);
                assert_true(access(victim, F_OK) < 0);
                c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                assert_true(c < 0);
                j = result_object(&r);
                if (!has_event(j, "create", victim, "observer") ||
                    !has_event(j, "read", secret, "observer") ||
                    (i == 0 && !has_event(j, "connect", hp, "observer")))
                        fail_msg("%s: --json does not list the denials: %s", b[i], r.err);
                json_object_put(j);
                result_free(&r);

                run_cli(plain, env, &r);
                (void) snprintf(line, sizeof(line), "sandbox-run: denied: create %s", victim);
                if (strstr(r.err, line) == NULL || strstr(r.err, "[sandbox: file write denied") ==
                    NULL)
                        fail_msg("%s: no model-facing line for %s: %s", b[i], victim, r.err);
                result_free(&r);
        }
        close(lfd);
}

/* --allow-host: a refused target is named after the run, with the flag
 * that would allow it; --json says the same as one object. */
static void test_cli__allow_host_names_refused_targets(void **state)
{
        char allowed[64], url[96], want[256];
        int port, oport, lfd, other;
        struct result r;
        (void) state;

        need_backend();
        if (strcmp(probe, self_exe) == 0) {
                if (require_all())
                        fail_msg("--allow-host needs the sbx-probe binary ($SBX_PROBE)");
                return;
        }
        lfd = listen_loopback(&port);
        other = listen_loopback(&oport);
        (void) snprintf(allowed, sizeof(allowed), "127.0.0.1:%d", port);
        (void) snprintf(url, sizeof(url), "http://127.0.0.1:%d/", oport);
        {
                const char *const args[] = { "--workspace", ws, "--allow-read", probe_dir,
                                             "--allow-host", allowed, "--", probe, "proxy-get",
                                             url, NULL };

                run_cli(args, NULL, &r);
        }
        if (r.status == 125 && strstr(r.err, "target-network") != NULL) {
                /* not rung 1 here: an allowlist fails closed */
                result_free(&r);
        } else {
                (void) snprintf(want, sizeof(want), "network: 127.0.0.1:%d was refused: not in "
                                "the allowlist; to allow it: --allow-host 127.0.0.1:%d", oport,
                                oport);
                if (strstr(r.err, want) == NULL)
                        fail_msg("status %d, stderr %s (want \"%s\")", r.status, r.err, want);
                assert_false(accepted_within(other, 0));
                result_free(&r);
                {
                        const char *const args[] = { "--json", "--workspace", ws, "--allow-read",
                                                     probe_dir, "--allow-host", allowed, "--",
                                                     probe, "proxy-get", url, NULL };

                        run_cli(args, NULL, &r);
                }
                {
                        json_object *j = result_object(&r), *a, *o, *v;

                        assert_true(json_object_object_get_ex(j, "network_refused", &a));
                        assert_true(json_object_array_length(a) >= 1);
                        o = json_object_array_get_idx(a, 0);
                        assert_true(json_object_object_get_ex(o, "host", &v));
                        assert_string_equal(json_object_get_string(v), "127.0.0.1");
                        assert_true(json_object_object_get_ex(o, "port", &v));
                        assert_int_equal(json_object_get_int(v), oport);
                        assert_true(json_object_object_get_ex(o, "reason", &v));
                        assert_string_equal(json_object_get_string(v), "not-allowed");
                        /* ... and the same refusal is a connect event. */
                        (void) snprintf(want, sizeof(want), "127.0.0.1:%d", oport);
                        assert_true(has_event(j, "connect", want, "proxy"));
                        json_object_put(j);
                }
                result_free(&r);
        }
        close(lfd);
        close(other);
}

static void test_cli__network_deny_and_allow(void **state)
{
        char port_s[16];
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                /* sbx-probe: "tcp HOST PORT", exit 0 or the errno; this
                 * binary: "--connect HOST PORT", exit 0 or 1. */
                const char *const deny[] = { "--workspace", ws, "--network", "deny",
                                             "--allow-read", probe_dir, "--", probe,
                                             probe_verb(), "127.0.0.1", port_s, NULL };
                const char *const allow[] = { "--workspace", ws, "--network", "allow",
                                              "--allow-read", probe_dir, "--", probe,
                                              probe_verb(), "127.0.0.1", port_s, NULL };
                struct result r;
                int lfd, port;

                lfd = listen_loopback(&port);
                (void) snprintf(port_s, sizeof(port_s), "%d", port);
                /* bwrap too: sandbox-run runs it with sbx_spawn, which
                 * passes the seccomp program that refuses vsock. */
                run_b(backends[i], deny, NULL, &r);
                if (r.status < 1 || r.status > 119)
                        fail_msg("[%s] --network deny: probe status %d (want a connect "
                                 "errno) %s", bname(backends[i]), r.status, r.err);
                if (accepted_within(lfd, 0))
                        fail_msg("[%s] the host listener saw a connection under --network deny",
                                 bname(backends[i]));
                result_free(&r);

                run_b(backends[i], allow, NULL, &r);
                if (r.status != 0)
                        fail_msg("[%s] connect failed under --network allow: %d %s",
                                 bname(backends[i]), r.status, r.err);
                assert_true(accepted_within(lfd, RUN_TIMEOUT_MS));
                result_free(&r);
                close(lfd);
        }
}

/* The sandboxed side of the network test (without sbx-probe). */
static int connect_mode(const char *port)
{
        struct sockaddr_in a;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        /* A refused socket() is as good a denial as a refused connect(). */
        if (fd < 0)
                return 1;
        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((uint16_t) atoi(port));
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                return 1;
        close(fd);
        return 0;
}

/* The sandboxed side of the --allow-unix test: connect to a unix socket
 * and write "u"; 0, or the errno (1..119). */
static int unix_mode(const char *path)
{
        struct sockaddr_un a;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return errno > 0 && errno < 120 ? errno : 119;
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        if (strlen(path) >= sizeof(a.sun_path))
                return 120;
        strcpy(a.sun_path, path);
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                return errno > 0 && errno < 120 ? errno : 119;
        (void) !write(fd, "u", 1);
        close(fd);
        return 0;
}

static int listen_unix_at(const char *path)
{
        struct sockaddr_un a;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        assert_true(fd >= 0);
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        assert_true(strlen(path) < sizeof(a.sun_path));
        strcpy(a.sun_path, path);
        (void) unlink(path);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(chmod(path, 0777), 0);
        assert_int_equal(listen(fd, 16), 0);
        return fd;
}

/* --allow-unix: the listed host socket is reached, the other one is not
 * (EACCES), on every backend that can mediate connect; bwrap refuses to
 * run (125) and the listener sees nothing. */
static void test_cli__allow_unix(void **state)
{
        char yes[PATH_MAX], no[PATH_MAX];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(yes, sizeof(yes), "%s/yes.sock", outside);
        (void) snprintf(no, sizeof(no), "%s/no.sock", outside);
        for (i = 0; i < n_backends; i++) {
                const char *verb = strcmp(probe, self_exe) == 0 ? "--unix" : "unix";
                const char *const ok[] = { "--workspace", ws, "--allow-unix", yes,
                                           "--allow-read", probe_dir, "--", probe, verb, yes,
                                           NULL };
                const char *const other[] = { "--workspace", ws, "--allow-unix", yes,
                                              "--allow-read", probe_dir, "--", probe, verb, no,
                                              NULL };
                struct result r;
                int ly = listen_unix_at(yes), ln = listen_unix_at(no);

                run_b(backends[i], ok, NULL, &r);
                if (backends[i] != NULL && strcmp(backends[i], "bwrap") == 0) {
                        if (r.status != 125 || strstr(r.err, "--allow-unix") == NULL)
                                fail_msg("[bwrap] --allow-unix: status %d (want 125 naming "
                                         "--allow-unix): %s", r.status, r.err);
                        assert_false(accepted_within(ly, 0));
                } else {
                        if (r.status != 0)
                                fail_msg("[%s] connect to the listed socket: status %d %s",
                                         bname(backends[i]), r.status, r.err);
                        assert_true(accepted_within(ly, RUN_TIMEOUT_MS));
                        result_free(&r);
                        run_b(backends[i], other, NULL, &r);
                        if (r.status != EACCES)
                                fail_msg("[%s] connect to the unlisted socket: status %d (want "
                                         "EACCES) %s", bname(backends[i]), r.status, r.err);
                        assert_false(accepted_within(ln, 0));
                }
                result_free(&r);
                close(ly);
                close(ln);
                (void) unlink(yes);
                (void) unlink(no);
        }
}

/* A workspace that is /, a home directory or an ancestor of one is refused
 * unless --force-workspace asks for it: the command never runs (a marker
 * it would write stays absent). */
static void test_cli__broad_workspace_refused_unless_forced(void **state)
{
        char home[300], parent[300], henv[320], marker[340], script[400];
        const char *const *cases[3];
        struct result r;
        size_t i;
        (void) state;

        snprintf(parent, sizeof(parent), "%s/users", ws);
        snprintf(home, sizeof(home), "%s/users/alice", ws);
        (void) mkdir(parent, 0755);
        (void) mkdir(home, 0755);
        snprintf(henv, sizeof(henv), "HOME=%s", home);
        snprintf(marker, sizeof(marker), "%s/ran", home);
        snprintf(script, sizeof(script), "echo ran > '%s'", marker);
        {
                const char *const at_root[] = { "--mode", "workspace-write", "--workspace", "/", "--", "sh", "-c", script, NULL };
                const char *const at_home[] = { "--mode", "workspace-write", "--workspace", home, "--", "sh", "-c", script, NULL };
                const char *const above[] = { "--mode", "workspace-write", "--workspace", parent, "--", "sh", "-c", script, NULL };
                const char *const env[] = { henv, NULL };
                const char *const forced[] = { "--force-workspace", "--mode", "workspace-write",
                                               "--workspace", home, "--", "sh", "-c", script,
                                               NULL };

                cases[0] = at_root;
                cases[1] = at_home;
                cases[2] = above;
                for (i = 0; i < 3; i++) {
                        run_cli(cases[i], env, &r);
                        if (r.status != SBX_EXIT_RUNNER_FAILURE ||
                            strstr(r.err, "--force-workspace") == NULL)
                                fail_msg("case %zu: status %d, stderr %s", i, r.status, r.err);
                        assert_int_equal(access(marker, F_OK), -1);
                        result_free(&r);
                }
                /* Forced: it runs, and the write lands in the workspace. */
                run_cli(forced, env, &r);
                if (r.status != 0)
                        fail_msg("forced: status %d, stderr %s", r.status, r.err);
                assert_int_equal(access(marker, F_OK), 0);
                result_free(&r);
        }
        (void) unlink(marker);
        (void) rmdir(home);
        (void) rmdir(parent);
}

/* ------------------------------------------------------- policy files */

/* Write text to path (0644). */
static void put_text(const char *path, const char *text)
{
        FILE *fp = fopen(path, "w");

        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
}

/* getopt_long's mistakes are sandbox-run's one-line errors (125). */
static void test_cli__getopt_mistakes(void **state)
{
        static const struct { const char *args[8]; const char *want; } cases[] = {
                { { "--allow", "x", "--", "true", NULL }, "ambiguous option --allow (--allow-read" },
                { { "--bogus", "--", "true", NULL }, "unknown option --bogus" },
                { { "-x", "--", "true", NULL }, "unknown option -x" },
                { { "--explain=yes", "--", "true", NULL }, "--explain takes no value" },
                { { "--workspace", NULL }, "--workspace needs a value" },
                { { "--policy", "/x", "--no-policy", "--", "true", NULL },
                  "--policy and --no-policy contradict" },
                { { "--policy", "/x", "--policy", "/y", "--", "true", NULL },
                  "--policy given twice" },
                { { "--net=nope", "--", "true", NULL }, "bad value \"nope\" for --network "
                  "(valid: deny, allow)" },
        };
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct result r;

                run_cli(cases[i].args, NULL, &r);
                if (r.status != SBX_EXIT_RUNNER_FAILURE || strstr(r.err, cases[i].want) == NULL ||
                    count_lines(r.err) != 1 || strstr(r.err, "sbx_") != NULL)
                        fail_msg("case %zu: status %d, stderr %s (want \"%s\")", i, r.status,
                                 r.err, cases[i].want);
                result_free(&r);
        }
}

/* A policy file named with --policy is used as written: its write root is
 * writable, its mode applies, its env.set reaches the command, and a write
 * outside its roots still fails (the file stays absent).  --explain says
 * where each value came from. */
static void test_cli__policy_file_applies(void **state)
{
        char file[256], granted_dir[256], granted[300], escape[300], text[1024], script[1400];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(file, sizeof(file), "%s/policy.json", base);
        (void) snprintf(granted_dir, sizeof(granted_dir), "%s/from-policy", outside);
        (void) mkdir(granted_dir, 0755);
        (void) snprintf(text, sizeof(text),
                        "{\n"
                        "  \"version\": 1,\n"
                        "  \"mode\": \"workspace-write\",\n"
                        "  \"write_roots\": [\"%s\"],\n"
                        "  \"env\": {\"set\": {\"FROM_POLICY\": \"yes it is\"}}\n"
                        "}\n", granted_dir);
        put_text(file, text);
        for (i = 0; i < n_backends; i++) {
                const char *const args[] = { "--policy", file, "--workspace", ws, "--", "sh", "-c",
                                             script, NULL };
                struct result r;

                (void) snprintf(granted, sizeof(granted), "%s/granted-%zu", granted_dir, i);
                (void) snprintf(escape, sizeof(escape), "%s/escape-policy-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo \"$FROM_POLICY\"; echo ok > '%s'; "
                                "echo ws > '%s/policy-ws-%zu'; echo no > '%s' 2>/dev/null; true",
                                granted, ws, i, escape);
                run_b(backends[i], args, NULL, &r);
                if (r.status != 0 || strstr(r.out, "yes it is\n") == NULL)
                        fail_msg("[%s] --policy: status %d, out %s, err %s", bname(backends[i]),
                                 r.status, r.out, r.err);
                if (!path_exists(granted))
                        fail_msg("[%s] the policy's write root was not writable: %s",
                                 bname(backends[i]), r.err);
                if (path_exists(escape))
                        fail_msg("[%s] a write outside the policy's roots landed: %s",
                                 bname(backends[i]), escape);
                result_free(&r);
                (void) snprintf(script, sizeof(script), "%s/policy-ws-%zu", ws, i);
                assert_true(path_exists(script));       /* its mode: workspace-write */
                (void) unlink(script);
        }
        {
                const char *const args[] = { "--policy", file, "--workspace", ws, "--explain",
                                             "--", "true", NULL };
                char want[700];
                struct result r;

                run_cli(args, NULL, &r);
                assert_int_equal(r.status, 0);
                (void) snprintf(want, sizeof(want), "policy: %s (--policy)\n", file);
                assert_non_null(strstr(r.out, want));
                (void) snprintf(want, sizeof(want), "  mode = workspace-write (%s:3)\n", file);
                assert_non_null(strstr(r.out, want));
                (void) snprintf(want, sizeof(want), "  write-root = %s (%s:4)\n", granted_dir, file);
                assert_non_null(strstr(r.out, want));
                (void) snprintf(want, sizeof(want), "  env = FROM_POLICY (%s:5)\n", file);
                assert_non_null(strstr(r.out, want));
                assert_non_null(strstr(r.out, "  network = deny (default)\n"));
                assert_null(strstr(r.out, "yes it is"));        /* values not shown */
                result_free(&r);
        }
        {
                /* A flag overrides the file's value; a list flag adds. */
                const char *const args[] = { "--policy", file, "--workspace", ws, "--mode",
                                             "read-only", "--allow-read", outside, "--explain",
                                             "--", "true", NULL };
                char want[700];
                struct result r;

                run_cli(args, NULL, &r);
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, "mode: read-only\n"));
                assert_non_null(strstr(r.out, "  mode = read-only (--mode)\n"));
                (void) snprintf(want, sizeof(want), "  read-root = %s (--allow-read)\n", outside);
                assert_non_null(strstr(r.out, want));
                (void) snprintf(want, sizeof(want), "  write-root = %s (%s:4)\n", granted_dir, file);
                assert_non_null(strstr(r.out, want));
                result_free(&r);
        }
        (void) unlink(file);
}

/* The user file ($XDG_CONFIG_HOME/sandbox-run/policy.json) is used as
 * written when no --policy is given; --no-policy skips it. */
static void test_cli__user_policy_file(void **state)
{
        char dir[256], file[300], xdg[300], granted[300], text[512], script[400];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(dir, sizeof(dir), "%s/xdg/sandbox-run", base);
        put(strcat(strcpy(file, dir), "/policy.json"), "", 0644);
        (void) snprintf(text, sizeof(text), "{\"version\": 1,\n \"write_roots\": [\"%s\"]}\n",
                        outside);
        put_text(file, text);
        (void) snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/xdg", base);
        for (i = 0; i < n_backends; i++) {
                const char *const env[] = { xdg, NULL };
                const char *const args[] = { "--workspace", ws, "--", "sh", "-c", script, NULL };
                const char *const skip[] = { "--no-policy", "--workspace", ws, "--", "sh", "-c",
                                             script, NULL };
                struct result r;

                (void) snprintf(granted, sizeof(granted), "%s/user-file-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo ok > '%s'", granted);
                run_b(backends[i], skip, env, &r);
                if (r.status == 0 || path_exists(granted))
                        fail_msg("[%s] --no-policy still used the user file", bname(backends[i]));
                result_free(&r);
                run_b(backends[i], args, env, &r);
                if (r.status != 0 || !path_exists(granted))
                        fail_msg("[%s] the user file's write root: status %d %s",
                                 bname(backends[i]), r.status, r.err);
                result_free(&r);
        }
        (void) unlink(file);
}

/* A project file (<workspace>/.sandbox-run.json) may only narrow: one that
 * would widen the run is an error naming its file, line and key, and the
 * command never runs; named with --policy it is used as written; one that
 * narrows (a timeout, read-only) applies; --no-policy skips it. */
static void test_cli__project_file_cannot_widen(void **state)
{
        char pws[192], file[256], target[300], mark[300], text[512], script[700];
        struct result r;
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(pws, sizeof(pws), "%s/project", base);
        (void) mkdir(pws, 0755);
        (void) snprintf(file, sizeof(file), "%s/.sandbox-run.json", pws);
        (void) snprintf(mark, sizeof(mark), "%s/ran", pws);
        for (i = 0; i < n_backends; i++) {
                static const char *const widening[] = { "write_roots", "mode", "network",
                                                        "read_roots", "env", "network.allow_hosts",
                                                        "backend", "unix_sockets" };
                const char *const args[] = { "--workspace", pws, "--", "sh", "-c", script, NULL };
                const char *const named[] = { "--workspace", pws, "--policy", file, "--", "sh",
                                              "-c", script, NULL };
                size_t k;

                (void) snprintf(target, sizeof(target), "%s/project-escape-%zu", outside, i);
                (void) snprintf(script, sizeof(script), "echo ran > '%s'; echo no > '%s'", mark,
                                target);
                for (k = 0; k < sizeof(widening) / sizeof(widening[0]); k++) {
                        char want[300];

                        /* Where bwrap needs --network allow, that flag asks for it. */
                        if (k == 2 && backends[i] != NULL && bwrap_needs_allow)
                                continue;

                        switch (k) {
                        case 0:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"write_roots\": [\"%s\"]}\n", outside);
                                break;
                        case 1:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"mode\": \"workspace-write\"}\n");
                                break;
                        case 2:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"network\": {\"access\": \"allow\"}}\n");
                                break;
                        case 3:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"read_roots\": [\"/\"]}\n");
                                break;
                        case 4:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"env\": {\"pass\": [\"PATH\"]}}\n");
                                break;
                        case 5:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"network\": {\"allow_hosts\": [\"a.example\"]}}\n");
                                break;
                        case 6:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"backend\": \"landlock\"}\n");
                                break;
                        default:
                                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n"
                                                "\"unix_sockets\": [\"/run/x.sock\"]}\n");
                                break;
                        }
                        put_text(file, text);
                        run_b(backends[i], args, NULL, &r);
                        (void) snprintf(want, sizeof(want), "%s:2: %s", file, widening[k]);
                        if (r.status != SBX_EXIT_RUNNER_FAILURE || strstr(r.err, want) == NULL ||
                            strstr(r.err, "--policy") == NULL || count_lines(r.err) != 1)
                                fail_msg("[%s] widening project file (%s): status %d, stderr %s",
                                         bname(backends[i]), widening[k], r.status, r.err);
                        if (path_exists(mark) || path_exists(target))
                                fail_msg("[%s] the command ran under a widening project file",
                                         bname(backends[i]));
                        result_free(&r);
                }
                /* The same file named with --policy: used as written. */
                (void) snprintf(text, sizeof(text), "{\"version\": 1,\n\"mode\": "
                                "\"workspace-write\",\n\"write_roots\": [\"%s\"]}\n", outside);
                put_text(file, text);
                run_b(backends[i], named, NULL, &r);
                if (r.status != 0 || !path_exists(mark) || !path_exists(target))
                        fail_msg("[%s] --policy with the project file: status %d %s",
                                 bname(backends[i]), r.status, r.err);
                result_free(&r);
                (void) unlink(mark);
                (void) unlink(target);
        }
        /* Narrowing applies: read-only under --mode... given nothing, and
         * a timeout that ends the command (124). */
        put_text(file, "{\"version\": 1,\n\"mode\": \"read-only\",\n"
                       "\"limits\": {\"timeout\": 0.5}}\n");
        {
                const char *const slow[] = { "--workspace", pws, "--", "sleep", "30", NULL };
                const char *const skip[] = { "--workspace", pws, "--no-policy", "--explain",
                                             "--", "true", NULL };
                const char *const shown[] = { "--workspace", pws, "--explain", "--", "true",
                                              NULL };
                char want[400];

                run_cli(slow, NULL, &r);
                if (r.status != 124 || strstr(r.err, ".sandbox-run.json:3") == NULL)
                        fail_msg("a project file's timeout: status %d, stderr %s", r.status, r.err);
                result_free(&r);
                run_cli(shown, NULL, &r);
                assert_int_equal(r.status, 0);
                (void) snprintf(want, sizeof(want), "policy: %s (project file: may only narrow)\n",
                                file);
                assert_non_null(strstr(r.out, want));
                (void) snprintf(want, sizeof(want), "  timeout-ms = 500 (%s:3)\n", file);
                assert_non_null(strstr(r.out, want));
                result_free(&r);
                run_cli(skip, NULL, &r);
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, "policy: none (--no-policy)\n"));
                assert_non_null(strstr(r.out, "timeout: none\n"));
                result_free(&r);
        }
        (void) unlink(file);
        (void) rmdir(pws);
}

/* A malformed policy file is one line naming its file, line and key (and
 * the JSON error object with --json); the command never runs. */
static void test_cli__policy_file_errors(void **state)
{
        char file[256], want[400];
        struct result r;
        (void) state;

        (void) snprintf(file, sizeof(file), "%s/bad.json", base);
        put_text(file, "{\n  \"version\": 1,\n  \"limits\": {\"memroy\": \"1G\"}\n}\n");
        {
                const char *const args[] = { "--policy", file, "--workspace", ws, "--", "true",
                                             NULL };
                const char *const jargs[] = { "--json", "--policy", file, "--workspace", ws, "--",
                                              "true", NULL };
                json_object *j, *v, *m;

                run_cli(args, NULL, &r);
                (void) snprintf(want, sizeof(want), "sandbox-run: %s:3: limits.memroy: unknown "
                                "key (known: memory, pids, timeout)\n", file);
                assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
                assert_string_equal(r.err, want);
                result_free(&r);
                run_cli(jargs, NULL, &r);
                assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
                j = json_tokener_parse(r.err);
                if (j == NULL)
                        fail_msg("not JSON: %s", r.err);
                assert_true(json_object_object_get_ex(j, "error", &v));
                assert_true(json_object_object_get_ex(v, "message", &m));
                assert_non_null(strstr(json_object_get_string(m), ":3: limits.memroy: "));
                json_object_put(j);
                result_free(&r);
        }
        put_text(file, "{\n  \"version\": 1,\n  \"mode\": \"read-only\",\n}\n");
        {
                const char *const args[] = { "--policy", file, "--workspace", ws, "--", "true",
                                             NULL };

                run_cli(args, NULL, &r);
                (void) snprintf(want, sizeof(want), "%s:4:1: not valid JSON", file);
                assert_int_equal(r.status, SBX_EXIT_RUNNER_FAILURE);
                assert_non_null(strstr(r.err, want));
                assert_int_equal(count_lines(r.err), 1);
                result_free(&r);
        }
        (void) unlink(file);
}

/* sandbox-run's stderr is a pipe nobody reads (its read end closed)
 * while it forwards the command's complaint and prints what was denied:
 * it still exits with the command's status, and the command started
 * with SIGPIPE at its default disposition (issue 21, item 7). */
static void test_cli__closed_stderr_keeps_the_status(void **state)
{
        char script[512];
        size_t i;
        (void) state;

        need_backend();
        (void) snprintf(script, sizeof(script), "grep SigIgn /proc/self/status; "
                        "echo x > '%s/denied'; exit 3", outside);
        for (i = 0; i < n_backends + 1; i++) {
                const char *const conf[] = { "--workspace", ws, "--", "sh", "-c", script, NULL };
                const char *const danger[] = { "--workspace", ws, "--mode", "danger-full-access",
                                               "--", "grep", "SigIgn", "/proc/self/status",
                                               NULL };
                const char *buf[64], *argv[64];
                const char *const *args = i < n_backends ? with_backend(backends[i], conf, buf)
                                                         : danger;
                char out[4096];
                size_t n = 0, k, len = 0;
                int op[2], ep[2], status = 0;
                unsigned long long ign = ~0ull;
                const char *line;
                ssize_t got;
                pid_t pid;

                argv[n++] = sandbox_run;
                for (k = 0; args[k] != NULL; k++)
                        argv[n++] = args[k];
                argv[n] = NULL;
                assert_int_equal(pipe2(op, O_CLOEXEC), 0);
                assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
                close(ep[0]);           /* nobody reads sandbox-run's stderr */
                fflush(NULL);
                pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        dup2(op[1], 1);
                        dup2(ep[1], 2);
                        signal(SIGPIPE, SIG_DFL);
                        execv(argv[0], (char *const *) argv);
                        _exit(127);
                }
                close(op[1]);
                close(ep[1]);
                while (len < sizeof(out) - 1 &&
                       (got = read(op[0], out + len, sizeof(out) - 1 - len)) != 0) {
                        if (got < 0) {
                                assert_int_equal(errno, EINTR);
                                continue;
                        }
                        len += (size_t) got;
                }
                out[len] = '\0';
                close(op[0]);
                while (waitpid(pid, &status, 0) < 0)
                        assert_int_equal(errno, EINTR);
                if (i < n_backends && !(WIFEXITED(status) && WEXITSTATUS(status) == 3))
                        fail_msg("[%s] with a closed stderr sandbox-run %s %d, not the "
                                 "command's 3", bname(backends[i]),
                                 WIFSIGNALED(status) ? "died of signal" : "exited",
                                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                line = strstr(out, "SigIgn:");
                if (line == NULL || sscanf(line + 7, "%llx", &ign) != 1 ||
                    (ign & (1ull << (SIGPIPE - 1))) != 0)
                        fail_msg("[%s] the command did not start with SIGPIPE at its default "
                                 "(status %d): %s", i < n_backends ? bname(backends[i])
                                 : "danger-full-access", status, out);
                (void) snprintf(out, sizeof(out), "%s/denied", outside);
                if (path_exists(out))
                        fail_msg("the write outside the workspace was not denied");
        }
}

/* A command name with a newline, an escape sequence and a byte that is
 * not UTF-8 is shown escaped, on the one line of the message. */
static void test_cli__messages_are_printable(void **state)
{
        const char *const args[] = { "--workspace", ws, "--", "no\nsuch\x1b[31m\xff", NULL };
        size_t i;
        (void) state;

        need_backend();
        for (i = 0; i < n_backends; i++) {
                struct result r;
                const unsigned char *c;

                run_b(backends[i], args, NULL, &r);
                if (r.status != 127 || count_lines(r.err) != 1 ||
                    strstr(r.err, "no\\nsuch\\x1b[31m\\xff: command not found") == NULL)
                        fail_msg("[%s] status %d: %s", bname(backends[i]), r.status, r.err);
                for (c = (const unsigned char *) r.err; *c != '\0'; c++)
                        if ((*c < 0x20 && *c != '\n') || *c == 0x7f || *c >= 0x80)
                                fail_msg("[%s] a raw byte 0x%02x in: %s", bname(backends[i]),
                                         *c, r.err);
                result_free(&r);
        }
        /* A name the command chose, in the line saying what was denied
         * (the observed native backends): escaped, no forged line. */
        if (backends[0] == NULL) {
                char script[512];
                const char *const denied[] = { "--workspace", ws, "--", "sh", "-c", script, NULL };
                struct result r;

                (void) snprintf(script, sizeof(script), "touch \"$(printf '%s/a\\nFORGED"
                                "\\033[31m')\" 2>/dev/null; exit 1", outside);
                run_b(NULL, denied, NULL, &r);
                if (r.status != 1 || strstr(r.err, "/a\\nFORGED\\x1b[31m") == NULL ||
                    strstr(r.err, "\nFORGED") != NULL || strchr(r.err, '\x1b') != NULL)
                        fail_msg("a denied name is not shown escaped (status %d): %s", r.status,
                                 r.err);
                result_free(&r);
        }
}

/* A toolchain root that does not fit beside the --allow-read paths is an
 * error, never a run that silently lacks it. */
static void test_cli__toolchains_never_dropped_silently(void **state)
{
        static char dirs[256][160];
        const char *argv[600];
        char home[256], henv[300], p[512];
        struct result r;
        size_t n = 0, k;
        (void) state;

        need_backend();
        (void) snprintf(home, sizeof(home), "%s/fullhome", base);
        (void) snprintf(p, sizeof(p), "%s/.cargo/bin/cargo", home);
        put(p, "#!/bin/sh\necho cargo-ran\n", 0755);
        (void) chmod(home, 0755);
        (void) snprintf(henv, sizeof(henv), "HOME=%s", home);
        argv[n++] = sandbox_run;
        argv[n++] = "--workspace";
        argv[n++] = ws;
        for (k = 0; k < 256; k++) {
                (void) snprintf(dirs[k], sizeof(dirs[k]), "%s/many-%03zu", outside, k);
                (void) mkdir(dirs[k], 0755);
                argv[n++] = "--allow-read";
                argv[n++] = dirs[k];
        }
        argv[n++] = "--";
        argv[n++] = "true";
        argv[n] = NULL;
        {
                const char *const env[] = { henv, NULL };

                run_exec(argv, env, &r);
        }
        if (r.status != SBX_EXIT_RUNNER_FAILURE || strstr(r.err, "too many roots") == NULL ||
            strstr(r.err, ".cargo") == NULL)
                fail_msg("a toolchain root beyond 256 roots: status %d: %s", r.status, r.err);
        result_free(&r);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cli__explain_names_backend_and_guarantees),
                cmocka_unit_test(test_cli__write_outside_workspace_fails),
                cmocka_unit_test(test_cli__write_inside_needs_workspace_write),
                cmocka_unit_test(test_cli__allow_write_adds_a_root),
                cmocka_unit_test(test_cli__exit_status_propagates),
                cmocka_unit_test(test_cli__signal_death_is_128_plus_signal),
                cmocka_unit_test(test_cli__runner_failure_is_125_one_line),
                cmocka_unit_test(test_cli__json_error_object),
                cmocka_unit_test(test_cli__network_deny_and_allow),
                cmocka_unit_test(test_cli__confined_argv_runs_confined),
                cmocka_unit_test(test_cli__broad_workspace_refused_unless_forced),
                cmocka_unit_test(test_cli__allow_unix),
                cmocka_unit_test(test_cli__allow_host_names_refused_targets),
                cmocka_unit_test(test_cli__json_lists_the_denials),
                cmocka_unit_test(test_cli__timeout_kills_the_tree),
                cmocka_unit_test(test_cli__option_mistakes_are_errors),
                cmocka_unit_test(test_cli__toolchains_run_secrets_stay_hidden),
                cmocka_unit_test(test_cli__env_passes_what_is_named),
                cmocka_unit_test(test_cli__getopt_mistakes),
                cmocka_unit_test(test_cli__policy_file_applies),
                cmocka_unit_test(test_cli__user_policy_file),
                cmocka_unit_test(test_cli__project_file_cannot_widen),
                cmocka_unit_test(test_cli__policy_file_errors),
                cmocka_unit_test(test_cli__closed_stderr_keeps_the_status),
                cmocka_unit_test(test_cli__messages_are_printable),
                cmocka_unit_test(test_cli__toolchains_never_dropped_silently),
                cmocka_unit_test(test_cli__json_nomem_is_whole),
        };

        if (argc == 4 && strcmp(argv[1], "--connect") == 0)
                return connect_mode(argv[3]);
        if (argc == 3 && strcmp(argv[1], "--unix") == 0)
                return unix_mode(argv[2]);
        return cmocka_run_group_tests(tests, setup, teardown);
}
