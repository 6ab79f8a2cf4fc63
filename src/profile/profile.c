/*
 * profile.c - profiles: the Deny/Gated/Allow authority model, validation,
 * restrict (the component-wise intersection), the named mode profiles, the
 * gate seam (sbx_profile_access_for) and the fingerprint.
 *
 * Everything here is pure except the canonical-root check of
 * sbx_profile_new / sbx_profile_from_mode, which consults the file system
 * through sbx__path_canonical_buf (symlink components are not canonical).
 * Rules and reasons: docs/profiles.md.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>
#include <nettle/version.h>

#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

/* ----------------------------------------------------------- vocabulary */

static const char *const access_names[] = {
        [SBX_ACCESS_DENY] = "deny",
        [SBX_ACCESS_GATED] = "gated",
        [SBX_ACCESS_ALLOW] = "allow",
};

static const char *const home_names[] = {
        [SBX_HOME_ISOLATED] = "isolated",
        [SBX_HOME_REAL] = "real",
};

static const char *const isolation_names[] = {
        [SBX_ISOLATION_SANDBOXED] = "sandboxed",
        [SBX_ISOLATION_UNCONFINED] = "unconfined",
};

static int access_is_valid(int32_t a)
{
        return a >= SBX_ACCESS_DENY && a <= SBX_ACCESS_ALLOW;
}

const char *sbx_access_name(int32_t access)
{
        return access_is_valid(access) ? access_names[access] : "invalid";
}

static const char *home_name(int32_t h)
{
        return (h == SBX_HOME_ISOLATED || h == SBX_HOME_REAL) ? home_names[h] : "invalid";
}

static const char *isolation_name(int32_t i)
{
        return (i == SBX_ISOLATION_SANDBOXED || i == SBX_ISOLATION_UNCONFINED) ?
               isolation_names[i] : "invalid";
}

/* Deny < Gated < Allow, isolated < real HOME, sandboxed < unconfined: the
 * numeric order is the authority order, so the intersection is min(). */
static int32_t min32(int32_t a, int32_t b)
{
        return a < b ? a : b;
}

/*
 * Copy up to 48 bytes of untrusted text for a message, replacing anything
 * that is not printable ASCII with '?', so an error message never carries
 * control characters (terminal escapes) into a log.
 */
const char *sbx__printable(const char *s, char *buf, size_t bufsz)
{
        size_t i;

        for (i = 0; i + 1 < bufsz && i < 48 && s[i] != '\0'; i++)
                buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
        buf[i] = '\0';
        if (s[i] != '\0' && i >= 3) {
                buf[i - 1] = '.';
                buf[i - 2] = '.';
                buf[i - 3] = '.';
        }
        return buf;
}

/* ------------------------------------------------------- path syntax */

const char *sbx__path_syntax_text(enum path_syntax s)
{
        switch (s) {
        case PATH_OK:
                return "is canonical";
        case PATH_EMPTY:
                return "is empty";
        case PATH_RELATIVE:
                return "is not absolute";
        case PATH_TOO_LONG:
                return "is too long";
        case PATH_TRAILING_SLASH:
                return "is not canonical (trailing slash)";
        case PATH_EMPTY_COMPONENT:
                return "is not canonical (\"//\")";
        case PATH_DOT:
                return "is not canonical (a \".\" component)";
        case PATH_DOTDOT:
                return "is not canonical (a \"..\" component)";
        }
        return "is invalid";
}

/*
 * The syntax of a canonical absolute path, with no file system access:
 * absolute, shorter than SBX_PATH_MAX, no empty, "." or ".." component and
 * no trailing slash (except "/" itself).
 */
enum path_syntax sbx__path_syntax(const char *path)
{
        const char *p = path;
        size_t n;

        if (path[0] == '\0')
                return PATH_EMPTY;
        if (path[0] != '/')
                return PATH_RELATIVE;
        n = strnlen(path, SBX_PATH_MAX);
        if (n >= SBX_PATH_MAX)
                return PATH_TOO_LONG;
        if (n == 1)
                return PATH_OK;
        if (path[n - 1] == '/')
                return PATH_TRAILING_SLASH;
        while (*p != '\0') {
                const char *seg = ++p;  /* skip the '/' */
                size_t len;

                while (*p != '\0' && *p != '/')
                        p++;
                len = (size_t) (p - seg);
                if (len == 0)
                        return PATH_EMPTY_COMPONENT;
                if (len == 1 && seg[0] == '.')
                        return PATH_DOT;
                if (len == 2 && seg[0] == '.' && seg[1] == '.')
                        return PATH_DOTDOT;
        }
        return PATH_OK;
}

