/*
 * unported.c - the Windows answers of the four files the Windows build
 * still leaves out (they say "Builds on: POSIX" in their head comment;
 * cmake/windows.cmake): the executor's (pipes and poll for the capture,
 * symlinkat for the set registry) and the session log's (json-c, flock,
 * fsync).  Public functions say so with SBX_E_UNSUPPORTED and write
 * nothing.  Everything else builds by the folder rule of CMakeLists.txt
 * (src/<layer>/posix/ and win32/), each public function defined once; the
 * pure ones (the *_init functions, sbx_run_result_free) live where every
 * build compiles them.  Until these four are split the same way a public
 * function added to one of them needs its line here: scripts/ci-windows
 * checks the DLL exports every function sandbox.h declares.
 * docs/windows.md, "Building".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "win_internal.h"
#include "paths/paths_internal.h"

static sbx_code unsupported(const char *fn, const char *what, sbx_error *err)
{
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: %s is not available in Windows builds "
                         "yet (docs/windows.md)", fn, what);
}

/* ----------------------------------------------- session log (log.c) */

sbx_code sbx_session_log_open(const char *path, sbx_session_log **out,
                              sbx_session_log_report *report, sbx_error *err)
{
        (void) path;
        (void) out;
        (void) report;
        return unsupported("sbx_session_log_open", "the session log (json-c)", err);
}

sbx_code sbx_session_log_append(sbx_session_log *log, const sbx_mode_event *event,
                                sbx_error *err)
{
        (void) log;
        (void) event;
        return unsupported("sbx_session_log_append", "the session log (json-c)", err);
}

sbx_code sbx_session_log_events(const sbx_session_log *log, const sbx_mode_event **events_out,
                                size_t *n_out, sbx_error *err)
{
        (void) log;
        (void) events_out;
        (void) n_out;
        return unsupported("sbx_session_log_events", "the session log (json-c)", err);
}

void sbx_session_log_close(sbx_session_log *log)
{
        (void) log;     /* none can be opened */
}

/* --------------------------------- executors (executor.c, run.c, grant.c) */

/*
 * The Windows options are checked and the tier chosen exactly as a Windows
 * executor will choose it: an elevated request fails closed here (never
 * ready); anything else reaches the missing executor.
 */
sbx_code sbx_executor_set_new(const sbx_profile *profile, const sbx_executor_set_options *opts,
                              sbx_executor_set **out, sbx_error *err)
{
        static const char fn[] = "sbx_executor_set_new";
        struct sbx__win_setup_state st = { 0, 0 };
        sbx_plan *plan = NULL;
        int32_t tier = 0;
        sbx_code r;

        if (out == NULL || profile == NULL || opts == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile, opts and out must not be "
                                 "NULL", fn);
        if (opts->version != SBX_EXECUTOR_SET_OPTIONS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported options version %u",
                                 fn, (unsigned) opts->version);
        if (opts->windows_state_root != NULL) {
                char canon[SBX__WINPATH_BUF];

                wchar_t *w;

                r = sbx__winpath_check(opts->windows_state_root, canon, sizeof(canon), err);
                if (r != SBX_OK)
                        return r;
                /* This version never installs a setup (broker.c): state
                 * found there is not one it verified, so it is stale. */
                w = sbx__win_wide(canon);
                if (w == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                st.installed = GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;
                free(w);
        }
        r = sbx_plan_compile(profile, &plan, err);
        if (r != SBX_OK)
                return r;
        r = sbx__win_select(opts->windows_mode, plan->required, &st, &tier, err);
        sbx_plan_free(plan);
        if (r != SBX_OK)
                return r;
        return unsupported(fn, "the executor (run capture, grants)", err);
}

sbx_code sbx_executor_set_get(sbx_executor_set *set, const char *key, sbx_executor **out,
                              sbx_error *err)
{
        (void) set;
        (void) key;
        (void) out;
        return unsupported("sbx_executor_set_get", "the executor", err);
}

sbx_code sbx_executor_set_close(sbx_executor_set *set, sbx_error *err)
{
        (void) set;
        return unsupported("sbx_executor_set_close", "the executor", err);
}

void sbx_executor_set_free(sbx_executor_set *set)
{
        (void) set;     /* none can be made */
}

sbx_code sbx_executor_issue_grant(sbx_executor *ex, const sbx_grant_request *req, char *token,
                                  size_t token_size, sbx_error *err)
{
        (void) ex;
        (void) req;
        (void) token;
        (void) token_size;
        return unsupported("sbx_executor_issue_grant", "the executor", err);
}

sbx_code sbx_executor_run(sbx_executor *ex, const sbx_run_options *opts, sbx_run_result *res,
                          sbx_error *err)
{
        (void) ex;
        (void) opts;
        (void) res;
        return unsupported("sbx_executor_run", "the executor", err);
}

sbx_code sbx_executor_cancel(sbx_executor *ex, const char *execution_id, sbx_error *err)
{
        (void) ex;
        (void) execution_id;
        return unsupported("sbx_executor_cancel", "the executor", err);
}

