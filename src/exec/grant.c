/*
 * grant.c - single-spawn grants: sbx_executor_issue_grant mints a token
 * for one Gated capability after re-reading the profile, and
 * sbx__grants_take verifies and consumes the tokens one run presents.
 * docs/executors.md.
 * Builds on: POSIX (it is part of the executor (executor.c); src/windows/unported.c answers on Windows).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "exec/executor.h"
#include "policy/netrule.h"
#include "paths/paths_internal.h"

enum form { F_PATH, F_TREE, F_HOST, F_NET_ANY, F_NET_TARGET, F_COMMAND };

static const struct {
        const char *name;
        const char *kind;
        enum form   form;
        uint32_t    access;     /* SBX__FS_* a filesystem class adds */
} classes[SBX__GC_N] = {
        /* What a configured root or the host gets when its access is Allow
         * (plan.c's root_bits): read comes with exec, so the binaries and
         * scripts a grant opens run as they do in an ungated run. */
        [SBX__GC_FS_PATH_READ]     = { SBX_GRANT_CLASS_FS_PATH_READ, "filesystem.read", F_PATH,
                                       SBX__FS_READ | SBX__FS_EXEC },
        [SBX__GC_FS_TREE_READ]     = { SBX_GRANT_CLASS_FS_TREE_READ, "filesystem.read", F_TREE,
                                       SBX__FS_READ | SBX__FS_EXEC },
        [SBX__GC_FS_HOST_READ]     = { SBX_GRANT_CLASS_FS_HOST_READ, "filesystem.read", F_HOST,
                                       SBX__FS_READ | SBX__FS_EXEC },
        [SBX__GC_FS_PATH_WRITE]    = { SBX_GRANT_CLASS_FS_PATH_WRITE, "filesystem.write", F_PATH,
                                       SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC },
        [SBX__GC_FS_TREE_WRITE]    = { SBX_GRANT_CLASS_FS_TREE_WRITE, "filesystem.write", F_TREE,
                                       SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC },
        [SBX__GC_FS_HOST_WRITE]    = { SBX_GRANT_CLASS_FS_HOST_WRITE, "filesystem.write", F_HOST,
                                       SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC },
        [SBX__GC_NET_PROXY_TARGET] = { SBX_GRANT_CLASS_NET_PROXY_TARGET, "network", F_NET_TARGET,
                                       0 },
        [SBX__GC_NET_BROAD]        = { SBX_GRANT_CLASS_NET_BROAD, "network", F_NET_ANY, 0 },
        [SBX__GC_COMMAND_START]    = { SBX_GRANT_CLASS_COMMAND_START, "command.execute",
                                       F_COMMAND, 0 },
};

static int is_fs(int cls)
{
        return classes[cls].form == F_PATH || classes[cls].form == F_TREE ||
               classes[cls].form == F_HOST;
}

static void grant_free(struct sbx__grant *g)
{
        free(g->execution_id);
        free(g->command);
        free(g->cwd);
        free(g->target);
        memset(g, 0, sizeof(*g));
}

#define FORGET_AFTER_MS (10 * 60 * 1000)

void sbx__grants_clear(struct sbx_executor *ex)
{
        size_t i;

        for (i = 0; i < ex->n_grants; i++)
                grant_free(&ex->grants[i]);
        free(ex->grants);
        free(ex->slots);
        ex->grants = NULL;
        ex->slots = NULL;
        ex->n_grants = ex->cap_grants = ex->n_slots = 0;
        ex->next_prune_ms = 0;
}

/* Equal strings, in time that depends only on their lengths. */
static int token_equal(const char *a, const char *b)
{
        size_t n = strlen(a), i;
        unsigned char d = 0;

        if (n != strlen(b))
                return 0;
        for (i = 0; i < n; i++)
                d |= (unsigned char) (a[i] ^ b[i]);
        return d == 0;
}

