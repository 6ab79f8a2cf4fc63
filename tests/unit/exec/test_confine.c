#include <sys/socket.h>
/*
 * test_confine.c - Confine, the backend table and detection, the bwrap
 * argv (golden, from fixed plans, calling the builder directly), the
 * unavailable backend, runner failure rules and denial signatures.
 *
 * Detection is process-global and runs once, so every case that triggers
 * it runs in a forked child (run_in_child) and reports by exit status.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "compile/runner_args.h"
#include "linux/linux_internal.h"
#include "backend/backend.h"

static char base[64];   /* canonical temp dir, not below /tmp, /run or $HOME */

static int setup(void **state)
{
        char *canon = NULL;

        (void) state;
        strcpy(base, "/var/tmp/sbx-confine-XXXXXX");
        if (mkdtemp(base) == NULL)
                return -1;
        if (sbx_path_canonical(base, &canon, NULL) != SBX_OK || strlen(canon) >= sizeof(base))
                return -1;
        strcpy(base, canon);
        sbx_free(canon);
        return 0;
}

static int teardown(void **state)
{
        char cmd[128];

        (void) state;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

static const char *in_base(char *buf, size_t n, const char *suffix)
{
        (void) snprintf(buf, n, "%s%s", base, suffix);
        return buf;
}

static void make_dir(const char *suffix)
{
        char p[256];

        in_base(p, sizeof(p), suffix);
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                fail_msg("mkdir %s: %s", p, strerror(errno));
}

static void make_file(const char *suffix)
{
        char p[256];
        int fd;

        in_base(p, sizeof(p), suffix);
        fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                fail_msg("create %s: %s", p, strerror(errno));
        close(fd);
}

/* Run fn in a forked child (fresh detection state); 0 = passed, else the
 * child's failing line. */
static int run_in_child(int (*fn)(void))
{
        int status = 0;
        pid_t pid;

        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(fn());
        while (waitpid(pid, &status, 0) < 0)
                assert_int_equal(errno, EINTR);
        if (!WIFEXITED(status))
                fail_msg("child died with status 0x%x", (unsigned) status);
        return WEXITSTATUS(status);
}

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "child check failed: %s (line %d)\n", \
                                                #cond, __LINE__); return __LINE__ % 250 + 1; } \
                        } while (0)

static sbx_profile *mode_profile(int32_t mode, const char *ws)
{
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(mode, ws, &p, &e) != SBX_OK)
                fail_msg("%s", e.message);
        return p;
}

static sbx_plan *compile(const sbx_profile *p)
{
        sbx_plan *plan = NULL;

        assert_int_equal(sbx_plan_compile(p, &plan, NULL), SBX_OK);
        return plan;
}

/* Compare a built argv with `want`, where "@" stands for base. */
static void assert_argv(char **got, const char *const *want)
{
        char buf[512];
        size_t i;

        for (i = 0; want[i] != NULL; i++) {
                const char *w = want[i];

                if (strchr(w, '@') != NULL) {
                        const char *at = strchr(w, '@');

                        (void) snprintf(buf, sizeof(buf), "%.*s%s%s", (int) (at - w), w, base,
                                        at + 1);
                        w = buf;
                }
                if (got[i] == NULL)
                        fail_msg("argv too short at %zu: want \"%s\"", i, w);
                if (strcmp(got[i], w) != 0)
                        fail_msg("argv[%zu] is \"%s\", want \"%s\"", i, got[i], w);
        }
        if (got[i] != NULL)
                fail_msg("argv too long at %zu: \"%s\"", i, got[i]);
}

