/*
* table.c - the only file that knows which backends exist: their
 * vtables, the detection chain (run once, pthread_once), the process-wide
 * local config (the seed's LocalConfig), the SBX_BACKEND override, and the
 * per-backend runner failure rules.
 *
 * Detection (docs/backends.md):
 *   forced backend (sbx_local_config_set, else $SBX_BACKEND): probe it; a
 *       probe the environment fails is remembered and every later use fails
 *       closed with SBX_E_SANDBOX_UNAVAILABLE naming it; the chain is
 *       skipped.  A probe that failed for a passing reason (SBX_E_IO) is
 *       never remembered: that call fails, the next detects again.
 *   auto: native (rung 1) -> landlock (rung 2) -> bwrap -> unavailable,
 *       the first whose probe succeeds (Linux); seatbelt -> unavailable
 *       (Apple); windows -> unavailable (Windows).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

/* ---------------------------------------------------- the unavailable */

/* Why each candidate was skipped (filled once by detection). */
static char detect_notes[SBX_ERROR_SIZE];

static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;       /* detect_notes */

static sbx_code unavailable_fail(sbx_error *err)
{
        char notes[SBX_ERROR_SIZE];

        (void) pthread_mutex_lock(&fallback_lock);
        memcpy(notes, detect_notes, sizeof(notes));
        (void) pthread_mutex_unlock(&fallback_lock);
        if (notes[0] != '\0')
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "no usable sandbox backend (%s)", notes);
        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "no usable sandbox backend");
}

static sbx_code unavailable_probe(sbx_error *err)
{
        (void) err;
        return SBX_OK;
}

static uint32_t unavailable_guarantees(const struct sbx_plan *plan)
{
        (void) plan;
        return 0;
}

static sbx_code unavailable_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                                    const char *runner, const char *const *argv,
                                    char ***argv_out, sbx_error *err)
{
        (void) plan;
        (void) profile;
        (void) runner;
        (void) argv;
        (void) argv_out;
        return unavailable_fail(err);
}

static sbx_code unavailable_spawn(const struct sbx_plan *plan, const char *const *argv,
                                  const sbx_spawn_options *opts, sbx_child *child,
                                  sbx_error *err)
{
        (void) plan;
        (void) argv;
        (void) opts;
        (void) child;
        return unavailable_fail(err);
}

static int unavailable_wait(sbx_child *child, int timeout_ms, int *status)
{
        (void) child;
        (void) timeout_ms;
        (void) status;
        return -ECHILD;
}

static int unavailable_kill(sbx_child *child, int sig)
{
        (void) child;
        (void) sig;
        return -ESRCH;
}

static void unavailable_release(sbx_child *child)
{
        (void) child;
}

/* ------------------------------------------------------------ vtables */

static const char *const no_denials[] = { NULL };

static const struct sbx__child_ops unavailable_ops = {
        .wait = unavailable_wait, .kill = unavailable_kill, .release = unavailable_release,
};

static const struct sbx_backend backend_unavailable = {
        .id = SBX_BACKEND_UNAVAILABLE, .name = "unavailable", .supports = SBX__ROW_PLACEHOLDER,
        .probe = unavailable_probe, .verify = unavailable_probe,
        .guarantees = unavailable_guarantees, .confine_guarantees = unavailable_guarantees,
        .confine = unavailable_confine, .spawn = unavailable_spawn,
        .child_ops = &unavailable_ops, .denial_signatures = no_denials,
};

#if defined(__linux__) && !defined(SBX_NO_LINUX_BACKEND)
/* stderr substrings that mean "the sandbox said no" (EACCES, EROFS, EPERM
 * as the C library and the usual tools print them). */
static const char *const linux_denials[] = {
        "Permission denied", "Read-only file system", "Operation not permitted", NULL,
};

/* Rung 1: namespaces, Landlock, seccomp, the supervisor, cgroups. */
static const struct sbx_backend backend_native = {
        .id = SBX_BACKEND_NATIVE, .name = "native",
        .supports = SBX__ROW_OBSERVE | SBX__ROW_EXECUTORS | SBX__ROW_PROXY |
                    SBX__ROW_LIMITS,
        .probe = sbx__native_probe, .verify = sbx__native_verify,
        .guarantees = sbx__native_guarantees,
        .confine_guarantees = sbx__native_confine_guarantees,
        .confine = sbx__runner_confine_native, .spawn = sbx__native_spawn,
        .child_ops = &sbx__linux_child_ops, .denial_signatures = linux_denials,
        .warm_start = sbx__native_warm_start, .warm_spawn = sbx__warm_spawn,
        .warm_stop = sbx__warm_stop,
};

