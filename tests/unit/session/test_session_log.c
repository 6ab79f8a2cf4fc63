/*
 * test_session_log.c - the durable session log (src/session/log.c).
 *
 * Every test gets its own mkdtemp directory under $TMPDIR (or /tmp) and
 * removes it, and everything in it, in teardown.  Nothing depends on timing.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox.h>

#include "unit/sbx_test.h"
#include "policy/policy_internal.h"
#include "session/session_internal.h"

#define REC_RO_USER "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}"
#define REC_WW_DELEG \
        "{\"type\":\"sandbox/mode\",\"mode\":\"workspace-write\",\"source\":\"delegation\",\"ts\":2}"
#define REC_DFA_ESC \
        "{\"type\":\"sandbox/mode\",\"mode\":\"danger-full-access\",\"source\":\"escalation\",\"ts\":3}"

struct fixture {
        char dir[PATH_MAX / 2];
        char path[PATH_MAX];            /* dir/session.jsonl, not created */
        int  fds_at_start;
};

/* ------------------------------------------------------------ helpers */

static int count_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        assert_non_null(d);
        while ((de = readdir(d)) != NULL)
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;                       /* includes the DIR's own fd, every time */
}

static void join(char *out, const struct fixture *fx, const char *name)
{
        int n = snprintf(out, PATH_MAX, "%s/%s", fx->dir, name);

        assert_true(n > 0 && n < PATH_MAX);
}

static void write_file(const char *path, const char *data, size_t len)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        size_t off = 0;

        assert_true(fd >= 0);
        while (off < len) {
                ssize_t w = write(fd, data + off, len - off);

                assert_true(w > 0);
                off += (size_t) w;
        }
        assert_int_equal(close(fd), 0);
}

static void write_str(const char *path, const char *data)
{
        write_file(path, data, strlen(data));
}

/* The whole file, NUL-terminated; *len_out (may be NULL) its size. */
static char *read_file(const char *path, size_t *len_out)
{
        struct stat st;
        char *buf;
        size_t off = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        buf = malloc((size_t) st.st_size + 1);
        assert_non_null(buf);
        while (off < (size_t) st.st_size) {
                ssize_t got = read(fd, buf + off, (size_t) st.st_size - off);

                assert_true(got > 0);
                off += (size_t) got;
        }
        buf[off] = '\0';
        assert_int_equal(close(fd), 0);
        if (len_out != NULL)
                *len_out = off;
        return buf;
}

static void assert_file_is(const char *path, const char *want)
{
        size_t len = 0;
        char *got = read_file(path, &len);

        assert_int_equal(len, strlen(want));
        assert_string_equal(got, want);
        free(got);
}

static sbx_mode_event make_event(int32_t mode, int32_t source, int64_t ts)
{
        sbx_mode_event ev = SBX_MODE_EVENT_INIT;

        ev.mode = mode;
        ev.source = source;
        ev.timestamp_ms = ts;
        return ev;
}

static void assert_events_equal(const sbx_mode_event *got, const sbx_mode_event *want, size_t n)
{
        size_t i;

        for (i = 0; i < n; i++) {
                assert_int_equal(got[i].version, SBX_MODE_EVENT_VERSION);
                assert_int_equal(got[i].mode, want[i].mode);
                assert_int_equal(got[i].source, want[i].source);
                assert_int_equal(got[i].timestamp_ms, want[i].timestamp_ms);
        }
}

static sbx_session_log *open_ok(const char *path, sbx_session_log_report *report)
{
        sbx_session_log *log = NULL;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code r = sbx_session_log_open(path, &log, report, &e);

        if (r != SBX_OK)
                fail_msg("open \"%s\": %s: %s", path, sbx_code_name(r), e.message);
        assert_non_null(log);
        return log;
}

static void append_ok(sbx_session_log *log, sbx_mode_event ev)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_code r = sbx_session_log_append(log, &ev, &e);

        if (r != SBX_OK)
                fail_msg("append: %s: %s", sbx_code_name(r), e.message);
}

static void assert_log_events(const sbx_session_log *log, const sbx_mode_event *want, size_t n)
{
        const sbx_mode_event *got = NULL;
        size_t got_n = 99;

        assert_int_equal(sbx_session_log_events(log, &got, &got_n, NULL), SBX_OK);
        assert_int_equal(got_n, n);
        if (n == 0)
                assert_null(got);
        else
                assert_events_equal(got, want, n);
}

/* Open must fail with code and a message containing each needle; *out and
 * the report stay untouched, the file is unchanged and no fd leaks. */
