/*
 * test_gitscan.c - sbx__git_discover: git's configuration resolved the way
 * git resolves it (docs/git.md, issue 20).
 *
 * Each case builds a fixture under a canonical mkdtemp directory F:
 *
 *   F/ws/        the writable root
 *   F/cfg/       the caller's system and global configs (not a root)
 *
 * and checks which locations the scan reports (and created empty when
 * they did not exist) for program-naming keys set relatively and
 * absolutely in system, global, included, worktree and environment
 * config, per repository found (the root itself, nested, bare, above the
 * root), and that values which name nothing git runs create nothing.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"
#include "paths/paths_internal.h"

static char F[PATH_MAX], WS[PATH_MAX + 8], CFG[PATH_MAX + 8];

/* F-relative path in a rotating set of buffers. */
static const char *at(const char *rel)
{
        static char bufs[16][PATH_MAX * 2];
        static unsigned k;
        char *b = bufs[k++ % 16];

        snprintf(b, PATH_MAX * 2, "%s/%s", F, rel);
        return b;
}

static void mkdirs(const char *rel)
{
        char p[PATH_MAX * 2];
        size_t i;

        snprintf(p, sizeof(p), "%s/%s", F, rel);
        for (i = strlen(F) + 1; p[i] != '\0'; i++)
                if (p[i] == '/') {
                        p[i] = '\0';
                        (void) mkdir(p, 0755);
                        p[i] = '/';
                }
        (void) mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
        char dir[PATH_MAX];
        const char *slash = strrchr(rel, '/');
        FILE *fp;

        if (slash != NULL) {
                snprintf(dir, sizeof(dir), "%.*s", (int) (slash - rel), rel);
                mkdirs(dir);
        }
        fp = fopen(at(rel), "w");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
}

static void rm_rf(const char *path)
{
        char cmd[PATH_MAX * 2 + 16];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
        char tmpl[] = "/tmp/sbx-gitscan-XXXXXX";

        (void) state;
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, F) == NULL)
                return -1;
        snprintf(WS, sizeof(WS), "%s/ws", F);
        snprintf(CFG, sizeof(CFG), "%s/cfg", F);
        mkdirs("ws");
        mkdirs("cfg");
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        rm_rf(F);
        return 0;
}

/* A repository's git dir, as `git init` leaves it (no git needed). */
static void repo(const char *gitdir_rel, const char *config)
{
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/HEAD", gitdir_rel);
        put(p, "ref: refs/heads/main\n");
        snprintf(p, sizeof(p), "%s/objects", gitdir_rel);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/refs/heads", gitdir_rel);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/config", gitdir_rel);
        put(p, config);
}

/* Discover with roots {ws} and the environment given (NULL-terminated). */
static void scan(struct sbx__gitscan *g, const char *const *envp)
{
        const char *roots[] = { WS };
        int r = sbx__git_discover(roots, 1, envp, g);

        if (r != 0)
                fail_msg("sbx__git_discover: %s at %s", strerror(-r), g->fail ? g->fail : "?");
}

/* 1 if F-relative rel is reported (as a tree when tree). */
static int has(const struct sbx__gitscan *g, const char *rel, int tree)
{
        const char *p = at(rel);
        size_t i;

        for (i = 0; i < g->n; i++)
                if (strcmp(g->v[i].path, p) == 0)
                        return !tree || g->v[i].tree;
        return 0;
}

static void dump(const struct sbx__gitscan *g)
{
        size_t i;

        for (i = 0; i < g->n; i++)
                print_message("  %s%s\n", g->v[i].path, g->v[i].tree ? "/**" : "");
}

#define EXPECT(g, rel, tree) \
        do { if (!has((g), (rel), (tree))) { dump(g); fail_msg("not protected: %s", (rel)); } } while (0)
#define EXPECT_NOT(g, rel) \
        do { if (has((g), (rel), 0)) { dump(g); fail_msg("protected: %s", (rel)); } } while (0)