/* The slot a token starts probing at: its first 16 hex digits are random
 * bits (new_token), so they spread evenly. */
static size_t token_slot(const char *token, size_t n_slots)
{
        uint64_t h = 0;
        size_t i;

        for (i = 6; i < 22 && token[i] != '\0'; i++)
                h = h * 16 + (uint64_t) (token[i] <= '9' ? token[i] - '0' : token[i] - 'a' + 10);
        return (size_t) (h & (n_slots - 1));
}

/* Rebuild the index over grants[0..n) into n_slots slots. */
static void index_build(struct sbx_executor *ex)
{
        size_t i;

        memset(ex->slots, 0, ex->n_slots * sizeof(*ex->slots));
        for (i = 0; i < ex->n_grants; i++) {
                size_t k = token_slot(ex->grants[i].token, ex->n_slots);

                while (ex->slots[k] != 0)
                        k = (k + 1) & (ex->n_slots - 1);
                ex->slots[k] = (uint32_t) i + 1;
        }
}

/* The record of token, or NULL.  Each candidate is compared in constant
 * time; a token that is not this executor's ends at an empty slot. */
static struct sbx__grant *grant_find(struct sbx_executor *ex, const char *token)
{
        size_t k, probes;

        if (ex->n_slots == 0 || strncmp(token, "sbxg1-", 6) != 0 ||
            strlen(token) != 6 + 32)
                return NULL;
        k = token_slot(token, ex->n_slots);
        for (probes = 0; probes < ex->n_slots && ex->slots[k] != 0; probes++) {
                struct sbx__grant *g = &ex->grants[ex->slots[k] - 1];

                if (token_equal(g->token, token))
                        return g;
                k = (k + 1) & (ex->n_slots - 1);
        }
        return NULL;
}

/* Forget records that expired ten minutes ago or more: until then their
 * tokens are reported as expired (or replayed), later as unknown.  Runs
 * only when one is due. */
static void grants_prune(struct sbx_executor *ex, int64_t now)
{
        size_t i, kept = 0;
        int64_t next = 0;

        if (now < ex->next_prune_ms)
                return;
        for (i = 0; i < ex->n_grants; i++) {
                int64_t forget = ex->grants[i].expires_at_ms + FORGET_AFTER_MS;

                if (forget <= now) {
                        grant_free(&ex->grants[i]);
                        continue;
                }
                if (next == 0 || forget < next)
                        next = forget;
                ex->grants[kept++] = ex->grants[i];
        }
        ex->next_prune_ms = next != 0 ? next : INT64_MAX;
        if (kept != ex->n_grants) {
                ex->n_grants = kept;
                index_build(ex);
        }
}

/* The deepest existing ancestor of path (path itself when it exists):
 * its identity.  0 or -errno. */
static int ancestor_identity(const char *path, dev_t *dev, ino_t *ino)
{
        char buf[SBX_PATH_MAX];
        struct stat st;
        size_t n = strlen(path);

        if (n >= sizeof(buf))
                return -ENAMETOOLONG;
        memcpy(buf, path, n + 1);
        for (;;) {
                if (lstat(buf, &st) == 0) {
                        *dev = st.st_dev;
                        *ino = st.st_ino;
                        return 0;
                }
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                while (n > 1 && buf[n - 1] != '/')
                        n--;
                if (n > 1)
                        n--;            /* the slash, unless it is the root */
                buf[n] = '\0';
        }
}

/* 1 if the canonical path lies at or below a protected or secret rule:
 * what no grant may open. */
static int carved_out(const struct sbx_plan *plan, const char *path)
{
        size_t i;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];

                if ((r->origin == SBX__ORIGIN_PROTECTED || r->origin == SBX__ORIGIN_SECRET) &&
                    (strcmp(r->path, path) == 0 ||
                     (r->scope == SBX__FS_TREE && sbx__path_has_prefix(path, r->path))))
                        return 1;
        }
        return 0;
}

