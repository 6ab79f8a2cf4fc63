/*
 * linux_internal.h - the Linux enforcement building blocks shared by the
 * rung-1 (namespaces) and rung-2 (Landlock-only) backends.  Not installed.
 *
 * Every *_prepare / *_build function runs in the parent and may allocate;
 * every *_child function is async-signal-safe (no malloc, stdio or locks)
 * and is called between fork/clone and execve.  *_child functions return 0
 * or a negative errno and never exit.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_INTERNAL_H
#define SBX_LINUX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

/* Filesystem access bits of a rule: SBX__FS_READ / WRITE / EXEC from the plan. */

/* ------------------------------------------------------------ landlock.c */

struct sbx__ll_rule {
        const char *path;       /* canonical absolute path */
        uint32_t    access;     /* SBX__FS_* */
        int         tree;       /* 1 = the whole tree below path, 0 = exact file */
        int         nofollow;   /* 1 = a symbolic link in any component fails the
                                 * rule with ELOOP (a configured root or a grant:
                                 * canonical when the plan was made) */
};

/* Options for sbx__landlock_prepare. */
#define SBX__LL_NET_DENY        (1u << 0)  /* handle TCP bind/connect with no port allowed */
#define SBX__LL_SCOPE_ABSTRACT  (1u << 1)  /* no abstract unix sockets outside the domain */
#define SBX__LL_SCOPE_SIGNAL    (1u << 2)  /* no signals to processes outside the domain */
#define SBX__LL_SKIP_MISSING    (1u << 3)  /* a rule path that does not exist is skipped */

/* The running kernel's Landlock ABI (cached, thread-safe); 0 = none. */
int sbx__landlock_abi(void);

/*
 * Build a ruleset fd (O_CLOEXEC) in the parent that allows exactly `rules`
 * and handles every filesystem right the running ABI knows.  *missing_out
 * gets the SBX_G_* guarantees the options asked for but the ABI cannot give
 * (e.g. NET_DENY on ABI < 4 -> SBX_G_NETWORK_DENY): the caller decides
 * whether that is partial enforcement or an error.  A rule path that cannot
 * be opened is an error naming it, unless SKIP_MISSING and it is ENOENT
 * (or ENOTDIR: a component is a file, so the path cannot exist either).
 * Errors: SBX_E_SANDBOX_UNAVAILABLE (no Landlock), SBX_E_IO, SBX_E_INVALID,
 * SBX_E_INTERNAL (the kernel refused a ruleset or rule; errno kept).
 * Outputs are written only on success; every fd opened is closed.
 *
 * Rule paths must be lexically canonical (checked) and already resolved
 * (symlinks are followed when the path is opened).  Two rules on one path
 * must be identical.  Mapping (landlock.c has the details):
 *   READ -> read files + list directories, EXEC -> execute,
 *   WRITE -> write/truncate files, create/remove/rename entries (regular
 *   files, directories, fifos, sockets, symlinks; never device nodes),
 *   REFER (renames/links) only between writable trees, device ioctls only
 *   on a rule naming a character device with WRITE (e.g. /dev/null).
 * A rule on a non-directory gets file rights only; an exact (tree = 0)
 * rule on a directory grants nothing (Landlock cannot grant a directory
 * without its tree).
 *
 * *missing_out:
 *   ABI < 5 (no TRUNCATE before 3, no IOCTL_DEV before 5) -> WRITE_BOUNDARY;
 *   NET_DENY on ABI < 4 -> NETWORK_DENY; SCOPE_ABSTRACT on ABI < 6 ->
 *   NETWORK_DENY; SCOPE_SIGNAL on ABI < 6 -> PROCESS_ISOLATION;
 *   a rule nested below a tree rule that grants more (Landlock rights are a
 *   union along the path, so e.g. a read-only .git/hooks inside a writable
 *   workspace or an access-0 carve-out cannot be enforced; lexical, so a
 *   nested rule skipped as missing counts too) -> READ_BOUNDARY |
 *   HOME_ISOLATION when it meant to take read away, WRITE_BOUNDARY |
 *   PROTECTED_PATHS when it meant to take write away.  A backend whose
 *   mounts do the narrowing (rung 1) may ignore these filesystem bits.
 *
 * What Landlock does not stop, whatever the ABI (cover it elsewhere):
 *   chmod/chown/utimes/setxattr/stat/access/chdir/flock/fcntl on any path;
 *   reads, writes and ioctls through fds opened before the domain;
 *   a hardlink to an outside file that already exists in a writable tree;
 *   connect(2) to pathname unix sockets; UDP, raw, SCTP, MPTCP and every
 *   non-TCP protocol; TCP Fast Open (sendto with MSG_FASTOPEN connects
 *   without the connect hook).  So NET_DENY is never SBX_G_NETWORK_DENY on
 *   its own: pair it with a network namespace or seccomp's SBX__SC_DENY_INET.
 */
