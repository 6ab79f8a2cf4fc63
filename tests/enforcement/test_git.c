/*
 * test_git.c - no persistence through git (issue 8, docs/git.md).
 *
 * A confined workspace-write command tries every known way to plant code
 * that the user's own git would run later (config, hooks, a redirected
 * common dir, a nested repository's config, a core.hooksPath directory, a
 * new .git or bare repository that shadows the real one, renaming .git
 * away), through every naming syscall (mkdir, open O_CREAT, mkfifo,
 * symlink, link, rename) and with a thread racing the path buffer.  The
 * checks are made from the host afterwards: the git files are byte for
 * byte what they were, no .git/HEAD exists that the fixture did not make,
 * and the host's own `git status` and `git commit` run nothing planted.
 * Normal work (new files and directories anywhere else, renames, links)
 * still works, and git's read-only commands work inside.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

static const char *git_bin(void)
{
        static const char *const cands[] = { "/usr/bin/git", "/bin/git", "/usr/local/bin/git" };
        size_t i;

        for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
                if (access(cands[i], X_OK) == 0)
                        return cands[i];
        return NULL;
}

#define CHECK_HOST(cond, what) \
        do { if (!(cond)) fail_msg("host git %s failed", (what)); } while (0)

/* Run a host command (argv) in dir, output discarded; its exit status. */
static int host_run(const char *dir, const char *const *argv)
{
        pid_t pid = fork();
        int st = -1;

        assert_true(pid >= 0);
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);

                if (null >= 0) {
                        dup2(null, 1);
                        dup2(null, 2);
                }
                if (chdir(dir) < 0)
                        _exit(126);
                execve(argv[0], (char *const *) argv,
                       (char *const[]){ "PATH=/usr/bin:/bin", "HOME=/nonexistent",
                                        "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
                                        "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
                                        "GIT_COMMITTER_EMAIL=t@t", NULL });
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &st, 0), pid);
        return st;
}

/* The host's git in dir with up to 6 arguments (NULL-terminated); it
 * must succeed. */
static void git(const char *dir, ...)
{
        const char *argv[12] = { git_bin(), "-c", "safe.directory=*" };
        size_t n = 3;
        va_list ap;
        const char *a;

        va_start(ap, dir);
        while ((a = va_arg(ap, const char *)) != NULL && n < 10)
                argv[n++] = a;
        va_end(ap);
        argv[n] = NULL;
        CHECK_HOST(host_run(dir, argv) == 0, argv[3]);
}

/* Every file the fixture's git directories hold, with contents: a
 * snapshot compared after the command ran. */
static char *snap_git(struct fx *f)
{
        char *a = snap_tree(P(f->ws, ".git")), *b = snap_tree(P(f->ws, "vendor/lib/.git")),
             *c = snap_tree(P(f->ws, ".husky")), *out;

        assert_true(asprintf(&out, "%s\n--\n%s\n--\n%s", a, b, c) > 0);
        free(a);
        free(b);
        free(c);
        return out;
}

/* Every path below root named .git or HEAD, one per line, sorted by the
 * walk order (deterministic for the same tree). */
static void find_names(const char *root, const char *rel, char *out, size_t size)
{
        char path[PATH_MAX];
        DIR *d;
        struct dirent *e;

        snprintf(path, sizeof(path), "%s%s%s", root, rel[0] ? "/" : "", rel);
        d = opendir(path);
        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL) {
                char sub[PATH_MAX];

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
                if (strcasecmp(e->d_name, ".git") == 0 || strcmp(e->d_name, "HEAD") == 0) {
                        size_t l = strlen(out);

                        snprintf(out + l, size - l, "%s\n", sub);
                        if (strcmp(sub, ".git") == 0 || strcmp(sub, "vendor/lib/.git") == 0)
                                continue;       /* the fixture's own */
                }
                if (e->d_type == DT_DIR)
                        find_names(root, sub, out, size);
        }
        closedir(d);
}

static void make_repo(struct fx *f)
{
        git(f->ws, "init", "-q", ".", NULL);
        assert_int_equal(write_file(P(f->ws, "README"), "readme\n", 0644), 0);
        assert_int_equal(mkdir(P(f->ws, "vendor"), 0755), 0);
        assert_int_equal(mkdir(P(f->ws, "vendor/lib"), 0755), 0);
        git(P(f->ws, "vendor/lib"), "init", "-q", ".", NULL);
        /* husky-style hooks inside the worktree */
        git(f->ws, "config", "core.hooksPath", ".husky", NULL);
        assert_int_equal(mkdir(P(f->ws, ".husky"), 0755), 0);
        git(f->ws, "add", "README", NULL);
        git(f->ws, "commit", "-q", "-m", "init", NULL);
}

/* The attacks, one shell line each; every one must fail, and a marker
 * file says the normal work after them still happened. */
