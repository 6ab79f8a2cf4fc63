/*
 * policyfile_internal.h - the policy file's private representation and the
 * key-line scanner (policyfile_scan.c), shared by policyfile.c,
 * policyfile_doc.c and policyfile_build.c.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_POLICYFILE_INTERNAL_H
#define SBX_POLICYFILE_INTERNAL_H

#include "core/internal.h"

/* A policy file is at most this large (SBX_E_RANGE beyond). */
#define SBX__PF_MAX_BYTES (1u << 20)

/* Most entries a list may hold: the roots as a profile's, unix sockets as
 * a profile's, env entries as sbx_spawn's env_set, hosts. */
#define SBX__PF_MAX_ROOTS 256
#define SBX__PF_MAX_UNIX 64
#define SBX__PF_MAX_ENV 256
#define SBX__PF_MAX_HOSTS 256

/* The longest key the scanner accepts, and the deepest key it records:
 * the schema's deepest keys (env.set.NAME, network.allow_hosts[i]) are at
 * depth 3, and a deeper one is inside a value that is already wrong. */
#define SBX__PF_MAX_KEY 255
#define SBX__PF_MAX_DEPTH 4
/* Most members one object may have (duplicates are found pairwise). */
#define SBX__PF_MAX_MEMBERS 1024

/* One member or array entry of the document and its line. */
struct sbx__pf_key {
        char    *path;          /* "mode", "env.set.CI", "read_roots[0]", "" (the root) */
        uint32_t line;          /* from 1 */
};

struct sbx__pf_keys {
        struct sbx__pf_key *v;
        size_t n, cap;
};

/*
 * Scan text[0..len) -- which json-c accepted -- and record the line of
 * every member and array entry up to SBX__PF_MAX_DEPTH, refusing what
 * json-c lets through but JSON is not: a duplicated key, a single-quoted
 * key, a raw control character in a string, a key holding \u0000, NaN and
 * Infinity.  name is the file's name for messages
 * ("<name>:<line>: <key>: <problem>").  Errors: SBX_E_INVALID,
 * SBX_E_NOMEM.  out is filled either way (free with sbx__pf_keys_free).
 */
sbx_code sbx__pf_scan(const char *name, const char *text, size_t len, struct sbx__pf_keys *out,
                      sbx_error *err);
void sbx__pf_keys_free(struct sbx__pf_keys *k);
/* The line of path, or 0. */
uint32_t sbx__pf_keys_line(const struct sbx__pf_keys *k, const char *path);

/* A file name as messages show it: a long one cut to "..." and its last
 * SBX__PF_NAME_KEEP bytes (so that the line and the key always fit in
 * SBX_ERROR_SIZE), anything but printable ASCII as '?'.  malloc'd; NULL
 * when out of memory. */
#define SBX__PF_NAME_KEEP 96
char *sbx__pf_message_name(const char *name);

/* A document from text[0..len) under name (policyfile_parse.c): the scan,
 * the schema, the settings.  *out only on success; fn names the public
 * function in an out-of-memory message. */
sbx_code sbx__pf_parse_text(const char *fn, const char *name, const char *text, size_t len,
                            sbx_policy_file **out, sbx_error *err);

/* The line (from 1) of text[off] (policyfile_scan.c). */
uint32_t sbx__pf_line_of(const char *text, size_t off);

/* The platform's schema: fill pf (its settings initialised) from the
 * NUL-free text[0..len), errors naming msgname.  posix/policyfile.c
 * (json-c); win32/policyfile.c: SBX_E_UNSUPPORTED, pf untouched. */
sbx_code sbx__pf_parse_document(sbx_policy_file *pf, const char *msgname, const char *text,
                                size_t len, sbx_error *err);

struct sbx_policy_file {
        char               *name;
        struct sbx__pf_keys keys;
        sbx_policy_settings s;          /* points into the fields below */
        char               *workspace;
        char              **read_roots; /* NULL-terminated, or NULL */
        char              **write_roots;
        char              **unix_sockets;
        char              **env_pass;
        char              **env_set;
        char              **allow_hosts;
};

#endif /* SBX_POLICYFILE_INTERNAL_H */