static void expect_open_fails(const struct fixture *fx, const char *path, sbx_code code,
                              const char *needle1, const char *needle2)
{
        sbx_session_log *log = (sbx_session_log *) (uintptr_t) 0x1;
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_error e = { 0, 0, { 0 } };
        struct stat before, after;
        char *data_before = NULL, *data_after = NULL;
        int is_reg = lstat(path, &before) == 0 && S_ISREG(before.st_mode);
        int fds = count_fds();

        (void) fx;
        if (is_reg)
                data_before = read_file(path, NULL);
        rep.records = 77;
        assert_int_equal(sbx_session_log_open(path, &log, &rep, &e), code);
        assert_int_equal(e.code, code);
        assert_ptr_equal(log, (sbx_session_log *) (uintptr_t) 0x1);
        assert_int_equal(rep.records, 77);
        assert_int_equal(rep.torn_tail, 0);
        assert_non_null(strstr(e.message, "sbx_session_log_open"));
        if (needle1 != NULL && strstr(e.message, needle1) == NULL)
                fail_msg("message \"%s\" lacks \"%s\"", e.message, needle1);
        if (needle2 != NULL && strstr(e.message, needle2) == NULL)
                fail_msg("message \"%s\" lacks \"%s\"", e.message, needle2);
        assert_int_equal(count_fds(), fds);
        if (is_reg) {
                assert_int_equal(lstat(path, &after), 0);
                assert_int_equal(after.st_size, before.st_size);
                data_after = read_file(path, NULL);
                assert_memory_equal(data_after, data_before, (size_t) before.st_size);
        }
        free(data_before);
        free(data_after);
}

/* ------------------------------------------------------------ fixture */

static int rm_tree(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char p[PATH_MAX];
        struct stat st;

        if (d == NULL)
                return -1;
        while ((de = readdir(d)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                (void) snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                        (void) rm_tree(p);
                else
                        (void) unlink(p);
        }
        closedir(d);
        return rmdir(dir);
}

static int setup(void **state)
{
        struct fixture *fx = calloc(1, sizeof(*fx));
        const char *tmp = getenv("TMPDIR");

        if (fx == NULL)
                return -1;
        if (tmp == NULL || tmp[0] == '\0')
                tmp = "/tmp";
        if (snprintf(fx->dir, sizeof(fx->dir), "%s/sbx-session-log-XXXXXX", tmp) >=
                    (int) sizeof(fx->dir) ||
            mkdtemp(fx->dir) == NULL) {
                free(fx);
                return -1;
        }
        (void) snprintf(fx->path, sizeof(fx->path), "%s/session.jsonl", fx->dir);
        fx->fds_at_start = count_fds();
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;
        int leaked = count_fds() != fx->fds_at_start;
        int r = rm_tree(fx->dir);

        free(fx);
        return (r == 0 && !leaked) ? 0 : -1;
}

/* -------------------------------------------------------------- tests */

static void test_session_log__new_file_is_created_0600(void **state)
{
        struct fixture *fx = *state;
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log *log;
        struct stat st;
        mode_t old = umask(022);

        rep.records = rep.torn_bytes = 55;
        rep.torn_tail = 9;
        log = open_ok(fx->path, &rep);
        (void) umask(old);
        assert_int_equal(rep.version, SBX_SESSION_LOG_REPORT_VERSION);
        assert_int_equal(rep.records, 0);
        assert_int_equal(rep.torn_tail, 0);
        assert_int_equal(rep.torn_bytes, 0);
        assert_int_equal(lstat(fx->path, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_size, 0);
        assert_log_events(log, NULL, 0);
        sbx_session_log_close(log);
}

static void test_session_log__append_then_reopen_replays_in_order(void **state)
{
        struct fixture *fx = *state;
        const sbx_mode_event want[] = {
                make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_USER, INT64_C(1700000000000)),
                make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_DELEGATION, 0),
                make_event(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_SOURCE_ESCALATION, INT64_MAX),
                make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 5),
        };
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log *log;
        size_t i;

        log = open_ok(fx->path, NULL);
        for (i = 0; i < 4; i++) {
                append_ok(log, want[i]);
                assert_log_events(log, want, i + 1);
        }
        sbx_session_log_close(log);

        /* The documented record format, byte for byte ("/" not escaped). */
        assert_file_is(fx->path,
                "{\"type\":\"sandbox/mode\",\"mode\":\"workspace-write\",\"source\":\"user\",\"ts\":1700000000000}\n"
                "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"delegation\",\"ts\":0}\n"
                "{\"type\":\"sandbox/mode\",\"mode\":\"danger-full-access\",\"source\":\"escalation\",\"ts\":9223372036854775807}\n"
                "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":5}\n");

        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.records, 4);
        assert_int_equal(rep.torn_tail, 0);
        assert_int_equal(rep.torn_bytes, 0);
        assert_log_events(log, want, 4);
        sbx_session_log_close(log);
}

