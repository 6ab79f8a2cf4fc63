/*
 * test_limits.c - resource limits are reported honestly (sbx_child_limits,
 * sandbox-run --explain) and hold as reported, checked from outside:
 *
 *   - memory_max: a cgroup is one total for the whole tree, so two
 *     processes that each hold 60% of the limit at once cannot both hold
 *     it; RLIMIT_AS is per process, so they can.  The tree's outcome must
 *     match the kind the report names, and one process over the limit
 *     fails either way.  With a cgroup, the host sees the child inside a
 *     per-spawn "sbx-" cgroup (/proc/<pid>/cgroup) that holds the limit.
 *   - pids_max: 100 forks under a limit of 20 do not all succeed, and the
 *     report names a cgroup (the child is in one) or RLIMIT_NPROC.
 *   - no limits asked: the report says none; an unconfined plan refuses
 *     limits rather than running unlimited.
 *   - sandbox-run --explain (text and JSON) names the same enforcement a
 *     library spawn got.
 *
 * Which kind a machine gives depends on its cgroups (root on a hybrid v1
 * host: cgroups; an unprivileged user without a delegated cgroup v2:
 * rlimits); every kind is checked by what it promises.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "enforcement/spawn_util.h"

#define MIB (1024ull * 1024ull)
#define MEM_LIMIT (96 * MIB)

/* A spawn of argv under the fixture's profile with the limits; bounded
 * by the spawn's own timeout. */
struct run {
        int      spawned;
        sbx_code code;
        sbx_error err;
        sbx_limits_report lim;
        int      status;
        char     cgroup[4096];  /* /proc/<pid>/cgroup while it ran (hold runs) */
        int      memory_cg;     /* hold runs: a cgroup held memory_max / pids_max */
        int      pids_cg;
        char     out[256];      /* fd 3 */
};

/* 1 if a /proc/<pid>/cgroup text puts the process in a per-spawn "sbx-"
 * cgroup whose limit file (file_v1 or file_v2, under any cgroup mount of
 * this host) holds want: the limit really is on the tree, read from the
 * host.  v1 lines name their controllers; the v2 line is "0::<path>". */
