/*
 * test_spawn_proc.c - what a command confined by sbx_spawn cannot reach
 * besides files and the network, checked from the host, for rung 1
 * (native) and rung 2 (landlock) in both modes:
 *
 *   - secrets: the caller home's secret file, the environment token, the
 *     session keyring;
 *   - file descriptors the caller did not pass (keep_fds does pass);
 *   - other processes: a sleeping sibling is invisible (rung 1), cannot
 *     be signalled, traced or have its environment read, and is still
 *     alive and untraced afterwards;
 *   - the terminal: TIOCSTI / TIOCLINUX on a pty, with and without making
 *     it the controlling tty, inject nothing;
 *   - the kernel surface: mount, unshare, bpf, io_uring, perf,
 *     userfaultfd, keyctl, raw and packet sockets fail, no capabilities;
 *   - limits: pids_max and memory_max hold, or the spawn is refused;
 *   - fail closed: an impossible backend, a missing command, a bad cwd, a
 *     kernel that refuses the namespaces or Landlock: nothing runs.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <sched.h>
#include <stddef.h>
#include <termios.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <mqueue.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static struct res *new_res(void)
{
        struct res *r = calloc(1, sizeof(*r));

        assert_non_null(r);
        return r;
}

/* Run the probe with fd 3 captured: CAP(f, b, m, res, ro, "env"). */
static void run_cap(struct fx *f, int32_t backend, int32_t mode, struct res *res,
                    const struct ro *extra, const char *a1, const char *a2, const char *a3)
{
        const char *argv[] = { f->probe, "out", "3", a1, a2, a3, NULL };
        struct ro o = extra != NULL ? *extra : (struct ro){ 0 };

        o.capture = 1;
        run_mode(f, backend, mode, argv, &o, res);
}

/* ------------------------------------------------------------ secrets */

static void test_spawn_proc__secrets_do_not_reach_the_command(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                struct res *r = new_res();
                const char *sh_env[] = { "/bin/sh", "-c", "env >&3; cat \"$HOME/secret\" >&3 2>/dev/null; "
                                         "cat \"$1/secret\" >&3 2>/dev/null; exit 0", f->home, NULL };
                char home[PATH_MAX];
                int s;

                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                assert_int_equal(symlink(P(f->home, "secret"), P(f->ws, "hsl")), 0);

                /* The environment token. */
                run_cap(f, k->backend, k->mode, r, NULL, "env", NULL, NULL);
                CHECK(f, ecode(r->status) == 0, "sbx-probe env: %s", describe_status(r->status));
                CHECK(f, strstr(r->out, SECRET) == NULL && strstr(r->out, "SBX_TEST_TOKEN") == NULL,
                      "the environment token reached the command: %s", r->out);
                CHECK(f, strstr(r->out, "PATH=/usr/bin:/bin") != NULL, "PATH did not pass: %s", r->out);
                run_mode(f, k->backend, k->mode, sh_env, &(struct ro){ .capture = 1 }, r);
                CHECK(f, strstr(r->out, SECRET) == NULL && strstr(r->out, "SBX_TEST_TOKEN") == NULL,
                      "the environment token reached sh: %s", r->out);
                CHECK(f, strstr(r->out, "home-secret") == NULL,
                      "sh read the caller home's secret: %s", r->out);

                /* The caller home's secret, by path and through a planted link. */
                s = PROBE(f, k->backend, k->mode, "read", P(f->home, "secret"));
                CHECK(f, ecode(s) != 0, "reading the caller home's secret succeeded");
                s = PROBE(f, k->backend, k->mode, "read", P(f->ws, "hsl"));
                CHECK(f, ecode(s) != 0, "reading the secret through ws/hsl succeeded");

                /* HOME: rung 1 shows the caller's path, empty; rung 2 a scratch HOME
                 * and refuses the caller's. */
                run_cap(f, k->backend, k->mode, r, NULL, "getenv", "HOME", NULL);
                snprintf(home, sizeof(home), "%.4000s", r->out);
                home[strcspn(home, "\n")] = '\0';
                CHECK(f, home[0] == '/', "HOME in the sandbox: \"%s\"", home);
                if (k->backend == SBX_BACKEND_NATIVE) {
                        run_cap(f, k->backend, k->mode, r, NULL, "ls", f->home, NULL);
                        CHECK(f, ecode(r->status) == 0 && r->outlen == 0,
                              "the caller home in rung 1 is not an empty directory (%s): \"%s\"",
                              describe_status(r->status), r->out);
                } else {
                        CHECK(f, strcmp(home, f->home) != 0, "rung 2 HOME is the caller's home %s",
                              home);
                        run_cap(f, k->backend, k->mode, r, NULL, "ls", f->home, NULL);
                        CHECK(f, ecode(r->status) != 0, "listing the caller home succeeded: \"%s\"",
                              r->out);
                }
                /* The scratch HOME (rung 2) is gone afterwards. */
                if (strcmp(home, f->home) != 0 && home[0] == '/')
                        CHECK(f, !exists(home), "the scratch HOME %s is left behind", home);

                /* The session keyring. */
                s = PROBE(f, k->backend, k->mode, "keyctl");
                CHECK(f, ecode(s) != 0, "keyctl(KEYCTL_GET_KEYRING_ID, session) succeeded");
                free(r);
        }
        fx_done(f);
}

/* ----------------------------------------------------------------- fds */

static int fd_set_parse(const char *out, int *fds, int max)
{
        int n = 0;
        const char *p = out;

        while (*p != '\0' && n < max) {
                fds[n++] = atoi(p);
                p = strchr(p, '\n');
                if (p == NULL)
                        break;
                p++;
        }
        return n;
}

