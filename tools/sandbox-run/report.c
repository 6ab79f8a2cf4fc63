/*
 * report.c - what sandbox-run says after a run (docs/events.md): with
 * --json one object on stderr, schema "sandbox-run/result" version 1;
 * without it at most a few model-facing lines, one per denied target,
 * naming the flag that would allow it, and the denial marker taken from
 * the events.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_EVENTS 64
#define MAX_LINES  5            /* model-facing lines at most, then a count */

/* The directory of a path ("/" for "/x"). */
static void dir_of(const char *path, char *out, size_t n)
{
        const char *slash = strrchr(path, '/');
        size_t len = slash == NULL ? 0 : (size_t) (slash - path);

        if (len == 0)
                len = 1;
        if (len >= n)
                len = n - 1;
        memcpy(out, path, len);
        out[len] = '\0';
}

/* The proxy's refusals, one line per target (the events carry the same as
 * connect events; these lines say why and how to allow it). */
static void refusal_lines(const sbx_net_refusal *r, size_t n)
{
        size_t i, j;

        for (i = 0; i < n; i++) {
                const char *why = sbx_net_reason_name(r[i].reason);
                int addr = strcmp(why, "address-class") == 0;

                if (r[i].host[0] == '\0' || r[i].port <= 0 ||
                    (strcmp(why, "not-allowed") != 0 && !addr))
                        continue;       /* not a target's refusal (a bad request, the limit) */
                for (j = 0; j < i; j++)
                        if (strcmp(r[j].host, r[i].host) == 0 && r[j].port == r[i].port &&
                            r[j].reason == r[i].reason)
                                break;
                if (j < i)
                        continue;
                {
                        /* "[v6]:port": unbracketed, a hint would name another
                         * address, or one with every port. */
                        int v6 = strchr(r[i].host, ':') != NULL;
                        char raw[300], t[1200];

                        (void) snprintf(raw, sizeof(raw), "%s%s%s:%d", v6 ? "[" : "",
                                        r[i].host, v6 ? "]" : "", (int) r[i].port);
                        printable_line(raw, t, sizeof(t));      /* the command named it */
                        if (addr)
                                fprintf(stderr, "sandbox-run: network: %s was refused: it "
                                        "resolves to %s, an address the allowlist does not name; "
                                        "to allow it: --allow-host %s+CLASS (or the address "
                                        "itself)\n", t, r[i].addr, t);
                        else if (strcmp(r[i].host, "::") == 0 || strcmp(r[i].host, "0.0.0.0") == 0)
                                fprintf(stderr, "sandbox-run: network: %s was refused: an "
                                        "unspecified address is never reachable\n", t);
                        else
                                fprintf(stderr, "sandbox-run: network: %s was refused: not in "
                                        "the allowlist; to allow it: --allow-host %s\n", t, t);
                }
        }
}