static int cgroup_limit_is(const char *text, const char *controller, const char *file_v1,
                           const char *file_v2, const char *want)
{
        char mnts[16][PATH_MAX], line[4096], path[2 * PATH_MAX + 64], buf[64];
        size_t n_mnt = 0, i;
        const char *l = text;
        FILE *mi = fopen("/proc/self/mountinfo", "re");

        assert_non_null(mi);
        while (n_mnt < 16 && fgets(line, sizeof(line), mi) != NULL) {
                char *sep = strstr(line, " - "), *save = NULL, *tok, *mp = NULL;
                int k;

                if (sep == NULL || (strncmp(sep + 3, "cgroup ", 7) != 0 &&
                                    strncmp(sep + 3, "cgroup2 ", 8) != 0))
                        continue;
                *sep = '\0';
                for (tok = strtok_r(line, " ", &save), k = 0; tok != NULL && k < 4; k++)
                        tok = strtok_r(NULL, " ", &save);
                mp = tok;
                if (mp != NULL && strlen(mp) < PATH_MAX)
                        snprintf(mnts[n_mnt++], PATH_MAX, "%s", mp);
        }
        fclose(mi);
        while (l != NULL && *l != '\0') {
                const char *nl = strchr(l, '\n'), *c1 = strchr(l, ':'), *c2;
                size_t len = nl != NULL ? (size_t) (nl - l) : strlen(l);
                char ctl[256], cg[PATH_MAX];
                int v2;

                c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
                if (c2 == NULL || (size_t) (c2 - l) >= len || (size_t) (c2 - c1 - 1) >= sizeof(ctl) ||
                    len - (size_t) (c2 + 1 - l) >= sizeof(cg))
                        goto next;
                memcpy(ctl, c1 + 1, (size_t) (c2 - c1 - 1));
                ctl[c2 - c1 - 1] = '\0';
                memcpy(cg, c2 + 1, len - (size_t) (c2 + 1 - l));
                cg[len - (size_t) (c2 + 1 - l)] = '\0';
                v2 = ctl[0] == '\0';
                if (strstr(cg, "/sbx-") == NULL)
                        goto next;
                if (!v2) {
                        char *save = NULL, *w;
                        int match = 0;

                        for (w = strtok_r(ctl, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
                                match |= strcmp(w, controller) == 0;
                        if (!match)
                                goto next;
                }
                for (i = 0; i < n_mnt; i++) {
                        int w = snprintf(path, sizeof(path), "%s%s/%s", mnts[i], cg,
                                         v2 ? file_v2 : file_v1);

                        if (w > 0 && (size_t) w < sizeof(path) &&
                            read_file(path, buf, sizeof(buf)) > 0) {
                                buf[strcspn(buf, "\n")] = '\0';
                                if (strcmp(buf, want) == 0)
                                        return 1;
                        }
                }
next:
                l = nl != NULL ? nl + 1 : NULL;
        }
        return 0;
}

/* hold: the command is `cat` on a pipe we keep open, so /proc/<pid>
 * can be read while it runs; then the pipe is closed and it ends. */
static void spawn_run(struct fx *f, int32_t backend, int32_t mode, const char *const *argv,
                      uint64_t memory_max, uint64_t pids_max, int hold, struct run *r)
{
        sbx_profile *p = make_profile(f, mode, 0);
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        const char *cat[] = { "cat", NULL };
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, keep[1];
        char path[64];
        ssize_t n;

        memset(r, 0, sizeof(*r));
        r->status = -1;
        r->lim = (sbx_limits_report) SBX_LIMITS_REPORT_INIT;
        if (sbx_plan_compile(p, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        sbx_profile_free(p);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        keep[0] = out[1];
        so.keep_fds = keep;
        so.n_keep_fds = 1;
        if (hold) {
                assert_int_equal(pipe2(in, O_CLOEXEC), 0);
                so.stdin_fd = in[0];
                argv = cat;
        }
        so.backend = backend;
        so.envp = f->envp;
        so.memory_max = memory_max;
        so.pids_max = pids_max;
        so.timeout_ms = WAIT_MS;        /* a bound, never an assertion */
        r->code = sbx_spawn(plan, argv, &so, &child, &r->err);
        sbx_plan_free(plan);
        close(out[1]);
        if (in[0] >= 0)
                close(in[0]);
        if (r->code == SBX_OK) {
                r->spawned = 1;
                if (sbx_child_limits(child, &r->lim, &e) != SBX_OK)
                        fail_msg("sbx_child_limits: %s", e.message);
                if (hold) {
                        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) sbx_child_pid(child));
                        if (read_file(path, r->cgroup, sizeof(r->cgroup)) < 0)
                                r->cgroup[0] = '\0';
                        snprintf(path, sizeof(path), "%llu", (unsigned long long) memory_max);
                        r->memory_cg = cgroup_limit_is(r->cgroup, "memory",
                                                       "memory.limit_in_bytes", "memory.max", path);
                        snprintf(path, sizeof(path), "%llu", (unsigned long long) pids_max);
                        r->pids_cg = cgroup_limit_is(r->cgroup, "pids", "pids.max", "pids.max",
                                                     path);
                }
                if (in[1] >= 0) {
                        close(in[1]);
                        in[1] = -1;
                }
                n = read(out[0], r->out, sizeof(r->out) - 1);
                r->out[n > 0 ? n : 0] = '\0';
                r->out[strcspn(r->out, "\n")] = '\0';
                if (sbx_child_wait(child, &r->status, &e) != SBX_OK)
                        fail_msg("sbx_child_wait: %s", e.message);
                if (sbx_child_timed_out(child))
                        fail_msg("%s did not finish within %d ms", argv[0], WAIT_MS);
                sbx_child_free(child);
        }
        if (in[1] >= 0)
                close(in[1]);
        close(out[0]);
}

static void test_limits__memory_reported_as_enforced(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *tree[] = { f->probe, "out", "3", "alloc-tree", "2", "60", NULL };
                const char *big[] = { f->probe, "alloc", "150", NULL };
                const char *small[] = { f->probe, "alloc", "16", NULL };
                struct run *r = calloc(1, sizeof(*r));

                assert_non_null(r);
                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, "memory");
                fx_populate(f);
                spawn_run(f, k->backend, k->mode, tree, MEM_LIMIT, 0, 0, r);
                if (!r->spawned)
                        fail_msg("%s: spawn with memory_max refused: %s", f->label,
                                 r->err.message);
                note("%s: memory_max 96 MiB -> %s; two processes holding 60 MiB each: %s "
                     "(%s held)", f->label, sbx_limit_kind_name(r->lim.memory_kind),
                     describe_status(r->status), r->out);
                CHECK(f, r->lim.memory_max == MEM_LIMIT && r->lim.pids_max == 0 &&
                         r->lim.pids_kind == SBX_LIMIT_NONE && r->lim.reserved == 0,
                      "report: memory %llu kind %d, pids %llu kind %d",
                      (unsigned long long) r->lim.memory_max, (int) r->lim.memory_kind,
                      (unsigned long long) r->lim.pids_max, (int) r->lim.pids_kind);
                if (r->lim.memory_kind == SBX_LIMIT_CGROUP)
                        CHECK(f, ecode(r->status) != 0, "a cgroup total of 96 MiB, yet two "
                              "processes held 60 MiB each at once (%s)", describe_status(r->status));
                else if (r->lim.memory_kind == SBX_LIMIT_PER_PROCESS)
                        CHECK(f, ecode(r->status) == 0, "reported per process, yet two processes "
                              "could not hold 60 MiB each under 96 MiB (%s): then it is a total",
                              describe_status(r->status));
                else
                        CHECK(f, 0, "memory enforced as %s", sbx_limit_kind_name(r->lim.memory_kind));

                /* Over the limit in one process fails, whatever the kind. */
                spawn_run(f, k->backend, k->mode, big, MEM_LIMIT, 0, 0, r);
                CHECK(f, r->spawned && ecode(r->status) != 0, "alloc 150 MiB under 96 MiB: %s",
                      r->spawned ? describe_status(r->status) : r->err.message);
                spawn_run(f, k->backend, k->mode, small, MEM_LIMIT, 0, 0, r);
                CHECK(f, r->spawned && ecode(r->status) == 0, "alloc 16 MiB under 96 MiB: %s",
                      r->spawned ? describe_status(r->status) : r->err.message);

                /* From outside: a cgroup kind means the child is in one. */
                spawn_run(f, k->backend, k->mode, NULL, MEM_LIMIT, 0, 1, r);
                CHECK(f, r->spawned, "hold: %s", r->err.message);
                CHECK(f, (r->lim.memory_kind == SBX_LIMIT_CGROUP) == r->memory_cg,
                      "reported %s but /proc/<pid>/cgroup is \"%s\"",
                      sbx_limit_kind_name(r->lim.memory_kind), r->cgroup);
                free(r);
        }
        fx_done(f);
}

