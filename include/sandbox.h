/*
 * sandbox.h - the one public header of libsandbox.
 *
 * libsandbox confines the commands an AI coding agent runs.  An agent host
 * decides *whether* a tool call may run (approval); libsandbox decides *what
 * it can touch* and says honestly what it enforced.
 *
 * Conventions (see docs/api.md for the long form):
 *   - Every fallible function returns an sbx_code (0 = SBX_OK) and takes an
 *     optional `sbx_error *err` as its last argument (may be NULL).
 *   - Outputs are written only on success.
 *   - A filled `**out` belongs to the caller and is released with the
 *     matching sbx_*_free(); every *_free(NULL) is a no-op.  Memory the
 *     library allocates for plain strings is released with sbx_free().
 *   - `const char *` returned by a getter is borrowed from its object.
 *   - Transparent structs start with `uint32_t version`; initialise them
 *     with their SBX_*_INIT macro, or (from a binding generator, which
 *     cannot expand macros) the matching sbx_*_init() function.
 *   - Enumerations are passed and stored as int32_t; an out-of-range value
 *     is rejected with SBX_E_INVALID, never clamped.
 *
 * Copyright 2026 The libsandbox authors.  SPDX-License-Identifier: Apache-2.0
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- export */

#if defined(_WIN32)
#  if defined(SBX_STATIC)
#    define SBX_API
#  elif defined(SBX_BUILDING)
#    define SBX_API __declspec(dllexport)
#  else
#    define SBX_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define SBX_API __attribute__((visibility("default")))
#else
#  define SBX_API
#endif

/* --------------------------------------------------------------- version */

#define SBX_VERSION_MAJOR 0
#define SBX_VERSION_MINOR 1
#define SBX_VERSION_PATCH 0
#define SBX_VERSION_NUM \
        ((SBX_VERSION_MAJOR << 16) | (SBX_VERSION_MINOR << 8) | SBX_VERSION_PATCH)
#define SBX_VERSION_AT_LEAST(major, minor, patch) \
        (SBX_VERSION_NUM >= (((major) << 16) | ((minor) << 8) | (patch)))

/* The version of the library actually linked, e.g. "0.1.0".  Never NULL.
 * Thread-safety: safe.  Since: 0.1. */
SBX_API const char *sbx_version_string(void);

/* ---------------------------------------------------------------- errors */

/*
 * X(name, value, text).  Append-only: a value is never reused or renumbered.
 */
#define SBX_CODE_MAP(X) \
        X(OK,                         0, "success") \
        X(E_INVALID,                  1, "invalid argument") \
        X(E_NOMEM,                    2, "out of memory") \
        X(E_INTERNAL,                 3, "internal error") \
        X(E_SANDBOX_UNAVAILABLE,      4, "no sandbox backend can enforce the policy") \
        X(E_TOO_LATE,                 5, "too late: backend detection already ran") \
        X(E_IO,                       6, "input/output error") \
        X(E_CORRUPT,                  7, "corrupt record") \
        X(E_NOT_FOUND,                8, "not found") \
        X(E_RANGE,                    9, "value or buffer out of range") \
        X(E_UNSUPPORTED,             10, "unsupported") \
        X(E_DANGER_NOT_CONFINABLE,   11, "danger-full-access cannot be confined") \
        X(E_ESCALATION_NOT_WIDER,    12, "escalation target is not strictly wider") \
        X(E_ESCALATION_INVALID_ARGS, 13, "escalation target and justification must come together") \
        X(E_ESCALATION_NO_APPROVER,  14, "no escalation approver") \
        X(E_ESCALATION_DENIED,       15, "escalation denied") \
        X(E_ESCALATION_TIMED_OUT,    16, "escalation approval timed out") \
        X(E_ESCALATION_CANCELLED,    17, "escalation approval cancelled") \
        X(E_GRANT_REQUIRED,          18, "a gated capability needs a grant") \
        X(E_GRANT_DENIED,            19, "the capability is denied; no grant can open it") \
        X(E_GRANT_UNSUPPORTED,       20, "the capability needs no grant or the class is unsupported") \
        X(E_GRANT_EXPIRED,           21, "grant expired") \
        X(E_GRANT_REPLAY,            22, "grant already used") \
        X(E_GRANT_WRONG_COMMAND,     23, "grant bound to another command") \
        X(E_GRANT_WRONG_EXECUTION,   24, "grant bound to another execution") \
        X(E_GRANT_WRONG_WORKING_DIRECTORY, 25, "grant bound to another working directory") \
        X(E_GRANT_TARGET_CHANGED,    26, "granted target changed since approval") \
        X(E_GRANT_UNKNOWN,           27, "unknown grant token") \
        X(E_CLOSED,                  28, "the executor set is closed")

typedef enum sbx_code {
#define SBX__CODE_ENUM(name, value, text) SBX_##name = value,
        SBX_CODE_MAP(SBX__CODE_ENUM)
#undef SBX__CODE_ENUM
} sbx_code;

#define SBX_ERROR_SIZE 256

/* Filled by the library on failure.  Caller-allocated, no heap, no TLS. */
typedef struct sbx_error {
        int32_t code;                   /* an sbx_code, equal to the return value */
        int32_t sys_errno;              /* 0 unless the OS refused */
        char    message[SBX_ERROR_SIZE];/* NUL-terminated, names the step/argument */
} sbx_error;

/* "SBX_E_INVALID" etc.; "SBX_E_UNKNOWN" for values not in the map.  Never NULL. */
SBX_API const char *sbx_code_name(int32_t code);
/* Human-readable text for a code; "unknown error" for values not in the map. */
SBX_API const char *sbx_strerror(int32_t code);
/* Release memory the library allocated for a plain string or buffer.  NULL-safe. */
SBX_API void sbx_free(void *ptr);
/* Release a NULL-terminated string vector the library allocated.  NULL-safe. */
SBX_API void sbx_strv_free(char **strv);

/* ----------------------------------------------------------------- modes */

/*
 * The three sandbox modes.  0 is "no mode" (used for optional overrides) and
 * is never a valid mode.
 */
typedef enum sbx_mode {
        SBX_MODE_NONE               = 0,
        SBX_MODE_READ_ONLY          = 1,  /* "read-only" */
        SBX_MODE_WORKSPACE_WRITE    = 2,  /* "workspace-write" */
        SBX_MODE_DANGER_FULL_ACCESS = 3   /* "danger-full-access" */
} sbx_mode;

/* Parse "read-only" | "workspace-write" | "danger-full-access" (exact,
 * case-sensitive).  Errors: SBX_E_INVALID.  Since: 0.1. */
SBX_API sbx_code sbx_mode_parse(const char *text, int32_t *mode_out, sbx_error *err);
/* The canonical name of a mode; "invalid" for anything else.  Never NULL. */
SBX_API const char *sbx_mode_name(int32_t mode);
/* 1 if mode is one of the three modes, else 0. */
SBX_API int sbx_mode_is_valid(int32_t mode);

/* -------------------------------------------------- session mode events */

typedef enum sbx_mode_source {
        SBX_MODE_SOURCE_USER       = 1,   /* "user" */
        SBX_MODE_SOURCE_DELEGATION = 2,   /* "delegation": a sub-agent set it */
        SBX_MODE_SOURCE_ESCALATION = 3    /* "escalation" */
} sbx_mode_source;

SBX_API sbx_code sbx_mode_source_parse(const char *text, int32_t *source_out, sbx_error *err);
/* "user" | "delegation" | "escalation"; "invalid" otherwise.  Never NULL. */
SBX_API const char *sbx_mode_source_name(int32_t source);

/* One `sandbox/mode` session event. */
typedef struct sbx_mode_event {
        uint32_t version;               /* SBX_MODE_EVENT_VERSION */
        int32_t  mode;                  /* sbx_mode, never NONE */
        int32_t  source;                /* sbx_mode_source */
        int64_t  timestamp_ms;          /* Unix time in milliseconds, >= 0 */
} sbx_mode_event;
#define SBX_MODE_EVENT_VERSION 1u
#define SBX_MODE_EVENT_INIT { SBX_MODE_EVENT_VERSION, SBX_MODE_NONE, 0, 0 }
/* Fill *event as SBX_MODE_EVENT_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_mode_event_init(sbx_mode_event *event);

/*
 * The effective-mode fold: the mode of the last event (last wins).
 * Returns SBX_OK and sets *mode_out, or SBX_E_NOT_FOUND when n == 0.
 * Errors: SBX_E_INVALID if events is NULL with n > 0, or any event is
 * malformed (a malformed event is never skipped).  Thread-safety: pure.
 */
SBX_API sbx_code sbx_mode_events_effective(const sbx_mode_event *events, size_t n,
                                           int32_t *mode_out, sbx_error *err);

/* ---------------------------------------------------- durable session log */

/*
 * An append-only JSON Lines file of sandbox/mode events.  Each append is one
 * write(2) of one complete line followed by fsync(2).  Opening replays the
 * file: a torn last line (no newline, a crash mid-write) is reported and cut
 * off; a complete record is never dropped; a corrupt line anywhere else is
 * SBX_E_CORRUPT with the line number in the message.
 *
 * Record format (one per line):
 *   {"type":"sandbox/mode","mode":"workspace-write","source":"user","ts":1700000000000}
 */
typedef struct sbx_session_log sbx_session_log;

typedef struct sbx_session_log_report {
        uint32_t version;               /* SBX_SESSION_LOG_REPORT_VERSION */
        uint32_t torn_tail;             /* 1 if a torn last line was cut off */
        uint64_t records;               /* complete records replayed */
        uint64_t torn_bytes;            /* bytes of the torn tail removed */
} sbx_session_log_report;
#define SBX_SESSION_LOG_REPORT_VERSION 1u
#define SBX_SESSION_LOG_REPORT_INIT { SBX_SESSION_LOG_REPORT_VERSION, 0, 0, 0 }
/* Fill *report as SBX_SESSION_LOG_REPORT_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_session_log_report_init(sbx_session_log_report *report);

/* Open (creating 0600 if missing) and replay.  report may be NULL.  The
 * handle holds an exclusive flock(2) until closed: a second opener gets
 * SBX_E_IO ("log is in use").  Limits: 64 MiB per file, 64 KiB per line.
 * Errors: SBX_E_INVALID (also a symlink, directory or special file),
 * SBX_E_IO, SBX_E_CORRUPT, SBX_E_RANGE (file too large), SBX_E_NOMEM.
 * Thread-safety: one thread at a time per log.  Since: 0.1. */
SBX_API sbx_code sbx_session_log_open(const char *path, sbx_session_log **out,
                                      sbx_session_log_report *report, sbx_error *err);
/* Append one validated event durably (one write(2) + fsync(2)).  After an
 * I/O failure the file is rolled back to its last good size and the handle
 * refuses further appends (SBX_E_IO): close and reopen to see what is on
 * disk.  An event that would take the file past the 64 MiB limit open
 * enforces is refused with SBX_E_RANGE: nothing is written and the handle
 * stays usable.  Errors: SBX_E_INVALID, SBX_E_IO, SBX_E_RANGE, SBX_E_NOMEM. */
SBX_API sbx_code sbx_session_log_append(sbx_session_log *log, const sbx_mode_event *event,
                                        sbx_error *err);
/* Borrow the replayed + appended events (valid until the next append or close). */
SBX_API sbx_code sbx_session_log_events(const sbx_session_log *log,
                                        const sbx_mode_event **events_out, size_t *n_out,
                                        sbx_error *err);
/* Close; NULL-safe. */
SBX_API void sbx_session_log_close(sbx_session_log *log);

/* ------------------------------------------------- policy service & policy */

typedef struct sbx_policy_service sbx_policy_service;
typedef struct sbx_exec_policy sbx_exec_policy;
typedef struct sbx_confined_policy sbx_confined_policy;

