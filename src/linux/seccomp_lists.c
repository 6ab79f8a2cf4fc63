/*
 * seccomp_lists.c - the system calls a confined command may make, by
 * group, and the ones refused by name (docs/seccomp.md gives each group's
 * reason; keep it in step), the allow-list stage built from them, and the
 * one native ABI they are resolved for (its libseccomp token and audit
 * value, which seccomp.c and seccomp_notify.c use too).
 * Names, not numbers: each is resolved for the native ABI with libseccomp
 * when the program is compiled (at build time: tools/seccomp-gen).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "linux_internal.h"

#include "linux/seccomp_lists.h"

/* ---------------------------------------------------------- native ABI */

struct sc_arch {
        uint32_t scmp;          /* libseccomp token */
        uint32_t audit;         /* seccomp_data.arch the kernel reports */
};

/* The one ABI the program allows; every other is killed.  An architecture
 * that is not listed fails the build rather than guess. */
static const struct sc_arch sc_arches[] = {
#if defined(__x86_64__) && defined(__ILP32__)
        { SCMP_ARCH_X32,     AUDIT_ARCH_X86_64 },
#elif defined(__x86_64__)
        { SCMP_ARCH_X86_64,  AUDIT_ARCH_X86_64 },
#elif defined(__i386__)
        { SCMP_ARCH_X86,     AUDIT_ARCH_I386 },
#elif defined(__aarch64__)
        { SCMP_ARCH_AARCH64, AUDIT_ARCH_AARCH64 },
#elif defined(__arm__)
        { SCMP_ARCH_ARM,     AUDIT_ARCH_ARM },
#elif defined(__powerpc64__) && defined(__BYTE_ORDER__) && \
      __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        { SCMP_ARCH_PPC64,   AUDIT_ARCH_PPC64 },
#elif defined(__powerpc64__)
        { SCMP_ARCH_PPC64LE, AUDIT_ARCH_PPC64LE },
#elif defined(__powerpc__)
        { SCMP_ARCH_PPC,     AUDIT_ARCH_PPC },
#elif defined(__s390x__)
        { SCMP_ARCH_S390X,   AUDIT_ARCH_S390X },
#elif defined(__s390__)
        { SCMP_ARCH_S390,    AUDIT_ARCH_S390 },
#elif defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64
        { SCMP_ARCH_RISCV64, AUDIT_ARCH_RISCV64 },
#elif defined(__loongarch_lp64) && defined(SCMP_ARCH_LOONGARCH64)
        { SCMP_ARCH_LOONGARCH64, AUDIT_ARCH_LOONGARCH64 },
#else
#  error "src/linux/seccomp_lists.c: name this architecture's syscall ABI"
#endif
};

size_t sbx__seccomp_n_arches(void)
{
        return SBX__ARRAY_SIZE(sc_arches);
}

uint32_t sbx__seccomp_arch_token(size_t i)
{
        return i < SBX__ARRAY_SIZE(sc_arches) ? sc_arches[i].scmp : 0;
}

uint32_t sbx__seccomp_arch_audit(void)
{
        return sc_arches[0].audit;
}


/*
 * What a confined command may call, by group (docs/seccomp.md gives each
 * group's reason).  Names, not numbers: libseccomp resolves each for the
 * native ABI, and a name the ABI does not have (stat64 on x86_64,
 * arch_prctl on aarch64) is skipped.  A name no supported ABI knows is a
 * typo and fails the build (sc_check_names).
 */