static void test_spawn_proc__only_passed_fds_survive(void **state)
{
        struct fx *f = *state;
        size_t c;
        int leak, leak_hi, leak_pipe[2];
        struct stat st;
        char want[64];

        fx_populate(f);
        leak = open(P(f->outside, "victim"), O_RDONLY);         /* no O_CLOEXEC */
        assert_true(leak >= 0);
        fx_track_fd(f, leak);
        leak_hi = fcntl(leak, F_DUPFD, 77);                     /* no FD_CLOEXEC */
        assert_true(leak_hi >= 77);
        fx_track_fd(f, leak_hi);
        assert_int_equal(pipe(leak_pipe), 0);                   /* no O_CLOEXEC */
        fx_track_fd(f, leak_pipe[0]);
        fx_track_fd(f, leak_pipe[1]);
        assert_int_equal(fstat(leak, &st), 0);
        snprintf(want, sizeof(want), "%lu:%lu", (unsigned long) st.st_dev, (unsigned long) st.st_ino);

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                struct res *r = new_res();
                int fds[64], n, i, saw4 = 0;

                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);

                /* Only the capture pipe is passed (as fd 3, then moved to 1). */
                run_cap(f, k->backend, k->mode, r, NULL, "fds", NULL, NULL);
                CHECK(f, ecode(r->status) == 0 && r->outlen > 0, "sbx-probe fds: %s",
                      describe_status(r->status));
                n = fd_set_parse(r->out, fds, 64);
                for (i = 0; i < n; i++)
                        CHECK(f, fds[i] <= 2, "fd %d is open in the command (not passed; the test "
                              "holds %d, %d, %d, %d without O_CLOEXEC)", fds[i], leak, leak_hi,
                              leak_pipe[0], leak_pipe[1]);

                /* keep_fds passes one explicitly: the pipe is 3, the file 4. */
                run_cap(f, k->backend, k->mode, r, &(struct ro){ .keep = &leak, .n_keep = 1 }, "fds",
                        NULL, NULL);
                n = fd_set_parse(r->out, fds, 64);
                for (i = 0; i < n; i++) {
                        CHECK(f, fds[i] <= 2 || fds[i] == 4, "fd %d is open in the command "
                              "(only 4 was passed besides stdio)", fds[i]);
                        saw4 |= fds[i] == 4;
                }
                CHECK(f, saw4, "the kept fd is not fd 4 in the command: \"%s\"", r->out);
                run_cap(f, k->backend, k->mode, r, &(struct ro){ .keep = &leak, .n_keep = 1 },
                        "fstat", "4", NULL);
                r->out[strcspn(r->out, "\n")] = '\0';
                CHECK(f, strcmp(r->out, want) == 0, "kept fd 4 is \"%s\", expected the file %s",
                      r->out, want);
                free(r);
        }
        fx_done(f);
}

/* ----------------------------------------------------- other processes */

static pid_t start_sibling(struct fx *f)
{
        char path[64], buf[256];
        long deadline = now_ms() + 10000;
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                char *const argv[] = { "sleep", "120", NULL };
                char *const envp[] = { "SBX_TEST_TOKEN=" SECRET, "PATH=/usr/bin:/bin", NULL };

                execve("/bin/sleep", argv, envp);
                _exit(127);
        }
        fx_track_pid(f, pid);
        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int) pid);
        while (now_ms() < deadline) {
                if (read_file(path, buf, sizeof(buf)) > 0 && strcmp(buf, "sleep") == 0)
                        return pid;
                usleep(10000);
        }
        fail_msg("the sibling did not exec sleep");
        return -1;
}

static int alive_untraced(pid_t pid, char *why, size_t size)
{
        char path[64], buf[4096], *t;
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t) pid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid != 0) {
                snprintf(why, size, "the sibling changed state (code %d, status %d)", si.si_code,
                         si.si_status);
                return 0;
        }
        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        if (read_file(path, buf, sizeof(buf)) <= 0) {
                snprintf(why, size, "cannot read %s", path);
                return 0;
        }
        t = strstr(buf, "TracerPid:");
        if (t == NULL || atoi(t + 10) != 0) {
                snprintf(why, size, "the sibling is traced (%.40s)", t ? t : "?");
                return 0;
        }
        t = strstr(buf, "State:");
        if (t == NULL || (t[7] != 'S' && t[7] != 'R')) {
                snprintf(why, size, "the sibling is not sleeping (%.20s)", t ? t : "?");
                return 0;
        }
        return 1;
}

static void test_spawn_proc__other_processes_unreachable(void **state)
{
        struct fx *f = *state;
        size_t c;
        pid_t sib;
        char pid_s[32], status_path[64], environ_path[64], why[256];

        fx_populate(f);
        sib = start_sibling(f);
        snprintf(pid_s, sizeof(pid_s), "%d", (int) sib);
        snprintf(status_path, sizeof(status_path), "/proc/%d/status", (int) sib);
        snprintf(environ_path, sizeof(environ_path), "/proc/%d/environ", (int) sib);

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                int s;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                if (k->backend == SBX_BACKEND_NATIVE) {
                        s = PROBE(f, k->backend, k->mode, "read", status_path);
                        CHECK(f, ecode(s) != 0, "rung 1 sees the host pid %s in /proc", pid_s);
                }
                s = PROBE(f, k->backend, k->mode, "kill", pid_s);
                CHECK(f, ecode(s) != 0, "kill(%s, SIGTERM) succeeded", pid_s);
                CHECK(f, alive_untraced(sib, why, sizeof(why)), "after kill: %s", why);
                s = PROBE(f, k->backend, k->mode, "ptrace", pid_s);
                CHECK(f, ecode(s) != 0, "PTRACE_ATTACH %s succeeded", pid_s);
                CHECK(f, alive_untraced(sib, why, sizeof(why)), "after ptrace: %s", why);
                s = PROBE(f, k->backend, k->mode, "environ", pid_s);
                CHECK(f, ecode(s) != 0, "reading %s succeeded", environ_path);
                {
                        const char *argv[] = { "/bin/sh", "-c", "cat \"$0\" >&3 2>/dev/null; "
                                               "kill -KILL \"$1\" 2>/dev/null; exit 0",
                                               environ_path, pid_s, NULL };
                        struct res *r = new_res();

                        run_mode(f, k->backend, k->mode, argv, &(struct ro){ .capture = 1 }, r);
                        CHECK(f, strstr(r->out, SECRET) == NULL, "sh read the sibling's environment");
                        free(r);
                }
                CHECK(f, alive_untraced(sib, why, sizeof(why)), "after sh kill -KILL: %s", why);
        }
        fx_done(f);
}

