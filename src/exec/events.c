/*
 * events.c - a spawn's denial events and resource accounting
 * (sbx_child_events, sbx_child_usage; docs/events.md).  Events come from
 * three places, collected once the child was reaped:
 *
 *   the observer   records the Linux supervisor wrote on the spawn's pipe
 *                  (SBX_SPAWN_OBSERVE, src/linux/observe.c), each kept only
 *                  if its target exists on the host: a name that exists
 *                  nowhere was not hidden from the command;
 *   the proxy      the egress proxy's refusals (sbx_child_net_refusals);
 *   the limits     the timeout, and the memory and pids limits the
 *                  backend saw hit (limits_hit).
 *
 * At most SBX__EVENTS_MAX are kept, oldest first; a repeat of one
 * operation on one target counts once, the rest are counted as dropped.
 * Portable: only the pipe's reading is POSIX.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#  include <fcntl.h>
#  include <sys/stat.h>
#  include <unistd.h>
#endif

#include "backend/backend.h"
#include "exec/exec.h"

static int same(const sbx_event *e, int32_t op, const char *target, size_t len)
{
        return e->op == op && strlen(e->target) == len && memcmp(e->target, target, len) == 0;
}

void sbx__events_add(sbx_child *c, int32_t op, int32_t source, int32_t err, int32_t pid,
                     const char *target, size_t len, int64_t time_ms, int truncated)
{
        sbx_event *v = c->events.list, *e;
        size_t i;

        if (len >= SBX_EVENT_TARGET_MAX) {
                len = SBX_EVENT_TARGET_MAX - 1;
                truncated = 1;
        }
        for (i = 0; i < c->events.n; i++)
                if (same(&v[i], op, target, len))
                        return;                 /* a repeat */
        if (c->events.n >= SBX__EVENTS_MAX) {
                c->events.dropped++;
                return;
        }
        if (v == NULL) {
                v = calloc(SBX__EVENTS_MAX, sizeof(*v));
                if (v == NULL) {
                        c->events.dropped++;
                        return;
                }
                c->events.list = v;
        }
        /* Oldest first: insert by time (records arrive nearly in order). */
        for (i = c->events.n; i > 0 && v[i - 1].time_ms > time_ms; i--)
                ;
        memmove(&v[i + 1], &v[i], (c->events.n - i) * sizeof(*v));
        e = &v[i];
        memset(e, 0, sizeof(*e));
        e->time_ms = time_ms;
        e->op = op;
        e->source = source;
        e->err = err;
        e->pid = pid;
        e->truncated = truncated != 0;
        memcpy(e->target, target, len);
        e->target[len] = '\0';
        c->events.n++;
}

#if !defined(_WIN32)
/* The host has target (or, for a new name, its directory). */
static int on_host(const char *path, int parent)
{
        char dir[SBX_EVENT_TARGET_MAX];
        struct stat st;
        char *slash;

        /* Never an automount: the command chose the name. */
        if (!parent)
                return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) == 0;
        (void) snprintf(dir, sizeof(dir), "%s", path);
        slash = strrchr(dir, '/');
        if (slash == NULL)
                return 0;
        if (slash == dir)
                slash[1] = '\0';
        else
                *slash = '\0';
        return fstatat(AT_FDCWD, dir, &st, AT_NO_AUTOMOUNT) == 0 && S_ISDIR(st.st_mode);
}

/* Every record on the observer's pipe (it is closed at both ends by now:
 * the init/monitor exited). */
