/*
 * profile_internal.h - the profile's private representation, shared with
 * the compile layer and the backends.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_PROFILE_INTERNAL_H
#define SBX_PROFILE_INTERNAL_H

#include "core/internal.h"

/* At most this many additional roots in a profile (sbx_profile_new and the
 * result of sbx_profile_restrict): SBX_E_RANGE beyond. */
#define SBX__PROFILE_MAX_ROOTS 256

/* The longest command.execute scope, in bytes (sandbox.h). */
#define SBX__COMMAND_MAX 65536

/* At most this many unix sockets in a profile: SBX_E_RANGE beyond. */
#define SBX__PROFILE_MAX_UNIX_SOCKETS 64
#define SBX__PROFILE_MAX_ALLOW_HOSTS  1024

/* At most this many hidden secret locations in a profile (secrets.c):
 * SBX_E_RANGE beyond, rather than a profile that hides less. */
#define SBX__PROFILE_MAX_SECRETS 4096

/* One configured additional root (canonical path, its own access). */
struct sbx_profile_root {
        char   *path;
        int32_t read;           /* sbx_access */
        int32_t write;          /* sbx_access, <= read */
};

/*
 * One well-known secret location of a home directory that lies inside a
 * configured root (secrets.c, docs/secrets.md): the plan hides it and all
 * below it (a tree rule with access 0) where the plan makes it readable.
 */
struct sbx_profile_secret {
        char   *path;           /* canonical absolute */
        char   *home;           /* the home directory it belongs to (canonical) */
        int32_t account;        /* 1: home is the account's own (password database) */
};

/*
 * A validated, immutable profile.  Every field is normalized: the roots are
 * sorted by strcmp(path) and never include the workspace root; an
 * unconfined profile has every filesystem/network field Allow; the unix
 * sockets and the secrets are sorted by strcmp(path) without duplicates.
 */
struct sbx_profile {
        char   *workspace_root;         /* canonical */
        int32_t workspace_read;
        int32_t workspace_write;
        int32_t host_read;
        int32_t host_write;
        int32_t network;
        int32_t command;
        int32_t home;                   /* sbx_home */
        int32_t isolation;              /* sbx_isolation */
        int32_t ack_unconfined;         /* 0 or 1 */
        struct sbx_profile_root *roots; /* sorted by path */
        size_t  n_roots;
        sbx_root_access *view;          /* n_roots entries for sbx_profile_config_get */
        /* version 2 of the config */
        int32_t force_workspace;        /* 0 or 1 */
        int32_t accept_unprotected_git; /* 0 or 1 */
        char  **unix_sockets;           /* sorted, canonical; NULL when none */
        size_t  n_unix_sockets;
        /* version 3: the network allowlist, canonical rule spellings
         * (policy/netrule.h), sorted; NULL when none (allowlist.c) */
        char  **allow_hosts;
        size_t  n_allow_hosts;
        /* derived from the host when the profile was built (secrets.c) */
        struct sbx_profile_secret *secrets;     /* sorted by path */
        size_t  n_secrets;
};

/* Internal accessors of the version-2 fields (for the backends). */
int32_t sbx__profile_force_workspace(const sbx_profile *p);
int32_t sbx__profile_accept_unprotected_git(const sbx_profile *p);
/* The unix sockets (borrowed, sorted), *n_out their number (n_out may be
 * NULL); NULL when there are none. */
const char *const *sbx__profile_unix_sockets(const sbx_profile *p, size_t *n_out);
/* allowlist.c: the allowlist (borrowed, canonical, sorted); NULL when none. */
const char *const *sbx__profile_allow_hosts(const sbx_profile *p, size_t *n_out);
/* Check in[0..n) (a config's allow_hosts) under network / isolation and
 * build its canonical, sorted copy into *out (NULL when n is 0). */
sbx_code sbx__profile_allow_build(const char *fn, const char *const *in, size_t n,
                                  int32_t network, int32_t isolation, char ***out,
                                  size_t *n_out, sbx_error *err);
void sbx__profile_allow_free(char **v, size_t n);
/* The allowlist a restriction of base by ceiling keeps, borrowed into out
 * (room for base's and ceiling's entries); its length. */
size_t sbx__profile_allow_restrict(const sbx_profile *base, const sbx_profile *ceiling,
                                   const char **out);

