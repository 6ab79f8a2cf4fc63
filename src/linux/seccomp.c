/*
 * seccomp.c - the system-call allow-list (libseccomp at build time).
 *
 * With seccomp_notify.c, the only file that talks to libseccomp
 * (docs/style.md, "Layers"), and only at build time: tools/seccomp-gen
 * runs it for every option set and the library embeds the result (seccomp_embed.c), so no
 * libseccomp code runs on a spawn (the tests call it to compare).  The
 * program is a plain classic-BPF array loaded in the child with one
 * prctl.
 *
 * Default-deny.  The program names what a confined command may call and
 * refuses everything else with ENOSYS, the answer of a kernel that lacks
 * the call, so programs fall back cleanly (clone3 -> clone, openat2 ->
 * openat, fchmodat2 -> fchmodat, statmount, futex2, a syscall added next
 * year).  A call that exists but is never the sandbox's to make is refused
 * with EPERM instead, so tools print "Operation not permitted" (ptrace,
 * mount, unshare, bpf, ...).  docs/seccomp.md lists every group and why it
 * is there; the lists are in seccomp_lists.c.
 *
 * Architectures.  Only the native ABI is allowed.  Every other ABI the
 * CPU can execute (i386 through int 0x80 or sysenter and x32 on x86_64,
 * arm on aarch64, ppc on ppc64, s390 on s390x) is refused whole: the
 * process is killed (KILL_PROCESS; KILL_THREAD on a kernel older than
 * 4.14).  A 32-bit binary therefore cannot run in the sandbox.  A foreign
 * syscall number under the native arch (an x32 number with bit 30 set, a
 * pre-5.4 x86_64 kernel's x32 entries 512-547) is not on the list: ENOSYS.
 *
 * The program is two libseccomp programs linked into one (sc_link): the
 * allow-list (default ENOSYS; ALLOW for every listed name, EPERM for the
 * refused group), whose every ALLOW becomes a jump into the argument
 * filter (default ALLOW; EPERM where an argument makes an allowed call
 * dangerous).  libseccomp cannot say "allow, except these arguments" for
 * one syscall in one program (an unconditional rule replaces the
 * conditional ones), so the two stages are kept apart and run in turn.
 *
 * The argument filter refuses (EPERM) new namespaces through clone,
 * TIOCSTI/TIOCLINUX, personalities other than PER_LINUX(32), device nodes,
 * setuid/setgid modes, socket families and types by the network decision
 * (SBX__SC_DENY_INET, _DENY_UNIX_PATH, _UNIX_STREAM, _INET_NOTIFY), a
 * seccomp listener of the command's own, and on rung 2 the inode-flag
 * ioctls (SBX__SC_DENY_METADATA; the metadata calls go to the supervisor) and, with the host's pid and IPC namespaces
 * (SBX__SC_HOST_NS), pid-taking calls on anyone but the caller.  Each rule
 * is explained where it is added below; docs/seccomp.md has the whole
 * list.  Integer arguments the kernel truncates to 32 bits are compared on
 * their low 32 bits, so high bits do not slip past an equality test.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
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
#include "linux/seccomp_lists.h"

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

/* SBX__SC_DENY_METADATA (rung 2): the inode-flag ioctls are refused.  The
 * metadata calls themselves (chmod, chown, utimes, xattr writes), which
 * Landlock does not cover either, go to the supervisor (SBX__NF_META,
 * notify.c), which does them where Landlock grants writes; an ERRNO here
 * would outrank its notification. */
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

/*
 * fcntl(F_SETLEASE): a lease on a host file the user owns (readable is
 * enough for a read lease) makes every host process that opens it for
 * writing wait for the lease-break time (45 s by default).
 */
static sbx_code sc_add_fcntl(scmp_filter_ctx ctx, sbx_error *err)
{
        struct scmp_arg_cmp c = sc_eq32(1, F_SETLEASE);
        sbx_code rc;

        rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fcntl), "fcntl", 1, &c, err);
        if (rc == SBX_OK && SCMP_SYS(fcntl64) != __NR_SCMP_ERROR)
                rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fcntl64), "fcntl64", 1, &c, err);
        return rc;
}

/*
 * SBX__SC_HOST_NS: no pid namespace hides the host's processes, so a call
 * that names a process by pid may name only the caller (0).  setpriority
 * and ioprio_set take (which, who): the caller or its own process group
 * (the sandbox's, after setsid), never a user's processes.
 */
