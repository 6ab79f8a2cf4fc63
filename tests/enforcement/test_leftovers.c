/*
 * test_leftovers.c - nothing a host leaves outlives it, and cleanup that
 * cannot finish says so (issue 21, items 4, 6 and 8 for executor sets).
 * Each case works from outside, in processes of its own:
 *
 *   - a host (a forked process) holding an executor set, with a command
 *     run in it, is killed with SIGKILL: a later set on the same root (its
 *     registry entry gone too), a set on another root, and a plain spawn
 *     on every backend, each in a new process, remove its set directory
 *     and its registry entry;
 *   - a live host's set is never removed, nor a directory named by its pid
 *     and its start time; one named by its pid and another start time (a
 *     reused pid) is, and so is a dead pid's; a name with no owner, one of
 *     another pid namespace, and a link (never followed) are kept; rung 2's
 *     spawn scratch of a dead owner goes with any later spawn or set;
 *   - a command that chmod 000s directories in its TMPDIR and HOME (and a
 *     file's parent) and plants a link out: the set's close removes all of
 *     it, the link's target untouched;
 *   - a removal that fails (out of fds, deep tree) reports the real errno,
 *     and a later close tries again and removes everything;
 *   - sbx_executor_set_new out of fds names that cause, not "cannot
 *     enforce guarantees" or an internal error.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <sys/resource.h>

#include "enforcement/spawn_util.h"

/* ------------------------------------------------------------ helpers */

