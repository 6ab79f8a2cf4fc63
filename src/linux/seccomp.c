/*
 * seccomp.c - the escape-primitive deny list (libseccomp wrapper).
 *
 * With seccomp_embed.c, the only file that talks to libseccomp (STYLE.md
 * rule 29).  The filter is built in the parent, exported as a classic BPF
 * program into malloc'd memory, and loaded in the child with one prctl: no
 * libseccomp code runs after fork.  A native build also compiles every
 * program at build time (tools/seccomp-gen, seccomp_embed.c): a process
 * whose libseccomp and kernel are the build machine's takes those and
 * never asks libseccomp to compile, which saves milliseconds per process
 * (docs/performance.md).
 *
 * What the filter does (default action: allow):
 *
 *   Architectures.  The native ABI and every other syscall ABI this machine
 *   can execute get the same rules (x86_64: x86_64 + i386 (int 0x80,
 *   sysenter) + x32; aarch64: + arm; ppc64 BE: + ppc; s390x: + s390).  A
 *   syscall made with any other ABI kills the process (KILL_PROCESS;
 *   KILL_THREAD on a kernel older than 4.14).
 *
 *   Errno.  Every denial returns EPERM, so a confined program sees one clean
 *   "Operation not permitted" whatever it tried, never a kill.  Two
 *   exceptions return ENOSYS because ENOSYS is what makes callers fall back
 *   or what a current kernel answers anyway: clone3 (its flags live in a
 *   struct seccomp cannot read; libc then falls back to clone, whose flags
 *   are checked) and the x86_64/x32 cross-table numbers (below).
 *
 *   Unconditionally refused (EPERM), wherever the ABI has the syscall:
 *     namespaces/mounts: unshare setns mount umount umount2 pivot_root
 *       chroot move_mount open_tree open_tree_attr fsopen fsconfig fsmount
 *       fspick mount_setattr
 *     other processes: ptrace process_vm_readv process_vm_writev
 *       process_madvise pidfd_getfd kcmp
 *     kernel attack surface: bpf keyctl add_key request_key perf_event_open
 *       userfaultfd io_uring_setup io_uring_enter io_uring_register
 *       kexec_load kexec_file_load init_module finit_module delete_module
 *       acct swapon swapoff reboot syslog quotactl quotactl_fd
 *       lookup_dcookie open_by_handle_at name_to_handle_at iopl ioperm
 *       vm86 vm86old
 *     the clock: settimeofday stime clock_settime clock_settime64
 *       clock_adjtime clock_adjtime64 adjtimex
 *   Refused by argument (EPERM):
 *     clone with any of CLONE_NEWNS/UTS/IPC/USER/PID/NET/CGROUP/TIME in its
 *       flags (flags are arg0, arg1 on s390/s390x; libseccomp does not remap
 *       argument positions, so the index is chosen per native arch here and
 *       holds for every local ABI of that arch);
 *     ioctl TIOCSTI and TIOCLINUX, compared on the low 32 bits of the
 *       request because the kernel truncates it (a high-bit variant is
 *       refused too);
 *     personality: only PER_LINUX (0), PER_LINUX32 (8) and the query
 *       0xffffffff pass (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ... do not);
 *     mknod/mknodat of a character or block device (S_IFMT of the mode;
 *       fifos, sockets and regular files stay allowed);
 *     socket(AF_PACKET, ...), and AF_INET/AF_INET6 with type SOCK_RAW or
 *       SOCK_PACKET (the obsolete (AF_INET, SOCK_PACKET) pair is turned into
 *       a packet socket by the kernel);
 *     SBX__SC_DENY_INET: socket and socketpair of every family but AF_UNIX
 *       (this includes AF_NETLINK; without the option netlink stays allowed
 *       because ip(8) and getaddrinfo use NETLINK_ROUTE, which only sees
 *       the sandbox's own network namespace on rung 1);
 *     SBX__SC_DENY_UNIX_PATH: socket(AF_UNIX), and socketpair(AF_UNIX) of
 *       type SOCK_DGRAM or SOCK_RAW (a datagram pair can sendto/connect any
 *       socket file or abstract name; stream and seqpacket pairs stay);
 *     SBX__SC_UNIX_STREAM (instead): socket and socketpair(AF_UNIX) of
 *       type SOCK_DGRAM or SOCK_RAW; a stream or seqpacket socket's connect
 *       goes to the supervisor (seccomp_notify.c), and sendto ignores or
 *       refuses an address on one.
 *     seccomp(SECCOMP_SET_MODE_FILTER) with SECCOMP_FILTER_FLAG_NEW_LISTENER
 *       (a command's own listener could answer CONTINUE for the calls the
 *       supervisor's notification filter refuses, once the supervisor is
 *       gone; sc_add_listener);
 *   Integer arguments the kernel truncates to 32 bits are compared on their
 *   low 32 bits, so setting high bits does not slip past an equality test.
 *
 *   Known costs of failing closed: on i386 the socketcall(2) multiplexer
 *   passes its arguments in memory seccomp cannot read, so libseccomp turns
 *   every argument-filtered socket rule into "socketcall(SYS_SOCKET) is
 *   refused": 32-bit x86 programs that create sockets through socketcall get
 *   EPERM (the direct socket syscall, kernel 4.3+, is filtered by argument).
 *   That one-argument rules (AF_PACKET on socket, families above AF_NETLINK
 *   on socketpair) refuse every socketcall(SYS_SOCKET / SYS_SOCKETPAIR) is
 *   also what makes the two-argument type rules (datagram unix sockets)
 *   hold there: libseccomp compiles those against socketcall's own second
 *   argument, a pointer.  A change that drops the one-argument rules must
 *   refuse both subcalls explicitly.
 *   adjtimex/clock_adjtime are refused even for reading (the mode is inside
 *   a struct).
 *
 *   x86_64 hand-written prologue.  Before Linux 5.4 the x86_64 and x32
 *   syscall tables were one table: a 64-bit task could call an x32-only
 *   entry (ioctl is 16 for x86_64 but 514 for x32, and 514 without the x32
 *   bit reached compat ioctl) and an x32 task could call a 64-bit-only entry
 *   (16 | 0x40000000 reached native ioctl).  libseccomp matches only the
 *   numbers of the right table, so on such kernels a TIOCSTI or ptrace
 *   could slip through the other number.  A few BPF instructions in front
 *   of the libseccomp program answer ENOSYS (what 5.4+ kernels answer) for
 *   those cross-table numbers of every syscall this filter restricts.  The
 *   same prologue refuses open_tree_attr (467, Linux 6.15) by number on
 *   every local ABI when the libseccomp in use does not know its name.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#  define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#include <seccomp.h>

#include "linux_internal.h"

#include "linux/seccomp_defs.h"

/* ---------------------------------------------------------- local ABIs */