/*
 * 1 if a write to path could plant what git runs later: a component named
 * .git (any case), a file named HEAD, or a place below a directory that
 * is a git directory (it holds HEAD and objects/: a bare repository, a
 * linked worktree's git dir).  For a path inside a configured root the
 * spawn-time discovery then covers the rest (hooks paths, includes).
 */
static int gitlike(const char *path)
{
        char buf[SBX_PATH_MAX], probe[SBX_PATH_MAX + 16];
        struct stat st;
        const char *c;
        size_t n;

        for (c = path; *c != '\0'; c++) {
                if (c[0] == '/' && c[1] == '.' && (c[2] | 0x20) == 'g' && (c[3] | 0x20) == 'i' &&
                    (c[4] | 0x20) == 't' && (c[5] == '/' || c[5] == '\0'))
                        return 1;
        }
        c = strrchr(path, '/');
        if (c != NULL && strcmp(c, "/HEAD") == 0)
                return 1;
        n = strlen(path);
        if (n >= sizeof(buf))
                return 1;
        memcpy(buf, path, n + 1);
        while (n > 1) {
                while (n > 1 && buf[n - 1] != '/')
                        n--;
                if (n > 1)
                        n--;
                buf[n] = '\0';
                (void) snprintf(probe, sizeof(probe), "%s/HEAD", n == 0 ? "" : buf);
                if (lstat(probe, &st) == 0 && S_ISREG(st.st_mode)) {
                        (void) snprintf(probe, sizeof(probe), "%s/objects", buf);
                        if (lstat(probe, &st) == 0 && S_ISDIR(st.st_mode))
                                return 1;
                }
        }
        return 0;
}

/* The token: "sbxg1-" and 128 bits from the kernel, in hex. */
static int new_token(char *out)
{
        memcpy(out, "sbxg1-", 6);
        return sbx__random_hex(out + 6, 16);
}


static sbx_code canonical_cwd(const char *fn, const struct sbx_plan *plan, const char *cwd,
                              char *out, sbx_error *err)
{
        sbx_code r;

        if (cwd == NULL)
                cwd = plan->workspace_root;
        r = sbx__path_canonical_buf(fn, "cwd", cwd, out, err);
        if (r != SBX_OK)
                return r;
        if (strcmp(out, cwd) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cwd \"%.200s\" is not canonical "
                                 "(\"%.200s\")", fn, cwd, out);
        return SBX_OK;
}

/* Class, scope and target agree exactly; a network target is normalised
 * and has the proxy it needs. */
static sbx_code grant_shape(const char *fn, const struct sbx_executor_set *s,
                            const sbx_grant_request *req, int cls, sbx_error *err)
{
        sbx_code r;
        int e;

        switch (classes[cls].form) {
        case F_PATH:
                e = req->scope[0] == '/' && strcmp(req->scope, req->target) == 0;
                break;
        case F_TREE:
                e = strncmp(req->scope, "tree:", 5) == 0 && strcmp(req->scope + 5, req->target) == 0;
                break;
        case F_HOST:
                e = strcmp(req->scope, "host") == 0 && strcmp(req->target, "/") == 0;
                break;
        case F_NET_ANY:
                e = strcmp(req->scope, "*") == 0 && strcmp(req->target, "*") == 0;
                break;
        case F_NET_TARGET:
                e = strcmp(req->scope, "*") != 0 && strcmp(req->scope, req->target) == 0;
                break;
        case F_COMMAND:
        default:
                e = strcmp(req->scope, req->command) == 0 && strcmp(req->target, req->command) == 0;
                break;
        }
        if (!e)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: scope \"%.150s\" and target "
                                 "\"%.150s\" do not agree with class %s", fn, req->scope,
                                 req->target, classes[cls].name);
        if (classes[cls].form == F_NET_TARGET) {
                char norm[SBX__NET_TARGET_TEXT];

                r = sbx__net_target_normalize(req->target, norm, sizeof(norm), err);
                if (r != SBX_OK)
                        return r;
                if (strcmp(norm, req->target) != 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: target \"%.150s\" is not "
                                         "normalised (it is \"%s\")", fn, req->target, norm);
                /* The egress proxy serves a listener in the command's own
                 * network namespace: rung 1 only. */
                if (s->plan->direct || !sbx__backend_supports(s->backend, SBX__ROW_PROXY))
                        return sbx__fail(err, SBX_E_GRANT_UNSUPPORTED, 0, "%s: %s needs the "
                                         "native backend's egress proxy; this set runs on %s",
                                         fn, classes[cls].name, sbx_backend_name(s->backend));
        }
        return SBX_OK;
}

