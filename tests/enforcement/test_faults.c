/*
 * test_faults.c - fault injection (issue 21): the Nth allocation, fd,
 * clone or mkdir the library makes fails (tests/fault-shim/shim.c, linked
 * in with -Wl,--wrap), swept over one spawn per backend (native = rung 1,
 * landlock = rung 2, bwrap) and one executor run (set, executor, run,
 * close) per native rung.
 *
 * For each scenario a fault-free run first counts the calls of each kind;
 * then every point N of each kind is run with the Nth call failing (every
 * point up to 100, then a stride so that a kind has at most 130 points;
 * SBX_FAULT_FULL=1 runs them all, SBX_FAULT_KIND=alloc SBX_FAULT_N=37
 * runs that one point of each scenario, SBX_FAULT_SCENARIO="spawn bwrap"
 * only that scenario; SBX_FAULT_VERBOSE=1 prints each
 * point's error, SBX_FAULT_BACKTRACE=1 the stack of each failed call, for
 * addr2line).  Every point must end in
 *   - a clean error: an sbx_code other than SBX_OK with a message, or
 *   - a confined run that did its work: the command wrote "ok" into
 *     ws/marker, exited 0, and its write outside the workspace was
 *     refused (checked on the host: outside/leak does not exist), and so
 *     was its read of the secret in another live executor set's HOME
 *     (ws/exposed does not exist);
 * and afterwards, seen from the host:
 *   - no fd of this process more than before the point,
 *   - no child of this process more than before (zombies included), and
 *     no process anywhere whose command line holds the point's marker,
 *   - nothing left in this process's TMPDIR, the executor scratch root,
 *     the rung-2 scratch parent (/tmp/sbx-run-<uid>/sbx-run-<pid>-*) or
 *     this process's cgroup (sbx-<pid>-*), unless the point's error names
 *     what could not be removed (a cleanup failure the caller was told of);
 *   - no failure sticks: after every 10th point and the last of a kind, a
 *     fault-free run must run (issue 21 item 3);
 * a point that crashes or does not end within POINT_S seconds fails the
 * test (naming the point).  The command's own wait is bounded by the
 * spawn and run timeouts.
 *
 * Not covered: allocations inside libc and other shared libraries
 * (libseccomp's own mallocs are not failed: --wrap reaches only the
 * objects linked into this executable), and what runs between clone and
 * execve (only the arming process counts, see shim.c).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"
#include "../fault-shim/shim.h"

#define POINT_S   120           /* a point that runs longer is a hang */
#define DENSE     100           /* every point up to this one ... */
#define MAX_POINTS 130          /* ... then a stride to at most this many */
#define RUN_MS    20000         /* the command's own timeout */
#define CONTROL_EVERY 10        /* a fault-free run after every 10th point */

enum scen { SC_SPAWN, SC_EXECUTOR };

struct point {
        struct fx *f;
        enum scen  scen;
        int32_t    backend;
        int        kind;
        long       n;
        const sbx_profile *profile;
        char       marker[64];
        char       scratch[PATH_MAX];
        /* outcome */
        int        ran;         /* the command did its work */
        sbx_code   code;
        char       step[32];    /* the call that failed */
        char       msg[SBX_ERROR_SIZE];
        char       why[1024];    /* a broken point: what was wrong */
};

static char g_where[160];       /* the running point, for the watchdog */
/* Another executor set lives through each sweep (a host's other tool
 * calls): g_victim is the secret in its executor's HOME, which every
 * spawn must hide (sbx__scratch_hide). */
static char g_victim[PATH_MAX] = "/nonexistent";
static long g_seq;

static void watchdog(int sig)
{
        static const char pre[] = "\n[  HANG    ] no end within the watchdog's bound: ";
        ssize_t w;

        (void) sig;
        w = write(2, pre, sizeof(pre) - 1);
        w = write(2, g_where, strnlen(g_where, sizeof(g_where)));
        w = write(2, "\n", 1);
        (void) w;
        _exit(99);
}

/* pids whose /proc/<pid>/stat names ppid, into out (at most max); count. */
static size_t children(pid_t *out, size_t max)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        size_t n = 0;
        pid_t self = getpid();

        assert_non_null(d);
        while ((de = readdir(d)) != NULL) {
                char path[64], buf[512], *p;
                ssize_t len;
                int ppid = 0;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                if (snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name) >= (int) sizeof(path))
                        continue;
                len = read_file(path, buf, sizeof(buf));
                if (len <= 0 || (p = strrchr(buf, ')')) == NULL)
                        continue;
                if (sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == self && n < max)
                        out[n++] = (pid_t) atoi(de->d_name);
        }
        closedir(d);
        return n;
}

