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
 * Issue 20, by class: program-naming keys (core.hooksPath, core.fsmonitor,
 * diff.external, a filter driver, a `!` alias, core.sshCommand,
 * credential.helper) set relatively and absolutely in every config git
 * reads (GIT_CONFIG_GLOBAL, $HOME/.gitconfig, XDG, GIT_CONFIG_SYSTEM,
 * include.path, includeIf "gitdir:", config.worktree, .git/config), for
 * the workspace root and a nested repository; links from .git into the
 * worktree; bare fixtures one step from a repository.  Each attack is run
 * unconfined once too, as a control that the host's git would have run it.
 * The caller's configuration is set in this process's environment, which
 * is what the spawn-time scan reads, never the real home or /etc.
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

/* ---------------------------------------- issue 20: configuration, class 4 */

/*
 * Where the program-naming keys live: every config file git reads for a
 * repository, and the environment the caller's git runs with.  The test
 * process's own environment is what the spawn-time scan reads (it is the
 * user's git's), so each source sets it, and the host's git runs with
 * the same.  Nothing touches the real /etc/gitconfig or the real home.
 */
enum src {
        SRC_GLOBAL,     /* $GIT_CONFIG_GLOBAL */
        SRC_HOME,       /* $HOME/.gitconfig */
        SRC_XDG,        /* $XDG_CONFIG_HOME/git/config */
        SRC_SYSTEM,     /* $GIT_CONFIG_SYSTEM */
        SRC_INCLUDE,    /* include.path from the global config, relative */
        SRC_INCLUDEIF,  /* includeIf "gitdir:<ws>/" from the global config */
        SRC_WORKTREE,   /* extensions.worktreeConfig + .git/config.worktree */
        SRC_REPO,       /* .git/config */
        N_SRC
};
static const char *const SRC_NAME[N_SRC] = {
        "global", "home", "xdg", "system", "include", "includeIf", "worktree", "repo",
};

/* The programs git runs, by key: the base of each target's name. */
static const char *const PROGS[] = { "fsm", "difx", "filt", "alias", "ssh", "cred" };
#define N_PROGS (sizeof(PROGS) / sizeof(PROGS[0]))

struct cfgrun {
        char env[12][2 * PATH_MAX];
        const char *envp[16];
        char cfgdir[PATH_MAX + 16];
        char targets[2 * (N_PROGS + 1)][PATH_MAX + 32];   /* programs, then hooks dirs */
        int is_hooks[2 * (N_PROGS + 1)];
        size_t n;
};

/* The key values for one form ("rel": ./x relative to each worktree top,
 * "abs": <ws>/x), as a config text. */
static void cfg_text(const struct fx *f, int abs, char *out, size_t size)
{
        const char *form = abs ? "abs" : "rel";
        char v[N_PROGS][PATH_MAX + 32];
        size_t i;
        int n;

        for (i = 0; i < N_PROGS; i++)
                assert_true(snprintf(v[i], sizeof(v[i]), "%s/%s%s-%s.sh", abs ? f->ws : ".",
                                     i == 2 ? "filters/bin/" : "", PROGS[i], form) <
                            (int) sizeof(v[i]));
        n = snprintf(out, size,
                 "[core]\n\thooksPath = %s%shooks.d/hk-%s\n\tfsmonitor = %s\n\tsshCommand = %s\n"
                 "[diff]\n\texternal = %s\n[filter \"pw\"]\n\tclean = %s\n"
                 "[alias]\n\tpwn = !%s\n[credential]\n\thelper = %s%s\n",
                 abs ? f->ws : "", abs ? "/" : "", form, v[0], v[4], v[1], v[2], v[3],
                 abs ? "" : "!", v[5]);

        assert_true(n > 0 && (size_t) n < size);
}

static void env_put(struct cfgrun *c, size_t *n, const char *name, const char *a)
{
        snprintf(c->env[*n], sizeof(c->env[*n]), "%s=%s", name, a);
        c->envp[*n] = c->env[*n];
        (*n)++;
}