/*
 * A policy service: deployment default mode + fallback workspace root (an
 * absolute path, cleaned lexically; "." and ".." components are rejected).
 * Immutable and thread-safe once built.
 * Errors: SBX_E_INVALID, SBX_E_RANGE (path longer than SBX_PATH_MAX), SBX_E_NOMEM.
 */
#define SBX_PATH_MAX 4096
SBX_API sbx_code sbx_policy_service_new(int32_t default_mode, const char *fallback_root,
                                        sbx_policy_service **out, sbx_error *err);
SBX_API void sbx_policy_service_free(sbx_policy_service *svc);

/* What one tool call asks for. */
typedef struct sbx_policy_request {
        uint32_t version;               /* SBX_POLICY_REQUEST_VERSION */
        int32_t  mode_override;         /* SBX_MODE_NONE = no explicit override */
        const char *session_id;         /* NULL = agentless; "" is invalid */
        const char *session_cwd;        /* NULL = none; must be absolute if set */
        const sbx_mode_event *events;   /* the session's sandbox/mode events */
        size_t   n_events;
} sbx_policy_request;
#define SBX_POLICY_REQUEST_VERSION 1u
#define SBX_POLICY_REQUEST_INIT { SBX_POLICY_REQUEST_VERSION, SBX_MODE_NONE, NULL, NULL, NULL, 0 }
/* Fill *request as SBX_POLICY_REQUEST_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_policy_request_init(sbx_policy_request *request);

/*
 * Resolve: mode = explicit override > last sandbox/mode event > default;
 * workspace root = session cwd > fallback root.  request may be NULL (an
 * agentless call with no override).
 * Errors: SBX_E_INVALID (names the field), SBX_E_RANGE, SBX_E_NOMEM.
 */
SBX_API sbx_code sbx_policy_service_resolve(const sbx_policy_service *svc,
                                            const sbx_policy_request *request,
                                            sbx_exec_policy **out, sbx_error *err);
SBX_API void sbx_exec_policy_free(sbx_exec_policy *policy);
/* Getters on a valid policy.  On NULL: SBX_MODE_NONE / NULL / 0. */
SBX_API int32_t sbx_exec_policy_mode(const sbx_exec_policy *policy);
SBX_API const char *sbx_exec_policy_workspace_root(const sbx_exec_policy *policy);
/* NULL for an agentless policy. */
SBX_API const char *sbx_exec_policy_session_id(const sbx_exec_policy *policy);
SBX_API int sbx_exec_policy_is_danger(const sbx_exec_policy *policy);

typedef enum sbx_confined_mode {
        SBX_CONFINED_READ_ONLY       = 1,
        SBX_CONFINED_WORKSPACE_WRITE = 2
} sbx_confined_mode;

/* One-way, fail-closed conversion.  Danger -> SBX_E_DANGER_NOT_CONFINABLE:
 * the caller must bypass the sandbox, never confine it.  Errors also:
 * SBX_E_INVALID, SBX_E_NOMEM. */
SBX_API sbx_code sbx_exec_policy_to_confined(const sbx_exec_policy *policy,
                                             sbx_confined_policy **out, sbx_error *err);
SBX_API void sbx_confined_policy_free(sbx_confined_policy *policy);
SBX_API int32_t sbx_confined_policy_mode(const sbx_confined_policy *policy);
/* Borrowed; the execution policy it was made from. */
SBX_API const sbx_exec_policy *sbx_confined_policy_exec(const sbx_confined_policy *policy);

/* ------------------------------------------------------------ escalation */

/* 1 if target is strictly wider than current on the ladder
 * read-only -> workspace-write -> danger-full-access, else 0 (also for
 * invalid values). */
SBX_API int sbx_mode_can_escalate_to(int32_t current, int32_t target);

/*
 * Validate the model's escalation arguments.  target_text ("sandbox_permissions")
 * and justification must both be present or both absent (NULL).  A blank
 * justification (empty or whitespace only) is invalid; read-only is never a
 * target.  Both absent: SBX_OK with *target_out = SBX_MODE_NONE.
 * Errors: SBX_E_ESCALATION_INVALID_ARGS.
 */
SBX_API sbx_code sbx_escalation_validate_args(const char *target_text,
                                              const char *justification,
                                              int32_t *target_out, sbx_error *err);

typedef enum sbx_escalation_outcome {
        SBX_ESCALATION_APPROVED_ONCE = 1,
        SBX_ESCALATION_DENIED        = 2,
        SBX_ESCALATION_TIMED_OUT     = 3,
        SBX_ESCALATION_CANCELLED     = 4
} sbx_escalation_outcome;

typedef struct sbx_escalation_request {
        uint32_t version;               /* SBX_ESCALATION_REQUEST_VERSION */
        int32_t  current_mode;          /* the effective mode of the call */
        int32_t  target_mode;           /* requested wider mode */
        const char *justification;      /* non-blank */
        const char *session_id;         /* optional, passed to the approver */
        const char *command;            /* optional, passed to the approver */
        int64_t  deadline_ms;           /* Unix ms; 0 = no deadline */
} sbx_escalation_request;
#define SBX_ESCALATION_REQUEST_VERSION 1u
#define SBX_ESCALATION_REQUEST_INIT \
        { SBX_ESCALATION_REQUEST_VERSION, SBX_MODE_NONE, SBX_MODE_NONE, NULL, NULL, NULL, 0 }
/* Fill *request as SBX_ESCALATION_REQUEST_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_escalation_request_init(sbx_escalation_request *request);

/* The approval channel.  Returns an sbx_escalation_outcome.  Should honour
 * req->deadline_ms; any other return value counts as denied. */
typedef int32_t (*sbx_escalation_approver_fn)(const sbx_escalation_request *req,
                                              void *userdata);

/*
 * The fail-closed flow: strictly-wider check (before asking), argument
 * validation, then the approver.  On approval *granted_mode_out is the target
 * for this ONE call; the session mode is not changed.  An approval returned
 * after deadline_ms counts as timed out.
 * Errors: SBX_E_INVALID, SBX_E_ESCALATION_NOT_WIDER,
 * SBX_E_ESCALATION_INVALID_ARGS, SBX_E_ESCALATION_NO_APPROVER (approver NULL),
 * SBX_E_ESCALATION_DENIED, SBX_E_ESCALATION_TIMED_OUT, SBX_E_ESCALATION_CANCELLED.
 */
SBX_API sbx_code sbx_escalation_approve(const sbx_escalation_request *req,
                                        sbx_escalation_approver_fn approver, void *userdata,
                                        int32_t *granted_mode_out, sbx_error *err);

/* ---------------------------------------------------- runner failure rules */

typedef struct sbx_runner_rule {
        uint32_t version;                       /* SBX_RUNNER_RULE_VERSION */
        const int32_t *allowed_exit_codes;      /* empty = any non-zero code */
        size_t n_allowed_exit_codes;
        const char *const *fatal_signatures;    /* case-insensitive substrings */
        size_t n_fatal_signatures;
        const char *const *informational_lines; /* full lines, trimmed, case-insensitive */
        size_t n_informational_lines;
} sbx_runner_rule;
#define SBX_RUNNER_RULE_VERSION 1u
#define SBX_RUNNER_RULE_INIT { SBX_RUNNER_RULE_VERSION, NULL, 0, NULL, 0, NULL, 0 }
/* Fill *rule as SBX_RUNNER_RULE_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_runner_rule_init(sbx_runner_rule *rule);

/*
 * The three-stage match: (1) exit 0 never matches; a non-empty allow-list
 * must contain exit_code; (2) stderr lines equal (trimmed, case-insensitive)
 * to an informational line are dropped; (3) the remaining lines are searched
 * case-insensitively, one line at a time (a signature never spans lines),
 * for each fatal signature in order.  On a match
 * *matched_out = 1 and *signature_out points into the rule; else 0 / NULL.
 * err_text may hold any bytes (NUL included).  Errors: SBX_E_INVALID.
 */
SBX_API sbx_code sbx_runner_rule_matches(const sbx_runner_rule *rule, int exit_code,
                                         const char *err_text, size_t err_len,
                                         int *matched_out, const char **signature_out,
                                         sbx_error *err);

/* -------------------------------------------------------- denial marker */

/* The model-facing marker, exactly "[sandbox: file access denied under <mode> mode]".
 * SBX_DENIAL_MARKER_MAX bytes always suffice (NUL included).
 * Errors: SBX_E_INVALID (bad mode, NULL buf), SBX_E_RANGE (buffer too small;
 * nothing written).  Thread-safety: pure.  Since: 0.1. */
#define SBX_DENIAL_MARKER_MAX 60
SBX_API sbx_code sbx_denial_marker(int32_t mode, char *buf, size_t buflen, sbx_error *err);

/*
 * "Denied by the sandbox": the command failed (exit_code != 0) and its
 * stderr contains one of the backend's denial signatures (case-insensitive
 * substring).  *denied_out = 1/0; *signature_out (may be NULL) the match.
 * Errors: SBX_E_INVALID.
 */
SBX_API sbx_code sbx_denied_by_sandbox(int exit_code, const char *err_text, size_t err_len,
                                       const char *const *signatures, size_t n_signatures,
                                       int *denied_out, const char **signature_out,
                                       sbx_error *err);

/* ------------------------------------------------------- canonical paths */

/*
 * Canonical absolute path: symlinks resolved, "." / ".." / "//" removed.  A
 * path that does not exist yet resolves its deepest existing ancestor and
 * appends the rest lexically (so /tmp -> /private/tmp style aliases agree).
 * *out is freed with sbx_free().
 * Errors: SBX_E_INVALID (NULL, empty, relative), SBX_E_RANGE (too long),
 * SBX_E_IO (an ancestor exists but cannot be resolved), SBX_E_NOMEM.
 */
SBX_API sbx_code sbx_path_canonical(const char *path, char **out, sbx_error *err);

/*
 * The single writable-roots helper every backend and the FS fence share:
 * read-only -> none; workspace-write -> the workspace root; plus `extra`
 * roots (absolute) in either mode.  Canonical, deduplicated, nested roots
 * collapsed into their ancestor, sorted.  *out is NULL-terminated and freed
 * with sbx_strv_free(); *n_out may be NULL.
 * Errors: SBX_E_INVALID, SBX_E_RANGE, SBX_E_IO, SBX_E_NOMEM.
 */
SBX_API sbx_code sbx_writable_roots(const sbx_confined_policy *policy,
                                    const char *const *extra, size_t n_extra,
                                    char ***out, size_t *n_out, sbx_error *err);

/* 1 if canonical path `path` is equal to or below one of roots[0..n), else 0.
 * Both sides must already be canonical (as sbx_writable_roots returns them). */
SBX_API int sbx_path_is_within(const char *path, const char *const *roots, size_t n);

/*
 * What the toolchains below home (NULL = $HOME) run from: for each one a
 * person's PATH points into (rustup, cargo, pyenv, nvm, go, ... the table
 * in docs/secrets.md), only the subtrees it names -- a version's bin,
 * include, lib, lib64, libexec and share, its own bin, shims and
 * toolchains -- never its configuration (an nvm node's etc/npmrc, a pyenv
 * Python's pip.conf, ~/.cargo/config.toml).  Each existing, canonical,
 * strictly inside home (a toolchain linked out of it is skipped), sorted,
 * none inside another.  A host that isolates HOME passes them as read-only
 * additional roots so the tools still run; the profile keeps the secret
 * locations inside them hidden.  *out is NULL-terminated (empty when there
 * is none, or no home) and freed with sbx_strv_free(); *n_out may be NULL.
 * Earlier versions returned each toolchain's whole directory.
 * Errors: SBX_E_INVALID (home relative), SBX_E_RANGE (more than 256
 * entries), SBX_E_NOMEM.  Since: 0.2.
 */
