/*
 * secrets.c - home directories and their well-known secret locations: the
 * broad-workspace check of sbx_profile_new (a workspace root that is "/", a
 * home directory or an ancestor of one needs force_workspace) and the
 * secret table whose entries the plan hides below every home directory
 * inside a readable root, forced or not.
 *
 * This is the only part of the profile layer that reads the host beyond
 * canonicalising paths: HOME, the password database entry of the effective
 * uid (paths/posix/home.c), /etc/passwd (read here, no getpwent: thread-safe)
 * and lstat of the candidate secret paths.  The result is stored in the
 * profile, so the plan stays a pure function of it.  Rules and reasons:
 * docs/secrets.md.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

/* ---------------------------------------------------------------- table */

/*
 * The well-known secret locations below a home directory: credentials,
 * keys, tokens, password stores and browser profiles (cookies, saved
 * passwords).  `dir` documents what the entry usually is; every entry is
 * hidden with everything below it whatever it turns out to be.  A "*"
 * component stands for any existing name not starting with '.': such an
 * entry lists what exists when the profile is built.  Keep
 * docs/secrets.md in step with this table.
 */
static const struct secret_name {
        const char *suffix;
        int32_t     dir;
} secret_names[] = {
        /* keys and agents */
        { "/.ssh", 1 },
        { "/.gnupg", 1 },
        { "/.password-store", 1 },
        { "/.local/share/keyrings", 1 },
        { "/.pki", 1 },                         /* NSS database: client keys */
        { "/.config/op", 1 },                   /* 1Password CLI */
        { "/.config/sops/age", 1 },
        /* cloud and cluster credentials */
        { "/.aws", 1 },
        { "/.azure", 1 },
        { "/.config/gcloud", 1 },
        { "/.oci", 1 },
        { "/.kube", 1 },
        { "/.config/doctl", 1 },
        { "/.fly", 1 },
        { "/.s3cfg", 0 },
        { "/.boto", 0 },
        { "/.config/rclone", 1 },
        { "/.databrickscfg", 0 },
        { "/.vault-token", 0 },
        { "/.terraform.d/credentials.tfrc.json", 0 },
        { "/.terraformrc", 0 },
        /* registries, forges and package publishing */
        { "/.docker/config.json", 0 },
        { "/.config/containers/auth.json", 0 },
        { "/.netrc", 0 },
        { "/.git-credentials", 0 },
        { "/.config/git/credentials", 0 },
        { "/.config/gh", 1 },
        { "/.config/hub", 0 },
        { "/.config/glab-cli", 1 },
        { "/.npmrc", 0 },
        { "/.pypirc", 0 },
        { "/.gem/credentials", 0 },
        { "/.cargo/credentials", 0 },
        { "/.cargo/credentials.toml", 0 },
        /* package managers' user configuration: registry tokens */
        { "/.cargo/config", 0 },
        { "/.cargo/config.toml", 0 },
        { "/.config/pip", 1 },
        { "/.pip", 1 },
        { "/.config/pnpm/rc", 0 },
        { "/.yarnrc", 0 },
        { "/.yarnrc.yml", 0 },
        { "/.bunfig.toml", 0 },
        { "/.config/.bunfig.toml", 0 },
        { "/.gradle/gradle.properties", 0 },
        { "/.m2/settings.xml", 0 },
        { "/.m2/settings-security.xml", 0 },
        { "/.local/share/gem/credentials", 0 },
        { "/.bundle/config", 0 },
        { "/.composer/auth.json", 0 },
        { "/.config/composer/auth.json", 0 },
        { "/.nuget/NuGet/NuGet.Config", 0 },
        { "/.config/NuGet/NuGet.Config", 0 },
        { "/.config/go/env", 0 },
        { "/.config/mise", 1 },
        /* a toolchain's own registry configuration, for a root that holds
         * the toolchain whole (a forced home workspace, --allow-read
         * ~/.nvm); sbx_toolchain_roots never exposes these */
        { "/.nvm/versions/*/*/etc", 1 },
        { "/.pyenv/versions/*/pip.conf", 0 },
        { "/.pyenv/versions/*/envs/*/pip.conf", 0 },
        /* npm's built-in config inside the node versions a toolchain
         * exposes (docs/secrets.md, "Toolchains"); existing ones only */
        { "/.nvm/versions/*/*/lib/node_modules/npm/npmrc", 0 },
        { "/.local/share/fnm/node-versions/*/installation/lib/node_modules/npm/npmrc", 0 },
        { "/.volta/tools/image/node/*/lib/node_modules/npm/npmrc", 0 },
        { "/.asdf/installs/nodejs/*/lib/node_modules/npm/npmrc", 0 },
        { "/.local/share/mise/installs/node/*/lib/node_modules/npm/npmrc", 0 },
        { "/.local/share/pnpm/nodejs/*/lib/node_modules/npm/npmrc", 0 },
        /* database clients */
        { "/.pgpass", 0 },
        { "/.my.cnf", 0 },
        /* browser and mail profiles */
        { "/.mozilla", 1 },
        { "/.thunderbird", 1 },
        { "/.config/google-chrome", 1 },
        { "/.config/chromium", 1 },
        { "/.config/BraveSoftware", 1 },
        { "/.config/microsoft-edge", 1 },
        { "/.config/vivaldi", 1 },
        { "/snap/firefox", 1 },
        { "/snap/chromium", 1 },
};

