/*
 * test_spawn_fs.c - what a command confined by sbx_spawn cannot do to the
 * file system, checked from the host, for rung 1 (native) and rung 2
 * (landlock) in read-only and workspace-write mode:
 *
 *   - write outside the writable roots: directly, through symlinks the
 *     host planted in the workspace, through a hard link the command
 *     makes, by rename either way, truncate, chmod, chown, utimes,
 *     setxattr, mknod (a fifo outside; a device node even inside the
 *     workspace); writes inside the workspace work only in
 *     workspace-write;
 *   - protected paths: .git/config and .git/hooks stay as they were;
 *   - no setuid/setgid bit ever appears on the host;
 *   - chmod, chown, utimes and user. xattrs inside the workspace work;
 *   - kernel knobs in /proc/sys, /proc/sysrq-trigger and /sys cannot be
 *     opened for writing, even as root;
 *   - nothing is left behind in TMPDIR, /tmp or /dev/shm.
 *
 * See spawn_util.h for the fixture and the harness.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

/* ------------------------------------------------------ write outside */

struct op {
        const char *a1, *a2, *a3;
        int must_fail;          /* 0: may succeed (e.g. inside the private rung-1 HOME) */
};

/* Host-side state that no op may change. */
struct guard {
        char *outside, *home, *ws, *etc_probe;
};

static void guard_take(struct fx *f, struct guard *g, int ws_too)
{
        g->outside = snap_tree(f->outside);
        g->home = snap_tree(f->home);
        g->ws = ws_too ? snap_tree(f->ws) : NULL;
}

static void guard_free(struct guard *g)
{
        free(g->outside);
        free(g->home);
        free(g->ws);
        memset(g, 0, sizeof(*g));
}

/* Compare; on a difference report it and return 1. */
static int guard_check(struct fx *f, const struct guard *g, const char *what)
{
        const char *dirs[3] = { f->outside, f->home, f->ws };
        const char *names[3] = { "outside/", "the caller home", "the (read-only) workspace" };
        char *now[3] = { NULL, NULL, NULL };
        const char *was[3] = { g->outside, g->home, g->ws };
        char diff[2048];
        int i, changed = 0;

        for (i = 0; i < 3; i++) {
                if (was[i] == NULL)
                        continue;
                now[i] = snap_tree(dirs[i]);
                if (strcmp(now[i], was[i]) != 0) {
                        snap_diff(was[i], now[i], diff, sizeof(diff));
                        CHECK(f, 0, "%s changed %s: %s", what, names[i], diff);
                        changed = 1;
                }
                free(now[i]);
        }
        return changed;
}

static void plant_links(struct fx *f)
{
        assert_int_equal(symlink(P(f->outside, "victim"), P(f->ws, "sl")), 0);
        assert_int_equal(symlink(f->outside, P(f->ws, "sdl")), 0);
        assert_int_equal(symlink(P(f->home, "secret"), P(f->ws, "hsl")), 0);
}

