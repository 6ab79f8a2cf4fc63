/*
 * cgroup.c - per-spawn resource limits through cgroups.
 *
 * Discovery (every spawn that asks for a limit; it is a few small reads):
 *   - cgroup v2: the cgroup2 mount from /proc/self/mountinfo plus our own
 *     cgroup from /proc/self/cgroup ("0::/path").  The per-spawn cgroup is
 *     made in our cgroup or, since that one holds our own process (the
 *     kernel's "no internal processes" rule keeps its controllers from
 *     being enabled for children), in the nearest ancestor that lists the
 *     controller in cgroup.controllers and has it (or can enable it) in
 *     cgroup.subtree_control.  The walk never leaves what is ours: it stops
 *     at the first cgroup whose directory or cgroup.procs we cannot write.
 *     That is how an unprivileged user in a systemd session gets a real
 *     total: systemd delegates user@UID.service (and the slices and scopes
 *     below it) to the user, e.g. a terminal's scope under
 *     .../user@UID.service/app.slice/, and moving a process between two
 *     cgroups needs only their common ancestor's cgroup.procs -- which is
 *     the cgroup we create in.  A login session's scope (session-N.scope)
 *     is root's, so there is nothing to walk.
 *   - otherwise cgroup v1: the per-controller hierarchies ("N:pids:/path"),
 *     typically writable by root on hybrid hosts.
 * A child cgroup "sbx-<pid>-<n>" is created per spawn with the limit
 * written into it (on v2 one cgroup carries both limits: a process is in
 * exactly one v2 cgroup); a memory limit also bounds swap (memory.swap.max 0, or
 * memory.memsw.limit_in_bytes), and without swap accounting the memory
 * cgroup is used only when the host has no swap, so the limit is a real
 * total for the whole process tree.  The parent moves the child process in
 * before the child may run the command, and removes the cgroup (killing
 * stragglers) when the child is reaped.  When no cgroup can carry a limit
 * the caller decides: a per-process rlimit, or fail closed.
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
#include "paths/paths_internal.h"

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

/* A dead host's empty cgroup (a populated one refuses rmdir). */
static void remove_cgroup(const char *path)
{
        (void) rmdir(path);
}

/* Create <base>/sbx-<pid>-<start>-<pidns>-<n> (sbx__owner_tag: a later
 * spawn tells a dead host's from a live one's); *dir_out malloc'd. */
