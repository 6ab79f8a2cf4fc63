/*
 * test_spawn_net.c - the network a command confined by sbx_spawn cannot
 * reach, checked from the host, for rung 1 (native) and rung 2 (landlock)
 * in both modes (network is denied by default in both):
 *
 *   - TCP to a 127.0.0.1 listener the test opened: accept() sees nothing;
 *   - UDP to a host socket on 127.0.0.1: nothing arrives;
 *   - an abstract unix socket the test listens on: no connection;
 *   - a pathname unix socket in the fixture's outside/ dir: no connection;
 *   - a datagram unix socket, by file and by abstract name, sent to from a
 *     datagram socketpair (sendto with an address, connect): nothing
 *     arrives;
 *
 *   - rung 1 has a private loopback of its own: a server on 127.0.0.1 (on
 *     the host listener's very port) and ::1 inside works, and the host's
 *     listener sees nothing; rung 2 has no internet socket at all;
 *
 * and the positive control: with network Allow (the mode profile with
 * network = SBX_ACCESS_ALLOW) the TCP listener IS reached, on both rungs,
 * while every unix listener above stays unreached.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

struct listeners {
        int tcp, udp, abs, path, dabs, dpath;
        char tcp_port[16], udp_port[16];
        char abs_name[64], dabs_name[80];
        char path_name[PATH_MAX], dpath_name[PATH_MAX];
};

static int bound_port(int fd, char *out, size_t size)
{
        struct sockaddr_in sin;
        socklen_t len = sizeof(sin);

        if (getsockname(fd, (struct sockaddr *) &sin, &len) < 0)
                return -1;
        snprintf(out, size, "%u", (unsigned) ntohs(sin.sin_port));
        return 0;
}

static void open_listeners(struct fx *f, struct listeners *l)
{
        struct sockaddr_in sin;

        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

        l->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(l->tcp >= 0);
        fx_track_fd(f, l->tcp);
        assert_int_equal(bind(l->tcp, (struct sockaddr *) &sin, sizeof(sin)), 0);
        assert_int_equal(listen(l->tcp, 16), 0);
        assert_int_equal(bound_port(l->tcp, l->tcp_port, sizeof(l->tcp_port)), 0);

        l->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(l->udp >= 0);
        fx_track_fd(f, l->udp);
        assert_int_equal(bind(l->udp, (struct sockaddr *) &sin, sizeof(sin)), 0);
        assert_int_equal(bound_port(l->udp, l->udp_port, sizeof(l->udp_port)), 0);

        snprintf(l->abs_name, sizeof(l->abs_name), "sbx-spawn-test-%d-%ld", (int) getpid(),
                 (long) now_ms());
        l->abs = fx_unix_socket(f, SOCK_STREAM, l->abs_name, 1, 16);
        snprintf(l->dabs_name, sizeof(l->dabs_name), "%s-dgram", l->abs_name);
        l->dabs = fx_unix_socket(f, SOCK_DGRAM, l->dabs_name, 1, 16);
        join(l->path_name, f->outside, "s.sock");
        l->path = fx_unix_socket(f, SOCK_STREAM, l->path_name, 0, 16);
        join(l->dpath_name, f->outside, "d.sock");
        l->dpath = fx_unix_socket(f, SOCK_DGRAM, l->dpath_name, 0, 16);
}

static void close_listeners(struct fx *f, struct listeners *l)
{
        fx_close_fd(f, l->tcp);
        fx_close_fd(f, l->udp);
        fx_close_fd(f, l->abs);
        fx_close_fd(f, l->path);
        fx_close_fd(f, l->dabs);
        fx_close_fd(f, l->dpath);
        (void) unlink(l->path_name);
        (void) unlink(l->dpath_name);
}

/*
 * 1 if a connection (stream) or a datagram is waiting within wait_ms; the
 * connection is accepted and closed, the datagram read.  The negative
 * checks run after the probe was reaped and pass 0: a loopback or unix
 * connect is queued on the listener before connect() returns (and the
 * probe's exit code says whether it did), a loopback datagram is delivered
 * before sendto() returns, so anything the probe got through is already
 * here and waiting longer would only make the test slower.
 */
static int saw_something(int fd, int stream, int wait_ms)
{
        struct pollfd pf = { fd, POLLIN, 0 };
        char buf[64];
        int r;

        do
                r = poll(&pf, 1, wait_ms);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
                return 0;
        if (stream) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

                if (c < 0)
                        return 0;
                close(c);
                return 1;
        }
        return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0;
}

/* Host-side positive control: the listeners really notice a client. */
static void control_from_host(struct fx *f, struct listeners *l)
{
        struct sockaddr_in sin;
        struct sockaddr_un sun;
        socklen_t len;
        int fd;

        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sin.sin_port = htons((uint16_t) atoi(l->tcp_port));
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
        close(fd);
        assert_true(saw_something(l->tcp, 1, WAIT_MS));

        sin.sin_port = htons((uint16_t) atoi(l->udp_port));
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_int_equal(sendto(fd, "x", 1, 0, (struct sockaddr *) &sin, sizeof(sin)), 1);
        close(fd);
        assert_true(saw_something(l->udp, 0, WAIT_MS));

        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        memcpy(sun.sun_path + 1, l->abs_name, strlen(l->abs_name));
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(l->abs_name));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sun, len), 0);
        close(fd);
        assert_true(saw_something(l->abs, 1, WAIT_MS));

        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        strcpy(sun.sun_path, l->path_name);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sun, sizeof(sun)), 0);
        close(fd);
        assert_true(saw_something(l->path, 1, WAIT_MS));

        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        strcpy(sun.sun_path, l->dpath_name);
        assert_int_equal(sendto(fd, "x", 1, 0, (struct sockaddr *) &sun, sizeof(sun)), 1);
        assert_true(saw_something(l->dpath, 0, WAIT_MS));
        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        memcpy(sun.sun_path + 1, l->dabs_name, strlen(l->dabs_name));
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(l->dabs_name));
        assert_int_equal(sendto(fd, "x", 1, 0, (struct sockaddr *) &sun, len), 1);
        assert_true(saw_something(l->dabs, 0, WAIT_MS));
        close(fd);
        (void) f;
}

