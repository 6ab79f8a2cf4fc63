/*
 * policyfile.c - policy files: reading, the schema, and the getters.
 *
 * json-c parses (strict mode, UTF-8 validated where it can); the scanner
 * of policyfile_scan.c gives every key its line and refuses the JSON that
 * json-c lets through (duplicated keys among it).  The schema is checked
 * here, in the file's order, so the first problem in the file is the one
 * reported: "<file>:<line>: <key>: <problem>".  Nothing here touches the
 * file system; policyfile_build.c reads the file and turns a document into
 * a profile.  The format: docs/policy-file.md.
 *
 * Builds on: POSIX (json-c; src/windows/unported.c answers on Windows).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "policy/netrule.h"
#include "profile/policyfile_internal.h"
#include "profile/profile_internal.h"

#ifdef JSON_TOKENER_VALIDATE_UTF8
#  define TOKENER_FLAGS (JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
#else
#  define TOKENER_FLAGS JSON_TOKENER_STRICT
#endif

/* A year, the longest limits.timeout (as sandbox-run's --timeout). */
#define TIMEOUT_MAX_S (365.0 * 24 * 3600)

/* The longest "NAME=VALUE" of env.set (the kernel's MAX_ARG_STRLEN). */
#define ENV_ENTRY_MAX (128 * 1024 - 1)

struct ctx {
        sbx_policy_file *pf;
        const char      *msgname;
        sbx_error       *err;
        struct sbx__strv read, write, unix_, pass, set, hosts;
        uint32_t         mode_line;
};

/* ------------------------------------------------------------ messages */

static sbx_code bad_code(struct ctx *c, sbx_code code, const char *key, const char *fmt, ...)
        SBX__PRINTF(4, 5);
static sbx_code bad_code(struct ctx *c, sbx_code code, const char *key, const char *fmt, ...)
{
        char what[SBX_ERROR_SIZE], shown[64];
        uint32_t line = sbx__pf_keys_line(&c->pf->keys, key);
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        (void) sbx__printable(key, shown, sizeof(shown));
        if (line > 0)
                return sbx__fail(c->err, code, 0, "%s:%u: %s: %s", c->msgname, (unsigned) line,
                                 shown, what);
        return sbx__fail(c->err, code, 0, "%s: %s: %s", c->msgname, shown, what);
}

#define bad(c, key, ...) bad_code((c), SBX_E_INVALID, (key), __VA_ARGS__)

static sbx_code nomem(struct ctx *c)
{
        return sbx__fail(c->err, SBX_E_NOMEM, ENOMEM, "%s: no memory", c->msgname);
}

static const char *type_name(json_object *v)
{
        switch (json_object_get_type(v)) {
        case json_type_null:
                return "null";
        case json_type_boolean:
                return "a boolean";
        case json_type_double:
                return "a fractional number";
        case json_type_int:
                return "an integer";
        case json_type_object:
                return "an object";
        case json_type_array:
                return "an array";
        case json_type_string:
                return "a string";
        }
        return "a value";
}

/* The key path of member `name` of the object at `parent` ("" = top). */
static void member_path(char *buf, size_t sz, const char *parent, const char *name)
{
        (void) snprintf(buf, sz, "%s%s%s", parent, parent[0] != '\0' ? "." : "", name);
}

/* ------------------------------------------------------------- scalars */

/* A string without NUL bytes into *out (borrowed from v). */
static sbx_code get_string(struct ctx *c, const char *key, json_object *v, const char **out)
{
        const char *s = NULL;

        if (!json_object_is_type(v, json_type_string))
                return bad(c, key, "must be a string, not %s", type_name(v));
        s = json_object_get_string(v);
        if (s == NULL || (size_t) json_object_get_string_len(v) != strlen(s))
                return bad(c, key, "a string holding a NUL byte");
        *out = s;
        return SBX_OK;
}

static sbx_code get_bool(struct ctx *c, const char *key, json_object *v, int32_t *out)
{
        if (!json_object_is_type(v, json_type_boolean))
                return bad(c, key, "must be true or false, not %s", type_name(v));
        *out = json_object_get_boolean(v) ? 1 : 0;
        return SBX_OK;
}

