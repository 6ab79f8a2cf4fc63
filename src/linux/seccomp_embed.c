/*
 * seccomp_embed.c - the seccomp programs compiled at build time: the
 * allow-list and argument filter of every option set (sbx__seccomp_build)
 * and the supervisor's filter of every variant with its table
 * (sbx__notify_build), taken from seccomp-table.h; and the build-time
 * writer of that table (sbx-seccomp-gen).  docs/seccomp.md.
 *
 * No libseccomp code runs on a spawn.  The programs are compiled once, at
 * build time, by seccomp.c and seccomp_notify.c built into
 * tools/seccomp-gen with libseccomp; the library embeds the result.  An
 * embedded program is plain classic BPF: it does not depend on the
 * libseccomp the process loads, so there is nothing to check against it
 * and nothing to compile instead.  The one input from the running machine
 * is the kernel's kill action: the table holds SECCOMP_RET_KILL_PROCESS,
 * and on a kernel without it (before 4.14) each copy says
 * SECCOMP_RET_KILL_THREAD instead, which also never runs the call.
 *
 * Nothing here is cached and nothing can fail but the copy's malloc, so a
 * transient failure (ENOMEM) fails one spawn and the next one retries.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "linux_internal.h"

#include "linux/seccomp_defs.h"
#include "linux/seccomp_notify.h"

struct sc_tab_prog {
        const struct sock_filter *filter;
        size_t len;
};

#ifndef SBX_SC_GENERATOR
#  include "seccomp-table.h"    /* generated in the build tree */
_Static_assert(SBX__ARRAY_SIZE(sc_tab_progs) == SC_OPTS_ALL + 1,
               "seccomp-table.h was generated for other option bits");
_Static_assert(SBX__ARRAY_SIZE(sc_ntab_progs) == SBX__NF_ALL + 1,
               "seccomp-table.h was generated for other notify bits");

/* The running kernel reports SECCOMP_RET_KILL_PROCESS (Linux 4.14+).  One
 * syscall per spawn, not cached: a probe that cannot fail transiently
 * would gain nothing from a cache but state. */
static int sc_kernel_kill_process(void)
{
        uint32_t action = SECCOMP_RET_KILL_PROCESS;
        int saved = errno;
        long r;

        r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
        errno = saved;
        return r == 0;
}