/*
 * The access a canonical path has for reading (write = 0) or writing
 * (write = 1): the deepest configured root containing it (additional roots
 * and the workspace root) wins, else the host access.  Pure.
 */
int32_t sbx__profile_path_access(const sbx_profile *p, const char *path, int write);

/*
 * The deepest configured root (the workspace root or an additional root)
 * containing the canonical path, or NULL when only the host access applies.
 * Borrowed.  Pure.
 */
const char *sbx__profile_deepest_root(const sbx_profile *p, const char *path);

/* ----------------------------------------------------------- secrets.c */

/* An explicit set of home directories (canonical absolute paths, taken as
 * given: they need not exist), in place of the host's. */
struct sbx__home_set {
        const char *const *homes;
        size_t n;
};

/*
 * The broad-workspace check and the secret locations of sbx_profile_new
 * (file system access: HOME, the password database, /etc/passwd, lstat):
 * refuses a workspace root that is "/", a home directory or an ancestor of
 * one unless p->force_workspace (SBX_E_INVALID naming force_workspace), and
 * fills p->secrets.  p is fully built otherwise.  homes NULL: the host's
 * homes; otherwise exactly those, each treated as the caller's own (every
 * table entry).  Errors: SBX_E_INVALID, SBX_E_IO (HOME or /etc/passwd
 * cannot be examined), SBX_E_RANGE, SBX_E_NOMEM.
 */
sbx_code sbx__profile_find_secrets(const char *fn, sbx_profile *p,
                                   const struct sbx__home_set *homes, sbx_error *err);

/* sbx_profile_new with the home set given instead of read from the host,
 * so that tests (the plan goldens) control it.  Not for production use. */
sbx_code sbx__profile_new_with_homes(const sbx_profile_config *cfg, const char *const *homes,
                                     size_t n_homes, sbx_profile **out, sbx_error *err);

/* 1 if the plan of p hides secret s (docs/secrets.md): the plan makes it
 * readable (read Allow) through a configured root, and it is not inside
 * the account's home while an isolated HOME hides that home wholesale.
 * Pure. */
int sbx__profile_secret_applies(const sbx_profile *p, const struct sbx_profile_secret *s);

/* Free n secrets and the array (NULL-safe). */
void sbx__profile_secrets_free(struct sbx_profile_secret *v, size_t n);

/* The union of a's and b's secrets into *out (sorted, no duplicates).
 * 0, -ENOMEM or -ERANGE (more than SBX__PROFILE_MAX_SECRETS). */
int sbx__profile_secrets_union(const sbx_profile *a, const sbx_profile *b,
                               struct sbx_profile_secret **out, size_t *n_out);

/* The number of entries of the secret table and entry i's suffix below a
 * home ("/.ssh") and whether it is a directory (for docs and tests). */
size_t sbx__secret_table_size(void);
const char *sbx__secret_table_entry(size_t i, int32_t *dir_out);

enum path_syntax {
        PATH_OK = 0,
        PATH_EMPTY,
        PATH_RELATIVE,
        PATH_TOO_LONG,
        PATH_TRAILING_SLASH,
        PATH_EMPTY_COMPONENT,
        PATH_DOT,
        PATH_DOTDOT
};

/* The configuration of a mode's named profile (sbx_profile_from_mode's
 * table) without a workspace root: SBX_E_INVALID (naming fn) for anything
 * but the three modes; *cfg is written only on success. */
sbx_code sbx__profile_mode_config(const char *fn, int32_t mode, sbx_profile_config *cfg,
                                  sbx_error *err);

/* The network scope grammar of access.c, shared with the policy file's
 * allow_hosts: a DNS name or strict dotted-quad IPv4 address of n bytes
 * (a name whose last label is numeric must be an IPv4 address), and a
 * decimal port 1..65535 without sign or leading zero.  1 if valid. */
int sbx__net_host_ok(const char *h, size_t n);
int sbx__net_port_ok(const char *s);

/* "isolated" | "real", "sandboxed" | "unconfined"; "invalid" otherwise. */
const char *sbx__profile_home_name(int32_t h);
const char *sbx__profile_isolation_name(int32_t i);

/* query.c, shared by the profile files. */
const char *sbx__path_syntax_text(enum path_syntax s);
enum path_syntax sbx__path_syntax(const char *path);
const char *sbx__printable(const char *s, char *buf, size_t bufsz);

#endif /* SBX_PROFILE_INTERNAL_H */
