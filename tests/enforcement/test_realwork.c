/*
 * test_realwork.c - real work keeps working under the system-call
 * allow-list (docs/seccomp.md): on rung 1 (native) and rung 2 (landlock),
 * workspace-write, sandbox-run runs a C build with gcc and make, python
 * (multiprocessing, sqlite, hashlib, subprocess, threads), node (child
 * processes, worker threads, crypto, fs), git (status, log, diff, a
 * throw-away repository outside the workspace's protection), and cargo
 * (an offline build of a crate with no dependencies).  Each leaves a
 * result in the workspace that the host reads back: a program the host
 * runs, and a line per tool with what the tool computed.
 *
 * The tools are the machine's own, found on PATH=/usr/bin:/bin (CI
 * installs Debian's cargo, scripts/install-deps); a missing one fails the
 * test under SBX_REQUIRE_ALL and skips it otherwise.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define WAIT_MS 300000          /* bound for one confined build */

static const char *const g_tools[] = { "gcc", "make", "python3", "node", "git", "cargo" };

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void put(const char *dir, const char *name, const char *text)
{
        char path[4096];
        FILE *f;

        assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int) sizeof(path));
        f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static void sub(const char *dir, const char *name, char *out, size_t len)
{
        int n = snprintf(out, len, "%s/%s", dir, name);

        assert_true(n > 0 && (size_t) n < len);
}

static size_t slurp(const char *path, char *buf, size_t len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;
        size_t got = 0;

        if (fd < 0)
                return 0;
        while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
                got += (size_t) n;
        close(fd);
        buf[got] = '\0';
        return got;
}

/* Run argv with env, stdout+stderr to log; bounded; the wait status. */
static int run(char *const *argv, char *const *env, const char *log)
{
        long deadline = now_ms() + WAIT_MS;
        int st = 0, fd;
        pid_t p, w;

        p = fork();
        assert_true(p >= 0);
        if (p == 0) {
                fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                        _exit(126);
                execve(argv[0], argv, env);
                _exit(127);
        }
        while ((w = waitpid(p, &st, WNOHANG)) == 0 && now_ms() < deadline) {
                struct timespec ts = { 0, 20 * 1000000L };

                nanosleep(&ts, NULL);
        }
        if (w == 0) {
                (void) kill(p, SIGKILL);
                (void) waitpid(p, &st, 0);
                fail_msg("%s did not finish within %d ms", argv[0], WAIT_MS);
        }
        return st;
}

static int have_tool(const char *name)
{
        char path[256];

        snprintf(path, sizeof(path), "/usr/bin/%s", name);
        return access(path, X_OK) == 0;
}

static const char g_main_c[] =
        "#include <stdio.h>\n"
        "int answer(void);\n"
        "int main(void) { printf(\"c %d\\n\", answer()); return 0; }\n";
static const char g_answer_c[] = "int answer(void) { return 6 * 7; }\n";
static const char g_makefile[] =
        "app: main.o answer.o\n\t$(CC) -o $@ main.o answer.o\n"
        "%.o: %.c\n\t$(CC) -O2 -Wall -c -o $@ $<\n";

static const char g_py[] =
        "import hashlib, multiprocessing, os, sqlite3, subprocess, tempfile, threading\n"
        "def sq(x):\n    return x * x\n"
        "if __name__ == '__main__':\n"
        /* rung 2 has no writable /dev/shm for multiprocessing's POSIX
         * semaphores (issue 23): there the children are forked by hand */
        "    if os.environ.get('RUNG') == '1':\n"
        "        with multiprocessing.Pool(2) as p:\n            s = sum(p.map(sq, range(10)))\n"
        "    else:\n"
        "        s = 0\n"
        "        for x in range(10):\n"
        "            r, w = os.pipe(); pid = os.fork()\n"
        "            if pid == 0:\n                os.write(w, str(sq(x)).encode()); os._exit(0)\n"
        "            os.close(w); s += int(os.read(r, 64)); os.close(r); os.waitpid(pid, 0)\n"
        "    db = sqlite3.connect(os.path.join(tempfile.mkdtemp(), 'x.db'))\n"
        "    db.execute('create table t (v)'); db.execute('insert into t values (7)')\n"
        "    v = db.execute('select v from t').fetchone()[0]\n"
        "    out = subprocess.run(['/bin/echo', 'sub'], capture_output=True, text=True).stdout.strip()\n"
        "    t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
        "    h = hashlib.sha256(b'abc').hexdigest()[:8]\n"
        "    print('python', s, v, out, h)\n";