static void test_limits__pids_reported_as_enforced(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *forks[] = { f->probe, "out", "3", "fork", "100", NULL };
                struct run *r = calloc(1, sizeof(*r));

                assert_non_null(r);
                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, "pids");
                fx_populate(f);
                spawn_run(f, k->backend, k->mode, forks, 0, 20, 0, r);
                if (!r->spawned) {
                        /* Only root without a pids cgroup may refuse. */
                        CHECK(f, geteuid() == 0 && r->code == SBX_E_SANDBOX_UNAVAILABLE,
                              "pids_max refused: %s %s", sbx_code_name(r->code), r->err.message);
                        free(r);
                        continue;
                }
                note("%s: pids_max 20 -> %s; %d of 100 forks", f->label,
                     sbx_limit_kind_name(r->lim.pids_kind), atoi(r->out));
                CHECK(f, r->lim.pids_max == 20 && r->lim.memory_kind == SBX_LIMIT_NONE &&
                         r->lim.memory_max == 0,
                      "report: pids %llu, memory %llu kind %d",
                      (unsigned long long) r->lim.pids_max,
                      (unsigned long long) r->lim.memory_max, (int) r->lim.memory_kind);
                CHECK(f, r->lim.pids_kind == SBX_LIMIT_CGROUP ||
                         (r->lim.pids_kind == SBX_LIMIT_PER_USER && geteuid() != 0),
                      "pids enforced as %s (uid %d)", sbx_limit_kind_name(r->lim.pids_kind),
                      (int) geteuid());
                CHECK(f, r->out[0] != '\0' && atoi(r->out) < 100 && ecode(r->status) != 0,
                      "100 forks under pids_max 20: \"%s\", %s", r->out,
                      describe_status(r->status));
                spawn_run(f, k->backend, k->mode, NULL, 0, 20, 1, r);
                CHECK(f, r->spawned && (r->lim.pids_kind == SBX_LIMIT_CGROUP) == r->pids_cg,
                      "reported %s but /proc/<pid>/cgroup is \"%s\"",
                      sbx_limit_kind_name(r->lim.pids_kind), r->cgroup);
                free(r);
        }
        fx_done(f);
}

