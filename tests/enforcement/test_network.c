/*
 * test_network.c - a network allowlist (sbx_profile_config allow_hosts)
 * through the egress proxy, checked from the host with servers on
 * 127.0.0.1 only (docs/network.md):
 *
 *   - rung 1: an allowed target is reached through the proxy named by
 *     http_proxy (the host's server sees the request), a CONNECT tunnel
 *     carries bytes both ways; an unlisted port gets a 403 naming it and
 *     its server sees nothing; a direct connection, bypassing the proxy,
 *     reaches nothing; no credential is a 407; a name that resolves to
 *     loopback is refused unless its entry names the class (+loopback);
 *     the report claims target- and address-network, not network-deny;
 *   - transparent mode: a client that ignores the proxy variables and
 *     dials an address directly is held to the same rules (an allowed Host
 *     reaches the host's server, an unlisted one nothing);
 *   - rung 2 (landlock) cannot enforce an allowlist: the spawn fails
 *     closed;
 *   - an executor run with a network.proxy-target.v1 grant reaches that
 *     one target, that once; the run after it reaches nothing;
 *   - with an organisation proxy set (sbx_net_upstream_set) a target is
 *     reached through it, with its credential; when it is down the command
 *     gets a 502 and the origin sees nothing (never a direct connection).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

/* A host server on 127.0.0.1: HTTP (answers "hello-from-host") or echo
 * ("ping" -> "pong").  Counts what it accepted. */
struct server {
        int fd;
        char port[16];
        int echo;
        volatile int stop;
        volatile int accepted;
        char last[256];                 /* the last request line */
        pthread_t t;
};

static void *serve(void *arg)
{
        struct server *s = arg;

        while (!s->stop) {
                struct pollfd p = { s->fd, POLLIN, 0 };
                char buf[2048];
                ssize_t n;
                int c;

                if (poll(&p, 1, 50) <= 0)
                        continue;
                c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue;
                s->accepted++;
                n = read(c, buf, sizeof(buf) - 1);
                if (n > 0) {
                        buf[n] = '\0';
                        if (s->echo) {
                                if (strncmp(buf, "ping", 4) == 0)
                                        (void) !write(c, "pong\n", 5);
                        } else {
                                static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 15"
                                                         "\r\nConnection: close\r\n\r\n"
                                                         "hello-from-host";
                                char *eol = strstr(buf, "\r\n");

                                if (eol != NULL)
                                        *eol = '\0';
                                snprintf(s->last, sizeof(s->last), "%.200s", buf);
                                (void) !write(c, ok, sizeof(ok) - 1);
                        }
                }
                close(c);
        }
        return NULL;
}

