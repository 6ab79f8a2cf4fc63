/*
 * netproxy.c - a proxied spawn's egress proxy (docs/network.md): the
 * process's one proxy engine (src/net/), started on first use; before the
 * spawn, the credential and the proxy variables of the child's
 * environment; after it, the execution that serves the listener the
 * backend brought out of the child's network namespace; its release with
 * the child.  Without a served listener there is no spawn: the backend's
 * guarantees (target-network, address-network) hold only with it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "exec/exec.h"

#if defined(_WIN32)
/* No src/net/ on Windows (POSIX sockets and threads): a proxied plan (an
 * allowlist) cannot run there, and says so before anything is spawned. */
sbx_code sbx__netproxy_prepare(const sbx_plan *plan, char *token, unsigned *gen,
                               sbx_plan **out, sbx_error *err)
{
        (void) plan;
        (void) token;
        *gen = 0;
        *out = NULL;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "sbx_spawn: a network allowlist needs the "
                         "egress proxy, which is not built for Windows");
}

sbx_code sbx__netproxy_attach(sbx_child *child, const sbx_plan *plan, const char *token,
                              unsigned gen, sbx_error *err)
{
        (void) child;
        (void) plan;
        (void) token;
        (void) gen;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "sbx_spawn: no egress proxy on Windows");
}

void sbx__netproxy_release(sbx_child *child)
{
        (void) child;
}

size_t sbx__netproxy_events(sbx_child *child, struct sbx__net_event *out, size_t max,
                            uint64_t *dropped)
{
        (void) child;
        (void) out;
        (void) max;
        if (dropped != NULL)
                *dropped = 0;
        return 0;
}

const char *sbx_net_reason_name(int32_t reason)
{
        (void) reason;
        return "unknown";
}

sbx_code sbx_net_upstream_set(const char *hostport, const char *user, const char *password,
                              sbx_error *err)
{
        (void) hostport;
        (void) user;
        (void) password;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "sbx_net_upstream_set: no egress proxy "
                         "on Windows");
}

void sbx__netproxy_route_fingerprint(const sbx_plan *plan, char *out)
{
        (void) plan;
        out[0] = '\0';
}
#else
#include "net/net.h"

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static struct sbx__proxy_engine *engine;
static sbx_error engine_err;

/* The organisation's proxy (sbx_net_upstream_set); has_upstream 0 = direct. */
static pthread_mutex_t upstream_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sbx__net_upstream upstream;
static int has_upstream;
static unsigned upstream_gen;           /* bumped by every sbx_net_upstream_set */

sbx_code sbx_net_upstream_set(const char *hostport, const char *user, const char *password,
                              sbx_error *err)
{
        struct sbx__net_upstream u;
        sbx_code r = SBX_OK;

        memset(&u, 0, sizeof(u));
        if (hostport != NULL) {
                r = sbx__net_upstream_set(&u, hostport, user, password, err);
                if (r != SBX_OK)
                        return r;
        }
        (void) pthread_mutex_lock(&upstream_lock);
        if (has_upstream)
                sbx__net_upstream_clear(&upstream);
        upstream = u;
        has_upstream = hostport != NULL;
        upstream_gen++;
        (void) pthread_mutex_unlock(&upstream_lock);
        return SBX_OK;
}

void sbx__netproxy_route_fingerprint(const sbx_plan *plan, char *out)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        size_t i;

        for (i = 0; i < plan->n_net_allow; i++)
                (void) sbx__net_rules_add(&rs, plan->net_allow[i], NULL);
        (void) pthread_mutex_lock(&upstream_lock);
        sbx__net_route_fingerprint(&rs, has_upstream ? &upstream : NULL, out);
        (void) pthread_mutex_unlock(&upstream_lock);
        sbx__net_rules_clear(&rs);
}

static void engine_start(void)
{
        if (sbx__proxy_engine_new(NULL, &engine, &engine_err) != SBX_OK)
                engine = NULL;
}

/* The proxy's variables, as the common tools read them (curl, pip, npm,
 * git, Go, Python's urllib, Node's undici with a global agent).  no_proxy
 * names only the private loopback, which stays direct. */
static const char *const proxy_vars[] = {
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
};

