/*
 * test_scratch.c - every sandbox's scratch is invisible to every other
 * sandbox of the same user, and rung 2 does not expose the host's /tmp
 * (docs/backends.md "Scratch and /tmp", docs/executors.md).  Each case
 * attacks from inside and checks from the host, on every backend that
 * runs here (native, landlock, bwrap; executors on native and landlock):
 *
 *   - a host owner-only file in /tmp (a Kerberos ticket cache) and a
 *     host directory there cannot be read or listed, nor /tmp itself, and
 *     nothing can be created in the host's /tmp;
 *   - the spawn's own TMPDIR and HOME work (write, read, mkdir, list), and
 *     a workspace under /tmp works (create, mkdir, read, list);
 *   - a second sandbox running beside a first cannot read, list or write
 *     the first's scratch HOME and TMPDIR (every pair of backends; the
 *     first is still running when the second attacks), even when the
 *     second's profile reads the host's /tmp;
 *   - an executor's HOME and TMPDIR cannot be read, listed or written by
 *     another executor of its set, by an executor of another set on the
 *     same scratch root, by one of a set on another root, or by a plain
 *     spawn or Confine argv on any backend; with the set's root below /tmp,
 *     outside it (/var/tmp), in the workspace and in the caller's HOME, and
 *     with the attacker's zygote started before the victim's set existed;
 *   - closing a set leaves no entry of it in the user's scratch registry.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "enforcement/spawn_util.h"

static const int32_t ALL[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK, SBX_BACKEND_BWRAP };
#define N_ALL (sizeof(ALL) / sizeof(ALL[0]))

/* sh -c script, output (stdout and stderr) captured; the exit code. */
static int sh(struct fx *f, int32_t backend, int32_t mode, const char *script, const char *a1,
              const char *a2, struct res *res)
{
        const char *argv[] = { "/bin/sh", "-c", script, "sh", a1, a2, NULL };
        char full[8192];

        if (snprintf(full, sizeof(full), "exec >&3 2>&1; %s", script) >= (int) sizeof(full))
                fail_msg("script too long");
        argv[2] = full;
        if (a1 == NULL)
                argv[4] = NULL;
        run_mode(f, backend, mode, argv, &(struct ro){ .capture = 1 }, res);
        return ecode(res->status);
}

/* A profile edit: the host's /tmp itself a readable root, a plan that
 * exposes /tmp (sandbox-run --allow-read /tmp). */
