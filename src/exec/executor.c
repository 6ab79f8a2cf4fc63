/*
 * executor.c - executor sets and executors: construction (the backend and
 * the scratch root checked once), one executor per key with its own
 * directories, and close (revoke, kill, wait, remove); the user's registry
 * of set directories, which every spawn hides (sbx__scratch_hide).
 * docs/executors.md.
 * Builds on: POSIX (the registry of set directories: symlinkat, O_NOFOLLOW walks; src/windows/unported.c answers on Windows).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#include "backend/backend.h"
#include "exec/executor.h"
#include "paths/paths_internal.h"

/* The scratch root: made owner-only when missing; an existing one must be
 * a real directory of ours that nobody else can write. */
static sbx_code scratch_root_ok(const char *fn, const char *root, sbx_error *err)
{
        struct stat st;

        if (mkdir(root, 0700) < 0 && errno != EEXIST)
                return sbx__fail(err, SBX_E_IO, errno, "%s: cannot create the scratch root "
                                 "%.200s: %s", fn, root, sbx__strerror(errno));
        if (lstat(root, &st) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "%s: scratch root %.200s: %s", fn, root,
                                 sbx__strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: scratch root %.200s is not a "
                                 "directory", fn, root);
        if (st.st_uid != geteuid() || (st.st_mode & 022) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: scratch root %.200s must be owned "
                                 "by this user and writable by nobody else (mode %04o)", fn,
                                 root, (unsigned) (st.st_mode & 07777));
        return SBX_OK;
}

/* ------------------------------------------------- the scratch registry */

/*
 * Every set directory of this user is registered, before anything is put
 * in it, as a symbolic link <base>/sbx-scratch-<euid>/<random> -> the set
 * directory; every spawn of this user reads the registry and hides each
 * registered directory that its plan would otherwise expose
 * (sbx__scratch_hide), so a set's scratch is invisible to every other
 * sandbox wherever its root is.  The registry lives where no sandbox can
 * see or change it: /dev/shm (rung 1 and bwrap mount a private one, rung 2
 * hides the host's /dev), else /tmp (private on rung 1 and bwrap, hidden
 * whole on rung 2).  A registry directory that is not ours (mode 0700,
 * owned by the effective uid, not a link) is never used: a set cannot be
 * made then (fail closed), and nothing of ours is listed in it.
 */
static const char *const reg_bases[] = { "/dev/shm", "/tmp" };

/* How long a closed set's empty directory outlives its registration. */
#define SBX__SCRATCH_GRACE_MS 100

static void reg_path(const char *base, char *out, size_t size)
{
        (void) snprintf(out, size, SBX__REGISTRY_FMT, base, (unsigned long) geteuid());
}

/* The registry below base, opened (and made when create): fd or -errno. */
static int reg_open(const char *base, int create)
{
        char path[64];
        struct stat st;
        int fd;

        reg_path(base, path, sizeof(path));
        if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
                (void) close(fd);
                return -EPERM;
        }
        return fd;
}

/* Register s->set_dir; s->reg_entry names the link.  SBX_OK or SBX_E_IO. */
static sbx_code reg_add(const char *fn, struct sbx_executor_set *s, sbx_error *err)
{
        char dir[64], name[24], entry[96];
        unsigned char b[8];
        size_t i, k;
        int fd = -EBADF, e = ENOENT;

        for (k = 0; k < SBX__ARRAY_SIZE(reg_bases) && fd < 0; k++) {
                fd = reg_open(reg_bases[k], 1);
                if (fd < 0)
                        e = -fd;
        }
        if (fd < 0) {
                reg_path(reg_bases[0], dir, sizeof(dir));
                reg_path(reg_bases[1], entry, sizeof(entry));
                return sbx__fail(err, SBX_E_IO, e, "%s: cannot register the set's directory "
                                 "in %s or %s (each must be a directory of this user, mode "
                                 "0700): %s", fn, dir, entry, sbx__strerror(e));
        }
        k--;
        for (i = 0; i < 16; i++) {
                int rr = sbx__random_bytes(b, sizeof(b));

                if (rr < 0) {
                        e = -rr;
                        break;
                }
                sbx__hex_encode(b, sizeof(b), name);
                if (symlinkat(s->set_dir, fd, name) == 0) {
                        reg_path(reg_bases[k], dir, sizeof(dir));
                        (void) snprintf(entry, sizeof(entry), "%s/%s", dir, name);
                        (void) close(fd);
                        s->reg_entry = sbx__strdup(entry);
                        if (s->reg_entry == NULL) {
                                (void) unlink(entry);
                                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                        }
                        return SBX_OK;
                }
                e = errno;
                if (e != EEXIST && e != EINTR)
                        break;
        }
        (void) close(fd);
        return sbx__fail(err, SBX_E_IO, e, "%s: cannot register the set's directory: %s", fn,
                         sbx__strerror(e));
}

