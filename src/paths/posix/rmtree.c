/*
 * rmtree.c - remove a scratch directory tree without following a symlink
 * a confined command planted inside it or leaving the tree, undoing the
 * modes the command set on its directories; and what tells a dead owner of
 * a scratch entry from a live one (its name carries the owner's pid, start
 * time and pid namespace), for the sweeps of what a killed host left.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "paths/paths_internal.h"

/* Make the directory behind the O_PATH fd pfd (never a link: it was opened
 * O_NOFOLLOW | O_DIRECTORY) readable, writable and searchable by its owner
 * again, through the fd: fchmodat2(AT_EMPTY_PATH), else its /proc/self/fd
 * name, which names that very inode.  0 or -errno. */
static int dir_unlock(int pfd, const struct stat *st)
{
        char proc[40];

        if ((st->st_mode & 0700) == 0700)
                return 0;
#ifdef SYS_fchmodat2
        if (syscall(SYS_fchmodat2, pfd, "", (mode_t) 0700, AT_EMPTY_PATH) == 0)
                return 0;
#endif
        (void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
        return chmod(proc, 0700) == 0 ? 0 : -errno;
}

static int rm_below(int dfd, dev_t dev);

/* Remove the directory `name` below pfd (AT_FDCWD: a path) and all in it,
 * never following a link and never crossing into another file system.
 * 0, or the first real failure as -errno. */
static int rm_dir_at(int pfd, const char *name, dev_t dev, int top)
{
        struct stat st;
        int p, fd, r, e;

        p = openat(pfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (p < 0)
                return top && errno == ENOENT ? 0 : -errno;
        if (fstat(p, &st) < 0) {
                r = -errno;
                (void) close(p);
                return r;
        }
        if (!top && st.st_dev != dev) {
                (void) close(p);
                return -EXDEV;          /* a mount inside: never left */
        }
        e = dir_unlock(p, &st);
        fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = fd < 0 ? -errno : 0;
        (void) close(p);
        if (fd < 0)
                return e < 0 ? e : r;   /* why it could not be opened */
        r = rm_below(fd, st.st_dev);
        if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && r == 0)
                r = -errno;
        return r;
}

/* Remove everything below the directory fd `dfd` (closed here), never
 * following symlinks (unlinkat removes the link itself). */
static int rm_below(int dfd, dev_t dev)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        d = fdopendir(dfd);
        if (d == NULL) {
                r = -errno;
                (void) close(dfd);
                return r;
        }
        while ((errno = 0, de = readdir(d)) != NULL) {
                int e;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (unlinkat(dirfd(d), de->d_name, 0) == 0)
                        continue;
                e = -errno;
                if (e == -EISDIR || e == -EPERM)
                        e = rm_dir_at(dirfd(d), de->d_name, dev, 0);
                if (e < 0 && e != -ENOENT && r == 0)
                        r = e;
        }
        if (errno != 0 && r == 0)
                r = -errno;
        (void) closedir(d);
        return r;
}

int sbx__rm_rf(const char *path)
{
        int r = rm_dir_at(AT_FDCWD, path, 0, 1);

        /* A passing shortage (an fd, memory) while the host is busy: one
         * more pass over what is left, before it is reported. */
        if (r == -EMFILE || r == -ENFILE || r == -ENOMEM || r == -EAGAIN || r == -EINTR)
                r = rm_dir_at(AT_FDCWD, path, 0, 1);
        return r;
}

int sbx__rm_entry(int dfd, const char *name)
{
        struct stat st;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
                return -EPERM;
        return rm_dir_at(dfd, name, st.st_dev, 0);
}

/* ------------------------------------------------------------ owners */

/* Field 22 of /proc/<pid>/stat (0: self): the start time in clock ticks
 * since boot.  0 or -errno. */
static int start_time(long pid, unsigned long long *out)
{
        char path[40], buf[1024], *p;
        ssize_t n;
        int fd, i;

        if (pid == 0)
                (void) snprintf(path, sizeof(path), "/proc/self/stat");
        else
                (void) snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        do
                n = read(fd, buf, sizeof(buf) - 1);
        while (n < 0 && errno == EINTR);
        i = errno;
        (void) close(fd);
        if (n <= 0)
                return n < 0 ? -i : -EIO;
        buf[n] = '\0';
        /* The name (field 2) may hold anything: fields count from its last ')'. */
        p = strrchr(buf, ')');
        if (p == NULL)
                return -EIO;
        for (i = 2; i < 22; i++) {
                p = strchr(p + 1, ' ');
                if (p == NULL)
                        return -EIO;
        }
        *out = strtoull(p + 1, &p, 10);
        return *p == ' ' ? 0 : -EIO;
}

