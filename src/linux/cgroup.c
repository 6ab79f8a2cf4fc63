/*
 * cgroup.c - per-spawn resource limits through cgroups.
 *
 * Discovery (every spawn that asks for a limit; it is a few small reads):
 *   - cgroup v2: the cgroup2 mount from /proc/self/mountinfo plus our own
 *     cgroup from /proc/self/cgroup ("0::/path").  Usable when that
 *     directory is writable, lists the controller in cgroup.controllers and
 *     has it (or can enable it) in cgroup.subtree_control.
 *   - otherwise cgroup v1: the per-controller hierarchies ("N:pids:/path"),
 *     typically writable by root on hybrid hosts.
 * A child cgroup "sbx-<pid>-<n>" is created per spawn with the limit
 * written into it; the parent moves the child process in before the child
 * may run the command, and removes the cgroup (killing stragglers) when the
 * child is reaped.  When no cgroup can carry a limit the caller decides:
 * RLIMIT_NPROC for an unprivileged user, or fail closed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux_internal.h"

static atomic_uint cg_counter;

int sbx__write_text(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        size_t len = 0;
        ssize_t n;

        while (text[len] != '\0')      /* no strlen: async-signal-safe use */
                len++;
        if (fd < 0)
                return -errno;
        do
                n = write(fd, text, len);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                int e = -errno;

                close(fd);
                return e;
        }
        close(fd);
        return (size_t) n == len ? 0 : -EIO;
}

static int read_text(const char *path, char *buf, size_t len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        do
                n = read(fd, buf, len - 1);
        while (n < 0 && errno == EINTR);
        close(fd);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

/* 1 if the space-separated word list contains word. */
static int has_word(const char *list, const char *word)
{
        size_t n = strlen(word);
        const char *p = list;

        while ((p = strstr(p, word)) != NULL) {
                if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
                    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ','))
                        return 1;
                p += n;
        }
        return 0;
}

/* The mount point of the cgroup2 fs (v2) or of the v1 hierarchy that
 * carries `controller`, into out.  0 or -ENOENT. */
static int find_mount(int v2, const char *controller, char *out, size_t outlen)
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096];
        int r = -ENOENT;

        if (f == NULL)
                return -errno;
        while (fgets(line, sizeof(line), f) != NULL) {
                char *sep = strstr(line, " - "), *mnt, *fstype, *opts, *save = NULL;
                int i;

                if (sep == NULL)
                        continue;
                *sep = '\0';
                mnt = strtok_r(line, " ", &save);
                for (i = 0; i < 4 && mnt != NULL; i++)
                        mnt = strtok_r(NULL, " ", &save);      /* field 5 */
                fstype = strtok_r(sep + 3, " ", &save);
                (void) strtok_r(NULL, " ", &save);              /* source */
                opts = strtok_r(NULL, " \n", &save);            /* super options */
                if (mnt == NULL || fstype == NULL)
                        continue;
                if ((v2 && strcmp(fstype, "cgroup2") == 0) ||
                    (!v2 && strcmp(fstype, "cgroup") == 0 && opts != NULL &&
                     has_word(opts, controller))) {
                        if (strlen(mnt) < outlen && strchr(mnt, '\\') == NULL) {
                                snprintf(out, outlen, "%s", mnt);
                                r = 0;
                        }
                        break;
                }
        }
        fclose(f);
        return r;
}

/* Our cgroup path in the v2 hierarchy (v2) or in the v1 hierarchy of
 * controller, from /proc/self/cgroup. */
