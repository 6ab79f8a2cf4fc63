/*
 * gitconfig.c - git's configuration as the spawn-time scan reads it
 * (gitscan.c has the whole picture; docs/git.md): a tolerant parser of
 * git's config syntax with includes followed, the caller's system, global
 * and environment configuration, what each key's value is to git (a
 * command, a hooks directory, a trusted or data file...), and the
 * evaluation of every value for one repository.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/gitscan_internal.h"

/* ------------------------------------------------------- config files */

/* Read a small file into a NUL-terminated malloc'd buffer; NULL with
 * errno (ENOENT for a missing file). */
char *sbx__gs_slurp(const char *path, size_t *len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        char *buf;
        size_t n = 0;

        if (fd < 0)
                return NULL;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES) {
                int e = EINVAL;

                if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
                        e = EFBIG;      /* a regular file too large */
                close(fd);
                errno = e;
                return NULL;
        }
        buf = malloc((size_t) st.st_size + 1);
        if (buf == NULL) {
                close(fd);
                errno = ENOMEM;
                return NULL;
        }
        while (n < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + n, (size_t) st.st_size - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                n += (size_t) k;
        }
        close(fd);
        buf[n] = '\0';
        *len = n;
        return buf;
}

static void lower(char *p)
{
        for (; *p != '\0'; p++)
                *p = (char) tolower((unsigned char) *p);
}

void sbx__gs_ents_free(struct ents *e)
{
        size_t i;

        for (i = 0; i < e->n; i++) {
                free(e->v[i].file);
                free(e->v[i].section);
                free(e->v[i].sub);
                free(e->v[i].key);
                free(e->v[i].value);
        }
        free(e->v);
        memset(e, 0, sizeof(*e));
}

static int ents_push(struct ents *e, const char *file, const char *section, const char *sub,
                     const char *key, const char *value)
{
        struct ent *x;

        if (SBX__GROW(e->v, e->cap, e->n + 1, 32) < 0)
                return -ENOMEM;
        x = &e->v[e->n];
        memset(x, 0, sizeof(*x));
        x->kind = -1;
        if ((file != NULL && (x->file = sbx__strdup(file)) == NULL) ||
            (x->section = sbx__strdup(section)) == NULL ||
            (sub != NULL && (x->sub = sbx__strdup(sub)) == NULL) ||
            (x->key = sbx__strdup(key)) == NULL || (x->value = sbx__strdup(value)) == NULL) {
                free(x->file);
                free(x->section);
                free(x->sub);
                free(x->key);
                return -ENOMEM;
        }
        e->n++;
        return 0;
}

/* "section.sub.key" (sub may hold dots) into its parts; 0 or -EINVAL. */
static int split_key(const char *name, char *section, size_t ss, char *sub, size_t subsz,
                     char *key, size_t ks, int *has_sub)
{
        const char *first = strchr(name, '.'), *last = strrchr(name, '.');

        if (first == NULL || first == name || last[1] == '\0')
                return -EINVAL;
        if ((size_t) (first - name) >= ss || strlen(last + 1) >= ks)
                return -EINVAL;
        memcpy(section, name, (size_t) (first - name));
        section[first - name] = '\0';
        lower(section);
        snprintf(key, ks, "%s", last + 1);
        lower(key);
        *has_sub = first != last;
        if (*has_sub) {
                if ((size_t) (last - first - 1) >= subsz)
                        return -EINVAL;
                memcpy(sub, first + 1, (size_t) (last - first - 1));
                sub[last - first - 1] = '\0';
        }
        return 0;
}

struct include_arg {
        struct ents *out;
        int depth;
};

static int include_target(struct scan *s, const char *target, void *arg)
{
        const struct include_arg *a = arg;
        int r = sbx__gs_protect(s, target, PT_FILE);

        if (r == 0 && a->depth < MAX_INCLUDE_DEPTH)
                r = sbx__gs_read_config(s, target, a->out, a->depth + 1);
        return r;
}

