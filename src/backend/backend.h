/*
 * backend.h - the interface every enforcement backend implements (the
 * vtable of STYLE.md 37) and the child handle its spawn fills.  Like
 * libgit2's sys/ headers, OS backends include this file to implement it;
 * only src/backend/table.c knows which backends exist, and OS code never
 * calls the table or anything in src/exec/.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

struct sbx__warm;

struct sbx_backend {
        int32_t     id;                 /* sbx_backend_id */
        const char *name;               /* "native", "landlock", "bwrap", "unavailable" */
        /* Cheap: what the backend needs is present.  SBX_OK = try it.  The
         * first real spawn is the real test (detection by doing). */
        sbx_code  (*probe)(sbx_error *err);
        /* Really proves the backend works here (cached per process; free
         * once a spawn succeeded).  For the paths no spawn follows:
         * Confine, sbx_backend_detect, sbx_backend_guarantees(AUTO). */
        sbx_code  (*verify)(sbx_error *err);
        /* SBX_G_* this backend achieves for plan (hardening extras included). */
        uint32_t  (*guarantees)(const struct sbx_plan *plan);
        /* SBX_G_* the argv its confine returns achieves when the host runs
         * it; a subset of guarantees (bwrap's argv cannot carry the seccomp
         * program its spawn passes on an fd). */
        uint32_t  (*confine_guarantees)(const struct sbx_plan *plan);
        /* argv rewriting: runner + profile args + "--" + argv, malloc'd
         * NULL-terminated vector (free with sbx_strv_free). */
        sbx_code  (*confine)(const struct sbx_plan *plan, const sbx_profile *profile,
                             const char *runner, const char *const *argv,
                             char ***argv_out, sbx_error *err);
        /* Start argv under the plan; opts already validated. */
        sbx_code  (*spawn)(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
        /* Reap the child, waiting at most timeout_ms (-1 = no bound, 0 =
         * poll): 0 with *status (a wait status), -ETIMEDOUT, -errno. */
        int       (*wait)(sbx_child *child, int timeout_ms, int *status);
        /* Send sig to the child's process tree (SIGKILL: all of it).
         * 0 or -errno. */
        int       (*kill)(sbx_child *child, int sig);
        /* After the reap (or for a child that never ran): remove what the
         * spawn left on the host, close the pollable descriptor. */
        void      (*release)(sbx_child *child);
        const char *const *denial_signatures;   /* NULL-terminated */
        /* A warm executor (optional; NULL where the backend has none): a
         * zygote confined once under plan, whose commands each start as
         * a fork of it (docs/executors.md "Warm executors").  warm_start:
         * opts gives the environment whose HOME is hidden; no limits.
         * warm_spawn: argv under exactly the plan the zygote holds (the
         * caller checked that); SBX_E_SANDBOX_UNAVAILABLE with errno ESRCH
         * means the zygote is gone and the command was not started.
         * warm_stop: ends the zygote (after its command, if any, was
         * killed and reaped) and frees w. */
        sbx_code  (*warm_start)(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                struct sbx__warm **out, sbx_error *err);
        sbx_code  (*warm_spawn)(struct sbx__warm *w, const struct sbx_plan *plan,
                                const char *const *argv, const sbx_spawn_options *opts,
                                sbx_child **out, sbx_error *err);
        void      (*warm_stop)(struct sbx__warm *w);
};

/* The backend for id (never NULL for a valid id; NULL otherwise). */
const struct sbx_backend *sbx__backend_get(int32_t id);
/* The row that runs direct (unconfined, acknowledged) plans on this OS. */
const struct sbx_backend *sbx__backend_direct(void);
/* The detected (or forced) backend; runs detection once. */
sbx_code sbx__backend_chosen(const struct sbx_backend **out, sbx_error *err);
/* The chosen backend, verified (moving down the chain past any whose
 * verify fails, as a spawn would). */
sbx_code sbx__backend_verified(const struct sbx_backend **out, sbx_error *err);
/* `failed` could not set up a sandbox in this environment (its probe now
 * says so): detection moves down the chain.  *out is the next choice. */
sbx_code sbx__backend_fell_back(const struct sbx_backend *failed,
                                const struct sbx_backend **out, sbx_error *err);
/* 1 if the backend was forced (local config or $SBX_BACKEND). */
int sbx__backend_forced(void);
/* The forced runner command, or NULL. */
const char *sbx__runner_command(void);
/* The runner failure rules of a backend (NULL/0 for unknown ids and for
 * unavailable).  Static, never freed. */
const sbx_runner_rule *sbx__backend_runner_rules(int32_t backend, size_t *n_out);