/* A filesystem grant's target: canonical, not protected or secret, an
 * existing file for a path class; the identity of its nearest existing
 * ancestor into g. */
static sbx_code grant_fs_target(const char *fn, const struct sbx_executor_set *s,
                                const sbx_grant_request *req, int cls, struct sbx__grant *g,
                                sbx_error *err)
{
        char canon[SBX_PATH_MAX];
        sbx_code r;
        int e;

        struct stat st;

        r = sbx__path_canonical_buf(fn, "target", req->target, canon, err);
        if (r != SBX_OK)
                return r;
        if (strcmp(canon, req->target) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: target \"%.200s\" is not "
                                 "canonical", fn, req->target);
        if (carved_out(s->plan, canon) ||
            ((classes[cls].access & SBX__FS_WRITE) && gitlike(canon)))
                return sbx__fail(err, SBX_E_GRANT_DENIED, 0, "%s: %.200s is a protected "
                                 "or secret location: no grant opens it", fn, canon);
        if (classes[cls].form == F_PATH &&
            (lstat(canon, &st) < 0 || S_ISDIR(st.st_mode)))
                return sbx__fail(err, SBX_E_GRANT_UNSUPPORTED, 0, "%s: %s needs an "
                                 "existing file (a directory, or a file still to be "
                                 "made, cannot be opened exactly; a configured root "
                                 "can take %s)", fn, classes[cls].name,
                                 classes[cls].access & SBX__FS_WRITE
                                 ? SBX_GRANT_CLASS_FS_TREE_WRITE
                                 : SBX_GRANT_CLASS_FS_TREE_READ);
        e = ancestor_identity(canon, &g->anc_dev, &g->anc_ino);
        if (e < 0)
                return sbx__fail(err, SBX_E_IO, -e, "%s: %.200s: %s", fn, canon,
                                 sbx__strerror(-e));
        return SBX_OK;
}

/* g into the executor's grants (and their token index); on failure g is
 * freed. */
static sbx_code grant_store(const char *fn, struct sbx_executor *ex, struct sbx__grant *g,
                            int64_t now, sbx_error *err)
{
        struct sbx_executor_set *s = ex->set;

        (void) pthread_mutex_lock(&s->lock);
        if (s->closed) {
                (void) pthread_mutex_unlock(&s->lock);
                grant_free(g);
                return sbx__fail(err, SBX_E_CLOSED, 0, "%s: the executor set is closed", fn);
        }
        grants_prune(ex, now);
        if (ex->n_grants == ex->cap_grants) {
                size_t cap_n = ex->cap_grants ? ex->cap_grants * 2 : 8;
                struct sbx__grant *v = cap_n < UINT32_MAX / 4 ?
                                       realloc(ex->grants, cap_n * sizeof(*v)) : NULL;
                uint32_t *slots = v != NULL ? calloc(cap_n * 2, sizeof(*slots)) : NULL;

                if (v != NULL)
                        ex->grants = v;
                if (slots == NULL) {
                        (void) pthread_mutex_unlock(&s->lock);
                        grant_free(g);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                }
                ex->cap_grants = cap_n;
                free(ex->slots);
                ex->slots = slots;
                ex->n_slots = cap_n * 2;
                index_build(ex);
        }
        ex->grants[ex->n_grants] = *g;
        {
                size_t k = token_slot(g->token, ex->n_slots);

                while (ex->slots[k] != 0)
                        k = (k + 1) & (ex->n_slots - 1);
                ex->slots[k] = (uint32_t) ex->n_grants + 1;
        }
        ex->n_grants++;
        if (ex->next_prune_ms == 0 || g->expires_at_ms + FORGET_AFTER_MS < ex->next_prune_ms)
                ex->next_prune_ms = g->expires_at_ms + FORGET_AFTER_MS;
        (void) pthread_mutex_unlock(&s->lock);
        return SBX_OK;
}

