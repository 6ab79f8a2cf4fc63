/*
 * test_failclosed.c - every step of both Linux rungs fails closed: with a
 * fault injected at a step, sbx_spawn returns an error naming that step and
 * the command never ran (the file it would create does not exist on the
 * host afterwards).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "linux/linux_internal.h"

static char ws[256];

static int setup(void **state)
{
        char tmpl[] = "/tmp/sbx-failclosed-XXXXXX", *r;

        (void) state;
        if (mkdtemp(tmpl) == NULL)
                return -1;
        r = realpath(tmpl, NULL);
        if (r == NULL)
                return -1;
        snprintf(ws, sizeof(ws), "%s", r);
        free(r);
        return 0;
}

static int teardown(void **state)
{
        char cmd[512];

        (void) state;
        sbx__fault_inject(0);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ws);
        return system(cmd) == 0 ? 0 : -1;
}

/* Spawn `touch ws/ran` in workspace-write under backend; returns the code
 * and fills msg.  A successful spawn is waited for. */
static sbx_code try_spawn(int32_t backend, char *msg, size_t msglen)
{
        const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
        char target[300];
        const char *argv[] = { "touch", target, NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code r;
        int st;

        snprintf(target, sizeof(target), "%s/ran", ws);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, ws, &profile, NULL), SBX_OK);
        assert_int_equal(sbx_plan_compile(profile, &plan, NULL), SBX_OK);
        o.backend = backend;
        o.envp = envp;
        r = sbx_spawn(plan, argv, &o, &child, &e);
        if (r == SBX_OK)
                assert_int_equal(sbx_child_wait(child, &st, NULL), SBX_OK);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        snprintf(msg, msglen, "%s", e.message);
        return r;
}

static int ran(void)
{
        char target[300];
        struct stat st;

        snprintf(target, sizeof(target), "%s/ran", ws);
        return stat(target, &st) == 0;
}

static void check_steps(int32_t backend, const int *steps, size_t n)
{
        char msg[SBX_ERROR_SIZE];
        size_t i;

        /* Control: without a fault the command runs. */
        sbx__fault_inject(0);
        assert_int_equal(try_spawn(backend, msg, sizeof(msg)), SBX_OK);
        assert_true(ran());
        for (i = 0; i < n; i++) {
                char target[300];

                snprintf(target, sizeof(target), "%s/ran", ws);
                (void) unlink(target);
                sbx__fault_inject(steps[i]);
                if (try_spawn(backend, msg, sizeof(msg)) == SBX_OK)
                        fail_msg("%s: step \"%s\": spawn succeeded despite the fault",
                                 sbx_backend_name(backend), sbx__step_name(steps[i]));
                if (strstr(msg, sbx__step_name(steps[i])) == NULL)
                        fail_msg("%s: step \"%s\": error does not name it: %s",
                                 sbx_backend_name(backend), sbx__step_name(steps[i]), msg);
                if (ran())
                        fail_msg("%s: step \"%s\": the command ran", sbx_backend_name(backend),
                                 sbx__step_name(steps[i]));
        }
        sbx__fault_inject(0);
}

/* The step numbers, by name, so the list cannot silently drift. */
static int step_of(const char *name)
{
        int s;

        for (s = 1; sbx__step_name(s) != NULL; s++)
                if (strcmp(sbx__step_name(s), name) == 0)
                        return s;
        fail_msg("no step named \"%s\"", name);
        return 0;
}

static void test_failclosed__native_every_step(void **state)
{
        static const char *const names[] = {
                "resetting signal dispositions", "setting PR_SET_PDEATHSIG",
                "waiting for the parent", "writing /proc/self/setgroups", "writing the user namespace uid_map",
                "writing the user namespace gid_map", "making the mount tree private",
                "mounting the staging tmpfs", "pivoting into the staging root",
                "building the sandbox mount tree", "pivoting into the sandbox root",
                "bringing up loopback in the network namespace", "starting a new session (setsid)",
                "changing to the working directory", "dropping capabilities",
                "applying Landlock (landlock_restrict_self)", "loading the seccomp filter",
                "starting the sandbox process", "arranging file descriptors",
                "setting resource limits",
        };
        int steps[32];
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(names); i++)
                steps[i] = step_of(names[i]);
        check_steps(SBX_BACKEND_NATIVE, steps, SBX__ARRAY_SIZE(names));
}