static sbx_code sc_add_host_ns(scmp_filter_ctx ctx, sbx_error *err)
{
        const uint32_t act = SCMP_ACT_ERRNO(EPERM);
        struct scmp_arg_cmp c;
        sbx_code rc = SBX_OK;
        size_t i;
        int nr;

        for (i = 0; i < sbx__sc_self_pid_n && rc == SBX_OK; i++) {
                nr = seccomp_syscall_resolve_name(sbx__sc_self_pid[i].name);
                if (nr == __NR_SCMP_ERROR)
                        continue;
                c = sc_cmp(sbx__sc_self_pid[i].arg, SCMP_CMP_NE, 0, 0);
                rc = sc_rule(ctx, act, nr, sbx__sc_self_pid[i].name, 1, &c, err);
        }
        /* setpriority: PRIO_PROCESS (0) or PRIO_PGRP (1), who 0 */
        c = sc_cmp(0, SCMP_CMP_GT, 1, 0);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(setpriority), "setpriority", 1, &c, err);
        c = sc_cmp(1, SCMP_CMP_NE, 0, 0);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(setpriority), "setpriority", 1, &c, err);
        /* ioprio_set: IOPRIO_WHO_PROCESS (1) or IOPRIO_WHO_PGRP (2), who 0 */
        c = sc_cmp(0, SCMP_CMP_GT, 2, 0);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(ioprio_set), "ioprio_set", 1, &c, err);
        c = sc_cmp(1, SCMP_CMP_NE, 0, 0);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(ioprio_set), "ioprio_set", 1, &c, err);
        /* kill(-1): every process the user owns.  Landlock's signal scope
         * (ABI 6) confines the rest of kill; -1 is refused whatever the ABI. */
        c = sc_eq32(0, 0xffffffffu);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(kill), "kill", 1, &c, err);
        /* CLONE_PARENT: the new process would be the monitor's child, beside
         * the command rather than below it */
        c = sc_cmp(SC_CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT);
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(clone), "clone", 1, &c, err);
        /* inotify watches are not mediated by Landlock (no path_notify hook):
         * without mounts to hide what the plan hides, a watch on a hidden
         * directory would report its names and activity */
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(inotify_add_watch), "inotify_add_watch", 0, NULL,
                             err);
        /* setsid: every process of a run stays in the session its keeper
         * made, which is how the host finds and ends the run when the
         * keeper is killed (tree.c); no pid namespace does it here */
        if (rc == SBX_OK)
                rc = sc_rule(ctx, act, SCMP_SYS(setsid), "setsid", 0, NULL, err);
        return rc;
}

/* The allow-list stage: default ENOSYS, ALLOW for sbx__sc_allow (and sbx__sc_ipc with
 * an IPC namespace), EPERM for sbx__sc_refuse (and sbx__sc_ipc without one). */
static sbx_code sc_add_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
                             uint32_t action, sbx_error *err)
{
        sbx_code rc = SBX_OK;
        size_t i;
        int nr;

        for (i = 0; i < n && rc == SBX_OK; i++) {
                nr = seccomp_syscall_resolve_name(names[i]);
                if (nr == __NR_SCMP_ERROR)
                        continue;       /* not a syscall of this ABI */
                rc = sc_rule(ctx, action, nr, names[i], 0, NULL, err);
        }
        return rc;
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

/* Export ctx into one malloc'd program (*prog_out, *len_out instructions).
 * libseccomp 2.5 has no export-to-memory, so it goes through a memfd. */
static sbx_code sc_export(scmp_filter_ctx ctx, void **prog_out, size_t *len_out, sbx_error *err)
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
        prog = malloc(nlib * sizeof(*prog));
        if (prog == NULL) {
                code = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: out of memory");
                goto out;
        }
        r = sc_read_all(fd, prog, nlib * sizeof(*prog));
        if (r < 0) {
                free(prog);
                code = sbx__fail(err, SBX_E_INTERNAL, -r, "seccomp: reading the BPF export back");
                goto out;
        }
        *prog_out = prog;
        *len_out = nlib;
        code = SBX_OK;
out:
        (void) close(fd);
        return code;
}

/* ------------------------------------------------------------------ API */

