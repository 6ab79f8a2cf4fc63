/*
 * test_seccomp.c - enforcement tests for src/linux/seccomp.c.
 *
 * Every live test builds the filter in this (parent) process, forks a child
 * that sets no_new_privs, loads the filter with sbx__seccomp_load_child and
 * then makes the forbidden call directly (raw syscall(), inline int 0x80),
 * reporting (return value, errno) through a pipe.  While the child waits on
 * a second pipe the parent checks what it can see from outside (namespace
 * links, mountinfo, TracerPid, the tty input queue, a loopback listener, the
 * directory a device node would appear in).  Many tests also run the same
 * probe without the filter (a positive control) to prove the probe and the
 * outside check would notice a leak; where the machine cannot show the
 * effect without the filter (no user namespaces, TIOCSTI disabled by the
 * kernel, no int 0x80) the test notes it, and fails instead when
 * SBX_REQUIRE_ALL=1.
 *
 * The BPF program itself is also run through a small classic-BPF
 * interpreter, which is how ABIs this kernel cannot enter (a foreign arch
 * must be killed; the pre-5.4 x86_64/x32 cross-table numbers must get
 * ENOSYS) and the personality allow-list (thousands of values) are checked.
 *
 * The programs come from the build-time table when this process matches it
 * (docs/performance.md); two tests check that each is byte for byte what
 * libseccomp compiles here and that any other environment is refused, so
 * the live tests exercise exactly what sandboxes load.
 *
 * Every wait is bounded; nothing asserts on wall-clock time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <seccomp.h>

#include "linux/linux_internal.h"
#include "linux/seccomp_notify.h"

extern char **environ;

#define X32_BIT         0x40000000ul
#define HIGH_BIT        (1ul << 32)
#define NR_OPEN_TREE_ATTR 467           /* common number on every ABI but MIPS/alpha */
#define TIMEOUT_MS      30000
#define OPTS_ALL        (SBX__SC_DENY_INET | SBX__SC_DENY_UNIX_PATH | SBX__SC_DENY_METADATA)

#if defined(__x86_64__) && !defined(__ILP32__)
#  define HAVE_X86_64 1
#else
#  define HAVE_X86_64 0
#endif

/* ============================================================ utilities */

static int require_all(void)
{
        const char *v = getenv("SBX_REQUIRE_ALL");

        return v != NULL && strcmp(v, "1") == 0;
}

/* Something this machine cannot show: a note, or a failure under
 * SBX_REQUIRE_ALL=1.  The filtered assertions of the test still ran. */
static void not_covered(const char *what)
{
        if (require_all())
                fail_msg("cannot be checked on this machine (SBX_REQUIRE_ALL=1): %s", what);
        print_message("[   NOTE   ] not checked on this machine: %s\n", what);
}

