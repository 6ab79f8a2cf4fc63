/*
 * test_tree_killed.c - a run's process tree dies with its keeper.  The
 * keeper (the rung-2 subreaper monitor, the rung-2 command itself when a
 * cgroup tracks it, the warm executor's zygote, the outer bwrap) is
 * SIGKILLed from outside while the command's tree runs: background jobs,
 * a daemonised grandchild (reparented), one that tries setsid, a nested
 * shell.  Afterwards no process carrying the run's unique marker (an
 * environment value every process of the tree inherits) is left, found
 * from outside by reading /proc/<pid>/environ.  Before the kill every
 * marked process must be in the keeper's session: setsid is refused on
 * rung 2.
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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <sandbox.h>

#define WAIT_MS 30000

/* The tree: two background sleeps, a daemonised one (its parent subshell
 * exits at once), one through setsid (refused on rung 2: it then runs in
 * the session all the same or not at all), a nested shell with its own
 * job; then it says so and waits. */
#define TREE "sleep 600 & (sleep 600 &); (setsid sleep 600 2>/dev/null &); " \
             "sh -c 'sleep 600 & wait' & "

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void pause_ms(long ms)
{
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

        nanosleep(&ts, NULL);
}

/* 1 if /proc/<pid>/environ holds the entry mark ("TZ=..."). */
static int has_mark(const char *pid, const char *mark)
{
        char path[300], buf[65536];
        size_t len = strlen(mark);
        ssize_t n, i;
        int fd;

        snprintf(path, sizeof(path), "/proc/%s/environ", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        for (i = 0; i < n; i += (ssize_t) strlen(buf + i) + 1)
                if (strncmp(buf + i, mark, len) == 0 && buf[i + (ssize_t) len] == '\0')
                        return 1;
        return 0;
}

/* State, parent and session of a pid from /proc/<pid>/stat; -1 if it
 * cannot be read. */
static int stat_of(const char *pid, char *st, long *ppid, long *sid)
{
        char path[300], buf[1024], *p;
        long pgrp;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%s/stat", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return -1;
        buf[n] = '\0';
        p = strrchr(buf, ')');
        if (p == NULL || sscanf(p + 2, "%c %ld %ld %ld", st, ppid, &pgrp, sid) != 4)
                return -1;
        return 0;
}

/* The session of a pid, -1 if it cannot be read; its state in *st. */
static long session_of(const char *pid, char *st)
{
        long ppid, sid;

        return stat_of(pid, st, &ppid, &sid) < 0 ? -1 : sid;
}

/* Live (not zombie) processes carrying mark; each one's session must be
 * sid when sid > 0 (else *bad_sid gets the first that is not). */
static int count_marked(const char *mark, long sid, long *bad_sid)
{
        struct dirent *e;
        DIR *d = opendir("/proc");
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)) != NULL) {
                char st = 0;
                long s;

                if (e->d_name[0] < '0' || e->d_name[0] > '9' || !has_mark(e->d_name, mark))
                        continue;
                s = session_of(e->d_name, &st);
                if (s < 0 || st == 'Z' || st == 'X')
                        continue;
                n++;
                if (sid > 0 && s != sid && bad_sid != NULL && *bad_sid == 0)
                        *bad_sid = s;
        }
        closedir(d);
        return n;
}

static long ppid_of(const char *pid)
{
        long ppid, sid;
        char st;

        return stat_of(pid, &st, &ppid, &sid) < 0 ? -1 : ppid;
}

/* The parent (host pid) of the marked process whose parent is not marked:
 * the command's keeper (an executor's zygote), or 0. */
static long find_keeper(const char *mark)
{
        struct dirent *e;
        DIR *d = opendir("/proc");
        long keeper = 0;

        assert_non_null(d);
        while (keeper == 0 && (e = readdir(d)) != NULL) {
                char pp[32];
                long ppid;

                if (e->d_name[0] < '0' || e->d_name[0] > '9' || !has_mark(e->d_name, mark))
                        continue;
                ppid = ppid_of(e->d_name);
                snprintf(pp, sizeof(pp), "%ld", ppid);
                if (ppid > 1 && !has_mark(pp, mark))
                        keeper = ppid;
        }
        closedir(d);
        return keeper;
}