static void test_spawn_fs__write_outside_the_writable_roots(void **state)
{
        struct fx *f = *state;
        char etc_victim[64];
        const char *O = f->outside, *H = f->home, *W = f->ws;
        const char *O_victim = P(f->outside, "victim");
        size_t c, i;

        snprintf(etc_victim, sizeof(etc_victim), "/etc/sbx-spawn-leak-%d", (int) getpid());
        /* user.* xattrs must work where the victims live, or a refused
         * setxattr proves nothing. */
        fx_populate(f);
        if (lsetxattr(O_victim, "user.sbx-check", "1", 1, 0) < 0)
                cannot_test("user.* xattrs do not work on %s (%s)", f->outside, strerror(errno));

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                int ro = k->mode == SBX_MODE_READ_ONLY;
                const struct op ops[] = {
                        /* directly */
                        { "write", O_victim, NULL, 1 },
                        { "append", O_victim, NULL, 1 },
                        { "truncate", O_victim, NULL, 1 },
                        { "write", P(O, "new"), NULL, 1 },
                        { "write", P(O, "dir/inner"), NULL, 1 },
                        { "mkdir", P(O, "newdir"), NULL, 1 },
                        { "symlink", "/etc/passwd", P(O, "newlink"), 1 },
                        { "unlink", O_victim, NULL, 1 },
                        { "chmod", O_victim, "0777", 1 },
                        { "chmod", P(O, "dir"), "0777", 1 },
                        { "chown", O_victim, NULL, 1 },
                        { "utimes", O_victim, NULL, 1 },
                        { "setxattr", O_victim, NULL, 1 },
                        { "mkfifo", P(O, "fifo"), NULL, 1 },
                        { "mknod-char", P(O, "cdev"), NULL, 1 },
                        /* rename, both directions */
                        { "rename", O_victim, P(W, "stolen"), 1 },
                        { "rename", P(O, "dir"), P(W, "dir-stolen"), 1 },
                        { "rename", P(W, "file"), P(O, "moved"), 1 },
                        { "rename", P(W, "dir"), P(O, "moved-dir"), 1 },
                        /* a hard link the command makes, then written */
                        { "link", O_victim, P(W, "hl"), 1 },
                        { "append", P(W, "hl"), NULL, 1 },
                        /* through symlinks the host planted in the workspace */
                        { "write", P(W, "sl"), NULL, 1 },
                        { "append", P(W, "sl"), NULL, 1 },
                        { "truncate", P(W, "sl"), NULL, 1 },
                        { "chmod", P(W, "sl"), "0777", 1 },
                        { "utimes", P(W, "sl"), NULL, 1 },
                        { "setxattr", P(W, "sl"), NULL, 1 },
                        { "write", P(W, "sdl/new"), NULL, 1 },
                        { "write", P(W, "sdl/victim"), NULL, 1 },
                        { "mkfifo", P(W, "sdl/fifo"), NULL, 1 },
                        /* into the caller home: private (and empty) on rung 1 */
                        { "write", P(W, "hsl"), NULL, 0 },
                        /* device nodes, even inside the workspace */
                        { "mknod-char", P(W, "cdev"), NULL, 1 },
                        { "mknod-block", P(W, "bdev"), NULL, 1 },
                        /* the caller's home: rung 1 shows a private empty one */
                        { "write", P(H, "secret"), NULL, 0 },
                        { "write", P(H, "new"), NULL, 0 },
                        { "chmod", P(H, "secret"), "0644", 0 },
                        /* a root-only host directory */
                        { "write", etc_victim, NULL, 1 },
                };
                const struct op ro_ops[] = {
                        { "write", P(W, "new"), NULL, 1 },
                        { "append", P(W, "file"), NULL, 1 },
                        { "truncate", P(W, "file"), NULL, 1 },
                        { "chmod", P(W, "file"), "0777", 1 },
                        { "utimes", P(W, "file"), NULL, 1 },
                        { "setxattr", P(W, "file"), NULL, 1 },
                        { "mkfifo", P(W, "fifo"), NULL, 1 },
                        { "unlink", P(W, "file"), NULL, 1 },
                        { "rename", P(W, "file"), P(W, "file2"), 1 },
                        { "link", P(W, "file"), P(W, "file-hl"), 1 },
                        { "mkdir", P(W, "newdir"), NULL, 1 },
                        { "symlink", "file", P(W, "newlink"), 1 },
                };
                struct guard g;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                plant_links(f);
                guard_take(f, &g, ro);
                for (i = 0; i < sizeof(ops) / sizeof(ops[0]) + (ro ? sizeof(ro_ops) / sizeof(ro_ops[0]) : 0); i++) {
                        const struct op *op = i < sizeof(ops) / sizeof(ops[0])
                                                      ? &ops[i] : &ro_ops[i - sizeof(ops) / sizeof(ops[0])];
                        char what[PATH_MAX * 2 + 64];
                        int st;

                        snprintf(what, sizeof(what), "sbx-probe %s %s%s%s", op->a1, op->a2,
                                 op->a3 ? " " : "", op->a3 ? op->a3 : "");
                        st = PROBE(f, k->backend, k->mode, op->a1, op->a2, op->a3);
                        if (op->must_fail)
                                CHECK(f, ecode(st) != 0, "%s succeeded (must fail)", what);
                        if (guard_check(f, &g, what) ||
                            exists(P(W, "stolen")) || exists(P(W, "dir-stolen")) ||
                            exists(P(W, "hl")) || exists(P(W, "cdev")) || exists(P(W, "bdev")) ||
                            exists(etc_victim)) {
                                CHECK(f, !exists(P(W, "stolen")), "%s: %s/stolen exists", what, W);
                                CHECK(f, !exists(P(W, "dir-stolen")), "%s: %s/dir-stolen exists", what, W);
                                CHECK(f, !exists(P(W, "hl")), "%s: hard link %s/hl to outside/victim exists",
                                      what, W);
                                CHECK(f, !exists(P(W, "cdev")), "%s: a char device exists in the workspace",
                                      what);
                                CHECK(f, !exists(P(W, "bdev")), "%s: a block device exists in the workspace",
                                      what);
                                CHECK(f, !exists(etc_victim), "%s: %s exists", what, etc_victim);
                                (void) unlink(etc_victim);
                                /* Start over from a clean fixture. */
                                guard_free(&g);
                                fx_populate(f);
                                plant_links(f);
                                guard_take(f, &g, ro);
                        }
                }
                guard_free(&g);
        }
        (void) unlink(etc_victim);
        fx_done(f);
}

/* The positive control: in workspace-write every one of those operations
 * works on workspace files (so a refusal above is the boundary, not a
 * broken probe or path); in read-only the same calls change nothing. */
