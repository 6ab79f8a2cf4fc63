/*
 * test_cgroup.c - sbx__cgroup_v2_base: where a per-spawn cgroup v2 is made
 * (our own cgroup or the nearest ancestor that can carry the controller,
 * never past what we may write, never above the mount).  The tree is a
 * fake under /tmp with the files the walk reads; a cgroup.subtree_control
 * that is /dev/full reads empty and refuses every write, as the kernel
 * refuses enabling a controller in a cgroup that holds processes.
 * Creating real cgroups is tests/enforcement/test_limits.c's job.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "linux/linux_internal.h"

struct fx {
        char base[PATH_MAX];            /* holds the fake mount point "mnt" */
        char mnt[PATH_MAX + 8];
};

static void put(const char *dir, const char *name, const char *text)
{
        char p[2 * PATH_MAX];
        int fd;

        assert_true(snprintf(p, sizeof(p), "%s/%s", dir, name) < (int) sizeof(p));
        if (text == NULL) {             /* the refusing control file */
                assert_int_equal(symlink("/dev/full", p), 0);
                return;
        }
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

/* A fake cgroup dir: controllers, subtree_control (NULL = refuses), procs. */
static void cg(const char *root, const char *rel, const char *controllers, const char *subtree)
{
        char d[2 * PATH_MAX];

        snprintf(d, sizeof(d), "%s%s", root, rel);
        if (rel[0] != '\0')
                assert_int_equal(mkdir(d, 0755), 0);
        put(d, "cgroup.controllers", controllers);
        put(d, "cgroup.subtree_control", subtree);
        put(d, "cgroup.procs", "");
}

/*
 *   base/                      above (above the mount: never looked at)
 *   base/mnt/                  the mount root
 *     user-1000.slice/         memory pids cpu  (the delegation boundary)
 *       u/                     memory pids      (user@1000.service)
 *         app.slice/           pids
 *           term.scope/        memory pids, holds processes (refuses)
 */
static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        char tmpl[] = "/tmp/sbx-cgroup-XXXXXX";

        if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->base) == NULL)
                return -1;
        snprintf(f->mnt, sizeof(f->mnt), "%s/mnt", f->base);
        put(f->base, "cgroup.controllers", "above\n");
        put(f->base, "cgroup.subtree_control", "above\n");
        put(f->base, "cgroup.procs", "");
        assert_int_equal(mkdir(f->mnt, 0755), 0);
        cg(f->mnt, "", "memory pids cpu rdma\n", "memory pids cpu\n");
        cg(f->mnt, "/user-1000.slice", "memory pids cpu\n", "memory pids cpu\n");
        cg(f->mnt, "/user-1000.slice/u", "memory pids\n", "memory pids\n");
        cg(f->mnt, "/user-1000.slice/u/app.slice", "pids\n", "pids\n");
        cg(f->mnt, "/user-1000.slice/u/app.slice/term.scope", "memory pids\n", NULL);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fx *f = *state;
        char cmd[2 * PATH_MAX + 64];

        snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", f->base, f->base);
        if (system(cmd) != 0)
                print_message("cannot remove %s\n", f->base);
        free(f);
        return 0;
}

static void expect_base(const struct fx *f, const char *own, const char *ctl, const char *want)
{
        char out[PATH_MAX], full[2 * PATH_MAX];
        int r = sbx__cgroup_v2_base(f->mnt, own, ctl, out, sizeof(out));

        if (want == NULL) {
                if (r != -ENOENT)
                        fail_msg("%s for %s: %d \"%s\", want -ENOENT", own, ctl, r,
                                 r == 0 ? out : "");
                return;
        }
        snprintf(full, sizeof(full), "%s%s", f->mnt, want);
        if (r != 0)
                fail_msg("%s for %s: %d, want %s", own, ctl, r, full);
        assert_string_equal(out, full);
}

#define SCOPE "/user-1000.slice/u/app.slice/term.scope"

static void test_cgroup__walks_up_to_the_nearest_carrier(void **state)
{
        struct fx *f = *state;

        /* Our scope holds processes; pids is enabled in app.slice. */
        expect_base(f, SCOPE, "pids", "/user-1000.slice/u/app.slice");
        /* memory is not delegated to app.slice: user@1000.service. */
        expect_base(f, SCOPE, "memory", "/user-1000.slice/u");
        /* Both in one cgroup: the nearest that carries both. */
        expect_base(f, SCOPE, "pids memory", "/user-1000.slice/u");
        /* Nobody has it, up to and including the mount root. */
        expect_base(f, SCOPE, "hugetlb", NULL);
        /* Our own cgroup when it can (the mount root of a container). */
        expect_base(f, "/", "memory", "");
}

static void test_cgroup__enables_the_controller_where_it_may(void **state)
{
        struct fx *f = *state;
        char file[2 * PATH_MAX], buf[64];
        int fd;
        ssize_t n;

        /* app.slice lists pids only; u lists memory but has not enabled it. */
        snprintf(file, sizeof(file), "%s/user-1000.slice/u/cgroup.subtree_control", f->mnt);
        fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "pids\n", 5), 5);
        close(fd);
        expect_base(f, SCOPE, "memory", "/user-1000.slice/u");
        fd = open(file, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        assert_true(n > 0);
        buf[n] = '\0';
        assert_string_equal(buf, "+memory");    /* what was written to enable it */
}

static void test_cgroup__never_above_the_mount(void **state)
{
        struct fx *f = *state;

        /* rdma: only the mount root has it (its subtree_control takes the
         * "+rdma"); "above" only the directory the mount sits in. */
        expect_base(f, SCOPE, "rdma", "");
        expect_base(f, SCOPE, "above", NULL);
}

static void test_cgroup__stops_at_the_delegation_boundary(void **state)
{
        struct fx *f = *state;
        char d[2 * PATH_MAX], p[2 * PATH_MAX + 32];

        if (geteuid() == 0) {
                /* Root may write every cgroup: no boundary to find. */
                expect_base(f, SCOPE, "cpu", "/user-1000.slice");
                return;
        }
        /* user-1000.slice is root's on a real host: not writable by us. */
        snprintf(d, sizeof(d), "%s/user-1000.slice", f->mnt);
        snprintf(p, sizeof(p), "%s/cgroup.procs", d);
        assert_int_equal(chmod(p, 0444), 0);
        assert_int_equal(chmod(d, 0555), 0);
        expect_base(f, SCOPE, "cpu", NULL);     /* not user-1000.slice, not the root */
        expect_base(f, SCOPE, "memory", "/user-1000.slice/u");
        assert_int_equal(chmod(d, 0755), 0);
        /* A cgroup.procs we may not write is a boundary too (the move rule). */
        snprintf(p, sizeof(p), "%s/user-1000.slice/u/cgroup.procs", f->mnt);
        assert_int_equal(chmod(p, 0444), 0);
        expect_base(f, SCOPE, "memory", NULL);
}

static void test_cgroup__too_long(void **state)
{
        struct fx *f = *state;
        char out[8];

        assert_int_equal(sbx__cgroup_v2_base(f->mnt, SCOPE, "pids", out, sizeof(out)),
                         -ENAMETOOLONG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_cgroup__walks_up_to_the_nearest_carrier,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroup__enables_the_controller_where_it_may,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroup__never_above_the_mount, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cgroup__stops_at_the_delegation_boundary,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroup__too_long, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