static void read_observer(sbx_child *c)
{
        char *buf = NULL;
        size_t len = 0, cap = 0, off = 0;

        for (;;) {
                ssize_t n;

                if (cap - len < 65536) {
                        char *nb = cap < (4u << 20) ? realloc(buf, cap + 65536) : NULL;

                        if (nb == NULL)
                                break;
                        buf = nb;
                        cap += 65536;
                }
                n = read(c->events.obs_fd, buf + len, cap - len);
                if (n > 0) {
                        len += (size_t) n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                break;                  /* EOF, EAGAIN (a worker still holds it), error */
        }
        while (off + sizeof(struct sbx__obs_rec) <= len) {
                struct sbx__obs_rec r;
                char target[SBX__OBS_TARGET_MAX + 1];

                memcpy(&r, buf + off, sizeof(r));
                if (r.len > SBX__OBS_TARGET_MAX || off + sizeof(r) + r.len > len)
                        break;          /* cannot be: the supervisor writes whole records */
                memcpy(target, buf + off + sizeof(r), r.len);
                target[r.len] = '\0';
                off += sizeof(r) + r.len;
                if (r.op == 0) {
                        c->events.dropped += r.dropped;
                        continue;
                }
                if (memchr(target, '\0', r.len) != NULL)
                        continue;
                /* A path's denial needs the path on the host, unless the
                 * supervisor's own call was refused by a rule. */
                if (r.op <= SBX_OP_EXEC && (!(r.flags & SBX__OBS_DONE) || r.err == ENOENT) &&
                    !on_host(target, (r.flags & SBX__OBS_PARENT) != 0))
                        continue;
                sbx__events_add(c, r.op, SBX_EVENT_OBSERVER, r.err, r.pid, target, r.len,
                                r.time_ms, (r.flags & SBX__OBS_TRUNC) != 0);
        }
        free(buf);
}
#endif

void sbx__events_collect(sbx_child *c)
{
        const sbx_net_refusal *nr = c->net.refusals;
        int64_t now = sbx__wall_ms();
        size_t i;

        if (c->events.done)
                return;
        c->events.done = 1;
#if !defined(_WIN32)
        if (c->events.obs_fd >= 0) {
                read_observer(c);
                (void) close(c->events.obs_fd);
                c->events.obs_fd = -1;
        }
#endif
        for (i = 0; nr != NULL && i < c->net.n_refusals; i++) {
                char t[300];
                int v6 = strchr(nr[i].host, ':') != NULL, n;

                if (nr[i].host[0] == '\0')
                        continue;       /* a malformed request, not a target */
                n = nr[i].port > 0 ? snprintf(t, sizeof(t), "%s%s%s:%d", v6 ? "[" : "",
                                              nr[i].host, v6 ? "]" : "", (int) nr[i].port)
                                   : snprintf(t, sizeof(t), "%s", nr[i].host);
                if (n > 0)
                        sbx__events_add(c, SBX_OP_CONNECT, SBX_EVENT_PROXY, EACCES, 0, t,
                                        strlen(t), nr[i].time_ms, 0);
        }
        c->events.dropped += c->net.refusals_dropped;
        if (c->timed_out)
                c->limits_hit |= SBX_LIMIT_HIT_TIMEOUT;
        if (c->limits_hit & SBX_LIMIT_HIT_MEMORY)
                sbx__events_add(c, SBX_OP_LIMIT, SBX_EVENT_LIMITS, 0, 0, "memory", 6, now, 0);
        if (c->limits_hit & SBX_LIMIT_HIT_PIDS)
                sbx__events_add(c, SBX_OP_LIMIT, SBX_EVENT_LIMITS, 0, 0, "pids", 4, now, 0);
        if (c->limits_hit & SBX_LIMIT_HIT_TIMEOUT)
                sbx__events_add(c, SBX_OP_LIMIT, SBX_EVENT_LIMITS, 0, 0, "timeout", 7, now, 0);
}

void sbx__events_free(sbx_child *c)
{
        free(c->events.list);
        c->events.list = NULL;
        c->events.n = 0;
#if !defined(_WIN32)
        if (c->events.obs_fd >= 0)
                (void) close(c->events.obs_fd);
#endif
        c->events.obs_fd = -1;
}

sbx_code sbx_child_events(const sbx_child *child, sbx_event *out, size_t max, size_t *n_out,
                          uint64_t *dropped, sbx_error *err)
{
        size_t n;

        if (child == NULL || n_out == NULL || (max > 0 && out == NULL))
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_events: child and n_out must "
                                 "not be NULL, nor out with max > 0");
        n = child->events.n;
        if (max > 0 && n > 0)
                memcpy(out, child->events.list, (n < max ? n : max) * sizeof(*out));
        *n_out = max == 0 ? n : (n < max ? n : max);
        if (dropped != NULL)
                *dropped = child->events.dropped + (n > max && max > 0 ? n - max : 0);
        return SBX_OK;
}

const char *sbx_event_op_name(int32_t op)
{
        static const char *const names[] = {
                "unknown", "read", "write", "create", "delete", "rename", "exec", "connect",
                "bind", "unix-connect", "signal", "limit", "socket",
        };

        return op > 0 && (size_t) op < sizeof(names) / sizeof(names[0]) ? names[op] : "unknown";
}

int32_t sbx_event_denial_class(const sbx_event *ev)
{
        if (ev == NULL)
                return SBX_DENIAL_NONE;
        switch (ev->op) {
        case SBX_OP_READ:
                return SBX_DENIAL_FILE_READ;
        case SBX_OP_WRITE: case SBX_OP_CREATE: case SBX_OP_DELETE: case SBX_OP_RENAME:
                return SBX_DENIAL_FILE_WRITE;
        case SBX_OP_EXEC:
                return SBX_DENIAL_COMMAND;
        case SBX_OP_CONNECT: case SBX_OP_UNIX_CONNECT: case SBX_OP_SOCKET: case SBX_OP_BIND:
                return SBX_DENIAL_NETWORK;
        default:
                return SBX_DENIAL_NONE;
        }
}

sbx_code sbx_child_usage(const sbx_child *child, sbx_usage *out, sbx_error *err)
{
        if (child == NULL || out == NULL || out->version != SBX_USAGE_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_usage: child and out must not "
                                 "be NULL and out->version must be SBX_USAGE_VERSION");
        if (!child->waited)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_usage: the child was not "
                                 "waited for yet");
        memset(out, 0, sizeof(*out));
        out->version = SBX_USAGE_VERSION;
        out->known = child->usage_known;
        if (child->end_us > child->start_us) {
                out->wall_us = (uint64_t) (child->end_us - child->start_us);
                out->known |= SBX_USAGE_WALL;
        }
        out->user_us = child->user_us;
        out->sys_us = child->sys_us;
        out->peak_memory = child->peak_memory;
        out->max_processes = child->max_processes;
        out->limits_hit = child->limits_hit;
        return SBX_OK;
}
