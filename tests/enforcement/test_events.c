/*
 * test_events.c - denial events and resource accounting (sbx_child_events,
 * sbx_child_usage; docs/events.md), checked against ground truth: each
 * command attempts operations the test knows are denied, the host sees
 * that they had no effect (the file does not exist, the listener accepted
 * nothing), and the events name exactly those operations; a clean build
 * produces none; a flood stays within the cap.  Both backends, every
 * mode the check applies to, root and unprivileged (CI runs it twice).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "enforcement/spawn_util.h"

#define MAX_EV 64

struct obs_run {
        int       status;
        size_t    n;
        uint64_t  dropped;
        sbx_event ev[MAX_EV];
        sbx_usage usage;
};

/* argv confined under profile on backend, observed (flags), waited for
 * with the spawn's own bound; events and usage into r. */
static void obs_spawn_limited(struct fx *f, int32_t backend, const sbx_profile *profile,
                              const char *const *argv, uint32_t flags, uint64_t pids_max,
                              uint64_t memory_max, uint64_t timeout_ms, struct obs_run *r,
                              sbx_limits_report *lim)
{
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };

        memset(r, 0, sizeof(*r));
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        so.backend = backend;
        so.envp = f->envp;
        so.flags = flags;
        so.pids_max = pids_max;
        so.memory_max = memory_max;
        so.timeout_ms = timeout_ms > 0 ? timeout_ms : WAIT_MS;
        so.stdin_fd = -1;
        if (sbx_spawn(plan, argv, &so, &child, &e) != SBX_OK)
                fail_msg("%s: sbx_spawn: %s", f->label, e.message);
        if (lim != NULL) {
                *lim = (sbx_limits_report) SBX_LIMITS_REPORT_INIT;
                if (sbx_child_limits(child, lim, &e) != SBX_OK)
                        fail_msg("sbx_child_limits: %s", e.message);
        }
        if (sbx_child_wait(child, &r->status, &e) != SBX_OK)
                fail_msg("%s: sbx_child_wait: %s", f->label, e.message);
        if (sbx_child_events(child, r->ev, MAX_EV, &r->n, &r->dropped, &e) != SBX_OK)
                fail_msg("sbx_child_events: %s", e.message);
        r->usage = (sbx_usage) SBX_USAGE_INIT;
        if (sbx_child_usage(child, &r->usage, &e) != SBX_OK)
                fail_msg("sbx_child_usage: %s", e.message);
        sbx_child_free(child);
        sbx_plan_free(plan);
}

static void obs_spawn(struct fx *f, int32_t backend, const sbx_profile *profile,
                      const char *const *argv, uint32_t flags, uint64_t pids_max,
                      uint64_t timeout_ms, struct obs_run *r)
{
        obs_spawn_limited(f, backend, profile, argv, flags, pids_max, 0, timeout_ms, r, NULL);
}

/* The event for (op, target), or NULL. */
static const sbx_event *find(const struct obs_run *r, int32_t op, const char *target)
{
        size_t i;

        for (i = 0; i < r->n; i++)
                if (r->ev[i].op == op && strcmp(r->ev[i].target, target) == 0)
                        return &r->ev[i];
        return NULL;
}

static void dump(const struct obs_run *r)
{
        size_t i;

        for (i = 0; i < r->n; i++)
                print_message("[  EVENT   ] %s %s errno %d source %d\n",
                              sbx_event_op_name(r->ev[i].op), r->ev[i].target,
                              (int) r->ev[i].err, (int) r->ev[i].source);
}

/* A listener's pending connection count without waiting: accept once. */
static int accepted(int lfd)
{
        int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (c >= 0) {
                close(c);
                return 1;
        }
        return 0;
}

/* Write outside, read a hidden secret, connect to a host port: exactly
 * those three show, and none of them had an effect. */