static void test_spawn_fs__workspace_writes_only_in_workspace_write(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                int ww = k->mode == SBX_MODE_WORKSPACE_WRITE;
                char buf[256], xv[8];
                struct stat st;
                int s;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                assert_int_equal(write_file(P(f->ws, "t"), ORIGINAL, 0644), 0);
                assert_int_equal(write_file(P(f->ws, "a"), ORIGINAL, 0644), 0);
                assert_int_equal(write_file(P(f->ws, "u"), ORIGINAL, 0644), 0);

#define EXPECT_OK(st_, what_) \
        CHECK(f, ww ? ecode(st_) == 0 : ecode(st_) != 0, "%s: %s (expected %s)", what_, \
              describe_status(st_), ww ? "success" : "failure")
/* Metadata changes behave as writes on every rung (rung 2's supervisor
 * makes them where Landlock grants writes). */
#define EXPECT_META(st_, what_, effect_) \
        do { \
                EXPECT_OK(st_, what_); \
                CHECK(f, (effect_) == ww, "%s: effect on the host", what_); \
        } while (0)

                s = PROBE(f, k->backend, k->mode, "write", P(f->ws, "new"));
                EXPECT_OK(s, "write ws/new");
                CHECK(f, ww ? (read_file(P(f->ws, "new"), buf, sizeof(buf)) >= 0 &&
                               strcmp(buf, "sandbox\n") == 0)
                            : !exists(P(f->ws, "new")), "ws/new on the host");

                s = PROBE(f, k->backend, k->mode, "write", P(f->ws, "dir/sub"));
                EXPECT_OK(s, "write ws/dir/sub");
                CHECK(f, exists(P(f->ws, "dir/sub")) == ww, "ws/dir/sub on the host");

                s = PROBE(f, k->backend, k->mode, "append", P(f->ws, "file"));
                EXPECT_OK(s, "append ws/file");
                assert_true(read_file(P(f->ws, "file"), buf, sizeof(buf)) >= 0);
                CHECK(f, strcmp(buf, ww ? ORIGINAL "sandbox\n" : ORIGINAL) == 0,
                      "ws/file holds \"%s\"", buf);

                s = PROBE(f, k->backend, k->mode, "truncate", P(f->ws, "t"));
                EXPECT_OK(s, "truncate ws/t");
                CHECK(f, lstat(P(f->ws, "t"), &st) == 0 && (st.st_size == 0) == ww,
                      "ws/t size %lld", (long long) st.st_size);

                s = PROBE(f, k->backend, k->mode, "chmod", P(f->ws, "a"), "0600");
                EXPECT_META(s, "chmod 0600 ws/a", (mode_of(P(f->ws, "a")) & 07777) == 0600u);

                s = PROBE(f, k->backend, k->mode, "utimes", P(f->ws, "a"));
                EXPECT_META(s, "utimes ws/a",
                            lstat(P(f->ws, "a"), &st) == 0 && st.st_mtime == 946684800);

                s = PROBE(f, k->backend, k->mode, "setxattr", P(f->ws, "a"));
                EXPECT_META(s, "setxattr ws/a",
                            lgetxattr(P(f->ws, "a"), "user.sbx", xv, sizeof(xv)) == 1);

                s = PROBE(f, k->backend, k->mode, "mkfifo", P(f->ws, "fifo"));
                EXPECT_OK(s, "mkfifo ws/fifo");
                CHECK(f, S_ISFIFO(mode_of(P(f->ws, "fifo"))) == ww, "ws/fifo on the host");

                s = PROBE(f, k->backend, k->mode, "rename", P(f->ws, "a"), P(f->ws, "b"));
                EXPECT_OK(s, "rename ws/a ws/b");
                CHECK(f, exists(P(f->ws, "b")) == ww && exists(P(f->ws, "a")) == !ww, "rename a->b");

                s = PROBE(f, k->backend, k->mode, "link", P(f->ws, "t"), P(f->ws, "t-hl"));
                EXPECT_OK(s, "link ws/t ws/t-hl");
                CHECK(f, exists(P(f->ws, "t-hl")) == ww, "ws/t-hl on the host");

                s = PROBE(f, k->backend, k->mode, "mkdir", P(f->ws, "d2"));
                EXPECT_OK(s, "mkdir ws/d2");
                CHECK(f, S_ISDIR(mode_of(P(f->ws, "d2"))) == ww, "ws/d2 on the host");

                s = PROBE(f, k->backend, k->mode, "symlink", "file", P(f->ws, "ln"));
                EXPECT_OK(s, "symlink ws/ln");
                CHECK(f, S_ISLNK(mode_of(P(f->ws, "ln"))) == ww, "ws/ln on the host");

                s = PROBE(f, k->backend, k->mode, "unlink", P(f->ws, "u"));
                EXPECT_OK(s, "unlink ws/u");
                CHECK(f, exists(P(f->ws, "u")) == !ww, "ws/u on the host");
#undef EXPECT_META
#undef EXPECT_OK
        }
        fx_done(f);
}

/* ---------------------------------------------------- protected paths */

#define GIT_CONFIG "[core]\n\trepositoryformatversion = 0\n"
#define HOOK       "#!/bin/sh\nexit 0\n"

static void make_git(struct fx *f, int with_hooks)
{
        assert_int_equal(mkdir(P(f->ws, ".git"), 0755), 0);
        assert_int_equal(write_file(P(f->ws, ".git/config"), GIT_CONFIG, 0644), 0);
        assert_int_equal(write_file(P(f->ws, ".git/HEAD"), "ref: refs/heads/main\n", 0644), 0);
        if (with_hooks) {
                assert_int_equal(mkdir(P(f->ws, ".git/hooks"), 0755), 0);
                assert_int_equal(write_file(P(f->ws, ".git/hooks/pre-commit"), HOOK, 0755), 0);
        }
        assert_int_equal(write_file(P(f->ws, "README"), "readme\n", 0644), 0);
        assert_int_equal(mkdir(P(f->ws, "src"), 0755), 0);
        assert_int_equal(write_file(P(f->ws, "evil-config"), "[core]\n\tfsmonitor = /tmp/x\n", 0644), 0);
}

struct git_state {
        char *config, *hooks;
        ino_t git_ino;
};

static void git_take(struct fx *f, struct git_state *g)
{
        struct stat st;

        g->config = snap_tree(P(f->ws, ".git/config"));
        g->hooks = snap_tree(P(f->ws, ".git/hooks"));
        g->git_ino = lstat(P(f->ws, ".git"), &st) == 0 ? st.st_ino : 0;
}

static void git_free(struct git_state *g)
{
        free(g->config);
        free(g->hooks);
        memset(g, 0, sizeof(*g));
}

static int git_check(struct fx *f, const struct git_state *g, const char *what)
{
        char *config = snap_tree(P(f->ws, ".git/config"));
        char *hooks = snap_tree(P(f->ws, ".git/hooks"));
        char diff[2048];
        struct stat st;
        int bad = 0;

        if (strcmp(config, g->config) != 0) {
                snap_diff(g->config, config, diff, sizeof(diff));
                CHECK(f, 0, "%s changed .git/config: %s", what, diff);
                bad = 1;
        }
        if (strcmp(hooks, g->hooks) != 0) {
                snap_diff(g->hooks, hooks, diff, sizeof(diff));
                CHECK(f, 0, "%s changed .git/hooks: %s", what, diff);
                bad = 1;
        }
        if (lstat(P(f->ws, ".git"), &st) != 0 || st.st_ino != g->git_ino) {
                CHECK(f, 0, "%s replaced the .git directory itself", what);
                bad = 1;
        }
        free(config);
        free(hooks);
        return bad;
}

