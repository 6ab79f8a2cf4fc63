/*
 * seccomp_notify.c - the name-veto filter: every syscall that can give a
 * directory entry a name (mkdir, mknod, open/openat/creat with O_CREAT,
 * link, symlink, rename, on every local ABI) goes to the supervisor in the
 * init/monitor as a seccomp user notification (notify.c), which performs
 * the operation itself or refuses it.  On rung 2 the metadata writes
 * (chmod, chown, utimes, xattrs: SBX__NF_META) go there too, since
 * Landlock does not cover them.  openat2 is refused with ENOSYS (its
 * flags live in a struct the filter cannot read; libc falls back to
 * openat).  With --allow-unix every connect (and socketcall's connect) goes
 * there too: the filter cannot see which family an fd is.
 *
 * This file is libseccomp's compilation of every variant, run at build
 * time by tools/seccomp-gen (and by test_seccomp, which compares it with
 * the table): the library embeds the result (seccomp-table.h) and
 * sbx__notify_build (seccomp_embed.c) hands it out, so no libseccomp code
 * runs on a spawn.  The command loads the filter before execve.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <seccomp.h>

#include "linux/ladder.h"
#include "linux/seccomp_notify.h"

static const struct {
        const char *name;
        uint8_t     op;
} veto_calls[] = {
        { "open",       SBX__N_OPEN },
        { "openat",     SBX__N_OPENAT },
        { "creat",      SBX__N_CREAT },
        { "mkdir",      SBX__N_MKDIR },
        { "mkdirat",    SBX__N_MKDIRAT },
        { "mknod",      SBX__N_MKNOD },
        { "mknodat",    SBX__N_MKNODAT },
        { "link",       SBX__N_LINK },
        { "linkat",     SBX__N_LINKAT },
        { "symlink",    SBX__N_SYMLINK },
        { "symlinkat",  SBX__N_SYMLINKAT },
        { "rename",     SBX__N_RENAME },
        { "renameat",   SBX__N_RENAMEAT },
        { "renameat2",  SBX__N_RENAMEAT2 },
        /* rung 2 only (the writes variant) */
        { "unlink",     SBX__N_UNLINK },
        { "unlinkat",   SBX__N_UNLINKAT },
        { "rmdir",      SBX__N_RMDIR },
        { "truncate",   SBX__N_TRUNCATE },
};

/* SBX__NF_META (rung 2): the metadata writes Landlock does not cover,
 * checked and done by the supervisor (notify.c "metadata"). */
static const struct {
        const char *name;
        uint8_t     op;
} meta_calls[] = {
        { "chmod",      SBX__N_CHMOD },
        { "fchmod",     SBX__N_FCHMOD },
        { "fchmodat",   SBX__N_FCHMODAT },
        { "chown",      SBX__N_CHOWN },
        { "chown32",    SBX__N_CHOWN },
        { "lchown",     SBX__N_LCHOWN },
        { "lchown32",   SBX__N_LCHOWN },
        { "fchown",     SBX__N_FCHOWN },
        { "fchown32",   SBX__N_FCHOWN },
        { "fchownat",   SBX__N_FCHOWNAT },
        { "utime",      SBX__N_UTIME },
        { "utimes",     SBX__N_UTIMES },
        { "futimesat",  SBX__N_FUTIMESAT },
        { "utimensat",  SBX__N_UTIMENSAT },
        { "utimensat_time64", SBX__N_UTIMENSAT },
        { "setxattr",   SBX__N_SETXATTR },
        { "lsetxattr",  SBX__N_LSETXATTR },
        { "fsetxattr",  SBX__N_FSETXATTR },
        { "removexattr", SBX__N_RMXATTR },
        { "lremovexattr", SBX__N_LRMXATTR },
        { "fremovexattr", SBX__N_FRMXATTR },
};

/* The observer's own (SBX__NF_OBSERVE): watched, never done. */
static const struct {
        const char *name;
        uint8_t     op;
} observe_calls[] = {
        { "execve",     SBX__N_EXECVE },
        { "execveat",   SBX__N_EXECVEAT },
        { "socket",     SBX__N_SOCKET },
};

static int writes_only(uint8_t op)
{
        return op >= SBX__N_UNLINK;
}

/* Where libseccomp multiplexes connect through socketcall, the kernel's
 * direct connect number (Linux 4.3+), which libseccomp's name lookup
 * does not give. */
static int direct_connect(uint32_t audit)
{
        switch (audit) {
        case AUDIT_ARCH_I386: case AUDIT_ARCH_S390: case AUDIT_ARCH_S390X:
                return 362;
        case AUDIT_ARCH_PPC: case AUDIT_ARCH_PPC64: case AUDIT_ARCH_PPC64LE:
                return 328;
        default:
                return -1;
        }
}