static void with_tmp_root(sbx_profile_config *cfg, const void *arg)
{
        static sbx_root_access root;
        static char tmp_real[PATH_MAX];

        (void) arg;
        assert_non_null(realpath("/tmp", tmp_real));
        root = (sbx_root_access){ tmp_real, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        cfg->additional_roots = &root;
        cfg->n_additional_roots = 1;
}

static int sh_tmp_root(struct fx *f, int32_t backend, const char *script, const char *a1,
                       const char *a2, struct res *res)
{
        const char *argv[] = { "/bin/sh", "-c", script, "sh", a1, a2, NULL };
        sbx_profile *p = profile_edit(f, SBX_MODE_WORKSPACE_WRITE, 0, with_tmp_root, NULL);
        char full[8192];

        if (snprintf(full, sizeof(full), "exec >&3 2>&1; %s", script) >= (int) sizeof(full))
                fail_msg("script too long");
        argv[2] = full;
        run_profile(f, backend, p, argv, &(struct ro){ .capture = 1 }, res);
        sbx_profile_free(p);
        return ecode(res->status);
}

/* ------------------------------------------------------------ host /tmp */

static void test_scratch__host_tmp_hidden(void **state)
{
        static const int32_t modes[] = { SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE };
        struct fx *f = *state;
        char cache[PATH_MAX], dir[PATH_MAX], inner[PATH_MAX + 8], made[PATH_MAX];
        char script[4 * PATH_MAX], made_d[PATH_MAX + 4];
        struct res *res = calloc(1, sizeof(*res));
        size_t b, m;

        assert_non_null(res);
        fx_populate(f);
        /* What a user keeps in /tmp: an owner-only ticket cache, a
         * private directory (an agent's socket directory, say). */
        snprintf(cache, sizeof(cache), "/tmp/krb5cc_sbxtest_%ld", (long) getpid());
        snprintf(dir, sizeof(dir), "/tmp/sbxtest-private-%ld", (long) getpid());
        snprintf(inner, sizeof(inner), "%s/inner", dir);
        snprintf(made, sizeof(made), "/tmp/sbxtest-made-%ld", (long) getpid());
        snprintf(made_d, sizeof(made_d), "%s.d", made);
        assert_int_equal(write_file(cache, SECRET "\n", 0600), 0);
        rm_tree(dir);
        assert_int_equal(mkdir(dir, 0700), 0);
        assert_int_equal(write_file(inner, SECRET "\n", 0600), 0);
        snprintf(script, sizeof(script),
                 "cat \"$1\"; cat \"$2/inner\"; ls -a /tmp; ls -a \"$2\"; find /tmp -maxdepth 2; "
                 "echo x > '%s'; mkdir '%s.d'", made, made);
        for (b = 0; b < N_ALL; b++) {
                if (!backend_usable(f, ALL[b]))
                        continue;
                for (m = 0; m < 2; m++) {
                        set_label(f, ALL[b], modes[m], "host /tmp");
                        (void) unlink(made);
                        (void) sh(f, ALL[b], modes[m], script, cache, dir, res);
                        CHECK(f, strstr(res->out, SECRET) == NULL,
                              "read the host's /tmp: %s", res->out);
                        CHECK(f, !has_line(res->out, strrchr(cache, '/') + 1) &&
                                 !has_line(res->out, strrchr(dir, '/') + 1) &&
                                 !has_line(res->out, cache) && !has_line(res->out, dir) &&
                                 !has_line(res->out, "inner") && !has_line(res->out, inner),
                              "listed the host's /tmp: %s", res->out);
                        CHECK(f, !exists(made) && !exists(made_d),
                              "created %s in the host's /tmp", made);
                }
        }
        (void) unlink(made);
        (void) rmdir(made_d);
        (void) unlink(cache);
        rm_tree(dir);
        free(res);
        fx_done(f);
}

/* --------------------------------------------- own scratch, workspace */

static void test_scratch__own_tmpdir_and_tmp_workspace_work(void **state)
{
        struct fx *f = *state;
        struct res *res = calloc(1, sizeof(*res));
        char tmp_real[PATH_MAX], buf[64];
        size_t b;

        assert_non_null(res);
        fx_populate(f);
        /* The fixture's workspace is below the host's /tmp. */
        assert_non_null(realpath("/tmp", tmp_real));
        assert_int_equal(strncmp(f->ws, tmp_real, strlen(tmp_real)), 0);
        for (b = 0; b < N_ALL; b++) {
                int rc;

                if (!backend_usable(f, ALL[b]))
                        continue;
                set_label(f, ALL[b], SBX_MODE_WORKSPACE_WRITE, "own scratch");
                (void) unlink(P(f->ws, "made"));
                rm_tree(P(f->ws, "newdir"));
                rc = sh(f, ALL[b], SBX_MODE_WORKSPACE_WRITE,
                        "set -e; cd \"$TMPDIR\"; echo t1 > f; mkdir d; echo t2 > d/g; "
                        "cat f d/g; ls; echo h1 > \"$HOME/hf\"; mkdir \"$HOME/hd\"; "
                        "cat \"$HOME/hf\"; ls \"$HOME\"; cd \"$1\"; echo w1 > made; mkdir newdir; "
                        "echo w2 > newdir/x; cat made newdir/x file; ls; echo DONE",
                        f->ws, NULL, res);
                CHECK(f, rc == 0 && strstr(res->out, "DONE") != NULL,
                      "the own TMPDIR/HOME or the workspace under /tmp did not work: exit %d: %s",
                      rc, res->out);
                CHECK(f, strstr(res->out, "t1\nt2\n") != NULL && strstr(res->out, "h1\n") != NULL,
                      "TMPDIR/HOME contents not read back: %s", res->out);
                memset(buf, 0, sizeof(buf));
                CHECK(f, read_file(P(f->ws, "made"), buf, sizeof(buf)) > 0 &&
                         strcmp(buf, "w1\n") == 0, "the workspace file is not on the host");
                memset(buf, 0, sizeof(buf));
                CHECK(f, read_file(P(f->ws, "newdir/x"), buf, sizeof(buf)) > 0 &&
                         strcmp(buf, "w2\n") == 0, "the workspace subdirectory is not on the host");
        }
        (void) unlink(P(f->ws, "made"));
        rm_tree(P(f->ws, "newdir"));
        free(res);
        fx_done(f);
}

/* ------------------------------------------- two sandboxes side by side */

/* The victim: writes the secret to its HOME and TMPDIR, says where in
 * ws/<tag> (HOME then TMPDIR), then waits for EOF on stdin. */
static sbx_child *start_victim(struct fx *f, int32_t backend, const char *paths, int *stdin_w)
{
        char script[PATH_MAX + 256];
        const char *argv[] = { "/bin/sh", "-c", script, NULL };
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0), *q = NULL;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        int in[2], sn;

        assert_int_equal(sbx_profile_config_get(p, &cfg, &e), SBX_OK);
        cfg.accept_unprotected_git = backend == SBX_BACKEND_BWRAP;
        assert_int_equal(sbx_profile_new(&cfg, &q, &e), SBX_OK);
        assert_int_equal(sbx_plan_compile(q, &plan, &e), SBX_OK);
        sn = snprintf(script, sizeof(script),
                 "echo " SECRET " > \"$HOME/k\"; echo " SECRET " > \"$TMPDIR/k\"; cd \"$TMPDIR\"; "
                 "printf '%%s\\n%%s\\n' \"$HOME\" \"$TMPDIR\" > '%s.part' && mv '%s.part' '%s'; "
                 "cat > /dev/null", paths, paths, paths);

        assert_true(sn > 0 && (size_t) sn < sizeof(script));
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        so.backend = backend;
        so.envp = f->envp;
        so.stdin_fd = in[0];
        if (sbx_spawn(plan, argv, &so, &child, &e) != SBX_OK)
                fail_msg("%s: the victim did not start: %s", f->label, e.message);
        close(in[0]);
        *stdin_w = in[1];
        sbx_plan_free(plan);
        sbx_profile_free(q);
        sbx_profile_free(p);
        return child;
}

