/*
 * seccomp_lists.c - the system calls a confined command may make, by
 * group, and the ones refused by name (docs/seccomp.md gives each group's
 * reason; keep it in step).  Names, not numbers: seccomp.c resolves each
 * for the native ABI with libseccomp at build time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include <seccomp.h>

#include "linux/seccomp_lists.h"


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