static int map_add(struct sbx__notify_map *map, uint32_t audit, int nr, uint8_t op)
{
        if (nr < 0)
                return 0;
        if (map->n >= SBX__ARRAY_SIZE(map->v))
                return -E2BIG;
        map->v[map->n].arch = audit;
        map->v[map->n].nr = nr;
        map->v[map->n].op = op;
        map->n++;
        return 0;
}

static uint32_t audit_of(uint32_t token)
{
#ifdef SCMP_ARCH_X32
        if (token == SCMP_ARCH_X32)
                return AUDIT_ARCH_X86_64;
#endif
        return token;   /* libseccomp's tokens are the AUDIT_ARCH_* values */
}

/* open/openat (flags at argument `arg`) with one of the flag patterns. */
static int add_open(scmp_filter_ctx ctx, int nr, unsigned arg, int writes)
{
        static const struct { uint32_t mask, value; } pat[] = {
                { O_CREAT, O_CREAT },
                { O_ACCMODE, O_WRONLY },        /* the writes variant: */
                { O_ACCMODE, O_RDWR },
                { O_TRUNC, O_TRUNC },
        };
        size_t k;
        int r = 0;

        for (k = 0; k < (writes ? SBX__ARRAY_SIZE(pat) : 1) && r == 0; k++) {
                struct scmp_arg_cmp c = { arg, SCMP_CMP_MASKED_EQ, pat[k].mask, pat[k].value };

                r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &c);
                if (r == -EDOM || r == -EEXIST)
                        r = 0;
        }
        return r;
}

static int add_rules(scmp_filter_ctx ctx, unsigned flags)
{
        const int writes = (flags & SBX__NF_WRITES) != 0;
        size_t i;
        int r;

        if (flags & SBX__NF_CONNECT) {
                /* libseccomp adds socketcall(SYS_CONNECT) where it exists. */
                r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(veto_calls) && (flags & SBX__NF_OBSERVE); i++) {
                /* Every one of them, whatever its flags: the supervisor
                 * does what the veto needs and watches the rest. */
                int nr = seccomp_syscall_resolve_name(veto_calls[i].name);

                if (nr == __NR_SCMP_ERROR)
                        continue;
                /* Reads only when asked: each costs a round trip, and a
                 * compiler opens thousands (bench/observe). */
                if (!(flags & SBX__NF_READS) && veto_calls[i].op == SBX__N_OPEN)
                        r = add_open(ctx, nr, 1, 1);
                else if (!(flags & SBX__NF_READS) && veto_calls[i].op == SBX__N_OPENAT)
                        r = add_open(ctx, nr, 2, 1);
                else
                        r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(observe_calls) && (flags & SBX__NF_OBSERVE); i++) {
                int nr = seccomp_syscall_resolve_name(observe_calls[i].name);

                if (nr == __NR_SCMP_ERROR || observe_calls[i].op == SBX__N_SOCKET)
                        continue;
                r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(veto_calls) && (flags & SBX__NF_NAMES) &&
                    !(flags & SBX__NF_OBSERVE); i++) {
                int nr = seccomp_syscall_resolve_name(veto_calls[i].name);

                if (nr == __NR_SCMP_ERROR || (writes_only(veto_calls[i].op) && !writes))
                        continue;
                if (veto_calls[i].op == SBX__N_OPEN)
                        r = add_open(ctx, nr, 1, writes);
                else if (veto_calls[i].op == SBX__N_OPENAT)
                        r = add_open(ctx, nr, 2, writes);
                else
                        r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(meta_calls) && (flags & SBX__NF_META); i++) {
                int nr = seccomp_syscall_resolve_name(meta_calls[i].name);

                if (nr == __NR_SCMP_ERROR)
                        continue;
                r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        if (flags & SBX__NF_INET) {
                /* Exactly these two; the deny list refuses every other
                 * value but AF_UNIX (SBX__SC_INET_NOTIFY). */
                static const uint32_t fam[] = { AF_INET, AF_INET6 };

                for (i = 0; i < SBX__ARRAY_SIZE(fam); i++) {
                        struct scmp_arg_cmp c = { 0, SCMP_CMP_MASKED_EQ, 0xffffffffu, fam[i] };

                        r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1, &c);
                        if (r < 0 && r != -EDOM)
                                return r;
                }
        }
        if (flags & (SBX__NF_NAMES | SBX__NF_OBSERVE)) {
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
                if (r < 0 && r != -EDOM)
                        return r;
        }
        return 0;
}