sbx_code sbx_executor_issue_grant(sbx_executor *ex, const sbx_grant_request *req, char *token,
                                  size_t token_size, sbx_error *err)
{
        static const char fn[] = "sbx_executor_issue_grant";
        struct sbx_executor_set *s;
        struct sbx__grant g;
        char cwd[SBX_PATH_MAX];
        int32_t access = SBX_ACCESS_DENY;
        int64_t now, cap;
        int cls = -1, e;
        size_t i;
        sbx_code r;

        if (ex == NULL || req == NULL || token == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: ex, req and token must not be NULL",
                                 fn);
        if (token_size < SBX_GRANT_TOKEN_SIZE)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: token_size is below "
                                 "SBX_GRANT_TOKEN_SIZE", fn);
        if (req->version != SBX_GRANT_REQUEST_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported request version %u", fn,
                                 (unsigned) req->version);
        if (req->execution_id == NULL || req->execution_id[0] == '\0' || req->command == NULL ||
            req->kind == NULL || req->scope == NULL || req->grant_class == NULL ||
            req->target == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: execution_id, command, kind, scope, "
                                 "grant_class and target are required", fn);
        s = ex->set;
        for (i = 0; i < SBX__GC_N; i++)
                if (strcmp(req->grant_class, classes[i].name) == 0)
                        cls = (int) i;
        if (cls < 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown grant class \"%.100s\"", fn,
                                 req->grant_class);
        if (strcmp(req->kind, classes[cls].kind) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: class %s goes with kind %s, not "
                                 "\"%.100s\"", fn, classes[cls].name, classes[cls].kind,
                                 req->kind);
        /* The command is validated as access_for validates one. */
        r = sbx_profile_access_for(s->profile, SBX_PROFILE_ACCESS_VERSION, "command.execute",
                                   req->command, &access, err);
        if (r != SBX_OK)
                return r;
        if (access == SBX_ACCESS_DENY)          /* no run of it can ever spend a grant */
                return sbx__fail(err, SBX_E_GRANT_DENIED, 0, "%s: command.execute is Deny for "
                                 "this command: no grant can open it", fn);
        r = canonical_cwd(fn, s->plan, req->cwd, cwd, err);
        if (r != SBX_OK)
                return r;
        /* The profile decides, not the caller's gate. */
        r = sbx_profile_access_for(s->profile, SBX_PROFILE_ACCESS_VERSION, req->kind, req->scope,
                                   &access, err);
        if (r != SBX_OK)
                return r;
        if (access == SBX_ACCESS_DENY)
                return sbx__fail(err, SBX_E_GRANT_DENIED, 0, "%s: %s %.200s is Deny: no grant "
                                 "can open it", fn, req->kind, req->scope);
        if (access == SBX_ACCESS_ALLOW)
                return sbx__fail(err, SBX_E_GRANT_UNSUPPORTED, 0, "%s: %s %.200s is already "
                                 "Allow: it needs no grant", fn, req->kind, req->scope);
        r = grant_shape(fn, s, req, cls, err);
        if (r != SBX_OK)
                return r;
        memset(&g, 0, sizeof(g));
        if (is_fs(cls)) {
                r = grant_fs_target(fn, s, req, cls, &g, err);
                if (r != SBX_OK)
                        return r;
        }
        now = sbx__wall_ms();
        cap = now + s->ttl_ms;
        if (req->expires_at_ms != 0 && req->expires_at_ms <= now)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: expires_at_ms is in the past", fn);
        g.expires_at_ms = req->expires_at_ms == 0 || req->expires_at_ms > cap ? cap
                          : req->expires_at_ms;
        g.cls = cls;
        g.achieved = s->achieved;
        memcpy(g.profile_fp, s->profile_fp, sizeof(g.profile_fp));
        memcpy(g.route_fp, s->route_fp, sizeof(g.route_fp));
        e = new_token(g.token);
        if (e < 0)
                return sbx__fail(err, SBX_E_IO, -e, "%s: no random bytes from the kernel", fn);
        g.execution_id = sbx__strdup(req->execution_id);
        g.command = sbx__strdup(req->command);
        g.cwd = sbx__strdup(cwd);
        g.target = sbx__strdup(req->target);
        if (g.execution_id == NULL || g.command == NULL || g.cwd == NULL || g.target == NULL) {
                grant_free(&g);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        r = grant_store(fn, ex, &g, now, err);
        if (r != SBX_OK)
                return r;
        memcpy(token, g.token, SBX_GRANT_TOKEN_SIZE);
        return SBX_OK;
}