static void test_events__denials_are_named(void **state)
{
        static const int32_t modes[] = { SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE };
        struct fx *f = *state;
        char port[16], script[4 * PATH_MAX], hp[32];
        const char *victim = P(f->outside, "denied"), *secret = P(f->home, ".ssh/id_rsa");
        struct obs_run r;
        size_t b, m;
        int lfd;

        assert_int_equal(mkdir(P(f->home, ".ssh"), 0700), 0);
        assert_int_equal(write_file(secret, SECRET "\n", 0600), 0);
        lfd = fx_tcp_listener(f, port, sizeof(port));
        (void) snprintf(hp, sizeof(hp), "127.0.0.1:%s", port);
        (void) snprintf(script, sizeof(script), "echo x > %s; cat %s; %s tcp 127.0.0.1 %s; exit 3", victim,
                        secret, f->probe, port);
        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                for (m = 0; m < 2; m++) {
                        const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                        sbx_profile *p = make_profile(f, modes[m], 0);
                        const sbx_event *e;

                        set_label(f, BACKENDS[b], modes[m], NULL);
                        obs_spawn(f, BACKENDS[b], p, argv, SBX_SPAWN_OBSERVE_READS, 0, 0, &r);
                        sbx_profile_free(p);
                        dump(&r);
                        CHECK(f, ecode(r.status) == 3, "status %s", describe_status(r.status));
                        /* Ground truth, from the host. */
                        CHECK(f, !exists(victim), "%s was written", victim);
                        CHECK(f, !accepted(lfd), "the host listener got a connection");
                        e = find(&r, SBX_OP_CREATE, victim);
                        CHECK(f, e != NULL && e->err != 0 && e->source == SBX_EVENT_OBSERVER &&
                                 sbx_event_denial_class(e) == SBX_DENIAL_FILE_WRITE,
                              "no create event for %s", victim);
                        e = find(&r, SBX_OP_READ, secret);
                        CHECK(f, e != NULL && e->err != 0 &&
                                 sbx_event_denial_class(e) == SBX_DENIAL_FILE_READ,
                              "no read event for %s", secret);
                        /* Rung 1 has a private network, where the connect
                         * is refused and seen; rung 2 refuses the socket
                         * itself (docs/events.md). */
                        if (BACKENDS[b] == SBX_BACKEND_NATIVE) {
                                e = find(&r, SBX_OP_CONNECT, hp);
                                CHECK(f, e != NULL && e->err == ECONNREFUSED,
                                      "no connect event for %s", hp);
                        } else {
                                e = find(&r, SBX_OP_SOCKET, "inet");
                                CHECK(f, e != NULL && e->err == EPERM &&
                                         sbx_event_denial_class(e) == SBX_DENIAL_NETWORK,
                                      "no socket event");
                        }
                        CHECK(f, r.n == 3, "%zu events, want exactly 3", r.n);
                        CHECK(f, r.dropped == 0, "%llu dropped", (unsigned long long) r.dropped);
                }
        }
        fx_done(f);
}

/* What the flags watch: observed without reads, the denied write is an
 * event and the denied read is not (it was not watched); not observed,
 * neither is (the flag is what turns the observer on).  Neither had an
 * effect either way. */
static void test_events__what_the_flags_watch(void **state)
{
        static const uint32_t flags[] = { SBX_SPAWN_OBSERVE, 0 };
        struct fx *f = *state;
        char script[3 * PATH_MAX];
        const char *victim = P(f->outside, "w-only"), *secret = P(f->home, "secret2");
        struct obs_run r;
        size_t b, k;

        assert_int_equal(write_file(secret, SECRET "\n", 0600), 0);
        (void) snprintf(script, sizeof(script), "echo x > %s; cat %s", victim, secret);
        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                for (k = 0; k < 2; k++) {
                        const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                        sbx_profile *p = make_profile(f, SBX_MODE_READ_ONLY, 0);

                        set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY,
                                  k == 0 ? "writes only" : "unobserved");
                        obs_spawn(f, BACKENDS[b], p, argv, flags[k], 0, 0, &r);
                        sbx_profile_free(p);
                        CHECK(f, ecode(r.status) != 0, "the secret was read");
                        CHECK(f, !exists(victim), "%s was written", victim);
                        if (k == 0)
                                CHECK(f, r.n == 1 && find(&r, SBX_OP_CREATE, victim) != NULL,
                                      "%zu events, want the write's only", r.n);
                        else
                                CHECK(f, r.n == 0, "%zu events without the observer", r.n);
                }
        }
        fx_done(f);
}

