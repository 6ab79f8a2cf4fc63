/*
 * ladder.h - what the parent prepares for a rung-1 or rung-2 child, shared
 * by the files of the Linux ladder: mounts.c (the rung-1 mount plan),
 * llrules.c (the Landlock rule list), child.c (the async-signal-safe
 * child and its pid-1 init / subreaper monitor), ladder.c (preparation,
 * spawn, guarantees, probes) and launch.c (the one launcher).  Not
 * installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_LADDER_H
#define SBX_LINUX_LADDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "linux/linux_internal.h"
#include "linux/nft.h"

#define SBX__RESOLVER_DIR "/run/systemd/resolve"

/* ------------------------------------------------------------- steps */

enum sbx__step {
        STEP_NONE = 0,
        STEP_SETGROUPS, STEP_UID_MAP, STEP_GID_MAP, STEP_MAKE_PRIVATE, STEP_BASE_TMPFS,
        STEP_BASE_DIRS, STEP_PIVOT_BASE, STEP_MOUNT_OP, STEP_PIVOT_ROOT, STEP_CHDIR,
        STEP_LOOPBACK, STEP_SETSID, STEP_PDEATHSIG, STEP_SYNC, STEP_FDS, STEP_RLIMIT,
        STEP_CAPS, STEP_LANDLOCK_ADD, STEP_LANDLOCK, STEP_SECCOMP, STEP_EXEC, STEP_FORK,
        STEP_SIGNALS, STEP__END
};

/* ---------------------------------------------------- mount operations */

enum sbx__op_kind {
        OP_TMPFS,       /* tmpfs on dst (data = options), flags */
        OP_BIND,        /* bind src on dst, recursive */
        OP_BIND_NOFOLLOW, /* the same, failing with ELOOP if a component of src is a
                           * symbolic link (it binds the object it opened) */
        OP_SETATTR,     /* mount_setattr(dst, AT_RECURSIVE, attr) */
        OP_MKDIRS,      /* mkdir -p dst */
        OP_MKFILE,      /* create an empty file dst (parents must exist) */
        OP_SYMLINK,     /* symlink src -> dst */
        OP_PROC,        /* proc on dst */
        OP_DEVPTS,      /* devpts (newinstance) on dst */
        OP_LL_TREE,     /* Landlock: allow `attr` (SBX__FS_*) below dst */
};

struct sbx__mop {
        int           kind;
        int           optional;         /* ENOENT is not an error */
        const char   *src;
        const char   *dst;
        const char   *data;
        unsigned long flags;
        uint64_t      attr;
};

/* seccomp_notify.c / notify.c: the git name veto and --allow-unix. */
#define SBX__N_OPEN      1
#define SBX__N_OPENAT    2
#define SBX__N_CREAT     3
#define SBX__N_MKDIR     4
#define SBX__N_MKDIRAT   5
#define SBX__N_MKNOD     6
#define SBX__N_MKNODAT   7
#define SBX__N_LINK      8
#define SBX__N_LINKAT    9
#define SBX__N_SYMLINK   10
#define SBX__N_SYMLINKAT 11
#define SBX__N_RENAME    12
#define SBX__N_RENAMEAT  13
#define SBX__N_RENAMEAT2 14
#define SBX__N_UNLINK    15     /* rung 2 only, with the write opens */
#define SBX__N_UNLINKAT  16
#define SBX__N_RMDIR     17
#define SBX__N_TRUNCATE  18
#define SBX__N_CONNECT   19     /* --allow-unix: every connect(2) */
#define SBX__N_SOCKETCALL 20    /* socketcall(SYS_CONNECT, args) (i386, s390, ppc) */
#define SBX__N_EXECVE    21     /* the observer only (SBX__NF_OBSERVE) */
#define SBX__N_EXECVEAT  22
#define SBX__N_SOCKET    23     /* SBX__NF_INET: refused, and recorded */
/* SBX__NF_META (rung 2): metadata calls the supervisor checks and does
 * (notify.c "metadata"): Landlock does not cover them. */