const char *const sbx__sc_allow[] = {
        /* files: open, read, write, close, seek, sync */
        "open", "openat", "openat2", "creat", "close", "close_range", "read", "readv",
        "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "pwritev", "pwritev2",
        "lseek", "_llseek", "fsync", "fdatasync", "sync", "syncfs", "sync_file_range",
        "sync_file_range2", "arm_sync_file_range", "fallocate", "fadvise64", "fadvise64_64",
        "arm_fadvise64_64", "readahead", "ftruncate", "ftruncate64", "truncate", "truncate64",
        "sendfile", "sendfile64", "splice", "tee", "vmsplice", "copy_file_range",
        "dup", "dup2", "dup3", "fcntl", "fcntl64", "flock", "ioctl", "memfd_create",
        /* names and metadata (Landlock and the mounts decide where) */
        "stat", "stat64", "lstat", "lstat64", "fstat", "fstat64", "newfstatat", "fstatat64",
        "statx", "statfs", "statfs64", "fstatfs", "fstatfs64", "access", "faccessat",
        "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir",
        "fchdir", "mkdir", "mkdirat", "mknod", "mknodat", "rmdir", "unlink", "unlinkat",
        "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "umask",
        "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "chown32",
        "fchown32", "lchown32", "utime", "utimes", "futimesat", "utimensat",
        "utimensat_time64", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
        "flistxattr", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
        "fremovexattr", "inotify_init", "inotify_init1", "inotify_add_watch",
        "inotify_rm_watch",
        /* memory */
        "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync",
        "mlock", "mlock2", "munlock", "mlockall", "munlockall", "remap_file_pages", "mbind",
        "get_mempolicy", "set_mempolicy", "set_mempolicy_home_node", "membarrier",
        "pkey_alloc", "pkey_free", "pkey_mprotect", "move_pages", "migrate_pages",
        "cacheflush", "riscv_flush_icache",
        /* processes and threads (clone's flags: the argument filter) */
        "clone", "clone3", "fork", "vfork", "execve", "execveat", "exit", "exit_group",
        "wait4", "waitid", "waitpid", "set_tid_address", "set_robust_list",
        "get_robust_list", "futex", "futex_time64", "futex_waitv", "rseq", "arch_prctl",
        "set_tls", "prctl", "personality", "seccomp", "landlock_create_ruleset",
        "landlock_add_rule", "landlock_restrict_self", "pidfd_open", "restart_syscall",
        /* identity (no capability is held and no_new_privs is set) */
        "getpid", "getppid", "gettid", "getpgid", "setpgid", "getpgrp", "getsid", "setsid",
        "getuid", "geteuid", "getgid", "getegid", "getuid32", "geteuid32", "getgid32",
        "getegid32", "getresuid", "getresgid", "getresuid32", "getresgid32", "getgroups",
        "getgroups32", "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
        "setfsuid", "setfsgid", "setuid32", "setgid32", "setreuid32", "setregid32",
        "setresuid32", "setresgid32", "setfsuid32", "setfsgid32", "setgroups", "setgroups32",
        "capget", "capset",
        /* scheduling and limits (on rung 2 only of the caller: argument filter) */
        "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
        "sched_setparam", "sched_getscheduler", "sched_setscheduler", "sched_getattr",
        "sched_setattr", "sched_get_priority_max", "sched_get_priority_min",
        "sched_rr_get_interval", "sched_rr_get_interval_time64", "getpriority",
        "setpriority", "nice", "ioprio_get", "ioprio_set", "getrlimit", "ugetrlimit",
        "setrlimit", "prlimit64", "getrusage", "times", "getcpu",
        /* signals (whom a signal may reach: Landlock's signal scope, the pid
         * namespace) */
        "kill", "tkill", "tgkill", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
        "sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
        "rt_sigtimedwait_time64", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack",
        "signal", "sigaction", "sigprocmask", "sigpending", "sigsuspend", "signalfd",
        "signalfd4", "pause", "pidfd_send_signal",
        /* time (reading it, sleeping, timers; setting the clock is refused) */
        "clock_gettime", "clock_gettime64", "clock_getres", "clock_getres_time64",
        "clock_nanosleep", "clock_nanosleep_time64", "nanosleep", "gettimeofday", "time",
        "alarm", "getitimer", "setitimer", "timer_create", "timer_settime",
        "timer_settime64", "timer_gettime", "timer_gettime64", "timer_getoverrun",
        "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_settime64",
        "timerfd_gettime", "timerfd_gettime64",
        /* waiting for events */
        "select", "_newselect", "pselect6", "pselect6_time64", "poll", "ppoll",
        "ppoll_time64", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
        "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "io_setup", "io_destroy",
        "io_submit", "io_cancel", "io_getevents", "io_pgetevents", "io_pgetevents_time64",
        /* pipes and sockets (families and types: the argument filter;
         * addresses: the network namespace, Landlock, the supervisor) */
        "pipe", "pipe2", "socket", "socketpair", "bind", "connect", "listen", "accept",
        "accept4", "getsockname", "getpeername", "sendto", "send", "sendmsg", "sendmmsg",
        "recvfrom", "recv", "recvmsg", "recvmmsg", "recvmmsg_time64", "shutdown",
        "setsockopt", "getsockopt", "socketcall",
        /* the machine, read-only */
        "uname", "sysinfo", "getrandom",
};

