/*
 * test_denial_class.c - the class-naming denial marker, the stderr line
 * scan, and sbx_plan_denial against real plans (a workspace fixture under
 * /tmp with a denied root, a read-only root and a nested repository).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "policy/policy_internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) (lit), (sizeof(lit) - 1)

/* --------------------------------------------------------- the marker */

static void check_marker(int32_t cls, int32_t mode, const char *want)
{
        size_t need = strlen(want) + 1;
        char *buf = malloc(need);       /* exactly sized so ASan sees an overrun */

        assert_non_null(buf);
        assert_int_equal(sbx_denial_class_marker(cls, mode, buf, need, NULL), SBX_OK);
        assert_string_equal(buf, want);
        assert_true(need <= SBX_DENIAL_CLASS_MARKER_MAX);
        free(buf);
}

static void test_denial_class__marker_names_the_class(void **state)
{
        (void) state;
        check_marker(SBX_DENIAL_FILE_WRITE, SBX_MODE_READ_ONLY,
                     "[sandbox: file write denied under read-only mode]");
        check_marker(SBX_DENIAL_FILE_READ, SBX_MODE_WORKSPACE_WRITE,
                     "[sandbox: file read denied under workspace-write mode]");
        check_marker(SBX_DENIAL_NETWORK, SBX_MODE_READ_ONLY,
                     "[sandbox: network access denied under read-only mode]");
        check_marker(SBX_DENIAL_COMMAND, SBX_MODE_WORKSPACE_WRITE,
                     "[sandbox: command execution denied under workspace-write mode]");
        /* The longest one fits the documented maximum. */
        check_marker(SBX_DENIAL_COMMAND, SBX_MODE_DANGER_FULL_ACCESS,
                     "[sandbox: command execution denied under danger-full-access mode]");
}

static void test_denial_class__marker_errors(void **state)
{
        static const char want[] = "[sandbox: network access denied under read-only mode]";
        char buf[sizeof(want)];
        size_t len, i;
        (void) state;

        assert_sbx_fails(sbx_denial_class_marker(SBX_DENIAL_NONE, SBX_MODE_READ_ONLY, buf,
                                                 sizeof(buf), err), SBX_E_INVALID, "NONE");
        assert_sbx_fails(sbx_denial_class_marker(5, SBX_MODE_READ_ONLY, buf, sizeof(buf), err),
                         SBX_E_INVALID, "denial_class");
        assert_sbx_fails(sbx_denial_class_marker(-1, SBX_MODE_READ_ONLY, buf, sizeof(buf), err),
                         SBX_E_INVALID, "denial_class");
        assert_sbx_fails(sbx_denial_class_marker(SBX_DENIAL_NETWORK, SBX_MODE_NONE, buf,
                                                 sizeof(buf), err), SBX_E_INVALID, "mode");
        assert_sbx_fails(sbx_denial_class_marker(SBX_DENIAL_NETWORK, SBX_MODE_READ_ONLY, NULL,
                                                 sizeof(buf), err), SBX_E_INVALID, "buf");
        for (len = 0; len < sizeof(want); len++) {
                memset(buf, 'Z', sizeof(buf));
                assert_sbx_fails(sbx_denial_class_marker(SBX_DENIAL_NETWORK, SBX_MODE_READ_ONLY,
                                                         buf, len, err),
                                 SBX_E_RANGE, "buflen");
                for (i = 0; i < sizeof(buf); i++)
                        assert_int_equal(buf[i], 'Z');          /* nothing written */
        }
}

static void test_denial_class__names(void **state)
{
        (void) state;
        assert_string_equal(sbx_denial_class_name(SBX_DENIAL_NONE), "none");
        assert_string_equal(sbx_denial_class_name(SBX_DENIAL_FILE_WRITE), "file-write");
        assert_string_equal(sbx_denial_class_name(SBX_DENIAL_FILE_READ), "file-read");
        assert_string_equal(sbx_denial_class_name(SBX_DENIAL_NETWORK), "network");
        assert_string_equal(sbx_denial_class_name(SBX_DENIAL_COMMAND), "command");
        assert_string_equal(sbx_denial_class_name(5), "invalid");
        assert_string_equal(sbx_denial_class_name(-1), "invalid");
}

