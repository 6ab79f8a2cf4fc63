/*
 * test_executor.c - the executor conformance suite: what every backend
 * that runs executors must pass, checked from the host.  It runs once per
 * backend: $SBX_CONFORMANCE_BACKEND names it ("native", "landlock"; CTest
 * registers conformance/<backend>), or, unset, every Linux rung in turn.
 * A new backend passes this file unchanged.
 *
 *   - construction refuses what it must (no scratch root, a shared one,
 *     no maximum, a negative TTL, bwrap); keys map to executors, one more
 *     than the maximum is refused; each executor's HOME and TMPDIR are
 *     owner-only directories below the scratch root, kept across its runs
 *     and hidden from the other executors;
 *   - a run captures stdout and stderr (with a cap), feeds stdin, reports
 *     the exit code or signal, a timeout and a cancel kill the tree, a
 *     refused write leaves no file and yields the marker;
 *   - command.execute Gated: no run without a command.start.v1 token for
 *     exactly this command; each binding error, and a replay;
 *   - filesystem grants open exactly their target for one run (the host
 *     sees the write once, then refused again); a target replaced by a
 *     link is refused before the spawn;
 *   - network.broad.v1 opens the network for one run (a host listener
 *     sees it, then nothing);
 *   - close kills a running command, removes the set's directories without
 *     following a link planted in them, and every later call is CLOSED;
 *   - several threads through one set leave no fd, child or directory.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "conformance/conformance.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>

struct edits {
        int32_t command, network;
        const sbx_root_access *roots;
        size_t n_roots;
};

static void apply_edits(sbx_profile_config *cfg, const void *arg)
{
        const struct edits *x = arg;

        cfg->command = x->command;
        cfg->network = x->network;
        cfg->additional_roots = x->roots;
        cfg->n_additional_roots = x->n_roots;
}

/* A profile from a mode with some fields changed. */
static sbx_profile *profile_with(struct fx *f, int32_t mode, int32_t command, int32_t network,
                                 const sbx_root_access *roots, size_t n_roots)
{
        struct edits x = { command, network, roots, n_roots };

        return profile_edit(f, mode, 0, apply_edits, &x);
}

/* Run the shell form; the code; *res filled (free it). */
static sbx_code run_sh(struct fx *f, sbx_executor *ex, const char *cmd, const char *exec_id,
                       const char *const *tokens, size_t n_tokens, sbx_run_result *res,
                       sbx_error *e)
{
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;

        o.command = cmd;
        o.execution_id = exec_id;
        o.tokens = tokens;
        o.n_tokens = n_tokens;
        o.envp = f->envp;
        o.timeout_ms = WAIT_MS;
        memset(e, 0, sizeof(*e));
        return sbx_executor_run(ex, &o, res, e);
}

static sbx_code grant(sbx_executor *ex, const char *exec_id, const char *command,
                      const char *kind, const char *scope, const char *cls, const char *target,
                      char *token, sbx_error *e)
{
        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;

        g.execution_id = exec_id;
        g.command = command;
        g.kind = kind;
        g.scope = scope;
        g.grant_class = cls;
        g.target = target;
        return sbx_executor_issue_grant(ex, &g, token, SBX_GRANT_TOKEN_SIZE, e);
}

/* ------------------------------------------------------------ the cases */

static void test_executor__construction_checks(void **state)
{
        struct fx *f = *state;
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *s = NULL;
        sbx_profile *p = make_profile(f, SBX_MODE_READ_ONLY, 0);
        sbx_error e = { 0, 0, { 0 } };
        char root[PATH_MAX], shared[PATH_MAX];

        fx_populate(f);
        scratch_path(f, root);
        o.max_executors = 2;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);   /* no root */
        o.scratch_root = "relative/dir";
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);
        o.scratch_root = root;
        o.max_executors = 0;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);
        o.max_executors = 2;
        o.grant_ttl_ms = -1;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);
        o.grant_ttl_ms = 0;
        o.backend = SBX_BACKEND_BWRAP;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);
        o.backend = SBX_BACKEND_AUTO;
        /* a scratch root others can write is refused */
        join(shared, f->outside, "shared");
        assert_int_equal(mkdir(shared, 0777), 0);
        assert_int_equal(chmod(shared, 0777), 0);
        o.scratch_root = shared;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_E_INVALID);
        assert_null(s);
        /* a missing one is made owner-only */
        o.scratch_root = root;
        assert_int_equal(sbx_executor_set_new(p, &o, &s, &e), SBX_OK);
        assert_int_equal(mode_of(root) & 0777, 0700);
        sbx_executor_set_free(s);
        sbx_profile_free(p);
        fx_done(f);
}