sbx_code sbx__landlock_prepare(const struct sbx__ll_rule *rules, size_t n, uint32_t opts,
                               int *ruleset_fd_out, uint32_t *missing_out, sbx_error *err);

/* In the child: no_new_privs + landlock_restrict_self(fd).  0 or -errno.
 * Restricts the calling thread and its future children; the fd stays open
 * (it is O_CLOEXEC).  Async-signal-safe. */
int sbx__landlock_enforce_child(int ruleset_fd);

/* A ruleset fd (O_CLOEXEC) that handles nothing but scopes signals: a
 * process that enforces it cannot signal processes outside its new, nested
 * domain (the rung-2 command and its monitor).  -EOPNOTSUPP below ABI 6. */
int sbx__landlock_scope_signal_fd(void);

/* In the child, before enforcing: allow `access` (SBX__FS_*) below the
 * directory `path` (e.g. a tmpfs the child just mounted), using the same
 * rights mapping as sbx__landlock_prepare.  Async-signal-safe.  0 or -errno. */
int sbx__landlock_add_child(int ruleset_fd, const char *path, uint32_t access);

/* ------------------------------------------------------------- seccomp.c */

/* Options for sbx__seccomp_build. */
#define SBX__SC_DENY_INET       (1u << 0)  /* refuse AF_INET/AF_INET6 sockets */
#define SBX__SC_DENY_UNIX_PATH  (1u << 1)  /* refuse socket(AF_UNIX), datagram socketpair */
#define SBX__SC_DENY_METADATA   (1u << 2)  /* refuse inode-flag ioctls (rung 2) */
/* socket(AF_UNIX) only of type stream or seqpacket, whose connect the
 * supervisor mediates (--allow-unix; without DENY_UNIX_PATH). */
#define SBX__SC_UNIX_STREAM     (1u << 3)
/* With DENY_INET: socket(AF_INET / AF_INET6) is not refused here but by
 * the supervisor's filter (SBX__NF_INET), which answers EPERM and lets the
 * observer record it.  Only with that filter loaded (ladder.c). */
#define SBX__SC_INET_NOTIFY     (1u << 4)
/* The command shares the host's pid and IPC namespaces (rung 2): calls that
 * name a process act only on the caller; System V IPC and POSIX message
 * queues are refused. */
#define SBX__SC_HOST_NS         (1u << 5)

struct sbx__bpf {
        void  *filter;          /* struct sock_filter[] */
        size_t len;             /* number of instructions */
};

/* The system-call allow-list for the parent to hand to the child (the
 * native ABI only, kill on any other): a copy of the build-time program
 * (seccomp-table.h, seccomp_embed.c); no libseccomp call, nothing cached.
 * Errors: SBX_E_INVALID, SBX_E_NOMEM. */
sbx_code sbx__seccomp_build(uint32_t opts, struct sbx__bpf *out, sbx_error *err);
/* libseccomp's compilation (the generator's and the tests'; never on a
 * spawn). */
