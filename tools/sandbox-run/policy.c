/*
 * policy.c - sandbox-run's policy files (docs/policy-file.md).
 *
 * Which files: --policy FILE alone, as written.  Otherwise (unless
 * --no-policy) the user file, $XDG_CONFIG_HOME/sandbox-run/policy.json
 * (default ~/.config/sandbox-run/policy.json), as written, and then the
 * project file, <workspace>/.sandbox-run.json, which may only narrow.
 * A file that does not exist is skipped; any other problem with one is an
 * error (125) naming its file, line and key.
 *
 * Precedence: a flag wins over every file for a single value, and list
 * flags (--allow-read, --allow-write, --allow-unix, --env) add to the
 * files' lists.  Each value keeps where it came from for --explain.
 *
 * The project file lives in the workspace, which a workspace-write command
 * can write (and a cloned repository brings along), so what it says is not
 * the user's word: it may narrow the run (a mode or network no wider than
 * the run has without it, tighter limits, literal environment values) and
 * anything else it sets that could widen the sandbox -- a workspace, roots,
 * unix sockets, passed-through variables, a backend, hosts,
 * force_workspace or accept_unprotected_git -- is an error that says how
 * to use the file as written: name it with --policy.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define PROJECT_FILE ".sandbox-run.json"

static struct origin at(const sbx_policy_file *pf, const char *key)
{
        struct origin o = { NULL, pf, sbx_policy_file_line(pf, key) };

        return o;
}

/* The user file's path into buf, or NULL when neither XDG_CONFIG_HOME nor
 * HOME is an absolute path. */
static const char *user_file(char *buf, size_t sz)
{
        const char *xdg = secure_getenv("XDG_CONFIG_HOME"), *home = secure_getenv("HOME");

        if (xdg != NULL && xdg[0] == '/')
                (void) snprintf(buf, sz, "%s/sandbox-run/policy.json", xdg);
        else if (home != NULL && home[0] == '/')
                (void) snprintf(buf, sz, "%s/.config/sandbox-run/policy.json", home);
        else
                return NULL;
        return buf;
}

/* The document at path; NULL when it does not exist and need not. */
static sbx_policy_file *load(const char *path, int must_exist)
{
        sbx_policy_file *pf = NULL;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code r = sbx_policy_file_load(path, &pf, &e);

        if (r == SBX_OK)
                return pf;
        if (r == SBX_E_NOT_FOUND && !must_exist)
                return NULL;
        if (r == SBX_E_NOT_FOUND || r == SBX_E_IO)
                say(r, "--policy: %s", e.message);
        else
                say(r, "%s", e.message);
        exit(EXIT_FAIL);
}

static void keep(struct opts *o, sbx_policy_file *pf, const char *kind)
{
        o->files[o->n_files].pf = pf;
        o->files[o->n_files].kind = kind;
        o->n_files++;
}

/* "read_roots[2] (FILE:LINE)" for a message about a file's path. */
static const char *what_of(const sbx_policy_file *pf, const char *key, char *buf, size_t sz)
{
        /* Truncated to the buffer when long: a message, not a path. */
        if (snprintf(buf, sz, "%s (%.300s:%u)", key, sbx_policy_file_name(pf),
                     (unsigned) sbx_policy_file_line(pf, key)) < 0 && sz > 0)
                buf[0] = '\0';
        return buf;
}

/* A list of paths of the file: roots (write 0/1) or unix sockets (-1). */
static void add_paths(struct opts *o, const sbx_policy_file *pf, const char *list,
                      const char *const *v, size_t n, int write)
{
        char key[64], what[400];
        struct origin from;
        size_t i;

        for (i = 0; i < n; i++) {
                (void) snprintf(key, sizeof(key), "%s[%zu]", list, i);
                from = at(pf, key);
                if (write < 0)
                        add_unix(o, canonical_arg(what_of(pf, key, what, sizeof(what)), v[i]),
                                 &from);
                else
                        add_extra(o, canonical_arg(what_of(pf, key, what, sizeof(what)), v[i]),
                                  write, &from);
        }
}

/* env.set entries (and, for a file used as written, env.pass names that
 * are set here; one that is not is left out). */
static void add_env_of(struct opts *o, const sbx_policy_file *pf, const sbx_policy_settings *s,
                       int pass)
{
        char key[300], where[400];
        struct origin from;
        size_t i;

        for (i = 0; pass && i < s->n_env_pass; i++) {
                (void) snprintf(key, sizeof(key), "env.pass[%zu]", i);
                if (getenv(s->env_pass[i]) == NULL)
                        continue;
                from = at(pf, key);
                add_env(o, s->env_pass[i], what_of(pf, key, where, sizeof(where)), &from);
        }
        for (i = 0; i < s->n_env_set; i++) {
                (void) snprintf(key, sizeof(key), "env.set.%.*s",
                                (int) strcspn(s->env_set[i], "="), s->env_set[i]);
                from = at(pf, key);
                add_env(o, s->env_set[i], what_of(pf, key, where, sizeof(where)), &from);
        }
}