static void test_session_log__effective_mode_after_replay_is_last(void **state)
{
        struct fixture *fx = *state;
        sbx_session_log *log;
        const sbx_mode_event *evs = NULL;
        size_t n = 0;
        int32_t mode = 0;

        log = open_ok(fx->path, NULL);
        append_ok(log, make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 10));
        append_ok(log, make_event(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_SOURCE_ESCALATION, 20));
        append_ok(log, make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 5));
        sbx_session_log_close(log);

        log = open_ok(fx->path, NULL);
        assert_int_equal(sbx_session_log_events(log, &evs, &n, NULL), SBX_OK);
        assert_int_equal(n, 3);
        /* Last wins, by file order, not by timestamp. */
        assert_int_equal(sbx_mode_events_effective(evs, n, &mode, NULL), SBX_OK);
        assert_int_equal(mode, SBX_MODE_WORKSPACE_WRITE);
        sbx_session_log_close(log);

        /* An empty log has no effective mode. */
        assert_int_equal(unlink(fx->path), 0);
        log = open_ok(fx->path, NULL);
        assert_int_equal(sbx_session_log_events(log, &evs, &n, NULL), SBX_OK);
        assert_int_equal(sbx_mode_events_effective(evs, n, &mode, NULL), SBX_E_NOT_FOUND);
        sbx_session_log_close(log);
}

static void test_session_log__torn_last_line_is_reported_and_cut(void **state)
{
        struct fixture *fx = *state;
        static const char torn[] = "{\"type\":\"sandbox/mode\",\"mode\":\"rea";
        const sbx_mode_event want[] = {
                make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1),
                make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 2),
                make_event(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_SOURCE_USER, 9),
        };
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log *log;

        write_str(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n" "{\"type\":\"sandbox/mode\",\"mode\":\"rea");
        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.torn_tail, 1);
        assert_int_equal(rep.torn_bytes, strlen(torn));
        assert_int_equal(rep.records, 2);
        assert_log_events(log, want, 2);
        /* Cut off on disk already, before any append. */
        assert_file_is(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n");

        append_ok(log, want[2]);
        sbx_session_log_close(log);
        assert_file_is(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n"
                       "{\"type\":\"sandbox/mode\",\"mode\":\"danger-full-access\",\"source\":\"user\",\"ts\":9}\n");

        rep = (sbx_session_log_report) SBX_SESSION_LOG_REPORT_INIT;
        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.torn_tail, 0);
        assert_int_equal(rep.torn_bytes, 0);
        assert_int_equal(rep.records, 3);
        assert_log_events(log, want, 3);
        sbx_session_log_close(log);
}

static void test_session_log__torn_tail_shapes(void **state)
{
        /* Unterminated tails that are not one complete JSON value: each is a
         * torn append (a crash mid-write, or zeros from the file system). */
        static const struct {
                const char *tail;
                size_t len;
        } tails[] = {
                { "{", 0 },
                { " ", 0 },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1", 0 },
                { REC_RO_USER "xyz", 0 },
                { "\0\0\0\0\0\0\0\0", 8 },
                { "{\"type\":\"sand\0\0\0\0", 17 },
                { "garbage", 0 },
                { "{\"a\":tru", 0 },
                { "123", 0 },
        };
        struct fixture *fx = *state;
        size_t i;

        for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
                sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
                char data[256];
                size_t head = strlen(REC_RO_USER "\n");
                sbx_session_log *log;

                size_t len = tails[i].len != 0 ? tails[i].len : strlen(tails[i].tail);

                memcpy(data, REC_RO_USER "\n", head);
                memcpy(data + head, tails[i].tail, len);
                write_file(fx->path, data, head + len);
                log = open_ok(fx->path, &rep);
                assert_int_equal(rep.torn_tail, 1);
                assert_int_equal(rep.torn_bytes, len);
                assert_int_equal(rep.records, 1);
                sbx_session_log_close(log);
                assert_file_is(fx->path, REC_RO_USER "\n");
        }
}

static void test_session_log__complete_last_record_without_newline_is_kept(void **state)
{
        struct fixture *fx = *state;
        const sbx_mode_event want[] = {
                make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1),
                make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 2),
                make_event(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_SOURCE_ESCALATION, 3),
        };
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log *log;

        write_str(fx->path, REC_RO_USER "\n" REC_WW_DELEG);
        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.records, 2);
        assert_int_equal(rep.torn_tail, 0);
        assert_int_equal(rep.torn_bytes, 0);
        assert_log_events(log, want, 2);
        /* The newline is written (and fsynced) at open. */
        assert_file_is(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n");

        append_ok(log, want[2]);
        sbx_session_log_close(log);
        /* The next append did not merge into the kept line. */
        assert_file_is(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n" REC_DFA_ESC "\n");

        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.records, 3);
        assert_int_equal(rep.torn_tail, 0);
        assert_log_events(log, want, 3);
        sbx_session_log_close(log);

        /* A single record without any newline. */
        write_str(fx->path, REC_DFA_ESC);
        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.records, 1);
        assert_log_events(log, want + 2, 1);
        sbx_session_log_close(log);
        assert_file_is(fx->path, REC_DFA_ESC "\n");
}

static void test_session_log__corrupt_middle_line_names_line_number(void **state)
{
        struct fixture *fx = *state;

        write_str(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n" "{not json}\n" REC_DFA_ESC "\n");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 3: ", "invalid JSON");
        /* The path is quoted in the message. */
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, fx->path, "\" line 3: invalid JSON");
}