size_t sbx__secret_table_size(void)
{
        return SBX__ARRAY_SIZE(secret_names);
}

const char *sbx__secret_table_entry(size_t i, int32_t *dir_out)
{
        if (i >= SBX__ARRAY_SIZE(secret_names))
                return NULL;
        if (dir_out != NULL)
                *dir_out = secret_names[i].dir;
        return secret_names[i].suffix;
}

/* ---------------------------------------------------------------- homes */

/* /etc/passwd larger than this is refused (SBX_E_RANGE) rather than read
 * in part: a home it lists could otherwise go unchecked. */
#define PASSWD_MAX (16u << 20)

struct home {
        char *path;             /* canonical, an existing directory, never "/" */
        int   own;              /* HOME or the account's: every entry, existing or not */
        int   account;          /* the password database entry of the effective uid */
};

struct homes {
        struct home *v;
        size_t n, cap;
        char  **seen;           /* raw /etc/passwd spellings already examined */
        size_t  n_seen, cap_seen;
};

static void homes_free(struct homes *h)
{
        size_t i;

        for (i = 0; i < h->n; i++)
                free(h->v[i].path);
        free(h->v);
        for (i = 0; i < h->n_seen; i++)
                free(h->seen[i]);
        free(h->seen);
}

/* 1 if raw was examined before (many system accounts share /nonexistent
 * or /bin); otherwise remember it and return 0.  -ENOMEM. */