/* The old marker is unchanged (callers match it exactly). */
static void test_denial_class__old_marker_unchanged(void **state)
{
        char buf[SBX_DENIAL_MARKER_MAX];
        (void) state;

        assert_int_equal(sbx_denial_marker(SBX_MODE_READ_ONLY, buf, sizeof(buf), NULL), SBX_OK);
        assert_string_equal(buf, "[sandbox: file access denied under read-only mode]");
}

/* ------------------------------------------------------------ the scan */

static const struct scan_case {
        const char *line;
        int err, op, net;
        const char *path;               /* NULL: none */
} scans[] = {
        { "touch: cannot touch '/etc/x': Read-only file system", SBX__DL_EROFS,
          SBX__DL_OP_WRITE, 0, "/etc/x" },
        { "touch: cannot touch \xE2\x80\x98/etc/x\xE2\x80\x99: Permission denied",
          SBX__DL_EACCES, SBX__DL_OP_WRITE, 0, "/etc/x" },
        { "sh: 1: cannot create /etc/x: Read-only file system", SBX__DL_EROFS,
          SBX__DL_OP_WRITE, 0, "/etc/x" },
        { "cat: /root/secret: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0,
          "/root/secret" },
        { "cat: /ws/write.txt: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0,
          "/ws/write.txt" },               /* words inside the path do not count */
        { "ls: cannot open directory '/srv': Permission denied", SBX__DL_EACCES,
          SBX__DL_OP_READ, 0, "/srv" },
        { "mv: cannot move 'a' to '/etc/b': Permission denied", SBX__DL_EACCES,
          SBX__DL_OP_WRITE, 0, "/etc/b" },
        { "chmod: changing permissions of 'f': Operation not permitted", SBX__DL_EPERM,
          SBX__DL_OP_META, 0, "f" },
        { "sh: 1: ./script.sh: Permission denied", SBX__DL_EACCES, SBX__DL_OP_SHELL, 0,
          "./script.sh" },
        { "/bin/bash: line 3: /opt/tool: Permission denied", SBX__DL_EACCES,
          SBX__DL_OP_SHELL, 0, "/opt/tool" },
        { "env: \xE2\x80\x98/opt/tool\xE2\x80\x99: Permission denied", SBX__DL_EACCES,
          SBX__DL_OP_SHELL, 0, "/opt/tool" },
        { "PermissionError: [Errno 13] Permission denied: '/etc/x'", SBX__DL_EACCES,
          SBX__DL_OP_UNKNOWN, 0, "/etc/x" },
        { "open /etc/x: permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0, "/etc/x" },
        { "mkdir /etc/x: read-only file system", SBX__DL_EROFS, SBX__DL_OP_WRITE, 0, "/etc/x" },
        { "cat: /gone: No such file or directory", SBX__DL_ENOENT, SBX__DL_OP_UNKNOWN, 0,
          "/gone" },
        { "bash: connect: Connection refused", 0, SBX__DL_OP_UNKNOWN, 1, NULL },
        { "curl: (6) Could not resolve host: example.com", 0, SBX__DL_OP_UNKNOWN, 1, NULL },
        { "ssh: connect to host h port 22: Network is unreachable", 0, SBX__DL_OP_UNKNOWN, 1,
          NULL },
        { "bash: connect: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0, NULL },
        { "/bin/bash: connect: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0,
          NULL },                       /* the program is no path */
        { "/bin/bash: socket: Operation not permitted", SBX__DL_EPERM, SBX__DL_OP_UNKNOWN, 0,
          NULL },
        { "/usr/bin/x: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0,
          "/usr/bin/x" },               /* unless the errno follows it */
        { "bash: /dev/tcp/127.0.0.1/9: Permission denied", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN,
          0, NULL },
        { "make: *** [all] Error 2", 0, SBX__DL_OP_UNKNOWN, 0, NULL },
        { "error: permission denied: '", SBX__DL_EACCES, SBX__DL_OP_UNKNOWN, 0, NULL },
};

static void test_denial_class__scan_table(void **state)
{
        size_t i;
        (void) state;

        for (i = 0; i < N(scans); i++) {
                const struct scan_case *c = &scans[i];
                size_t len = strlen(c->line);
                char *copy = malloc(len);       /* exactly sized: no NUL to lean on */
                struct sbx__denial_line dl;

                assert_non_null(copy);
                memcpy(copy, c->line, len);
                sbx__denial_scan_line(copy, len, &dl);
                if (dl.err != c->err || (c->err != 0 && dl.op != c->op) || dl.net != c->net)
                        fail_msg("\"%s\": err %d op %d net %d, want %d %d %d", c->line, dl.err,
                                 dl.op, dl.net, c->err, c->op, c->net);
                if (c->path == NULL) {
                        if (dl.has_path)
                                fail_msg("\"%s\": path \"%.*s\", want none", c->line,
                                         (int) dl.path_len, copy + dl.path_off);
                } else if (!dl.has_path || dl.path_len != strlen(c->path) ||
                           memcmp(copy + dl.path_off, c->path, dl.path_len) != 0) {
                        fail_msg("\"%s\": path \"%.*s\", want \"%s\"", c->line,
                                 dl.has_path ? (int) dl.path_len : 0,
                                 dl.has_path ? copy + dl.path_off : "", c->path);
                }
                free(copy);
        }
}

static void test_denial_class__scan_any_bytes(void **state)
{
        char line[3000];
        struct sbx__denial_line dl;
        size_t i;
        (void) state;

        /* Long lines, NULs and unterminated quotes are data. */
        for (i = 0; i < sizeof(line); i++)
                line[i] = (char) (i * 7);
        sbx__denial_scan_line(line, sizeof(line), &dl);
        memset(line, '\'', sizeof(line));
        memcpy(line + 2000, ": Permission denied", 19);
        sbx__denial_scan_line(line, sizeof(line), &dl);
        assert_int_equal(dl.err, SBX__DL_EACCES);
        sbx__denial_scan_line(S("\0\0: Permission denied\0"), &dl);
        assert_int_equal(dl.err, SBX__DL_EACCES);
        sbx__denial_scan_line("", 0, &dl);
        assert_int_equal(dl.err, 0);
}

/* --------------------------------------------------- sbx_plan_denial */

struct fx {
        char base[PATH_MAX];
        char ws[PATH_MAX + 16];         /* the workspace */
        char denied[PATH_MAX + 16];     /* an additional root, read and write Deny */
        char ro[PATH_MAX + 16];         /* an additional root, read Allow */
        sbx_plan *plan[2];              /* [0] read-only, [1] workspace-write; network deny */
        sbx_plan *net_allow;            /* workspace-write with the network allowed */
};

static void mkfile(const char *dir, const char *name, mode_t mode)
{
        char p[PATH_MAX + 64];
        int fd;

        snprintf(p, sizeof(p), "%s/%s", dir, name);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "x\n", 2), 2);
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

static void mkdirs(const char *dir, const char *sub)
{
        char p[PATH_MAX + 64];

        snprintf(p, sizeof(p), "%s/%s", dir, sub);
        assert_int_equal(mkdir(p, 0755), 0);
}

static sbx_plan *plan_for(struct fx *f, int32_t mode, int32_t network)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_root_access roots[2];
        sbx_profile *base = NULL, *p = NULL;
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(mode, f->ws, &base, &e) != SBX_OK ||
            sbx_profile_config_get(base, &cfg, &e) != SBX_OK)
                fail_msg("profile: %s", e.message);
        roots[0].path = f->denied;
        roots[0].read = SBX_ACCESS_DENY;
        roots[0].write = SBX_ACCESS_DENY;
        roots[1].path = f->ro;
        roots[1].read = SBX_ACCESS_ALLOW;
        roots[1].write = SBX_ACCESS_DENY;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 2;
        cfg.network = network;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK || sbx_plan_compile(p, &plan, &e) != SBX_OK)
                fail_msg("plan: %s", e.message);
        sbx_profile_free(p);
        sbx_profile_free(base);
        return plan;
}