/* The caller's environment for source `src` (set in this process too). */
static void cfg_env(struct fx *f, enum src src, struct cfgrun *c)
{
        size_t n = 0, i;
        static const char *const fixed[] = {
                "PATH=/usr/bin:/bin", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
                "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_TERMINAL_PROMPT=0",
                "LANG=C",
        };
        char buf[PATH_MAX + 64];

        snprintf(c->cfgdir, sizeof(c->cfgdir), "%s/cfg", f->outside);
        env_put(c, &n, "HOME", f->home);
        snprintf(buf, sizeof(buf), "%s/%s", c->cfgdir, src == SRC_SYSTEM ? "system" : "empty");
        env_put(c, &n, "GIT_CONFIG_SYSTEM", buf);
        if (src != SRC_HOME && src != SRC_XDG) {
                snprintf(buf, sizeof(buf), "%s/global", c->cfgdir);
                env_put(c, &n, "GIT_CONFIG_GLOBAL", buf);
        }
        snprintf(buf, sizeof(buf), "%s/xdg", c->cfgdir);
        env_put(c, &n, "XDG_CONFIG_HOME", buf);
        for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
                c->envp[n++] = fixed[i];
        c->envp[n] = NULL;
        unsetenv("GIT_CONFIG_GLOBAL");
        for (i = 0; c->envp[i] != NULL; i++) {
                char name[64];
                const char *eq = strchr(c->envp[i], '=');

                snprintf(name, sizeof(name), "%.*s", (int) (eq - c->envp[i]), c->envp[i]);
                if (strncmp(name, "GIT_", 4) == 0 || strcmp(name, "HOME") == 0 ||
                    strcmp(name, "XDG_CONFIG_HOME") == 0)
                        setenv(name, eq + 1, 1);
        }
}

static void cfg_env_restore(void)
{
        static const char *const names[] = {
                "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME", "GIT_AUTHOR_NAME",
                "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
                "GIT_TERMINAL_PROMPT",
        };
        static char home[PATH_MAX];
        static int saved;
        size_t i;

        if (!saved) {
                snprintf(home, sizeof(home), "%s", getenv("HOME") ? getenv("HOME") : "/");
                saved = 1;
                return;
        }
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                unsetenv(names[i]);
        setenv("HOME", home, 1);
}

/* The host's git (or sh -c line when sh), with env, stdin /dev/null,
 * output discarded; its wait status. */
static int host_env(const char *dir, const char *const *envp, int sh, const char *a1,
                    const char *a2, const char *a3, const char *a4)
{
        const char *argv[10];
        size_t n = 0;
        pid_t pid;
        int st = -1;

        if (sh) {
                argv[n++] = "/bin/sh";
                argv[n++] = "-c";
        } else {
                argv[n++] = git_bin();
                argv[n++] = "-c";
                argv[n++] = "safe.directory=*";
        }
        argv[n++] = a1;
        if (a2 != NULL)
                argv[n++] = a2;
        if (a3 != NULL)
                argv[n++] = a3;
        if (a4 != NULL)
                argv[n++] = a4;
        argv[n] = NULL;
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);

                if (null >= 0) {
                        dup2(null, 0);
                        dup2(null, 1);
                        dup2(null, 2);
                }
                if (chdir(dir) < 0)
                        _exit(126);
                execve(argv[0], (char *const *) argv, (char *const *) envp);
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &st, 0), pid);
        return st;
}

