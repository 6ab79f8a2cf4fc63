/*
 * spawn_util.c - the definitions of the enforcement and conformance tests'
 * shared harness (spawn_util.h has what each does), built once as the
 * sbx_testutil library instead of once per test.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "enforcement/spawn_util.h"

int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

void cannot_test(const char *fmt, ...)
{
        char buf[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (require_all())
                fail_msg("cannot test: %s (SBX_REQUIRE_ALL=1)", buf);
        print_message("[  NOTE    ] cannot test: %s\n", buf);
}

void note(const char *fmt, ...)
{
        char buf[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        print_message("[  NOTE    ] %s\n", buf);
}

void check_failed(struct fx *f, const char *file, int line, const char *fmt, ...)
{
        char buf[2048];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        f->failures++;
        print_message("[  LEAK    ] %s: %s (%s:%d)\n", f->label[0] ? f->label : "-", buf,
                      file, line);
}

void fx_done(struct fx *f)
{
        f->label[0] = '\0';
        if (f->failures > 0)
                fail_msg("%d check(s) failed; see the [  LEAK    ] lines above", f->failures);
}

void set_label(struct fx *f, int32_t backend, int32_t mode, const char *extra)
{
        /* a label for messages: a cut one is still a label */
        if (snprintf(f->label, sizeof(f->label), "%s/%s%s%s", sbx_backend_name(backend),
                     mode != SBX_MODE_NONE ? sbx_mode_name(mode) : "-", extra ? " " : "",
                     extra ? extra : "") < 0)
                f->label[0] = '\0';
}

void join(char *out, const char *a, const char *b)
{
        int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

        assert_true(n > 0 && n < PATH_MAX);
}
static char **g_paths;
static size_t g_npaths, g_cap_paths;

const char *P(const char *a, const char *b)
{
        char *out = malloc(PATH_MAX);

        assert_non_null(out);
        join(out, a, b);
        if (g_npaths == g_cap_paths) {
                g_cap_paths = g_cap_paths ? g_cap_paths * 2 : 256;
                g_paths = realloc(g_paths, g_cap_paths * sizeof(*g_paths));
                assert_non_null(g_paths);
        }
        g_paths[g_npaths++] = out;
        return out;
}

void paths_free(void)
{
        size_t i;

        for (i = 0; i < g_npaths; i++)
                free(g_paths[i]);
        free(g_paths);
        g_paths = NULL;
        g_npaths = g_cap_paths = 0;
}

int write_file(const char *path, const char *text, mode_t mode)
{
        size_t len = strlen(text), off = 0;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);

        if (fd < 0)
                return -1;
        while (off < len) {
                ssize_t w = write(fd, text + off, len - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        (void) close(fd);
                        return -1;
                }
                off += (size_t) w;
        }
        (void) fchmod(fd, mode);
        return close(fd);
}

ssize_t read_file(const char *path, char *buf, size_t size)
{
        size_t off = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

        if (fd < 0)
                return -1;
        while (off + 1 < size) {
                ssize_t r = read(fd, buf + off, size - 1 - off);

                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        (void) close(fd);
                        return -1;
                }
                if (r == 0)
                        break;
                off += (size_t) r;
        }
        buf[off] = '\0';
        (void) close(fd);
        return (ssize_t) off;
}

int exists(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0;
}

void rm_tree_at(int dfd, const char *name)
{
        struct stat st;
        int fd;
        DIR *d;
        struct dirent *de;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return;
        if (!S_ISDIR(st.st_mode)) {
                (void) unlinkat(dfd, name, 0);
                return;
        }
        (void) fchmodat(dfd, name, 0700, 0);
        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
                d = fdopendir(fd);
                if (d == NULL) {
                        close(fd);
                } else {
                        while ((de = readdir(d)) != NULL)
                                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                                        rm_tree_at(dirfd(d), de->d_name);
                        closedir(d);
                }
        }
        (void) unlinkat(dfd, name, AT_REMOVEDIR);
}

void rm_tree(const char *path)
{
        rm_tree_at(AT_FDCWD, path);
}

void empty_dir(const char *path)
{
        DIR *d;
        struct dirent *de;

        (void) chmod(path, 0755);
        d = opendir(path);
        if (d == NULL)
                return;
        while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        rm_tree_at(dirfd(d), de->d_name);
        closedir(d);
}