/* A positive integer below INT64_MAX (json-c saturates larger ones). */
static sbx_code get_count(struct ctx *c, const char *key, json_object *v, const char *unit,
                          uint64_t *out)
{
        int64_t n;

        if (!json_object_is_type(v, json_type_int))
                return bad(c, key, "must be a whole number of %s, not %s", unit, type_name(v));
        n = json_object_get_int64(v);
        if (n <= 0)
                return bad(c, key, "must be more than 0 (leave the key out for no limit)");
        if (n == INT64_MAX)
                return bad(c, key, "is too large");
        *out = (uint64_t) n;
        return SBX_OK;
}

/* A path: absolute, or "~" / "~/..." below $HOME; cleaned lexically ("//",
 * "." and a trailing slash go), ".." refused.  malloc'd into *out. */
static sbx_code get_path(struct ctx *c, const char *key, json_object *v, char **out)
{
        char joined[SBX_PATH_MAX], clean[SBX_PATH_MAX], shown[64];
        const char *s = NULL, *home;
        sbx_code r;

        r = get_string(c, key, v, &s);
        if (r != SBX_OK)
                return r;
        if (s[0] == '~' && (s[1] == '\0' || s[1] == '/')) {
                home = sbx__secure_getenv("HOME");
                if (home == NULL || home[0] != '/')
                        return bad(c, key, "\"%s\" needs HOME, which is not an absolute path "
                                   "here", sbx__printable(s, shown, sizeof(shown)));
                if ((size_t) snprintf(joined, sizeof(joined), "%s%s", home, s + 1) >=
                    sizeof(joined))
                        return bad_code(c, SBX_E_RANGE, key, "the path is too long");
                s = joined;
        }
        if (s[0] != '/')
                return bad(c, key, "\"%s\" is not an absolute path (start it with / or ~/)",
                           sbx__printable(s, shown, sizeof(shown)));
        r = sbx__path_clean(s, 0, clean, sizeof(clean));
        if (r == SBX_E_RANGE || strlen(s) >= SBX_PATH_MAX)
                return bad_code(c, SBX_E_RANGE, key, "the path is too long");
        if (r != SBX_OK)
                return bad(c, key, "\"%s\" has a \"..\" component; write the path without it",
                           sbx__printable(s, shown, sizeof(shown)));
        *out = sbx__strdup(clean);
        return *out != NULL ? SBX_OK : nomem(c);
}

/* ---------------------------------------------------------------- lists */

/* Index of s in v, or -1. */
static long strv_find(const struct sbx__strv *v, const char *s, size_t name_len)
{
        size_t i;

        for (i = 0; i < v->n; i++) {
                if (name_len == 0 && strcmp(v->v[i], s) == 0)
                        return (long) i;
                if (name_len > 0 && strncmp(v->v[i], s, name_len) == 0 &&
                    v->v[i][name_len] == '=')
                        return (long) i;
        }
        return -1;
}

static sbx_code push(struct ctx *c, struct sbx__strv *v, const char *s)
{
        sbx__strv_push(v, s);
        return v->failed ? nomem(c) : SBX_OK;
}

static sbx_code get_array(struct ctx *c, const char *key, json_object *v, size_t max,
                          size_t *n_out)
{
        size_t n;

        if (!json_object_is_type(v, json_type_array))
                return bad(c, key, "must be an array, not %s", type_name(v));
        n = json_object_array_length(v);
        if (n > max)
                return bad_code(c, SBX_E_RANGE, key, "more than %zu entries", max);
        *n_out = n;
        return SBX_OK;
}

/* read_roots, write_roots, unix_sockets: arrays of distinct paths. */
static sbx_code path_list(struct ctx *c, const char *key, json_object *v, size_t max,
                          struct sbx__strv *out)
{
        char ek[80];
        size_t n = 0, i;
        sbx_code r;

        r = get_array(c, key, v, max, &n);
        if (r != SBX_OK)
                return r;
        for (i = 0; i < n; i++) {
                char *p = NULL;
                long dup;

                (void) snprintf(ek, sizeof(ek), "%s[%zu]", key, i);
                r = get_path(c, ek, json_object_array_get_idx(v, i), &p);
                if (r != SBX_OK)
                        return r;
                dup = strv_find(out, p, 0);
                if (dup >= 0) {
                        free(p);
                        return bad(c, ek, "the same path as %s[%ld]", key, dup);
                }
                r = push(c, out, p);
                free(p);
                if (r != SBX_OK)
                        return r;
        }
        return SBX_OK;
}

