/*
 * exec.h - the exec layer's internals: the one admission check every entry
 * point passes (sbx_spawn, sbx_confine*, the stage-2 runner, later the
 * executor), the normalised spawn options, the clock.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_EXEC_H
#define SBX_EXEC_H

#include <stdint.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

/*
 * May the plan's command run at all?  command.execute Allow: SBX_OK.
 * Deny: SBX_E_GRANT_DENIED.  Gated: SBX_E_GRANT_REQUIRED (no entry point
 * holds grants yet; the executor will present a command.start grant here).
 * A direct (unconfined) plan gets the same check: an acknowledged
 * unconfined profile may still deny or gate commands.
 * `fn` names the public entry point in the message.  Nothing is started.
 */
sbx_code sbx__admit(const struct sbx_plan *plan, const char *fn, sbx_error *err);

/*
 * The stage-2 runner, for sbx_init (init.c) when argv[1] is
 * SBX__STAGE2_FLAG.  posix/runner.c: this process becomes the runner and
 * never returns (it prints one line and exits 125 on a failure).
 * win32/runner.c: SBX_OK (no stage-2 runner: the backend spawns the
 * command itself).
 */
sbx_code sbx__runner_main(int argc, char **argv);

/* discover.c: sbx_plan_discover with `fn` naming the entry point. */
sbx_code sbx__plan_discover(const sbx_plan *plan, const char *fn, sbx_plan **out,
                            sbx_error *err);

/*
 * Validate opts (NULL = defaults; versions 1 to 3 accepted) into *out, a
 * complete current-version copy (strings and arrays still borrowed).
 */
sbx_code sbx__spawn_options_normalize(const sbx_spawn_options *opts, const char *fn,
                                      sbx_spawn_options *out, sbx_error *err);

/*
 * A warm executor's zygote and what it holds (spawn.c; docs/executors.md
 * "Warm executors").  Owned by one executor; the caller serialises every
 * use (one run at a time per slot).
 */
struct sbx__warm;
struct sbx__warm_slot {
        struct sbx__warm *warm;         /* NULL: none running */
        int32_t  backend;               /* the row that started it */
        sbx_plan *plan;                 /* the plan it holds (git locations found) */
        uint64_t root_dev, root_ino;    /* its workspace root when it started */
        int      off;                   /* no zygote could be started: cold runs only */
};

/*
 * sbx_spawn for an executor's run: the same option checks and the one
 * admission check, then a command of the slot's zygote when it holds
 * exactly this run's plan (started, or restarted, here), otherwise --
 * limits, extra fds, env_set, a backend without zygotes, a zygote that
 * cannot start -- a cold sbx_spawn.  opts->backend must be a concrete row.
 */
sbx_code sbx__spawn_warm(struct sbx__warm_slot *slot, const sbx_plan *plan,
                         const char *const *argv, const sbx_spawn_options *opts,
                         sbx_child **out, sbx_error *err);
/* netproxy.c: a proxied spawn's egress proxy.  prepare: a fresh credential
 * into token (SBX__PROXY_TOKEN_SIZE) and *out, plan with the proxy's
 * variables added to its env_set (and without address-network required
 * when an upstream proxy is set; *gen names that upstream).  attach: serve
 * child's listener (child->net_fd, closed) for plan's allowlist with that
 * credential, through the same upstream (else it fails).
 * release: the execution and the listener, if any (NULL-safe fields). */
struct sbx__net_event;
sbx_code sbx__netproxy_prepare(const sbx_plan *plan, char *token, unsigned *gen,
                               sbx_plan **out, sbx_error *err);
sbx_code sbx__netproxy_attach(sbx_child *child, const sbx_plan *plan, const char *token,
                              unsigned gen, sbx_error *err);
void sbx__netproxy_release(sbx_child *child);
/* The route fingerprint of plan's egress: its rules and the upstream set
 * now (SBX_FINGERPRINT_SIZE; "" where there is no proxy). */
void sbx__netproxy_route_fingerprint(const sbx_plan *plan, char *out);
size_t sbx__netproxy_events(sbx_child *child, struct sbx__net_event *out, size_t max,
                            uint64_t *dropped);

/* Stop the slot's zygote (its command, if any, is killed first). */
void sbx__warm_slot_stop(struct sbx__warm_slot *slot);

/* "read-boundary, network-deny" for the SBX_G_* bits of mask (confine.c). */
void sbx__guarantee_names(uint32_t mask, char *buf, size_t bufsz);

/* An empty child for row be (sbx__child_init), its start time taken;
 * NULL on ENOMEM.  Free an unspawned one with free(). */
struct sbx_backend;
sbx_child *sbx__child_alloc(const struct sbx_backend *be);

/* Denial events (events.c): add one (repeats count once; past
 * SBX__EVENTS_MAX it is dropped), collect a reaped child's (once), free. */
void sbx__events_add(sbx_child *c, int32_t op, int32_t source, int32_t err, int32_t pid,
                     const char *target, size_t len, int64_t time_ms, int truncated);
void sbx__events_collect(sbx_child *c);
void sbx__events_free(sbx_child *c);

#endif /* SBX_EXEC_H */