/* A context for the native ABI only, killing every other. */
static sbx_code sc_ctx_new(uint32_t def, scmp_filter_ctx *out, sbx_error *err)
{
        uint32_t badarch = SCMP_ACT_KILL_PROCESS;
        scmp_filter_ctx ctx;
        int r;

        ctx = seccomp_init(def);
        if (ctx == NULL)
                return sbx__fail(err, SBX_E_INTERNAL, 0,
                                 "seccomp: seccomp_init failed (out of memory, or libseccomp "
                                 "does not support this architecture)");
        /* KILL_PROCESS needs Linux 4.14; older kernels kill the thread,
         * which still never runs the syscall. */
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, badarch);
        if (r < 0 && r != -ENOMEM) {
                badarch = SCMP_ACT_KILL_THREAD;
                r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, badarch);
        }
        if (r == 0 && seccomp_arch_native() != sbx__seccomp_arch_token(0)) {
                r = seccomp_arch_add(ctx, sbx__seccomp_arch_token(0));
                if (r == 0)
                        r = seccomp_arch_remove(ctx, seccomp_arch_native());
        }
        if (r < 0) {
                seccomp_release(ctx);
                return sbx__fail(err, sc_code(r), -r,
                                 "seccomp: cannot set up the native architecture (libseccomp "
                                 "error %d)", r);
        }
        /* A binary tree of syscall numbers instead of a linear chain: every
         * syscall of the confined command runs fewer instructions, and the
         * kernel converts and JITs the program in about half the time
         * (docs/performance.md).  Best effort: an older libseccomp without
         * the attribute produces the linear chain. */
        (void) seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        *out = ctx;
        return SBX_OK;
}

static sbx_code sc_populate_args(scmp_filter_ctx ctx, uint32_t opts, sbx_error *err)
{
        sbx_code rc;

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
        if (rc == SBX_OK)
                rc = sc_add_fcntl(ctx, err);
        if (rc == SBX_OK && (opts & SBX__SC_DENY_METADATA) != 0)
                rc = sc_add_metadata(ctx, err);
        if (rc == SBX_OK && (opts & SBX__SC_HOST_NS) != 0)
                rc = sc_add_host_ns(ctx, err);
        return rc;
}

/*
 * One program from the two stages: `allow` runs first, and each of its
 * `ret ALLOW` becomes `ja` to the first instruction of `args`.  Both are
 * libseccomp output: forward relative jumps only, each ends in returns,
 * neither reads scratch memory it did not write, and `args` starts by
 * loading what it tests.  So appending `args` moves nothing, and a call
 * the allow-list stage refuses never reaches it.
 */
static sbx_code sc_link(const struct sbx__bpf *allow, const struct sbx__bpf *args,
                        struct sbx__bpf *out, sbx_error *err)
{
        const struct sock_filter *a = allow->filter;
        struct sock_filter *p;
        size_t i, n = allow->len + args->len;