static void test_executor__keys_dirs_and_capture(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a, *a2, *c, *extra = NULL;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };
                char home_a[PATH_MAX], tmp_a[PATH_MAX], cmd[PATH_MAX * 2 + 64];

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, NULL);
                p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
                s = new_set(f, p, BACKENDS[b], 2);
                a = get(s, "a");
                a2 = get(s, "a");
                c = get(s, "c");
                CHECK(f, a == a2 && a != c, "keys do not map to executors one to one");
                CHECK(f, sbx_executor_set_get(s, "d", &extra, &e) == SBX_E_RANGE,
                      "a third key in a set of two: %s", e.message);

                /* HOME and TMPDIR: owner-only, below the scratch root */
                assert_int_equal(run_sh(f, a, "printf '%s\\n%s\\n' \"$HOME\" \"$TMPDIR\"", NULL,
                                        NULL, 0, &r, &e), SBX_OK);
                CHECK(f, r.exited && r.exit_code == 0, "echo: exit %d sig %d: %s", r.exit_code,
                      r.signal, r.err);
                {
                        char *nl = strchr(r.out, '\n');

                        assert_non_null(nl);
                        *nl = '\0';
                        snprintf(home_a, sizeof(home_a), "%s", r.out);
                        snprintf(tmp_a, sizeof(tmp_a), "%s", nl + 1);
                        nl = strchr(tmp_a, '\n');
                        if (nl != NULL)
                                *nl = '\0';
                }
                sbx_run_result_free(&r);
                CHECK(f, strncmp(home_a, f->outside, strlen(f->outside)) == 0 &&
                      (mode_of(home_a) & 0777) == 0700 && (mode_of(tmp_a) & 0777) == 0700,
                      "HOME %s / TMPDIR %s are not owner-only below the scratch root", home_a,
                      tmp_a);
                /* kept across runs of one executor, hidden from another */
                snprintf(cmd, sizeof(cmd), "echo kept > \"$TMPDIR/note\"");
                assert_int_equal(run_sh(f, a, cmd, NULL, NULL, 0, &r, &e), SBX_OK);
                CHECK(f, r.exit_code == 0, "writing to TMPDIR: exit %d: %s", r.exit_code, r.err);
                sbx_run_result_free(&r);
                CHECK(f, exists(P(tmp_a, "note")), "the note in TMPDIR is missing on the host");
                assert_int_equal(run_sh(f, a, "cat \"$TMPDIR/note\"", NULL, NULL, 0, &r, &e),
                                 SBX_OK);
                CHECK(f, strcmp(r.out, "kept\n") == 0, "the next run read \"%s\"", r.out);
                sbx_run_result_free(&r);
                snprintf(cmd, sizeof(cmd), "cat '%s/note'", tmp_a);
                assert_int_equal(run_sh(f, c, cmd, NULL, NULL, 0, &r, &e), SBX_OK);
                CHECK(f, r.exit_code != 0 && strstr(r.out, "kept") == NULL,
                      "another executor read this one's TMPDIR");
                sbx_run_result_free(&r);

                /* capture, exit code, cap, stdin, signal */
                assert_int_equal(run_sh(f, a, "echo out; echo err >&2; exit 7", NULL, NULL, 0,
                                        &r, &e), SBX_OK);
                CHECK(f, r.exited && r.exit_code == 7 && strcmp(r.out, "out\n") == 0 &&
                      strcmp(r.err, "err\n") == 0, "capture: exit %d out \"%s\" err \"%s\"",
                      r.exit_code, r.out, r.err);
                sbx_run_result_free(&r);
                {
                        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
                        const char *argv[] = { "/bin/cat", NULL };

                        o.argv = argv;
                        o.envp = f->envp;
                        o.stdin_data = "abcdefghij";
                        o.stdin_len = 10;
                        o.output_cap = 4;
                        assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                        CHECK(f, r.exit_code == 0 && r.out_len == 4 && memcmp(r.out, "abcd", 4) == 0 &&
                              r.out_truncated, "stdin/cap: \"%s\" (%zu, truncated %d)", r.out,
                              r.out_len, r.out_truncated);
                        sbx_run_result_free(&r);
                }
                assert_int_equal(run_sh(f, a, "kill -TERM $$", NULL, NULL, 0, &r, &e), SBX_OK);
                /* the native rungs' init reports 128 + N, as a shell does */
                CHECK(f, (!r.exited && r.signal == SIGTERM) ||
                      (r.exited && r.exit_code == 128 + SIGTERM), "signal: exited %d code %d sig %d",
                      r.exited, r.exit_code, r.signal);
                sbx_run_result_free(&r);

                /* a refused write: no file on the host, the marker */
                snprintf(cmd, sizeof(cmd), "echo x > '%s'", P(f->outside, "nope"));
                assert_int_equal(run_sh(f, a, cmd, NULL, NULL, 0, &r, &e), SBX_OK);
                CHECK(f, r.exit_code != 0 && !exists(P(f->outside, "nope")),
                      "a write outside the workspace went through");
                CHECK(f, r.denial == SBX_DENIAL_FILE_WRITE && strstr(r.marker, "write") != NULL,
                      "denial %d marker \"%s\" (stderr %s)", r.denial, r.marker, r.err);
                CHECK(f, (r.guarantees.achieved & SBX_G_WRITE_BOUNDARY) != 0,
                      "the run does not report write-boundary");
                sbx_run_result_free(&r);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
        }
        fx_done(f);
}

struct canceller {
        struct fx *f;
        sbx_executor *ex;
        const char *id;
        int started;
};