struct sc_arch {
        uint32_t scmp;          /* libseccomp token */
        uint32_t audit;         /* seccomp_data.arch the kernel reports */
        uint32_t nr_bit;        /* OR-ed into every syscall number (x32) */
};

/* Every syscall ABI a process on this machine can use; the first is native.
 * An architecture that is not listed fails the build rather than leave a
 * second ABI unfiltered. */
static const struct sc_arch sc_arches[] = {
#if defined(__x86_64__) && defined(__ILP32__)
        { SCMP_ARCH_X32,     AUDIT_ARCH_X86_64, SC_X32_BIT },
        { SCMP_ARCH_X86_64,  AUDIT_ARCH_X86_64, 0 },
        { SCMP_ARCH_X86,     AUDIT_ARCH_I386,   0 },
#elif defined(__x86_64__)
        { SCMP_ARCH_X86_64,  AUDIT_ARCH_X86_64, 0 },
        { SCMP_ARCH_X86,     AUDIT_ARCH_I386,   0 },
        { SCMP_ARCH_X32,     AUDIT_ARCH_X86_64, SC_X32_BIT },
#elif defined(__i386__)
        { SCMP_ARCH_X86,     AUDIT_ARCH_I386,   0 },
#elif defined(__aarch64__)
        { SCMP_ARCH_AARCH64, AUDIT_ARCH_AARCH64, 0 },
        { SCMP_ARCH_ARM,     AUDIT_ARCH_ARM,     0 },
#elif defined(__arm__)
        { SCMP_ARCH_ARM,     AUDIT_ARCH_ARM,     0 },
#elif defined(__powerpc64__) && defined(__BYTE_ORDER__) && \
      __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        { SCMP_ARCH_PPC64,   AUDIT_ARCH_PPC64,   0 },
        { SCMP_ARCH_PPC,     AUDIT_ARCH_PPC,     0 },
#elif defined(__powerpc64__)
        { SCMP_ARCH_PPC64LE, AUDIT_ARCH_PPC64LE, 0 },
#elif defined(__powerpc__)
        { SCMP_ARCH_PPC,     AUDIT_ARCH_PPC,     0 },
#elif defined(__s390x__)
        { SCMP_ARCH_S390X,   AUDIT_ARCH_S390X,   0 },
        { SCMP_ARCH_S390,    AUDIT_ARCH_S390,    0 },
#elif defined(__s390__)
        { SCMP_ARCH_S390,    AUDIT_ARCH_S390,    0 },
#elif defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64
        { SCMP_ARCH_RISCV64, AUDIT_ARCH_RISCV64, 0 },
#elif defined(__loongarch_lp64) && defined(SCMP_ARCH_LOONGARCH64)
        { SCMP_ARCH_LOONGARCH64, AUDIT_ARCH_LOONGARCH64, 0 },
#else
#  error "src/linux/seccomp.c: list every syscall ABI this architecture can run"
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

/* ---------------------------------------------------------- rule tables */

struct sc_sys {
        int         nr;         /* SCMP_SYS(): native or libseccomp pseudo number */
        const char *name;
};
#define SC_SYS(x) { SCMP_SYS(x), #x }

/* Refused with EPERM whatever the arguments. */
static const struct sc_sys sc_deny[] = {
        /* new namespaces and mounts */
        SC_SYS(unshare), SC_SYS(setns),
        SC_SYS(mount), SC_SYS(umount), SC_SYS(umount2), SC_SYS(pivot_root), SC_SYS(chroot),
        SC_SYS(move_mount), SC_SYS(open_tree), SC_SYS(fsopen), SC_SYS(fsconfig),
        SC_SYS(fsmount), SC_SYS(fspick), SC_SYS(mount_setattr),
        /* reaching into other processes */
        SC_SYS(ptrace), SC_SYS(process_vm_readv), SC_SYS(process_vm_writev),
        SC_SYS(process_madvise), SC_SYS(pidfd_getfd), SC_SYS(kcmp),
        /* kernel attack surface and host-wide state */
        SC_SYS(bpf), SC_SYS(keyctl), SC_SYS(add_key), SC_SYS(request_key),
        SC_SYS(perf_event_open), SC_SYS(userfaultfd),
        SC_SYS(io_uring_setup), SC_SYS(io_uring_enter), SC_SYS(io_uring_register),
        SC_SYS(kexec_load), SC_SYS(kexec_file_load),
        SC_SYS(init_module), SC_SYS(finit_module), SC_SYS(delete_module),
        SC_SYS(acct), SC_SYS(swapon), SC_SYS(swapoff), SC_SYS(reboot), SC_SYS(syslog),
        SC_SYS(quotactl), SC_SYS(quotactl_fd), SC_SYS(lookup_dcookie),
        SC_SYS(open_by_handle_at), SC_SYS(name_to_handle_at),
        SC_SYS(iopl), SC_SYS(ioperm), SC_SYS(vm86), SC_SYS(vm86old),
        /* setting the clock */
        SC_SYS(settimeofday), SC_SYS(stime), SC_SYS(clock_settime), SC_SYS(clock_settime64),
        SC_SYS(clock_adjtime), SC_SYS(clock_adjtime64), SC_SYS(adjtimex),
#ifdef __SNR_open_tree_attr
        SC_SYS(open_tree_attr),
#endif
};

/* Restricted by argument below; listed for the x86_64/x32 prologue. */
static const char *const sc_filtered[] = {
        "clone", "clone3", "ioctl", "personality", "mknod", "mknodat", "socket", "socketpair",
        "chmod", "fchmod", "fchmodat", "open", "openat", "creat", "mkdir", "mkdirat", "openat2",
        "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat", "utimensat",
        "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
};

static const uint32_t sc_clone_ns[] = {
        CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
        CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/* ------------------------------------------------------------- helpers */

/* libseccomp returns -errno; ENOMEM is ours to report, the rest is a bug. */
static sbx_code sc_code(int r)
{
        return r == -ENOMEM ? SBX_E_NOMEM : SBX_E_INTERNAL;
}

static sbx_code sc_rule(scmp_filter_ctx ctx, uint32_t action, int nr, const char *name,
                        unsigned int n, const struct scmp_arg_cmp *cmp, sbx_error *err)
{
        int r = seccomp_rule_add_array(ctx, action, nr, n, cmp);

        if (r < 0)
                return sbx__fail(err, sc_code(r), -r,
                                 "seccomp: cannot add the rule for \"%s\" (libseccomp error %d)",
                                 name, r);
        return SBX_OK;
}

static struct scmp_arg_cmp sc_cmp(unsigned int arg, enum scmp_compare op, uint64_t a, uint64_t b)
{
        struct scmp_arg_cmp c;

        c.arg = arg;
        c.op = op;
        c.datum_a = a;
        c.datum_b = b;
        return c;
}

/* arg & 0xffffffff == value: the kernel reads these arguments as 32-bit. */
static struct scmp_arg_cmp sc_eq32(unsigned int arg, uint32_t value)
{
        return sc_cmp(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, value);
}

/* --------------------------------------------------------------- rules */

static sbx_code sc_add_clone(scmp_filter_ctx ctx, sbx_error *err)
{
        struct scmp_arg_cmp c;
        sbx_code rc;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(sc_clone_ns); i++) {
                c = sc_cmp(SC_CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, sc_clone_ns[i], sc_clone_ns[i]);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), "clone", 1, &c, err);
                if (rc != SBX_OK)
                        return rc;
        }
        return sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), "clone3", 0, NULL, err);
}

