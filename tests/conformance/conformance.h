/*
 * conformance.h - what the conformance suites share: which backend this
 * run checks ($SBX_CONFORMANCE_BACKEND), an executor set below the
 * fixture's scratch root, and its executors.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_TEST_CONFORMANCE_H
#define SBX_TEST_CONFORMANCE_H

#include <glob.h>

#include "enforcement/spawn_util.h"

/* 1 if backend b (of BACKENDS) is the one this run checks and it runs
 * here (with SBX_REQUIRE_ALL a backend that does not run fails). */
SU int selected(struct fx *f, size_t b)
{
        const char *want = getenv("SBX_CONFORMANCE_BACKEND");

        if (want != NULL && want[0] != '\0' && strcmp(want, sbx_backend_name(BACKENDS[b])) != 0)
                return 0;
        return backend_usable(f, BACKENDS[b]);
}

SU void scratch_path(const struct fx *f, char *out)
{
        join(out, f->outside, "scratch");
}

/* Wait until a command of a set below the fixture's scratch root wrote
 * $TMPDIR/<name> (each executor's TMPDIR is <root>/<set>/<n>/tmp): the
 * command is running, so a cancel or a close now meets it.  1, or 0 when
 * none appeared within WAIT_MS (a failure the caller reports). */
SU int wait_started(const struct fx *f, const char *name)
{
        char root[PATH_MAX], pat[PATH_MAX + 64];
        long t0 = now_ms();

        scratch_path(f, root);
        (void) snprintf(pat, sizeof(pat), "%s/*/*/tmp/%s", root, name);
        while (now_ms() - t0 < WAIT_MS) {
                glob_t g;
                int found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;

                globfree(&g);
                if (found)
                        return 1;
                (void) usleep(10 * 1000);
        }
        return 0;
}

SU sbx_executor_set *new_set(struct fx *f, const sbx_profile *p, int32_t backend,
                                 uint32_t max)
{
        sbx_executor_set_options o = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *s = NULL;
        sbx_error e = { 0, 0, { 0 } };
        char root[PATH_MAX];

        scratch_path(f, root);
        o.scratch_root = root;
        o.max_executors = max;
        o.backend = backend;
        if (sbx_executor_set_new(p, &o, &s, &e) != SBX_OK)
                fail_msg("sbx_executor_set_new: %s", e.message);
        return s;
}

SU sbx_executor *get(sbx_executor_set *s, const char *key)
{
        sbx_executor *ex = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_executor_set_get(s, key, &ex, &e) != SBX_OK)
                fail_msg("sbx_executor_set_get(%s): %s", key, e.message);
        return ex;
}

#endif
