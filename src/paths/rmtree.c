/*
 * rmtree.c - remove a scratch directory tree without following a symlink
 * a confined command planted inside it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"

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