/* Run argv unconfined, stdout discarded: its wait status (the controls). */
static int run_unconfined(const char *const *argv)
{
        int st, devnull;
        pid_t p = fork();

        assert_true(p >= 0);
        if (p == 0) {
                devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (devnull >= 0)
                        dup2(devnull, 1);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        assert_int_equal(waitpid(p, &st, 0), p);
        return st;
}

/*
 * Calls that act on another process by pid, process group or user: none
 * may change a host process of the same user (the agent host included).
 * Rung 1 and bwrap hide the host's processes in a pid namespace; rung 2
 * has only its seccomp filter.  Every attribute the calls set is read
 * back from the host, for the sibling and for this test process.
 */
struct proc_attrs {
        struct rlimit nofile;
        cpu_set_t     cpus;
        int           policy;
        int           nice;
        long          ioprio;
};

static void proc_attrs_get(pid_t pid, struct proc_attrs *a)
{
        memset(a, 0, sizeof(*a));
        assert_int_equal(prlimit(pid, RLIMIT_NOFILE, NULL, &a->nofile), 0);
        assert_int_equal(sched_getaffinity(pid, sizeof(a->cpus), &a->cpus), 0);
        a->policy = sched_getscheduler(pid);
        assert_true(a->policy >= 0);
        errno = 0;
        a->nice = getpriority(PRIO_PROCESS, (id_t) pid);
        assert_int_equal(errno, 0);
        a->ioprio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
        assert_true(a->ioprio >= 0);
}

static int proc_attrs_same(const struct proc_attrs *x, const struct proc_attrs *y, char *why,
                           size_t size)
{
        if (x->nofile.rlim_cur != y->nofile.rlim_cur || x->nofile.rlim_max != y->nofile.rlim_max)
                snprintf(why, size, "RLIMIT_NOFILE changed to %llu/%llu",
                         (unsigned long long) y->nofile.rlim_cur,
                         (unsigned long long) y->nofile.rlim_max);
        else if (!CPU_EQUAL(&x->cpus, &y->cpus))
                snprintf(why, size, "the CPU affinity changed");
        else if (x->policy != y->policy)
                snprintf(why, size, "the scheduling policy changed to %d", y->policy);
        else if (x->nice != y->nice)
                snprintf(why, size, "the nice value changed to %d", y->nice);
        else if (x->ioprio != y->ioprio)
                snprintf(why, size, "the I/O priority changed to 0x%lx", y->ioprio);
        else
                return 1;
        return 0;
}

static void test_spawn_proc__host_processes_keep_their_attributes(void **state)
{
        struct fx *f = *state;
        struct proc_attrs sib0, self0, now;
        char pid_s[32], pgrp_s[32], uid_s[32], why[256];
        size_t c, i;
        pid_t sib;

        fx_populate(f);
        sib = start_sibling(f);
        snprintf(pid_s, sizeof(pid_s), "%d", (int) sib);
        snprintf(pgrp_s, sizeof(pgrp_s), "%d", (int) getpgid(sib));
        snprintf(uid_s, sizeof(uid_s), "%u", (unsigned) getuid());
        proc_attrs_get(sib, &sib0);
        proc_attrs_get(getpid(), &self0);

        /* control: the same probes, unconfined, change the sibling (so the
         * check below can see a change) */
        {
                pid_t ctl = start_sibling(f);
                struct proc_attrs a0, a1;
                const char *argv[] = { f->probe, "prlimit", NULL, NULL };
                char ctl_s[32];
                int st;

                snprintf(ctl_s, sizeof(ctl_s), "%d", (int) ctl);
                argv[2] = ctl_s;
                proc_attrs_get(ctl, &a0);
                st = run_unconfined(argv);
                proc_attrs_get(ctl, &a1);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || proc_attrs_same(&a0, &a1, why, sizeof(why)))
                        fail_msg("control: an unconfined prlimit did not change the sibling");
                (void) kill(ctl, SIGKILL);
        }

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *const probes[][3] = {
                        { "prlimit", pid_s, NULL },
                        { "setaffinity", pid_s, NULL },
                        { "setscheduler", pid_s, NULL },
                        { "setattr", pid_s, NULL },
                        { "setpriority", "0", pid_s },          /* PRIO_PROCESS */
                        { "setpriority", "1", pgrp_s },         /* PRIO_PGRP */
                        { "setpriority", "2", uid_s },          /* PRIO_USER */
                        { "setpriority", "2", "0" },            /* PRIO_USER, the caller's */
                        { "ioprio", "1", pid_s },               /* IOPRIO_WHO_PROCESS */
                        { "ioprio", "2", pgrp_s },              /* IOPRIO_WHO_PGRP */
                        { "ioprio", "3", uid_s },               /* IOPRIO_WHO_USER */
                        { "ioprio", "3", "0" },
                        { "migrate", pid_s, NULL },
                        { "robust", pid_s, NULL },
                };

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
                        int s = PROBE(f, k->backend, k->mode, probes[i][0], probes[i][1],
                                      probes[i][2]);

                        /* migrate_pages of a process to the node it is on
                         * changes nothing a test can see: the call itself
                         * must fail */
                        if (strcmp(probes[i][0], "migrate") == 0 || strcmp(probes[i][0], "robust") == 0)
                                CHECK(f, ecode(s) != 0, "%s %s succeeded", probes[i][0], pid_s);
                        /* a change is reported once, against the state
                         * before this probe */
                        proc_attrs_get(sib, &now);
                        CHECK(f, proc_attrs_same(&sib0, &now, why, sizeof(why)),
                              "after %s %s %s: the host sibling's %s", probes[i][0], probes[i][1],
                              probes[i][2] ? probes[i][2] : "", why);
                        sib0 = now;
                        proc_attrs_get(getpid(), &now);
                        CHECK(f, proc_attrs_same(&self0, &now, why, sizeof(why)),
                              "after %s %s %s: this (host) process's %s", probes[i][0],
                              probes[i][1], probes[i][2] ? probes[i][2] : "", why);
                        self0 = now;
                }
                /* the command's own process is still its own to tune */
                {
                        int s = PROBE(f, k->backend, k->mode, "prlimit", "0");

                        CHECK(f, ecode(s) == 0, "prlimit on itself failed (%s)", describe_status(s));
                        s = PROBE(f, k->backend, k->mode, "setpriority", "0", "0");
                        CHECK(f, ecode(s) == 0, "setpriority on itself failed (%s)",
                              describe_status(s));
                        s = PROBE(f, k->backend, k->mode, "setaffinity", "0");
                        CHECK(f, ecode(s) == 0, "sched_setaffinity on itself failed (%s)",
                              describe_status(s));
                }
        }
        fx_done(f);
}