/* ------------------------------------------------------------ validation */

static sbx_code check_access(const char *fn, const char *what, int32_t v, sbx_error *err)
{
        if (!access_is_valid(v))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: %s is %d; must be 0 (deny), 1 (gated) or 2 (allow)", fn,
                                 what, (int) v);
        return SBX_OK;
}

/* Write may not be wider than read: the bind-mount backend cannot express
 * a directory that is writable but not readable. */
static sbx_code check_rw(const char *fn, const char *rname, int32_t r, const char *wname,
                         int32_t w, sbx_error *err)
{
        if (w > r)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: %s (%s) is wider than %s (%s); write access never "
                                 "exceeds read access", fn, wname, sbx_access_name(w), rname,
                                 sbx_access_name(r));
        return SBX_OK;
}

/* The syntactic part of a configured path (no file system access). */
static sbx_code check_path_syntax(const char *fn, const char *what, const char *path,
                                  sbx_error *err)
{
        enum path_syntax s;
        char shown[64];

        if (path == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is NULL", fn, what);
        s = sbx__path_syntax(path);
        if (s == PATH_OK)
                return SBX_OK;
        if (s == PATH_TOO_LONG)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: %s is longer than %d bytes", fn,
                                 what, SBX_PATH_MAX - 1);
        return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s \"%s\" %s", fn, what,
                         sbx__printable(path, shown, sizeof(shown)), sbx__path_syntax_text(s));
}

/* The file system part: the path must be its own canonical form, so no
 * component is a symlink.  A path that does not exist yet is canonical
 * when its deepest existing ancestor is. */
static sbx_code check_path_resolves(const char *fn, const char *what, const char *path,
                                    sbx_error *err)
{
        char buf[SBX_PATH_MAX];
        char shown[64], shown2[64];
        sbx_code c;

        c = sbx__path_canonical_buf(fn, what, path, buf, err);
        if (c != SBX_OK)
                return c;
        if (strcmp(buf, path) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: %s \"%s\" is not canonical: it resolves to \"%s\" "
                                 "(a component is a symlink); pass the canonical path", fn,
                                 what, sbx__printable(path, shown, sizeof(shown)),
                                 sbx__printable(buf, shown2, sizeof(shown2)));
        return SBX_OK;
}

static void root_what(char *what, size_t sz, size_t i, const char *field)
{
        (void) snprintf(what, sz, "additional_roots[%zu].%s", i, field);
}