sbx_code sbx__netproxy_prepare(const sbx_plan *plan, char *token, unsigned *gen,
                               sbx_plan **out, sbx_error *err)
{
        char url[SBX__PROXY_TOKEN_SIZE + 64];
        char *v[SBX__ARRAY_SIZE(proxy_vars) + 2 + 256];
        size_t n = 0, i;
        int rc, up;

        *out = NULL;
        (void) pthread_mutex_lock(&upstream_lock);
        *gen = upstream_gen;
        up = has_upstream;
        (void) pthread_mutex_unlock(&upstream_lock);
        if (plan->n_env_set > 256)
                return sbx__fail(err, SBX_E_RANGE, 0, "sbx_spawn: too many env_set entries");
        rc = sbx__proxy_token_new(token);
        if (rc < 0)
                return sbx__fail(err, SBX_E_INTERNAL, -rc, "sbx_spawn: the proxy credential: %s",
                                 sbx__strerror(-rc));
        (void) snprintf(url, sizeof(url), "http://%s:%s@127.0.0.1:%d", SBX__PROXY_USER, token,
                        SBX__PROXY_PORT);
        for (i = 0; i < plan->n_env_set; i++)
                v[n++] = plan->env_set[i];
        for (i = 0; i < SBX__ARRAY_SIZE(proxy_vars); i++) {
                size_t len = strlen(proxy_vars[i]) + 1 + strlen(url) + 1;

                v[n] = malloc(len);
                if (v[n] == NULL)
                        goto nomem;
                (void) snprintf(v[n], len, "%s=%s", proxy_vars[i], url);
                n++;
        }
        v[n++] = "no_proxy=localhost,127.0.0.1,::1";
        v[n++] = "NO_PROXY=localhost,127.0.0.1,::1";
        rc = sbx__plan_env_set(plan, (const char *const *) v, n, out);
        for (i = plan->n_env_set; i < plan->n_env_set + SBX__ARRAY_SIZE(proxy_vars); i++)
                free(v[i]);
        if (rc < 0)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        /* Through an organisation proxy the names are its to resolve: the
         * address classes are its policy, not ours (docs/network.md). */
        if (up)
                (*out)->required &= ~(uint32_t) SBX_G_ADDRESS_NETWORK;
        return SBX_OK;
nomem:
        for (i = plan->n_env_set; i < n; i++)
                free(v[i]);
        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
}

/* The listeners the backend brought out of the child's namespace, closed
 * (the engine holds its own duplicates). */
static void close_net(sbx_child *child)
{
        int *v[5] = { &child->net.fd, &child->net.tfd, &child->net.dfd, &child->net.tfd6,
                      &child->net.dfd6 };
        size_t i;

        for (i = 0; i < 5; i++) {
                if (*v[i] >= 0)
                        (void) close(*v[i]);
                *v[i] = -1;
        }
}

sbx_code sbx__netproxy_attach(sbx_child *child, const sbx_plan *plan, const char *token,
                              unsigned gen, sbx_error *err)
{
        struct sbx__net_rules rules = SBX__NET_RULES_INIT;
        struct sbx__proxy_config cfg;
        struct sbx__proxy_exec *x = NULL;
        size_t i;
        sbx_code r = SBX_OK;

        if (child->net.fd < 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "sbx_spawn: the %s backend "
                                 "gave no proxy listener; refusing to run with the network "
                                 "unconfined", sbx_backend_name(child->backend));
        (void) pthread_once(&engine_once, engine_start);
        if (engine == NULL) {
                if (err != NULL)
                        *err = engine_err;
                r = engine_err.code != SBX_OK ? (sbx_code) engine_err.code : SBX_E_INTERNAL;
                goto out;
        }
        for (i = 0; i < plan->n_net_allow && r == SBX_OK; i++)
                r = sbx__net_rules_add(&rules, plan->net_allow[i], err);
        if (r != SBX_OK)
                goto out;
        cfg.rules = &rules;
        cfg.upstream = NULL;
        cfg.token = token;
        /* The engine copies the upstream (its credential too) under the
         * lock: a later sbx_net_upstream_set changes later spawns only. */
        (void) pthread_mutex_lock(&upstream_lock);
        if (gen != upstream_gen) {
                /* The child's plan was made for the other upstream. */
                (void) pthread_mutex_unlock(&upstream_lock);
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "sbx_spawn: the upstream proxy "
                              "changed while the spawn started; the command was not run");
                goto out;
        }
        if (has_upstream)
                cfg.upstream = &upstream;
        r = sbx__proxy_exec_new(engine, &cfg, child->net.fd, &x, err);
        (void) pthread_mutex_unlock(&upstream_lock);
        if (r == SBX_OK) {
                child->net.proxy = x;
                child->net.egress = SBX_EGRESS_PROXY_ONLY;
                if (cfg.upstream != NULL)
                        child->achieved &= ~(uint32_t) SBX_G_ADDRESS_NETWORK;
        }
        /* Transparent mode: the namespace already redirects every other
         * connection and DNS query to these; serve them, or the spawn
         * fails (an unserved listener would hold connections open). */
        if (r == SBX_OK && (child->net.tfd >= 0 || child->net.dfd >= 0)) {
                r = sbx__proxy_exec_transparent(x, child->net.tfd, child->net.dfd, err);
                if (r == SBX_OK && (child->net.tfd6 >= 0 || child->net.dfd6 >= 0))
                        r = sbx__proxy_exec_transparent(x, child->net.tfd6, child->net.dfd6,
                                                        err);
                if (r == SBX_OK)
                        child->net.egress = SBX_EGRESS_TRANSPARENT;
        }