/* --------------------------------------------------------- environment */

/* A variable name: a letter or _, then letters, digits and _; never HOME
 * or TMPDIR (the sandbox sets them). */
static sbx_code check_env_name(struct ctx *c, const char *key, const char *name)
{
        char shown[64];
        const char *p;

        for (p = name; *p != '\0'; p++)
                if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_' ||
                      (p > name && *p >= '0' && *p <= '9')))
                        break;
        if (p == name || *p != '\0')
                return bad(c, key, "\"%s\" is not a variable name (letters, digits and _, not "
                           "starting with a digit)", sbx__printable(name, shown, sizeof(shown)));
        if (strcmp(name, "HOME") == 0 || strcmp(name, "TMPDIR") == 0)
                return bad(c, key, "%s is the sandbox's to set", name);
        return SBX_OK;
}

static sbx_code env_pass(struct ctx *c, const char *key, json_object *v)
{
        char ek[80];
        size_t n = 0, i;
        sbx_code r;

        r = get_array(c, key, v, SBX__PF_MAX_ENV, &n);
        if (r != SBX_OK)
                return r;
        for (i = 0; i < n; i++) {
                const char *name;
                long dup;

                (void) snprintf(ek, sizeof(ek), "%s[%zu]", key, i);
                if ((r = get_string(c, ek, json_object_array_get_idx(v, i), &name)) != SBX_OK ||
                    (r = check_env_name(c, ek, name)) != SBX_OK)
                        return r;
                dup = strv_find(&c->pass, name, 0);
                if (dup >= 0)
                        return bad(c, ek, "%s is already %s[%ld]", name, key, dup);
                if ((r = push(c, &c->pass, name)) != SBX_OK)
                        return r;
        }
        return SBX_OK;
}

static sbx_code env_set(struct ctx *c, const char *key, json_object *v)
{
        struct json_object_iterator it, end;
        char ek[SBX__PF_MAX_KEY + 16];
        sbx_code r;

        if (!json_object_is_type(v, json_type_object))
                return bad(c, key, "must be an object of NAME: \"VALUE\", not %s",
                           type_name(v));
        it = json_object_iter_begin(v);
        end = json_object_iter_end(v);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                const char *name = json_object_iter_peek_name(&it), *val;
                size_t nl = strlen(name), vl;
                char *entry;

                member_path(ek, sizeof(ek), key, name);
                if ((r = check_env_name(c, ek, name)) != SBX_OK ||
                    (r = get_string(c, ek, json_object_iter_peek_value(&it), &val)) != SBX_OK)
                        return r;
                vl = strlen(val);
                if (nl + 1 + vl > ENV_ENTRY_MAX)
                        return bad_code(c, SBX_E_RANGE, ek, "NAME=VALUE is longer than %d "
                                        "bytes", ENV_ENTRY_MAX);
                if (c->set.n + 1 > SBX__PF_MAX_ENV)
                        return bad_code(c, SBX_E_RANGE, ek, "more than %d entries",
                                        SBX__PF_MAX_ENV);
                entry = malloc(nl + vl + 2);
                if (entry == NULL)
                        return nomem(c);
                memcpy(entry, name, nl);
                entry[nl] = '=';
                memcpy(entry + nl + 1, val, vl + 1);
                r = push(c, &c->set, entry);
                free(entry);
                if (r != SBX_OK)
                        return r;
        }
        return SBX_OK;
}

/* ------------------------------------------------------------- network */

/*
 * One allow_hosts entry in its canonical spelling into norm (300 bytes):
 * the one allowlist grammar of policy/netrule.h (docs/network.md, "The
 * allowlist"), which the profile and the egress proxy use too.  0 and
 * why (SBX_ERROR_SIZE) when it is not an entry.
 */
static int host_entry(const char *s, char *norm, size_t normsz, char *why)
{
        struct sbx__net_rule rule;
        char buf[SBX__NET_RULE_TEXT];
        sbx_error e;

        if (sbx__net_rule_parse(s, &rule, &e) != SBX_OK) {
                memcpy(why, e.message, SBX_ERROR_SIZE);
                return 0;
        }
        (void) sbx__net_rule_format(&rule, buf);
        if (strlen(buf) >= normsz) {
                (void) snprintf(why, SBX_ERROR_SIZE, "too long");
                return 0;
        }
        memcpy(norm, buf, strlen(buf) + 1);
        return 1;
}

