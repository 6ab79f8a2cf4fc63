/*
 * test_spawn_core.c - the spawn core, checked from outside:
 *   - 8 host threads spawning at once on every Linux backend while other
 *     threads churn malloc and a host "reaper" calls waitpid(-1): no hang,
 *     every command ran, and afterwards no leaked fd, zombie, scratch
 *     directory or cgroup;
 *   - a host that ignores SIGCHLD still gets its child's status;
 *   - one admission check: a Deny or Gated command never runs through
 *     sbx_spawn, Confine or the stage-2 runner;
 *   - a setup step that hangs is bounded and named; the spawn timeout kills
 *     the whole tree (a background grandchild included).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox.h"
#include "compile/runner_args.h"
#include "linux/linux_internal.h"

static char ws[256], tmpdir[300];

static int count_dir(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        int n = 0;

        if (d == NULL)
                return -1;
        while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        closedir(d);
        return n;
}

/* Rung-2 scratch directories of this process left in the user's scratch
 * parent (docs/backends.md "Scratch and /tmp"). */
static int scratch_left(void)
{
        DIR *d = opendir(tmpdir);
        struct dirent *de;
        char prefix[40];
        int n = 0;

        if (d == NULL)
                return errno == ENOENT ? 0 : -1;
        snprintf(prefix, sizeof(prefix), "sbx-run-%ld-", (long) getpid());
        while ((de = readdir(d)) != NULL)
                if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
                        n++;
        closedir(d);
        return n;
}

static int open_fds(void)
{
        return count_dir("/proc/self/fd");
}

static int zombies_or_children(void)
{
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
                return errno == ECHILD ? 0 : -1;
        return 1;       /* some child (running or zombie) is still ours */
}

static char cg_prefix[64];
static int cg_found;

static int cg_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        if (ftw->level > 6)
                return FTW_SKIP_SUBTREE;
        if (flag == FTW_D && strncmp(path + ftw->base, cg_prefix, strlen(cg_prefix)) == 0)
                cg_found++;
        return FTW_CONTINUE;
}

static int leftover_cgroups(void)
{
        snprintf(cg_prefix, sizeof(cg_prefix), "sbx-%ld-", (long) getpid());
        cg_found = 0;
        (void) nftw("/sys/fs/cgroup", cg_visit, 16, FTW_PHYS | FTW_ACTIONRETVAL);
        return cg_found;
}

/* Workspace read-write, host readable; read_root (may be NULL) one extra
 * read-only root. */