static void sleep_ms(long ms)
{
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* waitpid, bounded: SIGKILL after TIMEOUT_MS. */
static int wait_bounded(pid_t pid)
{
        int status = 0;
        long waited = 0;
        pid_t r;

        for (;;) {
                r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                        return status;
                if (r < 0 && errno != EINTR)
                        fail_msg("waitpid(%d): %s", (int) pid, strerror(errno));
                if (waited >= TIMEOUT_MS) {
                        (void) kill(pid, SIGKILL);
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
                        fail_msg("child %d did not exit in time", (int) pid);
                }
                sleep_ms(5);
                waited += 5;
        }
}

static ssize_t read_full(int fd, void *buf, size_t len, int timeout_ms)
{
        struct pollfd p = { fd, POLLIN, 0 };
        size_t got = 0;
        ssize_t n;
        int r;

        while (got < len) {
                r = poll(&p, 1, timeout_ms);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        return -ETIMEDOUT;
                n = read(fd, (char *) buf + got, len - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        return (ssize_t) got;
}

static void write_all(int fd, const void *buf, size_t len)
{
        size_t done = 0;
        ssize_t n;

        while (done < len) {
                n = write(fd, (const char *) buf + done, len - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                done += (size_t) n;
        }
}

/* Read a small /proc file into buf (NUL-terminated); 0 or -errno. */
static int slurp(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t got = 0;
        ssize_t n;

        if (fd < 0)
                return -errno;
        while (got + 1 < size) {
                n = read(fd, buf + got, size - 1 - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                got += (size_t) n;
        }
        buf[got] = '\0';
        close(fd);
        return 0;
}

static void ns_link(pid_t pid, const char *ns, char *out, size_t size)
{
        char path[64];
        ssize_t n;

        if (pid == 0)
                snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
        else
                snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int) pid, ns);
        n = readlink(path, out, size - 1);
        if (n < 0)
                fail_msg("readlink %s: %s", path, strerror(errno));
        out[n] = '\0';
}

/* "Field:\tvalue" of /proc/<pid>/status as a long; -1 if absent. */
static long status_field(pid_t pid, const char *field)
{
        char path[64], buf[8192], key[64];
        const char *p;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        if (slurp(path, buf, sizeof(buf)) < 0)
                fail_msg("read %s: %s", path, strerror(errno));
        snprintf(key, sizeof(key), "\n%s:", field);
        p = strstr(buf, key);
        if (p == NULL)
                return -1;
        return strtol(p + strlen(key), NULL, 10);
}

/* ======================================================= the child harness */

#define MAX_RES 48

struct res {
        int64_t ret;
        int32_t err;
        int32_t pad;
};

struct report {
        int32_t stage;          /* STAGE_* reached before the probe */
        int32_t stage_err;
        int32_t pre_err;        /* what the optional pre step said (0 = done) */
        int32_t n;
        struct res r[MAX_RES];
};

enum { STAGE_PROBE = 0, STAGE_NNP = 1, STAGE_LOAD = 2 };

struct job {
        uint32_t opts;
        int      control;       /* 1 = no filter: the positive control */
        int      no_nnp;        /* 1 = do not set no_new_privs first */
        int      expect_exec;   /* the probe execs: EOF instead of a report */
        int      (*pre)(void *arg);                     /* before the filter */
        void     (*probe)(struct report *rep, void *arg);
        void     (*inspect)(pid_t pid, const struct report *rep, void *arg);
        void     *arg;
};

static void rec(struct report *rep, long ret, int err)
{
        if (rep->n >= MAX_RES)
                return;
        rep->r[rep->n].ret = ret;
        rep->r[rep->n].err = ret < 0 ? err : 0;
        rep->n++;
}

#define REC(rep, expr) \
        do { \
                long v_; \
                errno = 0; \
                v_ = (long) (expr); \
                rec((rep), v_, errno); \
        } while (0)

/* Run a job; returns the child's wait status.  *rep gets the report (all
 * zero with n == 0 if the child exec'd or died before reporting). */
static int run_job(const struct job *j, struct report *rep, int *got_report)
{
        struct sbx__bpf bpf = { NULL, 0 };
        sbx_error e = { 0, 0, { 0 } };
        int rp[2], gp[2], status, r;
        ssize_t n;
        pid_t pid;
        char c;

        memset(rep, 0, sizeof(*rep));
        if (!j->control) {
                r = sbx__seccomp_build(j->opts, &bpf, &e);
                if (r != SBX_OK)
                        fail_msg("sbx__seccomp_build(0x%x): %s: %s", (unsigned) j->opts,
                                 sbx_code_name(r), e.message);
        }
        assert_int_equal(pipe2(rp, O_CLOEXEC), 0);
        assert_int_equal(pipe2(gp, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct report cr;

                memset(&cr, 0, sizeof(cr));
                close(rp[0]);
                close(gp[1]);
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
                if (j->pre != NULL)
                        cr.pre_err = j->pre(j->arg);
                if (!j->no_nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
                        cr.stage = STAGE_NNP;
                        cr.stage_err = errno;
                } else if (!j->control && (r = sbx__seccomp_load_child(&bpf)) < 0) {
                        cr.stage = STAGE_LOAD;
                        cr.stage_err = -r;
                } else {
                        j->probe(&cr, j->arg);
                }
                write_all(rp[1], &cr, sizeof(cr));
                while (read(gp[0], &c, 1) < 0 && errno == EINTR)
                        ;
                _exit(0);
        }
        close(rp[1]);
        close(gp[0]);
        n = read_full(rp[0], rep, sizeof(*rep), TIMEOUT_MS);
        close(rp[0]);
        if (n == -ETIMEDOUT) {
                (void) kill(pid, SIGKILL);
                close(gp[1]);
                (void) wait_bounded(pid);
                sbx__seccomp_free(&bpf);
                fail_msg("child %d did not report in time", (int) pid);
        }
        *got_report = n == (ssize_t) sizeof(*rep);
        if (n != 0 && !*got_report) {
                close(gp[1]);
                (void) wait_bounded(pid);
                sbx__seccomp_free(&bpf);
                fail_msg("short report from the child (%zd bytes)", n);
        }
        if (*got_report && rep->stage != STAGE_PROBE) {
                close(gp[1]);
                (void) wait_bounded(pid);
                sbx__seccomp_free(&bpf);
                fail_msg("child failed before the probe (stage %d): %s", (int) rep->stage,
                         strerror(rep->stage_err));
        }
        if (*got_report && j->inspect != NULL)
                j->inspect(pid, rep, j->arg);
        close(gp[1]);
        status = wait_bounded(pid);
        sbx__seccomp_free(&bpf);
        return status;
}

/* Run a job that must report and exit 0. */
static void run_ok(const struct job *j, struct report *rep)
{
        int got = 0;
        int status = run_job(j, rep, &got);

        if (!got)
                fail_msg("child exited without a report (status 0x%x%s)", (unsigned) status,
                         WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS ?
                         ", killed by SIGSYS: an ABI is missing from the filter" : "");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("child status 0x%x", (unsigned) status);
}

static void want_errno(const struct report *rep, int i, int err, const char *what)
{
        if (i >= rep->n)
                fail_msg("%s: no result recorded", what);
        if (rep->r[i].ret != -1 || rep->r[i].err != err)
                fail_msg("%s: returned %lld errno %d (%s), want -1 with %s", what,
                         (long long) rep->r[i].ret, (int) rep->r[i].err,
                         strerror(rep->r[i].err), strerror(err));
}

static void want_ok(const struct report *rep, int i, const char *what)
{
        if (i >= rep->n)
                fail_msg("%s: no result recorded", what);
        if (rep->r[i].ret < 0)
                fail_msg("%s: failed with errno %d (%s), want success", what,
                         (int) rep->r[i].err, strerror(rep->r[i].err));
}

/* A raw kernel return (int 0x80): -errno on failure. */
static void want_raw(const struct report *rep, int i, long want, const char *what)
{
        if (i >= rep->n)
                fail_msg("%s: no result recorded", what);
        if (rep->r[i].ret != want)
                fail_msg("%s: returned %lld, want %ld", what, (long long) rep->r[i].ret, want);
}

/* A helper the pre steps use: new user namespace (+ extra namespaces) with
 * the caller mapped to root.  0 or -errno.  Strings are formatted before
 * any namespace change, with plain async-signal-safe calls only. */
static int write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -EIO;
}

static char g_uid_map[64], g_gid_map[64];

static void prepare_maps(void)
{
        snprintf(g_uid_map, sizeof(g_uid_map), "0 %u 1\n", (unsigned) geteuid());
        snprintf(g_gid_map, sizeof(g_gid_map), "0 %u 1\n", (unsigned) getegid());
}

static int enter_userns(int extra)
{
        int r;

        if (unshare(CLONE_NEWUSER | extra) != 0)
                return -errno;
        (void) write_file("/proc/self/setgroups", "deny");
        r = write_file("/proc/self/uid_map", g_uid_map);
        if (r == 0)
                r = write_file("/proc/self/gid_map", g_gid_map);
        return r;
}

/* ======================================================== BPF interpreter */

/* Run the program on one seccomp_data, as the kernel would. */
static uint32_t bpf_run(const struct sbx__bpf *b, uint32_t arch, uint32_t nr, const uint64_t *args)
{
        const struct sock_filter *f = b->filter;
        struct seccomp_data d;
        uint32_t A = 0, X = 0, M[BPF_MEMWORDS];
        size_t pc = 0, steps = 0;

        memset(&d, 0, sizeof(d));
        memset(M, 0, sizeof(M));
        d.nr = (int) nr;
        d.arch = arch;
        if (args != NULL)
                memcpy(d.args, args, sizeof(d.args));
        while (pc < b->len && steps++ < 100000) {
                const struct sock_filter *in = &f[pc++];
                uint32_t k = in->k;

                switch (in->code) {
                case BPF_LD | BPF_W | BPF_ABS:
                        if (k % 4 != 0 || k + 4 > sizeof(d))
                                fail_msg("BPF load out of seccomp_data at %zu", pc - 1);
                        memcpy(&A, (const char *) &d + k, 4);
                        break;
                case BPF_LD | BPF_W | BPF_LEN: A = sizeof(d); break;
                case BPF_LDX | BPF_W | BPF_LEN: X = sizeof(d); break;
                case BPF_LD | BPF_IMM: A = k; break;
                case BPF_LDX | BPF_IMM: X = k; break;
                case BPF_LD | BPF_MEM: assert_true(k < BPF_MEMWORDS); A = M[k]; break;
                case BPF_LDX | BPF_MEM: assert_true(k < BPF_MEMWORDS); X = M[k]; break;
                case BPF_ST: assert_true(k < BPF_MEMWORDS); M[k] = A; break;
                case BPF_STX: assert_true(k < BPF_MEMWORDS); M[k] = X; break;
                case BPF_ALU | BPF_ADD | BPF_K: A += k; break;
                case BPF_ALU | BPF_SUB | BPF_K: A -= k; break;
                case BPF_ALU | BPF_AND | BPF_K: A &= k; break;
                case BPF_ALU | BPF_OR | BPF_K: A |= k; break;
                case BPF_ALU | BPF_XOR | BPF_K: A ^= k; break;
                case BPF_ALU | BPF_LSH | BPF_K: A = k < 32 ? A << k : 0; break;
                case BPF_ALU | BPF_RSH | BPF_K: A = k < 32 ? A >> k : 0; break;
                case BPF_ALU | BPF_ADD | BPF_X: A += X; break;
                case BPF_ALU | BPF_SUB | BPF_X: A -= X; break;
                case BPF_ALU | BPF_AND | BPF_X: A &= X; break;
                case BPF_ALU | BPF_OR | BPF_X: A |= X; break;
                case BPF_ALU | BPF_XOR | BPF_X: A ^= X; break;
                case BPF_ALU | BPF_NEG: A = (uint32_t) -A; break;
                case BPF_MISC | BPF_TAX: X = A; break;
                case BPF_MISC | BPF_TXA: A = X; break;
                case BPF_JMP | BPF_JA: pc += k; break;
                case BPF_JMP | BPF_JEQ | BPF_K: pc += A == k ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JGT | BPF_K: pc += A > k ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JGE | BPF_K: pc += A >= k ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JSET | BPF_K: pc += (A & k) != 0 ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JEQ | BPF_X: pc += A == X ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JGT | BPF_X: pc += A > X ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JGE | BPF_X: pc += A >= X ? in->jt : in->jf; break;
                case BPF_JMP | BPF_JSET | BPF_X: pc += (A & X) != 0 ? in->jt : in->jf; break;
                case BPF_RET | BPF_K: return k;
                case BPF_RET | BPF_A: return A;
                default:
                        fail_msg("unexpected BPF opcode 0x%x at %zu", (unsigned) in->code, pc - 1);
                }
        }
        fail_msg("BPF program ran off its end");
        return 0;
}

#define RET_ALLOW       SECCOMP_RET_ALLOW
#define RET_EPERM       (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS      (SECCOMP_RET_ERRNO | ENOSYS)

static void want_bpf(const struct sbx__bpf *b, uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a1,
                     uint32_t want, const char *what)
{
        uint64_t args[6] = { a0, a1, 0, 0, 0, 0 };
        uint32_t got = bpf_run(b, arch, nr, args);

        if (got != want)
                fail_msg("%s (arch 0x%x nr 0x%x a0 0x%llx a1 0x%llx): filter says 0x%08x, want 0x%08x",
                         what, (unsigned) arch, (unsigned) nr, (unsigned long long) a0,
                         (unsigned long long) a1, (unsigned) got, (unsigned) want);
}

static void build(uint32_t opts, struct sbx__bpf *b)
{
        sbx_error e = { 0, 0, { 0 } };
        int r = sbx__seccomp_build(opts, b, &e);

        if (r != SBX_OK)
                fail_msg("sbx__seccomp_build(0x%x): %s: %s", (unsigned) opts, sbx_code_name(r),
                         e.message);
        assert_non_null(b->filter);
        assert_true(b->len > 0 && b->len <= BPF_MAXINSNS);
}

/* ================================================================= tests */

static void test_seccomp__build_rejects_bad_arguments(void **state)
{
        struct sbx__bpf b = { (void *) 0x1, 77 };
        sbx_error e = { 0, 0, { 0 } };
        struct sock_filter one = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sbx__bpf bad;
        (void) state;

        assert_int_equal(sbx__seccomp_build(0, NULL, &e), SBX_E_INVALID);
        assert_int_equal(e.code, SBX_E_INVALID);
        assert_non_null(strstr(e.message, "out"));
        assert_int_equal(sbx__seccomp_build(1u << 7, &b, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "option"));
        assert_int_equal(sbx__seccomp_build(1u << 31, &b, NULL), SBX_E_INVALID);
        /* outputs are written only on success */
        assert_ptr_equal(b.filter, (void *) 0x1);
        assert_int_equal(b.len, 77);

        /* free is NULL-safe and idempotent */
        sbx__seccomp_free(NULL);
        b.filter = NULL;
        b.len = 0;
        sbx__seccomp_free(&b);
        build(0, &b);
        sbx__seccomp_free(&b);
        assert_null(b.filter);
        assert_int_equal(b.len, 0);
        sbx__seccomp_free(&b);

        /* the child loader checks before it touches the kernel */
        assert_int_equal(sbx__seccomp_load_child(NULL), -EINVAL);
        bad.filter = NULL;
        bad.len = 1;
        assert_int_equal(sbx__seccomp_load_child(&bad), -EINVAL);
        bad.filter = &one;
        bad.len = 0;
        assert_int_equal(sbx__seccomp_load_child(&bad), -EINVAL);
        bad.len = BPF_MAXINSNS + 1;
        assert_int_equal(sbx__seccomp_load_child(&bad), -EINVAL);
}

static void test_seccomp__every_option_combination_builds(void **state)
{
        uint32_t opts;
        (void) state;

        for (opts = 0; opts <= OPTS_ALL; opts++) {
                struct sbx__bpf b = { NULL, 0 };
                const struct sock_filter *f;
                size_t i;

                build(opts, &b);
                f = b.filter;
                /* the last instruction returns; no jump leaves the program */
                assert_int_equal(BPF_CLASS(f[b.len - 1].code), BPF_RET);
                for (i = 0; i < b.len; i++) {
                        if (BPF_CLASS(f[i].code) != BPF_JMP)
                                continue;
                        if (BPF_OP(f[i].code) == BPF_JA)
                                assert_true(i + 1 + f[i].k < b.len);
                        else
                                assert_true(i + 1 + f[i].jt < b.len && i + 1 + f[i].jf < b.len);
                }
                sbx__seccomp_free(&b);
        }
}

/*
 * The build-time table (docs/seccomp.md) is the only source on a spawn:
 * every option set's program is byte for byte what libseccomp compiles in
 * this process (the table holds KILL_PROCESS, which this kernel has).
 */
static void test_seccomp__embedded_programs_equal_compiled_ones(void **state)
{
        uint32_t opts;
        (void) state;

        for (opts = 0; opts <= OPTS_ALL; opts++) {
                struct sbx__bpf b = { NULL, 0 }, c = { NULL, 0 };
                sbx_error e = { 0, 0, { 0 } };

                build(opts, &b);
                if (sbx__seccomp_compile(opts, &c, &e) != SBX_OK)
                        fail_msg("sbx__seccomp_compile(0x%x): %s", (unsigned) opts, e.message);
                if (b.len != c.len || memcmp(b.filter, c.filter, b.len * sizeof(struct sock_filter)))
                        fail_msg("option set 0x%x: the embedded program (%zu instructions) "
                                 "differs from the one libseccomp compiles now (%zu)",
                                 (unsigned) opts, b.len, c.len);
                sbx__seccomp_free(&b);
                sbx__seccomp_free(&c);
        }
}

/*
 * The supervisor's filters: every variant sbx__notify_build hands out is
 * the embedded one and byte for byte libseccomp's compilation of the same
 * rules here and now, and so is the (arch, number) -> operation table.
 * WRITES alone is built as NAMES | WRITES; 0 and unknown bits are refused.
 */
static void test_seccomp__notify_table_equals_compiled(void **state)
{
        const struct sbx__notify_map *map = NULL, *map2 = NULL;
        struct sbx__notify_map ref;
        sbx_error e = { 0, 0, { 0 } };
        unsigned w, n = 0;
        (void) state;

        for (w = 1; w <= SBX__NF_ALL; w++) {
                const struct sbx__bpf *p = NULL, *q = NULL;
                struct sbx__bpf c = { NULL, 0 };
                const struct sock_filter *f;
                size_t i, notify = 0;

                if (sbx__notify_variant(w) == 0) {
                        /* READS without OBSERVE */
                        assert_int_equal(sbx__notify_build(w, &p, &map2, &e), SBX_E_INTERNAL);
                        continue;
                }
                if (sbx__notify_variant(w) != w) {
                        /* WRITES without NAMES: the NAMES | WRITES program */
                        assert_int_equal(sbx__notify_build(w, &p, &map, &e), SBX_OK);
                        assert_int_equal(sbx__notify_build(w | SBX__NF_NAMES, &q, &map2, &e),
                                         SBX_OK);
                        assert_ptr_equal(p, q);
                        continue;
                }
                if (sbx__notify_build(w, &p, &map, &e) != SBX_OK)
                        fail_msg("sbx__notify_build(0x%x): %s", w, e.message);
                if (sbx__notify_compile(w, &c, &e) != SBX_OK)
                        fail_msg("sbx__notify_compile(0x%x): %s", w, e.message);
                if (p->len != c.len || memcmp(p->filter, c.filter, c.len * sizeof(*f)) != 0)
                        fail_msg("notify variant 0x%x: the embedded filter (%zu instructions) "
                                 "differs from libseccomp's (%zu)", w, p->len, c.len);
                f = p->filter;
                for (i = 0; i < p->len; i++)
                        notify += f[i].code == (BPF_RET | BPF_K) &&
                                  (f[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
                if (notify == 0)
                        fail_msg("notify variant 0x%x notifies nothing", w);
                sbx__seccomp_free(&c);
                n++;
        }
        assert_true(n > 0);
        assert_int_equal(sbx__notify_map_compile(&ref, &e), SBX_OK);
        assert_non_null(map);
        assert_true(ref.n > 0);
        assert_int_equal(map->n, ref.n);
        assert_memory_equal(map->v, ref.v, ref.n * sizeof(ref.v[0]));
        {
                const struct sbx__bpf *none = NULL;

                assert_int_equal(sbx__notify_build(0, &none, &map2, &e), SBX_E_INTERNAL);
                assert_int_equal(sbx__notify_build(1u << 7, &none, &map2, &e), SBX_E_INTERNAL);
                assert_null(none);
        }
}

/* The program, not the kernel: only the native ABI runs, everything not on
 * the allow-list is ENOSYS, the refused group EPERM, and every other ABI
 * (i386, x32, any foreign arch value) is killed. */
static void test_seccomp__filter_allows_only_the_native_abi(void **state)
{
        static const uint32_t variants[] = { 0, SBX__SC_HOST_NS | SBX__SC_DENY_METADATA };
        struct sbx__bpf b = { NULL, 0 };
        uint32_t native = seccomp_arch_native();
        size_t v;
        (void) state;

        for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
                build(variants[v], &b);
#if HAVE_X86_64
                {
                        static const uint32_t foreign[] = {
                                AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM, AUDIT_ARCH_PPC64LE,
                                AUDIT_ARCH_S390X, AUDIT_ARCH_RISCV64, AUDIT_ARCH_MIPS, 0,
                                0xffffffffu, AUDIT_ARCH_X86_64 & ~__AUDIT_ARCH_LE,
                                AUDIT_ARCH_I386,
                        };
                        size_t i;

                        for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
                                want_bpf(&b, foreign[i], 272, 0, 0, SECCOMP_RET_KILL_PROCESS,
                                         "foreign arch unshare");
                                want_bpf(&b, foreign[i], 20, 0, 0, SECCOMP_RET_KILL_PROCESS,
                                         "foreign arch getpid");
                        }
                }
                /* x32: the x32 bit under the x86_64 arch value is killed */
                want_bpf(&b, AUDIT_ARCH_X86_64, X32_BIT | 39, 0, 0, SECCOMP_RET_KILL_PROCESS, "x32 getpid");
                want_bpf(&b, AUDIT_ARCH_X86_64, X32_BIT | 16, 0, TIOCSTI, SECCOMP_RET_KILL_PROCESS,
                         "x32 bit + 64-bit ioctl");
                want_bpf(&b, AUDIT_ARCH_X86_64, X32_BIT | 514, 0, TIOCSTI, SECCOMP_RET_KILL_PROCESS,
                         "x32 ioctl");
                /* x86_64: allowed, refused, unknown */
                want_bpf(&b, AUDIT_ARCH_X86_64, 39, 0, 0, RET_ALLOW, "x86_64 getpid");
                want_bpf(&b, AUDIT_ARCH_X86_64, 0, 0, 0, RET_ALLOW, "x86_64 read");
                want_bpf(&b, AUDIT_ARCH_X86_64, 257, 0, 0, RET_ALLOW, "x86_64 openat");
                want_bpf(&b, AUDIT_ARCH_X86_64, 272, CLONE_NEWUSER, 0, RET_EPERM, "x86_64 unshare");
                want_bpf(&b, AUDIT_ARCH_X86_64, 308, 0, 0, RET_EPERM, "x86_64 setns");
                want_bpf(&b, AUDIT_ARCH_X86_64, 101, 0, 0, RET_EPERM, "x86_64 ptrace");
                want_bpf(&b, AUDIT_ARCH_X86_64, 435, 0, 0, RET_ENOSYS, "x86_64 clone3");
                want_bpf(&b, AUDIT_ARCH_X86_64, 56, CLONE_NEWUSER | SIGCHLD, 0, RET_EPERM,
                         "x86_64 clone NEWUSER");
                want_bpf(&b, AUDIT_ARCH_X86_64, 56, SIGCHLD, 0, RET_ALLOW, "x86_64 clone plain");
                want_bpf(&b, AUDIT_ARCH_X86_64, 16, 0, TIOCSTI, RET_EPERM, "x86_64 ioctl TIOCSTI");
                want_bpf(&b, AUDIT_ARCH_X86_64, 16, 0, HIGH_BIT | TIOCSTI, RET_EPERM,
                         "x86_64 ioctl high TIOCSTI");
                want_bpf(&b, AUDIT_ARCH_X86_64, 16, 0, TCGETS, RET_ALLOW, "x86_64 ioctl TCGETS");
                want_bpf(&b, AUDIT_ARCH_X86_64, 154, 0, 0, RET_EPERM, "x86_64 modify_ldt");
                want_bpf(&b, AUDIT_ARCH_X86_64, 205, 0, 0, RET_ENOSYS, "x86_64 set_thread_area");
                want_bpf(&b, AUDIT_ARCH_X86_64, NR_OPEN_TREE_ATTR, 0, 0, RET_ENOSYS,
                         "x86_64 open_tree_attr");
                want_bpf(&b, AUDIT_ARCH_X86_64, 452, 0, 0, RET_ENOSYS, "x86_64 fchmodat2");
                want_bpf(&b, AUDIT_ARCH_X86_64, 514, 0, TIOCSTI, RET_ENOSYS, "x86_64 nr 514");
                want_bpf(&b, AUDIT_ARCH_X86_64, 1000, 0, 0, RET_ENOSYS, "x86_64 nr 1000");
                want_bpf(&b, AUDIT_ARCH_X86_64, 0x3fffffff, 0, 0, RET_ENOSYS, "x86_64 nr 2^30-1");
                /* System V IPC: only with an IPC namespace of the command's own */
                want_bpf(&b, AUDIT_ARCH_X86_64, 29, 0, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW, "x86_64 shmget");
                want_bpf(&b, AUDIT_ARCH_X86_64, 69, 0, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW, "x86_64 msgsnd");
                want_bpf(&b, AUDIT_ARCH_X86_64, 240, 0, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW, "x86_64 mq_open");
                /* a pid other than the caller's: only with a pid namespace */
                want_bpf(&b, AUDIT_ARCH_X86_64, 302, 0, 0, RET_ALLOW, "x86_64 prlimit64(0)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 302, 1, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW, "x86_64 prlimit64(1)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 302, 0x100000000ull, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "x86_64 prlimit64(high bits)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 141, 0, 0, RET_ALLOW, "setpriority(PRIO_PROCESS, 0)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 141, 2 /* PRIO_USER */, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "setpriority(PRIO_USER, 0)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 141, 0, 1234,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "setpriority(PRIO_PROCESS, 1234)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 251, 1, 0, RET_ALLOW, "ioprio_set(PROCESS, 0)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 251, 3 /* USER */, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "ioprio_set(USER, 0)");
                /* rung 2 only: kill(-1), CLONE_PARENT, inotify watches */
                want_bpf(&b, AUDIT_ARCH_X86_64, 62, 0xffffffffu, SIGKILL,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW, "kill(-1)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 62, 0, SIGTERM, RET_ALLOW, "kill(0)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 56, 0x8000 /* CLONE_PARENT */ | SIGCHLD, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "clone(CLONE_PARENT)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 254, 3, 0,
                         (variants[v] & SBX__SC_HOST_NS) ? RET_EPERM : RET_ALLOW,
                         "inotify_add_watch");
                want_bpf(&b, AUDIT_ARCH_X86_64, 253, 0, 0, RET_ALLOW, "inotify_init");
                /* every rung: leases; uretprobe passes (the kernel's own) */
                want_bpf(&b, AUDIT_ARCH_X86_64, 72, 3, 1024 /* F_SETLEASE */, RET_EPERM,
                         "fcntl(F_SETLEASE)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 72, 3, 1025 /* F_GETLEASE */, RET_ALLOW,
                         "fcntl(F_GETLEASE)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 72, 3, F_SETFD, RET_ALLOW, "fcntl(F_SETFD)");
                want_bpf(&b, AUDIT_ARCH_X86_64, 335, 0, 0, RET_ALLOW, "uretprobe");
#else
                want_bpf(&b, native, SYS_unshare, 0, 0, RET_EPERM, "native unshare");
                want_bpf(&b, native, SYS_getpid, 0, 0, RET_ALLOW, "native getpid");
                want_bpf(&b, native == AUDIT_ARCH_I386 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_I386,
                         SYS_getpid, 0, 0, SECCOMP_RET_KILL_PROCESS, "foreign arch");
#endif
                sbx__seccomp_free(&b);
        }
        (void) native;
}

/* The allow-list stage is emitted as runs of numbers (sc_allow_stage); it
 * must decide every number exactly as libseccomp compiles the same lists
 * (the stage alone, before the argument stage is linked behind it). */
static void test_seccomp__allow_runs_equal_libseccomp(void **state)
{
        static const uint32_t variants[] = { 0, SBX__SC_HOST_NS };
        uint32_t native = 0;
        struct sbx__bpf ref = { NULL, 0 }, b = { NULL, 0 };
        sbx_error e = { 0, 0, { 0 } };
        uint32_t nr, got, want;
        size_t v, i;
        (void) state;

#if HAVE_X86_64
        native = AUDIT_ARCH_X86_64;
#endif
        if (native == 0) {
                not_covered("the arch value is only spelled out for x86_64 here");
                return;
        }
        for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
                static const uint32_t extra[] = { 0x3fffffffu, 0x40000000u, 0x40000027u,
                                                  0x7fffffffu, 0x80000000u, 0xfffffffeu,
                                                  0xffffffffu, 0xf0005u };

                if (sbx__seccomp_compile_allow_reference(variants[v], &ref, &e) != SBX_OK)
                        fail_msg("reference: %s", e.message);
                if (sbx__seccomp_allow_stage(variants[v], &b, &e) != SBX_OK)
                        fail_msg("allow stage: %s", e.message);
                for (i = 0; i < 4096 + sizeof(extra) / sizeof(extra[0]); i++) {
                        uint64_t args[6] = { 0, 0, 0, 0, 0, 0 };

                        nr = i < 4096 ? (uint32_t) i : extra[i - 4096];
                        want = bpf_run(&ref, native, nr, args);
                        got = bpf_run(&b, native, nr, args);
                        if ((got & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS ||
                            (got & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD)
                                got = SECCOMP_RET_KILL_PROCESS;
                        if ((want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD)
                                want = SECCOMP_RET_KILL_PROCESS;
                        if (got != want)
                                fail_msg("nr 0x%x (variant 0x%x): 0x%08x, libseccomp says 0x%08x",
                                         (unsigned) nr, (unsigned) variants[v], (unsigned) got,
                                         (unsigned) want);
                }
                /* and a foreign arch value */
                assert_int_equal(bpf_run(&b, native ^ 1u, 39, NULL) & SECCOMP_RET_ACTION_FULL,
                                 bpf_run(&ref, native ^ 1u, 39, NULL) & SECCOMP_RET_ACTION_FULL);
                sbx__seccomp_free(&ref);
                sbx__seccomp_free(&b);
        }
}

static int persona_allowed(uint64_t v)
{
        return v == 0 || v == 8 || v == 0xffffffffu;
}

/* personality: exactly PER_LINUX, PER_LINUX32 and the query pass. */
static void test_seccomp__personality_allow_list_is_exact(void **state)
{
        struct sbx__bpf b = { NULL, 0 };
        uint64_t v, x = 0x9e3779b97f4a7c15ull;
        unsigned int i, k;
        char what[64];
        (void) state;

        build(0, &b);
        for (k = 0; k < 20000 + 512 + 4 * 32; k++) {
                if (k < 512)
                        v = k;
                else if (k < 512 + 32)
                        v = 1ull << (k - 512);
                else if (k < 512 + 64)
                        v = 0xffffffffu & ~(1u << (k - 512 - 32));
                else if (k < 512 + 96)
                        v = 8u | (1u << (k - 512 - 64));
                else if (k < 512 + 128)
                        v = (1ull << (k - 512 - 96)) | 0x100000000ull;
                else {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        v = (k & 1) ? (x & 0xffffffffu) : x;
                }
                snprintf(what, sizeof(what), "personality(0x%llx)", (unsigned long long) v);
#if HAVE_X86_64
                want_bpf(&b, AUDIT_ARCH_X86_64, 135, v, 0,
                         persona_allowed(v) ? RET_ALLOW : RET_EPERM, what);
#else
                want_bpf(&b, seccomp_arch_native(), SYS_personality, v, 0,
                         persona_allowed(v) ? RET_ALLOW : RET_EPERM, what);
#endif
        }
        for (i = 0; i < 3; i++) {
                static const uint64_t dangerous[] = {
                        READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, PER_LINUX32 | ADDR_NO_RANDOMIZE,
                };
#if HAVE_X86_64
                want_bpf(&b, AUDIT_ARCH_X86_64, 135, dangerous[i], 0, RET_EPERM, "dangerous persona");
#else
                want_bpf(&b, seccomp_arch_native(), SYS_personality, dangerous[i], 0, RET_EPERM,
                         "dangerous persona");
#endif
        }
        sbx__seccomp_free(&b);
}

/* --------------------------------------------------------- namespaces */

static const char *const g_ns_names[] = { "user", "mnt", "net", "pid", "ipc", "uts", "cgroup" };

static void probe_unshare(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, syscall(SYS_unshare, CLONE_NEWUSER));
        REC(rep, syscall(SYS_unshare, CLONE_NEWNS));
        REC(rep, syscall(SYS_unshare, CLONE_NEWNET));
        REC(rep, syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                                      CLONE_NEWUTS | CLONE_NEWCGROUP));
        REC(rep, syscall(SYS_unshare, HIGH_BIT | CLONE_NEWUSER));
        REC(rep, syscall(SYS_unshare, 0));
        REC(rep, syscall(SYS_setns, -1, 0));
}

static void inspect_same_ns(pid_t pid, const struct report *rep, void *arg)
{
        char mine[128], theirs[128];
        size_t i;
        (void) rep;
        (void) arg;

        for (i = 0; i < sizeof(g_ns_names) / sizeof(g_ns_names[0]); i++) {
                ns_link(0, g_ns_names[i], mine, sizeof(mine));
                ns_link(pid, g_ns_names[i], theirs, sizeof(theirs));
                if (strcmp(mine, theirs) != 0)
                        fail_msg("the child is in another %s namespace: %s vs %s", g_ns_names[i],
                                 theirs, mine);
        }
        /* the filter really is on the child */
        assert_int_equal(status_field(pid, "Seccomp"), 2);
        assert_true(status_field(pid, "NoNewPrivs") == 1);
}

static void probe_unshare_control(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, syscall(SYS_unshare, CLONE_NEWUSER));
}

static void inspect_other_userns(pid_t pid, const struct report *rep, void *arg)
{
        char mine[128], theirs[128];

        (void) arg;
        if (rep->r[0].ret != 0)
                return;
        ns_link(0, "user", mine, sizeof(mine));
        ns_link(pid, "user", theirs, sizeof(theirs));
        if (strcmp(mine, theirs) == 0)
                fail_msg("control: unshare(CLONE_NEWUSER) worked but the namespace link did not change");
}

static void test_seccomp__unshare_refused_and_namespaces_unchanged(void **state)
{
        struct job j = { 0 };
        struct report rep;
        int i;
        (void) state;

        j.probe = probe_unshare;
        j.inspect = inspect_same_ns;
        run_ok(&j, &rep);
        for (i = 0; i < 6; i++)
                want_errno(&rep, i, EPERM, "unshare");
        want_errno(&rep, 6, EPERM, "setns(-1) (the kernel alone says EBADF)");

        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_unshare_control;
        j.inspect = inspect_other_userns;
        run_ok(&j, &rep);
        if (rep.r[0].ret != 0)
                not_covered("control: unshare(CLONE_NEWUSER) without the filter failed, so the "
                            "namespace check was not shown to notice a change");
}

/* ------------------------------------------------------------- mounts */

struct mount_arg {
        char dir[64];
        int  need_userns;
};

static int pre_mount(void *arg)
{
        const struct mount_arg *m = arg;
        int r = enter_userns(CLONE_NEWNS);

        if (r == 0)
                return 0;
        return m->need_userns ? r : 0x10000 | -r;   /* filtered run: try anyway */
}

static void probe_mount(struct report *rep, void *arg)
{
        const struct mount_arg *m = arg;

        REC(rep, mount("sbx", m->dir, "tmpfs", 0, "size=64k"));
        REC(rep, syscall(SYS_mount, "sbx", m->dir, "tmpfs", HIGH_BIT, "size=64k"));
        REC(rep, syscall(SYS_umount2, m->dir, MNT_DETACH));
        REC(rep, syscall(SYS_pivot_root, m->dir, m->dir));
        REC(rep, syscall(SYS_chroot, m->dir));
        REC(rep, syscall(SYS_fsopen, "tmpfs", 0));
        REC(rep, syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0));
        REC(rep, syscall(SYS_fsmount, -1, 0, 0));
        REC(rep, syscall(SYS_fspick, AT_FDCWD, "/", 0));
        REC(rep, syscall(SYS_open_tree, AT_FDCWD, m->dir, 0));
        REC(rep, syscall(SYS_move_mount, -1, "", -1, "", 0));
        REC(rep, syscall(SYS_mount_setattr, -1, "", 0, NULL, 0));
        REC(rep, syscall(NR_OPEN_TREE_ATTR, AT_FDCWD, m->dir, 0, NULL, 0));
}

static void probe_mount_control(struct report *rep, void *arg)
{
        const struct mount_arg *m = arg;

        REC(rep, mount("sbx", m->dir, "tmpfs", 0, "size=64k"));
}

static int mountinfo_has(pid_t pid, const char *dir)
{
        static char buf[1 << 20];
        char path[64], needle[96];

        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int) pid);
        if (slurp(path, buf, sizeof(buf)) < 0)
                fail_msg("read %s: %s", path, strerror(errno));
        snprintf(needle, sizeof(needle), " %s ", dir);
        return strstr(buf, needle) != NULL;
}

static void inspect_no_mount(pid_t pid, const struct report *rep, void *arg)
{
        const struct mount_arg *m = arg;

        (void) rep;
        if (mountinfo_has(pid, m->dir)) {
                (void) umount2(m->dir, MNT_DETACH);
                fail_msg("a mount on %s appeared in the child's mountinfo", m->dir);
        }
        if (mountinfo_has(getpid(), m->dir)) {
                (void) umount2(m->dir, MNT_DETACH);
                fail_msg("a mount on %s appeared in the host mountinfo", m->dir);
        }
}

static void inspect_mounted(pid_t pid, const struct report *rep, void *arg)
{
        const struct mount_arg *m = arg;

        if (rep->pre_err == 0 && rep->r[0].ret == 0 && !mountinfo_has(pid, m->dir))
                fail_msg("control: the tmpfs mount is not in the child's mountinfo");
}

static void test_seccomp__mount_refused_and_not_visible(void **state)
{
        static const char *const what[] = {
                "mount", "mount (high flag bits)", "umount2", "pivot_root", "chroot", "fsopen",
                "fsconfig", "fsmount", "fspick", "open_tree", "move_mount", "mount_setattr",
                "open_tree_attr",
        };
        struct mount_arg m;
        struct job j = { 0 };
        struct report rep;
        size_t i;
        (void) state;

        prepare_maps();
        memset(&m, 0, sizeof(m));
        strcpy(m.dir, "/tmp/sbx-sc-mnt-XXXXXX");
        assert_non_null(mkdtemp(m.dir));
        j.pre = pre_mount;
        j.probe = probe_mount;
        j.inspect = inspect_no_mount;
        j.arg = &m;
        run_ok(&j, &rep);
        /* open_tree_attr postdates libseccomp's table: not on the list, ENOSYS */
        for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
                want_errno(&rep, (int) i, strcmp(what[i], "open_tree_attr") == 0 ? ENOSYS : EPERM,
                           what[i]);

        /* control: inside its own user+mount namespace the child can mount */
        memset(&j, 0, sizeof(j));
        m.need_userns = 1;
        j.control = 1;
        j.pre = pre_mount;
        j.probe = probe_mount_control;
        j.inspect = inspect_mounted;
        j.arg = &m;
        run_ok(&j, &rep);
        if (rep.pre_err != 0 || rep.r[0].ret != 0)
                not_covered("control: no user namespace to mount in, so the mountinfo check was "
                            "not shown to notice a mount");
        assert_int_equal(rmdir(m.dir), 0);
}

/* -------------------------------------------------------------- ptrace */

static volatile long g_secret = 0x5eb0c0de;

struct sibling {
        pid_t pid;
        int   hold;             /* write end; closing it lets the sibling exit */
};

static void sibling_start(struct sibling *s)
{
        int ready[2], hold[2];
        ssize_t n;
        char c = 0;

        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
        s->pid = fork();
        assert_true(s->pid >= 0);
        if (s->pid == 0) {
                close(ready[0]);
                close(hold[1]);
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
                /* let any process of ours attach (Yama ptrace_scope 1) */
                (void) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
                write_all(ready[1], "r", 1);
                while (read(hold[0], &c, 1) < 0 && errno == EINTR)
                        ;
                _exit(0);
        }
        close(ready[1]);
        close(hold[0]);
        n = read_full(ready[0], &c, 1, TIMEOUT_MS);
        close(ready[0]);
        assert_int_equal(n, 1);
        s->hold = hold[1];
}

static void sibling_stop(struct sibling *s)
{
        close(s->hold);
        (void) kill(s->pid, SIGKILL);
        (void) wait_bounded(s->pid);
}

static void probe_ptrace(struct report *rep, void *arg)
{
        const struct sibling *s = arg;
        long buf = 0;
        struct iovec local = { &buf, sizeof(buf) };
        struct iovec remote = { (void *) &g_secret, sizeof(g_secret) };
        int pidfd = (int) syscall(SYS_pidfd_open, s->pid, 0);

        REC(rep, ptrace(PTRACE_ATTACH, s->pid, NULL, NULL));
        REC(rep, ptrace(PTRACE_SEIZE, s->pid, NULL, NULL));
        REC(rep, syscall(SYS_process_vm_readv, s->pid, &local, 1, &remote, 1, 0));
        REC(rep, syscall(SYS_process_vm_writev, s->pid, &local, 1, &remote, 1, 0));
        REC(rep, syscall(SYS_pidfd_getfd, pidfd, 0, 0));
        REC(rep, syscall(SYS_process_madvise, pidfd, &local, 1, MADV_COLD, 0));
        REC(rep, syscall(SYS_kcmp, getpid(), s->pid, 0 /* KCMP_FILE */, 0, 0));
        REC(rep, ptrace(PTRACE_TRACEME, 0, NULL, NULL));
        REC(rep, buf);
}

static void inspect_untraced(pid_t pid, const struct report *rep, void *arg)
{
        const struct sibling *s = arg;

        (void) pid;
        (void) rep;
        assert_int_equal(status_field(s->pid, "TracerPid"), 0);
}

static void probe_ptrace_control(struct report *rep, void *arg)
{
        const struct sibling *s = arg;
        long buf = 0;
        struct iovec local = { &buf, sizeof(buf) };
        struct iovec remote = { (void *) &g_secret, sizeof(g_secret) };

        REC(rep, syscall(SYS_process_vm_readv, s->pid, &local, 1, &remote, 1, 0));
        REC(rep, buf);
        REC(rep, ptrace(PTRACE_ATTACH, s->pid, NULL, NULL));
}

static void inspect_traced(pid_t pid, const struct report *rep, void *arg)
{
        const struct sibling *s = arg;

        if (rep->r[2].ret == 0)
                assert_int_equal(status_field(s->pid, "TracerPid"), pid);
}

static void test_seccomp__ptrace_refused_and_sibling_untraced(void **state)
{
        static const char *const what[] = {
                "PTRACE_ATTACH", "PTRACE_SEIZE", "process_vm_readv", "process_vm_writev",
                "pidfd_getfd", "process_madvise", "kcmp", "PTRACE_TRACEME",
        };
        struct sibling s;
        struct job j = { 0 };
        struct report rep;
        size_t i;
        (void) state;

        sibling_start(&s);
        j.probe = probe_ptrace;
        j.inspect = inspect_untraced;
        j.arg = &s;
        run_ok(&j, &rep);
        for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
                want_errno(&rep, (int) i, EPERM, what[i]);
        assert_int_equal(rep.r[8].ret, 0);              /* nothing was read */
        assert_int_equal(status_field(s.pid, "TracerPid"), 0);
        sibling_stop(&s);

        /* control: without the filter the same child can read and attach */
        sibling_start(&s);
        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_ptrace_control;
        j.inspect = inspect_traced;
        j.arg = &s;
        run_ok(&j, &rep);
        if (rep.r[0].ret == (long) sizeof(long))
                assert_int_equal(rep.r[1].ret, g_secret);
        if (rep.r[0].ret != (long) sizeof(long) || rep.r[2].ret != 0)
                not_covered("control: this machine refuses ptrace between siblings even "
                            "without the filter (Yama or LSM)");
        sibling_stop(&s);
}

/* -------------------------------------------------------------- TIOCSTI */

struct tty_arg {
        char name[64];
        int  master;
        int  slave;             /* the parent's own (O_NOCTTY) view of the slave */
};

static int g_tty_fd = -1;

static int pre_tty(void *arg)
{
        const struct tty_arg *t = arg;

        if (setsid() < 0)
                return -errno;
        g_tty_fd = open(t->name, O_RDWR | O_CLOEXEC);
        if (g_tty_fd < 0)
                return -errno;
        if (ioctl(g_tty_fd, TIOCSCTTY, 0) < 0)
                return -errno;
        return 0;
}

static void probe_tty(struct report *rep, void *arg)
{
        char ch = 'X';
        int sub = 0;
        struct termios tio;

        (void) arg;
        REC(rep, ioctl(g_tty_fd, TIOCSTI, &ch));
        REC(rep, syscall(SYS_ioctl, g_tty_fd, HIGH_BIT | TIOCSTI, &ch));
        REC(rep, syscall(SYS_ioctl, g_tty_fd, 0xffffffff00000000ul | TIOCSTI, &ch));
        REC(rep, ioctl(g_tty_fd, TIOCLINUX, &sub));
        /* (the x32 ioctl kills the process: test_seccomp__foreign_abis_refused_whole) */
        /* ordinary terminal ioctls still work */
        REC(rep, tcgetattr(g_tty_fd, &tio));
}

static void probe_tty_control(struct report *rep, void *arg)
{
        char ch = 'X';

        (void) arg;
        REC(rep, ioctl(g_tty_fd, TIOCSTI, &ch));
}

/* Bytes waiting on fd within a short bounded poll. */
static ssize_t pending(int fd, char *buf, size_t size, int ms)
{
        struct pollfd p = { fd, POLLIN, 0 };
        ssize_t n;

        if (poll(&p, 1, ms) <= 0 || (p.revents & POLLIN) == 0)
                return 0;
        n = read(fd, buf, size);
        return n < 0 ? 0 : n;
}

static void inspect_nothing_injected(pid_t pid, const struct report *rep, void *arg)
{
        const struct tty_arg *t = arg;
        char buf[64];

        (void) pid;
        assert_int_equal(rep->pre_err, 0);
        assert_int_equal(pending(t->slave, buf, sizeof(buf), 200), 0);
        assert_int_equal(pending(t->master, buf, sizeof(buf), 0), 0);
}

static void inspect_injected(pid_t pid, const struct report *rep, void *arg)
{
        const struct tty_arg *t = arg;
        char buf[64];

        (void) pid;
        if (rep->pre_err != 0 || rep->r[0].ret != 0)
                return;
        if (pending(t->slave, buf, sizeof(buf), 5000) != 1 || buf[0] != 'X')
                fail_msg("control: TIOCSTI worked but nothing arrived on the slave");
}

static void tty_open(struct tty_arg *t)
{
        struct termios tio;

        t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(t->master >= 0);
        assert_int_equal(grantpt(t->master), 0);
        assert_int_equal(unlockpt(t->master), 0);
        assert_int_equal(ptsname_r(t->master, t->name, sizeof(t->name)), 0);
        t->slave = open(t->name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        assert_true(t->slave >= 0);
        assert_int_equal(tcgetattr(t->slave, &tio), 0);
        cfmakeraw(&tio);
        assert_int_equal(tcsetattr(t->slave, TCSANOW, &tio), 0);
}

static void test_seccomp__tiocsti_refused_nothing_injected(void **state)
{
        struct tty_arg t;
        struct job j = { 0 };
        struct report rep;
        (void) state;

        tty_open(&t);
        j.pre = pre_tty;
        j.probe = probe_tty;
        j.inspect = inspect_nothing_injected;
        j.arg = &t;
        run_ok(&j, &rep);
        want_errno(&rep, 0, EPERM, "TIOCSTI");
        want_errno(&rep, 1, EPERM, "TIOCSTI with bit 32 set in the request");
        want_errno(&rep, 2, EPERM, "TIOCSTI with the high word set in the request");
        want_errno(&rep, 3, EPERM, "TIOCLINUX (the kernel alone says ENOTTY/EINVAL)");
        want_ok(&rep, 4, "tcgetattr");

        /* control: the same child without the filter injects a byte */
        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.pre = pre_tty;
        j.probe = probe_tty_control;
        j.inspect = inspect_injected;
        j.arg = &t;
        run_ok(&j, &rep);
        if (rep.pre_err != 0 || rep.r[0].ret != 0)
                not_covered("control: TIOCSTI is refused by this kernel even without the filter "
                            "(dev.tty.legacy_tiocsti=0)");
        close(t.slave);
        close(t.master);
}

/* --------------------------------------------- other syscall entry ABIs */

#if HAVE_X86_64
/* A 32-bit (i386 ABI) syscall from 64-bit code. */
static long int80(long nr, long a, long b, long c)
{
        long ret;

        __asm__ volatile("int $0x80"
                         : "=a"(ret)
                         : "0"(nr), "b"(a), "c"(b), "d"(c)
                         : "memory", "r8", "r9", "r10", "r11");
        return ret;
}

/*
 * Foreign ABIs are refused whole: the first i386 (int 0x80) or x32 call
 * kills the process, and what the call would have done on the host (a
 * directory made, a protected file truncated) did not happen.  Checked
 * from outside; the positive control runs the same probe unfiltered.
 */
struct foreign_arg {
        char    *low;           /* MAP_32BIT page: an i386 pointer reaches it */
        char     dir[128];      /* host path the probe tries to create */
        char     file[128];     /* host file the probe tries to truncate */
        int      how;           /* FOREIGN_* */
};

enum { FOREIGN_I386_MKDIR, FOREIGN_I386_TRUNCATE64, FOREIGN_X32_MKDIR, FOREIGN_X32_TRUNCATE };

static void probe_foreign(struct report *rep, void *arg)
{
        const struct foreign_arg *f = arg;
        char *path = f->low;
        long r = -1;

        /* Without IA32 emulation int 0x80 raises SIGSEGV: die of it (the
         * parent recognises that), not of cmocka's inherited handler. */
        (void) signal(SIGSEGV, SIG_DFL);
        switch (f->how) {
        case FOREIGN_I386_MKDIR:
                memcpy(path, f->dir, strlen(f->dir) + 1);
                r = int80(39 /* mkdir */, (long) (uintptr_t) path, 0700, 0);
                break;
        case FOREIGN_I386_TRUNCATE64:
                memcpy(path, f->file, strlen(f->file) + 1);
                r = int80(193 /* truncate64 */, (long) (uintptr_t) path, 0, 0);
                break;
        case FOREIGN_X32_MKDIR:
                r = syscall(X32_BIT | 83 /* mkdir */, f->dir, 0700);
                break;
        case FOREIGN_X32_TRUNCATE:
                r = syscall(X32_BIT | 76 /* truncate */, f->file, 0);
                break;
        }
        rec(rep, r, errno);
}

static void foreign_setup(struct foreign_arg *f, int how)
{
        char tmpl[] = "/tmp/sbx-foreign.XXXXXX";
        int fd;

        memset(f, 0, sizeof(*f));
        f->how = how;
        f->low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                      -1, 0);
        assert_true(f->low != MAP_FAILED);
        assert_true((uintptr_t) f->low < 0xffffffffu);
        assert_non_null(mkdtemp(tmpl));
        snprintf(f->dir, sizeof(f->dir), "%s/made", tmpl);
        snprintf(f->file, sizeof(f->file), "%s/keep", tmpl);
        fd = open(f->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "0123456789", 10), 10);
        close(fd);
}

