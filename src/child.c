/*
 * child.c - the public spawn entry point and the child handle shared by
 * every backend: wait, report, kill-and-reap, scratch cleanup.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "linux/linux_internal.h"

sbx_child *sbx__child_new(int32_t backend)
{
        sbx_child *c = calloc(1, sizeof(*c));

        if (c == NULL)
                return NULL;
        c->pid = -1;
        c->backend = backend;
        return c;
}

/* Remove everything below the directory fd `dfd`, never following
 * symlinks (unlinkat removes the link itself). */
static int rm_below(int dfd)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        d = fdopendir(dfd);
        if (d == NULL) {
                r = -errno;
                close(dfd);
                return r;
        }
        while ((de = readdir(d)) != NULL) {
                int sub;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (unlinkat(dirfd(d), de->d_name, 0) == 0)
                        continue;
                if (errno != EISDIR && errno != EPERM) {
                        r = r != 0 ? r : -errno;
                        continue;
                }
                sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) {
                        r = r != 0 ? r : -errno;
                        continue;
                }
                /* An owner-only scratch dir the child made read-only: make it
                 * writable again so its entries can go. */
                (void) fchmod(sub, 0700);
                if (rm_below(sub) < 0 && r == 0)
                        r = -EIO;
                if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0 && r == 0)
                        r = -errno;
        }
        closedir(d);
        return r;
}

int sbx__rm_rf(const char *path)
{
        int fd, r;

        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        (void) fchmod(fd, 0700);
        r = rm_below(fd);
        if (rmdir(path) < 0 && r == 0)
                r = -errno;
        return r;
}

static void child_cleanup(sbx_child *c)
{
        size_t i;

        if (c->scratch != NULL) {
                (void) sbx__rm_rf(c->scratch);
                free(c->scratch);
                c->scratch = NULL;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(c->cgroup); i++) {
                if (c->cgroup[i] != NULL) {
                        sbx__cgroup_destroy(c->cgroup[i]);
                        free(c->cgroup[i]);
                        c->cgroup[i] = NULL;
                }
        }
}

sbx_code sbx_spawn(const sbx_plan *plan, const char *const *argv, const sbx_spawn_options *opts,
                   sbx_child **out, sbx_error *err)
{
        static const sbx_spawn_options defaults = SBX_SPAWN_OPTIONS_INIT;
        const char *fn = "sbx_spawn";
        const struct sbx_backend *be = NULL;
        sbx_code r;
        size_t i;

        if (plan == NULL || argv == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan, argv and out must not be NULL", fn);
        if (argv[0] == NULL || argv[0][0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: argv[0] is missing", fn);
        if (opts == NULL)
                opts = &defaults;
        if (opts->version != SBX_SPAWN_OPTIONS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported options version %u", fn,
                                 (unsigned) opts->version);
        if (opts->flags != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown flags 0x%x", fn,
                                 (unsigned) opts->flags);
        if (opts->n_keep_fds > 0 && opts->keep_fds == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: keep_fds is NULL", fn);
        if (opts->n_keep_fds > 64)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: more than 64 keep_fds", fn);
        for (i = 0; i < opts->n_keep_fds; i++)
                if (opts->keep_fds[i] < 0 || fcntl(opts->keep_fds[i], F_GETFD) < 0)
                        return sbx__fail(err, SBX_E_INVALID, EBADF, "%s: keep_fds[%zu] is not open", fn, i);
        if (opts->cwd != NULL && opts->cwd[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd must be absolute", fn);

        if (plan->direct)
                return sbx__direct_spawn(plan, argv, opts, out, err);

        if (opts->backend == SBX_BACKEND_AUTO) {
                r = sbx__backend_chosen(&be, err);
                if (r != SBX_OK)
                        return r;
        } else {
                be = sbx__backend_get(opts->backend);
                if (be == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid backend %d", fn,
                                         (int) opts->backend);
                r = be->probe(err);
                if (r != SBX_OK)
                        return r;
        }
        if ((be->guarantees(plan) & plan->required) != plan->required)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "%s: the %s backend cannot enforce every guarantee the "
                                 "profile requires (missing 0x%x); refusing to run less confined",
                                 fn, be->name, (unsigned) (plan->required & ~be->guarantees(plan)));
        return be->spawn(plan, argv, opts, out, err);
}

int32_t sbx_child_pid(const sbx_child *child)
{
        return child != NULL ? (int32_t) child->pid : -1;
}

sbx_code sbx_child_wait(sbx_child *child, int *wstatus_out, sbx_error *err)
{
        pid_t p;
        int st;

        if (child == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_wait: child is NULL");
        if (!child->waited) {
                do
                        p = waitpid(child->pid, &st, 0);
                while (p < 0 && errno == EINTR);
                if (p < 0)
                        return sbx__fail(err, SBX_E_IO, errno, "sbx_child_wait: waitpid failed");
                child->waited = 1;
                child->status = st;
                child_cleanup(child);
        }
        if (wstatus_out != NULL)
                *wstatus_out = child->status;
        return SBX_OK;
}

sbx_code sbx_child_report(const sbx_child *child, sbx_guarantee_report *out, sbx_error *err)
{
        if (child == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_report: child and out must not be NULL");
        if (out->version != SBX_GUARANTEE_REPORT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_report: out->version must be "
                                 "SBX_GUARANTEE_REPORT_VERSION");
        out->required = child->required;
        out->achieved = child->achieved;
        if (child->achieved == 0)
                out->enforcement = SBX_ENFORCEMENT_NONE;
        else if ((child->achieved & child->required) == child->required)
                out->enforcement = SBX_ENFORCEMENT_FULL;
        else
                out->enforcement = SBX_ENFORCEMENT_PARTIAL;
        return SBX_OK;
}

void sbx_child_free(sbx_child *child)
{
        if (child == NULL)
                return;
        if (!child->waited && child->pid > 0) {
                /* The native child is pid 1 of its own pid namespace: killing
                 * it takes the whole tree down.  Other backends run the
                 * command in its own session / process group. */
                (void) kill(-child->pid, SIGKILL);
                (void) kill(child->pid, SIGKILL);
                while (waitpid(child->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                child->waited = 1;
        }
        child_cleanup(child);
        free(child);
}
