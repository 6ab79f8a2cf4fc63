/*
 * test_host_killed.c - kill -9 of the supervising process (sandbox-run,
 * or any embedding host) takes the whole confined tree down, and what it
 * could not clean up (the rung-2 scratch directory) is swept by the next
 * spawn of the same user.  Checked from outside: the confined process is
 * gone (its pid no longer exists), the scratch directory is gone after the
 * next run.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define WAIT_MS 30000

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void pause_ms(long ms)
{
        struct timespec ts = { 0, ms * 1000000L };

        nanosleep(&ts, NULL);
}

/* The first "sbx-run-<pid>-*" entry of dir, or "" */
static void scratch_entry(const char *dir, long pid, char *out, size_t len)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        char prefix[40];

        out[0] = '\0';
        snprintf(prefix, sizeof(prefix), "sbx-run-%ld-", pid);
        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL)
                if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
                        snprintf(out, len, "%s", e->d_name);
                        break;
                }
        closedir(d);
}

/* 1 if a cgroup named "sbx-<pid>-*" exists below dir (depth-bounded). */
static int cgroup_of(const char *dir, long pid, int depth)
{
        char prefix[32], sub[4096];
        struct dirent *e;
        DIR *d;
        int found = 0;

        if (depth > 8 || (d = opendir(dir)) == NULL)
                return 0;
        snprintf(prefix, sizeof(prefix), "sbx-%ld-", pid);
        while (!found && (e = readdir(d)) != NULL) {
                if (e->d_type != DT_DIR || e->d_name[0] == '.')
                        continue;
                if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
                        found = 1;
                else if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < (int) sizeof(sub))
                        found = cgroup_of(sub, pid, depth + 1);
        }
        closedir(d);
        return found;
}

static pid_t start_cli(const char *cli, const char *tmp, const char *ws, const char *cmd,
                       int out_fd)
{
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                char env_tmp[4200];

                snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", tmp);
                if (out_fd >= 0)
                        dup2(out_fd, 1);
                execle(cli, cli, "--backend", "landlock", "--mode", "workspace-write",
                       "--workspace", ws, "--", "/bin/sh", "-c", cmd, (char *) NULL,
                       (char *const[]){ "PATH=/usr/bin:/bin", env_tmp, "HOME=/nonexistent-home",
                                        NULL });
                _exit(127);
        }
        return pid;
}

static void test_host_killed(void **state)
{
        const char *cli = getenv("SBX_SANDBOX_RUN");
        char base[] = "/var/tmp/sbx-killed-XXXXXX", tmp[] = "/tmp/sbx-killed-tmp-XXXXXX";
        char ws[4096], entry[256], parent[64];
        char buf[64];
        int pfd[2], st;
        pid_t host, inner = 0, dead_host;
        long deadline;
        ssize_t n;

        (void) state;
        if (cli == NULL) {
                if (getenv("SBX_REQUIRE_ALL") != NULL)
                        fail_msg("SBX_SANDBOX_RUN is not set");
                skip();
        }
        assert_non_null(mkdtemp(base));
        /* Rung 2's scratch goes below the user's one scratch parent
         * (docs/backends.md "Scratch and /tmp"), whatever TMPDIR says. */
        assert_non_null(mkdtemp(tmp));
        snprintf(parent, sizeof(parent), "/tmp/sbx-run-%lu", (unsigned long) geteuid());
        snprintf(ws, sizeof(ws), "%s/ws", base);
        assert_int_equal(mkdir(ws, 0755), 0);

        /* The confined shell prints its pid, then sleeps. */
        assert_int_equal(pipe(pfd), 0);
        host = start_cli(cli, tmp, ws, "echo $$; exec sleep 600", pfd[1]);
        close(pfd[1]);
        n = read(pfd[0], buf, sizeof(buf) - 1);
        close(pfd[0]);
        assert_true(n > 0);
        buf[n] = '\0';
        inner = (pid_t) atol(buf);
        assert_true(inner > 1);
        assert_int_equal(kill(inner, 0), 0);
        scratch_entry(parent, (long) host, entry, sizeof(entry));
        assert_true(entry[0] != '\0');

        /* kill -9 of the host: the tree follows, without a reaper. */
        dead_host = host;
        assert_int_equal(kill(host, SIGKILL), 0);
        assert_int_equal(waitpid(host, &st, 0), host);
        deadline = now_ms() + WAIT_MS;
        while (kill(inner, 0) == 0 && now_ms() < deadline)
                pause_ms(10);
        if (kill(inner, 0) == 0) {
                (void) kill(inner, SIGKILL);
                fail_msg("the confined process %ld outlived its killed host", (long) inner);
        }

        /* The next spawn sweeps the dead host's scratch directory. */
        host = start_cli(cli, tmp, ws, "true", -1);
        assert_int_equal(waitpid(host, &st, 0), host);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        scratch_entry(parent, (long) dead_host, entry, sizeof(entry));
        if (entry[0] != '\0')
                fail_msg("the killed host's scratch directory %s/%s is still there", parent,
                         entry);
        /* ... and its per-spawn cgroup (root gets a tracking cgroup). */
        if (cgroup_of("/sys/fs/cgroup", (long) dead_host, 0))
                fail_msg("the killed host's cgroup sbx-%ld-* is still there", (long) dead_host);
        (void) rmdir(tmp);
        (void) rmdir(ws);
        (void) rmdir(base);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_host_killed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