int copy_file(const char *from, const char *to, mode_t mode)
{
        char buf[65536];
        int in = open(from, O_RDONLY | O_CLOEXEC), out;
        ssize_t n;

        if (in < 0)
                return -1;
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (out < 0) {
                close(in);
                return -1;
        }
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t) n) != n) {
                        n = -1;
                        break;
                }
        close(in);
        (void) fchmod(out, mode);
        if (close(out) < 0 || n < 0)
                return -1;
        return 0;
}

void fx_populate(struct fx *f)
{
        empty_dir(f->ws);
        empty_dir(f->outside);
        empty_dir(f->home);
        empty_dir(f->tmp);
        assert_int_equal(chmod(f->ws, 0755), 0);
        assert_int_equal(chmod(f->outside, 0755), 0);
        assert_int_equal(chmod(f->home, 0700), 0);
        assert_int_equal(write_file(P(f->ws, "file"), ORIGINAL, 0644), 0);
        assert_int_equal(mkdir(P(f->ws, "dir"), 0755), 0);
        assert_int_equal(write_file(P(f->outside, "victim"), ORIGINAL, 0644), 0);
        assert_int_equal(mkdir(P(f->outside, "dir"), 0755), 0);
        assert_int_equal(write_file(P(f->outside, "dir/inner"), ORIGINAL, 0644), 0);
        assert_int_equal(write_file(P(f->home, "secret"), "home-secret\n", 0600), 0);
}

int fx_setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        char tmpl[PATH_MAX];
        const char *probe = getenv("SBX_PROBE");
        size_t i;

        if (f == NULL)
                return -1;
        for (i = 0; i < MAX_PIDS; i++)
                f->pids[i] = -1;
        for (i = 0; i < MAX_FDS; i++)
                f->fds[i] = -1;
        if (probe == NULL || probe[0] != '/') {
                print_message("SBX_PROBE must name the sbx-probe binary (absolute)\n");
                free(f);
                return -1;
        }
        snprintf(tmpl, sizeof(tmpl), "/tmp/sbx-spawn-XXXXXX");
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, f->base) == NULL) {
                free(f);
                return -1;
        }
        snprintf(tmpl, sizeof(tmpl), "/var/tmp/sbx-spawn-XXXXXX");
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, f->vbase) == NULL) {
                print_message("cannot create a fixture under /var/tmp: %s\n", strerror(errno));
                rm_tree(f->base);
                free(f);
                return -1;
        }
        if (strncmp(f->vbase, "/tmp/", 5) == 0)
                print_message("[  NOTE    ] /var/tmp resolves below /tmp: rung-1 victims are "
                              "hidden rather than read-only\n");
        (void) chmod(f->base, 0755);
        (void) chmod(f->vbase, 0755);
        join(f->ws, f->base, "ws");
        join(f->tmp, f->base, "tmp");
        join(f->outside, f->vbase, "outside");
        join(f->home, f->vbase, "home");
        join(tmpl, f->vbase, "bin");
        if (mkdir(f->ws, 0755) < 0 || mkdir(f->tmp, 0700) < 0 || mkdir(f->outside, 0755) < 0 ||
            mkdir(f->home, 0700) < 0 || mkdir(tmpl, 0755) < 0)
                goto fail;
        join(f->probe, tmpl, "sbx-probe");
        if (copy_file(probe, f->probe, 0755) < 0) {
                print_message("cannot copy %s: %s\n", probe, strerror(errno));
                goto fail;
        }
        snprintf(f->env_home, sizeof(f->env_home), "HOME=%s", f->home);
        f->envp[0] = "PATH=/usr/bin:/bin";
        f->envp[1] = f->env_home;
        f->envp[2] = "SBX_TEST_TOKEN=" SECRET;
        f->envp[3] = "LANG=C";
        f->envp[4] = NULL;
        *state = f;
        return 0;
fail:
        rm_tree(f->base);
        rm_tree(f->vbase);
        free(f);
        return -1;
}

void fx_track_pid(struct fx *f, pid_t pid)
{
        size_t i;

        for (i = 0; i < MAX_PIDS; i++)
                if (f->pids[i] < 0) {
                        f->pids[i] = pid;
                        return;
                }
        fail_msg("too many tracked pids");
}