/* The inode of this process's pid namespace, 0 when unknown. */
static unsigned long long pid_ns(void)
{
        struct stat st;

        return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long) st.st_ino : 0;
}

int sbx__owner_tag(char *out, size_t size)
{
        unsigned long long start, ns = pid_ns();
        int e = start_time(0, &start);

        if (e < 0)
                return e;
        if (ns == 0)
                return -ENOENT;
        if ((size_t) snprintf(out, size, "%ld-%llu-%llu", (long) getpid(), start, ns) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* A decimal number at *s followed by '-': parsed, *s past the '-'. */
static int take_num(const char **s, unsigned long long *out)
{
        char *end;

        if (**s < '0' || **s > '9')
                return 0;
        errno = 0;
        *out = strtoull(*s, &end, 10);
        if (errno != 0 || *end != '-')
                return 0;
        *s = end + 1;
        return 1;
}

int sbx__owner_gone(const char *s)
{
        unsigned long long pid, start = 0, ns = 0, now;
        const char *p = s;
        int tagged;

        if (!take_num(&p, &pid) || pid == 0 || pid > (unsigned long long) INT32_MAX)
                return 0;
        tagged = take_num(&p, &start) && take_num(&p, &ns);
        if ((pid_t) pid == getpid())
                return 0;
        if (tagged && (ns == 0 || ns != pid_ns()))
                return 0;               /* another pid namespace's: cannot tell */
        if (kill((pid_t) pid, 0) < 0 && errno == ESRCH)
                return 1;               /* no such process */
        /* Alive (or not ours to signal): gone only when that pid is a later
         * process than the one that named the entry. */
        if (!tagged || start_time((long) pid, &now) < 0)
                return 0;
        return now != start;
}

/* A sweep of one place is due when this process has not swept it in the
 * last second: bounded work per spawn, and a host that outlives another
 * still sweeps what that one leaves later.  A forked child sweeps anew. */
#define SWEEP_SLOTS 16

int sbx__sweep_due(const char *key)
{
        static struct {
                char key[SBX_PATH_MAX];
                pid_t pid;
                struct timespec at;
        } slot[SWEEP_SLOTS];
        static unsigned next;
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        struct timespec now;
        size_t i, klen = strlen(key);
        int due = 1;

        if (klen >= SBX_PATH_MAX)
                return 1;
        (void) clock_gettime(CLOCK_MONOTONIC, &now);
        (void) pthread_mutex_lock(&lock);
        for (i = 0; i < SWEEP_SLOTS; i++)
                if (slot[i].pid == getpid() && strcmp(slot[i].key, key) == 0)
                        break;
        if (i < SWEEP_SLOTS &&
            (int64_t) (now.tv_sec - slot[i].at.tv_sec) * 1000000000 +
            (now.tv_nsec - slot[i].at.tv_nsec) < 1000000000)
                due = 0;
        if (due) {
                if (i == SWEEP_SLOTS)
                        i = next++ % SWEEP_SLOTS;
                memcpy(slot[i].key, key, klen + 1);
                slot[i].pid = getpid();
                slot[i].at = now;
        }
        (void) pthread_mutex_unlock(&lock);
        return due;
}

void sbx__sweep_dirs(const char *base, const char *prefix)
{
        char key[SBX_PATH_MAX];
        size_t plen = strlen(prefix);
        struct dirent *de;
        struct stat st;
        DIR *d;
        int fd;

        if ((size_t) snprintf(key, sizeof(key), "%s/%s", base, prefix) >= sizeof(key) ||
            !sbx__sweep_due(key))
                return;
        fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return;
        /* Only a place of this user that nobody else can write. */
        if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022) != 0 ||
            (d = fdopendir(fd)) == NULL) {
                (void) close(fd);
                return;
        }
        while ((de = readdir(d)) != NULL)
                if (strncmp(de->d_name, prefix, plen) == 0 && sbx__owner_gone(de->d_name + plen))
                        (void) sbx__rm_entry(dirfd(d), de->d_name);
        (void) closedir(d);
}
