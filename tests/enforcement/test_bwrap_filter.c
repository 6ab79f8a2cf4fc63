/*
 * test_bwrap_filter.c - the bwrap backend's seccomp program (sbx_spawn
 * hands bwrap the rung-1 deny list on an fd, --seccomp), checked from the
 * host with real commands in both modes:
 *
 *   - socket(AF_VSOCK) is refused (EPERM, where the kernel alone would
 *     create it or answer EAFNOSUPPORT), whatever the network decision;
 *   - denied syscall classes (a new user namespace, keyctl, io_uring)
 *     are refused with EPERM, and the filter is loaded
 *     (/proc/self/status says Seccomp 2);
 *   - network-deny runs on this host even with a vsock transport: a
 *     127.0.0.1 listener the test opened sees no connection;
 *   - a host unix socket the sandbox can see is not reachable (socket(
 *     AF_UNIX) is refused), with the network allowed too;
 *   - the child report says syscall-filter (and network-deny, fd-isolation);
 *   - the program's fd reaches neither the command nor stays open in the
 *     host, with and without keep_fds;
 *   - the scratch HOME and TMPDIR are owner-only (0700);
 *   - Confine's bwrap argv, which cannot carry the fd, claims no
 *     syscall-filter (nor network-deny where vsock is reachable), and
 *     running it shows the difference: keyctl works there.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spawn_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

static const int32_t MODES[] = { SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE };
#define N_MODES (sizeof(MODES) / sizeof(MODES[0]))

/* 1 if this host's kernel creates AF_VSOCK sockets (a transport is loaded). */
static int host_has_vsock(void)
{
        int fd = socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd >= 0) {
                close(fd);
                return 1;
        }
        return errno != EAFNOSUPPORT && errno != EINVAL;
}

static int bwrap_here(struct fx *f)
{
        return backend_usable(f, SBX_BACKEND_BWRAP);
}

/* The probe under bwrap with profile p; its exit code, and the report. */
static int run_probe(struct fx *f, const sbx_profile *p, const char *a1, const char *a2,
                     const char *a3, sbx_guarantee_report *rep)
{
        const char *argv[5] = { f->probe, a1, a2, a3, NULL };
        struct res *res = calloc(1, sizeof(*res));
        int st;

        assert_non_null(res);
        run_profile(f, SBX_BACKEND_BWRAP, p, argv, NULL, res);
        st = ecode(res->status);
        if (rep != NULL)
                *rep = res->rep;
        free(res);
        return st;
}

/* ------------------------------------------------------------------ tests */

static void test_bwrap_filter__vsock_and_kernel_surface_refused(void **state)
{
        struct fx *f = *state;
        size_t m;
        int net;

        if (!bwrap_here(f))
                return;
        note("this host %s an AF_VSOCK transport", host_has_vsock() ? "has" : "has no");
        for (m = 0; m < N_MODES; m++) {
                for (net = 0; net < 2; net++) {
                        sbx_profile *p = make_profile(f, MODES[m], net);
                        sbx_guarantee_report rep;
                        int s;

                        fx_populate(f);
                        set_label(f, SBX_BACKEND_BWRAP, MODES[m], net ? "network allow"
                                                                       : "network deny");
                        s = run_probe(f, p, "vsock", NULL, NULL, &rep);
                        CHECK(f, s == EPERM, "socket(AF_VSOCK): exit %d, want EPERM", s);
                        CHECK(f, (rep.achieved & SBX_G_SYSCALL_FILTER) != 0,
                              "the report does not say syscall-filter (achieved 0x%x)",
                              (unsigned) rep.achieved);
                        CHECK(f, (rep.achieved & SBX_G_FD_ISOLATION) != 0,
                              "the report does not say fd-isolation (achieved 0x%x)",
                              (unsigned) rep.achieved);
                        CHECK(f, net || (rep.achieved & SBX_G_NETWORK_DENY) != 0,
                              "network denied, but the report does not say network-deny "
                              "(achieved 0x%x)", (unsigned) rep.achieved);
                        s = run_probe(f, p, "unshare-user", NULL, NULL, NULL);
                        CHECK(f, s == EPERM, "unshare(CLONE_NEWUSER): exit %d, want EPERM", s);
                        s = run_probe(f, p, "keyctl", NULL, NULL, NULL);
                        CHECK(f, s == EPERM, "keyctl: exit %d, want EPERM", s);
                        s = run_probe(f, p, "io_uring", NULL, NULL, NULL);
                        CHECK(f, s == EPERM, "io_uring_setup: exit %d, want EPERM", s);
                        /* The filter is there (mode 2) for the command. */
                        {
                                const char *argv[] = { f->probe, "out", "3", "procstatus",
                                                       "Seccomp", NULL };
                                struct res *res = calloc(1, sizeof(*res));

                                assert_non_null(res);
                                run_profile(f, SBX_BACKEND_BWRAP, p, argv,
                                            &(struct ro){ .capture = 1 }, res);
                                CHECK(f, ecode(res->status) == 0 &&
                                         strcmp(res->out, "2\n") == 0,
                                      "Seccomp in /proc/self/status is \"%s\" (%s), want 2",
                                      res->out, describe_status(res->status));
                                free(res);
                        }
                        sbx_profile_free(p);
                }
        }
        fx_done(f);
}