/* Everything the keys make git run, in repository dir. */
static void host_triggers(const char *dir, const char *const *envp)
{
        char line[PATH_MAX + 64];

        (void) host_env(dir, envp, 0, "status", "--short", NULL, NULL);         /* fsmonitor */
        snprintf(line, sizeof(line), "echo more >> '%s/README'", dir);
        (void) host_env(dir, envp, 1, line, NULL, NULL, NULL);
        (void) host_env(dir, envp, 0, "diff", NULL, NULL, NULL);                /* diff.external */
        (void) host_env(dir, envp, 0, "add", "README", NULL, NULL);             /* filter */
        (void) host_env(dir, envp, 0, "commit", "-q", "-m", "host");            /* hooks */
        (void) host_env(dir, envp, 0, "pwn", NULL, NULL, NULL);                 /* alias */
        (void) host_env(dir, envp, 0, "ls-remote", "ssh://example.invalid/x", NULL, NULL);
        snprintf(line, sizeof(line), "printf 'protocol=https\\nhost=example.invalid\\n\\n' | "
                 "'%s' -c safe.directory='*' credential fill", git_bin());
        (void) host_env(dir, envp, 1, line, NULL, NULL, NULL);                  /* helper */
}

/* A repository at dir (README and a filter attribute committed). */
static void cfg_repo(const char *dir, const char *const *envp)
{
        char line[PATH_MAX + 64];

        assert_int_equal(host_env(dir, envp, 0, "init", "-q", ".", NULL), 0);
        snprintf(line, sizeof(line), "echo readme > README; echo 'README filter=pw' > .gitattributes");
        assert_int_equal(host_env(dir, envp, 1, line, NULL, NULL, NULL), 0);
        assert_int_equal(host_env(dir, envp, 0, "add", "README", ".gitattributes", NULL), 0);
        assert_int_equal(host_env(dir, envp, 0, "commit", "-q", "-m", "init"), 0);
}

static void append(const char *path, const char *text)
{
        FILE *fp = fopen(path, "a");

        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
}

/* The fixture for one source and form: the repositories (the workspace
 * root and a nested one), the keys where src puts them, the targets. */