/* 1 if `dir` (canonical) is one a set made: a directory named sbx-set-*. */
static int set_dir_name(const char *dir)
{
        const char *slash = strrchr(dir, '/');

        return dir[0] == '/' && slash != NULL && strncmp(slash + 1, "sbx-set-", 8) == 0;
}

/* Push path to v unless plan cannot expose it anyway: a path below the
 * host's /tmp or /dev that only the host rule would grant is hidden by
 * every backend already (rung 1 and bwrap mount their own, rung 2 hides
 * both whole). */
static void hide_if_exposed(const sbx_plan *plan, const char *path, const char *host_tmp,
                            struct sbx__strv *v)
{
        const struct sbx_plan_fs_rule *rule = sbx__plan_rule_for(plan, path);

        if (rule == NULL || (rule->access & (SBX__FS_READ | SBX__FS_WRITE)) == 0)
                return;
        if (rule->origin == SBX__ORIGIN_HOST &&
            ((host_tmp[0] != '\0' && sbx__path_has_prefix(path, host_tmp) &&
              strcmp(path, host_tmp) != 0) || sbx__path_has_prefix(path, "/dev")))
                return;
        sbx__strv_push(v, path);
}

/* 1 if the set directory `dir` (canonical, a set_dir_name) names an
 * owner that is gone: "sbx-set-<pid>-<start>-<pidns>-XXXXXX". */
static int set_owner_gone(const char *dir)
{
        const char *name = strrchr(dir, '/') + 1 + 8;

        /* The older "sbx-set-XXXXXX" names no owner: never swept. */
        return strchr(name, '-') != NULL && sbx__owner_gone(name);
}

/* Read one registry (fd, closed here): remove what a killed host left, and
 * push what plan must hide (plan NULL: only remove). */
static void reg_collect(int fd, const sbx_plan *plan, const char *host_tmp, struct sbx__strv *v)
{
        char target[SBX_PATH_MAX], clean[SBX_PATH_MAX];
        struct dirent *de;
        struct stat st;
        DIR *d = fdopendir(fd);

        /* A registry that cannot be read hides nothing: the spawn fails
         * (v->failed), never runs with another set's scratch in view. */
        if (d == NULL) {
                (void) close(fd);
                if (v != NULL)
                        v->failed = 1;
                return;
        }
        for (;;) {
                ssize_t n;

                errno = 0;
                if ((de = readdir(d)) == NULL) {
                        if (errno != 0 && v != NULL)
                                v->failed = 1;
                        break;
                }
                if (de->d_name[0] == '.')
                        continue;
                n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
                if (n < 0 && errno != EINVAL && errno != ENOENT && v != NULL)
                        v->failed = 1;          /* cannot tell: fail closed */
                if (n <= 0)
                        continue;               /* not an entry of ours */
                target[n] = '\0';
                if (sbx__path_clean(target, 0, clean, sizeof(clean)) != SBX_OK ||
                    strcmp(clean, target) != 0 || !set_dir_name(target))
                        continue;
                if (lstat(target, &st) < 0) {
                        /* Gone (its set closed, or a dead host's was
                         * removed): the entry goes too. */
                        if (errno == ENOENT)
                                (void) unlinkat(dirfd(d), de->d_name, 0);
                        else if (plan != NULL)
                                hide_if_exposed(plan, target, host_tmp, v);  /* unsure */
                        continue;
                }
                if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
                        continue;
                /* A killed host's set (its owner, named in the directory,
                 * is gone): removed with its entry. */
                if (set_owner_gone(target) && sbx__rm_rf(target) == 0) {
                        (void) unlinkat(dirfd(d), de->d_name, 0);
                        continue;
                }
                if (plan == NULL)
                        continue;
                /* The spawn's own set: its plan hides the set's root and
                 * gives back only the executor's own directories. */
                if (plan->scratch_dir != NULL && sbx__path_has_prefix(plan->scratch_dir, target))
                        continue;
                hide_if_exposed(plan, target, host_tmp, v);
        }
        (void) closedir(d);
}

