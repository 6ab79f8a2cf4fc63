/*
 * test_seccomp_spawn.c - no libseccomp call on the spawn path (issue 21).
 *
 * No libseccomp call on any spawn: this binary defines every libseccomp
 *    function the library references, so the library's calls land here
 *    (the executable's definition wins over libseccomp.so's); each counts
 *    into a MAP_SHARED page (a monitor or zygote forked from this process
 *    counts too) and forwards to the real one.  Real spawns of every
 *    rung's supervisor variant (the git veto, + rung 2's writes, connect
 *    for unix_sockets, the observer with and without reads, rung 2's
 *    refused internet sockets), executor runs (the warm zygote) and the
 *    first spawn of the process must leave the count at 0.
 *    (test_seccomp_sticky.c: no failure is sticky.)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "seccomp_spawn.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <sys/mman.h>

#include <seccomp.h>

/* ------------------------------------------- libseccomp, interposed */

#define N_FN 16
static const char *const fn_names[N_FN] = {
        "seccomp_init", "seccomp_release", "seccomp_attr_set", "seccomp_arch_add",
        "seccomp_arch_remove", "seccomp_arch_native", "seccomp_rule_add",
        "seccomp_rule_add_array", "seccomp_export_bpf", "seccomp_syscall_resolve_name",
        "seccomp_syscall_resolve_name_arch", "seccomp_version", "seccomp_reset",
        "seccomp_load", "seccomp_merge", "seccomp_export_pfc",
};
static volatile unsigned long *g_calls;  /* N_FN counters, shared with forks */

/* The real function: libseccomp.so itself (the link may have dropped it,
 * every reference being satisfied here). */
static void *real_sym(const char *name)
{
        static void *lib;
        void *p = dlsym(RTLD_NEXT, name);

        if (p == NULL && lib == NULL)
                lib = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
        if (p == NULL && lib != NULL)
                p = dlsym(lib, name);
        if (p == NULL)
                abort();
        return p;
}

static void *real_fn(int i)
{
        if (g_calls != NULL)
                __atomic_fetch_add(&g_calls[i], 1, __ATOMIC_SEQ_CST);
        return real_sym(fn_names[i]);
}

#define REAL(i, type) ((type) real_fn(i))

scmp_filter_ctx seccomp_init(uint32_t def_action)
{
        return REAL(0, scmp_filter_ctx (*)(uint32_t))(def_action);
}

void seccomp_release(scmp_filter_ctx ctx)
{
        REAL(1, void (*)(scmp_filter_ctx))(ctx);
}

int seccomp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value)
{
        return REAL(2, int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))(ctx, attr,
                                                                                  value);
}

int seccomp_arch_add(scmp_filter_ctx ctx, uint32_t arch_token)
{
        return REAL(3, int (*)(scmp_filter_ctx, uint32_t))(ctx, arch_token);
}

int seccomp_arch_remove(scmp_filter_ctx ctx, uint32_t arch_token)
{
        return REAL(4, int (*)(scmp_filter_ctx, uint32_t))(ctx, arch_token);
}

uint32_t seccomp_arch_native(void)
{
        return REAL(5, uint32_t (*)(void))();
}

int seccomp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt,
                     ...)
{
        struct scmp_arg_cmp cmp[6];
        unsigned int i;
        va_list ap;

        (void) REAL(6, void *);
        if (arg_cnt > 6)
                return -EINVAL;
        va_start(ap, arg_cnt);
        for (i = 0; i < arg_cnt; i++)
                cmp[i] = va_arg(ap, struct scmp_arg_cmp);
        va_end(ap);
        return ((int (*)(scmp_filter_ctx, uint32_t, int, unsigned int,
                         const struct scmp_arg_cmp *)) real_sym("seccomp_rule_add_array"))(
                ctx, action, syscall, arg_cnt, cmp);
}

int seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall,
                           unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
        return REAL(7, int (*)(scmp_filter_ctx, uint32_t, int, unsigned int,
                               const struct scmp_arg_cmp *))(ctx, action, syscall, arg_cnt,
                                                             arg_array);
}

int seccomp_export_bpf(const scmp_filter_ctx ctx, int fd)
{
        return REAL(8, int (*)(const scmp_filter_ctx, int))(ctx, fd);
}

int seccomp_syscall_resolve_name(const char *name)
{
        return REAL(9, int (*)(const char *))(name);
}

int seccomp_syscall_resolve_name_arch(uint32_t arch_token, const char *name)
{
        return REAL(10, int (*)(uint32_t, const char *))(arch_token, name);
}

const struct scmp_version *seccomp_version(void)
{
        return REAL(11, const struct scmp_version *(*)(void))();
}

int seccomp_reset(scmp_filter_ctx ctx, uint32_t def_action)
{
        return REAL(12, int (*)(scmp_filter_ctx, uint32_t))(ctx, def_action);
}

int seccomp_load(const scmp_filter_ctx ctx)
{
        return REAL(13, int (*)(const scmp_filter_ctx))(ctx);
}

int seccomp_merge(scmp_filter_ctx dst, scmp_filter_ctx src)
{
        return REAL(14, int (*)(scmp_filter_ctx, scmp_filter_ctx))(dst, src);
}

int seccomp_export_pfc(const scmp_filter_ctx ctx, int fd)
{
        return REAL(15, int (*)(const scmp_filter_ctx, int))(ctx, fd);
}

static unsigned long calls_total(char *which, size_t size)
{
        unsigned long n = 0;
        size_t at = 0;
        int i;

        which[0] = '\0';
        for (i = 0; i < N_FN; i++) {
                if (g_calls[i] == 0)
                        continue;
                n += g_calls[i];
                if (at < size)
                        at += (size_t) snprintf(which + at, size - at, " %s x%lu", fn_names[i],
                                                g_calls[i]);
        }
        return n;
}