/* Cancel once the command runs (it says so in its TMPDIR). */
static void *cancel_when_started(void *arg)
{
        struct canceller *c = arg;

        c->started = wait_started(c->f, "started");
        (void) sbx_executor_cancel(c->ex, c->id, NULL);
        return NULL;
}

static void test_executor__timeout_and_cancel(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;
                sbx_run_options o = SBX_RUN_OPTIONS_INIT;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };
                struct canceller c;
                pthread_t t;
                long t0;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, NULL);
                p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                /* a background child holding the pipes dies with the tree */
                o.command = "sleep 60 & sleep 60";
                o.envp = f->envp;
                o.timeout_ms = 300;
                t0 = now_ms();
                assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                CHECK(f, r.timed_out && !r.exited && now_ms() - t0 < WAIT_MS,
                      "timeout: timed_out %d exited %d", r.timed_out, r.exited);
                sbx_run_result_free(&r);
                o.timeout_ms = WAIT_MS;
                o.execution_id = "job-1";
                o.command = "echo up > \"$TMPDIR/started\"; sleep 60 & sleep 60";
                c.f = f;
                c.ex = a;
                c.id = "job-1";
                c.started = 0;
                assert_int_equal(pthread_create(&t, NULL, cancel_when_started, &c), 0);
                assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                pthread_join(t, NULL);
                CHECK(f, c.started, "the command to cancel never started");
                CHECK(f, r.cancelled && !r.exited && r.signal == SIGKILL,
                      "cancel: cancelled %d exited %d signal %d", r.cancelled, r.exited,
                      r.signal);
                sbx_run_result_free(&r);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
        }
        fx_done(f);
}

static void test_executor__gated_command(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p, *pd;
                sbx_executor_set *s, *sd;
                sbx_executor *a;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };
                char tok[SBX_GRANT_TOKEN_SIZE], tok2[SBX_GRANT_TOKEN_SIZE], cmd[PATH_MAX + 32];
                const char *toks[1];
                sbx_grant_request g = SBX_GRANT_REQUEST_INIT;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "command gated");
                p = profile_with(f, SBX_MODE_WORKSPACE_WRITE, SBX_ACCESS_GATED, SBX_ACCESS_DENY,
                                 NULL, 0);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                snprintf(cmd, sizeof(cmd), "echo > '%s'", P(f->ws, "ran"));
                CHECK(f, run_sh(f, a, cmd, NULL, NULL, 0, &r, &e) == SBX_E_GRANT_REQUIRED &&
                      !exists(P(f->ws, "ran")), "a Gated command ran without a grant");
                /* the exact command, once */
                assert_int_equal(grant(a, "x1", cmd, "command.execute", cmd,
                                       SBX_GRANT_CLASS_COMMAND_START, cmd, tok, &e), SBX_OK);
                toks[0] = tok;
                CHECK(f, run_sh(f, a, cmd, "x1", toks, 1, &r, &e) == SBX_OK && r.exit_code == 0 &&
                      exists(P(f->ws, "ran")), "the granted command did not run: %s (exit %d: %s)",
                      e.message, r.exit_code, r.err != NULL ? r.err : "");
                sbx_run_result_free(&r);
                (void) unlink(P(f->ws, "ran"));
                CHECK(f, run_sh(f, a, cmd, "x1", toks, 1, &r, &e) == SBX_E_GRANT_REPLAY &&
                      !exists(P(f->ws, "ran")), "a token worked twice");
                /* the binding errors: nothing runs */
                assert_int_equal(grant(a, "x2", cmd, "command.execute", cmd,
                                       SBX_GRANT_CLASS_COMMAND_START, cmd, tok, &e), SBX_OK);
                CHECK(f, run_sh(f, a, "echo > x", "x2", toks, 1, &r, &e) == SBX_E_GRANT_REQUIRED ||
                      e.code == SBX_E_GRANT_WRONG_COMMAND, "another command: %s", e.message);
                CHECK(f, run_sh(f, a, cmd, "x3", toks, 1, &r, &e) == SBX_E_GRANT_WRONG_EXECUTION,
                      "another execution: %s", e.message);
                {
                        sbx_run_options o = SBX_RUN_OPTIONS_INIT;

                        o.command = cmd;
                        o.execution_id = "x2";
                        o.tokens = toks;
                        o.n_tokens = 1;
                        o.envp = f->envp;
                        o.cwd = f->outside;
                        CHECK(f, sbx_executor_run(a, &o, &r, &e) ==
                              SBX_E_GRANT_WRONG_WORKING_DIRECTORY, "another cwd: %s", e.message);
                }
                toks[0] = "sbxg1-00000000000000000000000000000000";
                CHECK(f, run_sh(f, a, cmd, "x2", toks, 1, &r, &e) == SBX_E_GRANT_UNKNOWN,
                      "an unknown token: %s", e.message);
                /* expiry */
                g.execution_id = "x4";
                g.command = cmd;
                g.kind = "command.execute";
                g.scope = cmd;
                g.grant_class = SBX_GRANT_CLASS_COMMAND_START;
                g.target = cmd;
                {
                        struct timespec ts;

                        clock_gettime(CLOCK_REALTIME, &ts);
                        g.expires_at_ms = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 50;
                }
                assert_int_equal(sbx_executor_issue_grant(a, &g, tok2, sizeof(tok2), &e), SBX_OK);
                /* The sleep is what is tested (a token 50 ms from its
                 * expiry is refused 120 ms later); it cannot race. */
                usleep(120 * 1000);
                toks[0] = tok2;
                CHECK(f, run_sh(f, a, cmd, "x4", toks, 1, &r, &e) == SBX_E_GRANT_EXPIRED &&
                      !exists(P(f->ws, "ran")), "an expired token: %s", e.message);
                /* a spawn that fails before the command runs gives its
                 * token back: the next try gets the same answer, not a
                 * replay */
                {
                        const char *argv[] = { "sbx-no-such-command", NULL };
                        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
                        int k;

                        assert_int_equal(grant(a, "x6", "'sbx-no-such-command'", "command.execute",
                                               "'sbx-no-such-command'",
                                               SBX_GRANT_CLASS_COMMAND_START,
                                               "'sbx-no-such-command'", tok, &e), SBX_OK);
                        toks[0] = tok;
                        o.argv = argv;
                        o.execution_id = "x6";
                        o.tokens = toks;
                        o.n_tokens = 1;
                        o.envp = f->envp;
                        for (k = 0; k < 2; k++)
                                CHECK(f, sbx_executor_run(a, &o, &r, &e) == SBX_E_NOT_FOUND,
                                      "try %d of a missing command: %s", k, e.message);
                }
                /* mint checks: the class must fit the kind and scope */
                CHECK(f, grant(a, "x5", cmd, "command.execute", "other", SBX_GRANT_CLASS_COMMAND_START,
                               cmd, tok, &e) != SBX_OK, "a command grant for another scope");
                CHECK(f, grant(a, "x5", cmd, "filesystem.write", f->ws, SBX_GRANT_CLASS_FS_PATH_WRITE,
                               f->ws, tok, &e) == SBX_E_GRANT_UNSUPPORTED,
                      "a grant for an Allow path: %s", e.message);
                CHECK(f, grant(a, "x5", cmd, "network", "*", SBX_GRANT_CLASS_NET_BROAD, "*", tok,
                               &e) == SBX_E_GRANT_DENIED, "a grant for a Deny network: %s",
                      e.message);
                sbx_executor_set_free(s);
                sbx_profile_free(p);

                /* Deny: never runs, never mints */
                pd = profile_with(f, SBX_MODE_READ_ONLY, SBX_ACCESS_DENY, SBX_ACCESS_DENY, NULL, 0);
                sd = new_set(f, pd, BACKENDS[b], 1);
                a = get(sd, "a");
                CHECK(f, run_sh(f, a, "true", NULL, NULL, 0, &r, &e) == SBX_E_GRANT_DENIED,
                      "a Deny command: %s", e.message);
                CHECK(f, grant(a, "x", "true", "command.execute", "true",
                               SBX_GRANT_CLASS_COMMAND_START, "true", tok, &e) == SBX_E_GRANT_DENIED,
                      "a grant for a Deny command: %s", e.message);
                sbx_executor_set_free(sd);
                sbx_profile_free(pd);
        }
        fx_done(f);
}

