/*
 * spawn_util.h - the harness shared by the enforcement and conformance
 * tests: declarations here, definitions in spawn_util.c, built once as the
 * sbx_testutil library (tests/CMakeLists.txt) and linked into each.
 *
 * Each test builds a fixture, runs sbx-probe (or /bin/sh) confined by
 * sbx_spawn under every {backend, mode} pair it applies to, and checks
 * the effect from the HOST side: a file that must not exist does not, a
 * victim's content, mode, owner, times and xattrs are byte-for-byte what
 * they were, a listener saw no connection, a sibling is alive and not
 * traced.  A check that fails does not stop the test: every failure is
 * printed with its rung and mode ("[  LEAK  ] native/read-only: ...") and
 * the test fails at the end, so one run shows every leak at once.
 *
 * The fixture:
 *
 *   base   = realpath(mkdtemp("/tmp/sbx-spawn-XXXXXX"))
 *     ws/          the workspace root (the only writable root)
 *     tmp/         TMPDIR of the test process in the leave-nothing tests
 *   vbase  = realpath(mkdtemp("/var/tmp/sbx-spawn-XXXXXX"))
 *     outside/     victims; not a writable root
 *     home/        the fixture "caller home" (HOME=), holding secret
 *     bin/sbx-probe a copy of $SBX_PROBE
 *
 * Why two bases: rung 1 replaces /tmp with a private tmpfs, so a victim
 * under /tmp would simply be invisible there and a refused write would
 * prove little.  /var/tmp stays visible (read-only) in rung 1, so the
 * victims, the caller home and the probe binary are really reachable by
 * path and the refusal is the sandbox's doing.  The build tree may be
 * under /tmp, which is why the probe is copied.
 *
 * Everything the tests start is waited for with a bound (WAIT_MS); no
 * assertion depends on wall-clock time.  Nothing waits a fixed time for
 * "nothing happened": once the confined command was reaped, whatever it
 * did is already visible (a connect, a datagram, a TIOCSTI are complete
 * when the syscall returns), so the tests look without waiting, and the
 * wait for the command itself wakes on its exit (a pidfd), not on a timer.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_TEST_SPAWN_UTIL_H
#define SBX_TEST_SPAWN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <sandbox.h>

#define SU static __attribute__((unused))

#define WAIT_MS         30000   /* upper bound for any confined command */
#define ORIGINAL        "original\n"
#define SECRET          "secret-token"

/* ------------------------------------------------------------ the table */

struct combo {
        int32_t backend;
        int32_t mode;
};

static const struct combo COMBOS[] = {
        { SBX_BACKEND_NATIVE,   SBX_MODE_READ_ONLY },
        { SBX_BACKEND_NATIVE,   SBX_MODE_WORKSPACE_WRITE },
        { SBX_BACKEND_LANDLOCK, SBX_MODE_READ_ONLY },
        { SBX_BACKEND_LANDLOCK, SBX_MODE_WORKSPACE_WRITE },
};
#define N_COMBOS (sizeof(COMBOS) / sizeof(COMBOS[0]))

static const int32_t BACKENDS[] = { SBX_BACKEND_NATIVE, SBX_BACKEND_LANDLOCK };
#define N_BACKENDS (sizeof(BACKENDS) / sizeof(BACKENDS[0]))

/* --------------------------------------------------------------- fixture */

#define MAX_PIDS 8
#define MAX_FDS  16

struct fx {
        char  base[PATH_MAX];
        char  vbase[PATH_MAX];
        char  ws[PATH_MAX];
        char  tmp[PATH_MAX];
        char  outside[PATH_MAX];
        char  home[PATH_MAX];
        char  probe[PATH_MAX];
        char  env_home[PATH_MAX + 8];
        const char *envp[8];
        char  label[64];        /* "native/read-only" while a combo runs */
        int   failures;
        pid_t pids[MAX_PIDS];   /* killed and reaped by teardown */
        int   fds[MAX_FDS];     /* closed by teardown */
        char  old_tmpdir[PATH_MAX];
        int   had_tmpdir, set_tmpdir;
};

int require_all(void);

/* Something this machine cannot show: a note, or a failure under
 * SBX_REQUIRE_ALL=1. */