#define SBX__N_CHMOD      24
#define SBX__N_FCHMOD     25
#define SBX__N_FCHMODAT   26
#define SBX__N_CHOWN      27
#define SBX__N_LCHOWN     28
#define SBX__N_FCHOWN     29
#define SBX__N_FCHOWNAT   30
#define SBX__N_UTIME      31
#define SBX__N_UTIMES     32
#define SBX__N_FUTIMESAT  33
#define SBX__N_UTIMENSAT  34
#define SBX__N_SETXATTR   35
#define SBX__N_LSETXATTR  36
#define SBX__N_FSETXATTR  37
#define SBX__N_RMXATTR    38
#define SBX__N_LRMXATTR   39
#define SBX__N_FRMXATTR   40
#define SBX__N_META_FIRST SBX__N_CHMOD
#define SBX__N_META_LAST  SBX__N_FRMXATTR
struct sbx__notify_map {
        size_t n;
        struct {
                uint32_t arch;  /* seccomp_data.arch */
                int32_t  nr;
                uint8_t  op;    /* SBX__N_* */
        } v[256];
};
/* A protected object: a tree root (everything below it), one file, or
 * (tree 2) a directory on the way to one, pinned: not renamed or removed,
 * its other entries writable. */
struct sbx__prot {
        dev_t dev;
        ino_t ino;
        int   tree;
};
/* What the supervisor knows (prepared by the parent, read-only after). */
struct sbx__notify_ctx {
        const struct sbx__notify_map *map;
        const struct sbx__prot *prot;
        size_t n_prot;
        /* SBX__NF_META: the objects the Landlock ruleset grants writes at
         * (tree 1: and below), which the metadata calls must lie at or
         * below (llrules.c fills it after the rules are merged). */
        const struct sbx__prot *wr;
        size_t n_wr;
        /* --allow-unix: the socket paths the command may connect to
         * (canonical, as the caller spells them), each with an O_PATH fd
         * the parent opened on the socket file (-1: it did not exist). */
        const char *const *unix_paths;
        const int *unix_fds;
        size_t n_unix;
        unsigned flags;                 /* SBX__NF_* the filter was built with */
        const struct sbx__obs *obs;     /* the observer (observe.c), or NULL */
};
/* One rule of the plan as the observer evaluates it (observe.c). */
struct sbx__obs_rule {
        const char *path;
        size_t      len;
        uint32_t    access;             /* SBX__FS_* */
        int         tree;
};
struct sbx__nreq;
/* The denial observer (SBX_SPAWN_OBSERVE), prepared by the parent,
 * read-only after: where records go and what the plan allows. */
struct sbx__obs {
        int         fd;                 /* the record pipe's write end, O_NONBLOCK */
        /* Records an answered notification (sbx__observe_answer; set by
         * observe_prep.c, so notify_prim.c answers without calling up). */
        void      (*answer)(const struct sbx__nreq *q, int error);
        int         rung;
        const struct sbx__obs_rule *rules;
        size_t      n_rules;
        const char *homes[2];           /* hidden homes (isolated HOME), or NULL */
        const char *scratch[6];         /* writable scratch the plan does not list */
        size_t      n_scratch;
        int         net_denied;         /* connects are reported when they fail */
        size_t      pipe_size;          /* the record pipe's capacity */
        struct sbx__obs_shared *sh;     /* MAP_SHARED: the supervisor's workers too */
};
/* What the supervisor and its forked workers count together (observe.c),
 * in a shared anonymous mapping the parent makes. */
#define SBX__OBS_SEEN_MAX 256
struct sbx__obs_shared {
        unsigned  sent, dropped, n_seen;        /* __atomic */
        size_t    bytes;                        /* __atomic: written to the pipe */
        uint64_t  seen[SBX__OBS_SEEN_MAX];
};
/* The parent's side (observe_prep.c): the observer for plan, its rules
 * and pipe, into p->obs / p->obs_pipe.  scratch: writable places the plan
 * does not list (NULL-terminated). */
struct sbx__prep;
sbx_code sbx__observe_prepare(struct sbx__prep *p, const struct sbx_plan *plan,
                              const char *home, const char *home2,
                              const char *const *scratch, sbx_error *err);
void sbx__observe_prep_free(struct sbx__prep *p);
/* The observer's side of the supervisor (observe.c).  AS-safe. */
struct sbx__nreq;
/* 1 if op (with args) is only watched, not done by the supervisor: it was
 * evaluated and answered "continue". */