/* A process (not this one) whose command line holds marker: its pid, or 0. */
static pid_t marked_process(const char *marker)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        pid_t found = 0;
        size_t ml = strlen(marker);

        assert_non_null(d);
        while (found == 0 && (de = readdir(d)) != NULL) {
                char path[64], buf[4096];
                int fd;
                ssize_t len, i;

                if (de->d_name[0] < '0' || de->d_name[0] > '9' || atoi(de->d_name) == getpid())
                        continue;
                if (snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name) >= (int) sizeof(path))
                        continue;
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                len = read(fd, buf, sizeof(buf));
                close(fd);
                for (i = 0; len > 0 && i + (ssize_t) ml <= len; i++)
                        if (memcmp(buf + i, marker, ml) == 0) {
                                found = (pid_t) atoi(de->d_name);
                                break;
                        }
        }
        closedir(d);
        return found;
}

/* The names in dir, space-separated, into out ("" when empty/missing). */
static void list_dir(const char *dir, char *out, size_t size)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t len = 0;

        out[0] = '\0';
        if (d == NULL)
                return;
        while ((de = readdir(d)) != NULL) {
                int w;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                w = snprintf(out + len, size - len, "%s%s", len ? " " : "", de->d_name);
                if (w < 0 || (size_t) w >= size - len)
                        break;
                len += (size_t) w;
        }
        closedir(d);
}

/* The rung-2 scratch parent of this user (SBX__RUN_SCRATCH_FMT), and
 * this process's cgroup directory (where per-spawn cgroups are made). */
static char g_run_parent[PATH_MAX], g_cgroup[PATH_MAX];
#define SBX_RUN_PARENT g_run_parent

static void find_parents(void)
{
        char buf[PATH_MAX], *nl;

        snprintf(g_run_parent, sizeof(g_run_parent), "/tmp/sbx-run-%lu", (unsigned long) geteuid());
        g_cgroup[0] = '\0';
        if (read_file("/proc/self/cgroup", buf, sizeof(buf)) > 3 && strncmp(buf, "0::", 3) == 0) {
                if ((nl = strchr(buf, '\n')) != NULL)
                        *nl = '\0';
                if (snprintf(g_cgroup, sizeof(g_cgroup), "/sys/fs/cgroup%s", buf + 3) >=
                    (int) sizeof(g_cgroup))
                        g_cgroup[0] = '\0';
        }
}

/* The entries of dir that this process made ("sbx-run-<pid>-..." or
 * "sbx-<pid>-..."), removed after they were named in out. */
static void left_of_mine(const char *dir, char *out, size_t size)
{
        char p1[64], p2[64];
        DIR *d;
        struct dirent *de;
        size_t len = 0;

        out[0] = '\0';
        if (dir[0] == '\0' || (d = opendir(dir)) == NULL)
                return;
        snprintf(p1, sizeof(p1), "sbx-run-%d-", (int) getpid());
        snprintf(p2, sizeof(p2), "sbx-%d-", (int) getpid());
        while ((de = readdir(d)) != NULL) {
                int w;

                if (strncmp(de->d_name, p1, strlen(p1)) != 0 &&
                    strncmp(de->d_name, p2, strlen(p2)) != 0)
                        continue;
                w = snprintf(out + len, size - len, "%s%s", len ? " " : "", de->d_name);
                if (w > 0 && (size_t) w < size - len)
                        len += (size_t) w;
                if (de->d_type == DT_DIR && strncmp(dir, "/sys/", 5) == 0)
                        (void) rmdir(P(dir, de->d_name));
                else
                        rm_tree(P(dir, de->d_name));
        }
        closedir(d);
}

/* 1 if the point ended in an error that names what it left (a single
 * name): the caller was told what could not be removed. */
static int reported(const struct point *pt, const char *left)
{
        return pt->step[0] != '\0' && strchr(left, ' ') == NULL && strstr(pt->msg, left) != NULL;
}