static int make_child(const char *base, char **dir_out)
{
        char path[SBX_PATH_MAX], tag[80];

        sbx__sweep_dead(base, "sbx-", remove_cgroup);
        /* No /proc: the pid alone (swept once no process has it). */
        if (sbx__owner_tag(tag, sizeof(tag)) < 0)
                (void) snprintf(tag, sizeof(tag), "%ld", (long) getpid());
        if ((size_t) snprintf(path, sizeof(path), "%s/sbx-%s-%u", base, tag,
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

/* 1 if swap space is in use on this host (/proc/swaps lists a device). */
static int swap_active(void)
{
        char buf[512];
        const char *nl;

        if (read_text("/proc/swaps", buf, sizeof(buf)) < 0)
                return 1;               /* unknown: assume it is */
        nl = strchr(buf, '\n');         /* the header line */
        return nl != NULL && nl[1] != '\0';
}

/* 1 if the v2 cgroup dir can carry every controller of the space-
 * separated list for a child cgroup made in it: it has them and they are
 * (or can be) enabled for children. */
static int v2_carries(const char *dir, const char *controllers)
{
        char file[SBX_PATH_MAX + 32], have[1024], on[1024], one[32], plus[40];
        const char *p = controllers;
        size_t n;

        snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
        if (read_text(file, have, sizeof(have)) < 0)
                return 0;
        snprintf(file, sizeof(file), "%s/cgroup.subtree_control", dir);
        if (read_text(file, on, sizeof(on)) < 0)
                return 0;
        while (*p != '\0') {
                n = strcspn(p, " ");
                if (n == 0 || n >= sizeof(one))
                        return 0;
                memcpy(one, p, n);
                one[n] = '\0';
                p += n + (p[n] == ' ');
                if (!has_word(have, one))
                        return 0;
                if (has_word(on, one))
                        continue;
                /* Refused with EBUSY when dir has processes of its own (the
                 * "no internal processes" rule): our own cgroup, as a rule. */
                snprintf(plus, sizeof(plus), "+%s", one);
                if (sbx__write_text(file, plus) < 0)
                        return 0;
        }
        return 1;
}

int sbx__cgroup_v2_base(const char *mnt, const char *own, const char *controller, char *out,
                        size_t outlen)
{
        char dir[SBX_PATH_MAX], file[SBX_PATH_MAX + 32];
        size_t mlen = strlen(mnt);
        char *slash;

        if ((size_t) snprintf(dir, sizeof(dir), "%s%s", mnt,
                              strcmp(own, "/") == 0 ? "" : own) >= sizeof(dir))
                return -ENAMETOOLONG;
        for (;;) {
                /* The delegation boundary: above the first cgroup we may
                 * not write, nothing is ours to create in. */
                snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
                if (access(dir, W_OK) < 0 || access(file, W_OK) < 0)
                        return -ENOENT;
                /* Moving the child from our cgroup into <dir>/sbx-... needs
                 * write access to the common ancestor's cgroup.procs: dir
                 * itself, just checked. */
                if (v2_carries(dir, controller)) {
                        if (strlen(dir) >= outlen)
                                return -ENAMETOOLONG;
                        memcpy(out, dir, strlen(dir) + 1);
                        return 0;
                }
                slash = strrchr(dir, '/');
                if (slash == NULL || (size_t) (slash - dir) < mlen)
                        return -ENOENT;         /* at the mount root */
                *slash = '\0';
        }
}

/* Write one limit (pids: value 0 = "max", tracking only) into dir.
 * memory also bounds swap (memory.swap.max 0 / memory.memsw = the limit),
 * so the limit is a total of everything the tree can hold; without swap
 * accounting only a host without swap keeps it one. */
static int write_limit(const char *dir, int v2, int memory, uint64_t value)
{
        char file[SBX_PATH_MAX + 64], num[32];
        int r;

        if (value == 0)
                snprintf(num, sizeof(num), "max");
        else
                snprintf(num, sizeof(num), "%llu", (unsigned long long) value);
        snprintf(file, sizeof(file), "%s/%s", dir,
                 !memory ? "pids.max" : v2 ? "memory.max" : "memory.limit_in_bytes");
        r = sbx__write_text(file, num);
        if (r == 0 && memory) {
                snprintf(file, sizeof(file), "%s/%s", dir,
                         v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
                r = sbx__write_text(file, v2 ? "0" : num);
                if (r == -ENOENT && !swap_active())
                        r = 0;
        }
        return r;
}

/* One v2 cgroup carrying the requested limits (a process is in exactly one
 * v2 cgroup, so pids and memory share it): want_pids / want_memory. */
static int make_v2(int want_pids, uint64_t pids_max, int want_memory, uint64_t memory_max,
                   char **dir_out)
{
        char mnt[SBX_PATH_MAX], own[SBX_PATH_MAX], base[SBX_PATH_MAX];
        const char *ctls = want_pids && want_memory ? "pids memory" : want_pids ? "pids" : "memory";
        char *dir = NULL;

        if (find_mount(1, NULL, mnt, sizeof(mnt)) < 0 || own_path(1, NULL, own, sizeof(own)) < 0 ||
            sbx__cgroup_v2_base(mnt, own, ctls, base, sizeof(base)) < 0 ||
            make_child(base, &dir) < 0)
                return -ENOENT;
        if ((want_pids && write_limit(dir, 1, 0, pids_max) < 0) ||
            (want_memory && write_limit(dir, 1, 1, memory_max) < 0)) {
                (void) rmdir(dir);
                free(dir);
                return -ENOENT;
        }
        *dir_out = dir;
        return 0;
}

/* One v1 cgroup in the hierarchy of controller ("pids" or "memory"). */
static int make_v1(const char *controller, uint64_t value, char **dir_out)
{
        char mnt[SBX_PATH_MAX], own[SBX_PATH_MAX], base[SBX_PATH_MAX], buf[64];
        char file[SBX_PATH_MAX + 32];
        int memory = strcmp(controller, "memory") == 0;
        char *dir = NULL;

        if (find_mount(0, controller, mnt, sizeof(mnt)) < 0 ||
            own_path(0, controller, own, sizeof(own)) < 0 ||
            (size_t) snprintf(base, sizeof(base), "%s%s", mnt,
                              strcmp(own, "/") == 0 ? "" : own) >= sizeof(base))
                return -ENOENT;
        if (memory) {
                /* A v1 memory controller can be mounted yet charge nothing
                 * (disabled accounting): we are in base and use memory, so a
                 * zero usage means a limit there would never be enforced. */
                snprintf(file, sizeof(file), "%s/memory.usage_in_bytes", base);
                if (read_text(file, buf, sizeof(buf)) < 0 || strtoull(buf, NULL, 10) == 0)
                        return -ENOENT;
        }
        if (make_child(base, &dir) < 0)
                return -ENOENT;
        if (write_limit(dir, 0, memory, value) < 0) {
                (void) rmdir(dir);
                free(dir);
                return -ENOENT;
        }
        *dir_out = dir;
        return 0;
}

int sbx__cgroup_prepare(uint64_t pids_max, uint64_t memory_max, int track, char **dirs_out)
{
        int want_pids = pids_max > 0 || track, want_memory = memory_max > 0, in_v2 = 0;

        dirs_out[0] = dirs_out[1] = NULL;
        /* v2 first, one cgroup for both; else each limit on its own (v2 for
         * at most one, as the process can be in one v2 cgroup only; v1 per
         * hierarchy), so one that no cgroup can carry does not take the
         * other's away.  Tracking only: a pids cgroup without a limit
         * ("max" is what a fresh cgroup holds), so every descendant can be
         * found and killed when the command is done. */
        if (want_pids && want_memory && make_v2(1, pids_max, 1, memory_max, &dirs_out[0]) == 0) {
                dirs_out[1] = sbx__strdup(dirs_out[0]);
                if (dirs_out[1] == NULL) {
                        sbx__cgroup_destroy(dirs_out[0]);
                        free(dirs_out[0]);
                        dirs_out[0] = NULL;
                        return -ENOMEM;
                }
                return 0;
        }
        if (want_pids) {
                if (make_v2(1, pids_max, 0, 0, &dirs_out[0]) == 0)
                        in_v2 = 1;
                else
                        (void) make_v1("pids", pids_max, &dirs_out[0]);
        }
        if (want_memory && !(!in_v2 && make_v2(0, 0, 1, memory_max, &dirs_out[1]) == 0))
                (void) make_v1("memory", memory_max, &dirs_out[1]);
        if ((want_pids && dirs_out[0] == NULL) || (want_memory && dirs_out[1] == NULL))
                return -ENOENT;
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

/* The count after key in a flat-keyed file ("max 3\noom_kill 1\n"). */
static uint64_t keyed(const char *text, const char *key)
{
        size_t n = strlen(key);
        const char *p = text;

        while (p != NULL && *p != '\0') {
                if (strncmp(p, key, n) == 0 && p[n] == ' ')
                        return strtoull(p + n + 1, NULL, 10);
                p = strchr(p, '\n');
                if (p != NULL)
                        p++;
        }
        return 0;
}

void sbx__cgroup_usage(const char *pids_dir, const char *mem_dir, struct sbx__cg_usage *u)
{
        char file[SBX_PATH_MAX + 32], buf[1024];

        memset(u, 0, sizeof(*u));
        if (mem_dir != NULL) {
                /* v2 memory.peak (5.19+) / memory.events; v1 max_usage, and
                 * failcnt or oom_control's oom_kill (a kill at the limit may
                 * leave failcnt 0). */
                snprintf(file, sizeof(file), "%s/memory.peak", mem_dir);
                if (read_text(file, buf, sizeof(buf)) == 0) {
                        u->peak_memory = strtoull(buf, NULL, 10);
                        u->have_memory = 1;
                } else {
                        snprintf(file, sizeof(file), "%s/memory.max_usage_in_bytes", mem_dir);
                        if (read_text(file, buf, sizeof(buf)) == 0) {
                                u->peak_memory = strtoull(buf, NULL, 10);
                                u->have_memory = 1;
                        }
                }
                snprintf(file, sizeof(file), "%s/memory.events", mem_dir);
                if (read_text(file, buf, sizeof(buf)) == 0) {
                        u->memory_hit = keyed(buf, "max") > 0 || keyed(buf, "oom_kill") > 0;
                } else {
                        snprintf(file, sizeof(file), "%s/memory.failcnt", mem_dir);
                        if (read_text(file, buf, sizeof(buf)) == 0)
                                u->memory_hit = strtoull(buf, NULL, 10) > 0;
                        snprintf(file, sizeof(file), "%s/memory.oom_control", mem_dir);
                        if (read_text(file, buf, sizeof(buf)) == 0 && keyed(buf, "oom_kill") > 0)
                                u->memory_hit = 1;
                }
        }
        if (pids_dir != NULL) {
                snprintf(file, sizeof(file), "%s/pids.peak", pids_dir);
                if (read_text(file, buf, sizeof(buf)) == 0) {
                        u->max_processes = (uint32_t) strtoul(buf, NULL, 10);
                        u->have_processes = 1;
                }
                snprintf(file, sizeof(file), "%s/pids.events", pids_dir);
                if (read_text(file, buf, sizeof(buf)) == 0)
                        u->pids_hit = keyed(buf, "max") > 0;
        }
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