static void test_failclosed__landlock_every_step(void **state)
{
        static const char *const names[] = {
                "resetting signal dispositions", "setting PR_SET_PDEATHSIG",
                "waiting for the parent", "starting the sandbox process",
                "starting a new session (setsid)", "changing to the working directory",
                "dropping capabilities", "applying Landlock (landlock_restrict_self)",
                "loading the seccomp filter", "arranging file descriptors",
                "setting resource limits",
        };
        int steps[16];
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(names); i++)
                steps[i] = step_of(names[i]);
        check_steps(SBX_BACKEND_LANDLOCK, steps, SBX__ARRAY_SIZE(names));
}

/* One spawn of argv under backend with opts' cwd / memory_max, in
 * workspace-write on root; a started child is waited for. */
static sbx_code spawn_with(int32_t backend, const char *root, const char *const *argv,
                           const char *cwd, uint64_t memory_max, sbx_error *e)
{
        const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_code r;
        int st;

        memset(e, 0, sizeof(*e));
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, root, &profile, NULL),
                         SBX_OK);
        assert_int_equal(sbx_plan_compile(profile, &plan, NULL), SBX_OK);
        o.backend = backend;
        o.envp = envp;
        o.cwd = cwd;
        o.memory_max = memory_max;
        r = sbx_spawn(plan, argv, &o, &child, e);
        if (r == SBX_OK)
                assert_int_equal(sbx_child_wait(child, &st, NULL), SBX_OK);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        return r;
}

static void expect(int32_t backend, const char *what, sbx_code got, const sbx_error *e,
                   sbx_code want, const char *needle)
{
        const unsigned char *c;

        if (got != want || strstr(e->message, needle) == NULL)
                fail_msg("%s: %s: got %s (want %s naming \"%s\"): %s", sbx_backend_name(backend),
                         what, sbx_code_name(got), sbx_code_name(want), needle, e->message);
        for (c = (const unsigned char *) e->message; *c != '\0'; c++)
                if (*c < 0x20 || *c == 0x7f)
                        fail_msg("%s: %s: a control byte 0x%02x in the message: %s",
                                 sbx_backend_name(backend), what, *c, e->message);
}

/* Each error names the argument or path and the real cause, in
 * printable text (issue 21, item 8); nothing of it ran. */