static void failed_at(struct point *pt, const char *step, sbx_code code, const sbx_error *e)
{
        pt->code = code;
        snprintf(pt->step, sizeof(pt->step), "%s", step);
        snprintf(pt->msg, sizeof(pt->msg), "%s", e->message);
        if (e->code != (int32_t) code || e->message[0] == '\0')
                snprintf(pt->why, sizeof(pt->why), "%s returned %s but its error says code %d, "
                         "message \"%s\"", step, sbx_code_name(code), (int) e->code, e->message);
}

/* The point's command: the marker in the workspace, an attempt outside. */
static void command(struct point *pt, const char **argv)
{
        argv[0] = "/bin/sh";
        argv[1] = "-c";
        argv[2] = "echo ok > \"$1/marker\" || exit 3; (echo x > \"$2/leak\") 2>/dev/null; "
                  "if cat \"$3\" > /dev/null 2>&1; then echo x > \"$1/exposed\"; fi; exit 0";
        argv[3] = pt->marker;
        argv[4] = pt->f->ws;
        argv[5] = pt->f->outside;
        argv[6] = g_victim;
        argv[7] = NULL;
}

static int did_work(struct point *pt)
{
        char buf[16];

        return read_file(P(pt->f->ws, "marker"), buf, sizeof(buf)) == 3 && strcmp(buf, "ok\n") == 0;
}

/* The library calls of one spawn (armed by the caller). */
static void spawn_calls(struct point *pt)
{
        const char *argv[8];
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code c;
        int status = -1;

        command(pt, argv);
        if ((c = sbx_plan_compile(pt->profile, &plan, &e)) != SBX_OK) {
                failed_at(pt, "sbx_plan_compile", c, &e);
                return;
        }
        so.backend = pt->backend;
        so.envp = pt->f->envp;
        so.timeout_ms = RUN_MS;
        c = sbx_spawn(plan, argv, &so, &child, &e);
        sbx_plan_free(plan);
        if (c != SBX_OK) {
                failed_at(pt, "sbx_spawn", c, &e);
                return;
        }
        if ((c = sbx_child_report(child, &rep, &e)) != SBX_OK)
                failed_at(pt, "sbx_child_report", c, &e);
        else if (rep.enforcement != SBX_ENFORCEMENT_FULL ||
                 (rep.achieved & rep.required) != rep.required)
                snprintf(pt->why, sizeof(pt->why), "spawned with enforcement %d, required 0x%x, "
                         "achieved 0x%x", (int) rep.enforcement, (unsigned) rep.required,
                         (unsigned) rep.achieved);
        c = sbx_child_wait(child, &status, &e);
        sbx_child_free(child);
        if (c != SBX_OK) {
                if (pt->step[0] == '\0')
                        failed_at(pt, "sbx_child_wait", c, &e);
                return;
        }
        if (pt->step[0] != '\0' || pt->why[0] != '\0')
                return;
        pt->ran = status == 0;
        if (!pt->ran)
                snprintf(pt->why, sizeof(pt->why), "sbx_spawn and sbx_child_wait succeeded but "
                         "the command ended with %s", describe_status(status));
}

/* The library calls of one executor run, set to free (armed by the caller). */
static void executor_calls(struct point *pt)
{
        const char *argv[8];
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *set = NULL;
        sbx_executor *ex = NULL;
        sbx_run_options ro = SBX_RUN_OPTIONS_INIT;
        sbx_run_result r;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code c;

        command(pt, argv);
        so.scratch_root = pt->scratch;
        so.max_executors = 1;
        so.backend = pt->backend;
        if ((c = sbx_executor_set_new(pt->profile, &so, &set, &e)) != SBX_OK) {
                failed_at(pt, "sbx_executor_set_new", c, &e);
                return;
        }
        if ((c = sbx_executor_set_get(set, "faults", &ex, &e)) != SBX_OK) {
                failed_at(pt, "sbx_executor_set_get", c, &e);
                sbx_executor_set_free(set);
                return;
        }
        ro.argv = argv;
        ro.envp = pt->f->envp;
        ro.timeout_ms = RUN_MS;
        memset(&r, 0, sizeof(r));
        if ((c = sbx_executor_run(ex, &ro, &r, &e)) != SBX_OK) {
                failed_at(pt, "sbx_executor_run", c, &e);
        } else {
                pt->ran = r.exited && r.exit_code == 0 && !r.timed_out;
                if (!pt->ran)
                        snprintf(pt->why, sizeof(pt->why), "sbx_executor_run succeeded but the "
                                 "command ended with exited %d, exit %d, signal %d, timed out %d: "
                                 "%.120s", (int) r.exited, (int) r.exit_code, (int) r.signal,
                                 (int) r.timed_out, r.err != NULL ? r.err : "");
                else if (r.guarantees.enforcement != SBX_ENFORCEMENT_FULL)
                        snprintf(pt->why, sizeof(pt->why), "ran with enforcement %d",
                                 (int) r.guarantees.enforcement);
                sbx_run_result_free(&r);
        }
        if ((c = sbx_executor_set_close(set, &e)) != SBX_OK && pt->step[0] == '\0') {
                failed_at(pt, "sbx_executor_set_close", c, &e);
                pt->ran = 0;
        }
        sbx_executor_set_free(set);
}