/* Does the grant still bind to what it was minted for?  SBX_OK or the
 * error its gate keys on. */
static sbx_code check_one(const struct sbx_executor *ex, const struct sbx__grant *g, int64_t now,
                          const char *execution_id, const char *command, const char *cwd,
                          sbx_error *err)
{
        static const char fn[] = "sbx_executor_run";
        const struct sbx_executor_set *s = ex->set;

        if (g->used)
                return sbx__fail(err, SBX_E_GRANT_REPLAY, 0, "%s: a grant token was already "
                                 "used by a spawn", fn);
        if (g->expires_at_ms <= now)
                return sbx__fail(err, SBX_E_GRANT_EXPIRED, 0, "%s: a grant token expired", fn);
        if (execution_id == NULL || strcmp(g->execution_id, execution_id) != 0)
                return sbx__fail(err, SBX_E_GRANT_WRONG_EXECUTION, 0, "%s: a grant token is "
                                 "bound to another execution", fn);
        if (strcmp(g->command, command) != 0)
                return sbx__fail(err, SBX_E_GRANT_WRONG_COMMAND, 0, "%s: a grant token is bound "
                                 "to another command", fn);
        if (strcmp(g->cwd, cwd) != 0)
                return sbx__fail(err, SBX_E_GRANT_WRONG_WORKING_DIRECTORY, 0, "%s: a grant token "
                                 "is bound to another working directory", fn);
        if (strcmp(g->profile_fp, s->profile_fp) != 0 || strcmp(g->route_fp, s->route_fp) != 0 ||
            g->achieved != s->achieved)
                return sbx__fail(err, SBX_E_GRANT_UNKNOWN, 0, "%s: a grant token was minted "
                                 "under other authority", fn);
        if (is_fs(g->cls)) {
                char canon[SBX_PATH_MAX];
                dev_t dev;
                ino_t ino;

                /* The target, resolved again, is still the one approved:
                 * no link swapped in, no ancestor replaced.  Never retried. */
                if (sbx__path_canonical_buf(fn, "target", g->target, canon, NULL) != SBX_OK ||
                    strcmp(canon, g->target) != 0 || ancestor_identity(canon, &dev, &ino) < 0 ||
                    dev != g->anc_dev || ino != g->anc_ino)
                        return sbx__fail(err, SBX_E_GRANT_TARGET_CHANGED, 0, "%s: the granted "
                                         "target %.200s changed since approval", fn, g->target);
        }
        return SBX_OK;
}

static sbx_code required(const char *fn, sbx_error *err)
{
        return sbx__fail(err, SBX_E_GRANT_REQUIRED, 0, "%s: command.execute is Gated: the run "
                         "needs a %s token for exactly this command", fn,
                         SBX_GRANT_CLASS_COMMAND_START);
}