static void errors_name_the_cause(int32_t backend)
{
        const char *const touch[] = { "touch", NULL, NULL };
        const char *const odd[] = { "no\nsuch\x1b[31m\xff", NULL };
        const char *const by_path[] = { "/nonexistent-sbx/cmd", NULL };
        const char *const by_name[] = { "nonexistent-sbx-cmd", NULL };
        const char *const t[] = { "true", NULL };
        char target[300], longcwd[SBX_PATH_MAX + 16], gone[300];
        const char *argv[3];
        sbx_error e;
        sbx_code r;

        snprintf(target, sizeof(target), "%s/ran", ws);
        memcpy(argv, touch, sizeof(argv));
        argv[1] = target;
        (void) unlink(target);

        snprintf(gone, sizeof(gone), "%s/no-such-root", ws);
        r = spawn_with(backend, gone, argv, NULL, 0, &e);
        expect(backend, "missing workspace root", r, &e, SBX_E_NOT_FOUND, gone);
        expect(backend, "missing workspace root", r, &e, SBX_E_NOT_FOUND, strerror(ENOENT));

        snprintf(gone, sizeof(gone), "%s/no-such-dir", ws);
        r = spawn_with(backend, ws, argv, gone, 0, &e);
        expect(backend, "missing cwd", r, &e, SBX_E_NOT_FOUND, gone);
        expect(backend, "missing cwd", r, &e, SBX_E_NOT_FOUND, strerror(ENOENT));

        memset(longcwd, 'a', sizeof(longcwd) - 1);
        longcwd[0] = '/';
        longcwd[sizeof(longcwd) - 1] = '\0';
        r = spawn_with(backend, ws, argv, longcwd, 0, &e);
        expect(backend, "overlong cwd", r, &e, SBX_E_RANGE, "cwd \"/aaa");

        r = spawn_with(backend, ws, argv, NULL, 1, &e);
        expect(backend, "memory_max = 1", r, &e, SBX_E_RANGE, "memory_max");

        r = spawn_with(backend, ws, odd, NULL, 0, &e);
        expect(backend, "odd argv[0]", r, &e, SBX_E_NOT_FOUND, "no\\nsuch\\x1b[31m\\xff");

        r = spawn_with(backend, ws, by_path, NULL, 0, &e);
        expect(backend, "missing command by path", r, &e, SBX_E_NOT_FOUND, by_path[0]);
        r = spawn_with(backend, ws, by_name, NULL, 0, &e);
        expect(backend, "missing command by name", r, &e, SBX_E_NOT_FOUND, by_name[0]);
        if (ran())
                fail_msg("%s: a failed spawn ran the command", sbx_backend_name(backend));

        /* Too few fds: whichever step runs out says so, with EMFILE, as
         * a resource (SBX_E_IO), not an internal error or a backend that
         * cannot enforce; and the shortage is not remembered. */
        {
                struct rlimit old, low;
                int lim, fired = 0;

                assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
                for (lim = 3; lim < 64; lim++) {
                        sbx_profile *profile = NULL;
                        sbx_plan *plan = NULL;
                        sbx_child *child = NULL;
                        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
                        int st;

                        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, ws,
                                                               &profile, NULL), SBX_OK);
                        assert_int_equal(sbx_plan_compile(profile, &plan, NULL), SBX_OK);
                        o.backend = backend;
                        memset(&e, 0, sizeof(e));
                        low = old;
                        low.rlim_cur = (rlim_t) lim;
                        assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
                        r = sbx_spawn(plan, t, &o, &child, &e);
                        assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
                        if (r == SBX_OK)
                                assert_int_equal(sbx_child_wait(child, &st, NULL), SBX_OK);
                        sbx_child_free(child);
                        sbx_plan_free(plan);
                        sbx_profile_free(profile);
                        if (r == SBX_OK)
                                break;
                        fired++;
                        if (r != SBX_E_IO || e.sys_errno != EMFILE ||
                            strstr(e.message, strerror(EMFILE)) == NULL)
                                fail_msg("%s: RLIMIT_NOFILE %d: %s (errno %d): %s",
                                         sbx_backend_name(backend), lim, sbx_code_name(r),
                                         (int) e.sys_errno, e.message);
                }
                if (fired == 0 || lim == 64)
                        fail_msg("%s: the fd sweep did not reach both a failure and a run "
                                 "(%d failures, last limit %d)", sbx_backend_name(backend),
                                 fired, lim);
        }
}

static void test_failclosed__native_errors_name_the_cause(void **state)
{
        (void) state;
        errors_name_the_cause(SBX_BACKEND_NATIVE);
}

static void test_failclosed__landlock_errors_name_the_cause(void **state)
{
        (void) state;
        errors_name_the_cause(SBX_BACKEND_LANDLOCK);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_failclosed__native_every_step),
                cmocka_unit_test(test_failclosed__landlock_every_step),
                cmocka_unit_test(test_failclosed__native_errors_name_the_cause),
                cmocka_unit_test(test_failclosed__landlock_errors_name_the_cause),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