static void server_start(struct fx *f, struct server *s, int echo)
{
        memset(s, 0, sizeof(*s));
        s->echo = echo;
        s->fd = fx_tcp_listener(f, s->port, sizeof(s->port));
        assert_int_equal(pthread_create(&s->t, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
        s->stop = 1;
        pthread_join(s->t, NULL);
}

struct hosts {
        const char *const *v;
        size_t n;
        int32_t network;
};

static void set_hosts(sbx_profile_config *cfg, const void *arg)
{
        const struct hosts *h = arg;

        cfg->network = h->network;
        cfg->allow_hosts = h->v;
        cfg->n_allow_hosts = h->n;
}

static sbx_profile *allow_profile(struct fx *f, const char *const *v, size_t n, int32_t network)
{
        struct hosts h = { v, n, network };

        return profile_edit(f, SBX_MODE_READ_ONLY, 0, set_hosts, &h);
}

/* The probe's verb with three arguments under `p`, stdout captured. */
static int probe_out3(struct fx *f, int32_t backend, const sbx_profile *p, const char *verb,
                      const char *a1, const char *a2, const char *a3, struct res *res)
{
        const char *argv[] = { f->probe, "out", "3", verb, a1, a2, a3, NULL };
        struct ro o;

        memset(&o, 0, sizeof(o));
        o.capture = 1;
        o.may_fail = 1;
        run_profile(f, backend, p, argv, &o, res);
        return res->spawned ? ecode(res->status) : -1;
}

/* The probe's verb under `p`, its stdout captured; the exit code. */
static int probe_out(struct fx *f, int32_t backend, const sbx_profile *p, const char *verb,
                     const char *a1, const char *a2, struct res *res)
{
        const char *argv[] = { f->probe, "out", "3", verb, a1, a2, NULL };
        struct ro o;

        memset(&o, 0, sizeof(o));
        o.capture = 1;
        o.may_fail = 1;
        run_profile(f, backend, p, argv, &o, res);
        return res->spawned ? ecode(res->status) : -1;
}

static void test_network__allowlist_through_the_proxy(void **state)
{
        struct fx *f = *state;
        struct server web, other, echo;
        char url[128], target[64], entry[2][80];
        const char *hosts[3];
        struct res *res = calloc(1, sizeof(*res));
        sbx_profile *p;
        int s, before;

        assert_non_null(res);
        fx_populate(f);
        if (!backend_usable(f, SBX_BACKEND_NATIVE)) {
                free(res);
                fx_done(f);
                return;
        }
        server_start(f, &web, 0);
        server_start(f, &other, 0);
        server_start(f, &echo, 1);
        set_label(f, SBX_BACKEND_NATIVE, SBX_MODE_READ_ONLY, "allow-hosts");
        snprintf(entry[0], sizeof(entry[0]), "127.0.0.1:%s", web.port);
        snprintf(entry[1], sizeof(entry[1]), "127.0.0.1:%s", echo.port);
        hosts[0] = entry[0];
        hosts[1] = entry[1];
        p = allow_profile(f, hosts, 2, SBX_ACCESS_DENY);

        /* allowed: reached through the proxy, the host's server sees it */
        snprintf(url, sizeof(url), "http://127.0.0.1:%s/through-the-proxy", web.port);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-get", url, NULL, res);
        CHECK(f, s == 0 && strstr(res->out, "hello-from-host") != NULL,
              "an allowed target through the proxy: exit %d, %.300s", s, res->out);
        CHECK(f, web.accepted == 1 && strstr(web.last, "GET /through-the-proxy") != NULL,
              "the host's server saw %d requests (%s)", web.accepted, web.last);
        CHECK(f, (res->rep.achieved & SBX_G_TARGET_NETWORK) &&
              (res->rep.achieved & SBX_G_ADDRESS_NETWORK) &&
              !(res->rep.achieved & SBX_G_NETWORK_DENY),
              "achieved 0x%x", (unsigned) res->rep.achieved);

        /* a CONNECT tunnel to an allowed echo server */
        snprintf(target, sizeof(target), "127.0.0.1:%s", echo.port);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-connect", target, NULL, res);
        CHECK(f, s == 0 && echo.accepted == 1, "CONNECT to an allowed target: exit %d, %.200s",
              s, res->out);

        /* unlisted: 403 naming it, and its server sees nothing */
        snprintf(url, sizeof(url), "http://127.0.0.1:%s/", other.port);
        snprintf(target, sizeof(target), "127.0.0.1:%s", other.port);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-get", url, NULL, res);
        CHECK(f, s == 3 && strstr(res->out, " 403 ") != NULL && strstr(res->out, target) != NULL,
              "an unlisted target: exit %d, %.300s", s, res->out);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-connect", target, NULL, res);
        CHECK(f, s == 3, "CONNECT to an unlisted target: exit %d", s);
        CHECK(f, other.accepted == 0, "the unlisted server was reached %d times", other.accepted);

        /* bypassing the proxy reaches nothing, even the allowed port */
        before = web.accepted;
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "tcp", "127.0.0.1", web.port, res);
        CHECK(f, s != 0 && web.accepted == before, "a direct connection went out (exit %d)", s);

        /* nor does a datagram: the host's UDP socket gets nothing */
        {
                struct sockaddr_in sin;
                socklen_t len = sizeof(sin);
                char uport[16], b;
                int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

                assert_true(u >= 0);
                fx_track_fd(f, u);
                memset(&sin, 0, sizeof(sin));
                sin.sin_family = AF_INET;
                sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                assert_int_equal(bind(u, (struct sockaddr *) &sin, sizeof(sin)), 0);
                assert_int_equal(getsockname(u, (struct sockaddr *) &sin, &len), 0);
                snprintf(uport, sizeof(uport), "%u", (unsigned) ntohs(sin.sin_port));
                (void) probe_out(f, SBX_BACKEND_NATIVE, p, "udp", "127.0.0.1", uport, res);
                CHECK(f, recv(u, &b, 1, 0) < 0, "a datagram reached the host's UDP socket");
        }

        /* Transparent mode: a client that ignores the proxy variables and
         * connects straight to an address (192.0.2.7, a documentation
         * address: the sandbox's namespace has no route but its lo, where
         * the redirect sends it; nothing leaves) is held to the same
         * rules, by the Host it names and the port it dialled. */
        before = web.accepted;
        s = probe_out3(f, SBX_BACKEND_NATIVE, p, "http-direct", "192.0.2.7", web.port,
                       entry[0], res);
        CHECK(f, s == 0 && strstr(res->out, "hello-from-host") != NULL &&
              web.accepted == before + 1 && strstr(web.last, "GET /direct") != NULL,
              "transparent, an allowed Host: exit %d, %.200s", s, res->out);
        /* the same over IPv6 (2001:db8::7, documentation, routed to lo) */
        before = web.accepted;
        s = probe_out3(f, SBX_BACKEND_NATIVE, p, "http-direct", "2001:db8::7", web.port,
                       entry[0], res);
        CHECK(f, s == 0 && web.accepted == before + 1,
              "transparent over IPv6, an allowed Host: exit %d, %.200s", s, res->out);
        s = probe_out3(f, SBX_BACKEND_NATIVE, p, "http-direct", "192.0.2.7", other.port,
                       target, res);
        CHECK(f, s != 0 && other.accepted == 0, "transparent, an unlisted target: exit %d, "
              "%d requests", s, other.accepted);
        before = web.accepted;

        /* no credential: 407, nothing reached */
        snprintf(url, sizeof(url), "http://127.0.0.1:%s/no-credential", web.port);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-get", url, "noauth", res);
        CHECK(f, s == 3 && strstr(res->out, " 407 ") != NULL && web.accepted == before,
              "no credential: exit %d, %.200s", s, res->out);
        sbx_profile_free(p);

        /* a name resolving to loopback: refused, unless the entry names the
         * class */
        snprintf(entry[0], sizeof(entry[0]), "localhost:%s", web.port);
        p = allow_profile(f, hosts, 1, SBX_ACCESS_DENY);
        snprintf(url, sizeof(url), "http://localhost:%s/by-name", web.port);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-get", url, NULL, res);
        CHECK(f, s == 3 && strstr(res->out, " 403 ") != NULL && web.accepted == before,
              "a name resolving to loopback was dialled: exit %d, %.300s", s, res->out);
        sbx_profile_free(p);
        snprintf(entry[0], sizeof(entry[0]), "localhost:%s+loopback", web.port);
        p = allow_profile(f, hosts, 1, SBX_ACCESS_DENY);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-get", url, NULL, res);
        CHECK(f, s == 0 && web.accepted == before + 1, "+loopback: exit %d, %.300s", s,
              res->out);
        sbx_profile_free(p);

        /* rung 2 cannot hold an allowlist: fails closed */
        if (backend_usable(f, SBX_BACKEND_LANDLOCK)) {
                set_label(f, SBX_BACKEND_LANDLOCK, SBX_MODE_READ_ONLY, "allow-hosts");
                p = allow_profile(f, hosts, 1, SBX_ACCESS_DENY);
                s = probe_out(f, SBX_BACKEND_LANDLOCK, p, "proxy-get", url, NULL, res);
                CHECK(f, !res->spawned && res->code == SBX_E_SANDBOX_UNAVAILABLE,
                      "landlock with an allowlist: spawned %d, %s", res->spawned,
                      res->err.message);
                sbx_profile_free(p);
        }
        server_stop(&web);
        server_stop(&other);
        server_stop(&echo);
        free(res);
        fx_done(f);
}

/* A fake organisation proxy: answers a CONNECT with 200 and then plays the
 * origin itself ("ping" -> "pong"), remembering the request head. */
struct upstream {
        int fd;
        char port[16];
        volatile int stop, seen;
        char head[1024];
        pthread_t t;
};

static void *upstream_serve(void *arg)
{
        struct upstream *u = arg;

        while (!u->stop) {
                struct pollfd p = { u->fd, POLLIN, 0 };
                char buf[1024];
                size_t got = 0;
                ssize_t n;
                int c;

                if (poll(&p, 1, 50) <= 0)
                        continue;
                c = accept4(u->fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue;
                while (got + 1 < sizeof(buf) && (n = read(c, buf + got, 1)) == 1) {
                        got++;
                        if (got >= 4 && memcmp(buf + got - 4, "\r\n\r\n", 4) == 0)
                                break;
                }
                buf[got] = '\0';
                snprintf(u->head, sizeof(u->head), "%s", buf);
                u->seen++;
                (void) !write(c, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
                if (read(c, buf, sizeof(buf)) > 0)
                        (void) !write(c, "pong\n", 5);
                close(c);
        }
        return NULL;
}

/* sbx_net_upstream_set: every request goes through the organisation's
 * proxy, with its credential; when it is down, 502, never direct. */
static void test_network__upstream_proxy(void **state)
{
        struct fx *f = *state;
        struct server echo;
        struct upstream u;
        char target[64], up[64], entry[80];
        const char *hosts[1] = { entry };
        struct res *res = calloc(1, sizeof(*res));
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile *p;
        int s, dead;

        assert_non_null(res);
        fx_populate(f);
        if (!backend_usable(f, SBX_BACKEND_NATIVE)) {
                free(res);
                fx_done(f);
                return;
        }
        set_label(f, SBX_BACKEND_NATIVE, SBX_MODE_READ_ONLY, "upstream proxy");
        server_start(f, &echo, 1);
        memset(&u, 0, sizeof(u));
        u.fd = fx_tcp_listener(f, u.port, sizeof(u.port));
        assert_int_equal(pthread_create(&u.t, NULL, upstream_serve, &u), 0);
        snprintf(entry, sizeof(entry), "127.0.0.1:%s", echo.port);
        snprintf(target, sizeof(target), "127.0.0.1:%s", echo.port);
        snprintf(up, sizeof(up), "127.0.0.1:%s", u.port);
        p = allow_profile(f, hosts, 1, SBX_ACCESS_DENY);
        assert_int_equal(sbx_net_upstream_set(up, "org", "org-secret", &e), SBX_OK);
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-connect", target, NULL, res);
        CHECK(f, s == 0 && u.seen == 1 && echo.accepted == 0,
              "through the upstream: exit %d, upstream saw %d, origin %d", s, u.seen,
              echo.accepted);
        CHECK(f, strstr(u.head, target) != NULL &&
              strstr(u.head, "Proxy-Authorization: Basic b3JnOm9yZy1zZWNyZXQ=") != NULL,
              "the upstream's request: %.300s", u.head);
        /* the upstream resolves the names: address classes are its policy,
         * and the report does not claim them */
        CHECK(f, !(res->rep.achieved & SBX_G_ADDRESS_NETWORK) &&
              !(res->rep.required & SBX_G_ADDRESS_NETWORK) &&
              (res->rep.achieved & SBX_G_TARGET_NETWORK),
              "with an upstream: required 0x%x achieved 0x%x", (unsigned) res->rep.required,
              (unsigned) res->rep.achieved);
        /* the upstream goes away: a 502, and the origin sees nothing */
        u.stop = 1;
        pthread_join(u.t, NULL);
        dead = fx_tcp_listener(f, up, sizeof(up));      /* a port nothing accepts on */
        fx_close_fd(f, dead);
        {
                char down[96];

                snprintf(down, sizeof(down), "127.0.0.1:%s", up);
                assert_int_equal(sbx_net_upstream_set(down, NULL, NULL, &e), SBX_OK);
        }
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-connect", target, NULL, res);
        CHECK(f, s == 3 && strstr(res->out, " 502 ") != NULL && echo.accepted == 0,
              "the upstream down: exit %d, origin %d, %.200s", s, echo.accepted, res->out);
        assert_int_equal(sbx_net_upstream_set(NULL, NULL, NULL, &e), SBX_OK);
        /* direct again */
        s = probe_out(f, SBX_BACKEND_NATIVE, p, "proxy-connect", target, NULL, res);
        CHECK(f, s == 0 && echo.accepted == 1, "direct again: exit %d", s);
        sbx_profile_free(p);
        server_stop(&echo);
        free(res);
        fx_done(f);
}

/* An executor with the network Gated: a proxy-target grant opens one
 * target for one run. */
static void test_network__proxy_target_grant(void **state)
{
        struct fx *f = *state;
        struct server web;
        sbx_profile *p;
        sbx_executor_set *s = NULL;
        sbx_executor *ex = NULL;
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result r;
        sbx_error e = { 0, 0, { 0 } };
        char root[PATH_MAX], url[128], target[64], tok[SBX_GRANT_TOKEN_SIZE], cmd[PATH_MAX + 256];
        const char *toks[1] = { tok };
        const char *argv[5];

        fx_populate(f);
        if (!backend_usable(f, SBX_BACKEND_NATIVE)) {
                fx_done(f);
                return;
        }
        set_label(f, SBX_BACKEND_NATIVE, SBX_MODE_READ_ONLY, "proxy-target grant");
        server_start(f, &web, 0);
        {
                struct hosts h = { NULL, 0, SBX_ACCESS_GATED };

                p = profile_edit(f, SBX_MODE_READ_ONLY, 0, set_hosts, &h);
        }
        join(root, f->outside, "scratch");
        so.scratch_root = root;
        so.max_executors = 1;
        so.backend = SBX_BACKEND_NATIVE;
        assert_int_equal(sbx_executor_set_new(p, &so, &s, &e), SBX_OK);
        assert_int_equal(sbx_executor_set_get(s, "a", &ex, &e), SBX_OK);
        snprintf(url, sizeof(url), "http://127.0.0.1:%s/granted", web.port);
        snprintf(target, sizeof(target), "127.0.0.1:%s", web.port);
        argv[0] = f->probe;
        argv[1] = "proxy-get";
        argv[2] = url;
        argv[3] = NULL;
        snprintf(cmd, sizeof(cmd), "'%s' 'proxy-get' '%s'", f->probe, url);
        g.execution_id = "x1";
        g.command = cmd;
        g.kind = "network";
        g.scope = target;
        g.grant_class = SBX_GRANT_CLASS_NET_PROXY_TARGET;
        g.target = target;
        CHECK(f, sbx_executor_issue_grant(ex, &g, tok, sizeof(tok), &e) == SBX_OK,
              "minting a proxy-target grant: %s", e.message);
        o.argv = argv;
        o.envp = f->envp;
        o.execution_id = "x1";
        o.tokens = toks;
        o.n_tokens = 1;
        o.timeout_ms = WAIT_MS;
        assert_int_equal(sbx_executor_run(ex, &o, &r, &e), SBX_OK);
        CHECK(f, r.exited && r.exit_code == 0 && strstr(r.out, "hello-from-host") != NULL &&
              web.accepted == 1, "the granted run: exit %d, %.200s %.200s", r.exit_code, r.out,
              r.err);
        sbx_run_result_free(&r);
        /* the next run, without a token: no proxy at all */
        o.tokens = NULL;
        o.n_tokens = 0;
        assert_int_equal(sbx_executor_run(ex, &o, &r, &e), SBX_OK);
        CHECK(f, r.exit_code != 0 && web.accepted == 1, "the run after the grant: exit %d, "
              "%d requests", r.exit_code, web.accepted);
        sbx_run_result_free(&r);
        sbx_executor_set_free(s);
        sbx_profile_free(p);
        server_stop(&web);
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_network__allowlist_through_the_proxy),
                T(test_network__proxy_target_grant),
                T(test_network__upstream_proxy),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