/* Kill whatever is marked (cleanup after a failed check). */
static void kill_marked(const char *mark)
{
        struct dirent *e;
        DIR *d = opendir("/proc");

        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL)
                if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && has_mark(e->d_name, mark))
                        (void) kill((pid_t) atol(e->d_name), SIGKILL);
        closedir(d);
}

/* Wait until at least want marked processes run. */
static int wait_marked(const char *mark, int want)
{
        long deadline = now_ms() + WAIT_MS;
        int n;

        while ((n = count_marked(mark, 0, NULL)) < want && now_ms() < deadline)
                pause_ms(10);
        return n;
}

/* After the keeper's kill: no marked process is left (bounded wait for
 * the kernel to finish the kills). */
static void expect_tree_gone(const char *mark, const char *what)
{
        long deadline = now_ms() + WAIT_MS;
        int n;

        while ((n = count_marked(mark, 0, NULL)) > 0 && now_ms() < deadline)
                pause_ms(10);
        if (n > 0) {
                kill_marked(mark);
                fail_msg("%s: %d process(es) of the tree outlived their killed keeper", what, n);
        }
}

struct fx {
        char base[64];
        char *ws;
        char mark[64];
        sbx_profile *profile;
};

static int setup(void **state)
{
        static int seq;
        struct fx *f = calloc(1, sizeof(*f));
        sbx_error e = { 0, 0, { 0 } };

        assert_non_null(f);
        snprintf(f->base, sizeof(f->base), "/tmp/sbx-tree-XXXXXX");
        assert_non_null(mkdtemp(f->base));
        assert_int_equal(chmod(f->base, 0755), 0);
        f->ws = realpath(f->base, NULL);
        assert_non_null(f->ws);
        snprintf(f->mark, sizeof(f->mark), "TZ=SBXTREE%ldx%d", (long) getpid(), ++seq);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, f->ws, &f->profile, &e),
                         SBX_OK);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fx *f = *state;
        char path[4200];

        kill_marked(f->mark);
        snprintf(path, sizeof(path), "%s/keeper", f->ws);
        (void) unlink(path);
        (void) rmdir(f->ws);
        free(f->ws);
        sbx_profile_free(f->profile);
        free(f);
        return 0;
}

static int backend_ok(int32_t backend)
{
        return backend != SBX_BACKEND_BWRAP || access("/usr/bin/bwrap", X_OK) == 0;
}

/* A cold spawn on backend (timeout_ms > 0: rung 2 always has a monitor);
 * its keeper (sbx_child_pid) is SIGKILLed once the tree runs. */
/* The first child of pid (bwrap's keeper: the outer bwrap), or 0. */
static pid_t first_child(pid_t pid)
{
        char path[96], buf[256];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long) pid, (long) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        return (pid_t) atol(buf);
}

/* A cold spawn on backend (timeout_ms > 0: rung 2 always has a monitor);
 * its keeper (sbx_child_pid), or with outer the keeper's child (the outer
 * bwrap), is SIGKILLed once the tree runs. */