static int own_path(int v2, const char *controller, char *out, size_t outlen)
{
        FILE *f = fopen("/proc/self/cgroup", "re");
        char line[4096];
        int r = -ENOENT;

        if (f == NULL)
                return -errno;
        while (fgets(line, sizeof(line), f) != NULL) {
                char *c1 = strchr(line, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;

                if (c2 == NULL)
                        continue;
                *c2 = '\0';
                line[strcspn(line, "\n")] = '\0';
                c2[1 + strcspn(c2 + 1, "\n")] = '\0';
                if ((v2 && strcmp(line, "0") == 0 && c1[1] == '\0') ||
                    (!v2 && has_word(c1 + 1, controller))) {
                        if (strlen(c2 + 1) < outlen) {
                                snprintf(out, outlen, "%s", c2 + 1);
                                r = 0;
                        }
                        break;
                }
        }
        fclose(f);
        return r;
}

/* Create <base>/sbx-<pid>-<n>; *dir_out malloc'd. */
static int make_child(const char *base, char **dir_out)
{
        char path[SBX_PATH_MAX];

        if ((size_t) snprintf(path, sizeof(path), "%s/sbx-%ld-%u", base, (long) getpid(),
                              atomic_fetch_add(&cg_counter, 1)) >= sizeof(path))
                return -ENAMETOOLONG;
        if (mkdir(path, 0755) < 0)
                return -errno;
        *dir_out = sbx__strdup(path);
        if (*dir_out == NULL) {
                (void) rmdir(path);
                return -ENOMEM;
        }
        return 0;
}

/* One limit in one cgroup; v2 or v1 for controller, file = limit file. */
static int limit_one(const char *controller, const char *file_v2, const char *file_v1,
                     uint64_t value, char **dir_out, int *v2_out)
{
        char mnt[SBX_PATH_MAX], own[SBX_PATH_MAX], base[SBX_PATH_MAX * 2], buf[1024];
        char file[SBX_PATH_MAX * 2 + 64], num[32];
        char *dir = NULL;
        int v2, r;

        if (value == 0)
                snprintf(num, sizeof(num), "max");
        else
                snprintf(num, sizeof(num), "%llu", (unsigned long long) value);
        for (v2 = 1; v2 >= 0; v2--) {
                if (find_mount(v2, controller, mnt, sizeof(mnt)) < 0 ||
                    own_path(v2, controller, own, sizeof(own)) < 0)
                        continue;
                snprintf(base, sizeof(base), "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own);
                if (v2) {
                        snprintf(file, sizeof(file), "%s/cgroup.controllers", base);
                        if (read_text(file, buf, sizeof(buf)) < 0 || !has_word(buf, controller))
                                continue;
                        snprintf(file, sizeof(file), "%s/cgroup.subtree_control", base);
                        if (read_text(file, buf, sizeof(buf)) < 0)
                                continue;
                        if (!has_word(buf, controller)) {
                                char plus[64];

                                snprintf(plus, sizeof(plus), "+%s", controller);
                                if (sbx__write_text(file, plus) < 0)
                                        continue;
                        }
                }
                if (!v2 && strcmp(controller, "memory") == 0) {
                        /* A v1 memory controller can be mounted yet charge
                         * nothing (disabled accounting): we are in base and
                         * use memory, so a zero usage means a limit there
                         * would never be enforced. */
                        snprintf(file, sizeof(file), "%s/memory.usage_in_bytes", base);
                        if (read_text(file, buf, sizeof(buf)) < 0 || strtoull(buf, NULL, 10) == 0)
                                continue;
                }
                if (make_child(base, &dir) < 0)
                        continue;
                snprintf(file, sizeof(file), "%s/%s", dir, v2 ? file_v2 : file_v1);
                r = sbx__write_text(file, num);
                if (r < 0) {
                        (void) rmdir(dir);
                        free(dir);
                        dir = NULL;
                        continue;
                }
                *dir_out = dir;
                *v2_out = v2;
                return 0;
        }
        return -ENOENT;
}

int sbx__cgroup_prepare(uint64_t pids_max, uint64_t memory_max, int track, char **dirs_out)
{
        int v2 = 0, r;

        dirs_out[0] = dirs_out[1] = NULL;
        if (pids_max > 0 || track) {
                /* Tracking only: a pids cgroup without a limit ("max" is
                 * what a fresh cgroup holds), so every descendant can be
                 * found and killed when the command is done. */
                r = pids_max > 0 ? limit_one("pids", "pids.max", "pids.max", pids_max, &dirs_out[0], &v2)
                                 : limit_one("pids", "pids.max", "pids.max", 0, &dirs_out[0], &v2);
                if (r < 0)
                        return r;
        }
        if (memory_max > 0) {
                r = limit_one("memory", "memory.max", "memory.limit_in_bytes", memory_max,
                              &dirs_out[1], &v2);
                if (r < 0) {
                        sbx__cgroup_destroy(dirs_out[0]);
                        free(dirs_out[0]);
                        dirs_out[0] = NULL;
                        return r;
                }
        }
        return 0;
}

int sbx__cgroup_attach(char *const *dirs, pid_t pid)
{
        char file[SBX_PATH_MAX + 32], num[32];
        int i, r;

        snprintf(num, sizeof(num), "%ld", (long) pid);
        for (i = 0; i < 2; i++) {
                if (dirs[i] == NULL)
                        continue;
                snprintf(file, sizeof(file), "%s/cgroup.procs", dirs[i]);
                r = sbx__write_text(file, num);
                if (r < 0)
                        return r;
        }
        return 0;
}

void sbx__cgroup_destroy(const char *dir)
{
        struct timespec ms = { 0, 1000 * 1000 };
        char file[SBX_PATH_MAX + 32], buf[8192];
        int tries;

        if (dir == NULL)
                return;
        snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
        for (tries = 0; tries < 200; tries++) {
                char *p, *save = NULL;

                if (rmdir(dir) == 0 || errno == ENOENT)
                        return;
                if (errno != EBUSY)
                        return;
                /* Stragglers: kill whatever is still inside, then retry. */
                if (read_text(file, buf, sizeof(buf)) == 0)
                        for (p = strtok_r(buf, "\n", &save); p != NULL; p = strtok_r(NULL, "\n", &save))
                                (void) kill((pid_t) atol(p), SIGKILL);
                (void) nanosleep(&ms, NULL);
        }
}