/*
 * System V IPC and POSIX message queues of the host: found by key or name,
 * not by path, so no Landlock rule covers them.  The host makes a shared
 * memory segment, a message queue, a semaphore and a POSIX queue; the
 * command tries to attach and overwrite, remove, post and take, and to
 * leave a segment of its own behind.  From the host: all unchanged, no new
 * segment.
 */
struct host_ipc {
        key_t  key;
        int    shm, msg, sem;
        char  *mem;
        char   mq[64];
        mqd_t  q;
};

static void host_ipc_make(struct host_ipc *h)
{
        struct mq_attr qa;

        memset(h, 0, sizeof(*h));
        memset(&qa, 0, sizeof(qa));
        qa.mq_maxmsg = 4;
        qa.mq_msgsize = 16;
        h->key = (key_t) (0x5b000000 | (getpid() & 0xffffff));
        h->shm = shmget(h->key, 4096, IPC_CREAT | IPC_EXCL | 0600);
        assert_true(h->shm >= 0);
        h->mem = shmat(h->shm, NULL, 0);
        assert_true(h->mem != (void *) -1);
        memcpy(h->mem, ORIGINAL, sizeof(ORIGINAL));
        h->msg = msgget(h->key, IPC_CREAT | IPC_EXCL | 0600);
        assert_true(h->msg >= 0);
        h->sem = semget(h->key, 1, IPC_CREAT | IPC_EXCL | 0600);
        assert_true(h->sem >= 0);
        assert_int_equal(semctl(h->sem, 0, SETVAL, 1), 0);
        snprintf(h->mq, sizeof(h->mq), "/sbx-test-%d", (int) getpid());
        h->q = mq_open(h->mq, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK, 0600, &qa);
        assert_true(h->q != (mqd_t) -1);
}

static int host_ipc_same(const struct host_ipc *h, char *why, size_t size)
{
        struct msqid_ds md;
        struct mq_attr qa;

        if (shmget(h->key, 0, 0) != h->shm)
                snprintf(why, size, "the shared memory segment is gone");
        else if (memcmp(h->mem, ORIGINAL, sizeof(ORIGINAL)) != 0)
                snprintf(why, size, "the shared memory was overwritten (\"%.8s\")", h->mem);
        else if (msgctl(h->msg, IPC_STAT, &md) != 0 || md.msg_qnum != 0)
                snprintf(why, size, "the message queue holds a message");
        else if (semctl(h->sem, 0, GETVAL) != 1)
                snprintf(why, size, "the semaphore was taken");
        else if (mq_getattr(h->q, &qa) != 0 || qa.mq_curmsgs != 0)
                snprintf(why, size, "the POSIX queue holds a message");
        else
                return 1;
        return 0;
}

static void host_ipc_free(struct host_ipc *h)
{
        (void) shmdt(h->mem);
        (void) shmctl(h->shm, IPC_RMID, NULL);
        (void) msgctl(h->msg, IPC_RMID, NULL);
        (void) semctl(h->sem, 0, IPC_RMID);
        (void) mq_close(h->q);
        (void) mq_unlink(h->mq);
}

/* Segments of this user on the host (/proc/sysvipc/shm: the uid is the
 * eighth column). */
static int host_shm_count(void)
{
        char buf[65536], *line, *save = NULL;
        ssize_t n = read_file("/proc/sysvipc/shm", buf, sizeof(buf));
        unsigned long uid;
        int count = 0;

        assert_true(n > 0);
        buf[n < (ssize_t) sizeof(buf) ? n : (ssize_t) sizeof(buf) - 1] = '\0';
        for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
                if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %lu", &uid) == 1 &&
                    uid == (unsigned long) getuid())
                        count++;
        return count;
}

static void test_spawn_proc__host_ipc_unreachable(void **state)
{
        struct fx *f = *state;
        struct host_ipc h;
        char key_s[32], why[256];
        size_t c, i;
        int before;

        fx_populate(f);
        host_ipc_make(&h);
        snprintf(key_s, sizeof(key_s), "%d", (int) h.key);
        before = host_shm_count();

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *const probes[][2] = {
                        { "shm", key_s }, { "shm-rm", key_s }, { "msg", key_s },
                        { "sem", key_s }, { "mq", h.mq }, { "shm-leave", NULL },
                };

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
                        int s = PROBE(f, k->backend, k->mode, probes[i][0], probes[i][1]);

                        if (strcmp(probes[i][0], "shm-leave") != 0)
                                CHECK(f, ecode(s) != 0, "%s %s succeeded", probes[i][0],
                                      probes[i][1]);
                        CHECK(f, host_ipc_same(&h, why, sizeof(why)), "after %s: %s", probes[i][0],
                              why);
                        CHECK(f, host_shm_count() == before,
                              "after %s: %d shared memory segments on the host, %d before",
                              probes[i][0], host_shm_count(), before);
                }
                /* rung 1 and bwrap: an IPC namespace of the command's own,
                 * where System V IPC works */
                if (k->backend != SBX_BACKEND_LANDLOCK) {
                        int s = PROBE(f, k->backend, k->mode, "shm-leave");

                        CHECK(f, ecode(s) == 0, "shmget in its own IPC namespace failed (%s)",
                              describe_status(s));
                }
        }
        /* control: unconfined, the probe reaches the segment */
        {
                const char *argv[] = { f->probe, "msg", key_s, NULL };
                int st = run_unconfined(argv), reached;

                reached = WIFEXITED(st) && WEXITSTATUS(st) == 0 && !host_ipc_same(&h, why, sizeof(why));
                host_ipc_free(&h);      /* before any failure: nothing outlives the test */
                if (!reached)
                        fail_msg("control: an unconfined msgsnd did not reach the host queue");
        }
        fx_done(f);
}

/*
 * No host kernel knob is writable, whoever the caller is (root's kuid 0 is
 * what the sysctl check trusts, dropped capabilities or not).  The probe
 * opens for writing, without writing, every file below /proc (its own
 * /proc/self included, other processes' skipped) and /sys; the class is
 * "any knob", not a list.  The unconfined control shows the walk finds
 * writable files where they exist.
 */