static void cold_case_at(struct fx *f, int32_t backend, uint64_t timeout_ms, int outer,
                         const char *what)
{
        const char *argv[] = { "/bin/sh", "-c", TREE "echo ready; exec sleep 600", NULL };
        const char *env_set[] = { f->mark, NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_error e = { 0, 0, { 0 } };
        sbx_plan *plan = NULL;
        sbx_profile *accepted = NULL;
        sbx_child *c = NULL;
        char buf[16];
        long bad = 0;
        int pfd[2], st = 0, n;
        pid_t keeper;

        if (!backend_ok(backend)) {
                if (getenv("SBX_REQUIRE_ALL") != NULL)
                        fail_msg("%s: the backend is not usable here", what);
                return;
        }
        /* bwrap cannot refuse a new .git: it runs workspace-write only
         * when the caller accepts that (docs/git.md). */
        if (backend == SBX_BACKEND_BWRAP) {
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

                assert_int_equal(sbx_profile_config_get(f->profile, &cfg, &e), SBX_OK);
                cfg.accept_unprotected_git = 1;
                assert_int_equal(sbx_profile_new(&cfg, &accepted, &e), SBX_OK);
        }
        assert_int_equal(sbx_plan_compile(accepted != NULL ? accepted : f->profile, &plan, &e),
                         SBX_OK);
        sbx_profile_free(accepted);
        assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
        o.backend = backend;
        o.stdout_fd = pfd[1];
        o.timeout_ms = timeout_ms;
        o.env_set = env_set;
        o.n_env_set = 1;
        if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                fail_msg("%s: sbx_spawn: %s", what, e.message);
        close(pfd[1]);
        n = (int) read(pfd[0], buf, sizeof(buf));
        close(pfd[0]);
        assert_true(n > 0);
        n = wait_marked(f->mark, 6);
        keeper = (pid_t) sbx_child_pid(c);
        assert_true(keeper > 1);
        /* Every process of the tree is in the keeper's session (rung 2
         * refuses setsid; bwrap's run in the outer bwrap's pid namespace,
         * in sessions of their own inside it: only rung 2 is checked). */
        (void) count_marked(f->mark, backend == SBX_BACKEND_LANDLOCK ? (long) keeper : 0, &bad);
        if (bad != 0) {
                kill_marked(f->mark);
                fail_msg("%s: a process of the tree left the keeper's session (%ld, not %ld)",
                         what, bad, (long) keeper);
        }
        if (n < 5) {
                kill_marked(f->mark);
                fail_msg("%s: only %d processes of the tree started", what, n);
        }
        if (outer) {
                pid_t outer_pid = first_child(keeper);

                assert_true(outer_pid > 1);
                assert_int_equal(kill(outer_pid, SIGKILL), 0);
        } else {
                assert_int_equal(kill(keeper, SIGKILL), 0);
        }
        assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
        expect_tree_gone(f->mark, what);
        sbx_child_free(c);
        sbx_plan_free(plan);
}

static void cold_case(struct fx *f, int32_t backend, uint64_t timeout_ms, const char *what)
{
        cold_case_at(f, backend, timeout_ms, 0, what);
}

static void test_landlock_monitor_killed(void **state)
{
        cold_case(*state, SBX_BACKEND_LANDLOCK, 600000, "rung 2 with a timeout: the monitor");
}

static void test_landlock_keeper_killed(void **state)
{
        /* Root: a cgroup tracks the tree and the command is the keeper;
         * anyone else: the subreaper monitor. */
        cold_case(*state, SBX_BACKEND_LANDLOCK, 0, "rung 2: the spawned process");
}

static void test_bwrap_outer_killed(void **state)
{
        cold_case_at(*state, SBX_BACKEND_BWRAP, 0, 1, "bwrap: the outer bwrap");
}

static void test_bwrap_keeper_killed(void **state)
{
        cold_case(*state, SBX_BACKEND_BWRAP, 0, "bwrap: its keeper");
}

/* A host (sandbox-run) killed at points while it starts bwrap: whatever
 * bwrap had started by then goes with it. */
static void test_bwrap_host_killed_during_start(void **state)
{
        struct fx *f = *state;
        const char *cli = getenv("SBX_SANDBOX_RUN");
        char env_mark[80], what[64];
        size_t i;

        if (cli == NULL || !backend_ok(SBX_BACKEND_BWRAP)) {
                if (getenv("SBX_REQUIRE_ALL") != NULL)
                        fail_msg("SBX_SANDBOX_RUN or bwrap is missing");
                skip();
        }
        snprintf(env_mark, sizeof(env_mark), "%s", f->mark);
        /* Every 400 us of the first 40 ms (bwrap's start takes some 25). */
        for (i = 0; i < 100; i++) {
                struct timespec ts = { 0, (long) i * 400 * 1000L };
                int st;
                pid_t host = fork();

                assert_true(host >= 0);
                if (host == 0) {
                        int dn = open("/dev/null", O_RDWR);

                        dup2(dn, 1);
                        dup2(dn, 2);
                        execle(cli, cli, "--backend", "bwrap", "--mode", "workspace-write",
                               "--accept-unprotected-git", "--workspace", f->ws, "--",
                               "/bin/sh", "-c", TREE "exec sleep 600", (char *) NULL,
                               (char *const[]){ "PATH=/usr/bin:/bin", env_mark,
                                                "HOME=/nonexistent-home", NULL });
                        _exit(127);
                }
                nanosleep(&ts, NULL);
                assert_int_equal(kill(host, SIGKILL), 0);
                assert_int_equal(waitpid(host, &st, 0), host);
                snprintf(what, sizeof(what), "bwrap: host killed %ld us into the start",
                         (long) i * 400);
                expect_tree_gone(f->mark, what);
        }
}

/* ------------------------------------------------------------ executors */

struct run_arg {
        sbx_executor *ex;
        const char *cmd;
        const char *const *envp;
        sbx_code rc;
        sbx_run_result res;
};

static void *run_thread(void *p)
{
        struct run_arg *a = p;
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_error e = { 0, 0, { 0 } };

        o.command = a->cmd;
        o.envp = a->envp;
        a->rc = sbx_executor_run(a->ex, &o, &a->res, &e);
        return NULL;
}

/* Read the pid the command wrote to path, bounded. */
static long read_pid_file(const char *path)
{
        long deadline = now_ms() + WAIT_MS, v = 0;
        char buf[32];

        while (now_ms() < deadline) {
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

                if (fd >= 0)
                        close(fd);
                if (n > 0 && buf[n - 1] == '\n') {
                        buf[n] = '\0';
                        v = atol(buf);
                        break;
                }
                pause_ms(10);
        }
        return v;
}

static void zygote_case(struct fx *f, int32_t backend, const char *what)
{
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_error e = { 0, 0, { 0 } };
        sbx_executor_set *set = NULL;
        char root[4200], keeper_path[4200], cmd[8400];
        long ppid_in;
        const char *envp[] = { "PATH=/usr/bin:/bin", f->mark, NULL };
        struct run_arg a;
        pthread_t th;
        long zygote;
        int n;

        memset(&a, 0, sizeof(a));
        snprintf(root, sizeof(root), "%s/../sbx-tree-root-%ld", f->ws, (long) getpid());
        snprintf(keeper_path, sizeof(keeper_path), "%s/keeper", f->ws);
        (void) unlink(keeper_path);
        snprintf(cmd, sizeof(cmd), TREE "echo $PPID > '%s'; exec sleep 600", keeper_path);
        so.scratch_root = root;
        so.max_executors = 2;
        so.backend = backend;
        if (sbx_executor_set_new(f->profile, &so, &set, &e) != SBX_OK)
                fail_msg("%s: sbx_executor_set_new: %s", what, e.message);
        assert_int_equal(sbx_executor_set_get(set, "k", &a.ex, &e), SBX_OK);
        a.cmd = cmd;
        a.envp = envp;
        assert_int_equal(pthread_create(&th, NULL, run_thread, &a), 0);
        ppid_in = read_pid_file(keeper_path);
        n = wait_marked(f->mark, 6);
        /* The zygote as the host sees it (rung 1: pid 1 inside). */
        zygote = find_keeper(f->mark);
        if (backend == SBX_BACKEND_LANDLOCK && zygote != ppid_in)
                zygote = 0;
        if (zygote <= 1 || n < 5) {
                kill_marked(f->mark);
                (void) pthread_join(th, NULL);
                fail_msg("%s: the tree did not start (keeper %ld, %d processes)", what, zygote, n);
        }
        assert_int_equal(kill((pid_t) zygote, SIGKILL), 0);
        assert_int_equal(pthread_join(th, NULL), 0);
        /* The run ends (an error, or a result that says it was killed). */
        if (a.rc == SBX_OK) {
                assert_true(a.res.signal == SIGKILL || a.res.exit_code == 128 + SIGKILL);
                sbx_run_result_free(&a.res);
        }
        expect_tree_gone(f->mark, what);
        sbx_executor_set_free(set);
        (void) unlink(keeper_path);
        (void) rmdir(root);
}

static void test_landlock_zygote_killed(void **state)
{
        zygote_case(*state, SBX_BACKEND_LANDLOCK, "rung 2 executor: the zygote");
}

static void test_native_zygote_killed(void **state)
{
        zygote_case(*state, SBX_BACKEND_NATIVE, "rung 1 executor: the zygote");
}

/* ------------------------------------------- the signal that ended it */

/* A command a signal ends is reported as that signal, on every rung and
 * with or without a monitor; one that exits 128 + N is an exit. */
static void test_signal_reported(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        struct fx *f = *state;
        size_t b, t;

        for (b = 0; b < 2; b++) {
                for (t = 0; t < 2; t++) {
                        const char *killed[] = { "/bin/sh", "-c", "kill -TERM $$; sleep 5", NULL };
                        const char *exits[] = { "/bin/sh", "-c", "exit 143", NULL };
                        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                        sbx_error e = { 0, 0, { 0 } };
                        sbx_plan *plan = NULL;
                        sbx_child *c = NULL;
                        int st = 0;

                        o.backend = backends[b];
                        o.timeout_ms = t ? 600000 : 0;
                        assert_int_equal(sbx_plan_compile(f->profile, &plan, &e), SBX_OK);
                        if (sbx_spawn(plan, killed, &o, &c, &e) != SBX_OK)
                                fail_msg("sbx_spawn: %s", e.message);
                        assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM)
                                fail_msg("backend %d, timeout %d: a command SIGTERM ended "
                                         "reported status 0x%x", (int) backends[b], (int) t, st);
                        sbx_child_free(c);
                        c = NULL;
                        if (sbx_spawn(plan, exits, &o, &c, &e) != SBX_OK)
                                fail_msg("sbx_spawn: %s", e.message);
                        assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                        if (!WIFEXITED(st) || WEXITSTATUS(st) != 143)
                                fail_msg("backend %d, timeout %d: exit 143 reported status 0x%x",
                                         (int) backends[b], (int) t, st);
                        sbx_child_free(c);
                        sbx_plan_free(plan);
                }
        }
}