static int is_dir(const char *rel)
{
        struct stat st;

        return stat(at(rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *rel)
{
        struct stat st;

        return lstat(at(rel), &st) == 0 && !S_ISDIR(st.st_mode);
}

static char env_sys[PATH_MAX * 2], env_glob[PATH_MAX * 2], env_home[PATH_MAX * 2];

static const char *const *env_std(void)
{
        static const char *envp[5];

        snprintf(env_sys, sizeof(env_sys), "GIT_CONFIG_SYSTEM=%s/system", CFG);
        snprintf(env_glob, sizeof(env_glob), "GIT_CONFIG_GLOBAL=%s/global", CFG);
        snprintf(env_home, sizeof(env_home), "HOME=%s/home", F);
        envp[0] = env_sys;
        envp[1] = env_glob;
        envp[2] = env_home;
        envp[3] = "PATH=/usr/bin:/bin";
        envp[4] = NULL;
        return envp;
}

/* A relative core.hooksPath of the GLOBAL config applies to every
 * repository: the root itself, a nested one, a bare one (its git dir). */
static void test_gitscan__global_relative_hookspath_per_repository(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        put("cfg/global", "[core]\n\thooksPath = .githooks\n");
        repo("ws/.git", "[core]\n\tbare = false\n");
        repo("ws/sub/.git", "");
        repo("ws/deep/er/bare.git", "[core]\n\tbare = true\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/.githooks", 1);
        EXPECT(&g, "ws/sub/.githooks", 1);
        EXPECT(&g, "ws/.git", 1);
        EXPECT(&g, "ws/sub/.git", 1);
        EXPECT(&g, "ws/deep/er/bare.git", 1);
        assert_true(is_dir("ws/.githooks") && is_dir("ws/sub/.githooks"));
        EXPECT_NOT(&g, "ws/deep/er/.githooks");
        sbx__gitscan_free(&g);
}

/* Program-naming keys, relative and absolute, from the system config:
 * resolved from the top of each worktree (absolute as written). */
static void test_gitscan__system_program_keys(void **state)
{
        struct sbx__gitscan g;
        char text[PATH_MAX * 3];

        (void) state;
        snprintf(text, sizeof(text),
                 "[core]\n\tfsmonitor = ./tools/fsmon\n\tsshCommand = \"./bin/ssh -v\"\n"
                 "[diff]\n\texternal = %s/ws/abs-diff\n"
                 "[filter \"lfsx\"]\n\tclean = scripts/clean %%f\n\tsmudge = cat\n"
                 "[credential]\n\thelper = \"!./cred.sh get\"\n"
                 "[credential \"https://example.com\"]\n\thelper = /nonexistent/elsewhere\n"
                 "[alias]\n\tboom = \"!sh ./alias.sh\"\n\tst = -c core.pager=./pager.sh status\n"
                 "[gpg]\n\tprogram = ./gpg.sh\n[gpg \"ssh\"]\n\tallowedSignersFile = signers\n",
                 F);
        put("cfg/system", text);
        repo("ws/.git", "");
        scan(&g, env_std());
        EXPECT(&g, "ws/tools/fsmon", 0);
        EXPECT(&g, "ws/bin/ssh", 0);
        EXPECT(&g, "ws/abs-diff", 0);
        EXPECT(&g, "ws/scripts/clean", 0);
        EXPECT(&g, "ws/cred.sh", 0);
        EXPECT(&g, "ws/alias.sh", 0);
        EXPECT(&g, "ws/pager.sh", 0);
        EXPECT(&g, "ws/gpg.sh", 0);
        EXPECT(&g, "ws/signers", 0);
        assert_true(is_file("ws/tools/fsmon") && is_file("ws/abs-diff") && is_file("ws/alias.sh"));
        sbx__gitscan_free(&g);
}

/* include.path relative to the including file, includeIf whatever its
 * condition; what the included file names resolves per repository. */
static void test_gitscan__includes(void **state)
{
        struct sbx__gitscan g;
        char text[PATH_MAX * 3];

        (void) state;
        mkdirs("home");
        snprintf(text, sizeof(text),
                 "[include]\n\tpath = inc/one\n"
                 "[includeIf \"gitdir:%s/ws/\"]\n\tpath = %s/ws/included-from-ws\n", F, F);
        put("cfg/global", text);
        put("cfg/inc/one", "[diff]\n\texternal = ./difftool.sh\n");
        put("ws/included-from-ws", "[core]\n\thooksPath = inc-hooks\n");
        repo("ws/.git", "[include]\n\tpath = ../local-include\n");
        put("ws/local-include", "[core]\n\tfsmonitor = ./local-fsmon\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/included-from-ws", 0);
        EXPECT(&g, "ws/inc-hooks", 1);
        EXPECT(&g, "ws/difftool.sh", 0);
        EXPECT(&g, "ws/local-include", 0);
        EXPECT(&g, "ws/local-fsmon", 0);
        sbx__gitscan_free(&g);
}

/* config.worktree (extensions.worktreeConfig) and core.worktree. */
static void test_gitscan__worktree_config(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        put("cfg/global", "[core]\n\thooksPath = .hooks-g\n");
        repo("ws/.git", "[extensions]\n\tworktreeConfig = true\n");
        put("ws/.git/config.worktree", "[core]\n\thooksPath = wt-hooks\n\tfsmonitor = ./wt-fsmon\n");
        /* a git dir whose worktree is elsewhere (core.worktree, relative
         * to the git dir) */
        repo("ws/gd/repo.git", "[core]\n\tworktree = ../../tree\n");
        mkdirs("ws/tree");
        scan(&g, env_std());
        EXPECT(&g, "ws/wt-hooks", 1);
        EXPECT(&g, "ws/wt-fsmon", 0);
        EXPECT(&g, "ws/tree/.hooks-g", 1);
        sbx__gitscan_free(&g);
}

/* A repository above the root: its config (outside the root) and the
 * caller's relative keys resolve from its top, which may be inside. */
static void test_gitscan__enclosing_repository(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        put("cfg/global", "[diff]\n\texternal = ws/ext-diff\n");
        repo(".git", "[core]\n\thooksPath = ws/up-hooks\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/up-hooks", 1);
        EXPECT(&g, "ws/ext-diff", 0);
        EXPECT_NOT(&g, ".git");         /* outside the root: read-only anyway */
        rm_rf(at(".git"));
        sbx__gitscan_free(&g);
}

/* A directory holding a HEAD (a committed bare fixture without objects/
 * and refs/) is protected whole; its commondir target too. */
static void test_gitscan__head_directory(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        put("ws/fixture/HEAD", "ref: refs/heads/main\n");
        put("ws/fixture/config", "[core]\n\tfsmonitor = ../fx-fsmon\n");
        put("ws/other/HEAD", "0123456789abcdef0123456789abcdef01234567\n");
        put("ws/other/commondir", "../common\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/fixture", 1);
        EXPECT(&g, "ws/fx-fsmon", 0);           /* a bare repository runs from its git dir */
        EXPECT(&g, "ws/other", 1);
        EXPECT(&g, "ws/common", 1);
        assert_true(is_dir("ws/common"));
        EXPECT_NOT(&g, "ws");
        sbx__gitscan_free(&g);
}

/* ~ and symbolic links: the link is protected with its target, a
 * dangling one's target created. */
static void test_gitscan__home_and_links(void **state)
{
        struct sbx__gitscan g;
        char env_home2[PATH_MAX * 2], text[PATH_MAX * 3];
        const char *envp[4];

        (void) state;
        snprintf(env_home2, sizeof(env_home2), "HOME=%s/ws/home", F);
        mkdirs("ws/home");
        snprintf(text, sizeof(text), "[core]\n\thooksPath = ~/hooks\n\tfsmonitor = ./via/fsmon\n");
        put("ws/home/.gitconfig", text);
        repo("ws/.git", "");
        mkdirs("ws/real");
        assert_int_equal(symlink("real", at("ws/via")), 0);
        envp[0] = env_home2;
        envp[1] = "PATH=/usr/bin:/bin";
        envp[2] = NULL;
        scan(&g, envp);
        EXPECT(&g, "ws/home/.gitconfig", 0);
        EXPECT(&g, "ws/home/.config/git/config", 0);    /* creatable: created empty */
        EXPECT(&g, "ws/home/hooks", 1);
        EXPECT(&g, "ws/via", 0);
        EXPECT(&g, "ws/real/fsmon", 0);
        sbx__gitscan_free(&g);
}

/* GIT_CONFIG_COUNT/KEY/VALUE, GIT_CONFIG_PARAMETERS and GIT_* programs. */
static void test_gitscan__environment_config(void **state)
{
        struct sbx__gitscan g;
        const char *envp[] = {
                "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.hooksPath",
                "GIT_CONFIG_VALUE_0=env-hooks", "GIT_CONFIG_KEY_1=filter.x.process",
                "GIT_CONFIG_VALUE_1=./env-proc", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='./p-fsmon'",
                "GIT_SSH_COMMAND=./env-ssh -q", "HOME=/nonexistent", NULL,
        };

        (void) state;
        repo("ws/.git", "");
        scan(&g, envp);
        EXPECT(&g, "ws/env-hooks", 1);
        EXPECT(&g, "ws/env-proc", 0);
        EXPECT(&g, "ws/p-fsmon", 0);
        EXPECT(&g, "ws/env-ssh", 0);
        sbx__gitscan_free(&g);
}

/* Keys this table does not type: an existing file they name is
 * protected; nothing is created for them, and command lines create no
 * junk (format strings, URLs, refspecs). */
static void test_gitscan__untyped_values(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        put("ws/tools/present.sh", "#!/bin/sh\n");
        repo("ws/.git",
             "[future]\n\tprogram = tools/present.sh --flag\n\tother = tools/missing.sh\n"
             "[remote \"origin\"]\n\turl = https://example.com/a/b.git\n"
             "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
             "[branch \"main\"]\n\tmerge = refs/heads/main\n"
             "[alias]\n\tlg = \"!git log --format=%h/%s\"\n"
             "[core]\n\teditor = $HOME/bin/ed\n"
             "[safe]\n\tdirectory = ./tools\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/tools/present.sh", 0);
        EXPECT_NOT(&g, "ws/tools/missing.sh");
        EXPECT_NOT(&g, "ws/tools");
        assert_false(is_file("ws/tools/missing.sh"));
        assert_false(is_dir("ws/refs") || is_dir("ws/https:") || is_dir("ws/%h") ||
                     is_dir("ws/--format=%h") || is_dir("ws/HOME"));
        sbx__gitscan_free(&g);
}

/* Keys of tools git runs (git-lfs) or of a newer git, named the way
 * programs are named (*cmd, *command, *helper, *hook...): their programs
 * are protected and created like a typed key's; a directory is not. */
static void test_gitscan__program_named_keys(void **state)
{
        struct sbx__gitscan g;

        (void) state;
        mkdirs("ws/adir");
        repo("ws/.git", "[lfs \"customtransfer.agent\"]\n\tpath = ./lfs-agent\n"
                        "[annex]\n\tpostUpdateHook = tools/annex-hook --x\n"
                        "[newtool]\n\tsomeCommand = ./adir\n");
        scan(&g, env_std());
        EXPECT(&g, "ws/lfs-agent", 0);
        EXPECT(&g, "ws/tools/annex-hook", 0);
        EXPECT_NOT(&g, "ws/adir");
        assert_true(is_file("ws/lfs-agent") && is_file("ws/tools/annex-hook"));
        sbx__gitscan_free(&g);
}

/* Links git follows inside a git dir or a hooks directory (a hook
 * symlinked to a tracked script, a symlinked config): their targets. */
static void test_gitscan__links_inside_git_dirs(void **state)
{
        struct sbx__gitscan g;
        char text[PATH_MAX * 3];

        (void) state;
        snprintf(text, sizeof(text), "[core]\n\thooksPath = %s/cfg/hooks\n", F);
        put("cfg/global", text);
        mkdirs("cfg/hooks");
        assert_int_equal(symlink(at("ws/scripts/post-merge"), at("cfg/hooks/post-merge")), 0);
        repo("ws/.git", "");
        put("ws/scripts/pre-commit", "#!/bin/sh\n");
        put("ws/scripts/post-merge", "#!/bin/sh\n");
        put("ws/tracked-config", "[core]\n\tfsmonitor = ./from-linked-config\n");
        mkdirs("ws/.git/hooks");
        assert_int_equal(symlink("../../scripts/pre-commit", at("ws/.git/hooks/pre-commit")), 0);
        assert_int_equal(symlink("../tracked-config", at("ws/.git/config.worktree")), 0);
        scan(&g, env_std());
        EXPECT(&g, "ws/scripts/pre-commit", 0);
        EXPECT(&g, "ws/scripts/post-merge", 0);
        EXPECT(&g, "ws/tracked-config", 0);
        EXPECT(&g, "ws/from-linked-config", 0);
        sbx__gitscan_free(&g);
}

/* A value naming a place the caller cannot reach, outside the roots,
 * protects nothing and fails nothing (git cannot get there either); a
 * config too large to read fails the scan (it cannot vouch for it). */
static void test_gitscan__unreachable_and_oversized(void **state)
{
        struct sbx__gitscan g;
        const char *roots[] = { WS };
        char text[PATH_MAX * 3];
        FILE *fp;
        size_t i;
        int r;

        (void) state;
        mkdirs("cfg/locked/inner");
        snprintf(text, sizeof(text), "[core]\n\texcludesFile = %s/cfg/locked/inner/x\n"
                 "\tfsmonitor = %s/cfg/locked/inner/fsmon\n", F, F);
        put("cfg/global", text);
        assert_int_equal(chmod(at("cfg/locked"), 0), 0);
        repo("ws/.git", "");
        scan(&g, env_std());
        EXPECT(&g, "ws/.git", 1);
        sbx__gitscan_free(&g);
        assert_int_equal(chmod(at("cfg/locked"), 0755), 0);

        fp = fopen(at("cfg/global"), "w");
        assert_non_null(fp);
        for (i = 0; i < 40000; i++)
                fputs("[user]\n\tname = padding padding\n", fp);
        fclose(fp);
        r = sbx__git_discover(roots, 1, env_std(), &g);
        assert_int_equal(r, -EFBIG);
        assert_non_null(g.fail);
        assert_non_null(strstr(g.fail, "cfg/global"));
        sbx__gitscan_free(&g);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_gitscan__global_relative_hookspath_per_repository,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__system_program_keys, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__includes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__worktree_config, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__enclosing_repository, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__head_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__home_and_links, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__environment_config, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__untyped_values, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__program_named_keys, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__links_inside_git_dirs, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_gitscan__unreachable_and_oversized, setup,
                                                teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
