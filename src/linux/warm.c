/*
 * warm.c - the host's end of a warm executor's zygote (child.c
 * run_zygote): start it once under the executor's plan (ladder.c), send it
 * one command at a time, and give each command a child handle whose wait
 * reads the zygote's answer and whose kill asks the zygote to kill the
 * command's tree.  docs/executors.md "Warm executors".
 *
 * A command of the zygote is a fork of a process that is already confined
 * exactly as a cold spawn would confine it (the same plan, namespaces,
 * mounts, Landlock domain, capabilities and no_new_privs); it loads the
 * same seccomp programs itself.  What the zygote cannot hold for a run --
 * a grant's widening, limits, another HOME, different git locations --
 * the exec layer sends down the cold path (src/exec/spawn.c).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "linux/ladder.h"
#include "paths/paths_internal.h"

extern char **environ;

/* How long the host waits for a zygote to answer once the command was
 * killed (the zygote then kills what is left and reaps it). */
#define WARM_REAP_MS 5000

static sbx_code warm_start(int rung, const struct sbx_plan *plan, const sbx_spawn_options *opts,
                           struct sbx__warm **out, sbx_error *err)
{
        struct sbx__warm *w;
        sbx_code r;

        *out = NULL;
        if (plan->direct || plan->scratch_dir == NULL || sbx__plan_proxied(plan) ||
            opts->memory_max > 0 ||
            opts->pids_max > 0 || opts->n_keep_fds > 0)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "sbx_spawn: no zygote for this plan");
        w = calloc(1, sizeof(*w));
        if (w == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        w->rung = rung;
        w->pid = -1;
        w->pidfd = w->ctrl = -1;
        r = sbx__ladder_zygote(rung, plan, opts, w, err);
        if (r != SBX_OK) {
                free(w);
                return r;
        }
        *out = w;
        return SBX_OK;
}

sbx_code sbx__native_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                struct sbx__warm **out, sbx_error *err)
{
        return warm_start(1, plan, opts, out, err);
}

sbx_code sbx__landlock_warm_start(const struct sbx_plan *plan, const sbx_spawn_options *opts,
                                  struct sbx__warm **out, sbx_error *err)
{
        return warm_start(2, plan, opts, out, err);
}

static int send_sig(struct sbx__warm *w, int sig)
{
        if (w->pidfd >= 0)
                return syscall(SYS_pidfd_send_signal, w->pidfd, sig, NULL, 0U) < 0 ? -errno : 0;
        return kill(w->pid, sig) < 0 ? -errno : 0;
}

/* The zygote is of no more use: kill it (a rung-1 zygote takes its whole
 * namespace along) and reap it, bounded. */
static void warm_kill(struct sbx__warm *w)
{
        struct sbx__proc p = { w->pid, w->pidfd, -1, -1, NULL, NULL };

        int killed;

        w->dead = 1;
        if (w->pid > 0) {
                (void) send_sig(w, SIGKILL);
                /* A rung-2 zygote's commands are in its session: what is
                 * left of the run goes while the zygote is a zombie. */
                if (sbx__proc_wait_exited(w->pid, w->pidfd, WARM_REAP_MS, &killed) == 0)
                        (void) sbx__tree_keeper_gone(w->pid);
                (void) sbx__proc_reap(&p, WARM_REAP_MS, NULL);
                w->pid = p.pid;
        }
}

/* The zygote's answer for the running command: 0 with *code, -ETIMEDOUT,
 * or -EPIPE when it is gone (it is then marked dead). */
static int read_reply(struct sbx__warm *w, int timeout_ms, int *code)
{
        struct pollfd pfd = { w->ctrl, POLLIN, 0 };
        struct sbx__zy_rep rep;
        ssize_t n;
        int r;

        do
                r = poll(&pfd, 1, timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r == 0)
                return -ETIMEDOUT;
        do
                n = recv(w->ctrl, &rep, sizeof(rep), MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno == EAGAIN)
                return -ETIMEDOUT;
        if (n != (ssize_t) sizeof(rep) || rep.magic != SBX__ZY_MAGIC) {
                /* It died (or broke): its command went with it (rung 1:
                 * the namespace; rung 2: the command's death signal). */
                warm_kill(w);
                w->busy = 0;
                return -EPIPE;
        }
        w->busy = 0;
        *code = rep.code;
        w->last_sig = rep.sig > 0 && rep.sig < 128 && rep.code == 128 + rep.sig ? rep.sig : 0;
        return 0;
}