sbx_code sbx__grants_take(struct sbx_executor *ex, const char *const *tokens, size_t n,
                          const char *execution_id, const char *command, const char *cwd,
                          int need_cmd, struct sbx__widen **w_out, size_t *n_w, int *net_allow,
                          int *cmd_allow, const char ***t_out, size_t *n_t, sbx_error *err)
{
        static const char fn[] = "sbx_executor_run";
        struct sbx__grant **found;
        struct sbx__widen *w;
        int64_t now = sbx__wall_ms();
        size_t i, j, k = 0;
        sbx_code r = SBX_OK;

        const char **t;
        size_t kt = 0;

        *w_out = NULL;
        *n_w = 0;
        *t_out = NULL;
        *n_t = 0;
        *net_allow = *cmd_allow = 0;
        if (n == 0)
                return need_cmd ? required(fn, err) : SBX_OK;
        found = calloc(n, sizeof(*found));
        w = calloc(n, sizeof(*w));
        t = calloc(n, sizeof(*t));
        if (found == NULL || w == NULL || t == NULL) {
                free(found);
                free(w);
                free(t);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        for (i = 0; i < n && r == SBX_OK; i++) {
                if (tokens[i] == NULL) {
                        r = sbx__fail(err, SBX_E_INVALID, 0, "%s: tokens[%zu] is NULL", fn, i);
                        break;
                }
                found[i] = grant_find(ex, tokens[i]);
                for (j = 0; j < i && found[i] != NULL; j++)
                        if (found[j] == found[i])
                                r = sbx__fail(err, SBX_E_GRANT_REPLAY, 0, "%s: a grant token "
                                              "is presented twice", fn);
                if (r != SBX_OK)
                        break;
                if (found[i] == NULL)
                        r = sbx__fail(err, SBX_E_GRANT_UNKNOWN, 0, "%s: tokens[%zu] is not a "
                                      "grant of this executor", fn, i);
                else
                        r = check_one(ex, found[i], now, execution_id, command, cwd, err);
        }
        /* A Gated command needs its start token among them, or nothing
         * is consumed. */
        if (r == SBX_OK && need_cmd) {
                for (i = 0; i < n && classes[found[i]->cls].form != F_COMMAND; i++)
                        ;
                if (i == n)
                        r = required(fn, err);
        }
        if (r != SBX_OK) {
                free(found);
                free(w);
                free(t);
                return r;
        }
        /* Every token binds: all are consumed, and open what they name. */
        for (i = 0; i < n; i++) {
                const struct sbx__grant *g = found[i];

                found[i]->used = 1;
                switch (classes[g->cls].form) {
                case F_PATH: case F_TREE: case F_HOST:
                        w[k].path = classes[g->cls].form == F_HOST ? NULL : g->target;
                        w[k].access = classes[g->cls].access;
                        w[k].scope = classes[g->cls].form == F_PATH ? SBX__FS_EXACT
                                                                    : SBX__FS_TREE;
                        k++;
                        break;
                case F_NET_ANY:
                        *net_allow = 1;
                        break;
                case F_NET_TARGET:      /* one more allowlist entry for this run */
                        t[kt++] = g->target;
                        break;
                case F_COMMAND:         /* its target is the command */
                default:
                        *cmd_allow = 1;
                        break;
                }
        }
        free(found);
        *w_out = w;
        *n_w = k;
        *t_out = t;
        *n_t = kt;
        return SBX_OK;
}

void sbx__grants_restore(struct sbx_executor *ex, const char *const *tokens, size_t n)
{
        size_t i;

        for (i = 0; i < n; i++) {
                struct sbx__grant *g = tokens[i] != NULL ? grant_find(ex, tokens[i]) : NULL;

                if (g != NULL)
                        g->used = 0;
        }
}
