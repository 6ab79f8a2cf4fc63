/*
 * test_unix.c - --allow-unix (a profile's unix_sockets), checked from the
 * host on rung 1 (native) and rung 2 (landlock), in both modes, with the
 * network denied and allowed.  The host listens on
 *
 *   outside/a.sock   listed: the command reaches it (the listener accepts
 *                    and reads what the command wrote);
 *   outside/b.sock   not listed: connect fails, the listener sees nothing;
 *   an abstract name not listable: the same;
 *   ws/link.sock     a symbolic link to a.sock: only the listed spelling
 *                    is allowed, so the link is refused;
 *   /run/...         a listed socket where rung 1 hides the directory: it
 *                    is reached through the socket file pinned at spawn.
 *
 * A thread flipping the address between a.sock and b.sock while the main
 * thread connects never gets b.sock a connection (the supervisor connects
 * its own copy).  A nonblocking connect works; connects that block (a full
 * backlog) do not stall other calls.  With the network allowed, TCP still
 * goes through.  bwrap refuses a profile that lists sockets.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

/* Connections waiting on listener fd (accepted and closed); *bytes gets
 * what they sent, if not NULL.  Once the probe was reaped, whatever it
 * reached is queued: no waiting. */
static int drain(int fd, char *bytes, size_t size)
{
        size_t got = 0;
        int n = 0, c;

        while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
                char b[8];
                ssize_t r = recv(c, b, sizeof(b), MSG_DONTWAIT);

                if (bytes != NULL && r > 0 && got + (size_t) r < size) {
                        memcpy(bytes + got, b, (size_t) r);
                        got += (size_t) r;
                }
                close(c);
                n++;
        }
        if (bytes != NULL)
                bytes[got] = '\0';
        return n;
}

struct socks {
        const char *const *v;
        size_t n;
};

static void set_sockets(sbx_profile_config *cfg, const void *arg)
{
        const struct socks *x = arg;

        cfg->unix_sockets = x->v;
        cfg->n_unix_sockets = x->n;
}

static sbx_profile *unix_profile(struct fx *f, int32_t mode, int net, const char *const *socks,
                                 size_t n)
{
        struct socks x = { socks, n };

        return profile_edit(f, mode, net, set_sockets, &x);
}

static void test_unix__only_the_listed_socket(void **state)
{
        struct fx *f = *state;
        char a[PATH_MAX], b[PATH_MAX], link[PATH_MAX], abs_name[64], run_dir[64], run_sock[96];
        char got[64];
        const char *socks[2];
        int la, lb, labs, lrun, net, s;
        size_t c;

        fx_populate(f);
        join(a, f->outside, "a.sock");
        join(b, f->outside, "b.sock");
        join(link, f->ws, "link.sock");
        la = fx_unix_socket(f, SOCK_STREAM, a, 0, 512);
        lb = fx_unix_socket(f, SOCK_STREAM, b, 0, 512);
        snprintf(abs_name, sizeof(abs_name), "sbx-unix-test-%d", (int) getpid());
        labs = fx_unix_socket(f, SOCK_STREAM, abs_name, 1, 64);
        assert_int_equal(symlink(a, link), 0);
        /* A socket in a directory rung 1 hides (/run), when we may make one. */
        snprintf(run_dir, sizeof(run_dir), "/run/sbx-unix-test-%d", (int) getpid());
        lrun = -1;
        if (mkdir(run_dir, 0755) == 0) {
                snprintf(run_sock, sizeof(run_sock), "%s/s.sock", run_dir);
                lrun = fx_unix_socket(f, SOCK_STREAM, run_sock, 0, 64);
        } else {
                note("cannot create %s (%s): the hidden-directory case is not run", run_dir,
                     strerror(errno));
        }
        socks[0] = a;
        socks[1] = lrun >= 0 ? run_sock : NULL;
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];

                if (!backend_usable(f, k->backend))
                        continue;
                for (net = 0; net < 2; net++) {
                        sbx_profile *p = unix_profile(f, k->mode, net, socks, lrun >= 0 ? 2 : 1);

                        set_label(f, k->backend, k->mode, net ? "network allow" : "network deny");
                        s = ecode(probe_profile(f, k->backend, p, "unix", a, NULL, NULL));
                        CHECK(f, s == 0, "connect to the listed %s: exit %d", a, s);
                        CHECK(f, drain(la, got, sizeof(got)) == 1 && strcmp(got, "x") == 0,
                              "the listed socket's listener got no connection with \"x\"");
                        s = ecode(probe_profile(f, k->backend, p, "unix-nb", a, NULL, NULL));
                        CHECK(f, s == 0, "nonblocking connect to the listed %s: exit %d", a, s);
                        CHECK(f, drain(la, got, sizeof(got)) == 1 && strcmp(got, "n") == 0,
                              "the listed socket's listener got no nonblocking connection");

                        s = ecode(probe_profile(f, k->backend, p, "unix", b, NULL, NULL));
                        CHECK(f, s == EACCES, "connect to the unlisted %s: exit %d, want EACCES",
                              b, s);
                        s = ecode(probe_profile(f, k->backend, p, "abstract", abs_name, NULL, NULL));
                        CHECK(f, s != 0, "connect to the abstract name succeeded");
                        s = ecode(probe_profile(f, k->backend, p, "unix", link, NULL, NULL));
                        CHECK(f, s != 0, "connect through the link %s succeeded", link);
                        s = ecode(probe_profile(f, k->backend, p, "unix-dgram", a, NULL, NULL));
                        CHECK(f, s != 0, "a datagram socket reached %s", a);
                        CHECK(f, drain(lb, NULL, 0) == 0, "the unlisted listener got a connection");
                        CHECK(f, drain(labs, NULL, 0) == 0, "the abstract listener got a connection");
                        CHECK(f, drain(la, NULL, 0) == 0, "the listed listener got a connection "
                              "through its link or a datagram");

                        if (lrun >= 0) {
                                s = ecode(probe_profile(f, k->backend, p, "unix", run_sock, NULL, NULL));
                                CHECK(f, s == 0, "connect to the listed %s: exit %d", run_sock, s);
                                CHECK(f, drain(lrun, NULL, 0) == 1, "the listener in %s saw no "
                                      "connection", run_dir);
                        }

                        /* The address flips between a.sock and b.sock while
                         * the main thread connects: b.sock never gets one. */
                        s = ecode(probe_profile(f, k->backend, p, "unix-race", a, b, "300"));
                        CHECK(f, drain(lb, NULL, 0) == 0, "the unlisted listener got a connection "
                              "from the race (probe exit %d)", s);
                        (void) drain(la, NULL, 0);
                        sbx_profile_free(p);
                }
        }
        if (lrun >= 0) {
                fx_close_fd(f, lrun);
                (void) unlink(run_sock);
                (void) rmdir(run_dir);
        }
        (void) unlink(link);
        fx_close_fd(f, la);
        fx_close_fd(f, lb);
        fx_close_fd(f, labs);
        (void) unlink(a);
        (void) unlink(b);
        fx_done(f);
}