/* A connection is queued before connect() returns: once the probe was
 * reaped, whatever it reached is waiting (no time to wait for). */
static int accepted(int lfd)
{
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

        if (c < 0)
                return 0;
        close(c);
        return 1;
}

/* Network-deny runs here (a vsock transport or not) and reaches no host
 * listener; a host unix socket is out of reach with the network allowed
 * too.  The positive control: with the network allowed, the TCP listener
 * is reached, so the probe and the listener work. */
static void test_bwrap_filter__network_deny_reaches_nothing(void **state)
{
        struct fx *f = *state;
        char port[16], sock[PATH_MAX], dsock[PATH_MAX], byte;
        struct sockaddr_un dsun;
        size_t m;
        int tcp, ux, dg, net, s;

        if (!bwrap_here(f))
                return;
        tcp = fx_tcp_listener(f, port, sizeof(port));
        join(sock, f->outside, "db.sock");
        fx_populate(f);
        ux = fx_unix_socket(f, SOCK_STREAM, sock, 0, 16);
        join(dsock, f->outside, "log.sock");
        dg = fx_unix_socket(f, SOCK_DGRAM, dsock, 0, 0);
        memset(&dsun, 0, sizeof(dsun));
        dsun.sun_family = AF_UNIX;
        strcpy(dsun.sun_path, dsock);
        /* Host-side control: the datagram socket receives. */
        {
                int c = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

                assert_true(c >= 0);
                assert_int_equal(sendto(c, "x", 1, 0, (struct sockaddr *) &dsun, sizeof(dsun)), 1);
                close(c);
                assert_int_equal(recv(dg, &byte, 1, MSG_DONTWAIT), 1);
        }
        /* Host-side control: the unix listener notices a client. */
        {
                struct sockaddr_un sun;
                int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

                memset(&sun, 0, sizeof(sun));
                sun.sun_family = AF_UNIX;
                strcpy(sun.sun_path, sock);
                assert_true(c >= 0);
                assert_int_equal(connect(c, (struct sockaddr *) &sun, sizeof(sun)), 0);
                close(c);
                assert_true(accepted(ux));
        }
        for (m = 0; m < N_MODES; m++) {
                for (net = 0; net < 2; net++) {
                        sbx_profile *p = make_profile(f, MODES[m], net);
                        sbx_guarantee_report rep;

                        set_label(f, SBX_BACKEND_BWRAP, MODES[m], net ? "network allow"
                                                                       : "network deny");
                        s = run_probe(f, p, "tcp", "127.0.0.1", port, &rep);
                        if (net) {
                                CHECK(f, s == 0 && accepted(tcp),
                                      "control: the host listener was not reached (exit %d)", s);
                        } else {
                                CHECK(f, s != 0, "connect to 127.0.0.1:%s succeeded", port);
                                CHECK(f, !accepted(tcp), "the host TCP listener accepted a "
                                      "connection");
                                CHECK(f, (rep.achieved & SBX_G_NETWORK_DENY) != 0,
                                      "the report does not say network-deny (0x%x)",
                                      (unsigned) rep.achieved);
                        }
                        s = run_probe(f, p, "unix", sock, NULL, NULL);
                        CHECK(f, s == EPERM, "connect to the host socket %s: exit %d, want "
                              "EPERM", sock, s);
                        CHECK(f, !accepted(ux), "the host unix listener accepted a connection");
                        s = run_probe(f, p, "unix-dgram", dsock, NULL, NULL);
                        CHECK(f, s == EPERM, "a datagram pair sending to the host socket %s: "
                              "exit %d, want EPERM", dsock, s);
                        CHECK(f, recv(dg, &byte, 1, MSG_DONTWAIT) < 0, "the host datagram "
                              "socket received a datagram");
                        sbx_profile_free(p);
                }
        }
        fx_close_fd(f, tcp);
        fx_close_fd(f, ux);
        fx_close_fd(f, dg);
        (void) unlink(sock);
        (void) unlink(dsock);
        fx_done(f);
}