/* Rung 2: no namespaces, so no network namespace for the proxy. */
static const struct sbx_backend backend_landlock = {
        .id = SBX_BACKEND_LANDLOCK, .name = "landlock",
        .supports = SBX__ROW_OBSERVE | SBX__ROW_EXECUTORS | SBX__ROW_LIMITS |
                    SBX__ROW_META_REFUSED,
        .probe = sbx__landlock_probe, .verify = sbx__landlock_verify,
        .guarantees = sbx__landlock_guarantees, .confine_guarantees = sbx__landlock_guarantees,
        .confine = sbx__runner_confine_landlock, .spawn = sbx__landlock_spawn,
        .child_ops = &sbx__linux_child_ops, .denial_signatures = linux_denials,
        .warm_start = sbx__landlock_warm_start, .warm_spawn = sbx__warm_spawn,
        .warm_stop = sbx__warm_stop,
};

static const struct sbx_backend backend_bwrap = {
        .id = SBX_BACKEND_BWRAP, .name = "bwrap",
        .probe = sbx__bwrap_probe, .verify = sbx__bwrap_probe,
        .guarantees = sbx__bwrap_guarantees,
        .confine_guarantees = sbx__bwrap_confine_guarantees,
        .confine = sbx__bwrap_confine, .spawn = sbx__bwrap_spawn,
        .child_ops = &sbx__linux_child_ops, .denial_signatures = linux_denials,
};

/* Direct (unconfined, acknowledged) plans: not a sandbox, never chosen by
 * detection; reported as backend "auto" with nothing enforced. */
static const struct sbx_backend backend_direct = {
        .id = SBX_BACKEND_AUTO, .name = "direct",
        .probe = unavailable_probe, .verify = unavailable_probe,
        .guarantees = unavailable_guarantees, .confine_guarantees = unavailable_guarantees,
        .confine = unavailable_confine, .spawn = sbx__direct_spawn,
        .child_ops = &sbx__linux_child_ops, .denial_signatures = no_denials,
};
#endif

#if defined(_WIN32)
/* Restricted token + job object + ACLs (src/windows/, docs/windows.md).
 * The Windows C runtime and the usual tools print these for
 * ERROR_ACCESS_DENIED. */
static const char *const windows_denials[] = { "Access is denied", "Permission denied", NULL };

static const struct sbx_backend backend_windows = {
        .id = SBX_BACKEND_WINDOWS, .name = "windows",
        .probe = sbx__win_probe, .verify = sbx__win_probe,
        .guarantees = sbx__win_guarantees, .confine_guarantees = unavailable_guarantees,
        .confine = sbx__win_confine, .spawn = sbx__win_spawn,
        .child_ops = &sbx__win_child_ops, .denial_signatures = windows_denials,
};

static const struct sbx_backend backend_win_direct = {
        .id = SBX_BACKEND_AUTO, .name = "direct",
        .probe = unavailable_probe, .verify = unavailable_probe,
        .guarantees = unavailable_guarantees, .confine_guarantees = unavailable_guarantees,
        .confine = unavailable_confine, .spawn = sbx__win_direct_spawn,
        .child_ops = &sbx__win_child_ops, .denial_signatures = no_denials,
};
#endif

#if defined(__APPLE__)
/* sandbox-exec with a compiled SBPL profile (src/darwin/, docs/seatbelt.md):
 * EPERM as libc prints it, and the kernel log's "deny(1)" that some tools
 * echo. */
static const char *const seatbelt_denials[] = { "Operation not permitted", "deny(1)", NULL };

static const struct sbx_backend backend_seatbelt = {
        .id = SBX_BACKEND_SEATBELT, .name = "seatbelt",
        .probe = sbx__seatbelt_probe, .verify = sbx__seatbelt_probe,
        .guarantees = sbx__seatbelt_guarantees, .confine_guarantees = sbx__seatbelt_guarantees,
        .confine = sbx__seatbelt_confine, .spawn = sbx__seatbelt_spawn,
        .child_ops = &sbx__darwin_child_ops, .denial_signatures = seatbelt_denials,
};
#endif