static void test_limits__none_asked_none_reported(void **state)
{
        struct fx *f = *state;
        size_t b;

        for (b = 0; b < N_BACKENDS; b++) {
                const char *t[] = { "true", NULL };
                struct run r;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, NULL);
                spawn_run(f, BACKENDS[b], SBX_MODE_READ_ONLY, t, 0, 0, 0, &r);
                CHECK(f, r.spawned && ecode(r.status) == 0, "true: %s", r.err.message);
                CHECK(f, r.lim.memory_kind == SBX_LIMIT_NONE && r.lim.pids_kind == SBX_LIMIT_NONE &&
                         r.lim.memory_max == 0 && r.lim.pids_max == 0,
                      "no limits asked, report %d/%d", (int) r.lim.memory_kind,
                      (int) r.lim.pids_kind);
        }
        fx_done(f);
}

/* An unconfined plan runs directly: no limits can hold, so it refuses. */
static void test_limits__unconfined_refuses_limits(void **state)
{
        struct fx *f = *state;
        sbx_profile *p = NULL;
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_limits_report lim = SBX_LIMITS_REPORT_INIT;
        sbx_error e = { 0, 0, { 0 } };
        const char *argv[] = { "true", NULL };
        int st = -1;

        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, f->ws, &p, &e),
                         SBX_OK);
        assert_int_equal(sbx_plan_compile(p, &plan, &e), SBX_OK);
        so.envp = f->envp;
        so.memory_max = MEM_LIMIT;
        assert_int_equal(sbx_spawn(plan, argv, &so, &child, &e), SBX_E_SANDBOX_UNAVAILABLE);
        assert_null(child);
        assert_non_null(strstr(e.message, "limits"));
        so.memory_max = 0;
        so.pids_max = 5;
        assert_int_equal(sbx_spawn(plan, argv, &so, &child, &e), SBX_E_SANDBOX_UNAVAILABLE);
        so.pids_max = 0;
        assert_int_equal(sbx_spawn(plan, argv, &so, &child, &e), SBX_OK);
        assert_int_equal(sbx_child_limits(child, &lim, &e), SBX_OK);
        assert_int_equal(lim.memory_kind, SBX_LIMIT_NONE);
        assert_int_equal(lim.pids_kind, SBX_LIMIT_NONE);
        assert_int_equal(sbx_child_wait(child, &st, &e), SBX_OK);
        assert_int_equal(ecode(st), 0);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

static void test_limits__arguments(void **state)
{
        sbx_limits_report lim;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        memset(&lim, 0x5a, sizeof(lim));
        sbx_limits_report_init(&lim);
        assert_int_equal(lim.version, SBX_LIMITS_REPORT_VERSION);
        assert_int_equal(lim.memory_kind, SBX_LIMIT_NONE);
        assert_int_equal(lim.pids_kind, SBX_LIMIT_NONE);
        assert_true(lim.memory_max == 0 && lim.pids_max == 0 && lim.reserved == 0);
        sbx_limits_report_init(NULL);
        assert_int_equal(sbx_child_limits(NULL, &lim, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "sbx_child_limits"));
        assert_string_equal(sbx_limit_kind_name(SBX_LIMIT_NONE), "none");
        assert_string_equal(sbx_limit_kind_name(SBX_LIMIT_CGROUP), "cgroup");
        assert_string_equal(sbx_limit_kind_name(SBX_LIMIT_PER_PROCESS), "per-process");
        assert_string_equal(sbx_limit_kind_name(SBX_LIMIT_PER_USER), "per-user");
        assert_string_equal(sbx_limit_kind_name(4), "invalid");
        assert_string_equal(sbx_limit_kind_name(-1), "invalid");
}

