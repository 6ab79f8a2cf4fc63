/*
 * spawn.c - the native Linux enforcement ladder.
 *
 *   rung 1 ("native"):  user + mount + pid + ipc + uts (+ net unless the
 *                       network is allowed) namespaces, a read-only view of
 *                       the host with the writable roots bound read-write,
 *                       protected paths and carve-outs re-mounted, fresh
 *                       /proc, minimal /dev, private /tmp and /dev/shm, an
 *                       empty scratch HOME; then Landlock and seccomp on top.
 *   rung 2 ("landlock"): Landlock + seccomp + no_new_privs on the host view,
 *                       with host scratch HOME/TMPDIR directories.
 *
 * Everything is prepared in the parent: strings, the mount operation list,
 * the Landlock ruleset fd, the seccomp program, argv, envp, the resolved
 * executable.  After clone/fork the child only runs async-signal-safe code
 * (raw syscalls on prepared data, no malloc, no stdio, no locks) and reports
 * a failing step as (step, errno, index) on an O_CLOEXEC pipe before
 * _exit(127).  EOF on that pipe means execve succeeded.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/capability.h>

#include "backend.h"
#include "linux/linux_internal.h"
#include "profile/profile_internal.h"

extern char **environ;

/* systemd-resolved's stub resolv.conf lives here; /etc/resolv.conf often
 * links to it. */
#define SBX__RESOLVER_DIR "/run/systemd/resolve"

#ifndef MOUNT_ATTR_RDONLY
#  define MOUNT_ATTR_RDONLY 0x00000001
#  define MOUNT_ATTR_NOSUID 0x00000002
#  define MOUNT_ATTR_NODEV  0x00000004
#  define MOUNT_ATTR_NOEXEC 0x00000008
#endif
#ifndef AT_RECURSIVE
#  define AT_RECURSIVE 0x8000
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#  define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct sbx__mount_attr {
        uint64_t attr_set;
        uint64_t attr_clr;
        uint64_t propagation;
        uint64_t userns_fd;
};

/* ------------------------------------------------------------- steps */

enum step {
        STEP_NONE = 0,
        STEP_SETGROUPS, STEP_UID_MAP, STEP_GID_MAP, STEP_MAKE_PRIVATE, STEP_BASE_TMPFS,
        STEP_BASE_DIRS, STEP_PIVOT_BASE, STEP_MOUNT_OP, STEP_PIVOT_ROOT, STEP_CHDIR,
        STEP_LOOPBACK, STEP_SETSID, STEP_PDEATHSIG, STEP_SYNC, STEP_FDS, STEP_RLIMIT,
        STEP_CAPS, STEP_LANDLOCK_ADD, STEP_LANDLOCK, STEP_SECCOMP, STEP_EXEC, STEP_FORK,
};

static const char *const step_names[] = {
        [STEP_NONE] = "unknown step",
        [STEP_SETGROUPS] = "writing /proc/self/setgroups",
        [STEP_UID_MAP] = "writing the user namespace uid_map",
        [STEP_GID_MAP] = "writing the user namespace gid_map",
        [STEP_MAKE_PRIVATE] = "making the mount tree private",
        [STEP_BASE_TMPFS] = "mounting the staging tmpfs",
        [STEP_BASE_DIRS] = "creating the staging directories",
        [STEP_PIVOT_BASE] = "pivoting into the staging root",
        [STEP_MOUNT_OP] = "building the sandbox mount tree",
        [STEP_PIVOT_ROOT] = "pivoting into the sandbox root",
        [STEP_CHDIR] = "changing to the working directory",
        [STEP_LOOPBACK] = "bringing up loopback in the network namespace",
        [STEP_SETSID] = "starting a new session (setsid)",
        [STEP_PDEATHSIG] = "setting PR_SET_PDEATHSIG",
        [STEP_SYNC] = "waiting for the parent",
        [STEP_FDS] = "arranging file descriptors",
        [STEP_RLIMIT] = "setting resource limits",
        [STEP_CAPS] = "dropping capabilities",
        [STEP_LANDLOCK_ADD] = "adding Landlock rules for the scratch mounts",
        [STEP_LANDLOCK] = "applying Landlock (landlock_restrict_self)",
        [STEP_SECCOMP] = "loading the seccomp filter",
        [STEP_EXEC] = "executing the command",
        [STEP_FORK] = "starting the sandbox process",
};

const char *sbx__step_name(int step)
{
        return step > 0 && step < (int) SBX__ARRAY_SIZE(step_names) ? step_names[step] : NULL;
}

struct child_report {
        int32_t step;
        int32_t err;
        int32_t index;
};

/* ---------------------------------------------------- mount operations */

enum op_kind {
        OP_TMPFS,       /* tmpfs on dst (data = options), flags */
        OP_BIND,        /* bind src on dst, recursive */
        OP_SETATTR,     /* mount_setattr(dst, AT_RECURSIVE, attr) */
        OP_MKDIRS,      /* mkdir -p dst */
        OP_MKFILE,      /* create an empty file dst (parents must exist) */
        OP_SYMLINK,     /* symlink src -> dst */
        OP_PROC,        /* proc on dst */
        OP_DEVPTS,      /* devpts (newinstance) on dst */
        OP_LL_TREE,     /* Landlock: allow `attr` (SBX__FS_*) below dst */
};

struct mop {
        int           kind;
        int           optional;         /* ENOENT is not an error */
        const char   *src;
        const char   *dst;
        const char   *data;
        unsigned long flags;
        uint64_t      attr;
};

/* Everything the child needs, prepared by the parent. */
struct prep {
        int            rung;            /* 1 or 2 */
        int            newns;           /* clone flags for rung 1 */
        int            net_ns;          /* 1 if CLONE_NEWNET */
        char           uid_map[64];
        char           gid_map[64];
        struct mop    *ops;
        size_t         n_ops, cap_ops;
        char         **strs;            /* every string the ops point to */
        size_t         n_strs, cap_strs;
        const char    *cwd;
        char          *exec_path;
        char *const   *argv;
        char         **envp;
        int            ruleset_fd;
        struct sbx__bpf bpf;
        int            keep[64];
        size_t         n_keep;
        struct rlimit  rl_nproc, rl_as;
        int            set_nproc, set_as;
        int            err_w, sync_r;
        int            fail_step;       /* test-only fault injection (sbx__fault_inject) */
        const struct sbx_plan *plan;    /* parent only: the plan being prepared */
        int            cap_last;        /* highest capability the kernel knows (libcap) */
        uint64_t       memory_max;      /* parent only: sizes the scratch tmpfs mounts */
        int            monitor;         /* rung 2: a subreaper monitor runs the command */
        pid_t          parent_pid;
        uint32_t       achieved;
};

static char *prep_str(struct prep *p, const char *a, const char *b)
{
        size_t la = strlen(a), lb = b != NULL ? strlen(b) : 0;
        char *s;

        if (p->n_strs == p->cap_strs) {
                size_t cap = p->cap_strs ? p->cap_strs * 2 : 64;
                char **v = realloc(p->strs, cap * sizeof(*v));

                if (v == NULL)
                        return NULL;
                p->strs = v;
                p->cap_strs = cap;
        }
        s = malloc(la + lb + 1);
        if (s == NULL)
                return NULL;
        memcpy(s, a, la);
        if (lb > 0)
                memcpy(s + la, b, lb);
        s[la + lb] = '\0';
        p->strs[p->n_strs++] = s;
        return s;
}

/* "/newroot" + p, with "/" mapping to "/newroot". */
static const char *nr(struct prep *p, const char *path)
{
        return prep_str(p, "/newroot", strcmp(path, "/") == 0 ? NULL : path);
}

static const char *orr(struct prep *p, const char *path)
{
        return prep_str(p, "/oldroot", strcmp(path, "/") == 0 ? NULL : path);
}

/* 1 if path lies strictly below directory dir (component-aware). */
static int under(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        if (n == 1 && dir[0] == '/')
                return path[0] == '/' && path[1] != '\0';
        return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static int add_op(struct prep *p, int kind, const char *src, const char *dst, const char *data,
                  unsigned long flags, uint64_t attr, int optional)
{
        if (dst == NULL || (kind == OP_BIND && src == NULL) || (kind == OP_SYMLINK && src == NULL))
                return -ENOMEM;
        if (p->n_ops == p->cap_ops) {
                size_t cap = p->cap_ops ? p->cap_ops * 2 : 64;
                struct mop *v = realloc(p->ops, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                p->ops = v;
                p->cap_ops = cap;
        }
        p->ops[p->n_ops++] = (struct mop){ kind, optional, src, dst, data, flags, attr };
        return 0;
}

static void prep_free(struct prep *p)
{
        size_t i;

        for (i = 0; i < p->n_strs; i++)
                free(p->strs[i]);
        free(p->strs);
        free(p->ops);
        free(p->exec_path);
        sbx_strv_free(p->envp);
        sbx__seccomp_free(&p->bpf);
        if (p->ruleset_fd >= 0)
                close(p->ruleset_fd);
        p->ruleset_fd = -EBADF;
}

/* ------------------------------------------- async-signal-safe helpers */

static size_t as_strlen(const char *s)
{
        size_t n = 0;

        while (s[n] != '\0')
                n++;
        return n;
}

static int as_mkdirs(const char *path)
{
        char buf[SBX_PATH_MAX + 16];
        size_t i, n = as_strlen(path);

        if (n >= sizeof(buf))
                return -ENAMETOOLONG;
        for (i = 0; i <= n; i++) {
                buf[i] = path[i];
                if ((path[i] == '/' && i > 0) || path[i] == '\0') {
                        buf[i] = '\0';
                        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        buf[i] = path[i];
                }
        }
        return 0;
}

static int as_mount_setattr(const char *path, uint64_t set)
{
        struct sbx__mount_attr a = { set, 0, 0, 0 };

        if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof(a)) < 0)
                return -errno;
        return 0;
}