const struct sbx_backend *sbx__backend_direct(void)
{
#if defined(__linux__) && !defined(SBX_NO_LINUX_BACKEND)
        return &backend_direct;
#elif defined(_WIN32)
        return &backend_win_direct;
#else
        return &backend_unavailable;
#endif
}

/* The detection chain, strongest first; `unavailable` ends it. */
static const struct sbx_backend *const chain[] = {
#if defined(__linux__) && !defined(SBX_NO_LINUX_BACKEND)
        &backend_native, &backend_landlock, &backend_bwrap,
#endif
#if defined(__APPLE__)
        &backend_seatbelt,
#endif
#if defined(_WIN32)
        &backend_windows,
#endif
        &backend_unavailable,
};

const struct sbx_backend *sbx__backend_get(int32_t id)
{
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(chain); i++)
                if (chain[i]->id == id)
                        return chain[i];
        return NULL;
}

int sbx__backend_supports(int32_t id, uint32_t what)
{
        const struct sbx_backend *be = sbx__backend_get(id);

        return be != NULL && (be->supports & what) == what;
}

/* ------------------------------------------------------- runner rules */

/* The stage-2 runner (sbx_init) exits 125 with one line
 * "sandbox-run: cannot start sandbox runner: <message>". */
static const int32_t runner_codes[] = { SBX_EXIT_RUNNER_FAILURE };
static const char *const runner_fatal[] = { "cannot start sandbox runner" };
static const sbx_runner_rule runner_rules[] = {
        { SBX_RUNNER_RULE_VERSION, runner_codes, 1, runner_fatal, 1, NULL, 0 },
};

/* bwrap exits 1 and prints "bwrap: <what failed>" when its own setup
 * fails (and when it cannot exec the command). */
static const int32_t bwrap_codes[] = { 1 };
static const char *const bwrap_fatal[] = { "bwrap:" };
static const sbx_runner_rule bwrap_rules[] = {
        { SBX_RUNNER_RULE_VERSION, bwrap_codes, 1, bwrap_fatal, 1, NULL, 0 },
};

/* sandbox-exec prints "sandbox-exec: <what failed>" and exits 65 (a
 * profile it cannot parse) or 71 (one the kernel refused); unverified on a
 * Mac (docs/seatbelt.md). */
static const int32_t seatbelt_codes[] = { 65, 71 };
static const char *const seatbelt_fatal[] = { "sandbox-exec:" };
static const sbx_runner_rule seatbelt_rules[] = {
        { SBX_RUNNER_RULE_VERSION, seatbelt_codes, 2, seatbelt_fatal, 1, NULL, 0 },
};

const sbx_runner_rule *sbx__backend_runner_rules(int32_t backend, size_t *n_out)
{
        switch (backend) {
        case SBX_BACKEND_NATIVE:
        case SBX_BACKEND_LANDLOCK:
                *n_out = SBX__ARRAY_SIZE(runner_rules);
                return runner_rules;
        case SBX_BACKEND_BWRAP:
                *n_out = SBX__ARRAY_SIZE(bwrap_rules);
                return bwrap_rules;
        case SBX_BACKEND_SEATBELT:
                *n_out = SBX__ARRAY_SIZE(seatbelt_rules);
                return seatbelt_rules;
        case SBX_BACKEND_WINDOWS:       /* spawns itself: no runner */
        case SBX_BACKEND_AUTO:
        case SBX_BACKEND_UNAVAILABLE:
        default:
                *n_out = 0;
                return NULL;
        }
}

/* -------------------------------------------------------------- names */

static int backend_valid(int32_t b)
{
        return b >= SBX_BACKEND_AUTO && b <= SBX_BACKEND_WINDOWS;
}

/* ---------------------------------------------------------- detection */

static pthread_mutex_t chosen_lock = PTHREAD_MUTEX_INITIALIZER;
/* Detection runs under detect_lock until it reaches a final answer: a
 * probe that failed for a passing reason (SBX_E_IO: EMFILE, ENOMEM, a
 * timeout) fails that call only, and the next call detects again. */
static pthread_mutex_t detect_lock = PTHREAD_MUTEX_INITIALIZER;
static int detect_done;                 /* under detect_lock */

static const struct sbx_backend *chosen;        /* NULL: detection failed closed;
                                                 * later writes under chosen_lock */
static int forced_backend;                      /* 1: no fallback */
static sbx_code chosen_code = SBX_E_SANDBOX_UNAVAILABLE;
static int chosen_errno;
static char chosen_msg[SBX_ERROR_SIZE];