static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        char tmpl[] = "/tmp/sbx-denial-XXXXXX";

        if (f == NULL || mkdtemp(tmpl) == NULL || realpath(tmpl, f->base) == NULL)
                return -1;
        snprintf(f->ws, sizeof(f->ws), "%s/ws", f->base);
        snprintf(f->denied, sizeof(f->denied), "%s/denied", f->base);
        snprintf(f->ro, sizeof(f->ro), "%s/ro", f->base);
        if (mkdir(f->ws, 0755) < 0 || mkdir(f->denied, 0755) < 0 || mkdir(f->ro, 0755) < 0)
                return -1;
        mkfile(f->ws, "script.sh", 0644);       /* no execute bit */
        mkfile(f->ws, "file", 0644);
        mkfile(f->denied, "secret", 0644);
        mkfile(f->denied, "tool", 0755);
        mkfile(f->ro, "locked", 0000);          /* its mode bits refuse a read */
        mkdirs(f->ws, ".git");
        mkdirs(f->ws, ".git/hooks");
        mkdirs(f->ws, "sub");
        mkdirs(f->ws, "sub/.git");              /* nested: only discovery finds it */
        mkdirs(f->ws, "sub/.git/hooks");
        f->plan[0] = plan_for(f, SBX_MODE_READ_ONLY, SBX_ACCESS_DENY);
        f->plan[1] = plan_for(f, SBX_MODE_WORKSPACE_WRITE, SBX_ACCESS_DENY);
        f->net_allow = plan_for(f, SBX_MODE_WORKSPACE_WRITE, SBX_ACCESS_ALLOW);
        *state = f;
        return 0;
}

