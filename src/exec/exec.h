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

/* discover.c: sbx_plan_discover with `fn` naming the entry point. */
sbx_code sbx__plan_discover(const sbx_plan *plan, const char *fn, sbx_plan **out,
                            sbx_error *err);

/*
 * Validate opts (NULL = defaults; versions 1 to 3 accepted) into *out, a
 * complete current-version copy (strings and arrays still borrowed).
 */
sbx_code sbx__spawn_options_normalize(const sbx_spawn_options *opts, const char *fn,
                                      sbx_spawn_options *out, sbx_error *err);

/* "read-boundary, network-deny" for the SBX_G_* bits of mask (confine.c). */
void sbx__guarantee_names(uint32_t mask, char *buf, size_t bufsz);

/* CLOCK_MONOTONIC in ms. */
int64_t sbx__now_ms(void);

#endif /* SBX_EXEC_H */