int sbx__observe_call(const struct sbx__nreq *q, uint8_t op, const uint64_t *args);
/* A call the supervisor did and that failed with error: record it when
 * the plan denies it (q->op, q->path, q->base). */
void sbx__observe_answer(const struct sbx__nreq *q, int error);
/* A connect the supervisor did (or a worker of it) ended with error. */
void sbx__observe_connect(const struct sbx__nreq *q, const void *sa, unsigned salen, int error);
/* socket(AF_INET / AF_INET6) under SBX__NF_INET: answered EPERM, always,
 * and recorded. */
void sbx__observe_socket(const struct sbx__nreq *q, const uint64_t *args);
/* The command ended: the summary record (how many were not sent). */
void sbx__observe_finish(const struct sbx__obs *o);
/* At most this many --allow-unix sockets reach a spawn (a profile holds
 * at most 64). */
#define SBX__MAX_UNIX_FDS 64
/* What the filter sends to the supervisor (sbx__notify_build). */
#define SBX__NF_NAMES   (1u << 0)  /* every naming call (the git name veto) */
#define SBX__NF_WRITES  (1u << 1)  /* + write opens, truncate, unlink, rmdir (rung 2) */
#define SBX__NF_CONNECT (1u << 2)  /* every connect (--allow-unix) */
#define SBX__NF_OBSERVE (1u << 3)  /* + every open, exec, remove (the observer) */
#define SBX__NF_READS   (1u << 5)  /* with OBSERVE: every open, reads too */
#define SBX__NF_INET    (1u << 4)  /* socket(AF_INET/AF_INET6): refused here (rung 2's
                                    * seccomp SBX__SC_INET_NOTIFY leaves them to us) */
#define SBX__NF_META    (1u << 6)  /* chmod, chown, utimes, xattr writes: done here where
                                    * Landlock grants writes (rung 2) */
/* The filter for flags (SBX__NF_*, not 0) and the table, both static,
 * from the build-time table (seccomp_embed.c; no libseccomp call, nothing
 * that can fail but bad flags).  WRITES: Landlock cannot keep .git
 * read-only inside a writable tree whose root must stay creatable, so the
 * supervisor does. */
sbx_code sbx__notify_build(unsigned flags, const struct sbx__bpf **prog,
                           const struct sbx__notify_map **map, sbx_error *err);
/* In the command (no_new_privs set): load the filter with a listener and
 * send the listener over sock.  Async-signal-safe.  0 or -errno. */
int sbx__notify_load_child(const struct sbx__bpf *prog, int sock);
/* In the init/monitor: receive the listener (blocking until the command
 * sent it or closed its end); the fd or -errno.  Async-signal-safe. */
int sbx__notify_receive(int sock);
/* One notification being answered (notify.c, notify_net.c). */
struct sbx__nreq {
        int      lfd;
        uint64_t id;
        pid_t    pid;           /* the calling thread, in our pid namespace */
        const struct sbx__notify_ctx *ctx;
        uint8_t  op;            /* SBX__N_*, for the observer (0: none) */
        const char *path;       /* its first path, as the caller gave it */
        int      base;          /* ... relative to this O_PATH fd (or NOFD) */
        int      oflags;        /* open's flags */
};
/* 1 while the caller still waits for this notification (its pid was not
 * reused); the answer (error: a positive errno, or 0 for val).  AS-safe. */
int sbx__nreq_valid(const struct sbx__nreq *q);
void sbx__nreq_respond(const struct sbx__nreq *q, int64_t val, int error);
/* Decimal v at p; the end.  AS-safe. */
char *sbx__put_uint(char *p, unsigned long v);
/* connect(2) (socketcall = 0) or socketcall(2)'s connect, answered
 * (notify_net.c).  AS-safe. */
void sbx__notify_connect(const struct sbx__nreq *q, const uint64_t *args, int socketcall);
/* In the init/monitor: serve one notification from listener lfd.
 * Async-signal-safe.  0, or -errno when the listener is unusable. */