/* An include.path / includeIf.*.path: the file (relative to the including
 * file's directory, as git resolves it), protected and read. */
static int include(struct scan *s, const char *file, const char *value, struct ents *out,
                   int depth)
{
        struct include_arg a = { out, depth };
        char dir[SBX_PATH_MAX];
        const char *base = NULL;

        if (file != NULL) {
                const char *slash = strrchr(file, '/');

                if (slash == NULL || (size_t) (slash - file) >= sizeof(dir))
                        return 0;
                memcpy(dir, file, (size_t) (slash - file));
                dir[slash - file] = '\0';
                if (dir[0] == '\0')
                        strcpy(dir, "/");
                base = dir;
        }
        return sbx__gs_each_target(s, base, value, include_target, &a);
}

/* One key = value read: includes are followed at once, every other entry
 * kept for evaluation in each repository's context. */
static int entry(struct scan *s, const char *file, struct ents *out, int depth,
                 const char *section, const char *sub, const char *key, const char *value)
{
        if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
            strcmp(key, "path") == 0) {
                if (value[0] == '\0' || (file == NULL && value[0] != '/' && value[0] != '~'))
                        return 0;       /* git refuses a relative include without a file */
                return include(s, file, value, out, depth);
        }
        return ents_push(out, file, section, sub, key, value);
}

/*
 * A tolerant reader of git's config syntax: [section], [section "sub"],
 * [section.sub], key = value with quotes, escapes, comments (# ;) and
 * backslash-newline continuations.  Whatever it cannot read it skips:
 * the scan adds protection, it never removes any.
 */
int sbx__gs_read_config(struct scan *s, const char *path, struct ents *out, int depth)
{
        char section[64] = "", sub[256] = "", key[64], value[SBX_PATH_MAX];
        int have_sub = 0;
        size_t len = 0, i = 0;
        char *text = sbx__gs_slurp(path, &len);
        int r = 0;

        /* A config too large to read is one we cannot vouch for (git
         * reads it whole): fail closed.  Missing or unreadable is what git
         * finds too. */
        if (text == NULL)
                return errno == ENOMEM ? -ENOMEM
                       : errno == EFBIG ? sbx__gs_fail_at(s, path, -EFBIG) : 0;
        while (i < len && r == 0) {
                size_t k;

                while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' ||
                                   text[i] == '\n'))
                        i++;
                if (i >= len)
                        break;
                if (text[i] == '#' || text[i] == ';') {
                        while (i < len && text[i] != '\n')
                                i++;
                        continue;
                }
                if (text[i] == '[') {
                        i++;
                        k = 0;
                        while (i < len && (isalnum((unsigned char) text[i]) || text[i] == '-' ||
                                           text[i] == '.') && k + 1 < sizeof(section))
                                section[k++] = text[i++];
                        section[k] = '\0';
                        have_sub = 0;
                        {
                                char *dot = strchr(section, '.');

                                if (dot != NULL) {      /* [section.sub] */
                                        *dot = '\0';
                                        snprintf(sub, sizeof(sub), "%s", dot + 1);
                                        lower(sub);
                                        have_sub = 1;
                                }
                        }
                        lower(section);
                        while (i < len && (text[i] == ' ' || text[i] == '\t'))
                                i++;
                        if (i < len && text[i] == '"') {
                                i++;
                                k = 0;
                                while (i < len && text[i] != '"' && text[i] != '\n') {
                                        if (text[i] == '\\' && i + 1 < len)
                                                i++;
                                        if (k + 1 < sizeof(sub))
                                                sub[k++] = text[i];
                                        i++;
                                }
                                sub[k] = '\0';
                                have_sub = 1;
                        }
                        while (i < len && text[i] != ']' && text[i] != '\n')
                                i++;
                        if (i < len && text[i] == ']')
                                i++;
                        continue;
                }
                /* key [= value] */
                k = 0;
                while (i < len && (isalnum((unsigned char) text[i]) || text[i] == '-') &&
                       k + 1 < sizeof(key))
                        key[k++] = text[i++];
                key[k] = '\0';
                lower(key);
                while (i < len && (text[i] == ' ' || text[i] == '\t'))
                        i++;
                value[0] = '\0';
                if (i < len && text[i] == '=') {
                        int quoted = 0;
                        size_t trail = 0;

                        i++;
                        while (i < len && (text[i] == ' ' || text[i] == '\t'))
                                i++;
                        k = 0;
                        while (i < len) {
                                char c = text[i];

                                if (c == '\n' && !quoted)
                                        break;
                                if (!quoted && (c == '#' || c == ';'))
                                        break;
                                if (c == '"') {
                                        quoted = !quoted;
                                        i++;
                                        trail = 0;
                                        continue;
                                }
                                if (c == '\\' && i + 1 < len) {
                                        char e = text[i + 1];

                                        i += 2;
                                        if (e == '\n')
                                                continue;
                                        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
                                        if (k + 1 < sizeof(value))
                                                value[k++] = c;
                                        trail = 0;
                                        continue;
                                }
                                if (k + 1 < sizeof(value))
                                        value[k++] = c;
                                trail = (c == ' ' || c == '\t' || c == '\r') && !quoted
                                        ? trail + 1 : 0;
                                i++;
                        }
                        k -= trail < k ? trail : k;
                        value[k] = '\0';
                }
                while (i < len && text[i] != '\n')
                        i++;
                if (key[0] != '\0' && section[0] != '\0')
                        r = entry(s, path, out, depth, section, have_sub ? sub : NULL, key, value);
        }
        free(text);
        return r;
}