sbx_code sbx__seccomp_compile(uint32_t opts, struct sbx__bpf *out, sbx_error *err);
/* test_seccomp: the allow-list stage compiled by libseccomp, a reference. */
sbx_code sbx__seccomp_compile_allow_reference(uint32_t opts, struct sbx__bpf *out, sbx_error *err);
/* test_seccomp: the allow-list stage alone (before the argument stage). */
sbx_code sbx__seccomp_allow_stage(uint32_t opts, struct sbx__bpf *out, sbx_error *err);
/* bench/seccomp: the deny-list-shaped baseline (default allow). */
sbx_code sbx__seccomp_compile_denylist(uint32_t opts, struct sbx__bpf *out, sbx_error *err);
void sbx__seccomp_free(struct sbx__bpf *bpf);
/* The libseccomp token of the one ABI the program allows (seccomp_lists.c). */
size_t sbx__seccomp_n_arches(void);
uint32_t sbx__seccomp_arch_token(size_t i);
/* The seccomp_data.arch value of that ABI. */
uint32_t sbx__seccomp_arch_audit(void);
#ifdef SBX_SC_GENERATOR
/* tools/seccomp-gen: write the table to path (atomically). */
sbx_code sbx__seccomp_gen_write(const char *path, sbx_error *err);
#endif
/* In the child (no_new_privs must already be set): load it.  0 or -errno. */
int sbx__seccomp_load_child(const struct sbx__bpf *bpf);

/* -------------------------------------------------------------- cgroup.c */

/* Write text to an existing file in one write(2) (EINTR retried).
 * Async-signal-safe (the child writes its id maps with it).  0 or -errno. */
int sbx__write_text(const char *path, const char *text);

/* sweep.c: call remove(<base>/<entry>) for every entry "<prefix><pid>-..."
 * of base whose pid is gone (not ours); once per (base, prefix) per
 * process.  For what a kill -9'd host left behind. */
void sbx__sweep_dead(const char *base, const char *prefix, void (*remove)(const char *path));
/* scratch.c: a new rung-2 scratch directory with home/ and tmp/ in the
 * user's scratch parent (*out malloc'd).  SBX_E_IO, SBX_E_NOMEM. */
sbx_code sbx__make_scratch(char **out, sbx_error *err);

/* tree.c: what is left of a run whose keeper (rung-2 monitor or zygote,
 * the bwrap keeper) died.  The run is the keeper's session; the keeper
 * must be an unreaped zombie (its pid then names this run alone). */
#define SBX__TREE_KILL_MS 5000
/* The session id and state letter of a process.  0 or -errno. */
int sbx__proc_session(pid_t pid, pid_t *sid, char *state);
/* SIGKILL every live process of session sid until none is left, bounded
 * by timeout_ms.  0, -ETIMEDOUT (some could not be ended) or -errno. */
int sbx__tree_kill_session(pid_t sid, int timeout_ms);
/* Wait (bounded; -1 = no bound, 0 = poll) until child pid exited, without
 * reaping it; *killed = it was killed by a signal.  0, -ETIMEDOUT, -errno. */
int sbx__proc_wait_exited(pid_t pid, int pidfd, int timeout_ms, int *killed);
/* The keeper (a zombie) led its own session: kill what is left of it.
 * 0 (nothing left, or not a session leader), -ETIMEDOUT, -errno. */
int sbx__tree_keeper_gone(pid_t keeper);
/* child.c: kill and reap every child of this subreaper until none is left
 * (children_fd: its /proc/<tid>/children, opened earlier).  0, or -1 when
 * the list cannot be read or the tree outgrows the bound.
 * Async-signal-safe. */
int sbx__kill_orphans(int children_fd);

/* Create per-spawn cgroups carrying pids.max (dirs_out[0]) and the memory
 * limit (dirs_out[1]); a 0 limit is not set.  With track, a pids cgroup is
 * made even without a limit, to find every descendant at the end.  v2 where
 * usable, else v1.  Each is made on its own: 0 when every requested one
 * exists, -ENOENT when some could not be made (its entry is NULL; the
 * others are kept and are the caller's to destroy). */
int sbx__cgroup_prepare(uint64_t pids_max, uint64_t memory_max, int track, char **dirs_out);
/* The v2 cgroup directory (below mount point mnt) to create a per-spawn
 * cgroup carrying controller in: our own cgroup `own` ("/..." as in
 * /proc/self/cgroup) or its nearest ancestor that can carry it, never
 * above the first one we cannot write (the delegation boundary).  0 with
 * out filled, -ENOENT or -ENAMETOOLONG.  May enable the controller in the
 * chosen cgroup's cgroup.subtree_control. */