/* 1 if the probe's effect is visible on the host (and undoes it). */
static int foreign_effect(struct foreign_arg *f)
{
        struct stat st;
        int hit = 0, fd;

        if (rmdir(f->dir) == 0)
                hit = 1;
        assert_int_equal(stat(f->file, &st), 0);
        if (st.st_size != 10) {
                hit = 1;
                fd = open(f->file, O_WRONLY | O_TRUNC | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_int_equal(write(fd, "0123456789", 10), 10);
                close(fd);
        }
        return hit;
}

static void foreign_teardown(struct foreign_arg *f)
{
        char *slash = strrchr(f->file, '/');

        (void) unlink(f->file);
        (void) rmdir(f->dir);
        *slash = '\0';
        assert_int_equal(rmdir(f->file), 0);
        munmap(f->low, 4096);
}

static void foreign_case(int how, uint32_t opts, const char *what)
{
        struct foreign_arg f;
        struct job j = { 0 };
        struct report rep;
        int got = 0, status, faulted, hit;

        foreign_setup(&f, how);
        j.opts = opts;
        j.probe = probe_foreign;
        j.arg = &f;
        status = run_job(&j, &rep, &got);
        if (foreign_effect(&f))
                fail_msg("%s: the call reached the host under the filter", what);
        /* a kernel without IA32 emulation faults on int 0x80 before any
         * filter runs: the control below must then fault too */
        faulted = !got && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV &&
                  (how == FOREIGN_I386_MKDIR || how == FOREIGN_I386_TRUNCATE64);
        if (!faulted && (got || !WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS))
                fail_msg("%s: status 0x%x%s, want the process killed by SIGSYS", what,
                         (unsigned) status, got ? " (it returned)" : "");

        /* control: unfiltered, the same probe has its effect or the kernel
         * has no such ABI at all (nothing to bypass then) */
        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_foreign;
        j.arg = &f;
        got = 0;
        status = run_job(&j, &rep, &got);
        hit = foreign_effect(&f);
        if (hit && faulted)
                fail_msg("%s: faulted (SIGSEGV) under the filter but works without it", what);
        if (!hit) {
                if (got && rep.r[0].ret == -1 && rep.r[0].err == ENOSYS)
                        print_message("[   NOTE   ] %s: the kernel has no such ABI (ENOSYS)\n", what);
                else if (!got && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
                        print_message("[   NOTE   ] %s: the kernel has no i386 entry\n", what);
                else
                        fail_msg("%s: control had no effect (status 0x%x)", what, (unsigned) status);
        }
        foreign_teardown(&f);
}

static void test_seccomp__foreign_abis_refused_whole(void **state)
{
        static const uint32_t opts[] = { 0, SBX__SC_HOST_NS | SBX__SC_DENY_METADATA };
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
                foreign_case(FOREIGN_I386_MKDIR, opts[i], "int 0x80 mkdir");
                foreign_case(FOREIGN_I386_TRUNCATE64, opts[i], "int 0x80 truncate64");
                foreign_case(FOREIGN_X32_MKDIR, opts[i], "x32 mkdir");
                foreign_case(FOREIGN_X32_TRUNCATE, opts[i], "x32 truncate");
        }
}

/* The pre-5.4 cross-table numbers: not on the list, ENOSYS (a 5.4+ kernel's
 * own answer); nothing is killed. */
static void probe_cross_table(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, syscall(514 /* x32 ioctl without the bit */, 0, TIOCSTI, 0));
        REC(rep, syscall(521 /* x32 ptrace without the bit */, PTRACE_TRACEME, 0, 0, 0));
        REC(rep, syscall(547 /* x32 pwritev2 without the bit */, 0, 0, 0, 0, 0));
}