/* A running (or finished) confined child, whatever the backend. */
struct sbx_child {
        const struct sbx_backend *be;   /* the row that started it */
        pid_t    pid;           /* the process the backend waits for */
        int      pidfd;         /* pollable, -1 where there is none */
        int32_t  backend;       /* sbx_backend_id */
        uint32_t required;      /* SBX_G_* the plan required */
        uint32_t achieved;      /* SBX_G_* this spawn enforced */
        int      waited;        /* 1 once reaped */
        int      status;        /* wait status once reaped */
        int      timed_out;     /* 1 if the timeout ended it */
        int64_t  deadline_ms;   /* CLOCK_MONOTONIC ms; 0 = none */
        int      monitor;       /* Linux rung 2: a subreaper monitor is the top */
        char    *scratch;       /* host scratch directory to remove, or NULL */
        char    *cgroup[2];     /* cgroup directories to remove, or NULL */
        /* 1: a layer of the backend could not be applied (Windows: the
         * restricted token); the report says PARTIAL (docs/windows.md). */
        int32_t  degraded;
        /* Backend-private state (Windows: process, job and ACL undo),
         * freed by the row's release. */
        void    *os;
        /* The resource limits this spawn applied (sbx_child_limits): the
         * value asked for and how it is enforced (sbx_limit_kind). */
        uint64_t memory_max;
        uint64_t pids_max;
        int32_t  memory_kind;
        int32_t  pids_kind;
        struct sbx__warm *warm; /* a warm executor's command: its zygote */
        int32_t *shared;        /* Linux: the launch's progress page, which an
                                 * init/monitor ends with the signal that ended
                                 * the command (ladder.h); NULL = none */
        /* A proxied plan: the listening socket inside the child's network
         * namespace the spawn hands to the exec layer, which serves it
         * (src/net/) and closes it; -1 = none.  The serving execution
         * (struct sbx__proxy_exec *), released with the child. */
        int      net_fd;
        int      net_tfd, net_dfd;      /* transparent mode: its TCP listener and DNS
                                         * socket there (127.0.0.1); -1 = none */
        int      net_tfd6, net_dfd6;    /* the same on [::1]; -1 = none */
        int32_t  egress;                /* sbx_egress the spawn achieved */
        void    *proxy;
        /* The proxy's refusals, kept when its execution was released
         * (sbx_net_refusal[n_refusals], malloc'd; netproxy.c). */
        void    *refusals;
        size_t   n_refusals;
        uint64_t refusals_dropped;
        /* Denial events (src/exec/events.c): sbx_event[n_events], kept
         * oldest first, at most SBX__EVENTS_MAX; events_seen counts every
         * distinct one (the rest were dropped). */
        void    *events;
        size_t   n_events;
        uint64_t events_dropped;
        int      events_done;   /* 1 once the run's events were collected */
        /* SBX_SPAWN_OBSERVE: the read end of the observer's record pipe
         * (Linux: the init/monitor writes records, exec/events.c reads them
         * when the child is reaped); -1 = none. */
        int      obs_fd;
        int      observe;
        /* Resource accounting (sbx_child_usage), filled by the backend as
         * it reaps and releases the child (sbx__usage_*). */
        int64_t  start_us;              /* CLOCK_MONOTONIC at the spawn */
        int64_t  end_us;                /* ... at the reap; 0 = not yet */
        uint32_t usage_known;           /* SBX_USAGE_* */
        uint64_t user_us, sys_us;
        uint64_t peak_memory;
        uint32_t max_processes;
        uint32_t limits_hit;            /* SBX_LIMIT_HIT_* (TIMEOUT set by the exec layer) */
};

/* One record of the observer's pipe (the Linux supervisor writes them,
 * src/exec/events.c reads them): this header, then len bytes of target
 * (no NUL).  One write(2) each, shorter than PIPE_BUF, so records from the
 * supervisor and its workers never interleave. */
struct sbx__obs_rec {
        uint16_t len;
        uint8_t  op;            /* SBX_OP_*; 0 = the summary */
        uint8_t  flags;         /* SBX__OBS_* */
        int32_t  err;
        int32_t  pid;
        uint32_t dropped;       /* the summary: records not sent */
        int64_t  time_ms;       /* Unix ms */
};
#define SBX__OBS_TRUNC  0x1u    /* the target was cut */
#define SBX__OBS_PARENT 0x2u    /* on the host, the parent must exist (a new name) */
#define SBX__OBS_DONE   0x4u    /* the supervisor did the call: err is what it got */
#define SBX__OBS_TARGET_MAX 1023
/* The spawn flags ask for the observer (SBX_SPAWN_OBSERVE_READS implies it). */
#define SBX__OBSERVING(flags) (((flags) & (SBX_SPAWN_OBSERVE | SBX_SPAWN_OBSERVE_READS)) != 0)
/* At most this many events are kept per spawn. */
#define SBX__EVENTS_MAX 64