static sbx_code sc_add_ioctl(scmp_filter_ctx ctx, sbx_error *err)
{
        static const uint32_t req[] = { TIOCSTI, TIOCLINUX };
        struct scmp_arg_cmp c;
        sbx_code rc;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(req); i++) {
                c = sc_eq32(1, req[i]);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), "ioctl", 1, &c, err);
                if (rc != SBX_OK)
                        return rc;
        }
        return SBX_OK;
}

/*
 * personality: allow exactly 0, 8 and 0xffffffff.  libseccomp 2.5 takes one
 * comparison per argument per rule and rules are OR-ed, so the complement
 * is covered with single comparisons:
 *   - a0 > 0xffffffff;
 *   - for every bit i but 3: bit i set and bit (i+1) mod 32 clear;
 *   - bits 2 and 3 set and bit 4 clear.
 * A 32-bit value other than 0 and 0xffffffff has, going round cyclically, a
 * set bit followed by a clear one.  If that happens only at bit 3, the set
 * bits are one run ending at bit 3: either bit 2 is in it (third rule) or
 * the value is 8.  No rule matches 0 (nothing set), 0xffffffff (nothing
 * clear) or 8 (its only set bit is 3, and bit 2 is clear).  On 32-bit ABIs
 * the first rule never matches, which is right: there are no high bits.
 */