SBX_API sbx_code sbx_toolchain_roots(const char *home, char ***out, size_t *n_out,
                                     sbx_error *err);

/* --------------------------------------------------------------- sizes */

/*
 * A size as policy files ("memory": "512M") and sandbox-run's --memory
 * spell it: decimal digits, then at most one of K, M, G, T in either case
 * (powers of 1024), nothing else -- no sign, space, fraction or "B".
 * "4096", "512M", "2g".  A host that takes a limit from its user can parse
 * it the same way.  *out is written only on success.
 * Errors: SBX_E_INVALID (text or out NULL, empty, another character,
 * zero), SBX_E_RANGE (more than UINT64_MAX bytes).  Thread-safety: pure.
 * Since: 0.2.
 */
SBX_API sbx_code sbx_size_parse(const char *text, uint64_t *out, sbx_error *err);

/* ------------------------------------------------------- terminal text */

/* Strip CSI, OSC (BEL- or ST-terminated), DCS/SOS/PM/APC strings, and two-
 * and three-byte ESC sequences (ESC 7, ESC ( B) in place.  An unterminated
 * sequence is removed to the end of the buffer.  8-bit C1 bytes are kept
 * (they are UTF-8 continuation bytes).  Any bytes, linear time;
 * *out_len <= len.  Errors: SBX_E_INVALID (buf NULL with len > 0, out_len
 * NULL).  Thread-safety: pure.  Since: 0.1. */
SBX_API sbx_code sbx_text_strip_ansi(char *buf, size_t len, size_t *out_len, sbx_error *err);
/* Fold CRLF and lone CR into LF and drop BEL, in place.  Errors: SBX_E_INVALID. */
SBX_API sbx_code sbx_text_normalize(char *buf, size_t len, size_t *out_len, sbx_error *err);
/* strip_ansi then normalize.  Errors: SBX_E_INVALID. */
SBX_API sbx_code sbx_text_sanitize(char *buf, size_t len, size_t *out_len, sbx_error *err);

/* ---------------------------------------------- approval policy & presets */

/* The other safety gate: whether a call proceeds. */
typedef enum sbx_approval {
        SBX_APPROVAL_ALLOW         = 1,   /* "allow": run without asking */
        SBX_APPROVAL_DENY          = 2,   /* "deny": never run */
        SBX_APPROVAL_ASK           = 3,   /* "ask": ask before every call */
        SBX_APPROVAL_ASK_DANGEROUS = 4    /* "ask-dangerous": ask for dangerous calls */
} sbx_approval;

SBX_API sbx_code sbx_approval_parse(const char *text, int32_t *approval_out, sbx_error *err);
SBX_API const char *sbx_approval_name(int32_t approval);

/*
 * Permission presets: a sandbox mode and an approval policy chosen together.
 *
 *   preset   sandbox mode          approval
 *   -------  --------------------  -------------
 *   safe     read-only             ask-dangerous
 *   review   workspace-write       ask
 *   danger   danger-full-access    allow
 *   custom   (base preset's values with independent overrides)
 *
 * A custom configuration whose pair equals a named preset is that preset
 * (derived state); only a pair no named preset has is "custom".
 */
typedef enum sbx_preset_id {
        SBX_PRESET_SAFE   = 1,
        SBX_PRESET_REVIEW = 2,
        SBX_PRESET_DANGER = 3,
        SBX_PRESET_CUSTOM = 4
} sbx_preset_id;

typedef struct sbx_preset {
        uint32_t version;               /* SBX_PRESET_VERSION */
        int32_t  id;                    /* sbx_preset_id (derived) */
        int32_t  sandbox_mode;          /* sbx_mode */
        int32_t  approval;              /* sbx_approval */
} sbx_preset;
#define SBX_PRESET_VERSION 1u
#define SBX_PRESET_INIT { SBX_PRESET_VERSION, 0, SBX_MODE_NONE, 0 }
/* Fill *preset as SBX_PRESET_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_preset_init(sbx_preset *preset);

SBX_API const char *sbx_preset_name(int32_t id);
/* "safe" | "review" | "danger" (a bare "custom" has no values: SBX_E_INVALID). */
SBX_API sbx_code sbx_preset_resolve(const char *name, sbx_preset *out, sbx_error *err);
/* Start from base (safe/review/danger) and override the mode and/or approval
 * (0 = keep).  out->id is the derived state. */
SBX_API sbx_code sbx_preset_custom(int32_t base, int32_t mode_override,
                                   int32_t approval_override, sbx_preset *out,
                                   sbx_error *err);
/* The derived state of a (mode, approval) pair: a named preset or CUSTOM. */
SBX_API sbx_code sbx_preset_derive(int32_t sandbox_mode, int32_t approval,
                                   int32_t *id_out, sbx_error *err);

/* -------------------------------------------------------------- profiles */

/*
 * The authority model of a profile: every capability is Deny, Gated or
 * Allow.  Deny < Gated < Allow.  Gated is closed until a single-spawn grant
 * opens it for one exact command; Deny can never be opened.
 */
typedef enum sbx_access {
        SBX_ACCESS_DENY  = 0,
        SBX_ACCESS_GATED = 1,
        SBX_ACCESS_ALLOW = 2
} sbx_access;

/* "deny" | "gated" | "allow"; "invalid" otherwise.  Never NULL. */
SBX_API const char *sbx_access_name(int32_t access);

typedef enum sbx_home {
        SBX_HOME_ISOLATED = 0,  /* an owner-only scratch HOME; the caller's home is hidden */
        SBX_HOME_REAL     = 1   /* HOME is the caller's; access still follows the profile */
} sbx_home;

typedef enum sbx_isolation {
        SBX_ISOLATION_SANDBOXED  = 0,   /* compiled into an OS boundary */
        SBX_ISOLATION_UNCONFINED = 1    /* runs with the caller's authority; needs ack */
} sbx_isolation;

/* One additional root with its own read and write access. */
typedef struct sbx_root_access {
        const char *path;               /* canonical absolute path */
        int32_t     read;               /* sbx_access */
        int32_t     write;              /* sbx_access, never wider than read */
} sbx_root_access;

/*
 * Every field of the seed's ProfileConfig.  A zeroed config (version 0 is
 * accepted as the first layout) plus a workspace root is the most
 * restrictive profile: nothing readable or writable, no network, no
 * commands, isolated HOME, sandboxed.
 *
 * Version 2 appends force_workspace, accept_unprotected_git and
 * unix_sockets.  Versions 0 and 1 (the first layout, which ends at
 * ack_unconfined) stay accepted: the appended fields are then never read
 * and count as 0 / NULL.  Since: 0.1 (version 2 fields: 0.2).
 */
typedef struct sbx_profile_config {
        uint32_t version;               /* SBX_PROFILE_CONFIG_VERSION (or 0, 1) */
        const char *workspace_root;     /* canonical absolute path, required */
        int32_t  workspace_read;        /* sbx_access */
        int32_t  workspace_write;       /* sbx_access */
        int32_t  host_read;             /* sbx_access: everything outside the roots */
        int32_t  host_write;            /* sbx_access */
        int32_t  network;               /* sbx_access */
        int32_t  command;               /* sbx_access: command.execute */
        int32_t  home;                  /* sbx_home */
        int32_t  isolation;             /* sbx_isolation */
        const sbx_root_access *additional_roots;
        size_t   n_additional_roots;
        int32_t  ack_unconfined;        /* 1 = acknowledged; required with UNCONFINED */
        /* ---- version 2 ---- */
        int32_t  force_workspace;       /* 1 = allow a workspace root that is /, a home
                                           directory or an ancestor of one */
        int32_t  accept_unprotected_git; /* 1 = run a workspace-write profile on a backend
                                           that cannot protect git (it then does not
                                           claim protected-paths) */
        const char *const *unix_sockets; /* host pathname unix sockets the command may
                                           connect to (canonical absolute paths, matched
                                           exactly; docs/unix-sockets.md) */
        size_t   n_unix_sockets;        /* at most 64 */
        /* ---- version 3 ---- */
        const char *const *allow_hosts; /* the network allowlist (network deny or
                                           gated): HOST[:PORT], *.SUFFIX[:PORT], IP
                                           literals, +CLASS suffixes; reached only
                                           through the egress proxy (docs/network.md) */
        size_t   n_allow_hosts;         /* at most 1024 */
} sbx_profile_config;
#define SBX_PROFILE_CONFIG_VERSION 3u
#define SBX_PROFILE_CONFIG_INIT \
        { SBX_PROFILE_CONFIG_VERSION, NULL, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, 0, \
          NULL, 0 }
/* Fill *cfg as SBX_PROFILE_CONFIG_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_profile_config_init(sbx_profile_config *cfg);

/* An immutable, validated profile.  Thread-safe to share. */
typedef struct sbx_profile sbx_profile;

/*
 * Validate cfg and build a profile.  Rejected with SBX_E_INVALID naming the
 * field: a missing, relative or non-canonical workspace root ("..", ".",
 * "//", a trailing slash, a symlink component); an invalid enum value;
 * write wider than read anywhere; an additional root that is relative,
 * non-canonical, duplicated, or the workspace root itself; unconfined
 * without ack, or with any filesystem/network field (additional roots
 * included) other than Allow, or with an isolated HOME; ack without
 * unconfined; force_workspace or accept_unprotected_git other than 0/1; a
 * unix socket path that is NULL, non-canonical or duplicated.  A sandboxed
 * profile whose workspace is readable and whose root is "/", a home
 * directory or an ancestor of one is refused (the message names
 * force_workspace) unless force_workspace is 1.  Well-known secret
 * locations (~/.ssh, ~/.aws, ...) of every home directory inside a
 * readable root are hidden in the plan, forced or not (docs/secrets.md).
 * Errors also: SBX_E_RANGE (more than 256 roots, 64 unix sockets), SBX_E_IO
 * (a root, HOME or /etc/passwd could not be examined), SBX_E_NOMEM.  Rules
 * and reasons: docs/profiles.md.
 */
SBX_API sbx_code sbx_profile_new(const sbx_profile_config *cfg, sbx_profile **out,
                                 sbx_error *err);
SBX_API void sbx_profile_free(sbx_profile *profile);
/* Borrowed canonical workspace root; NULL for NULL. */
SBX_API const char *sbx_profile_workspace_root(const sbx_profile *profile);
/* The profile's normalized configuration (borrowed strings).  Fills only
 * the fields of the layout out->version names (0 or 1: up to
 * ack_unconfined; 2: everything); out->version is left as it is. */
SBX_API sbx_code sbx_profile_config_get(const sbx_profile *profile, sbx_profile_config *out,
                                        sbx_error *err);

/*
 * The component-wise intersection of base and ceiling: never wider than
 * base (or ceiling) for any capability and any path, keeping base's
 * workspace root.  Roots configured in either are kept, each with the
 * minimum of what both profiles give it.  Sandboxed < unconfined,
 * isolated < real HOME; force_workspace and accept_unprotected_git are the
 * minimum, unix_sockets the intersection, the hidden secret locations the
 * union.  No file-system access.  Errors: SBX_E_INVALID,
 * SBX_E_RANGE (more than 256 roots combined), SBX_E_NOMEM.
 */
SBX_API sbx_code sbx_profile_restrict(const sbx_profile *base, const sbx_profile *ceiling,
                                      sbx_profile **out, sbx_error *err);

/* The named profiles of the three modes (docs/profiles.md has the table). */
SBX_API sbx_code sbx_profile_from_mode(int32_t mode, const char *workspace_root,
                                       sbx_profile **out, sbx_error *err);
/* A preset's profile: its sandbox mode's profile. */
SBX_API sbx_code sbx_profile_from_preset(const sbx_preset *preset, const char *workspace_root,
                                         sbx_profile **out, sbx_error *err);