int sbx__cgroup_v2_base(const char *mnt, const char *own, const char *controller, char *out,
                        size_t outlen);
/* Move pid into every prepared cgroup.  0 or -errno. */
int sbx__cgroup_attach(char *const *dirs, pid_t pid);
/* Kill what is left inside and remove the cgroup (bounded retries). */
void sbx__cgroup_destroy(const char *dir);
/* What a spawn's cgroups saw (read before they are destroyed). */
struct sbx__cg_usage {
        uint64_t peak_memory;
        uint32_t max_processes;
        int      have_memory, have_processes;
        int      memory_hit, pids_hit;  /* the limit was reached */
};
void sbx__cgroup_usage(const char *pids_dir, const char *mem_dir, struct sbx__cg_usage *u);

/* -------------------------------------------------------------- launch.c */

/*
 * The one launcher every Linux spawn goes through (rung 1, rung 2, bwrap,
 * the unconfined direct spawn).  The child is a raw clone3 (clone where
 * clone3 is missing) -- never glibc fork(), so no atfork handler and no
 * allocator lock of another host thread is touched -- with exit signal 0
 * and a pidfd: a host that ignores SIGCHLD (auto-reaping) or reaps with
 * waitpid(-1) cannot take the child away, and event loops poll the pidfd.
 * Signals are blocked across clone; the child resets every disposition.
 */

/* What a child reports before _exit(127) when a step fails. */
struct sbx__child_report {
        int32_t step;
        int32_t err;
        int32_t index;
};

/* The child's end of the setup channel. */
struct sbx__chan {
        int err_w;                      /* O_CLOEXEC: EOF once execve succeeded */
        int sync_r;                     /* the go byte arrives here; -1 = not held */
        volatile int32_t *progress;     /* shared page: the step the child is in */
        int fail_step;                  /* test-only: this step fails with EPERM */
        int hang_step;                  /* test-only: this step blocks */
};

/* The parent's end. */
struct sbx__proc {
        pid_t    pid;
        int      pidfd;                 /* -1 on kernels without CLONE_PIDFD */
        int      err_r;
        int      sync_w;                /* -1 unless held */
        int32_t *shared;                /* the progress page */
        struct rusage *ru;              /* sbx__proc_reap fills it when set */
};

/* Runs in the child; never returns (it execs or sbx__child_fail()s). */
typedef void (*sbx__child_fn)(void *arg, struct sbx__chan *ch);

/* Start fn(arg) in a new process with the namespaces in ns_flags
 * (CLONE_NEW*).  hold: the child waits in sbx__child_wait_go() until
 * sbx__launch_release().  0 or -errno (nothing left behind). */
int sbx__launch(uint64_t ns_flags, int hold, sbx__child_fn fn, void *arg, struct sbx__proc *out);
/* Let a held child go.  0 or -errno. */
int sbx__launch_release(struct sbx__proc *p);
/* Wait, bounded by the setup timeout, until the child exec'd (0), reported
 * a failed step (1, *rep filled) or ran out of time (-ETIMEDOUT, rep->step
 * = the step it was in).  Other -errno: the channel broke. */
int sbx__launch_wait_exec(struct sbx__proc *p, struct sbx__child_report *rep);
/* Reap, waiting at most timeout_ms (-1 = no bound, 0 = poll).  0 with
 * *status, -ETIMEDOUT (still running), -errno. */
int sbx__proc_reap(struct sbx__proc *p, int timeout_ms, int *status);
/* SIGKILL and reap (bounded); then close.  For a child that failed. */
void sbx__proc_abort(struct sbx__proc *p);
/* Close the parent's channel fds and the page (not the pidfd). */
void sbx__proc_close_channel(struct sbx__proc *p);

/* Requests the host sends to a rung-1 init or rung-2 monitor (real-time
 * signals nothing else uses): kill the whole tree; stop it (SIGSTOP cannot
 * be forwarded, the init would stop itself). */
#define SBX__SIG_KILLTREE 62
#define SBX__SIG_STOPTREE 61