static void test_executor__filesystem_grants(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                char gated[PATH_MAX], file[PATH_MAX], other[PATH_MAX], cmd[PATH_MAX * 2 + 64];
                char tok[SBX_GRANT_TOKEN_SIZE], scope[PATH_MAX + 8], elsewhere[PATH_MAX];
                sbx_root_access roots[1];
                const char *toks[1];
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "gated root");
                join(gated, f->outside, "gated");
                join(file, gated, "f");
                join(other, gated, "g");
                rm_tree(gated);
                assert_int_equal(mkdir(gated, 0755), 0);
                assert_int_equal(write_file(file, ORIGINAL, 0644), 0);
                assert_int_equal(write_file(other, ORIGINAL, 0644), 0);
                roots[0].path = gated;
                roots[0].read = SBX_ACCESS_ALLOW;
                roots[0].write = SBX_ACCESS_GATED;
                p = profile_with(f, SBX_MODE_READ_ONLY, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY, roots, 1);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");

                /* without a grant: refused */
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'", file);
                assert_int_equal(run_sh(f, a, cmd, NULL, NULL, 0, &r, &e), SBX_OK);
                CHECK(f, r.exit_code != 0, "a write to the Gated root went through");
                sbx_run_result_free(&r);
                /* a path grant: that file, once; not its neighbour */
                assert_int_equal(grant(a, "w1", cmd, "filesystem.write", file,
                                       SBX_GRANT_CLASS_FS_PATH_WRITE, file, tok, &e), SBX_OK);
                toks[0] = tok;
                if (run_sh(f, a, cmd, "w1", toks, 1, &r, &e) != SBX_OK)
                        fail_msg("the granted run: %s", e.message);
                {
                        char buf[64] = { 0 };

                        CHECK(f, r.exit_code == 0 && read_file(file, buf, sizeof(buf)) > 0 &&
                              strcmp(buf, "sandbox\n") == 0, "the granted write: exit %d, %s",
                              r.exit_code, r.err);
                }
                sbx_run_result_free(&r);
                assert_int_equal(write_file(file, ORIGINAL, 0644), 0);
                assert_int_equal(run_sh(f, a, cmd, "w1", toks, 1, &r, &e), SBX_E_GRANT_REPLAY);
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'", other);
                assert_int_equal(grant(a, "w2", cmd, "filesystem.write", file,
                                       SBX_GRANT_CLASS_FS_PATH_WRITE, file, tok, &e), SBX_OK);
                assert_int_equal(run_sh(f, a, cmd, "w2", toks, 1, &r, &e), SBX_OK);
                {
                        char buf[64] = { 0 };

                        CHECK(f, r.exit_code != 0 && read_file(other, buf, sizeof(buf)) > 0 &&
                              strcmp(buf, ORIGINAL) == 0, "a path grant opened its neighbour");
                }
                sbx_run_result_free(&r);
                /* a tree grant: the root, a new file in it */
                snprintf(cmd, sizeof(cmd), "echo new > '%s/new'", gated);
                snprintf(scope, sizeof(scope), "tree:%s", gated);
                assert_int_equal(grant(a, "w3", cmd, "filesystem.write", scope,
                                       SBX_GRANT_CLASS_FS_TREE_WRITE, gated, tok, &e), SBX_OK);
                assert_int_equal(run_sh(f, a, cmd, "w3", toks, 1, &r, &e), SBX_OK);
                CHECK(f, r.exit_code == 0 && exists(P(gated, "new")), "the tree grant: %s", r.err);
                sbx_run_result_free(&r);
                /* the granted file replaced by a link: refused before the spawn */
                join(elsewhere, f->outside, "victim");
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'", file);
                assert_int_equal(grant(a, "w4", cmd, "filesystem.write", file,
                                       SBX_GRANT_CLASS_FS_PATH_WRITE, file, tok, &e), SBX_OK);
                assert_int_equal(unlink(file), 0);
                assert_int_equal(symlink(elsewhere, file), 0);
                CHECK(f, run_sh(f, a, cmd, "w4", toks, 1, &r, &e) == SBX_E_GRANT_TARGET_CHANGED,
                      "a swapped target: %s", e.message);
                {
                        char buf[64] = { 0 };

                        CHECK(f, read_file(elsewhere, buf, sizeof(buf)) > 0 &&
                              strcmp(buf, ORIGINAL) == 0, "the link's target was written");
                }
                /* a protected location is never granted */
                CHECK(f, grant(a, "w5", cmd, "filesystem.write", P(gated, ".git"),
                               SBX_GRANT_CLASS_FS_PATH_WRITE, P(gated, ".git"), tok, &e) != SBX_OK,
                      "a grant for .git was minted");
                sbx_executor_set_free(s);
                sbx_profile_free(p);
                rm_tree(gated);
        }
        fx_done(f);
}