/* A zygote command's child handle: its os is the zygote (not freed with
 * the child: warm_stop ends it), its pidfd a dup of the control socket, so
 * a host's poll wakes when the zygote answers. */
static int warm_child_wait(sbx_child *c, int timeout_ms, int *status)
{
        struct sbx__warm *w = c->os;
        int code = 0, r;

        if (w->busy == 0)
                return -ECHILD;
        if (timeout_ms < 0)
                timeout_ms = -1;
        r = read_reply(w, timeout_ms, &code);
        if (r == -ETIMEDOUT)
                return r;
        /* A zygote that died mid-run killed the run: report it as such. */
        if (r < 0)
                code = 128 + SIGKILL;
        if (status != NULL)
                *status = r == 0 && w->last_sig != 0 ? w->last_sig    /* signalled */
                                                     : (code & 0xff) << 8; /* as an init's */
        c->pid = -1;
        return 0;
}

static int warm_child_kill(sbx_child *c, int sig)
{
        struct sbx__warm *w = c->os;

        if (w->dead || !w->busy || c->pid <= 0)
                return -ESRCH;
        /* The zygote kills the command and, once it is reaped, everything
         * it left (rung 1: the namespace's other processes; rung 2: what
         * its subreaper adopted); a stop request stops the tree; every
         * other signal is forwarded to the command. */
        if (sig == SIGKILL)
                sig = SBX__SIG_KILLTREE;
        else if (sig == SIGSTOP)
                sig = SBX__SIG_STOPTREE;
        return send_sig(w, sig);
}

static void warm_child_release(sbx_child *c)
{
        if (c->pidfd >= 0)
                (void) close(c->pidfd);
        c->pidfd = -1;
        c->os = NULL;
}

static const struct sbx__child_ops warm_child_ops = {
        .wait = warm_child_wait, .kill = warm_child_kill, .release = warm_child_release,
};

/* Where the strings go, in the order the zygote reads them. */
static size_t put(char *buf, size_t off, const char *s)
{
        size_t n = strlen(s) + 1;

        memcpy(buf + off, s, n);
        return off + n;
}

/* The run's environment and executable, as the zygote would give them: it
 * hides one HOME, so another run's HOME needs another zygote (ESTALE). */