/* The supervisor's table: (arch, number) -> operation. */
sbx_code sbx__notify_map_compile(struct sbx__notify_map *map, sbx_error *err)
{
        size_t i, a;
        int r = 0;

        memset(map, 0, sizeof(*map));
        for (a = 0; a < sbx__seccomp_n_arches() && r == 0; a++) {
                uint32_t token = sbx__seccomp_arch_token(a), audit = audit_of(token);
                uint32_t x32 = 0;
                int nr;

#ifdef SCMP_ARCH_X32
                if (token == SCMP_ARCH_X32)
                        x32 = 0x40000000;
#endif
                for (i = 0; i < SBX__ARRAY_SIZE(veto_calls) && r == 0; i++) {
                        nr = seccomp_syscall_resolve_name_arch(token, veto_calls[i].name);
                        if (nr >= 0)
                                r = map_add(map, audit, nr | (int) x32, veto_calls[i].op);
                }
                for (i = 0; i < SBX__ARRAY_SIZE(observe_calls) && r == 0; i++) {
                        nr = seccomp_syscall_resolve_name_arch(token, observe_calls[i].name);
                        if (nr >= 0)
                                r = map_add(map, audit, nr | (int) x32, observe_calls[i].op);
                }
                for (i = 0; i < SBX__ARRAY_SIZE(meta_calls) && r == 0; i++) {
                        nr = seccomp_syscall_resolve_name_arch(token, meta_calls[i].name);
                        if (nr >= 0)
                                r = map_add(map, audit, nr | (int) x32, meta_calls[i].op);
                }
                nr = seccomp_syscall_resolve_name_arch(token, "connect");
                if (r != 0)
                        break;
                if (nr >= 0) {
                        r = map_add(map, audit, nr | (int) x32, SBX__N_CONNECT);
                } else {
                        r = map_add(map, audit, direct_connect(audit), SBX__N_CONNECT);
                        if (r == 0)
                                r = map_add(map, audit, seccomp_syscall_resolve_name_arch(
                                                    token, "socketcall"), SBX__N_SOCKETCALL);
                }
        }
        if (r != 0)
                return sbx__fail(err, SBX_E_INTERNAL, -r,
                                 "seccomp: the supervisor's table needs more than %zu entries",
                                 SBX__ARRAY_SIZE(map->v));
        return SBX_OK;
}

unsigned sbx__notify_variant(unsigned flags)
{
        if (flags & SBX__NF_WRITES)
                flags |= SBX__NF_NAMES;
        if ((flags & SBX__NF_READS) && !(flags & SBX__NF_OBSERVE))
                return 0;       /* reads are the observer's */
        return flags == 0 || (flags & ~(unsigned) SBX__NF_ALL) != 0 ? 0 : flags;
}

sbx_code sbx__notify_compile(unsigned w, struct sbx__bpf *out, sbx_error *err)
{
        scmp_filter_ctx ctx;
        struct stat st;
        void *p = NULL;
        size_t a;
        int fd = -1, r;

        if (out == NULL || w == 0 || sbx__notify_variant(w) != w)
                return sbx__fail(err, SBX_E_INVALID, EINVAL, "seccomp: notify variant 0x%x", w);
        ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (ctx == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: seccomp_init failed");
        r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
        for (a = 1; r == 0 && a < sbx__seccomp_n_arches(); a++) {
                r = seccomp_arch_add(ctx, sbx__seccomp_arch_token(a));
                if (r == -EEXIST)
                        r = 0;
        }
        if (r == 0)
                r = add_rules(ctx, w);
        if (r == 0 && (fd = memfd_create("sbx-notify", MFD_CLOEXEC)) < 0)
                r = -errno;
        if (r == 0)
                r = seccomp_export_bpf(ctx, fd);
        if (r == 0 && fstat(fd, &st) < 0)
                r = -errno;
        if (r == 0 && (st.st_size <= 0 || st.st_size % (off_t) sizeof(struct sock_filter) != 0 ||
                       st.st_size / (off_t) sizeof(struct sock_filter) > BPF_MAXINSNS))
                r = -EINVAL;
        if (r == 0 && (p = malloc((size_t) st.st_size)) == NULL)
                r = -ENOMEM;
        if (r == 0 && pread(fd, p, (size_t) st.st_size, 0) != (ssize_t) st.st_size)
                r = -EIO;
        if (fd >= 0)
                close(fd);
        seccomp_release(ctx);
        if (r != 0) {
                free(p);
                return sbx__fail(err, r == -ENOMEM ? SBX_E_NOMEM : SBX_E_INTERNAL, -r,
                                 "seccomp: cannot compile the supervisor's filter 0x%x", w);
        }
        out->filter = p;
        out->len = (size_t) st.st_size / sizeof(struct sock_filter);
        return SBX_OK;
}