static void test_spawn_fs__protected_paths_stay_unchanged(void **state)
{
        struct fx *f = *state;
        size_t c, i;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *W = f->ws;
                const char *cfgp = P(W, ".git/config"), *hk = P(W, ".git/hooks");
                const char *pc = P(W, ".git/hooks/pre-commit");
                struct git_state g;
                int ww = k->mode == SBX_MODE_WORKSPACE_WRITE, s;
                {
                        const struct op ops[] = {
                                { "write", cfgp, NULL, 1 },
                                { "append", cfgp, NULL, 1 },
                                { "truncate", cfgp, NULL, 1 },
                                { "rename", cfgp, P(W, "config-moved"), 1 },
                                { "rename", P(W, "evil-config"), cfgp, 1 },
                                { "unlink", cfgp, NULL, 1 },
                                { "chmod", cfgp, "0666", 1 },
                                { "utimes", cfgp, NULL, 1 },
                                { "setxattr", cfgp, NULL, 1 },
                                { "link", P(W, "evil-config"), P(hk, "post-checkout"), 1 },
                                /* a hard link into a writable directory, then written */
                                { "link", cfgp, P(W, "src/config-hl"), 1 },
                                { "append", P(W, "src/config-hl"), NULL, 1 },
                                { "link", pc, P(W, "src/pre-commit-hl"), 1 },
                                { "append", P(W, "src/pre-commit-hl"), NULL, 1 },
                                { "write", P(hk, "post-checkout"), NULL, 1 },
                                { "write", pc, NULL, 1 },
                                { "append", pc, NULL, 1 },
                                { "truncate", pc, NULL, 1 },
                                { "chmod", pc, "0644", 1 },
                                { "unlink", pc, NULL, 1 },
                                { "rename", pc, P(W, "pc-moved"), 1 },
                                { "symlink", "/bin/sh", P(hk, "post-merge"), 1 },
                                { "mkfifo", P(hk, "fifo"), NULL, 1 },
                                { "mkdir", P(hk, "sub"), NULL, 1 },
                                { "chmod", hk, "0777", 1 },
                                { "rename", hk, P(W, ".git/hooks-old"), 1 },
                                /* replace the whole .git, then forge config and hooks */
                                { "rename", P(W, ".git"), P(W, "git-old"), 1 },
                                { "mkdir", P(W, ".git"), NULL, 1 },
                                { "mkdir", hk, NULL, 1 },
                                { "write", cfgp, NULL, 1 },
                                { "write", pc, NULL, 1 },
                        };

                        if (!backend_usable(f, k->backend))
                                continue;
                        set_label(f, k->backend, k->mode, NULL);
                        fx_populate(f);
                        make_git(f, 1);
                        git_take(f, &g);
                        for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                                char what[PATH_MAX * 2 + 64];

                                snprintf(what, sizeof(what), "sbx-probe %s %s%s%s", ops[i].a1,
                                         ops[i].a2, ops[i].a3 ? " " : "", ops[i].a3 ? ops[i].a3 : "");
                                s = PROBE(f, k->backend, k->mode, ops[i].a1, ops[i].a2, ops[i].a3);
                                /* "mkdir .git" fails with EEXIST when nothing leaked. */
                                CHECK(f, ecode(s) != 0, "%s succeeded (must fail)", what);
                                if (git_check(f, &g, what) || exists(P(W, "git-old")) ||
                                    exists(P(W, "src/config-hl")) || exists(P(W, "src/pre-commit-hl")) ||
                                    exists(P(W, "config-moved")) || exists(P(W, "pc-moved"))) {
                                        CHECK(f, !exists(P(W, "git-old")), "%s: ws/git-old exists", what);
                                        CHECK(f, !exists(P(W, "config-moved")), "%s: config moved out",
                                              what);
                                        CHECK(f, !exists(P(W, "pc-moved")), "%s: hook moved out", what);
                                        CHECK(f, !exists(P(W, "src/config-hl")) &&
                                                 !exists(P(W, "src/pre-commit-hl")),
                                              "%s: a hard link to a protected file exists in a "
                                              "writable directory", what);
                                        git_free(&g);
                                        fx_populate(f);
                                        make_git(f, 1);
                                        git_take(f, &g);
                                }
                        }
                        git_free(&g);
                }

                /* Other workspace files stay writable (workspace-write). */
                s = PROBE(f, k->backend, k->mode, "append", P(W, "README"));
                CHECK(f, (ecode(s) == 0) == ww, "append ws/README: %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "write", P(W, "src/new.c"));
                CHECK(f, (ecode(s) == 0) == ww && exists(P(W, "src/new.c")) == ww,
                      "write ws/src/new.c: %s", describe_status(s));
                /* The whole .git is protected now (docs/git.md): HEAD and
                 * the index lock git add would create are refused too. */
                s = PROBE(f, k->backend, k->mode, "write", P(W, ".git/HEAD"), "ref: refs/heads/x\n");
                CHECK(f, ecode(s) != 0, "write ws/.git/HEAD succeeded: %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "write", P(W, ".git/index.lock"));
                CHECK(f, ecode(s) != 0 && !exists(P(W, ".git/index.lock")),
                      "write ws/.git/index.lock succeeded: %s", describe_status(s));
                /* New entries directly in the workspace root. */
                s = PROBE(f, k->backend, k->mode, "write", P(W, "top-level-new"));
                CHECK(f, (ecode(s) == 0) == ww, "write ws/top-level-new: %s",
                      describe_status(s));
        }
        fx_done(f);
}

/* The whole .git replaced in one command: move it away, forge a new one
 * with a config and a hook git would run for the user. */
static void test_spawn_fs__protected_paths_git_dir_swap(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *argv[] = { "/bin/sh", "-c",
                                       "cd \"$1\" || exit 99; "
                                       "\"$0\" rename .git git-old; echo \"mv=$?\" >&3; "
                                       "\"$0\" mkdir .git; \"$0\" mkdir .git/hooks; "
                                       "\"$0\" write .git/config \"[core]\n\tfsmonitor = evil\n\"; "
                                       "echo \"config=$?\" >&3; "
                                       "\"$0\" write .git/hooks/pre-commit \"#!/bin/sh\nevil\n\"; "
                                       "echo \"hook=$?\" >&3",
                                       f->probe, f->ws, NULL };
                struct res *res = calloc(1, sizeof(*res));
                char buf[256];

                assert_non_null(res);
                if (!backend_usable(f, k->backend)) {
                        free(res);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                make_git(f, 1);
                run_mode(f, k->backend, k->mode, argv, &(struct ro){ .capture = 1 }, res);
                CHECK(f, read_file(P(f->ws, ".git/config"), buf, sizeof(buf)) >= 0 &&
                         strcmp(buf, GIT_CONFIG) == 0,
                      "after the .git swap the host's ws/.git/config holds \"%s\" (%s)", buf,
                      res->out);
                CHECK(f, read_file(P(f->ws, ".git/hooks/pre-commit"), buf, sizeof(buf)) >= 0 &&
                         strcmp(buf, HOOK) == 0,
                      "after the .git swap the host's ws/.git/hooks/pre-commit holds \"%s\"", buf);
                CHECK(f, !exists(P(f->ws, "git-old")), "ws/.git was moved to ws/git-old");
                free(res);
        }
        fx_done(f);
}