/* Wait (bounded, on the child's exit or the file's appearance) for the
 * victim's paths; 0 with home and tmp filled, -1 if it ended first. */
static int victim_paths(sbx_child *child, const char *paths, char *home, char *tmp)
{
        char buf[2 * PATH_MAX + 4], *nl;
        long deadline = now_ms() + WAIT_MS;
        int pidfd = pidfd_for(sbx_child_pid(child));

        while (now_ms() < deadline) {
                struct pollfd pf = { pidfd, POLLIN, 0 };

                memset(buf, 0, sizeof(buf));
                if (read_file(paths, buf, sizeof(buf) - 1) > 0 &&
                    (nl = strchr(buf, '\n')) != NULL && strchr(nl + 1, '\n') != NULL) {
                        *nl = '\0';
                        snprintf(home, PATH_MAX, "%.4000s", buf);
                        *strchr(nl + 1, '\n') = '\0';
                        snprintf(tmp, PATH_MAX, "%.4000s", nl + 1);
                        close(pidfd);
                        return 0;
                }
                if (pidfd >= 0 && poll(&pf, 1, 10) > 0)
                        break;          /* it ended without saying */
        }
        close(pidfd);
        return -1;
}

/* The attack on a scratch pair: read, list (the directories and their
 * parents), write, read through /proc (a victim's cwd is its TMPDIR).  The
 * output must not hold the secret; the host checks
 * the write. */
#define ATTACK                                                                                   \
        "cat \"$1/k\" \"$2/k\"; ls -a \"$1\" \"$2\" \"${1%/*}\" \"${2%/*}\" \"${1%/*/*}\"; "      \
        "find \"${1%/*}\" \"${2%/*}\" -maxdepth 3; echo pwn > \"$2/pwn\"; echo pwn > \"$1/pwn\"; " \
        "mkdir \"$2/pwnd\"; cat /proc/[0-9]*/cwd/k /proc/[0-9]*/root\"$2/k\" 2>/dev/null; "      \
        "cat \"$1/g/.git/config\" \"$1/h/k\"; true"