static void test_signal_reported_executor(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        struct fx *f = *state;
        char root[4200];
        size_t b;

        snprintf(root, sizeof(root), "%s/../sbx-tree-sig-%ld", f->ws, (long) getpid());
        for (b = 0; b < 2; b++) {
                sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
                sbx_run_options ro = SBX_RUN_OPTIONS_INIT;
                sbx_run_result res;
                sbx_error e = { 0, 0, { 0 } };
                sbx_executor_set *set = NULL;
                sbx_executor *ex = NULL;
                int k;

                so.scratch_root = root;
                so.max_executors = 1;
                so.backend = backends[b];
                assert_int_equal(sbx_executor_set_new(f->profile, &so, &set, &e), SBX_OK);
                assert_int_equal(sbx_executor_set_get(set, "k", &ex, &e), SBX_OK);
                for (k = 0; k < 2; k++) {       /* cold (first) and warm */
                        memset(&res, 0, sizeof(res));
                        ro.command = "kill -TERM $$; sleep 5";
                        if (sbx_executor_run(ex, &ro, &res, &e) != SBX_OK)
                                fail_msg("sbx_executor_run: %s", e.message);
                        if (res.signal != SIGTERM)
                                fail_msg("backend %d run %d: signal %d, exited %d, exit_code %d",
                                         (int) backends[b], k, (int) res.signal,
                                         (int) res.exited, (int) res.exit_code);
                        sbx_run_result_free(&res);
                        memset(&res, 0, sizeof(res));
                        ro.command = "exit 143";
                        assert_int_equal(sbx_executor_run(ex, &ro, &res, &e), SBX_OK);
                        assert_int_equal(res.signal, 0);
                        assert_int_equal(res.exit_code, 143);
                        sbx_run_result_free(&res);
                }
                sbx_executor_set_free(set);
        }
        (void) rmdir(root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_landlock_monitor_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_landlock_keeper_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bwrap_outer_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bwrap_keeper_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bwrap_host_killed_during_start, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_landlock_zygote_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_native_zygote_killed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_signal_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_signal_reported_executor, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