static const char g_js[] =
        "const { execFileSync } = require('child_process');\n"
        "const { Worker } = require('worker_threads');\n"
        "const crypto = require('crypto'), fs = require('fs'), os = require('os');\n"
        "const w = new Worker('require(\"worker_threads\").parentPort.postMessage(21 * 2)',"
        " { eval: true });\n"
        "w.on('message', (n) => {\n"
        "  const sub = execFileSync('/bin/echo', ['sub']).toString().trim();\n"
        "  const h = crypto.createHash('sha256').update('abc').digest('hex').slice(0, 8);\n"
        "  const d = fs.mkdtempSync(os.tmpdir() + '/n'); fs.writeFileSync(d + '/f', 'x');\n"
        "  console.log('node', n, sub, h, fs.readFileSync(d + '/f', 'utf8'));\n"
        "  w.terminate();\n"
        "});\n";

static const char g_cargo_toml[] =
        "[package]\nname = \"rw\"\nversion = \"0.1.0\"\nedition = \"2018\"\n\n[dependencies]\n";
static const char g_main_rs[] =
        "use std::thread;\n"
        "fn main() {\n"
        "    let h = thread::spawn(|| 40 + 2);\n"
        "    let o = std::process::Command::new(\"/bin/echo\").arg(\"sub\").output().unwrap();\n"
        "    println!(\"rust {} {}\", h.join().unwrap(), String::from_utf8_lossy(&o.stdout).trim());\n"
        "}\n";

/* The script sandbox-run runs in the workspace. */
static const char g_script[] =
        "set -e\n"
        "cd \"$WS\"\n"
        "make -s -C c CC=gcc\n"
        /* rung 2 refuses chmod (Landlock does not mediate it; issue 23
         * lets the supervisor do it inside writable roots), so the linker
         * leaves a mode-0644 program there: the dynamic loader runs it */
        "RUN=\n"
        "[ \"$RUNG\" = 2 ] && RUN=$(readelf -l /bin/true | sed -n 's/.*interpreter: \\(.*\\)]/\\1/p')\n"
        "$RUN ./c/app > out/c.txt\n"
        "python3 py/rw.py > out/py.txt\n"
        "node js/rw.js > out/node.txt\n"
        "git -C repo status --porcelain > out/git-status.txt\n"
        "git -C repo log --format=%s > out/git-log.txt\n"
        "git -C repo diff --stat > out/git-diff.txt\n"
        "cd crate && CARGO_HOME=\"$TMPDIR/cargo\" cargo build -q --offline\n"
        "$RUN ./target/debug/rw > ../out/cargo.txt\n";

static void make_workspace(const char *ws)
{
        char d[4096], cmd[8192];
        static const char *const dirs[] = { "c", "py", "js", "crate", "crate/src", "out" };
        size_t i;

        for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                sub(ws, dirs[i], d, sizeof(d));
                assert_int_equal(mkdir(d, 0755), 0);
        }
        sub(ws, "c", d, sizeof(d));
        put(d, "main.c", g_main_c);
        put(d, "answer.c", g_answer_c);
        put(d, "Makefile", g_makefile);
        sub(ws, "py", d, sizeof(d));
        put(d, "rw.py", g_py);
        sub(ws, "js", d, sizeof(d));
        put(d, "rw.js", g_js);
        sub(ws, "crate", d, sizeof(d));
        put(d, "Cargo.toml", g_cargo_toml);
        sub(ws, "crate/src", d, sizeof(d));
        put(d, "main.rs", g_main_rs);
        put(ws, "build.sh", g_script);
        /* a repository the host made, with one commit and one change */
        snprintf(cmd, sizeof(cmd),
                 "set -e; cd '%s'; mkdir repo; cd repo; git init -q; "
                 "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m first; "
                 "echo x > f; git add f; git -c user.name=t -c user.email=t@e commit -q -m second; "
                 "echo y >> f", ws);
        assert_int_equal(system(cmd), 0);
}

static void want(const char *ws, const char *name, const char *text, const char *what)
{
        char path[4096], buf[4096];

        sub(ws, name, path, sizeof(path));
        if (slurp(path, buf, sizeof(buf)) == 0)
                fail_msg("%s: %s is empty or missing", what, path);
        if (strcmp(buf, text) != 0)
                fail_msg("%s: %s holds \"%s\", want \"%s\"", what, path, buf, text);
}