static void test_session_log__corrupt_records_are_rejected(void **state)
{
        static const struct {
                const char *line;
                const char *reason;
        } bad[] = {
                { "{\"type\":\"sandbox/other\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}",
                  "type must be \"sandbox/mode\"" },
                { "{\"type\":\"Sandbox/Mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}",
                  "type must be" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"full\",\"source\":\"user\",\"ts\":1}",
                  "unknown mode \"full\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"Read-Only\",\"source\":\"user\",\"ts\":1}",
                  "unknown mode" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"admin\",\"ts\":1}",
                  "unknown source \"admin\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":-1}",
                  "negative timestamp" },
                { "{\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}", "missing field \"type\"" },
                { "{\"type\":\"sandbox/mode\",\"source\":\"user\",\"ts\":1}", "missing field \"mode\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"ts\":1}",
                  "missing field \"source\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\"}",
                  "missing field \"ts\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1,\"why\":\"x\"}",
                  "unexpected field \"why\"" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1} x",
                  "invalid JSON" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}{}",
                  "invalid JSON" },
                { "[\"sandbox/mode\",\"read-only\",\"user\",1]", "not a JSON object" },
                { "\"sandbox/mode\"", "not a JSON object" },
                { "null", "not a JSON object" },
                { "true", "not a JSON object" },
                { "42", "not a JSON object" },
                { "   ", "incomplete JSON" },
                { "{\"type\":\"sandbox/mode\"", "incomplete JSON" },
                { "{}", "missing field" },
                { "{\"type\":\"sandbox/mode\",\"mode\":1,\"source\":\"user\",\"ts\":1}",
                  "field \"mode\" must be a string" },
                { "{\"type\":\"sandbox/mode\",\"mode\":null,\"source\":\"user\",\"ts\":1}",
                  "field \"mode\" must be a string" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":\"1\"}",
                  "field \"ts\" must be an integer" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1.5}",
                  "field \"ts\" must be an integer" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1e3}",
                  "field \"ts\" must be an integer" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":9223372036854775808}",
                  "ts out of range" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":99999999999999999999999}",
                  "ts out of range" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"mode\":\"danger-full-access\",\"source\":\"user\",\"ts\":1}",
                  "duplicate field" },
                /* json-c 0.16 takes single-quoted keys even when strict. */
                { "{'type':\"sandbox/mode\",'mode':\"read-only\",'source':\"user\",'ts':1}",
                  "single-quoted" },
                { "{'type':'sandbox/mode','mode':'read-only','source':'user','ts':1}",
                  "invalid JSON" },
                { "{\"type\\u0000x\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1}",
                  "escaped NUL" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\\u0000x\",\"source\":\"user\",\"ts\":1}",
                  "contains a NUL byte" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":01}",
                  "invalid JSON" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":1,}",
                  "invalid JSON" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"\xff\",\"source\":\"user\",\"ts\":1}",
                  "invalid JSON" },
                { "{\"type\":\"sandbox/mode\",\"mode\":\"read-only\",\"source\":\"user\",\"ts\":NaN}",
                  "field \"ts\" must be an integer" },
                { "", "empty line" },
        };
        struct fixture *fx = *state;
        char data[512];
        size_t i;

        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                int n = snprintf(data, sizeof(data), "%s\n%s\n%s\n", REC_RO_USER, bad[i].line,
                                 REC_WW_DELEG);

                assert_true(n > 0 && (size_t) n < sizeof(data));
                write_str(fx->path, data);
                expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", bad[i].reason);
        }
}

static void test_session_log__nul_byte_in_middle_line_is_corrupt(void **state)
{
        static const char data[] = REC_RO_USER "\n{\"type\"\0:1}\n";
        struct fixture *fx = *state;

        write_file(fx->path, data, sizeof(data) - 1);
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "NUL byte");
}

static void test_session_log__complete_invalid_tail_is_corrupt_not_torn(void **state)
{
        struct fixture *fx = *state;

        /* A complete JSON value can never be a torn prefix of a record, so
         * an invalid one at the end is damage (or a newer writer's record):
         * refused, never silently cut off. */
        write_str(fx->path, REC_RO_USER "\n"
                  "{\"type\":\"sandbox/mode\",\"mode\":\"paranoid\",\"source\":\"user\",\"ts\":1}");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "unknown mode \"paranoid\"");
        write_str(fx->path, REC_RO_USER "\n\"string\"");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "not a JSON object");
}

static void test_session_log__empty_first_and_last_lines_are_corrupt(void **state)
{
        struct fixture *fx = *state;

        write_str(fx->path, "\n" REC_RO_USER "\n");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 1: ", "empty line");
        write_str(fx->path, REC_RO_USER "\n\n");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "empty line");
        write_str(fx->path, "\n");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 1: ", "empty line");
}

static void test_session_log__overlong_line_is_corrupt(void **state)
{
        struct fixture *fx = *state;
        size_t head = strlen(REC_RO_USER "\n"), len = head + SBX__SESSION_LOG_MAX_LINE + 2;
        char *data = malloc(len);

        assert_non_null(data);
        memcpy(data, REC_RO_USER "\n", head);
        memset(data + head, ' ', SBX__SESSION_LOG_MAX_LINE + 1);
        data[len - 1] = '\n';
        write_file(fx->path, data, len);
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "longer than 65536 bytes");
        /* The same without its newline is not a torn append either. */
        write_file(fx->path, data, len - 1);
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2: ", "unterminated last line");
        free(data);
}