static void test_seccomp__x86_64_cross_table_numbers_enosys(void **state)
{
        struct job j = { 0 };
        struct report rep;
        (void) state;

        j.probe = probe_cross_table;
        run_ok(&j, &rep);
        want_errno(&rep, 0, ENOSYS, "nr 514");
        want_errno(&rep, 1, ENOSYS, "nr 521");
        want_errno(&rep, 2, ENOSYS, "nr 547");
}
#endif /* HAVE_X86_64 */

/* ------------------------------------------------------- clone, clone3 */

static const unsigned long g_clone_ns[] = {
        CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
        CLONE_NEWCGROUP, 0x00000080 /* CLONE_NEWTIME */,
};

/* fork-like raw clone; a child that should not exist leaves at once. */
static long raw_clone(unsigned long flags)
{
        long r;
        int st;

#if defined(__s390__) || defined(__s390x__)
        r = syscall(SYS_clone, 0, flags, NULL, NULL, 0);
#else
        r = syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
#endif
        if (r == 0)
                _exit(0);
        if (r > 0)
                while (waitpid((pid_t) r, &st, 0) < 0 && errno == EINTR)
                        ;
        return r;
}

struct clone_args_v0 {
        uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void probe_clone(struct report *rep, void *arg)
{
        struct clone_args_v0 ca;
        pid_t p;
        size_t i;
        int st = -1;

        (void) arg;
        for (i = 0; i < sizeof(g_clone_ns) / sizeof(g_clone_ns[0]); i++)
                REC(rep, raw_clone(g_clone_ns[i] | SIGCHLD));
        REC(rep, raw_clone(HIGH_BIT | CLONE_NEWUSER | SIGCHLD));
        /* clone3: ENOSYS whatever the arguments, so libc falls back to clone */
        REC(rep, syscall(SYS_clone3, NULL, 0));
        memset(&ca, 0, sizeof(ca));
        ca.flags = CLONE_NEWUSER;
        ca.exit_signal = SIGCHLD;
        errno = 0;
        p = (pid_t) syscall(SYS_clone3, &ca, sizeof(ca));
        if (p == 0)
                _exit(0);
        if (p > 0)
                (void) waitpid(p, &st, 0);
        rec(rep, p, errno);
        /* plain process creation still works */
        REC(rep, raw_clone(SIGCHLD));
        p = fork();
        if (p == 0)
                _exit(7);
        if (p > 0)
                while (waitpid(p, &st, 0) < 0 && errno == EINTR)
                        ;
        rec(rep, p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : -1, errno);
}

static void probe_clone3_control(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, syscall(SYS_clone3, NULL, 0));
}