static int run_op(const struct mop *op, int ruleset_fd)
{
        int fd;

        switch (op->kind) {
        case OP_TMPFS:
                if (mount("tmpfs", op->dst, "tmpfs", op->flags, op->data) < 0)
                        return -errno;
                return 0;
        case OP_BIND:
                if (mount(op->src, op->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
                        return -errno;
                return 0;
        case OP_SETATTR:
                return as_mount_setattr(op->dst, op->attr);
        case OP_MKDIRS:
                return as_mkdirs(op->dst);
        case OP_MKFILE:
                fd = open(op->dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (fd < 0)
                        return errno == EEXIST ? 0 : -errno;
                close(fd);
                return 0;
        case OP_SYMLINK:
                if (symlink(op->src, op->dst) < 0 && errno != EEXIST)
                        return -errno;
                return 0;
        case OP_PROC:
                if (mount("proc", op->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                        return -errno;
                return 0;
        case OP_DEVPTS:
                if (mount("devpts", op->dst, "devpts", MS_NOSUID | MS_NOEXEC,
                          "newinstance,ptmxmode=0666,mode=0620") < 0)
                        return -errno;
                return 0;
        case OP_LL_TREE:
                if (ruleset_fd < 0)
                        return 0;
                return sbx__landlock_add_child(ruleset_fd, op->dst, (uint32_t) op->attr);
        default:
                return -EINVAL;
        }
}

/* Test-only fault injection: the step named by sbx__fault_inject() fails
 * with EPERM as if the kernel had refused it, so tests can prove every step
 * fails closed.  Read once per spawn in the parent. */
static atomic_int fault_step;

void sbx__fault_inject(int step)
{
        atomic_store(&fault_step, step);
}

static int fault(const struct prep *p, int step)
{
        if (p->fail_step != step)
                return 0;
        errno = EPERM;
        return 1;
}

static int fault_r(const struct prep *p, int step)
{
        return p->fail_step == step ? -EPERM : 0;
}

static void child_fail(const struct prep *p, int step, int e, int index) SBX__NORETURN;
static void child_fail(const struct prep *p, int step, int e, int index)
{
        struct child_report rep = { step, e < 0 ? -e : e, index };

        (void) !write(p->err_w, &rep, sizeof(rep));
        _exit(127);
}

static int drop_caps(int cap_last)
{
        struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct data[2];
        int i;

        /* Lock root out of regaining capabilities, when we may. */
        (void) prctl(PR_SET_SECUREBITS, 0x2f /* NOROOT, NO_SETUID_FIXUP, KEEP_CAPS locked */);
        for (i = 0; i <= cap_last; i++)
                if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
                        return -errno;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        memset(data, 0, sizeof(data));
        if (syscall(SYS_capset, &hdr, data) < 0)
                return -errno;
        return 0;
}

/* Move every fd the child still needs above the range the kept fds will
 * occupy (3 .. 3+n_keep), then place the kept fds, then mark everything
 * else close-on-exec. */
static int arrange_fds(struct prep *p)
{
        int floor = 3 + (int) p->n_keep + 8, moved[64];
        size_t i;

        if (p->err_w < floor) {
                int fd = fcntl(p->err_w, F_DUPFD_CLOEXEC, floor);

                if (fd < 0)
                        return -errno;
                p->err_w = fd;
        }
        if (p->ruleset_fd >= 0 && p->ruleset_fd < floor) {
                int fd = fcntl(p->ruleset_fd, F_DUPFD_CLOEXEC, floor);

                if (fd < 0)
                        return -errno;
                p->ruleset_fd = fd;
        }
        for (i = 0; i < p->n_keep; i++) {
                moved[i] = fcntl(p->keep[i], F_DUPFD_CLOEXEC, floor);
                if (moved[i] < 0)
                        return -errno;
        }
        for (i = 0; i < p->n_keep; i++)
                if (dup2(moved[i], 3 + (int) i) < 0)   /* dup2 clears CLOEXEC */
                        return -errno;
        /* Everything from 3+n_keep up is closed at exec (the error pipe
         * and the ruleset fd are needed until then). */
        if (syscall(SYS_close_range, 3 + (unsigned) p->n_keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return -errno;
        return 0;
}

static int loopback_up(void)
{
        struct ifreq ifr;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

        if (fd < 0)
                return -errno;
        memset(&ifr, 0, sizeof(ifr));
        memcpy(ifr.ifr_name, "lo", 3);
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                r = -errno;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (r == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                r = -errno;
        close(fd);
        return r;
}

static volatile pid_t init_command_pid;

static void init_forward(int sig)
{
        if (init_command_pid > 0)
                (void) kill(init_command_pid, sig);
}

/*
 * The rung-1 init (pid 1 of the sandbox's pid namespace), already confined
 * like the command.  It forks the command, forwards the catchable
 * termination signals to it, reaps every orphan, and exits with the
 * command's exit code (128 + signal when the command was killed, as a
 * shell reports it).  When it exits, the kernel kills whatever is left in
 * the namespace.  Returns only in the command's process.
 */
/* Kill and reap every child of this (subreaper) process until none is
 * left, reading the live ones from /proc/thread-self/children.  Bounded;
 * async-signal-safe. */
static void kill_orphans(void)
{
        char buf[4096];
        int round, fd;
        ssize_t n;

        for (round = 0; round < 1000; round++) {
                long pid = 0;
                int any = 0, i;

                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
                fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        return;
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        return;                 /* no children left */
                buf[n] = '\0';
                for (i = 0; i <= n; i++) {
                        if (buf[i] >= '0' && buf[i] <= '9') {
                                pid = pid * 10 + (buf[i] - '0');
                                continue;
                        }
                        if (pid > 0) {
                                (void) kill((pid_t) pid, SIGKILL);
                                any = 1;
                        }
                        pid = 0;
                }
                if (!any)
                        return;
                while (waitpid(-1, NULL, 0) > 0)
                        ;
        }
}

static void run_init(struct prep *p)
{
        static const int fwd[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
                                   SIGWINCH, SIGCONT };
        struct sigaction sa;
        pid_t pid, w;
        size_t i;
        int st;

        /* The init is a copy of the caller's address space (secrets,
         * environment, heap) that never execs.  Non-dumpable, its
         * /proc/1/{environ,mem,maps} are closed to the command, which runs
         * as the same user in the same namespace; the command's own execve
         * makes it dumpable again. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                child_fail(p, STEP_CAPS, errno, 0);
        pid = fault(p, STEP_FORK) ? -1 : fork();
        if (pid < 0)
                child_fail(p, STEP_FORK, errno, 0);
        if (pid == 0) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        child_fail(p, STEP_PDEATHSIG, errno, 0);
                return;
        }
        init_command_pid = pid;
        /* The command reports its own exec failure; init keeps no fd. */
        (void) syscall(SYS_close_range, 3U, ~0U, 0U);
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = init_forward;
        sigemptyset(&sa.sa_mask);
        for (i = 0; i < SBX__ARRAY_SIZE(fwd); i++)
                (void) sigaction(fwd[i], &sa, NULL);
        for (;;) {
                w = waitpid(-1, &st, 0);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        _exit(SBX_EXIT_RUNNER_FAILURE);
                if (w == pid)
                        break;
        }
        /* Rung 2 (a subreaper, not a namespace init): whatever the command
         * left behind was reparented to us; kill it before reporting. */
        if (p->rung == 2)
                kill_orphans();
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* The child: everything below runs between clone/fork and execve. */
static void child_main(struct prep *p) SBX__NORETURN;
static void child_main(struct prep *p)
{
        size_t i;
        int r;
        char c;

        /* Default dispositions, nothing blocked: the command starts clean
         * (signals stay blocked in here until the parent's mask is copied
         * back below, so no host handler can run in the child). */
        {
                struct sigaction dfl;
                sigset_t none;
                int sig;

                memset(&dfl, 0, sizeof(dfl));
                dfl.sa_handler = SIG_DFL;
                for (sig = 1; sig < NSIG; sig++)
                        if (sig != SIGKILL && sig != SIGSTOP)
                                (void) sigaction(sig, &dfl, NULL);
                sigemptyset(&none);
                (void) sigprocmask(SIG_SETMASK, &none, NULL);
        }
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                child_fail(p, STEP_PDEATHSIG, errno, 0);
        /* Rung 2: the parent may already be gone.  Rung 1 is pid 1 of its
         * namespace (getppid() is 0); the sync byte below covers it. */
        if (p->rung == 2 && getppid() != p->parent_pid)
                child_fail(p, STEP_PDEATHSIG, ESRCH, 0);
        /* Wait until the parent has placed us in cgroups etc. */
        if (p->sync_r >= 0) {
                ssize_t n;

                do
                        n = read(p->sync_r, &c, 1);
                while (n < 0 && errno == EINTR);
                if (n != 1)
                        child_fail(p, STEP_SYNC, n < 0 ? errno : EPIPE, 0);
        }
        if (fault(p, STEP_SETSID) || setsid() < 0)
                child_fail(p, STEP_SETSID, errno, 0);

        if (p->rung == 1) {
                if ((r = fault_r(p, STEP_SETGROUPS)) < 0 ||
                    ((r = sbx__write_text("/proc/self/setgroups", "deny")) < 0 && r != -ENOENT))
                        child_fail(p, STEP_SETGROUPS, r, 0);
                if ((r = fault_r(p, STEP_UID_MAP)) < 0 ||
                    (r = sbx__write_text("/proc/self/uid_map", p->uid_map)) < 0)
                        child_fail(p, STEP_UID_MAP, r, 0);
                if ((r = fault_r(p, STEP_GID_MAP)) < 0 ||
                    (r = sbx__write_text("/proc/self/gid_map", p->gid_map)) < 0)
                        child_fail(p, STEP_GID_MAP, r, 0);
                if (fault(p, STEP_MAKE_PRIVATE) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                        child_fail(p, STEP_MAKE_PRIVATE, errno, 0);
                if (fault(p, STEP_BASE_TMPFS) ||
                    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
                        child_fail(p, STEP_BASE_TMPFS, errno, 0);
                if (mkdir("/tmp/newroot", 0755) < 0 || mkdir("/tmp/oldroot", 0755) < 0)
                        child_fail(p, STEP_BASE_DIRS, errno, 0);
                if (fault(p, STEP_PIVOT_BASE) ||
                    syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") < 0 || chdir("/") < 0)
                        child_fail(p, STEP_PIVOT_BASE, errno, 0);
                for (i = 0; i < p->n_ops; i++) {
                        r = fault_r(p, STEP_MOUNT_OP);
                        if (r == 0)
                                r = run_op(&p->ops[i], p->ruleset_fd);
                        if (r < 0 && !(p->ops[i].optional && (r == -ENOENT || r == -ENOTDIR)))
                                child_fail(p, STEP_MOUNT_OP, r, (int) i);
                }
                if (fault(p, STEP_PIVOT_ROOT) || chdir("/newroot") < 0 ||
                    syscall(SYS_pivot_root, ".", ".") < 0 ||
                    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
                        child_fail(p, STEP_PIVOT_ROOT, errno, 0);
                if (p->net_ns && ((r = fault_r(p, STEP_LOOPBACK)) < 0 || (r = loopback_up()) < 0))
                        child_fail(p, STEP_LOOPBACK, r, 0);
        } else {
                for (i = 0; i < p->n_ops; i++) {
                        r = fault_r(p, STEP_LANDLOCK_ADD);
                        if (r == 0)
                                r = run_op(&p->ops[i], p->ruleset_fd);
                        if (r < 0 && !(p->ops[i].optional && (r == -ENOENT || r == -ENOTDIR)))
                                child_fail(p, STEP_LANDLOCK_ADD, r, (int) i);
                }
        }
        if (fault(p, STEP_CHDIR) || chdir(p->cwd) < 0)
                child_fail(p, STEP_CHDIR, errno, 0);
        if ((r = fault_r(p, STEP_CAPS)) < 0 || (r = drop_caps(p->cap_last)) < 0)
                child_fail(p, STEP_CAPS, r, 0);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(p, STEP_CAPS, errno, 0);
        if ((r = fault_r(p, STEP_LANDLOCK)) < 0 ||
            (p->ruleset_fd >= 0 && (r = sbx__landlock_enforce_child(p->ruleset_fd)) < 0))
                child_fail(p, STEP_LANDLOCK, r, 0);
        if ((r = fault_r(p, STEP_SECCOMP)) < 0 || (r = sbx__seccomp_load_child(&p->bpf)) < 0)
                child_fail(p, STEP_SECCOMP, r, 0);
        /* Rung 1: we are pid 1 of the new pid namespace, and pid 1 ignores
         * every signal it has no handler for.  Stay as a confined init that
         * forwards signals and reaps, and run the command as pid 2. */
        if (p->rung == 1) {
                run_init(p);
        } else if (p->monitor) {
                /* Rung 2 without a tracking cgroup: a subreaper monitor,
                 * so descendants that leave the process group are still
                 * found and killed when the command ends. */
                if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                        child_fail(p, STEP_FORK, errno, 0);
                run_init(p);
        }
        if ((r = fault_r(p, STEP_FDS)) < 0 || (r = arrange_fds(p)) < 0)
                child_fail(p, STEP_FDS, r, 0);
        if (fault(p, STEP_RLIMIT) || (p->set_nproc && setrlimit(RLIMIT_NPROC, &p->rl_nproc) < 0) ||
            (p->set_as && setrlimit(RLIMIT_AS, &p->rl_as) < 0))
                child_fail(p, STEP_RLIMIT, errno, 0);
        execve(p->exec_path, p->argv, p->envp);
        child_fail(p, STEP_EXEC, errno, 0);
}

/* AddressSanitizer cannot follow a CLONE_VM child onto its own stack
 * (it poisons and unpoisons the shared shadow); sanitizer builds use the
 * plain fork path instead. */
#if defined(__SANITIZE_ADDRESS__)
#  define SBX__NO_VFORK 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SBX__NO_VFORK 1
#  endif
#endif
#ifndef SBX__NO_VFORK
#  define SBX__NO_VFORK 0
#endif

/* The vfork-style child works on its own copy of the preparation: it
 * shares the parent's memory until execve, and must not change the
 * parent's copy (fd numbers it moves exist only in its own fd table). */
struct vfork_arg {
        const struct prep *p;
        int err_r;
};

static int vfork_main(void *arg)
{
        const struct vfork_arg *a = arg;
        struct prep local = *a->p;

        close(a->err_r);
        child_main(&local);
}

static pid_t vfork_child(const struct prep *p, int err_r)
{
        const size_t stack_len = 256 * 1024;
        struct vfork_arg a = { p, err_r };
        void *stack;
        pid_t pid;
        int e;

        stack = mmap(NULL, stack_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (stack == MAP_FAILED)
                return -1;
        pid = clone(vfork_main, (char *) stack + stack_len, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
        e = errno;
        (void) munmap(stack, stack_len);
        errno = e;
        return pid;
}

/* ------------------------------------------------------ parent helpers */

/* Look argv0 up in PATH (of the environment the child gets); a name with a
 * slash is used as is.  The sandbox shows the host's files read-only at the
 * same paths, so the host lookup names the same file. */
static char *resolve_exec(const char *argv0, char *const *envp)
{
        const char *path = "/usr/local/bin:/usr/bin:/bin";
        size_t i;

        if (strchr(argv0, '/') != NULL)
                return sbx__strdup(argv0);
        for (i = 0; envp[i] != NULL; i++)
                if (strncmp(envp[i], "PATH=", 5) == 0)
                        path = envp[i] + 5;
        while (*path != '\0') {
                const char *end = strchr(path, ':');
                size_t len = end != NULL ? (size_t) (end - path) : strlen(path);
                char buf[SBX_PATH_MAX];

                if (len > 0 && len + strlen(argv0) + 2 < sizeof(buf)) {
                        memcpy(buf, path, len);
                        buf[len] = '/';
                        strcpy(buf + len + 1, argv0);
                        if (access(buf, X_OK) == 0)
                                return sbx__strdup(buf);
                }
                if (end == NULL)
                        break;
                path = end + 1;
        }
        return NULL;
}

/* The caller's HOME (the environment's, else the passwd entry's), made
 * canonical into buf so the hidden path is the one the kernel resolves
 * (a trailing slash, "//" or a symlinked /home would otherwise hide
 * nothing).  NULL when there is none or it does not exist; -1 in *bad when
 * it exists but cannot be resolved (the caller fails closed). */
static const char *caller_home(char *const *envp, char *buf, int *bad)
{
        const char *h = NULL;
        struct passwd *pw;
        size_t i;

        *bad = 0;
        for (i = 0; envp[i] != NULL; i++)
                if (strncmp(envp[i], "HOME=", 5) == 0 && envp[i][5] == '/')
                        h = envp[i] + 5;
        if (h == NULL) {
                pw = getpwuid(geteuid());
                if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/')
                        h = pw->pw_dir;
        }
        if (h == NULL)
                return NULL;
        if (realpath(h, buf) == NULL) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return NULL;    /* nothing there to hide */
                *bad = 1;
                return NULL;
        }
        return buf;
}

/* The filtered environment: the plan's allow-list plus HOME and TMPDIR. */
static char **build_env(const struct sbx_plan *plan, char *const *src, const char *home,
                        const char *tmpdir)
{
        size_t n = 0, i, o = 0;
        char **env;

        while (src[n] != NULL)
                n++;
        env = calloc(n + 3, sizeof(*env));
        if (env == NULL)
                return NULL;
        for (i = 0; i < n; i++) {
                const char *eq = strchr(src[i], '=');
                char name[256];
                size_t nl;

                if (eq == NULL || (nl = (size_t) (eq - src[i])) == 0 || nl >= sizeof(name))
                        continue;
                memcpy(name, src[i], nl);
                name[nl] = '\0';
                if (!plan->env_passthrough &&
                    (strcmp(name, "HOME") == 0 || strcmp(name, "TMPDIR") == 0))
                        continue;
                if (!sbx__plan_env_allowed(plan, name))
                        continue;
                if ((env[o++] = sbx__strdup(src[i])) == NULL)
                        goto oom;
        }
        if (home != NULL && (env[o++] = malloc(strlen(home) + 6)) != NULL)
                sprintf(env[o - 1], "HOME=%s", home);
        if (home != NULL && env[o - 1] == NULL)
                goto oom;
        if (tmpdir != NULL && (env[o++] = malloc(strlen(tmpdir) + 8)) != NULL)
                sprintf(env[o - 1], "TMPDIR=%s", tmpdir);
        if (tmpdir != NULL && env[o - 1] == NULL)
                goto oom;
        return env;
oom:
        sbx_strv_free(env);
        return NULL;
}

#define OP(...) do { if ((r = add_op(p, __VA_ARGS__)) < 0) return r; } while (0)

/* Create the mountpoint for host object `path` (stat'ed as st) inside the
 * new root: a directory, or an empty file in its parent directory. */
static int emit_mountpoint(struct prep *p, const char *path, const struct stat *st)
{
        char buf[SBX_PATH_MAX + 32], *slash;
        int r;

        if (S_ISDIR(st->st_mode)) {
                OP(OP_MKDIRS, NULL, nr(p, path), NULL, 0, 0, 0);
                return 0;
        }
        snprintf(buf, sizeof(buf), "/newroot%s", path);
        slash = strrchr(buf, '/');
        *slash = '\0';
        OP(OP_MKDIRS, NULL, prep_str(p, buf, NULL), NULL, 0, 0, 0);
        OP(OP_MKFILE, NULL, nr(p, path), NULL, 0, 0, 0);
        return 0;
}

/* The writable rule a protected path belongs to (the deepest containing
 * rule with WRITE), or NULL. */
static const char *protected_root(const struct sbx_plan *plan, const char *path)
{
        const char *best = NULL;
        size_t i;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];

                if ((r->access & SBX__FS_WRITE) && r->scope == SBX__FS_TREE &&
                    under(path, r->path) && (best == NULL || strlen(r->path) > strlen(best)))
                        best = r->path;
        }
        return best;
}

/* For the protected rule "<root>/.git/config": when <root>/.git is a
 * regular file (a "gitdir:" pointer), put its path in buf and return 1. */
static int gitfile_of(const char *path, char *buf, size_t len)
{
        size_t n = strlen(path);
        struct stat st;

        if (n < 12 || strcmp(path + n - 12, "/.git/config") != 0 || n - 7 >= len)
                return 0;
        memcpy(buf, path, n - 7);
        buf[n - 7] = '\0';
        return lstat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

/* The mount operations for one plan rule (not host, /dev or /proc). */
static int emit_rule(struct prep *p, const struct sbx_plan_fs_rule *rule, int host_read)
{
        const uint64_t ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const uint64_t rw = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const char *path = rule->path;
        char buf[SBX_PATH_MAX];
        struct stat st;
        ssize_t n;
        int r;

        if (rule->origin == SBX__ORIGIN_PROTECTED && gitfile_of(path, buf, sizeof(buf))) {
                /* A "gitdir:" file in place of the .git directory: it says
                 * where the repository is, so it is protected itself. */
                OP(OP_BIND, orr(p, buf), nr(p, buf), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, buf), NULL, 0, ro, 0);
                return 0;
        }
        if (lstat(path, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;       /* nothing to bind, and its parent decides creation */
                return -errno;
        }
        if (S_ISLNK(st.st_mode)) {
                /* Merged-/usr runtime links (/bin -> usr/bin) in an empty root;
                 * with the host visible the link is already there. */
                if (host_read || rule->origin != SBX__ORIGIN_RUNTIME)
                        return 0;
                n = readlink(path, buf, sizeof(buf) - 1);
                if (n < 0)
                        return -errno;
                buf[n] = '\0';
                OP(OP_SYMLINK, prep_str(p, buf, NULL), nr(p, path), NULL, 0, 0, 1);
                return 0;
        }
        if (rule->access == 0) {
                /* Carve-out: hide it behind an empty read-only object. */
                if (S_ISDIR(st.st_mode))
                        OP(OP_TMPFS, NULL, nr(p, path), "mode=0000,size=4k",
                           MS_NOSUID | MS_NODEV | MS_NOEXEC, 0, 0);
                else
                        OP(OP_BIND, prep_str(p, "/empty", NULL), nr(p, path), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, ro, 0);
                return 0;
        }
        if (rule->origin == SBX__ORIGIN_PROTECTED) {
                /* Pin every directory between the writable root and the
                 * protected path as a (writable) mountpoint: a mountpoint
                 * cannot be renamed or removed, so `mv .git .git-old` and a
                 * fresh .git with planted hooks are refused (EBUSY).  Then
                 * the host object itself, read-only. */
                char anc[SBX_PATH_MAX];
                const char *root = protected_root(p->plan, path);
                size_t i;

                if (root != NULL && strlen(path) < sizeof(anc)) {
                        for (i = strlen(root) + 1; path[i] != '\0'; i++) {
                                if (path[i] != '/')
                                        continue;
                                memcpy(anc, path, i);
                                anc[i] = '\0';
                                OP(OP_BIND, nr(p, anc), nr(p, anc), NULL, 0, 0, 1);
                        }
                }
                OP(OP_BIND, orr(p, path), nr(p, path), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, ro, 0);
                return 0;
        }
        if ((r = emit_mountpoint(p, path, &st)) < 0)
                return r;
        OP(OP_BIND, orr(p, path), nr(p, path), NULL, 0, 0, 0);
        OP(OP_SETATTR, NULL, nr(p, path), NULL, 0, (rule->access & SBX__FS_WRITE) ? rw : ro, 0);
        return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Options of a scratch tmpfs: its mode, and with a memory limit also a
 * size, so files in /tmp, HOME or /dev/shm cannot hold more than the
 * command may use (tmpfs pages are not process memory). */
static const char *tmpfs_opts(struct prep *p, const char *mode)
{
        char buf[96];

        if (p->memory_max > 0)
                snprintf(buf, sizeof(buf), "mode=%s,size=%llu", mode,
                         (unsigned long long) p->memory_max);
        else
                snprintf(buf, sizeof(buf), "mode=%s", mode);
        return prep_str(p, buf, NULL);
}

/* The rung-1 mount plan: a read-only (or empty) view of the host, hidden
 * scratch areas (/tmp, the caller's HOME, /run when the network is
 * denied), every rule bound with its writability, carve-outs and protected
 * paths re-mounted read-only, a minimal /dev and a fresh /proc. */
static int build_mounts(struct prep *p, const struct sbx_plan *plan, const char *home)
{
        static const char *const devs[] = { "null", "zero", "full", "random", "urandom", "tty" };
        static const char *const proc_ro[] = { "sys", "sysrq-trigger", "irq", "bus", "fs",
                                               "latency_stats", "timer_list" };
        const uint64_t ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const uint64_t rw = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        const struct sbx_plan_fs_rule *host = NULL;
        const char *hides[4];
        size_t nh = 0, h, i, k;
        int host_read, host_write, r = 0;
        struct stat st;
        char buf[SBX_PATH_MAX + 32];

        for (i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin == SBX__ORIGIN_HOST)
                        host = &plan->rules[i];
        host_read = host != NULL && (host->access & SBX__FS_READ);
        host_write = host != NULL && (host->access & SBX__FS_WRITE);

        hides[nh++] = "/tmp";
        if (home != NULL && plan->home == SBX__ENV_DIR_SCRATCH && strcmp(home, "/") != 0 &&
            stat(home, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(home, "/tmp") != 0)
                hides[nh++] = home;
        /* /run holds host IPC endpoints (docker.sock, the session and
         * system buses, ssh/gpg agents under /run/user): never the
         * sandbox's, whatever the network decision.  With the network
         * allowed, the resolver's directory comes back read-only below. */
        if (stat("/run", &st) == 0 && S_ISDIR(st.st_mode))
                hides[nh++] = "/run";
        qsort(hides, nh, sizeof(hides[0]), cmp_cstr);

        OP(OP_MKFILE, NULL, prep_str(p, "/empty", NULL), NULL, 0, 0, 0);
        if (host_read) {
                OP(OP_BIND, orr(p, "/"), nr(p, "/"), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, "/"), NULL, 0, host_write ? rw : ro, 0);
        } else {
                OP(OP_TMPFS, NULL, nr(p, "/"), "mode=0755", MS_NOSUID | MS_NODEV, 0, 0);
        }

        /* Pass 0: rules outside every hidden area.  Then each hidden area
         * (sorted, so a nested one follows its parent) and the rules whose
         * deepest hidden area it is.  Rules are sorted by path, so parents
         * are mounted before children. */
        for (h = 0; h <= nh; h++) {
                if (h > 0) {
                        const char *hide = hides[h - 1];

                        OP(OP_MKDIRS, NULL, nr(p, hide), NULL, 0, 0, 1);
                        OP(OP_TMPFS, NULL, nr(p, hide),
                           tmpfs_opts(p, strcmp(hide, "/tmp") == 0 ? "1777" : "0700"),
                           MS_NOSUID | MS_NODEV, 0, 0);
                        OP(OP_LL_TREE, NULL, nr(p, hide), NULL, 0,
                           SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 0);
                }
                for (i = 0; i < plan->n_rules; i++) {
                        const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                        size_t deepest = 0;

                        if (rule->origin == SBX__ORIGIN_HOST ||
                            strcmp(rule->path, "/dev") == 0 || under(rule->path, "/dev") ||
                            strcmp(rule->path, "/proc") == 0 || under(rule->path, "/proc"))
                                continue;       /* built below */
                        for (k = 0; k < nh; k++)
                                if (under(rule->path, hides[k]) || strcmp(rule->path, hides[k]) == 0)
                                        deepest = k + 1;
                        if (deepest != h)
                                continue;
                        if ((r = emit_rule(p, rule, host_read)) < 0)
                                return r;
                }
        }

        if (plan->network == SBX__NET_ALLOW && host_read &&
            stat(SBX__RESOLVER_DIR, &st) == 0 && S_ISDIR(st.st_mode)) {
                OP(OP_MKDIRS, NULL, nr(p, SBX__RESOLVER_DIR), NULL, 0, 0, 0);
                OP(OP_BIND, orr(p, SBX__RESOLVER_DIR), nr(p, SBX__RESOLVER_DIR), NULL, 0, 0, 0);
                OP(OP_SETATTR, NULL, nr(p, SBX__RESOLVER_DIR), NULL, 0, ro, 0);
        }

        /* A minimal /dev. */
        OP(OP_MKDIRS, NULL, nr(p, "/dev"), NULL, 0, 0, 1);
        OP(OP_TMPFS, NULL, nr(p, "/dev"), "mode=0755", MS_NOSUID | MS_NOEXEC, 0, 0);
        for (i = 0; i < SBX__ARRAY_SIZE(devs); i++) {
                snprintf(buf, sizeof(buf), "/dev/%s", devs[i]);
                if (stat(buf, &st) < 0)
                        continue;
                OP(OP_MKFILE, NULL, nr(p, buf), NULL, 0, 0, 0);
                OP(OP_BIND, orr(p, buf), nr(p, buf), NULL, 0, 0, 0);
        }
        OP(OP_SYMLINK, prep_str(p, "/proc/self/fd", NULL), nr(p, "/dev/fd"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, prep_str(p, "/proc/self/fd/0", NULL), nr(p, "/dev/stdin"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, prep_str(p, "/proc/self/fd/1", NULL), nr(p, "/dev/stdout"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, prep_str(p, "/proc/self/fd/2", NULL), nr(p, "/dev/stderr"), NULL, 0, 0, 0);
        OP(OP_MKDIRS, NULL, nr(p, "/dev/pts"), NULL, 0, 0, 0);
        OP(OP_DEVPTS, NULL, nr(p, "/dev/pts"), NULL, 0, 0, 0);
        OP(OP_SYMLINK, prep_str(p, "pts/ptmx", NULL), nr(p, "/dev/ptmx"), NULL, 0, 0, 0);
        OP(OP_MKDIRS, NULL, nr(p, "/dev/shm"), NULL, 0, 0, 0);
        OP(OP_TMPFS, NULL, nr(p, "/dev/shm"), tmpfs_opts(p, "1777"), MS_NOSUID | MS_NODEV | MS_NOEXEC, 0, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/dev/shm"), NULL, 0, SBX__FS_READ | SBX__FS_WRITE, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/dev/pts"), NULL, 0, SBX__FS_READ | SBX__FS_WRITE, 0);

        /* A fresh /proc for the new pid namespace, its knobs read-only. */
        OP(OP_MKDIRS, NULL, nr(p, "/proc"), NULL, 0, 0, 1);
        OP(OP_PROC, NULL, nr(p, "/proc"), NULL, 0, 0, 0);
        OP(OP_LL_TREE, NULL, nr(p, "/proc"), NULL, 0, SBX__FS_READ, 0);
        for (i = 0; i < SBX__ARRAY_SIZE(proc_ro); i++) {
                snprintf(buf, sizeof(buf), "/proc/%s", proc_ro[i]);
                OP(OP_BIND, nr(p, buf), nr(p, buf), NULL, 0, 0, 1);
                OP(OP_SETATTR, NULL, nr(p, buf), NULL, 0, ro, 1);
        }
        (void) rw;
        return 0;
}
#undef OP

/* A growable Landlock rule list that owns its path strings. */
struct llvec {
        struct sbx__ll_rule *v;
        char  **own;
        size_t  n, cap;
        size_t  nmerged;        /* rules after ll_merge (own[] keeps n strings) */
};

static int ll_push(struct llvec *lv, const char *path, uint32_t access, int tree)
{
        if (lv->n == lv->cap) {
                size_t cap = lv->cap ? lv->cap * 2 : 64;
                struct sbx__ll_rule *v = realloc(lv->v, cap * sizeof(*v));
                char **own;

                if (v == NULL)
                        return -ENOMEM;
                lv->v = v;
                own = realloc(lv->own, cap * sizeof(*own));
                if (own == NULL)
                        return -ENOMEM;
                lv->own = own;
                lv->cap = cap;
        }
        lv->own[lv->n] = sbx__strdup(path);
        if (lv->own[lv->n] == NULL)
                return -ENOMEM;
        lv->v[lv->n] = (struct sbx__ll_rule){ lv->own[lv->n], access, tree };
        lv->n++;
        return 0;
}

static void ll_free(struct llvec *lv)
{
        size_t i;

        for (i = 0; i < lv->n; i++)
                free(lv->own[i]);
        free(lv->own);
        free(lv->v);
}

static int ll_cmp(const void *a, const void *b)
{
        return strcmp(((const struct sbx__ll_rule *) a)->path, ((const struct sbx__ll_rule *) b)->path);
}

/* Landlock rights add up along a path, so two rules for one path are their
 * union: merge them (an expanded directory entry may also have a rule). */
static void ll_merge(struct llvec *lv)
{
        size_t i, o = 0;

        /* own[] and v[] are parallel only until here; v[].path points into
         * own[] and is what the prepare step reads. */
        qsort(lv->v, lv->n, sizeof(*lv->v), ll_cmp);
        for (i = 0; i < lv->n; i++) {
                if (o > 0 && strcmp(lv->v[o - 1].path, lv->v[i].path) == 0) {
                        lv->v[o - 1].access |= lv->v[i].access;
                        lv->v[o - 1].tree |= lv->v[i].tree;
                        continue;
                }
                lv->v[o++] = lv->v[i];
        }
        lv->nmerged = o;
}

struct narrow {
        const char *path;
        uint32_t    access;
};

/*
 * Landlock can only add rights below a rule, never remove them.  To give a
 * tree rule `access` everywhere except below some narrower paths, the
 * directory itself gets no rule and each entry gets the rule instead,
 * recursing into entries that lead to a narrower path.  Symlink entries
 * get nothing (a rule would land on their target).  The cost, documented
 * in docs/backends.md: no new entry can be created directly in an
 * expanded directory.
 */
static int expand_tree(struct llvec *lv, const char *dir, uint32_t access,
                       const struct narrow *nw, size_t nn, int depth)
{
        char full[SBX_PATH_MAX];
        struct dirent *de;
        struct stat st;
        DIR *d;
        int r = 0;

        if (depth > 64)
                return -ELOOP;
        d = opendir(dir);
        if (d == NULL)
                return errno == ENOENT ? 0 : -errno;
        while ((de = readdir(d)) != NULL) {
                int skip = 0, leads = 0;
                size_t k;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if ((size_t) snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
                                      de->d_name) >= sizeof(full)) {
                        r = -ENAMETOOLONG;
                        break;
                }
                for (k = 0; k < nn; k++) {
                        if ((access & ~nw[k].access & (SBX__FS_READ | SBX__FS_WRITE)) == 0)
                                continue;       /* not narrower: its own rule adds */
                        if (strcmp(nw[k].path, full) == 0)
                                skip = 1;
                        else if (under(nw[k].path, full))
                                leads = 1;
                }
                if (skip || lstat(full, &st) < 0 || S_ISLNK(st.st_mode))
                        continue;
                if (leads && S_ISDIR(st.st_mode))
                        r = expand_tree(lv, full, access, nw, nn, depth + 1);
                else
                        r = ll_push(lv, full, access, S_ISDIR(st.st_mode));
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

/*
 * A protected path can only be protected once it exists.  When its parent
 * exists (a .git directory without hooks/ or config), create it empty --
 * what `git init` would have created -- so the command cannot plant it.
 * Best effort: a failure leaves the documented gap, never a wider sandbox.
 */
static void materialize_protected(const struct sbx_plan *plan)
{
        char parent[SBX_PATH_MAX];
        struct stat st;
        size_t i;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                char *slash;
                int fd;

                if (rule->origin != SBX__ORIGIN_PROTECTED || lstat(rule->path, &st) == 0 ||
                    errno != ENOENT || strlen(rule->path) >= sizeof(parent))
                        continue;
                strcpy(parent, rule->path);
                slash = strrchr(parent, '/');
                if (slash == NULL || slash == parent)
                        continue;
                *slash = '\0';
                if (lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (rule->scope == SBX__FS_TREE) {
                        (void) mkdir(rule->path, 0755);
                } else if (strcmp(slash + 1, "config") == 0) {
                        /* Only config: an empty commondir or config.worktree
                         * would change what git does (documented gap). */
                        fd = open(rule->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                        if (fd >= 0)
                                close(fd);
                }
        }
}

/* Landlock rules: rung 1 uses the plan coarsely (its mounts do the
 * narrowing); rung 2 expands every tree rule that has an existing narrower
 * path below it (carve-outs, protected paths, the hidden HOME). */
static sbx_code build_landlock(struct prep *p, const struct sbx_plan *plan, const char *scratch,
                               const char *home, uint32_t opts, sbx_error *err)
{
        struct llvec lv = { NULL, NULL, 0, 0, 0 };
        struct narrow *nw = NULL;
        struct llvec gitfiles = { NULL, NULL, 0, 0, 0 };        /* owns gitfile paths */
        int resolver = 0;
        char gitfile[SBX_PATH_MAX];
        size_t i, k, nn = 0;
        uint32_t missing = 0;
        char buf[SBX_PATH_MAX];
        struct stat st;
        sbx_code r = SBX_OK;
        int e = 0;

        nw = calloc(plan->n_rules + 2, sizeof(*nw));
        if (nw == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        if (p->rung == 2) {
                for (i = 0; i < plan->n_rules; i++) {
                        const struct sbx_plan_fs_rule *rule = &plan->rules[i];

                        if (rule->origin == SBX__ORIGIN_PROTECTED &&
                            gitfile_of(rule->path, gitfile, sizeof(gitfile))) {
                                if ((e = ll_push(&gitfiles, gitfile, 0, 0)) < 0)
                                        break;
                                nw[nn++] = (struct narrow){ gitfiles.own[gitfiles.n - 1],
                                                            rule->access };
                        }
                        else if (lstat(rule->path, &st) == 0 && rule->origin != SBX__ORIGIN_HOST)
                                nw[nn++] = (struct narrow){ rule->path, rule->access };
                }
                if (home != NULL && plan->home == SBX__ENV_DIR_SCRATCH && strcmp(home, "/") != 0 &&
                    lstat(home, &st) == 0)
                        nw[nn++] = (struct narrow){ home, 0 };
                /* Host IPC under /run is hidden on both rungs (see
                 * build_mounts); the resolver's directory stays readable
                 * when the network is allowed. */
                if (lstat("/run", &st) == 0 && S_ISDIR(st.st_mode)) {
                        nw[nn++] = (struct narrow){ "/run", 0 };
                        if (plan->network == SBX__NET_ALLOW && lstat(SBX__RESOLVER_DIR, &st) == 0)
                                resolver = 1;
                }
        }
        for (i = 0; i < plan->n_rules && e == 0; i++) {
                const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                int expand = 0;

                if (rule->access == 0)
                        continue;       /* carve-outs: mounts (rung 1) / expansion (rung 2) */
                if (p->rung == 2 && rule->origin == SBX__ORIGIN_PROTECTED &&
                    lstat(rule->path, &st) < 0)
                        continue;       /* nothing to protect yet, as on rung 1 */
                if (p->rung == 1) {
                        /* The mounts narrow (read-only re-mounts, protected
                         * paths); Landlock, which can only widen below a
                         * rule, gets the rules that do not narrow. */
                        int narrower = 0;

                        for (k = 0; k < plan->n_rules; k++) {
                                const struct sbx_plan_fs_rule *up = &plan->rules[k];

                                if (up->scope == SBX__FS_TREE && up->access != 0 &&
                                    (under(rule->path, up->path) || (strcmp(up->path, "/") == 0 &&
                                                                     strcmp(rule->path, "/") != 0)) &&
                                    (up->access & ~rule->access &
                                     (SBX__FS_READ | SBX__FS_WRITE)) != 0)
                                        narrower = 1;
                        }
                        if (narrower)
                                continue;
                }
                if (p->rung == 2 && rule->scope == SBX__FS_TREE)
                        for (k = 0; k < nn; k++)
                                if (under(nw[k].path, rule->path) &&
                                    (rule->access & ~nw[k].access &
                                     (SBX__FS_READ | SBX__FS_WRITE)) != 0)
                                        expand = 1;
                if (expand)
                        e = expand_tree(&lv, rule->path, rule->access, nw, nn, 0);
                else
                        e = ll_push(&lv, rule->path, rule->access, rule->scope == SBX__FS_TREE);
        }
        if (e == 0 && resolver)
                e = ll_push(&lv, SBX__RESOLVER_DIR, SBX__FS_READ, 1);
        if (e == 0)
                e = ll_push(&lv, "/dev/tty", SBX__FS_READ | SBX__FS_WRITE, 0);
        if (e == 0 && scratch != NULL) {
                snprintf(buf, sizeof(buf), "%s/home", scratch);
                e = ll_push(&lv, buf, SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 1);
                snprintf(buf, sizeof(buf), "%s/tmp", scratch);
                if (e == 0)
                        e = ll_push(&lv, buf, SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 1);
        }
        if (e < 0) {
                r = sbx__fail(err, e == -ENOMEM ? SBX_E_NOMEM : SBX_E_IO, -e,
                              "sbx_spawn: cannot prepare the Landlock rules");
                goto out;
        }
        ll_merge(&lv);
        r = sbx__landlock_prepare(lv.v, lv.nmerged, opts | SBX__LL_SKIP_MISSING, &p->ruleset_fd,
                                  &missing, err);
        if (r == SBX_OK)
                p->achieved &= ~missing;
out:
        ll_free(&lv);
        ll_free(&gitfiles);
        free(nw);
        return r;
}

static uint32_t hardening(void)
{
        return SBX_G_SYSCALL_FILTER | SBX_G_NO_NEW_PRIVS | SBX_G_TTY_ISOLATION | SBX_G_FD_ISOLATION |
               SBX_G_ENV_SCRUB;
}

uint32_t sbx__native_guarantees(const struct sbx_plan *plan)
{
        uint32_t g = hardening() | SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY |
                     SBX_G_PROCESS_ISOLATION | SBX_G_HOME_ISOLATION | SBX_G_PROTECTED_PATHS;

        if (plan->network != SBX__NET_ALLOW)
                g |= SBX_G_NETWORK_DENY;
        return g;
}

uint32_t sbx__landlock_guarantees(const struct sbx_plan *plan)
{
        int abi = sbx__landlock_abi();
        uint32_t g;

        if (abi < 1)
                return 0;
        g = hardening() | SBX_G_READ_BOUNDARY | SBX_G_HOME_ISOLATION | SBX_G_PROTECTED_PATHS;
        if (abi >= 5)
                g |= SBX_G_WRITE_BOUNDARY;      /* truncate (ABI 3) and device ioctls (ABI 5) */
        if (plan->network != SBX__NET_ALLOW && abi >= 6)
                g |= SBX_G_NETWORK_DENY;        /* TCP (ABI 4), abstract unix scope (ABI 6), seccomp */
        /* No SBX_G_PROCESS_ISOLATION: signals are scoped (ABI 6) and ptrace
         * refused, but host processes stay visible in /proc (command lines
         * included), which the guarantee excludes. */
        /* Narrower paths inside a granted tree (protected paths, carve-outs,
         * the hidden HOME) are expressed by expanding the tree into its
         * entries (build_landlock); chmod/chown/utimes/xattrs, which
         * Landlock does not cover, are refused by seccomp on this rung. */
        return g;
}

static sbx_code make_scratch(char **out, sbx_error *err)
{
        const char *base = secure_getenv("TMPDIR");
        char buf[SBX_PATH_MAX - 16], sub[SBX_PATH_MAX];

        if (base == NULL || base[0] != '/')
                base = "/tmp";
        if ((size_t) snprintf(buf, sizeof(buf), "%s/sbx-run-XXXXXX", base) >= sizeof(buf))
                return sbx__fail(err, SBX_E_RANGE, 0, "sbx_spawn: TMPDIR is too long");
        if (mkdtemp(buf) == NULL)
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: cannot create a scratch "
                                 "directory under \"%s\"", base);
        snprintf(sub, sizeof(sub), "%s/home", buf);
        if (mkdir(sub, 0700) < 0)
                goto fail;
        snprintf(sub, sizeof(sub), "%s/tmp", buf);
        if (mkdir(sub, 0700) < 0)
                goto fail;
        if ((*out = sbx__strdup(buf)) == NULL) {
                (void) sbx__rm_rf(buf);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        }
        return SBX_OK;
fail:
        {
                int e = errno;

                (void) sbx__rm_rf(buf);
                return sbx__fail(err, SBX_E_IO, e, "sbx_spawn: cannot create the scratch HOME/TMPDIR");
        }
}

static sbx_code report_child_failure(const struct prep *p, const struct child_report *rep,
                                     const char *backend, sbx_error *err)
{
        const char *what = rep->step > 0 && rep->step < (int) SBX__ARRAY_SIZE(step_names)
                                   ? step_names[rep->step] : "unknown step";
        const char *path = "";

        if (rep->step == STEP_MOUNT_OP || rep->step == STEP_LANDLOCK_ADD) {
                if (rep->index >= 0 && (size_t) rep->index < p->n_ops)
                        path = p->ops[rep->index].dst;
        }
        if (rep->step == STEP_EXEC)
                return sbx__fail(err, SBX_E_IO, rep->err, "sbx_spawn: cannot execute \"%s\" in the "
                                 "sandbox: %s", p->exec_path, strerror(rep->err));
        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, rep->err,
                         "sbx_spawn: %s sandbox setup failed while %s%s%s%s: %s; the command "
                         "was not run", backend, what, path[0] ? " \"" : "", path,
                         path[0] ? "\"" : "", strerror(rep->err));
}

/* Shared by both rungs. */
static sbx_code ns_spawn(int rung, const struct sbx_plan *plan, const char *const *argv,
                         const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        const char *fn = "sbx_spawn";
        const char *backend = rung == 1 ? "native" : "landlock";
        struct prep p;
        char *const *src_env = opts->envp != NULL ? (char *const *) opts->envp : environ;
        char homebuf[PATH_MAX];
        int home_bad = 0;
        const char *home = caller_home(src_env, homebuf, &home_bad);
        char *scratch = NULL, scratch_home[SBX_PATH_MAX + 8], scratch_tmp[SBX_PATH_MAX + 8];
        int errp[2] = { -EBADF, -EBADF }, syncp[2] = { -EBADF, -EBADF };
        struct child_report rep;
        sbx_child *child = NULL;
        ssize_t n;
        pid_t pid;
        sbx_code r;
        uint32_t ll_opts = 0, sc_opts = 0;
        sigset_t all, oldmask;
        char *cgdirs[2] = { NULL, NULL };
        int sig, use_sync;

        memset(&p, 0, sizeof(p));
        p.rung = rung;
        p.ruleset_fd = -EBADF;
        p.err_w = p.sync_r = -EBADF;
        p.parent_pid = getpid();
        p.fail_step = atomic_load(&fault_step);
        p.memory_max = opts->memory_max;
        /* libcap, in the parent: how many capabilities this kernel has, so
         * the child drops exactly those from its bounding set. */
        p.cap_last = (int) cap_max_bits() - 1;
        if (p.cap_last < 0 || p.cap_last > 63)
                p.cap_last = 63;
        p.plan = plan;
        p.argv = (char *const *) argv;
        p.cwd = opts->cwd != NULL ? opts->cwd : plan->workspace_root;
        p.achieved = rung == 1 ? sbx__native_guarantees(plan) : sbx__landlock_guarantees(plan);
        if (opts->n_keep_fds > 0)
                memcpy(p.keep, opts->keep_fds, opts->n_keep_fds * sizeof(int));
        p.n_keep = opts->n_keep_fds;

        if (plan->home == SBX__ENV_DIR_SCRATCH &&
            (home_bad || (home != NULL && strcmp(home, "/") == 0))) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                              "%s: the caller's HOME %s, so it cannot be hidden; refusing to "
                              "run with an isolated HOME (set HOME to the real home directory)",
                              fn, home_bad ? "cannot be resolved" : "is /");
                goto fail;
        }

        /* Environment, HOME and TMPDIR. */
        if (rung == 1) {
                const char *h = plan->home == SBX__ENV_DIR_CALLER ? home
                                : (home != NULL && strcmp(home, "/") != 0 ? home : "/tmp");

                p.envp = build_env(plan, src_env, h, "/tmp");
        } else {
                r = make_scratch(&scratch, err);
                if (r != SBX_OK)
                        return r;
                snprintf(scratch_home, sizeof(scratch_home), "%s/home", scratch);
                snprintf(scratch_tmp, sizeof(scratch_tmp), "%s/tmp", scratch);
                p.envp = build_env(plan, src_env,
                                   plan->home == SBX__ENV_DIR_CALLER ? home : scratch_home,
                                   scratch_tmp);
        }
        if (p.envp == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto fail;
        }
        p.exec_path = resolve_exec(argv[0], p.envp);
        if (p.exec_path == NULL) {
                r = sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "%s: command \"%.200s\" not found in PATH",
                              fn, argv[0]);
                goto fail;
        }

        /* Resource limits: a cgroup where one is writable (v2, else v1);
         * otherwise RLIMIT_NPROC, which the kernel enforces per user and
         * not at all for root -- so root without a cgroup fails closed. */
        if (opts->pids_max > 0 || opts->memory_max > 0) {
                if (sbx__cgroup_prepare(opts->pids_max, opts->memory_max, 0, cgdirs) < 0) {
                        if (opts->pids_max > 0 && geteuid() == 0) {
                                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                              "%s: a pids limit for root needs a writable cgroup "
                                              "(v2 with the pids controller, or v1); none was "
                                              "found, refusing to run unlimited", fn);
                                goto fail;
                        }
                        cgdirs[0] = cgdirs[1] = NULL;
                }
        }
        /* Rung 2 has no pid namespace whose end takes every descendant
         * along: where a cgroup can be made, track the command in one and
         * kill what is left when it is reaped.  (Unprivileged without a
         * delegated cgroup, a descendant that leaves the process group
         * outlives the command, still confined: docs/backends.md.) */
        if (rung == 2 && cgdirs[0] == NULL && cgdirs[1] == NULL &&
            sbx__cgroup_prepare(0, 0, 1, cgdirs) < 0)
                cgdirs[0] = cgdirs[1] = NULL;
        if (opts->pids_max > 0 && cgdirs[0] == NULL) {
                p.set_nproc = 1;
                /* Counted per user across the host (the kernel's rule):
                 * conservative, never looser than asked. */
                p.rl_nproc.rlim_cur = p.rl_nproc.rlim_max =
                        (rlim_t) opts->pids_max + (rung == 1 ? 1 : 0);
        }
        if (opts->memory_max > 0) {
                p.set_as = 1;
                p.rl_as.rlim_cur = p.rl_as.rlim_max = (rlim_t) opts->memory_max;
        }
        /* Limits are a property of the spawn, not of the plan: claimed only
         * when asked for and applied (the child fails closed otherwise). */
        if (opts->pids_max > 0 || opts->memory_max > 0)
                p.achieved |= SBX_G_RESOURCE_LIMITS;

        /* seccomp + Landlock, built here. */
        if (plan->network != SBX__NET_ALLOW) {
                ll_opts |= SBX__LL_NET_DENY | SBX__LL_SCOPE_ABSTRACT;
                /* Rung 1 has its own network namespace; both refuse new
                 * unix sockets (socketpair stays) so no host socket file
                 * (docker.sock, an ssh agent) can be reached. */
                sc_opts |= SBX__SC_DENY_UNIX_PATH;
                if (rung == 2)
                        sc_opts |= SBX__SC_DENY_INET;
        }
        /* Rung 2 shares the host's file system, and Landlock does not
         * mediate connect(2) to a socket file: with the network allowed too,
         * new unix sockets are refused so /run/docker.sock and agents stay
         * out of reach (socketpair still works). */
        if (rung == 2)
                sc_opts |= SBX__SC_DENY_UNIX_PATH;
        /* Host abstract unix sockets (session buses, X11) are never the
         * sandbox's to reach, whatever the network decision. */
        ll_opts |= SBX__LL_SCOPE_SIGNAL | SBX__LL_SCOPE_ABSTRACT;
        if (rung == 2)
                sc_opts |= SBX__SC_DENY_METADATA;
        r = sbx__seccomp_build(sc_opts, &p.bpf, err);
        if (r != SBX_OK)
                goto fail;
        materialize_protected(plan);
        if (rung == 1) {
                snprintf(p.uid_map, sizeof(p.uid_map), "%u %u 1\n", (unsigned) geteuid(),
                         (unsigned) geteuid());
                snprintf(p.gid_map, sizeof(p.gid_map), "%u %u 1\n", (unsigned) getegid(),
                         (unsigned) getegid());
                p.net_ns = plan->network != SBX__NET_ALLOW;
                if (build_mounts(&p, plan, home) < 0) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: cannot prepare the mount plan", fn);
                        goto fail;
                }
        }
        if (sbx__landlock_abi() >= 1) {
                r = build_landlock(&p, plan, scratch, home, ll_opts, err);
                if (r != SBX_OK)
                        goto fail;
        } else if (rung == 2) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: Landlock is not available", fn);
                goto fail;
        }
        if ((p.achieved & plan->required) != plan->required) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                              "%s: the %s backend cannot enforce guarantees 0x%x on this kernel; "
                              "refusing to run less confined", fn, backend,
                              (unsigned) (plan->required & ~p.achieved));
                goto fail;
        }

        /* The child waits for a byte from us when it must be moved into
         * its cgroups first (and always on rung 1, whose init outlives exec). */
        p.monitor = rung == 2 && cgdirs[0] == NULL && cgdirs[1] == NULL;
        use_sync = rung == 1 || cgdirs[0] != NULL || cgdirs[1] != NULL || p.monitor ||
                   SBX__NO_VFORK;
        child = sbx__child_new(rung == 1 ? SBX_BACKEND_NATIVE : SBX_BACKEND_LANDLOCK);
        if (child == NULL || pipe2(errp, O_CLOEXEC) < 0 ||
            (use_sync && pipe2(syncp, O_CLOEXEC) < 0)) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: cannot create pipes", fn);
                goto fail;
        }
        p.err_w = errp[1];
        p.sync_r = syncp[0];

        /* No host signal handler may run in the child before exec. */
        sigfillset(&all);
        (void) pthread_sigmask(SIG_BLOCK, &all, &oldmask);
        if (rung == 1) {
                int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                            CLONE_NEWUTS | CLONE_NEWCGROUP | SIGCHLD;

                if (p.net_ns)
                        flags |= CLONE_NEWNET;
                /* A real copy of the address space: the child stays on as
                 * the namespace's init after the command starts. */
                pid = (pid_t) syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
                if (pid == 0) {
                        close(errp[0]);
                        close(syncp[1]);
                        child_main(&p);
                }
        } else if (use_sync) {
                pid = fork();
                if (pid == 0) {
                        close(errp[0]);
                        close(syncp[1]);
                        child_main(&p);
                }
        } else {
                /* vfork-style: no page tables copied, the parent waits
                 * until the child has exec'd (or died). */
                pid = vfork_child(&p, errp[0]);
        }
        (void) pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
        if (pid < 0) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, errno,
                              "%s: %s sandbox setup failed while creating the %s: %s", fn, backend,
                              rung == 1 ? "namespaces (clone)" : "process (fork)", strerror(errno));
                goto fail;
        }
        close(errp[1]);
        errp[1] = -EBADF;
        if (syncp[0] >= 0)
                close(syncp[0]);
        syncp[0] = -EBADF;
        child->pid = pid;
        child->required = plan->required;
        child->achieved = p.achieved;
        child->scratch = scratch;
        scratch = NULL;
        child->cgroup[0] = cgdirs[0];
        child->cgroup[1] = cgdirs[1];
        cgdirs[0] = cgdirs[1] = NULL;
        if (sbx__cgroup_attach(child->cgroup, pid) < 0) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, errno,
                              "%s: cannot move the sandbox into its cgroup; the command was not run",
                              fn);
                goto fail;      /* the child is still waiting: sbx_child_free kills it */
        }

        /* Let the child go, then learn whether execve succeeded. */
        if (syncp[1] >= 0) {
                sig = 1;
                n = write(syncp[1], &sig, 1);
                close(syncp[1]);
                syncp[1] = -EBADF;
        }
        do
                n = read(errp[0], &rep, sizeof(rep));
        while (n < 0 && errno == EINTR);
        close(errp[0]);
        errp[0] = -EBADF;
        if (n != 0) {
                if (n != (ssize_t) sizeof(rep))
                        rep = (struct child_report){ STEP_NONE, EIO, 0 };
                r = report_child_failure(&p, &rep, backend, err);
                sbx_child_free(child);
                child = NULL;
                goto fail;
        }
        prep_free(&p);
        *out = child;
        return SBX_OK;
fail:
        sbx__cgroup_destroy(cgdirs[0]);
        sbx__cgroup_destroy(cgdirs[1]);
        free(cgdirs[0]);
        free(cgdirs[1]);
        if (errp[0] >= 0)
                close(errp[0]);
        if (errp[1] >= 0)
                close(errp[1]);
        if (syncp[0] >= 0)
                close(syncp[0]);
        if (syncp[1] >= 0)
                close(syncp[1]);
        sbx_child_free(child);
        if (scratch != NULL) {
                (void) sbx__rm_rf(scratch);
                free(scratch);
        }
        prep_free(&p);
        return r;
}

sbx_code sbx__native_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        return ns_spawn(1, plan, argv, opts, out, err);
}

sbx_code sbx__landlock_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        return ns_spawn(2, plan, argv, opts, out, err);
}

/* An unconfined (acknowledged) plan: plain fork/exec with the caller's
 * authority.  Still no inherited fds beyond the ones passed, and a new
 * session. */
sbx_code sbx__direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err)
{
        char *const *src_env = opts->envp != NULL ? (char *const *) opts->envp : environ;
        int errp[2];
        struct child_report rep;
        sbx_child *child;
        char *path;
        char **envp;
        ssize_t n;
        pid_t pid;

        envp = build_env(plan, src_env, NULL, NULL);
        if (envp == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        path = resolve_exec(argv[0], envp);
        if (path == NULL) {
                sbx_strv_free(envp);
                return sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "sbx_spawn: command \"%.200s\" not "
                                 "found in PATH", argv[0]);
        }
        child = sbx__child_new(SBX_BACKEND_AUTO);
        if (child == NULL || pipe2(errp, O_CLOEXEC) < 0) {
                free(child);
                free(path);
                sbx_strv_free(envp);
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: cannot create a pipe");
        }
        pid = fork();
        if (pid == 0) {
                struct prep p;

                memset(&p, 0, sizeof(p));
                p.err_w = errp[1];
                p.ruleset_fd = -EBADF;
                if (opts->n_keep_fds > 0)
                        memcpy(p.keep, opts->keep_fds, opts->n_keep_fds * sizeof(int));
                p.n_keep = opts->n_keep_fds;
                close(errp[0]);
                if (setsid() < 0)
                        child_fail(&p, STEP_SETSID, errno, 0);
                if (opts->cwd != NULL && chdir(opts->cwd) < 0)
                        child_fail(&p, STEP_CHDIR, errno, 0);
                if (arrange_fds(&p) < 0)
                        child_fail(&p, STEP_FDS, errno, 0);
                execve(path, (char *const *) argv, envp);
                child_fail(&p, STEP_EXEC, errno, 0);
        }
        close(errp[1]);
        if (pid < 0) {
                close(errp[0]);
                free(child);
                free(path);
                sbx_strv_free(envp);
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: fork failed");
        }
        child->pid = pid;
        do
                n = read(errp[0], &rep, sizeof(rep));
        while (n < 0 && errno == EINTR);
        close(errp[0]);
        free(path);
        sbx_strv_free(envp);
        if (n != 0) {
                sbx_child_free(child);
                return sbx__fail(err, SBX_E_IO, n == (ssize_t) sizeof(rep) ? rep.err : EIO,
                                 "sbx_spawn: cannot execute \"%.200s\"", argv[0]);
        }
        *out = child;
        return SBX_OK;
}

/* ------------------------------------------------------------- probes */

/* Really run `true` under a read-only plan of `rung`, once per process. */
static sbx_code probe_rung(int rung, sbx_error *err)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        const char *const argv[] = { "true", NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
        int status = -1;
        sbx_code r;

        cfg.workspace_root = "/";
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        o.envp = envp;
        o.cwd = "/";
        r = sbx_profile_new(&cfg, &profile, err);
        if (r == SBX_OK)
                r = sbx_plan_compile(profile, &plan, err);
        if (r == SBX_OK)
                r = ns_spawn(rung, plan, argv, &o, &child, err);
        if (r == SBX_OK)
                r = sbx_child_wait(child, &status, err);
        if (r == SBX_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                              "probe: `true` under the %s backend exited with status 0x%x",
                              rung == 1 ? "native" : "landlock", (unsigned) status);
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        return r;
}

/* Each probe really runs once per process; its verdict is cached. */
static pthread_once_t probe_once[2] = { PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT };
static sbx_code probe_rc[2];
static sbx_error probe_err[2];

static void probe_native_once(void)
{
        probe_rc[0] = probe_rung(1, &probe_err[0]);
}

static void probe_landlock_once(void)
{
        if (sbx__landlock_abi() < 1)
                probe_rc[1] = sbx__fail(&probe_err[1], SBX_E_SANDBOX_UNAVAILABLE, ENOSYS,
                                        "probe: Landlock is not available on this kernel");
        else
                probe_rc[1] = probe_rung(2, &probe_err[1]);
}

static sbx_code probe_cached(int i, sbx_error *err)
{
        (void) pthread_once(&probe_once[i], i == 0 ? probe_native_once : probe_landlock_once);
        if (probe_rc[i] != SBX_OK && err != NULL)
                *err = probe_err[i];
        return probe_rc[i];
}

sbx_code sbx__native_probe(sbx_error *err)
{
        return probe_cached(0, err);
}

sbx_code sbx__landlock_probe(sbx_error *err)
{
        return probe_cached(1, err);
}