static void test_spawn_proc__no_kernel_knob_writable(void **state)
{
        static const char *const trees[] = { "/proc", "/sys" };
        static const struct combo combos[] = {
                { SBX_BACKEND_NATIVE, SBX_MODE_READ_ONLY },
                { SBX_BACKEND_NATIVE, SBX_MODE_WORKSPACE_WRITE },
                { SBX_BACKEND_LANDLOCK, SBX_MODE_READ_ONLY },
                { SBX_BACKEND_LANDLOCK, SBX_MODE_WORKSPACE_WRITE },
                { SBX_BACKEND_BWRAP, SBX_MODE_READ_ONLY },
                { SBX_BACKEND_BWRAP, SBX_MODE_WORKSPACE_WRITE },
        };
        struct fx *f = *state;
        struct res *r = new_res();
        char sib_dir[64];
        size_t c, t;

        snprintf(sib_dir, sizeof(sib_dir), "/proc/%d", (int) start_sibling(f));

        /* control: unconfined, /proc has files this user may open for
         * writing (root: /proc/sys; anyone: /proc/self/comm) */
        {
                const char *argv[] = { f->probe, "open-w", "/proc", "6", NULL };
                int st = run_unconfined(argv);

                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        fail_msg("control: no writable file below /proc unconfined (status 0x%x)",
                                 (unsigned) st);
        }
        for (c = 0; c < sizeof(combos) / sizeof(combos[0]); c++) {
                const struct combo *k = &combos[c];

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                for (t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
                        memset(r, 0, sizeof(*r));
                        run_cap(f, k->backend, k->mode, r, NULL, "open-w", trees[t], "6");
                        /* EACCES: the walk ran and opened nothing */
                        CHECK(f, r->spawned && ecode(r->status) == EACCES,
                              "files below %s open for writing (%s):\n%s", trees[t],
                              describe_status(r->status), r->out);
                }
                /* a host process's own knobs (oom_score_adj, ...): hidden
                 * by the pid namespace (ENOENT) or not writable (EACCES) */
                memset(r, 0, sizeof(*r));
                run_cap(f, k->backend, k->mode, r, NULL, "open-w", sib_dir, "3");
                CHECK(f, r->spawned && (ecode(r->status) == EACCES || ecode(r->status) == ENOENT),
                      "files below the host's %s open for writing (%s):\n%s", sib_dir,
                      describe_status(r->status), r->out);
        }
        free(r);
        fx_done(f);
}

/* 1 if the NUL-separated cmdline buf[0..len) has an argument equal to arg. */
static int cmdline_has(const char *buf, size_t len, const char *arg)
{
        size_t off = 0, n = strlen(arg);

        while (off < len) {
                size_t l = strnlen(buf + off, len - off);

                if (l == n && memcmp(buf + off, arg, n) == 0)
                        return 1;
                off += l + 1;
        }
        return 0;
}

/* A background process the command starts (its own session, as a daemon
 * would) after the command exited and was reaped and freed: reported, and
 * killed by pid.  Rung 1's pid namespace dies with its init.  Looked for at
 * once, without waiting for it to show: sh forks the background job before
 * it runs "exit 0", so a survivor already exists when the command has been
 * reaped, and every stage of it (the forked sh, setsid, sleep) carries the
 * tag in its arguments. */
static void test_spawn_proc__nothing_outlives_the_command(void **state)
{
        struct fx *f = *state;
        size_t c;
        int n = 0;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                char tag[32];
                const char *argv[] = { "/bin/sh", "-c", "setsid sleep \"$0\" & exit 0", tag, NULL };
                struct res *r = new_res();
                int found = 0;

                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                snprintf(tag, sizeof(tag), "%d.%d", 600 + n++, (int) getpid() % 1000);
                run_mode(f, k->backend, k->mode, argv, NULL, r);
                {
                        DIR *d = opendir("/proc");
                        struct dirent *de;

                        assert_non_null(d);
                        while ((de = readdir(d)) != NULL) {
                                char path[300], buf[4096];
                                ssize_t len;
                                int fd;

                                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                                        continue;
                                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                                fd = open(path, O_RDONLY | O_CLOEXEC);
                                if (fd < 0)
                                        continue;
                                len = read(fd, buf, sizeof(buf) - 1);
                                close(fd);
                                if (len <= 0)
                                        continue;
                                buf[len] = '\0';
                                if (cmdline_has(buf, (size_t) len, tag)) {
                                        found = 1;
                                        (void) kill((pid_t) atoi(de->d_name), SIGKILL);
                                }
                        }
                        closedir(d);
                }
                if (found)
                        note("%s: a background process the command started outlived it (and "
                             "sbx_child_free): still confined, but running after the tool call "
                             "ended", f->label);
                free(r);
        }
        fx_done(f);
}

/* ------------------------------------------------------------ terminal */

struct pty {
        int master, slave;
        char name[64];
};

/* Non-canonical with echo: an injected byte is readable on the slave at
 * once and echoed to the master. */
static void pty_raw_echo(const struct pty *p)
{
        struct termios t;

        assert_int_equal(tcgetattr(p->slave, &t), 0);
        t.c_lflag &= ~(tcflag_t) ICANON;
        t.c_lflag |= ECHO;
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        assert_int_equal(tcsetattr(p->slave, TCSANOW, &t), 0);
}