/* Every rule of sbx_profile_new except the file system check. */
static sbx_code check_config(const char *fn, const sbx_profile_config *cfg, sbx_error *err)
{
        static const struct {
                const char *name;
                size_t off;
        } fields[] = {
                { "workspace_read", offsetof(sbx_profile_config, workspace_read) },
                { "workspace_write", offsetof(sbx_profile_config, workspace_write) },
                { "host_read", offsetof(sbx_profile_config, host_read) },
                { "host_write", offsetof(sbx_profile_config, host_write) },
                { "network", offsetof(sbx_profile_config, network) },
                { "command", offsetof(sbx_profile_config, command) },
        };
        /* The filesystem/network fields an unconfined profile must Allow. */
        static const size_t must_allow[] = { 0, 1, 2, 3, 4 };
        char what[64], what2[64];
        size_t i, j;
        sbx_code c;

        if (cfg->version != 0 && cfg->version != SBX_PROFILE_CONFIG_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: cfg->version is %u; must be SBX_PROFILE_CONFIG_VERSION "
                                 "(use SBX_PROFILE_CONFIG_INIT)", fn, (unsigned) cfg->version);
        c = check_path_syntax(fn, "workspace_root", cfg->workspace_root, err);
        if (c != SBX_OK)
                return c;
        for (i = 0; i < SBX__ARRAY_SIZE(fields); i++) {
                int32_t v;

                memcpy(&v, (const char *) cfg + fields[i].off, sizeof(v));
                c = check_access(fn, fields[i].name, v, err);
                if (c != SBX_OK)
                        return c;
        }
        if (cfg->home != SBX_HOME_ISOLATED && cfg->home != SBX_HOME_REAL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: home is %d; must be 0 (isolated) or 1 (real)", fn,
                                 (int) cfg->home);
        if (cfg->isolation != SBX_ISOLATION_SANDBOXED &&
            cfg->isolation != SBX_ISOLATION_UNCONFINED)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: isolation is %d; must be 0 (sandboxed) or 1 (unconfined)",
                                 fn, (int) cfg->isolation);
        if (cfg->ack_unconfined != 0 && cfg->ack_unconfined != 1)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: ack_unconfined is %d; must be 0 or 1", fn,
                                 (int) cfg->ack_unconfined);
        c = check_rw(fn, "workspace_read", cfg->workspace_read, "workspace_write",
                     cfg->workspace_write, err);
        if (c != SBX_OK)
                return c;
        c = check_rw(fn, "host_read", cfg->host_read, "host_write", cfg->host_write, err);
        if (c != SBX_OK)
                return c;

        if (cfg->n_additional_roots > SBX__PROFILE_MAX_ROOTS)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: n_additional_roots is %zu; at most %d are allowed", fn,
                                 cfg->n_additional_roots, SBX__PROFILE_MAX_ROOTS);
        if (cfg->n_additional_roots > 0 && cfg->additional_roots == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: additional_roots is NULL but n_additional_roots is %zu",
                                 fn, cfg->n_additional_roots);
        for (i = 0; i < cfg->n_additional_roots; i++) {
                const sbx_root_access *r = &cfg->additional_roots[i];

                root_what(what, sizeof(what), i, "path");
                c = check_path_syntax(fn, what, r->path, err);
                if (c != SBX_OK)
                        return c;
                root_what(what, sizeof(what), i, "read");
                c = check_access(fn, what, r->read, err);
                if (c != SBX_OK)
                        return c;
                root_what(what2, sizeof(what2), i, "write");
                c = check_access(fn, what2, r->write, err);
                if (c != SBX_OK)
                        return c;
                c = check_rw(fn, what, r->read, what2, r->write, err);
                if (c != SBX_OK)
                        return c;
                if (strcmp(r->path, cfg->workspace_root) == 0) {
                        root_what(what, sizeof(what), i, "path");
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: %s is the workspace root, which already has "
                                         "its access (workspace_read/workspace_write); the "
                                         "two would contradict", fn, what);
                }
                for (j = 0; j < i; j++) {
                        if (strcmp(r->path, cfg->additional_roots[j].path) == 0) {
                                root_what(what, sizeof(what), i, "path");
                                return sbx__fail(err, SBX_E_INVALID, 0,
                                                 "%s: %s duplicates additional_roots[%zu]"
                                                 ".path", fn, what, j);
                        }
                }
        }

        if (cfg->isolation == SBX_ISOLATION_UNCONFINED) {
                if (cfg->ack_unconfined != 1)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: isolation is unconfined but ack_unconfined is "
                                         "not 1; an unconfined profile runs with the caller's "
                                         "authority and must be acknowledged", fn);
                for (i = 0; i < SBX__ARRAY_SIZE(must_allow); i++) {
                        int32_t v;

                        memcpy(&v, (const char *) cfg + fields[must_allow[i]].off, sizeof(v));
                        if (v != SBX_ACCESS_ALLOW)
                                return sbx__fail(err, SBX_E_INVALID, 0,
                                                 "%s: %s is %s but isolation is unconfined; "
                                                 "a direct process cannot enforce anything "
                                                 "narrower than allow", fn,
                                                 fields[must_allow[i]].name,
                                                 sbx_access_name(v));
                }
                for (i = 0; i < cfg->n_additional_roots; i++) {
                        const sbx_root_access *r = &cfg->additional_roots[i];

                        if (r->read != SBX_ACCESS_ALLOW || r->write != SBX_ACCESS_ALLOW) {
                                root_what(what, sizeof(what), i,
                                          r->read != SBX_ACCESS_ALLOW ? "read" : "write");
                                return sbx__fail(err, SBX_E_INVALID, 0,
                                                 "%s: %s is %s but isolation is unconfined; "
                                                 "a direct process cannot enforce anything "
                                                 "narrower than allow", fn, what,
                                                 sbx_access_name(r->read != SBX_ACCESS_ALLOW ?
                                                                 r->read : r->write));
                        }
                }
                if (cfg->home != SBX_HOME_REAL)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: home is isolated but isolation is unconfined; a "
                                         "direct process cannot hide the caller's home", fn);
        } else if (cfg->ack_unconfined != 0) {
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: ack_unconfined is 1 but isolation is sandboxed; "
                                 "acknowledge only an unconfined profile", fn);
        }
        return SBX_OK;
}