void fx_track_fd(struct fx *f, int fd)
{
        size_t i;

        for (i = 0; i < MAX_FDS; i++)
                if (f->fds[i] < 0) {
                        f->fds[i] = fd;
                        return;
                }
        fail_msg("too many tracked fds");
}

void fx_close_fd(struct fx *f, int fd)
{
        size_t i;

        for (i = 0; i < MAX_FDS; i++)
                if (f->fds[i] == fd)
                        f->fds[i] = -1;
        (void) close(fd);
}

void fx_set_tmpdir(struct fx *f, const char *dir)
{
        const char *old = getenv("TMPDIR");

        if (!f->set_tmpdir) {
                f->had_tmpdir = old != NULL;
                if (old != NULL)
                        snprintf(f->old_tmpdir, sizeof(f->old_tmpdir), "%s", old);
                f->set_tmpdir = 1;
        }
        assert_int_equal(setenv("TMPDIR", dir, 1), 0);
}

int fx_teardown(void **state)
{
        struct fx *f = *state;
        size_t i;

        if (f == NULL)
                return 0;
        for (i = 0; i < MAX_PIDS; i++)
                if (f->pids[i] > 0) {
                        (void) kill(f->pids[i], SIGKILL);
                        while (waitpid(f->pids[i], NULL, 0) < 0 && errno == EINTR)
                                ;
                }
        for (i = 0; i < MAX_FDS; i++)
                if (f->fds[i] >= 0)
                        (void) close(f->fds[i]);
        if (f->set_tmpdir) {
                if (f->had_tmpdir)
                        (void) setenv("TMPDIR", f->old_tmpdir, 1);
                else
                        (void) unsetenv("TMPDIR");
        }
        rm_tree(f->base);
        rm_tree(f->vbase);
        if (exists(f->base) || exists(f->vbase))
                print_message("[  NOTE    ] fixture not fully removed: %s %s\n", f->base, f->vbase);
        free(f);
        paths_free();
        *state = NULL;
        return 0;
}