int sbx__notify_serve(int lfd, const struct sbx__notify_ctx *ctx);
/* notify_git.c: 1 if creating `name` in dirfd could make a repository
 * git would use (AS-safe); the supervisor's protected objects for plan,
 * pinned directories included (the parent; 0 or -ENOMEM). */
int sbx__notify_makes_repository(int dirfd, const char *name, size_t len);
int sbx__notify_prot_build(const struct sbx_plan *plan, struct sbx__prot **out, size_t *n_out);

/* Everything the child needs, prepared by the parent. */
struct sbx__prep {
        int            rung;            /* 1 or 2 */
        int            net_ns;          /* 1 if CLONE_NEWNET */
        char           uid_map[64];
        char           gid_map[64];
        struct sbx__mop *ops;
        size_t         n_ops, cap_ops;
        char         **strs;            /* every string the ops point to */
        size_t         n_strs, cap_strs;
        const char    *cwd;
        char          *exec_path;
        char *const   *argv;
        char         **envp;
        int            ruleset_fd;
        struct sbx__bpf bpf;
        int            stdio[3];        /* -1 = inherit */
        int            keep[64];
        size_t         n_keep;
        struct rlimit  rl_nproc, rl_as;
        int            set_nproc, set_as;
        struct sbx__chan ch;            /* the launcher's channel (child side) */
        const struct sbx_plan *plan;    /* parent only: the plan being prepared */
        int            cap_last;        /* highest capability the kernel knows (libcap) */
        uint64_t       memory_max;      /* parent only: sizes the scratch tmpfs mounts */
        uint64_t       timeout_ms;      /* the init/monitor kills the tree after this */
        const char    *home2;           /* parent only: the account's home when it is
                                         * not HOME (hidden too), or NULL */
        int            monitor;         /* rung 2: a subreaper monitor runs the command */
        int            parent_pidfd;    /* the spawning process (not thread); -1 = none */
        int            children_fd;     /* rung 2 monitor: /proc/thread-self/children */
        int            scope_fd;        /* rung 2: the command's nested signal scope */
        pid_t          parent_pid;
        uint32_t       achieved;
        /* The git name veto (seccomp_notify.c, notify.c): the command loads
         * `notify` with a listener and sends it over notify_sock[1] to the
         * init/monitor, which serves it.  notify == NULL: no veto. */
        const struct sbx__bpf *notify;
        struct sbx__notify_ctx notify_ctx;
        struct sbx__prot *notify_prot;  /* malloc'd by the parent */
        struct sbx__prot *notify_wr;    /* malloc'd by the parent (SBX__NF_META) */
        /* SBX_SPAWN_OBSERVE (observe_prep.c): what the supervisor's
         * observer knows, and its record pipe ([0] goes to the child
         * handle, [1] to the init/monitor); NULL / -1 = none. */
        struct sbx__obs *obs;
        int            obs_pipe[2];
        int            notify_sock[2];
        /* --allow-unix: O_PATH fds on the listed sockets (-1: missing),
         * kept by the init/monitor only (O_CLOEXEC); malloc'd by the parent. */
        int           *unix_fds;
        size_t         n_unix_fds;
        /* A warm executor's zygote (child.c run_zygote, warm.c): instead of
         * one command, the init/monitor runs each command its host sends on
         * ctrl_fd (-1 = not a zygote); cmd_cwd is that command's. */
        int            ctrl_fd;
        const char    *cmd_cwd;
        int            bpf_loaded;      /* the zygote loaded bpf: its commands inherit it */
        /* A proxied plan (rung 1): the child sends its proxy listener over
         * proxy_sock[1]; the parent keeps [0].  -1 = none. */
        int            proxy_sock[2];
        /* Transparent mode (nft.c): the route and rules the child applies
         * in its network namespace before it sends its listeners; on
         * failure it sends the proxy listener alone (proxy-only). */
        int            transparent;
        struct sbx__nft_msgs nft;
};

/* The zygote's protocol on its SOCK_SEQPACKET control pair.  One request
 * per command: the header, then len bytes of NUL-terminated strings --
 * the executable, the working directory, n_argv arguments, n_env
 * environment entries -- and, as SCM_RIGHTS, the stdio fds whose fdmask
 * bit (1 << i) is set, in order, then the exec-report pipe's write end
 * (always).  The zygote answers each with one reply once the command and
 * everything it left behind are gone. */