static void check_untouched(struct fx *f, const char *home, const char *tmp, const char *who,
                            const struct res *res)
{
        CHECK(f, strstr(res->out, SECRET) == NULL, "%s read another sandbox's scratch: %s", who,
              res->out);
        CHECK(f, !exists(P(tmp, "pwn")) && !exists(P(home, "pwn")) && !exists(P(tmp, "pwnd")),
              "%s wrote into another sandbox's scratch %s", who, tmp);
}

static void test_scratch__side_by_side_spawns(void **state)
{
        struct fx *f = *state;
        struct res *res = calloc(1, sizeof(*res));
        size_t v, a;

        assert_non_null(res);
        fx_populate(f);
        for (v = 0; v < N_ALL; v++) {
                char paths[PATH_MAX + 16], home[PATH_MAX], tmp[PATH_MAX], buf[64];
                sbx_child *victim;
                sbx_error e = { 0, 0, { 0 } };
                int in_w = -1, st = -1, on_host;

                if (!backend_usable(f, ALL[v]))
                        continue;
                set_label(f, ALL[v], SBX_MODE_WORKSPACE_WRITE, "victim");
                snprintf(paths, sizeof(paths), "%s/victim-%zu", f->ws, v);
                victim = start_victim(f, ALL[v], paths, &in_w);
                if (victim_paths(victim, paths, home, tmp) < 0) {
                        CHECK(f, 0, "the victim did not report its scratch");
                        close(in_w);
                        (void) sbx_child_wait(victim, &st, &e);
                        sbx_child_free(victim);
                        continue;
                }
                /* Rung 2's scratch is on the host: the target is real.
                 * Rung 1's and bwrap's are private tmpfs of the victim. */
                memset(buf, 0, sizeof(buf));
                on_host = read_file(P(tmp, "k"), buf, sizeof(buf)) > 0 &&
                          strstr(buf, SECRET) != NULL;
                if (ALL[v] == SBX_BACKEND_LANDLOCK)
                        CHECK(f, on_host, "the landlock victim's TMPDIR %s is not on the host", tmp);
                for (a = 0; a < N_ALL; a++) {
                        char who[96];

                        if (!backend_usable(f, ALL[a]))
                                continue;
                        set_label(f, ALL[a], SBX_MODE_WORKSPACE_WRITE, "beside a running one");
                        snprintf(who, sizeof(who), "a %s spawn beside a %s one",
                                 sbx_backend_name(ALL[a]), sbx_backend_name(ALL[v]));
                        (void) sh(f, ALL[a], SBX_MODE_WORKSPACE_WRITE, ATTACK, home, tmp, res);
                        check_untouched(f, home, tmp, who, res);
                        /* ... and one whose profile reads the host's /tmp */
                        snprintf(who, sizeof(who), "a %s spawn reading /tmp beside a %s one",
                                 sbx_backend_name(ALL[a]), sbx_backend_name(ALL[v]));
                        (void) sh_tmp_root(f, ALL[a], ATTACK "; ls -a /tmp; echo RAN", home, tmp,
                                           res);
                        CHECK(f, strstr(res->out, "RAN") != NULL, "%s did not run", who);
                        check_untouched(f, home, tmp, who, res);
                }
                /* The victim was running all along. */
                {
                        int done = 1;

                        CHECK(f, sbx_child_try_wait(victim, &done, &st, &e) == SBX_OK && !done,
                              "the victim was not running beside the attacks: %s", e.message);
                }
                close(in_w);
                CHECK(f, sbx_child_wait(victim, &st, &e) == SBX_OK && ecode(st) == 0,
                      "the victim ended with %s", describe_status(st));
                sbx_child_free(victim);
                (void) unlink(paths);
        }
        free(res);
        fx_done(f);
}

/* ------------------------------------------------------------ executors */