/*
 * What a killed host left (its owner is gone, sbx__owner_gone): the rung-2
 * spawn scratch below this user's scratch parent and, with registries, the
 * set directories registered there (a live spawn reads those anyway, so it
 * passes registries 0).  Every spawn, Confine and new set calls it; at most
 * once a second per process (sbx__sweep_due).
 */
static void sweep_dead_hosts(int registries)
{
        char buf[64];
        size_t k;
        int fd;

        (void) snprintf(buf, sizeof(buf), SBX__RUN_SCRATCH_FMT, (unsigned long) geteuid());
        sbx__sweep_dirs(buf, "sbx-run-");
        if (!registries || !sbx__sweep_due("sbx-scratch-registry"))
                return;
        for (k = 0; k < SBX__ARRAY_SIZE(reg_bases); k++)
                if ((fd = reg_open(reg_bases[k], 0)) >= 0)
                        reg_collect(fd, NULL, "", NULL);
}

sbx_code sbx__scratch_hide(const sbx_plan *plan, const char *fn, sbx_plan **out, sbx_error *err)
{
        struct sbx__strv fixed = SBX__STRV_INIT, sets = SBX__STRV_INIT;
        char host_tmp[PATH_MAX], buf[64], **f = NULL, **t = NULL;
        const char **paths = NULL;
        uint32_t *origins = NULL;
        size_t k, nf = 0, nt = 0;
        int rc = -ENOMEM;

        *out = NULL;
        sweep_dead_hosts(plan->direct);
        if (plan->direct)
                return SBX_OK;
        if (realpath("/tmp", host_tmp) == NULL) {
                if (errno != ENOENT)
                        return sbx__fail(err, sbx__errno_code(errno, SBX_E_IO), errno,
                                         "%s: cannot resolve /tmp to hide the scratch of every "
                                         "other sandbox: %s", fn, sbx__strerror(errno));
                host_tmp[0] = '\0';
        }
        /* The user's fixed scratch places: the parent of rung 2's spawn
         * scratch (the spawn's own comes back as rules of its own) and
         * the registries themselves. */
        (void) snprintf(buf, sizeof(buf), SBX__RUN_SCRATCH_FMT, (unsigned long) geteuid());
        hide_if_exposed(plan, buf, host_tmp, &fixed);
        for (k = 0; k < SBX__ARRAY_SIZE(reg_bases); k++) {
                int fd;

                reg_path(reg_bases[k], buf, sizeof(buf));
                hide_if_exposed(plan, buf, host_tmp, &fixed);
                if ((fd = reg_open(reg_bases[k], 0)) >= 0) {
                        reg_collect(fd, plan, host_tmp, &sets);
                } else if (fd != -ENOENT && fd != -EPERM && fd != -ENOTDIR && fd != -ELOOP) {
                        /* Not "none here" nor "not ours" (no set of ours
                         * registered there): it cannot be read now. */
                        sbx__strv_discard(&fixed);
                        sbx__strv_discard(&sets);
                        return sbx__fail(err, sbx__errno_code(-fd, SBX_E_IO), -fd,
                                         "%s: cannot read the scratch registry %s to hide the "
                                         "scratch of every other sandbox: %s", fn, buf,
                                         sbx__strerror(-fd));
                }
        }
        if (fixed.n == 0 && sets.n == 0 && !fixed.failed && !sets.failed) {
                sbx__strv_discard(&fixed);
                sbx__strv_discard(&sets);
                return SBX_OK;
        }
        f = sbx__strv_finish(&fixed, &nf);
        t = sbx__strv_finish(&sets, &nt);
        if (f != NULL && t != NULL) {
                paths = calloc(nf + nt + 1, sizeof(*paths));
                origins = calloc(nf + nt + 1, sizeof(*origins));
        }
        if (paths != NULL && origins != NULL) {
                /* A set directory may vanish while the spawn starts: its
                 * origin lets a backend hide it only while it exists. */
                for (k = 0; k < nf; k++) {
                        paths[k] = f[k];
                        origins[k] = SBX__ORIGIN_SECRET;
                }
                for (k = 0; k < nt; k++) {
                        paths[nf + k] = t[k];
                        origins[nf + k] = SBX__ORIGIN_SCRATCH;
                }
                rc = sbx__plan_hide(plan, paths, origins, nf + nt, out);
        }
        free(paths);
        free(origins);
        sbx_strv_free(f);
        sbx_strv_free(t);
        if (rc < 0)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory (or a scratch "
                                 "registry could not be read) to hide the scratch of every "
                                 "other sandbox", fn);
        return SBX_OK;
}

