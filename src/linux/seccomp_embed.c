/*
 * seccomp_embed.c - the seccomp programs compiled at build time: the
 * record of the build environment, the check that a process may use the
 * embedded table, sbx__seccomp_build (embedded or compiled), and the
 * build-time writer (sbx-seccomp-gen).  docs/performance.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "linux_internal.h"

#include "linux/seccomp_defs.h"

/* ------------------------------------------------- build-time programs */

/*
 * The program is a function of seccomp.c (compiled for the target), of the
 * libseccomp that compiles it (its syscall tables and code generator) and,
 * through one choice, of the kernel: libseccomp uses KILL_PROCESS for a
 * foreign arch only when the running kernel reports it (else we get
 * KILL_THREAD).  Nothing else is read from the machine.
 *
 * The build compiles seccomp.c and this file a second time into
 * tools/seccomp-gen (SBX_SC_GENERATOR), which writes every program to
 * seccomp-table.h with a record of those inputs: the libseccomp version and GNU build-id, its
 * native arch, our arch list and the kill action.  A process takes the
 * embedded programs only when its own inputs are exactly that record, and
 * compiles with libseccomp otherwise (cross builds have no table).
 */

/* The running kernel reports SECCOMP_RET_KILL_PROCESS (Linux 4.14+). */
static uint32_t sc_kernel_kill_process(void)
{
        uint32_t action = SECCOMP_RET_KILL_PROCESS;
        int saved = errno;
        long r;

        r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
        errno = saved;
        return r == 0;
}

struct sc_bid_find {
        uintptr_t addr;         /* a libseccomp function */
        struct sbx__sc_env *env;
        int found;              /* the object holding addr was seen */
};

/* dl_iterate_phdr callback: the GNU build-id of the object holding addr. */
static int sc_bid_cb(struct dl_phdr_info *info, size_t size, void *data)
{
        struct sc_bid_find *f = data;
        const ElfW(Phdr) *ph;
        size_t i, off, namesz, descsz;
        int mine = 0;

        (void) size;
        for (i = 0; i < info->dlpi_phnum && !mine; i++) {
                ph = &info->dlpi_phdr[i];
                if (ph->p_type == PT_LOAD && f->addr >= info->dlpi_addr + ph->p_vaddr &&
                    f->addr - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz)
                        mine = 1;
        }
        if (!mine)
                return 0;
        f->found = 1;
        for (i = 0; i < info->dlpi_phnum; i++) {
                const unsigned char *notes;

                ph = &info->dlpi_phdr[i];
                if (ph->p_type != PT_NOTE)
                        continue;
                notes = (const unsigned char *) (info->dlpi_addr + ph->p_vaddr);
                for (off = 0; off + sizeof(ElfW(Nhdr)) <= ph->p_memsz;) {
                        ElfW(Nhdr) nh;

                        memcpy(&nh, notes + off, sizeof(nh));
                        namesz = (nh.n_namesz + 3u) & ~(size_t) 3u;
                        descsz = (nh.n_descsz + 3u) & ~(size_t) 3u;
                        off += sizeof(nh);
                        if (namesz > ph->p_memsz - off || descsz > ph->p_memsz - off - namesz)
                                break;
                        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                            memcmp(notes + off, "GNU", 4) == 0 && nh.n_descsz > 0 &&
                            nh.n_descsz <= SBX__SC_BUILD_ID_MAX) {
                                memcpy(f->env->build_id, notes + off + namesz, nh.n_descsz);
                                f->env->build_id_len = nh.n_descsz;
                                return 1;
                        }
                        off += namesz + descsz;
                }
        }
        return 1;
}

void sbx__seccomp_env_get(struct sbx__sc_env *env)
{
        const struct scmp_version *v = seccomp_version();
        struct sc_bid_find f;

        memset(env, 0, sizeof(*env));
        if (v != NULL) {
                env->version[0] = v->major;
                env->version[1] = v->minor;
                env->version[2] = v->micro;
        }
        env->native = seccomp_arch_native();
        env->kill_process = sc_kernel_kill_process();
        f.addr = (uintptr_t) &seccomp_init;
        f.env = env;
        f.found = 0;
        (void) dl_iterate_phdr(sc_bid_cb, &f);
}

struct sc_tab_prog {
        const struct sock_filter *filter;
        size_t len;
};

#if defined(SBX_SC_EMBED) && !defined(SBX_SC_GENERATOR)
#  include "seccomp-table.h"    /* generated in the build tree */
#  define SC_HAVE_TABLE 1
_Static_assert(SBX__ARRAY_SIZE(sc_tab_progs) == SC_OPTS_ALL + 1,
               "seccomp-table.h was generated for other option bits");
#else
#  define SC_HAVE_TABLE 0
#endif