/*
 * The gate seam.  sbx_profile_access_version() is 1.  Callers pass the
 * version they were written against; anything else is SBX_E_UNSUPPORTED.
 *
 * kind                scope
 * ------------------  ---------------------------------------------------
 * "filesystem.read",  a canonical absolute path: the deepest configured
 * "filesystem.write"  root containing it wins (additional roots, the
 *                     workspace root), else host;
 *                     "tree:<path>": <path> must be a configured root
 *                     exactly, and its own access is returned;
 *                     "host": the host access.
 * "network"           "<host>:<port>" (DNS name, IPv4, or [IPv6]; port
 *                     1..65535) or "*" (any destination).
 * "command.execute"   the exact normalized command: non-empty, no leading
 *                     or trailing whitespace, no control characters, valid
 *                     UTF-8, at most 65536 bytes.
 *
 * Unknown kinds and malformed scopes are SBX_E_INVALID, a tree: scope that
 * is not a configured root SBX_E_NOT_FOUND; *access_out is then untouched:
 * an error is never a permissive value.
 */
#define SBX_PROFILE_ACCESS_VERSION 1u
SBX_API uint32_t sbx_profile_access_version(void);
SBX_API sbx_code sbx_profile_access_for(const sbx_profile *profile, uint32_t version,
                                        const char *kind, const char *scope,
                                        int32_t *access_out, sbx_error *err);

/*
 * A stable SHA-256 (lower-case hex, 64 chars + NUL) over a canonical
 * serialization of every durable authority input of the profile.  Equal
 * for equal authority, different for any change.  Errors: SBX_E_INVALID,
 * SBX_E_RANGE (buflen < SBX_FINGERPRINT_SIZE).
 */
#define SBX_FINGERPRINT_SIZE 65
SBX_API sbx_code sbx_profile_fingerprint(const sbx_profile *profile, char *buf, size_t buflen,
                                         sbx_error *err);

/* ---------------------------------------------------------- policy files */

/*
 * A policy file (docs/policy-file.md): one JSON object, shared by
 * sandbox-run and the API, that holds a profile's mode, workspace, extra
 * roots and unix sockets together with how its commands are spawned
 * (environment, limits, backend) and a network allowlist:
 *
 *   { "version": 1, "mode": "workspace-write",
 *     "write_roots": ["~/.cache/pip"],
 *     "env": { "pass": ["GOFLAGS"], "set": { "CI": "1" } },
 *     "limits": { "memory": "2G", "pids": 256, "timeout": 600 },
 *     "network": { "access": "deny", "allow_hosts": ["registry.npmjs.org"] } }
 *
 * "version": 1 is required.  An unknown key, a duplicated key, a value of
 * the wrong type or out of range, a relative path and a malformed host are
 * errors whose message names the file, the line and the key, as
 * "<file>:<line>: <key>: <problem>" (docs/policy-file.md lists them).
 * network.allow_hosts becomes the profile's allow_hosts (the network
 * allowlist, reached through the egress proxy: docs/network.md).  An
 * immutable, validated document; thread-safe to share.
 */
typedef struct sbx_policy_file sbx_policy_file;

/* Which keys a policy file sets: bits of sbx_policy_settings.set. */
#define SBX_POLICY_SET_MODE                   (1u << 0)
#define SBX_POLICY_SET_WORKSPACE              (1u << 1)
#define SBX_POLICY_SET_NETWORK                (1u << 2)  /* network.access */
#define SBX_POLICY_SET_BACKEND                (1u << 3)
#define SBX_POLICY_SET_MEMORY                 (1u << 4)  /* limits.memory */
#define SBX_POLICY_SET_PIDS                   (1u << 5)  /* limits.pids */
#define SBX_POLICY_SET_TIMEOUT                (1u << 6)  /* limits.timeout */
#define SBX_POLICY_SET_FORCE_WORKSPACE        (1u << 7)
#define SBX_POLICY_SET_ACCEPT_UNPROTECTED_GIT (1u << 8)

/* What a policy file says, borrowed from it (valid until it is freed).
 * A value whose bit is not in `set` is 0; a list not given is empty
 * (NULL, 0).  Lists keep the file's order, so entry i of read_roots is
 * the key "read_roots[i]" of sbx_policy_file_line. */
typedef struct sbx_policy_settings {
        uint32_t version;               /* SBX_POLICY_SETTINGS_VERSION */
        uint32_t set;                   /* SBX_POLICY_SET_* */
        int32_t  mode;                  /* sbx_mode */
        int32_t  network;               /* SBX_ACCESS_DENY or SBX_ACCESS_ALLOW */
        int32_t  backend;               /* sbx_backend_id, never UNAVAILABLE */
        int32_t  force_workspace;       /* 0 or 1 */
        int32_t  accept_unprotected_git; /* 0 or 1 */
        uint32_t reserved;              /* 0 */
        const char *workspace;          /* absolute, "~" expanded, cleaned; NULL */
        uint64_t memory_max;            /* bytes */
        uint64_t pids_max;              /* processes */
        uint64_t timeout_ms;            /* milliseconds */
        const char *const *read_roots;  /* absolute paths, like workspace */
        size_t   n_read_roots;
        const char *const *write_roots;
        size_t   n_write_roots;
        const char *const *unix_sockets;
        size_t   n_unix_sockets;
        const char *const *env_pass;    /* variable names passed through */
        size_t   n_env_pass;
        const char *const *env_set;     /* "NAME=VALUE" */
        size_t   n_env_set;
        const char *const *allow_hosts; /* allowlist entries, canonical (docs/network.md) */
        size_t   n_allow_hosts;
} sbx_policy_settings;
#define SBX_POLICY_SETTINGS_VERSION 1u
#define SBX_POLICY_SETTINGS_INIT \
        { SBX_POLICY_SETTINGS_VERSION, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, NULL, 0, NULL, 0, \
          NULL, 0, NULL, 0, NULL, 0, NULL, 0 }
/* Fill *settings as SBX_POLICY_SETTINGS_INIT does, for binding generators
 * (cffi, bindgen) that cannot expand macros; NULL is ignored.  Since: 0.2. */
SBX_API void sbx_policy_settings_init(sbx_policy_settings *settings);

/*
 * Read and validate the policy file at path (a regular file of at most
 * 1 MiB; a link to one is followed).  Paths in it must be absolute or
 * start with "~/" ($HOME); nothing else on the file system is consulted.
 * Errors: SBX_E_INVALID (the content: "<path>:<line>: <key>: <problem>";
 * a directory or special file), SBX_E_UNSUPPORTED (a "version" newer than
 * 1), SBX_E_NOT_FOUND (no such file), SBX_E_IO, SBX_E_RANGE (too large),
 * SBX_E_NOMEM.  Thread-safety: safe if no thread changes the environment
 * (HOME is read for "~").  Since: 0.2.
 */
SBX_API sbx_code sbx_policy_file_load(const char *path, sbx_policy_file **out, sbx_error *err);
/* The same for text (NUL-terminated); name stands for the file in messages
 * and sbx_policy_file_name (NULL = "<string>").  Errors: as
 * sbx_policy_file_load, without SBX_E_NOT_FOUND and SBX_E_IO.
 * Thread-safety: as sbx_policy_file_load.  Since: 0.2. */
SBX_API sbx_code sbx_policy_file_parse(const char *text, const char *name,
                                       sbx_policy_file **out, sbx_error *err);
/* Free; NULL is ignored.  Since: 0.2. */
SBX_API void sbx_policy_file_free(sbx_policy_file *pf);
/* The path it was loaded from (or the name it was parsed under); borrowed.
 * NULL for NULL.  Since: 0.2. */
SBX_API const char *sbx_policy_file_name(const sbx_policy_file *pf);
/* Fill *out (out->version SBX_POLICY_SETTINGS_VERSION) with what the file
 * sets, borrowed from pf.  Errors: SBX_E_INVALID.  Thread-safety: safe.
 * Since: 0.2. */
SBX_API sbx_code sbx_policy_file_settings(const sbx_policy_file *pf, sbx_policy_settings *out,
                                          sbx_error *err);
/*
 * The line (from 1) of a key of the file, for messages and --explain:
 * "mode", "limits.memory", "network.allow_hosts[2]", "env.set.NAME",
 * "read_roots[0]" (an array entry's own line); "" is the top-level object.
 * 0 when the file has no such key, or pf or key is NULL.  Thread-safety:
 * safe.  Since: 0.2.
 */
SBX_API uint32_t sbx_policy_file_line(const sbx_policy_file *pf, const char *key);

/*
 * The profile the file describes: its mode's profile (read-only when it
 * sets none, sbx_profile_from_mode) on workspace_root (NULL = the file's
 * "workspace"; neither is SBX_E_INVALID), with network.access, the read
 * and write roots, unix_sockets, force_workspace and accept_unprotected_git
 * applied.  Every path is canonicalised first (sbx_path_canonical); a root
 * may not exist yet.  The environment, limits and backend are for the
 * spawn: read them with sbx_policy_file_settings and sbx_policy_file_env.
 * Errors: as sbx_profile_new; a path that cannot be resolved names its key
 * and line.  Thread-safety: safe.  Since: 0.2.
 */
SBX_API sbx_code sbx_policy_file_profile(const sbx_policy_file *pf, const char *workspace_root,
                                         sbx_profile **out, sbx_error *err);
/*
 * The "NAME=VALUE" entries a spawn should add (sbx_spawn_options.env_set):
 * each env.pass name with its value in envp (NULL = environ; a name not
 * set there is left out), then every env.set entry (which replaces a
 * passed one of the same name).  *out is NULL-terminated, freed with
 * sbx_strv_free(); *n_out may be NULL.  Errors: SBX_E_INVALID,
 * SBX_E_NOMEM.  Thread-safety: safe if no thread changes environ.
 * Since: 0.2.
 */
SBX_API sbx_code sbx_policy_file_env(const sbx_policy_file *pf, const char *const *envp,
                                     char ***out, size_t *n_out, sbx_error *err);

/* sbx_policy_file_load, then sbx_policy_file_profile.  Errors: theirs.
 * Thread-safety: safe.  Since: 0.2. */
SBX_API sbx_code sbx_profile_from_file(const char *path, const char *workspace_root,
                                       sbx_profile **out, sbx_error *err);
/* sbx_policy_file_parse (name_for_errors may be NULL), then
 * sbx_policy_file_profile.  Errors: theirs.  Thread-safety: safe.
 * Since: 0.2. */
SBX_API sbx_code sbx_profile_from_string(const char *text, const char *name_for_errors,
                                         const char *workspace_root, sbx_profile **out,
                                         sbx_error *err);

/* ------------------------------------------------------------ guarantees */

/* What a boundary promises.  Bits of a uint32_t. */
#define SBX_G_READ_BOUNDARY     (1u << 0)  /* reads outside the readable roots fail */
#define SBX_G_WRITE_BOUNDARY    (1u << 1)  /* writes outside the writable roots fail */
#define SBX_G_ENV_SCRUB         (1u << 2)  /* environment reduced to an allow-list */
#define SBX_G_PROCESS_ISOLATION (1u << 3)  /* host processes invisible and unreachable */
#define SBX_G_NETWORK_DENY      (1u << 4)  /* no network beyond a private loopback */
#define SBX_G_TARGET_NETWORK    (1u << 5)  /* only approved host:port targets */
#define SBX_G_ADDRESS_NETWORK   (1u << 6)  /* address-class egress rules */
#define SBX_G_RESOURCE_LIMITS   (1u << 7)  /* pids/memory/cpu limits applied */
#define SBX_G_HOME_ISOLATION    (1u << 8)  /* caller's home hidden, scratch HOME */
#define SBX_G_PROTECTED_PATHS   (1u << 9)  /* every .git read-only, no new one (docs/git.md) */
#define SBX_G_SYSCALL_FILTER    (1u << 10) /* escape syscalls refused (seccomp) */
#define SBX_G_NO_NEW_PRIVS      (1u << 11) /* no privilege gain, no capabilities */
#define SBX_G_TTY_ISOLATION     (1u << 12) /* no terminal to inject into */
#define SBX_G_FD_ISOLATION      (1u << 13) /* only stdio and passed fds survive */
#define SBX_G_ALL               ((1u << 14) - 1u)