static void test_session_log__oversized_file_is_range(void **state)
{
        struct fixture *fx = *state;
        int fd = open(fx->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        assert_true(fd >= 0);
        /* Sparse: costs no disk space. */
        assert_int_equal(ftruncate(fd, (off_t) SBX__SESSION_LOG_MAX_FILE + 1), 0);
        assert_int_equal(close(fd), 0);
        expect_open_fails(fx, fx->path, SBX_E_RANGE, "above the 67108864 byte limit", NULL);
}

/*
 * Append `size` bytes of valid REC_RO_USER records to fd, each padded with
 * spaces after its '{' (JSON whitespace) to at most SBX__SESSION_LOG_MAX_LINE
 * bytes, so a file near the size cap needs only about a thousand lines.
 * Returns the number of records.
 */
static size_t write_padded_records(int fd, size_t size)
{
        static const char rec[] = REC_RO_USER;
        const size_t rec_len = sizeof(rec) - 1, max_line = SBX__SESSION_LOG_MAX_LINE + 1;
        char *line = malloc(max_line);
        size_t left = size, n = 0, len, off;

        assert_non_null(line);
        assert_true(size >= rec_len + 1);
        while (left > 0) {
                len = left < max_line ? left : max_line;
                /* Never leave a remainder too short to be a record. */
                if (left - len > 0 && left - len < rec_len + 1)
                        len -= rec_len + 1;
                line[0] = '{';
                memset(line + 1, ' ', len - rec_len - 1);
                memcpy(line + len - rec_len, rec + 1, rec_len - 1);
                line[len - 1] = '\n';
                for (off = 0; off < len;) {
                        ssize_t w = write(fd, line + off, len - off);

                        assert_true(w > 0);
                        off += (size_t) w;
                }
                left -= len;
                n++;
        }
        free(line);
        return n;
}

static off_t file_size(const char *path)
{
        struct stat st;

        assert_int_equal(stat(path, &st), 0);
        return st.st_size;
}

static void test_session_log__append_past_size_cap_is_range(void **state)
{
        struct fixture *fx = *state;
        const sbx_mode_event old = make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1);
        const sbx_mode_event ev = make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 2);
        const size_t rec = strlen(REC_WW_DELEG "\n");   /* what append writes for ev */
        const size_t tail = 2 * sizeof(REC_RO_USER);    /* the last line, padded */
        const size_t head = SBX__SESSION_LOG_MAX_FILE - rec + 1 - tail;
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        const sbx_mode_event *evs = NULL;
        sbx_session_log *log;
        size_t n, got = 0;
        char want[200];
        int fd;

        /* One byte too many: refused, nothing written, the handle still
         * holds every replayed record. */
        fd = open(fx->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        n = write_padded_records(fd, head);
        n += write_padded_records(fd, tail);
        assert_int_equal(close(fd), 0);
        assert_int_equal(file_size(fx->path), (off_t) (SBX__SESSION_LOG_MAX_FILE - rec + 1));
        log = open_ok(fx->path, NULL);
        (void) snprintf(want, sizeof(want),
                        "sbx_session_log_append: a %zu byte record would take the log from "
                        "%zu bytes past its 67108864 byte limit; nothing was written",
                        rec, SBX__SESSION_LOG_MAX_FILE - rec + 1);
        assert_sbx_fails(sbx_session_log_append(log, &ev, err), SBX_E_RANGE, want);
        assert_int_equal(file_size(fx->path), (off_t) (SBX__SESSION_LOG_MAX_FILE - rec + 1));
        assert_int_equal(sbx_session_log_events(log, &evs, &got, NULL), SBX_OK);
        assert_int_equal(got, n);
        assert_events_equal(&evs[n - 1], &old, 1);
        sbx_session_log_close(log);

        /* One byte less (the last line loses a space): exactly at the cap
         * is allowed; the next append is refused with the file unchanged. */
        fd = open(fx->path, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t) head), 0);
        assert_true(lseek(fd, 0, SEEK_END) == (off_t) head);
        assert_int_equal(write_padded_records(fd, tail - 1), 1);
        assert_int_equal(close(fd), 0);
        log = open_ok(fx->path, NULL);
        append_ok(log, ev);
        assert_int_equal(file_size(fx->path), (off_t) SBX__SESSION_LOG_MAX_FILE);
        assert_sbx_fails(sbx_session_log_append(log, &old, err), SBX_E_RANGE,
                         "past its 67108864 byte limit; nothing was written");
        assert_int_equal(file_size(fx->path), (off_t) SBX__SESSION_LOG_MAX_FILE);
        sbx_session_log_close(log);

        /* Still openable, and every record, the last append included, replays. */
        log = open_ok(fx->path, &rep);
        assert_int_equal(rep.records, n + 1);
        assert_int_equal(rep.torn_tail, 0);
        assert_int_equal(sbx_session_log_events(log, &evs, &got, NULL), SBX_OK);
        assert_int_equal(got, n + 1);
        assert_events_equal(&evs[n - 1], &old, 1);
        assert_events_equal(&evs[n], &ev, 1);
        sbx_session_log_close(log);
        assert_int_equal(file_size(fx->path), (off_t) SBX__SESSION_LOG_MAX_FILE);
}