/* No probe reaches a host unix socket, stream or datagram, by file or by
 * abstract name: whatever the network decision. */
static void check_unix_unreached(struct fx *f, const struct combo *k, const sbx_profile *p,
                                 struct listeners *l)
{
        struct { const char *cmd, *arg; int fd, stream; } t[] = {
                { "abstract", l->abs_name, l->abs, 1 },
                { "unix", l->path_name, l->path, 1 },
                { "unix-dgram", l->dpath_name, l->dpath, 0 },
                { "abstract-dgram", l->dabs_name, l->dabs, 0 },
        };
        size_t i;

        for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                const char *argv[] = { f->probe, t[i].cmd, t[i].arg, NULL };
                struct res *res = calloc(1, sizeof(*res));

                assert_non_null(res);
                if (p != NULL)
                        run_profile(f, k->backend, p, argv, NULL, res);
                else
                        run_mode(f, k->backend, k->mode, argv, NULL, res);
                CHECK(f, ecode(res->status) != 0, "%s %s succeeded", t[i].cmd, t[i].arg);
                CHECK(f, !saw_something(t[i].fd, t[i].stream, 0), "the host listener of %s %s "
                      "got something (probe %s)", t[i].cmd, t[i].arg, describe_status(res->status));
                free(res);
        }
}

static void test_spawn_net__denied_by_default(void **state)
{
        struct fx *f = *state;
        struct listeners l;
        size_t c;

        fx_populate(f);
        open_listeners(f, &l);
        control_from_host(f, &l);
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                int s;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, NULL);

                s = PROBE(f, k->backend, k->mode, "tcp", "127.0.0.1", l.tcp_port);
                CHECK(f, ecode(s) != 0, "TCP connect to the host's 127.0.0.1:%s succeeded", l.tcp_port);
                CHECK(f, !saw_something(l.tcp, 1, 0), "the host TCP listener accepted a connection "
                      "(probe %s)", describe_status(s));

                s = PROBE(f, k->backend, k->mode, "udp", "127.0.0.1", l.udp_port);
                CHECK(f, !saw_something(l.udp, 0, 0), "the host UDP socket received a datagram "
                      "(probe %s)", describe_status(s));

                check_unix_unreached(f, k, NULL, &l);

                /* Rung 1: a private loopback of its own.  A server on
                 * 127.0.0.1 and ::1 inside works -- even on the port the
                 * host's listener has -- and the host's sees nothing.  Rung
                 * 2 has only the host's loopback: no internet socket. */
                s = PROBE(f, k->backend, k->mode, "loopback-echo", "127.0.0.1", l.tcp_port);
                if (k->backend == SBX_BACKEND_NATIVE)
                        CHECK(f, ecode(s) == 0, "no private loopback on 127.0.0.1:%s (probe %s)",
                              l.tcp_port, describe_status(s));
                else
                        CHECK(f, ecode(s) != 0, "rung 2 bound and used 127.0.0.1:%s", l.tcp_port);
                CHECK(f, !saw_something(l.tcp, 1, 0), "the host TCP listener saw the sandbox's "
                      "loopback traffic");
                s = PROBE(f, k->backend, k->mode, "loopback-echo", "::1", "0");
                if (k->backend == SBX_BACKEND_NATIVE)
                        CHECK(f, ecode(s) == 0, "no private loopback on ::1 (probe %s)",
                              describe_status(s));

                /* The same through a shell, the way an agent would try it. */
                {
                        const char *argv[] = { "/bin/sh", "-c",
                                               "exec \"$0\" tcp 127.0.0.1 \"$1\"", f->probe,
                                               l.tcp_port, NULL };
                        struct res *res = calloc(1, sizeof(*res));

                        assert_non_null(res);
                        run_mode(f, k->backend, k->mode, argv, NULL, res);
                        CHECK(f, !saw_something(l.tcp, 1, 0), "the host TCP listener accepted a "
                              "connection via sh (%s)", describe_status(res->status));
                        free(res);
                }
        }
        close_listeners(f, &l);
        fx_done(f);
}

/* The positive control: network Allow reaches the host listener. */
static void test_spawn_net__allowed_reaches_the_listener(void **state)
{
        struct fx *f = *state;
        struct listeners l;
        size_t c;

        fx_populate(f);
        open_listeners(f, &l);
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                const char *argv[] = { f->probe, "tcp", "127.0.0.1", l.tcp_port, NULL };
                sbx_profile *p;
                struct res *res;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, "network=allow");
                res = calloc(1, sizeof(*res));
                assert_non_null(res);
                p = make_profile(f, k->mode, 1);
                run_profile(f, k->backend, p, argv, NULL, res);
                CHECK(f, ecode(res->status) == 0, "TCP connect with network allowed: %s",
                      describe_status(res->status));
                CHECK(f, saw_something(l.tcp, 1, WAIT_MS), "the host listener saw no connection with the "
                      "network allowed");
                CHECK(f, !(res->rep.required & SBX_G_NETWORK_DENY),
                      "network allowed yet network-deny required (0x%x)", (unsigned) res->rep.required);
                free(res);
                check_unix_unreached(f, k, p, &l);
                sbx_profile_free(p);
        }
        close_listeners(f, &l);
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_spawn_net__denied_by_default),
                T(test_spawn_net__allowed_reaches_the_listener),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