/* The route fingerprint: what network path a run takes, no secret in it
 * (no proxy exists yet: the plan's own network decision). */
static void route_plain(const struct sbx_plan *plan, char *out);

/* The route: the egress proxy's configuration (src/net/, sbx__net_route_
 * fingerprint) when the plan has an allowlist, else the plain route. */
static void route_fingerprint(const struct sbx_plan *plan, char *out)
{
        /* An allowlist, or a Gated network whose proxy-target grants go
         * through the proxy: the proxy's route (rules and upstream). */
        if (!plan->direct && plan->network != SBX__NET_ALLOW) {
                sbx__netproxy_route_fingerprint(plan, out);
                if (out[0] != '\0')
                        return;
        }
        route_plain(plan, out);
}

static void route_plain(const struct sbx_plan *plan, char *out)
{
        char line[64];

        (void) snprintf(line, sizeof(line), "sbx-route-v1\nroute=direct\nnetwork=%d\n",
                        (int) plan->network);
        if (sbx__sha256_hex(line, strlen(line), out) < 0)
                (void) snprintf(out, 2 * SBX__SHA256_SIZE + 1, "%064d", 0); /* nettle: never */
}

/* 1 for what the OS runs out of or refuses for a while: fds, space,
 * memory, a read-only file system. */
static int os_errno(int e)
{
        return e == ENOMEM || e == EMFILE || e == ENFILE || e == ENOSPC || e == EDQUOT ||
               e == EROFS || e == EAGAIN || e == EIO;
}

/* Such a failure is that, not an internal error or a missing sandbox: its
 * code names it (SBX_E_NOMEM, else SBX_E_IO) and the message the errno. */
static sbx_code os_cause(const char *fn, sbx_code r, sbx_error *err)
{
        char msg[SBX_ERROR_SIZE];
        int e;

        if (err == NULL || !os_errno(err->sys_errno))
                return r;
        e = err->sys_errno;
        r = e == ENOMEM ? SBX_E_NOMEM : SBX_E_IO;
        (void) snprintf(msg, sizeof(msg), "%s", err->message);
        if (strstr(msg, sbx__strerror(e)) != NULL)
                return sbx__fail(err, r, e, "%s: %s", fn, msg);
        return sbx__fail(err, r, e, "%s: %s: %s", fn, msg, sbx__strerror(e));
}

/* backend's own check (verify), which sbx_backend_guarantees only counts
 * as "nothing achieved": SBX_OK, or its error with the OS's cause. */