static sbx_executor_set *new_set(struct fx *f, const sbx_profile *p, int32_t backend,
                                 const char *root)
{
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *s = NULL;
        sbx_error e = { 0, 0, { 0 } };

        o.scratch_root = root;
        o.max_executors = 4;
        o.backend = backend;
        if (sbx_executor_set_new(p, &o, &s, &e) != SBX_OK)
                fail_msg("%s: sbx_executor_set_new(%s): %s", f->label, root, e.message);
        return s;
}

static sbx_executor *get(sbx_executor_set *s, const char *key)
{
        sbx_executor *ex = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_executor_set_get(s, key, &ex, &e) != SBX_OK)
                fail_msg("sbx_executor_set_get(%s): %s", key, e.message);
        return ex;
}

/* Run script with $1 $2 set; stdout and stderr joined into out. */
static int ex_run(struct fx *f, sbx_executor *ex, const char *script, const char *a1,
                  const char *a2, char *out, size_t size)
{
        const char *argv[] = { "/bin/sh", "-c", script, "sh", a1, a2, NULL };
        char full[8192];
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result r;
        sbx_error e = { 0, 0, { 0 } };
        int code;

        snprintf(full, sizeof(full), "exec 2>&1; %s", script);
        argv[2] = full;
        if (a1 == NULL)
                argv[4] = NULL;
        o.argv = argv;
        o.envp = f->envp;
        o.timeout_ms = WAIT_MS;
        if (sbx_executor_run(ex, &o, &r, &e) != SBX_OK)
                fail_msg("%s: sbx_executor_run: %s", f->label, e.message);
        snprintf(out, size, "%s", r.out != NULL ? r.out : "");
        code = r.exit_code;
        sbx_run_result_free(&r);
        return code;
}

/* A Confine argv (sbx_confine_profile: the stage-2 runner for native and
 * landlock, a bwrap command line for bwrap), run as a host would run it:
 * script with $1 $2; stdout and stderr into out.  The backend is forced in
 * a new process (detection is once per process): this binary again, as
 * confine_main. */
static void confined(struct fx *f, int32_t backend, const char *script, const char *a1,
                     const char *a2, char *out, size_t size)
{
        char full[8192];
        size_t len = 0;
        long deadline = now_ms() + WAIT_MS;
        int pfd[2], st = -1;
        pid_t pid;

        snprintf(full, sizeof(full), "exec 2>&1; %s", script);
        assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                const char *self[] = { "test_scratch", "--confine", sbx_backend_name(backend),
                                       f->ws, full, a1, a2, NULL };

                (void) dup2(pfd[1], 1);
                (void) dup2(pfd[1], 2);
                execv("/proc/self/exe", (char *const *) self);
                _exit(127);
        }
        fx_track_pid(f, pid);
        close(pfd[1]);
        for (;;) {
                struct pollfd pf = { pfd[0], POLLIN, 0 };
                long left = deadline - now_ms();
                ssize_t n;

                if (left <= 0 || poll(&pf, 1, (int) left) <= 0)
                        break;
                n = read(pfd[0], out + len, size - 1 - len);
                if (n <= 0 || len + (size_t) n >= size - 1) {
                        if (n > 0)
                                len += (size_t) n;
                        break;
                }
                len += (size_t) n;
        }
        out[len] = '\0';
        close(pfd[0]);
        (void) kill(pid, SIGKILL);              /* a no-op when it is done */
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        for (len = 0; len < MAX_PIDS; len++)
                if (f->pids[len] == pid)
                        f->pids[len] = -1;
}

/* The user's registry entries that point at dir. */
static int registered(const char *dir)
{
        static const char *const bases[] = { "/dev/shm", "/tmp" };
        char reg[64], link[PATH_MAX];
        size_t k;
        int n = 0;

        for (k = 0; k < 2; k++) {
                struct dirent *de;
                DIR *d;

                snprintf(reg, sizeof(reg), "%s/sbx-scratch-%lu", bases[k],
                         (unsigned long) geteuid());
                if ((d = opendir(reg)) == NULL)
                        continue;
                while ((de = readdir(d)) != NULL) {
                        ssize_t len = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);

                        if (len <= 0)
                                continue;
                        link[len] = '\0';
                        if (strncmp(link, dir, strlen(dir)) == 0)
                                n++;
                }
                closedir(d);
        }
        return n;
}