static int dir_entries(const char *path)
{
        DIR *d = opendir(path);
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

/* A repository without .git/hooks: the command must not be able to create
 * the hooks directory and put a hook in it (git would run it for the
 * user).  The library may create the missing directory itself, empty,
 * before protecting it. */
static void test_spawn_fs__missing_hooks_dir(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                int s1, s2;

                if (k->mode != SBX_MODE_WORKSPACE_WRITE || !backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                make_git(f, 0);
                {
                        const char *argv[] = { "/bin/sh", "-c",
                                               "\"$0\" mkdir \"$1/.git/hooks\"; echo \"mkdir=$?\" >&3; "
                                               "\"$0\" write \"$1/.git/hooks/pre-commit\"; "
                                               "echo \"hook=$?\" >&3",
                                               f->probe, f->ws, NULL };
                        struct res *res = calloc(1, sizeof(*res));
                        char *nl;

                        assert_non_null(res);
                        run_mode(f, k->backend, k->mode, argv, &(struct ro){ .capture = 1 }, res);
                        while ((nl = strchr(res->out, '\n')) != NULL)
                                *nl = ' ';
                        s1 = exists(P(f->ws, ".git/hooks"));
                        s2 = exists(P(f->ws, ".git/hooks/pre-commit"));
                        CHECK(f, !s2, "with no .git/hooks on the host the command created "
                              ".git/hooks/pre-commit (%s)", res->out);
                        CHECK(f, !s1 || (S_ISDIR(mode_of(P(f->ws, ".git/hooks"))) &&
                                         dir_entries(P(f->ws, ".git/hooks")) == 0),
                              "the command filled .git/hooks (%s)", res->out);
                        free(res);
                }
                /* No .git/config: the command must not write one. */
                {
                        struct stat st;
                        int s;

                        fx_populate(f);
                        make_git(f, 1);
                        assert_int_equal(unlink(P(f->ws, ".git/config")), 0);
                        s = PROBE(f, k->backend, k->mode, "write", P(f->ws, ".git/config"),
                                  "[core]\n\tfsmonitor = evil\n");
                        CHECK(f, lstat(P(f->ws, ".git/config"), &st) < 0 ||
                                 (S_ISREG(st.st_mode) && st.st_size == 0),
                              "with no .git/config on the host the command wrote one (%s, %lld "
                              "bytes)", describe_status(s), (long long) st.st_size);
                }
                /* No .git at all: git init in the workspace is ordinary work;
                 * whatever the command leaves there is reported. */
                {
                        const char *argv[] = { "/bin/sh", "-c",
                                               "\"$0\" mkdir \"$1/.git\" && \"$0\" mkdir \"$1/.git/hooks\" && "
                                               "\"$0\" write \"$1/.git/hooks/pre-commit\"",
                                               f->probe, f->ws, NULL };
                        struct res *res = calloc(1, sizeof(*res));

                        assert_non_null(res);
                        fx_populate(f);
                        run_mode(f, k->backend, k->mode, argv, NULL, res);
                        note("%s: with no .git on the host, one command %s create .git and "
                             ".git/hooks/pre-commit (%s)", f->label,
                             exists(P(f->ws, ".git/hooks/pre-commit")) ? "CAN" : "cannot",
                             describe_status(res->status));
                        free(res);
                }
        }
        fx_done(f);
}

/* ------------------------------------------------------ setuid/setgid */

/* 1 if any entry below dir has S_ISUID or S_ISGID; names it. */
static int find_suid(const char *dir, char *found, size_t size)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        int r = 0;

        if (d == NULL)
                return 0;
        while (!r && (de = readdir(d)) != NULL) {
                char p[PATH_MAX];
                struct stat st;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                if (lstat(p, &st) < 0)
                        continue;
                if (st.st_mode & (S_ISUID | S_ISGID)) {
                        snprintf(found, size, "%s (mode %o)", p, (unsigned) (st.st_mode & 07777));
                        r = 1;
                } else if (S_ISDIR(st.st_mode)) {
                        r = find_suid(p, found, size);
                }
        }
        closedir(d);
        return r;
}

/* 1 if any regular file below dir carries security.capability. */
static int find_fcaps(const char *dir, char *found, size_t size)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        int r = 0;

        if (d == NULL)
                return 0;
        while (!r && (de = readdir(d)) != NULL) {
                char p[PATH_MAX], v[64];
                struct stat st;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                if (lstat(p, &st) < 0)
                        continue;
                if (S_ISREG(st.st_mode) && lgetxattr(p, "security.capability", v, sizeof(v)) >= 0) {
                        snprintf(found, size, "%s", p);
                        r = 1;
                } else if (S_ISDIR(st.st_mode)) {
                        r = find_fcaps(p, found, size);
                }
        }
        closedir(d);
        return r;
}