/* Blocking connects to a full backlog do not stall the supervisor: the
 * probe's later calls are answered (it exits 0 and its file exists). */
static void test_unix__blocked_connect_stalls_nothing(void **state)
{
        struct fx *f = *state;
        char a[PATH_MAX], mark[PATH_MAX];
        const char *socks[1];
        int la, s;
        size_t c;

        fx_populate(f);
        join(a, f->outside, "full.sock");
        la = fx_unix_socket(f, SOCK_STREAM, a, 0, 1);
        socks[0] = a;
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                sbx_profile *p;

                if (!backend_usable(f, k->backend) || k->mode != SBX_MODE_WORKSPACE_WRITE)
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                join(mark, f->ws, "answered");
                (void) unlink(mark);
                p = unix_profile(f, k->mode, 0, socks, 1);
                s = ecode(probe_profile(f, k->backend, p, "unix-stall", a, mark, NULL));
                CHECK(f, s == 0, "unix-stall: exit %d", s);
                CHECK(f, exists(mark), "the file made after the blocked connects is missing");
                sbx_profile_free(p);
                (void) drain(la, NULL, 0);
        }
        fx_close_fd(f, la);
        (void) unlink(a);
        fx_done(f);
}

/* With the network allowed and sockets listed, TCP to the host loopback
 * still works (the supervisor connects it too). */
static void test_unix__tcp_still_connects(void **state)
{
        struct fx *f = *state;
        char a[PATH_MAX], port[16];
        const char *socks[1];
        int la, tcp, s;
        size_t c;

        fx_populate(f);
        join(a, f->outside, "a.sock");
        la = fx_unix_socket(f, SOCK_STREAM, a, 0, 16);
        socks[0] = a;
        tcp = fx_tcp_listener(f, port, sizeof(port));
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                sbx_profile *p;

                if (!backend_usable(f, k->backend))
                        continue;
                set_label(f, k->backend, k->mode, "network allow");
                p = unix_profile(f, k->mode, 1, socks, 1);
                s = ecode(probe_profile(f, k->backend, p, "tcp", "127.0.0.1", port, NULL));
                CHECK(f, s == 0, "TCP to 127.0.0.1:%s: exit %d", port, s);
                CHECK(f, drain(tcp, NULL, 0) == 1, "the TCP listener saw no connection");
                sbx_profile_free(p);
                /* and with the network denied, the loopback stays closed */
                set_label(f, k->backend, k->mode, "network deny");
                p = unix_profile(f, k->mode, 0, socks, 1);
                s = ecode(probe_profile(f, k->backend, p, "tcp", "127.0.0.1", port, NULL));
                CHECK(f, s != 0, "TCP to 127.0.0.1:%s with the network denied succeeded", port);
                CHECK(f, drain(tcp, NULL, 0) == 0, "the TCP listener got a connection with the "
                      "network denied");
                sbx_profile_free(p);
        }
        fx_close_fd(f, tcp);
        fx_close_fd(f, la);
        (void) unlink(a);
        fx_done(f);
}

