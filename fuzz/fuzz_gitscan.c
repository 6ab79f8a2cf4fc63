/*
 * fuzz_gitscan.c - libFuzzer harness for the spawn-time git scan
 * (sbx__git_discover: src/paths/gitscan.c, gitconfig.c, gitprotect.c),
 * which reads files a confined command may have written: a repository's
 * config, HEAD, commondir, a "gitdir:" file, an included file, the
 * caller's global config, a link in the git dir.
 *
 * The input is split at "\n%%\n" into up to seven parts, written (when
 * present) as
 *   0  ws/.git/config          3  ws/.git/commondir
 *   1  ws/.git/HEAD            4  ws/inc.cfg
 *   2  ws/sub/.git             5  home/.gitconfig (the global config)
 *   6  the target of the symbolic link ws/.git/hooks
 * in a fresh directory per input, with objects/ and refs/heads/ made so
 * ws/.git is a repository.  HOME is home/, the system config /dev/null.
 *
 * Invariants, each a __builtin_trap() when broken:
 *   - the result is 0 or a negative errno, and fail is set only on an
 *     error;
 *   - on 0 every location is canonical (absolute, no "//", "/./", "/../",
 *     no trailing '/') and inside the root ws/ -- the scan never asks to
 *     protect, or create, anything outside the writable roots;
 *   - a second scan of the tree lists every location the first listed
 *     (the first creates a missing location, and the parents it needs,
 *     so the second may list more: a "gitdir:" file naming a/.git/x
 *     makes a/.git, which the second finds as a repository).
 *
 * Seeds: fuzz/corpus/gitscan/.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
        do { \
                if (!(cond)) \
                        __builtin_trap(); \
        } while (0)

#define SEP "\n%%\n"

static const char *const files[] = {
        "ws/.git/config", "ws/.git/HEAD", "ws/sub/.git", "ws/.git/commondir", "ws/inc.cfg",
        "home/.gitconfig",
};

static void put(const char *dir, const char *rel, const uint8_t *p, size_t n)
{
        char path[4096];
        int fd;

        (void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, p, n) == (ssize_t) n);
        (void) close(fd);
}

static void mk(const char *dir, const char *rel)
{
        char path[4096];

        (void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
        CHECK(mkdir(path, 0755) == 0);
}

static void check_canonical_inside(const char *p, const char *ws)
{
        size_t n = strlen(ws), len = strlen(p);

        CHECK(p[0] == '/');
        CHECK(strstr(p, "//") == NULL && strstr(p, "/./") == NULL && strstr(p, "/../") == NULL);
        CHECK(len < 2 || (strcmp(p + len - 2, "/.") != 0 && strcmp(p + len - 1, "/") != 0));
        CHECK(len < 3 || strcmp(p + len - 3, "/..") != 0);
        CHECK(strncmp(p, ws, n) == 0 && (p[n] == '\0' || p[n] == '/'));
}

/* Every location of a is in b (as a tree where a has a tree). */
static int covered(const struct sbx__gitscan *a, const struct sbx__gitscan *b)
{
        size_t i, j;

        for (i = 0; i < a->n; i++) {
                for (j = 0; j < b->n; j++)
                        if (strcmp(a->v[i].path, b->v[j].path) == 0 &&
                            (b->v[j].tree || !a->v[i].tree))
                                break;
                if (j == b->n)
                        return 0;
        }
        return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char tmpl[] = "/tmp/sbx-fuzz-git.XXXXXX", *base, ws[4096], home[4096], env_home[4200];
        const char *envp[] = { env_home, "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
                               NULL };
        const char *roots[1];
        struct sbx__gitscan g, g2;
        const uint8_t *p = data, *end = data + size;
        size_t part = 0;
        int r, r2;

        if (size > 65536)
                return 0;
        base = mkdtemp(tmpl);
        CHECK(base != NULL);
        mk(base, "ws");
        mk(base, "ws/.git");
        mk(base, "ws/.git/objects");
        mk(base, "ws/.git/refs");
        mk(base, "ws/.git/refs/heads");
        mk(base, "ws/sub");
        mk(base, "home");
        while (p <= end && part < 7) {
                const uint8_t *q = p;
                size_t n;

                while (q + strlen(SEP) <= end && memcmp(q, SEP, strlen(SEP)) != 0)
                        q++;
                if (q + strlen(SEP) > end)
                        q = end;
                n = (size_t) (q - p);
                if (part < sizeof(files) / sizeof(files[0])) {
                        put(base, files[part], p, n);
                } else if (n > 0 && n < 1024 && memchr(p, '\0', n) == NULL) {
                        char target[1024], link[4096];

                        memcpy(target, p, n);
                        target[n] = '\0';
                        (void) snprintf(link, sizeof(link), "%s/ws/.git/hooks", base);
                        (void) symlink(target, link);
                }
                part++;
                if (q == end)
                        break;
                p = q + strlen(SEP);
        }
        (void) snprintf(ws, sizeof(ws), "%s/ws", base);
        (void) snprintf(home, sizeof(home), "%s/home", base);
        (void) snprintf(env_home, sizeof(env_home), "HOME=%s", home);
        roots[0] = ws;

        memset(&g, 0, sizeof(g));
        r = sbx__git_discover(roots, 1, envp, &g);
        CHECK(r <= 0 && r > -4096);
        if (r == 0) {
                size_t i;

                CHECK(g.fail == NULL);
                for (i = 0; i < g.n; i++)
                        check_canonical_inside(g.v[i].path, ws);
        }
        memset(&g2, 0, sizeof(g2));
        r2 = sbx__git_discover(roots, 1, envp, &g2);
        CHECK(r2 == r);
        CHECK(r != 0 || covered(&g, &g2));
        sbx__gitscan_free(&g);
        sbx__gitscan_free(&g2);
        CHECK(sbx__rm_rf(base) == 0);
        return 0;
}