_Static_assert(PER_LINUX == 0 && PER_LINUX32 == 8, "the personality cover assumes these values");

static sbx_code sc_add_personality(scmp_filter_ctx ctx, sbx_error *err)
{
        struct scmp_arg_cmp c;
        uint32_t mask, bit;
        sbx_code rc;
        unsigned int i;

        c = sc_cmp(0, SCMP_CMP_GT, 0xffffffffu, 0);
        rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), "personality", 1, &c, err);
        for (i = 0; i < 32 && rc == SBX_OK; i++) {
                if (i == 3)
                        continue;
                bit = 1u << i;
                mask = bit | (1u << ((i + 1) % 32));
                c = sc_cmp(0, SCMP_CMP_MASKED_EQ, mask, bit);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), "personality",
                             1, &c, err);
        }
        if (rc != SBX_OK)
                return rc;
        c = sc_cmp(0, SCMP_CMP_MASKED_EQ, 0x1cu, 0x0cu);
        return sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), "personality", 1, &c, err);
}

static sbx_code sc_add_mknod(scmp_filter_ctx ctx, sbx_error *err)
{
        static const uint32_t type[] = { S_IFCHR, S_IFBLK };
        struct scmp_arg_cmp c;
        sbx_code rc;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(type); i++) {
                c = sc_cmp(1, SCMP_CMP_MASKED_EQ, S_IFMT, type[i]);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), "mknod", 1, &c, err);
                if (rc != SBX_OK)
                        return rc;
                c = sc_cmp(2, SCMP_CMP_MASKED_EQ, S_IFMT, type[i]);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), "mknodat", 1, &c, err);
                if (rc != SBX_OK)
                        return rc;
        }
        return SBX_OK;
}

/*
 * No setuid/setgid file or directory is ever created, the writable roots
 * included: the mode argument of every call that sets or creates with a
 * mode must not carry S_ISUID or S_ISGID.  (A file created setuid in the
 * workspace would keep the bit on the host, outside the nosuid mount.)
 * openat2 hides its mode in a struct, so it is refused with ENOSYS and
 * libc falls back to openat.
 */
static sbx_code sc_add_setid(scmp_filter_ctx ctx, sbx_error *err)
{
        static const struct { int nr; const char *name; unsigned int arg; } calls[] = {
                { SCMP_SYS(chmod), "chmod", 1 },       { SCMP_SYS(fchmod), "fchmod", 1 },
                { SCMP_SYS(fchmodat), "fchmodat", 2 }, { SCMP_SYS(open), "open", 2 },
                { SCMP_SYS(openat), "openat", 3 },     { SCMP_SYS(creat), "creat", 1 },
                { SCMP_SYS(mkdir), "mkdir", 1 },       { SCMP_SYS(mkdirat), "mkdirat", 2 },
                { SCMP_SYS(mknod), "mknod", 1 },       { SCMP_SYS(mknodat), "mknodat", 2 },
        };
        static const uint32_t bits[] = { S_ISUID, S_ISGID };
        struct scmp_arg_cmp c;
        sbx_code rc = SBX_OK;
        size_t i, b;

        for (i = 0; i < SBX__ARRAY_SIZE(calls) && rc == SBX_OK; i++) {
                for (b = 0; b < SBX__ARRAY_SIZE(bits) && rc == SBX_OK; b++) {
                        c = sc_cmp(calls[i].arg, SCMP_CMP_MASKED_EQ, bits[b], bits[b]);
                        rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), calls[i].nr, calls[i].name, 1, &c, err);
                }
        }
        if (rc == SBX_OK)
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), "openat2", 0, NULL, err);
        return rc;
}

/*
 * seccomp(SECCOMP_SET_MODE_FILTER) with SECCOMP_FILTER_FLAG_NEW_LISTENER.
 * The supervisor's filter (the git veto, --allow-unix, the observer) is a
 * user notification; the kernel refuses a second listener only while ours
 * is open.  Were the supervisor gone (killed with its descendants alive),
 * a command could install a listener filter of its own, whose newer
 * USER_NOTIF outranks ours, and answer CONTINUE to the calls ours exists
 * to refuse.  Our filter is loaded before this list, so it is unaffected;
 * filters without a listener stay allowed (they only narrow).
 */
static sbx_code sc_add_listener(scmp_filter_ctx ctx, sbx_error *err)
{
        struct scmp_arg_cmp c[2];

        c[0] = sc_eq32(0, SECCOMP_SET_MODE_FILTER);
        c[1] = sc_cmp(1, SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER);
        return sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), "seccomp", 2, c, err);
}

/* SBX__SC_DENY_METADATA: rung 2 has no read-only mounts, and Landlock does
 * not cover chmod, chown, utimes or xattrs, so they are refused outright. */
