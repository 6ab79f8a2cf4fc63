/*
 * test_secrets.c - a forced workspace that is a home directory keeps the
 * home's well-known secrets hidden (docs/secrets.md), checked from the
 * outside with the built sandbox-run on the native, landlock and bwrap
 * backends (each one this host can run; none at all is a skip, or a
 * failure with SBX_REQUIRE_ALL=1).
 *
 * The fake home H (HOME for sandbox-run) is below a canonical mkdtemp
 * directory under /var/tmp (/tmp is hidden in the sandbox): H/.ssh/id_rsa,
 * H/.aws/credentials and H/notes.txt.  With --force-workspace
 * --mode workspace-write --workspace H the command must not read the two
 * secrets (nothing of them in its output, its reads fail) nor overwrite
 * them (the host's files are unchanged), while notes.txt is readable and
 * writable (the host sees the append).  Without --force-workspace the
 * command never runs.
 *
 * Toolchains (the class of issue 20: configuration beside a toolchain's
 * programs): a second fake home T holds trees laid out as nvm, pyenv (a
 * version, a virtualenv, a plugin), rustup, cargo, go, sdkman, pnpm, rbenv,
 * asdf, ghcup, volta and bun lay them out, each with programs and runtime
 * files that must keep working and registry or publishing configuration
 * beside them (etc/npmrc, npm's built-in npmrc inside the exposed lib/,
 * pip.conf, config.toml, credentials, settings.xml,
 * a .git/config with a token in its URL, a VCS cache, ...).  With HOME=T
 * sandbox-run exposes T's toolchains by default; the command runs every
 * program, reads every runtime file, and tries to read every secret by
 * name and everything it can find under T; the host checks that no secret
 * token left the sandbox and that the secret files are unchanged.  Every
 * usable backend, read-only and (where usable) workspace-write.  Where the
 * caller's own HOME has real toolchains (pyenv, rustup), they run too:
 * python3, pip and `cargo build --offline` of a trivial crate.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit/sbx_test.h"

#define RUN_TIMEOUT_MS 60000
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define KEY "KEY-e1b0c44298fc1c149afb"
#define AWS "AWS-4fc1c149afbf4c8996fb"

#define TCFG "TCFG-0b1f9c2e77d4"
/* Registry configuration the secret table hides in a forced home. */
static const char *const forced_cfg[] = {
        "/.cargo/config.toml", "/.nvm/versions/node/v20/etc/npmrc",
        "/.pyenv/versions/3.11.7/pip.conf", "/.m2/settings.xml",
};

static char sandbox_run[PATH_MAX];
static char base[64], home[128], plain[128];    /* plain: a workspace without a home */
static char tchome[128];                        /* the toolchain home T */
static const char *run_home = home;             /* HOME for sandbox-run */
static char real_home[PATH_MAX];                /* the caller's own HOME, or "" */
static const char *usable[3];
static int needs_allow[3];      /* bwrap without network-deny here */
static size_t n_usable;