static void test_spawn_fs__no_setuid_or_setgid_bits(void **state)
{
        struct fx *f = *state;
        static const char *const suid_bins[] = { "/usr/bin/passwd", "/usr/bin/su",
                                                 "/usr/bin/mount", "/bin/su" };
        const char *suid_bin = "/usr/bin/passwd";
        size_t c, i;

        for (i = 0; i < sizeof(suid_bins) / sizeof(suid_bins[0]); i++)
                if (mode_of(suid_bins[i]) & S_ISUID) {
                        suid_bin = suid_bins[i];
                        break;
                }
        if (!(mode_of(suid_bin) & S_ISUID))
                cannot_test("no setuid binary found to hard-link into the workspace");

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const struct op ops[] = {
                        { "creat-setuid", P(f->ws, "suid"), NULL, 0 },
                        { "chmod", P(f->ws, "file"), "4755", 0 },
                        { "chmod", P(f->ws, "file"), "2755", 0 },
                        { "chmod", P(f->ws, "file"), "6755", 0 },
                        { "mkdir-setgid", P(f->ws, "sgid-dir"), NULL, 0 },
                        { "chmod", P(f->ws, "dir"), "2755", 0 },
                        { "creat-setuid", P(f->ws, "dir/suid2"), NULL, 0 },
                        { "chmod", P(f->outside, "victim"), "4755", 0 },
                        { "fchmodat2", P(f->ws, "file"), "4755", 0 },
                        { "fchmodat2", P(f->ws, "dir"), "2755", 0 },
                        { "tmpfile-setuid", f->ws, P(f->ws, "tmpfile-suid"), 0 },
                        /* a host setuid binary hard-linked into the workspace */
                        { "link", suid_bin, P(f->ws, "linked-suid"), 0 },
                };
                char found[PATH_MAX + 32];

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                        int s = PROBE(f, k->backend, k->mode, ops[i].a1, ops[i].a2, ops[i].a3);

                        if (find_suid(f->ws, found, sizeof(found)) ||
                            find_suid(f->outside, found, sizeof(found)) ||
                            find_fcaps(f->ws, found, sizeof(found))) {
                                CHECK(f, 0, "sbx-probe %s %s %s (%s): the host sees a set-id bit on %s",
                                      ops[i].a1, ops[i].a2, ops[i].a3 ? ops[i].a3 : "",
                                      describe_status(s), found);
                                fx_populate(f);
                        }
                }
                /* File capabilities: the modern setuid bit. */
                {
                        int st = PROBE(f, k->backend, k->mode, "setcap", P(f->ws, "file"));

                        CHECK(f, !find_fcaps(f->ws, found, sizeof(found)),
                              "sbx-probe setcap (%s): the host sees security.capability on %s",
                              describe_status(st), found);
                        CHECK(f, ecode(st) != 0, "setting security.capability succeeded: %s",
                              describe_status(st));
                }
                /* A setgid directory the host made: what a new subdirectory
                 * inherits is the host's choice, reported as a note. */
                if (k->mode == SBX_MODE_WORKSPACE_WRITE) {
                        int st;

                        fx_populate(f);
                        assert_int_equal(mkdir(P(f->ws, "shared"), 0755), 0);
                        assert_int_equal(chmod(P(f->ws, "shared"), 02775), 0);
                        st = PROBE(f, k->backend, k->mode, "mkdir", P(f->ws, "shared/sub"));
                        if (mode_of(P(f->ws, "shared/sub")) & S_ISGID)
                                note("%s: mkdir in a host setgid directory inherits S_ISGID (%s)",
                                     f->label, describe_status(st));
                        fx_populate(f);
                }
        }
        fx_done(f);
}

/* ------------------------------------------- metadata in the workspace */

/* chmod, chown, utimes and a user. xattr inside the workspace work on
 * every rung in workspace-write (rung 2's supervisor makes them where
 * Landlock grants writes), checked from the host. */
static void test_spawn_fs__metadata_inside_workspace_works(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                struct stat st;
                char v[8];
                int s, host_xattr;

                if (!backend_usable(f, k->backend) || k->mode != SBX_MODE_WORKSPACE_WRITE)
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                s = PROBE(f, k->backend, k->mode, "chmod", P(f->ws, "file"), "700");
                CHECK(f, ecode(s) == 0 && (mode_of(P(f->ws, "file")) & 07777) == 0700,
                      "chmod 700 in the workspace: %s, the host sees %o", describe_status(s),
                      (unsigned) (mode_of(P(f->ws, "file")) & 07777));
                s = PROBE(f, k->backend, k->mode, "utimes", P(f->ws, "file"));
                CHECK(f, ecode(s) == 0 && stat(P(f->ws, "file"), &st) == 0 &&
                      st.st_mtime == 946684800,
                      "utimes in the workspace: %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "chown", P(f->ws, "file"));
                CHECK(f, ecode(s) == 0, "chown to one's own ids in the workspace: %s",
                      describe_status(s));
                /* Only where the host's file system keeps user xattrs. */
                host_xattr = setxattr(P(f->ws, "dir"), "user.host", "y", 1, 0) == 0;
                s = PROBE(f, k->backend, k->mode, "setxattr", P(f->ws, "file"));
                if (host_xattr)
                        CHECK(f, ecode(s) == 0 &&
                              getxattr(P(f->ws, "file"), "user.sbx", v, sizeof(v)) == 1 &&
                              v[0] == 'x',
                              "a user. xattr in the workspace: %s", describe_status(s));
                fx_populate(f);
        }
        fx_done(f);
}

/* --------------------------------------------------------- kernel knobs */

static int read_int(const char *path, long *out)
{
        char buf[64];

        if (read_file(path, buf, sizeof(buf)) <= 0)
                return -1;
        *out = strtol(buf, NULL, 10);
        return 0;
}

static void write_int(const char *path, long v)
{
        char buf[32];
        int fd = open(path, O_WRONLY | O_CLOEXEC);

        if (fd < 0)
                return;
        snprintf(buf, sizeof(buf), "%ld\n", v);
        (void) !write(fd, buf, strlen(buf));
        close(fd);
}