out:
        sbx__net_rules_clear(&rules);
        close_net(child);
        return r;
}

/* At most this many refusals are kept per spawn once it ended. */
#define KEPT_REFUSALS 64

static void keep_refusals(sbx_child *child)
{
        struct sbx__net_event ev[KEPT_REFUSALS];
        sbx_net_refusal *v;
        uint64_t dropped = 0;
        size_t n, i;

        n = sbx__proxy_exec_events(child->net.proxy, ev, KEPT_REFUSALS, &dropped);
        child->net.refusals_dropped = dropped;
        if (n == 0)
                return;
        v = calloc(n, sizeof(*v));
        if (v == NULL) {
                child->net.refusals_dropped += n;
                return;
        }
        for (i = 0; i < n; i++) {
                v[i].time_ms = ev[i].time_ms;
                v[i].reason = ev[i].reason;
                v[i].status = ev[i].status;
                v[i].port = ev[i].port;
                (void) snprintf(v[i].host, sizeof(v[i].host), "%s", ev[i].host);
                (void) snprintf(v[i].addr, sizeof(v[i].addr), "%s", ev[i].addr);
        }
        child->net.refusals = v;
        child->net.n_refusals = n;
}

const char *sbx_net_reason_name(int32_t reason)
{
        return sbx__net_reason_name((int) reason);
}

void sbx__netproxy_release(sbx_child *child)
{
        if (child->net.proxy != NULL) {
                keep_refusals(child);
                sbx__proxy_exec_release(child->net.proxy);
        }
        child->net.proxy = NULL;
        close_net(child);
}

size_t sbx__netproxy_events(sbx_child *child, struct sbx__net_event *out, size_t max,
                            uint64_t *dropped)
{
        if (dropped != NULL)
                *dropped = 0;
        return child->net.proxy != NULL ? sbx__proxy_exec_events(child->net.proxy, out, max, dropped)
                                    : 0;
}
#endif /* _WIN32 */

sbx_code sbx_child_net_refusals(const sbx_child *child, sbx_net_refusal *out, size_t max,
                                size_t *n_out, uint64_t *dropped, sbx_error *err)
{
        const sbx_net_refusal *v;
        size_t n;

        if (child == NULL || n_out == NULL || (max > 0 && out == NULL))
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_child_net_refusals: child and n_out "
                                 "must not be NULL, nor out with max > 0");
#if !defined(_WIN32)
        if (child->net.proxy != NULL) {     /* still running: what the proxy holds now */
                struct sbx__net_event ev[KEPT_REFUSALS];
                uint64_t d = 0;
                size_t i, k = sbx__proxy_exec_events(child->net.proxy, ev, KEPT_REFUSALS, &d);

                for (i = 0; i < k && i < max; i++) {
                        memset(&out[i], 0, sizeof(out[i]));
                        out[i].time_ms = ev[i].time_ms;
                        out[i].reason = ev[i].reason;
                        out[i].status = ev[i].status;
                        out[i].port = ev[i].port;
                        (void) snprintf(out[i].host, sizeof(out[i].host), "%s", ev[i].host);
                        (void) snprintf(out[i].addr, sizeof(out[i].addr), "%s", ev[i].addr);
                }
                *n_out = max == 0 ? k : i;
                if (dropped != NULL)
                        *dropped = d + (k > max && max > 0 ? k - max : 0);
                return SBX_OK;
        }
#endif
        v = child->net.refusals;
        n = child->net.n_refusals;
        if (max > 0 && n > 0)
                memcpy(out, v, (n < max ? n : max) * sizeof(*out));
        *n_out = max == 0 ? n : (n < max ? n : max);
        if (dropped != NULL)
                *dropped = child->net.refusals_dropped + (n > max && max > 0 ? n - max : 0);
        return SBX_OK;
}
