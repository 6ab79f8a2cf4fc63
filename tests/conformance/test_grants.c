/*
 * test_grants.c - filesystem grants when the host itself is Gated (issue
 * 21, item 9): a grant opens exactly what it names, for one run, with
 * what an ungated run of the same access gets (the host's binaries and
 * the granted tree's scripts run), and nothing more, on every rung that
 * runs executors.  Checked from the host:
 *
 *   - filesystem.host.write.v1: the command (a script outside the runtime
 *     paths, run through /bin/sh) writes a host file; a configured root
 *     whose write is Deny stays unwritten; the next run without the grant
 *     cannot write the file;
 *   - filesystem.host.read.v1: a host file is read and a host script runs;
 *     a host write is still refused; the next run cannot read it;
 *   - filesystem.tree.read.v1 / tree.write.v1 / path.read.v1 /
 *     path.write.v1 on a root whose read and write are Gated: the granted
 *     tree's script runs, the granted file is written and its neighbour is
 *     not, the host outside the root is not written; a tree read of a
 *     root holding a home keeps the home's secrets hidden, and no path
 *     grant for one is minted.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "conformance/conformance.h"

#define WRITTEN "sandbox\n"

struct edits {
        const sbx_root_access *roots;
        size_t n_roots;
};

static void apply_edits(sbx_profile_config *cfg, const void *arg)
{
        const struct edits *x = arg;

        cfg->host_read = SBX_ACCESS_GATED;
        cfg->host_write = SBX_ACCESS_GATED;
        cfg->command = SBX_ACCESS_ALLOW;
        cfg->additional_roots = x->roots;
        cfg->n_additional_roots = x->n_roots;
}

static sbx_code run_sh(struct fx *f, sbx_executor *ex, const char *cmd, const char *exec_id,
                       const char *tok, sbx_run_result *res, sbx_error *e)
{
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        const char *toks[1];

        toks[0] = tok;
        o.command = cmd;
        o.execution_id = exec_id;
        o.tokens = tok != NULL ? toks : NULL;
        o.n_tokens = tok != NULL ? 1 : 0;
        o.envp = f->envp;
        o.timeout_ms = WAIT_MS;
        memset(e, 0, sizeof(*e));
        memset(res, 0, sizeof(*res));
        return sbx_executor_run(ex, &o, res, e);
}

static void mint(sbx_executor *ex, const char *exec_id, const char *cmd, const char *kind,
                 const char *scope, const char *cls, const char *target, char *tok)
{
        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;
        sbx_error e = { 0, 0, { 0 } };

        g.execution_id = exec_id;
        g.command = cmd;
        g.kind = kind;
        g.scope = scope;
        g.grant_class = cls;
        g.target = target;
        if (sbx_executor_issue_grant(ex, &g, tok, SBX_GRANT_TOKEN_SIZE, &e) != SBX_OK)
                fail_msg("issue_grant(%s %s): %s", cls, scope, e.message);
}

/* Run cmd (with tok, or none); the run itself must start. */
static void run(struct fx *f, sbx_executor *ex, const char *what, const char *cmd,
                const char *exec_id, const char *tok)
{
        sbx_run_result r;
        sbx_error e;

        if (run_sh(f, ex, cmd, exec_id, tok, &r, &e) != SBX_OK)
                CHECK(f, 0, "%s: the run failed: %s", what, e.message);
        else
                note("%s: exit %d%s%.300s", what, r.exit_code, r.err_len ? ", stderr: " : "",
                     r.err != NULL ? r.err : "");
        sbx_run_result_free(&r);
}

static int holds(const char *path, const char *text)
{
        char buf[256] = { 0 };

        return read_file(path, buf, sizeof(buf)) >= 0 && strcmp(buf, text) == 0;
}

/* An executable script: `tool OUT` writes "ran" into OUT. */
static void make_tool(const char *path)
{
        assert_int_equal(write_file(path, "#!/bin/sh\necho ran > \"$1\"\n", 0755), 0);
}