static void rm_rf(const char *path)
{
        char cmd[PATH_MAX + 32];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        if (system(cmd) != 0)
                print_message("cannot remove %s\n", path);
}

static int teardown(void **state)
{
        struct fx *f = *state;

        sbx_plan_free(f->plan[0]);
        sbx_plan_free(f->plan[1]);
        sbx_plan_free(f->net_allow);
        rm_rf(f->base);
        free(f);
        return 0;
}

static int32_t judge(const sbx_plan *plan, int32_t backend, const char *cwd, int code,
                     const char *text)
{
        int32_t cls = 77;
        sbx_error e = { 0, 0, { 0 } };
        size_t len = strlen(text);
        char *copy = malloc(len + 1);

        assert_non_null(copy);
        memcpy(copy, text, len + 1);
        if (sbx_plan_denial(plan, backend, cwd, code, copy, len, &cls, &e) != SBX_OK)
                fail_msg("sbx_plan_denial: %s", e.message);
        free(copy);
        return cls;
}

/* text with "@W" replaced by the workspace, "@D" the denied root, "@R" the
 * read-only root. */
static char *expand(const struct fx *f, const char *t)
{
        static char out[4 * PATH_MAX];
        size_t o = 0;

        for (; *t != '\0' && o < sizeof(out) - PATH_MAX; t++) {
                if (t[0] == '@' && (t[1] == 'W' || t[1] == 'D' || t[1] == 'R')) {
                        const char *r = t[1] == 'W' ? f->ws : t[1] == 'D' ? f->denied : f->ro;

                        memcpy(out + o, r, strlen(r));
                        o += strlen(r);
                        t++;
                } else {
                        out[o++] = *t;
                }
        }
        out[o] = '\0';
        return out;
}