/* System V IPC and POSIX message queues: their objects are found by key or
 * name in the IPC namespace, which no Landlock rule covers.  Allowed only
 * with an IPC namespace of the command's own (rung 1, bwrap); without one
 * (SBX__SC_HOST_NS) they are refused with EPERM. */
const char *const sbx__sc_ipc[] = {
        "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
        "semget", "semop", "semtimedop", "semtimedop_time64", "semctl", "ipc",
        "mq_open", "mq_unlink", "mq_timedsend", "mq_timedsend_time64", "mq_timedreceive",
        "mq_timedreceive_time64", "mq_notify", "mq_getsetattr",
};

/* Calls that exist and that a command must never make: EPERM, so tools say
 * "Operation not permitted".  Everything not named in any list gets ENOSYS;
 * this list only chooses the friendlier answer. */
const char *const sbx__sc_refuse[] = {
        /* namespaces and mounts */
        "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot",
        "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
        "fspick", "mount_setattr",
        /* reaching into other processes */
        "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
        "kcmp", "process_mrelease",
        /* kernel attack surface and host-wide state */
        "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "userfaultfd",
        "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load",
        "kexec_file_load", "init_module", "finit_module", "delete_module", "acct", "swapon",
        "swapoff", "reboot", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie",
        "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "vm86", "vm86old",
        "modify_ldt", "sethostname", "setdomainname", "fanotify_init", "fanotify_mark",
        "vhangup", "nfsservctl", "uselib", "_sysctl", "sysfs", "ustat",
        /* the clock */
        "settimeofday", "stime", "clock_settime", "clock_settime64", "clock_adjtime",
        "clock_adjtime64", "adjtimex",
};

const struct sbx__sc_pid_arg sbx__sc_self_pid[] = {
        /* (name, index of the pid argument): only pid 0, the caller */
        { "prlimit64", 0 },         { "sched_setaffinity", 0 }, { "sched_setparam", 0 },
        { "sched_setscheduler", 0 }, { "sched_setattr", 0 },    { "move_pages", 0 },
        { "migrate_pages", 0 },     { "get_robust_list", 0 },
};

const size_t sbx__sc_allow_n = sizeof(sbx__sc_allow) / sizeof(sbx__sc_allow[0]);
const size_t sbx__sc_ipc_n = sizeof(sbx__sc_ipc) / sizeof(sbx__sc_ipc[0]);
const size_t sbx__sc_refuse_n = sizeof(sbx__sc_refuse) / sizeof(sbx__sc_refuse[0]);
const size_t sbx__sc_self_pid_n = sizeof(sbx__sc_self_pid) / sizeof(sbx__sc_self_pid[0]);

/*
 * Every name in the lists must be a syscall of some ABI libseccomp knows:
 * a typo would silently allow nothing (or refuse nothing).  Checked where
 * the program is compiled; 0 or the first unknown name.
 */
const char *sbx__sc_check_names(void)
{
        static const uint32_t abis[] = {
                SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32, SCMP_ARCH_AARCH64,
                SCMP_ARCH_ARM, SCMP_ARCH_PPC64LE, SCMP_ARCH_S390X, SCMP_ARCH_RISCV64,
        };
        const char *const *lists[] = { sbx__sc_allow, sbx__sc_ipc, sbx__sc_refuse };
        const size_t lens[] = { sbx__sc_allow_n, sbx__sc_ipc_n, sbx__sc_refuse_n };
        size_t l, i, a;

        for (l = 0; l < (sizeof(lists) / sizeof(lists[0])); l++) {
                for (i = 0; i < lens[l]; i++) {
                        for (a = 0; a < (sizeof(abis) / sizeof(abis[0])); a++)
                                if (seccomp_syscall_resolve_name_arch(abis[a], lists[l][i]) !=
                                    __NR_SCMP_ERROR)
                                        break;
                        if (a == (sizeof(abis) / sizeof(abis[0])))
                                return lists[l][i];
                }
        }
        return NULL;
}

/*
 * The allow-list stage, emitted here rather than by libseccomp: the lists
 * resolved to this ABI's numbers, merged into runs of one action, and a
 * binary search over the run boundaries.  Syscall numbers are dense, so
 * ~330 allowed calls make ~90 runs: about a third of the instructions
 * libseccomp's one-comparison-per-call tree needs, which is what the
 * kernel converts and JITs at every spawn (bench/seccomp).
 *
 *   ld arch; jeq NATIVE ? next : kill
 *   ld nr;   (x86_64) nr >= 0x40000000 && nr != -1 ? kill : next   (x32)
 *   the search: jge B ? right : left, leaves "ret ACTION"
 *   kill:    ret KILL_PROCESS
 *
 * A leaf "ret ALLOW" becomes a jump into the argument stage (sc_link).
 */
