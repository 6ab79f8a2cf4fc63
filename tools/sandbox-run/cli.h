/*
 * cli.h - what the files of sandbox-run share: the options (options.c),
 * where each value came from (flag, policy file, default), the policy
 * files (policy.c), messages and JSON (explain.c).  main.c builds the
 * profile and runs the command.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SANDBOX_RUN_CLI_H
#define SANDBOX_RUN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sandbox.h>

#define EXIT_FAIL    SBX_EXIT_RUNNER_FAILURE   /* 125 */
#define EXIT_NOEXEC  126
#define EXIT_NOTFOUND 127
#define MAX_EXTRA    256
#define MAX_UNIX     64                        /* as many as a profile holds */
#define MAX_ENV      256                       /* as many as sbx_spawn takes */
#define MAX_HOSTS    256
#define MAX_FILES    2                         /* the user file and the project file */

/* Where a value came from: a flag, a line of a policy file, or neither
 * (the default, whose text the printer supplies). */
struct origin {
        const char *flag;               /* "--mode", or NULL */
        const sbx_policy_file *pf;      /* or the file ... */
        uint32_t line;                  /* ... and its line (0: unknown) */
};

struct extra_root {
        char *path;             /* canonical, sbx_free */
        int   write;
        int   toolchain;        /* 1: added from the toolchain list only */
        int   flagged;          /* 1: a flag names it (it must exist) */
        struct origin from;     /* of the write when it is a write root */
};

/* A policy file in use, and why. */
struct loaded {
        sbx_policy_file *pf;
        const char *kind;       /* "explicit", "user", "project" */
};

struct opts {
        int32_t mode;
        struct origin mode_from;
        const char *workspace_arg;      /* --workspace, or a file's workspace */
        struct origin workspace_from;
        int32_t network;        /* -1 = not given */
        struct origin network_from;
        int32_t backend;        /* -1 = not given */
        struct origin backend_from;
        struct extra_root extra[MAX_EXTRA];
        size_t n_extra;
        uint64_t memory;
        uint64_t pids;
        uint64_t timeout_ms;    /* --timeout: 0 = none */
        struct origin memory_from, pids_from, timeout_from;
        int explain;
        int json;
        const char *cwd_arg;    /* --cwd DIR, or NULL */
        int allow_missing;      /* --allow-missing: --allow-read/-write may name nothing */
        int no_toolchains;      /* --no-toolchains: HOME's toolchains stay hidden too */
        int observe_reads;      /* --observe-reads (or --json): reads are watched too */
        unsigned seen;          /* single-valued options given (SEEN_*) */
        int force_workspace;    /* --force-workspace: allow /, a home or its ancestor */
        int accept_unprotected_git;     /* --accept-unprotected-git */
        struct origin force_workspace_from, accept_unprotected_git_from;
        char *unix_sockets[MAX_UNIX];   /* --allow-unix, canonical, sbx_free */
        struct origin unix_from[MAX_UNIX];
        size_t n_unix;
        char *env_set[MAX_ENV];         /* --env / --env-file / files: "NAME=VALUE", free */
        struct origin env_from[MAX_ENV];
        size_t n_env;
        const char *allow_hosts[MAX_HOSTS];     /* --allow-host, files: borrowed */
        struct origin host_from[MAX_HOSTS];
        size_t n_hosts;
        const char *policy_arg;         /* --policy FILE */
        const char *upstream;           /* --upstream-proxy HOST:PORT */
        int no_policy;                  /* --no-policy */
        struct loaded files[MAX_FILES];
        size_t n_files;
        char **command;
};

/* Options that take one value: given twice is an error, not "the last wins". */
enum { SEEN_MODE = 1u << 0, SEEN_WORKSPACE = 1u << 1, SEEN_NETWORK = 1u << 2,
       SEEN_BACKEND = 1u << 3, SEEN_MEMORY = 1u << 4, SEEN_PIDS = 1u << 5,
       SEEN_TIMEOUT = 1u << 6, SEEN_CWD = 1u << 7, SEEN_POLICY = 1u << 8,
       SEEN_FORCE_WORKSPACE = 1u << 9, SEEN_ACCEPT_UNPROTECTED_GIT = 1u << 10,
       SEEN_UPSTREAM = 1u << 11 };

/* ------------------------------------------------------------ explain.c */

extern int json_mode;

/* JSON with json-c: constructors that record a failed allocation, jset /
 * jpush that take ownership of the value, and json_emit, which prints one
 * line (or, after any failure, only the no-memory error, and exits). */
struct json_object;
struct json_object *jobj(void);
struct json_object *jarr(void);
struct json_object *jint(int64_t v);
struct json_object *ju64(uint64_t v);
struct json_object *jbool(int v);
/* NULL str: a JSON null. */
struct json_object *jstr(const char *str);
void jset(struct json_object *obj, const char *key, struct json_object *v);
void jpush(struct json_object *arr, struct json_object *v);
void json_emit(FILE *f, struct json_object *obj);
/* raw as one printable line in out (size > 4): a control byte, a C1
 * control, a bidi override or a byte that is not UTF-8 escaped. */
void printable_line(const char *raw, char *out, size_t size);
/* After the run (report.c): the JSON result object (--json) or the
 * model-facing lines; the denial class the events show (NONE if none). */
int32_t report_run(const sbx_child *child, int status, uint32_t observed, const char *backend);
/* sandbox-run's own one-line message on stderr (JSON with --json). */
void say(int32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void die(int status, int32_t code, const char *msg) __attribute__((noreturn));
void die_err(const sbx_error *e) __attribute__((noreturn));
/* "FILE:LINE", the flag, or dflt, into buf. */
const char *origin_text(const struct origin *o, const char *dflt, char *buf, size_t sz);
void print_shell_word(FILE *f, const char *s);

struct explain {
        const struct opts *o;
        const sbx_profile *profile;
        const char *ws;
        int32_t network;                /* sbx_access */
        const char *backend;            /* name, or NULL for none */
        int32_t enforcement;
        uint32_t required, achieved;
        const char *const *argv;        /* the confined argv, or NULL */
        const char *plan_text;
        int limits_known;               /* limits: what a spawn with them got */
        sbx_limits_report limits;
};

void print_explain(const struct explain *x);

/* ------------------------------------------------------------ options.c */

void parse_args(int argc, char **argv, struct opts *o);
/* An absolute, canonical spelling of a path (relative: to the current
 * directory); what names it in an error, which exits 125. */
char *canonical_arg(const char *what, const char *arg);
/* Add a root; a later write makes it a write root (from then names it). */
void add_extra(struct opts *o, char *canonical_path, int write, const struct origin *from);
void add_unix(struct opts *o, char *canonical_path, const struct origin *from);
void add_host(struct opts *o, const char *host, const struct origin *from);
/* Add "NAME=VALUE" (or NAME, its value here); where names it in an error.
 * replace: a later entry for a name replaces an earlier one, except that
 * an entry from a file never replaces a flag's. */
void add_env(struct opts *o, const char *arg, const char *where, const struct origin *from);

/* ------------------------------------------------------------- policy.c */

/*
 * Read the policy files (--policy FILE alone; otherwise the user file,
 * then the project file of the workspace, unless --no-policy) and merge
 * them under the flags already in o.  Exits 125 on any error, and when a
 * project file would widen the sandbox (docs/policy-file.md).
 */
void apply_policy_files(struct opts *o);
/* The workspace the run uses before files are read: --workspace, else the
 * current directory (canonical, sbx_free). */
char *workspace_of(const struct opts *o);

#endif /* SANDBOX_RUN_CLI_H */