static const struct sc_sys sc_deny_meta[] = {
        SC_SYS(chmod), SC_SYS(fchmod), SC_SYS(fchmodat),
        SC_SYS(chown), SC_SYS(fchown), SC_SYS(lchown), SC_SYS(fchownat),
        SC_SYS(chown32), SC_SYS(fchown32), SC_SYS(lchown32),
        SC_SYS(utime), SC_SYS(utimes), SC_SYS(futimesat), SC_SYS(utimensat),
        SC_SYS(utimensat_time64),
        SC_SYS(setxattr), SC_SYS(lsetxattr), SC_SYS(fsetxattr),
        SC_SYS(removexattr), SC_SYS(lremovexattr), SC_SYS(fremovexattr),
};

static sbx_code sc_add_metadata(scmp_filter_ctx ctx, sbx_error *err)
{
        /* Inode flags and fs attributes through ioctl: Landlock does not
         * mediate them, and a read-only fd is enough to set them. */
        static const uint32_t req[] = { FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR,
                                        FS_IOC_SETVERSION, FS_IOC32_SETVERSION };
        struct scmp_arg_cmp c;
        sbx_code rc = SBX_OK;
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(req) && rc == SBX_OK; i++) {
                c = sc_eq32(1, req[i]);
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), "ioctl", 1, &c, err);
        }

        for (i = 0; i < SBX__ARRAY_SIZE(sc_deny_meta) && rc == SBX_OK; i++) {
                if (sc_deny_meta[i].nr == __NR_SCMP_ERROR)
                        continue;
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), sc_deny_meta[i].nr, sc_deny_meta[i].name,
                             0, NULL, err);
        }
        return rc;
}

static sbx_code sc_add_socket(scmp_filter_ctx ctx, uint32_t opts, sbx_error *err)
{
        static const uint32_t inet[] = { AF_INET, AF_INET6 };
        static const uint32_t bad_type[] = { SOCK_RAW, SOCK_PACKET };
        const uint32_t act = SCMP_ACT_ERRNO(EPERM);
        struct scmp_arg_cmp c[2];
        sbx_code rc;
        size_t i, j;

        c[0] = sc_eq32(0, AF_PACKET);
        rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 1, c, err);
        /* Only AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK are ever needed.
         * Every other family is refused: vsock (not confined by a network
         * namespace, it reaches the hypervisor's and host's port space),
         * TIPC, RDS, XDP, CAN, Bluetooth, ALG, KCM, ...  Families above
         * AF_NETLINK (16) by one comparison, the old ones below it one by
         * one. */
        for (i = 0; rc == SBX_OK && i < 2; i++) {
                static const uint32_t low[] = { 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15 };
                const int nr = i == 0 ? SCMP_SYS(socket) : SCMP_SYS(socketpair);
                const char *name = i == 0 ? "socket" : "socketpair";

                c[0] = sc_cmp(0, SCMP_CMP_GT, AF_NETLINK, 0);
                rc = sc_rule(ctx, act, nr, name, 1, c, err);
                for (j = 0; j < SBX__ARRAY_SIZE(low) && rc == SBX_OK; j++) {
                        c[0] = sc_eq32(0, low[j]);
                        rc = sc_rule(ctx, act, nr, name, 1, c, err);
                }
        }
        for (i = 0; i < SBX__ARRAY_SIZE(inet) && rc == SBX_OK; i++) {
                for (j = 0; j < SBX__ARRAY_SIZE(bad_type) && rc == SBX_OK; j++) {
                        /* the type's low 4 bits; SOCK_NONBLOCK/CLOEXEC sit above */
                        c[0] = sc_eq32(0, inet[i]);
                        c[1] = sc_cmp(1, SCMP_CMP_MASKED_EQ, 0xfu, bad_type[j]);
                        rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 2, c, err);
                }
        }
        if (rc == SBX_OK && (opts & SBX__SC_DENY_INET) != 0 &&
            (opts & SBX__SC_INET_NOTIFY) != 0) {
                /* The observer's variant: AF_INET and AF_INET6 exactly go
                 * on to the supervisor's filter, which refuses them too
                 * (SBX__NF_INET); every other family but AF_UNIX is refused
                 * here: above AF_NETLINK (on all 64 bits) and the low ones
                 * above, AF_UNSPEC and AF_NETLINK below. */
                static const uint32_t rest[] = { AF_UNSPEC, AF_NETLINK };

                for (i = 0; i < SBX__ARRAY_SIZE(rest) && rc == SBX_OK; i++) {
                        c[0] = sc_eq32(0, rest[i]);
                        rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 1, c, err);
                }
                c[0] = sc_cmp(0, SCMP_CMP_NE, AF_UNIX, 0);
                if (rc == SBX_OK)
                        rc = sc_rule(ctx, act, SCMP_SYS(socketpair), "socketpair", 1, c, err);
        } else if (rc == SBX_OK && (opts & SBX__SC_DENY_INET) != 0) {
                /* Not AF_UNIX on all 64 bits: a value with high bits set is
                 * refused too, which is only stricter than the kernel. */
                c[0] = sc_cmp(0, SCMP_CMP_NE, AF_UNIX, 0);
                rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 1, c, err);
                if (rc == SBX_OK)
                        rc = sc_rule(ctx, act, SCMP_SYS(socketpair), "socketpair", 1, c, err);
        }
        if (rc == SBX_OK && (opts & (SBX__SC_DENY_UNIX_PATH | SBX__SC_UNIX_STREAM)) != 0) {
                c[0] = sc_eq32(0, AF_UNIX);
                if ((opts & SBX__SC_DENY_UNIX_PATH) != 0)
                        rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 1, c, err);
                /* A datagram pair is connected to each other, yet sendto
                 * with an address, or connect, sends to any socket file or
                 * abstract name: a host's syslog, journald, a test's
                 * listener.  Stream and seqpacket pairs ignore or refuse an
                 * address.  The kernel treats SOCK_RAW as SOCK_DGRAM for
                 * unix sockets; RDM and the rest it refuses itself.  With
                 * UNIX_STREAM the same holds for socket(AF_UNIX): its
                 * connect goes to the supervisor, its sendto would not. */
                for (i = 0; rc == SBX_OK && i < 2; i++) {
                        c[1] = sc_cmp(1, SCMP_CMP_MASKED_EQ, 0xfu, i == 0 ? SOCK_DGRAM : SOCK_RAW);
                        rc = sc_rule(ctx, act, SCMP_SYS(socketpair), "socketpair", 2, c, err);
                        if (rc == SBX_OK && (opts & SBX__SC_DENY_UNIX_PATH) == 0)
                                rc = sc_rule(ctx, act, SCMP_SYS(socket), "socket", 2, c, err);
                }
        }
        return rc;
}