static void cfg_fixture(struct fx *f, enum src src, int abs, struct cfgrun *c)
{
        char text[4 * PATH_MAX], path[PATH_MAX + 64], nested[PATH_MAX + 16];
        const char *where = NULL;
        size_t i;
        int nested_too = src != SRC_WORKTREE && src != SRC_REPO && !abs;

        empty_dir(f->ws);
        empty_dir(f->outside);
        empty_dir(f->home);
        cfg_env(f, src, c);
        assert_int_equal(mkdir(c->cfgdir, 0755), 0);
        snprintf(path, sizeof(path), "%s/empty", c->cfgdir);
        assert_int_equal(write_file(path, "", 0644), 0);
        snprintf(nested, sizeof(nested), "%s/vendor/lib", f->ws);
        cfg_repo(f->ws, c->envp);
        assert_int_equal(mkdir(P(f->ws, "vendor"), 0755), 0);
        assert_int_equal(mkdir(nested, 0755), 0);
        cfg_repo(nested, c->envp);
        cfg_text(f, abs, text, sizeof(text));
        switch (src) {
        case SRC_GLOBAL:
                where = "global";
                break;
        case SRC_HOME:
                snprintf(path, sizeof(path), "%s/.gitconfig", f->home);
                assert_int_equal(write_file(path, text, 0644), 0);
                break;
        case SRC_XDG:
                snprintf(path, sizeof(path), "%s/xdg", c->cfgdir);
                assert_int_equal(mkdir(path, 0755), 0);
                snprintf(path, sizeof(path), "%s/xdg/git", c->cfgdir);
                assert_int_equal(mkdir(path, 0755), 0);
                snprintf(path, sizeof(path), "%s/xdg/git/config", c->cfgdir);
                assert_int_equal(write_file(path, text, 0644), 0);
                break;
        case SRC_SYSTEM:
                where = "system";
                break;
        case SRC_INCLUDE:
                snprintf(path, sizeof(path), "%s/global", c->cfgdir);
                assert_int_equal(write_file(path, "[include]\n\tpath = inc/included\n", 0644), 0);
                snprintf(path, sizeof(path), "%s/inc", c->cfgdir);
                assert_int_equal(mkdir(path, 0755), 0);
                where = "inc/included";
                break;
        case SRC_INCLUDEIF: {
                char inc[3 * PATH_MAX];

                snprintf(inc, sizeof(inc), "[includeIf \"gitdir:%s/\"]\n\tpath = %s/incif\n",
                         f->ws, c->cfgdir);
                snprintf(path, sizeof(path), "%s/global", c->cfgdir);
                assert_int_equal(write_file(path, inc, 0644), 0);
                where = "incif";
                break;
        }
        case SRC_WORKTREE:
                snprintf(path, sizeof(path), "%s/.git/config", f->ws);
                append(path, "[core]\n\trepositoryformatversion = 1\n"
                             "[extensions]\n\tworktreeConfig = true\n");
                snprintf(path, sizeof(path), "%s/.git/config.worktree", f->ws);
                assert_int_equal(write_file(path, text, 0644), 0);
                break;
        case SRC_REPO:
                snprintf(path, sizeof(path), "%s/.git/config", f->ws);
                append(path, text);
                break;
        case N_SRC:
        default:
                fail();
        }
        if (where != NULL) {
                snprintf(path, sizeof(path), "%s/%s", c->cfgdir, where);
                assert_int_equal(write_file(path, text, 0644), 0);
        }
        if (src != SRC_GLOBAL && src != SRC_INCLUDE && src != SRC_INCLUDEIF) {
                snprintf(path, sizeof(path), "%s/global", c->cfgdir);
                if (!exists(path))
                        assert_int_equal(write_file(path, "", 0644), 0);
        }
        /* The targets: each program and the hooks directory, in the
         * workspace root and (relative keys from the caller's configs
         * apply to every repository) in the nested repository. */
        c->n = 0;
        for (i = 0; i < 2; i++) {
                const char *top = i == 0 ? f->ws : nested;
                size_t k;

                if (i == 1 && !nested_too)
                        break;
                for (k = 0; k <= N_PROGS; k++) {
                        if (k < N_PROGS)
                                assert_true(snprintf(c->targets[c->n], sizeof(c->targets[c->n]),
                                                     "%s/%s%s-%s.sh", top,
                                                     k == 2 ? "filters/bin/" : "", PROGS[k],
                                                     abs ? "abs" : "rel") <
                                            (int) sizeof(c->targets[c->n]));
                        else
                                snprintf(c->targets[c->n], sizeof(c->targets[c->n]),
                                         "%s/hooks.d/hk-%s", top, abs ? "abs" : "rel");
                        c->is_hooks[c->n] = k == N_PROGS;
                        c->n++;
                }
        }
}

/*
 * The attack, given every target: plant an executable script at each
 * program path and a pre-commit hook in each hooks directory, by every
 * naming call (write, rename onto, symlink, remove and recreate, replace
 * the directory, move the directory holding it away and make a new one);
 * executables made without chmod (a copy of /bin/sh, then overwritten:
 * cp creates with the source's mode).
 */
static const char CFG_ATTACK[] =
        "exec 2>/dev/null; mk() { cp /bin/sh \"$1\" 2>/dev/null; printf '#!/bin/sh\\ntouch \"%s.PWNED\"\\n' \"$2\""
        " > \"$1\" 2>/dev/null; };"
        "away() { d=$(dirname \"$1\"); case \"$d\" in \"$PWD\"/vendor|\"$PWD\"/vendor/lib) ;;"
        " \"$PWD\"/*) mv \"$d\" \"$d.away\"; mkdir -p \"$d\";; esac; };"
        "for t in \"$@\"; do away \"$t\"; away \"$(dirname \"$t\")\"; case \"$t\" in"
        " */hk-*) mkdir -p \"$t\" 2>/dev/null; mk \"$t/pre-commit\" \"$t\";"
        "   mkdir -p prep.d; mk prep.d/pre-commit \"$t\";"
        "   mv -T prep.d \"$t\" 2>/dev/null; rm -rf \"$t\" 2>/dev/null; mv prep.d \"$t\" 2>/dev/null;"
        "   ln -s \"$PWD/prep.d\" \"$t\" 2>/dev/null; rm -rf prep.d;;"
        " *) mkdir -p \"$(dirname \"$t\")\" 2>/dev/null; mk \"$t\" \"$t\";"
        "   mk prep.f \"$t\"; mv -f prep.f \"$t\" 2>/dev/null; mk prep.f \"$t\";"
        "   ln -sf \"$PWD/prep.f\" \"$t\" 2>/dev/null; ln -f prep.f \"$t\" 2>/dev/null;"
        "   rm -f \"$t\" 2>/dev/null; mk \"$t\" \"$t\"; rm -f prep.f;;"
        " esac; done; echo ok > done";

