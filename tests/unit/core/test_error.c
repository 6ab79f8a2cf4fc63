#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "core/internal.h"

static void test_error__every_code_has_a_name_and_text(void **state)
{
        int32_t c;
        (void) state;

        for (c = 0; c < SBX__CODE_END; c++) {
                assert_non_null(strstr(sbx_code_name(c), "SBX_"));
                assert_string_not_equal(sbx_code_name(c), "SBX_E_UNKNOWN");
                assert_string_not_equal(sbx_strerror(c), "unknown error");
        }
        assert_string_equal(sbx_code_name(SBX_OK), "SBX_OK");
        assert_string_equal(sbx_code_name(SBX_E_SANDBOX_UNAVAILABLE), "SBX_E_SANDBOX_UNAVAILABLE");
        assert_string_equal(sbx_code_name(SBX_E_ESCALATION_NO_APPROVER), "SBX_E_ESCALATION_NO_APPROVER");
        assert_string_equal(sbx_code_name(-1), "SBX_E_UNKNOWN");
        assert_string_equal(sbx_code_name(SBX__CODE_END), "SBX_E_UNKNOWN");
        assert_string_equal(sbx_strerror(100000), "unknown error");
}

static void test_error__fail_fills_and_truncates(void **state)
{
        sbx_error e = { 0, 0, { 0 } };
        char big[1000];
        (void) state;

        memset(big, 'z', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        assert_int_equal(sbx__fail(&e, SBX_E_IO, 13, "step %s", big), SBX_E_IO);
        assert_int_equal(e.code, SBX_E_IO);
        assert_int_equal(e.sys_errno, 13);
        assert_int_equal(strlen(e.message), SBX_ERROR_SIZE - 1);
        assert_int_equal(sbx__fail(NULL, SBX_E_NOMEM, 0, "no err"), SBX_E_NOMEM);
}

static void test_error__version(void **state)
{
        char want[32];
        (void) state;

        snprintf(want, sizeof(want), "%d.%d.%d", SBX_VERSION_MAJOR, SBX_VERSION_MINOR, SBX_VERSION_PATCH);
        assert_string_equal(sbx_version_string(), want);
        assert_true(SBX_VERSION_AT_LEAST(0, 0, 1));
        assert_false(SBX_VERSION_AT_LEAST(99, 0, 0));
        sbx_free(NULL);
        sbx_strv_free(NULL);
}

/* Run fn in a child with stderr on a pipe; return its wait status and text. */
static int run_child(void (*fn)(void), char *buf, size_t bufsz)
{
        int fds[2], status = 0;
        ssize_t n, got = 0;
        pid_t pid;

        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(fds[1], STDERR_FILENO);
                fn();
                _exit(0);
        }
        close(fds[1]);
        while ((n = read(fds[0], buf + got, bufsz - 1 - (size_t) got)) > 0)
                got += n;
        buf[got] = '\0';
        close(fds[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        return status;
}

static void trip_invariant(void)
{
        sbx_invariants_set_enabled(1);
        SBX__INVARIANT(1 == 2, "invalid sandbox mode \"%s\"", "bogus");
}

static void skip_invariant(void)
{
        sbx_invariants_set_enabled(0);
        SBX__INVARIANT(1 == 2, "must not fire");
}

static void test_error__invariant_aborts_with_marker(void **state)
{
        char buf[1024];
        int status;
        (void) state;

        status = run_child(trip_invariant, buf, sizeof(buf));
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGABRT);
        assert_string_equal(buf, "[sandbox invariant] invalid sandbox mode \"bogus\"\n");

        status = run_child(skip_invariant, buf, sizeof(buf));
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_string_equal(buf, "");
}

static void test_error__invariant_switch(void **state)
{
        int before = sbx_invariants_enabled();
        (void) state;

#ifdef NDEBUG
        assert_int_equal(before, 0);
#else
        assert_int_equal(before, 1);
#endif
        sbx_invariants_set_enabled(0);
        assert_int_equal(sbx_invariants_enabled(), 0);
        sbx_invariants_set_enabled(7);
        assert_int_equal(sbx_invariants_enabled(), 1);
        sbx_invariants_set_enabled(before);
}

/* Each thread asks for its own unknown errno's text over and over (glibc
 * formats those into a buffer); with a shared buffer one would see the
 * other's. */
struct errtext_job {
        int         e;
        const char *want;
        int         bad;
};

static void *errtext_worker(void *arg)
{
        struct errtext_job *j = arg;
        int i;

        for (i = 0; i < 20000; i++)
                if (strcmp(sbx__strerror(j->e), j->want) != 0)
                        j->bad++;
        return NULL;
}

static void test_error__strerror_is_reentrant(void **state)
{
        char a[SBX__ERRBUF], b[SBX__ERRBUF], c[SBX__ERRBUF], tiny[1];
        struct errtext_job jobs[2] = { { 99998, NULL, 0 }, { 99999, NULL, 0 } };
        pthread_t t[2];
        int i;
        (void) state;

        (void) snprintf(a, sizeof(a), "%s", sbx__strerror(ENOENT));
        assert_string_equal(a, "No such file or directory");
        /* An unknown number still has a text (glibc: "Unknown error N"). */
        (void) snprintf(b, sizeof(b), "%s", sbx__strerror(99999));
        assert_true(b[0] != '\0');
        assert_non_null(strstr(b, "99999"));
        assert_string_equal(sbx__strerror_r(EACCES, NULL, 0), "unknown error");
        assert_non_null(sbx__strerror_r(EACCES, tiny, sizeof(tiny)));
        (void) snprintf(c, sizeof(c), "%s", sbx__strerror(99998));
        assert_string_not_equal(b, c);
        jobs[0].want = c;
        jobs[1].want = b;
        for (i = 0; i < 2; i++)
                assert_int_equal(pthread_create(&t[i], NULL, errtext_worker, &jobs[i]), 0);
        for (i = 0; i < 2; i++)
                assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[0].bad, 0);
        assert_int_equal(jobs[1].bad, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_error__every_code_has_a_name_and_text),
                cmocka_unit_test(test_error__fail_fills_and_truncates),
                cmocka_unit_test(test_error__version),
                cmocka_unit_test(test_error__invariant_aborts_with_marker),
                cmocka_unit_test(test_error__invariant_switch),
                cmocka_unit_test(test_error__strerror_is_reentrant),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