static void add_hosts(struct opts *o, const sbx_policy_file *pf, const sbx_policy_settings *s)
{
        char key[64];
        size_t i, k;

        for (i = 0; i < s->n_allow_hosts; i++) {
                for (k = 0; k < o->n_hosts; k++)
                        if (strcmp(o->allow_hosts[k], s->allow_hosts[i]) == 0)
                                break;
                if (k < o->n_hosts || o->n_hosts == MAX_HOSTS)
                        continue;
                (void) snprintf(key, sizeof(key), "network.allow_hosts[%zu]", i);
                o->host_from[o->n_hosts] = at(pf, key);
                o->allow_hosts[o->n_hosts++] = s->allow_hosts[i];
        }
}

/* A file the user named or keeps in their config: taken as written, under
 * the flags. */
static void apply_as_written(struct opts *o, const sbx_policy_file *pf)
{
        sbx_policy_settings s = SBX_POLICY_SETTINGS_INIT;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_policy_file_settings(pf, &s, &e) != SBX_OK)
                die_err(&e);
        if ((s.set & SBX_POLICY_SET_MODE) && !(o->seen & SEEN_MODE)) {
                o->mode = s.mode;
                o->mode_from = at(pf, "mode");
        }
        if ((s.set & SBX_POLICY_SET_WORKSPACE) && !(o->seen & SEEN_WORKSPACE)) {
                o->workspace_arg = s.workspace;
                o->workspace_from = at(pf, "workspace");
        }
        if ((s.set & SBX_POLICY_SET_NETWORK) && !(o->seen & SEEN_NETWORK)) {
                o->network = s.network;
                o->network_from = at(pf, "network.access");
        }
        if ((s.set & SBX_POLICY_SET_BACKEND) && !(o->seen & SEEN_BACKEND)) {
                o->backend = s.backend;
                o->backend_from = at(pf, "backend");
        }
        if ((s.set & SBX_POLICY_SET_MEMORY) && !(o->seen & SEEN_MEMORY)) {
                o->memory = s.memory_max;
                o->memory_from = at(pf, "limits.memory");
        }
        if ((s.set & SBX_POLICY_SET_PIDS) && !(o->seen & SEEN_PIDS)) {
                o->pids = s.pids_max;
                o->pids_from = at(pf, "limits.pids");
        }
        if ((s.set & SBX_POLICY_SET_TIMEOUT) && !(o->seen & SEEN_TIMEOUT)) {
                o->timeout_ms = s.timeout_ms;
                o->timeout_from = at(pf, "limits.timeout");
        }
        if ((s.set & SBX_POLICY_SET_FORCE_WORKSPACE) && !(o->seen & SEEN_FORCE_WORKSPACE)) {
                o->force_workspace = s.force_workspace;
                o->force_workspace_from = at(pf, "force_workspace");
        }
        if ((s.set & SBX_POLICY_SET_ACCEPT_UNPROTECTED_GIT) &&
            !(o->seen & SEEN_ACCEPT_UNPROTECTED_GIT)) {
                o->accept_unprotected_git = s.accept_unprotected_git;
                o->accept_unprotected_git_from = at(pf, "accept_unprotected_git");
        }
        add_paths(o, pf, "read_roots", s.read_roots, s.n_read_roots, 0);
        add_paths(o, pf, "write_roots", s.write_roots, s.n_write_roots, 1);
        add_paths(o, pf, "unix_sockets", s.unix_sockets, s.n_unix_sockets, -1);
        add_env_of(o, pf, &s, 1);
        add_hosts(o, pf, &s);
}

/* A project file sets key, which could widen the sandbox: exit 125. */
static void refuse(const sbx_policy_file *pf, const char *key, const char *why)
        __attribute__((noreturn));
static void refuse(const sbx_policy_file *pf, const char *key, const char *why)
{
        const char *name = sbx_policy_file_name(pf);

        say(SBX_E_INVALID, "%.300s:%u: %s: %s; a project policy file may only narrow the "
            "sandbox (the confined command can write it): pass --policy %.300s to use it as "
            "written, or --no-policy to skip it", name, (unsigned) sbx_policy_file_line(pf, key),
            key, why, name);
        exit(EXIT_FAIL);
}

/* A limit of the project file: the tighter of it and the run's. */
static void narrow_limit(const sbx_policy_file *pf, const char *key, uint64_t v,
                         uint64_t *cur, struct origin *from)
{
        if (*cur == 0 || v < *cur) {
                *cur = v;
                *from = at(pf, key);
        }
}