static void test_seccomp__clone_new_namespaces_refused_fork_works(void **state)
{
        struct job j = { 0 };
        struct report rep;
        int i, n = (int) (sizeof(g_clone_ns) / sizeof(g_clone_ns[0]));
        char what[64];
        (void) state;

        j.probe = probe_clone;
        j.inspect = inspect_same_ns;
        run_ok(&j, &rep);
        for (i = 0; i < n; i++) {
                snprintf(what, sizeof(what), "clone(0x%lx)", g_clone_ns[i]);
                want_errno(&rep, i, EPERM, what);
        }
        want_errno(&rep, n, EPERM, "clone(CLONE_NEWUSER with bit 32 set)");
        want_errno(&rep, n + 1, ENOSYS, "clone3(NULL, 0) (the kernel alone says EINVAL)");
        want_errno(&rep, n + 2, ENOSYS, "clone3(CLONE_NEWUSER)");
        want_ok(&rep, n + 3, "plain clone(SIGCHLD)");
        want_ok(&rep, n + 4, "fork()");

        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_clone3_control;
        run_ok(&j, &rep);
        if (rep.r[0].ret != -1 || rep.r[0].err == ENOSYS)
                not_covered("control: this kernel has no clone3, so ENOSYS is not only the filter's");
}

/* --------------------------------------------------------- personality */