static void cfg_attack_argv(const struct cfgrun *c, const char **argv)
{
        size_t i, n = 0;

        argv[n++] = "/bin/sh";
        argv[n++] = "-c";
        argv[n++] = CFG_ATTACK;
        argv[n++] = "attack";
        for (i = 0; i < c->n; i++)
                argv[n++] = c->targets[i];
        argv[n] = NULL;
}

/* 1 if the target holds planted content or git ran it. */
static int planted(const struct cfgrun *c, size_t i)
{
        char path[PATH_MAX + 64], buf[256];
        ssize_t n;

        snprintf(path, sizeof(path), "%s.PWNED", c->targets[i]);
        if (exists(path))
                return 1;
        snprintf(path, sizeof(path), "%s%s", c->targets[i], c->is_hooks[i] ? "/pre-commit" : "");
        n = read_file(path, buf, sizeof(buf) - 1);
        if (n > 0) {
                buf[n] = '\0';
                if (strstr(buf, "PWNED") != NULL)
                        return 1;
        }
        return 0;
}

static void test_git_config_keys(void **state)
{
        struct fx *f = *state;
        struct cfgrun *c = calloc(1, sizeof(*c));
        struct res *res = calloc(1, sizeof(*res));
        const char *argv[4 + 2 * (N_PROGS + 1) + 1];
        size_t b, i;
        int src, abs, controlled[N_SRC][2] = { { 0 } };

        assert_non_null(c);
        assert_non_null(res);
        if (git_bin() == NULL) {
                cannot_test("git is not installed");
                goto out;
        }
        cfg_env_restore();      /* remembers the test's own HOME */
        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                for (src = 0; src < N_SRC; src++)
                        for (abs = 0; abs < 2; abs++) {
                                struct ro o;
                                char label[64];

                                snprintf(label, sizeof(label), "%s-%s", SRC_NAME[src],
                                         abs ? "abs" : "rel");
                                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, label);
                                cfg_fixture(f, (enum src) src, abs, c);
                                cfg_attack_argv(c, argv);
                                memset(&o, 0, sizeof(o));
                                o.cwd = f->ws;
                                run_mode(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
                                CHECK(f, exists(P(f->ws, "done")), "the attack did not finish (%s)",
                                      describe_status(res->status));
                                host_triggers(f->ws, c->envp);
                                host_triggers(P(f->ws, "vendor/lib"), c->envp);
                                for (i = 0; i < c->n; i++)
                                        CHECK(f, !planted(c, i), "%s was planted or run by the "
                                              "host's git", c->targets[i]);
                                /* Control, once per source and form: the
                                 * same attack unconfined is run by git. */
                                if (!controlled[src][abs]) {
                                        char line[PATH_MAX + 64];
                                        int st;

                                        controlled[src][abs] = 1;
                                        st = host_env(f->ws, c->envp, 0, "--version", NULL, NULL,
                                                      NULL);
                                        assert_int_equal(st, 0);
                                        {
                                                pid_t pid = fork();

                                                assert_true(pid >= 0);
                                                if (pid == 0) {
                                                        int null = open("/dev/null", O_RDWR);

                                                        dup2(null, 1);
                                                        dup2(null, 2);
                                                        if (chdir(f->ws) < 0)
                                                                _exit(126);
                                                        execve(argv[0], (char *const *) argv,
                                                               (char *const *) c->envp);
                                                        _exit(127);
                                                }
                                                assert_int_equal(waitpid(pid, &st, 0), pid);
                                        }
                                        snprintf(line, sizeof(line), "%s/vendor/lib", f->ws);
                                        host_triggers(f->ws, c->envp);
                                        host_triggers(line, c->envp);
                                        for (i = 0; i < c->n; i++)
                                                CHECK(f, planted(c, i), "control: unconfined, %s "
                                                      "was not run by the host's git (the test "
                                                      "proves nothing)", c->targets[i]);
                                }
                        }
        }
        cfg_env_restore();