/* "read-boundary" etc. for a single bit; "invalid" otherwise.  Never NULL. */
SBX_API const char *sbx_guarantee_name(uint32_t bit);

typedef enum sbx_enforcement {
        SBX_ENFORCEMENT_NONE    = 0,    /* nothing enforced (unconfined, or not run) */
        SBX_ENFORCEMENT_PARTIAL = 1,    /* some required guarantee is missing, or (Windows)
                                         * a layer of the backend could not be applied,
                                         * the restricted token (docs/windows.md) */
        SBX_ENFORCEMENT_FULL    = 2     /* every required guarantee achieved */
} sbx_enforcement;

typedef struct sbx_guarantee_report {
        uint32_t version;               /* SBX_GUARANTEE_REPORT_VERSION */
        uint32_t required;              /* SBX_G_* the profile needs */
        uint32_t achieved;              /* SBX_G_* a backend enforced (0 before one ran) */
        int32_t  enforcement;           /* sbx_enforcement */
} sbx_guarantee_report;
#define SBX_GUARANTEE_REPORT_VERSION 1u
#define SBX_GUARANTEE_REPORT_INIT { SBX_GUARANTEE_REPORT_VERSION, 0, 0, 0 }
/* Fill *report as SBX_GUARANTEE_REPORT_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_guarantee_report_init(sbx_guarantee_report *report);

/* How a spawn with a network allowlist reaches its targets (docs/network.md):
 * NONE without an allowlist; PROXY_ONLY: through the egress proxy its proxy
 * variables name (a tool that ignores them reaches nothing); TRANSPARENT:
 * every other outbound TCP connection and DNS query is redirected to the
 * same checks too (rung 1's nftables rules).  Since: 0.2. */
typedef enum sbx_egress {
        SBX_EGRESS_NONE        = 0,
        SBX_EGRESS_PROXY_ONLY  = 1,
        SBX_EGRESS_TRANSPARENT = 2
} sbx_egress;

/* ------------------------------------------------------------- compile */

/*
 * A backend-neutral plan compiled from a profile: the filesystem rule list,
 * the network decision, and the environment / HOME / TMPDIR decisions.
 * Pure (no I/O), immutable, thread-safe to share.
 */
typedef struct sbx_plan sbx_plan;

/* Errors: SBX_E_INVALID, SBX_E_RANGE, SBX_E_NOMEM.  A plan naming
 * unix_sockets runs on the native and landlock backends only (bwrap:
 * SBX_E_UNSUPPORTED at spawn); docs/unix-sockets.md. */
SBX_API sbx_code sbx_plan_compile(const sbx_profile *profile, sbx_plan **out, sbx_error *err);
/*
 * The plan with every git location found on disk below its writable roots
 * added as read-only "protected" rules: repositories nested anywhere in a
 * writable root, the git dir a ".git" file points at, bare repositories,
 * core.hooksPath directories, included config files and path-named
 * programs of command-valued keys (docs/git.md).  A missing one is created
 * empty so it cannot be planted.  sbx_spawn() does this itself; call it to
 * show what a spawn will protect.  Errors: SBX_E_INVALID, SBX_E_IO (a
 * writable root could not be examined: no spawn would run), SBX_E_NOMEM.
 * Since: 0.2.
 */
SBX_API sbx_code sbx_plan_discover(const sbx_plan *plan, sbx_plan **out, sbx_error *err);
SBX_API void sbx_plan_free(sbx_plan *plan);
/* What the plan requires (achieved = 0, enforcement = NONE). */
SBX_API sbx_code sbx_plan_guarantees(const sbx_plan *plan, sbx_guarantee_report *out,
                                     sbx_error *err);
/* A deterministic text rendering of the whole plan (for --explain and
 * golden tests); *text_out is freed with sbx_free(). */
SBX_API sbx_code sbx_plan_describe(const sbx_plan *plan, char **text_out, sbx_error *err);

/* -------------------------------------------------------------- backends */

/*
 * The enforcement backends.  Detection runs once per process (the first
 * call that needs it) and tries, in order: native rung 1 (user, mount,
 * pid, ipc, uts and net namespaces + Landlock + seccomp), rung 2 (Landlock
 * + seccomp + no_new_privs), bwrap (when installed and its probe passes),
 * then unavailable.  Detection is by doing: the rungs' probes are cheap
 * checks, a spawn the environment refuses moves down the chain, and what
 * runs no spawn (Confine, sbx_backend_detect, sbx_backend_guarantees with
 * SBX_BACKEND_AUTO) first proves the backend by really running `true` in
 * it, once per process (docs/backends.md).
 */
typedef enum sbx_backend_id {
        SBX_BACKEND_AUTO        = 0,    /* "auto": run detection */
        SBX_BACKEND_NATIVE      = 1,    /* "native": rung 1 */
        SBX_BACKEND_LANDLOCK    = 2,    /* "landlock": rung 2 */
        SBX_BACKEND_BWRAP       = 3,    /* "bwrap": the external bubblewrap runner */
        SBX_BACKEND_UNAVAILABLE = 4,    /* "unavailable": always SBX_E_SANDBOX_UNAVAILABLE */
        SBX_BACKEND_SEATBELT    = 5,    /* "seatbelt": macOS sandbox-exec (Apple builds
                                         * only; unverified, docs/seatbelt.md) */
        SBX_BACKEND_WINDOWS     = 6     /* "windows": restricted token + job object +
                                         * ACLs (Windows builds only; unverified,
                                         * docs/windows.md) */
} sbx_backend_id;

SBX_API const char *sbx_backend_name(int32_t backend);
SBX_API sbx_code sbx_backend_parse(const char *text, int32_t *backend_out, sbx_error *err);

/* The seed's LocalConfig: force a backend and/or a runner command (for
 * tests and custom runners), bypassing detection. */
typedef struct sbx_local_config {
        uint32_t version;               /* SBX_LOCAL_CONFIG_VERSION */
        int32_t  backend;               /* SBX_BACKEND_AUTO = detect */
        const char *runner_command;     /* NULL = the backend's default runner */
} sbx_local_config;
#define SBX_LOCAL_CONFIG_VERSION 1u
#define SBX_LOCAL_CONFIG_INIT { SBX_LOCAL_CONFIG_VERSION, SBX_BACKEND_AUTO, NULL }
/* Fill *cfg as SBX_LOCAL_CONFIG_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_local_config_init(sbx_local_config *cfg);

/* Set the process-wide local config.  Only before detection ran:
 * afterwards SBX_E_TOO_LATE.  A forced backend that cannot enforce a
 * required guarantee still fails closed.  Without a forced backend,
 * $SBX_BACKEND (read at detection) forces one the same way; the native
 * runner defaults to $SBX_RUNNER, else the installed sandbox-run
 * (docs/backends.md).  Errors: SBX_E_INVALID, SBX_E_TOO_LATE, SBX_E_RANGE,
 * SBX_E_NOMEM.  Thread-safety: safe. */
SBX_API sbx_code sbx_local_config_set(const sbx_local_config *cfg, sbx_error *err);
/* Run detection (once, cached) and return the chosen backend. */
SBX_API sbx_code sbx_backend_detect(int32_t *backend_out, sbx_error *err);
/* The guarantees `backend` can achieve for `plan` (0 for unavailable).
 * *enforcement_out (may be NULL): FULL if every required one is covered. */
SBX_API sbx_code sbx_backend_guarantees(int32_t backend, const sbx_plan *plan,
                                        uint32_t *achieved_out, int32_t *enforcement_out,
                                        sbx_error *err);

/* ---------------------------------------------------------------- Confine */

/*
 * The seed's ConfinedArgv: runner + profile args + "--" + original argv,
 * with the enforcement level, the backend's denial signatures and the
 * runner failure rules.
 */
typedef struct sbx_confined_argv sbx_confined_argv;

/* Confine argv under a confined (never danger) policy: its mode's profile.
 * Errors: SBX_E_INVALID, SBX_E_SANDBOX_UNAVAILABLE (no backend, or it
 * cannot enforce a required guarantee), SBX_E_NOMEM; for a profile whose
 * command.execute is not Allow, SBX_E_GRANT_REQUIRED (Gated: Confine holds
 * no grant) or SBX_E_GRANT_DENIED (Deny). */
SBX_API sbx_code sbx_confine(const char *const *argv, const sbx_confined_policy *policy,
                             sbx_confined_argv **out, sbx_error *err);
/* Confine argv under any sandboxed profile (an unconfined one is
 * SBX_E_DANGER_NOT_CONFINABLE: the caller runs it directly). */
SBX_API sbx_code sbx_confine_profile(const char *const *argv, const sbx_profile *profile,
                                     sbx_confined_argv **out, sbx_error *err);
SBX_API void sbx_confined_argv_free(sbx_confined_argv *c);
/* Borrowed, NULL-terminated; *argc_out (may be NULL) the count. */
SBX_API const char *const *sbx_confined_argv_argv(const sbx_confined_argv *c, size_t *argc_out);
SBX_API int32_t sbx_confined_argv_backend(const sbx_confined_argv *c);
SBX_API int32_t sbx_confined_argv_enforcement(const sbx_confined_argv *c);
SBX_API uint32_t sbx_confined_argv_guarantees(const sbx_confined_argv *c);
SBX_API const char *const *sbx_confined_argv_denial_signatures(const sbx_confined_argv *c,
                                                               size_t *n_out);
SBX_API const sbx_runner_rule *sbx_confined_argv_runner_rules(const sbx_confined_argv *c,
                                                              size_t *n_out);

/* ----------------------------------------------------------------- spawn */

/* The exit status sandbox-run (and the runner) uses for its own failures. */
#define SBX_EXIT_RUNNER_FAILURE 125

typedef struct sbx_spawn_options {
        uint32_t version;               /* SBX_SPAWN_OPTIONS_VERSION (1 and 2 still accepted) */
        int32_t  backend;               /* SBX_BACKEND_AUTO = the detected one */
        const char *cwd;                /* NULL = the workspace root */
        const char *const *envp;        /* environment to filter; NULL = environ */
        const int *keep_fds;            /* passed explicitly; become 3, 4, ... */
        size_t   n_keep_fds;
        uint64_t memory_max;            /* bytes; 0 = no limit, else >= 1 MiB.  A memory cgroup
                                         * (one total for the tree) where one is
                                         * usable, else RLIMIT_AS per process;
                                         * sbx_child_limits says which
                                         * (docs/backends.md) */
        uint64_t pids_max;              /* processes; 0 = no limit.  A pids
                                         * cgroup, else RLIMIT_NPROC; root
                                         * without a cgroup fails closed.  The
                                         * bwrap backend and unconfined plans
                                         * refuse both limits */
        uint32_t flags;                 /* 0, SBX_SPAWN_OBSERVE[_READS] (below) */
        /* ---- version 2 ---- */
        int32_t  stdin_fd;              /* becomes the child's fd 0; -1 = inherit */
        int32_t  stdout_fd;             /* fd 1; -1 = inherit */
        int32_t  stderr_fd;             /* fd 2; -1 = inherit */
        uint64_t timeout_ms;            /* 0 = none; else the whole process tree is
                                         * killed this long after the spawn */
        /* ---- version 3 ---- */
        const char *const *env_set;     /* "NAME=VALUE" entries the command gets on top
                                         * of the filtered environment (a name the
                                         * filter would drop included); not HOME or
                                         * TMPDIR; at most 256 */
        size_t   n_env_set;
} sbx_spawn_options;
#define SBX_SPAWN_OPTIONS_VERSION 3u
#define SBX_SPAWN_OPTIONS_INIT \
        { SBX_SPAWN_OPTIONS_VERSION, SBX_BACKEND_AUTO, NULL, NULL, NULL, 0, 0, 0, 0, -1, -1, -1, 0, \
          NULL, 0 }