/* The fixture of the running test, removed by the teardown whatever the
 * test's outcome. */
static char g_base[64];

static int teardown(void **state)
{
        char cmd[128];

        (void) state;
        if (g_base[0] != '\0') {
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_base);
                if (system(cmd) != 0)
                        return -1;
                g_base[0] = '\0';
        }
        return 0;
}

static void one_backend(const char *cli, const char *backend)
{
        char base[] = "/var/tmp/sbx-realwork-XXXXXX", ws[4096], log[4096], app[4096];
        char script[4096], wsenv[4200], rungenv[16], buf[16384], cmd[8200];
        int st;

        assert_non_null(mkdtemp(base));
        snprintf(g_base, sizeof(g_base), "%s", base);
        sub(base, "ws", ws, sizeof(ws));
        assert_int_equal(mkdir(ws, 0755), 0);
        make_workspace(ws);
        sub(base, "log", log, sizeof(log));
        sub(ws, "build.sh", script, sizeof(script));
        snprintf(wsenv, sizeof(wsenv), "WS=%s", ws);
        snprintf(rungenv, sizeof(rungenv), "RUNG=%d", strcmp(backend, "landlock") == 0 ? 2 : 1);
        {
                char *const argv[] = { (char *) cli, (char *) "--backend", (char *) backend,
                                       (char *) "--mode", (char *) "workspace-write",
                                       (char *) "--workspace", ws, (char *) "--env", (char *) "WS",
                                       (char *) "--env", (char *) "RUNG",
                                       (char *) "--", (char *) "/bin/sh", script, NULL };
                char *const env[] = { (char *) "PATH=/usr/bin:/bin", wsenv, rungenv,
                                      (char *) "LANG=C.UTF-8", NULL };

                st = run(argv, env, log);
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                (void) slurp(log, buf, sizeof(buf));
                fail_msg("%s: the build script failed (status 0x%x):\n%s", backend, (unsigned) st,
                         buf);
        }
        /* from the host: the program the sandbox built runs here */
        sub(ws, "c/app", app, sizeof(app));
        if (strcmp(backend, "landlock") == 0)
                assert_int_equal(chmod(app, 0755), 0);         /* see the script */
        {
                char out[4096];
                int n;

                sub(ws, "out/c-host.txt", out, sizeof(out));
                n = snprintf(cmd, sizeof(cmd), "'%.4000s' > '%.4000s'", app, out);
                assert_true(n > 0 && (size_t) n < sizeof(cmd));
                assert_int_equal(system(cmd), 0);
        }
        want(ws, "out/c-host.txt", "c 42\n", "the C program, run by the host");
        want(ws, "out/c.txt", "c 42\n", "the C program, run in the sandbox");
        want(ws, "out/py.txt", "python 285 7 sub ba7816bf\n", "python");
        want(ws, "out/node.txt", "node 42 sub ba7816bf x\n", "node");
        want(ws, "out/git-status.txt", " M f\n", "git status");
        want(ws, "out/git-log.txt", "second\nfirst\n", "git log");
        want(ws, "out/git-diff.txt", " f | 1 +\n 1 file changed, 1 insertion(+)\n", "git diff");
        want(ws, "out/cargo.txt", "rust 42 sub\n", "cargo");
}

static int tools_present(void)
{
        size_t i;

        for (i = 0; i < sizeof(g_tools) / sizeof(g_tools[0]); i++) {
                if (!have_tool(g_tools[i])) {
                        if (getenv("SBX_REQUIRE_ALL") != NULL)
                                fail_msg("/usr/bin/%s is missing (scripts/install-deps installs "
                                         "it)", g_tools[i]);
                        print_message("[   SKIP   ] /usr/bin/%s is missing\n", g_tools[i]);
                        return 0;
                }
        }
        return 1;
}

static void realwork(const char *backend)
{
        const char *cli = getenv("SBX_SANDBOX_RUN");

        if (cli == NULL)
                fail_msg("SBX_SANDBOX_RUN is not set");
        if (!tools_present())
                skip();
        one_backend(cli, backend);
}

static void test_realwork__native(void **state)
{
        (void) state;
        realwork("native");
}

static void test_realwork__landlock(void **state)
{
        (void) state;
        realwork("landlock");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_realwork__native, teardown),
                cmocka_unit_test_teardown(test_realwork__landlock, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