/* What is pinned at spawn is checked then: a listed path that became a
 * regular file, or whose directory became a symbolic link, fails the
 * spawn (SBX_E_INVALID) and the command never runs; a listed socket that
 * is gone only fails its connect (ENOENT). */
static void test_unix__pinning_checks_the_path(void **state)
{
        struct fx *f = *state;
        char dir[PATH_MAX], dir2[PATH_MAX], sock[PATH_MAX], mark[PATH_MAX];
        const char *socks[1];
        const char *argv[] = { f->probe, "write", mark, NULL };
        size_t c;

        fx_populate(f);
        join(dir, f->outside, "d");
        join(dir2, f->outside, "d2");
        join(sock, dir, "s.sock");
        join(mark, f->ws, "ran");
        socks[0] = sock;
        for (c = 0; c < N_COMBOS; c++) {
                const struct combo *k = &COMBOS[c];
                struct res *res;
                sbx_profile *p;
                int l, s;

                if (!backend_usable(f, k->backend) || k->mode != SBX_MODE_WORKSPACE_WRITE)
                        continue;
                set_label(f, k->backend, k->mode, NULL);
                assert_int_equal(mkdir(dir, 0755), 0);
                l = fx_unix_socket(f, SOCK_STREAM, sock, 0, 16);
                p = unix_profile(f, k->mode, 0, socks, 1);
                fx_close_fd(f, l);

                /* gone: the spawn runs, the connect says ENOENT */
                assert_int_equal(unlink(sock), 0);
                s = ecode(probe_profile(f, k->backend, p, "unix", sock, NULL, NULL));
                CHECK(f, s == ENOENT, "connect to a listed socket that is gone: exit %d", s);

                /* a regular file now */
                assert_int_equal(write_file(sock, "x", 0644), 0);
                res = calloc(1, sizeof(*res));
                assert_non_null(res);
                run_profile(f, k->backend, p, argv, &(struct ro){ .may_fail = 1 }, res);
                CHECK(f, !res->spawned && res->code == SBX_E_INVALID && !exists(mark),
                      "a listed socket that is a file: code %d, ran %d", (int) res->code,
                      exists(mark));
                free(res);
                assert_int_equal(unlink(sock), 0);

                /* its directory a symbolic link to another one */
                assert_int_equal(rename(dir, dir2), 0);
                assert_int_equal(symlink(dir2, dir), 0);
                l = fx_unix_socket(f, SOCK_STREAM, sock, 0, 16);
                res = calloc(1, sizeof(*res));
                assert_non_null(res);
                run_profile(f, k->backend, p, argv, &(struct ro){ .may_fail = 1 }, res);
                CHECK(f, !res->spawned && res->code == SBX_E_INVALID && !exists(mark),
                      "a listed socket behind a symbolic link: code %d, ran %d",
                      (int) res->code, exists(mark));
                free(res);
                fx_close_fd(f, l);
                (void) unlink(P(dir2, "s.sock"));
                assert_int_equal(unlink(dir), 0);
                assert_int_equal(rmdir(dir2), 0);
                sbx_profile_free(p);
        }
        fx_done(f);
}

/* bwrap cannot make the command's connects: it refuses the profile. */
static void test_unix__bwrap_refuses(void **state)
{
        struct fx *f = *state;
        char a[PATH_MAX];
        const char *socks[1];
        const char *argv[] = { "/bin/true", NULL };
        sbx_profile *p;
        struct res *res;
        int la;

        if (!backend_usable(f, SBX_BACKEND_BWRAP))
                return;
        fx_populate(f);
        join(a, f->outside, "a.sock");
        la = fx_unix_socket(f, SOCK_STREAM, a, 0, 16);
        socks[0] = a;
        set_label(f, SBX_BACKEND_BWRAP, SBX_MODE_READ_ONLY, NULL);
        p = unix_profile(f, SBX_MODE_READ_ONLY, 0, socks, 1);
        res = calloc(1, sizeof(*res));
        assert_non_null(res);
        run_profile(f, SBX_BACKEND_BWRAP, p, argv, &(struct ro){ .may_fail = 1 }, res);
        CHECK(f, !res->spawned && res->code == SBX_E_UNSUPPORTED,
              "bwrap ran a profile with unix_sockets (code %d)", (int) res->code);
        free(res);
        sbx_profile_free(p);
        fx_close_fd(f, la);
        (void) unlink(a);
        fx_done(f);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_unix__only_the_listed_socket),
                T(test_unix__blocked_connect_stalls_nothing),
                T(test_unix__tcp_still_connects),
                T(test_unix__pinning_checks_the_path),
                T(test_unix__bwrap_refuses),
        };
#undef T

        return cmocka_run_group_tests(tests, NULL, NULL);
}