/* The program's fd sits right after keep_fds in bwrap and is closed
 * before the command runs; the host closes its copy. */
static void test_bwrap_filter__program_fd_leaks_nowhere(void **state)
{
        struct fx *f = *state;
        sbx_profile *p;
        int before, after, extra, i;

        if (!bwrap_here(f))
                return;
        set_label(f, SBX_BACKEND_BWRAP, SBX_MODE_WORKSPACE_WRITE, NULL);
        fx_populate(f);
        p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        (void) run_probe(f, p, "vsock", NULL, NULL, NULL);     /* warm caches */
        extra = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(extra >= 0);
        fx_track_fd(f, extra);
        before = fx_count_fds();
        for (i = 0; i < 2; i++) {
                /* i = 0: the capture pipe only (fd 3, moved to 1 by "out");
                 * i = 1: plus /dev/null on fd 4.  The program was on the
                 * next fd; the command sees only what was passed. */
                const char *argv[] = { f->probe, "out", "3", "fds", NULL };
                struct res *res = calloc(1, sizeof(*res));
                const char *want = i == 0 ? "0\n1\n2\n" : "0\n1\n2\n4\n";

                assert_non_null(res);
                run_profile(f, SBX_BACKEND_BWRAP, p, argv,
                            &(struct ro){ .capture = 1, .keep = &extra, .n_keep = (size_t) i },
                            res);
                CHECK(f, ecode(res->status) == 0 && strcmp(res->out, want) == 0,
                      "with %d keep fd(s) the command has fds \"%s\" (%s), want \"%s\"", i + 1,
                      res->out, describe_status(res->status), want);
                free(res);
        }
        after = fx_count_fds();
        CHECK(f, after == before, "%d fds open in the host before the spawns, %d after",
              before, after);
        fx_close_fd(f, extra);
        sbx_profile_free(p);
        fx_done(f);
}

/* HOME (isolated: a tmpfs over the fixture home) and TMPDIR (/tmp, a
 * tmpfs) are owner-only. */
static void test_bwrap_filter__scratch_home_and_tmpdir_owner_only(void **state)
{
        struct fx *f = *state;
        size_t m;

        if (!bwrap_here(f))
                return;
        for (m = 0; m < N_MODES; m++) {
                const char *argv[] = { "/bin/sh", "-c",
                                       "stat -c %a \"$HOME\" \"$TMPDIR\" >&3", NULL };
                sbx_profile *p = make_profile(f, MODES[m], 0);
                struct res *res = calloc(1, sizeof(*res));

                assert_non_null(res);
                fx_populate(f);
                set_label(f, SBX_BACKEND_BWRAP, MODES[m], NULL);
                run_profile(f, SBX_BACKEND_BWRAP, p, argv, &(struct ro){ .capture = 1 }, res);
                CHECK(f, ecode(res->status) == 0 && strcmp(res->out, "700\n700\n") == 0,
                      "HOME and TMPDIR have modes \"%s\" (%s), want 700 and 700", res->out,
                      describe_status(res->status));
                free(res);
                sbx_profile_free(p);
        }
        fx_done(f);
}

/* ----------------------------------------------------------- Confine */

/* The fresh process this test re-executes (the backend is forced
 * process-wide, and only before detection ran): argv is
 * "--confine-child PROBE WS". */
static const char *g_probe, *g_ws;

static sbx_profile *ws_profile(int network_allow)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL, *q = NULL;

        if (sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, g_ws, &p, NULL) != SBX_OK)
                return NULL;
        /* bwrap cannot refuse a new .git: accepted (docs/git.md). */
        if (sbx_profile_config_get(p, &cfg, NULL) == SBX_OK) {
                if (network_allow)
                        cfg.network = SBX_ACCESS_ALLOW;
                cfg.accept_unprotected_git = 1;
                (void) sbx_profile_new(&cfg, &q, NULL);
        }
        sbx_profile_free(p);
        return q;
}