static void test_grants__host_gated(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                char gated[PATH_MAX], kept[PATH_MAX], victim[PATH_MAX], tool[PATH_MAX];
                char gfile[PATH_MAX], gother[PATH_MAX], gtool[PATH_MAX], keep[PATH_MAX];
                char ghome[PATH_MAX], key[PATH_MAX], old_home[PATH_MAX];
        char cmd[PATH_MAX * 4 + 256], scope[PATH_MAX + 8];
                char tok[SBX_GRANT_TOKEN_SIZE];
                sbx_root_access roots[3];
                struct edits x = { roots, 3 };
                const char *h = getenv("HOME");
                sbx_profile *p;
                sbx_executor_set *s;
                sbx_executor *a;

                if (!selected(f, b))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "host gated");
                /* The host: victim and a tool outside every root (below
                 * /var/tmp, which rung 1 does not replace); a root with
                 * read and write Gated; a root with read Allow, write
                 * Deny. */
                join(victim, f->outside, "victim");
                join(tool, f->outside, "tool");
                join(gated, f->outside, "gated");
                join(gfile, gated, "f");
                join(gother, gated, "g");
                join(gtool, gated, "tool");
                join(kept, f->outside, "kept");
                join(keep, kept, "keep");
                join(ghome, f->outside, "ghome");
                join(key, ghome, ".ssh");
                rm_tree(gated);
                rm_tree(kept);
                rm_tree(ghome);
                assert_int_equal(mkdir(ghome, 0755), 0);
                assert_int_equal(mkdir(key, 0700), 0);
                join(key, ghome, ".ssh/id_rsa");
                assert_int_equal(write_file(key, "KEY\n", 0600), 0);
                assert_int_equal(write_file(P(ghome, "plain"), ORIGINAL, 0644), 0);
                assert_int_equal(mkdir(gated, 0755), 0);
                assert_int_equal(mkdir(kept, 0755), 0);
                make_tool(tool);
                make_tool(gtool);
                assert_int_equal(write_file(gfile, ORIGINAL, 0644), 0);
                assert_int_equal(write_file(gother, ORIGINAL, 0644), 0);
                assert_int_equal(write_file(keep, ORIGINAL, 0644), 0);
                roots[0].path = gated;
                roots[0].read = SBX_ACCESS_GATED;
                roots[0].write = SBX_ACCESS_GATED;
                roots[1].path = kept;
                roots[1].read = SBX_ACCESS_ALLOW;
                roots[1].write = SBX_ACCESS_DENY;
                /* a home (HOME names it while the profiles are made) in a
                 * root whose read is Gated: its secrets stay hidden when
                 * a grant opens the root, as when its read is Allow */
                roots[2].path = ghome;
                roots[2].read = SBX_ACCESS_GATED;
                roots[2].write = SBX_ACCESS_DENY;
                assert_true(h == NULL || strlen(h) < sizeof(old_home));
                if (h != NULL)
                        memcpy(old_home, h, strlen(h) + 1);
                assert_int_equal(setenv("HOME", ghome, 1), 0);
                p = profile_edit(f, SBX_MODE_WORKSPACE_WRITE, 0, apply_edits, &x);
                s = new_set(f, p, BACKENDS[b], 1);      /* it makes its own profile */
                if (h != NULL)
                        assert_int_equal(setenv("HOME", old_home, 1), 0);
                else
                        assert_int_equal(unsetenv("HOME"), 0);
                a = get(s, "a");

                /* host write: the named host file is written, and a new
                 * one made by a host script run through /bin/sh (in a
                 * directory with no root below it: rung 2 cannot create
                 * entries in one, granted or not, docs/backends.md); the
                 * Deny root is not written */
                snprintf(cmd, sizeof(cmd), "'%s' '%s'; echo sandbox > '%s'; "
                         "echo sandbox > '%s'", tool, P(f->outside, "dir/ran"), victim, keep);
                mint(a, "hw", cmd, "filesystem.write", "host", SBX_GRANT_CLASS_FS_HOST_WRITE, "/",
                     tok);
                run(f, a, "host write", cmd, "hw", tok);
                CHECK(f, holds(victim, WRITTEN), "a host write grant did not open the host file");
                CHECK(f, holds(P(f->outside, "dir/ran"), "ran\n"),
                      "a host script did not run under a host write grant");
                CHECK(f, holds(keep, ORIGINAL), "a host write grant opened a root whose write "
                      "is Deny");
                /* the next run, without the grant: nothing opens */
                assert_int_equal(write_file(victim, ORIGINAL, 0644), 0);
                run(f, a, "host write, spent", cmd, NULL, NULL);
                CHECK(f, holds(victim, ORIGINAL), "the run after the host write grant wrote the "
                      "host");
                CHECK(f, holds(keep, ORIGINAL), "the run after the grant wrote the Deny root");

                /* host read: read and run, not write */
                snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'; '%s' '%s'; echo sandbox > '%s'",
                         victim, P(f->ws, "copy"), tool, P(f->ws, "ran"), victim);
                mint(a, "hr", cmd, "filesystem.read", "host", SBX_GRANT_CLASS_FS_HOST_READ, "/",
                     tok);
                run(f, a, "host read", cmd, "hr", tok);
                CHECK(f, holds(P(f->ws, "copy"), ORIGINAL), "a host read grant did not open "
                      "the host for reading");
                CHECK(f, holds(P(f->ws, "ran"), "ran\n"), "a host script did not run under a "
                      "host read grant");
                CHECK(f, holds(victim, ORIGINAL), "a host read grant let the command write");
                (void) unlink(P(f->ws, "copy"));
                (void) unlink(P(f->ws, "ran"));
                run(f, a, "host read, spent", cmd, NULL, NULL);
                CHECK(f, !holds(P(f->ws, "copy"), ORIGINAL), "the run after the host read grant "
                      "read the host");
                CHECK(f, !exists(P(f->ws, "ran")), "the run after the host read grant ran a "
                      "host script");

                /* tree read of the Gated root: its script runs, nothing is
                 * written in it */
                snprintf(cmd, sizeof(cmd), "'%s' '%s'; echo sandbox > '%s'", gtool,
                         P(f->ws, "tran"), gfile);
                snprintf(scope, sizeof(scope), "tree:%s", gated);
                mint(a, "tr", cmd, "filesystem.read", scope, SBX_GRANT_CLASS_FS_TREE_READ, gated,
                     tok);
                run(f, a, "tree read", cmd, "tr", tok);
                CHECK(f, holds(P(f->ws, "tran"), "ran\n"), "the script of a tree read grant did "
                      "not run");
                CHECK(f, holds(gfile, ORIGINAL), "a tree read grant let the command write");

                /* tree write: written and run in the tree; not the host */
                snprintf(cmd, sizeof(cmd), "'%s' '%s/new'; echo sandbox > '%s'", gtool, gated,
                         victim);
                mint(a, "tw", cmd, "filesystem.write", scope, SBX_GRANT_CLASS_FS_TREE_WRITE, gated,
                     tok);
                run(f, a, "tree write", cmd, "tw", tok);
                CHECK(f, holds(P(gated, "new"), "ran\n"), "a tree write grant did not open its "
                      "tree (or its script did not run)");
                CHECK(f, holds(victim, ORIGINAL), "a tree write grant opened the host");

                /* path write: that file, not its neighbour */
                snprintf(cmd, sizeof(cmd), "echo sandbox > '%s'; echo sandbox > '%s'", gfile,
                         gother);
                mint(a, "pw", cmd, "filesystem.write", gfile, SBX_GRANT_CLASS_FS_PATH_WRITE, gfile,
                     tok);
                run(f, a, "path write", cmd, "pw", tok);
                CHECK(f, holds(gfile, WRITTEN), "a path write grant did not open its file");
                CHECK(f, holds(gother, ORIGINAL), "a path write grant opened its neighbour");

                /* path read: that file, not its neighbour */
                assert_int_equal(write_file(gfile, ORIGINAL, 0644), 0);
                snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'; cat '%s' > '%s'", gfile,
                         P(f->ws, "pr"), gother, P(f->ws, "pr2"));
                mint(a, "pr", cmd, "filesystem.read", gfile, SBX_GRANT_CLASS_FS_PATH_READ, gfile,
                     tok);
                run(f, a, "path read", cmd, "pr", tok);
                CHECK(f, holds(P(f->ws, "pr"), ORIGINAL), "a path read grant did not open its "
                      "file");
                CHECK(f, !holds(P(f->ws, "pr2"), ORIGINAL), "a path read grant opened its "
                      "neighbour");

                /* tree read of a root holding a home: not its secrets */
                snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'; cat '%s' > '%s'", P(ghome, "plain"),
                         P(f->ws, "plain"), key, P(f->ws, "key"));
                snprintf(scope, sizeof(scope), "tree:%s", ghome);
                mint(a, "ts", cmd, "filesystem.read", scope, SBX_GRANT_CLASS_FS_TREE_READ, ghome,
                     tok);
                run(f, a, "tree read of a home", cmd, "ts", tok);
                CHECK(f, holds(P(f->ws, "plain"), ORIGINAL), "a tree read grant did not open "
                      "the home's root");
                CHECK(f, !holds(P(f->ws, "key"), "KEY\n"), "a tree read grant opened a secret "
                      "location inside its root");
                {
                        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;
                        sbx_error e = { 0, 0, { 0 } };

                        g.execution_id = "ps";
                        g.command = cmd;
                        g.kind = "filesystem.read";
                        g.scope = key;
                        g.grant_class = SBX_GRANT_CLASS_FS_PATH_READ;
                        g.target = key;
                        CHECK(f, sbx_executor_issue_grant(a, &g, tok, sizeof(tok), &e) ==
                              SBX_E_GRANT_DENIED, "a path grant for a secret below a Gated "
                              "root: %s", e.message);
                }

                sbx_executor_set_free(s);
                sbx_profile_free(p);
                rm_tree(gated);
                rm_tree(kept);
                rm_tree(ghome);
        }
        fx_done(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_grants__host_gated, fx_setup, fx_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