static void executors_apart(struct fx *f, int32_t backend, const char *root, const char *root2)
{
        static const char *const names[] = { "another executor of its set",
                                             "an executor of another set on its root",
                                             "an executor of a set on another root" };
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        sbx_executor_set *s1, *s2, *s3;
        sbx_executor *a, *att[3];
        struct res *res = calloc(1, sizeof(*res));
        char out[16384], home[PATH_MAX], tmp[PATH_MAX], *nl;
        size_t i;

        assert_non_null(res);
        /* The attacker on the other root runs first: its zygote holds a
         * plan made before the victim's set existed. */
        s3 = new_set(f, p, backend, root2);
        att[2] = get(s3, "d");
        CHECK(f, ex_run(f, att[2], "echo warm", NULL, NULL, out, sizeof(out)) == 0,
              "a first run failed: %s", out);
        s1 = new_set(f, p, backend, root);
        s2 = new_set(f, p, backend, root);
        a = get(s1, "a");
        att[0] = get(s1, "b");
        att[1] = get(s2, "c");
        CHECK(f, ex_run(f, a, "echo " SECRET " > \"$HOME/k\"; echo " SECRET " > \"$TMPDIR/k\"; "
                        "printf '%s\\n%s\\n' \"$HOME\" \"$TMPDIR\"", NULL, NULL, out,
                        sizeof(out)) == 0, "the victim's run failed: %s", out);
        nl = strchr(out, '\n');
        assert_non_null(nl);
        *nl = '\0';
        nl[1 + strcspn(nl + 1, "\n")] = '\0';
        snprintf(home, sizeof(home), "%.4000s", out);
        snprintf(tmp, sizeof(tmp), "%.4000s", nl + 1);
        /* The target is real: the secret is on the host, below the root. */
        CHECK(f, strncmp(tmp, root, strlen(root)) == 0 && read_file(P(tmp, "k"), out, 64) > 0,
              "the victim's TMPDIR %s is not below %s on the host", tmp, root);
        CHECK(f, registered(root) == 2, "the two sets on %s are not registered", root);
        /* A repository and a HEAD-holding directory in the victim's HOME
         * (a clone, say): another sandbox's git discovery, walking a
         * workspace that holds the root, must not protect (bind) them. */
        assert_int_equal(mkdir(P(home, "g"), 0700), 0);
        assert_int_equal(mkdir(P(home, "g/.git"), 0700), 0);
        assert_int_equal(write_file(P(home, "g/.git/config"), SECRET "\n", 0600), 0);
        assert_int_equal(write_file(P(home, "g/.git/HEAD"), "ref: refs/heads/main\n", 0600), 0);
        assert_int_equal(mkdir(P(home, "h"), 0700), 0);
        assert_int_equal(write_file(P(home, "h/HEAD"), "ref: refs/heads/main\n", 0600), 0);
        assert_int_equal(write_file(P(home, "h/k"), SECRET "\n", 0600), 0);
        for (i = 0; i < 3; i++) {
                (void) ex_run(f, att[i], ATTACK, home, tmp, out, sizeof(out));
                snprintf(res->out, sizeof(res->out), "%s", out);
                check_untouched(f, home, tmp, names[i], res);
        }
        /* Plain spawns (sandbox-run's), on every backend. */
        for (i = 0; i < N_ALL; i++) {
                char who[64];

                if (!backend_usable(f, ALL[i]))
                        continue;
                snprintf(who, sizeof(who), "a plain %s spawn", sbx_backend_name(ALL[i]));
                (void) sh(f, ALL[i], SBX_MODE_WORKSPACE_WRITE, ATTACK, home, tmp, res);
                check_untouched(f, home, tmp, who, res);
        }
        /* A Confine argv, on every backend. */
        for (i = 0; i < N_ALL; i++) {
                char who[64];

                if (!backend_usable(f, ALL[i]))
                        continue;
                snprintf(who, sizeof(who), "a %s Confine argv", sbx_backend_name(ALL[i]));
                confined(f, ALL[i], ATTACK " ; echo RAN", home, tmp, res->out, sizeof(res->out));
                CHECK(f, strstr(res->out, "RAN") != NULL, "%s did not run: %s", who, res->out);
                check_untouched(f, home, tmp, who, res);
        }
        /* The victim still has its own. */
        CHECK(f, ex_run(f, a, "cat \"$HOME/k\" \"$TMPDIR/k\"", NULL, NULL, out, sizeof(out)) == 0 &&
                 strstr(out, SECRET) != NULL, "the victim lost its own scratch: %s", out);
        sbx_executor_set_free(s1);
        sbx_executor_set_free(s2);
        sbx_executor_set_free(s3);
        CHECK(f, registered(root) == 0 && registered(root2) == 0,
              "closed sets are still registered");
        sbx_profile_free(p);
        free(res);
}

