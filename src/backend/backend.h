/*
 * backend.h - the interface every enforcement backend implements (the
 * vtable of docs/architecture.md, "The backend interface") and the child
 * handle its spawn fills.  Like libgit2's sys/ headers, OS backends
 * include this file to implement it; only src/backend/table.c knows which backends exist, and OS code never
 * calls the table or anything in src/exec/.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

struct sbx__warm;
struct sbx__child_ops;

/* What a row can do beyond spawning (struct sbx_backend.supports).  The
 * exec layer asks the row, never its id. */
#define SBX__ROW_PLACEHOLDER  0x001u    /* not a sandbox: its spawn says why none
                                         * runs here (the "unavailable" row) */
#define SBX__ROW_OBSERVE      0x002u    /* SBX_SPAWN_OBSERVE: a supervisor that
                                         * reports each denial as it happens */
#define SBX__ROW_EXECUTORS    0x004u    /* executor sets run on it */
#define SBX__ROW_PROXY        0x008u    /* the egress proxy: a listener inside the
                                         * command's own network namespace (and
                                         * so network grants) */
#define SBX__ROW_LIMITS       0x020u    /* memory_max / pids_max */
#define SBX__ROW_META_REFUSED 0x080u    /* chmod, chown, utimes and xattrs are
                                         * refused everywhere (EPERM), writable
                                         * roots included (rung 2's seccomp) */

struct sbx_backend {
        int32_t     id;                 /* sbx_backend_id */
        const char *name;               /* "native", "landlock", "bwrap", "unavailable" */
        uint32_t    supports;           /* SBX__ROW_* */
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
         * NULL-terminated vector (free with sbx_strv_free).  runner: the
         * forced runner command (sbx_local_config), or NULL. */
        sbx_code  (*confine)(const struct sbx_plan *plan, const sbx_profile *profile,
                             const char *runner, const char *const *argv,
                             char ***argv_out, sbx_error *err);
        /* Start argv under the plan; opts already validated.  child is
         * empty (sbx__child_init, ops = child_ops); on success the row has
         * filled it, on failure it holds nothing (os NULL, no descriptor,
         * no process) and the caller frees it. */
        sbx_code  (*spawn)(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
        const struct sbx__child_ops *child_ops;
        const char *const *denial_signatures;   /* NULL-terminated */
        /* A warm executor (optional; NULL where the backend has none): a
         * zygote confined once under plan, whose commands each start as
         * a fork of it (docs/executors.md "Warm executors").  warm_start:
         * opts gives the environment whose HOME is hidden; no limits.
         * warm_spawn: argv under exactly the plan the zygote holds (the
         * caller checked that), filling child as spawn does and setting
         * its own child->ops; SBX_E_SANDBOX_UNAVAILABLE with errno ESRCH
         * means the zygote is gone and the command was not started.
         * warm_stop: ends the zygote (after its command, if any, was
         * killed and reaped) and frees w. */
        sbx_code  (*warm_start)(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                struct sbx__warm **out, sbx_error *err);
        sbx_code  (*warm_spawn)(struct sbx__warm *w, const struct sbx_plan *plan,
                                const char *const *argv, const sbx_spawn_options *opts,
                                sbx_child *child, sbx_error *err);
        void      (*warm_stop)(struct sbx__warm *w);
};

/* The backend for id (never NULL for a valid id; NULL otherwise). */
const struct sbx_backend *sbx__backend_get(int32_t id);
/* 1 if backend id names a row of this build that has every SBX__ROW_*
 * bit of what. */
int sbx__backend_supports(int32_t id, uint32_t what);
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
/* The runner failure rules of a backend (NULL/0 for unknown ids and for
 * unavailable).  Static, never freed. */
const sbx_runner_rule *sbx__backend_runner_rules(int32_t backend, size_t *n_out);

/* What a started child can be asked to do: the row's own operations, or
 * a warm executor's (its commands are forks of a zygote, src/linux/warm.c),
 * so the exec layer never asks which kind of child it holds. */
struct sbx__child_ops {
        /* Reap the child, waiting at most timeout_ms (-1 = no bound, 0 =
         * poll): 0 with *status (a wait status), -ETIMEDOUT, -errno. */
        int       (*wait)(sbx_child *child, int timeout_ms, int *status);
        /* Send sig to the child's process tree (SIGKILL: all of it).
         * 0 or -errno. */
        int       (*kill)(sbx_child *child, int sig);
        /* After the reap (or for a child that never ran): remove what the
         * spawn left on the host, close the pollable descriptor, free
         * child->os.  The exec layer calls it once. */
        void      (*release)(sbx_child *child);
};

/* The egress proxy's side of a child (src/exec/netproxy.c): a spawn whose
 * plan is proxied hands over the listening sockets it made inside the
 * child's network namespace; the exec layer serves and closes them. */
struct sbx__child_net {
        int      fd;                    /* the proxy's listener; -1 = none */
        int      tfd, dfd;              /* transparent mode: TCP listener and DNS
                                         * socket there (127.0.0.1); -1 = none */
        int      tfd6, dfd6;            /* the same on [::1]; -1 = none */
        int32_t  egress;                /* sbx_egress the spawn achieved */
        void    *proxy;                 /* struct sbx__proxy_exec *, released with the child */
        /* The proxy's refusals, kept when its execution was released
         * (sbx_net_refusal[n_refusals], malloc'd; netproxy.c). */
        void    *refusals;
        size_t   n_refusals;
        uint64_t refusals_dropped;
};

/* Denial events of a child (src/exec/events.c). */
struct sbx__child_events {
        /* SBX_SPAWN_OBSERVE: the read end of the observer's record pipe
         * (Linux: the init/monitor writes records, events.c reads them when
         * the child is reaped); -1 = none.  The spawn sets it. */
        int      obs_fd;
        /* sbx_event[n], kept oldest first, at most SBX__EVENTS_MAX. */
        void    *list;
        size_t   n;
        uint64_t dropped;
        int      done;                  /* 1 once the run's events were collected */
};

/* A running (or finished) confined child, whatever the backend.  The exec
 * layer allocates it (sbx__child_init) and owns the generic part; the
 * row's spawn fills pid, pidfd, the report and the limits, and keeps
 * whatever else it needs behind os, which its ops->release frees (as
 * curl's connection filters keep their backend data, and libuv its
 * platform fields). */
struct sbx_child {
        const struct sbx_backend   *be;         /* the row that started it */
        const struct sbx__child_ops *ops;       /* the row's child_ops unless the
                                                 * spawn set others (warm) */
        void    *os;            /* the row's private state; NULL = none */
        pid_t    pid;           /* the process the backend waits for */
        int      pidfd;         /* pollable, -1 where there is none */
        int32_t  backend;       /* sbx_backend_id the report names */
        uint32_t required;      /* SBX_G_* the plan required */
        uint32_t achieved;      /* SBX_G_* this spawn enforced */
        /* 1: a layer of the backend could not be applied (Windows: the
         * restricted token); the report says PARTIAL (docs/windows.md). */
        int32_t  degraded;
        int      waited;        /* 1 once reaped */
        int      released;      /* 1 once ops->release ran */
        int      status;        /* wait status once reaped */
        int      timed_out;     /* 1 if the timeout ended it */
        int64_t  deadline_ms;   /* CLOCK_MONOTONIC ms; 0 = none */
        /* The resource limits this spawn applied (sbx_child_limits): the
         * value asked for and how it is enforced (sbx_limit_kind). */
        uint64_t memory_max;
        uint64_t pids_max;
        int32_t  memory_kind;
        int32_t  pids_kind;
        struct sbx__child_net    net;
        struct sbx__child_events events;
        /* Resource accounting (sbx_child_usage), filled by the row as it
         * reaps and releases the child (sbx__usage_*). */
        int64_t  start_us;              /* CLOCK_MONOTONIC at the spawn */
        int64_t  end_us;                /* ... at the reap; 0 = not yet */
        uint32_t usage_known;           /* SBX_USAGE_* */
        uint64_t user_us, sys_us;
        uint64_t peak_memory;
        uint32_t max_processes;
        uint32_t limits_hit;            /* SBX_LIMIT_HIT_* (TIMEOUT set by the exec layer) */
};

/* An empty child: no process, every descriptor -1.  Inline, so a row can
 * make one for its own use (a verify run, a zygote) without calling up. */
static inline void sbx__child_init(sbx_child *c, const struct sbx_backend *be)
{
        memset(c, 0, sizeof(*c));
        c->be = be;
        c->ops = be != NULL ? be->child_ops : NULL;
        c->backend = be != NULL ? be->id : SBX_BACKEND_AUTO;
        c->pid = -1;
        c->pidfd = -1;
        c->net.fd = c->net.tfd = c->net.dfd = c->net.tfd6 = c->net.dfd6 = -1;
        c->events.obs_fd = -1;
}

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

/* ----- Linux rows (src/linux/) ----- */
sbx_code sbx__native_probe(sbx_error *err);
sbx_code sbx__landlock_probe(sbx_error *err);
sbx_code sbx__native_verify(sbx_error *err);
sbx_code sbx__landlock_verify(sbx_error *err);
uint32_t sbx__native_guarantees(const struct sbx_plan *plan);
uint32_t sbx__native_confine_guarantees(const struct sbx_plan *plan);
uint32_t sbx__landlock_guarantees(const struct sbx_plan *plan);
sbx_code sbx__native_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
sbx_code sbx__landlock_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
sbx_code sbx__direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
extern const struct sbx__child_ops sbx__linux_child_ops;
sbx_code sbx__native_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                struct sbx__warm **out, sbx_error *err);
sbx_code sbx__landlock_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                  struct sbx__warm **out, sbx_error *err);
sbx_code sbx__warm_spawn(struct sbx__warm *w, const struct sbx_plan *plan,
                         const char *const *argv, const sbx_spawn_options *opts,
                         sbx_child *child, sbx_error *err);
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
                          const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);

/* ----- Windows rows (src/windows/, _WIN32 only) ----- */
struct sbx__win_setup_state;
sbx_code sbx__win_probe(sbx_error *err);
uint32_t sbx__win_guarantees(const struct sbx_plan *plan);
sbx_code sbx__win_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                          const char *runner, const char *const *argv,
                          char ***argv_out, sbx_error *err);
sbx_code sbx__win_spawn(const struct sbx_plan *plan, const char *const *argv,
                        const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
sbx_code sbx__win_direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                               const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
extern const struct sbx__child_ops sbx__win_child_ops;
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
                             const sbx_spawn_options *opts, sbx_child *child, sbx_error *err);
extern const struct sbx__child_ops sbx__darwin_child_ops;

#endif /* SBX_BACKEND_H */