#define SC_RUNS_MAX 512

struct sc_run {
        uint32_t lo;            /* first number of the run */
        uint32_t ret;           /* its action */
};

struct sc_nr_act {
        uint32_t nr, ret;
};

static int sc_cmp_nr(const void *a, const void *b)
{
        const struct sc_nr_act *x = a, *y = b;

        return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* Append every listed name of this ABI with action ret (a number listed
 * with two actions fails the build: sc_allow_stage). */
static size_t sc_collect(struct sc_nr_act *v, size_t n, size_t cap, const char *const *names,
                         size_t count, uint32_t ret)
{
        size_t i;
        int nr;

        for (i = 0; i < count && n < cap; i++) {
                nr = seccomp_syscall_resolve_name_arch(sbx__seccomp_arch_token(0), names[i]);
                if (nr < 0)
                        continue;       /* not a syscall of this ABI */
                v[n].nr = (uint32_t) nr;
                v[n].ret = ret;
                n++;
        }
        return n;
}

/*
 * Calls newer than libseccomp's table that must not answer ENOSYS, by
 * number: uretprobe (x86_64 335, Linux 6.11) is what the kernel's own
 * uretprobe trampoline calls when a host profiler (perf, bpftrace) probes
 * a library the command uses; the kernel accepts it only from that
 * trampoline.  Refusing it kills the probed process on kernels without the
 * fix that exempts it from seccomp.
 */
const struct sbx__sc_raw sbx__sc_raw_allow[] = {
        { SCMP_ARCH_X86_64, 335, "uretprobe" },
};
const size_t sbx__sc_raw_allow_n = sizeof(sbx__sc_raw_allow) / sizeof(sbx__sc_raw_allow[0]);

static size_t sc_collect_raw(struct sc_nr_act *v, size_t n, size_t cap, uint32_t ret)
{
        size_t i;

        for (i = 0; i < sbx__sc_raw_allow_n && n < cap; i++) {
                if (sbx__sc_raw_allow[i].scmp != sbx__seccomp_arch_token(0) ||
                    seccomp_syscall_resolve_name_arch(sbx__seccomp_arch_token(0), sbx__sc_raw_allow[i].name) >= 0)
                        continue;       /* another ABI, or libseccomp knows it by name now */
                v[n].nr = sbx__sc_raw_allow[i].nr;
                v[n].ret = ret;
                n++;
        }
        return n;
}

/* Instructions the search over runs[lo, hi) takes. */
static size_t sc_tree_size(size_t lo, size_t hi)
{
        size_t mid, left;

        if (hi - lo == 1)
                return 1;
        mid = lo + (hi - lo) / 2;
        left = sc_tree_size(lo, mid);
        return (left > 255 ? 2 : 1) + left + sc_tree_size(mid, hi);
}

static size_t sc_tree_emit(const struct sc_run *runs, size_t lo, size_t hi, struct sock_filter *p)
{
        size_t mid, left, n = 0;

        if (hi - lo == 1) {
                p[0] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, runs[lo].ret);
                return 1;
        }
        mid = lo + (hi - lo) / 2;
        left = sc_tree_size(lo, mid);
        if (left <= 255) {
                p[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, runs[mid].lo,
                                                       (uint8_t) left, 0);
        } else {
                p[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, runs[mid].lo, 0, 1);
                p[n++] = (struct sock_filter) BPF_STMT(BPF_JMP | BPF_JA, (uint32_t) left);
        }
        n += sc_tree_emit(runs, lo, mid, p + n);
        n += sc_tree_emit(runs, mid, hi, p + n);
        return n;
}

static uint32_t sc_kill_action(void)
{
        uint32_t action = SECCOMP_RET_KILL_PROCESS;
        int saved = errno;
        long r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);

        errno = saved;
        return r == 0 ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_KILL_THREAD;
}