static void apply_project(struct opts *o, const sbx_policy_file *pf)
{
        static const struct { uint32_t bit; const char *key; } widening[] = {
                { SBX_POLICY_SET_WORKSPACE, "workspace" },
                { SBX_POLICY_SET_BACKEND, "backend" },
        };
        sbx_policy_settings s = SBX_POLICY_SETTINGS_INIT;
        sbx_error e = { 0, 0, { 0 } };
        int32_t net;
        size_t i;

        if (sbx_policy_file_settings(pf, &s, &e) != SBX_OK)
                die_err(&e);
        for (i = 0; i < sizeof(widening) / sizeof(widening[0]); i++)
                if (s.set & widening[i].bit)
                        refuse(pf, widening[i].key, "it is not the project's to set");
        if (s.n_read_roots > 0)
                refuse(pf, "read_roots", "it would make more of the host readable");
        if (s.n_write_roots > 0)
                refuse(pf, "write_roots", "it would make more of the host writable");
        if (s.n_unix_sockets > 0)
                refuse(pf, "unix_sockets", "it would open host services");
        if (s.n_env_pass > 0)
                refuse(pf, "env.pass", "it would pass your environment's values in");
        if (s.n_allow_hosts > 0)
                refuse(pf, "network.allow_hosts", "it would open the network to those hosts");
        if ((s.set & SBX_POLICY_SET_FORCE_WORKSPACE) && s.force_workspace)
                refuse(pf, "force_workspace", "it would allow a home or / as the workspace");
        if ((s.set & SBX_POLICY_SET_ACCEPT_UNPROTECTED_GIT) && s.accept_unprotected_git)
                refuse(pf, "accept_unprotected_git", "it would leave git unprotected");
        if ((s.set & SBX_POLICY_SET_MODE) && !(o->seen & SEEN_MODE)) {
                if (s.mode > o->mode) {
                        char why[160];

                        (void) snprintf(why, sizeof(why), "%s is wider than %s, the mode "
                                        "without it (--mode %s asks for it)",
                                        sbx_mode_name(s.mode), sbx_mode_name(o->mode),
                                        sbx_mode_name(s.mode));
                        refuse(pf, "mode", why);
                }
                o->mode = s.mode;
                o->mode_from = at(pf, "mode");
        }
        /* An unconfined run has nothing a network or a limit could narrow:
         * --mode danger-full-access (or the user's file) asked for that. */
        if (o->mode == SBX_MODE_DANGER_FULL_ACCESS) {
                add_env_of(o, pf, &s, 0);
                return;
        }
        if ((s.set & SBX_POLICY_SET_NETWORK) && !(o->seen & SEEN_NETWORK)) {
                net = o->network >= 0 ? o->network : SBX_ACCESS_DENY;
                if (s.network > net)
                        refuse(pf, "network.access", "allow is wider than deny, the network "
                               "without it (--network allow asks for it)");
                o->network = s.network;
                o->network_from = at(pf, "network.access");
        }
        if ((s.set & SBX_POLICY_SET_MEMORY) && !(o->seen & SEEN_MEMORY))
                narrow_limit(pf, "limits.memory", s.memory_max, &o->memory, &o->memory_from);
        if ((s.set & SBX_POLICY_SET_PIDS) && !(o->seen & SEEN_PIDS))
                narrow_limit(pf, "limits.pids", s.pids_max, &o->pids, &o->pids_from);
        if ((s.set & SBX_POLICY_SET_TIMEOUT) && !(o->seen & SEEN_TIMEOUT))
                narrow_limit(pf, "limits.timeout", s.timeout_ms, &o->timeout_ms,
                             &o->timeout_from);
        add_env_of(o, pf, &s, 0);
}

char *workspace_of(const struct opts *o)
{
        char cwd[SBX_PATH_MAX], what[400];

        if (o->workspace_arg != NULL) {
                if (o->workspace_from.pf != NULL)
                        return canonical_arg(what_of(o->workspace_from.pf, "workspace", what,
                                                     sizeof(what)), o->workspace_arg);
                return canonical_arg("--workspace", o->workspace_arg);
        }
        if (getcwd(cwd, sizeof(cwd)) == NULL)
                die(EXIT_FAIL, SBX_E_IO, "cannot determine the current directory "
                    "(use --workspace)");
        return canonical_arg("workspace", cwd);
}

void apply_policy_files(struct opts *o)
{
        char buf[SBX_PATH_MAX + 64];
        const char *path;
        sbx_policy_file *pf;
        char *ws;

        if (o->policy_arg != NULL) {
                pf = load(o->policy_arg, 1);
                keep(o, pf, "--policy");
                apply_as_written(o, pf);
                return;
        }
        if (o->no_policy)
                return;
        path = user_file(buf, sizeof(buf));
        if (path != NULL && (pf = load(path, 0)) != NULL) {
                keep(o, pf, "user file");
                apply_as_written(o, pf);
        }
        ws = workspace_of(o);
        (void) snprintf(buf, sizeof(buf), "%s%s" PROJECT_FILE, ws,
                        strcmp(ws, "/") == 0 ? "" : "/");
        sbx_free(ws);
        pf = load(buf, 0);
        if (pf != NULL) {
                keep(o, pf, "project file: may only narrow");
                apply_project(o, pf);
        }
}