static void test_spawn_fs__kernel_knobs_not_writable(void **state)
{
        struct fx *f = *state;
        static const char *const knobs[] = { "/proc/sys/vm/swappiness",
                                             "/proc/sys/kernel/printk_ratelimit" };
        static const char *const openw[] = {
                "/proc/sysrq-trigger", "/proc/sys/kernel/core_pattern",
                "/proc/sys/kernel/modprobe", "/sys/kernel/mm/transparent_hugepage/enabled",
                "/sys/kernel/uevent_helper", "/sys/power/state", "/proc/self/oom_score_adj",
        };
        size_t c, i;
        int host_openw = 0;

        /* Which of them the host (this test process) could open: only those
         * make a refusal meaningful; the rest are skipped. */
        for (i = 0; i < sizeof(openw) / sizeof(openw[0]); i++) {
                int fd = open(openw[i], O_WRONLY | O_CLOEXEC | O_NOCTTY);

                if (fd >= 0) {
                        close(fd);
                        host_openw++;
                }
        }
        if (host_openw == 0)
                note("no kernel knob is writable by this (unprivileged) user on the host; the "
                     "refusals below are the kernel's as much as the sandbox's");

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
                        long before, after = LONG_MIN, want;    /* unread: a change */
                        char val[32];
                        int s;

                        if (read_int(knobs[i], &before) < 0) {
                                cannot_test("%s is not readable on the host", knobs[i]);
                                continue;
                        }
                        want = before >= 100 ? before - 1 : before + 1;
                        snprintf(val, sizeof(val), "%ld\n", want);
                        s = PROBE(f, k->backend, k->mode, "write", knobs[i], val);
                        assert_int_equal(read_int(knobs[i], &after), 0);
                        CHECK(f, ecode(s) != 0, "writing %s succeeded: %s", knobs[i], describe_status(s));
                        CHECK(f, after == before, "%s changed from %ld to %ld", knobs[i], before, after);
                        if (after != before)
                                write_int(knobs[i], before);
                }
                for (i = 0; i < sizeof(openw) / sizeof(openw[0]); i++) {
                        int s;

                        if (!exists(openw[i]))
                                continue;
                        s = PROBE(f, k->backend, k->mode, "openw", openw[i]);
                        if (strcmp(openw[i], "/proc/self/oom_score_adj") == 0)
                                continue;       /* its own, in its own pid namespace: allowed */
                        CHECK(f, ecode(s) != 0, "open(%s, O_WRONLY) succeeded in the sandbox",
                              openw[i]);
                }
        }
        fx_done(f);
}

/* ----------------------------------------------------- leave nothing */

/* 1 if an entry called `name` exists at most `depth` levels below dir. */
static int find_name(const char *dir, const char *name, int depth, char *found, size_t size)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (depth < 0 || (d = opendir(dir)) == NULL)
                return 0;
        while (!r && (de = readdir(d)) != NULL) {
                char p[PATH_MAX];

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int) sizeof(p))
                        continue;
                if (strcmp(de->d_name, name) == 0) {
                        snprintf(found, size, "%s", p);
                        r = 1;
                } else if (de->d_type == DT_DIR) {
                        r = find_name(p, name, depth - 1, found, size);
                }
        }
        closedir(d);
        return r;
}

static void test_spawn_fs__leaves_nothing_behind(void **state)
{
        struct fx *f = *state;
        size_t c;
        int n = 0;

        fx_set_tmpdir(f, f->tmp);
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                char name[64], tmp_path[PATH_MAX], shm_path[PATH_MAX], found[PATH_MAX];
                const char *roots[] = { "/tmp", "/var/tmp", "/dev/shm" };
                struct res *res = calloc(1, sizeof(*res));
                const char *argv[] = { "/bin/sh", "-c",
                                       "\"$0\" write-env TMPDIR \"$1\" || exit 11; "
                                       "\"$0\" write-env HOME \"$1\" || exit 12; "
                                       "\"$0\" write \"/tmp/$1\"; a=$?; "
                                       "\"$0\" write \"/dev/shm/$1\"; b=$?; "
                                       "echo \"tmp=$a shm=$b\" >&3; exit 0",
                                       f->probe, name, NULL };
                size_t i;

                assert_non_null(res);
                if (!backend_usable(f, k->backend)) {
                        free(res);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                snprintf(name, sizeof(name), "sbx-left-%d-%d", (int) getpid(), n++);
                snprintf(tmp_path, sizeof(tmp_path), "/tmp/%s", name);
                snprintf(shm_path, sizeof(shm_path), "/dev/shm/%s", name);
                run_mode(f, k->backend, k->mode, argv, &(struct ro){ .capture = 1 }, res);
                /* The command really wrote its TMPDIR and HOME. */
                CHECK(f, ecode(res->status) == 0, "writing $TMPDIR/$HOME files in the sandbox: %s",
                      describe_status(res->status));
                if (k->backend == SBX_BACKEND_NATIVE)
                        CHECK(f, strstr(res->out, "tmp=0 shm=0") != NULL,
                              "rung 1 /tmp and /dev/shm must be private and writable: %s", res->out);
                else
                        note("%s: /tmp and /dev/shm writes: %s", f->label, res->out);

                /* Nothing in the fixture TMPDIR, nothing in /tmp, /dev/shm. */
                {
                        DIR *d = opendir(f->tmp);
                        struct dirent *de;
                        int left = 0;

                        assert_non_null(d);
                        while ((de = readdir(d)) != NULL)
                                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
                                        CHECK(f, 0, "TMPDIR %s still holds %s", f->tmp, de->d_name);
                                        left = 1;
                                }
                        closedir(d);
                        if (left)
                                empty_dir(f->tmp);
                }
                CHECK(f, !exists(tmp_path), "%s exists on the host", tmp_path);
                CHECK(f, !exists(shm_path), "%s exists on the host", shm_path);
                CHECK(f, !exists(P(f->home, name)), "%s exists in the caller home", name);
                for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
                        CHECK(f, !find_name(roots[i], name, 4, found, sizeof(found)),
                              "%s exists on the host", found);
                (void) unlink(tmp_path);
                (void) unlink(shm_path);
                free(res);
        }
        fx_done(f);
}

/* The runtime necessities the plan grants (docs/compile.md): /dev/null,
 * /dev/zero and /dev/full are read-write, /dev/random and /dev/urandom
 * readable, in every mode.  Not a boundary check: a sandbox where
 * `cmd >/dev/null` fails breaks ordinary scripts. */