/* Fill *opts as SBX_SPAWN_OPTIONS_INIT does (for binding generators). */
SBX_API void sbx_spawn_options_init(sbx_spawn_options *opts);

typedef struct sbx_child sbx_child;

/*
 * Start argv (argv[0] is searched in PATH of the filtered environment, in
 * the sandbox's view: a PATH entry the sandbox hides, such as one in an
 * isolated HOME, is skipped)
 * confined by plan.  Every preparation happens here; the child only
 * applies it.  A plan whose command.execute is Deny or Gated never runs.
 * If any step the plan needs fails, the command does not run and the error
 * names the step; every wait for the child's setup is bounded.  With
 * SBX_BACKEND_AUTO, a rung the environment refuses (e.g. no user
 * namespaces) is remembered as unusable and the next one is tried, never
 * one that enforces less than the plan requires.
 * Errors: SBX_E_INVALID, SBX_E_GRANT_DENIED, SBX_E_GRANT_REQUIRED,
 * SBX_E_SANDBOX_UNAVAILABLE, SBX_E_NOT_FOUND (the command, or the cwd or
 * workspace root does not exist; the message names it), SBX_E_RANGE (a
 * cwd longer than SBX_PATH_MAX, memory_max below 1 MiB), SBX_E_IO,
 * SBX_E_NOMEM, SBX_E_INTERNAL.  A resource
 * that ran out for the moment is SBX_E_NOMEM (ENOMEM) or SBX_E_IO
 * (EMFILE, ENFILE, EAGAIN, ENOBUFS, ENOSPC) with its errno, never
 * remembered: the next spawn may succeed.  Thread-safety: safe (any number of threads at once,
 * and the spawning thread may exit before the child does).  For the native
 * and landlock backends the host's SIGCHLD disposition and reapers do not
 * matter (the child signals no SIGCHLD and only this handle reaps it); a
 * bwrap or direct spawn fails with SBX_E_INVALID while SIGCHLD is ignored
 * (docs/backends.md).
 */