static sbx_code allow_hosts(struct ctx *c, const char *key, json_object *v)
{
        char ek[80], norm[SBX__NET_RULE_TEXT], why[SBX_ERROR_SIZE];
        size_t n = 0, i;
        sbx_code r;

        r = get_array(c, key, v, SBX__PF_MAX_HOSTS, &n);
        if (r != SBX_OK)
                return r;
        for (i = 0; i < n; i++) {
                const char *s = NULL;
                long dup;

                (void) snprintf(ek, sizeof(ek), "%s[%zu]", key, i);
                r = get_string(c, ek, json_object_array_get_idx(v, i), &s);
                if (r != SBX_OK)
                        return r;
                if (!host_entry(s, norm, sizeof(norm), why))
                        return bad(c, ek, "%s", why);
                dup = strv_find(&c->hosts, norm, 0);
                if (dup >= 0)
                        return bad(c, ek, "the same host as %s[%ld]", key, dup);
                if ((r = push(c, &c->hosts, norm)) != SBX_OK)
                        return r;
        }
        return SBX_OK;
}

/* ---------------------------------------------------------------- keys */

typedef sbx_code (*member_fn)(struct ctx *c, const char *key, json_object *v);

struct member {
        const char *name;
        member_fn   fn;
};

/* Check each member of the object v at key against table (n entries),
 * in the file's order; an unknown one names the known ones. */
static sbx_code members(struct ctx *c, const char *key, json_object *v,
                        const struct member *table, size_t n)
{
        struct json_object_iterator it, end;
        char mk[SBX__PF_MAX_KEY + 64], known[256];
        size_t i, o = 0;
        sbx_code r;

        if (!json_object_is_type(v, json_type_object))
                return bad(c, key, "must be an object, not %s", type_name(v));
        it = json_object_iter_begin(v);
        end = json_object_iter_end(v);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                const char *name = json_object_iter_peek_name(&it);

                member_path(mk, sizeof(mk), key, name);
                for (i = 0; i < n; i++)
                        if (strcmp(table[i].name, name) == 0)
                                break;
                if (i < n) {
                        r = table[i].fn(c, mk, json_object_iter_peek_value(&it));
                        if (r != SBX_OK)
                                return r;
                        continue;
                }
                known[0] = '\0';
                for (i = 0; i < n && o + strlen(table[i].name) + 3 < sizeof(known); i++)
                        o += (size_t) snprintf(known + o, sizeof(known) - o, "%s%s",
                                               i > 0 ? ", " : "", table[i].name);
                return bad(c, mk, "unknown key (known: %s)", known);
        }
        return SBX_OK;
}

static sbx_code k_version(struct ctx *c, const char *key, json_object *v)
{
        (void) c;
        (void) key;
        (void) v;
        return SBX_OK;          /* checked first, by parse_document */
}

static sbx_code k_mode(struct ctx *c, const char *key, json_object *v)
{
        const char *s = NULL;
        char shown[64];
        sbx_code r;

        r = get_string(c, key, v, &s);
        if (r != SBX_OK)
                return r;
        if (sbx_mode_parse(s, &c->pf->s.mode, NULL) != SBX_OK)
                return bad(c, key, "\"%s\" is not a mode (valid: read-only, workspace-write, "
                           "danger-full-access)", sbx__printable(s, shown, sizeof(shown)));
        c->pf->s.set |= SBX_POLICY_SET_MODE;
        c->mode_line = sbx__pf_keys_line(&c->pf->keys, key);
        return SBX_OK;
}

static sbx_code k_workspace(struct ctx *c, const char *key, json_object *v)
{
        sbx_code r = get_path(c, key, v, &c->pf->workspace);

        if (r == SBX_OK)
                c->pf->s.set |= SBX_POLICY_SET_WORKSPACE;
        return r;
}

static sbx_code k_read_roots(struct ctx *c, const char *key, json_object *v)
{
        return path_list(c, key, v, SBX__PF_MAX_ROOTS, &c->read);
}

static sbx_code k_write_roots(struct ctx *c, const char *key, json_object *v)
{
        return path_list(c, key, v, SBX__PF_MAX_ROOTS, &c->write);
}