static int run_exists(void)
{
        struct stat st;

        return stat("/run", &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------ bwrap golden */

static const char *const golden_env[] = {
        "PATH=/usr/bin:/bin", "SECRET_TOKEN=hunter2", "LC_ALL=C.UTF-8", "HOME=/home/caller",
        "TMPDIR=/var/tmp/host", "TERM=xterm", "SSH_AUTH_SOCK=/run/agent", "BADNAME", NULL,
};

static void test_confine__bwrap_golden_read_only(void **state)
{
        const char *const cmd[] = { "echo", "hi there", NULL };
        char ws[256], home[256];
        sbx_profile *p;
        sbx_plan *plan;
        char **argv = NULL;
        sbx_error e = { 0, 0, { 0 } };
        const char *const want_run[] = {
                "/usr/bin/bwrap", "--ro-bind", "/", "/", "--unshare-user", "--unshare-pid",
                "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-net",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--ro-bind", "@/ws", "@/ws",
                "--tmpfs", "/run", "--perms", "0700", "--tmpfs", "/tmp", "--perms", "0700",
                "--tmpfs", "@/home",
                "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--clearenv",
                "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LC_ALL", "C.UTF-8",
                "--setenv", "TERM", "xterm", "--setenv", "HOME", "@/home",
                "--setenv", "TMPDIR", "/tmp", "--", "echo", "hi there", NULL,
        };
        (void) state;

        make_dir("/ws");
        make_dir("/home");
        in_base(ws, sizeof(ws), "/ws");
        in_base(home, sizeof(home), "/home");
        p = mode_profile(SBX_MODE_READ_ONLY, ws);
        plan = compile(p);
        if (sbx__bwrap_build(plan, "/usr/bin/bwrap", cmd, golden_env, home, NULL, &argv, &e) !=
            SBX_OK)
                fail_msg("%s", e.message);
        if (run_exists()) {
                assert_argv(argv, want_run);
        } else {
                /* Without /run the same argv minus "--tmpfs /run". */
                const char *want[64];
                size_t i, n = 0;

                for (i = 0; want_run[i] != NULL; i++) {
                        if (strcmp(want_run[i], "--tmpfs") == 0 &&
                            strcmp(want_run[i + 1], "/run") == 0) {
                                i++;
                                continue;
                        }
                        want[n++] = want_run[i];
                }
                want[n] = NULL;
                assert_argv(argv, want);
        }
        sbx_strv_free(argv);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

static void test_confine__bwrap_golden_workspace_write(void **state)
{
        const char *const cmd[] = { "make", NULL };
        char ws[256];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p0, *p = NULL;
        sbx_plan *plan;
        char **argv = NULL;
        sbx_error e = { 0, 0, { 0 } };
        /* Network allowed and the real HOME: no --unshare-net, nothing but
         * /tmp hidden; the .git that exists is bound read-only
         * after (over) the writable workspace. */
        const char *const want[] = {
                "bwrap", "--ro-bind", "/", "/", "--unshare-user", "--unshare-pid",
                "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--bind", "@/w2", "@/w2",
                "--ro-bind", "@/w2/.git", "@/w2/.git",
                "--perms", "0700", "--tmpfs", "/tmp",
                "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--clearenv",
                "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LC_ALL", "C.UTF-8",
                "--setenv", "TERM", "xterm", "--setenv", "HOME", "/home/caller",
                "--setenv", "TMPDIR", "/tmp", "--chdir", "@/w2", "--", "make", NULL,
        };
        (void) state;

        make_dir("/w2");
        make_dir("/w2/.git");
        make_dir("/w2/.git/hooks");
        make_file("/w2/.git/config");
        in_base(ws, sizeof(ws), "/w2");
        p0 = mode_profile(SBX_MODE_WORKSPACE_WRITE, ws);
        assert_int_equal(sbx_profile_config_get(p0, &cfg, NULL), SBX_OK);
        cfg.network = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        assert_int_equal(sbx_profile_new(&cfg, &p, NULL), SBX_OK);
        plan = compile(p);
        if (sbx__bwrap_build(plan, "bwrap", cmd, golden_env, "/home/caller", ws, &argv, &e) !=
            SBX_OK)
                fail_msg("%s", e.message);
        assert_argv(argv, want);
        sbx_strv_free(argv);
        sbx_plan_free(plan);
        sbx_profile_free(p);
        sbx_profile_free(p0);
}

/* Index of the option `opt` followed by `arg` (and arg2 if given), or -1. */
static long find_opt(char **v, const char *opt, const char *arg, const char *arg2, long from)
{
        long i;

        for (i = from; v[i] != NULL; i++)
                if (strcmp(v[i], opt) == 0 && v[i + 1] != NULL && strcmp(v[i + 1], arg) == 0 &&
                    (arg2 == NULL || (v[i + 2] != NULL && strcmp(v[i + 2], arg2) == 0)))
                        return i;
        return -1;
}

static void test_confine__bwrap_host_hidden_with_carve_outs(void **state)
{
        const char *const cmd[] = { "ls", NULL };
        const char *const env[] = { "PATH=/usr/bin", NULL };
        char ws[256], data[256], secret[256], secret_file[256], missing[256];
        sbx_root_access roots[4];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL;
        sbx_plan *plan;
        char **argv = NULL;
        sbx_error e = { 0, 0, { 0 } };
        long i_ws, i_secret;
        size_t k;
        (void) state;

        make_dir("/w3");
        make_dir("/w3/secret");
        make_file("/w3/secret.txt");
        make_dir("/data");
        in_base(ws, sizeof(ws), "/w3");
        in_base(data, sizeof(data), "/data");
        in_base(secret, sizeof(secret), "/w3/secret");
        in_base(secret_file, sizeof(secret_file), "/w3/secret.txt");
        in_base(missing, sizeof(missing), "/w3/not-there");
        roots[0] = (sbx_root_access){ data, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        roots[1] = (sbx_root_access){ secret, SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        roots[2] = (sbx_root_access){ secret_file, SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        roots[3] = (sbx_root_access){ missing, SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        cfg.workspace_root = ws;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_DENY;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = SBX_ACCESS_DENY;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_ISOLATED;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 4;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                fail_msg("%s", e.message);
        plan = compile(p);
        /* No home known: HOME becomes the private /tmp. */
        if (sbx__bwrap_build(plan, "/b", cmd, env, NULL, NULL, &argv, &e) != SBX_OK)
                fail_msg("%s", e.message);

        /* Nothing of the host is bound wholesale. */
        assert_int_equal(find_opt(argv, "--ro-bind", "/", "/", 0), -1);
        assert_int_equal(find_opt(argv, "--bind", "/", "/", 0), -1);
        /* The loader paths are runtime necessities, bound if present. */
        assert_true(find_opt(argv, "--ro-bind-try", "/usr", "/usr", 0) > 0);
        /* The roots, with their writability. */
        assert_true(find_opt(argv, "--ro-bind", data, data, 0) > 0);
        i_ws = find_opt(argv, "--bind", ws, ws, 0);
        assert_true(i_ws > 0);
        /* Carve-outs come after (over) the workspace: a directory behind a
         * read-only tmpfs, a file behind /dev/null; a missing one is
         * skipped. */
        i_secret = find_opt(argv, "--tmpfs", secret, NULL, 0);
        assert_true(i_secret > i_ws);
        assert_int_equal(find_opt(argv, "--remount-ro", secret, NULL, 0), i_secret + 2);
        assert_true(find_opt(argv, "--ro-bind", "/dev/null", secret_file, 0) > i_ws);
        for (k = 0; argv[k] != NULL; k++)
                assert_null(strstr(argv[k], "not-there"));
        /* The network is denied; the protected paths do not exist. */
        assert_true(find_opt(argv, "--unshare-net", "--die-with-parent", NULL, 0) > 0);
        assert_int_equal(find_opt(argv, "--setenv", "HOME", "/tmp", 0) > 0, 1);
        assert_int_equal(find_opt(argv, "--chdir", ws, NULL, 0), -1);
        sbx_strv_free(argv);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

static void test_confine__bwrap_builder_refuses(void **state)
{
        const char *const cmd[] = { "true", NULL };
        char ws[256];
        sbx_profile *d;
        sbx_plan *plan;
        char **argv = NULL;
        (void) state;

        in_base(ws, sizeof(ws), "");
        d = mode_profile(SBX_MODE_DANGER_FULL_ACCESS, ws);
        plan = compile(d);
        assert_sbx_fails(sbx__bwrap_build(plan, "/b", cmd, NULL, NULL, NULL, &argv, err),
                         SBX_E_INVALID, "direct");
        assert_null(argv);
        sbx_plan_free(plan);
        sbx_profile_free(d);
}

static void test_confine__bwrap_guarantees_are_honest(void **state)
{
        char ws[256];
        sbx_profile *p;
        sbx_plan *plan;
        uint32_t g;
        (void) state;

        in_base(ws, sizeof(ws), "");
        p = mode_profile(SBX_MODE_WORKSPACE_WRITE, ws);
        plan = compile(p);
        /* The spawn passes the seccomp program: the filter, and
         * network-deny (vsock refused) on every host. */
        g = sbx__bwrap_guarantees(plan);
        assert_true(g & SBX_G_SYSCALL_FILTER);
        assert_true(g & SBX_G_NETWORK_DENY);
        /* No supervisor can refuse a new .git under bwrap: no
         * protected-paths, the one required guarantee it lacks. */
        assert_false(g & SBX_G_PROTECTED_PATHS);
        assert_true(plan->required & SBX_G_PROTECTED_PATHS);
        assert_true((g & plan->required) == (plan->required & ~SBX_G_PROTECTED_PATHS));
        g = sbx__bwrap_confine_guarantees(plan);
        {
                /* Confine's argv has no program: network-deny only where no
                 * vsock transport can be reached. */
                int fd = socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0);
                int vsock = fd >= 0 || (errno != EAFNOSUPPORT && errno != EINVAL);

                if (fd >= 0)
                        close(fd);
                if (vsock) {
                        assert_false(g & SBX_G_NETWORK_DENY);
                        assert_true((g & plan->required) ==
                                    (plan->required & ~(SBX_G_NETWORK_DENY | SBX_G_PROTECTED_PATHS)));
                } else {
                        assert_true(g & SBX_G_NETWORK_DENY);
                        assert_true((g & plan->required) ==
                                    (plan->required & ~SBX_G_PROTECTED_PATHS));
                }
        }
        assert_true(g & SBX_G_HOME_ISOLATION);
        assert_true(g & SBX_G_NO_NEW_PRIVS);
        assert_true(g & SBX_G_TTY_ISOLATION);
        /* What bwrap by itself does not do is never claimed. */
        assert_false(g & SBX_G_SYSCALL_FILTER);
        assert_false(g & SBX_G_FD_ISOLATION);
        assert_false(g & SBX_G_RESOURCE_LIMITS);
        assert_false(g & SBX_G_TARGET_NETWORK);
        assert_false(g & SBX_G_ADDRESS_NETWORK);
        sbx_plan_free(plan);
        sbx_profile_free(p);

        p = mode_profile(SBX_MODE_DANGER_FULL_ACCESS, ws);
        plan = compile(p);
        assert_int_equal(sbx__bwrap_guarantees(plan), 0);
        assert_int_equal(sbx__bwrap_confine_guarantees(plan), 0);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

/* ----------------------------------------------------- the unavailable */

static void test_confine__unavailable_backend_always_fails(void **state)
{
        const struct sbx_backend *u = sbx__backend_get(SBX_BACKEND_UNAVAILABLE);
        const char *const cmd[] = { "true", NULL };
        char ws[256];
        sbx_profile *p;
        sbx_plan *plan;
        char **argv = NULL;
        sbx_child child;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        (void) state;

        assert_non_null(u);
        assert_true(u->supports & SBX__ROW_PLACEHOLDER);
        sbx__child_init(&child, u);
        assert_string_equal(u->name, "unavailable");
        in_base(ws, sizeof(ws), "");
        p = mode_profile(SBX_MODE_READ_ONLY, ws);
        plan = compile(p);
        assert_int_equal(u->probe(NULL), SBX_OK);
        assert_int_equal(u->guarantees(plan), 0);
        assert_sbx_fails(u->confine(plan, p, NULL, cmd, &argv, err), SBX_E_SANDBOX_UNAVAILABLE,
                         "no usable sandbox backend");
        assert_sbx_fails(u->spawn(plan, cmd, &so, &child, err), SBX_E_SANDBOX_UNAVAILABLE,
                         "no usable sandbox backend");
        assert_null(argv);
        assert_int_equal(child.pid, -1);        /* nothing started, nothing held */
        assert_null(child.os);
        assert_null(u->denial_signatures[0]);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

static int child_forced_unavailable(void)
{
        const char *const cmd[] = { "true", NULL };
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_confined_argv *c = NULL;
        sbx_profile *p = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        uint32_t ach = 99;
        int32_t enf = 99, b = -1;

        lc.backend = SBX_BACKEND_UNAVAILABLE;
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        CHECK(sbx_profile_from_mode(SBX_MODE_READ_ONLY, base, &p, NULL) == SBX_OK);
        CHECK(sbx_plan_compile(p, &plan, NULL) == SBX_OK);
        CHECK(sbx_confine_profile(cmd, p, &c, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(strstr(e.message, "no usable sandbox backend") != NULL);
        CHECK(c == NULL);
        CHECK(sbx_spawn(plan, cmd, NULL, &child, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(child == NULL);
        CHECK(sbx_backend_detect(&b, NULL) == SBX_OK && b == SBX_BACKEND_UNAVAILABLE);
        CHECK(sbx_backend_guarantees(SBX_BACKEND_AUTO, plan, &ach, &enf, NULL) == SBX_OK);
        CHECK(ach == 0 && enf == SBX_ENFORCEMENT_NONE);
        sbx_plan_free(plan);
        sbx_profile_free(p);
        return 0;
}

static void test_confine__forced_unavailable_fails_closed(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_forced_unavailable), 0);
}

static int child_env_unavailable(void)
{
        const char *const cmd[] = { "true", NULL };
        sbx_confined_argv *c = NULL;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };

        CHECK(setenv("SBX_BACKEND", "unavailable", 1) == 0);
        CHECK(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, base, &p, NULL) == SBX_OK);
        CHECK(sbx_confine_profile(cmd, p, &c, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(c == NULL);
        sbx_profile_free(p);
        return 0;
}

static int child_env_typo(void)
{
        int32_t b = -1;
        sbx_error e = { 0, 0, { 0 } };

        CHECK(setenv("SBX_BACKEND", "bwarp", 1) == 0);
        CHECK(sbx_backend_detect(&b, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(strstr(e.message, "SBX_BACKEND") != NULL);
        CHECK(b == -1);
        return 0;
}

static void test_confine__env_override(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_env_unavailable), 0);
        /* A typo never silently means "detect". */
        assert_int_equal(run_in_child(child_env_typo), 0);
}

/* A forced backend whose probe fails fails closed at use, naming it. */
static int child_forced_broken_bwrap(void)
{
        const char *const cmd[] = { "true", NULL };
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_confined_argv *c = NULL;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        int32_t b = -1;

        lc.backend = SBX_BACKEND_BWRAP;
        lc.runner_command = "/nonexistent/bwrap";
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        CHECK(sbx_backend_detect(&b, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(strstr(e.message, "bwrap") != NULL);
        CHECK(sbx_profile_from_mode(SBX_MODE_READ_ONLY, base, &p, NULL) == SBX_OK);
        memset(&e, 0, sizeof(e));
        CHECK(sbx_confine_profile(cmd, p, &c, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(strstr(e.message, "forced bwrap backend") != NULL);
        CHECK(c == NULL);
        sbx_profile_free(p);
        return 0;
}

static void test_confine__forced_backend_probe_failure_fails_closed(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_forced_broken_bwrap), 0);
}

/* --------------------------------------------------------- local config */

static int child_too_late(void)
{
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_error e = { 0, 0, { 0 } };
        int32_t b = -1;

        lc.backend = SBX_BACKEND_UNAVAILABLE;
        lc.runner_command = "/opt/runner";
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        /* Replaceable until detection runs... */
        lc.runner_command = "custom-runner";
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        CHECK(sbx_backend_detect(&b, NULL) == SBX_OK);
        CHECK(b == SBX_BACKEND_UNAVAILABLE);
        CHECK(sbx__local_runner() != NULL &&
              strcmp(sbx__local_runner(), "custom-runner") == 0);
        /* ...and frozen afterwards. */
        lc.backend = SBX_BACKEND_AUTO;
        lc.runner_command = NULL;
        CHECK(sbx_local_config_set(&lc, &e) == SBX_E_TOO_LATE);
        CHECK(e.code == SBX_E_TOO_LATE);
        CHECK(sbx_backend_detect(&b, NULL) == SBX_OK && b == SBX_BACKEND_UNAVAILABLE);
        CHECK(strcmp(sbx__local_runner(), "custom-runner") == 0);
        return 0;
}

static void test_confine__local_config_too_late_after_detection(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_too_late), 0);
}

static int child_config_copies_runner(void)
{
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        char runner[32];
        int32_t b;

        strcpy(runner, "/opt/my-runner");
        lc.backend = SBX_BACKEND_UNAVAILABLE;
        lc.runner_command = runner;
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        strcpy(runner, "/changed");
        CHECK(sbx_backend_detect(&b, NULL) == SBX_OK);
        CHECK(strcmp(sbx__local_runner(), "/opt/my-runner") == 0);
        return 0;
}

static void test_confine__local_config_validation(void **state)
{
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        (void) state;

        assert_sbx_fails(sbx_local_config_set(NULL, err), SBX_E_INVALID, "cfg");
        lc.version = 7;
        assert_sbx_fails(sbx_local_config_set(&lc, err), SBX_E_INVALID, "version");
        lc.version = SBX_LOCAL_CONFIG_VERSION;
        lc.backend = 42;
        assert_sbx_fails(sbx_local_config_set(&lc, err), SBX_E_INVALID, "backend");
        lc.backend = SBX_BACKEND_AUTO;
        lc.runner_command = "";
        assert_sbx_fails(sbx_local_config_set(&lc, err), SBX_E_INVALID, "runner_command");
        lc.runner_command = "relative/runner";
        assert_sbx_fails(sbx_local_config_set(&lc, err), SBX_E_INVALID, "runner_command");
        assert_int_equal(run_in_child(child_config_copies_runner), 0);
}

/* -------------------------------------------------------------- names */

static void test_confine__backend_names_round_trip(void **state)
{
        static const char *const names[] = { "auto", "native", "landlock", "bwrap",
                                             "unavailable", "seatbelt", "windows" };
        int32_t id;
        size_t i;
        (void) state;

        for (i = 0; i < 7; i++) {
                assert_string_equal(sbx_backend_name((int32_t) i), names[i]);
                assert_int_equal(sbx_backend_parse(names[i], &id, NULL), SBX_OK);
                assert_int_equal(id, (int32_t) i);
        }
        assert_string_equal(sbx_backend_name(-1), "invalid");
        assert_string_equal(sbx_backend_name(7), "invalid");
        /* The other operating systems' rows exist only in their builds. */
        assert_null(sbx__backend_get(SBX_BACKEND_SEATBELT));
        assert_null(sbx__backend_get(SBX_BACKEND_WINDOWS));
        id = 77;
        assert_sbx_fails(sbx_backend_parse("Native", &id, err), SBX_E_INVALID, "not a backend");
        assert_sbx_fails(sbx_backend_parse("", &id, err), SBX_E_INVALID, "not a backend");
        assert_sbx_fails(sbx_backend_parse(NULL, &id, err), SBX_E_INVALID, "NULL");
        assert_int_equal(id, 77);
        /* The table has every real backend, and nothing for auto. */
        assert_null(sbx__backend_get(SBX_BACKEND_AUTO));
        assert_null(sbx__backend_get(99));
        for (i = 1; i < 5; i++) {
                const struct sbx_backend *b = sbx__backend_get((int32_t) i);

                assert_non_null(b);
                assert_int_equal(b->id, (int32_t) i);
                assert_string_equal(b->name, names[i]);
        }
}

static void test_confine__backend_guarantees_direct_and_invalid(void **state)
{
        char ws[256];
        sbx_profile *d;
        sbx_plan *plan;
        uint32_t ach = 5;
        int32_t enf = 5;
        (void) state;

        in_base(ws, sizeof(ws), "");
        d = mode_profile(SBX_MODE_DANGER_FULL_ACCESS, ws);
        plan = compile(d);
        /* An explicit backend: no detection needed.  A direct plan has no
         * boundary, so nothing is enforced. */
        assert_int_equal(sbx_backend_guarantees(SBX_BACKEND_UNAVAILABLE, plan, &ach, &enf, NULL),
                         SBX_OK);
        assert_int_equal(ach, 0);
        assert_int_equal(enf, SBX_ENFORCEMENT_NONE);
        assert_sbx_fails(sbx_backend_guarantees(9, plan, &ach, &enf, err), SBX_E_INVALID,
                         "backend");
        assert_sbx_fails(sbx_backend_guarantees(SBX_BACKEND_BWRAP, NULL, &ach, &enf, err),
                         SBX_E_INVALID, "plan");
        assert_sbx_fails(sbx_backend_guarantees(SBX_BACKEND_BWRAP, plan, NULL, &enf, err),
                         SBX_E_INVALID, "achieved_out");
        sbx_plan_free(plan);
        sbx_profile_free(d);
}

/* --------------------------------------------------------- Confine */

static void test_confine__argv_is_validated(void **state)
{
        const char *const empty[] = { NULL };
        const char *const blank[] = { "", "x", NULL };
        const char *const ok[] = { "true", NULL };
        char ws[256];
        sbx_profile *p;
        sbx_confined_argv *c = NULL;
        (void) state;

        in_base(ws, sizeof(ws), "");
        p = mode_profile(SBX_MODE_READ_ONLY, ws);
        assert_sbx_fails(sbx_confine_profile(NULL, p, &c, err), SBX_E_INVALID, "argv is NULL");
        assert_sbx_fails(sbx_confine_profile(empty, p, &c, err), SBX_E_INVALID, "empty");
        assert_sbx_fails(sbx_confine_profile(blank, p, &c, err), SBX_E_INVALID, "argv[0]");
        assert_sbx_fails(sbx_confine_profile(ok, NULL, &c, err), SBX_E_INVALID, "profile");
        assert_sbx_fails(sbx_confine_profile(ok, p, NULL, err), SBX_E_INVALID, "out");
        assert_sbx_fails(sbx_confine(ok, NULL, &c, err), SBX_E_INVALID, "policy");
        assert_sbx_fails(sbx_confine(NULL, NULL, &c, err), SBX_E_INVALID, "argv");
        assert_null(c);
        sbx_profile_free(p);
}

static void test_confine__danger_is_never_confinable(void **state)
{
        const char *const ok[] = { "true", NULL };
        char ws[256];
        sbx_profile *d;
        sbx_policy_service *svc = NULL;
        sbx_exec_policy *ep = NULL;
        sbx_confined_policy *cp = NULL;
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_confined_argv *c = NULL;
        (void) state;

        in_base(ws, sizeof(ws), "");
        d = mode_profile(SBX_MODE_DANGER_FULL_ACCESS, ws);
        assert_sbx_fails(sbx_confine_profile(ok, d, &c, err), SBX_E_DANGER_NOT_CONFINABLE,
                         "unconfined");
        assert_null(c);
        sbx_profile_free(d);

        /* And the policy path never produces a confined danger policy. */
        assert_int_equal(sbx_policy_service_new(SBX_MODE_DANGER_FULL_ACCESS, ws, &svc, NULL),
                         SBX_OK);
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &ep, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_to_confined(ep, &cp, NULL),
                         SBX_E_DANGER_NOT_CONFINABLE);
        assert_null(cp);
        sbx_exec_policy_free(ep);
        sbx_policy_service_free(svc);
}

static void test_confine__gated_or_denied_command_is_refused(void **state)
{
        const char *const ok[] = { "true", NULL };
        char ws[256];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL;
        sbx_confined_argv *c = NULL;
        (void) state;

        in_base(ws, sizeof(ws), "");
        cfg.workspace_root = ws;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.command = SBX_ACCESS_GATED;
        assert_int_equal(sbx_profile_new(&cfg, &p, NULL), SBX_OK);
        assert_sbx_fails(sbx_confine_profile(ok, p, &c, err), SBX_E_GRANT_REQUIRED, "gated");
        sbx_profile_free(p);
        cfg.command = SBX_ACCESS_DENY;
        assert_int_equal(sbx_profile_new(&cfg, &p, NULL), SBX_OK);
        assert_sbx_fails(sbx_confine_profile(ok, p, &c, err), SBX_E_GRANT_DENIED, "denied");
        assert_null(c);
        sbx_profile_free(p);
}

static void test_confine__getters_are_null_safe(void **state)
{
        size_t n = 9;
        (void) state;

        assert_null(sbx_confined_argv_argv(NULL, &n));
        assert_int_equal(n, 0);
        assert_int_equal(sbx_confined_argv_backend(NULL), SBX_BACKEND_AUTO);
        assert_int_equal(sbx_confined_argv_enforcement(NULL), SBX_ENFORCEMENT_NONE);
        assert_int_equal(sbx_confined_argv_guarantees(NULL), 0);
        n = 9;
        assert_null(sbx_confined_argv_denial_signatures(NULL, &n));
        assert_int_equal(n, 0);
        n = 9;
        assert_null(sbx_confined_argv_runner_rules(NULL, &n));
        assert_int_equal(n, 0);
        sbx_confined_argv_free(NULL);
}

/* ------------------------------------ runner failure rules & signatures */

static int rule_matches(const sbx_runner_rule *rules, size_t n, int code, const char *text)
{
        size_t i;
        int m = 0;

        for (i = 0; i < n; i++) {
                assert_int_equal(sbx_runner_rule_matches(&rules[i], code, text, strlen(text), &m,
                                                         NULL, NULL), SBX_OK);
                if (m)
                        return 1;
        }
        return 0;
}

static void test_confine__runner_rules_per_backend(void **state)
{
        const sbx_runner_rule *r;
        size_t n;
        (void) state;

        r = sbx__backend_runner_rules(SBX_BACKEND_NATIVE, &n);
        assert_int_equal(n, 1);
        assert_true(rule_matches(r, n, 125, "sandbox-run: cannot start sandbox runner: x\n"));
        /* A command that fails with 125 for its own reasons is not ours... */
        assert_false(rule_matches(r, n, 125, "make: *** [all] Error 125\n"));
        /* ...nor is our line with another status, nor success. */
        assert_false(rule_matches(r, n, 1, "sandbox-run: cannot start sandbox runner: x\n"));
        assert_false(rule_matches(r, n, 0, "sandbox-run: cannot start sandbox runner: x\n"));
        r = sbx__backend_runner_rules(SBX_BACKEND_LANDLOCK, &n);
        assert_true(rule_matches(r, n, 125, "sandbox-run: cannot start sandbox runner: x"));
        r = sbx__backend_runner_rules(SBX_BACKEND_BWRAP, &n);
        assert_int_equal(n, 1);
        assert_true(rule_matches(r, n, 1, "bwrap: Can't find source path /x: No such file\n"));
        assert_false(rule_matches(r, n, 2, "bwrap: Can't find source path\n"));
        assert_false(rule_matches(r, n, 1, "grep: no match\n"));
        assert_null(sbx__backend_runner_rules(SBX_BACKEND_UNAVAILABLE, &n));
        assert_int_equal(n, 0);
}

static void test_confine__denial_signatures_present(void **state)
{
        int32_t ids[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK, SBX_BACKEND_BWRAP };
        const char *t_erofs = "sh: 1: cannot create /x: Read-only file system\n";
        const char *t_eacces = "touch: cannot touch '/x': Permission denied";
        const char *t_other = "ls: cannot access 'x': No such file or directory";
        size_t i;
        (void) state;

        for (i = 0; i < 3; i++) {
                const struct sbx_backend *b = sbx__backend_get(ids[i]);
                const char *const *s = b->denial_signatures;
                size_t n = 0;
                int denied = 0;

                while (s[n] != NULL)
                        n++;
                assert_true(n >= 3);
                assert_int_equal(sbx_denied_by_sandbox(1, t_erofs, strlen(t_erofs), s, n, &denied,
                                                       NULL, NULL), SBX_OK);
                assert_int_equal(denied, 1);
                assert_int_equal(sbx_denied_by_sandbox(1, t_eacces, strlen(t_eacces), s, n,
                                                       &denied, NULL, NULL), SBX_OK);
                assert_int_equal(denied, 1);
                assert_int_equal(sbx_denied_by_sandbox(2, t_other, strlen(t_other), s, n, &denied,
                                                       NULL, NULL), SBX_OK);
                assert_int_equal(denied, 0);
        }
}

/*
 * The full Confine path with whatever this host detects: a successful
 * confine is FULL, carries its backend's signatures and rules, and ends in
 * "--" + the original argv; an unavailable host fails closed.
 */
static int child_confine_detected(void)
{
        const char *const cmd[] = { "sh", "-c", "echo hi", NULL };
        sbx_confined_argv *c = NULL;
        sbx_policy_service *svc = NULL;
        sbx_exec_policy *ep = NULL;
        sbx_confined_policy *cp = NULL;
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_error e = { 0, 0, { 0 } };
        const char *const *argv, *const *sigs;
        const sbx_runner_rule *rules;
        size_t argc, n, nr;
        int32_t b;
        sbx_code r;

        /* The native runner must exist: point it at any executable. */
        CHECK(setenv("SBX_RUNNER", "/bin/sh", 1) == 0);
        CHECK(sbx_policy_service_new(SBX_MODE_WORKSPACE_WRITE, base, &svc, NULL) == SBX_OK);
        CHECK(sbx_policy_service_resolve(svc, &req, &ep, NULL) == SBX_OK);
        CHECK(sbx_exec_policy_to_confined(ep, &cp, NULL) == SBX_OK);
        r = sbx_confine(cmd, cp, &c, &e);
        CHECK(sbx_backend_detect(&b, NULL) == SBX_OK || r != SBX_OK);
        if (r != SBX_OK) {
                fprintf(stderr, "confine on this host: %s\n", e.message);
                CHECK(r == SBX_E_SANDBOX_UNAVAILABLE);
                CHECK(c == NULL);
                goto out;
        }
        argv = sbx_confined_argv_argv(c, &argc);
        CHECK(argc >= 5);
        CHECK(strcmp(argv[argc - 4], "--") == 0);
        CHECK(strcmp(argv[argc - 3], "sh") == 0);
        CHECK(strcmp(argv[argc - 1], "echo hi") == 0);
        CHECK(argv[argc] == NULL);
        CHECK(sbx_confined_argv_backend(c) == b);
        CHECK(sbx_confined_argv_enforcement(c) == SBX_ENFORCEMENT_FULL);
        sigs = sbx_confined_argv_denial_signatures(c, &n);
        CHECK(n >= 3 && sigs != NULL);
        rules = sbx_confined_argv_runner_rules(c, &nr);
        /* The backend's rule, then the runner's own start (argv[0]). */
        CHECK(nr == 3 && rules != NULL);
        {
                char line[600];
                int m = 0;

                (void) snprintf(line, sizeof(line), "%s: error while loading shared libraries: "
                                "libsandbox.so.0: cannot open shared object file", argv[0]);
                CHECK(sbx_runner_rule_matches(&rules[1], 127, line, strlen(line), &m, NULL,
                                              NULL) == SBX_OK && m == 1);
                (void) snprintf(line, sizeof(line), "sh: 1: %s: not found", argv[0]);
                CHECK(sbx_runner_rule_matches(&rules[2], 127, line, strlen(line), &m, NULL,
                                              NULL) == SBX_OK && m == 1);
                /* The command's own "not found" is not a runner failure. */
                (void) snprintf(line, sizeof(line), "sandbox-run: sh: command not found");
                for (n = 0; n < nr; n++)
                        CHECK(sbx_runner_rule_matches(&rules[n], 127, line, strlen(line), &m,
                                                      NULL, NULL) == SBX_OK && m == 0);
        }
        if (b == SBX_BACKEND_NATIVE || b == SBX_BACKEND_LANDLOCK) {
                int m = 0;

                CHECK(strcmp(argv[0], "/bin/sh") == 0);
                CHECK(strcmp(argv[1], SBX__STAGE2_FLAG) == 0);
                CHECK(sbx_runner_rule_matches(&rules[0], 125,
                                              "sandbox-run: cannot start sandbox runner: x", 43,
                                              &m, NULL, NULL) == SBX_OK && m == 1);
        }
        if (b == SBX_BACKEND_BWRAP)
                CHECK(strstr(argv[0], "bwrap") != NULL);
out:
        sbx_confined_argv_free(c);
        sbx_confined_policy_free(cp);
        sbx_exec_policy_free(ep);
        sbx_policy_service_free(svc);
        return 0;
}

static void test_confine__detected_backend_confines_fully(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_confine_detected), 0);
}

/* A native runner that is not installed fails at confine time. */
static int child_missing_runner(void)
{
        const char *const cmd[] = { "true", NULL };
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_confined_argv *c = NULL;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        int32_t b;

        lc.runner_command = "/nonexistent/sandbox-run";
        CHECK(sbx_local_config_set(&lc, NULL) == SBX_OK);
        if (sbx_backend_detect(&b, NULL) != SBX_OK ||
            (b != SBX_BACKEND_NATIVE && b != SBX_BACKEND_LANDLOCK))
                return 0;       /* not applicable on this host */
        CHECK(sbx_profile_from_mode(SBX_MODE_READ_ONLY, base, &p, NULL) == SBX_OK);
        CHECK(sbx_confine_profile(cmd, p, &c, &e) == SBX_E_SANDBOX_UNAVAILABLE);
        CHECK(strstr(e.message, "/nonexistent/sandbox-run") != NULL);
        CHECK(c == NULL);
        sbx_profile_free(p);
        return 0;
}

static void test_confine__missing_runner_fails_closed(void **state)
{
        (void) state;
        assert_int_equal(run_in_child(child_missing_runner), 0);
}

/* The stage-2 runner's own failure is one line + exit 125, and matches
 * the native rule. */
static void test_confine__stage2_failure_is_one_line_125(void **state)
{
        char a0[] = "sandbox-run", a1[] = "--sbx-stage2", a2[] = "--bogus", a3[] = "1",
             a4[] = "--", a5[] = "true";
        char *v[] = { a0, a1, a2, a3, a4, a5, NULL };
        char buf[1024];
        const sbx_runner_rule *rules;
        size_t nr, len = 0;
        int p[2], status = 0, lines = 0;
        ssize_t n;
        pid_t pid;
        size_t i;
        (void) state;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(p[1], 2);
                (void) sbx_init(6, v);
                _exit(0);       /* not reached */
        }
        close(p[1]);
        while ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t) n;
        buf[len] = '\0';
        close(p[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), SBX_EXIT_RUNNER_FAILURE);
        for (i = 0; i < len; i++)
                lines += buf[i] == '\n';
        assert_int_equal(lines, 1);
        assert_non_null(strstr(buf, "sandbox-run: cannot start sandbox runner: "));
        assert_non_null(strstr(buf, "--bogus"));
        rules = sbx__backend_runner_rules(SBX_BACKEND_NATIVE, &nr);
        assert_true(rule_matches(rules, nr, WEXITSTATUS(status), buf));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_confine__bwrap_golden_read_only),
                cmocka_unit_test(test_confine__bwrap_golden_workspace_write),
                cmocka_unit_test(test_confine__bwrap_host_hidden_with_carve_outs),
                cmocka_unit_test(test_confine__bwrap_builder_refuses),
                cmocka_unit_test(test_confine__bwrap_guarantees_are_honest),
                cmocka_unit_test(test_confine__unavailable_backend_always_fails),
                cmocka_unit_test(test_confine__forced_unavailable_fails_closed),
                cmocka_unit_test(test_confine__env_override),
                cmocka_unit_test(test_confine__forced_backend_probe_failure_fails_closed),
                cmocka_unit_test(test_confine__local_config_too_late_after_detection),
                cmocka_unit_test(test_confine__local_config_validation),
                cmocka_unit_test(test_confine__backend_names_round_trip),
                cmocka_unit_test(test_confine__backend_guarantees_direct_and_invalid),
                cmocka_unit_test(test_confine__argv_is_validated),
                cmocka_unit_test(test_confine__danger_is_never_confinable),
                cmocka_unit_test(test_confine__gated_or_denied_command_is_refused),
                cmocka_unit_test(test_confine__getters_are_null_safe),
                cmocka_unit_test(test_confine__runner_rules_per_backend),
                cmocka_unit_test(test_confine__denial_signatures_present),
                cmocka_unit_test(test_confine__detected_backend_confines_fully),
                cmocka_unit_test(test_confine__missing_runner_fails_closed),
                cmocka_unit_test(test_confine__stage2_failure_is_one_line_125),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