out:
        free(c);
        free(res);
        fx_done(f);
}

/*
 * Links git follows inside its own directories: a hook symlinked to a
 * tracked script (`.git/hooks/pre-commit -> ../../scripts/pre-commit`, a
 * common way to share hooks) and a symlinked config.worktree.  The
 * command rewrites the scripts, moves their directory away and makes a new
 * one; the host's commit runs nothing planted.  An unconfined control
 * shows the same attack works without the sandbox.
 */
static const char LINK_ATTACK[] =
        "exec 2>/dev/null; p=\"$PWD\";"
        "printf '#!/bin/sh\\ntouch \"%s/PWNED-linked\"\\n' \"$p\" > scripts/pre-commit;"
        "printf '[core]\\n\\tfsmonitor = touch PWNED-linked-config\\n' > shared/wt-config;"
        "mv scripts scripts.away; mkdir scripts; cp /bin/sh scripts/pre-commit;"
        "printf '#!/bin/sh\\ntouch \"%s/PWNED-linked\"\\n' \"$p\" > scripts/pre-commit;"
        "mv shared shared.away; mkdir shared;"
        "printf '[core]\\n\\tfsmonitor = touch PWNED-linked-config\\n' > shared/wt-config;"
        "echo ok > done";

static void linked_fixture(struct fx *f, const char *const *envp)
{
        empty_dir(f->ws);
        cfg_repo(f->ws, envp);
        assert_int_equal(mkdir(P(f->ws, "scripts"), 0755), 0);
        assert_int_equal(copy_file("/bin/true", P(f->ws, "scripts/pre-commit"), 0755), 0);
        assert_int_equal(symlink("../../scripts/pre-commit", P(f->ws, ".git/hooks/pre-commit")), 0);
        assert_int_equal(mkdir(P(f->ws, "shared"), 0755), 0);
        assert_int_equal(write_file(P(f->ws, "shared/wt-config"), "", 0644), 0);
        append(P(f->ws, ".git/config"), "[core]\n\trepositoryformatversion = 1\n"
                                        "[extensions]\n\tworktreeConfig = true\n");
        assert_int_equal(symlink("../shared/wt-config", P(f->ws, ".git/config.worktree")), 0);
}

static void test_git_linked_hooks(void **state)
{
        struct fx *f = *state;
        const char *argv[] = { "/bin/sh", "-c", LINK_ATTACK, NULL };
        struct res *res = calloc(1, sizeof(*res));
        struct cfgrun *c = calloc(1, sizeof(*c));
        size_t b;

        assert_non_null(res);
        assert_non_null(c);
        if (git_bin() == NULL) {
                cannot_test("git is not installed");
                goto out;
        }
        cfg_env_restore();
        cfg_env(f, SRC_REPO, c);        /* no caller config: an empty one */
        for (b = 0; b < N_BACKENDS; b++) {
                struct ro o;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "linked-hooks");
                empty_dir(f->outside);
                assert_int_equal(mkdir(c->cfgdir, 0755), 0);
                assert_int_equal(write_file(P(c->cfgdir, "empty"), "", 0644), 0);
                assert_int_equal(write_file(P(c->cfgdir, "global"), "", 0644), 0);
                linked_fixture(f, c->envp);
                memset(&o, 0, sizeof(o));
                o.cwd = f->ws;
                run_mode(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
                CHECK(f, exists(P(f->ws, "done")), "the attack did not finish");
                host_triggers(f->ws, c->envp);
                CHECK(f, !exists(P(f->ws, "PWNED-linked")) &&
                         !exists(P(f->ws, "PWNED-linked-config")),
                      "the host's git ran what the command wrote behind a link in .git");
                if (b == 0) {
                        linked_fixture(f, c->envp);
                        assert_int_equal(host_run(f->ws, argv), 0);
                        host_triggers(f->ws, c->envp);
                        CHECK(f, exists(P(f->ws, "PWNED-linked")) &&
                                 exists(P(f->ws, "PWNED-linked-config")),
                              "control: unconfined, the linked hook or config did not run "
                              "(the test proves nothing)");
                }
        }
        cfg_env_restore();
out:
        free(c);
        free(res);
        fx_done(f);
}