static int seen_before(struct homes *h, const char *raw)
{
        size_t i;

        for (i = 0; i < h->n_seen; i++)
                if (strcmp(h->seen[i], raw) == 0)
                        return 1;
        if (h->n_seen == h->cap_seen) {
                size_t cap = h->cap_seen ? h->cap_seen * 2 : 32;
                char **v = realloc(h->seen, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                h->seen = v;
                h->cap_seen = cap;
        }
        h->seen[h->n_seen] = sbx__strdup(raw);
        if (h->seen[h->n_seen] == NULL)
                return -ENOMEM;
        h->n_seen++;
        return 0;
}

/* Add the home at raw (an absolute spelling) if it resolves to a directory
 * other than "/"; one that does not resolve is nothing anyone can reach
 * through it.  0 or -ENOMEM. */
static int homes_add(struct homes *h, const char *raw, int own, int account)
{
        char canon[PATH_MAX];
        struct stat st;
        size_t i;

        /* One stat first: most entries that are not there cost no more. */
        if (raw == NULL || raw[0] != '/' || stat(raw, &st) < 0 || !S_ISDIR(st.st_mode) ||
            realpath(raw, canon) == NULL ||
            strcmp(canon, "/") == 0 || stat(canon, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        for (i = 0; i < h->n; i++) {
                if (strcmp(h->v[i].path, canon) == 0) {
                        h->v[i].own |= own;
                        h->v[i].account |= account;
                        return 0;
                }
        }
        if (SBX__GROW(h->v, h->cap, h->n + 1, 16) < 0)
                return -ENOMEM;
        h->v[h->n].path = sbx__strdup(canon);
        if (h->v[h->n].path == NULL)
                return -ENOMEM;
        h->v[h->n].own = own;
        h->v[h->n].account = account;
        h->n++;
        return 0;
}

/* The whole of /etc/passwd into a malloc'd NUL-terminated buffer (*out
 * NULL when there is none).  0, -ENOMEM, -ERANGE or -errno. */
static int read_passwd(char **out)
{
        char *buf = NULL, *nb;
        size_t len = 0, cap = 0;
        int fd, r = 0;

        *out = NULL;
        do {
                fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        for (;;) {
                ssize_t k;

                if (len + 4096 + 1 > cap) {
                        cap = cap ? cap * 2 : 16384;
                        if (cap > PASSWD_MAX + 4096 + 1) {
                                r = -ERANGE;
                                break;
                        }
                        nb = realloc(buf, cap);
                        if (nb == NULL) {
                                r = -ENOMEM;
                                break;
                        }
                        buf = nb;
                }
                k = read(fd, buf + len, cap - len - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        r = -errno;
                        break;
                }
                if (k == 0)
                        break;
                len += (size_t) k;
                if (len > PASSWD_MAX) {
                        r = -ERANGE;
                        break;
                }
        }
        (void) close(fd);
        if (r < 0) {
                free(buf);
                return r;
        }
        if (buf == NULL)
                return 0;
        buf[len] = '\0';
        *out = buf;
        return 0;
}

/* The home field (the sixth) of every /etc/passwd line.  0 or -ENOMEM. */
static int add_passwd_homes(struct homes *h, const char *text)
{
        const char *line = text;

        while (line != NULL && *line != '\0') {
                const char *end = strchr(line, '\n'), *f = line;
                size_t len = end != NULL ? (size_t) (end - line) : strlen(line);
                int field = 0;

                while (field < 5 && f < line + len) {
                        const char *c = memchr(f, ':', (size_t) (line + len - f));

                        if (c == NULL)
                                break;
                        f = c + 1;
                        field++;
                }
                if (field == 5) {
                        const char *c = memchr(f, ':', (size_t) (line + len - f));
                        size_t n = c != NULL ? (size_t) (c - f) : (size_t) (line + len - f);
                        char dir[PATH_MAX];
                        int r;

                        if (n > 0 && n < sizeof(dir) && f[0] == '/') {
                                memcpy(dir, f, n);
                                dir[n] = '\0';
                                r = seen_before(h, dir);
                                if (r == 0)
                                        r = homes_add(h, dir, 0, 0);
                                else if (r == 1)
                                        r = 0;
                                if (r < 0)
                                        return r;
                        }
                }
                line = end != NULL ? end + 1 : NULL;
        }
        return 0;
}

/* HOME, the account's home and every home /etc/passwd lists. */
static sbx_code gather_homes(const char *fn, struct homes *h, sbx_error *err)
{
        char *home = NULL, *account = NULL, *text = NULL;
        int r;

        r = sbx__caller_home((const char *const *) environ, &home);
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (r < 0)
                return sbx__fail(err, SBX_E_IO, -r,
                                 "%s: HOME exists but cannot be resolved (%s); the workspace "
                                 "cannot be checked against it", fn, sbx__strerror(-r));
        r = sbx__account_home(&account);
        if (r == 0 && home != NULL)
                r = homes_add(h, home, 1, 0);
        if (r == 0 && account != NULL)
                r = homes_add(h, account, 1, 1);
        free(home);
        free(account);
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (r < 0)
                return sbx__fail(err, SBX_E_IO, -r,
                                 "%s: the account's home directory exists but cannot be "
                                 "resolved (%s)", fn, sbx__strerror(-r));
        r = read_passwd(&text);
        if (r == -ERANGE)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: /etc/passwd is larger than %u bytes; its home "
                                 "directories cannot all be checked", fn, PASSWD_MAX);
        if (r == 0 && text != NULL)
                r = add_passwd_homes(h, text);
        free(text);
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (r < 0)
                return sbx__fail(err, SBX_E_IO, -r,
                                 "%s: cannot read /etc/passwd (%s); its home directories "
                                 "cannot be checked", fn, sbx__strerror(-r));
        return SBX_OK;
}

/* ------------------------------------------------------------- secrets */

/*
 * A root makes what it contains more reachable than the rest of the host
 * when it is readable and gives more than the host access, or the HOME is
 * isolated (the backends hide the caller's home from the host view, and a
 * root re-exposes whatever of it lies inside).
 */
static int root_exposes(const sbx_profile *p, int32_t read, int32_t write)
{
        return read != SBX_ACCESS_DENY &&
               (read > p->host_read || write > p->host_write || p->home == SBX_HOME_ISOLATED);
}

/* 1 if a and b are the same path or one contains the other. */
static int nested(const char *a, const char *b)
{
        return sbx__path_has_prefix(a, b) || sbx__path_has_prefix(b, a);
}

/* 1 if some exposing configured root contains the home, or lies inside it
 * (an --allow-read of ~/.config or ~/.cargo exposes the secrets below
 * it: ~/.config/gcloud, ~/.cargo/credentials.toml). */
static int meets_exposing_root(const sbx_profile *p, const char *home)
{
        size_t i;

        if (root_exposes(p, p->workspace_read, p->workspace_write) &&
            nested(home, p->workspace_root))
                return 1;
        for (i = 0; i < p->n_roots; i++)
                if (root_exposes(p, p->roots[i].read, p->roots[i].write) &&
                    nested(home, p->roots[i].path))
                        return 1;
        return 0;
}

void sbx__profile_secrets_free(struct sbx_profile_secret *v, size_t n)
{
        size_t i;

        if (v == NULL)
                return;
        for (i = 0; i < n; i++) {
                free(v[i].path);
                free(v[i].home);
        }
        free(v);
}

struct secrets {
        struct sbx_profile_secret *v;
        size_t n, cap;
};

static int secrets_add(struct secrets *s, const char *path, const char *home, int32_t account)
{
        if (SBX__GROW(s->v, s->cap, s->n + 1, 64) < 0)
                return -ENOMEM;
        s->v[s->n].path = sbx__strdup(path);
        s->v[s->n].home = sbx__strdup(home);
        s->v[s->n].account = account;
        if (s->v[s->n].path == NULL || s->v[s->n].home == NULL) {
                free(s->v[s->n].path);
                free(s->v[s->n].home);
                return -ENOMEM;
        }
        s->n++;
        return 0;
}

/* By path; for one path, the entry that never skips (account 0) first. */
static int cmp_secret(const void *a, const void *b)
{
        const struct sbx_profile_secret *x = a, *y = b;
        int c = strcmp(x->path, y->path);

        return c != 0 ? c : (int) x->account - (int) y->account;
}

/* Sort, drop duplicate paths (keeping the first) and check the bound.
 * 0 or -ERANGE. */
static int secrets_finish(struct secrets *s)
{
        size_t i, kept = 0;

        if (s->n > 1)
                qsort(s->v, s->n, sizeof(*s->v), cmp_secret);
        for (i = 0; i < s->n; i++) {
                if (kept > 0 && strcmp(s->v[kept - 1].path, s->v[i].path) == 0) {
                        free(s->v[i].path);
                        free(s->v[i].home);
                        continue;
                }
                s->v[kept++] = s->v[i];
        }
        s->n = kept;
        return s->n > SBX__PROFILE_MAX_SECRETS ? -ERANGE : 0;
}

/* One secret location that exists or not: kept canonical, inside a root. */
static int add_secret(const sbx_profile *p, const struct home *h, const char *path, int exists,
                      struct secrets *s)
{
        char canon[SBX_PATH_MAX];

        if (!exists && !h->own)
                return 0;
        if (sbx__path_canonical_buf("sbx_profile_new", "secret", path, canon, NULL) != SBX_OK)
                return 0;       /* a dangling link or a loop: nothing to read */
        if (sbx__profile_deepest_root(p, canon) == NULL)
                return 0;       /* outside every root: the host access decides */
        return secrets_add(s, canon, h->path, h->account);
}

/* 1 if name matches pat[0..len): '*' any run of characters. */
static int glob_run(const char *pat, size_t len, const char *name)
{
        if (len == 0)
                return name[0] == '\0';
        if (pat[0] == '*') {
                for (;; name++) {
                        if (glob_run(pat + 1, len - 1, name))
                                return 1;
                        if (name[0] == '\0')
                                return 0;
                }
        }
        return name[0] == pat[0] && glob_run(pat + 1, len - 1, name + 1);
}

/* A glob component: a name starting with '.' never matches. */
static int glob_component(const char *pat, size_t len, const char *name)
{
        return name[0] != '.' && glob_run(pat, len, name);
}

/* The existing paths below dir that match rest (components, some "*"). */
static int expand_secret(const sbx_profile *p, const struct home *h, const char *dir,
                         const char *rest, int depth, struct secrets *s)
{
        char path[SBX_PATH_MAX];
        const char *c, *end;
        size_t len;
        struct dirent *de;
        struct stat st;
        DIR *d;
        int r = 0;

        if (rest[0] == '\0') {
                if (lstat(dir, &st) < 0)
                        return 0;
                return add_secret(p, h, dir, 1, s);
        }
        if (depth > 16)
                return 0;
        c = rest + 1;           /* rest is "/<component>[/...]" */
        end = strchr(c, '/');
        len = end != NULL ? (size_t) (end - c) : strlen(c);
        if (memchr(c, '*', len) == NULL) {
                if (strlen(dir) + 1 + len >= sizeof(path))
                        return -ERANGE;
                (void) snprintf(path, sizeof(path), "%s/%.*s", dir, (int) len, c);
                return expand_secret(p, h, path, c + len, depth + 1, s);
        }
        d = opendir(dir);
        if (d == NULL)
                return 0;               /* missing, or not ours to read */
        while (r == 0 && (de = readdir(d)) != NULL) {
                if (!glob_component(c, len, de->d_name))
                        continue;
                if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
                    sizeof(path)) {
                        r = -ERANGE;
                        break;
                }
                r = expand_secret(p, h, path, c + len, depth + 1, s);
        }
        (void) closedir(d);
        return r;
}

/*
 * The secret locations of one home: every table entry for the caller's own
 * homes (so a credential created later is hidden too), only the existing
 * ones for other accounts' homes.  Each is stored canonical (a symlinked
 * ~/.ssh is hidden where it really is) and kept only inside a configured
 * root.  An entry that cannot be examined (EACCES) is dropped: the command,
 * which never has more authority than the caller, cannot reach it either.
 * 0, -ENOMEM or -ERANGE.
 */
static int home_secrets(const sbx_profile *p, const struct home *h, struct secrets *s)
{
        char path[SBX_PATH_MAX];
        struct stat st;
        size_t k, hl = strlen(h->path);
        int r;

        for (k = 0; k < SBX__ARRAY_SIZE(secret_names); k++) {
                size_t sl = strlen(secret_names[k].suffix);
                int exists;

                if (hl + sl >= sizeof(path))
                        return -ERANGE;
                if (strchr(secret_names[k].suffix, '*') != NULL) {
                        r = expand_secret(p, h, h->path, secret_names[k].suffix, 0, s);
                        if (r < 0)
                                return r;
                        continue;
                }
                memcpy(path, h->path, hl);
                memcpy(path + hl, secret_names[k].suffix, sl + 1);
                if (lstat(path, &st) == 0)
                        exists = 1;
                else if (errno == ENOENT || errno == ENOTDIR)
                        exists = 0;
                else
                        continue;
                r = add_secret(p, h, path, exists, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The given homes, as they are (syntax checked). */
static sbx_code given_homes(const char *fn, const struct sbx__home_set *hs, struct homes *h,
                            sbx_error *err)
{
        size_t i;

        for (i = 0; i < hs->n; i++) {
                const char *raw = hs->homes[i];

                if (raw == NULL || sbx__path_syntax(raw) != PATH_OK || strcmp(raw, "/") == 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: homes[%zu] is not a "
                                         "canonical absolute path other than \"/\"", fn, i);
                if (SBX__GROW(h->v, h->cap, h->n + 1, 16) < 0)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                h->v[h->n].path = sbx__strdup(raw);
                if (h->v[h->n].path == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                h->v[h->n].own = 1;
                h->v[h->n].account = 0;
                h->n++;
        }
        return SBX_OK;
}

sbx_code sbx__profile_find_secrets(const char *fn, sbx_profile *p,
                                   const struct sbx__home_set *homes, sbx_error *err)
{
        struct homes h = { NULL, 0, 0, NULL, 0, 0 };
        struct secrets s = { NULL, 0, 0 };
        int ws_checked, any, r = 0;
        char shown[64], shown2[64], shown3[64];
        sbx_code c = SBX_OK;
        size_t i;

        if (p->isolation == SBX_ISOLATION_UNCONFINED)
                return SBX_OK;          /* no boundary: nothing to check or hide */
        ws_checked = root_exposes(p, p->workspace_read, p->workspace_write) &&
                     !p->force_workspace;
        any = root_exposes(p, p->workspace_read, p->workspace_write);
        for (i = 0; i < p->n_roots; i++)
                any |= root_exposes(p, p->roots[i].read, p->roots[i].write);
        if (!any)
                return SBX_OK;
        if (ws_checked && strcmp(p->workspace_root, "/") == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: workspace_root is \"/\": the sandbox would expose the "
                                 "whole system and every home directory to the command; set "
                                 "force_workspace to 1 to allow it", fn);
        c = homes != NULL ? given_homes(fn, homes, &h, err) : gather_homes(fn, &h, err);
        if (c != SBX_OK)
                goto out;
        for (i = 0; ws_checked && i < h.n; i++) {
                if (!sbx__path_has_prefix(h.v[i].path, p->workspace_root))
                        continue;
                if (strcmp(h.v[i].path, p->workspace_root) == 0)
                        shown2[0] = '\0';
                else
                        (void) snprintf(shown2, sizeof(shown2), "an ancestor of ");
                c = sbx__fail(err, SBX_E_INVALID, 0,
                              "%s: workspace_root \"%s\" is %sa home directory (\"%s\"): the "
                              "sandbox would expose its dotfiles and keys to the command; set "
                              "force_workspace to 1 to allow it", fn,
                              sbx__printable(p->workspace_root, shown, sizeof(shown)), shown2,
                              sbx__printable(h.v[i].path, shown3, sizeof(shown3)));
                goto out;
        }
        for (i = 0; i < h.n && r == 0; i++)
                if (meets_exposing_root(p, h.v[i].path))
                        r = home_secrets(p, &h.v[i], &s);
        if (r == 0)
                r = secrets_finish(&s);
        if (r == -ENOMEM) {
                c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        } else if (r < 0) {
                c = sbx__fail(err, SBX_E_RANGE, 0,
                              "%s: the home directories inside the roots have more than %d "
                              "secret locations to hide (or one is too long)", fn,
                              SBX__PROFILE_MAX_SECRETS);
        } else {
                p->secrets = s.v;
                p->n_secrets = s.n;
                s.v = NULL;
                s.n = 0;
        }
out:
        sbx__profile_secrets_free(s.v, s.n);
        homes_free(&h);
        return c;
}

int sbx__profile_secret_applies(const sbx_profile *p, const struct sbx_profile_secret *s)
{
        const char *root;

        if (p == NULL || s == NULL || s->path == NULL)
                return 0;
        if (sbx__profile_path_access(p, s->path, 0) != SBX_ACCESS_ALLOW)
                return 0;       /* not readable in the plan: nothing to hide */
        root = sbx__profile_deepest_root(p, s->path);
        if (root == NULL)
                return 0;       /* only the host access reaches it */
        /* With an isolated HOME every backend hides the account's home
         * wholesale; a root strictly above that home does not bring it
         * back, so nothing inside it is visible (and a carve-out there
         * would have no mount point on rung 1). */
        if (p->home == SBX_HOME_ISOLATED && s->account && s->home != NULL &&
            sbx__path_has_prefix(s->path, s->home) && strcmp(root, s->home) != 0 &&
            sbx__path_has_prefix(s->home, root))
                return 0;
        return 1;
}

int sbx__profile_secrets_union(const sbx_profile *a, const sbx_profile *b,
                               struct sbx_profile_secret **out, size_t *n_out)
{
        const sbx_profile *both[2] = { a, b };
        struct secrets s = { NULL, 0, 0 };
        size_t i, k;
        int r = 0;

        *out = NULL;
        *n_out = 0;
        for (k = 0; k < 2 && r == 0; k++)
                for (i = 0; i < both[k]->n_secrets && r == 0; i++)
                        r = secrets_add(&s, both[k]->secrets[i].path, both[k]->secrets[i].home,
                                        both[k]->secrets[i].account);
        if (r == 0)
                r = secrets_finish(&s);
        if (r < 0) {
                sbx__profile_secrets_free(s.v, s.n);
                return r;
        }
        *out = s.v;
        *n_out = s.n;
        return 0;
}