static void probe_personality(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, personality(READ_IMPLIES_EXEC));
        REC(rep, personality(ADDR_NO_RANDOMIZE));
        REC(rep, personality(PER_LINUX32 | ADDR_NO_RANDOMIZE));
        REC(rep, syscall(SYS_personality, HIGH_BIT | READ_IMPLIES_EXEC));
        REC(rep, personality(0xffffffff));
        REC(rep, personality(PER_LINUX32));
        REC(rep, personality(PER_LINUX));
        REC(rep, personality(0xffffffff));
}

static void inspect_persona(pid_t pid, const struct report *rep, void *arg)
{
        char path[64], buf[64];
        unsigned long want = *(const unsigned long *) arg;

        (void) rep;
        snprintf(path, sizeof(path), "/proc/%d/personality", (int) pid);
        assert_int_equal(slurp(path, buf, sizeof(buf)), 0);
        if (strtoul(buf, NULL, 16) != want)
                fail_msg("child personality is %s, want %08lx", buf, want);
}

static void probe_personality_control(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, personality(ADDR_NO_RANDOMIZE));
}

static void test_seccomp__personality_only_linux_and_query(void **state)
{
        unsigned long want = PER_LINUX;
        struct job j = { 0 };
        struct report rep;
        (void) state;

        j.probe = probe_personality;
        j.inspect = inspect_persona;
        j.arg = &want;
        run_ok(&j, &rep);
        want_errno(&rep, 0, EPERM, "personality(READ_IMPLIES_EXEC)");
        want_errno(&rep, 1, EPERM, "personality(ADDR_NO_RANDOMIZE)");
        want_errno(&rep, 2, EPERM, "personality(PER_LINUX32|ADDR_NO_RANDOMIZE)");
        want_errno(&rep, 3, EPERM, "personality(bit 32 | READ_IMPLIES_EXEC)");
        want_raw(&rep, 4, PER_LINUX, "personality(query)");
        want_raw(&rep, 5, PER_LINUX, "personality(PER_LINUX32) returns the old persona");
        want_raw(&rep, 6, PER_LINUX32, "personality(PER_LINUX) returns the old persona");
        want_raw(&rep, 7, PER_LINUX, "personality(query) after the round trip");

        memset(&j, 0, sizeof(j));
        want = ADDR_NO_RANDOMIZE;
        j.control = 1;
        j.probe = probe_personality_control;
        j.inspect = inspect_persona;
        j.arg = &want;
        run_ok(&j, &rep);
        want_raw(&rep, 0, PER_LINUX, "control: personality(ADDR_NO_RANDOMIZE)");
}

/* ------------------------------------------------------------- sockets */

static int pre_netns(void *arg)
{
        (void) arg;
        return enter_userns(CLONE_NEWNET);
}

static void probe_socket_default(struct report *rep, void *arg)
{
        int sv[2];

        (void) arg;
        REC(rep, socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)));
        REC(rep, socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP));
        REC(rep, socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6));
        REC(rep, socket(AF_INET, SOCK_PACKET, htons(ETH_P_ALL)));
        REC(rep, syscall(SYS_socket, HIGH_BIT | AF_PACKET, SOCK_RAW, 0));
        REC(rep, syscall(SYS_socket, AF_INET, HIGH_BIT | SOCK_RAW, IPPROTO_ICMP));
        /* allowed */
        REC(rep, socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
        REC(rep, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
}

static void probe_packet_control(struct report *rep, void *arg)
{
        (void) arg;
        REC(rep, socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)));
        REC(rep, socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP));
}

static void test_seccomp__packet_and_raw_sockets_refused(void **state)
{
        static const char *const denied[] = {
                "socket(AF_PACKET, SOCK_RAW)", "socket(AF_PACKET, SOCK_DGRAM)",
                "socket(AF_INET, SOCK_RAW)", "socket(AF_INET6, SOCK_RAW|SOCK_NONBLOCK)",
                "socket(AF_INET, SOCK_PACKET)", "socket(bit 32 | AF_PACKET)",
                "socket(AF_INET, bit 32 | SOCK_RAW)",
        };
        static const char *const allowed[] = {
                "socket(AF_INET, SOCK_STREAM)", "socket(AF_INET, SOCK_DGRAM)",
                "socket(AF_UNIX)", "socket(AF_NETLINK, NETLINK_ROUTE)", "socketpair(AF_UNIX)",
        };
        struct job j = { 0 };
        struct report rep;
        size_t i, nd = sizeof(denied) / sizeof(denied[0]);
        (void) state;

        prepare_maps();
        /* in its own user+network namespace the child has CAP_NET_RAW, so
         * only the filter stands between it and a packet socket */
        j.pre = pre_netns;
        j.probe = probe_socket_default;
        run_ok(&j, &rep);
        for (i = 0; i < nd; i++)
                want_errno(&rep, (int) i, EPERM, denied[i]);
        for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
                want_ok(&rep, (int) (nd + i), allowed[i]);

        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.pre = pre_netns;
        j.probe = probe_packet_control;
        run_ok(&j, &rep);
        if (rep.r[0].ret < 0 || rep.r[1].ret < 0)
                not_covered("control: no CAP_NET_RAW even in a fresh user+network namespace, so "
                            "the kernel refuses packet sockets without the filter too");
}

struct listener {
        int fd;
        struct sockaddr_in addr;
};

static void listener_open(struct listener *l)
{
        socklen_t len = sizeof(l->addr);

        l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(l->fd >= 0);
        memset(&l->addr, 0, sizeof(l->addr));
        l->addr.sin_family = AF_INET;
        l->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(l->fd, (struct sockaddr *) &l->addr, sizeof(l->addr)), 0);
        assert_int_equal(listen(l->fd, 8), 0);
        assert_int_equal(getsockname(l->fd, (struct sockaddr *) &l->addr, &len), 0);
}