static sbx_plan *make_plan_full(int32_t command, int32_t network, const char *read_root)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_root_access root = { read_root, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_error e;

        cfg.workspace_root = ws;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.command = command;
        cfg.network = network;
        if (read_root != NULL) {
                cfg.additional_roots = &root;
                cfg.n_additional_roots = 1;
        }
        cfg.accept_unprotected_git = 1;      /* bwrap runs these too (docs/git.md) */
        if (sbx_profile_new(&cfg, &profile, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        sbx_profile_free(profile);
        return plan;
}

static sbx_plan *make_plan_net(int32_t command, int32_t network)
{
        return make_plan_full(command, network, NULL);
}

static char probe_dir[512];

static sbx_plan *make_plan(int32_t command)
{
        return make_plan_net(command, SBX_ACCESS_DENY);
}

static int setup(void **state)
{
        char *canon = NULL;

        (void) state;
        snprintf(ws, sizeof(ws), "/tmp/sbx-core-XXXXXX");
        if (mkdtemp(ws) == NULL)
                return -1;
        if (sbx_path_canonical(ws, &canon, NULL) != SBX_OK)
                return -1;
        snprintf(ws, sizeof(ws), "%s", canon);
        sbx_free(canon);
        /* Scratch directories (rung 2) go below the user's one scratch
         * parent, named by the spawning pid: "none left" counts ours. */
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/sbx-run-%lu", (unsigned long) geteuid());
        return 0;
}

static int teardown(void **state)
{
        char cmd[400];

        (void) state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ws);
        return system(cmd) == 0 ? 0 : -1;
}

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* ------------------------------------------------------------ threads */

#define N_THREADS 8
#define N_SPAWNS  25

struct job {
        const sbx_plan *plan;
        int32_t backend;
        int     ok, bad;
        char    why[SBX_ERROR_SIZE];
};

static volatile int stop_churn;

static void *churn(void *arg)
{
        void *v[64] = { 0 };
        unsigned i = 0;

        (void) arg;
        while (!stop_churn) {
                free(v[i % 64]);
                v[i % 64] = malloc(16 + (i * 7919u) % 8192);
                i++;
        }
        for (i = 0; i < 64; i++)
                free(v[i]);
        return NULL;
}

/* A host runtime that reaps "its" children with waitpid(-1). */
static void *reaper(void *arg)
{
        int *stolen = arg;

        while (!stop_churn) {
                pid_t p = waitpid(-1, NULL, WNOHANG);

                if (p > 0)
                        (*stolen)++;
                (void) sched_yield();
        }
        return NULL;
}

static void *spawner(void *arg)
{
        struct job *j = arg;
        const char *const argv[] = { "/bin/sh", "-c", "exit 7", NULL };
        int i;

        for (i = 0; i < N_SPAWNS; i++) {
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1;

                o.backend = j->backend;
                if (sbx_spawn(j->plan, argv, &o, &c, &e) != SBX_OK) {
                        j->bad++;
                        snprintf(j->why, sizeof(j->why), "%s", e.message);
                        continue;
                }
                if (sbx_child_wait(c, &st, &e) != SBX_OK || !WIFEXITED(st) ||
                    WEXITSTATUS(st) != 7) {
                        j->bad++;
                        snprintf(j->why, sizeof(j->why), "status 0x%x", (unsigned) st);
                } else {
                        j->ok++;
                }
                sbx_child_free(c);
        }
        return NULL;
}

static void run_threads(int32_t backend)
{
        pthread_t th[N_THREADS], ch[2], rp;
        struct job jobs[N_THREADS];
        /* bwrap cannot claim network-deny on a host with a vsock
         * transport (docs/backends.md): give it the network. */
        sbx_plan *plan = make_plan_net(SBX_ACCESS_ALLOW, backend == SBX_BACKEND_BWRAP
                                                                 ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY);
        int fds0, i, ok = 0, stolen = 0;

        fds0 = open_fds();
        stop_churn = 0;
        for (i = 0; i < 2; i++)
                assert_int_equal(pthread_create(&ch[i], NULL, churn, NULL), 0);
        /* bwrap execs as our direct child, so its exit signal is SIGCHLD
         * and a host reaper could take it (docs/backends.md). */
        if (backend != SBX_BACKEND_BWRAP)
                assert_int_equal(pthread_create(&rp, NULL, reaper, &stolen), 0);
        for (i = 0; i < N_THREADS; i++) {
                memset(&jobs[i], 0, sizeof(jobs[i]));
                jobs[i].plan = plan;
                jobs[i].backend = backend;
                assert_int_equal(pthread_create(&th[i], NULL, spawner, &jobs[i]), 0);
        }
        for (i = 0; i < N_THREADS; i++)
                assert_int_equal(pthread_join(th[i], NULL), 0);
        stop_churn = 1;
        for (i = 0; i < 2; i++)
                assert_int_equal(pthread_join(ch[i], NULL), 0);
        if (backend != SBX_BACKEND_BWRAP)
                assert_int_equal(pthread_join(rp, NULL), 0);
        for (i = 0; i < N_THREADS; i++) {
                if (jobs[i].bad > 0)
                        fail_msg("%s: thread %d: %d of %d spawns failed (%s)",
                                 sbx_backend_name(backend), i, jobs[i].bad, N_SPAWNS, jobs[i].why);
                ok += jobs[i].ok;
        }
        assert_int_equal(ok, N_THREADS * N_SPAWNS);
        if (stolen != 0)
                fail_msg("%s: a waitpid(-1) reaper took %d sandbox children",
                         sbx_backend_name(backend), stolen);
        if (open_fds() != fds0)
                fail_msg("%s: %d fds open before, %d after", sbx_backend_name(backend), fds0,
                         open_fds());
        if (zombies_or_children() != 0)
                fail_msg("%s: a child or zombie is left", sbx_backend_name(backend));
        if (scratch_left() != 0)
                fail_msg("%s: %d scratch entries left in %s", sbx_backend_name(backend),
                         scratch_left(), tmpdir);
        if (leftover_cgroups() != 0)
                fail_msg("%s: %d cgroups left", sbx_backend_name(backend), leftover_cgroups());
        sbx_plan_free(plan);
}

static int have_bwrap(void)
{
        static const char *const dirs[] = { "/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap" };
        size_t i;

        for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                if (access(dirs[i], X_OK) == 0)
                        return 1;
        return 0;
}

static void test_spawn_core__threads_native(void **state)
{
        (void) state;
        run_threads(SBX_BACKEND_NATIVE);
}

static void test_spawn_core__threads_landlock(void **state)
{
        (void) state;
        run_threads(SBX_BACKEND_LANDLOCK);
}

static void test_spawn_core__threads_bwrap(void **state)
{
        (void) state;
        if (!have_bwrap()) {
                if (require_all())
                        fail_msg("bwrap is not installed (SBX_REQUIRE_ALL=1)");
                skip();
        }
        run_threads(SBX_BACKEND_BWRAP);
}

/* --------------------------------------------------------- SIGCHLD */

static void test_spawn_core__host_ignoring_sigchld_gets_the_status(void **state)
{
        const char *const argv[] = { "/bin/sh", "-c", "exit 3", NULL };
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
        struct sigaction ign, old;
        size_t i;
        (void) state;

        memset(&ign, 0, sizeof(ign));
        ign.sa_handler = SIG_IGN;
        assert_int_equal(sigaction(SIGCHLD, &ign, &old), 0);
        for (i = 0; i < 2; i++) {
                /* restored below; a failure ends the whole binary's run */
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1;

                o.backend = backends[i];
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("sbx_spawn: %s", e.message);
                if (sbx_child_wait(c, &st, &e) != SBX_OK)
                        fail_msg("sbx_child_wait with SIGCHLD ignored: %s", e.message);
                assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
                sbx_child_free(c);
        }
        assert_int_equal(sigaction(SIGCHLD, &old, NULL), 0);
        sbx_plan_free(plan);
}

/* -------------------------------------------------------- admission */

static void marker_path(char *buf, size_t n)
{
        snprintf(buf, n, "%s/ran", ws);
}

/* env_set (spawn options version 3): a named variable reaches the
 * command although the filter drops it; HOME, TMPDIR and malformed
 * entries are refused before anything runs. */
static void test_spawn_core__env_set(void **state)
{
        static const char *const bad[][1] = { { "HOME=/x" }, { "TMPDIR=/x" }, { "1A=b" },
                                              { "NOEQUALS" }, { "=v" } };
        const char *const good[] = { "SBX_SPAWN_SET=yes", "GOFLAGS=-x" };
        const char *const argv[] = { "/bin/sh", "-c",
                                     "test \"$SBX_SPAWN_SET:$GOFLAGS:$SBX_DROPPED\" = yes:-x:",
                                     NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", "SBX_DROPPED=no", "GOFLAGS=caller",
                                     NULL };
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        sbx_plan *plan = make_plan_net(SBX_ACCESS_ALLOW, SBX_ACCESS_DENY);
        size_t i, b;
        (void) state;

        for (b = 0; b < SBX__ARRAY_SIZE(backends); b++) {
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1;

                if (backends[b] == SBX_BACKEND_BWRAP && !have_bwrap())
                        continue;
                o.backend = backends[b];
                o.envp = envp;
                o.env_set = good;
                o.n_env_set = 2;
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("%s: sbx_spawn: %s", sbx_backend_name(o.backend), e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                sbx_child_free(c);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        fail_msg("%s: the command did not see env_set (status 0x%x)",
                                 sbx_backend_name(o.backend), (unsigned) st);
                for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                        o.env_set = bad[i];
                        o.n_env_set = 1;
                        c = NULL;
                        assert_int_equal(sbx_spawn(plan, argv, &o, &c, &e), SBX_E_INVALID);
                        assert_null(c);
                }
        }
        sbx_plan_free(plan);
}

static void test_spawn_core__deny_and_gated_never_run(void **state)
{
        static const int32_t modes[] = { SBX_ACCESS_DENY, SBX_ACCESS_GATED };
        static const sbx_code want[] = { SBX_E_GRANT_DENIED, SBX_E_GRANT_REQUIRED };
        static const int32_t backends[] = { SBX_BACKEND_AUTO, SBX_BACKEND_NATIVE,
                                            SBX_BACKEND_LANDLOCK };
        char marker[300], script[400];
        size_t a, b;
        (void) state;

        marker_path(marker, sizeof(marker));
        snprintf(script, sizeof(script), "touch '%s'", marker);
        for (a = 0; a < 2; a++) {
                sbx_plan *plan = make_plan(modes[a]);
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
                sbx_profile *profile = NULL;
                sbx_confined_argv *conf = NULL;
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_error e;

                for (b = 0; b < 3; b++) {
                        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                        sbx_child *c = NULL;
                        sbx_code r;

                        o.backend = backends[b];
                        r = sbx_spawn(plan, argv, &o, &c, &e);
                        if (r == SBX_OK) {
                                (void) sbx_child_wait(c, NULL, NULL);
                                sbx_child_free(c);
                        }
                        assert_int_equal(r, want[a]);
                        assert_int_equal(access(marker, F_OK), -1);
                }
                /* Confine */
                cfg.workspace_root = ws;
                cfg.workspace_read = cfg.workspace_write = cfg.host_read = SBX_ACCESS_ALLOW;
                cfg.command = modes[a];
                cfg.accept_unprotected_git = 1;      /* bwrap runs these too (docs/git.md) */
                assert_int_equal(sbx_profile_new(&cfg, &profile, &e), SBX_OK);
                assert_int_equal(sbx_confine_profile(argv, profile, &conf, &e), want[a]);
                assert_null(conf);
                /* The stage-2 runner, handed the same profile, refuses too. */
                {
                        const char *runner = getenv("SBX_SANDBOX_RUN");
                        char **rargv = NULL;
                        pid_t pid;
                        int st = -1, devnull;

                        if (runner == NULL)
                                fail_msg("SBX_SANDBOX_RUN is not set");
                        assert_int_equal(sbx__runner_format(profile, SBX_BACKEND_NATIVE, NULL, runner,
                                                            argv, &rargv, &e), SBX_OK);
                        pid = fork();
                        if (pid == 0) {
                                devnull = open("/dev/null", O_WRONLY);
                                dup2(devnull, 2);
                                execv(runner, rargv);
                                _exit(99);
                        }
                        assert_true(pid > 0);
                        assert_int_equal(waitpid(pid, &st, 0), pid);
                        assert_true(WIFEXITED(st));
                        assert_int_equal(WEXITSTATUS(st), SBX_EXIT_RUNNER_FAILURE);
                        assert_int_equal(access(marker, F_OK), -1);
                        sbx_strv_free(rargv);
                }
                sbx_profile_free(profile);
                sbx_plan_free(plan);
                /* An acknowledged unconfined profile may still deny or gate
                 * commands: the direct spawn passes the same check. */
                {
                        sbx_profile_config ucfg = SBX_PROFILE_CONFIG_INIT;
                        sbx_profile *up = NULL;
                        sbx_plan *uplan = NULL;
                        sbx_child *c = NULL;
                        sbx_code r;

                        ucfg.workspace_root = ws;
                        ucfg.workspace_read = ucfg.workspace_write = SBX_ACCESS_ALLOW;
                        ucfg.host_read = ucfg.host_write = ucfg.network = SBX_ACCESS_ALLOW;
                        ucfg.home = SBX_HOME_REAL;
                        ucfg.isolation = SBX_ISOLATION_UNCONFINED;
                        ucfg.ack_unconfined = 1;
                        ucfg.command = modes[a];
                        if (sbx_profile_new(&ucfg, &up, &e) != SBX_OK)
                                fail_msg("unconfined profile: %s", e.message);
                        assert_int_equal(sbx_plan_compile(up, &uplan, &e), SBX_OK);
                        r = sbx_spawn(uplan, argv, NULL, &c, &e);
                        if (r == SBX_OK) {
                                (void) sbx_child_wait(c, NULL, NULL);
                                sbx_child_free(c);
                        }
                        assert_int_equal(r, want[a]);
                        assert_int_equal(access(marker, F_OK), -1);
                        sbx_plan_free(uplan);
                        sbx_profile_free(up);
                }
        }
}

/* ---------------------------------------------------- bounded waits */

static void test_spawn_core__hanging_setup_is_bounded_and_named(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        char marker[300], script[400];
        int s, fds0 = open_fds();
        size_t b;
        (void) state;

        marker_path(marker, sizeof(marker));
        snprintf(script, sizeof(script), "touch '%s'", marker);
        for (s = 1; sbx__step_name(s) != NULL; s++)
                if (strcmp(sbx__step_name(s), "changing to the working directory") == 0)
                        break;
        assert_non_null(sbx__step_name(s));
        sbx__launch_set_timeout(400);
        sbx__fault_hang(s);
        for (b = 0; b < 2; b++) {
                sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;

                o.backend = backends[b];
                assert_int_equal(sbx_spawn(plan, argv, &o, &c, &e), SBX_E_SANDBOX_UNAVAILABLE);
                if (strstr(e.message, "changing to the working directory") == NULL ||
                    strstr(e.message, "did not finish") == NULL)
                        fail_msg("the error does not name the step: %s", e.message);
                assert_int_equal(access(marker, F_OK), -1);
                sbx_plan_free(plan);
        }
        sbx__fault_hang(0);
        sbx__launch_set_timeout(0);
        assert_int_equal(zombies_or_children(), 0);
        assert_int_equal(open_fds(), fds0);
        assert_int_equal(scratch_left(), 0);
}

/* The timeout kills the whole tree, a background grandchild included. */
static int sleeper_alive(const char *tag)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        int found = 0;

        assert_non_null(d);
        while ((de = readdir(d)) != NULL) {
                char path[300], buf[512];
                ssize_t n, i;
                int fd;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                for (i = 0; i < n; i++)
                        if (buf[i] == '\0')
                                buf[i] = ' ';
                buf[n] = '\0';
                if (strstr(buf, tag) != NULL && strstr(buf, "sh -c") == NULL)
                        found = 1;
        }
        closedir(d);
        return found;
}