struct result {
        int   status;
        char  out[65536];
        char  err[65536];
};

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run sandbox-run with args (NULL-terminated) and HOME=run_home. */
static void run(const char *const *args, struct result *r)
{
        const char *argv[40];
        int op[2], ep[2], status = 0;
        size_t n = 0, lens[2] = { 0, 0 }, i;
        long deadline;
        pid_t pid;

        argv[n++] = sandbox_run;
        for (i = 0; args[i] != NULL && n + 1 < N_OF(argv); i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        memset(r, 0, sizeof(*r));
        assert_int_equal(pipe2(op, O_CLOEXEC), 0);
        assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(op[1], 1);
                dup2(ep[1], 2);
                (void) setenv("HOME", run_home, 1);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        close(op[1]);
        close(ep[1]);
        deadline = now_ms() + RUN_TIMEOUT_MS;
        while (op[0] >= 0 || ep[0] >= 0) {
                struct pollfd pf[2] = { { op[0], POLLIN, 0 }, { ep[0], POLLIN, 0 } };

                if (poll(pf, 2, 1000) < 0 && errno != EINTR)
                        fail_msg("poll: %s", strerror(errno));
                if (now_ms() > deadline) {
                        kill(pid, SIGKILL);
                        fail_msg("sandbox-run did not finish within %d ms", RUN_TIMEOUT_MS);
                }
                for (i = 0; i < 2; i++) {
                        int *fd = i == 0 ? &op[0] : &ep[0];
                        char *buf = i == 0 ? r->out : r->err;
                        ssize_t k;

                        if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                continue;
                        k = read(*fd, buf + lens[i], sizeof(r->out) - 1 - lens[i]);
                        if (k > 0) {
                                lens[i] += (size_t) k;
                        } else if (k == 0 || errno != EINTR) {
                                close(*fd);
                                *fd = -1;
                        }
                }
        }
        while (waitpid(pid, &status, 0) < 0)
                assert_int_equal(errno, EINTR);
        r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int write_file(const char *path, const char *text, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -1;
}

static void read_file(const char *path, char *buf, size_t sz)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        assert_true(fd >= 0);
        n = read(fd, buf, sz - 1);
        close(fd);
        assert_true(n >= 0);
        buf[n] = '\0';
}

static const char *in_home(const char *suffix)
{
        static char bufs[8][256];
        static unsigned next;
        char *b = bufs[next++ % 8];

        (void) snprintf(b, sizeof(bufs[0]), "%s%s", home, suffix);
        return b;
}

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* 1 usable, 0 refused here (125 with sandbox-run's own line), -1 broken. */
static int backend_usable(const char *b, int allow)
{
        const char *const args[] = { "--backend", b, "--network", allow ? "allow" : "deny",
                                     "--mode", "workspace-write", "--workspace", plain,
                                     "--explain", "--", "true", NULL };
        struct result *r = malloc(sizeof(*r));
        int ok;

        assert_non_null(r);
        run(args, r);
        if (r->status == 0)
                ok = 1;
        else if (r->status == SBX_EXIT_RUNNER_FAILURE && strstr(r->err, "sandbox-run: ") != NULL)
                ok = 0;
        else
                ok = -1;
        if (ok != 1)
                fprintf(stderr, "# backend %s%s %s (status %d): %s", b,
                        allow ? " (network allowed)" : "",
                        ok == 0 ? "not usable here" : "BROKE sandbox-run", r->status, r->err);
        free(r);
        return ok;
}

static int setup(void **state)
{
        static const char *const all[] = { "native", "landlock", "bwrap" };
        const char *env = getenv("SBX_SANDBOX_RUN");
        char *canon = NULL;
        size_t i;

        (void) state;
        if (env == NULL || env[0] != '/') {
                fprintf(stderr, "SBX_SANDBOX_RUN is not set to the built sandbox-run\n");
                return -1;
        }
        (void) snprintf(sandbox_run, sizeof(sandbox_run), "%s", env);
        strcpy(base, "/var/tmp/sbx-secrets-XXXXXX");
        if (mkdtemp(base) == NULL)
                return -1;
        if (sbx_path_canonical(base, &canon, NULL) != SBX_OK || strlen(canon) >= sizeof(base))
                return -1;
        strcpy(base, canon);
        sbx_free(canon);
        (void) chmod(base, 0755);
        (void) snprintf(home, sizeof(home), "%s/home", base);
        (void) snprintf(plain, sizeof(plain), "%s/plain", base);
        (void) snprintf(tchome, sizeof(tchome), "%s/tc", base);
        if (getenv("HOME") != NULL && getenv("HOME")[0] == '/' &&
            realpath(getenv("HOME"), real_home) == NULL)
                real_home[0] = '\0';
        if (mkdir(home, 0755) != 0 || mkdir(plain, 0755) != 0 || mkdir(in_home("/.ssh"), 0700) != 0 ||
            mkdir(in_home("/.aws"), 0700) != 0 ||
            write_file(in_home("/.ssh/id_rsa"), KEY "\n", 0600) != 0 ||
            write_file(in_home("/.aws/credentials"), AWS "\n", 0600) != 0 ||
            write_file(in_home("/notes.txt"), "notes\n", 0644) != 0)
                return -1;
        /* toolchain configuration in the forced home (secret table) */
        {
                static const char *const dirs[] = {
                        "/.cargo", "/.nvm", "/.nvm/versions", "/.nvm/versions/node",
                        "/.nvm/versions/node/v20", "/.nvm/versions/node/v20/etc", "/.pyenv",
                        "/.pyenv/versions", "/.pyenv/versions/3.11.7", "/.m2",
                };
                size_t k;

                for (k = 0; k < N_OF(dirs); k++)
                        if (mkdir(in_home(dirs[k]), 0755) != 0)
                                return -1;
                for (k = 0; k < N_OF(forced_cfg); k++)
                        if (write_file(in_home(forced_cfg[k]), TCFG "\n", 0600) != 0)
                                return -1;
        }
        for (i = 0; i < N_OF(all); i++) {
                int u = backend_usable(all[i], 0), allow = 0;

                if (u == 0 && strcmp(all[i], "bwrap") == 0) {
                        u = backend_usable(all[i], 1);  /* only network-deny missing? */
                        allow = 1;
                }
                if (u < 0)
                        return -1;
                if (u == 1) {
                        needs_allow[n_usable] = allow;
                        usable[n_usable++] = all[i];
                        fprintf(stderr, "# backend %s: tested\n", all[i]);
                }
        }
        return 0;
}

static int teardown(void **state)
{
        char cmd[160];

        (void) state;
        if (base[0] == '\0')
                return 0;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

static void need_backend(void)
{
        if (n_usable > 0)
                return;
        if (require_all())
                fail_msg("no sandbox backend is usable on this host (SBX_REQUIRE_ALL=1)");
        skip();
}

/* ------------------------------------------------------------- tests */

static void test_secrets__forced_home_workspace_hides_secrets(void **state)
{
        char script[2048], marker[64], buf[4096];
        struct result *r = malloc(sizeof(*r));
        size_t i;
        (void) state;

        assert_non_null(r);
        need_backend();
        for (i = 0; i < n_usable; i++) {
                const char *b = usable[i];
                const char *const args[] = {
                        "--backend", b, "--network", needs_allow[i] ? "allow" : "deny",
                        "--force-workspace", "--mode", "workspace-write", "--workspace", home,
                        "--", "sh", "-c", script, NULL
                };

                (void) snprintf(marker, sizeof(marker), "written-by-%s", b);
                /* Each secret: a read and an overwrite, reported by name;
                 * then the normal file, read and appended to. */
                (void) snprintf(script, sizeof(script),
                                "cat '%s' && echo READ-SSH; cat '%s' && echo READ-AWS; "
                                "echo pwned > '%s' && echo WROTE-SSH; "
                                "echo pwned > '%s' && echo WROTE-AWS; "
                                "cat '%s' && echo %s >> '%s' && echo NOTES-OK",
                                in_home("/.ssh/id_rsa"), in_home("/.aws/credentials"),
                                in_home("/.ssh/id_rsa"), in_home("/.aws/credentials"),
                                in_home("/notes.txt"), marker, in_home("/notes.txt"));
                {
                        size_t k, n = strlen(script);

                        for (k = 0; k < N_OF(forced_cfg); k++)
                                n += (size_t) snprintf(script + n, sizeof(script) - n,
                                                       "; cat '%s'", in_home(forced_cfg[k]));
                        n += (size_t) snprintf(script + n, sizeof(script) - n, "; true");
                        assert_true(n < sizeof(script));
                }
                run(args, r);
                if (strstr(r->out, TCFG) != NULL || strstr(r->err, TCFG) != NULL)
                        fail_msg("[%s] toolchain configuration in the forced home was read: %s",
                                 b, r->out);
                if (r->status != 0 || strstr(r->out, "NOTES-OK") == NULL)
                        fail_msg("[%s] status %d, out %s, err %s", b, r->status, r->out, r->err);
                if (strstr(r->out, KEY) != NULL || strstr(r->out, AWS) != NULL ||
                    strstr(r->err, KEY) != NULL || strstr(r->err, AWS) != NULL ||
                    strstr(r->out, "READ-") != NULL || strstr(r->out, "WROTE-") != NULL)
                        fail_msg("[%s] a secret was reachable: out %s, err %s", b, r->out,
                                 r->err);
                assert_non_null(strstr(r->out, "notes\n"));
                /* host side: the secrets are untouched, the append landed */
                read_file(in_home("/.ssh/id_rsa"), buf, sizeof(buf));
                assert_string_equal(buf, KEY "\n");
                read_file(in_home("/.aws/credentials"), buf, sizeof(buf));
                assert_string_equal(buf, AWS "\n");
                read_file(in_home("/notes.txt"), buf, sizeof(buf));
                if (strstr(buf, marker) == NULL)
                        fail_msg("[%s] the append to notes.txt did not reach the host: %s", b,
                                 buf);
        }
        free(r);
}

/* --explain lists the hidden secrets; without --force-workspace nothing
 * runs at all. */
static void test_secrets__explain_lists_them_and_unforced_is_refused(void **state)
{
        char script[512], line[256];
        struct result *r = malloc(sizeof(*r));
        const char *const explain[] = { "--force-workspace", "--mode", "workspace-write",
                                        "--network", "allow", "--workspace", home,
                                        "--explain", NULL };
        const char *const json[] = { "--force-workspace", "--mode", "read-only",
                                     "--network", "allow", "--workspace", home, "--explain",
                                     "--json", NULL };
        const char *const unforced[] = { "--mode", "read-only", "--workspace", home, "--",
                                         "sh", "-c", script, NULL };
        (void) state;

        assert_non_null(r);
        need_backend();
        run(explain, r);
        if (r->status != 0)
                fail_msg("--explain: status %d, err %s", r->status, r->err);
        assert_non_null(strstr(r->out, "force-workspace: yes\n"));
        (void) snprintf(line, sizeof(line), "  fs %s tree --- secret\n", in_home("/.ssh"));
        assert_non_null(strstr(r->out, line));
        (void) snprintf(line, sizeof(line), "  fs %s tree --- secret\n", in_home("/.aws"));
        assert_non_null(strstr(r->out, line));
        run(json, r);
        assert_int_equal(r->status, 0);
        assert_non_null(strstr(r->out, "\"force_workspace\":true"));
        assert_non_null(strstr(r->out, "\"accept_unprotected_git\":false"));
        assert_non_null(strstr(r->out, "\"unix_sockets\":[]"));
        (void) snprintf(line, sizeof(line), "\"fs %s tree --- secret\"", in_home("/.ssh"));
        assert_non_null(strstr(r->out, line));

        (void) snprintf(script, sizeof(script), "echo ran > '%s'", in_home("/ran"));
        run(unforced, r);
        if (r->status != SBX_EXIT_RUNNER_FAILURE || strstr(r->err, "--force-workspace") == NULL)
                fail_msg("unforced: status %d, err %s", r->status, r->err);
        assert_int_equal(access(in_home("/ran"), F_OK), -1);
        free(r);
}


/* ------------------------------------------------------------- toolchains */

/* What T holds.  A program prints RAN-<n>; a shown file holds SHOWN-<n>; a
 * secret holds SECRET-<n>-<tag> (TOKEN is the tag). */
#define TOKEN "c3VwZXJzZWNyZXQ"

struct tc_file {
        const char *rel;        /* below T */
        int kind;               /* 0 secret, 1 shown, 2 program */
};

static const struct tc_file tc_files[] = {
        /* nvm: a node version's bin, lib, include, share; not its etc/ nor
         * its top-level files, nor nvm's own checkout */
        { ".nvm/versions/node/v20.11.0/bin/npx-like", 2 },
        { ".nvm/versions/node/v20.11.0/lib/node_modules/hello/index.js", 1 },
        { ".nvm/versions/node/v20.11.0/include/node/node.h", 1 },
        { ".nvm/versions/node/v20.11.0/share/man/man1/node.1", 1 },
        { ".nvm/versions/node/v20.11.0/etc/npmrc", 0 },
        { ".nvm/versions/node/v20.11.0/lib/node_modules/npm/npmrc", 0 },
        { ".nvm/versions/node/v20.11.0/lib/node_modules/npm/package.json", 1 },
        { ".nvm/versions/node/v20.11.0/.npmrc", 0 },
        { ".nvm/versions/node/v20.11.0/CHANGELOG.md", 0 },
        { ".nvm/.git/config", 0 },
        { ".nvm/alias/default", 0 },
        /* pyenv: a version, a virtualenv (its pyvenv.cfg), a plugin; not
         * pip.conf (site-wide: sys.prefix), etc/, the checkouts' config */
        { ".pyenv/shims/pip", 2 },
        { ".pyenv/versions/3.11.7/bin/pip3", 2 },
        { ".pyenv/versions/3.11.7/lib/python3.11/site-packages/hello.py", 1 },
        { ".pyenv/versions/3.11.7/pip.conf", 0 },
        { ".pyenv/versions/3.11.7/etc/pip.conf", 0 },
        { ".pyenv/versions/3.11.7/envs/proj/bin/tool", 2 },
        { ".pyenv/versions/3.11.7/envs/proj/pyvenv.cfg", 1 },
        { ".pyenv/versions/3.11.7/envs/proj/pip.conf", 0 },
        { ".pyenv/plugins/pyenv-virtualenv/bin/pyenv-virtualenv", 2 },
        { ".pyenv/plugins/pyenv-virtualenv/.git/config", 0 },
        { ".pyenv/.git/config", 0 },
        /* rustup and cargo: toolchains, settings.toml (the default
         * toolchain), cargo's bin and registry sources; not cargo's config
         * or credentials, its git database, rustup's downloads */
        { ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc-like", 2 },
        { ".rustup/settings.toml", 1 },
        { ".rustup/downloads/partial", 0 },
        { ".rustup/config.toml", 0 },
        { ".cargo/bin/cargo-like", 2 },
        { ".cargo/registry/src/index.crates.io-6f17d22bba15001f/foo-1.0.0/src/lib.rs", 1 },
        { ".cargo/config.toml", 0 },
        { ".cargo/config", 0 },
        { ".cargo/credentials.toml", 0 },
        { ".cargo/credentials", 0 },
        { ".cargo/git/db/priv-0123/config", 0 },
        { ".cargo/env", 0 },
        /* go: bin, the module sources, the download cache; not the VCS
         * cache (remote URLs), anything else */
        { "go/bin/gopls-like", 2 },
        { "go/pkg/mod/example.com/m@v1.0.0/m.go", 1 },
        { "go/pkg/mod/cache/download/example.com/m/@v/v1.0.0.mod", 1 },
        { "go/pkg/mod/cache/vcs/0123abcd/config", 0 },
        { "go/pkg/sumdb/sum.golang.org/latest", 0 },
        { "go/.netrc", 0 },
        /* sdkman: a JDK with its conf; maven without conf/settings.xml;
         * not sdkman's own config, ~/.gradle */
        { ".sdkman/candidates/java/21.0.2-tem/bin/java-like", 2 },
        { ".sdkman/candidates/java/21.0.2-tem/conf/security/java.security", 1 },
        { ".sdkman/candidates/java/21.0.2-tem/conf/management/jmxremote.password", 0 },
        { ".sdkman/candidates/maven/3.9.6/bin/mvn-like", 2 },
        { ".sdkman/candidates/maven/3.9.6/conf/settings.xml", 0 },
        { ".sdkman/candidates/gradle/8.5/init.d/creds.gradle", 0 },
        { ".sdkman/etc/config", 0 },
        { ".gradle/gradle.properties", 0 },
        /* pnpm: the programs in PNPM_HOME, not its dot or plain files */
        { ".local/share/pnpm/pnpm-like", 2 },
        { ".local/share/pnpm/.npmrc", 0 },
        { ".local/share/pnpm/rc", 0 },
        /* rbenv, asdf: versions without etc/gemrc; gem credentials */
        { ".rbenv/versions/3.3.0/bin/gem-like", 2 },
        { ".rbenv/versions/3.3.0/etc/gemrc", 0 },
        { ".asdf/installs/ruby/3.3.0/bin/bundle-like", 2 },
        { ".asdf/installs/ruby/3.3.0/etc/gemrc", 0 },
        { ".local/share/gem/credentials", 0 },
        /* ghcup, volta, bun, deno, mise */
        { ".ghcup/bin/ghcup-like", 2 },
        { ".ghcup/config.yaml", 0 },
        { ".volta/bin/volta-like", 2 },
        { ".volta/tools/image/node/20.11.0/etc/npmrc", 0 },
        { ".bun/bin/bun-like", 2 },
        { ".bun/install/cache/registry.json", 0 },
        { ".deno/bin/deno-like", 2 },
        { ".deno/dep_analysis_cache_v1", 0 },
        { ".local/share/mise/installs/node/20/bin/node-like", 2 },
        { ".local/share/mise/installs/node/20/etc/npmrc", 0 },
        { ".local/share/mise/installs/node/20/lib/node_modules/npm/npmrc", 0 },
        { ".local/share/fnm/node-versions/v18.19.0/installation/bin/node-like", 2 },
        { ".local/share/fnm/node-versions/v18.19.0/installation/lib/node_modules/npm/npmrc", 0 },
        { ".local/share/fnm/node-versions/v18.19.0/installation/etc/npmrc", 0 },
        { ".config/mise/config.toml", 0 },
};

/* The index of the program the fake pyenv shim runs. */
static size_t shim_target(void)
{
        size_t i;

        for (i = 0; i < N_OF(tc_files); i++)
                if (strcmp(tc_files[i].rel, ".pyenv/versions/3.11.7/bin/pip3") == 0)
                        return i;
        fail_msg("no pip3 in the table");
        return 0;
}

static const char *in_tc(const char *rel)
{
        static char bufs[8][320];
        static unsigned next;
        char *b = bufs[next++ % 8];

        (void) snprintf(b, sizeof(bufs[0]), "%s/%s", tchome, rel);
        return b;
}

/* Write text to path, making its parent directories. */
static void put_file(const char *path, const char *text, mode_t mode)
{
        char dir[512], *p;

        (void) snprintf(dir, sizeof(dir), "%s", path);
        for (p = dir + strlen(base) + 1; (p = strchr(p, '/')) != NULL; p++) {
                *p = '\0';
                (void) mkdir(dir, 0755);
                *p = '/';
        }
        if (write_file(path, text, mode) != 0)
                fail_msg("cannot write %s: %s", path, strerror(errno));
}

static void make_toolchain_home(void)
{
        char text[256], p[512];
        size_t i;

        for (i = 0; i < N_OF(tc_files); i++) {
                const char *path = in_tc(tc_files[i].rel);

                if (tc_files[i].kind == 2)
                        (void) snprintf(text, sizeof(text), "#!/bin/sh\necho RAN-%zu\n", i);
                else if (tc_files[i].kind == 1)
                        (void) snprintf(text, sizeof(text), "SHOWN-%zu\n", i);
                else
                        (void) snprintf(text, sizeof(text),
                                        "//registry.npmjs.org/:_authToken=SECRET-%zu-" TOKEN "\n"
                                        "url = https://ci:SECRET-%zu-" TOKEN "@git.example/x\n",
                                        i, i);
                put_file(path, text, tc_files[i].kind == 2 ? 0755 : 0644);
        }
        /* the version pyenv's shims pick, and a virtualenv's own name */
        put_file(in_tc(".pyenv/version"), "3.11.7\nSHOWN-pyenv\n", 0644);
        (void) snprintf(p, sizeof(p), "%s", in_tc(".pyenv/versions/proj"));
        if (symlink("3.11.7/envs/proj", p) != 0)
                fail_msg("symlink %s: %s", p, strerror(errno));
        /* a shim that finds its version as pyenv's do: PYENV_ROOT (set by
         * sandbox-run) and the version file */
        put_file(in_tc(".pyenv/shims/python-like"),
                 "#!/bin/sh\nv=$(head -n 1 \"$PYENV_ROOT/version\")\n"
                 "exec \"$PYENV_ROOT/versions/$v/bin/pip3\"\n", 0755);
        /* the host's node and python3, run from the fake versions */
        if (access("/usr/bin/node", X_OK) == 0 &&
            symlink("/usr/bin/node", in_tc(".nvm/versions/node/v20.11.0/bin/node")) != 0)
                fail_msg("symlink node: %s", strerror(errno));
        put_file(in_tc(".nvm/versions/node/v20.11.0/lib/node_modules/hello/run.js"),
                 "console.log('NODE-RAN')\n", 0644);
        if (access("/usr/bin/python3", X_OK) == 0 &&
            symlink("/usr/bin/python3", in_tc(".pyenv/versions/3.11.7/bin/python3")) != 0)
                fail_msg("symlink python3: %s", strerror(errno));
        put_file(in_tc(".pyenv/versions/3.11.7/lib/python3.11/site-packages/run.py"),
                 "print('PYTHON-RAN')\n", 0644);
}

/* The attack: run every program, read every shown file, read every
 * secret by name (cat, and a copy through TMPDIR), then read everything
 * that can be found below T. */
static void toolchain_script(char *script, size_t sz)
{
        size_t i, n = 0;

        n += (size_t) snprintf(script + n, sz - n, "T='%s'; ", tchome);
        for (i = 0; i < N_OF(tc_files) && n < sz; i++) {
                const char *r = tc_files[i].rel;

                if (tc_files[i].kind == 2)
                        n += (size_t) snprintf(script + n, sz - n, "\"$T/%s\"; ", r);
                else if (tc_files[i].kind == 1)
                        n += (size_t) snprintf(script + n, sz - n, "cat \"$T/%s\"; ", r);
                else
                        n += (size_t) snprintf(script + n, sz - n,
                                               "cat \"$T/%s\"; cp \"$T/%s\" \"$TMPDIR/c\" && "
                                               "cat \"$TMPDIR/c\"; ", r, r);
        }
        if (n < sz)
                n += (size_t) snprintf(script + n, sz - n,
                                       "\"$T/.pyenv/shims/python-like\" | sed 's/^/SHIM-/'; "
                                       "cat \"$T/.pyenv/version\"; "
                                       "cat \"$T/.pyenv/versions/proj/pyvenv.cfg\"; "
                                       "\"$T/.pyenv/versions/proj/bin/tool\"; "
                                       "[ -x \"$T/.nvm/versions/node/v20.11.0/bin/node\" ] && "
                                       "\"$T/.nvm/versions/node/v20.11.0/bin/node\" "
                                       "\"$T/.nvm/versions/node/v20.11.0/lib/node_modules/hello/run.js\"; "
                                       "[ -x \"$T/.pyenv/versions/3.11.7/bin/python3\" ] && "
                                       "\"$T/.pyenv/versions/3.11.7/bin/python3\" "
                                       "\"$T/.pyenv/versions/3.11.7/lib/python3.11/site-packages/run.py\"; "
                                       "find \"$T\" -type f -exec cat {} + 2>/dev/null; "
                                       "echo SCRIPT-DONE");
        assert_true(n < sz);
}

/* 1 if b runs in mode here (125 with sandbox-run's own line: not usable). */
static int usable_in(const char *b, const char *mode, int allow)
{
        const char *const args[] = { "--backend", b, "--network", allow ? "allow" : "deny",
                                     "--mode", mode, "--workspace", plain, "--", "true", NULL };
        struct result *r = malloc(sizeof(*r));
        int ok;

        assert_non_null(r);
        run(args, r);
        ok = r->status == 0;
        if (!ok && (r->status != SBX_EXIT_RUNNER_FAILURE ||
                    strstr(r->err, "sandbox-run: ") == NULL))
                fail_msg("[%s %s] sandbox-run broke (status %d): %s", b, mode, r->status,
                         r->err);
        free(r);
        return ok;
}

static void check_toolchain_run(const char *b, const char *mode, const struct result *r)
{
        char want[64], buf[512];
        size_t i;

        if (strstr(r->out, "SCRIPT-DONE") == NULL)
                fail_msg("[%s %s] the script did not finish (status %d): %s / %s", b, mode,
                         r->status, r->out, r->err);
        if (strstr(r->out, TOKEN) != NULL || strstr(r->err, TOKEN) != NULL) {
                const char *at = strstr(r->out, TOKEN) != NULL ? strstr(r->out, TOKEN)
                                                                : strstr(r->err, TOKEN);

                fail_msg("[%s %s] a toolchain secret was read: ...%.80s", b, mode,
                         at > r->out + 40 ? at - 40 : at);
        }
        for (i = 0; i < N_OF(tc_files); i++) {
                if (tc_files[i].kind == 0)
                        continue;
                (void) snprintf(want, sizeof(want), "%s-%zu\n",
                                tc_files[i].kind == 2 ? "RAN" : "SHOWN", i);
                if (strstr(r->out, want) == NULL)
                        fail_msg("[%s %s] %s did not %s: %s / %s", b, mode, tc_files[i].rel,
                                 tc_files[i].kind == 2 ? "run" : "read", r->out, r->err);
        }
        /* pyenv's shim found its version; the virtualenv its pyvenv.cfg */
        (void) snprintf(want, sizeof(want), "SHIM-RAN-%zu\n", shim_target());
        if (strstr(r->out, "SHOWN-pyenv") == NULL || strstr(r->out, want) == NULL)
                fail_msg("[%s %s] pyenv's version file or shim failed: %s", b, mode, r->err);
        if (access("/usr/bin/node", X_OK) == 0 && strstr(r->out, "NODE-RAN") == NULL)
                fail_msg("[%s %s] node from the nvm tree did not run: %s", b, mode, r->err);
        if (access("/usr/bin/python3", X_OK) == 0 && strstr(r->out, "PYTHON-RAN") == NULL)
                fail_msg("[%s %s] python3 from the pyenv tree did not run: %s", b, mode, r->err);
        /* host side: every secret file is as it was */
        for (i = 0; i < N_OF(tc_files); i++) {
                char text[256];

                if (tc_files[i].kind != 0)
                        continue;
                (void) snprintf(text, sizeof(text),
                                "//registry.npmjs.org/:_authToken=SECRET-%zu-" TOKEN "\n"
                                "url = https://ci:SECRET-%zu-" TOKEN "@git.example/x\n", i, i);
                read_file(in_tc(tc_files[i].rel), buf, sizeof(buf));
                if (strcmp(buf, text) != 0)
                        fail_msg("[%s %s] %s changed on the host", b, mode, tc_files[i].rel);
        }
}

static void test_secrets__toolchain_config_stays_hidden(void **state)
{
        static const char *const all[] = { "native", "landlock", "bwrap" };
        static const char *const modes[] = { "read-only", "workspace-write" };
        char *script = malloc(32768);
        struct result *r = malloc(sizeof(*r));
        size_t i, m, ran = 0;
        (void) state;

        assert_non_null(script);
        assert_non_null(r);
        need_backend();
        make_toolchain_home();
        toolchain_script(script, 32768);
        run_home = tchome;
        for (i = 0; i < N_OF(all); i++) {
                for (m = 0; m < N_OF(modes); m++) {
                        int allow = 0;

                        if (!usable_in(all[i], modes[m], 0)) {
                                if (strcmp(all[i], "bwrap") != 0 ||
                                    !usable_in(all[i], modes[m], 1))
                                        continue;
                                allow = 1;
                        }
                        {
                                const char *const args[] = {
                                        "--backend", all[i], "--network", allow ? "allow" : "deny",
                                        "--mode", modes[m], "--workspace", plain, "--",
                                        "sh", "-c", script, NULL
                                };

                                run(args, r);
                        }
                        check_toolchain_run(all[i], modes[m], r);
                        fprintf(stderr, "# toolchains: %s %s: held\n", all[i], modes[m]);
                        ran++;
                }
        }
        run_home = home;
        if (ran == 0)
                fail_msg("no backend ran the toolchain attack");
        free(script);
        free(r);
}

/* A real node and npm in an nvm tree of T (the host's, linked or
 * copied), with a token in the version's etc/npmrc and in npm's built-in
 * npmrc: npm runs from the tree (its global config is the tree's), and
 * neither token leaves, on every usable backend.  0 when the host has no
 * node and npm to copy. */
static int real_npm_in_nvm_tree(void)
{
        static const char *const all[] = { "native", "landlock", "bwrap" };
        char v[192], cmd[4096], script[2048], want[256];
        struct result *r;
        size_t i, ran = 0;

        if (access("/usr/bin/node", X_OK) != 0 ||
            access("/usr/lib/node_modules/npm/bin/npm-cli.js", R_OK) != 0)
                return 0;
        (void) snprintf(v, sizeof(v), "%s/.nvm/versions/node/v22.0.0", tchome);
        (void) snprintf(cmd, sizeof(cmd),
                        "mkdir -p '%s/bin' '%s/lib/node_modules' '%s/etc' && "
                        "{ ln /usr/bin/node '%s/bin/node' 2>/dev/null || "
                        "cp /usr/bin/node '%s/bin/node'; } && "
                        "cp -R /usr/lib/node_modules/npm '%s/lib/node_modules/' && "
                        "ln -s ../lib/node_modules/npm/bin/npm-cli.js '%s/bin/npm' && "
                        "echo '//registry.npmjs.org/:_authToken=NPMG-" TOKEN "' > '%s/etc/npmrc' && "
                        "echo '//registry.npmjs.org/:_authToken=NPMB-" TOKEN "' > "
                        "'%s/lib/node_modules/npm/npmrc'", v, v, v, v, v, v, v, v, v);
        if (system(cmd) != 0)
                fail_msg("cannot make the nvm tree: %s", cmd);
        (void) snprintf(script, sizeof(script),
                        "export PATH='%s/bin':/usr/bin:/bin NO_UPDATE_NOTIFIER=1; "
                        "npm --version && echo NPM-RAN; npm config get globalconfig; "
                        "npm config list -l 2>&1; npm config get "
                        "//registry.npmjs.org/:_authToken 2>&1; cat '%s/etc/npmrc' "
                        "'%s/lib/node_modules/npm/npmrc' 2>&1; echo NPM-DONE", v, v, v);
        (void) snprintf(want, sizeof(want), "%s/etc/npmrc\n", v);
        r = malloc(sizeof(*r));
        assert_non_null(r);
        run_home = tchome;
        for (i = 0; i < N_OF(all); i++) {
                const char *mode = usable_in(all[i], "read-only", 0) ? "read-only" : NULL;
                int allow = 0;

                if (mode == NULL && usable_in(all[i], "read-only", 1)) {
                        mode = "read-only";
                        allow = 1;
                }
                if (mode == NULL)
                        continue;
                {
                        const char *const args[] = { "--backend", all[i], "--network",
                                                     allow ? "allow" : "deny", "--mode", mode,
                                                     "--workspace", plain, "--", "sh", "-c",
                                                     script, NULL };

                        run(args, r);
                }
                if (strstr(r->out, "NPM-DONE") == NULL || strstr(r->out, "NPM-RAN") == NULL ||
                    strstr(r->out, want) == NULL)
                        fail_msg("[%s] npm did not run from the nvm tree (status %d): %s / %s",
                                 all[i], r->status, r->out, r->err);
                if (strstr(r->out, TOKEN) != NULL || strstr(r->err, TOKEN) != NULL)
                        fail_msg("[%s] npm's global or built-in config was read: %s / %s",
                                 all[i], r->out, r->err);
                fprintf(stderr, "# real npm from an nvm tree: %s: ran, config hidden\n",
                        all[i]);
                ran++;
        }
        run_home = home;
        free(r);
        if (ran == 0)
                fail_msg("no backend ran npm");
        return 1;
}

/* The caller's own toolchains, where its HOME has them (root on this
 * machine: pyenv, rustup): python3 and pip from pyenv, `cargo build
 * --offline` of a trivial crate with rustup's cargo, on every usable
 * backend; and the host's node and npm from an nvm tree (as any user). */
static void test_secrets__real_toolchains_run(void **state)
{
        char crate[256], p[PATH_MAX + 64], script[1024];
        struct result *r = malloc(sizeof(*r));
        int have_py, have_rust, have_npm;
        size_t i, ran = 0;
        static const char *const all[] = { "native", "landlock", "bwrap" };
        struct stat st;
        (void) state;

        assert_non_null(r);
        need_backend();
        have_npm = real_npm_in_nvm_tree();
        (void) snprintf(p, sizeof(p), "%s/.pyenv/versions", real_home);
        have_py = real_home[0] != '\0' && stat(p, &st) == 0;
        (void) snprintf(p, sizeof(p), "%s/.cargo/bin/cargo", real_home);
        have_rust = real_home[0] != '\0' && access(p, X_OK) == 0;
        if (!have_py && !have_rust) {
                /* Nothing of the caller's to run (an unprivileged user with
                 * no toolchains); the fake trees above still ran. */
                fprintf(stderr, "# no real pyenv or rustup below HOME %s\n", real_home);
                if (!have_npm)
                        fail_msg("no real toolchain at all to run here");
                free(r);
                return;
        }
        (void) snprintf(crate, sizeof(crate), "%s/crate", base);
        (void) snprintf(p, sizeof(p), "%s/src/main.rs", crate);
        put_file(p, "fn main() { println!(\"CARGO-BUILT\"); }\n", 0644);
        (void) snprintf(p, sizeof(p), "%s/Cargo.toml", crate);
        put_file(p, "[package]\nname = \"sbxcrate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                 0644);
        (void) snprintf(script, sizeof(script),
                        "cd '%s' || exit 9; export PATH=\"$HOME/.cargo/bin:$HOME/.pyenv/shims:"
                        "$PATH\"; %s %s echo REAL-DONE", crate,
                        have_py ? "python3 -c 'import ssl, json; print(\"PY-\" + \"OK\")'; "
                                  "pip --version | grep -q '^pip ' && echo PIP-OK; " : "",
                        have_rust ? "CARGO_TARGET_DIR=\"$TMPDIR/target\" cargo build "
                                    "--offline -q && \"$TMPDIR/target/debug/sbxcrate\"; " : "");
        run_home = real_home;
        for (i = 0; i < N_OF(all); i++) {
                const char *mode = usable_in(all[i], "workspace-write", 1) ? "workspace-write"
                                   : usable_in(all[i], "read-only", 1) ? "read-only" : NULL;
                const char *const args[] = { "--backend", all[i], "--network", "allow",
                                             "--mode", mode, "--workspace", crate,
                                             "--", "sh", "-c", script, NULL };

                if (mode == NULL)
                        continue;
                run(args, r);
                if (strstr(r->out, "REAL-DONE") == NULL ||
                    (have_py && (strstr(r->out, "PY-OK") == NULL ||
                                 strstr(r->out, "PIP-OK") == NULL)) ||
                    (have_rust && strstr(r->out, "CARGO-BUILT") == NULL))
                        fail_msg("[%s %s] the real toolchains did not run (status %d): %s / %s",
                                 all[i], mode, r->status, r->out, r->err);
                fprintf(stderr, "# real toolchains: %s %s: ran\n", all[i], mode);
                ran++;
        }
        run_home = home;
        if (ran == 0)
                fail_msg("no backend ran the real toolchains");
        free(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_secrets__forced_home_workspace_hides_secrets),
                cmocka_unit_test(test_secrets__explain_lists_them_and_unforced_is_refused),
                cmocka_unit_test(test_secrets__toolchain_config_stays_hidden),
                cmocka_unit_test(test_secrets__real_toolchains_run),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
