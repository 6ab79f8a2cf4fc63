/*
 * policyfile_build.c - reading a policy file (sbx_policy_file_load) and
 * what it makes: its profile (sbx_policy_file_profile,
 * sbx_profile_from_file/_string) and the environment entries of its
 * spawns (sbx_policy_file_env).  The schema is posix/policyfile.c's, the
 * document's free and getters policyfile_doc.c's.
 *
 * The profile is the mode's named profile (sbx__profile_mode_config) with
 * the file's keys applied, built by sbx_profile_new, which validates it.
 * The paths are canonicalised here first (this is the file system access
 * of this file), each error naming the file, line and key.
 * network.allow_hosts becomes the profile's allowlist (docs/network.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"
#include "profile/policyfile_internal.h"
#include "profile/profile_internal.h"

extern char **environ;

/* ------------------------------------------------------------- reading */

static ssize_t read_retry(int fd, char *buf, size_t n)
{
        ssize_t r;

        do
                r = read(fd, buf, n);
        while (r < 0 && errno == EINTR);
        return r;
}

sbx_code sbx_policy_file_load(const char *path, sbx_policy_file **out, sbx_error *err)
{
        const char *fn = "sbx_policy_file_load";
        char *msgname = NULL, *buf = NULL;
        size_t len = 0;
        struct stat st;
        int fd = -EBADF, e;
        sbx_code r;

        if (path == NULL || path[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: path is %s", fn,
                                 path == NULL ? "NULL" : "empty");
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        msgname = sbx__pf_message_name(path);
        if (msgname == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        /* O_NONBLOCK: a FIFO planted in its place must not hang the open. */
        do
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
                e = errno;
                r = sbx__fail(err, e == ENOENT ? SBX_E_NOT_FOUND : SBX_E_IO, e,
                              "%s: cannot open: %s", msgname, sbx__strerror(e));
                goto out;
        }
        if (fstat(fd, &st) < 0) {
                e = errno;
                r = sbx__fail(err, SBX_E_IO, e, "%s: cannot examine: %s", msgname, sbx__strerror(e));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s: not a regular file", msgname);
                goto out;
        }
        if (st.st_size > (off_t) SBX__PF_MAX_BYTES) {
                r = sbx__fail(err, SBX_E_RANGE, 0, "%s: larger than %u bytes", msgname,
                              SBX__PF_MAX_BYTES);
                goto out;
        }
        buf = malloc(SBX__PF_MAX_BYTES + 2);
        if (buf == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        /* Read to EOF: the file may have grown since fstat. */
        for (;;) {
                ssize_t n = read_retry(fd, buf + len, SBX__PF_MAX_BYTES + 1 - len);

                if (n < 0) {
                        e = errno;
                        r = sbx__fail(err, SBX_E_IO, e, "%s: cannot read: %s", msgname,
                                      sbx__strerror(e));
                        goto out;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > SBX__PF_MAX_BYTES) {
                        r = sbx__fail(err, SBX_E_RANGE, 0, "%s: larger than %u bytes",
                                      msgname, SBX__PF_MAX_BYTES);
                        goto out;
                }
        }
        buf[len] = '\0';
        r = sbx__pf_parse_text(fn, path, buf, len, out, err);
out:
        if (fd >= 0)
                (void) close(fd);
        free(buf);
        free(msgname);
        return r;
}

/* ------------------------------------------------------------- profile */

/* "<file>:<line>" of key, the `fn` of a canonicalisation message. */
static void where(const sbx_policy_file *pf, const char *msgname, const char *key, char *buf,
                  size_t sz)
{
        uint32_t line = sbx__pf_keys_line(&pf->keys, key);

        if (line > 0)
                (void) snprintf(buf, sz, "%s:%u", msgname, (unsigned) line);
        else
                (void) snprintf(buf, sz, "%s", msgname);
}

/* The canonical form of the path of key into out (SBX_PATH_MAX). */
static sbx_code canonical(const sbx_policy_file *pf, const char *msgname, const char *key,
                          const char *path, char *out, sbx_error *err)
{
        char fn[SBX__PF_NAME_KEEP + 32];

        where(pf, msgname, key, fn, sizeof(fn));
        return sbx__path_canonical_buf(fn, key, path, out, err);
}

/* The roots of the file, canonical and merged: a path in both lists is a
 * write root, and so is one that two spellings make the same. */
struct roots {
        sbx_root_access v[2 * SBX__PF_MAX_ROOTS];
        char           *paths[2 * SBX__PF_MAX_ROOTS];  /* malloc'd */
        size_t          n;
};

static sbx_code add_roots(const sbx_policy_file *pf, const char *msgname, const char *list,
                          const char *const *v, size_t n, int write, const char *ws,
                          sbx_profile_config *cfg, struct roots *r, sbx_error *err)
{
        char key[64], buf[SBX_PATH_MAX];
        size_t i, k;
        sbx_code c;

        for (i = 0; i < n; i++) {
                (void) snprintf(key, sizeof(key), "%s[%zu]", list, i);
                c = canonical(pf, msgname, key, v[i], buf, err);
                if (c != SBX_OK)
                        return c;
                if (strcmp(buf, ws) == 0) {
                        /* The workspace itself: readable already. */
                        if (write)
                                cfg->workspace_write = SBX_ACCESS_ALLOW;
                        continue;
                }
                for (k = 0; k < r->n; k++)
                        if (strcmp(r->paths[k], buf) == 0)
                                break;
                if (k == r->n) {
                        r->paths[k] = sbx__strdup(buf);
                        if (r->paths[k] == NULL)
                                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory",
                                                 msgname);
                        r->v[k].path = r->paths[k];
                        r->v[k].read = SBX_ACCESS_ALLOW;
                        r->v[k].write = SBX_ACCESS_DENY;
                        r->n++;
                }
                if (write)
                        r->v[k].write = SBX_ACCESS_ALLOW;
        }
        return SBX_OK;
}

static sbx_code build(const char *fn, const sbx_policy_file *pf, const char *msgname,
                      const char *workspace_root, sbx_profile **out, sbx_error *err)
{
        const sbx_policy_settings *s = &pf->s;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        char ws[SBX_PATH_MAX];
        struct roots *r = NULL;
        char (*socks)[SBX_PATH_MAX] = NULL;     /* SBX__PF_MAX_UNIX of them */
        const char *sockv[SBX__PF_MAX_UNIX];
        int32_t mode = (s->set & SBX_POLICY_SET_MODE) ? s->mode : SBX_MODE_READ_ONLY;
        size_t i, k, n_socks = 0;
        sbx_code c;

        if (workspace_root != NULL) {
                c = sbx__path_canonical_buf(fn, "workspace_root", workspace_root, ws, err);
        } else if (pf->workspace != NULL) {
                c = canonical(pf, msgname, "workspace", pf->workspace, ws, err);
        } else {
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: no workspace: %s sets none and "
                                 "workspace_root is NULL", fn, msgname);
        }
        if (c != SBX_OK)
                return c;
        c = sbx__profile_mode_config(fn, mode, &cfg, err);
        if (c != SBX_OK)
                return c;
        cfg.workspace_root = ws;
        if (mode == SBX_MODE_DANGER_FULL_ACCESS)
                return sbx_profile_new(&cfg, out, err);  /* parsing refused the rest */
        r = calloc(1, sizeof(*r));
        socks = calloc(SBX__PF_MAX_UNIX, sizeof(*socks));
        if (r == NULL || socks == NULL) {
                c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        if (s->set & SBX_POLICY_SET_NETWORK)
                cfg.network = s->network;
        c = add_roots(pf, msgname, "read_roots", s->read_roots, s->n_read_roots, 0, ws, &cfg, r,
                      err);
        if (c == SBX_OK)
                c = add_roots(pf, msgname, "write_roots", s->write_roots, s->n_write_roots, 1,
                              ws, &cfg, r, err);
        if (c != SBX_OK)
                goto out;
        for (i = 0; i < s->n_unix_sockets; i++) {
                char key[64];

                (void) snprintf(key, sizeof(key), "unix_sockets[%zu]", i);
                c = canonical(pf, msgname, key, s->unix_sockets[i], socks[n_socks], err);
                if (c != SBX_OK)
                        goto out;
                for (k = 0; k < n_socks; k++)
                        if (strcmp(socks[k], socks[n_socks]) == 0)
                                break;
                if (k == n_socks) {
                        sockv[n_socks] = socks[n_socks];
                        n_socks++;
                }
        }
        cfg.additional_roots = r->n > 0 ? r->v : NULL;
        cfg.n_additional_roots = r->n;
        cfg.unix_sockets = n_socks > 0 ? sockv : NULL;
        cfg.n_unix_sockets = n_socks;
        cfg.force_workspace = s->force_workspace;
        cfg.accept_unprotected_git = s->accept_unprotected_git;
        cfg.allow_hosts = s->n_allow_hosts > 0 ? s->allow_hosts : NULL;
        cfg.n_allow_hosts = s->n_allow_hosts;
        c = sbx_profile_new(&cfg, out, err);
out:
        for (i = 0; r != NULL && i < r->n; i++)
                free(r->paths[i]);
        free(r);
        free(socks);
        return c;
}

sbx_code sbx_policy_file_profile(const sbx_policy_file *pf, const char *workspace_root,
                                 sbx_profile **out, sbx_error *err)
{
        const char *fn = "sbx_policy_file_profile";
        char *msgname;
        sbx_code c;

        if (pf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: pf is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        msgname = sbx__pf_message_name(pf->name);
        if (msgname == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        c = build(fn, pf, msgname, workspace_root, out, err);
        free(msgname);
        return c;
}

sbx_code sbx_policy_file_env(const sbx_policy_file *pf, const char *const *envp, char ***out,
                             size_t *n_out, sbx_error *err)
{
        const char *fn = "sbx_policy_file_env";
        struct sbx__strv v = SBX__STRV_INIT;
        size_t i, k;
        char **res;

        if (pf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: pf is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (envp == NULL)
                envp = (const char *const *) environ;
        for (i = 0; i < pf->s.n_env_pass; i++) {
                const char *name = pf->s.env_pass[i];
                size_t nl = strlen(name);
                int replaced = 0;

                /* env.set replaces a passed variable of the same name. */
                for (k = 0; k < pf->s.n_env_set; k++)
                        if (strncmp(pf->s.env_set[k], name, nl) == 0 &&
                            pf->s.env_set[k][nl] == '=')
                                replaced = 1;
                for (k = 0; !replaced && envp != NULL && envp[k] != NULL; k++)
                        if (strncmp(envp[k], name, nl) == 0 && envp[k][nl] == '=') {
                                sbx__strv_push(&v, envp[k]);
                                break;
                        }
        }
        for (i = 0; i < pf->s.n_env_set; i++)
                sbx__strv_push(&v, pf->s.env_set[i]);
        res = sbx__strv_finish(&v, n_out);
        if (res == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        *out = res;
        return SBX_OK;
}

sbx_code sbx_profile_from_file(const char *path, const char *workspace_root,
                               sbx_profile **out, sbx_error *err)
{
        sbx_policy_file *pf = NULL;
        sbx_code c;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_profile_from_file: out is NULL");
        c = sbx_policy_file_load(path, &pf, err);
        if (c == SBX_OK)
                c = sbx_policy_file_profile(pf, workspace_root, out, err);
        sbx_policy_file_free(pf);
        return c;
}

sbx_code sbx_profile_from_string(const char *text, const char *name_for_errors,
                                 const char *workspace_root, sbx_profile **out,
                                 sbx_error *err)
{
        sbx_policy_file *pf = NULL;
        sbx_code c;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_profile_from_string: out is NULL");
        c = sbx_policy_file_parse(text, name_for_errors, &pf, err);
        if (c == SBX_OK)
                c = sbx_policy_file_profile(pf, workspace_root, out, err);
        sbx_policy_file_free(pf);
        return c;
}