/* GIT_CONFIG_PARAMETERS: 'key'='value' pairs (or 'key=value'), spaces
 * between, git's own quoting ('\'' for a quote). */
static int read_parameters(struct scan *s, const char *p, struct ents *out)
{
        char buf[2][SBX_PATH_MAX];
        int r = 0;

        while (*p != '\0' && r == 0) {
                size_t n[2] = { 0, 0 };
                int part = 0;

                while (*p == ' ')
                        p++;
                if (*p == '\0')
                        break;
                while (*p != '\0' && *p != ' ') {
                        if (*p == '\'') {
                                p++;
                                while (*p != '\0' && *p != '\'') {
                                        if (n[part] + 1 < SBX_PATH_MAX)
                                                buf[part][n[part]++] = *p;
                                        p++;
                                }
                                if (*p == '\'')
                                        p++;
                        } else if (*p == '\\' && p[1] != '\0') {
                                if (n[part] + 1 < SBX_PATH_MAX)
                                        buf[part][n[part]++] = p[1];
                                p += 2;
                        } else if (*p == '=' && part == 0) {
                                part = 1;
                                p++;
                        } else {
                                if (n[part] + 1 < SBX_PATH_MAX)
                                        buf[part][n[part]++] = *p;
                                p++;
                        }
                }
                buf[0][n[0]] = buf[1][n[1]] = '\0';
                if (part == 0) {        /* 'key=value' in one quote */
                        char *eq = strchr(buf[0], '=');

                        if (eq == NULL)
                                continue;
                        *eq = '\0';
                        memmove(buf[1], eq + 1, strlen(eq + 1) + 1);
                }
                {
                        char section[64], sub[256], key[64];
                        int has_sub;

                        if (split_key(buf[0], section, sizeof(section), sub, sizeof(sub), key,
                                      sizeof(key), &has_sub) == 0)
                                r = entry(s, NULL, out, 0, section, has_sub ? sub : NULL, key,
                                          buf[1]);
                }
        }
        return r;
}

/* ------------------------------------------------------- key types */