/* ---------------------------------------- issue 20: no new repository, class 5 */

/*
 * Directories one step (or a few) from a repository git would use by
 * discovery: a committed bare fixture with HEAD and config but no
 * objects/ and refs/ (git keeps no empty directory), one with HEAD
 * missing, one with refs/ but no objects/, one completed through a
 * commondir, an empty one.  The command tries to complete each by mkdir,
 * an executable file (git only asks access(X_OK)), a symbolic link, the
 * rename of a prepared directory, hard links and a case variant.
 */
static const char *const BARE[] = { "fx-hc", "fx-noh", "fx-refs", "fx-common", "fx-new" };
#define N_BARE (sizeof(BARE) / sizeof(BARE[0]))

static const char BARE_ATTACK[] =
        "exec 2>/dev/null; mkdir -p prep/objects prep/refs/heads prep2/objects prep2/refs;"
        "echo 'ref: refs/heads/main' > prep/H; cp prep/H prep/H2; printf '[sbx]\\n\\tmarker = planted\\n' > prep/config;"
        /* HEAD and config present: objects/ and refs/ */
        "mkdir fx-hc/objects fx-hc/refs; mkdir -p fx-hc/refs/heads;"
        "ln -s ../prep/objects fx-hc/objects; mv prep2/objects fx-hc/objects;"
        "mv prep2/refs fx-hc/refs; cp /bin/sh fx-hc/objects; cp /bin/sh fx-hc/refs;"
        "mkdir fx-hc/sub; printf '[sbx]\\n\\tmarker = planted\\n' >> fx-hc/config;"
        /* HEAD missing */
        "echo 'ref: refs/heads/main' > fx-noh/HEAD; ln -s refs/heads/main fx-noh/HEAD;"
        "mv prep/H fx-noh/HEAD; ln prep/H fx-noh/HEAD; ln -s ../prep/H fx-noh/HEAD;"
        "ln fx-hc/HEAD fx-noh/HEAD; cp fx-hc/HEAD fx-noh/head 2>/dev/null;"
        "mv fx-noh/head fx-noh/HEAD;"
        /* refs/ present, objects/ missing */
        "mkdir fx-refs/objects; ln -s ../prep/objects fx-refs/objects; cp /bin/sh fx-refs/objects;"
        "mkdir -p prep3/objects; mv prep3/objects fx-refs/objects;"
        /* through a commondir */
        "echo ../common > fx-common/commondir; ln -s ../prep fx-common/commondir;"
        "mkdir -p common/objects common/refs; echo /tmp > fx-common/gitdir;"
        /* from nothing, and a prepared directory moved into place */
        "mkdir fx-new/objects fx-new/refs; echo 'ref: refs/heads/main' > fx-new/HEAD;"
        "cp -r fx-hc fx-copy; mv prep fx-moved; ln -s ../fx-hc/HEAD fx-moved/HEAD;"
        "mv -f fx-moved/H2 fx-moved/HEAD; rm -rf fx-new; mv fx-moved fx-new;"
        "echo ok > done";