/* Allocate a zeroed child (pid -1, pidfd -1); NULL on ENOMEM. */
sbx_child *sbx__child_new(int32_t backend);

/* ----- Linux rows (src/linux/) ----- */
sbx_code sbx__native_probe(sbx_error *err);
sbx_code sbx__landlock_probe(sbx_error *err);
sbx_code sbx__native_verify(sbx_error *err);
sbx_code sbx__landlock_verify(sbx_error *err);
uint32_t sbx__native_guarantees(const struct sbx_plan *plan);
uint32_t sbx__native_confine_guarantees(const struct sbx_plan *plan);
uint32_t sbx__landlock_guarantees(const struct sbx_plan *plan);
sbx_code sbx__native_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
sbx_code sbx__landlock_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
sbx_code sbx__direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
int sbx__linux_child_wait(sbx_child *child, int timeout_ms, int *status);
int sbx__linux_child_kill(sbx_child *child, int sig);
void sbx__linux_child_release(sbx_child *child);
sbx_code sbx__native_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                struct sbx__warm **out, sbx_error *err);
sbx_code sbx__landlock_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                  struct sbx__warm **out, sbx_error *err);
sbx_code sbx__warm_spawn(struct sbx__warm *w, const struct sbx_plan *plan,
                         const char *const *argv, const sbx_spawn_options *opts,
                         sbx_child **out, sbx_error *err);
void sbx__warm_stop(struct sbx__warm *w);
sbx_code sbx__runner_confine_native(const struct sbx_plan *plan, const sbx_profile *profile,
                                    const char *runner, const char *const *argv,
                                    char ***argv_out, sbx_error *err);
sbx_code sbx__runner_confine_landlock(const struct sbx_plan *plan, const sbx_profile *profile,
                                      const char *runner, const char *const *argv,
                                      char ***argv_out, sbx_error *err);
sbx_code sbx__bwrap_probe(sbx_error *err);
uint32_t sbx__bwrap_guarantees(const struct sbx_plan *plan);
uint32_t sbx__bwrap_confine_guarantees(const struct sbx_plan *plan);
sbx_code sbx__bwrap_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                            const char *runner, const char *const *argv,
                            char ***argv_out, sbx_error *err);
sbx_code sbx__bwrap_spawn(const struct sbx_plan *plan, const char *const *argv,
                          const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);

/* ----- Windows rows (src/windows/, _WIN32 only) ----- */
struct sbx__win_setup_state;
sbx_code sbx__win_probe(sbx_error *err);
uint32_t sbx__win_guarantees(const struct sbx_plan *plan);
sbx_code sbx__win_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                          const char *runner, const char *const *argv,
                          char ***argv_out, sbx_error *err);
sbx_code sbx__win_spawn(const struct sbx_plan *plan, const char *const *argv,
                        const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
sbx_code sbx__win_direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                               const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
int sbx__win_child_wait(sbx_child *child, int timeout_ms, int *status);
int sbx__win_child_kill(sbx_child *child, int sig);
void sbx__win_child_release(sbx_child *child);
/* The elevated tier's lifecycle; cfg already checked (src/backend/winsetup.c). */
sbx_code sbx__win_broker_setup(const sbx_windows_setup_config *cfg, sbx_error *err);
sbx_code sbx__win_broker_inspect(const sbx_windows_setup_config *cfg,
                                 struct sbx__win_setup_state *state, char *reason,
                                 size_t reason_size, sbx_error *err);
sbx_code sbx__win_broker_remove(const sbx_windows_setup_config *cfg, sbx_error *err);

/* ----- macOS row (src/darwin/, __APPLE__ only) ----- */
sbx_code sbx__seatbelt_probe(sbx_error *err);
uint32_t sbx__seatbelt_guarantees(const struct sbx_plan *plan);
sbx_code sbx__seatbelt_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                               const char *runner, const char *const *argv,
                               char ***argv_out, sbx_error *err);
sbx_code sbx__seatbelt_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
int sbx__darwin_child_wait(sbx_child *child, int timeout_ms, int *status);
int sbx__darwin_child_kill(sbx_child *child, int sig);
void sbx__darwin_child_release(sbx_child *child);

#endif /* SBX_BACKEND_H */