/* What git does with a key's value (git's documented types). */
enum kind {
        K_DATA = 0,     /* not typed here: an existing file it names is protected */
        K_SKIP,         /* never a path git reads or runs (safe.directory) */
        K_HOOKS,        /* core.hooksPath */
        K_DIR,          /* a directory git runs or copies code from */
        K_CMD,          /* a command line or program git runs */
        K_CMDLIKE,      /* not typed, but named the way git and its tools name
                         * programs (*.cmd, *.command, *.helper...) */
        K_TRUST,        /* a file git trusts (signers, CAs) */
        K_PATH,         /* a file git reads as data */
        K_WORKTREE,     /* core.worktree */
        K_ALIAS         /* alias.*: "!cmd" or git arguments */
};

/*
 * "section.key" (no subsection), "section.*.key" (a subsection),
 * "section.*" (any key, no subsection).  Both spellings where git reads
 * both (gpg.program and gpg.<format>.program).
 */
static const struct {
        const char *pat;
        enum kind kind;
} KEYS[] = {
        { "core.hookspath", K_HOOKS },
        { "init.templatedir", K_DIR },
        { "core.worktree", K_WORKTREE },
        { "safe.directory", K_SKIP },
        { "alias.*", K_ALIAS },
        { "core.fsmonitor", K_CMD }, { "core.sshcommand", K_CMD }, { "core.editor", K_CMD },
        { "core.pager", K_CMD }, { "core.askpass", K_CMD }, { "core.gitproxy", K_CMD },
        { "core.alternaterefscommand", K_CMD }, { "diff.external", K_CMD },
        { "diff.*.command", K_CMD }, { "diff.*.textconv", K_CMD }, { "diff.tool", K_CMD },
        { "difftool.*.cmd", K_CMD }, { "difftool.*.path", K_CMD },
        { "mergetool.*.cmd", K_CMD }, { "mergetool.*.path", K_CMD },
        { "merge.*.driver", K_CMD }, { "filter.*.clean", K_CMD }, { "filter.*.smudge", K_CMD },
        { "filter.*.process", K_CMD }, { "gpg.program", K_CMD }, { "gpg.*.program", K_CMD },
        { "gpg.*.defaultkeycommand", K_CMD }, { "credential.helper", K_CMD },
        { "credential.*.helper", K_CMD }, { "sequence.editor", K_CMD }, { "pager.*", K_CMD },
        { "uploadpack.packobjectshook", K_CMD }, { "remote.*.uploadpack", K_CMD },
        { "remote.*.receivepack", K_CMD }, { "sendemail.smtpserver", K_CMD },
        { "sendemail.*.smtpserver", K_CMD }, { "sendemail.sendmailcmd", K_CMD },
        { "sendemail.*.sendmailcmd", K_CMD }, { "sendemail.tocmd", K_CMD },
        { "sendemail.*.tocmd", K_CMD }, { "sendemail.cccmd", K_CMD },
        { "sendemail.*.cccmd", K_CMD }, { "sendemail.headercmd", K_CMD },
        { "sendemail.*.headercmd", K_CMD }, { "imap.tunnel", K_CMD },
        { "interactive.difffilter", K_CMD }, { "man.*.cmd", K_CMD }, { "man.*.path", K_CMD },
        { "browser.*.cmd", K_CMD }, { "browser.*.path", K_CMD }, { "web.browser", K_CMD },
        { "guitool.*.cmd", K_CMD }, { "tar.*.command", K_CMD }, { "trailer.*.command", K_CMD },
        { "trailer.*.cmd", K_CMD }, { "hook.*.command", K_CMD }, { "submodule.*.update", K_CMD },
        { "instaweb.httpd", K_CMD },
        { "gpg.*.allowedsignersfile", K_TRUST }, { "gpg.*.revocationfile", K_TRUST },
        { "http.sslcainfo", K_TRUST }, { "http.*.sslcainfo", K_TRUST },
        { "http.sslcapath", K_TRUST }, { "http.*.sslcapath", K_TRUST },
        { "core.excludesfile", K_PATH }, { "core.attributesfile", K_PATH },
        { "commit.template", K_PATH }, { "mailmap.file", K_PATH },
        { "blame.ignorerevsfile", K_PATH }, { "diff.orderfile", K_PATH },
};