/* ------------------------------------------------------------- prologue */

struct sc_raw {
        uint32_t audit;         /* seccomp_data.arch */
        uint32_t nr;            /* seccomp_data.nr */
        uint32_t ret;           /* SECCOMP_RET_ERRNO | errno */
};

#define SC_RAW_MAX 128

struct sc_raws {
        struct sc_raw e[SC_RAW_MAX];
        size_t        n;
};

static int sc_raw_add(struct sc_raws *r, uint32_t audit, uint32_t nr, uint32_t ret)
{
        size_t i;

        for (i = 0; i < r->n; i++)
                if (r->e[i].audit == audit && r->e[i].nr == nr)
                        return 0;
        if (r->n == SC_RAW_MAX)
                return -E2BIG;
        r->e[r->n].audit = audit;
        r->e[r->n].nr = nr;
        r->e[r->n].ret = ret;
        r->n++;
        return 0;
}

static int sc_arch_is_local(uint32_t scmp)
{
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(sc_arches); i++)
                if (sc_arches[i].scmp == scmp)
                        return 1;
        return 0;
}

/* The cross-table numbers of one syscall name (see the file comment). */
static int sc_raw_cross_table(struct sc_raws *r, const char *name)
{
        const uint32_t enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
        int n64 = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
        int n32 = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X32, name);
        int rc;

        if (n64 < 0 || n32 < 0 || (uint32_t) n32 == ((uint32_t) n64 | SC_X32_BIT))
                return 0;
        rc = sc_raw_add(r, AUDIT_ARCH_X86_64, (uint32_t) n64 | SC_X32_BIT, enosys);
        if (rc == 0 && ((uint32_t) n32 & ~SC_X32_BIT) >= 512)
                rc = sc_raw_add(r, AUDIT_ARCH_X86_64, (uint32_t) n32 & ~SC_X32_BIT, enosys);
        return rc;
}