/* ---------------------------------------------------------------- tests */

/* Two executor runs (the first starts the set's warm zygote on rung 2)
 * under a workspace-write profile: the supervisor's git veto. */
static void executor_runs(struct fx *f, int32_t backend)
{
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        sbx_executor_set *set = NULL;
        sbx_executor *ex = NULL;
        sbx_error e = { 0, 0, { 0 } };
        char root[PATH_MAX + 32];
        int i;

        snprintf(root, sizeof(root), "%s/sets-%d", f->base, (int) backend);
        o.scratch_root = root;
        o.max_executors = 1;
        o.backend = backend;
        if (sbx_executor_set_new(p, &o, &set, &e) != SBX_OK) {
                CHECK(f, 0, "sbx_executor_set_new: %s", e.message);
                sbx_profile_free(p);
                return;
        }
        if (sbx_executor_set_get(set, "k", &ex, &e) != SBX_OK)
                CHECK(f, 0, "sbx_executor_set_get: %s", e.message);
        for (i = 0; ex != NULL && i < 2; i++) {
                sbx_run_options ro = SBX_RUN_OPTIONS_INIT;
                sbx_run_result r;

                memset(&r, 0, sizeof(r));
                ro.command = "mkdir .git 2>/dev/null; echo ran";
                ro.timeout_ms = WAIT_MS;
                ro.envp = f->envp;
                if (sbx_executor_run(ex, &ro, &r, &e) != SBX_OK) {
                        CHECK(f, 0, "sbx_executor_run: %s", e.message);
                        break;
                }
                CHECK(f, r.exited && r.exit_code == 0 && r.out != NULL &&
                         strcmp(r.out, "ran\n") == 0, "executor run %d: exit %d, out \"%s\"", i,
                      (int) r.exit_code, r.out != NULL ? r.out : "");
                sbx_run_result_free(&r);
        }
        CHECK(f, !exists(P(f->ws, ".git")), "an executor run created a .git");
        if (sbx_executor_set_close(set, &e) != SBX_OK)
                CHECK(f, 0, "sbx_executor_set_close: %s", e.message);
        sbx_executor_set_free(set);
        sbx_profile_free(p);
}

static void test_seccomp_spawn__no_libseccomp_on_any_spawn(void **state)
{
        static const int32_t backends[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK,
                                            SBX_BACKEND_BWRAP };
        struct fx *f = *state;
        char sock[PATH_MAX + 16], why[1024], which[512];
        const char *socks[1];
        struct socks x;
        size_t b;
        int lfd, n = 1;

        /* a unix socket for the connect variant (the supervisor pins it) */
        snprintf(sock, sizeof(sock), "%s/sock", f->outside);
        lfd = fx_unix_socket(f, SOCK_STREAM, sock, 0, 4);
        socks[0] = sock;
        x.v = socks;
        x.n = 1;
        for (b = 0; b < N_OF(backends); b++) {
                const int32_t be = backends[b];
                const int sup = be != SBX_BACKEND_BWRAP;        /* bwrap has no supervisor */
                sbx_profile *ww, *ro, *ux;
                unsigned long got;

                if (!usable(f, be))
                        continue;
                ro = make_profile(f, SBX_MODE_READ_ONLY, 0);
                ww = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
                ux = profile_edit(f, SBX_MODE_WORKSPACE_WRITE, 0, set_sockets, &x);
                set_label(f, be, SBX_MODE_WORKSPACE_WRITE, NULL);
                if (sup) {
                        /* the git veto (+ rung 2's writes) */
                        CHECK(f, spawn_once(f, be, ww, 0, n++, why, sizeof(why)) == 0,
                              "names: %s", why);
                        /* + every connect */
                        CHECK(f, spawn_once(f, be, ux, 0, n++, why, sizeof(why)) == 0,
                              "connect: %s", why);
                        /* the observer, writes; reads too; internet refused
                         * by the supervisor on rung 2 (network deny) */
                        CHECK(f, spawn_once(f, be, ww, SBX_SPAWN_OBSERVE, n++, why,
                                            sizeof(why)) == 0, "observe: %s", why);
                        CHECK(f, spawn_once(f, be, ww, SBX_SPAWN_OBSERVE_READS, n++, why,
                                            sizeof(why)) == 0, "observe reads: %s", why);
                        CHECK(f, spawn_once(f, be, ux, SBX_SPAWN_OBSERVE, n++, why,
                                            sizeof(why)) == 0, "observe + connect: %s", why);
                        /* the veto was there: no .git was made */
                        CHECK(f, !exists(P(f->ws, ".git")), "a .git was created in the workspace");
                } else {
                        sbx_profile_free(ww);
                        ww = NULL;
                }
                if (sup)
                        executor_runs(f, be);
                /* no supervisor: read-only */
                CHECK(f, spawn_once(f, be, ro, 0, -1, why, sizeof(why)) == 0, "read-only: %s",
                      why);
                sbx_profile_free(ro);
                sbx_profile_free(ww);
                sbx_profile_free(ux);
                got = calls_total(which, sizeof(which));
                CHECK(f, got == 0, "%lu libseccomp call(s) during the spawns:%s", got, which);
        }
        note("%d spawns, no libseccomp call", n - 1);
        fx_close_fd(f, lfd);
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_seccomp_spawn__no_libseccomp_on_any_spawn),
        };
#undef T
        g_calls = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (g_calls == MAP_FAILED)
                return 1;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