int sbx__seccomp_table_matches(const struct sbx__sc_env *env, const char **why)
{
        const char *dummy;

        if (why == NULL)
                why = &dummy;
        if (env == NULL) {
                *why = "no environment given";
                return 0;
        }
#if SC_HAVE_TABLE
        {
                size_t i;

                if (SBX__ARRAY_SIZE(sc_tab_arches) != sbx__seccomp_n_arches()) {
                        *why = "the table lists other architectures";
                        return 0;
                }
                for (i = 0; i < sbx__seccomp_n_arches(); i++) {
                        if (sc_tab_arches[i] != sbx__seccomp_arch_token(i)) {
                                *why = "the table lists other architectures";
                                return 0;
                        }
                }
                if (env->native != sc_tab_native) {
                        *why = "libseccomp's native architecture differs from the build's";
                        return 0;
                }
                if (memcmp(env->version, sc_tab_version, sizeof(sc_tab_version)) != 0) {
                        *why = "the libseccomp version differs from the build's";
                        return 0;
                }
                if (env->build_id_len == 0 || env->build_id_len != sc_tab_build_id_len ||
                    memcmp(env->build_id, sc_tab_build_id, env->build_id_len) != 0) {
                        *why = "the libseccomp binary (GNU build-id) differs from the build's";
                        return 0;
                }
                if (env->kill_process != sc_tab_kill_process) {
                        *why = "the kernel's SECCOMP_RET_KILL_PROCESS support differs from "
                               "the build machine's";
                        return 0;
                }
                *why = "the build-time table matches";
                return 1;
        }
#else
        *why = "built without a build-time table (cross-compiled, or SBX_SECCOMP_EMBED=OFF)";
        return 0;
#endif
}

/*
 * Each program depends only on `opts`: it is taken from the build-time
 * table or compiled once per process, cached, and copied out.  A copy keeps
 * the ownership contract simple (the caller frees what it gets).
 */
enum { SC_SRC_NONE = 0, SC_SRC_EMBEDDED = 1, SC_SRC_COMPILED = 2 };

static pthread_mutex_t sc_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_tab_prog sc_cache[SC_OPTS_ALL + 1];
static unsigned char sc_cache_src[SC_OPTS_ALL + 1];
static int sc_table_ok = -1;            /* -1: not checked yet in this process */

/* Under sc_cache_lock. */
static int sc_table_usable(void)
{
        struct sbx__sc_env env;

        if (sc_table_ok < 0) {
                if (!SC_HAVE_TABLE) {
                        sc_table_ok = 0;
                } else {
                        sbx__seccomp_env_get(&env);
                        sc_table_ok = sbx__seccomp_table_matches(&env, NULL);
                }
        }
        return sc_table_ok;
}

sbx_code sbx__seccomp_build(uint32_t opts, struct sbx__bpf *out, sbx_error *err)
{
        struct sbx__bpf built = { NULL, 0 };
        void *copy;
        sbx_code rc = SBX_OK;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: out is NULL");
        if ((opts & ~SC_OPTS_ALL) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "seccomp: unknown option bits 0x%x",
                                 (unsigned int) (opts & ~SC_OPTS_ALL));
        (void) pthread_mutex_lock(&sc_cache_lock);
        if (sc_cache[opts].filter == NULL) {
#if SC_HAVE_TABLE
                if (sc_table_usable()) {
                        sc_cache[opts] = sc_tab_progs[opts];
                        sc_cache_src[opts] = SC_SRC_EMBEDDED;
                }
#else
                (void) sc_table_usable();
#endif
        }
        if (sc_cache[opts].filter == NULL) {
                rc = sbx__seccomp_compile(opts, &built, err);
                if (rc == SBX_OK) {
                        sc_cache[opts].filter = built.filter;
                        sc_cache[opts].len = built.len;
                        sc_cache_src[opts] = SC_SRC_COMPILED;
                }
        }
        if (rc == SBX_OK) {
                copy = malloc(sc_cache[opts].len * sizeof(struct sock_filter));
                if (copy == NULL) {
                        rc = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "seccomp: no memory");
                } else {
                        memcpy(copy, sc_cache[opts].filter,
                               sc_cache[opts].len * sizeof(struct sock_filter));
                        out->filter = copy;
                        out->len = sc_cache[opts].len;
                }
        }
        (void) pthread_mutex_unlock(&sc_cache_lock);
        return rc;
}

const char *sbx__seccomp_source(uint32_t opts)
{
        unsigned char src;

        if ((opts & ~SC_OPTS_ALL) != 0)
                return "none";
        (void) pthread_mutex_lock(&sc_cache_lock);
        src = sc_cache_src[opts];
        (void) pthread_mutex_unlock(&sc_cache_lock);
        return src == SC_SRC_EMBEDDED ? "embedded" : src == SC_SRC_COMPILED ? "compiled" : "none";
}

#ifdef SBX_SC_GENERATOR
/* ------------------------------------------------ the build-time writer */

