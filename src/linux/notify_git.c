/*
 * notify_git.c - the git part of the supervisor (notify.c, docs/git.md):
 * which names make a repository git would use (asked by the supervisor:
 * async-signal-safe), and the protected objects it knows (built by the
 * parent before the clone).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "compile/plan_internal.h"
#include "linux/ladder.h"

/* ------------------------------------------------- in the supervisor */

/* ".git" in any case, or "HEAD": names git turns into a repository. */
static int vetoed(const char *name, size_t len)
{
        if (len != 4)
                return 0;
        if (name[0] == '.' && (name[1] | 0x20) == 'g' && (name[2] | 0x20) == 'i' &&
            (name[3] | 0x20) == 't')
                return 1;
        return memcmp(name, "HEAD", 4) == 0;
}

/* "head", "Head"...: HEAD where a lookup ignores case (".git" in any
 * case is vetoed everywhere already). */
static int head_variant(const char *name, size_t len)
{
        return len == 4 && (name[0] | 0x20) == 'h' && (name[1] | 0x20) == 'e' &&
               (name[2] | 0x20) == 'a' && (name[3] | 0x20) == 'd';
}

#ifndef FS_IOC_GETFLAGS
#  define FS_IOC_GETFLAGS _IOR('f', 1, long)
#endif
#define SBX__FS_CASEFOLD_FL 0x40000000

/*
 * 1 only for a directory known to tell "head" from "HEAD": a file system
 * that compares names byte for byte (ext2/3/4, xfs, btrfs, tmpfs, ramfs,
 * overlayfs, f2fs, zfs), without the casefold flag where it has one.
 * Anything else (vfat, exfat, ntfs, cifs, fuse, nfs...) may fold case.
 */
static int case_sensitive(int dirfd)
{
        static const unsigned long sensitive[] = {
                0xEF53UL, 0x58465342UL, 0x9123683EUL, 0x01021994UL, 0x858458F6UL,
                0x794C7630UL, 0xF2F52010UL, 0x2FC12FC1UL,
        };
        struct statfs sf;
        size_t i;
        int fd, flags = 0, ok = 0;

        if (fstatfs(dirfd, &sf) < 0)
                return 0;
        for (i = 0; i < sizeof(sensitive) / sizeof(sensitive[0]); i++)
                if ((unsigned long) sf.f_type == sensitive[i])
                        ok = 1;
        if (!ok)
                return 0;
        if ((unsigned long) sf.f_type != 0xEF53UL && (unsigned long) sf.f_type != 0xF2F52010UL &&
            (unsigned long) sf.f_type != 0x01021994UL)
                return 1;               /* no per-directory casefolding */
        fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return 0;
        ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? !(flags & SBX__FS_CASEFOLD_FL)
             : errno == ENOTTY;         /* a tmpfs that cannot fold either */
        (void) close(fd);
        return ok;
}

/*
 * 1 if creating (or moving, linking) `name` (len bytes) in directory dirfd
 * could make a repository git would use: ".git" (any case) anywhere;
 * "HEAD" anywhere (and a case variant of it, or either with trailing dots
 * or spaces, where the file system may fold them); and any
 * name at all in a directory that holds a HEAD -- a git dir, or one step
 * from being one (objects/ and refs/, a commondir, a config git would
 * read).  No HEAD can appear, so no directory becomes one.  AS-safe.
 */
int sbx__notify_makes_repository(int dirfd, const char *name, size_t len)
{
        struct stat st;
        size_t l = len;

        if (vetoed(name, len))
                return 1;
        /* vfat, ntfs and friends also drop trailing dots and spaces:
         * ".git." and "HEAD " are ".git" and "HEAD" there */
        while (l > 0 && (name[l - 1] == '.' || name[l - 1] == ' '))
                l--;
        if ((head_variant(name, l) || vetoed(name, l)) && !case_sensitive(dirfd))
                return 1;
        return fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
               (errno != ENOENT && errno != ENOTDIR);
}

/* ------------------------------------------------ built by the parent */

/*
 * The objects the supervisor protects: each protected rule of the plan
 * that exists (a tree root or one object) and, pinned (tree 2), each
 * directory between it and the writable root holding it -- a pinned one
 * cannot be renamed or removed (rung 1 pins them as mountpoints,
 * mounts.c), so nothing protected is moved away from where git looks and
 * replaced.  *out malloc'd; 0 or -ENOMEM.
 */
int sbx__notify_prot_build(const struct sbx_plan *plan, struct sbx__prot **out, size_t *n_out)
{
        struct sbx__prot *v;
        size_t i, k, cap = 0, n = 0;

        for (i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin == SBX__ORIGIN_PROTECTED)
                        for (k = 0, cap++; plan->rules[i].path[k] != '\0'; k++)
                                cap += plan->rules[i].path[k] == '/';
        v = calloc(cap + 1, sizeof(*v));
        if (v == NULL)
                return -ENOMEM;
        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                char anc[SBX_PATH_MAX];
                struct stat st;
                char *slash;

                if (rule->origin != SBX__ORIGIN_PROTECTED || lstat(rule->path, &st) < 0)
                        continue;
                v[n].dev = st.st_dev;
                v[n].ino = st.st_ino;
                v[n].tree = rule->scope == SBX__FS_TREE && S_ISDIR(st.st_mode);
                n++;
                if (strlen(rule->path) >= sizeof(anc))
                        continue;
                strcpy(anc, rule->path);
                while ((slash = strrchr(anc, '/')) != NULL && slash != anc) {
                        int below = 0;

                        *slash = '\0';
                        for (k = 0; k < plan->n_rules && !below; k++) {
                                const struct sbx_plan_fs_rule *w = &plan->rules[k];

                                below = (w->origin == SBX__ORIGIN_WORKSPACE ||
                                         w->origin == SBX__ORIGIN_ADDITIONAL) &&
                                        (w->access & SBX__FS_WRITE) && sbx__under(anc, w->path);
                        }
                        if (!below || lstat(anc, &st) < 0)
                                break;
                        v[n].dev = st.st_dev;
                        v[n].ino = st.st_ino;
                        v[n].tree = 2;
                        n++;
                }
        }
        *out = v;
        *n_out = n;
        return 0;
}