void cannot_test(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Record a failed check and go on. */
void check_failed(struct fx *f, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

#define CHECK(f, cond, ...) \
        do { if (!(cond)) check_failed((f), __FILE__, __LINE__, __VA_ARGS__); } while (0)

/* End of a test: fail if any check failed. */
void fx_done(struct fx *f);

void set_label(struct fx *f, int32_t backend, int32_t mode, const char *extra);

void join(char *out, const char *a, const char *b);

/* a + "/" + b, valid until teardown: P(f->ws, "file"). */
const char *P(const char *a, const char *b);

void paths_free(void);

int write_file(const char *path, const char *text, mode_t mode);

ssize_t read_file(const char *path, char *buf, size_t size);

int exists(const char *path);

/* Remove a tree without following symlinks; directories the sandbox (or a
 * leak) made unwritable are chmod'ed back first. */
void rm_tree_at(int dfd, const char *name);

void rm_tree(const char *path);

/* Empty a directory (keep it). */
void empty_dir(const char *path);

int copy_file(const char *from, const char *to, mode_t mode);

/* The standard victims, recreated for every combo. */
void fx_populate(struct fx *f);

int fx_setup(void **state);

void fx_track_pid(struct fx *f, pid_t pid);

void fx_track_fd(struct fx *f, int fd);

void fx_close_fd(struct fx *f, int fd);

/* TMPDIR of this process (the rung-2 scratch parent) while a test runs. */
void fx_set_tmpdir(struct fx *f, const char *dir);

int fx_teardown(void **state);

/* ------------------------------------------------------------- profiles */

sbx_profile *make_profile(const struct fx *f, int32_t mode, int network_allow);

/* make_profile's profile with edit(cfg, arg) applied to its config. */
sbx_profile *profile_edit(const struct fx *f, int32_t mode, int network_allow,
                          void (*edit)(sbx_profile_config *, const void *), const void *arg);

/* The number of open fds of this process. */
int fx_count_fds(void);

/* ------------------------------------------------------------------ run */

struct ro {
        uint64_t     memory_max;
        uint64_t     pids_max;
        const char  *cwd;
        const int   *keep;      /* after the capture pipe, if any */
        size_t       n_keep;
        int          capture;   /* 1: a pipe is fd 3; its output lands in res->out */
        int          may_fail;  /* 1: a refused spawn is a result, not a test failure */
        const char *const *envp;/* NULL: the fixture's */
};

struct res {
        int       spawned;      /* 1 if sbx_spawn succeeded */
        int       status;       /* wait status (-1 if not spawned) */
        sbx_code  code;         /* sbx_spawn's return */
        sbx_error err;
        sbx_guarantee_report rep;
        char      out[16384];   /* captured fd-3 output */
        size_t    outlen;
};

long now_ms(void);

/* The exit code (errno of the probe) or 128 + signal. */
int ecode(int status);

const char *describe_status(int status);

/* A pidfd for pid (readable once it exited), or -1 (a kernel before 5.3). */
int pidfd_for(pid_t pid);

/*
 * Spawn argv confined by `profile` with backend, wait (bounded) and fill
 * res.  Unless o->may_fail, a refused spawn fails the test with the
 * sbx_error message.  Every successful spawn's report must say FULL with
 * achieved covering required.
 */
void run_profile(struct fx *f, int32_t backend, const sbx_profile *profile,
                 const char *const *argv, const struct ro *o, struct res *res);

void run_mode(struct fx *f, int32_t backend, int32_t mode, const char *const *argv,
              const struct ro *o, struct res *res);

/* The probe's wait status under profile: probe_profile(f, b, p, "unix", path, NULL, NULL). */
int probe_profile(struct fx *f, int32_t backend, const sbx_profile *profile, const char *a1,
                  const char *a2, const char *a3, const char *a4);

/* A nonblocking unix socket of type (SOCK_STREAM: listening with backlog)
 * bound to the file name (replacing one there, mode 0777) or the abstract
 * name, tracked by the fixture. */
int fx_unix_socket(struct fx *f, int type, const char *name, int abstract, int backlog);

/* A nonblocking TCP listener on 127.0.0.1, tracked by the fixture; its
 * port in decimal into port. */
int fx_tcp_listener(struct fx *f, char *port, size_t size);

/* The probe's exit status under {backend, mode}: PROBE(f, b, m, "write", path). */
int probe_status(struct fx *f, int32_t backend, int32_t mode, const char *a1,
                 const char *a2, const char *a3, const char *a4);

#define PROBE_N(f, b, m, a1, a2, a3, a4, ...) probe_status((f), (b), (m), (a1), (a2), (a3), (a4))
#define PROBE(f, b, m, ...) PROBE_N(f, b, m, __VA_ARGS__, NULL, NULL, NULL, NULL)

/* The backends that run on this machine; decided once per process. */
int backend_usable(struct fx *f, int32_t backend);

/* ------------------------------------------------------ host-side state */

/* A line-per-entry description of a tree: type+mode, owner, size, times,
 * inode, link count, xattrs and a hash of the content.  Two snapshots
 * differ iff anything observable in the tree changed (atime aside). */
void snap_entry(char **buf, size_t *len, size_t *cap, const char *rel, int dfd,
                const char *name, int depth);

/* malloc'd snapshot of the tree at path ("" for a missing path). */
char *snap_tree(const char *path);

/* The first line where two snapshots differ, for the message. */
void snap_diff(const char *a, const char *b, char *out, size_t size);

/* st_mode of path, or 0 if it does not exist. */
mode_t mode_of(const char *path);

/* The output of a captured run, as a set of lines: 1 if `line` is one. */
int has_line(const char *out, const char *line);

#endif /* SBX_TEST_SPAWN_UTIL_H */