/* A clean build of a small C project in the workspace: it probes many
 * paths that do not exist (header search), none of which is a denial. */
static void test_events__clean_build_has_none(void **state)
{
        struct fx *f = *state;
        struct obs_run r;
        size_t b;
        char script[2 * PATH_MAX];

        assert_int_equal(write_file(P(f->ws, "a.c"), "#include <stdio.h>\n#include <string.h>\n"
                                    "int twice(int x);\nint main(void) { printf(\"%d\\n\", "
                                    "twice((int) strlen(\"abc\"))); return 0; }\n", 0644), 0);
        assert_int_equal(write_file(P(f->ws, "b.c"), "#include <stdlib.h>\n#include <math.h>\n"
                                    "int twice(int x) { return 2 * x; }\n", 0644), 0);
        for (b = 0; b < N_BACKENDS; b++) {
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_profile *p;
                char out[64];

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                /* Rung 2 refuses metadata changes (the linker's chmod +x,
                 * docs/backends.md): the program is built, not run, there. */
                (void) snprintf(script, sizeof(script), "cd %s && cc -O1 -c a.c b.c && cc -o prog "
                                "a.o b.o && rm -f a.o b.o%s", f->ws,
                                BACKENDS[b] == SBX_BACKEND_NATIVE ? " && ./prog > out.txt" : "");
                p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, NULL);
                obs_spawn(f, BACKENDS[b], p, argv, SBX_SPAWN_OBSERVE_READS, 0, 0, &r);
                sbx_profile_free(p);
                dump(&r);
                CHECK(f, ecode(r.status) == 0, "the build failed: %s", describe_status(r.status));
                CHECK(f, exists(P(f->ws, "prog")), "the program was not built");
                CHECK(f, BACKENDS[b] != SBX_BACKEND_NATIVE ||
                         (read_file(P(f->ws, "out.txt"), out, sizeof(out)) > 0 &&
                          strcmp(out, "6\n") == 0), "the program did not run");
                CHECK(f, r.n == 0 && r.dropped == 0, "%zu events (%llu dropped) from a clean "
                      "build", r.n, (unsigned long long) r.dropped);
                (void) unlink(P(f->ws, "prog"));
                (void) unlink(P(f->ws, "out.txt"));
        }
        fx_done(f);
}

/* A real project: libsandbox's own portable layers (27 files, the system
 * headers and ours) compiled in the workspace under read-watching: not
 * one event. */
static void test_events__libsandbox_builds_clean(void **state)
{
        struct fx *f = *state;
        const char *src = getenv("SBX_TEST_SRCDIR");
        char cmd[4 * PATH_MAX];
        struct obs_run r;
        size_t b;

        if (src == NULL || src[0] != '/') {
                if (require_all())
                        fail_msg("SBX_TEST_SRCDIR must name the source tree");
                return;
        }
        (void) snprintf(cmd, sizeof(cmd), "cp -r '%s/include' '%s/src' '%s/'", src, src, f->ws);
        assert_int_equal(system(cmd), 0);
        (void) snprintf(cmd, sizeof(cmd), "cd %s && cc -c -D_GNU_SOURCE -Iinclude -Isrc "
                        "src/core/*.c src/policy/*.c src/paths/*.c src/compile/*.c && ls *.o | "
                        "wc -l > count && rm -f *.o", f->ws);
        for (b = 0; b < N_BACKENDS; b++) {
                const char *const argv[] = { "/bin/sh", "-c", cmd, NULL };
                sbx_profile *p;
                char count[32];

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "libsandbox");
                obs_spawn(f, BACKENDS[b], p, argv, SBX_SPAWN_OBSERVE_READS, 0, 0, &r);
                sbx_profile_free(p);
                dump(&r);
                CHECK(f, ecode(r.status) == 0, "the build failed: %s", describe_status(r.status));
                CHECK(f, read_file(P(f->ws, "count"), count, sizeof(count)) > 0 &&
                         atoi(count) > 20, "the objects were not built");
                CHECK(f, r.n == 0 && r.dropped == 0, "%zu events (%llu dropped) building "
                      "libsandbox", r.n, (unsigned long long) r.dropped);
        }
        fx_done(f);
}