static enum kind kind_of(const char *section, const char *sub, const char *key)
{
        char plain[160], any[160];
        size_t i;

        if (sub != NULL)
                snprintf(plain, sizeof(plain), "%s.*.%s", section, key);
        else
                snprintf(plain, sizeof(plain), "%s.%s", section, key);
        snprintf(any, sizeof(any), "%s.*", section);
        static const char *const program_words[] = {
                "cmd", "command", "program", "helper", "hook", "driver", "editor", "pager",
                "tunnel", "askpass", "textconv", "process", "clean", "smudge", "proxycommand",
        };
        size_t kl = strlen(key);

        for (i = 0; i < SBX__ARRAY_SIZE(KEYS); i++)
                if (strcmp(KEYS[i].pat, plain) == 0 || (sub == NULL && strcmp(KEYS[i].pat, any) == 0))
                        return KEYS[i].kind;
        if (strcmp(section, "lfs") == 0 && sub != NULL && strncmp(sub, "customtransfer.", 15) == 0 &&
            strcmp(key, "path") == 0)
                return K_CMD;           /* git-lfs runs it from its filter */
        /* A key of a tool this table does not know (git-lfs, git-annex,
         * a newer git) whose name says it runs something. */
        for (i = 0; i < SBX__ARRAY_SIZE(program_words); i++) {
                size_t wl = strlen(program_words[i]);

                if (kl >= wl && strcmp(key + kl - wl, program_words[i]) == 0)
                        return K_CMDLIKE;
        }
        return K_DATA;
}

/* ------------------------------------------------------- evaluation */

struct ctx {
        const struct repo *repo;
        const char *file;               /* the entry's config file, or NULL */
        int depth;
        int rel_only;                   /* absolute values were done already */
};

static void dir_of(const char *file, char *dir)
{
        const char *slash = file != NULL ? strrchr(file, '/') : NULL;

        if (slash == NULL || (size_t) (slash - file) >= SBX_PATH_MAX) {
                dir[0] = '\0';
                return;
        }
        memcpy(dir, file, (size_t) (slash - file));
        dir[slash - file] = '\0';
        if (dir[0] == '\0')
                strcpy(dir, "/");
}

/*
 * Protect `value` from every base git may resolve it against.  `exact`
 * bases are where git resolves it for the key (there a missing target is
 * created with `how`); the others protect only what exists.
 */
static int protect_from(struct scan *s, const struct ctx *c, const char *value, enum pt how,
                        int hooks)
{
        const struct repo *rp = c->repo;
        const char *exact[2] = { NULL, NULL }, *more[2] = { NULL, NULL };
        char dir[SBX_PATH_MAX];
        enum pt soft = how == PT_EXIST_FILE || how == PT_ARG || how == PT_PROG ? PT_EXIST_FILE
                       : PT_EXIST;
        size_t i;
        int r;

        if (value[0] == '/' || value[0] == '~')
                return c->rel_only ? 0 : sbx__gs_protect_value(s, NULL, value, how);
        dir_of(c->file, dir);
        /* git runs hooks and programs, and reads relative paths, from the
         * top of the worktree (core.worktree when set); a bare
         * repository's from its git dir. */
        exact[0] = rp->worktree != NULL ? rp->worktree : rp->gitdir;
        exact[1] = rp->worktree2;
        more[0] = hooks ? NULL : rp->gitdir;
        more[1] = dir[0] != '\0' ? dir : NULL;
        for (i = 0; i < 2; i++)
                if (exact[i] != NULL && (r = sbx__gs_protect_value(s, exact[i], value, how)) < 0)
                        return r;
        for (i = 0; i < 2; i++)
                if (more[i] != NULL && (exact[0] == NULL || strcmp(more[i], exact[0]) != 0) &&
                    (exact[1] == NULL || strcmp(more[i], exact[1]) != 0) &&
                    (r = sbx__gs_protect_value(s, more[i], value, soft)) < 0)
                        return r;
        return 0;
}