static sbx_code k_unix_sockets(struct ctx *c, const char *key, json_object *v)
{
        return path_list(c, key, v, SBX__PF_MAX_UNIX, &c->unix_);
}

static sbx_code k_env(struct ctx *c, const char *key, json_object *v)
{
        static const struct member table[] = { { "pass", env_pass }, { "set", env_set } };
        sbx_code r = members(c, key, v, table, SBX__ARRAY_SIZE(table));

        if (r == SBX_OK && c->pass.n + c->set.n > SBX__PF_MAX_ENV)
                return bad_code(c, SBX_E_RANGE, key, "more than %d variables in pass and set",
                                SBX__PF_MAX_ENV);
        return r;
}

static sbx_code l_memory(struct ctx *c, const char *key, json_object *v)
{
        const char *s = NULL;
        char shown[64];
        sbx_code r;

        if (json_object_is_type(v, json_type_string)) {
                if ((r = get_string(c, key, v, &s)) != SBX_OK)
                        return r;
                if (sbx__parse_size(s, &c->pf->s.memory_max) < 0)
                        return bad(c, key, "\"%s\" is not a size (bytes, or a number with K, "
                                   "M, G or T)", sbx__printable(s, shown, sizeof(shown)));
        } else if (json_object_is_type(v, json_type_int)) {
                if ((r = get_count(c, key, v, "bytes", &c->pf->s.memory_max)) != SBX_OK)
                        return r;
        } else {
                return bad(c, key, "must be a number of bytes or a string like \"512M\", not "
                           "%s", type_name(v));
        }
        c->pf->s.set |= SBX_POLICY_SET_MEMORY;
        return SBX_OK;
}

static sbx_code l_pids(struct ctx *c, const char *key, json_object *v)
{
        sbx_code r = get_count(c, key, v, "processes", &c->pf->s.pids_max);

        if (r == SBX_OK)
                c->pf->s.set |= SBX_POLICY_SET_PIDS;
        return r;
}

static sbx_code l_timeout(struct ctx *c, const char *key, json_object *v)
{
        double d;
        uint64_t ms;

        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
                return bad(c, key, "must be a number of seconds, not %s", type_name(v));
        d = json_object_get_double(v);
        if (!(d > 0) || d > TIMEOUT_MAX_S)
                return bad(c, key, "must be more than 0 and at most a year of seconds (leave "
                           "the key out for none)");
        ms = (uint64_t) (d * 1000.0);
        c->pf->s.timeout_ms = ms > 0 ? ms : 1;
        c->pf->s.set |= SBX_POLICY_SET_TIMEOUT;
        return SBX_OK;
}

static sbx_code k_limits(struct ctx *c, const char *key, json_object *v)
{
        static const struct member table[] = {
                { "memory", l_memory }, { "pids", l_pids }, { "timeout", l_timeout },
        };

        return members(c, key, v, table, SBX__ARRAY_SIZE(table));
}

static sbx_code k_backend(struct ctx *c, const char *key, json_object *v)
{
        const char *s = NULL;
        char shown[64];
        sbx_code r;

        r = get_string(c, key, v, &s);
        if (r != SBX_OK)
                return r;
        if (sbx_backend_parse(s, &c->pf->s.backend, NULL) != SBX_OK ||
            c->pf->s.backend == SBX_BACKEND_UNAVAILABLE) {
                char valid[128];
                int32_t b;
                size_t o = 0;

                /* Every name sbx_backend_parse knows but "unavailable". */
                valid[0] = '\0';
                for (b = SBX_BACKEND_AUTO; b < 32 && o + 24 < sizeof(valid); b++)
                        if (b != SBX_BACKEND_UNAVAILABLE &&
                            strcmp(sbx_backend_name(b), "invalid") != 0)
                                o += (size_t) snprintf(valid + o, sizeof(valid) - o, "%s%s",
                                                       o > 0 ? ", " : "", sbx_backend_name(b));
                return bad(c, key, "\"%s\" is not a backend (valid: %s)",
                           sbx__printable(s, shown, sizeof(shown)), valid);
        }
        c->pf->s.set |= SBX_POLICY_SET_BACKEND;
        return SBX_OK;
}