sbx_code sbx__sc_allow_stage(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        const uint32_t allow = SECCOMP_RET_ALLOW;
        const uint32_t eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
        const uint32_t enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
        const size_t cap = sbx__sc_allow_n + sbx__sc_ipc_n + sbx__sc_refuse_n +
                           sbx__sc_raw_allow_n;
        struct sc_nr_act *v;
        struct sc_run *runs;
        struct sock_filter *p;
        size_t n = 0, nruns = 0, i, len, at = 0, kill_at, far;
        int x32_guard = sbx__seccomp_arch_token(0) == SCMP_ARCH_X86_64;

        v = malloc(cap * sizeof(*v));
        runs = malloc((2 * cap + 1) * sizeof(*runs));
        if (v == NULL || runs == NULL) {
                free(v);
                free(runs);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: out of memory");
        }
        n = sc_collect(v, n, cap, sbx__sc_allow, sbx__sc_allow_n, allow);
        n = sc_collect(v, n, cap, sbx__sc_ipc, sbx__sc_ipc_n,
                       (opts & SBX__SC_HOST_NS) ? eperm : allow);
        n = sc_collect(v, n, cap, sbx__sc_refuse, sbx__sc_refuse_n, eperm);
        n = sc_collect_raw(v, n, cap, allow);
        qsort(v, n, sizeof(*v), sc_cmp_nr);
        /* Runs over [0, 2^32): the gaps are ENOSYS. */
        runs[nruns].lo = 0;
        runs[nruns++].ret = enosys;
        for (i = 0; i < n; i++) {
                int gap = i == 0 ? v[i].nr > 0 : v[i].nr > v[i - 1].nr + 1;

                if (i > 0 && v[i].nr == v[i - 1].nr) {
                        if (v[i].ret == v[i - 1].ret)
                                continue;
                        uint32_t dup = v[i].nr;

                        free(v);
                        free(runs);
                        return sbx__fail(err, SBX_E_INTERNAL, 0, "seccomp: syscall %u is listed "
                                         "with two actions", (unsigned int) dup);
                }
                if (gap && runs[nruns - 1].ret != enosys) {
                        runs[nruns].lo = v[i - 1].nr + 1;
                        runs[nruns++].ret = enosys;
                }
                if (runs[nruns - 1].ret != v[i].ret) {
                        if (runs[nruns - 1].lo == v[i].nr) {
                                runs[nruns - 1].ret = v[i].ret;
                        } else {
                                runs[nruns].lo = v[i].nr;
                                runs[nruns++].ret = v[i].ret;
                        }
                }
        }
        if (n > 0 && runs[nruns - 1].ret != enosys && v[n - 1].nr != UINT32_MAX) {
                runs[nruns].lo = v[n - 1].nr + 1;
                runs[nruns++].ret = enosys;
        }
        free(v);
        /* Neighbours with one action become one run. */
        for (i = 1, n = 1; i < nruns; i++)
                if (runs[i].ret != runs[n - 1].ret)
                        runs[n++] = runs[i];
        nruns = n;
        len = 5 + (x32_guard ? 2 : 0) + sc_tree_size(0, nruns) + 1;
        if (nruns > SC_RUNS_MAX || len > BPF_MAXINSNS) {
                free(runs);
                return sbx__fail(err, SBX_E_INTERNAL, E2BIG,
                                 "seccomp: the allow-list has %zu runs", nruns);
        }
        p = malloc(len * sizeof(*p));
        if (p == NULL) {
                free(runs);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: out of memory");
        }
        kill_at = len - 1;
        p[at++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                               (uint32_t) offsetof(struct seccomp_data, arch));
        p[at] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sbx__seccomp_arch_audit(), 0,
                                              (uint8_t) 0);
        at++;
        p[at++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                               (uint32_t) offsetof(struct seccomp_data, nr));
        if (x32_guard) {
                /* bit 30 (x32) is killed; -1, a skipped call, stays ENOSYS */
                p[at++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
                p[at] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 0);
                at++;
        }
        /* the arch mismatch (and x32) reach the kill through a ja at far */
        p[at++] = (struct sock_filter) BPF_STMT(BPF_JMP | BPF_JA, 1);
        far = at++;
        p[far] = (struct sock_filter) BPF_STMT(BPF_JMP | BPF_JA, (uint32_t) (kill_at - (far + 1)));
        p[1].jf = (uint8_t) (far - 2);
        if (x32_guard)
                p[4].jf = (uint8_t) (far - 5);
        at += sc_tree_emit(runs, 0, nruns, p + at);
        p[at++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, sc_kill_action());
        free(runs);
        if (at != len) {
                free(p);
                return sbx__fail(err, SBX_E_INTERNAL, 0, "seccomp: allow-list emitted %zu of %zu",
                                 at, len);
        }
        out->filter = p;
        out->len = len;
        return SBX_OK;
}
