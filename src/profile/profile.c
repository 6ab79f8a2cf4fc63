/*
 * profile.c - profiles: the Deny/Gated/Allow authority model, validation,
 * restrict (the component-wise intersection), the named mode profiles, the
 * gate seam (sbx_profile_access_for) and the fingerprint.
 *
 * Everything here is pure except the canonical-root check of
 * sbx_profile_new / sbx_profile_from_mode, which consults the file system
 * through sbx__path_canonical_buf (symlink components are not canonical),
 * and the broad-workspace check and secret locations (secrets.c).  The
 * fingerprint is in fingerprint.c; the path syntax and the access of a path
 * (the leaf both this file and secrets.c call) in query.c.  Rules and
 * reasons: docs/profiles.md.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *sbx__profile_home_name(int32_t h)
{
        return (h == SBX_HOME_ISOLATED || h == SBX_HOME_REAL) ? home_names[h] : "invalid";
}

const char *sbx__profile_isolation_name(int32_t i)
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

/*
 * The version-2 fields of cfg, or their defaults (0, NULL) for the first
 * layout (versions 0 and 1), which ends at ack_unconfined: those fields are
 * then never read.
 */
struct cfg_v2 {
        int32_t force_workspace;
        int32_t accept_unprotected_git;
        const char *const *unix_sockets;
        size_t n_unix_sockets;
        const char *const *allow_hosts;         /* version 3 */
        size_t n_allow_hosts;
};

static struct cfg_v2 cfg_v2_of(const sbx_profile_config *cfg)
{
        struct cfg_v2 v = { 0, 0, NULL, 0, NULL, 0 };

        if (cfg->version >= 2) {
                v.force_workspace = cfg->force_workspace;
                v.accept_unprotected_git = cfg->accept_unprotected_git;
                v.unix_sockets = cfg->unix_sockets;
                v.n_unix_sockets = cfg->n_unix_sockets;
        }
        if (cfg->version >= 3) {
                v.allow_hosts = cfg->allow_hosts;
                v.n_allow_hosts = cfg->n_allow_hosts;
        }
        return v;
}

static sbx_code check_flag(const char *fn, const char *what, int32_t v, sbx_error *err)
{
        if (v != 0 && v != 1)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is %d; must be 0 or 1", fn,
                                 what, (int) v);
        return SBX_OK;
}

/* The version-2 fields (syntax only; the file system check is in
 * profile_build). */
static sbx_code check_v2(const char *fn, const sbx_profile_config *cfg, sbx_error *err)
{
        struct cfg_v2 v = cfg_v2_of(cfg);
        char what[48];
        size_t i, j;
        sbx_code c;

        c = check_flag(fn, "force_workspace", v.force_workspace, err);
        if (c == SBX_OK)
                c = check_flag(fn, "accept_unprotected_git", v.accept_unprotected_git, err);
        if (c != SBX_OK)
                return c;
        if (v.n_unix_sockets > SBX__PROFILE_MAX_UNIX_SOCKETS)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: n_unix_sockets is %zu; at most %d are allowed", fn,
                                 v.n_unix_sockets, SBX__PROFILE_MAX_UNIX_SOCKETS);
        if (v.n_unix_sockets > 0 && v.unix_sockets == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: unix_sockets is NULL but n_unix_sockets is %zu", fn,
                                 v.n_unix_sockets);
        for (i = 0; i < v.n_unix_sockets; i++) {
                (void) snprintf(what, sizeof(what), "unix_sockets[%zu]", i);
                c = check_path_syntax(fn, what, v.unix_sockets[i], err);
                if (c != SBX_OK)
                        return c;
                for (j = 0; j < i; j++)
                        if (strcmp(v.unix_sockets[i], v.unix_sockets[j]) == 0)
                                return sbx__fail(err, SBX_E_INVALID, 0,
                                                 "%s: %s duplicates unix_sockets[%zu]", fn,
                                                 what, j);
        }
        return SBX_OK;
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

        if (cfg->version > SBX_PROFILE_CONFIG_VERSION)
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
        c = check_v2(fn, cfg, err);
        if (c != SBX_OK)
                return c;

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
        if (profile->unix_sockets != NULL)
                for (i = 0; i < profile->n_unix_sockets; i++)
                        free(profile->unix_sockets[i]);
        free(profile->unix_sockets);
        sbx__profile_allow_free(profile->allow_hosts, profile->n_allow_hosts);
        sbx__profile_secrets_free(profile->secrets, profile->n_secrets);
        free(profile->workspace_root);
        free(profile);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Validate cfg and build a profile.  With `resolve` the configured paths
 * must also be canonical on the file system (sbx_profile_new); without it
 * only their syntax is checked (sbx_profile_restrict, whose paths come from
 * profiles that passed the file system check when they were built: a
 * profile is a snapshot and restrict does no I/O).
 */