SBX_API sbx_code sbx_spawn(const sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
SBX_API int32_t sbx_child_pid(const sbx_child *child);
/* A descriptor that becomes readable (POLLIN) when the child has exited,
 * for event loops; then call sbx_child_try_wait.  -1 when there is none
 * (a kernel without pidfds) or the child was reaped.  Borrowed. */
SBX_API int sbx_child_pollfd(const sbx_child *child);
/* Wait for the child (up to the spawn's timeout, which kills the whole
 * tree); *wstatus_out as waitpid(2).  Removes scratch. */
SBX_API sbx_code sbx_child_wait(sbx_child *child, int *wstatus_out, sbx_error *err);
/* Non-blocking: *done_out = 1 and *wstatus_out once the child was reaped
 * (also when its timeout just expired: the tree is killed and reaped
 * here), else *done_out = 0. */
SBX_API sbx_code sbx_child_try_wait(sbx_child *child, int *done_out, int *wstatus_out,
                                    sbx_error *err);
/* Send sig to the child's process tree; SIGKILL ends all of it.  A child
 * already reaped is not an error.  Errors: SBX_E_INVALID, SBX_E_IO. */
SBX_API sbx_code sbx_child_kill(sbx_child *child, int sig, sbx_error *err);
/* 1 if the spawn's timeout ended the child. */
SBX_API int sbx_child_timed_out(const sbx_child *child);
/* How this spawn reaches its network allowlist: SBX_EGRESS_* (NONE for
 * NULL and for a spawn without an allowlist).  Since: 0.2. */
SBX_API int32_t sbx_child_egress(const sbx_child *child);
/* One request the egress proxy refused for a spawn (docs/network.md,
 * "Refusals").  reason: sbx_net_reason_name names it ("not-allowed",
 * "address-class", "auth", "resolve", "dial", ...); status: the HTTP status sent
 * (0 where none could be, a transparent TLS connection); host: the
 * normalised target ("" when the request named none); port: 0 when none;
 * addr: the refused address for reason "address-class", else "". */
typedef struct sbx_net_refusal {
        int64_t  time_ms;               /* Unix ms */
        int32_t  reason;
        int32_t  status;
        int32_t  port;
        char     host[256];
        char     addr[48];
} sbx_net_refusal;
/* The spawn's refusals, oldest first: up to max into out, *n_out how many
 * (out may be NULL with max 0 to count), *dropped (may be NULL) those not
 * kept (at most 64 are kept per spawn).  Valid during and after the run.
 * Errors: SBX_E_INVALID.  Since: 0.2. */
SBX_API sbx_code sbx_child_net_refusals(const sbx_child *child, sbx_net_refusal *out,
                                        size_t max, size_t *n_out, uint64_t *dropped,
                                        sbx_error *err);
/* ------------------------------------------------------- denial events */

/* What a denied operation tried (docs/events.md). */
typedef enum sbx_event_op {
        SBX_OP_READ         = 1,    /* "read": open a file or directory to read */
        SBX_OP_WRITE        = 2,    /* "write": open an existing file to write, truncate */
        SBX_OP_CREATE       = 3,    /* "create": a new file, directory, node or link */
        SBX_OP_DELETE       = 4,    /* "delete": unlink, rmdir */
        SBX_OP_RENAME       = 5,    /* "rename": either name of a rename */
        SBX_OP_EXEC         = 6,    /* "exec": execve of a file */
        SBX_OP_CONNECT      = 7,    /* "connect": an internet connection or proxy request */
        SBX_OP_BIND         = 8,    /* "bind" (reserved: not reported yet) */
        SBX_OP_UNIX_CONNECT = 9,    /* "unix-connect": a host unix socket */
        SBX_OP_SIGNAL       = 10,   /* "signal" (reserved: not reported yet) */
        SBX_OP_LIMIT        = 11,   /* "limit": memory, pids or the timeout was reached */
        SBX_OP_SOCKET       = 12    /* "socket": a socket family the profile refuses */
} sbx_event_op;

/* Who saw it. */
typedef enum sbx_event_source {
        SBX_EVENT_OBSERVER = 1,     /* the supervisor's observer (SBX_SPAWN_OBSERVE) */
        SBX_EVENT_PROXY    = 2,     /* the egress proxy (also in sbx_child_net_refusals) */
        SBX_EVENT_LIMITS   = 3      /* the cgroup's or the timeout's accounting */
} sbx_event_source;

#define SBX_EVENT_TARGET_MAX 1024
/* One thing the sandbox refused a spawn.  target: the path as the command
 * named it, made absolute in the sandbox's view (read, write, create,
 * delete, rename, exec); "HOST:PORT" ("[v6]:PORT") for connect; the socket
 * path for unix-connect; "memory", "pids" or "timeout" for limit; the
 * family ("inet", "inet6", ...) for socket.  err: the errno the command got
 * (0 for a limit).  pid: the calling process as the sandbox numbers it (0
 * where unknown).  Only operations the profile denies are events: a file
 * that does not exist anywhere, or one whose own mode bits refuse, is not. */
typedef struct sbx_event {
        int64_t  time_ms;               /* Unix ms */
        int32_t  op;                    /* sbx_event_op */
        int32_t  source;                /* sbx_event_source */
        int32_t  err;
        int32_t  pid;
        int32_t  truncated;             /* 1: target was longer and is cut */
        char     target[SBX_EVENT_TARGET_MAX];
} sbx_event;

/* sbx_spawn_options.flags: watch the command's writes (opens for writing,
 * creates, removes, renames), execs, connects and refused internet sockets
 * and record the ones the plan denies (docs/events.md).  Native and
 * landlock backends only (others: SBX_E_UNSUPPORTED).  It never changes
 * what is enforced; each watched call costs a round trip to the
 * supervisor (bench/observe).  Since: 0.2. */
#define SBX_SPAWN_OBSERVE 0x1u
/* ... and every open for reading too (implies SBX_SPAWN_OBSERVE): reads
 * of hidden files are reported, at a round trip per open (a compile opens
 * thousands of files; bench/observe measures it).  Since: 0.2. */
#define SBX_SPAWN_OBSERVE_READS 0x2u

/* The spawn's events, oldest first: up to max into out, *n_out how many
 * (out may be NULL with max 0 to count), *dropped (may be NULL) those not
 * kept (at most 64 are kept per spawn; repeats of one operation on one
 * target count once).  Proxy refusals and limits are always recorded;
 * file, exec and socket events only with SBX_SPAWN_OBSERVE, reads only
 * with SBX_SPAWN_OBSERVE_READS.  Complete once
 * the child was waited for.  Errors: SBX_E_INVALID.  Since: 0.2. */
SBX_API sbx_code sbx_child_events(const sbx_child *child, sbx_event *out, size_t max,
                                  size_t *n_out, uint64_t *dropped, sbx_error *err);
/* "read", "write", ... ("unknown" for other values).  Never NULL.  Since: 0.2. */
SBX_API const char *sbx_event_op_name(int32_t op);
/* The denial class an event is (SBX_DENIAL_FILE_WRITE for write, create,
 * delete, rename; _FILE_READ; _COMMAND for exec; _NETWORK for connect,
 * unix-connect, socket, bind; SBX_DENIAL_NONE for a limit).  Since: 0.2. */
SBX_API int32_t sbx_event_denial_class(const sbx_event *ev);

/* What a spawn used (sbx_child_usage).  Each value is 0 where `known`
 * lacks its bit. */
#define SBX_USAGE_WALL      0x01u
#define SBX_USAGE_CPU       0x02u
#define SBX_USAGE_MEMORY    0x04u
#define SBX_USAGE_PROCESSES 0x08u
#define SBX_LIMIT_HIT_MEMORY  0x1u
#define SBX_LIMIT_HIT_PIDS    0x2u
#define SBX_LIMIT_HIT_TIMEOUT 0x4u
typedef struct sbx_usage {
        uint32_t version;               /* SBX_USAGE_VERSION, set by the caller */
        uint32_t known;                 /* SBX_USAGE_* */
        uint64_t wall_us;               /* spawn to reap */
        uint64_t user_us, sys_us;       /* CPU time of the whole tree */
        uint64_t peak_memory;           /* bytes: the cgroup's peak, else the largest
                                         * process's peak resident set */
        uint32_t max_processes;         /* the most processes alive at once: the
                                         * spawn's pids cgroup's peak, where it has
                                         * one (a pids limit; rung 2 as root tracks
                                         * its tree in one too) */
        uint32_t limits_hit;            /* SBX_LIMIT_HIT_* */
} sbx_usage;
#define SBX_USAGE_VERSION 1u
#define SBX_USAGE_INIT { SBX_USAGE_VERSION, 0, 0, 0, 0, 0, 0, 0 }
/* What the spawn used, once the child was waited for: out->version must
 * be SBX_USAGE_VERSION (SBX_USAGE_INIT); the rest is filled, each value 0
 * where out->known lacks its bit (docs/events.md, "Resource accounting").
 * Errors: SBX_E_INVALID (NULL, a wrong version, a child not yet reaped).
 * Since: 0.2. */
SBX_API sbx_code sbx_child_usage(const sbx_child *child, sbx_usage *out, sbx_error *err);

/* The organisation's proxy every later egress-proxy execution of this
 * process goes through (docs/network.md, "Upstream"): hostport "HOST:PORT"
 * ("[v6]:PORT"), user and password (both NULL for none) kept in this
 * process and sent only to it.  Both request kinds reach it as CONNECT;
 * when it fails or refuses, the command gets a 502 and never a direct
 * connection.  The route fingerprint of executor sets created afterwards
 * covers it.  hostport NULL: direct again.  Thread-safe; running spawns
 * keep what they started with.  Errors: SBX_E_INVALID, SBX_E_NOMEM.
 * Since: 0.2. */
SBX_API sbx_code sbx_net_upstream_set(const char *hostport, const char *user,
                                      const char *password, sbx_error *err);
/* "not-allowed", "address-class", "auth", ...; "unknown" for other values.
 * Since: 0.2. */
SBX_API const char *sbx_net_reason_name(int32_t reason);
/* What this spawn enforced (required, achieved, enforcement). */
SBX_API sbx_code sbx_child_report(const sbx_child *child, sbx_guarantee_report *out,
                                  sbx_error *err);
/* Kill the child's process tree if still running, reap it (bounded),
 * remove scratch. */
SBX_API void sbx_child_free(sbx_child *child);

/*
 * Call first in main().  When this process was re-executed as the stage-2
 * runner (argv[1] == "--sbx-stage2"), it rebuilds the profile from the rest
 * of argv, runs the command confined (sbx_spawn), waits, and exits with the
 * command's status (128 + signal if it was killed), never returning; a
 * runner failure prints one line "sandbox-run: cannot start sandbox
 * runner: <message>" and exits SBX_EXIT_RUNNER_FAILURE.  Otherwise it
 * returns SBX_OK at once.  Idempotent.
 */
SBX_API sbx_code sbx_init(int argc, char **argv);

/* ------------------------------------------------------------ invariants */

/*
 * Development-mode invariant checks.  When enabled, a broken internal
 * invariant prints "[sandbox invariant] ..." to stderr and aborts; it is the
 * only place the library aborts.  On by default when the library was built
 * without NDEBUG (debug builds), off otherwise.  Thread-safety: atomic.
 */
SBX_API void sbx_invariants_set_enabled(int enabled);
SBX_API int sbx_invariants_enabled(void);

/* ------------------------------------------------------- resource limits */

/*
 * How one resource limit of a spawn is enforced (docs/backends.md,
 * "Resource limits").  Only CGROUP is one total for the whole process
 * tree; the rlimit kinds are what the kernel offers without a cgroup.
 */
typedef enum sbx_limit_kind {
        SBX_LIMIT_NONE        = 0,  /* "none": no limit was asked for */
        SBX_LIMIT_CGROUP      = 1,  /* "cgroup": one total for the whole process tree */
        SBX_LIMIT_PER_PROCESS = 2,  /* "per-process": each process on its own
                                     * (RLIMIT_AS): N processes may use N times it */
        SBX_LIMIT_PER_USER    = 3   /* "per-user": the kernel's count of the user's
                                     * processes (RLIMIT_NPROC): on the native backend
                                     * the tree in its own user namespace, on landlock
                                     * every process of the user on the host, so
                                     * never looser than asked */
} sbx_limit_kind;

/* "none" | "cgroup" | "per-process" | "per-user"; "invalid" otherwise.
 * Never NULL.  Thread-safety: pure.  Since: 0.1. */
SBX_API const char *sbx_limit_kind_name(int32_t kind);

/* The limits one spawn applied. */
typedef struct sbx_limits_report {
        uint32_t version;               /* SBX_LIMITS_REPORT_VERSION */
        int32_t  memory_kind;           /* sbx_limit_kind of memory_max */
        int32_t  pids_kind;             /* sbx_limit_kind of pids_max */
        uint32_t reserved;              /* 0 */
        uint64_t memory_max;            /* bytes, as asked; 0 = no limit */
        uint64_t pids_max;              /* processes, as asked; 0 = no limit */
} sbx_limits_report;
#define SBX_LIMITS_REPORT_VERSION 1u
#define SBX_LIMITS_REPORT_INIT \
        { SBX_LIMITS_REPORT_VERSION, SBX_LIMIT_NONE, SBX_LIMIT_NONE, 0, 0, 0 }
/* Fill *report as SBX_LIMITS_REPORT_INIT does, for binding generators (cffi,
 * bindgen) that cannot expand macros; NULL is ignored.  Since: 0.1. */
SBX_API void sbx_limits_report_init(sbx_limits_report *report);

/*
 * The resource limits sbx_spawn applied to child (sbx_spawn_options
 * memory_max and pids_max) and how each is enforced: a limit that was
 * asked for is never NONE (a spawn that cannot apply it fails instead).
 * Returns SBX_OK.  Errors: SBX_E_INVALID (NULL, or out->version is not
 * SBX_LIMITS_REPORT_VERSION).  Thread-safety: safe on a child no other
 * thread frees.  Since: 0.1.
 */
SBX_API sbx_code sbx_child_limits(const sbx_child *child, sbx_limits_report *out,
                                  sbx_error *err);

/* ------------------------------------------------------- denial classes */

/* What the sandbox denied a failed command (docs/policy.md, "Denial marker"). */
typedef enum sbx_denial_class {
        SBX_DENIAL_NONE       = 0,  /* "none": nothing shows the sandbox caused it */
        SBX_DENIAL_FILE_WRITE = 1,  /* "file-write": a write the profile does not allow */
        SBX_DENIAL_FILE_READ  = 2,  /* "file-read": a read the profile does not allow */
        SBX_DENIAL_NETWORK    = 3,  /* "network": the profile denies the network */
        SBX_DENIAL_COMMAND    = 4   /* "command": executing a file the profile does
                                     * not let run */
} sbx_denial_class;

/* "none" | "file-write" | "file-read" | "network" | "command"; "invalid"
 * otherwise.  Never NULL.  Thread-safety: pure.  Since: 0.1. */
SBX_API const char *sbx_denial_class_name(int32_t denial_class);

/*
 * The model-facing marker naming what was denied, exactly
 *   "[sandbox: file write denied under <mode> mode]"
 *   "[sandbox: file read denied under <mode> mode]"
 *   "[sandbox: network access denied under <mode> mode]"
 *   "[sandbox: command execution denied under <mode> mode]"
 * SBX_DENIAL_CLASS_MARKER_MAX bytes always suffice (NUL included).
 * Errors: SBX_E_INVALID (SBX_DENIAL_NONE or an unknown class, a bad mode,
 * NULL buf), SBX_E_RANGE (buffer too small; nothing written).
 * Thread-safety: pure.  Since: 0.1.
 */
#define SBX_DENIAL_CLASS_MARKER_MAX 80
SBX_API sbx_code sbx_denial_class_marker(int32_t denial_class, int32_t mode, char *buf,
                                         size_t buflen, sbx_error *err);

/*
 * Which denial of the sandbox, if any, explains a failed command, judged
 * from its stderr against the plan it ran under: a line with EACCES,
 * EPERM or EROFS text naming a path whose access the plan does not grant
 * for what the line did (write, read, execute), or, when the plan denies
 * the network, a line of a refused or unreachable connection or a failed
 * name lookup.  A failure the plan allowed (a file's own mode bits, a
 * script without its execute bit inside a writable workspace) is NONE.
 * Relative paths are taken relative to cwd (NULL = the workspace root);
 * backend (SBX_BACKEND_AUTO if unknown) lets backend-specific refusals be
 * recognised (the landlock backend refuses metadata changes everywhere).
 * The rules: docs/policy.md.  exit_code 0, an empty stderr and an
 * unconfined plan are always NONE.  err_text may hold any bytes.
 * Returns SBX_OK with *class_out.  Errors: SBX_E_INVALID, SBX_E_NOMEM,
 * SBX_E_IO.  Thread-safety: safe (the plan is only read).  Since: 0.1.
 */
SBX_API sbx_code sbx_plan_denial(const sbx_plan *plan, int32_t backend, const char *cwd,
                                 int exit_code, const char *err_text, size_t err_len,
                                 int32_t *class_out, sbx_error *err);

/* ------------------------------------------------------------- executors */

/*
 * An executor set runs commands under one profile (docs/executors.md).
 * Each key gets an independent executor: its own grant identity and an
 * owner-only HOME and TMPDIR below the set's scratch root.  An executor
 * runs a command confined, captures its output and answers with what the
 * sandbox enforced; a Gated capability opens for one run only, with a
 * single-spawn grant token the executor minted (sbx_executor_issue_grant).
 * Executors run on the native and landlock backends; a host with neither
 * fails construction (SBX_E_SANDBOX_UNAVAILABLE), never a weaker run.
 * Thread-safety: every call is safe from any thread; sbx_executor_run may
 * run in several threads on one executor at once.
 */
typedef struct sbx_executor_set sbx_executor_set;
typedef struct sbx_executor sbx_executor;

/* Windows options (checked, and otherwise ignored off Windows): which tier
 * of the Windows backend runs commands (docs/windows.md). */
typedef enum sbx_windows_mode {
        SBX_WINDOWS_AUTO             = 0,   /* elevated when the profile needs more than
                                             * the restricted tier and setup is ready;
                                             * restricted only when setup is absent,
                                             * never when it is stale */
        SBX_WINDOWS_RESTRICTED_TOKEN = 1,   /* restricted token + job + ACLs: claims
                                             * env-scrub only */
        SBX_WINDOWS_ELEVATED         = 2    /* the installed broker; never falls back
                                             * (not ready in this version) */
} sbx_windows_mode;

typedef struct sbx_executor_set_options {
        uint32_t version;               /* SBX_EXECUTOR_SET_OPTIONS_VERSION */
        const char *scratch_root;       /* required: absolute; created owner-only when
                                         * missing, else an owner-only directory of
                                         * this user */
        uint32_t max_executors;         /* required: 1..4096 */
        int64_t  grant_ttl_ms;          /* maximum grant lifetime; 0 = 15 minutes;
                                         * negative is SBX_E_INVALID */
        int32_t  backend;               /* SBX_BACKEND_AUTO, NATIVE or LANDLOCK */
        int32_t  windows_mode;          /* sbx_windows_mode */
        const char *windows_state_root; /* NULL, or the state_root of an elevated
                                         * setup (sbx_windows_inspect); a canonical
                                         * local drive path (docs/windows.md) */
} sbx_executor_set_options;
#define SBX_EXECUTOR_SET_OPTIONS_VERSION 1u
#define SBX_EXECUTOR_SET_OPTIONS_INIT \
        { SBX_EXECUTOR_SET_OPTIONS_VERSION, NULL, 0, 0, SBX_BACKEND_AUTO, SBX_WINDOWS_AUTO, NULL }
SBX_API void sbx_executor_set_options_init(sbx_executor_set_options *opts);

/*
 * The elevated Windows tier's lifecycle (seed 003's Setup / Inspect /
 * Remove).  Every path is a canonical local drive path ("C:\...", checked
 * by the Windows path rules).  The tier is NOT READY in this version: it
 * has not been run on a real Windows machine, so sbx_windows_setup installs
 * nothing and fails, sbx_windows_inspect always reports ready = 0 and
 * sbx_windows_remove has nothing to remove (docs/windows.md).
 */
typedef struct sbx_windows_setup_config {
        uint32_t version;               /* SBX_WINDOWS_SETUP_CONFIG_VERSION */
        const char *installation_id;    /* required: 1..64 of [A-Za-z0-9._-] */
        const char *state_root;         /* required: where the installation's state lives */
        const char *host_binary;        /* setup: the broker host executable */
        const char *runtime_evidence_path; /* setup: the reviewed runtime evidence */
        const uint16_t *proxy_ports;    /* loopback proxy ports the broker owns */
        size_t   n_proxy_ports;         /* at most 16 */
} sbx_windows_setup_config;
#define SBX_WINDOWS_SETUP_CONFIG_VERSION 1u
#define SBX_WINDOWS_SETUP_CONFIG_INIT \
        { SBX_WINDOWS_SETUP_CONFIG_VERSION, NULL, NULL, NULL, NULL, NULL, 0 }
/* Fill *cfg as SBX_WINDOWS_SETUP_CONFIG_INIT does (for binding generators);
 * NULL is ignored.  Since: 0.2. */
SBX_API void sbx_windows_setup_config_init(sbx_windows_setup_config *cfg);

typedef struct sbx_windows_status {
        uint32_t version;               /* SBX_WINDOWS_STATUS_VERSION */
        int32_t  ready;                 /* 1: the elevated tier can run commands */
        int32_t  installed;             /* 1: installation state exists at state_root */
        int32_t  reserved;              /* 0 */
        char     reason[SBX_ERROR_SIZE];/* why not ready, or "" */
} sbx_windows_status;
#define SBX_WINDOWS_STATUS_VERSION 1u
#define SBX_WINDOWS_STATUS_INIT { SBX_WINDOWS_STATUS_VERSION, 0, 0, 0, { 0 } }
/* Fill *status as SBX_WINDOWS_STATUS_INIT does; NULL is ignored.  Since: 0.2. */
SBX_API void sbx_windows_status_init(sbx_windows_status *status);

/*
 * Install the elevated tier (run elevated).  Checks cfg, then, in this
 * version, installs nothing and returns SBX_E_SANDBOX_UNAVAILABLE ("not
 * ready: unverified on real Windows").  Errors: SBX_E_INVALID, SBX_E_RANGE,
 * SBX_E_SANDBOX_UNAVAILABLE, SBX_E_UNSUPPORTED (not a Windows build).
 * Thread-safety: safe.  Since: 0.2.
 */
SBX_API sbx_code sbx_windows_setup(const sbx_windows_setup_config *cfg, sbx_error *err);
/*
 * Whether the elevated tier is ready (out->version must be
 * SBX_WINDOWS_STATUS_VERSION).  In this version SBX_OK with ready = 0 and
 * the reason.  Errors: SBX_E_INVALID, SBX_E_RANGE, SBX_E_UNSUPPORTED (not
 * a Windows build).  Thread-safety: safe.  Since: 0.2.
 */
SBX_API sbx_code sbx_windows_inspect(const sbx_windows_setup_config *cfg,
                                     sbx_windows_status *out, sbx_error *err);
/*
 * Remove the elevated tier (run elevated).  This version never installs
 * anything, so it removes nothing: SBX_OK once cfg checks out.  Errors:
 * SBX_E_INVALID, SBX_E_RANGE, SBX_E_UNSUPPORTED (not a Windows build).
 * Thread-safety: safe.  Since: 0.2.
 */
SBX_API sbx_code sbx_windows_remove(const sbx_windows_setup_config *cfg, sbx_error *err);

/* A set for profile (copied).  An unconfined profile needs its ack (as for
 * sbx_profile_new) and runs directly.  Errors: SBX_E_INVALID,
 * SBX_E_SANDBOX_UNAVAILABLE, SBX_E_IO (the scratch root; or the OS ran out
 * of fds or space, or refused a write, while the backend was checked:
 * sys_errno and the message say which), SBX_E_NOMEM. */
SBX_API sbx_code sbx_executor_set_new(const sbx_profile *profile,
                                      const sbx_executor_set_options *opts,
                                      sbx_executor_set **out, sbx_error *err);
/* The executor for key (a non-empty string), created on first use; borrowed,
 * valid until sbx_executor_set_free.  Errors: SBX_E_INVALID, SBX_E_RANGE
 * (more keys than max_executors), SBX_E_CLOSED, SBX_E_IO, SBX_E_NOMEM. */
SBX_API sbx_code sbx_executor_set_get(sbx_executor_set *set, const char *key,
                                      sbx_executor **out, sbx_error *err);
/* Revoke every grant, kill every running command's process tree and wait
 * for it, then remove the directories the set created (never following a
 * link a command planted).  Idempotent; afterwards every call on the set
 * or its executors is SBX_E_CLOSED.  Errors: SBX_E_IO (something could not
 * be removed: the path and the real errno; the set is closed all the same,
 * stays hidden, and a later close tries the removal again). */
SBX_API sbx_code sbx_executor_set_close(sbx_executor_set *set, sbx_error *err);
/* Close (if not yet) and free.  NULL is ignored. */
SBX_API void sbx_executor_set_free(sbx_executor_set *set);

/* The nine grant classes: the shipped enforcement contract. */
#define SBX_GRANT_CLASS_FS_PATH_READ   "filesystem.path.read.v1"
#define SBX_GRANT_CLASS_FS_TREE_READ   "filesystem.tree.read.v1"
#define SBX_GRANT_CLASS_FS_HOST_READ   "filesystem.host.read.v1"
#define SBX_GRANT_CLASS_FS_PATH_WRITE  "filesystem.path.write.v1"
#define SBX_GRANT_CLASS_FS_TREE_WRITE  "filesystem.tree.write.v1"
#define SBX_GRANT_CLASS_FS_HOST_WRITE  "filesystem.host.write.v1"
#define SBX_GRANT_CLASS_NET_PROXY_TARGET "network.proxy-target.v1"
#define SBX_GRANT_CLASS_NET_BROAD      "network.broad.v1"
#define SBX_GRANT_CLASS_COMMAND_START  "command.start.v1"

/* A token: "sbxg1-" + 32 hex digits (128 random bits) + NUL. */
#define SBX_GRANT_TOKEN_SIZE 40

typedef struct sbx_grant_request {
        uint32_t version;               /* SBX_GRANT_REQUEST_VERSION */
        const char *execution_id;       /* required, non-empty */
        const char *command;            /* the exact normalized command (see
                                         * sbx_run_options) */
        const char *cwd;                /* canonical; NULL = the workspace root */
        const char *kind;               /* sbx_profile_access_for's kind ... */
        const char *scope;              /* ... and scope: must be Gated */
        const char *grant_class;        /* SBX_GRANT_CLASS_* */
        const char *target;             /* the normalized target */
        int64_t  expires_at_ms;         /* Unix ms; 0 = now + the set's TTL; capped
                                         * by it; in the past is SBX_E_INVALID */
} sbx_grant_request;
#define SBX_GRANT_REQUEST_VERSION 1u
#define SBX_GRANT_REQUEST_INIT { SBX_GRANT_REQUEST_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

/* Mint a single-spawn token for one Gated capability into token
 * (SBX_GRANT_TOKEN_SIZE bytes).  It re-reads access_for(kind, scope):
 * Deny is SBX_E_GRANT_DENIED, Allow SBX_E_GRANT_UNSUPPORTED.  The class,
 * kind, scope and target must agree exactly (docs/executors.md), and a
 * class the backend cannot enforce is SBX_E_GRANT_UNSUPPORTED.  Errors
 * also: SBX_E_INVALID, SBX_E_RANGE, SBX_E_CLOSED, SBX_E_IO, SBX_E_NOMEM. */
SBX_API sbx_code sbx_executor_issue_grant(sbx_executor *ex, const sbx_grant_request *req,
                                          char *token, size_t token_size, sbx_error *err);

typedef struct sbx_run_options {
        uint32_t version;               /* SBX_RUN_OPTIONS_VERSION */
        const char *execution_id;       /* required with tokens; NULL otherwise */
        const char *cwd;                /* canonical; NULL = the workspace root */
        const char *command;            /* shell form: run as /bin/sh -c command ... */
        const char *const *argv;        /* ... or argv form: exactly one of the two */
        const char *const *tokens;      /* grant tokens for this run */
        size_t   n_tokens;
        const void *stdin_data;         /* written to the command's stdin, then EOF; */
        size_t   stdin_len;             /* NULL: stdin is /dev/null */
        size_t   output_cap;            /* bytes kept per stream; 0 = 1 MiB */
        uint64_t timeout_ms;            /* 0 = none: the whole tree is killed after it */
        const char *const *envp;        /* environment to filter; NULL = environ */
        /* ---- version 2: the result's version-2 fields are filled ---- */
        uint32_t flags;                 /* 0, SBX_SPAWN_OBSERVE[_READS] (a cold spawn,
                                         * never the warm zygote) */
} sbx_run_options;
#define SBX_RUN_OPTIONS_VERSION 2u
#define SBX_RUN_OPTIONS_INIT \
        { SBX_RUN_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, NULL, 0 }
SBX_API void sbx_run_options_init(sbx_run_options *opts);

typedef struct sbx_run_result {
        uint32_t version;               /* set by sbx_executor_run: 2 for options of
                                         * version 2 (the version-2 fields are valid),
                                         * else 1 */
        int32_t  exited;                /* 1: exit_code is valid */
        int32_t  exit_code;
        int32_t  signal;                /* the signal that ended it, or 0 */
        int32_t  timed_out;             /* 1: the timeout killed the tree */
        int32_t  cancelled;             /* 1: sbx_executor_cancel killed the tree */
        char    *out;                   /* stdout, NUL-terminated (out_len bytes) */
        size_t   out_len;
        int32_t  out_truncated;         /* 1: more was written than output_cap */
        char    *err;                   /* stderr, likewise */
        size_t   err_len;
        int32_t  err_truncated;
        sbx_guarantee_report guarantees;/* what this run enforced */
        int32_t  denial;                /* sbx_denial_class: what the sandbox refused:
                                         * from the first event that names one, else
                                         * judged from stderr (sbx_plan_denial) */
        char     marker[SBX_DENIAL_CLASS_MARKER_MAX]; /* its model-facing marker, or "" */
        /* ---- version 2 (written only for sbx_run_options version 2) ---- */
        sbx_event *events;              /* sbx_child_events, malloc'd (n_events) */
        size_t   n_events;
        uint64_t events_dropped;
        sbx_usage usage;                /* sbx_child_usage */
} sbx_run_result;

/*
 * Run one command confined under the executor's profile, widened for this
 * run only by the tokens' grants.  The command forms, and the normalized
 * command a grant binds to:
 *   command  the string itself, run as /bin/sh -c command;
 *   argv     each argument as a POSIX shell word in single quotes (a quote
 *            inside as '\''), joined by one space; run as argv (argv[0]
 *            searched in PATH).
 * Either must satisfy access_for's command rules (non-empty, no control
 * characters, ...).  command.execute Allow runs; Deny is
 * SBX_E_GRANT_DENIED and Gated SBX_E_GRANT_REQUIRED unless a
 * command.start.v1 token for exactly this command is presented; nothing
 * is spawned then.  Every token is verified before the spawn and all are
 * consumed by it (SBX_E_GRANT_UNKNOWN, _REPLAY, _EXPIRED,
 * _WRONG_EXECUTION, _WRONG_COMMAND, _WRONG_WORKING_DIRECTORY,
 * _TARGET_CHANGED; a token that widens nothing the run needs is still
 * consumed).  On SBX_OK *res holds the outcome (free it with
 * sbx_run_result_free), whatever the command's exit status.  Errors also:
 * SBX_E_INVALID, SBX_E_CLOSED, SBX_E_NOT_FOUND, SBX_E_IO, SBX_E_NOMEM and
 * sbx_spawn's.
 */
SBX_API sbx_code sbx_executor_run(sbx_executor *ex, const sbx_run_options *opts,
                                  sbx_run_result *res, sbx_error *err);
/* Kill the process trees of the running commands of execution_id (every
 * one when NULL); their results say cancelled.  Not an error when none
 * runs.  Errors: SBX_E_INVALID, SBX_E_CLOSED. */
SBX_API sbx_code sbx_executor_cancel(sbx_executor *ex, const char *execution_id,
                                     sbx_error *err);
/* Free out and err, and a version-2 result's events (the struct is the
 * caller's).  NULL is ignored. */
SBX_API void sbx_run_result_free(sbx_run_result *res);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_H */