/* One model-facing line for an event the observer or the limits saw. */
static void event_line(const sbx_event *ev)
{
        char raw[SBX_EVENT_TARGET_MAX], dir[SBX_EVENT_TARGET_MAX * 4];
        const char *op = sbx_event_op_name(ev->op);
        /* The command chose the name: shown escaped, so that it cannot
         * forge a line (a marker) or drive the terminal. */
        sbx_event shown_ev = *ev;
        const sbx_event *e = &shown_ev;

        printable_line(ev->target, shown_ev.target, sizeof(shown_ev.target));

        switch (e->op) {
        case SBX_OP_READ:
                fprintf(stderr, "sandbox-run: denied: read %s (%s): the profile hides it; to "
                        "allow it: --allow-read %s\n", e->target, strerror(e->err), e->target);
                break;
        case SBX_OP_EXEC:
                fprintf(stderr, "sandbox-run: denied: exec %s (%s): the profile does not let "
                        "it run; to allow it: --allow-read %s\n", e->target, strerror(e->err),
                        e->target);
                break;
        case SBX_OP_WRITE: case SBX_OP_CREATE: case SBX_OP_DELETE: case SBX_OP_RENAME:
                if (e->err == EPERM) {
                        fprintf(stderr, "sandbox-run: denied: %s %s (%s): git metadata stays "
                                "read-only in the sandbox (docs/git.md)\n", op, e->target,
                                strerror(e->err));
                        break;
                }
                if (e->op == SBX_OP_WRITE)
                        (void) snprintf(raw, sizeof(raw), "%s", ev->target);
                else
                        dir_of(ev->target, raw, sizeof(raw));
                printable_line(raw, dir, sizeof(dir));
                fprintf(stderr, "sandbox-run: denied: %s %s (%s): outside the writable roots; "
                        "to allow it: --allow-write %s\n", op, e->target, strerror(e->err), dir);
                break;
        case SBX_OP_CONNECT:
                if (strncmp(e->target, "127.", 4) == 0 || strncmp(e->target, "[::1]", 5) == 0)
                        fprintf(stderr, "sandbox-run: denied: connect %s (%s): the sandbox has "
                                "a loopback of its own, and nothing listens there; the host's "
                                "is reachable only with --allow-host %s\n", e->target,
                                strerror(e->err), e->target);
                else
                        fprintf(stderr, "sandbox-run: denied: connect %s (%s): the network is "
                                "denied; to allow it: --allow-host %s\n", e->target,
                                strerror(e->err), e->target);
                break;
        case SBX_OP_SOCKET:
                fprintf(stderr, "sandbox-run: denied: an %s socket (%s): the network is denied; "
                        "to allow it: --network allow, or --allow-host HOST:PORT on the native "
                        "backend\n", e->target, strerror(e->err));
                break;
        case SBX_OP_UNIX_CONNECT:
                fprintf(stderr, "sandbox-run: denied: connect to the unix socket %s (%s); to "
                        "allow it: --allow-unix %s\n", e->target, strerror(e->err), e->target);
                break;
        case SBX_OP_LIMIT:
                if (strcmp(e->target, "timeout") != 0)  /* the timeout has its own line */
                        fprintf(stderr, "sandbox-run: the %s limit was reached (--%s)\n",
                                e->target, strcmp(e->target, "pids") == 0 ? "pids" : "memory");
                break;
        default:
                fprintf(stderr, "sandbox-run: denied: %s %s (%s)\n", op, e->target,
                        strerror(e->err));
                break;
        }
}

static struct json_object *json_events(const sbx_event *ev, size_t n)
{
        static const char *const src[] = { "unknown", "observer", "proxy", "limits" };
        struct json_object *a = jarr();
        size_t i;

        for (i = 0; i < n; i++) {
                const sbx_event *e = &ev[i];
                struct json_object *o = jobj();

                jset(o, "op", jstr(sbx_event_op_name(e->op)));
                jset(o, "target", jstr(e->target));
                jset(o, "errno", jint(e->err));
                jset(o, "error", jstr(e->err != 0 ? strerror(e->err) : ""));
                jset(o, "denial", jstr(sbx_denial_class_name(sbx_event_denial_class(e))));
                jset(o, "pid", jint(e->pid));
                jset(o, "source", jstr(e->source >= 1 && e->source <= 3 ? src[e->source]
                                                                         : src[0]));
                jset(o, "time_ms", jint(e->time_ms));
                jset(o, "truncated", jbool(e->truncated));
                jpush(a, o);
        }
        return a;
}

static struct json_object *json_usage(const sbx_usage *u)
{
        static const struct { uint32_t bit; const char *name; } hit[] = {
                { SBX_LIMIT_HIT_MEMORY, "memory" },
                { SBX_LIMIT_HIT_PIDS, "pids" },
                { SBX_LIMIT_HIT_TIMEOUT, "timeout" },
        };
        struct json_object *o = jobj(), *hits = jarr();
        size_t i;