static void test_session_log__null_and_empty_arguments(void **state)
{
        struct fixture *fx = *state;
        sbx_session_log_report rep = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log *log = NULL;
        const sbx_mode_event *evs = NULL;
        sbx_mode_event ev = make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1);
        sbx_mode_event *out_evs = NULL;
        size_t n = 0, torn = 0;
        struct stat st;

        assert_sbx_fails(sbx_session_log_open(NULL, &log, NULL, err), SBX_E_INVALID,
                         "sbx_session_log_open: path");
        assert_sbx_fails(sbx_session_log_open("", &log, NULL, err), SBX_E_INVALID,
                         "sbx_session_log_open: path");
        assert_sbx_fails(sbx_session_log_open(fx->path, NULL, NULL, err), SBX_E_INVALID,
                         "sbx_session_log_open: out");
        rep.version = 2;
        assert_sbx_fails(sbx_session_log_open(fx->path, &log, &rep, err), SBX_E_INVALID,
                         "sbx_session_log_open: report");
        assert_null(log);
        /* None of these touched the file system. */
        assert_int_equal(lstat(fx->path, &st), -1);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(sbx_session_log_open(NULL, &log, NULL, NULL), SBX_E_INVALID);

        log = open_ok(fx->path, NULL);      /* report may be NULL */
        assert_sbx_fails(sbx_session_log_append(NULL, &ev, err), SBX_E_INVALID,
                         "sbx_session_log_append: log");
        assert_sbx_fails(sbx_session_log_append(log, NULL, err), SBX_E_INVALID,
                         "sbx_session_log_append: event");
        assert_sbx_fails(sbx_session_log_events(NULL, &evs, &n, err), SBX_E_INVALID,
                         "sbx_session_log_events: log");
        assert_sbx_fails(sbx_session_log_events(log, NULL, &n, err), SBX_E_INVALID,
                         "sbx_session_log_events: events_out");
        assert_sbx_fails(sbx_session_log_events(log, &evs, NULL, err), SBX_E_INVALID,
                         "sbx_session_log_events: events_out and n_out");
        sbx_session_log_close(log);
        sbx_session_log_close(NULL);

        assert_sbx_fails(sbx__session_log_replay_buf(NULL, 1, &out_evs, &n, &torn, err),
                         SBX_E_INVALID, "sbx__session_log_replay_buf");
        assert_sbx_fails(sbx__session_log_replay_buf("", 0, NULL, &n, &torn, err),
                         SBX_E_INVALID, "sbx__session_log_replay_buf");
        assert_sbx_fails(sbx__session_log_replay_buf("", 0, &out_evs, NULL, &torn, err),
                         SBX_E_INVALID, "sbx__session_log_replay_buf");
        assert_sbx_fails(sbx__session_log_replay_buf("", 0, &out_evs, &n, NULL, err),
                         SBX_E_INVALID, "sbx__session_log_replay_buf");
}

static void test_session_log__invalid_event_on_append_leaves_file_unchanged(void **state)
{
        struct fixture *fx = *state;
        const sbx_mode_event good = make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1);
        sbx_mode_event bad[5];
        sbx_session_log *log;
        size_t i;

        bad[0] = make_event(SBX_MODE_NONE, SBX_MODE_SOURCE_USER, 1);
        bad[1] = make_event(4, SBX_MODE_SOURCE_USER, 1);
        bad[2] = make_event(SBX_MODE_READ_ONLY, 0, 1);
        bad[3] = make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, -1);
        bad[4] = good;
        bad[4].version = 2;

        log = open_ok(fx->path, NULL);
        append_ok(log, good);
        for (i = 0; i < 5; i++) {
                assert_sbx_fails(sbx_session_log_append(log, &bad[i], err), SBX_E_INVALID,
                                 "sbx_session_log_append: event");
                assert_file_is(fx->path, REC_RO_USER "\n");
                assert_log_events(log, &good, 1);
        }
        /* A refused event does not break the handle. */
        append_ok(log, good);
        sbx_session_log_close(log);
        assert_file_is(fx->path, REC_RO_USER "\n" REC_RO_USER "\n");
}