/* Start `tag & tag` (the first one setsid'd when asked), end it by the
 * timeout or by sbx_child_kill(SIGKILL), and check from /proc that no
 * process of the tree is left. */
static void end_tree(int32_t backend, const char *tag_prefix, int by_timeout)
{
        sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
        char script[200], tag[32];
        const char *const argv[] = { "/bin/sh", "-c", script, NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *c = NULL;
        sbx_error e;
        int st = -1, done = 0;

        /* A distinctive sleep length finds the grandchild in /proc. */
        snprintf(tag, sizeof(tag), "sleep %s%d%d", tag_prefix, (int) backend,
                 (int) getpid() % 1000);
        snprintf(script, sizeof(script), "%s%s & %s", by_timeout ? "setsid " : "", tag, tag);
        o.backend = backend;
        if (by_timeout)
                o.timeout_ms = 500;
        if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                fail_msg("sbx_spawn: %s", e.message);
        if (by_timeout) {
                assert_true(sbx_child_pollfd(c) >= 0);
                assert_int_equal(sbx_child_try_wait(c, &done, &st, &e), SBX_OK);
                assert_int_equal(done, 0);
        } else {
                assert_int_equal(sbx_child_kill(c, SIGKILL, &e), SBX_OK);
        }
        if (sbx_child_wait(c, &st, &e) != SBX_OK)
                fail_msg("sbx_child_wait: %s", e.message);
        assert_int_equal(sbx_child_timed_out(c), by_timeout);
        if (by_timeout)
                assert_int_equal(sbx_child_pollfd(c), -1);
        sbx_child_free(c);
        if (sleeper_alive(tag))
                fail_msg("%s: %s left %s running", sbx_backend_name(backend),
                         by_timeout ? "the timeout" : "sbx_child_kill(SIGKILL)", tag);
        sbx_plan_free(plan);
}

static void test_spawn_core__timeout_kills_the_tree(void **state)
{
        (void) state;
        end_tree(SBX_BACKEND_NATIVE, "97", 1);
        end_tree(SBX_BACKEND_LANDLOCK, "97", 1);
}

static void test_spawn_core__kill_ends_the_tree(void **state)
{
        (void) state;
        end_tree(SBX_BACKEND_NATIVE, "98", 0);
        end_tree(SBX_BACKEND_LANDLOCK, "98", 0);
}

/* The monitor reaps a tree of any depth: a grandchild of a grandchild is
 * killed, the command's own status is reported, nothing waits for the
 * orphans to end on their own (a generous timeout would report 137). */
static void test_spawn_core__orphans_of_any_depth_are_killed(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        size_t b;
        (void) state;

        for (b = 0; b < 2; b++) {
                sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
                char script[300], tag[32];
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1;

                snprintf(tag, sizeof(tag), "sleep 96%zu%d", b, (int) getpid() % 1000);
                snprintf(script, sizeof(script),
                         "sh -c 'sh -c \"%s; :\" & %s; :' & sleep 0.2; exit 4", tag, tag);
                o.backend = backends[b];
                o.timeout_ms = 120000;
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("sbx_spawn: %s", e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 4 || sbx_child_timed_out(c))
                        fail_msg("%s: status 0x%x, timed out %d (want exit 4)",
                                 sbx_backend_name(backends[b]), (unsigned) st,
                                 sbx_child_timed_out(c));
                sbx_child_free(c);
                if (sleeper_alive(tag))
                        fail_msg("%s: a nested orphan (%s) outlived the command",
                                 sbx_backend_name(backends[b]), tag);
                sbx_plan_free(plan);
        }
}

/* A host thread pool: the thread that spawned the sandbox exits; the
 * sandbox lives on (the init watches the process, not the thread). */
struct thread_spawn {
        const sbx_plan *plan;
        int32_t backend;
        sbx_child *child;
        sbx_code r;
        char why[SBX_ERROR_SIZE];
};

static void *spawn_and_exit(void *arg)
{
        struct thread_spawn *t = arg;
        const char *const argv[] = { "/bin/sh", "-c", "sleep 0.3; exit 3", NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_error e;

        o.backend = t->backend;
        t->r = sbx_spawn(t->plan, argv, &o, &t->child, &e);
        if (t->r != SBX_OK)
                snprintf(t->why, sizeof(t->why), "%s", e.message);
        return NULL;
}

static void test_spawn_core__spawning_thread_may_exit(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
        size_t b;
        (void) state;

        for (b = 0; b < 2; b++) {
                struct thread_spawn t;
                pthread_t th;
                sbx_error e;
                int st = -1;

                memset(&t, 0, sizeof(t));
                t.plan = plan;
                t.backend = backends[b];
                assert_int_equal(pthread_create(&th, NULL, spawn_and_exit, &t), 0);
                assert_int_equal(pthread_join(th, NULL), 0);
                if (t.r != SBX_OK)
                        fail_msg("sbx_spawn: %s", t.why);
                assert_int_equal(sbx_child_wait(t.child, &st, &e), SBX_OK);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 3)
                        fail_msg("%s: the sandbox died with its spawning thread (status 0x%x)",
                                 sbx_backend_name(backends[b]), (unsigned) st);
                sbx_child_free(t.child);
        }
        sbx_plan_free(plan);
}

/* Rung 2: the command cannot kill or stop its monitor (a nested Landlock
 * signal scope), so the timeout still ends the whole tree -- also where
 * the domain has no host reads (the monitor's child list was opened
 * before Landlock). */
static void test_spawn_core__command_cannot_escape_its_monitor(void **state)
{
        static const int32_t host[] = { SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        char marker[300];
        size_t h;
        (void) state;

        marker_path(marker, sizeof(marker));
        for (h = 0; h < 2; h++) {
                sbx_plan *plan;
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
                sbx_profile *profile = NULL;
                char script[800], tag[32], buf[16] = { 0 };
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1, fd;

                cfg.workspace_root = ws;
                cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_ALLOW;
                cfg.host_read = host[h];
                cfg.command = SBX_ACCESS_ALLOW;
                cfg.accept_unprotected_git = 1;      /* bwrap runs these too (docs/git.md) */
                assert_int_equal(sbx_profile_new(&cfg, &profile, &e), SBX_OK);
                assert_int_equal(sbx_plan_compile(profile, &plan, &e), SBX_OK);
                sbx_profile_free(profile);
                (void) unlink(marker);
                snprintf(tag, sizeof(tag), "sleep 95%zu%d", h, (int) getpid() % 1000);
                snprintf(script, sizeof(script),
                         "setsid %s & kill -9 $PPID 2>/dev/null; echo $? > '%s'; %s", tag, marker,
                         tag);
                o.backend = SBX_BACKEND_LANDLOCK;
                o.timeout_ms = 700;
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("sbx_spawn: %s", e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                assert_int_equal(sbx_child_timed_out(c), 1);
                sbx_child_free(c);
                fd = open(marker, O_RDONLY | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
                close(fd);
                if (atoi(buf) == 0)
                        fail_msg("host reads %s: the command killed its monitor",
                                 host[h] == SBX_ACCESS_ALLOW ? "allowed" : "denied");
                if (sleeper_alive(tag))
                        fail_msg("host reads %s: %s outlived the timeout",
                                 host[h] == SBX_ACCESS_ALLOW ? "allowed" : "denied", tag);
                sbx_plan_free(plan);
        }
}

/* /dev exposes only the runtime nodes: another terminal (a pty the host
 * opened here, standing for another user's shell), consoles and block
 * devices cannot be opened, on either rung; /dev/null still works. */
static void test_spawn_core__dev_shows_only_runtime_nodes(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        static const char *const others[] = { "/dev/tty1", "/dev/console", "/dev/loop0",
                                              "/dev/vcs", "/dev/kmsg", "/dev/sda", "/dev/vda" };
        char script[2048], *pts;
        int master, st = -1;
        size_t b, i, off;
        (void) state;

        master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(master >= 0);
        assert_int_equal(grantpt(master), 0);
        assert_int_equal(unlockpt(master), 0);
        pts = ptsname(master);
        assert_non_null(pts);
        /* Exit 0 only if every open was refused and /dev/null worked. */
        off = (size_t) snprintf(script, sizeof(script),
                                "echo ok > /dev/null || exit 20; "
                                "(exec 3< '%s') 2>/dev/null && exit 21; ", pts);
        for (i = 0; i < SBX__ARRAY_SIZE(others); i++)
                off += (size_t) snprintf(script + off, sizeof(script) - off,
                                         "if [ -e %s ]; then (exec 3< %s) 2>/dev/null && exit %zu; fi; ",
                                         others[i], others[i], 30 + i);
        snprintf(script + off, sizeof(script) - off, "exit 0");
        for (b = 0; b < 2; b++) {
                sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;

                o.backend = backends[b];
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("sbx_spawn: %s", e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                sbx_child_free(c);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        fail_msg("%s: status 0x%x (20: /dev/null refused, 21: another "
                                 "terminal opened, 30+: a host device opened)",
                                 sbx_backend_name(backends[b]), (unsigned) st);
                sbx_plan_free(plan);
        }
        close(master);
}

/* The account's home (from the password database) stays hidden when HOME
 * points elsewhere: a changed HOME cannot uncover ~/.ssh.  Checked with a
 * secret the host puts into its own home and removes afterwards. */
static void test_spawn_core__account_home_hidden_whatever_HOME_says(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        struct passwd *pw = getpwuid(geteuid());
        char *home = NULL, secret[600], fake[300], henv[320], script[700];
        size_t b;
        int fd;
        (void) state;

        assert_non_null(pw);
        if (pw->pw_dir == NULL || sbx_path_canonical(pw->pw_dir, &home, NULL) != SBX_OK ||
            strcmp(home, "/") == 0)
                fail_msg("this account has no home of its own to hide (%s)",
                         pw->pw_dir != NULL ? pw->pw_dir : "none");
        snprintf(secret, sizeof(secret), "%s/.sbx-core-secret-%ld", home, (long) getpid());
        fd = open(secret, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "s3cret\n", 7), 7);
        close(fd);
        snprintf(fake, sizeof(fake), "%s/fakehome", ws);
        assert_int_equal(mkdir(fake, 0700), 0);
        snprintf(henv, sizeof(henv), "HOME=%s", fake);
        snprintf(script, sizeof(script), "cat '%s' >/dev/null 2>&1 && exit 9; exit 0", secret);
        for (b = 0; b < SBX__ARRAY_SIZE(backends); b++) {
                sbx_plan *plan;
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                const char *const envp[] = { "PATH=/usr/bin:/bin", henv, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1;

                if (backends[b] == SBX_BACKEND_BWRAP && !have_bwrap())
                        continue;
                plan = make_plan_net(SBX_ACCESS_ALLOW, backends[b] == SBX_BACKEND_BWRAP
                                                               ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY);
                o.backend = backends[b];
                o.envp = envp;
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK) {
                        (void) unlink(secret);
                        fail_msg("%s: sbx_spawn: %s", sbx_backend_name(backends[b]), e.message);
                }
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                sbx_child_free(c);
                sbx_plan_free(plan);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                        (void) unlink(secret);
                        fail_msg("%s: with HOME=%s the account's home %s was readable "
                                 "(status 0x%x)", sbx_backend_name(backends[b]), fake, home,
                                 (unsigned) st);
                }
        }
        assert_int_equal(unlink(secret), 0);
        sbx_free(home);
}

/* The scratch HOME is owner-only on every backend; the command's stdout
 * is a pipe passed with stdout_fd (spawn options version 2). */
static void test_spawn_core__scratch_home_is_owner_only(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        size_t b;
        (void) state;

        for (b = 0; b < SBX__ARRAY_SIZE(backends); b++) {
                const char *const argv[] = { "/bin/sh", "-c", "stat -c %a \"$HOME\"", NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_plan *plan;
                sbx_error e;
                char out[32] = { 0 };
                int pfd[2], st = -1;
                ssize_t n, got = 0;

                if (backends[b] == SBX_BACKEND_BWRAP && !have_bwrap())
                        continue;
                plan = make_plan_net(SBX_ACCESS_ALLOW, backends[b] == SBX_BACKEND_BWRAP
                                                               ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY);
                assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
                o.backend = backends[b];
                o.stdout_fd = pfd[1];
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("%s: sbx_spawn: %s", sbx_backend_name(backends[b]), e.message);
                close(pfd[1]);
                while (got < (ssize_t) sizeof(out) - 1 &&
                       (n = read(pfd[0], out + got, sizeof(out) - 1 - (size_t) got)) > 0)
                        got += n;
                close(pfd[0]);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                sbx_child_free(c);
                sbx_plan_free(plan);
                if (strcmp(out, "700\n") != 0)
                        fail_msg("%s: HOME has mode \"%s\" (status 0x%x), want 700",
                                 sbx_backend_name(backends[b]), out, (unsigned) st);
        }
}

/* A profile under which the working directory is hidden fails with a clear
 * error before anything starts, not with a failed setup step. */
static void test_spawn_core__hidden_cwd_is_a_clear_error(void **state)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        const char *const argv[] = { "/bin/true", NULL };
        sbx_child *c = NULL;
        sbx_error e;
        (void) state;

        cfg.workspace_root = ws;                /* everything Deny: nothing readable */
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.accept_unprotected_git = 1;      /* bwrap runs these too (docs/git.md) */
        assert_int_equal(sbx_profile_new(&cfg, &profile, &e), SBX_OK);
        assert_int_equal(sbx_plan_compile(profile, &plan, &e), SBX_OK);
        assert_int_equal(sbx_spawn(plan, argv, NULL, &c, &e), SBX_E_INVALID);
        assert_null(c);
        assert_non_null(strstr(e.message, "working directory"));
        sbx_plan_free(plan);
        sbx_profile_free(profile);
}

/* With the network allowed, a host unix socket outside every hidden area
 * (a database's, say) stays unreachable on both rungs; the host's
 * listener sees no connection. */
static void test_spawn_core__host_unix_sockets_unreachable_with_network(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
        const char *probe = getenv("SBX_PROBE");
        char dir[] = "/var/tmp/sbx-core-sock-XXXXXX", path[128];
        struct sockaddr_un sa;
        size_t b;
        int lfd;
        (void) state;

        if (probe == NULL)
                fail_msg("SBX_PROBE is not set");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(chmod(dir, 0755), 0);
        snprintf(path, sizeof(path), "%s/db.sock", dir);
        lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(lfd >= 0);
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        assert_true(strlen(path) < sizeof(sa.sun_path));
        memcpy(sa.sun_path, path, strlen(path) + 1);
        assert_int_equal(bind(lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(chmod(path, 0777), 0);
        assert_int_equal(listen(lfd, 8), 0);
        /* The probe's directory is readable (it may lie below /tmp, which
         * the sandbox hides). */
        {
                char pdir[512], *slash, *canon = NULL;

                snprintf(pdir, sizeof(pdir), "%s", probe);
                slash = strrchr(pdir, '/');
                assert_non_null(slash);
                *slash = '\0';
                assert_int_equal(sbx_path_canonical(pdir, &canon, NULL), SBX_OK);
                snprintf(probe_dir, sizeof(probe_dir), "%s", canon);
                sbx_free(canon);
        }
        for (b = 0; b < 2; b++) {
                sbx_plan *plan = make_plan_full(SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW, probe_dir);
                const char *const argv[] = { probe, "unix", path, NULL };
                sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                sbx_child *c = NULL;
                sbx_error e;
                int st = -1, afd;

                o.backend = backends[b];
                if (sbx_spawn(plan, argv, &o, &c, &e) != SBX_OK)
                        fail_msg("sbx_spawn: %s", e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                sbx_child_free(c);
                sbx_plan_free(plan);
                /* The probe has been reaped: a connection it made is queued. */
                afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (afd >= 0) {
                        close(afd);
                        fail_msg("%s: the command connected to the host socket %s",
                                 sbx_backend_name(backends[b]), path);
                }
                if (!WIFEXITED(st) || WEXITSTATUS(st) == 0)
                        fail_msg("%s: the probe's connect did not fail (status 0x%x)",
                                 sbx_backend_name(backends[b]), (unsigned) st);
        }
        close(lfd);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

/* Detection by doing: when the environment refuses rung 1 (here by a
 * test-only switch that fails its clone with EPERM), a spawn moves down the
 * chain to rung 2 only if rung 2 still enforces every required guarantee,
 * and Confine and detection report the backend that really runs.  Sticky
 * for the process: this test runs last. */
static void test_spawn_core__refused_namespaces_fall_back_honestly(void **state)
{
        char marker[300], script[400];
        sbx_plan *plan = make_plan(SBX_ACCESS_ALLOW);
        const char *const argv[] = { "/bin/sh", "-c", script, NULL };
        sbx_guarantee_report need = SBX_GUARANTEE_REPORT_INIT, got = SBX_GUARANTEE_REPORT_INIT;
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *c = NULL;
        uint32_t landlock = 0;
        int32_t b = -1;
        sbx_error e;
        sbx_code r;
        int st = -1;
        (void) state;

        marker_path(marker, sizeof(marker));
        (void) unlink(marker);
        /* echo, not touch: rung 2 refuses utimes (docs/backends.md). */
        snprintf(script, sizeof(script), "echo ran > '%s'", marker);
        assert_int_equal(sbx_plan_guarantees(plan, &need, &e), SBX_OK);
        assert_int_equal(sbx_backend_guarantees(SBX_BACKEND_LANDLOCK, plan, &landlock, NULL, &e),
                         SBX_OK);
        sbx__fault_refuse_namespaces();
        r = sbx_spawn(plan, argv, &o, &c, &e);
        if ((need.required & ~landlock) != 0) {
                /* Rung 2 would enforce less than required: fail closed. */
                assert_int_equal(r, SBX_E_SANDBOX_UNAVAILABLE);
                assert_int_equal(access(marker, F_OK), -1);
        } else {
                if (r != SBX_OK)
                        fail_msg("no fallback to rung 2: %s", e.message);
                assert_int_equal(sbx_child_wait(c, &st, &e), SBX_OK);
                assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
                assert_int_equal(access(marker, F_OK), 0);
                assert_int_equal(sbx_child_report(c, &got, &e), SBX_OK);
                /* What rung 2 enforces, not what rung 1 would have. */
                assert_int_equal(got.achieved & ~landlock, 0);
                assert_int_equal(got.achieved & SBX_G_PROCESS_ISOLATION, 0);
                sbx_child_free(c);
        }
        assert_int_equal(sbx_backend_detect(&b, &e), SBX_OK);
        assert_int_not_equal(b, SBX_BACKEND_NATIVE);
        sbx_plan_free(plan);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_spawn_core__threads_native),
                cmocka_unit_test(test_spawn_core__threads_landlock),
                cmocka_unit_test(test_spawn_core__threads_bwrap),
                cmocka_unit_test(test_spawn_core__host_ignoring_sigchld_gets_the_status),
                cmocka_unit_test(test_spawn_core__deny_and_gated_never_run),
                cmocka_unit_test(test_spawn_core__hanging_setup_is_bounded_and_named),
                cmocka_unit_test(test_spawn_core__timeout_kills_the_tree),
                cmocka_unit_test(test_spawn_core__kill_ends_the_tree),
                cmocka_unit_test(test_spawn_core__orphans_of_any_depth_are_killed),
                cmocka_unit_test(test_spawn_core__spawning_thread_may_exit),
                cmocka_unit_test(test_spawn_core__command_cannot_escape_its_monitor),
                cmocka_unit_test(test_spawn_core__dev_shows_only_runtime_nodes),
                cmocka_unit_test(test_spawn_core__account_home_hidden_whatever_HOME_says),
                cmocka_unit_test(test_spawn_core__scratch_home_is_owner_only),
                cmocka_unit_test(test_spawn_core__hidden_cwd_is_a_clear_error),
                cmocka_unit_test(test_spawn_core__env_set),
                cmocka_unit_test(test_spawn_core__host_unix_sockets_unreachable_with_network),
                cmocka_unit_test(test_spawn_core__refused_namespaces_fall_back_honestly),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