static sbx_code n_access(struct ctx *c, const char *key, json_object *v)
{
        const char *s = NULL;
        char shown[64];
        sbx_code r;

        r = get_string(c, key, v, &s);
        if (r != SBX_OK)
                return r;
        if (strcmp(s, "deny") == 0)
                c->pf->s.network = SBX_ACCESS_DENY;
        else if (strcmp(s, "allow") == 0)
                c->pf->s.network = SBX_ACCESS_ALLOW;
        else
                return bad(c, key, "\"%s\" is not a network access (valid: deny, allow)",
                           sbx__printable(s, shown, sizeof(shown)));
        c->pf->s.set |= SBX_POLICY_SET_NETWORK;
        return SBX_OK;
}

static sbx_code k_network(struct ctx *c, const char *key, json_object *v)
{
        static const struct member table[] = {
                { "access", n_access }, { "allow_hosts", allow_hosts },
        };
        sbx_code r = members(c, key, v, table, SBX__ARRAY_SIZE(table));

        if (r == SBX_OK && c->hosts.n > 0 && (c->pf->s.set & SBX_POLICY_SET_NETWORK) &&
            c->pf->s.network == SBX_ACCESS_ALLOW)
                return bad(c, "network.allow_hosts", "an allowlist with access \"allow\" (the "
                           "host network is open to every host); use access \"deny\"");
        return r;
}

static sbx_code k_force_workspace(struct ctx *c, const char *key, json_object *v)
{
        sbx_code r = get_bool(c, key, v, &c->pf->s.force_workspace);

        if (r == SBX_OK)
                c->pf->s.set |= SBX_POLICY_SET_FORCE_WORKSPACE;
        return r;
}

static sbx_code k_accept_unprotected_git(struct ctx *c, const char *key, json_object *v)
{
        sbx_code r = get_bool(c, key, v, &c->pf->s.accept_unprotected_git);

        if (r == SBX_OK)
                c->pf->s.set |= SBX_POLICY_SET_ACCEPT_UNPROTECTED_GIT;
        return r;
}

static const struct member top_keys[] = {
        { "version", k_version },
        { "mode", k_mode },
        { "workspace", k_workspace },
        { "read_roots", k_read_roots },
        { "write_roots", k_write_roots },
        { "unix_sockets", k_unix_sockets },
        { "env", k_env },
        { "limits", k_limits },
        { "backend", k_backend },
        { "network", k_network },
        { "force_workspace", k_force_workspace },
        { "accept_unprotected_git", k_accept_unprotected_git },
};

/*
 * danger-full-access runs the command unconfined: a key that would narrow
 * it cannot apply, and is an error rather than silently ignored.
 */
static sbx_code check_danger(struct ctx *c)
{
        static const char *const keys[] = {
                "read_roots", "write_roots", "unix_sockets", "limits.memory", "limits.pids",
                "limits.timeout", "backend", "network.allow_hosts", "force_workspace",
                "accept_unprotected_git",
        };
        const sbx_policy_settings *s = &c->pf->s;
        size_t i;

        if (!(s->set & SBX_POLICY_SET_MODE) || s->mode != SBX_MODE_DANGER_FULL_ACCESS)
                return SBX_OK;
        if ((s->set & SBX_POLICY_SET_NETWORK) && s->network == SBX_ACCESS_DENY)
                return bad(c, "network.access", "mode danger-full-access (line %u) runs the "
                           "command unconfined: the network cannot be denied",
                           (unsigned) c->mode_line);
        for (i = 0; i < SBX__ARRAY_SIZE(keys); i++)
                if (sbx__pf_keys_line(&c->pf->keys, keys[i]) > 0)
                        return bad(c, keys[i], "mode danger-full-access (line %u) runs the "
                                   "command unconfined: this cannot apply",
                                   (unsigned) c->mode_line);
        return SBX_OK;
}

/* -------------------------------------------------------------- parsing */

/* Move a list into the document (every push succeeded: push() reports a
 * failed one at once, so finishing cannot fail). */
static void finish_list(struct sbx__strv *v, char ***field, const char *const **view,
                        size_t *n)
{
        *n = 0;
        *field = v->n > 0 ? sbx__strv_finish(v, n) : NULL;
        *view = (const char *const *) *field;
}