sbx_code sbx__seccomp_build(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        struct sock_filter *copy;
        size_t i, len;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: out is NULL");
        if ((opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: unknown option bits 0x%x",
                                 (unsigned int) (opts & ~SC_OPTS_ALL));
        len = sc_tab_progs[opts].len;
        copy = malloc(len * sizeof(*copy));
        if (copy == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: no memory");
        memcpy(copy, sc_tab_progs[opts].filter, len * sizeof(*copy));
        if (!sc_kernel_kill_process())
                for (i = 0; i < len; i++)
                        if (copy[i].code == (BPF_RET | BPF_K) &&
                            copy[i].k == SECCOMP_RET_KILL_PROCESS)
                                copy[i].k = SECCOMP_RET_KILL_THREAD;
        out->filter = copy;
        out->len = len;
        return SBX_OK;
}

sbx_code sbx__notify_build(unsigned flags, const struct sbx__bpf **out_prog,
                           const struct sbx__notify_map **out_map, sbx_error *err)
{
        unsigned w = sbx__notify_variant(flags);

        if (w == 0 || sc_ntab_progs[w].filter == NULL)
                return sbx__fail(err, SBX_E_INTERNAL, EINVAL, "seccomp: notify flags 0x%x", flags);
        *out_prog = &sc_ntab_progs[w];
        *out_map = &sc_ntab_map;
        return SBX_OK;
}
#endif /* !SBX_SC_GENERATOR */

#ifdef SBX_SC_GENERATOR
/* ------------------------------------------------ the build-time writer */

static void sc_gen_prog(FILE *f, const char *name, unsigned o, const struct sbx__bpf *prog)
{
        const struct sock_filter *p = prog->filter;
        size_t i;

        fprintf(f, "static const struct sock_filter %s%u[%zu] = {\n", name, o, prog->len);
        for (i = 0; i < prog->len; i++)
                fprintf(f, "        { 0x%04x, %u, %u, 0x%08xu },\n", p[i].code, p[i].jt, p[i].jf,
                        p[i].k);
        fprintf(f, "};\n");
}

static int sc_gen_emit(FILE *f, const struct sbx__bpf *progs, const struct sbx__bpf *nprogs,
                       const struct sbx__notify_map *map)
{
        unsigned o;
        size_t i;

        fprintf(f, "/* Generated at build time by sbx-seccomp-gen (src/linux/seccomp.c and\n"
                   " * seccomp_notify.c built with SBX_SC_GENERATOR and libseccomp): the\n"
                   " * program of every option set, the supervisor's filter of every variant\n"
                   " * and its table.  Do not edit; see docs/seccomp.md. */\n");
        for (o = 0; o <= SC_OPTS_ALL; o++)
                sc_gen_prog(f, "sc_tab_p", o, &progs[o]);
        fprintf(f, "static const struct sc_tab_prog sc_tab_progs[] = {\n");
        for (o = 0; o <= SC_OPTS_ALL; o++)
                fprintf(f, "        { sc_tab_p%u, %zu },\n", o, progs[o].len);
        fprintf(f, "};\n");
        for (o = 1; o <= SBX__NF_ALL; o++)
                if (nprogs[o].len > 0)
                        sc_gen_prog(f, "sc_ntab_p", o, &nprogs[o]);
        fprintf(f, "static const struct sbx__bpf sc_ntab_progs[%u] = {\n", SBX__NF_ALL + 1);
        for (o = 1; o <= SBX__NF_ALL; o++)
                if (nprogs[o].len > 0)
                        fprintf(f, "        [%u] = { (void *) sc_ntab_p%u, %zu },\n", o, o,
                                nprogs[o].len);
        fprintf(f, "};\n");
        fprintf(f, "static const struct sbx__notify_map sc_ntab_map = { %zu, {\n", map->n);
        for (i = 0; i < map->n; i++)
                fprintf(f, "        { 0x%08xu, %d, %u },\n", map->v[i].arch, (int) map->v[i].nr,
                        (unsigned) map->v[i].op);
        fprintf(f, "} };\n");
        return ferror(f) ? -EIO : 0;
}

/* The table holds KILL_PROCESS whatever the build machine's kernel has
 * (libseccomp says KILL_THREAD where it lacks it); each copy is fitted to
 * the running kernel (sbx__seccomp_build). */
static void sc_gen_kill_process(struct sbx__bpf *prog)
{
        struct sock_filter *p = prog->filter;
        size_t i;

        for (i = 0; i < prog->len; i++)
                if (p[i].code == (BPF_RET | BPF_K) && p[i].k == SECCOMP_RET_KILL_THREAD)
                        p[i].k = SECCOMP_RET_KILL_PROCESS;
}

/* Compile twice and compare: the table is only worth anything if compiling
 * is a function of its inputs. */
static sbx_code sc_gen_one(unsigned o, int notify, struct sbx__bpf *out, sbx_error *err)
{
        struct sbx__bpf again = { NULL, 0 };
        sbx_code rc;

        rc = notify ? sbx__notify_compile(o, out, err) : sbx__seccomp_compile(o, out, err);
        if (rc == SBX_OK)
                rc = notify ? sbx__notify_compile(o, &again, err)
                            : sbx__seccomp_compile(o, &again, err);
        if (rc == SBX_OK && (again.len != out->len ||
                             memcmp(again.filter, out->filter,
                                    again.len * sizeof(struct sock_filter)) != 0))
                rc = sbx__fail(err, SBX_E_INTERNAL, 0, "seccomp-gen: two compilations of %s "
                               "0x%x differ", notify ? "notify variant" : "option set", o);
        sbx__seccomp_free(&again);
        if (rc == SBX_OK && !notify)
                sc_gen_kill_process(out);
        return rc;
}

sbx_code sbx__seccomp_gen_write(const char *path, sbx_error *err)
{
        static struct sbx__bpf progs[SC_OPTS_ALL + 1], nprogs[SBX__NF_ALL + 1];
        static struct sbx__notify_map map;
        char tmp[4096];
        sbx_code rc = SBX_OK;
        unsigned o;
        FILE *f;
        int n;

        for (o = 0; o <= SC_OPTS_ALL && rc == SBX_OK; o++)
                rc = sc_gen_one(o, 0, &progs[o], err);
        for (o = 1; o <= SBX__NF_ALL && rc == SBX_OK; o++)
                if (sbx__notify_variant(o) == o)
                        rc = sc_gen_one(o, 1, &nprogs[o], err);
        if (rc == SBX_OK)
                rc = sbx__notify_map_compile(&map, err);
        if (rc == SBX_OK) {
                n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
                if (n < 0 || (size_t) n >= sizeof(tmp)) {
                        rc = sbx__fail(err, SBX_E_INVALID, 0, "seccomp-gen: path too long");
                } else if ((f = fopen(tmp, "we")) == NULL) {
                        rc = sbx__fail(err, SBX_E_INTERNAL, errno, "seccomp-gen: cannot create "
                                       "\"%s\"", tmp);
                } else {
                        n = sc_gen_emit(f, progs, nprogs, &map);
                        if (fclose(f) != 0 || n < 0 || rename(tmp, path) != 0) {
                                rc = sbx__fail(err, SBX_E_INTERNAL, errno,
                                               "seccomp-gen: cannot write \"%s\"", path);
                                (void) unlink(tmp);
                        }
                }
        }
        for (o = 0; o <= SC_OPTS_ALL; o++)
                sbx__seccomp_free(&progs[o]);
        for (o = 0; o <= SBX__NF_ALL; o++)
                sbx__seccomp_free(&nprogs[o]);
        return rc;
}
#endif /* SBX_SC_GENERATOR */
