/*
 * child.c - the child handle every backend's spawn fills: wait (blocking,
 * non-blocking, with the spawn's timeout), kill, the pollable descriptor,
 * the enforcement report, the resource limits applied, release.  Portable: the OS work goes through
 * the backend row that started the child.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend/backend.h"
#include "exec/exec.h"

/* How long a killed tree may take to be reaped before we stop waiting. */
#define SBX__KILL_REAP_MS 5000

sbx_child *sbx__child_alloc(const struct sbx_backend *be)
{
        sbx_child *c = malloc(sizeof(*c));

        if (c == NULL)
                return NULL;
        sbx__child_init(c, be);
        c->start_us = sbx__now_us();
        return c;
}

/* The row's release, once (the reap and the free both ask for it). */
static void release_once(sbx_child *child)
{
        if (child->released || child->ops == NULL)
                return;
        child->released = 1;
        child->ops->release(child);
}

static void reaped(sbx_child *child, int status)
{
        child->waited = 1;
        child->status = status;
        /* The init / monitor reports a command it killed at the deadline
         * as 128 + SIGKILL; the parent kill is a SIGKILL. */
        if (child->deadline_ms > 0 && sbx__now_ms() >= child->deadline_ms &&
            ((WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGKILL) ||
             (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)))
                child->timed_out = 1;
        child->end_us = sbx__now_us();
        sbx__netproxy_release(child);
        release_once(child);
        sbx__events_collect(child);
}

/* The deadline passed: kill the whole tree and reap it (bounded). */
static sbx_code expire(sbx_child *child, const char *fn, sbx_error *err)
{
        int st = 0, r;

        (void) child->ops->kill(child, SIGKILL);
        r = child->ops->wait(child, SBX__KILL_REAP_MS, &st);
        if (r < 0)
                return sbx__fail(err, SBX_E_IO, -r, "%s: the timed-out command could not be "
                                 "reaped within %d ms", fn, SBX__KILL_REAP_MS);
        child->timed_out = 1;
        reaped(child, st);
        return SBX_OK;
}

/* One wait step: timeout_ms -1 blocks (up to the deadline, if any). */
static sbx_code wait_for(sbx_child *child, int block, const char *fn, int *done, sbx_error *err)
{
        int st = 0, r, t;

        *done = 0;
        if (child->waited) {
                *done = 1;
                return SBX_OK;
        }
        for (;;) {
                t = block ? -1 : 0;
                if (child->deadline_ms > 0) {
                        int64_t left = child->deadline_ms - sbx__now_ms();

                        if (left <= 0) {
                                /* Give the init/monitor's own timer a moment. */
                                r = child->ops->wait(child, 0, &st);
                                if (r == 0)
                                        break;
                                r = expire(child, fn, err);
                                *done = r == SBX_OK;
                                return r;
                        }
                        if (block)
                                t = left > 1000000 ? 1000000 : (int) left;
                }
                r = child->ops->wait(child, t, &st);
                if (r == 0)
                        break;
                if (r == -ETIMEDOUT && block)
                        continue;
                if (r == -ETIMEDOUT)
                        return SBX_OK;
                return sbx__fail(err, SBX_E_IO, -r, "%s: waiting for the child failed", fn);
        }
        reaped(child, st);
        *done = 1;
        return SBX_OK;
}

int32_t sbx_child_pid(const sbx_child *child)
{
        return child != NULL ? (int32_t) child->pid : -1;
}

int sbx_child_pollfd(const sbx_child *child)
{
        return child != NULL && !child->waited ? child->pidfd : -1;
}