static void open_pty(struct fx *f, struct pty *p)
{
        const char *n;

        p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(p->master >= 0);
        fx_track_fd(f, p->master);
        assert_int_equal(grantpt(p->master), 0);
        assert_int_equal(unlockpt(p->master), 0);
        n = ptsname(p->master);
        assert_non_null(n);
        snprintf(p->name, sizeof(p->name), "%s", n);
        p->slave = open(p->name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(p->slave >= 0);
        fx_track_fd(f, p->slave);
        pty_raw_echo(p);
}

#define PTY_MARK '#'            /* the host's marker; the probe injects 'x' */

/* Read fd up to and including the marker (bounded by WAIT_MS); the
 * number of bytes before it. */
static ssize_t read_to_mark(int fd, const char *side)
{
        long deadline = now_ms() + WAIT_MS;
        char buf[256];
        ssize_t n = 0, r, i;

        for (;;) {
                struct pollfd pf = { fd, POLLIN, 0 };
                long left = deadline - now_ms();

                if (left <= 0)
                        fail_msg("the pty marker did not reach the %s within %d ms", side, WAIT_MS);
                if (poll(&pf, 1, (int) left) <= 0)
                        continue;
                r = read(fd, buf, sizeof(buf));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        fail_msg("reading the pty %s: %s", side, r < 0 ? strerror(errno) : "EOF");
                for (i = 0; i < r; i++) {
                        if (buf[i] == PTY_MARK)
                                return n;
                        n++;
                }
        }
}

/*
 * What reached the pty since the last look, without waiting for nothing to
 * arrive: the host types a marker into the master and reads each side up
 * to it.  TIOCSTI hands its byte to the slave's line discipline before the
 * ioctl returns, and the pty delivers the master's input and the slave's
 * echo in order, so a byte the command injected (or its echo) comes before
 * the marker, never after.  The termios are set again first in case the
 * command changed them (canonical mode would hold the marker back).
 */
static void pty_take(const struct pty *p, ssize_t *in_slave, ssize_t *in_master)
{
        const char mark = PTY_MARK;

        pty_raw_echo(p);
        assert_int_equal(write(p->master, &mark, 1), 1);
        *in_slave = read_to_mark(p->slave, "slave");
        *in_master = read_to_mark(p->master, "master (echo)");
}

/* Positive control: with the pty as its controlling tty, an unconfined
 * process can inject (root always; others while dev.tty.legacy_tiocsti
 * is 1).  Returns 1 if the injection was seen. */
static int tiocsti_control(struct pty *p)
{
        pid_t pid = fork();
        int st = 0;
        ssize_t seen, echoed;

        assert_true(pid >= 0);
        if (pid == 0) {
                char ch = 'x';

                if (setsid() < 0 || ioctl(p->slave, TIOCSCTTY, 0) < 0)
                        _exit(100);
                _exit(ioctl(p->slave, TIOCSTI, &ch) < 0 ? errno : 0);
        }
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        pty_take(p, &seen, &echoed);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 && seen > 0;
}

static void test_spawn_proc__no_terminal_injection(void **state)
{
        struct fx *f = *state;
        struct pty p;
        size_t c;

        fx_populate(f);
        open_pty(f, &p);
        if (!tiocsti_control(&p))
                cannot_test("TIOCSTI does not work even unconfined here (legacy_tiocsti off?); "
                            "the refusals below are checked without a positive control");
        /* The control made the pty some session's controlling tty; that
         * session is gone now, but start from a fresh pair anyway. */
        fx_close_fd(f, p.slave);
        fx_close_fd(f, p.master);
        open_pty(f, &p);

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                static const char *const subs[] = { "tiocsti-fd", "tioclinux-fd" };
                static const char *const cttys[] = { "noctty", "ctty" };
                size_t i, j;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                for (i = 0; i < 2; i++)
                        for (j = 0; j < 2; j++) {
                                struct res *r = new_res();
                                ssize_t in_slave, in_master;

                                run_cap(f, k->backend, k->mode, r,
                                        &(struct ro){ .keep = &p.slave, .n_keep = 1 }, subs[i], "4",
                                        cttys[j]);
                                pty_take(&p, &in_slave, &in_master);
                                CHECK(f, ecode(r->status) != 0, "%s 4 %s succeeded (%s)", subs[i],
                                      cttys[j], r->out);
                                CHECK(f, in_slave == 0 && in_master == 0,
                                      "%s %s: %zd byte(s) injected into the tty input, %zd echoed "
                                      "to the master", subs[i], cttys[j], in_slave, in_master);
                                if (ecode(r->status) != EPERM)
                                        note("%s: %s %s failed with %s, not the filter's EPERM "
                                             "(%s)", f->label, subs[i], cttys[j],
                                             describe_status(r->status), r->out);
                                free(r);
                        }
                /* By path (rung 2 sees the host's /dev/pts). */
                {
                        int s = PROBE(f, k->backend, k->mode, "tiocsti", p.name);
                        ssize_t in_slave, in_master;

                        pty_take(&p, &in_slave, &in_master);

                        CHECK(f, ecode(s) != 0, "tiocsti %s succeeded", p.name);
                        CHECK(f, in_slave == 0 && in_master == 0, "tiocsti %s: %zd byte(s) "
                              "injected", p.name, in_slave);
                }
        }
        fx_done(f);
}

/* ------------------------------------------------------ kernel surface */

static void test_spawn_proc__kernel_surface_refused(void **state)
{
        struct fx *f = *state;
        size_t c, i;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *const probes[][2] = {
                        { "mount", f->ws }, { "unshare-user", NULL }, { "unshare-net", NULL },
                        { "bpf", NULL }, { "io_uring", NULL }, { "perf", NULL },
                        { "userfaultfd", NULL }, { "keyctl", NULL }, { "raw-socket", NULL },
                        { "packet-socket", NULL },
                };
                static const char *const zero_caps[] = { "CapEff", "CapPrm", "CapInh", "CapAmb" };
                struct res *r = new_res();

                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);
                for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
                        int s = PROBE(f, k->backend, k->mode, probes[i][0], probes[i][1]);

                        CHECK(f, ecode(s) != 0 && ecode(s) != 120, "sbx-probe %s succeeded (%s)",
                              probes[i][0], describe_status(s));
                }
                run_cap(f, k->backend, k->mode, r, NULL, "capeff", NULL, NULL);
                CHECK(f, strcmp(r->out, "\t0000000000000000\n") == 0 ||
                         strcmp(r->out, "0000000000000000\n") == 0 ||
                         strstr(r->out, "0000000000000000") != NULL,
                      "sbx-probe capeff printed \"%s\"", r->out);
                for (i = 0; i < sizeof(zero_caps) / sizeof(zero_caps[0]); i++) {
                        run_cap(f, k->backend, k->mode, r, NULL, "procstatus", zero_caps[i], NULL);
                        CHECK(f, strcmp(r->out, "0000000000000000\n") == 0, "%s: \"%s\"",
                              zero_caps[i], r->out);
                }
                /* The bounding set: an unprivileged caller cannot drop it
                 * outside a user namespace (PR_CAPBSET_DROP needs CAP_SETPCAP);
                 * with no_new_privs nothing can be gained from it.  Root's
                 * must be empty. */
                run_cap(f, k->backend, k->mode, r, NULL, "procstatus", "CapBnd", NULL);
                if (geteuid() == 0 || k->backend == SBX_BACKEND_NATIVE)
                        CHECK(f, strcmp(r->out, "0000000000000000\n") == 0, "CapBnd: \"%s\"", r->out);
                else if (strcmp(r->out, "0000000000000000\n") != 0)
                        note("%s: CapBnd %.16s (unprivileged: cannot be dropped; no_new_privs holds)",
                             f->label, r->out);
                run_cap(f, k->backend, k->mode, r, NULL, "procstatus", "NoNewPrivs", NULL);
                CHECK(f, strcmp(r->out, "1\n") == 0, "NoNewPrivs: \"%s\"", r->out);
                run_cap(f, k->backend, k->mode, r, NULL, "procstatus", "Seccomp", NULL);
                CHECK(f, strcmp(r->out, "2\n") == 0, "Seccomp: \"%s\"", r->out);
                free(r);
        }
        fx_done(f);
}