/* One approval for a Gated command and a Gated write: both tokens come
 * with the run.  A write token alone does not start the command, and is
 * not spent by the refusal. */
static void test_executor__combined_approval(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                char gated[PATH_MAX], file[PATH_MAX], cmd[PATH_MAX + 32], buf[64] = { 0 };
                char t_cmd[SBX_GRANT_TOKEN_SIZE], t_fs[SBX_GRANT_TOKEN_SIZE];
                const char *both[2] = { t_cmd, t_fs }, *fs_only[1] = { t_fs };
                sbx_root_access roots[1];
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "combined approval");
                join(gated, f->outside, "gated");
                join(file, gated, "f");
                rm_tree(gated);
                assert_int_equal(mkdir(gated, 0755), 0);
                assert_int_equal(write_file(file, ORIGINAL, 0644), 0);
                roots[0].path = gated;
                roots[0].read = SBX_ACCESS_ALLOW;
                roots[0].write = SBX_ACCESS_GATED;
                p = profile_with(f, SBX_MODE_READ_ONLY, SBX_ACCESS_GATED, SBX_ACCESS_DENY, roots, 1);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'", file);
                assert_int_equal(grant(a, "c1", cmd, "filesystem.write", file,
                                       SBX_GRANT_CLASS_FS_PATH_WRITE, file, t_fs, &e), SBX_OK);
                CHECK(f, run_sh(f, a, cmd, "c1", fs_only, 1, &r, &e) == SBX_E_GRANT_REQUIRED,
                      "a write token alone started a Gated command: %s", e.message);
                assert_int_equal(grant(a, "c1", cmd, "command.execute", cmd,
                                       SBX_GRANT_CLASS_COMMAND_START, cmd, t_cmd, &e), SBX_OK);
                CHECK(f, run_sh(f, a, cmd, "c1", both, 2, &r, &e) == SBX_OK && r.exit_code == 0,
                      "the combined approval did not run: %s", e.message);
                if (r.version != 0)
                        sbx_run_result_free(&r);
                CHECK(f, read_file(file, buf, sizeof(buf)) > 0 && strcmp(buf, "sandbox\n") == 0,
                      "the granted write did not land (\"%s\")", buf);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
                rm_tree(gated);
        }
        fx_done(f);
}

/* A write grant on a Gated-write root keeps what every writable root
 * keeps: its .git read-only, no grant for a path inside it; and two sets
 * sharing a scratch root do not see each other's directories. */