static sbx_code backend_broken(const char *fn, int32_t backend, sbx_error *err)
{
        const struct sbx_backend *be = sbx__backend_get(backend);
        sbx_error e2 = { 0, 0, { 0 } };
        sbx_code r;

        if (be == NULL || be->verify == NULL || (r = be->verify(&e2)) == SBX_OK)
                return SBX_OK;
        if (err != NULL && os_errno(e2.sys_errno)) {
                (void) sbx__fail(err, r, e2.sys_errno, "the %s backend does not work here: %s",
                                 sbx_backend_name(backend), e2.message);
                return os_cause(fn, r, err);
        }
        return sbx__fail(err, r, e2.sys_errno, "%s: the %s backend does not work here: %s", fn,
                         sbx_backend_name(backend), e2.message);
}

static void set_free(struct sbx_executor_set *s)
{
        size_t i;

        for (i = 0; i < s->n_ex; i++) {
                sbx__grants_clear(s->ex[i]);
                sbx__warm_slot_stop(&s->ex[i]->warm);
                (void) pthread_mutex_destroy(&s->ex[i]->warm_lock);
                free(s->ex[i]->key);
                free(s->ex[i]->dir);
                free(s->ex[i]);
        }
        free(s->ex);
        sbx_plan_free(s->plan);
        sbx_profile_free(s->profile);
        free(s->set_dir);
        free(s->reg_entry);
        (void) pthread_cond_destroy(&s->idle);
        (void) pthread_mutex_destroy(&s->lock);
        free(s);
}

static sbx_code set_options_check(const char *fn, const sbx_executor_set_options *opts,
                                  sbx_error *err)
{
        if (opts->version != SBX_EXECUTOR_SET_OPTIONS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported options version %u",
                                 fn, (unsigned) opts->version);
        if (opts->scratch_root == NULL || opts->scratch_root[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: scratch_root must be an absolute "
                                 "path", fn);
        if (opts->max_executors == 0 || opts->max_executors > SBX__EXECUTORS_MAX)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: max_executors must be 1..%d", fn,
                                 SBX__EXECUTORS_MAX);
        if (opts->grant_ttl_ms < 0 || opts->grant_ttl_ms > (int64_t) 366 * 24 * 3600 * 1000)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: grant_ttl_ms must be 0..a year", fn);
        if (opts->backend != SBX_BACKEND_AUTO &&
            !sbx__backend_supports(opts->backend, SBX__ROW_EXECUTORS))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: executors run on the auto, native "
                                 "or landlock backend", fn);
        if (opts->windows_mode < SBX_WINDOWS_AUTO || opts->windows_mode > SBX_WINDOWS_ELEVATED)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown windows_mode %d", fn,
                                 (int) opts->windows_mode);
        return SBX_OK;
}

/* The scratch root, canonical, into root (SBX_PATH_MAX): its parent must
 * exist; the root itself may not. */
static sbx_code set_scratch_root(const char *fn, const char *scratch_root, char *root,
                                 sbx_error *err)
{
        char parent[SBX_PATH_MAX];
        const char *slash = strrchr(scratch_root, '/');
        size_t plen = slash != NULL ? (size_t) (slash - scratch_root) : 0;
        sbx_code r;

        if (strlen(scratch_root) >= SBX_PATH_MAX || plen >= sizeof(parent))
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: scratch_root is too long", fn);
        memcpy(parent, scratch_root, plen);
        parent[plen] = '\0';
        r = sbx__path_canonical_buf(fn, "scratch_root", plen == 0 ? "/" : parent, root, err);
        if (r != SBX_OK)
                return r;
        if (strlen(root) + strlen(slash) + 1 > SBX_PATH_MAX)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: scratch_root is too long", fn);
        if (strcmp(root, "/") == 0)
                root[0] = '\0';
        strcat(root, slash);
        return scratch_root_ok(fn, root, err);
}

/* Fail closed now rather than at the first run: a sandboxed plan needs a
 * native rung that enforces all it requires. */