        if (n > BPF_MAXINSNS)
                return sbx__fail(err, SBX_E_INTERNAL, E2BIG,
                                 "seccomp: the filter needs %zu instructions, the kernel takes %d",
                                 n, BPF_MAXINSNS);
        p = malloc(n * sizeof(*p));
        if (p == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: out of memory");
        for (i = 0; i < allow->len; i++) {
                p[i] = a[i];
                if (a[i].code == (BPF_RET | BPF_K) && a[i].k == SECCOMP_RET_ALLOW) {
                        p[i].code = BPF_JMP | BPF_JA;
                        p[i].jt = p[i].jf = 0;
                        p[i].k = (uint32_t) (allow->len - (i + 1));
                } else if (BPF_CLASS(a[i].code) == BPF_RET && BPF_RVAL(a[i].code) != BPF_K) {
                        free(p);
                        return sbx__fail(err, SBX_E_INTERNAL, 0,
                                         "seccomp: libseccomp returned a computed action "
                                         "(instruction %zu); the stages cannot be linked", i);
                }
        }
        memcpy(p + allow->len, args->filter, args->len * sizeof(*p));
        out->filter = p;
        out->len = n;
        return SBX_OK;
}

static sbx_code sc_build(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        struct sbx__bpf stage[2] = { { NULL, 0 }, { NULL, 0 } };
        scmp_filter_ctx ctx;
        const char *bad;
        sbx_code rc = SBX_OK;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: out is NULL");
        if ((opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: unknown option bits 0x%x",
                                 (unsigned int) (opts & ~SC_OPTS_ALL));
        if ((bad = sbx__sc_check_names()) != NULL)
                return sbx__fail(err, SBX_E_INTERNAL, 0,
                                 "seccomp: \"%s\" is not a system call libseccomp knows on any "
                                 "supported architecture", bad);
        rc = sbx__sc_allow_stage(opts, &stage[0], err);
        if (rc == SBX_OK)
                rc = sc_ctx_new(SCMP_ACT_ALLOW, &ctx, err);
        if (rc == SBX_OK) {
                rc = sc_populate_args(ctx, opts, err);
                if (rc == SBX_OK)
                        rc = sc_export(ctx, &stage[1].filter, &stage[1].len, err);
                seccomp_release(ctx);
        }
        if (rc == SBX_OK)
                rc = sc_link(&stage[0], &stage[1], out, err);
        sbx__seccomp_free(&stage[0]);
        sbx__seccomp_free(&stage[1]);
        return rc;
}

/* tests only: the allow-list stage as libseccomp compiles it from the same
 * lists (one comparison per call), the reference sc_allow_stage's runs are
 * checked against number by number (test_seccomp). */
sbx_code sbx__seccomp_compile_allow_reference(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
        scmp_filter_ctx ctx;
        sbx_code rc;
        size_t i;

        if (out == NULL || (opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: bad arguments");
        rc = sc_ctx_new(SCMP_ACT_ERRNO(ENOSYS), &ctx, err);
        if (rc != SBX_OK)
                return rc;
        rc = sc_add_names(ctx, sbx__sc_allow, sbx__sc_allow_n, SCMP_ACT_ALLOW, err);
        if (rc == SBX_OK)
                rc = sc_add_names(ctx, sbx__sc_ipc, sbx__sc_ipc_n,
                                  (opts & SBX__SC_HOST_NS) ? eperm : SCMP_ACT_ALLOW, err);
        if (rc == SBX_OK)
                rc = sc_add_names(ctx, sbx__sc_refuse, sbx__sc_refuse_n, eperm, err);
        for (i = 0; i < sbx__sc_raw_allow_n && rc == SBX_OK; i++)
                if (sbx__sc_raw_allow[i].scmp == sbx__seccomp_arch_token(0) &&
                    seccomp_syscall_resolve_name_arch(sbx__seccomp_arch_token(0), sbx__sc_raw_allow[i].name) < 0)
                        rc = sc_rule(ctx, SCMP_ACT_ALLOW, (int) sbx__sc_raw_allow[i].nr,
                                     sbx__sc_raw_allow[i].name, 0, NULL, err);
        if (rc == SBX_OK)
                rc = sc_export(ctx, &out->filter, &out->len, err);
        seccomp_release(ctx);
        return rc;
}

/* tests only: the allow-list stage alone, before sc_link. */
sbx_code sbx__seccomp_allow_stage(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        if (out == NULL || (opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: bad arguments");
        return sbx__sc_allow_stage(opts, out, err);
}

/* bench/seccomp only: the argument stage plus the refused group, default
 * allow, for every local ABI -- the deny list the allow-list replaced,
 * less its ~40-instruction x86_64/x32 prologue -- so the bench can price
 * the allow-list against it in one run. */
sbx_code sbx__seccomp_compile_denylist(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        scmp_filter_ctx ctx;
        sbx_code rc;

        if (out == NULL || (opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: bad arguments");
        rc = sc_ctx_new(SCMP_ACT_ALLOW, &ctx, err);
        if (rc != SBX_OK)
                return rc;
#if defined(__x86_64__) && !defined(__ILP32__)
        /* the deny list filtered every local ABI alike */
        if (seccomp_arch_add(ctx, SCMP_ARCH_X86) < 0 || seccomp_arch_add(ctx, SCMP_ARCH_X32) < 0)
                rc = sbx__fail(err, SBX_E_INTERNAL, 0, "seccomp: cannot add i386/x32");
#endif
        if (rc == SBX_OK)
                rc = sc_populate_args(ctx, opts, err);
        if (rc == SBX_OK)
                rc = sc_add_names(ctx, sbx__sc_refuse, sbx__sc_refuse_n, SCMP_ACT_ERRNO(EPERM),
                                  err);
        if (rc == SBX_OK && (opts & SBX__SC_HOST_NS) != 0)
                rc = sc_add_names(ctx, sbx__sc_ipc, sbx__sc_ipc_n, SCMP_ACT_ERRNO(EPERM), err);
        if (rc == SBX_OK)
                rc = sc_export(ctx, &out->filter, &out->len, err);
        seccomp_release(ctx);
        return rc;
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