static void bare_fixture(struct fx *f)
{
        char path[PATH_MAX + 64];
        size_t i;

        empty_dir(f->ws);
        for (i = 0; i < N_BARE; i++) {
                assert_int_equal(mkdir(P(f->ws, BARE[i]), 0755), 0);
                snprintf(path, sizeof(path), "%s/%s/config", f->ws, BARE[i]);
                if (strcmp(BARE[i], "fx-new") != 0)
                        assert_int_equal(write_file(path, "[core]\n\tbare = true\n"
                                                    "[sbx]\n\tmarker = fixture\n", 0644), 0);
                snprintf(path, sizeof(path), "%s/%s/HEAD", f->ws, BARE[i]);
                if (strcmp(BARE[i], "fx-noh") != 0 && strcmp(BARE[i], "fx-new") != 0)
                        assert_int_equal(write_file(path, "ref: refs/heads/main\n", 0644), 0);
        }
        assert_int_equal(mkdir(P(f->ws, "fx-noh/objects"), 0755), 0);
        assert_int_equal(mkdir(P(f->ws, "fx-noh/refs"), 0755), 0);
        assert_int_equal(mkdir(P(f->ws, "fx-refs/refs"), 0755), 0);
}

/* 1 if git, run in ws/<name> by the host, uses a repository there
 * (rev-parse finds a git dir, or the directory's config is read). */
static int bare_usable(struct fx *f, const char *name)
{
        char ceiling[PATH_MAX + 32], dir[PATH_MAX + 64];
        const char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
                               ceiling, NULL };

        snprintf(ceiling, sizeof(ceiling), "GIT_CEILING_DIRECTORIES=%s", f->base);
        snprintf(dir, sizeof(dir), "%s/%s", f->ws, name);
        if (!exists(dir))
                return 0;
        return host_env(dir, envp, 0, "rev-parse", "--git-dir", NULL, NULL) == 0 ||
               host_env(dir, envp, 0, "config", "--get", "sbx.marker", NULL) == 0;
}

static void test_git_bare_completion(void **state)
{
        struct fx *f = *state;
        const char *argv[] = { "/bin/sh", "-c", BARE_ATTACK, NULL };
        struct res *res = calloc(1, sizeof(*res));
        size_t b, i;

        assert_non_null(res);
        if (git_bin() == NULL) {
                cannot_test("git is not installed");
                goto out;
        }
        for (b = 0; b < N_BACKENDS; b++) {
                struct ro o;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "bare");
                bare_fixture(f);
                memset(&o, 0, sizeof(o));
                o.cwd = f->ws;
                run_mode(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, argv, &o, res);
                CHECK(f, exists(P(f->ws, "done")), "the attack did not finish (%s)",
                      describe_status(res->status));
                for (i = 0; i < N_BARE; i++)
                        CHECK(f, !bare_usable(f, BARE[i]), "%s became a repository the host's "
                              "git uses", BARE[i]);
                CHECK(f, !bare_usable(f, "fx-copy") && !bare_usable(f, "fx-hc/sub"),
                      "a copy or a subdirectory of the fixture is a repository");
                CHECK(f, !exists(P(f->ws, "fx-hc/objects")) && !exists(P(f->ws, "fx-hc/refs")) &&
                         !exists(P(f->ws, "fx-refs/objects")) &&
                         !exists(P(f->ws, "fx-common/commondir")) &&
                         !exists(P(f->ws, "fx-common/gitdir")) && !exists(P(f->ws, "fx-noh/HEAD")),
                      "a name that completes a repository was created");
        }
        /* Control: unconfined, the same attack makes each one usable. */
        set_label(f, BACKENDS[0], SBX_MODE_WORKSPACE_WRITE, "bare-control");
        bare_fixture(f);
        assert_int_equal(host_run(f->ws, argv), 0);
        for (i = 0; i < N_BARE; i++)
                CHECK(f, bare_usable(f, BARE[i]), "control: unconfined, %s did not become a "
                      "repository (the test proves nothing)", BARE[i]);
out:
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
                cmocka_unit_test_setup_teardown(test_git_config_keys, fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_git_bare_completion, fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_git_linked_hooks, fx_setup, fx_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