static sbx_code set_backend(const char *fn, struct sbx_executor_set *s, int32_t backend,
                            sbx_error *err)
{
        int32_t enforcement = 0;
        sbx_code r;

        s->backend = backend;
        if (s->plan->direct)
                return SBX_OK;
        if (s->backend == SBX_BACKEND_AUTO) {
                r = sbx_backend_detect(&s->backend, err);
                if (r != SBX_OK)
                        return os_cause(fn, r, err);
        }
        if (!sbx__backend_supports(s->backend, SBX__ROW_EXECUTORS))
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: executors need the "
                                 "native or landlock backend; this host offers %s", fn,
                                 sbx_backend_name(s->backend));
        r = sbx_backend_guarantees(s->backend, s->plan, &s->achieved, &enforcement, err);
        if (r != SBX_OK)
                return r;
        /* Nothing achieved: the backend did not work here, and its own
         * check says why (a transient EMFILE, ENOSPC, ...). */
        if (s->achieved == 0 && (r = backend_broken(fn, s->backend, err)) != SBX_OK)
                return r;
        if ((s->achieved & s->plan->required) != s->plan->required)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: the %s backend cannot "
                                 "enforce guarantees 0x%x here", fn, sbx_backend_name(s->backend),
                                 (unsigned) (s->plan->required & ~s->achieved));
        return SBX_OK;
}

/* The set's directory below root, named by its owner so that a later set
 * or spawn removes it once this process is gone (killed before its
 * close), with its empty mountpoint, registered. */
static sbx_code set_dirs(const char *fn, struct sbx_executor_set *s, const char *root,
                         sbx_error *err)
{
        char dir[SBX_PATH_MAX + 112], sub[SBX_PATH_MAX + 128], tag[80];
        sbx_code r;

        sweep_dead_hosts(1);
        sbx__sweep_dirs(root, "sbx-set-");
        if (sbx__owner_tag(tag, sizeof(tag)) == 0)
                (void) snprintf(dir, sizeof(dir), "%s/sbx-set-%s-XXXXXX", root, tag);
        else    /* no /proc: a name with no owner, which nothing sweeps */
                (void) snprintf(dir, sizeof(dir), "%s/sbx-set-XXXXXX", root);
        if (mkdtemp(dir) == NULL)
                return sbx__fail(err, SBX_E_IO, errno, "%s: cannot create a directory in "
                                 "%.200s: %s", fn, root, sbx__strerror(errno));
        s->set_dir = sbx__strdup(dir);
        if (s->set_dir == NULL) {
                (void) rmdir(dir);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        /* An empty directory that lives as long as the set's: a backend
         * that must name a mountpoint that exists (bwrap) hides the set
         * by binding it over the set's directory, and skips that once it
         * is gone (sbx_executor_set_close removes it last). */
        (void) snprintf(sub, sizeof(sub), "%s/" SBX__SCRATCH_EMPTY, dir);
        if (mkdir(sub, 0500) < 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: cannot create %.200s: %s", fn, sub,
                              sbx__strerror(errno));
                (void) rmdir(dir);
                return r;
        }
        /* Registered before anything is put in it: every other sandbox
         * of this user hides it from now on. */
        r = reg_add(fn, s, err);
        if (r != SBX_OK) {
                (void) rmdir(sub);
                (void) rmdir(dir);
        }
        return r;
}