/* A word that may name a file: "./x", "a/b", "/x", "~/x", "~user". */
static int pathlike(const char *w)
{
        return w[0] == '~' || strchr(w, '/') != NULL;
}

/* "NAME=value": a shell assignment, which keeps the command position. */
static int assignment(const char *w)
{
        size_t i = 0;

        if (!isalpha((unsigned char) w[0]) && w[0] != '_')
                return 0;
        while (isalnum((unsigned char) w[i]) || w[i] == '_')
                i++;
        return w[i] == '=';
}

/*
 * The words of a command line, each handed to fn with 1 when it is in a
 * command's position (the program git, or the shell, runs): split twice,
 * once the way a shell would (quotes kept together) and once at every
 * quote, space and operator, so that a path inside `sh -c '...'` is a word
 * too.  A word "x=y" ("--file=y", "VAR=y") also hands over y.
 */
static int words(const char *value, int (*fn)(void *, const char *, int), void *arg)
{
        static const char ops[] = ";|&(){}`\n";
        char w[SBX_PATH_MAX];
        int pass, r;

        for (pass = 0; pass < 2; pass++) {
                const char *p = value;
                int cmdpos = 1;

                if (pass == 1 && strpbrk(value, "'\"") == NULL)
                        break;          /* no quote: the same words again */

                while (*p != '\0') {
                        size_t n = 0;
                        char q = 0;
                        int var = 0;

                        while (*p != '\0' && strchr(" \t;|&(){}<>`$\n", *p) != NULL) {
                                /* "$(" starts a command; "$NAME/x" is a
                                 * value we cannot know: not a word */
                                var = *p == '$' && p[1] != '(';
                                if (strchr(ops, *p) != NULL || (*p == '$' && !var))
                                        cmdpos = 1;
                                p++;
                        }
                        if (*p == '\0')
                                break;
                        while (*p != '\0') {
                                if (q == 0 && strchr(" \t;|&(){}<>`\n", *p) != NULL)
                                        break;
                                if (*p == '\'' || *p == '"') {
                                        if (pass == 1) {
                                                p++;
                                                break;
                                        }
                                        if (q == 0)
                                                q = *p;
                                        else if (q == *p)
                                                q = 0;
                                        else if (n + 1 < sizeof(w))
                                                w[n++] = *p;
                                        p++;
                                        continue;
                                }
                                if (*p == '\\' && p[1] != '\0' && q != '\'')
                                        p++;
                                if (n + 1 < sizeof(w))
                                        w[n++] = *p;
                                p++;
                        }
                        w[n] = '\0';
                        if (n == 0 || var) {
                                cmdpos = 0;
                                continue;
                        }
                        if ((r = fn(arg, w, cmdpos)) < 0)
                                return r;
                        {
                                const char *eq = strchr(w, '=');

                                if (eq != NULL && eq[1] != '\0' && (r = fn(arg, eq + 1, 0)) < 0)
                                        return r;
                        }
                        if (!assignment(w))
                                cmdpos = 0;
                }
        }
        return 0;
}

struct wctx {
        struct scan *s;
        const struct ctx *c;
        enum pt how;
};

static int word_path(void *arg, const char *w, int program)
{
        struct wctx *x = arg;
        enum pt how = (x->how == PT_FILE || x->how == PT_PROG) && !program ? PT_ARG : x->how;

        return pathlike(w) ? protect_from(x->s, x->c, w, how, 0) : 0;
}

static int eval(struct scan *s, const struct ctx *c, const char *section, const char *sub,
                const char *key, const char *value, int kind);