/* Fill r with the raw-number rules; 0 or -E2BIG. */
static int sc_raw_collect(struct sc_raws *r)
{
        size_t i;
        int rc = 0;

        r->n = 0;
        if (sc_arch_is_local(SCMP_ARCH_X86_64) && sc_arch_is_local(SCMP_ARCH_X32)) {
                for (i = 0; i < SBX__ARRAY_SIZE(sc_deny) && rc == 0; i++)
                        rc = sc_raw_cross_table(r, sc_deny[i].name);
                for (i = 0; i < SBX__ARRAY_SIZE(sc_filtered) && rc == 0; i++)
                        rc = sc_raw_cross_table(r, sc_filtered[i]);
        }
        /* fchmodat2 carries a mode we cannot inspect here; setxattrat and
         * removexattrat postdate libseccomp 2.5.4.  ENOSYS: libc falls back
         * to the calls the filter does inspect. */
        for (i = 0; i < SBX__ARRAY_SIZE(sc_arches) && rc == 0; i++) {
                const uint32_t enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

                rc = sc_raw_add(r, sc_arches[i].audit, SC_NR_FCHMODAT2 | sc_arches[i].nr_bit, enosys);
                if (rc == 0)
                        rc = sc_raw_add(r, sc_arches[i].audit, SC_NR_SETXATTRAT | sc_arches[i].nr_bit,
                                        enosys);
                if (rc == 0)
                        rc = sc_raw_add(r, sc_arches[i].audit,
                                        SC_NR_REMOVEXATTRAT | sc_arches[i].nr_bit, enosys);
                if (rc == 0)
                        rc = sc_raw_add(r, sc_arches[i].audit,
                                        SC_NR_FILE_SETATTR | sc_arches[i].nr_bit, enosys);
        }
#ifndef __SNR_open_tree_attr
        for (i = 0; i < SBX__ARRAY_SIZE(sc_arches) && rc == 0; i++)
                rc = sc_raw_add(r, sc_arches[i].audit, SC_NR_OPEN_TREE_ATTR | sc_arches[i].nr_bit,
                                SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
#endif
        return rc;
}

#define SC_STMT(c, k)           ((struct sock_filter) BPF_STMT((c), (k)))
#define SC_JUMP(c, k, t, f)     ((struct sock_filter) BPF_JUMP((c), (k), (t), (f)))
#define SC_OFF_NR               ((uint32_t) offsetof(struct seccomp_data, nr))
#define SC_OFF_ARCH             ((uint32_t) offsetof(struct seccomp_data, arch))

/*
 * Emit the prologue into p (room for cap instructions):
 *
 *   per arch:  ld arch; jeq ARCH ? next : <next arch, or out>
 *              ld nr;   jeq NR1 -> ret1; jeq NR2 -> ret2; ...; ja out
 *   ret1; ret2; ...
 *   out:       (the libseccomp program)
 *
 * Only forward jumps, all inside the prologue; the libseccomp program that
 * follows uses relative jumps only, so moving it does not change it.
 * Returns the instruction count (0 when there is nothing to add) or -E2BIG.
 */
static int sc_raw_emit(const struct sc_raws *r, struct sock_filter *p, size_t cap)
{
        uint32_t arch[SC_RAW_MAX];
        size_t jeq_at[SC_RAW_MAX];
        size_t n = 0, narch = 0, total, a, i, jf_at, ja_at;

        for (i = 0; i < r->n; i++) {
                for (a = 0; a < narch && arch[a] != r->e[i].audit; a++)
                        ;
                if (a == narch)
                        arch[narch++] = r->e[i].audit;
        }
        total = 4 * narch + 2 * r->n;
        if (total > cap || total > 255)
                return -E2BIG;
        for (a = 0; a < narch; a++) {
                p[n++] = SC_STMT(BPF_LD | BPF_W | BPF_ABS, SC_OFF_ARCH);
                jf_at = n;
                p[n++] = SC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch[a], 0, 0);
                p[n++] = SC_STMT(BPF_LD | BPF_W | BPF_ABS, SC_OFF_NR);
                for (i = 0; i < r->n; i++) {
                        if (r->e[i].audit != arch[a])
                                continue;
                        jeq_at[i] = n;
                        p[n++] = SC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, r->e[i].nr, 0, 0);
                }
                ja_at = n;
                p[n++] = SC_STMT(BPF_JMP | BPF_JA, 0);
                /* another arch: the next group, or past the returns */
                p[jf_at].jf = (uint8_t) ((a + 1 < narch ? n : total) - (jf_at + 1));
                p[ja_at].k = (uint32_t) (total - (ja_at + 1));
        }
        for (i = 0; i < r->n; i++) {
                p[n] = SC_STMT(BPF_RET | BPF_K, r->e[i].ret);
                p[jeq_at[i]].jt = (uint8_t) (n - (jeq_at[i] + 1));
                n++;
        }
        return (int) n;
}

/* --------------------------------------------------------------- export */