/* Field 22 of /proc/<pid>/stat (its start time), 0 if unknown. */
static unsigned long long start_of(pid_t pid)
{
        char path[64], buf[1024], *p;
        ssize_t n;
        int fd, i;

        snprintf(path, sizeof(path), "/proc/%ld/stat", (long) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        p = strrchr(buf, ')');
        for (i = 2; p != NULL && i < 22; i++)
                p = strchr(p + 1, ' ');
        return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

static unsigned long long pidns(void)
{
        struct stat st;

        assert_int_equal(stat("/proc/self/ns/pid", &st), 0);
        return (unsigned long long) st.st_ino;
}

/* A pid that no process has: a child that exited and was reaped. */
static pid_t dead_pid(void)
{
        pid_t pid = fork();
        int st;

        assert_true(pid >= 0);
        if (pid == 0)
                _exit(0);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(kill(pid, 0) < 0 && errno == ESRCH);
        return pid;
}

/* Wait (bounded) for pid; its exit status, or -1 (then it is killed). */
static int reap(pid_t pid)
{
        long deadline = now_ms() + WAIT_MS;
        int st;

        for (;;) {
                pid_t r = waitpid(pid, &st, WNOHANG);

                if (r == pid)
                        return st;
                if (r < 0 || now_ms() > deadline) {
                        (void) kill(pid, SIGKILL);
                        (void) waitpid(pid, &st, 0);
                        return -1;
                }
                nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
        }
}

static sbx_code set_new(struct fx *f, int32_t backend, const char *root, sbx_executor_set **s,
                        sbx_error *e)
{
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        sbx_code r;

        o.scratch_root = root;
        o.max_executors = 2;
        o.backend = backend;
        r = sbx_executor_set_new(p, &o, s, e);
        sbx_profile_free(p);
        return r;
}

/* Run script ($1 = a1) in ex; stdout and stderr into out; exit code, or
 * -1 when the run failed (message in out). */
static int ex_run(struct fx *f, sbx_executor *ex, const char *script, const char *a1, char *out,
                  size_t size)
{
        const char *argv[] = { "/bin/sh", "-c", script, "sh", a1, NULL };
        char full[4096];
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result r;
        sbx_error e = { 0, 0, { 0 } };
        int code;

        snprintf(full, sizeof(full), "exec 2>&1; %s", script);
        argv[2] = full;
        o.argv = argv;
        o.envp = f->envp;
        o.timeout_ms = WAIT_MS;
        if (sbx_executor_run(ex, &o, &r, &e) != SBX_OK) {
                snprintf(out, size, "sbx_executor_run: %s", e.message);
                return -1;
        }
        snprintf(out, size, "%s", r.out != NULL ? r.out : "");
        code = r.exited ? r.exit_code : -1;
        sbx_run_result_free(&r);
        return code;
}

/* The one sbx-set-* entry of root, into out; 0 if there is none. */
static int find_set(const char *root, char *out)
{
        DIR *d = opendir(root);
        struct dirent *de;
        int n = 0;

        if (d == NULL)
                return 0;
        while ((de = readdir(d)) != NULL)
                if (strncmp(de->d_name, "sbx-set-", 8) == 0) {
                        join(out, root, de->d_name);
                        n++;
                }
        closedir(d);
        return n == 1;
}

/* The registry entry (a link) naming dir: its path into out, 1; else 0. */
static int reg_entry_for(const char *dir, char *out)
{
        static const char *const bases[] = { "/dev/shm", "/tmp" };
        char reg[64], target[PATH_MAX];
        size_t k;

        for (k = 0; k < 2; k++) {
                DIR *d;
                struct dirent *de;

                snprintf(reg, sizeof(reg), "%s/sbx-scratch-%lu", bases[k],
                         (unsigned long) geteuid());
                if ((d = opendir(reg)) == NULL)
                        continue;
                while ((de = readdir(d)) != NULL) {
                        ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);

                        if (n <= 0)
                                continue;
                        target[n] = '\0';
                        if (strcmp(target, dir) == 0) {
                                join(out, reg, de->d_name);
                                closedir(d);
                                return 1;
                        }
                }
                closedir(d);
        }
        return 0;
}

/* A host: a forked process that makes a set on root on backend, runs a
 * command in an executor (leaving files in its TMPDIR and HOME), says
 * "ready" on *ready and waits for *ctl to close; then it closes the set
 * and exits 0. */
static pid_t start_host(struct fx *f, int32_t backend, const char *root, int *ctl)
{
        int up[2], down[2];
        char buf[8];
        pid_t pid;

        assert_int_equal(pipe2(up, O_CLOEXEC), 0);
        assert_int_equal(pipe2(down, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                sbx_executor_set *s = NULL;
                sbx_executor *ex = NULL;
                sbx_error e = { 0, 0, { 0 } };
                char out[512];

                close(up[0]);
                close(down[1]);
                alarm(120);
                if (set_new(f, backend, root, &s, &e) != SBX_OK ||
                    sbx_executor_set_get(s, "k", &ex, &e) != SBX_OK) {
                        fprintf(stderr, "host: %s\n", e.message);
                        _exit(2);
                }
                if (ex_run(f, ex, "echo t > \"$TMPDIR/f\" && mkdir \"$HOME/d\" && "
                           "echo h > \"$HOME/d/g\" && echo ok", NULL, out, sizeof(out)) != 0) {
                        fprintf(stderr, "host: run: %s\n", out);
                        _exit(3);
                }
                if (write(up[1], "ready", 5) != 5)
                        _exit(4);
                while (read(down[0], buf, sizeof(buf)) > 0)
                        ;
                _exit(sbx_executor_set_close(s, &e) == SBX_OK ? 0 : 5);
        }
        close(up[1]);
        close(down[0]);
        memset(buf, 0, sizeof(buf));
        if (read(up[0], buf, 5) != 5 || strcmp(buf, "ready") != 0) {
                close(up[0]);
                close(down[1]);
                fail_msg("the host (%s) did not start: status %d", sbx_backend_name(backend),
                         reap(pid));
        }
        close(up[0]);
        *ctl = down[1];
        return pid;
}

enum sweeper { SW_SET_SAME_ROOT, SW_SET_OTHER_ROOT, SW_SPAWN };

/* In a new process: a set on root, or a spawn of `true` on backend; exit
 * status 0 when it worked. */
static void sweep_by(struct fx *f, enum sweeper kind, int32_t backend, const char *root)
{
        pid_t pid;
        int st;

        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                sbx_error e = { 0, 0, { 0 } };

                alarm(120);
                if (kind != SW_SPAWN) {
                        sbx_executor_set *s = NULL;

                        if (set_new(f, backend, root, &s, &e) != SBX_OK ||
                            sbx_executor_set_close(s, &e) != SBX_OK) {
                                fprintf(stderr, "sweeper: %s\n", e.message);
                                _exit(2);
                        }
                        sbx_executor_set_free(s);
                } else {
                        sbx_profile *p = make_profile(f, SBX_MODE_READ_ONLY, 0);
                        const char *argv[] = { "/bin/true", NULL };
                        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
                        sbx_plan *plan = NULL;
                        sbx_child *c = NULL;
                        int ws;

                        so.backend = backend;
                        so.envp = f->envp;
                        if (sbx_plan_compile(p, &plan, &e) != SBX_OK ||
                            sbx_spawn(plan, argv, &so, &c, &e) != SBX_OK ||
                            sbx_child_wait(c, &ws, &e) != SBX_OK) {
                                fprintf(stderr, "sweeper: %s\n", e.message);
                                _exit(2);
                        }
                        sbx_child_free(c);
                        sbx_plan_free(plan);
                        sbx_profile_free(p);
                }
                _exit(0);
        }
        st = reap(pid);
        CHECK(f, st == 0, "the sweeping %s (%s) failed: status %d",
              kind == SW_SPAWN ? "spawn" : "set", sbx_backend_name(backend), st);
}

/* The executor backend to host sets on. */
static int32_t set_backend(struct fx *f)
{
        if (backend_usable(f, SBX_BACKEND_NATIVE))
                return SBX_BACKEND_NATIVE;
        assert_true(backend_usable(f, SBX_BACKEND_LANDLOCK));
        return SBX_BACKEND_LANDLOCK;
}

/* ------------------------------------------------ killed hosts' sets */

static void test_leftovers__killed_host_set_swept(void **state)
{
        static const int32_t spawners[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        struct fx *f = *state;
        int32_t hb = set_backend(f);
        char root[PATH_MAX], other[PATH_MAX], dir[PATH_MAX], link[PATH_MAX], name[32];
        size_t k, n = 2 + sizeof(spawners) / sizeof(spawners[0]);

        join(other, f->vbase, "other-root");
        for (k = 0; k < n; k++) {
                enum sweeper kind = k == 0 ? SW_SET_SAME_ROOT : k == 1 ? SW_SET_OTHER_ROOT
                                                                    : SW_SPAWN;
                int32_t sb = kind == SW_SPAWN ? spawners[k - 2] : hb;
                int ctl = -1, had_link;
                pid_t host;

                if (kind == SW_SPAWN && !backend_usable(f, sb))
                        continue;
                snprintf(name, sizeof(name), "root%zu", k);
                join(root, f->base, name);
                set_label(f, sb, SBX_MODE_NONE, kind == SW_SPAWN ? "spawn sweeps"
                                                : kind == SW_SET_SAME_ROOT
                                                    ? "set on the same root sweeps"
                                                    : "set on another root sweeps");
                host = start_host(f, hb, root, &ctl);
                assert_true(find_set(root, dir));
                had_link = reg_entry_for(dir, link);
                CHECK(f, had_link, "the host's set %s is not registered", dir);
                assert_int_equal(kill(host, SIGKILL), 0);
                (void) reap(host);
                close(ctl);
                CHECK(f, exists(dir), "the killed host's set %s went with it", dir);
                /* A host killed between its entry's removal and its
                 * directory's: only the root's own sweep finds it. */
                if (kind == SW_SET_SAME_ROOT && had_link)
                        assert_int_equal(unlink(link), 0);
                sweep_by(f, kind, sb, kind == SW_SET_OTHER_ROOT ? other : root);
                CHECK(f, !exists(dir), "%s: the killed host's set %s is left behind", f->label,
                      dir);
                CHECK(f, !reg_entry_for(dir, link), "%s: its registry entry %s is left behind",
                      f->label, link);
                rm_tree(root);
        }
        rm_tree(other);
        fx_done(f);
}

/* ------------------------------------------------ live owners are kept */

static void mkfake(struct fx *f, const char *dir)
{
        char file[PATH_MAX];

        CHECK(f, mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
        join(file, dir, "f");
        CHECK(f, write_file(file, "x", 0600) == 0, "write %s", file);
}

static void test_leftovers__live_owner_kept(void **state)
{
        static const int32_t spawners[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        struct fx *f = *state;
        int32_t hb = set_backend(f);
        char root[PATH_MAX], dir[PATH_MAX], link[PATH_MAX], victim[PATH_MAX], vfile[PATH_MAX];
        char reused[PATH_MAX], same[PATH_MAX], dead[PATH_MAX], legacy[PATH_MAX];
        char foreign[PATH_MAX], symlinked[PATH_MAX], run_base[64], name[160];
        char run_reused[PATH_MAX], run_same[PATH_MAX], run_dead[PATH_MAX];
        unsigned long long ns = pidns(), start;
        pid_t live, gone = dead_pid();
        int ctl = -1;
        size_t k;

        join(root, f->base, "root");
        live = start_host(f, hb, root, &ctl);
        assert_true(find_set(root, dir));
        assert_true(reg_entry_for(dir, link));
        start = start_of(live);
        assert_true(start != 0);
        /* Fakes beside it: the live pid with another start time (a reused
         * pid: gone), with its own (kept), a dead pid (gone), no owner
         * (kept), another pid namespace (kept), a link (kept, not followed). */
#define FAKE(buf, fmt, ...) \
        do { snprintf(name, sizeof(name), fmt, __VA_ARGS__); join(buf, root, name); } while (0)
        FAKE(reused, "sbx-set-%ld-%llu-%llu-AAAAAA", (long) live, start + 1, ns);
        FAKE(same, "sbx-set-%ld-%llu-%llu-BBBBBB", (long) live, start, ns);
        FAKE(dead, "sbx-set-%ld-%llu-%llu-CCCCCC", (long) gone, start, ns);
        FAKE(legacy, "sbx-set-%s", "DDDDDD");
        FAKE(foreign, "sbx-set-%ld-%llu-%llu-EEEEEE", (long) gone, start, ns + 1);
        FAKE(symlinked, "sbx-set-%ld-%llu-%llu-FFFFFF", (long) gone, start, ns);
        mkfake(f, reused);
        mkfake(f, same);
        mkfake(f, dead);
        mkfake(f, legacy);
        mkfake(f, foreign);
        join(victim, f->outside, "victim");
        mkfake(f, victim);
        join(vfile, victim, "f");
        CHECK(f, symlink(victim, symlinked) == 0, "symlink %s", symlinked);

        set_label(f, hb, SBX_MODE_NONE, "set on the same root");
        sweep_by(f, SW_SET_SAME_ROOT, hb, root);
        CHECK(f, exists(dir) && reg_entry_for(dir, link), "the live host's set %s was swept",
              dir);
        CHECK(f, exists(same), "a directory of the live pid and its start time was swept");
        CHECK(f, !exists(reused), "a directory of a reused pid (another start time) is left");
        CHECK(f, !exists(dead), "a directory of a dead pid is left");
        CHECK(f, exists(legacy), "a directory that names no owner was swept");
        CHECK(f, exists(foreign), "a directory of another pid namespace was swept");
        CHECK(f, access(symlinked, F_OK) == 0 && exists(vfile) && (mode_of(victim) & 07777) == 0700,
              "a link was followed or removed");

        /* Rung 2's spawn scratch: any spawn, on every backend, sweeps it. */
        snprintf(run_base, sizeof(run_base), "/tmp/sbx-run-%lu", (unsigned long) geteuid());
        (void) mkdir(run_base, 0700);
        for (k = 0; k < sizeof(spawners) / sizeof(spawners[0]); k++) {
                if (!backend_usable(f, spawners[k]))
                        continue;
                set_label(f, spawners[k], SBX_MODE_NONE, "spawn");
                snprintf(name, sizeof(name), "sbx-run-%ld-%llu-%llu-%zu", (long) live, start + 1,
                         ns, k);
                join(run_reused, run_base, name);
                snprintf(name, sizeof(name), "sbx-run-%ld-%llu-%llu-%zu", (long) live, start, ns,
                         k);
                join(run_same, run_base, name);
                snprintf(name, sizeof(name), "sbx-run-%ld-Q%zuQQQQ", (long) gone, k);
                join(run_dead, run_base, name);
                mkfake(f, run_reused);
                mkfake(f, run_same);
                mkfake(f, run_dead);
                sweep_by(f, SW_SPAWN, spawners[k], NULL);
                CHECK(f, exists(run_same), "%s: a live owner's spawn scratch was swept", f->label);
                CHECK(f, !exists(run_reused), "%s: a reused pid's spawn scratch is left",
                      f->label);
                CHECK(f, !exists(run_dead), "%s: a dead pid's spawn scratch is left", f->label);
                rm_tree(run_same);
                rm_tree(run_reused);
                rm_tree(run_dead);
        }
        CHECK(f, exists(dir), "the live host's set %s was swept by a spawn", dir);
        /* The live host closes its set itself. */
        close(ctl);
        CHECK(f, reap(live) == 0, "the live host's close failed");
        CHECK(f, !exists(dir), "the live host's close left %s", dir);
        (void) unlink(symlinked);
        rm_tree(root);
        rm_tree(victim);
        fx_done(f);
}

/* --------------------------------------------- what a command chmods */

static void test_leftovers__chmod_000_removed_on_close(void **state)
{
        struct fx *f = *state;
        char root[PATH_MAX], dir[PATH_MAX], victim[PATH_MAX], vfile[PATH_MAX], out[1024];
        size_t b;

        join(victim, f->outside, "victim");
        mkfake(f, victim);
        join(vfile, victim, "f");
        for (b = 0; b < N_BACKENDS; b++) {
                sbx_executor_set *s = NULL;
                sbx_executor *ex = NULL;
                sbx_error e = { 0, 0, { 0 } };
                char a[PATH_MAX];
                sbx_code r;
                int code;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "chmod 000");
                join(root, f->base, "croot");
                if (set_new(f, BACKENDS[b], root, &s, &e) != SBX_OK ||
                    sbx_executor_set_get(s, "k", &ex, &e) != SBX_OK)
                        fail_msg("%s: %s", f->label, e.message);
                assert_true(find_set(root, dir));
                code = ex_run(f, ex,
                              "cd \"$TMPDIR\" && mkdir -p a/b c && echo x > a/b/f && "
                              "echo y > c/g && ln -s \"$1\" l && ln -s \"$1\" a/b/l && "
                              "chmod 000 a/b && chmod 000 a && chmod 0 c/g && chmod 100 c && "
                              "mkdir \"$HOME/h\" && echo z > \"$HOME/h/f\" && "
                              "chmod 000 \"$HOME/h\" && chmod 500 \"$HOME\" && "
                              "chmod 500 \"$TMPDIR\" && echo done", victim, out, sizeof(out));
                if (code != 0 || strstr(out, "done") == NULL) {
                        /* Rung 2 refuses chmod (seccomp): nothing to undo. */
                        CHECK(f, BACKENDS[b] != SBX_BACKEND_NATIVE,
                              "%s: the command could not chmod its TMPDIR: %d %s", f->label,
                              code, out);
                        note("%s: the command cannot chmod here (%d: %s)", f->label, code, out);
                } else {
                        join(a, dir, "0/tmp/a");
                        CHECK(f, (mode_of(a) & 07777) == 0, "%s: %s has mode %o, not 000",
                              f->label, a, (unsigned) mode_of(a));
                }
                r = sbx_executor_set_close(s, &e);
                CHECK(f, r == SBX_OK, "%s: sbx_executor_set_close: %s: %s", f->label,
                      sbx_code_name(r), e.message);
                CHECK(f, !exists(dir), "%s: the set directory %s is left", f->label, dir);
                CHECK(f, exists(vfile) && (mode_of(victim) & 07777) == 0700,
                      "%s: the link's target was touched", f->label);
                sbx_executor_set_free(s);
                rm_tree(root);
        }
        rm_tree(victim);
        fx_done(f);
}

/* ------------------------------------------- a removal that fails */

static void test_leftovers__removal_failure_keeps_errno(void **state)
{
        struct fx *f = *state;
        int32_t hb = set_backend(f);
        char root[PATH_MAX], dir[PATH_MAX], out[1024];
        sbx_executor_set *s = NULL;
        sbx_executor *ex = NULL;
        sbx_error e = { 0, 0, { 0 } };
        struct rlimit old, low;
        sbx_code r;
        int fd;

        set_label(f, hb, SBX_MODE_WORKSPACE_WRITE, "out of fds");
        join(root, f->base, "eroot");
        if (set_new(f, hb, root, &s, &e) != SBX_OK || sbx_executor_set_get(s, "k", &ex, &e) != SBX_OK)
                fail_msg("%s: %s", f->label, e.message);
        assert_true(find_set(root, dir));
        /* 40 levels: more than the fds left below. */
        CHECK(f, ex_run(f, ex, "cd \"$TMPDIR\" && mkdir -p d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
                        "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d && echo done", NULL, out,
                        sizeof(out)) == 0, "%s: %s", f->label, out);
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
        low = old;
        low.rlim_cur = (rlim_t) fd + 8;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
        r = sbx_executor_set_close(s, &e);
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
        CHECK(f, r == SBX_E_IO && e.sys_errno == EMFILE &&
                 strstr(e.message, strerror(EMFILE)) != NULL,
              "%s: close out of fds: %s errno %d: %s (want SBX_E_IO, EMFILE)", f->label,
              sbx_code_name(r), (int) e.sys_errno, e.message);
        CHECK(f, exists(dir), "%s: %s is gone although close failed", f->label, dir);
        /* With fds again, a later close removes what is left. */
        r = sbx_executor_set_close(s, &e);
        CHECK(f, r == SBX_OK, "%s: the second close: %s: %s", f->label, sbx_code_name(r),
              e.message);
        CHECK(f, !exists(dir), "%s: the second close left %s", f->label, dir);
        sbx_executor_set_free(s);
        rm_tree(root);
        fx_done(f);
}

/* ---------------------------------------- set_new out of fds */

/* test_leftovers --set-new-emfile BACKEND WS ROOT: in a fresh process
 * (no backend checked yet), sbx_executor_set_new with one fd left; prints
 * the outcome, exit 0 when it names EMFILE as SBX_E_IO. */
static int set_new_emfile_main(char **argv)
{
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *s = NULL;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        struct rlimit rl;
        sbx_code r;
        int fd;

        if (sbx_backend_parse(argv[2], &o.backend, &e) != SBX_OK ||
            sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, argv[3], &p, &e) != SBX_OK) {
                printf("setup: %s\n", e.message);
                return 2;
        }
        o.scratch_root = argv[4];
        o.max_executors = 1;
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        close(fd);
        (void) getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = (rlim_t) fd + 1;
        (void) setrlimit(RLIMIT_NOFILE, &rl);
        r = sbx_executor_set_new(p, &o, &s, &e);
        printf("%s %d %s\n", sbx_code_name(r), (int) e.sys_errno, e.message);
        fflush(stdout);
        sbx_executor_set_free(s);
        sbx_profile_free(p);
        return r == SBX_E_IO && e.sys_errno == EMFILE && strstr(e.message, strerror(EMFILE)) != NULL
                       ? 0 : 1;
}

static void test_leftovers__set_new_names_the_os_cause(void **state)
{
        struct fx *f = *state;
        char root[PATH_MAX];
        size_t b;

        join(root, f->base, "nroot");
        for (b = 0; b < N_BACKENDS; b++) {
                char msg[SBX_ERROR_SIZE + 64];
                int pfd[2], st;
                pid_t pid;
                ssize_t n;

                if (!backend_usable(f, BACKENDS[b]))
                        continue;
                set_label(f, BACKENDS[b], SBX_MODE_WORKSPACE_WRITE, "set_new out of fds");
                assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
                fflush(NULL);
                pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        const char *args[] = { "test_leftovers", "--set-new-emfile",
                                               sbx_backend_name(BACKENDS[b]), f->ws, root, NULL };

                        alarm(120);
                        if (dup2(pfd[1], 1) == 1)
                                execv("/proc/self/exe", (char *const *) args);
                        _exit(127);
                }
                close(pfd[1]);
                n = read(pfd[0], msg, sizeof(msg) - 1);
                msg[n > 0 ? n : 0] = '\0';
                close(pfd[0]);
                st = reap(pid);
                CHECK(f, st == 0, "%s: sbx_executor_set_new out of fds: \"%s\" (want SBX_E_IO, "
                      "EMFILE and its text)", f->label, msg);
        }
        rm_tree(root);
        fx_done(f);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_leftovers__killed_host_set_swept, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_leftovers__live_owner_kept, fx_setup,
                                                fx_teardown),
                cmocka_unit_test_setup_teardown(test_leftovers__chmod_000_removed_on_close,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_leftovers__removal_failure_keeps_errno,
                                                fx_setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_leftovers__set_new_names_the_os_cause,
                                                fx_setup, fx_teardown),
        };

        if (argc == 5 && strcmp(argv[1], "--set-new-emfile") == 0)
                return set_new_emfile_main(argv);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