/* 3000 distinct denied creates: at most the cap is kept, the rest counted,
 * and none of the files exists. */
static void test_events__flood_stays_within_the_cap(void **state)
{
        struct fx *f = *state;
        char script[2 * PATH_MAX];
        struct obs_run r;
        size_t b;

        (void) snprintf(script, sizeof(script), "i=0; while [ $i -lt 3000 ]; do true > %.1000s/f$i "
                        "2>/dev/null; i=$((i+1)); done; ls %.1000s | wc -l > /dev/null", f->outside,
                        f->outside);
        for (b = 0; b < N_BACKENDS; b++) {
                const char *const argv[] = { "/bin/sh", "-c", script, NULL };
                sbx_profile *p;
                DIR *d;
                struct dirent *de;
                int found = 0;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, NULL);
                obs_spawn(f, BACKENDS[b], p, argv, SBX_SPAWN_OBSERVE, 0, 0, &r);
                sbx_profile_free(p);
                CHECK(f, r.n == MAX_EV, "%zu events kept, want the cap %d", r.n, MAX_EV);
                CHECK(f, r.n + r.dropped == 3000, "%zu kept + %llu dropped, want 3000", r.n,
                      (unsigned long long) r.dropped);
                d = opendir(f->outside);
                assert_non_null(d);
                while ((de = readdir(d)) != NULL)
                        found += de->d_name[0] == 'f';
                closedir(d);
                CHECK(f, found == 0, "%d flood files exist on the host", found);
        }
        fx_done(f);
}