static void test_session_log__symlink_path_is_refused(void **state)
{
        struct fixture *fx = *state;
        char target[PATH_MAX], link_path[PATH_MAX], dangling[PATH_MAX], missing[PATH_MAX];
        struct stat st;

        join(target, fx, "target.jsonl");
        join(link_path, fx, "link.jsonl");
        join(dangling, fx, "dangling.jsonl");
        join(missing, fx, "missing.jsonl");
        write_str(target, REC_RO_USER "\n");
        assert_int_equal(symlink(target, link_path), 0);
        assert_int_equal(symlink(missing, dangling), 0);

        expect_open_fails(fx, link_path, SBX_E_INVALID, "symbolic link", link_path);
        assert_file_is(target, REC_RO_USER "\n");
        /* A dangling link does not create its target. */
        expect_open_fails(fx, dangling, SBX_E_INVALID, "symbolic link", NULL);
        assert_int_equal(lstat(missing, &st), -1);
}

static void test_session_log__directory_path_is_refused(void **state)
{
        struct fixture *fx = *state;
        char sub[PATH_MAX];

        join(sub, fx, "subdir");
        assert_int_equal(mkdir(sub, 0700), 0);
        expect_open_fails(fx, sub, SBX_E_INVALID, "directory", NULL);
        expect_open_fails(fx, fx->dir, SBX_E_INVALID, "directory", NULL);
}

static void test_session_log__fifo_path_is_refused_without_blocking(void **state)
{
        struct fixture *fx = *state;
        char fifo[PATH_MAX];

        join(fifo, fx, "fifo");
        assert_int_equal(mkfifo(fifo, 0600), 0);
        expect_open_fails(fx, fifo, SBX_E_INVALID, "not a regular file", NULL);
}

static void test_session_log__second_open_while_open_is_in_use(void **state)
{
        struct fixture *fx = *state;
        sbx_session_log *first, *again;
        int status = 0;
        pid_t pid;

        first = open_ok(fx->path, NULL);
        append_ok(first, make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1));
        /* Another handle in this process. */
        expect_open_fails(fx, fx->path, SBX_E_IO, "log is in use", NULL);

        /* Another process. */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                sbx_session_log *log = NULL;
                sbx_error e = { 0, 0, { 0 } };
                sbx_code r = sbx_session_log_open(fx->path, &log, NULL, &e);

                _exit(r == SBX_E_IO && log == NULL && strstr(e.message, "in use") != NULL ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);

        /* The first handle is unaffected; after close the log opens again. */
        append_ok(first, make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 2));
        sbx_session_log_close(first);
        again = open_ok(fx->path, NULL);
        sbx_session_log_close(again);
        assert_file_is(fx->path, REC_RO_USER "\n" REC_WW_DELEG "\n");
}

static void test_session_log__no_fd_leak(void **state)
{
        struct fixture *fx = *state;
        sbx_session_log *log, *held;
        char sub[PATH_MAX], link_path[PATH_MAX];
        int before = count_fds();

        log = open_ok(fx->path, NULL);
        assert_int_equal(count_fds(), before + 1); /* exactly the log's fd */
        append_ok(log, make_event(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1));
        sbx_session_log_close(log);
        assert_int_equal(count_fds(), before);

        /* A fresh file (the create path fsyncs the directory). */
        assert_int_equal(unlink(fx->path), 0);
        log = open_ok(fx->path, NULL);
        sbx_session_log_close(log);
        assert_int_equal(count_fds(), before);

        /* Every failing open; expect_open_fails also compares fd counts. */
        held = open_ok(fx->path, NULL);
        expect_open_fails(fx, fx->path, SBX_E_IO, "in use", NULL);
        sbx_session_log_close(held);
        write_str(fx->path, REC_RO_USER "\nbroken\n");
        expect_open_fails(fx, fx->path, SBX_E_CORRUPT, "line 2", NULL);
        join(sub, fx, "dir");
        assert_int_equal(mkdir(sub, 0700), 0);
        expect_open_fails(fx, sub, SBX_E_INVALID, NULL, NULL);
        join(link_path, fx, "link");
        assert_int_equal(symlink(fx->path, link_path), 0);
        expect_open_fails(fx, link_path, SBX_E_INVALID, NULL, NULL);
        join(sub, fx, "no/such/dir");
        expect_open_fails(fx, sub, SBX_E_IO, "open", NULL);
        assert_int_equal(count_fds(), before);
}

/* The child's checks: a failing one exits with its line number. */
#define CHILD_CHECK(cond) \
        do { \
                if (!(cond)) \
                        _exit(__LINE__ % 250 + 1); \
        } while (0)