/* alias.x = "-c k=v --exec-path=d status": git applies these options. */
static int git_args(struct scan *s, const struct ctx *c, const char *value)
{
        char w[SBX_PATH_MAX];
        const char *p = value;
        int next_config = 0, next_dir = 0, r;

        while (*p != '\0') {
                size_t n = 0;
                char q = 0;

                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '\0')
                        break;
                while (*p != '\0' && (q != 0 || (*p != ' ' && *p != '\t'))) {
                        if ((*p == '\'' || *p == '"') && (q == 0 || q == *p)) {
                                q = q == 0 ? *p : 0;
                                p++;
                                continue;
                        }
                        if (*p == '\\' && p[1] != '\0')
                                p++;
                        if (n + 1 < sizeof(w))
                                w[n++] = *p;
                        p++;
                }
                w[n] = '\0';
                if (next_config || strncmp(w, "-c", 2) == 0) {
                        const char *kv = next_config ? w : w + 2;
                        char name[256], section[64], sub[256], key[64];
                        const char *eq;
                        int has_sub;

                        next_config = 0;
                        if (*kv == '\0') {
                                next_config = 1;
                                continue;
                        }
                        eq = strchr(kv, '=');
                        if (eq == NULL || (size_t) (eq - kv) >= sizeof(name))
                                continue;
                        memcpy(name, kv, (size_t) (eq - kv));
                        name[eq - kv] = '\0';
                        if (split_key(name, section, sizeof(section), sub, sizeof(sub), key,
                                      sizeof(key), &has_sub) == 0 &&
                            (r = eval(s, c, section, has_sub ? sub : NULL, key, eq + 1, -1)) < 0)
                                return r;
                        continue;
                }
                if (next_dir || strncmp(w, "--exec-path=", 12) == 0) {
                        const char *d = next_dir ? w : w + 12;

                        next_dir = 0;
                        if ((r = protect_from(s, c, d, PT_DIR, 0)) < 0)
                                return r;
                        continue;
                }
                if (strcmp(w, "--exec-path") == 0) {
                        next_dir = 1;
                        continue;
                }
                if ((r = words(w, word_path, &(struct wctx){ s, c, PT_EXIST_FILE })) < 0)
                        return r;
        }
        return 0;
}

/* One entry evaluated for one repository (kind -1: look it up). */
static int eval(struct scan *s, const struct ctx *c, const char *section, const char *sub,
                const char *key, const char *value, int kind)
{
        enum kind k;

        if (value[0] == '\0')
                return 0;
        if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
            strcmp(key, "path") == 0) {
                /* from an alias's -c: read it and evaluate it here */
                struct ents inc = { NULL, 0, 0 };
                size_t i;
                int r;

                if (c->depth >= MAX_INCLUDE_DEPTH || (value[0] != '/' && value[0] != '~'))
                        return 0;
                r = include(s, NULL, value, &inc, c->depth);
                for (i = 0; r == 0 && i < inc.n; i++) {
                        struct ctx c2 = { c->repo, inc.v[i].file, c->depth + 1, c->rel_only };

                        r = eval(s, &c2, inc.v[i].section, inc.v[i].sub, inc.v[i].key,
                                 inc.v[i].value, -1);
                }
                sbx__gs_ents_free(&inc);
                return r;
        }
        k = kind >= 0 ? (enum kind) kind : kind_of(section, sub, key);
        switch (k) {
        case K_SKIP:
        case K_WORKTREE:        /* a base (eval_repo), git runs nothing there */
                return 0;
        case K_HOOKS:
                return protect_from(s, c, value, PT_DIR, 1);
        case K_DIR:
                return protect_from(s, c, value, PT_DIR, 0);
        case K_TRUST:
                return protect_from(s, c, value, PT_FILE, 0);
        case K_PATH:
                return protect_from(s, c, value, PT_EXIST, 0);
        case K_ALIAS:
                if (value[0] == '!')
                        return words(value + 1, word_path, &(struct wctx){ s, c, PT_FILE });
                return git_args(s, c, value);
        case K_CMD:
                /* "!cmd" (credential helpers, submodule.*.update) is a
                 * shell command; a bare first word is a PATH lookup. */
                return words(value[0] == '!' ? value + 1 : value, word_path,
                             &(struct wctx){ s, c, PT_FILE });
        case K_CMDLIKE:
                return words(value[0] == '!' ? value + 1 : value, word_path,
                             &(struct wctx){ s, c, PT_PROG });
        case K_DATA:
        default:
                return words(value, word_path, &(struct wctx){ s, c, PT_EXIST_FILE });
        }
}