/* 1 if the process ignores SIGCHLD (SIG_IGN or SA_NOCLDWAIT): a child
 * that execs directly (bwrap, direct) would be auto-reaped. */
int sbx__sigchld_ignored(void);

/* The setup timeout in ms (default 30000); test-only setter. */
int sbx__launch_timeout(void);
void sbx__launch_set_timeout(int ms);

/* ----- child side: async-signal-safe ----- */

/* Record that the child is at `step`; blocks for ever if it is the
 * test-only hang step.  Returns 1 if the step must fail (fault injection). */
int sbx__child_at(struct sbx__chan *ch, int step);
void sbx__child_fail(const struct sbx__chan *ch, int step, int e, int index) SBX__NORETURN;
/* Default dispositions for every signal, nothing blocked. */
void sbx__child_reset_signals(void);
/* Every signal blocked (taken only where the caller unblocks them, as in
 * ppoll), and every catchable one but the synchronous faults handled by
 * handler with all signals masked. */
void sbx__child_catch_signals(void (*handler)(int));
/* Close every fd from 3 up but the channel's and keep[0..n) (>= 3 only):
 * a child started while another thread spawned must not hold that spawn's
 * pipe ends through its own setup.  Async-signal-safe. */
void sbx__child_close_others(const struct sbx__chan *ch, const int *keep, size_t n);
/* Wait for the go byte of a held child.  0 or -errno. */
int sbx__child_wait_go(struct sbx__chan *ch);
/* A fork-like raw clone with exit signal SIGCHLD (the init's command
 * process).  As fork(2): the pid, 0 in the child, -1 + errno. */
pid_t sbx__clone_fork(void);
/* keeper.c: in a launched child (async-signal-safe), become the keeper of
 * exec_fn's process: a subreaper that watches the spawning process
 * `parent` through a pidfd, forwards catchable signals, kills whatever is
 * left below it when that process ends or the host goes, and exits as it
 * did.  Without pidfds, exec_fn runs in place with a death signal.  Never
 * returns. */
void sbx__keeper_run(struct sbx__chan *ch, pid_t parent, void (*exec_fn)(void *, struct sbx__chan *),
                     void *arg) SBX__NORETURN;
/* Place stdio[i] (>= 0) on fd i and keep[] on 3, 4, ...; move the channel
 * (and *extra_fd, if >= 0) above them; mark the rest close-on-exec.
 * 0 or -errno. */
int sbx__child_arrange_fds(struct sbx__chan *ch, int *extra_fd, const int stdio[3],
                           const int *keep, size_t n_keep);

/* Test-only fault injection, process-wide, never set outside tests:
 * step (1 .. the last; 0 = off) fails with EPERM, or blocks (hang). */
void sbx__fault_inject(int step);
void sbx__fault_hang(int step);
/* 1 while a fault is injected (an injected refusal is not the
 * environment's: detection does not move down the chain for it). */
int sbx__fault_active(void);
/* Test-only: from now on this process's environment "refuses" rung 1's
 * namespaces (clone fails with EPERM), to test detection by doing. */
void sbx__fault_refuse_namespaces(void);
/* The text a failing step is reported with ("mounting the staging tmpfs"),
 * or NULL past the last step. */
const char *sbx__step_name(int step);

/* ------------------------------------------------ bwrap (src/linux/bwrap.c) */

/*
 * The bwrap argv for plan, deterministic for given inputs (the golden
 * tests call it directly): `bwrap` the binary (argv[0]), `envp` the
 * environment the --setenv list is taken from, `home` the caller's
 * canonical home directory (NULL = none known), `cwd` a --chdir target
 * (NULL = inherit the caller's).  It lstat()s rule paths (a missing one is
 * skipped).  Errors: SBX_E_INVALID, SBX_E_IO, SBX_E_RANGE, SBX_E_NOMEM.
 */
sbx_code sbx__bwrap_build(const struct sbx_plan *plan, const char *bwrap,
                          const char *const *argv, const char *const *envp, const char *home,
                          const char *cwd, char ***argv_out, sbx_error *err);

#endif /* SBX_LINUX_INTERNAL_H */