static void test_session_log__failed_append_is_rolled_back_and_poisons(void **state)
{
        struct fixture *fx = *state;
        int status = 0;
        pid_t pid;

        write_str(fx->path, REC_RO_USER "\n");
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* RLIMIT_FSIZE makes write(2) stop short, then fail with
                 * EFBIG: a partial line reaches the file. */
                struct rlimit rl = { 100, 100 };
                sbx_mode_event ev = make_event(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_DELEGATION, 2);
                const sbx_mode_event *evs = NULL;
                sbx_session_log *log = NULL;
                sbx_error e = { 0, 0, { 0 } };
                struct stat st;
                size_t n = 0;

                CHILD_CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
                CHILD_CHECK(sbx_session_log_open(fx->path, &log, NULL, &e) == SBX_OK);
                CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
                CHILD_CHECK(sbx_session_log_append(log, &ev, &e) == SBX_E_IO);
                CHILD_CHECK(e.code == SBX_E_IO && e.sys_errno == EFBIG);
                CHILD_CHECK(strstr(e.message, "sbx_session_log_append: write") != NULL);
                /* Rolled back: the partial line is gone. */
                CHILD_CHECK(stat(fx->path, &st) == 0 && st.st_size == (off_t) strlen(REC_RO_USER "\n"));
                CHILD_CHECK(sbx_session_log_events(log, &evs, &n, NULL) == SBX_OK && n == 1);
                /* Poisoned until reopened, even once the limit is lifted. */
                rl.rlim_cur = rl.rlim_max;
                CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
                CHILD_CHECK(sbx_session_log_append(log, &ev, &e) == SBX_E_IO);
                CHILD_CHECK(strstr(e.message, "reopen") != NULL);
                CHILD_CHECK(sbx_session_log_events(log, &evs, &n, NULL) == SBX_OK && n == 1);
                sbx_session_log_close(log);
                _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_file_is(fx->path, REC_RO_USER "\n");
}

static void test_session_log__replay_buf_is_pure(void **state)
{
        static const char two[] = REC_RO_USER "\n" REC_WW_DELEG "\n";
        sbx_mode_event *evs = (sbx_mode_event *) (uintptr_t) 0x1;
        size_t n = 77, torn = 77;
        (void) state;

        /* Empty input: no events, NULL array. */
        assert_int_equal(sbx__session_log_replay_buf(NULL, 0, &evs, &n, &torn, NULL), SBX_OK);
        assert_null(evs);
        assert_int_equal(n, 0);
        assert_int_equal(torn, 0);

        assert_int_equal(sbx__session_log_replay_buf(two, sizeof(two) - 1, &evs, &n, &torn, NULL),
                         SBX_OK);
        assert_int_equal(n, 2);
        assert_int_equal(torn, 0);
        assert_int_equal(evs[1].mode, SBX_MODE_WORKSPACE_WRITE);
        sbx_free(evs);

        /* A torn tail only. */
        assert_int_equal(sbx__session_log_replay_buf("{\"ty", 4, &evs, &n, &torn, NULL), SBX_OK);
        assert_null(evs);
        assert_int_equal(n, 0);
        assert_int_equal(torn, 4);

        /* Outputs untouched on failure. */
        evs = (sbx_mode_event *) (uintptr_t) 0x1;
        n = torn = 77;
        assert_sbx_fails(sbx__session_log_replay_buf("x\n", 2, &evs, &n, &torn, err),
                         SBX_E_CORRUPT, "sbx__session_log_replay_buf: line 1: invalid JSON");
        assert_ptr_equal(evs, (sbx_mode_event *) (uintptr_t) 0x1);
        assert_int_equal(n, 77);
        assert_int_equal(torn, 77);
        assert_sbx_fails(sbx__session_log_replay_buf(two, SBX__SESSION_LOG_MAX_FILE + 1, &evs, &n,
                                                     &torn, err),
                         SBX_E_RANGE, "limit");

        /* Whitespace around a record and CRLF endings are JSON whitespace. */
        assert_int_equal(sbx__session_log_replay_buf(" " REC_RO_USER " \r\n", sizeof(REC_RO_USER) + 3,
                                                     &evs, &n, &torn, NULL),
                         SBX_OK);
        assert_int_equal(n, 1);
        sbx_free(evs);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        const struct CMUnitTest tests[] = {
                T(test_session_log__new_file_is_created_0600),
                T(test_session_log__append_then_reopen_replays_in_order),
                T(test_session_log__effective_mode_after_replay_is_last),
                T(test_session_log__torn_last_line_is_reported_and_cut),
                T(test_session_log__torn_tail_shapes),
                T(test_session_log__complete_last_record_without_newline_is_kept),
                T(test_session_log__corrupt_middle_line_names_line_number),
                T(test_session_log__corrupt_records_are_rejected),
                T(test_session_log__nul_byte_in_middle_line_is_corrupt),
                T(test_session_log__complete_invalid_tail_is_corrupt_not_torn),
                T(test_session_log__empty_first_and_last_lines_are_corrupt),
                T(test_session_log__overlong_line_is_corrupt),
                T(test_session_log__oversized_file_is_range),
                T(test_session_log__append_past_size_cap_is_range),
                T(test_session_log__null_and_empty_arguments),
                T(test_session_log__invalid_event_on_append_leaves_file_unchanged),
                T(test_session_log__symlink_path_is_refused),
                T(test_session_log__directory_path_is_refused),
                T(test_session_log__fifo_path_is_refused_without_blocking),
                T(test_session_log__second_open_while_open_is_in_use),
                T(test_session_log__no_fd_leak),
                T(test_session_log__failed_append_is_rolled_back_and_poisons),
                T(test_session_log__replay_buf_is_pure),
        };
#undef T
        return cmocka_run_group_tests(tests, NULL, NULL);
}