sbx_code sbx_executor_set_new(const sbx_profile *profile, const sbx_executor_set_options *opts,
                              sbx_executor_set **out, sbx_error *err)
{
        static const char fn[] = "sbx_executor_set_new";
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        struct sbx_executor_set *s;
        char root[SBX_PATH_MAX];
        sbx_code r;

        if (out == NULL || profile == NULL || opts == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile, opts and out must not be "
                                 "NULL", fn);
        *out = NULL;
        r = set_options_check(fn, opts, err);
        if (r == SBX_OK)
                r = set_scratch_root(fn, opts->scratch_root, root, err);
        if (r != SBX_OK)
                return r;

        s = calloc(1, sizeof(*s));
        if (s == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        (void) pthread_mutex_init(&s->lock, NULL);
        (void) pthread_cond_init(&s->idle, NULL);
        s->max = opts->max_executors;
        s->ttl_ms = opts->grant_ttl_ms > 0 ? opts->grant_ttl_ms : SBX__GRANT_TTL_DEFAULT_MS;
        r = sbx_profile_config_get(profile, &cfg, err);
        if (r == SBX_OK)
                r = sbx_profile_new(&cfg, &s->profile, err);
        if (r == SBX_OK)
                r = sbx_plan_compile(s->profile, &s->plan, err);
        if (r == SBX_OK)
                r = sbx_profile_fingerprint(s->profile, s->profile_fp, sizeof(s->profile_fp), err);
        if (r != SBX_OK)
                goto fail;
        s->mode = cfg.isolation == SBX_ISOLATION_UNCONFINED ? SBX_MODE_DANGER_FULL_ACCESS
                  : cfg.workspace_write == SBX_ACCESS_ALLOW ? SBX_MODE_WORKSPACE_WRITE
                  : SBX_MODE_READ_ONLY;
        route_fingerprint(s->plan, s->route_fp);
        r = set_backend(fn, s, opts->backend, err);
        if (r == SBX_OK)
                r = set_dirs(fn, s, root, err);
        if (r != SBX_OK)
                goto fail;
        *out = s;
        return SBX_OK;
fail:
        set_free(s);
        return r;
}

static sbx_code closed_error(const char *fn, sbx_error *err)
{
        return sbx__fail(err, SBX_E_CLOSED, 0, "%s: the executor set is closed", fn);
}

sbx_code sbx_executor_set_get(sbx_executor_set *s, const char *key, sbx_executor **out,
                              sbx_error *err)
{
        static const char fn[] = "sbx_executor_set_get";
        struct sbx_executor *ex = NULL, **v;
        char dir[SBX_PATH_MAX + 144];
        size_t i;
        sbx_code r = SBX_OK;

        if (s == NULL || key == NULL || key[0] == '\0' || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: set, a non-empty key and out must "
                                 "be given", fn);
        (void) pthread_mutex_lock(&s->lock);
        if (s->closed) {
                r = closed_error(fn, err);
                goto out;
        }
        for (i = 0; i < s->n_ex; i++)
                if (strcmp(s->ex[i]->key, key) == 0) {
                        *out = s->ex[i];
                        goto out;
                }
        if (s->n_ex >= s->max) {
                r = sbx__fail(err, SBX_E_RANGE, 0, "%s: the set holds its maximum of %u "
                              "executors", fn, (unsigned) s->max);
                goto out;
        }
        (void) snprintf(dir, sizeof(dir), "%s/%zu", s->set_dir, s->n_ex);
        ex = calloc(1, sizeof(*ex));
        v = realloc(s->ex, (s->n_ex + 1) * sizeof(*v));
        if (v != NULL)
                s->ex = v;
        if (ex == NULL || v == NULL || (ex->key = sbx__strdup(key)) == NULL ||
            (ex->dir = sbx__strdup(dir)) == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto undo;
        }
        if (mkdir(dir, 0700) < 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: cannot create %.200s: %s", fn, dir,
                              sbx__strerror(errno));
                goto undo;
        }
        for (i = 0; i < 2; i++) {
                char sub[SBX_PATH_MAX + 152];

                (void) snprintf(sub, sizeof(sub), "%s/%s", dir, i == 0 ? "home" : "tmp");
                if (mkdir(sub, 0700) < 0) {
                        r = sbx__fail(err, SBX_E_IO, errno, "%s: cannot create %.200s: %s", fn,
                                      sub, sbx__strerror(errno));
                        (void) sbx__rm_rf(dir);
                        goto undo;
                }
        }
        (void) pthread_mutex_init(&ex->warm_lock, NULL);
        ex->set = s;
        s->ex[s->n_ex++] = ex;
        *out = ex;
        goto out;
undo:
        if (ex != NULL) {
                free(ex->key);
                free(ex->dir);
                free(ex);
        }
out:
        (void) pthread_mutex_unlock(&s->lock);
        return r;
}