static void probe_deny_inet(struct report *rep, void *arg)
{
        const struct listener *l = arg;
        int s, sv[2];

        errno = 0;
        s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        rec(rep, s, errno);
        if (s >= 0)
                REC(rep, connect(s, (const struct sockaddr *) &l->addr, sizeof(l->addr)));
        else
                rec(rep, -1, 0);
        REC(rep, socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
        REC(rep, socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, syscall(SYS_socket, HIGH_BIT | AF_INET, SOCK_STREAM, 0));
        REC(rep, socketpair(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
        /* AF_UNIX stays */
        REC(rep, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
}

static void inspect_no_connection(pid_t pid, const struct report *rep, void *arg)
{
        const struct listener *l = arg;
        struct pollfd p = { l->fd, POLLIN, 0 };
        int c;

        (void) pid;
        (void) rep;
        /* the child already returned from socket()/connect(); a loopback
         * connect completes before it returns, so 100 ms is only slack */
        assert_int_equal(poll(&p, 1, 100), 0);
        c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c >= 0) {
                close(c);
                fail_msg("the loopback listener accepted a connection from the child");
        }
        assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
}

static void probe_connect(struct report *rep, void *arg)
{
        const struct listener *l = arg;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        rec(rep, s, errno);
        REC(rep, connect(s, (const struct sockaddr *) &l->addr, sizeof(l->addr)));
}

static void inspect_connection(pid_t pid, const struct report *rep, void *arg)
{
        const struct listener *l = arg;
        struct pollfd p = { l->fd, POLLIN, 0 };
        int c;

        (void) pid;
        (void) rep;
        assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
        c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        assert_true(c >= 0);
        close(c);
}

static void test_seccomp__deny_inet_refuses_tcp_udp_and_other_families(void **state)
{
        static const char *const denied[] = {
                "socket(AF_INET, SOCK_STREAM)", "(connect)", "socket(AF_INET, SOCK_DGRAM)",
                "socket(AF_INET6, SOCK_STREAM)", "socket(AF_INET6, SOCK_DGRAM)",
                "socket(AF_NETLINK)", "socket(AF_PACKET)", "socket(AF_VSOCK)",
                "socket(bit 32 | AF_INET)", "socketpair(AF_INET) (the kernel alone says EOPNOTSUPP)",
        };
        struct listener l;
        struct job j = { 0 };
        struct report rep;
        size_t i;
        (void) state;

        listener_open(&l);
        j.opts = SBX__SC_DENY_INET;
        j.probe = probe_deny_inet;
        j.inspect = inspect_no_connection;
        j.arg = &l;
        run_ok(&j, &rep);
        for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
                if (i == 1) {
                        assert_int_equal(rep.r[1].ret, -1);     /* no connect was attempted */
                        continue;
                }
                want_errno(&rep, (int) i, EPERM, denied[i]);
        }
        want_ok(&rep, 10, "socket(AF_UNIX)");
        want_ok(&rep, 11, "socketpair(AF_UNIX)");

        /* control: the filter without DENY_INET lets the same connect through */
        memset(&j, 0, sizeof(j));
        j.probe = probe_connect;
        j.inspect = inspect_connection;
        j.arg = &l;
        run_ok(&j, &rep);
        want_ok(&rep, 0, "control: socket(AF_INET)");
        want_ok(&rep, 1, "control: connect to the loopback listener");
        close(l.fd);
}

static void probe_deny_unix(struct report *rep, void *arg)
{
        int sv[2];

        (void) arg;
        REC(rep, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        REC(rep, syscall(SYS_socket, HIGH_BIT | AF_UNIX, SOCK_STREAM, 0));
        REC(rep, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
        REC(rep, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
        REC(rep, socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        REC(rep, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv));
        REC(rep, socketpair(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0, sv));
        REC(rep, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv));
        REC(rep, socket(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0));
        REC(rep, socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
}

static void test_seccomp__deny_unix_path_refuses_socket_keeps_stream_pairs(void **state)
{
        struct job j = { 0 };
        struct report rep;
        (void) state;

        j.opts = SBX__SC_DENY_UNIX_PATH;
        j.probe = probe_deny_unix;
        run_ok(&j, &rep);
        want_errno(&rep, 0, EPERM, "socket(AF_UNIX, SOCK_STREAM)");
        want_errno(&rep, 1, EPERM, "socket(AF_UNIX, SOCK_DGRAM)");
        want_errno(&rep, 2, EPERM, "socket(bit 32 | AF_UNIX)");
        want_ok(&rep, 3, "socketpair(AF_UNIX, SOCK_STREAM)");
        /* a datagram pair can sendto/connect any socket file */
        want_errno(&rep, 4, EPERM, "socketpair(AF_UNIX, SOCK_DGRAM)");
        want_ok(&rep, 5, "socket(AF_INET) without DENY_INET");
        want_ok(&rep, 6, "socketpair(AF_UNIX, SOCK_SEQPACKET)");
        want_errno(&rep, 7, EPERM, "socketpair(AF_UNIX, SOCK_RAW), a datagram pair");
        want_errno(&rep, 8, EPERM, "socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK)");

        /* UNIX_STREAM instead: stream and seqpacket sockets, no datagram */
        j.opts = SBX__SC_UNIX_STREAM;
        run_ok(&j, &rep);
        want_ok(&rep, 0, "socket(AF_UNIX, SOCK_STREAM) with UNIX_STREAM");
        want_errno(&rep, 1, EPERM, "socket(AF_UNIX, SOCK_DGRAM) with UNIX_STREAM");
        want_ok(&rep, 3, "socketpair(AF_UNIX, SOCK_STREAM) with UNIX_STREAM");
        want_errno(&rep, 4, EPERM, "socketpair(AF_UNIX, SOCK_DGRAM) with UNIX_STREAM");
        want_ok(&rep, 6, "socketpair(AF_UNIX, SOCK_SEQPACKET) with UNIX_STREAM");
        want_errno(&rep, 7, EPERM, "socketpair(AF_UNIX, SOCK_RAW) with UNIX_STREAM");
        want_errno(&rep, 9, EPERM, "socket(AF_UNIX, SOCK_RAW) with UNIX_STREAM");
        want_ok(&rep, 10, "socket(AF_UNIX, SOCK_SEQPACKET) with UNIX_STREAM");

        /* both options: no socket at all, socketpair(AF_UNIX) still works */
        j.opts = SBX__SC_DENY_UNIX_PATH | SBX__SC_DENY_INET;
        run_ok(&j, &rep);
        want_errno(&rep, 0, EPERM, "socket(AF_UNIX) with both options");
        want_errno(&rep, 2, EPERM, "socket(bit 32 | AF_UNIX) with both options");
        want_ok(&rep, 3, "socketpair(AF_UNIX) with both options");
        want_errno(&rep, 5, EPERM, "socket(AF_INET) with both options");
}

/* --------------------------------------------------------------- mknod */

struct node_arg {
        char dir[64];
        char path[8][96];
};

enum { N_CHR, N_WHITEOUT, N_BLK, N_HI16, N_HI32, N_FIFO, N_SOCK, N_REG };

static void probe_mknod(struct report *rep, void *arg)
{
        const struct node_arg *a = arg;

        REC(rep, mknod(a->path[N_CHR], S_IFCHR | 0600, makedev(1, 3)));
        REC(rep, mknod(a->path[N_WHITEOUT], S_IFCHR | 0600, 0));
        REC(rep, mknodat(AT_FDCWD, a->path[N_BLK], S_IFBLK | 0600, makedev(7, 0)));
        /* umode_t is 16 bits: bit 16 is dropped by the kernel, still a char device */
        REC(rep, syscall(SYS_mknodat, AT_FDCWD, a->path[N_HI16], 0x10000ul | S_IFCHR | 0600, 0));
        REC(rep, syscall(SYS_mknodat, AT_FDCWD, a->path[N_HI32], HIGH_BIT | S_IFCHR | 0600, 0));
        REC(rep, mknod(a->path[N_FIFO], S_IFIFO | 0600, 0));
        REC(rep, mknodat(AT_FDCWD, a->path[N_SOCK], S_IFSOCK | 0600, 0));
        REC(rep, mknod(a->path[N_REG], S_IFREG | 0600, 0));
#ifdef SYS_mknod
        REC(rep, syscall(SYS_mknod, a->path[N_HI32], HIGH_BIT | S_IFBLK | 0600, 0));
#else
        rec(rep, -1, EPERM);
#endif
}

static mode_t node_type(const char *path)
{
        struct stat st;

        if (lstat(path, &st) != 0)
                return 0;
        return st.st_mode & S_IFMT;
}

static void inspect_nodes(pid_t pid, const struct report *rep, void *arg)
{
        const struct node_arg *a = arg;
        int i;

        (void) pid;
        (void) rep;
        for (i = N_CHR; i <= N_HI32; i++)
                if (node_type(a->path[i]) != 0)
                        fail_msg("%s exists after a refused mknod", a->path[i]);
        assert_int_equal(node_type(a->path[N_FIFO]), S_IFIFO);
        assert_int_equal(node_type(a->path[N_SOCK]), S_IFSOCK);
        assert_int_equal(node_type(a->path[N_REG]), S_IFREG);
}

static void probe_mknod_control(struct report *rep, void *arg)
{
        const struct node_arg *a = arg;

        /* a whiteout (char 0:0) needs no privilege since Linux 5.8 */
        REC(rep, mknod(a->path[N_WHITEOUT], S_IFCHR | 0600, 0));
        if (geteuid() == 0)
                REC(rep, mknod(a->path[N_CHR], S_IFCHR | 0600, makedev(1, 3)));
}

static void nodes_clean(const struct node_arg *a)
{
        int i;

        for (i = 0; i < 8; i++)
                (void) unlink(a->path[i]);
}

static void test_seccomp__mknod_devices_refused_fifo_allowed(void **state)
{
        static const char *const names[] = { "chr", "wh", "blk", "hi16", "hi32", "fifo", "sock", "reg" };
        struct node_arg a;
        struct job j = { 0 };
        struct report rep;
        int i;
        (void) state;

        memset(&a, 0, sizeof(a));
        strcpy(a.dir, "/tmp/sbx-sc-node-XXXXXX");
        assert_non_null(mkdtemp(a.dir));
        for (i = 0; i < 8; i++)
                snprintf(a.path[i], sizeof(a.path[i]), "%s/%s", a.dir, names[i]);
        j.probe = probe_mknod;
        j.inspect = inspect_nodes;
        j.arg = &a;
        run_ok(&j, &rep);
        want_errno(&rep, 0, EPERM, "mknod(S_IFCHR 1:3)");
        want_errno(&rep, 1, EPERM, "mknod(S_IFCHR 0:0, a whiteout)");
        want_errno(&rep, 2, EPERM, "mknodat(S_IFBLK)");
        want_errno(&rep, 3, EPERM, "mknodat(S_IFCHR with bit 16)");
        want_errno(&rep, 4, EPERM, "mknodat(S_IFCHR with bit 32)");
        want_ok(&rep, 5, "mknod(S_IFIFO)");
        want_ok(&rep, 6, "mknodat(S_IFSOCK)");
        want_ok(&rep, 7, "mknod(S_IFREG)");
        want_errno(&rep, 8, EPERM, "mknod(S_IFBLK with bit 32)");
        nodes_clean(&a);

        /* control: without the filter a whiteout is created (root: a real
         * char device too), so "absent" above was the filter's doing */
        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_mknod_control;
        j.arg = &a;
        run_ok(&j, &rep);
        if (rep.r[0].ret == 0)
                assert_int_equal(node_type(a.path[N_WHITEOUT]), S_IFCHR);
        else
                not_covered("control: this kernel/filesystem refuses whiteout creation without "
                            "the filter, so the unprivileged mknod check is not discriminating");
        if (geteuid() == 0) {
                want_ok(&rep, 1, "control as root: mknod(S_IFCHR 1:3)");
                assert_int_equal(node_type(a.path[N_CHR]), S_IFCHR);
        }
        nodes_clean(&a);
        assert_int_equal(rmdir(a.dir), 0);
}

/* ----------------------------------------------- kernel attack surface */

/* Each call is harmless even if the filter were missing: bad arguments,
 * read-only modes or the caller's own process. */
static long surface_call(int i)
{
        static long word = 1, copy;
        struct iovec l = { &copy, sizeof(copy) }, r = { &word, sizeof(word) };
        struct timex tx;
        struct { unsigned int bytes; int type; } fh = { 0, 0 };
        int mnt;

        memset(&tx, 0, sizeof(tx));
        switch (i) {
        case 0: return syscall(SYS_bpf, 0x7fff, NULL, 0);
        case 1: return syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -1 /* thread */, 0);
        case 2: return syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
        case 3: return syscall(SYS_request_key, NULL, NULL, NULL, 0);
        case 4: return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
        case 5: return syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */ | O_CLOEXEC);
        case 6: return syscall(SYS_io_uring_setup, 0, NULL);
        case 7: return syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
        case 8: return syscall(SYS_io_uring_register, -1, 0, NULL, 0);
        case 9: return syscall(SYS_kexec_load, 0, 0, NULL, 0x7fff0000ul);
#ifdef SYS_kexec_file_load
        case 10: return syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0x7fff0000ul);
#else
        case 10: errno = EPERM; return -1;
#endif
        case 11: return syscall(SYS_init_module, NULL, 0, "");
        case 12: return syscall(SYS_finit_module, -1, "", 0);
        case 13: return syscall(SYS_delete_module, "sbx_no_such_module", O_NONBLOCK);
        case 14: return syscall(SYS_acct, "/nonexistent/sbx");
        case 15: return syscall(SYS_swapon, "/nonexistent/sbx", 0);
        case 16: return syscall(SYS_swapoff, "/nonexistent/sbx");
        case 17: return syscall(SYS_reboot, 0, 0, 0, NULL);            /* bad magic */
        case 18: return syscall(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0);
        case 19: return syscall(SYS_quotactl, 0, NULL, 0, NULL);
        case 20: return syscall(SYS_quotactl_fd, -1, 0, 0, NULL);
#ifdef SYS_lookup_dcookie
        case 21: return syscall(SYS_lookup_dcookie, 0, NULL, 0);
#else
        case 21: errno = EPERM; return -1;
#endif
        case 22: return syscall(SYS_open_by_handle_at, -1, NULL, 0);
        case 23: return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &fh, &mnt, 0);
#if defined(__x86_64__) || defined(__i386__)
        case 24: return syscall(SYS_iopl, 0);
        case 25: return syscall(SYS_ioperm, 0, 0, 0);
#else
        case 24: case 25: errno = EPERM; return -1;
#endif
        case 26: return syscall(SYS_settimeofday, NULL, NULL);
        case 27: return syscall(SYS_clock_settime, CLOCK_REALTIME, NULL);
        case 28: return syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
        case 29: return syscall(SYS_adjtimex, &tx);
        case 30: return syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0);
        case 31: return syscall(SYS_process_vm_readv, getpid(), &l, 1, &r, 1, 0);
        case 32: return syscall(SYS_process_vm_writev, getpid(), &r, 1, &l, 1, 0);
        case 33: return syscall(SYS_process_madvise, -1, NULL, 0, MADV_COLD, 0);
        case 34: return syscall(SYS_pidfd_getfd, -1, 0, 0);
        case 35: return syscall(SYS_setns, -1, 0);
        case 36: return syscall(SYS_pivot_root, "/nonexistent/sbx", "/nonexistent/sbx");
        case 37: return syscall(SYS_ptrace, PTRACE_TRACEME, 0, NULL, NULL);
        default: errno = EINVAL; return -1;
        }
}