static const struct plan_case {
        int mode;                       /* 0 read-only, 1 workspace-write, 2 network allowed */
        int32_t backend;
        int code;
        const char *text;
        int32_t want;
        int not_root;                   /* only meaningful when mode bits bind us */
} cases[] = {
        /* Writes. */
        { 0, 0, 1, "touch: cannot touch '@W/new': Read-only file system", SBX_DENIAL_FILE_WRITE, 0 },
        { 0, 0, 1, "touch: cannot touch 'new': Permission denied", SBX_DENIAL_FILE_WRITE, 0 },
        { 1, 0, 1, "touch: cannot touch 'new': Permission denied", SBX_DENIAL_NONE, 0 },
        { 1, 0, 2, "sh: 1: cannot create /etc/sbx-x: Permission denied", SBX_DENIAL_FILE_WRITE, 0 },
        { 1, 0, 1, "bash: /etc/sbx-x: Permission denied", SBX_DENIAL_FILE_WRITE, 0 },
        { 0, 0, 1, "PermissionError: [Errno 13] Permission denied: '/etc/sbx-x'",
          SBX_DENIAL_FILE_WRITE, 0 },
        { 1, 0, 1, "touch: cannot touch '.git/hooks/x': Read-only file system",
          SBX_DENIAL_FILE_WRITE, 0 },
        { 1, 0, 1, "touch: cannot touch 'sub/.git/hooks/x': Read-only file system",
          SBX_DENIAL_FILE_WRITE, 0 },   /* the discovered nested repository */
        { 1, 0, 1, "touch: cannot touch 'sub/file': Read-only file system", SBX_DENIAL_NONE, 0 },
        /* Metadata: the landlock backend refuses it everywhere. */
        { 1, SBX_BACKEND_LANDLOCK, 1, "chmod: changing permissions of 'file': Operation not "
          "permitted", SBX_DENIAL_FILE_WRITE, 0 },
        { 1, SBX_BACKEND_NATIVE, 1, "chmod: changing permissions of 'file': Operation not "
          "permitted", SBX_DENIAL_NONE, 0 },
        /* Reads. */
        { 1, 0, 1, "cat: @D/secret: Permission denied", SBX_DENIAL_FILE_READ, 0 },
        { 1, 0, 1, "cat: @D/secret: No such file or directory", SBX_DENIAL_FILE_READ, 0 },
        { 1, 0, 1, "cat: /sbx-no-such-file: No such file or directory", SBX_DENIAL_NONE, 0 },
        { 1, 0, 1, "cat: @R/locked: Permission denied", SBX_DENIAL_NONE, 1 },
        { 1, 0, 2, "ls: cannot open directory '@D': Permission denied", SBX_DENIAL_FILE_READ, 0 },
        /* Commands. */
        { 1, 0, 126, "sh: 1: ./script.sh: Permission denied", SBX_DENIAL_NONE, 0 },
        { 0, 0, 126, "bash: @W/script.sh: Permission denied", SBX_DENIAL_NONE, 0 },
        { 1, 0, 126, "sh: 1: @D/tool: Permission denied", SBX_DENIAL_COMMAND, 0 },
        { 1, 0, 126, "env: '@D/tool': Permission denied", SBX_DENIAL_COMMAND, 0 },
        /* Network. */
        { 1, 0, 1, "bash: connect: Connection refused", SBX_DENIAL_NETWORK, 0 },
        { 2, 0, 1, "bash: connect: Connection refused", SBX_DENIAL_NONE, 0 },
        { 1, 0, 6, "curl: (6) Could not resolve host: example.com", SBX_DENIAL_NETWORK, 0 },
        { 1, 0, 1, "bash: connect: Permission denied", SBX_DENIAL_NETWORK, 0 },
        { 0, 0, 1, "/bin/bash: connect: Permission denied\n"
          "/bin/bash: /dev/tcp/127.0.0.1/9: Permission denied", SBX_DENIAL_NETWORK, 0 },
        { 0, 0, 1, "/bin/bash: /dev/tcp/127.0.0.1/9: Permission denied", SBX_DENIAL_NETWORK, 0 },
        { 2, 0, 1, "/bin/bash: /dev/tcp/127.0.0.1/9: Permission denied", SBX_DENIAL_NONE, 0 },
        { 0, 0, 1, "/bin/bash: socket: Operation not permitted", SBX_DENIAL_NETWORK, 0 },
        { 2, 0, 1, "bash: connect: Permission denied", SBX_DENIAL_NONE, 0 },
        { 1, 0, 2, "ping: socket: Operation not permitted", SBX_DENIAL_NETWORK, 0 },
        /* Ordinary failures. */
        { 0, 0, 2, "grep: pattern not found\nmake: *** [all] Error 2\n", SBX_DENIAL_NONE, 0 },
        { 0, 0, 1, "Permission denied\n", SBX_DENIAL_NONE, 0 },
        /* The first line that shows a denial decides. */
        { 0, 0, 1, "warning: x\r\ntouch: cannot touch 'a': Read-only file system\r\n"
          "curl: (7) Connection refused\n", SBX_DENIAL_FILE_WRITE, 0 },
};