static void test_executor__grants_keep_git_and_sets_apart(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                char git[PATH_MAX], config[PATH_MAX], cmd[PATH_MAX * 2 + 64], scope[PATH_MAX + 8];
                char tok[SBX_GRANT_TOKEN_SIZE], buf[64] = { 0 }, mark[PATH_MAX];
                const char *toks[1] = { tok };
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
                sbx_profile *base, *p;
                sbx_executor_set *s, *s2;
                sbx_executor *a, *x;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "gated workspace");
                join(git, f->ws, ".git");
                join(config, git, "config");
                rm_tree(git);
                assert_int_equal(mkdir(git, 0755), 0);
                assert_int_equal(write_file(config, ORIGINAL, 0644), 0);
                join(mark, f->ws, "granted");
                (void) unlink(mark);
                base = make_profile(f, SBX_MODE_READ_ONLY, 0);
                assert_int_equal(sbx_profile_config_get(base, &cfg, &e), SBX_OK);
                cfg.workspace_write = SBX_ACCESS_GATED;
                assert_int_equal(sbx_profile_new(&cfg, &p, &e), SBX_OK);
                sbx_profile_free(base);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                snprintf(cmd, sizeof(cmd), "echo planted >> '%s'; echo x > '%s'", config, mark);
                snprintf(scope, sizeof(scope), "tree:%s", f->ws);
                assert_int_equal(grant(a, "g1", cmd, "filesystem.write", scope,
                                       SBX_GRANT_CLASS_FS_TREE_WRITE, f->ws, tok, &e), SBX_OK);
                CHECK(f, run_sh(f, a, cmd, "g1", toks, 1, &r, &e) == SBX_OK,
                      "the tree grant's run: %s", e.message);
                if (r.version != 0)
                        sbx_run_result_free(&r);
                CHECK(f, exists(mark), "the tree grant did not open the workspace");
                CHECK(f, read_file(config, buf, sizeof(buf)) > 0 && strcmp(buf, ORIGINAL) == 0,
                      "a tree grant let the command write .git/config (now \"%s\")", buf);
                CHECK(f, grant(a, "g2", cmd, "filesystem.write", config,
                               SBX_GRANT_CLASS_FS_PATH_WRITE, config, tok, &e) == SBX_E_GRANT_DENIED,
                      "a path grant for .git/config: %s", e.message);

                /* a second set on the same scratch root */
                s2 = new_set(f, p, BACKENDS[b], 1);
                x = get(s2, "x");
                assert_int_equal(run_sh(f, a, "echo mine > \"$HOME/key\"; echo \"$HOME\"", NULL,
                                        NULL, 0, &r, &e), SBX_OK);
                {
                        char key[PATH_MAX + 8], *nl = strchr(r.out, '\n');

                        if (nl != NULL)
                                *nl = '\0';
                        snprintf(key, sizeof(key), "%s/key", r.out);
                        sbx_run_result_free(&r);
                        CHECK(f, exists(key), "the first set's HOME/key is missing");
                        snprintf(cmd, sizeof(cmd), "cat '%s'", key);
                        assert_int_equal(run_sh(f, x, cmd, NULL, NULL, 0, &r, &e), SBX_OK);
                        CHECK(f, strstr(r.out, "mine") == NULL, "another set read %s", key);
                        sbx_run_result_free(&r);
                }
                sbx_executor_set_free(s2);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
                rm_tree(git);
                (void) unlink(mark);
        }
        fx_done(f);
}

static void test_executor__network_broad(void **state)
{
        struct fx *f = *state;
        char port[16];
        int lfd;
        size_t b;

        fx_populate(f);
        lfd = fx_tcp_listener(f, port, sizeof(port));
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;
                sbx_run_options o = SBX_RUN_OPTIONS_INIT;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };
                char tok[SBX_GRANT_TOKEN_SIZE], cmd[PATH_MAX + 64];
                const char *argv[] = { f->probe, "tcp", "127.0.0.1", port, NULL };
                const char *toks[1] = { tok };
                int c;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "network gated");
                p = profile_with(f, SBX_MODE_READ_ONLY, SBX_ACCESS_ALLOW, SBX_ACCESS_GATED, NULL, 0);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                o.argv = argv;
                o.envp = f->envp;
                assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                CHECK(f, r.exit_code != 0, "TCP went out with the network Gated");
                sbx_run_result_free(&r);
                c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                CHECK(f, c < 0, "the host listener got a connection without a grant");
                if (c >= 0)
                        close(c);
                /* A proxy target needs rung 1's egress proxy (its use is
                 * checked in test_network.c); rung 2 refuses to mint it. */
                c = grant(a, "n1", "x", "network", "example.com:443",
                          SBX_GRANT_CLASS_NET_PROXY_TARGET, "example.com:443", tok, &e);
                CHECK(f, BACKENDS[b] == SBX_BACKEND_NATIVE ? c == SBX_OK
                                                          : c == SBX_E_GRANT_UNSUPPORTED,
                      "a proxy-target grant on %s: %s", sbx_backend_name(BACKENDS[b]),
                      e.message);
                /* the argv form's normalized command */
                snprintf(cmd, sizeof(cmd), "'%s' 'tcp' '127.0.0.1' '%s'", f->probe, port);
                assert_int_equal(grant(a, "n1", cmd, "network", "*", SBX_GRANT_CLASS_NET_BROAD,
                                       "*", tok, &e), SBX_OK);
                o.execution_id = "n1";
                o.tokens = toks;
                o.n_tokens = 1;
                assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                CHECK(f, r.exit_code == 0, "TCP with the broad grant: exit %d %s", r.exit_code,
                      r.err);
                sbx_run_result_free(&r);
                c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                CHECK(f, c >= 0, "the host listener saw no connection with the grant");
                if (c >= 0)
                        close(c);
                /* and the next run is closed again */
                o.tokens = NULL;
                o.n_tokens = 0;
                assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                CHECK(f, r.exit_code != 0, "TCP went out after the grant was used");
                sbx_run_result_free(&r);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
        }
        fx_done(f);
}

