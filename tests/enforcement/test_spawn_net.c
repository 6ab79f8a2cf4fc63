/*
 * test_spawn_net.c - the network a command confined by sbx_spawn cannot
 * reach, checked from the host, for rung 1 (native) and rung 2 (landlock)
 * in both modes (network is denied by default in both):
 *
 *   - TCP to a 127.0.0.1 listener the test opened: accept() sees nothing;
 *   - UDP to a host socket on 127.0.0.1: nothing arrives;
 *   - an abstract unix socket the test listens on: no connection;
 *   - a pathname unix socket in the fixture's outside/ dir: no connection;
 *
 * and the positive control: with network Allow (the mode profile with
 * network = SBX_ACCESS_ALLOW) the TCP listener IS reached, on both rungs.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

struct listeners {
        int tcp, udp, abs, path;
        char tcp_port[16], udp_port[16];
        char abs_name[64];
        char path_name[PATH_MAX];
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
        struct sockaddr_un sun;
        socklen_t len;

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
        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        memcpy(sun.sun_path + 1, l->abs_name, strlen(l->abs_name));
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(l->abs_name));
        l->abs = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(l->abs >= 0);
        fx_track_fd(f, l->abs);
        assert_int_equal(bind(l->abs, (struct sockaddr *) &sun, len), 0);
        assert_int_equal(listen(l->abs, 16), 0);

        join(l->path_name, f->outside, "s.sock");
        assert_true(strlen(l->path_name) < sizeof(sun.sun_path));
        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        strcpy(sun.sun_path, l->path_name);
        l->path = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(l->path >= 0);
        fx_track_fd(f, l->path);
        assert_int_equal(bind(l->path, (struct sockaddr *) &sun, sizeof(sun)), 0);
        assert_int_equal(chmod(l->path_name, 0777), 0);
        assert_int_equal(listen(l->path, 16), 0);
}

static void close_listeners(struct fx *f, struct listeners *l)
{
        fx_close_fd(f, l->tcp);
        fx_close_fd(f, l->udp);
        fx_close_fd(f, l->abs);
        fx_close_fd(f, l->path);
        (void) unlink(l->path_name);
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
        (void) f;
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

                s = PROBE(f, k->backend, k->mode, "abstract", l.abs_name);
                CHECK(f, ecode(s) != 0, "connect to the host's abstract socket succeeded");
                CHECK(f, !saw_something(l.abs, 1, 0), "the host abstract unix listener accepted a "
                      "connection (probe %s)", describe_status(s));

                s = PROBE(f, k->backend, k->mode, "unix", l.path_name);
                CHECK(f, ecode(s) != 0, "connect to the host's unix socket %s succeeded", l.path_name);
                CHECK(f, !saw_something(l.path, 1, 0), "the host pathname unix listener accepted a "
                      "connection (probe %s)", describe_status(s));

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
                sbx_profile_free(p);
                CHECK(f, ecode(res->status) == 0, "TCP connect with network allowed: %s",
                      describe_status(res->status));
                CHECK(f, saw_something(l.tcp, 1, WAIT_MS), "the host listener saw no connection with the "
                      "network allowed");
                CHECK(f, !(res->rep.required & SBX_G_NETWORK_DENY),
                      "network allowed yet network-deny required (0x%x)", (unsigned) res->rep.required);
                free(res);
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