static const char ATTACK[] =
        "printf '[core]\\n\\tfsmonitor = touch PWNED-fsmonitor\\n' >> .git/config;"
        "mkdir -p evil/hooks; printf '#!/bin/sh\\ntouch PWNED-hook\\n' > evil/hooks/pre-commit;"
        "chmod +x evil/hooks/pre-commit 2>/dev/null;"
        "echo ../evil > .git/commondir; echo x > .git/config.worktree;"
        "printf '#!/bin/sh\\ntouch PWNED-hook\\n' > .git/hooks/pre-commit;"
        "mv .git .git-away; mv .git/hooks .git/hooks-away;"
        "printf '[core]\\n\\tfsmonitor = touch PWNED-nested\\n' >> vendor/lib/.git/config;"
        "printf '#!/bin/sh\\ntouch PWNED-husky\\n' > .husky/pre-commit;"
        "mkdir sub; mkdir sub/.git; mkdir sub/.GIT; echo 'gitdir: ../evil' > sub/.git;"
        "mkfifo sub/.git; ln -s ../evil sub/.git; ln README sub/.git; mv README sub/.git;"
        "mkdir bare; mkdir bare/objects bare/refs; echo 'ref: refs/heads/main' > bare/HEAD;"
        "git init -q sub2 2>/dev/null;"
        /* normal work */
        "mkdir -p new/dir && echo hi > new/dir/file && mv new/dir/file new/moved &&"
        " ln -s moved new/link && ln new/moved new/hard && mkfifo new/fifo &&"
        " echo top > top.txt && mkdir topdir && echo ok > done";

static void run_attack(struct fx *f, int32_t backend)
{
        const char *argv[] = { "/bin/sh", "-c", ATTACK, NULL };
        struct res *res = calloc(1, sizeof(*res));
        struct ro o;
        char names[4096] = "";
        char *before, *after;

        assert_non_null(res);
        memset(&o, 0, sizeof(o));
        o.cwd = f->ws;
        before = snap_git(f);
        run_mode(f, backend, SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
        after = snap_git(f);
        CHECK(f, strcmp(before, after) == 0, "a git directory changed:\n%s\n-- became --\n%s",
              before, after);
        find_names(f->ws, "", names, sizeof(names));
        CHECK(f, strcmp(names, ".git\nvendor/lib/.git\n") == 0 ||
                 strcmp(names, "vendor/lib/.git\n.git\n") == 0,
              "names git reads as repositories appeared:\n%s", names);
        CHECK(f, exists(P(f->ws, "done")), "normal work failed (status %s)",
              describe_status(res->status));
        CHECK(f, exists(P(f->ws, "new/moved")) && exists(P(f->ws, "new/hard")) &&
                 exists(P(f->ws, "top.txt")) && exists(P(f->ws, "topdir")),
              "new files, links or top-level entries are missing");
        /* The host's own git: nothing planted runs. */
        git(f->ws, "status", "--short", NULL);
        git(f->ws, "commit", "-q", "--allow-empty", "-m", "host", NULL);
        git(P(f->ws, "vendor/lib"), "status", "--short", NULL);
        CHECK(f, !exists(P(f->ws, "PWNED-fsmonitor")) && !exists(P(f->ws, "PWNED-hook")) &&
                 !exists(P(f->ws, "PWNED-nested")) && !exists(P(f->ws, "PWNED-husky")) &&
                 !exists(P(f->ws, "vendor/lib/PWNED-nested")),
              "the host's git ran planted code");
        free(before);
        free(after);
        free(res);
}

static void test_git_persistence(void **state)
{
        struct fx *f = *state;
        size_t b;

        if (git_bin() == NULL) {
                cannot_test("git is not installed");
                return;
        }
        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, NULL);
                empty_dir(f->ws);
                make_repo(f);
                run_attack(f, BACKENDS[b]);
        }
        fx_done(f);
}

/* The workspace is a subdirectory of the user's repository: a new .git
 * (or a bare repository) in it would take over every git command run
 * there.  The host's git must still find the parent repository. */