static sbx_code warm_prepare(struct sbx__warm *w, const struct sbx_plan *plan,
                             const char *const *argv, const sbx_spawn_options *opts,
                             char ***envp, char **exec_path, sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        const char *const *src_env = opts->envp != NULL ? opts->envp : (const char *const *) environ;
        char scratch_home[SBX_PATH_MAX + 8], scratch_tmp[SBX_PATH_MAX + 8];
        char *home = NULL;
        int rc;

        rc = sbx__caller_home(src_env, &home);
        if (rc == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (rc < 0 || (home == NULL) != (w->home == NULL) ||
            (home != NULL && strcmp(home, w->home) != 0)) {
                free(home);
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ESTALE, "%s: another HOME than "
                                 "the zygote's", fn);
        }
        (void) snprintf(scratch_home, sizeof(scratch_home), "%s/home", plan->scratch_dir);
        (void) snprintf(scratch_tmp, sizeof(scratch_tmp), "%s/tmp", plan->scratch_dir);
        *envp = sbx__plan_env(plan, src_env, plan->home == SBX__ENV_DIR_CALLER ? home
                              : scratch_home, scratch_tmp);
        free(home);
        if (*envp == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        rc = sbx__ladder_lookup(w->rung, plan, w->home, w->home2, argv[0], *envp, exec_path);
        if (rc == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (rc < 0)
                return sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "%s: command \"%.200s\" not "
                                 "found in PATH", fn, argv[0]);
        return SBX_OK;
}

/* Send the zygote one command: the request header, the strings (path,
 * cwd, argv, envp) and the command's stdio plus errp_w, the write end of
 * its exec-status pipe.  A zygote that cannot take it is killed. */
static sbx_code warm_send(struct sbx__warm *w, const char *exec_path, const char *cwd,
                          const char *const *argv, char *const *envp,
                          const sbx_spawn_options *opts, int errp_w, sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(4 * sizeof(int))];
        } cm;
        struct sbx__zy_req rq;
        struct iovec iov[2];
        struct msghdr mh;
        struct cmsghdr *c;
        size_t n_argv, n_env, len, off, i;
        int fds[4], nfd = 0;
        char *buf;

        len = strlen(exec_path) + 1 + strlen(cwd) + 1;
        for (n_argv = 0; argv[n_argv] != NULL; n_argv++)
                len += strlen(argv[n_argv]) + 1;
        for (n_env = 0; envp[n_env] != NULL; n_env++)
                len += strlen(envp[n_env]) + 1;
        if (len > SBX__ZY_MAX_BYTES || n_argv + n_env > SBX__ZY_MAX_STRS)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ESTALE, "%s: too large for the "
                                 "zygote", fn);
        buf = malloc(len);
        if (buf == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        off = put(buf, 0, exec_path);
        off = put(buf, off, cwd);
        for (i = 0; i < n_argv; i++)
                off = put(buf, off, argv[i]);
        for (i = 0; i < n_env; i++)
                off = put(buf, off, envp[i]);
        memset(&rq, 0, sizeof(rq));
        rq.magic = SBX__ZY_MAGIC;
        rq.len = (uint32_t) len;
        rq.n_argv = (uint32_t) n_argv;
        rq.n_env = (uint32_t) n_env;
        rq.timeout_ms = opts->timeout_ms;
        if (opts->stdin_fd >= 0) {
                rq.fdmask |= 1;
                fds[nfd++] = opts->stdin_fd;
        }
        if (opts->stdout_fd >= 0) {
                rq.fdmask |= 2;
                fds[nfd++] = opts->stdout_fd;
        }
        if (opts->stderr_fd >= 0) {
                rq.fdmask |= 4;
                fds[nfd++] = opts->stderr_fd;
        }
        fds[nfd++] = errp_w;
        iov[0] = (struct iovec){ &rq, sizeof(rq) };
        iov[1] = (struct iovec){ buf, len };
        memset(&mh, 0, sizeof(mh));
        memset(&cm, 0, sizeof(cm));
        mh.msg_iov = iov;
        mh.msg_iovlen = 2;
        mh.msg_control = cm.b;
        mh.msg_controllen = CMSG_SPACE((size_t) nfd * sizeof(int));
        c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t) nfd * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t) nfd * sizeof(int));
        if (w->shared != NULL)
                *(volatile int32_t *) w->shared = STEP_FORK;
        if (sendmsg(w->ctrl, &mh, MSG_NOSIGNAL) != (ssize_t) (sizeof(rq) + len)) {
                /* Not started: the zygote is gone (or broken). */
                free(buf);
                warm_kill(w);
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ESRCH, "%s: the zygote is gone",
                                 fn);
        }
        free(buf);
        w->busy = 1;
        return SBX_OK;
}

/* Learn whether execve succeeded, as a cold spawn does (errp_r: the read
 * end of the command's exec-status pipe).  A command that did not start
 * is answered for by the zygote (or, stuck or gone, it ends here). */