/* A timeout and a pids limit are events; usage says what the tree used. */
static void test_events__limits_and_usage(void **state)
{
        struct fx *f = *state;
        struct obs_run r;
        size_t b;

        for (b = 0; b < N_BACKENDS; b++) {
                const char *const slow[] = { "/bin/sh", "-c", "sleep 30", NULL };
                const char *const busy[] = { "/bin/sh", "-c", "head -c 50000000 /dev/zero | "
                                             "od > /dev/null", NULL };
                const char *const forks[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 60 ]; do "
                                              "sleep 3 & i=$((i+1)); done 2>/dev/null; kill "
                                              "$(jobs -p) 2>/dev/null; exit 0", NULL };
                const char *const hog[] = { f->probe, "alloc", "192", NULL };
                sbx_profile *p;
                sbx_limits_report lim = SBX_LIMITS_REPORT_INIT;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "timeout");
                obs_spawn(f, BACKENDS[b], p, slow, 0, 0, 300, &r);
                CHECK(f, find(&r, SBX_OP_LIMIT, "timeout") != NULL, "no timeout event");
                CHECK(f, (r.usage.limits_hit & SBX_LIMIT_HIT_TIMEOUT) != 0,
                      "usage does not say the timeout was hit");

                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "usage");
                obs_spawn(f, BACKENDS[b], p, busy, 0, 0, 0, &r);
                CHECK(f, ecode(r.status) == 0, "%s", describe_status(r.status));
                CHECK(f, (r.usage.known & (SBX_USAGE_WALL | SBX_USAGE_CPU | SBX_USAGE_MEMORY)) ==
                         (SBX_USAGE_WALL | SBX_USAGE_CPU | SBX_USAGE_MEMORY),
                      "usage known 0x%x", (unsigned) r.usage.known);
                CHECK(f, r.usage.user_us + r.usage.sys_us > 0, "no CPU time for 50 MB through od");
                CHECK(f, r.usage.peak_memory > 1024 * 1024, "peak memory %llu",
                      (unsigned long long) r.usage.peak_memory);
                CHECK(f, r.usage.limits_hit == 0, "limits hit 0x%x", (unsigned) r.usage.limits_hit);
                CHECK(f, r.n == 0, "%zu events", r.n);

                /* pids: an event where a cgroup carries the limit (it
                 * counts its refusals); RLIMIT_NPROC keeps no count. */
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "pids");
                obs_spawn_limited(f, BACKENDS[b], p, forks, 0, 10, 0, 0, &r, &lim);
                if (lim.pids_kind == SBX_LIMIT_CGROUP) {
                        CHECK(f, find(&r, SBX_OP_LIMIT, "pids") != NULL, "no pids limit event");
                        CHECK(f, r.usage.limits_hit & SBX_LIMIT_HIT_PIDS,
                              "usage does not say the pids limit was hit");
                } else {
                        note("%s: pids limit by %d (no count to report)", f->label,
                             (int) lim.pids_kind);
                }
                /* memory: the same, with a process touching three times
                 * the limit. */
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "memory");
                obs_spawn_limited(f, BACKENDS[b], p, hog, 0, 0, 64ull << 20, 0, &r, &lim);
                if (lim.memory_kind == SBX_LIMIT_CGROUP) {
                        CHECK(f, find(&r, SBX_OP_LIMIT, "memory") != NULL,
                              "no memory limit event (%s)", describe_status(r.status));
                        CHECK(f, r.usage.limits_hit & SBX_LIMIT_HIT_MEMORY,
                              "usage does not say the memory limit was hit");
                } else {
                        CHECK(f, ecode(r.status) != 0, "192 MiB under a 64 MiB RLIMIT_AS");
                        note("%s: memory limit by %d (no count to report)", f->label,
                             (int) lim.memory_kind);
                }
                sbx_profile_free(p);
        }
        fx_done(f);
}

/* An executor's observed run carries its events and usage (options
 * version 2); a version-1 caller's smaller result is not written past
 * its end. */