static const char *scen_name(const struct point *pt)
{
        static char buf[64];

        snprintf(buf, sizeof(buf), "%s %s", pt->scen == SC_SPAWN ? "spawn" : "executor",
                 sbx_backend_name(pt->backend));
        return buf;
}

/* The victim set (rooted under /var/tmp, which rung 1 shows too): its
 * executor wrote the secret into its HOME, found on the host; g_victim. */
static sbx_executor_set *victim_set(struct fx *f, const sbx_profile *p)
{
        const char *argv[] = { "/bin/sh", "-c", "echo " SECRET " > \"$HOME/k\" && printf %s "
                               "\"$HOME/k\"", NULL };
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *set = NULL;
        sbx_executor *ex = NULL;
        sbx_run_options ro = SBX_RUN_OPTIONS_INIT;
        sbx_run_result r;
        sbx_error e = { 0, 0, { 0 } };
        char buf[64];

        so.scratch_root = P(f->vbase, "victim");
        so.max_executors = 1;
        memset(&r, 0, sizeof(r));
        ro.argv = argv;
        ro.envp = f->envp;
        ro.timeout_ms = RUN_MS;
        if (sbx_executor_set_new(p, &so, &set, &e) != SBX_OK ||
            sbx_executor_set_get(set, "victim", &ex, &e) != SBX_OK ||
            sbx_executor_run(ex, &ro, &r, &e) != SBX_OK) {
                sbx_executor_set_free(set);
                fail_msg("the victim set: %s", e.message);
        }
        snprintf(g_victim, sizeof(g_victim), "%.4000s", r.out != NULL ? r.out : "");
        sbx_run_result_free(&r);
        if (read_file(g_victim, buf, sizeof(buf)) <= 0 || strncmp(buf, SECRET, strlen(SECRET)) != 0) {
                sbx_executor_set_free(set);
                fail_msg("the victim's secret is not at %s on the host", g_victim);
        }
        return set;
}

/* Run one point (kind NONE: the counting run) and check what it left;
 * 1 if it was sound.  counts (if not NULL) receives the calls per kind. */