static void test_denial_class__plan_table(void **state)
{
        struct fx *f = *state;
        size_t i;

        for (i = 0; i < N(cases); i++) {
                const struct plan_case *c = &cases[i];
                const sbx_plan *plan = c->mode == 2 ? f->net_allow : f->plan[c->mode];
                int32_t got;

                if (c->not_root && geteuid() == 0)
                        continue;       /* root reads through mode bits: no such line */
                got = judge(plan, c->backend, f->ws, c->code, expand(f, c->text));
                if (got != c->want)
                        fail_msg("case %zu \"%s\": %s, want %s", i, c->text,
                                 sbx_denial_class_name(got), sbx_denial_class_name(c->want));
        }
}

static void test_denial_class__never_for_success_or_unconfined(void **state)
{
        struct fx *f = *state;
        sbx_profile *p = NULL;
        sbx_plan *direct = NULL;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_error e = { 0, 0, { 0 } };

        assert_int_equal(judge(f->plan[0], 0, NULL, 0, "touch: cannot touch '/etc/x': "
                               "Read-only file system"), SBX_DENIAL_NONE);
        /* cwd NULL: relative paths are the workspace's. */
        assert_int_equal(judge(f->plan[0], 0, NULL, 1, "touch: cannot touch 'x': "
                               "Read-only file system"), SBX_DENIAL_FILE_WRITE);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, f->ws, &p, &e),
                         SBX_OK);
        assert_int_equal(sbx_plan_compile(p, &direct, &e), SBX_OK);
        assert_int_equal(judge(direct, 0, NULL, 1, "touch: cannot touch '/etc/x': "
                               "Read-only file system"), SBX_DENIAL_NONE);
        sbx_plan_free(direct);
        sbx_profile_free(p);
        (void) cfg;
}

static void test_denial_class__plan_invalid_arguments(void **state)
{
        struct fx *f = *state;
        int32_t cls = 77;

        assert_sbx_fails(sbx_plan_denial(NULL, 0, NULL, 1, S("x"), &cls, err), SBX_E_INVALID,
                         "plan");
        assert_sbx_fails(sbx_plan_denial(f->plan[0], 0, NULL, 1, S("x"), NULL, err),
                         SBX_E_INVALID, "class_out");
        assert_sbx_fails(sbx_plan_denial(f->plan[0], 0, NULL, 1, NULL, 3, &cls, err),
                         SBX_E_INVALID, "err_text");
        assert_sbx_fails(sbx_plan_denial(f->plan[0], 9, NULL, 1, S("x"), &cls, err),
                         SBX_E_INVALID, "backend");
        assert_sbx_fails(sbx_plan_denial(f->plan[0], 0, "rel", 1, S("x"), &cls, err),
                         SBX_E_INVALID, "cwd");
        assert_int_equal(cls, 77);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_denial_class__marker_names_the_class),
                cmocka_unit_test(test_denial_class__marker_errors),
                cmocka_unit_test(test_denial_class__names),
                cmocka_unit_test(test_denial_class__old_marker_unchanged),
                cmocka_unit_test(test_denial_class__scan_table),
                cmocka_unit_test(test_denial_class__scan_any_bytes),
                cmocka_unit_test_setup_teardown(test_denial_class__plan_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_denial_class__never_for_success_or_unconfined,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_denial_class__plan_invalid_arguments,
                                                setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