static sbx_code profile_build(const char *fn, const sbx_profile_config *cfg, int resolve,
                              const struct sbx__home_set *homes, sbx_profile **out,
                              sbx_error *err)
{
        struct cfg_v2 v;
        char what[64];
        sbx_profile *p = NULL;
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
        v = cfg_v2_of(cfg);
        if (resolve) {
                for (i = 0; i < v.n_unix_sockets; i++) {
                        (void) snprintf(what, sizeof(what), "unix_sockets[%zu]", i);
                        c = check_path_resolves(fn, what, v.unix_sockets[i], err);
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
        p->force_workspace = v.force_workspace;
        p->accept_unprotected_git = v.accept_unprotected_git;
        if (v.n_unix_sockets > 0) {
                p->unix_sockets = calloc(v.n_unix_sockets, sizeof(*p->unix_sockets));
                if (p->unix_sockets == NULL)
                        goto nomem;
                p->n_unix_sockets = v.n_unix_sockets;
                for (i = 0; i < v.n_unix_sockets; i++) {
                        p->unix_sockets[i] = sbx__strdup(v.unix_sockets[i]);
                        if (p->unix_sockets[i] == NULL)
                                goto nomem;
                }
                qsort(p->unix_sockets, v.n_unix_sockets, sizeof(*p->unix_sockets), cmp_str);
        }
        c = sbx__profile_allow_build(fn, v.allow_hosts, v.n_allow_hosts, cfg->network,
                                     cfg->isolation, &p->allow_hosts, &p->n_allow_hosts, err);
        if (c != SBX_OK) {
                sbx_profile_free(p);
                return c;
        }
        /* The workspace check and the secrets consult the host: only for
         * sbx_profile_new (restrict takes its inputs' secrets). */
        if (resolve) {
                c = sbx__profile_find_secrets(fn, p, homes, err);
                if (c != SBX_OK) {
                        sbx_profile_free(p);
                        return c;
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
        return profile_build("sbx_profile_new", cfg, 1, NULL, out, err);
}

sbx_code sbx__profile_new_with_homes(const sbx_profile_config *cfg, const char *const *homes,
                                     size_t n_homes, sbx_profile **out, sbx_error *err)
{
        struct sbx__home_set hs = { homes, n_homes };

        if (n_homes > 0 && homes == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__profile_new_with_homes: homes "
                                 "is NULL");
        return profile_build("sbx_profile_new", cfg, 1, &hs, out, err);
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
        if (out->version > SBX_PROFILE_CONFIG_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: out->version is %u; must be SBX_PROFILE_CONFIG_VERSION "
                                 "(use SBX_PROFILE_CONFIG_INIT)", fn, (unsigned) out->version);
        cfg.version = out->version;
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
        cfg.force_workspace = profile->force_workspace;
        cfg.accept_unprotected_git = profile->accept_unprotected_git;
        cfg.unix_sockets = (const char *const *) profile->unix_sockets;
        cfg.n_unix_sockets = profile->n_unix_sockets;
        cfg.allow_hosts = (const char *const *) profile->allow_hosts;
        cfg.n_allow_hosts = profile->n_allow_hosts;
        if (out->version >= 3)
                *out = cfg;
        else if (out->version == 2)     /* the second layout ends at n_unix_sockets */
                memcpy(out, &cfg, offsetof(sbx_profile_config, allow_hosts));
        else    /* the first layout: nothing past ack_unconfined is written */
                memcpy(out, &cfg, offsetof(sbx_profile_config, force_workspace));
        return SBX_OK;
}

int32_t sbx__profile_force_workspace(const sbx_profile *p)
{
        return p != NULL ? p->force_workspace : 0;
}

int32_t sbx__profile_accept_unprotected_git(const sbx_profile *p)
{
        return p != NULL ? p->accept_unprotected_git : 0;
}

const char *const *sbx__profile_unix_sockets(const sbx_profile *p, size_t *n_out)
{
        if (n_out != NULL)
                *n_out = p != NULL ? p->n_unix_sockets : 0;
        return p != NULL ? (const char *const *) p->unix_sockets : NULL;
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
        const char **pts, **socks = NULL, **hosts = NULL;
        sbx_root_access *ra;
        struct sbx_profile_secret *sec = NULL;
        size_t n = 0, cap, i, n_socks = 0, n_sec = 0;
        sbx_code c;
        int rc;

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
        /* Never wider: forced / accepted only if both are, the sockets both
         * allow, and every secret either hides. */
        cfg.force_workspace = min32(base->force_workspace, ceiling->force_workspace);
        cfg.accept_unprotected_git = min32(base->accept_unprotected_git,
                                           ceiling->accept_unprotected_git);
        if (base->n_unix_sockets > 0) {
                socks = calloc(base->n_unix_sockets, sizeof(*socks));
                if (socks == NULL) {
                        c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                        goto out;
                }
        }
        for (i = 0; i < base->n_unix_sockets; i++)
                if (in_list((const char *const *) ceiling->unix_sockets, ceiling->n_unix_sockets,
                            base->unix_sockets[i]))
                        socks[n_socks++] = base->unix_sockets[i];
        cfg.unix_sockets = n_socks > 0 ? socks : NULL;
        cfg.n_unix_sockets = n_socks;
        if (base->n_allow_hosts + ceiling->n_allow_hosts > 0) {
                hosts = calloc(base->n_allow_hosts + ceiling->n_allow_hosts, sizeof(*hosts));
                if (hosts == NULL) {
                        c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                        goto out;
                }
                cfg.n_allow_hosts = sbx__profile_allow_restrict(base, ceiling, hosts);
                cfg.allow_hosts = cfg.n_allow_hosts > 0 ? hosts : NULL;
        }
        rc = sbx__profile_secrets_union(base, ceiling, &sec, &n_sec);
        if (rc == -ERANGE) {
                c = sbx__fail(err, SBX_E_RANGE, 0,
                              "%s: the union has more than %d secret locations", fn,
                              SBX__PROFILE_MAX_SECRETS);
                goto out;
        }
        if (rc < 0) {
                c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }

        /* Both inputs were valid, so this cannot fail validation; it is
         * checked anyway so that no invalid profile can ever exist. */
        c = profile_build(fn, &cfg, 0, NULL, out, err);
        SBX__INVARIANT(c == SBX_OK || c == SBX_E_NOMEM,
                       "sbx_profile_restrict built an invalid profile (%s)", sbx_code_name(c));
        if (c == SBX_OK) {
                (*out)->secrets = sec;
                (*out)->n_secrets = n_sec;
                sec = NULL;
        }
out:
        sbx__profile_secrets_free(sec, n_sec);
        free(socks);
        free(hosts);
        free(pts);
        free(ra);
        return c;
}

/* ----------------------------------------------------- modes & presets */

sbx_code sbx__profile_mode_config(const char *fn, int32_t mode, sbx_profile_config *cfg,
                                  sbx_error *err)
{
        sbx_profile_config c = SBX_PROFILE_CONFIG_INIT;

        switch (mode) {
        case SBX_MODE_READ_ONLY:
        case SBX_MODE_WORKSPACE_WRITE:
                c.workspace_read = SBX_ACCESS_ALLOW;
                c.workspace_write = mode == SBX_MODE_WORKSPACE_WRITE ? SBX_ACCESS_ALLOW :
                                                                       SBX_ACCESS_DENY;
                c.host_read = SBX_ACCESS_ALLOW;
                c.host_write = SBX_ACCESS_DENY;
                c.network = SBX_ACCESS_DENY;
                c.command = SBX_ACCESS_ALLOW;
                c.home = SBX_HOME_ISOLATED;
                c.isolation = SBX_ISOLATION_SANDBOXED;
                c.ack_unconfined = 0;
                break;
        case SBX_MODE_DANGER_FULL_ACCESS:
                c.workspace_read = SBX_ACCESS_ALLOW;
                c.workspace_write = SBX_ACCESS_ALLOW;
                c.host_read = SBX_ACCESS_ALLOW;
                c.host_write = SBX_ACCESS_ALLOW;
                c.network = SBX_ACCESS_ALLOW;
                c.command = SBX_ACCESS_ALLOW;
                c.home = SBX_HOME_REAL;
                c.isolation = SBX_ISOLATION_UNCONFINED;
                c.ack_unconfined = 1;
                break;
        case SBX_MODE_NONE:
        default:
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: mode is %d; must be read-only (1), workspace-write (2) "
                                 "or danger-full-access (3)", fn, (int) mode);
        }
        *cfg = c;
        return SBX_OK;
}

static sbx_code from_mode(const char *fn, int32_t mode, const char *workspace_root,
                          sbx_profile **out, sbx_error *err)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_code c;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        c = sbx__profile_mode_config(fn, mode, &cfg, err);
        if (c != SBX_OK)
                return c;
        cfg.workspace_root = workspace_root;
        return profile_build(fn, &cfg, 1, NULL, out, err);
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