static int run_point(struct point *pt, long counts[SBX_FAULT_KINDS])
{
        struct fx *f = pt->f;
        pid_t before[64], after[64], marked;
        size_t nb, na, i, j;
        int fds, k, ok;
        char left[1024];

        pt->ran = 0;
        pt->code = SBX_OK;
        pt->step[0] = pt->msg[0] = pt->why[0] = '\0';
        snprintf(pt->marker, sizeof(pt->marker), "sbx-fault-%d-%ld", (int) getpid(), ++g_seq);
        snprintf(g_where, sizeof(g_where), "%s, %s call %ld", scen_name(pt),
                 sbx_fault_kind_name(pt->kind), pt->n);
        (void) unlink(P(f->ws, "marker"));
        nb = children(before, 64);
        fds = fx_count_fds();

        alarm(POINT_S);
        sbx_fault_arm(pt->kind, pt->n);
        if (pt->scen == SC_SPAWN)
                spawn_calls(pt);
        else
                executor_calls(pt);
        sbx_fault_disarm();
        alarm(0);
        for (k = 0; counts != NULL && k < SBX_FAULT_KINDS; k++)
                counts[k] = sbx_fault_count(k);

        if (pt->ran && !did_work(pt))
                snprintf(pt->why, sizeof(pt->why), "reported a successful run, but ws/marker "
                         "does not hold \"ok\"");
        if (exists(P(f->ws, "exposed"))) {
                snprintf(pt->why, sizeof(pt->why), "the command read another executor set's "
                         "HOME (%.400s)", g_victim);
                (void) unlink(P(f->ws, "exposed"));
        }
        if (exists(P(f->outside, "leak"))) {
                snprintf(pt->why, sizeof(pt->why), "the command wrote outside the workspace "
                         "(outside/leak exists)");
                (void) unlink(P(f->outside, "leak"));
        }
        ok = pt->why[0] == '\0';
        if (fx_count_fds() != fds) {
                print_message("[  LEAK    ] %s: %d fds before, %d after\n", g_where, fds,
                              fx_count_fds());
                ok = 0;
        }
        na = children(after, 64);
        for (i = 0; i < na; i++) {
                for (j = 0; j < nb && before[j] != after[i]; j++)
                        ;
                if (j == nb) {
                        print_message("[  LEAK    ] %s: child %d left\n", g_where, (int) after[i]);
                        (void) kill(after[i], SIGKILL);
                        (void) waitpid(after[i], NULL, __WALL);
                        ok = 0;
                }
        }
        if ((marked = marked_process(pt->marker)) != 0) {
                print_message("[  LEAK    ] %s: process %d (%s) still runs\n", g_where,
                              (int) marked, pt->marker);
                (void) kill(marked, SIGKILL);
                ok = 0;
        }
        list_dir(f->tmp, left, sizeof(left));
        if (left[0] != '\0') {
                print_message("[  LEAK    ] %s: left in TMPDIR %s: %s\n", g_where, f->tmp, left);
                empty_dir(f->tmp);
                ok = 0;
        }
        left_of_mine(SBX_RUN_PARENT, left, sizeof(left));
        if (left[0] != '\0' && !reported(pt, left)) {
                print_message("[  LEAK    ] %s: left in %s: %s\n", g_where, SBX_RUN_PARENT, left);
                ok = 0;
        }
        left_of_mine(g_cgroup, left, sizeof(left));
        if (left[0] != '\0' && !reported(pt, left)) {
                print_message("[  LEAK    ] %s: cgroups left in %s: %s\n", g_where, g_cgroup, left);
                ok = 0;
        }
        list_dir(pt->scratch, left, sizeof(left));
        if (left[0] != '\0') {
                print_message("[  LEAK    ] %s: left in the scratch root %s: %s\n", g_where,
                              pt->scratch, left);
                empty_dir(pt->scratch);
                ok = 0;
        }
        if (pt->why[0] != '\0')
                print_message("[  BROKEN  ] %s: %s%s%s%s%s\n", g_where, pt->why,
                              pt->step[0] ? " (" : "", pt->step, pt->step[0] ? ": " : "",
                              pt->step[0] ? pt->msg : "");
        if (pt->why[0] == '\0' && pt->step[0] != '\0' && pt->kind != SBX_FAULT_NONE &&
            getenv("SBX_FAULT_VERBOSE") != NULL)
                print_message("[  ERROR   ] %s: %s %s: %s\n", g_where, pt->step,
                              sbx_code_name(pt->code), pt->msg);
        return ok;
}

/* A fault-free run after the points of kind up to n: it must still run
 * (no failure sticks); 1 if it does not. */
static int control(struct point *pt, int kind, long n)
{
        struct point c = *pt;

        c.kind = SBX_FAULT_NONE;
        c.n = 0;
        if (run_point(&c, NULL) && c.ran)
                return 0;
        print_message("[  STICKY  ] %s: a fault-free run after %s points up to %ld %s: "
                      "%s %s: %s\n", scen_name(pt), sbx_fault_kind_name(kind), n,
                      c.ran ? "left something (the lines above)" : "does not run", c.step,
                      sbx_code_name(c.code), c.why[0] ? c.why : c.msg);
        return 1;
}