        jset(o, "wall_us", ju64(u->wall_us));
        if (u->known & SBX_USAGE_CPU) {
                jset(o, "user_us", ju64(u->user_us));
                jset(o, "sys_us", ju64(u->sys_us));
        }
        if (u->known & SBX_USAGE_MEMORY)
                jset(o, "peak_memory", ju64(u->peak_memory));
        if (u->known & SBX_USAGE_PROCESSES)
                jset(o, "max_processes", ju64(u->max_processes));
        for (i = 0; i < sizeof(hit) / sizeof(hit[0]); i++)
                if (u->limits_hit & hit[i].bit)
                        jpush(hits, jstr(hit[i].name));
        jset(o, "limits_hit", hits);
        return o;
}

/* The "sandbox-run/result" object (docs/events.md), on stderr. */
static void json_result(const sbx_child *child, int status, uint32_t observed,
                        const char *backend, int32_t cls, const sbx_event *ev, size_t ne,
                        uint64_t edropped, const sbx_net_refusal *r, size_t nr,
                        uint64_t rdropped, const sbx_usage *u)
{
        struct json_object *o = jobj(), *refused = jarr();
        size_t i;

        jset(o, "schema", jstr("sandbox-run/result"));
        jset(o, "version", jint(1));
        jset(o, "exit_code", jint(status));
        jset(o, "timed_out", jbool(sbx_child_timed_out(child)));
        jset(o, "backend", jstr(backend));
        jset(o, "observed", jbool(observed != 0));
        jset(o, "reads_observed", jbool((observed & SBX_SPAWN_OBSERVE_READS) != 0));
        jset(o, "denial", jstr(sbx_denial_class_name(cls)));
        jset(o, "events", json_events(ev, ne));
        jset(o, "events_dropped", ju64(edropped));
        for (i = 0; i < nr; i++) {
                struct json_object *e = jobj();

                jset(e, "host", jstr(r[i].host));
                jset(e, "port", jint(r[i].port));
                jset(e, "reason", jstr(sbx_net_reason_name(r[i].reason)));
                jset(e, "address", jstr(r[i].addr));
                jpush(refused, e);
        }
        jset(o, "network_refused", refused);
        jset(o, "network_dropped", ju64(rdropped));
        jset(o, "usage", json_usage(u));
        json_emit(stderr, o);
}

int32_t report_run(const sbx_child *child, int status, uint32_t observed, const char *backend)
{
        sbx_net_refusal r[64];
        static sbx_event ev[MAX_EVENTS];
        sbx_usage u = SBX_USAGE_INIT;
        uint64_t rdropped = 0, edropped = 0;
        size_t nr = 0, ne = 0, i, lines = 0, more = 0;
        int32_t cls = SBX_DENIAL_NONE;

        if (sbx_child_net_refusals(child, r, 64, &nr, &rdropped, NULL) != SBX_OK)
                nr = 0;
        if (sbx_child_events(child, ev, MAX_EVENTS, &ne, &edropped, NULL) != SBX_OK)
                ne = 0;
        if (sbx_child_usage(child, &u, NULL) != SBX_OK)
                memset(&u, 0, sizeof(u));
        for (i = 0; i < ne && cls == SBX_DENIAL_NONE; i++)
                cls = sbx_event_denial_class(&ev[i]);
        if (json_mode) {
                json_result(child, status, observed, backend, cls, ev, ne, edropped, r, nr,
                            rdropped, &u);
                return cls;
        }
        refusal_lines(r, nr);
        for (i = 0; i < ne; i++) {
                if (ev[i].source == SBX_EVENT_PROXY)
                        continue;       /* said above, with the reason */
                if (lines == MAX_LINES) {
                        more++;
                        continue;
                }
                event_line(&ev[i]);
                lines++;
        }
        more += (size_t) edropped;
        if (more > 0)
                fprintf(stderr, "sandbox-run: and %zu more denied operation%s (--json lists "
                        "them)\n", more, more == 1 ? "" : "s");
        fflush(stderr);
        return cls;
}