static void test_spawn_fs__runtime_devices_usable(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *argv[] = { "/bin/sh", "-c", "echo x >/dev/null || exit 1; "
                                       "echo x 2>/dev/null >&2 || exit 2; exit 0", NULL };
                struct res *r = calloc(1, sizeof(*r));
                int s;

                assert_non_null(r);
                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                s = PROBE(f, k->backend, k->mode, "openw", "/dev/null");
                CHECK(f, ecode(s) == 0, "open(/dev/null, O_WRONLY): %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "write", "/dev/null");
                CHECK(f, ecode(s) == 0, "open(/dev/null, O_WRONLY|O_CREAT|O_TRUNC) + write: %s",
                      describe_status(s));
                s = PROBE(f, k->backend, k->mode, "openw", "/dev/zero");
                CHECK(f, ecode(s) == 0, "open(/dev/zero, O_WRONLY): %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "read", "/dev/urandom");
                CHECK(f, ecode(s) == 0, "read /dev/urandom: %s", describe_status(s));
                s = PROBE(f, k->backend, k->mode, "read", "/dev/zero");
                CHECK(f, ecode(s) == 0, "read /dev/zero: %s", describe_status(s));
                run_mode(f, k->backend, k->mode, argv, NULL, r);
                CHECK(f, ecode(r->status) == 0, "sh: echo x >/dev/null: %s",
                      describe_status(r->status));
                free(r);
        }
        fx_done(f);
}

/* A hidden workspace that is not in the sandbox's view at all (below
 * /tmp, which rung 1 replaces) is already hidden: the spawn runs (it used
 * to fail building the mount tree), and the workspace stays unreadable. */
static void test_spawn_fs__hidden_root_not_in_view(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
                sbx_profile *p = NULL;
                sbx_error e = { 0, 0, { 0 } };
                const char *argv[] = { f->probe, "read", P(f->ws, "README"), NULL };
                struct res *res = calloc(1, sizeof(*res));
                struct ro o;

                if (!backend_usable(f, BACKENDS[b])) {
                        free(res);
                        continue;
                }
                set_label(f, BACKENDS[b], SBX_MODE_NONE, "hidden workspace");
                cfg.workspace_root = f->ws;
                cfg.workspace_read = SBX_ACCESS_DENY;
                cfg.workspace_write = SBX_ACCESS_DENY;
                cfg.host_read = SBX_ACCESS_ALLOW;
                cfg.command = SBX_ACCESS_ALLOW;
                if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                        fail_msg("sbx_profile_new: %s", e.message);
                memset(&o, 0, sizeof(o));
                o.cwd = "/usr";
                assert_non_null(res);
                run_profile(f, BACKENDS[b], p, argv, &o, res);
                CHECK(f, WIFEXITED(res->status) && WEXITSTATUS(res->status) != 0,
                      "the hidden workspace was readable: %s", describe_status(res->status));
                free(res);
                sbx_profile_free(p);
        }
        fx_done(f);
}

/* The command is looked up in the sandbox's view of PATH: a PATH entry in
 * the hidden HOME (pyenv shims, ~/.cargo/bin) neither shadows the host's
 * program of the same name nor offers one the sandbox cannot see. */
static void test_spawn_fs__path_lookup_in_the_sandbox_view(void **state)
{
        struct fx *f = *state;
        char bin[PATH_MAX], tool[PATH_MAX], only[PATH_MAX], path_env[PATH_MAX + 32], mark[PATH_MAX];
        char text[PATH_MAX + 64];
        const char *envp[4];
        size_t c;

        fx_populate(f);
        join(bin, f->home, "bin");
        join(tool, bin, "true");
        join(only, bin, "sbx-only-in-home");
        join(mark, f->outside, "shadow-ran");
        assert_int_equal(mkdir(bin, 0755), 0);
        snprintf(text, sizeof(text), "#!/bin/sh\necho > '%s'\n", mark);
        assert_int_equal(write_file(tool, text, 0755), 0);
        assert_int_equal(write_file(only, text, 0755), 0);
        snprintf(path_env, sizeof(path_env), "PATH=%s:/usr/bin:/bin", bin);
        envp[0] = path_env;
        envp[1] = f->env_home;
        envp[2] = NULL;
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *argv_id[] = { "true", NULL }, *argv_only[] = { "sbx-only-in-home", NULL };
                struct res *res = calloc(1, sizeof(*res));

                assert_non_null(res);
                if (!backend_usable(f, k->backend)) {
                        free(res);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                run_mode(f, k->backend, k->mode, argv_id, &(struct ro){ .envp = envp }, res);
                CHECK(f, ecode(res->status) == 0 && !exists(mark), "true: %s, the hidden HOME's "
                      "copy ran %d", describe_status(res->status), exists(mark));
                memset(res, 0, sizeof(*res));
                run_mode(f, k->backend, k->mode, argv_only,
                         &(struct ro){ .envp = envp, .may_fail = 1 }, res);
                CHECK(f, !res->spawned && res->code == SBX_E_NOT_FOUND && !exists(mark),
                      "a program only in the hidden HOME: code %d, ran %d", (int) res->code,
                      exists(mark));
                free(res);
        }
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_spawn_fs__write_outside_the_writable_roots),
                T(test_spawn_fs__workspace_writes_only_in_workspace_write),
                T(test_spawn_fs__protected_paths_stay_unchanged),
                T(test_spawn_fs__protected_paths_git_dir_swap),
                T(test_spawn_fs__missing_hooks_dir),
                T(test_spawn_fs__no_setuid_or_setgid_bits),
                T(test_spawn_fs__metadata_inside_workspace_works),
                T(test_spawn_fs__kernel_knobs_not_writable),
                T(test_spawn_fs__leaves_nothing_behind),
                T(test_spawn_fs__runtime_devices_usable),
                T(test_spawn_fs__hidden_root_not_in_view),
                T(test_spawn_fs__path_lookup_in_the_sandbox_view),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