/* ----------------------------------------------------- build, free, get */

static int cmp_root(const void *a, const void *b)
{
        return strcmp(((const struct sbx_profile_root *) a)->path,
                      ((const struct sbx_profile_root *) b)->path);
}

void sbx_profile_free(sbx_profile *profile)
{
        size_t i;

        if (profile == NULL)
                return;
        if (profile->roots != NULL)
                for (i = 0; i < profile->n_roots; i++)
                        free(profile->roots[i].path);
        free(profile->roots);
        free(profile->view);
        free(profile->workspace_root);
        free(profile);
}

/*
 * Validate cfg and build a profile.  With `resolve` the configured paths
 * must also be canonical on the file system (sbx_profile_new); without it
 * only their syntax is checked (sbx_profile_restrict, whose paths come from
 * profiles that passed the file system check when they were built: a
 * profile is a snapshot and restrict does no I/O).
 */
static sbx_code profile_build(const char *fn, const sbx_profile_config *cfg, int resolve,
                              sbx_profile **out, sbx_error *err)
{
        char what[64];
        sbx_profile *p;
        size_t i, n;
        sbx_code c;

        if (cfg == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        c = check_config(fn, cfg, err);
        if (c != SBX_OK)
                return c;
        n = cfg->n_additional_roots;
        /* Every argument is checked before the file system is consulted. */
        if (resolve) {
                c = check_path_resolves(fn, "workspace_root", cfg->workspace_root, err);
                if (c != SBX_OK)
                        return c;
                for (i = 0; i < n; i++) {
                        root_what(what, sizeof(what), i, "path");
                        c = check_path_resolves(fn, what, cfg->additional_roots[i].path, err);
                        if (c != SBX_OK)
                                return c;
                }
        }

        p = calloc(1, sizeof(*p));
        if (p == NULL)
                goto nomem;
        p->workspace_root = sbx__strdup(cfg->workspace_root);
        if (p->workspace_root == NULL)
                goto nomem;
        p->workspace_read = cfg->workspace_read;
        p->workspace_write = cfg->workspace_write;
        p->host_read = cfg->host_read;
        p->host_write = cfg->host_write;
        p->network = cfg->network;
        p->command = cfg->command;
        p->home = cfg->home;
        p->isolation = cfg->isolation;
        p->ack_unconfined = cfg->ack_unconfined;
        if (n > 0) {
                p->roots = calloc(n, sizeof(*p->roots));
                p->view = calloc(n, sizeof(*p->view));
                if (p->roots == NULL || p->view == NULL)
                        goto nomem;
                p->n_roots = n;
                for (i = 0; i < n; i++) {
                        p->roots[i].path = sbx__strdup(cfg->additional_roots[i].path);
                        if (p->roots[i].path == NULL)
                                goto nomem;
                        p->roots[i].read = cfg->additional_roots[i].read;
                        p->roots[i].write = cfg->additional_roots[i].write;
                }
                qsort(p->roots, n, sizeof(*p->roots), cmp_root);
                for (i = 0; i < n; i++) {
                        p->view[i].path = p->roots[i].path;
                        p->view[i].read = p->roots[i].read;
                        p->view[i].write = p->roots[i].write;
                }
        }
        *out = p;
        return SBX_OK;
nomem:
        sbx_profile_free(p);
        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
}

sbx_code sbx_profile_new(const sbx_profile_config *cfg, sbx_profile **out, sbx_error *err)
{
        return profile_build("sbx_profile_new", cfg, 1, out, err);
}

const char *sbx_profile_workspace_root(const sbx_profile *profile)
{
        return profile != NULL ? profile->workspace_root : NULL;
}

sbx_code sbx_profile_config_get(const sbx_profile *profile, sbx_profile_config *out,
                                sbx_error *err)
{
        const char *fn = "sbx_profile_config_get";
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (out->version != 0 && out->version != SBX_PROFILE_CONFIG_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: out->version is %u; must be SBX_PROFILE_CONFIG_VERSION "
                                 "(use SBX_PROFILE_CONFIG_INIT)", fn, (unsigned) out->version);
        cfg.workspace_root = profile->workspace_root;
        cfg.workspace_read = profile->workspace_read;
        cfg.workspace_write = profile->workspace_write;
        cfg.host_read = profile->host_read;
        cfg.host_write = profile->host_write;
        cfg.network = profile->network;
        cfg.command = profile->command;
        cfg.home = profile->home;
        cfg.isolation = profile->isolation;
        cfg.additional_roots = profile->n_roots > 0 ? profile->view : NULL;
        cfg.n_additional_roots = profile->n_roots;
        cfg.ack_unconfined = profile->ack_unconfined;
        *out = cfg;
        return SBX_OK;
}

/* ------------------------------------------------------- path access */

int32_t sbx__profile_path_access(const sbx_profile *p, const char *path, int write)
{
        size_t best_len, i;
        int32_t r, w;

        SBX__INVARIANT(p != NULL && path != NULL, "sbx__profile_path_access: NULL argument");
        if (p == NULL || path == NULL)
                return SBX_ACCESS_DENY;
        r = p->host_read;
        w = p->host_write;
        best_len = 0;
        if (sbx__path_has_prefix(path, p->workspace_root)) {
                best_len = strlen(p->workspace_root);
                r = p->workspace_read;
                w = p->workspace_write;
        }
        for (i = 0; i < p->n_roots; i++) {
                size_t len;

                if (!sbx__path_has_prefix(path, p->roots[i].path))
                        continue;
                /* "/" (length 1) contains everything and is the shallowest
                 * root; a later match is deeper iff its path is longer. */
                len = strlen(p->roots[i].path);
                if (len > best_len) {
                        best_len = len;
                        r = p->roots[i].read;
                        w = p->roots[i].write;
                }
        }
        return write ? w : r;
}

/* ------------------------------------------------------------- restrict */

static int in_list(const char *const *v, size_t n, const char *s)
{
        size_t i;

        for (i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return 1;
        return 0;
}

/*
 * The configured points R = base roots + ceiling roots + the ceiling's
 * workspace root (all but base's workspace root).  Each gets the minimum of
 * both profiles' effective access at that point.  For any path x the
 * deepest point of R (or base's workspace root) containing x has, in each
 * profile, the same effective access as x itself: every point either
 * profile configures is in R, so nothing of either profile lies strictly
 * between that point and x.  Hence the result's access for any path is the
 * minimum of both profiles' (docs/profiles.md).
 */
sbx_code sbx_profile_restrict(const sbx_profile *base, const sbx_profile *ceiling,
                              sbx_profile **out, sbx_error *err)
{
        const char *fn = "sbx_profile_restrict";
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        const char **pts;
        sbx_root_access *ra;
        size_t n = 0, cap, i;
        sbx_code c;

        if (base == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: base is NULL", fn);
        if (ceiling == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: ceiling is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);

        cap = base->n_roots + ceiling->n_roots + 1;
        pts = calloc(cap, sizeof(*pts));
        ra = calloc(cap, sizeof(*ra));
        if (pts == NULL || ra == NULL) {
                free(pts);
                free(ra);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        for (i = 0; i < base->n_roots; i++)
                pts[n++] = base->roots[i].path;
        for (i = 0; i < ceiling->n_roots; i++)
                if (strcmp(ceiling->roots[i].path, base->workspace_root) != 0 &&
                    !in_list(pts, n, ceiling->roots[i].path))
                        pts[n++] = ceiling->roots[i].path;
        if (strcmp(ceiling->workspace_root, base->workspace_root) != 0 &&
            !in_list(pts, n, ceiling->workspace_root))
                pts[n++] = ceiling->workspace_root;
        if (n > SBX__PROFILE_MAX_ROOTS) {
                free(pts);
                free(ra);
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: the intersection has %zu configured roots; at most %d "
                                 "are allowed", fn, n, SBX__PROFILE_MAX_ROOTS);
        }
        for (i = 0; i < n; i++) {
                ra[i].path = pts[i];
                ra[i].read = min32(sbx__profile_path_access(base, pts[i], 0),
                                   sbx__profile_path_access(ceiling, pts[i], 0));
                ra[i].write = min32(sbx__profile_path_access(base, pts[i], 1),
                                    sbx__profile_path_access(ceiling, pts[i], 1));
        }

        cfg.workspace_root = base->workspace_root;
        cfg.workspace_read = min32(base->workspace_read,
                                   sbx__profile_path_access(ceiling, base->workspace_root, 0));
        cfg.workspace_write = min32(base->workspace_write,
                                    sbx__profile_path_access(ceiling, base->workspace_root, 1));
        cfg.host_read = min32(base->host_read, ceiling->host_read);
        cfg.host_write = min32(base->host_write, ceiling->host_write);
        cfg.network = min32(base->network, ceiling->network);
        cfg.command = min32(base->command, ceiling->command);
        cfg.home = min32(base->home, ceiling->home);
        cfg.isolation = min32(base->isolation, ceiling->isolation);
        cfg.ack_unconfined = cfg.isolation == SBX_ISOLATION_UNCONFINED ? 1 : 0;
        cfg.additional_roots = n > 0 ? ra : NULL;
        cfg.n_additional_roots = n;

        /* Both inputs were valid, so this cannot fail validation; it is
         * checked anyway so that no invalid profile can ever exist. */
        c = profile_build(fn, &cfg, 0, out, err);
        SBX__INVARIANT(c == SBX_OK || c == SBX_E_NOMEM,
                       "sbx_profile_restrict built an invalid profile (%s)", sbx_code_name(c));
        free(pts);
        free(ra);
        return c;
}

/* ----------------------------------------------------- modes & presets */

static sbx_code from_mode(const char *fn, int32_t mode, const char *workspace_root,
                          sbx_profile **out, sbx_error *err)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        cfg.workspace_root = workspace_root;
        switch (mode) {
        case SBX_MODE_READ_ONLY:
        case SBX_MODE_WORKSPACE_WRITE:
                cfg.workspace_read = SBX_ACCESS_ALLOW;
                cfg.workspace_write = mode == SBX_MODE_WORKSPACE_WRITE ? SBX_ACCESS_ALLOW :
                                                                         SBX_ACCESS_DENY;
                cfg.host_read = SBX_ACCESS_ALLOW;
                cfg.host_write = SBX_ACCESS_DENY;
                cfg.network = SBX_ACCESS_DENY;
                cfg.command = SBX_ACCESS_ALLOW;
                cfg.home = SBX_HOME_ISOLATED;
                cfg.isolation = SBX_ISOLATION_SANDBOXED;
                cfg.ack_unconfined = 0;
                break;
        case SBX_MODE_DANGER_FULL_ACCESS:
                cfg.workspace_read = SBX_ACCESS_ALLOW;
                cfg.workspace_write = SBX_ACCESS_ALLOW;
                cfg.host_read = SBX_ACCESS_ALLOW;
                cfg.host_write = SBX_ACCESS_ALLOW;
                cfg.network = SBX_ACCESS_ALLOW;
                cfg.command = SBX_ACCESS_ALLOW;
                cfg.home = SBX_HOME_REAL;
                cfg.isolation = SBX_ISOLATION_UNCONFINED;
                cfg.ack_unconfined = 1;
                break;
        case SBX_MODE_NONE:
        default:
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: mode is %d; must be read-only (1), workspace-write (2) "
                                 "or danger-full-access (3)", fn, (int) mode);
        }
        return profile_build(fn, &cfg, 1, out, err);
}

sbx_code sbx_profile_from_mode(int32_t mode, const char *workspace_root, sbx_profile **out,
                               sbx_error *err)
{
        return from_mode("sbx_profile_from_mode", mode, workspace_root, out, err);
}

sbx_code sbx_profile_from_preset(const sbx_preset *preset, const char *workspace_root,
                                 sbx_profile **out, sbx_error *err)
{
        const char *fn = "sbx_profile_from_preset";
        int32_t id;

        if (preset == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: preset is NULL", fn);
        if (preset->version != SBX_PRESET_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: preset->version is %u; must be SBX_PRESET_VERSION", fn,
                                 (unsigned) preset->version);
        if (!sbx_mode_is_valid(preset->sandbox_mode))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: preset->sandbox_mode is %d, not a mode", fn,
                                 (int) preset->sandbox_mode);
        /* A preset is a (mode, approval) pair plus its derived id; a struct
         * whose parts disagree is not a preset (fail closed rather than
         * guess which part the caller meant). */
        if (sbx_preset_derive(preset->sandbox_mode, preset->approval, &id, NULL) != SBX_OK)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: preset->approval is %d, not an approval policy", fn,
                                 (int) preset->approval);
        if (preset->id != id)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: preset->id is %d but its mode and approval make it "
                                 "\"%s\"; build presets with sbx_preset_resolve or "
                                 "sbx_preset_custom", fn, (int) preset->id,
                                 sbx_preset_name(id));
        return from_mode(fn, preset->sandbox_mode, workspace_root, out, err);
}