sbx_code sbx_child_wait(sbx_child *child, int *wstatus_out, sbx_error *err)
{
        sbx_code r;
        int done;

        if (child == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_wait: child is NULL");
        r = wait_for(child, 1, "sbx_child_wait", &done, err);
        if (r != SBX_OK)
                return r;
        if (wstatus_out != NULL)
                *wstatus_out = child->status;
        return SBX_OK;
}

sbx_code sbx_child_try_wait(sbx_child *child, int *done_out, int *wstatus_out, sbx_error *err)
{
        sbx_code r;
        int done;

        if (child == NULL || done_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_child_try_wait: child and done_out must not be NULL");
        r = wait_for(child, 0, "sbx_child_try_wait", &done, err);
        if (r != SBX_OK)
                return r;
        *done_out = done;
        if (done && wstatus_out != NULL)
                *wstatus_out = child->status;
        return SBX_OK;
}

sbx_code sbx_child_kill(sbx_child *child, int sig, sbx_error *err)
{
        int r;

        if (child == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_kill: child is NULL");
        if (sig <= 0 || sig >= 65)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_kill: %d is not a signal", sig);
        if (child->waited)
                return SBX_OK;          /* already reaped: nothing left to signal */
        r = child->ops->kill(child, sig);
        if (r < 0 && r != -ESRCH)
                return sbx__fail(err, SBX_E_IO, -r, "sbx_child_kill: cannot signal the child");
        return SBX_OK;
}

int sbx_child_timed_out(const sbx_child *child)
{
        return child != NULL && child->timed_out;
}

int32_t sbx_child_egress(const sbx_child *child)
{
        return child != NULL && child->net.fd == -1 && child->net.proxy != NULL
               ? child->net.egress : SBX_EGRESS_NONE;
}

sbx_code sbx_child_report(const sbx_child *child, sbx_guarantee_report *out, sbx_error *err)
{
        if (child == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_report: child and out must not be NULL");
        if (out->version != SBX_GUARANTEE_REPORT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_report: out->version must be "
                                 "SBX_GUARANTEE_REPORT_VERSION");
        out->required = child->required;
        out->achieved = child->achieved;
        if (child->achieved == 0)
                out->enforcement = SBX_ENFORCEMENT_NONE;
        else if ((child->achieved & child->required) == child->required)
                out->enforcement = SBX_ENFORCEMENT_FULL;
        else
                out->enforcement = SBX_ENFORCEMENT_PARTIAL;
#ifdef _WIN32
        /* A layer of the Windows backend could not be applied (the
         * restricted token): the seed's partial level (docs/windows.md). */
        if (child->degraded && out->enforcement == SBX_ENFORCEMENT_FULL)
                out->enforcement = SBX_ENFORCEMENT_PARTIAL;
#endif
        return SBX_OK;
}

/* ----------------------------------------------------------- limits */

const char *sbx_limit_kind_name(int32_t kind)
{
        switch (kind) {
        case SBX_LIMIT_NONE:
                return "none";
        case SBX_LIMIT_CGROUP:
                return "cgroup";
        case SBX_LIMIT_PER_PROCESS:
                return "per-process";
        case SBX_LIMIT_PER_USER:
                return "per-user";
        default:
                return "invalid";
        }
}

void sbx_limits_report_init(sbx_limits_report *report)
{
        static const sbx_limits_report init = SBX_LIMITS_REPORT_INIT;

        if (report != NULL)
                *report = init;
}

sbx_code sbx_child_limits(const sbx_child *child, sbx_limits_report *out, sbx_error *err)
{
        if (child == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_child_limits: child and out must not be NULL");
        if (out->version != SBX_LIMITS_REPORT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_limits: out->version must be "
                                 "SBX_LIMITS_REPORT_VERSION");
        /* A limit asked for and not applied would have failed the spawn. */
        SBX__INVARIANT((child->memory_max == 0) == (child->memory_kind == SBX_LIMIT_NONE) &&
                       (child->pids_max == 0) == (child->pids_kind == SBX_LIMIT_NONE),
                       "sbx_child_limits: a limit without an enforcement");
        out->memory_kind = child->memory_kind;
        out->pids_kind = child->pids_kind;
        out->reserved = 0;
        out->memory_max = child->memory_max;
        out->pids_max = child->pids_max;
        return SBX_OK;
}

void sbx_child_free(sbx_child *child)
{
        int st;

        if (child == NULL)
                return;
        if (!child->waited && child->pid > 0) {
                (void) child->ops->kill(child, SIGKILL);
                /* Bounded: a process the kernel holds in uninterruptible
                 * I/O is left to the system rather than hang the host. */
                if (child->ops->wait(child, SBX__KILL_REAP_MS, &st) == 0)
                        child->waited = 1;
        }
        sbx__netproxy_release(child);
        release_once(child);
        sbx__events_free(child);
        free(child->net.refusals);
        free(child);
}