/* -------------------------------------------------------------- limits */

static void test_spawn_proc__limits_hold_or_spawn_refused(void **state)
{
        struct fx *f = *state;
        size_t c;

        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                struct res *r = new_res();
                const char *fork_argv[] = { f->probe, "out", "3", "fork", "100", NULL };
                const char *big[] = { f->probe, "alloc", "1024", NULL };
                const char *small[] = { f->probe, "alloc", "16", NULL };
                struct ro pids = { .pids_max = 20, .capture = 1, .may_fail = 1 };
                struct ro mem = { .memory_max = 256u << 20, .may_fail = 1 };

                if (!backend_usable(f, k->backend)) {
                        free(r);
                        continue;
                }
                set_label(f, k->backend, k->mode, NULL);
                fx_populate(f);

                run_mode(f, k->backend, k->mode, fork_argv, &pids, r);
                if (!r->spawned) {
                        CHECK(f, r->code == SBX_E_SANDBOX_UNAVAILABLE,
                              "pids_max refused with %s (expected SBX_E_SANDBOX_UNAVAILABLE): %s",
                              sbx_code_name(r->code), r->err.message);
                        note("%s: pids_max=20 refused: %s", f->label, r->err.message);
                } else {
                        int forks = atoi(r->out);

                        note("%s: pids_max=20: %d of 100 forks succeeded, %s; report %s "
                             "resource-limits (achieved 0x%x)", f->label, forks,
                             describe_status(r->status),
                             (r->rep.achieved & SBX_G_RESOURCE_LIMITS) ? "lists" : "does NOT list",
                             (unsigned) r->rep.achieved);
                        CHECK(f, r->outlen > 0 && forks < 100, "pids_max=20 but %d of 100 forks "
                              "succeeded (uid %d)", forks, (int) geteuid());
                        CHECK(f, ecode(r->status) != 0, "fork 100 under pids_max=20: %s",
                              describe_status(r->status));
                        CHECK(f, r->rep.achieved & SBX_G_RESOURCE_LIMITS,
                              "a limit was applied but the report lacks resource-limits");
                }

                run_mode(f, k->backend, k->mode, big, &mem, r);
                if (!r->spawned) {
                        CHECK(f, r->code == SBX_E_SANDBOX_UNAVAILABLE,
                              "memory_max refused with %s: %s", sbx_code_name(r->code),
                              r->err.message);
                        note("%s: memory_max refused: %s", f->label, r->err.message);
                } else {
                        CHECK(f, ecode(r->status) != 0, "alloc 1024 MiB under memory_max=256 MiB: %s",
                              describe_status(r->status));
                        note("%s: memory_max=256MiB: alloc 1024 -> %s; report %s resource-limits",
                             f->label, describe_status(r->status),
                             (r->rep.achieved & SBX_G_RESOURCE_LIMITS) ? "lists" : "does NOT list");
                        run_mode(f, k->backend, k->mode, small, &mem, r);
                        CHECK(f, r->spawned && ecode(r->status) == 0,
                              "alloc 16 MiB under memory_max=256 MiB: %s", describe_status(r->status));
                }
                /* Without limits the report does not claim any. */
                run_mode(f, k->backend, k->mode, small, NULL, r);
                CHECK(f, !(r->rep.achieved & SBX_G_RESOURCE_LIMITS),
                      "no limits requested but the report lists resource-limits");
                free(r);
        }
        fx_done(f);
}

/* --------------------------------------------------------- fail closed */

static int dir_is_empty(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *de;
        int empty = 1;

        if (d == NULL)
                return 1;
        while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        empty = 0;
        closedir(d);
        return empty;
}

#if defined(__x86_64__)
#  define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#  define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef NATIVE_AUDIT_ARCH
/* In a forked helper: a kernel that refuses user namespaces (clone and
 * unshare with CLONE_NEWUSER: EPERM; clone3: ENOSYS) and has no Landlock
 * (landlock_create_ruleset: ENOSYS). */
static int jail_helper(void)
{
        struct sock_filter prog[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog fp = { (unsigned short) (sizeof(prog) / sizeof(prog[0])), prog };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -1;
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp);
}
#endif