static void test_limits__wrong_report_version(void **state)
{
        struct fx *f = *state;
        sbx_profile *p = make_profile(f, SBX_MODE_READ_ONLY, 0);
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_limits_report lim = SBX_LIMITS_REPORT_INIT;
        sbx_error e = { 0, 0, { 0 } };
        const char *argv[] = { "true", NULL };

        if (!backend_usable(f, SBX_BACKEND_NATIVE) && !backend_usable(f, SBX_BACKEND_LANDLOCK)) {
                sbx_profile_free(p);
                return;
        }
        assert_int_equal(sbx_plan_compile(p, &plan, &e), SBX_OK);
        so.envp = f->envp;
        assert_int_equal(sbx_spawn(plan, argv, &so, &child, &e), SBX_OK);
        assert_int_equal(sbx_child_limits(child, NULL, &e), SBX_E_INVALID);
        lim.version = 2;
        assert_int_equal(sbx_child_limits(child, &lim, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "version"));
        assert_int_equal(lim.memory_kind, SBX_LIMIT_NONE);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

/* ------------------------------------------------------- sandbox-run */

/* Run sandbox-run with args; stdout into out (bounded). */
static int run_cli(const char *const *args, char *out, size_t size)
{
        const char *cli = getenv("SBX_SANDBOX_RUN");
        const char *argv[32];
        int p[2], st = 0;
        size_t n = 0, i, len = 0;
        long deadline = now_ms() + WAIT_MS;
        pid_t pid;

        if (cli == NULL || cli[0] != '/')
                return -1;
        argv[n++] = cli;
        for (i = 0; args[i] != NULL && n < 31; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(p[1], 1);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        close(p[1]);
        for (;;) {
                struct pollfd pf = { p[0], POLLIN, 0 };
                ssize_t k;

                if (now_ms() > deadline) {
                        kill(pid, SIGKILL);
                        fail_msg("sandbox-run did not finish within %d ms", WAIT_MS);
                }
                if (poll(&pf, 1, 1000) <= 0)
                        continue;
                k = read(p[0], out + len, size - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                len += (size_t) k;
                if (len == size - 1)
                        break;
        }
        out[len] = '\0';
        close(p[0]);
        while (waitpid(pid, &st, 0) < 0)
                assert_int_equal(errno, EINTR);
        return ecode(st);
}

static void test_limits__explain_names_the_enforcement(void **state)
{
        struct fx *f = *state;
        const char *t[] = { "true", NULL };
        char *out = malloc(65536), want[256];
        struct run r;
        int st;

        assert_non_null(out);
        if (getenv("SBX_SANDBOX_RUN") == NULL) {
                cannot_test("SBX_SANDBOX_RUN is not set");
                free(out);
                return;
        }
        if (!backend_usable(f, SBX_BACKEND_NATIVE) && !backend_usable(f, SBX_BACKEND_LANDLOCK)) {
                free(out);
                return;
        }
        /* What the library gives with the detected backend. */
        spawn_run(f, SBX_BACKEND_AUTO, SBX_MODE_READ_ONLY, t, MEM_LIMIT, 20, 0, &r);
        if (!r.spawned) {
                /* Root without a pids cgroup: the CLI says the same. */
                {
                        const char *const args[] = { "--workspace", f->ws, "--explain",
                                                     "--memory", "96M", "--pids", "20", "--",
                                                     "true", NULL };

                        st = run_cli(args, out, 65536);
                }
                assert_int_equal(st, 125);
                free(out);
                return;
        }
        {
                const char *const args[] = { "--workspace", f->ws, "--explain", "--memory",
                                             "96M", "--pids", "20", "--", "true", NULL };

                st = run_cli(args, out, 65536);
                assert_int_equal(st, 0);
                snprintf(want, sizeof(want), "\nmemory-limit: %llu bytes, %s (",
                         (unsigned long long) MEM_LIMIT, sbx_limit_kind_name(r.lim.memory_kind));
                if (strstr(out, want) == NULL)
                        fail_msg("--explain lacks \"%s\":\n%s", want + 1, out);
                snprintf(want, sizeof(want), "\npids-limit: 20 processes, %s (",
                         sbx_limit_kind_name(r.lim.pids_kind));
                if (strstr(out, want) == NULL)
                        fail_msg("--explain lacks \"%s\":\n%s", want + 1, out);
        }
        {
                const char *const args[] = { "--workspace", f->ws, "--explain", "--json",
                                             "--memory", "96M", "--", "true", NULL };

                st = run_cli(args, out, 65536);
                assert_int_equal(st, 0);
                snprintf(want, sizeof(want),
                         "\"limits\":{\"memory\":{\"max\":%llu,\"enforcement\":\"%s\"},"
                         "\"pids\":null}", (unsigned long long) MEM_LIMIT,
                         sbx_limit_kind_name(r.lim.memory_kind));
                if (strstr(out, want) == NULL)
                        fail_msg("--explain --json lacks %s:\n%s", want, out);
        }
        {
                const char *const args[] = { "--workspace", f->ws, "--explain", "--", "true",
                                             NULL };

                st = run_cli(args, out, 65536);
                assert_int_equal(st, 0);
                assert_non_null(strstr(out, "\nmemory-limit: none\npids-limit: none\n"));
        }
        free(out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_limits__memory_reported_as_enforced,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_limits__pids_reported_as_enforced,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_limits__none_asked_none_reported,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_limits__unconfined_refuses_limits,
                                                fx_setup, fx_teardown),
                cmocka_unit_test(test_limits__arguments),
                cmocka_unit_test_setup_teardown(test_limits__wrong_report_version, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_limits__explain_names_the_enforcement,
                                                fx_setup, fx_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