static void note(const char *name, const char *why)
{
        size_t used = strlen(detect_notes);
        int n;

        if (used + 4 >= sizeof(detect_notes))
                return;
        n = snprintf(detect_notes + used, sizeof(detect_notes) - used, "%s%s: %s",
                     used > 0 ? "; " : "", name, why);
        if (n < 0)
                detect_notes[used] = '\0';
        else if ((size_t) n >= sizeof(detect_notes) - used)    /* cut: say so */
                memcpy(detect_notes + sizeof(detect_notes) - 4, "...", 4);
}

/* A probe failed for a passing reason: this call's answer, not final. */
static void transient(const char *name, const sbx_error *e)
{
        chosen = NULL;
        chosen_code = SBX_E_IO;
        chosen_errno = e->sys_errno;
        detect_done = 0;
        int n = snprintf(chosen_msg, sizeof(chosen_msg),
                         "the %s backend's probe failed for a passing reason (not remembered: "
                         "the next call tries again): %.160s", name, e->message);

        if (n < 0)
                chosen_msg[0] = '\0';
}

static void detect(void)
{
        const struct sbx_backend *be;
        const char *env;
        int32_t forced;
        sbx_error e;
        size_t i;

        detect_done = 1;                /* unless a probe fails for a passing reason */
        chosen_code = SBX_E_SANDBOX_UNAVAILABLE;
        chosen_errno = 0;
        (void) pthread_mutex_lock(&fallback_lock);
        detect_notes[0] = '\0';
        (void) pthread_mutex_unlock(&fallback_lock);
        forced = sbx__local_backend();          /* frozen from now on */

        if (forced == SBX_BACKEND_AUTO) {
                env = sbx__secure_getenv("SBX_BACKEND");
                if (env != NULL && env[0] != '\0' &&
                    sbx_backend_parse(env, &forced, NULL) != SBX_OK) {
                        /* A typo must not silently mean "detect". */
                        chosen = NULL;
                        (void) snprintf(chosen_msg, sizeof(chosen_msg),
                                        "SBX_BACKEND=\"%.64s\" is not a backend (auto, native, "
                                        "landlock, bwrap, unavailable, seatbelt, windows); "
                                        "refusing to guess", env);
                        return;
                }
        }
        if (forced != SBX_BACKEND_AUTO) {
                be = sbx__backend_get(forced);
                if (be == NULL) {
                        (void) snprintf(chosen_msg, sizeof(chosen_msg),
                                        "the forced backend \"%s\" does not exist on this "
                                        "platform", sbx_backend_name(forced));
                        return;
                }
                memset(&e, 0, sizeof(e));
                if (be->probe(&e) != SBX_OK) {
                        if (e.code == SBX_E_IO) {
                                transient(be->name, &e);
                                return;
                        }
                        (void) snprintf(chosen_msg, sizeof(chosen_msg),
                                        "the forced %s backend is not usable: %.200s", be->name,
                                        e.message[0] != '\0' ? e.message : "its probe failed");
                        return;
                }
                chosen = be;
                forced_backend = 1;
                return;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(chain); i++) {
                memset(&e, 0, sizeof(e));
                if (chain[i]->probe(&e) == SBX_OK) {
                        chosen = chain[i];
                        return;
                }
                if (e.code == SBX_E_IO) {
                        transient(chain[i]->name, &e);
                        return;
                }
                (void) pthread_mutex_lock(&fallback_lock);
                note(chain[i]->name, e.message[0] != '\0' ? e.message : "probe failed");
                (void) pthread_mutex_unlock(&fallback_lock);
        }
        chosen = &backend_unavailable;   /* not reached: its probe never fails */
}

static void detect_run(void)
{
        (void) pthread_mutex_lock(&detect_lock);
        if (!detect_done)
                detect();
        (void) pthread_mutex_unlock(&detect_lock);
}

sbx_code sbx__backend_chosen(const struct sbx_backend **out, sbx_error *err)
{
        const struct sbx_backend *be;

        detect_run();
        (void) pthread_mutex_lock(&chosen_lock);
        be = chosen;
        (void) pthread_mutex_unlock(&chosen_lock);
        if (be == NULL)
                return sbx__fail(err, chosen_code, chosen_errno, "%s", chosen_msg);
        *out = be;
        return SBX_OK;
}