/* json-c's parse of text, or a syntax error naming line and column. */
static sbx_code parse_json(const char *msgname, const char *text, size_t len,
                           json_object **out, sbx_error *err)
{
        struct json_tokener *tok;
        enum json_tokener_error je;
        json_object *obj;
        size_t off, col, i;

        if (len > INT_MAX)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: too large", msgname);
        tok = json_tokener_new();
        if (tok == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", msgname);
        json_tokener_set_flags(tok, TOKENER_FLAGS);
        obj = json_tokener_parse_ex(tok, text, (int) len);
        je = json_tokener_get_error(tok);
        off = tok->char_offset;
        json_tokener_free(tok);
        if (obj != NULL && je == json_tokener_success) {
                *out = obj;
                return SBX_OK;
        }
        json_object_put(obj);
        if (off > len)
                off = len;
        for (col = 1, i = off; i > 0 && text[i - 1] != '\n'; i--)
                col++;
        if (je == json_tokener_continue || je == json_tokener_success)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s:%u: not valid JSON: the file ends "
                                 "inside a value (a missing } or ])", msgname,
                                 (unsigned) sbx__pf_line_of(text, len));
        return sbx__fail(err, SBX_E_INVALID, 0, "%s:%u:%zu: not valid JSON: %s", msgname,
                         (unsigned) sbx__pf_line_of(text, off), col, json_tokener_error_desc(je));
}

sbx_code sbx__pf_parse_document(sbx_policy_file *pf, const char *msgname, const char *text,
                                size_t len, sbx_error *err)
{
        struct ctx c;
        json_object *root = NULL, *ver = NULL;
        size_t i;
        sbx_code r;

        memset(&c, 0, sizeof(c));
        c.pf = pf;
        c.msgname = msgname;
        c.err = err;
        for (i = 0; i < len; i++)
                if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n')
                        break;
        if (i == len)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s:1: empty; a policy file is a JSON "
                                 "object with \"version\": 1", msgname);
        r = parse_json(msgname, text, len, &root, err);
        if (r != SBX_OK)
                return r;
        r = sbx__pf_scan(msgname, text, len, &pf->keys, err);
        if (r != SBX_OK)
                goto out;
        if (!json_object_is_type(root, json_type_object)) {
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s:%u: a policy file is a JSON object, "
                              "not %s", msgname, (unsigned) sbx__pf_keys_line(&pf->keys, ""),
                              type_name(root));
                goto out;
        }
        if (!json_object_object_get_ex(root, "version", &ver)) {
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s:%u: version: missing; a policy file "
                              "starts with \"version\": 1", msgname,
                              (unsigned) sbx__pf_keys_line(&pf->keys, ""));
                goto out;
        }
        if (!json_object_is_type(ver, json_type_int) || json_object_get_int64(ver) < 1) {
                r = bad(&c, "version", "must be 1, not %s", json_object_is_type(ver,
                        json_type_int) ? json_object_to_json_string(ver) : type_name(ver));
                goto out;
        }
        if (json_object_get_int64(ver) != 1) {
                r = bad_code(&c, SBX_E_UNSUPPORTED, "version", "version %s is newer than this "
                             "library reads (1)", json_object_to_json_string(ver));
                goto out;
        }
        r = members(&c, "", root, top_keys, SBX__ARRAY_SIZE(top_keys));
        if (r == SBX_OK)
                r = check_danger(&c);
        if (r != SBX_OK)
                goto out;
        finish_list(&c.read, &pf->read_roots, &pf->s.read_roots, &pf->s.n_read_roots);
        finish_list(&c.write, &pf->write_roots, &pf->s.write_roots, &pf->s.n_write_roots);
        finish_list(&c.unix_, &pf->unix_sockets, &pf->s.unix_sockets, &pf->s.n_unix_sockets);
        finish_list(&c.pass, &pf->env_pass, &pf->s.env_pass, &pf->s.n_env_pass);
        finish_list(&c.set, &pf->env_set, &pf->s.env_set, &pf->s.n_env_set);
        finish_list(&c.hosts, &pf->allow_hosts, &pf->s.allow_hosts, &pf->s.n_allow_hosts);
        pf->s.workspace = pf->workspace;
out:
        sbx__strv_discard(&c.read);
        sbx__strv_discard(&c.write);
        sbx__strv_discard(&c.unix_);
        sbx__strv_discard(&c.pass);
        sbx__strv_discard(&c.set);
        sbx__strv_discard(&c.hosts);
        json_object_put(root);
        return r;
}