#define SBX__ZY_MAGIC     0x5a594701u
#define SBX__ZY_MAX_BYTES (128u * 1024u)
#define SBX__ZY_MAX_STRS  8192u
struct sbx__zy_req {
        uint32_t magic, len, n_argv, n_env, fdmask, pad;
        uint64_t timeout_ms;
};
struct sbx__zy_rep {
        uint32_t magic;
        int32_t  code;          /* the exit code, as the init/monitor's own */
        int32_t  sig;           /* the signal that ended the command, or 0 */
};

/* The progress page's words after the step (word 0): an init or monitor
 * that exits for a command a signal ended writes SBX__END_MAGIC and the
 * signal, so the host reports the signal rather than 128 + N (which a
 * command can also exit with). */
#define SBX__END_MAGIC_AT 1
#define SBX__END_SIG_AT   2
#define SBX__END_MAGIC    0x53424e44

/* The host's end of a zygote (ladder.c starts it, warm.c drives it). */
struct sbx__warm {
        int      rung;
        pid_t    pid;
        int      pidfd;                 /* the zygote's; -1 without pidfds */
        int      ctrl;                  /* SOCK_SEQPACKET control pair, host end */
        int32_t *shared;                /* the progress page (launch.c) */
        uint32_t achieved;
        char    *home, *home2;          /* the homes it hides (ladder.c) */
        int      busy;                  /* a command of it is running */
        int      dead;                  /* it ended or broke: start no command */
        int      last_sig;              /* the signal that ended the last command, or 0 */
};
sbx_code sbx__ladder_zygote(int rung, const struct sbx_plan *plan, const sbx_spawn_options *opts,
                            struct sbx__warm *zy, sbx_error *err);
/* proc.c: the fds a spawn's child sent on sock (its proxy sockets, tag 'P',
 * 'T' or 'U'): up to 5 into fds (the rest -1) and the tag.  0 or -errno;
 * never blocks. */
int sbx__recv_fds(int sock, int fds[5], char *tag);
/* What a rung-1/rung-2 child keeps on the host (its child->os; proc.c
 * removes it at the release).  bwrap and direct children keep nothing. */
struct sbx__lx_child {
        char    *scratch;       /* host scratch directory to remove, or NULL */
        char    *cgroup[2];     /* cgroup directories to remove, or NULL */
        int32_t *shared;        /* the launch's progress page, which the
                                 * init/monitor ends with the signal that ended
                                 * the command (SBX__END_*); NULL = none */
};
/* argv0 looked up in the sandbox's view of envp's PATH: 0 with *out
 * (malloc'd), -ENOENT, -ENOMEM. */
int sbx__ladder_lookup(int rung, const struct sbx_plan *plan, const char *home,
                       const char *home2, const char *argv0, char *const *envp, char **out);

/* mounts.c */
char *sbx__prep_str(struct sbx__prep *p, const char *a, const char *b);
void sbx__prep_free(struct sbx__prep *p);
/* 1 if path lies strictly below directory dir (component-aware). */
int sbx__under(const char *path, const char *dir);
/* The rung-1 mount plan into p->ops.  0 or -errno. */
int sbx__build_mounts(struct sbx__prep *p, const struct sbx_plan *plan, const char *home);
/* In the child: one mount operation.  0 or -errno.  Async-signal-safe. */
int sbx__run_op(const struct sbx__mop *op, int ruleset_fd);

/* llrules.c */
/* The parent of this user's rung-2 scratch (SBX__RUN_SCRATCH_FMT), made
 * owner-only; one that is not a private directory of ours is refused.
 * 0 or -errno; out holds the path either way. */
int sbx__run_scratch_parent(char *out, size_t size);
sbx_code sbx__build_landlock(struct sbx__prep *p, const struct sbx_plan *plan,
                             const char *scratch, const char *home, uint32_t opts,
                             sbx_error *err);

/* child.c: the child of both rungs (never returns). */
void sbx__ladder_child(void *arg, struct sbx__chan *ch) SBX__NORETURN;

#endif /* SBX_LINUX_LADDER_H */