/* ----------------------------------------------------------- fingerprint */

static void fp_bytes(struct sha256_ctx *ctx, const char *s, size_t n)
{
        sha256_update(ctx, n, (const uint8_t *) s);
}

static void fp_str(struct sha256_ctx *ctx, const char *s)
{
        fp_bytes(ctx, s, strlen(s));
}

/* "<decimal length>:<bytes>": no path can forge a line or a field. */
static void fp_path(struct sha256_ctx *ctx, const char *path)
{
        char num[32];
        size_t n = strlen(path);

        (void) snprintf(num, sizeof(num), "%zu:", n);
        fp_str(ctx, num);
        fp_bytes(ctx, path, n);
}

static void fp_line(struct sha256_ctx *ctx, const char *key, const char *value)
{
        fp_str(ctx, key);
        fp_str(ctx, "=");
        fp_str(ctx, value);
        fp_str(ctx, "\n");
}

/*
 * The serialization (docs/profiles.md, "Fingerprint"):
 *
 *   sbx-profile-v1
 *   workspace_root=<len>:<path>
 *   workspace_read=<access>      (deny | gated | allow)
 *   workspace_write=<access>
 *   host_read=<access>
 *   host_write=<access>
 *   network=<access>
 *   command=<access>
 *   home=<isolated | real>
 *   isolation=<sandboxed | unconfined>
 *   ack_unconfined=<0 | 1>
 *   roots=<n>
 *   root=<len>:<path> read=<access> write=<access>     n times, by strcmp
 *
 * every line ending in "\n".
 */