sbx_code sbx__backend_verified(const struct sbx_backend **out, sbx_error *err)
{
        const struct sbx_backend *be = NULL;
        sbx_error e;
        sbx_code r;
        size_t i;

        r = sbx__backend_chosen(&be, err);
        for (i = 0; r == SBX_OK && i < SBX__ARRAY_SIZE(chain); i++) {
                memset(&e, 0, sizeof(e));
                if (be->verify(&e) == SBX_OK) {
                        *out = be;
                        return SBX_OK;
                }
                if (forced_backend)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, e.sys_errno,
                                         "the forced %s backend is not usable: %.200s", be->name,
                                         e.message);
                /* Only an environment refusal (the backend's cheap check
                 * now fails) moves detection down the chain; a verify that
                 * failed for a passing reason (load) is that call's error. */
                if (be->probe(NULL) == SBX_OK) {
                        if (err != NULL)
                                *err = e;
                        return e.code != SBX_OK ? (sbx_code) e.code : SBX_E_SANDBOX_UNAVAILABLE;
                }
                r = sbx__backend_fell_back(be, &be, err);
        }
        if (r == SBX_OK)
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "no usable sandbox backend");
        return r;
}

int sbx__backend_forced(void)
{
        detect_run();
        return forced_backend;
}

sbx_code sbx__backend_fell_back(const struct sbx_backend *failed,
                                const struct sbx_backend **out, sbx_error *err)
{
        const struct sbx_backend *next = NULL;
        sbx_error e;
        size_t i, at = SBX__ARRAY_SIZE(chain);

        detect_run();
        if (forced_backend || failed == NULL)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "the forced backend cannot run here");
        for (i = 0; i < SBX__ARRAY_SIZE(chain); i++)
                if (chain[i] == failed)
                        at = i;
        /* Only strictly weaker rows, and only those whose cheap check
         * passes; the caller still refuses one that enforces less than
         * the plan requires. */
        (void) pthread_mutex_lock(&fallback_lock);
        for (i = at + 1; i < SBX__ARRAY_SIZE(chain) && next == NULL; i++) {
                memset(&e, 0, sizeof(e));
                if (chain[i]->probe(&e) == SBX_OK)
                        next = chain[i];
                else
                        note(chain[i]->name, e.message[0] != '\0' ? e.message : "probe failed");
        }
        (void) pthread_mutex_unlock(&fallback_lock);
        if (next == NULL)
                next = &backend_unavailable;
        (void) pthread_mutex_lock(&chosen_lock);
        if (chosen == failed)
                chosen = next;
        next = chosen;
        (void) pthread_mutex_unlock(&chosen_lock);
        *out = next;
        return SBX_OK;
}

sbx_code sbx_backend_detect(int32_t *backend_out, sbx_error *err)
{
        const struct sbx_backend *be = NULL;
        sbx_code r;

        if (backend_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_backend_detect: backend_out is NULL");
        r = sbx__backend_verified(&be, err);
        if (r != SBX_OK)
                return r;
        *backend_out = be->id;
        return SBX_OK;
}

sbx_code sbx_backend_guarantees(int32_t backend, const sbx_plan *plan, uint32_t *achieved_out,
                                int32_t *enforcement_out, sbx_error *err)
{
        static const char fn[] = "sbx_backend_guarantees";
        const struct sbx_backend *be = NULL;
        uint32_t achieved = 0;
        int32_t enf = SBX_ENFORCEMENT_NONE;
        sbx_code r;

        if (plan == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan is NULL", fn);
        if (achieved_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: achieved_out is NULL", fn);
        if (!backend_valid(backend))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: backend %d is not a backend", fn,
                                 (int) backend);
        if (backend == SBX_BACKEND_AUTO) {
                r = sbx__backend_verified(&be, err);
                if (r != SBX_OK)
                        return r;
        } else {
                be = sbx__backend_get(backend);
                /* A backend this platform does not have, or that does not
                 * work here, achieves nothing. */
                if (be != NULL && be->id != SBX_BACKEND_UNAVAILABLE && be->verify(NULL) != SBX_OK)
                        be = NULL;
        }
        /* A direct plan has no boundary at all: nothing is enforced. */
        if (be != NULL && !plan->direct) {
                achieved = be->guarantees(plan);
                if (achieved != 0)
                        enf = (achieved & plan->required) == plan->required
                                      ? SBX_ENFORCEMENT_FULL : SBX_ENFORCEMENT_PARTIAL;
        }
        *achieved_out = achieved;
        if (enforcement_out != NULL)
                *enforcement_out = enf;
        return SBX_OK;
}