static void sweep(struct fx *f, enum scen scen, int32_t backend)
{
        struct point pt;
        long counts[SBX_FAULT_KINDS] = { 0 };
        const char *only = getenv("SBX_FAULT_KIND"), *only_n = getenv("SBX_FAULT_N");
        const char *only_scen = getenv("SBX_FAULT_SCENARIO");
        sbx_executor_set *victim = NULL;
        int full = getenv("SBX_FAULT_FULL") != NULL, kind, bad = 0;
        long npoints = 0, nerr = 0, nran = 0, n, stride;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p0 = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0), *p = NULL;
        sbx_error e = { 0, 0, { 0 } };

        /* bwrap runs a workspace-write profile only when the caller
         * accepts an unprotected .git (docs/git.md) */
        assert_int_equal(sbx_profile_config_get(p0, &cfg, &e), SBX_OK);
        cfg.accept_unprotected_git = backend == SBX_BACKEND_BWRAP;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        sbx_profile_free(p0);
        memset(&pt, 0, sizeof(pt));
        pt.f = f;
        pt.scen = scen;
        pt.backend = backend;
        if (only_scen != NULL && strcmp(only_scen, scen_name(&pt)) != 0)
                goto out;
        pt.profile = p;
        join(pt.scratch, f->base, "scratch");
        fx_set_tmpdir(f, f->tmp);
        if (!backend_usable(f, backend))
                goto out;

        victim = victim_set(f, p);
        /* two fault-free runs: the first warms what is made once per
         * process (detection), the second counts */
        if (!run_point(&pt, NULL) || !pt.ran || !run_point(&pt, counts) || !pt.ran) {
                sbx_profile_free(p);
                fail_msg("%s: the fault-free run failed", scen_name(&pt));
        }
        print_message("[  COUNT   ] %s: %ld allocations, %ld fds, %ld clones, %ld mkdirs\n",
                      scen_name(&pt), counts[SBX_FAULT_ALLOC], counts[SBX_FAULT_FD],
                      counts[SBX_FAULT_CLONE], counts[SBX_FAULT_MKDIR]);
        for (kind = 1; kind < SBX_FAULT_KINDS; kind++) {
                long total = counts[kind];

                if (only != NULL && sbx_fault_kind_parse(only) != kind)
                        continue;
                stride = full || total <= MAX_POINTS ? 1
                                : (total - DENSE + (MAX_POINTS - DENSE) - 1) / (MAX_POINTS - DENSE);
                for (n = 1; n <= total; n += n < DENSE ? 1 : stride) {
                        if (only_n != NULL && atol(only_n) != n)
                                continue;
                        pt.kind = kind;
                        pt.n = n;
                        if (!run_point(&pt, NULL))
                                bad++;
                        npoints++;
                        nran += pt.ran;
                        nerr += pt.step[0] != '\0';
                        if (npoints % CONTROL_EVERY == 0 || n + (n < DENSE ? 1 : stride) > total)
                                bad += control(&pt, kind, n);
                }
        }
        print_message("[  SWEPT   ] %s: %ld points: %ld clean errors, %ld confined runs, "
                      "%d broken (controls included)\n", scen_name(&pt), npoints, nerr, nran, bad);
out:
        sbx_executor_set_free(victim);
        snprintf(g_victim, sizeof(g_victim), "/nonexistent");
        sbx_profile_free(p);
        if (bad > 0)
                fail_msg("%s: %d point(s) broken; see the [  LEAK    ], [  BROKEN  ] and "
                         "[  STICKY  ] lines above", scen_name(&pt), bad);
}

static int setup(void **state)
{
        struct fx *f;

        if (fx_setup(state) != 0)
                return -1;
        f = *state;
        if (mkdir(P(f->base, "scratch"), 0700) < 0)
                return -1;
        return 0;
}

static void test_faults__spawn_native(void **state)
{
        sweep(*state, SC_SPAWN, SBX_BACKEND_NATIVE);
}

static void test_faults__spawn_landlock(void **state)
{
        sweep(*state, SC_SPAWN, SBX_BACKEND_LANDLOCK);
}

static void test_faults__spawn_bwrap(void **state)
{
        sweep(*state, SC_SPAWN, SBX_BACKEND_BWRAP);
}

static void test_faults__executor_native(void **state)
{
        sweep(*state, SC_EXECUTOR, SBX_BACKEND_NATIVE);
}

static void test_faults__executor_landlock(void **state)
{
        sweep(*state, SC_EXECUTOR, SBX_BACKEND_LANDLOCK);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_faults__spawn_native, setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_faults__spawn_landlock, setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_faults__spawn_bwrap, setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_faults__executor_native, setup, fx_teardown),
                cmocka_unit_test_setup_teardown(test_faults__executor_landlock, setup,
                                                fx_teardown),
        };
        struct sigaction sa;

        find_parents();
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = watchdog;
        (void) sigaction(SIGALRM, &sa, NULL);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