sbx_code sbx_profile_fingerprint(const sbx_profile *profile, char *buf, size_t buflen,
                                 sbx_error *err)
{
        static const char hex[] = "0123456789abcdef";
        const char *fn = "sbx_profile_fingerprint";
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256_ctx ctx;
        char num[32];
        size_t i;

        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (buf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: buf is NULL", fn);
        if (buflen < SBX_FINGERPRINT_SIZE)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: buflen is %zu; SBX_FINGERPRINT_SIZE (%d) bytes are needed",
                                 fn, buflen, SBX_FINGERPRINT_SIZE);

        sha256_init(&ctx);
        fp_str(&ctx, "sbx-profile-v1\n");
        fp_str(&ctx, "workspace_root=");
        fp_path(&ctx, profile->workspace_root);
        fp_str(&ctx, "\n");
        fp_line(&ctx, "workspace_read", sbx_access_name(profile->workspace_read));
        fp_line(&ctx, "workspace_write", sbx_access_name(profile->workspace_write));
        fp_line(&ctx, "host_read", sbx_access_name(profile->host_read));
        fp_line(&ctx, "host_write", sbx_access_name(profile->host_write));
        fp_line(&ctx, "network", sbx_access_name(profile->network));
        fp_line(&ctx, "command", sbx_access_name(profile->command));
        fp_line(&ctx, "home", home_name(profile->home));
        fp_line(&ctx, "isolation", isolation_name(profile->isolation));
        fp_line(&ctx, "ack_unconfined", profile->ack_unconfined ? "1" : "0");
        (void) snprintf(num, sizeof(num), "%zu", profile->n_roots);
        fp_line(&ctx, "roots", num);
        for (i = 0; i < profile->n_roots; i++) {
                fp_str(&ctx, "root=");
                fp_path(&ctx, profile->roots[i].path);
                fp_str(&ctx, " read=");
                fp_str(&ctx, sbx_access_name(profile->roots[i].read));
                fp_str(&ctx, " write=");
                fp_str(&ctx, sbx_access_name(profile->roots[i].write));
                fp_str(&ctx, "\n");
        }
#if NETTLE_VERSION_MAJOR >= 4
        sha256_digest(&ctx, digest);
#else
        sha256_digest(&ctx, sizeof(digest), digest);
#endif
        for (i = 0; i < sizeof(digest); i++) {
                buf[2 * i] = hex[digest[i] >> 4];
                buf[2 * i + 1] = hex[digest[i] & 0x0f];
        }
        buf[2 * sizeof(digest)] = '\0';
        return SBX_OK;
}