sbx_code sbx_executor_set_close(sbx_executor_set *s, sbx_error *err)
{
        static const char fn[] = "sbx_executor_set_close";
        struct sbx__running *run;
        size_t i;
        int e;

        if (s == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: set is NULL", fn);
        (void) pthread_mutex_lock(&s->lock);
        if (s->closed == 2) {
                /* Closed before: only what its removal left (a retry). */
                (void) pthread_mutex_unlock(&s->lock);
                goto remove;
        }
        s->closed = 1;
        for (i = 0; i < s->n_ex; i++)
                sbx__grants_clear(s->ex[i]);
        /* Every running tree dies: each run sees the flag within its next
         * poll (100 ms), kills its own tree, reaps it and leaves.  Only the
         * run's thread touches its child handle. */
        for (run = s->running; run != NULL; run = run->next)
                atomic_store(&run->cancelled, 1);
        while (s->n_running > 0)
                (void) pthread_cond_wait(&s->idle, &s->lock);
        s->closed = 2;
        (void) pthread_mutex_unlock(&s->lock);
        /* No run is left (a leaving one may still hold its zygote): the
         * zygotes end, each reaped (bounded). */
        for (i = 0; i < s->n_ex; i++) {
                (void) pthread_mutex_lock(&s->ex[i]->warm_lock);
                sbx__warm_slot_stop(&s->ex[i]->warm);
                (void) pthread_mutex_unlock(&s->ex[i]->warm_lock);
        }
remove:
        (void) pthread_mutex_lock(&s->lock);
        if (s->removed) {
                (void) pthread_mutex_unlock(&s->lock);
                return SBX_OK;
        }
        /* What the executors kept goes first, while the set is still
         * registered (hidden from every spawn that starts meanwhile); the
         * modes a command set on its directories are undone (rmtree.c).
         * A failure is reported and the set stays registered: a later
         * close tries again. */
        for (i = 0; i < s->n_ex; i++) {
                e = sbx__rm_rf(s->ex[i]->dir);
                if (e < 0) {
                        (void) pthread_mutex_unlock(&s->lock);
                        return sbx__fail(err, SBX_E_IO, -e, "%s: cannot remove the executor "
                                         "directory \"%.200s\" (%s): %s", fn, s->ex[i]->dir,
                                         s->ex[i]->key, sbx__strerror(-e));
                }
        }
        /* Then the entry, and only after a grace the empty rest: a bwrap
         * spawn that read the registry just before binds the set's .empty
         * over it and fails if either is gone by then (docs/backends.md
         * "Scratch and /tmp"). */
        if (s->reg_entry != NULL) {
                struct timespec grace = { 0, SBX__SCRATCH_GRACE_MS * 1000000L };

                (void) unlink(s->reg_entry);
                free(s->reg_entry);
                s->reg_entry = NULL;
                while (nanosleep(&grace, &grace) < 0 && errno == EINTR)
                        ;
        }
        {
                char sub[SBX_PATH_MAX + 128];

                (void) snprintf(sub, sizeof(sub), "%s/" SBX__SCRATCH_EMPTY, s->set_dir);
                (void) rmdir(sub);
        }
        e = sbx__rm_rf(s->set_dir);
        if (e == 0)
                s->removed = 1;
        (void) pthread_mutex_unlock(&s->lock);
        if (e < 0)
                return sbx__fail(err, SBX_E_IO, -e, "%s: cannot remove the set directory "
                                 "\"%.200s\": %s", fn, s->set_dir, sbx__strerror(-e));
        return SBX_OK;
}

void sbx_executor_set_free(sbx_executor_set *s)
{
        if (s == NULL)
                return;
        (void) sbx_executor_set_close(s, NULL);
        set_free(s);
}