static sbx_code warm_started(struct sbx__warm *w, int errp_r, const char *exec_path,
                             sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        struct sbx__proc tmp = { w->pid, w->pidfd, errp_r, -1, w->shared, NULL };
        struct sbx__child_report rep;
        int rc, gone, code;

        rc = sbx__launch_wait_exec(&tmp, &rep);
        if (rc == 0)
                return SBX_OK;
        gone = rc != -ETIMEDOUT && read_reply(w, WARM_REAP_MS, &code) == -EPIPE;
        if (rc == -ETIMEDOUT || w->busy)
                warm_kill(w);
        w->busy = 0;
        if (gone && rep.step != STEP_EXEC)
                /* It died before the command started (killed from
                 * outside): not run; the caller runs it cold. */
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ESRCH, "%s: the zygote is gone",
                                 fn);
        if (rc < 0 && rc != -ETIMEDOUT)
                rep = (struct sbx__child_report){ STEP_NONE, -rc, 0 };
        if (rep.step == STEP_EXEC && (rep.err == ENOENT || rep.err == ENOTDIR))
                return sbx__fail(err, SBX_E_NOT_FOUND, rep.err, "%s: command \"%.200s\" not "
                                 "found in the sandbox: %s", fn, exec_path, sbx__strerror(rep.err));
        if (rep.step == STEP_EXEC)
                return sbx__fail(err, SBX_E_IO, rep.err, "%s: cannot execute \"%s\" in the "
                                 "sandbox: %s", fn, exec_path, sbx__strerror(rep.err));
        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, rep.err, "%s: %s sandbox setup failed "
                         "while %s: %s; the command was not run", fn,
                         w->rung == 1 ? "native" : "landlock",
                         sbx__step_name(rep.step) != NULL ? sbx__step_name(rep.step)
                         : "an unknown step", sbx__strerror(rep.err));
}

sbx_code sbx__warm_spawn(struct sbx__warm *w, const struct sbx_plan *plan,
                         const char *const *argv, const sbx_spawn_options *opts,
                         sbx_child *child, sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        const char *cwd = opts->cwd != NULL ? opts->cwd : plan->workspace_root;
        char *exec_path = NULL, **envp = NULL;
        int errp[2] = { -1, -1 }, pidfd = -1;
        sbx_code r;

        if (w->dead || w->busy)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, ESRCH, "%s: the zygote is gone",
                                 fn);
        r = warm_prepare(w, plan, argv, opts, &envp, &exec_path, err);
        if (r != SBX_OK)
                goto out;
        /* The handle's pollable fd: the control socket, readable when the
         * zygote answers. */
        if (pipe2(errp, O_CLOEXEC) < 0 || (pidfd = fcntl(w->ctrl, F_DUPFD_CLOEXEC, 3)) < 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: %s", fn, sbx__strerror(errno));
                goto out;
        }
        r = warm_send(w, exec_path, cwd, argv, envp, opts, errp[1], err);
        if (r != SBX_OK)
                goto out;
        (void) close(errp[1]);
        errp[1] = -1;
        r = warm_started(w, errp[0], exec_path, err);
        if (r != SBX_OK)
                goto out;
        child->ops = &warm_child_ops;
        child->os = w;
        child->pid = w->pid;
        child->pidfd = pidfd;
        pidfd = -1;
        child->backend = w->rung == 1 ? SBX_BACKEND_NATIVE : SBX_BACKEND_LANDLOCK;
        child->required = plan->required;
        child->achieved = w->achieved;
out:
        if (errp[0] >= 0)
                (void) close(errp[0]);
        if (errp[1] >= 0)
                (void) close(errp[1]);
        if (pidfd >= 0)
                (void) close(pidfd);
        free(exec_path);
        sbx_strv_free(envp);
        return r;
}

void sbx__warm_stop(struct sbx__warm *w)
{
        struct sbx__proc p;
        int code;

        if (w == NULL)
                return;
        if (w->busy && !w->dead) {
                /* Its command is still running: the tree goes first. */
                (void) send_sig(w, SBX__SIG_KILLTREE);
                if (read_reply(w, WARM_REAP_MS, &code) < 0)
                        warm_kill(w);
        }
        if (w->ctrl >= 0)
                (void) close(w->ctrl);  /* the zygote reads EOF and ends */
        w->ctrl = -1;
        p = (struct sbx__proc){ w->pid, w->pidfd, -1, -1, NULL, NULL };
        if (p.pid > 0 && sbx__proc_reap(&p, WARM_REAP_MS, NULL) < 0) {
                (void) send_sig(w, SIGKILL);
                (void) sbx__proc_reap(&p, WARM_REAP_MS, NULL);
        }
        if (w->pidfd >= 0)
                (void) close(w->pidfd);
        if (w->shared != NULL)
                (void) munmap(w->shared, 4096);
        free(w->home);
        free(w->home2);
        free(w);
}