static int sc_read_all(int fd, void *buf, size_t len)
{
        size_t got = 0;
        ssize_t n;

        while (got < len) {
                n = pread(fd, (char *) buf + got, len - got, (off_t) got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO;
                got += (size_t) n;
        }
        return 0;
}

/* Export ctx behind `pro` (npro instructions) into one malloc'd program.
 * libseccomp 2.5 has no export-to-memory, so it goes through a memfd. */
static sbx_code sc_export(scmp_filter_ctx ctx, const struct sock_filter *pro, size_t npro,
                          struct sock_filter **prog_out, size_t *len_out, sbx_error *err)
{
        struct sock_filter *prog = NULL;
        struct stat st;
        size_t nlib;
        sbx_code code;
        int fd, r;

        fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
        if (fd < 0)
                return sbx__fail(err, errno == ENOMEM ? SBX_E_NOMEM : SBX_E_INTERNAL, errno,
                                 "seccomp: memfd_create for the BPF export failed");
        r = seccomp_export_bpf(ctx, fd);
        if (r < 0) {
                code = sbx__fail(err, sc_code(r), -r,
                                 "seccomp: seccomp_export_bpf failed (libseccomp error %d)", r);
                goto out;
        }
        if (fstat(fd, &st) < 0) {
                code = sbx__fail(err, SBX_E_INTERNAL, errno, "seccomp: fstat of the BPF export");
                goto out;
        }
        if (st.st_size <= 0 || (size_t) st.st_size % sizeof(struct sock_filter) != 0 ||
            (size_t) st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
                code = sbx__fail(err, SBX_E_INTERNAL, 0,
                                 "seccomp: exported BPF has an invalid size (%lld bytes)",
                                 (long long) st.st_size);
                goto out;
        }
        nlib = (size_t) st.st_size / sizeof(struct sock_filter);
        if (npro + nlib > BPF_MAXINSNS) {
                code = sbx__fail(err, SBX_E_INTERNAL, E2BIG,
                                 "seccomp: the filter needs %zu instructions, the kernel takes %d",
                                 npro + nlib, BPF_MAXINSNS);
                goto out;
        }
        prog = malloc((npro + nlib) * sizeof(*prog));
        if (prog == NULL) {
                code = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: out of memory");
                goto out;
        }
        if (npro > 0)
                memcpy(prog, pro, npro * sizeof(*prog));
        r = sc_read_all(fd, prog + npro, nlib * sizeof(*prog));
        if (r < 0) {
                free(prog);
                code = sbx__fail(err, SBX_E_INTERNAL, -r, "seccomp: reading the BPF export back");
                goto out;
        }
        *prog_out = prog;
        *len_out = npro + nlib;
        code = SBX_OK;
out:
        (void) close(fd);
        return code;
}

/* ------------------------------------------------------------------ API */

static sbx_code sc_populate(scmp_filter_ctx ctx, uint32_t opts, sbx_error *err)
{
        uint32_t badarch = SCMP_ACT_KILL_PROCESS;
        sbx_code rc = SBX_OK;
        size_t i;
        int r;

        /* KILL_PROCESS needs Linux 4.14; older kernels kill the thread,
         * which still never runs the syscall. */
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, badarch);
        if (r < 0 && r != -ENOMEM) {
                badarch = SCMP_ACT_KILL_THREAD;
                r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, badarch);
        }
        if (r < 0)
                return sbx__fail(err, sc_code(r), -r,
                                 "seccomp: cannot set the bad-architecture action to kill "
                                 "(libseccomp error %d)", r);
        for (i = 0; i < SBX__ARRAY_SIZE(sc_arches); i++) {
                r = seccomp_arch_add(ctx, sc_arches[i].scmp);
                if (r < 0 && r != -EEXIST)
                        return sbx__fail(err, sc_code(r), -r,
                                         "seccomp: cannot add local architecture 0x%x "
                                         "(libseccomp error %d)", (unsigned int) sc_arches[i].scmp, r);
        }
        for (i = 0; i < SBX__ARRAY_SIZE(sc_deny) && rc == SBX_OK; i++)
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), sc_deny[i].nr, sc_deny[i].name, 0, NULL, err);
        if (rc == SBX_OK)
                rc = sc_add_clone(ctx, err);
        if (rc == SBX_OK)
                rc = sc_add_ioctl(ctx, err);
        if (rc == SBX_OK)
                rc = sc_add_personality(ctx, err);
        if (rc == SBX_OK)
                rc = sc_add_mknod(ctx, err);
        if (rc == SBX_OK)
                rc = sc_add_socket(ctx, opts, err);
        if (rc == SBX_OK)
                rc = sc_add_setid(ctx, err);
        if (rc == SBX_OK)
                rc = sc_add_listener(ctx, err);
        if (rc == SBX_OK && (opts & SBX__SC_DENY_METADATA) != 0)
                rc = sc_add_metadata(ctx, err);
        return rc;
}

static sbx_code sc_build(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        struct sock_filter pro[512];
        struct sc_raws raws;
        struct sock_filter *prog = NULL;
        scmp_filter_ctx ctx;
        size_t len = 0;
        sbx_code rc;
        int npro;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: out is NULL");
        if ((opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: unknown option bits 0x%x",
                                 (unsigned int) (opts & ~SC_OPTS_ALL));
        npro = sc_raw_collect(&raws);
        if (npro == 0)
                npro = sc_raw_emit(&raws, pro, SBX__ARRAY_SIZE(pro));
        if (npro < 0)
                return sbx__fail(err, SBX_E_INTERNAL, -npro,
                                 "seccomp: the x86_64/x32 raw-number prologue does not fit");
        ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (ctx == NULL)
                return sbx__fail(err, SBX_E_INTERNAL, 0,
                                 "seccomp: seccomp_init failed (out of memory, or libseccomp "
                                 "does not support this architecture)");
        /* A binary tree of syscall numbers instead of a linear chain: every
         * syscall of the confined command runs fewer instructions, and the
         * kernel converts and JITs the program in about half the time
         * (measured in bench/, docs/performance.md).  Best effort: an older
         * libseccomp without the attribute produces the linear chain. */
        (void) seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        rc = sc_populate(ctx, opts, err);
        if (rc == SBX_OK)
                rc = sc_export(ctx, pro, (size_t) npro, &prog, &len, err);
        seccomp_release(ctx);
        if (rc != SBX_OK)
                return rc;
        out->filter = prog;
        out->len = len;
        return SBX_OK;
}

sbx_code sbx__seccomp_compile(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        return sc_build(opts, out, err);
}

void sbx__seccomp_free(struct sbx__bpf *bpf)
{
        if (bpf == NULL)
                return;
        free(bpf->filter);
        bpf->filter = NULL;
        bpf->len = 0;
}

/* Async-signal-safe: no allocation, no libseccomp, one prctl. */
int sbx__seccomp_load_child(const struct sbx__bpf *bpf)
{
        struct sock_fprog prog;

        if (bpf == NULL || bpf->filter == NULL || bpf->len == 0 || bpf->len > BPF_MAXINSNS)
                return -EINVAL;
        prog.len = (unsigned short) bpf->len;
        prog.filter = (struct sock_filter *) bpf->filter;
        for (;;) {
                if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}