static void test_scratch__executors_apart(void **state)
{
        struct fx *f = *state;
        char in_tmp[PATH_MAX], outside[PATH_MAX], in_ws[PATH_MAX], in_home[PATH_MAX];
        size_t b;

        fx_populate(f);
        /* Roots below /tmp and outside it (/var/tmp); each victim's
         * attackers include a set on the other one. */
        join(in_tmp, f->base, "sroot");
        join(outside, f->vbase, "sroot");
        join(in_ws, f->ws, ".sroot");
        join(in_home, f->home, ".cache-sroot");
        for (b = 0; b < N_BACKENDS; b++) {
                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "root below /tmp");
                executors_apart(f, BACKENDS[b], in_tmp, outside);
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "root outside /tmp");
                executors_apart(f, BACKENDS[b], outside, in_tmp);
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "root in the workspace");
                executors_apart(f, BACKENDS[b], in_ws, outside);
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "root in the HOME");
                executors_apart(f, BACKENDS[b], in_home, in_ws);
                rm_tree(in_tmp);
                rm_tree(outside);
                rm_tree(in_ws);
                rm_tree(in_home);
        }
        fx_done(f);
}

/* test_scratch --confine BACKEND WS SCRIPT A1 A2: Confine sh -c SCRIPT for
 * a workspace-write profile of WS under BACKEND and exec the argv. */
static int confine_main(char **argv)
{
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL, *q = NULL;
        sbx_confined_argv *c = NULL;
        sbx_error e = { 0, 0, { 0 } };
        const char *cmd[] = { "/bin/sh", "-c", argv[4], "sh", argv[5], argv[6], NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
        size_t n;

        if (sbx_backend_parse(argv[2], &lc.backend, &e) != SBX_OK ||
            sbx_local_config_set(&lc, &e) != SBX_OK ||
            sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, argv[3], &p, &e) != SBX_OK ||
            sbx_profile_config_get(p, &cfg, &e) != SBX_OK)
                goto fail;
        /* bwrap's argv has no seccomp program: on a host with a vsock
         * transport its Confine cannot promise network-deny (and says so). */
        cfg.accept_unprotected_git = lc.backend == SBX_BACKEND_BWRAP;
        if (lc.backend == SBX_BACKEND_BWRAP)
                cfg.network = SBX_ACCESS_ALLOW;
        if (sbx_profile_new(&cfg, &q, &e) != SBX_OK || sbx_confine_profile(cmd, q, &c, &e) != SBX_OK)
                goto fail;
        if (chdir(argv[3]) == 0)
                execve(sbx_confined_argv_argv(c, &n)[0],
                       (char *const *) sbx_confined_argv_argv(c, &n), (char *const *) envp);
fail:
        printf("CONFINE FAILED: %s\n", e.message);
        return 127;
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_scratch__host_tmp_hidden, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_scratch__own_tmpdir_and_tmp_workspace_work,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_scratch__side_by_side_spawns, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_scratch__executors_apart, fx_setup,
                                                fx_teardown),
        };

        if (argc == 7 && strcmp(argv[1], "--confine") == 0)
                return confine_main(argv);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