sbx_profile *make_profile(const struct fx *f, int32_t mode, int network_allow)
{
        sbx_profile *p = NULL, *q = NULL;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(mode, f->ws, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_from_mode(%s, %s): %s", sbx_mode_name(mode), f->ws, e.message);
        if (!network_allow)
                return p;
        if (sbx_profile_config_get(p, &cfg, &e) != SBX_OK)
                fail_msg("sbx_profile_config_get: %s", e.message);
        cfg.network = SBX_ACCESS_ALLOW;
        if (sbx_profile_new(&cfg, &q, &e) != SBX_OK)
                fail_msg("sbx_profile_new(network allow): %s", e.message);
        sbx_profile_free(p);
        return q;
}

sbx_profile *profile_edit(const struct fx *f, int32_t mode, int network_allow,
                          void (*edit)(sbx_profile_config *, const void *), const void *arg)
{
        sbx_profile *p = make_profile(f, mode, network_allow), *q = NULL;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_config_get(p, &cfg, &e) != SBX_OK)
                fail_msg("sbx_profile_config_get: %s", e.message);
        edit(&cfg, arg);
        if (sbx_profile_new(&cfg, &q, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        sbx_profile_free(p);
        return q;
}

int fx_count_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        assert_non_null(d);
        while ((de = readdir(d)) != NULL)
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}

long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ecode(int status)
{
        if (status < 0)
                return -1;
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return -1;
}

const char *describe_status(int status)
{
        static char buf[4][96];
        static unsigned k;
        char *b = buf[k++ % 4];

        if (status < 0)
                snprintf(b, 96, "not run");
        else if (WIFEXITED(status))
                snprintf(b, 96, "exit %d%s%s", WEXITSTATUS(status),
                         WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 120 ? " " : "",
                         WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 120
                                 ? strerror(WEXITSTATUS(status)) : "");
        else if (WIFSIGNALED(status))
                snprintf(b, 96, "signal %d", WTERMSIG(status));
        else
                snprintf(b, 96, "status 0x%x", (unsigned) status);
        return b;
}

int pidfd_for(pid_t pid)
{
#ifdef SYS_pidfd_open
        return (int) syscall(SYS_pidfd_open, pid, 0);  /* always O_CLOEXEC */
#else
        (void) pid;
        errno = ENOSYS;
        return -1;
#endif
}

void run_profile(struct fx *f, int32_t backend, const sbx_profile *profile,
                 const char *const *argv, const struct ro *o, struct res *res)
{
        static const struct ro none;
        sbx_profile *accepted = NULL;
        sbx_plan *plan = NULL;
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        int keep[24], pfd[2] = { -1, -1 }, done = 0, eof = 0, pidfd;
        size_t nk = 0, i;
        long deadline;
        siginfo_t si;

        if (o == NULL)
                o = &none;
        memset(res, 0, sizeof(*res));
        /* bwrap cannot refuse a new .git (no supervisor, docs/git.md): it
         * runs a workspace-write profile only when the caller accepts
         * that, so the tests accept it for bwrap. */
        if (backend == SBX_BACKEND_BWRAP) {
                sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

                if (sbx_profile_config_get(profile, &cfg, &e) != SBX_OK)
                        fail_msg("sbx_profile_config_get: %s", e.message);
                cfg.accept_unprotected_git = 1;
                if (sbx_profile_new(&cfg, &accepted, &e) != SBX_OK)
                        fail_msg("sbx_profile_new (accept_unprotected_git): %s", e.message);
                profile = accepted;
        }
        res->status = -1;
        res->rep = (sbx_guarantee_report) SBX_GUARANTEE_REPORT_INIT;
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        sbx_profile_free(accepted);
        if (o->capture) {
                assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
                keep[nk++] = pfd[1];
        }
        for (i = 0; i < o->n_keep; i++)
                keep[nk++] = o->keep[i];
        so.backend = backend;
        so.cwd = o->cwd;
        so.envp = o->envp != NULL ? o->envp : f->envp;
        so.keep_fds = nk > 0 ? keep : NULL;
        so.n_keep_fds = nk;
        so.memory_max = o->memory_max;
        so.pids_max = o->pids_max;
        res->code = sbx_spawn(plan, argv, &so, &child, &res->err);
        sbx_plan_free(plan);
        if (pfd[1] >= 0)
                close(pfd[1]);
        if (res->code != SBX_OK) {
                if (pfd[0] >= 0)
                        close(pfd[0]);
                if (!o->may_fail)
                        fail_msg("%s: sbx_spawn(%s ...) failed: %s: %s", f->label, argv[0],
                                 sbx_code_name(res->code), res->err.message);
                return;
        }
        res->spawned = 1;
        if (sbx_child_report(child, &res->rep, &e) != SBX_OK)
                fail_msg("sbx_child_report: %s", e.message);
        CHECK(f, res->rep.enforcement == SBX_ENFORCEMENT_FULL &&
                 (res->rep.achieved & res->rep.required) == res->rep.required,
              "child report: enforcement %d, required 0x%x, achieved 0x%x",
              (int) res->rep.enforcement, (unsigned) res->rep.required,
              (unsigned) res->rep.achieved);

        /* Drain the capture pipe while waiting; both bounded.  poll wakes on
         * output and on the child's exit (its pidfd); without a pidfd it
         * looks again every 10 ms. */
        pidfd = pidfd_for(sbx_child_pid(child));
        deadline = now_ms() + WAIT_MS;
        while (!(done && (eof || pfd[0] < 0))) {
                long left = deadline - now_ms();
                struct pollfd pf[2];
                nfds_t npf = 0;

                if (left <= 0)
                        break;
                if (!done) {
                        memset(&si, 0, sizeof(si));
                        if (waitid(P_PID, (id_t) sbx_child_pid(child), &si,
                                   WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 && si.si_pid != 0)
                                done = 1;
                }
                if (pfd[0] >= 0 && !eof)
                        pf[npf++] = (struct pollfd){ pfd[0], POLLIN, 0 };
                if (!done && pidfd >= 0)
                        pf[npf++] = (struct pollfd){ pidfd, POLLIN, 0 };
                if (npf == 0) {
                        struct timespec ts = { 0, 10 * 1000 * 1000 };

                        if (!done)
                                nanosleep(&ts, NULL);
                        continue;
                }
                if (poll(pf, npf, pidfd >= 0 || done ? (int) left : 10) > 0 && pfd[0] >= 0 &&
                    !eof && pf[0].revents != 0) {
                        ssize_t n = read(pfd[0], res->out + res->outlen,
                                         sizeof(res->out) - 1 - res->outlen);

                        if (n <= 0 || res->outlen + (size_t) n >= sizeof(res->out) - 1)
                                eof = 1;
                        if (n > 0)
                                res->outlen += (size_t) n;
                }
        }
        res->out[res->outlen] = '\0';
        if (pidfd >= 0)
                close(pidfd);
        if (pfd[0] >= 0)
                close(pfd[0]);
        if (!done) {
                sbx_child_free(child);
                fail_msg("%s: %s did not finish within %d ms (killed)", f->label, argv[1] ? argv[1] : argv[0],
                         WAIT_MS);
        }
        if (sbx_child_wait(child, &res->status, &e) != SBX_OK)
                fail_msg("sbx_child_wait: %s", e.message);
        sbx_child_free(child);
}

void run_mode(struct fx *f, int32_t backend, int32_t mode, const char *const *argv,
              const struct ro *o, struct res *res)
{
        sbx_profile *p = make_profile(f, mode, 0);

        run_profile(f, backend, p, argv, o, res);
        sbx_profile_free(p);
}

int probe_profile(struct fx *f, int32_t backend, const sbx_profile *profile, const char *a1,
                  const char *a2, const char *a3, const char *a4)
{
        const char *argv[6] = { f->probe, a1, a2, a3, a4, NULL };
        struct res *res = calloc(1, sizeof(*res));
        int st;

        assert_non_null(res);
        run_profile(f, backend, profile, argv, NULL, res);
        st = res->status;
        free(res);
        return st;
}

int fx_unix_socket(struct fx *f, int type, const char *name, int abstract, int backlog)
{
        struct sockaddr_un sun;
        socklen_t len;
        int fd;

        memset(&sun, 0, sizeof(sun));
        sun.sun_family = AF_UNIX;
        assert_true(strlen(name) + 2 < sizeof(sun.sun_path));
        if (abstract) {
                memcpy(sun.sun_path + 1, name, strlen(name));
                len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
        } else {
                (void) unlink(name);
                strcpy(sun.sun_path, name);
                len = sizeof(sun);
        }
        fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(fd >= 0);
        fx_track_fd(f, fd);
        assert_int_equal(bind(fd, (struct sockaddr *) &sun, len), 0);
        if (!abstract)
                assert_int_equal(chmod(name, 0777), 0);
        if (type == SOCK_STREAM)
                assert_int_equal(listen(fd, backlog), 0);
        return fd;
}

int fx_tcp_listener(struct fx *f, char *port, size_t size)
{
        struct sockaddr_in sin;
        socklen_t len = sizeof(sin);
        int fd;

        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(fd >= 0);
        fx_track_fd(f, fd);
        assert_int_equal(bind(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
        assert_int_equal(listen(fd, 16), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &sin, &len), 0);
        snprintf(port, size, "%u", (unsigned) ntohs(sin.sin_port));
        return fd;
}

int probe_status(struct fx *f, int32_t backend, int32_t mode, const char *a1,
                 const char *a2, const char *a3, const char *a4)
{
        sbx_profile *p = make_profile(f, mode, 0);
        int st = probe_profile(f, backend, p, a1, a2, a3, a4);

        sbx_profile_free(p);
        return st;
}

int backend_usable(struct fx *f, int32_t backend)
{
        static int known[8], usable[8];
        sbx_profile *p;
        const char *argv[] = { "true", NULL };
        struct res *res;

        if (known[backend])
                return usable[backend];
        res = calloc(1, sizeof(*res));
        assert_non_null(res);
        p = make_profile(f, SBX_MODE_READ_ONLY, 0);
        run_profile(f, backend, p, argv, &(struct ro){ .may_fail = 1 }, res);
        sbx_profile_free(p);
        known[backend] = 1;
        usable[backend] = res->spawned && ecode(res->status) == 0;
        if (!usable[backend])
                cannot_test("the %s backend does not run here: %s %s", sbx_backend_name(backend),
                            sbx_code_name(res->code), res->spawned ? describe_status(res->status)
                                                                   : res->err.message);
        free(res);
        return usable[backend];
}

void snap_entry(char **buf, size_t *len, size_t *cap, const char *rel, int dfd,
                const char *name, int depth)
{
        struct stat st;
        char line[PATH_MAX + 512], xl[1024] = "", data[4096];
        unsigned long h = 1469598103934665603ul;
        ssize_t n, i;
        int fd;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return;
        if (S_ISREG(st.st_mode)) {
                fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
                if (fd >= 0) {
                        while ((n = read(fd, data, sizeof(data))) > 0)
                                for (i = 0; i < n; i++)
                                        h = (h ^ (unsigned char) data[i]) * 1099511628211ul;
                        close(fd);
                }
        } else if (S_ISLNK(st.st_mode)) {
                n = readlinkat(dfd, name, data, sizeof(data) - 1);
                if (n >= 0)
                        for (i = 0; i < n; i++)
                                h = (h ^ (unsigned char) data[i]) * 1099511628211ul;
        }
        if (!S_ISLNK(st.st_mode)) {
                char p[PATH_MAX];

                snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dfd, name);
                if (dfd == AT_FDCWD)
                        snprintf(p, sizeof(p), "%s", name);
                n = llistxattr(p, xl, sizeof(xl) - 1);
                xl[n > 0 ? n : 0] = '\0';
                for (i = 0; i < n; i++)
                        if (xl[i] == '\0')
                                xl[i] = ',';
        }
        snprintf(line, sizeof(line), "%s mode=%o uid=%u gid=%u size=%lld nlink=%lu ino=%lu "
                 "mtime=%lld.%09ld ctime=%lld.%09ld xattr=[%s] hash=%lx\n", rel,
                 (unsigned) st.st_mode, (unsigned) st.st_uid, (unsigned) st.st_gid,
                 (long long) st.st_size, (unsigned long) st.st_nlink, (unsigned long) st.st_ino,
                 (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                 (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec, xl, h);
        n = (ssize_t) strlen(line);
        if (*len + (size_t) n + 1 > *cap) {
                *cap = (*cap + (size_t) n + 1) * 2;
                *buf = realloc(*buf, *cap);
                assert_non_null(*buf);
        }
        memcpy(*buf + *len, line, (size_t) n + 1);
        *len += (size_t) n;
        if (S_ISDIR(st.st_mode) && depth < 8) {
                struct dirent **list = NULL;
                int k, cnt;
                char sub[PATH_MAX];

                fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return;
                snprintf(sub, sizeof(sub), "/proc/self/fd/%d", fd);
                cnt = scandir(sub, &list, NULL, alphasort);
                for (k = 0; k < cnt; k++) {
                        if (strcmp(list[k]->d_name, ".") != 0 && strcmp(list[k]->d_name, "..") != 0) {
                                char r2[PATH_MAX];

                                snprintf(r2, sizeof(r2), "%s/%s", rel, list[k]->d_name);
                                snap_entry(buf, len, cap, r2, fd, list[k]->d_name, depth + 1);
                        }
                        free(list[k]);
                }
                free(list);
                close(fd);
        }
}

char *snap_tree(const char *path)
{
        char *buf = calloc(1, 256);
        size_t len = 0, cap = 256;

        assert_non_null(buf);
        snap_entry(&buf, &len, &cap, ".", AT_FDCWD, path, 0);
        return buf;
}

void snap_diff(const char *a, const char *b, char *out, size_t size)
{
        while (*a != '\0' || *b != '\0') {
                const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
                size_t la = ea ? (size_t) (ea - a) : strlen(a);
                size_t lb = eb ? (size_t) (eb - b) : strlen(b);

                if (la != lb || memcmp(a, b, la) != 0) {
                        snprintf(out, size, "before: \"%.*s\" after: \"%.*s\"", (int) la, a,
                                 (int) lb, b);
                        return;
                }
                a += la + (ea ? 1 : 0);
                b += lb + (eb ? 1 : 0);
        }
        snprintf(out, size, "(no difference)");
}

mode_t mode_of(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0 ? st.st_mode : 0;
}

int has_line(const char *out, const char *line)
{
        size_t n = strlen(line);
        const char *p = out;

        while (p != NULL && *p != '\0') {
                if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
                        return 1;
                p = strchr(p, '\n');
                if (p != NULL)
                        p++;
        }
        return 0;
}