static void test_spawn_proc__fails_closed(void **state)
{
        struct fx *f = *state;
        size_t b;

        fx_populate(f);
        fx_set_tmpdir(f, f->tmp);

        /* A backend that can enforce nothing is refused. */
        {
                struct res *r = new_res();
                const char *argv[] = { f->probe, "write", P(f->ws, "marker-unavailable"), NULL };
                sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);

                set_label(f, SBX_BACKEND_UNAVAILABLE, SBX_MODE_WORKSPACE_WRITE, NULL);
                run_profile(f, SBX_BACKEND_UNAVAILABLE, p, argv, &(struct ro){ .may_fail = 1 }, r);
                CHECK(f, !r->spawned && r->code == SBX_E_SANDBOX_UNAVAILABLE,
                      "the unavailable backend: %s %s", sbx_code_name(r->code), r->err.message);
                CHECK(f, !exists(P(f->ws, "marker-unavailable")), "the command ran");
                sbx_profile_free(p);
                free(r);
        }

        for (b = 0; b < N_BACKENDS; b++) {
                int32_t be = BACKENDS[b];
                sbx_profile *p;
                sbx_plan *plan = NULL;
                uint32_t achieved = 0;
                int32_t enf = -1;
                sbx_error e = { 0, 0, { 0 } };
                struct res *r;

                if (!backend_usable(f, be))
                        continue;
                set_label(f, be, SBX_MODE_WORKSPACE_WRITE, NULL);
                r = new_res();
                p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);

                /* The backend claims every required guarantee for the plan. */
                assert_int_equal(sbx_plan_compile(p, &plan, &e), SBX_OK);
                assert_int_equal(sbx_backend_guarantees(be, plan, &achieved, &enf, &e), SBX_OK);
                CHECK(f, enf == SBX_ENFORCEMENT_FULL, "sbx_backend_guarantees: enforcement %d "
                      "(achieved 0x%x)", (int) enf, (unsigned) achieved);
                sbx_plan_free(plan);

                /* A command that does not exist: an error, nothing runs, no scratch. */
                {
                        const char *a1[] = { "/nonexistent/sbx-no-such-command", NULL };
                        const char *a2[] = { "sbx-no-such-command", NULL };

                        run_profile(f, be, p, a1, &(struct ro){ .may_fail = 1 }, r);
                        CHECK(f, !r->spawned && r->code != SBX_OK, "a nonexistent absolute command "
                              "spawned (%s)", describe_status(r->status));
                        note("%s: nonexistent command: %s: %s", f->label, sbx_code_name(r->code),
                             r->err.message);
                        run_profile(f, be, p, a2, &(struct ro){ .may_fail = 1 }, r);
                        CHECK(f, !r->spawned && r->code == SBX_E_NOT_FOUND,
                              "a command not in PATH: %s %s", sbx_code_name(r->code), r->err.message);
                        CHECK(f, dir_is_empty(f->tmp), "a failed spawn left scratch in TMPDIR %s",
                              f->tmp);
                }

                /* A working directory that does not exist: the step fails, the
                 * command (which would write a marker) does not run. */
                {
                        const char *argv[] = { f->probe, "write", P(f->ws, "marker-cwd"), NULL };

                        run_profile(f, be, p, argv,
                                    &(struct ro){ .may_fail = 1, .cwd = P(f->ws, "no-such-dir") }, r);
                        CHECK(f, !r->spawned && r->code != SBX_OK, "a spawn into a missing cwd "
                              "succeeded (%s)", describe_status(r->status));
                        CHECK(f, !exists(P(f->ws, "marker-cwd")), "the command ran despite the "
                              "failed step");
                        CHECK(f, dir_is_empty(f->tmp), "a failed spawn left scratch in TMPDIR");
                        note("%s: missing cwd: %s: %s", f->label, sbx_code_name(r->code),
                             r->err.message);
                }

#ifdef NATIVE_AUDIT_ARCH
                /* A kernel without user namespaces and Landlock (a seccomp
                 * jail around a helper process): the spawn is refused and the
                 * marker is never written. */
                {
                        int pfd[2];
                        pid_t pid;
                        int32_t res_code[2] = { -1, -1 };
                        char marker[PATH_MAX];
                        long deadline = now_ms() + WAIT_MS;
                        int st = 0;

                        snprintf(marker, sizeof(marker), "%s", P(f->ws, "marker-jail"));
                        assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
                        pid = fork();
                        assert_true(pid >= 0);
                        if (pid == 0) {
                                sbx_plan *pl = NULL;
                                sbx_child *ch = NULL;
                                sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
                                const char *argv[] = { f->probe, "write", marker, NULL };
                                int32_t out[2];

                                close(pfd[0]);
                                out[0] = jail_helper();
                                so.backend = be;
                                so.envp = f->envp;
                                out[1] = sbx_plan_compile(p, &pl, NULL);
                                if (out[1] == SBX_OK && out[0] == 0) {
                                        out[1] = sbx_spawn(pl, argv, &so, &ch, NULL);
                                        if (out[1] == SBX_OK) {
                                                (void) sbx_child_wait(ch, NULL, NULL);
                                                sbx_child_free(ch);
                                        }
                                }
                                (void) !write(pfd[1], out, sizeof(out));
                                _exit(0);
                        }
                        close(pfd[1]);
                        while (now_ms() < deadline) {
                                if (waitpid(pid, &st, WNOHANG) == pid)
                                        break;
                                usleep(10000);
                        }
                        if (now_ms() >= deadline) {
                                (void) kill(pid, SIGKILL);
                                (void) waitpid(pid, &st, 0);
                        }
                        if (read(pfd[0], res_code, sizeof(res_code)) != (ssize_t) sizeof(res_code))
                                res_code[0] = res_code[1] = -1;
                        close(pfd[0]);
                        if (res_code[0] != 0) {
                                cannot_test("could not install the helper's seccomp jail");
                        } else {
                                CHECK(f, res_code[1] != SBX_OK, "without user namespaces and Landlock "
                                      "the %s backend still spawned", sbx_backend_name(be));
                                CHECK(f, res_code[1] == SBX_E_SANDBOX_UNAVAILABLE,
                                      "jailed spawn: %s (expected SBX_E_SANDBOX_UNAVAILABLE)",
                                      sbx_code_name(res_code[1]));
                                CHECK(f, !exists(marker), "the command ran without its sandbox");
                                note("%s: without userns/Landlock: %s", f->label,
                                     sbx_code_name(res_code[1]));
                        }
                        CHECK(f, dir_is_empty(f->tmp), "the jailed spawn left scratch in TMPDIR");
                }
#else
                cannot_test("the seccomp jail helper knows no audit arch for this CPU");
#endif
                sbx_profile_free(p);
                free(r);
        }
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_spawn_proc__secrets_do_not_reach_the_command),
                T(test_spawn_proc__only_passed_fds_survive),
                T(test_spawn_proc__other_processes_unreachable),
                T(test_spawn_proc__host_processes_keep_their_attributes),
                T(test_spawn_proc__host_ipc_unreachable),
                T(test_spawn_proc__no_kernel_knob_writable),
                T(test_spawn_proc__no_terminal_injection),
                T(test_spawn_proc__nothing_outlives_the_command),
                T(test_spawn_proc__kernel_surface_refused),
                T(test_spawn_proc__limits_hold_or_spawn_refused),
                T(test_spawn_proc__fails_closed),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