/* The granted file is swapped for a link to a victim, and back, in a
 * loop (each swap one rename), while grants are minted and spent: no run
 * ever writes through the link. */
struct swapper {
        char dir[PATH_MAX], target[PATH_MAX], victim[PATH_MAX];
        volatile int stop;
        long swaps;
};

static void *swap_loop(void *arg)
{
        struct swapper *w = arg;
        char other[PATH_MAX + 8];

        /* f and f.other: one a file, one a link to the victim; each
         * exchange (one syscall) flips what f is. */
        snprintf(other, sizeof(other), "%s/f.other", w->dir);
        (void) symlink(w->victim, other);
        while (!w->stop && w->swaps < 50000000) {
                (void) syscall(SYS_renameat2, AT_FDCWD, w->target, AT_FDCWD, other,
                               2 /* RENAME_EXCHANGE */);
                w->swaps++;
        }
        return NULL;
}

static void test_executor__grant_race(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                struct swapper w;
                sbx_root_access roots[1];
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;
                char cmd[PATH_MAX + 32], tok[SBX_GRANT_TOKEN_SIZE], buf[64] = { 0 };
                const char *toks[1] = { tok };
                pthread_t t;
                int i, minted = 0, ran = 0;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "grant race");
                memset(&w, 0, sizeof(w));
                join(w.dir, f->outside, "race");
                join(w.target, w.dir, "f");
                join(w.victim, f->outside, "victim");
                rm_tree(w.dir);
                assert_int_equal(mkdir(w.dir, 0755), 0);
                assert_int_equal(write_file(w.target, ORIGINAL, 0644), 0);
                assert_int_equal(write_file(w.victim, ORIGINAL, 0644), 0);
                roots[0].path = w.dir;
                roots[0].read = SBX_ACCESS_ALLOW;
                roots[0].write = SBX_ACCESS_GATED;
                p = profile_with(f, SBX_MODE_READ_ONLY, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY, roots, 1);
                s = new_set(f, p, BACKENDS[b], 1);
                a = get(s, "a");
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'", w.target);
                assert_int_equal(pthread_create(&t, NULL, swap_loop, &w), 0);
                /* bounded: at most 3000 mints tried, 60 runs */
                for (i = 0; i < 3000 && minted < 60; i++) {
                        sbx_run_result r;
                        sbx_error e = { 0, 0, { 0 } };

                        if (grant(a, "race", cmd, "filesystem.write", w.target,
                                  SBX_GRANT_CLASS_FS_PATH_WRITE, w.target, tok, &e) != SBX_OK)
                                continue;       /* it was a link at mint time */
                        minted++;
                        if (run_sh(f, a, cmd, "race", toks, 1, &r, &e) == SBX_OK) {
                                ran++;
                                sbx_run_result_free(&r);
                        }
                }
                w.stop = 1;
                pthread_join(t, NULL);
                CHECK(f, read_file(w.victim, buf, sizeof(buf)) > 0 && strcmp(buf, ORIGINAL) == 0,
                      "a run wrote through the swapped link (victim now \"%s\")", buf);
                note("%s: %d grants minted, %d runs, %ld swaps", f->label, minted, ran, w.swaps);
                sbx_executor_set_free(s);
                sbx_profile_free(p);
                rm_tree(w.dir);
        }
        fx_done(f);
}

struct bg_run {
        struct fx *f;
        sbx_executor *ex;
        sbx_code code;
        sbx_run_result r;
};

static void *run_long(void *arg)
{
        struct bg_run *b = arg;
        sbx_error e = { 0, 0, { 0 } };

        b->code = run_sh(b->f, b->ex, "echo up > \"$TMPDIR/started\"; sleep 60", NULL, NULL, 0,
                         &b->r, &e);
        return NULL;
}

