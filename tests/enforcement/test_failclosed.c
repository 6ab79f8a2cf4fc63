/*
 * test_failclosed.c - every step of both Linux rungs fails closed: with a
 * fault injected at a step, sbx_spawn returns an error naming that step and
 * the command never ran (the file it would create does not exist on the
 * host afterwards).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_failclosed__native_every_step),
                cmocka_unit_test(test_failclosed__landlock_every_step),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