/* Exit code of argv run as is (a Confine result), from the workspace. */
static int run_argv(const char *const *argv)
{
        int st = 0;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

                if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || chdir(g_ws) < 0)
                        _exit(121);
                execv(argv[0], (char *const *) argv);
                _exit(122);
        }
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What Confine's bwrap argv claims and does.  0, or the number of the
 * failed check. */
static int confine_child(void)
{
        sbx_local_config lc = SBX_LOCAL_CONFIG_INIT;
        sbx_confined_argv *c = NULL;
        const char *const cmd[] = { g_probe, "keyctl", NULL };
        const char *const *argv;
        sbx_profile *p;
        sbx_error e;
        uint32_t g;
        size_t n, i;
        sbx_code r;

        lc.backend = SBX_BACKEND_BWRAP;
        if (sbx_local_config_set(&lc, NULL) != SBX_OK)
                return 1;
        /* Network allowed: Confine runs it, without the syscall filter. */
        p = ws_profile(1);
        if (p == NULL || sbx_confine_profile(cmd, p, &c, &e) != SBX_OK)
                return 2;
        sbx_profile_free(p);
        g = sbx_confined_argv_guarantees(c);
        if (g & SBX_G_SYSCALL_FILTER)
                return 3;
        argv = sbx_confined_argv_argv(c, &n);
        for (i = 0; i < n; i++)
                if (strcmp(argv[i], "--seccomp") == 0 || strcmp(argv[i], "--add-seccomp-fd") == 0)
                        return 4;
        /* No filter there: the keyctl the spawn refuses works. */
        if (run_argv(argv) != 0)
                return 5;
        sbx_confined_argv_free(c);
        c = NULL;
        /* Network denied: only where no vsock transport can be reached. */
        p = ws_profile(0);
        if (p == NULL)
                return 6;
        r = sbx_confine_profile(cmd, p, &c, &e);
        sbx_profile_free(p);
        if (host_has_vsock()) {
                if (r != SBX_E_SANDBOX_UNAVAILABLE || c != NULL ||
                    strstr(e.message, "network-deny") == NULL)
                        return 7;
        } else {
                if (r != SBX_OK)
                        return 8;
                g = sbx_confined_argv_guarantees(c);
                if ((g & SBX_G_SYSCALL_FILTER) || !(g & SBX_G_NETWORK_DENY))
                        return 9;
        }
        sbx_confined_argv_free(c);
        /* The spawn's own guarantees do include the filter. */
        p = ws_profile(0);
        {
                sbx_plan *plan = NULL;

                if (p == NULL || sbx_plan_compile(p, &plan, NULL) != SBX_OK ||
                    sbx_backend_guarantees(SBX_BACKEND_BWRAP, plan, &g, NULL, NULL) != SBX_OK ||
                    !(g & SBX_G_SYSCALL_FILTER) || !(g & SBX_G_NETWORK_DENY))
                        return 10;
                sbx_plan_free(plan);
        }
        sbx_profile_free(p);
        return 0;
}

static void test_bwrap_filter__confine_claims_no_filter(void **state)
{
        struct fx *f = *state;
        int st = 0, r;
        pid_t pid;

        if (!bwrap_here(f))
                return;
        fx_populate(f);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                execl("/proc/self/exe", "test_bwrap_filter", "--confine-child", f->probe, f->ws,
                      (char *) NULL);
                _exit(120);
        }
        while (waitpid(pid, &st, 0) < 0)
                assert_int_equal(errno, EINTR);
        r = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r != 0)
                fail_msg("Confine with the bwrap backend: check %d failed (status 0x%x)", r,
                         (unsigned) st);
}

int main(int argc, char **argv)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        const struct CMUnitTest tests[] = {
                T(test_bwrap_filter__vsock_and_kernel_surface_refused),
                T(test_bwrap_filter__network_deny_reaches_nothing),
                T(test_bwrap_filter__program_fd_leaks_nowhere),
                T(test_bwrap_filter__scratch_home_and_tmpdir_owner_only),
                T(test_bwrap_filter__confine_claims_no_filter),
        };

        if (argc == 4 && strcmp(argv[1], "--confine-child") == 0) {
                g_probe = argv[2];
                g_ws = argv[3];
                return confine_child();
        }
        return cmocka_run_group_tests(tests, NULL, NULL);
}