static int sc_gen_emit(FILE *f, const struct sbx__sc_env *env, const struct sbx__bpf *progs)
{
        const struct sock_filter *p;
        size_t i, o;

        fprintf(f, "/* Generated at build time by sbx-seccomp-gen (src/linux/seccomp.c built\n"
                   " * with SBX_SC_GENERATOR): the seccomp program of every option set and what\n"
                   " * it was compiled against.  Do not edit; see docs/performance.md. */\n");
        fprintf(f, "static const uint32_t sc_tab_version[3] = { %uu, %uu, %uu };\n",
                env->version[0], env->version[1], env->version[2]);
        fprintf(f, "static const uint32_t sc_tab_native = 0x%08xu;\n", env->native);
        fprintf(f, "static const uint32_t sc_tab_kill_process = %uu;\n", env->kill_process);
        fprintf(f, "static const uint32_t sc_tab_build_id_len = %uu;\n", env->build_id_len);
        fprintf(f, "static const uint8_t sc_tab_build_id[] = {");
        for (i = 0; i < env->build_id_len; i++)
                fprintf(f, "%s0x%02x", i == 0 ? " " : ", ", env->build_id[i]);
        fprintf(f, " };\n");
        fprintf(f, "static const uint32_t sc_tab_arches[] = {");
        for (i = 0; i < sbx__seccomp_n_arches(); i++)
                fprintf(f, "%s0x%08xu", i == 0 ? " " : ", ", sbx__seccomp_arch_token(i));
        fprintf(f, " };\n");
        for (o = 0; o <= SC_OPTS_ALL; o++) {
                p = progs[o].filter;
                fprintf(f, "static const struct sock_filter sc_tab_p%zu[%zu] = {\n", o, progs[o].len);
                for (i = 0; i < progs[o].len; i++)
                        fprintf(f, "        { 0x%04x, %u, %u, 0x%08xu },\n", p[i].code,
                                p[i].jt, p[i].jf, p[i].k);
                fprintf(f, "};\n");
        }
        fprintf(f, "static const struct sc_tab_prog sc_tab_progs[] = {\n");
        for (o = 0; o <= SC_OPTS_ALL; o++)
                fprintf(f, "        { sc_tab_p%zu, %zu },\n", o, progs[o].len);
        fprintf(f, "};\n");
        return ferror(f) ? -EIO : 0;
}

sbx_code sbx__seccomp_gen_write(const char *path, sbx_error *err)
{
        struct sbx__bpf progs[SC_OPTS_ALL + 1], again;
        struct sbx__sc_env env;
        char tmp[4096];
        sbx_code rc = SBX_OK;
        uint32_t o;
        FILE *f;
        int n;

        memset(progs, 0, sizeof(progs));
        sbx__seccomp_env_get(&env);
        if (env.build_id_len == 0)
                return sbx__fail(err, SBX_E_INTERNAL, 0,
                                 "seccomp-gen: the libseccomp in use has no GNU build-id, so a "
                                 "build-time program could never be matched to it at run time "
                                 "(hint: configure with -DSBX_SECCOMP_EMBED=OFF)");
        for (o = 0; o <= SC_OPTS_ALL && rc == SBX_OK; o++) {
                rc = sbx__seccomp_compile(o, &progs[o], err);
                /* The table is only worth anything if compiling is a function
                 * of its inputs: compile again and compare. */
                if (rc == SBX_OK)
                        rc = sbx__seccomp_compile(o, &again, err);
                if (rc == SBX_OK) {
                        if (again.len != progs[o].len ||
                            memcmp(again.filter, progs[o].filter,
                                   again.len * sizeof(struct sock_filter)) != 0)
                                rc = sbx__fail(err, SBX_E_INTERNAL, 0,
                                               "seccomp-gen: two compilations of option set "
                                               "0x%x differ", (unsigned int) o);
                        sbx__seccomp_free(&again);
                }
        }
        if (rc == SBX_OK) {
                n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
                if (n < 0 || (size_t) n >= sizeof(tmp)) {
                        rc = sbx__fail(err, SBX_E_INVALID, 0, "seccomp-gen: path too long");
                } else if ((f = fopen(tmp, "we")) == NULL) {
                        rc = sbx__fail(err, SBX_E_INTERNAL, errno, "seccomp-gen: cannot create "
                                       "\"%s\"", tmp);
                } else {
                        n = sc_gen_emit(f, &env, progs);
                        if (fclose(f) != 0 || n < 0 || rename(tmp, path) != 0) {
                                rc = sbx__fail(err, SBX_E_INTERNAL, errno,
                                               "seccomp-gen: cannot write \"%s\"", path);
                                (void) unlink(tmp);
                        }
                }
        }
        for (o = 0; o <= SC_OPTS_ALL; o++)
                sbx__seccomp_free(&progs[o]);
        return rc;
}
#endif /* SBX_SC_GENERATOR */