static void test_events__executor_run_carries_them(void **state)
{
        struct fx *f = *state;
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *set = NULL;
        sbx_executor *ex = NULL;
        sbx_profile *p = make_profile(f, SBX_MODE_READ_ONLY, 0);
        sbx_error e = { 0, 0, { 0 } };
        char cmd[2 * PATH_MAX], scratch[PATH_MAX];
        const char *victim = P(f->outside, "by-executor");
        size_t b, i;

        (void) snprintf(cmd, sizeof(cmd), "echo x > %s", victim);
        join(scratch, f->base, "scratch");
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_run_options ro = SBX_RUN_OPTIONS_INIT;
                sbx_run_result res;
                union {
                        sbx_run_result r;
                        unsigned char bytes[sizeof(sbx_run_result)];
                } v1;
                const size_t v1_size = offsetof(sbx_run_result, events);
                int found = 0;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "executor");
                so.scratch_root = scratch;
                so.max_executors = 2;
                so.backend = BACKENDS[b];
                if (sbx_executor_set_new(p, &so, &set, &e) != SBX_OK ||
                    sbx_executor_set_get(set, "k", &ex, &e) != SBX_OK)
                        fail_msg("executor: %s", e.message);
                ro.command = cmd;
                ro.envp = f->envp;
                ro.flags = SBX_SPAWN_OBSERVE;
                if (sbx_executor_run(ex, &ro, &res, &e) != SBX_OK)
                        fail_msg("sbx_executor_run: %s", e.message);
                CHECK(f, res.version == 2, "result version %u", (unsigned) res.version);
                CHECK(f, !exists(victim), "%s was written", victim);
                for (i = 0; i < res.n_events; i++)
                        found |= res.events[i].op == SBX_OP_CREATE &&
                                 strcmp(res.events[i].target, victim) == 0;
                CHECK(f, found, "no create event for %s in the run result", victim);
                CHECK(f, res.denial == SBX_DENIAL_FILE_WRITE, "denial %d", (int) res.denial);
                CHECK(f, (res.usage.known & SBX_USAGE_WALL) != 0, "no wall time");
                sbx_run_result_free(&res);

                memset(v1.bytes, 0xa5, sizeof(v1.bytes));
                ro.version = 1;
                if (sbx_executor_run(ex, &ro, &v1.r, &e) != SBX_OK)
                        fail_msg("sbx_executor_run (version 1): %s", e.message);
                CHECK(f, v1.r.version == 1 && v1.r.exited && v1.r.exit_code != 0,
                      "version-1 result %u", (unsigned) v1.r.version);
                for (i = v1_size; i < sizeof(v1.bytes); i++)
                        if (v1.bytes[i] != 0xa5)
                                break;
                CHECK(f, i == sizeof(v1.bytes), "a version-1 result was written at byte %zu", i);
                sbx_run_result_free(&v1.r);
                sbx_executor_set_free(set);
                set = NULL;
        }
        sbx_profile_free(p);
        fx_done(f);
}

/* A command cannot install a seccomp listener of its own: once the
 * supervisor were gone, its CONTINUE would outrank our notification
 * filter (the git veto, rung 2's observed internet sockets).  Refused in
 * every mode, observed or not; checked by the probe's own result and, on
 * rung 2 observed, by the socket staying refused. */
static void test_events__no_listener_of_the_commands_own(void **state)
{
        static const int32_t modes[] = { SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE };
        static const uint32_t flags[] = { 0, SBX_SPAWN_OBSERVE };
        struct fx *f = *state;
        struct obs_run r;
        size_t b, m, k;

        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                for (m = 0; m < 2; m++)
                        for (k = 0; k < 2; k++) {
                                const char *const argv[] = { f->probe, "seccomp-listener", NULL };
                                sbx_profile *p = make_profile(f, modes[m], 0);

                                set_label(f, BACKENDS[b], modes[m], k ? "observed" : NULL);
                                obs_spawn(f, BACKENDS[b], p, argv, flags[k], 0, 0, &r);
                                sbx_profile_free(p);
                                CHECK(f, ecode(r.status) == EPERM || ecode(r.status) == EBUSY,
                                      "the command got a listener (%s)",
                                      describe_status(r.status));
                        }
        }
        fx_done(f);
}

/* Bad input is an error, never a crash. */
static void test_events__bad_arguments(void **state)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_usage u = SBX_USAGE_INIT;
        size_t n;
        (void) state;

        assert_int_equal(sbx_child_events(NULL, NULL, 0, &n, NULL, &e), SBX_E_INVALID);
        assert_int_equal(sbx_child_usage(NULL, &u, &e), SBX_E_INVALID);
        assert_string_equal(sbx_event_op_name(0), "unknown");
        assert_string_equal(sbx_event_op_name(SBX_OP_UNIX_CONNECT), "unix-connect");
        assert_string_equal(sbx_event_op_name(99), "unknown");
        assert_int_equal(sbx_event_denial_class(NULL), SBX_DENIAL_NONE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_events__bad_arguments),
                cmocka_unit_test_setup_teardown(test_events__denials_are_named, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__what_the_flags_watch, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__clean_build_has_none, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__libsandbox_builds_clean, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__flood_stays_within_the_cap,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__limits_and_usage, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__executor_run_carries_them,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_events__no_listener_of_the_commands_own,
                                                fx_setup, fx_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