static void test_git_shadowing(void **state)
{
        struct fx *f = *state;
        size_t b;

        if (git_bin() == NULL) {
                cannot_test("git is not installed");
                return;
        }
        for (b = 0; b < N_BACKENDS; b++) {
                const char *argv[] = { "/bin/sh", "-c",
                        "git init -q . 2>/dev/null; mkdir .git; echo 'gitdir: /tmp' > .git;"
                        "mkdir objects refs; echo 'ref: refs/heads/x' > HEAD;"
                        "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > config;"
                        "echo ok > done", NULL };
                struct res *res;
                struct ro o;
                char top[PATH_MAX] = "";

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "shadow");
                /* parent repo = base, workspace = base/ws */
                empty_dir(f->ws);
                rm_tree(P(f->base, ".git"));
                git(f->base, "init", "-q", ".", NULL);
                res = calloc(1, sizeof(*res));
                assert_non_null(res);
                memset(&o, 0, sizeof(o));
                o.cwd = f->ws;
                run_mode(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
                free(res);
                CHECK(f, exists(P(f->ws, "done")), "normal work failed");
                CHECK(f, !exists(P(f->ws, ".git")) && !exists(P(f->ws, "HEAD")),
                      "a repository was created in the workspace");
                {
                        const char *args[] = { git_bin(), "-c", "safe.directory=*", "status",
                                               "--short", NULL };

                        (void) host_run(f->ws, args);
                }
                CHECK(f, !exists(P(f->ws, "PWNED")), "the host's git ran a planted fsmonitor");
                {
                        int pfd[2];
                        pid_t pid;
                        ssize_t n;

                        assert_int_equal(pipe(pfd), 0);
                        pid = fork();
                        assert_true(pid >= 0);
                        if (pid == 0) {
                                dup2(pfd[1], 1);
                                if (chdir(f->ws) < 0)
                                        _exit(126);
                                execl(git_bin(), "git", "-c", "safe.directory=*", "rev-parse",
                                      "--show-toplevel", (char *) NULL);
                                _exit(127);
                        }
                        close(pfd[1]);
                        n = read(pfd[0], top, sizeof(top) - 1);
                        close(pfd[0]);
                        waitpid(pid, NULL, 0);
                        if (n > 0)
                                top[n - 1] = '\0';
                }
                CHECK(f, strcmp(top, f->base) == 0, "git in the workspace found \"%s\", not the "
                      "parent repository %s", top, f->base);
                rm_tree(P(f->base, ".git"));
        }
        fx_done(f);
}

/* A thread flips the path between a harmless name and ".git" while the
 * other calls mkdir/open/symlink/rename with it: the check and the
 * operation see one copy, so no .git ever appears. */
static void test_git_race(void **state)
{
        struct fx *f = *state;
        size_t b;

        for (b = 0; b < N_BACKENDS; b++) {
                const char *argv[] = { f->probe, "name-race", "20000", NULL };
                struct res *res;
                struct ro o;
                char names[4096] = "";

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "race");
                empty_dir(f->ws);
                res = calloc(1, sizeof(*res));
                assert_non_null(res);
                memset(&o, 0, sizeof(o));
                o.cwd = f->ws;
                run_mode(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
                CHECK(f, WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0,
                      "the racing probe failed: %s", describe_status(res->status));
                free(res);
                find_names(f->ws, "", names, sizeof(names));
                CHECK(f, names[0] == '\0', "the race created:\n%s", names);
        }
        fx_done(f);
}

/* bwrap has no supervisor: it does not claim protected-paths, refuses a
 * workspace-write profile, and runs one only when the caller accepts the
 * loss -- then the report says protected-paths is not achieved. */
static void test_git_bwrap_needs_acceptance(void **state)
{
        struct fx *f = *state;
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        const char *argv[] = { "true", NULL };
        struct res *res = calloc(1, sizeof(*res));
        sbx_code r;

        assert_non_null(res);
        if (!backend_usable(f, SBX_BACKEND_BWRAP)) {
                cannot_test("bwrap is not usable here");
                goto out;
        }
        set_label(f, SBX_BACKEND_BWRAP, SBX_MODE_WORKSPACE_WRITE, "unaccepted");
        assert_int_equal(sbx_plan_compile(p, &plan, &e), SBX_OK);
        so.backend = SBX_BACKEND_BWRAP;
        so.envp = f->envp;
        r = sbx_spawn(plan, argv, &so, &child, &e);
        CHECK(f, r == SBX_E_SANDBOX_UNAVAILABLE && strstr(e.message, "protected-paths") != NULL,
              "bwrap ran workspace-write without the acceptance: %s", sbx_code_name(r));
        if (r == SBX_OK) {
                int st;

                (void) sbx_child_wait(child, &st, &e);
                sbx_child_free(child);
        }
        sbx_plan_free(plan);
        /* Accepted (run_profile adds it for bwrap): runs, and says so. */
        run_mode(f, SBX_BACKEND_BWRAP, SBX_MODE_WORKSPACE_WRITE, argv, NULL, res);
        CHECK(f, !(res->rep.achieved & SBX_G_PROTECTED_PATHS) &&
                 !(res->rep.required & SBX_G_PROTECTED_PATHS),
              "the accepted bwrap run reports protected-paths (required 0x%x achieved 0x%x)",
              (unsigned) res->rep.required, (unsigned) res->rep.achieved);
out:
        sbx_profile_free(p);
        free(res);
        fx_done(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_git_persistence, fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_git_shadowing, fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_git_race, fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_git_bwrap_needs_acceptance, fx_setup,
                                                fx_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