static void test_executor__close(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a, *x = NULL;
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };
                char tok[SBX_GRANT_TOKEN_SIZE], root[PATH_MAX], victim[PATH_MAX];
                struct bg_run bg;
                pthread_t t;
                DIR *d;
                struct dirent *de;
                int n = 0, started;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, NULL);
                p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                s = new_set(f, p, BACKENDS[b], 2);
                a = get(s, "a");
                /* a link planted in TMPDIR, pointing at a host file */
                join(victim, f->outside, "victim");
                assert_int_equal(run_sh(f, a, "mkdir \"$TMPDIR/d\"", NULL, NULL, 0, &r, &e),
                                 SBX_OK);
                sbx_run_result_free(&r);
                {
                        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
                        const char *argv[] = { "/bin/sh", "-c",
                                               "ln -s \"$1\" \"$TMPDIR/link\" && ln -s \"$2\" \"$TMPDIR/d/up\"",
                                               "sh", victim, f->outside, NULL };

                        o.argv = argv;
                        o.envp = f->envp;
                        assert_int_equal(sbx_executor_run(a, &o, &r, &e), SBX_OK);
                        CHECK(f, r.exit_code == 0, "planting links: %s", r.err);
                        sbx_run_result_free(&r);
                }
                memset(&bg, 0, sizeof(bg));
                bg.f = f;
                bg.ex = a;
                assert_int_equal(pthread_create(&t, NULL, run_long, &bg), 0);
                /* close meets a running command, not one still starting */
                started = wait_started(f, "started");
                assert_int_equal(sbx_executor_set_close(s, &e), SBX_OK);
                pthread_join(t, NULL);
                CHECK(f, started, "the command to close on never started");
                CHECK(f, bg.code == SBX_OK && bg.r.cancelled && bg.r.signal == SIGKILL,
                      "the running command was not killed by close (code %d, signal %d)",
                      (int) bg.code, bg.r.signal);
                sbx_run_result_free(&bg.r);
                CHECK(f, exists(victim) && exists(f->outside),
                      "close followed a link out of the scratch directory");
                /* nothing of the set is left below the scratch root */
                scratch_path(f, root);
                d = opendir(root);
                assert_non_null(d);
                while ((de = readdir(d)) != NULL)
                        n += de->d_name[0] != '.';
                closedir(d);
                CHECK(f, n == 0, "%d entries left below the scratch root", n);
                CHECK(f, sbx_executor_set_close(s, &e) == SBX_OK, "a second close failed");
                CHECK(f, sbx_executor_set_get(s, "b", &x, &e) == SBX_E_CLOSED &&
                      run_sh(f, a, "true", NULL, NULL, 0, &r, &e) == SBX_E_CLOSED &&
                      grant(a, "x", "true", "command.execute", "true",
                            SBX_GRANT_CLASS_COMMAND_START, "true", tok, &e) != SBX_OK &&
                      sbx_executor_cancel(a, NULL, &e) == SBX_E_CLOSED,
                      "a call after close was not refused");
                sbx_executor_set_free(s);
                sbx_profile_free(p);
        }
        fx_done(f);
}

struct worker {
        struct fx *f;
        sbx_executor *ex;
        int failures;
};

static void *work(void *arg)
{
        struct worker *w = arg;
        int i;

        for (i = 0; i < 8; i++) {
                sbx_run_result r;
                sbx_error e = { 0, 0, { 0 } };

                if (run_sh(w->f, w->ex, "echo $$", NULL, NULL, 0, &r, &e) != SBX_OK ||
                    !r.exited || r.exit_code != 0 || r.out_len == 0)
                        w->failures++;
                sbx_run_result_free(&r);
        }
        return NULL;
}

static void test_executor__threads_leave_nothing(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile *p;
                sbx_executor_set *s;
                struct worker w[4];
                pthread_t t[4];
                int fds0, i, zombies = 0;
                DIR *d;
                struct dirent *de;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_READ_ONLY, "threads");
                p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                fds0 = fx_count_fds();
                s = new_set(f, p, BACKENDS[b], 2);
                for (i = 0; i < 4; i++) {
                        w[i].f = f;
                        w[i].ex = get(s, i % 2 ? "odd" : "even");
                        w[i].failures = 0;
                        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
                }
                for (i = 0; i < 4; i++) {
                        pthread_join(t[i], NULL);
                        CHECK(f, w[i].failures == 0, "thread %d: %d runs failed", i,
                              w[i].failures);
                }
                sbx_executor_set_free(s);
                CHECK(f, fx_count_fds() == fds0, "fds: %d before, %d after", fds0, fx_count_fds());
                /* no child of ours is left, dead or alive */
                d = opendir("/proc/self/task");
                assert_non_null(d);
                while ((de = readdir(d)) != NULL) {
                        char path[PATH_MAX], buf[4096] = { 0 };

                        if (de->d_name[0] == '.')
                                continue;
                        snprintf(path, sizeof(path), "/proc/self/task/%s/children", de->d_name);
                        if (read_file(path, buf, sizeof(buf)) > 0 && buf[0] != '\0')
                                zombies++;
                }
                closedir(d);
                CHECK(f, zombies == 0, "children are left after close");
                sbx_profile_free(p);
        }
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_executor__construction_checks),
                T(test_executor__keys_dirs_and_capture),
                T(test_executor__timeout_and_cancel),
                T(test_executor__gated_command),
                T(test_executor__filesystem_grants),
                T(test_executor__combined_approval),
                T(test_executor__grants_keep_git_and_sets_apart),
                T(test_executor__network_broad),
                T(test_executor__grant_race),
                T(test_executor__close),
                T(test_executor__threads_leave_nothing),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