static const char *const g_surface[] = {
        "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "userfaultfd",
        "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
        "init_module", "finit_module", "delete_module", "acct", "swapon", "swapoff", "reboot",
        "syslog", "quotactl", "quotactl_fd", "lookup_dcookie", "open_by_handle_at",
        "name_to_handle_at", "iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime",
        "adjtimex", "kcmp", "process_vm_readv", "process_vm_writev", "process_madvise",
        "pidfd_getfd", "setns", "pivot_root", "ptrace",
};
#define N_SURFACE ((int) (sizeof(g_surface) / sizeof(g_surface[0])))

/* Calls whose answer without the filter is not EPERM on any kernel that
 * has them (bad fd, bad pointer, own process, read-only mode). */
static const char *const g_discriminating[] = {
        "keyctl", "perf_event_open", "io_uring_enter", "io_uring_register", "clock_settime",
        "name_to_handle_at", "kcmp", "process_vm_readv", "process_vm_writev", "process_madvise",
        "pidfd_getfd", "setns", "add_key", "request_key",
};

static void probe_surface(struct report *rep, void *arg)
{
        int control = arg != NULL;
        int i;

        for (i = 0; i < N_SURFACE; i++) {
                if (control && strcmp(g_surface[i], "ptrace") == 0)
                        rec(rep, -1, EPERM);    /* TRACEME would make the test its tracer */
                else
                        REC(rep, surface_call(i));
        }
}

static void test_seccomp__kernel_attack_surface_refused(void **state)
{
        struct job j = { 0 };
        struct report rep;
        size_t k;
        int i;
        (void) state;

        assert_true(N_SURFACE <= MAX_RES);
        j.probe = probe_surface;
        run_ok(&j, &rep);
        for (i = 0; i < N_SURFACE; i++)
                want_errno(&rep, i, EPERM, g_surface[i]);

        /* control: the kernel alone gives these a different answer */
        if (status_field(getpid(), "Seccomp") != 0) {
                not_covered("this test already runs under a seccomp filter (a container?), so "
                            "the kernel's own answers cannot be observed");
                return;
        }
        memset(&j, 0, sizeof(j));
        j.control = 1;
        j.probe = probe_surface;
        j.arg = &j;
        run_ok(&j, &rep);
        for (k = 0; k < sizeof(g_discriminating) / sizeof(g_discriminating[0]); k++) {
                for (i = 0; i < N_SURFACE; i++)
                        if (strcmp(g_surface[i], g_discriminating[k]) == 0)
                                break;
                assert_true(i < N_SURFACE);
                if (rep.r[i].ret == -1 && rep.r[i].err == EPERM)
                        fail_msg("control: %s says EPERM without the filter too", g_surface[i]);
        }
}

/* --------------------------------------------------- ordinary programs */

static void probe_exec(struct report *rep, void *arg)
{
        const char *script = arg;
        char *argv_sh[] = { (char *) "sh", (char *) "-c", (char *) script, NULL };
        char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
        char *argv_true[] = { (char *) "true", NULL };
        pid_t p = -1;
        int st = -1, r;

        /* posix_spawn: glibc tries clone3 first and must fall back */
        r = posix_spawn(&p, "/bin/true", NULL, NULL, argv_true, envp);
        if (r == 0)
                while (waitpid(p, &st, 0) < 0 && errno == EINTR)
                        ;
        if (r != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                rec(rep, -1, r != 0 ? r : ECHILD);
                return;
        }
        execve("/bin/sh", argv_sh, envp);
        rec(rep, -1, errno);
}

static void test_seccomp__plain_programs_still_run(void **state)
{
        static const char *const scripts[] = {
                "/bin/true",
                "x=$(echo ok | cat) && test \"$x\" = ok && ( true ) && ls / >/dev/null",
        };
        struct job j = { 0 };
        struct report rep;
        int status, got;
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
                memset(&j, 0, sizeof(j));
                j.opts = SBX__SC_DENY_INET | SBX__SC_DENY_UNIX_PATH;
                j.probe = probe_exec;
                j.arg = (void *) scripts[i];
                got = 0;
                status = run_job(&j, &rep, &got);
                if (got)
                        fail_msg("\"%s\": spawn/exec failed under the filter: %s", scripts[i],
                                 strerror(rep.r[0].err));
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        fail_msg("\"%s\" under the filter: status 0x%x", scripts[i],
                                 (unsigned) status);
        }
}

/* ------------------------------------------------------- load semantics */

static void test_seccomp__load_needs_no_new_privs_unless_privileged(void **state)
{
        struct sbx__bpf b = { NULL, 0 };
        int fds[2], r = 0, status;
        ssize_t n;
        pid_t pid;
        (void) state;

        build(0, &b);
        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                r = sbx__seccomp_load_child(&b);
                write_all(fds[1], &r, sizeof(r));
                _exit(0);
        }
        close(fds[1]);
        n = read_full(fds[0], &r, sizeof(r), TIMEOUT_MS);
        close(fds[0]);
        status = wait_bounded(pid);
        sbx__seccomp_free(&b);
        assert_int_equal(n, (ssize_t) sizeof(r));
        assert_true(WIFEXITED(status));
        if (geteuid() != 0)
                assert_int_equal(r, -EACCES);
        else
                assert_true(r == 0 || r == -EACCES);    /* CAP_SYS_ADMIN may load without it */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_seccomp__build_rejects_bad_arguments),
                cmocka_unit_test(test_seccomp__every_option_combination_builds),
                cmocka_unit_test(test_seccomp__embedded_programs_equal_compiled_ones),
                cmocka_unit_test(test_seccomp__notify_table_equals_compiled),
                cmocka_unit_test(test_seccomp__filter_allows_only_the_native_abi),
                cmocka_unit_test(test_seccomp__allow_runs_equal_libseccomp),
                cmocka_unit_test(test_seccomp__personality_allow_list_is_exact),
                cmocka_unit_test(test_seccomp__unshare_refused_and_namespaces_unchanged),
                cmocka_unit_test(test_seccomp__mount_refused_and_not_visible),
                cmocka_unit_test(test_seccomp__ptrace_refused_and_sibling_untraced),
                cmocka_unit_test(test_seccomp__tiocsti_refused_nothing_injected),
#if HAVE_X86_64
                cmocka_unit_test(test_seccomp__foreign_abis_refused_whole),
                cmocka_unit_test(test_seccomp__x86_64_cross_table_numbers_enosys),
#endif
                cmocka_unit_test(test_seccomp__clone_new_namespaces_refused_fork_works),
                cmocka_unit_test(test_seccomp__personality_only_linux_and_query),
                cmocka_unit_test(test_seccomp__packet_and_raw_sockets_refused),
                cmocka_unit_test(test_seccomp__deny_inet_refuses_tcp_udp_and_other_families),
                cmocka_unit_test(test_seccomp__deny_unix_path_refuses_socket_keeps_stream_pairs),
                cmocka_unit_test(test_seccomp__mknod_devices_refused_fifo_allowed),
                cmocka_unit_test(test_seccomp__kernel_attack_surface_refused),
                cmocka_unit_test(test_seccomp__plain_programs_still_run),
                cmocka_unit_test(test_seccomp__load_needs_no_new_privs_unless_privileged),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