int sbx__gs_eval_all(struct scan *s, const struct repo *rp, struct ents *e, int rel_only)
{
        size_t i;
        int r;

        for (i = 0; i < e->n; i++) {
                struct ctx c = { rp, e->v[i].file, 0, rel_only };
                struct ent *x = &e->v[i];

                if (x->kind < 0)
                        x->kind = (int) kind_of(x->section, x->sub, x->key);
                if ((r = eval(s, &c, x->section, x->sub, x->key, x->value, x->kind)) < 0)
                        return r;
        }
        return 0;
}

/* The caller's config file at `path` (may not exist): protected -- created
 * empty inside a writable root, where the command could create it -- and
 * read. */
int sbx__gs_caller_config(struct scan *s, const char *path)
{
        char target[SBX_PATH_MAX];
        int r;

        if (path == NULL || path[0] != '/')
                return 0;
        r = sbx__gs_chase(s, path, 0, target);
        if (r == -ELOOP || r == -ENAMETOOLONG)
                return 0;
        if (r < 0)
                return sbx__gs_fail_at(s, path, r);
        if ((r = sbx__gs_protect(s, target, PT_FILE)) < 0)
                return r;
        return sbx__gs_read_config(s, target, &s->outer, 0);
}

/* The environment's own configuration: GIT_CONFIG_COUNT entries,
 * GIT_CONFIG_PARAMETERS, and the GIT_* variables that name what git runs,
 * each taken as the key git documents as its equivalent. */
int sbx__gs_caller_env(struct scan *s, const char *const *envp)
{
        static const struct {
                const char *var, *section, *key;
        } vars[] = {
                { "GIT_SSH", "core", "sshcommand" }, { "GIT_SSH_COMMAND", "core", "sshcommand" },
                { "GIT_EDITOR", "core", "editor" }, { "GIT_SEQUENCE_EDITOR", "sequence", "editor" },
                { "GIT_PAGER", "core", "pager" }, { "GIT_ASKPASS", "core", "askpass" },
                { "SSH_ASKPASS", "core", "askpass" },
                { "GIT_EXTERNAL_DIFF", "diff", "external" }, { "GIT_PROXY_COMMAND", "core", "gitproxy" },
                { "GIT_TEMPLATE_DIR", "init", "templatedir" }, { "GIT_EXEC_PATH", "init", "templatedir" },
        };
        const char *v;
        size_t i;
        long n;
        int r = 0;

        for (i = 0; i < SBX__ARRAY_SIZE(vars) && r == 0; i++)
                if ((v = sbx__env_get(envp, vars[i].var)) != NULL && v[0] != '\0')
                        r = ents_push(&s->outer, NULL, vars[i].section, NULL, vars[i].key, v);
        v = sbx__env_get(envp, "GIT_CONFIG_COUNT");
        n = v != NULL ? strtol(v, NULL, 10) : 0;
        for (i = 0; r == 0 && n > 0 && i < (size_t) n && i < 1000; i++) {
                char name[64], section[64], sub[256], key[64];
                const char *k, *val;
                int has_sub;

                snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%zu", i);
                k = sbx__env_get(envp, name);
                snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%zu", i);
                val = sbx__env_get(envp, name);
                if (k == NULL || val == NULL ||
                    split_key(k, section, sizeof(section), sub, sizeof(sub), key, sizeof(key),
                              &has_sub) < 0)
                        continue;
                r = entry(s, NULL, &s->outer, 0, section, has_sub ? sub : NULL, key, val);
        }
        if (r == 0 && (v = sbx__env_get(envp, "GIT_CONFIG_PARAMETERS")) != NULL)
                r = read_parameters(s, v, &s->outer);
        return r;
}

