/*
 * test_profile_secrets.c - the broad-workspace check of sbx_profile_new (a
 * workspace root that is "/", a home directory or an ancestor of one needs
 * force_workspace) and the secret locations the plan hides below every
 * home directory inside a readable root (docs/secrets.md).
 *
 * The host's homes: HOME is pointed at a fixture home H below a canonical
 * mkdtemp directory F under /var/tmp (the account's home and the homes of
 * /etc/passwd are real, but none lies below F).  H holds .ssh/id_rsa,
 * .aws/credentials, a .kube that is a symlink to H/dot/kube, and notes.txt.
 * The plan goldens use sbx__profile_new_with_homes with homes below
 * "/nonexistent-sbx-test", so they do not depend on the host.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/plan_internal.h"
#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

#define G "/nonexistent-sbx-test"

static char fx[PATH_MAX];               /* F */
static char home[PATH_MAX + 16];        /* F/users/h */
static char users[PATH_MAX + 16];       /* F/users */
static char *saved_home;
static char sentinel_storage;
#define SENTINEL ((sbx_profile *) &sentinel_storage)

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static const char *in_home(const char *suffix)
{
        static char bufs[8][PATH_MAX * 2];
        static unsigned next;
        char *b = bufs[next++ % 8];

        (void) snprintf(b, PATH_MAX * 2, "%s%s", home, suffix);
        return b;
}

static int write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -1;
}

#define NPMRC "/.nvm/versions/node/v20.1.0/lib/node_modules/npm/npmrc"

/* The table's entries without a "*": listed for the caller's own home
 * whether they exist or not ("*" ones only where they match). */
static size_t n_fixed(void)
{
        size_t i, n = 0;

        for (i = 0; i < sbx__secret_table_size(); i++)
                n += strchr(sbx__secret_table_entry(i, NULL), '*') == NULL;
        return n;
}

static int setup(void **state)
{
        char tmpl[] = "/var/tmp/sbx-secrets-XXXXXX";
        const char *h = getenv("HOME");

        (void) state;
        saved_home = h != NULL ? strdup(h) : NULL;
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, fx) == NULL)
                return -1;
        (void) snprintf(users, sizeof(users), "%s/users", fx);
        (void) snprintf(home, sizeof(home), "%s/users/h", fx);
        if (mkdir(users, 0755) != 0 || mkdir(home, 0755) != 0 ||
            mkdir(in_home("/.ssh"), 0700) != 0 || mkdir(in_home("/.aws"), 0700) != 0 ||
            mkdir(in_home("/dot"), 0755) != 0 || mkdir(in_home("/dot/kube"), 0700) != 0 ||
            symlink(in_home("/dot/kube"), in_home("/.kube")) != 0 ||
            write_file(in_home("/.ssh/id_rsa"), "KEY\n") != 0 ||
            write_file(in_home("/.aws/credentials"), "AWS\n") != 0 ||
            write_file(in_home("/notes.txt"), "notes\n") != 0)
                return -1;
        /* npm's built-in config in an nvm node version (a "*" entry), and
         * a dot-named "version" that no "*" matches */
        {
                static const char *const dirs[] = {
                        "/.nvm", "/.nvm/versions", "/.nvm/versions/node",
                        "/.nvm/versions/node/v20.1.0", "/.nvm/versions/node/v20.1.0/lib",
                        "/.nvm/versions/node/v20.1.0/lib/node_modules",
                        "/.nvm/versions/node/v20.1.0/lib/node_modules/npm",
                        "/.nvm/versions/node/.old", "/.nvm/versions/node/.old/lib",
                        "/.nvm/versions/node/.old/lib/node_modules",
                        "/.nvm/versions/node/.old/lib/node_modules/npm",
                };
                size_t i;

                for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                        if (mkdir(in_home(dirs[i]), 0755) != 0)
                                return -1;
                if (write_file(in_home(NPMRC), "//r/:_authToken=T\n") != 0 ||
                    write_file(in_home("/.nvm/versions/node/.old/lib/node_modules/npm/npmrc"),
                               "//r/:_authToken=T\n") != 0)
                        return -1;
        }
        return setenv("HOME", home, 1);
}

static int teardown(void **state)
{
        (void) state;
        if (saved_home != NULL)
                (void) setenv("HOME", saved_home, 1);
        else
                (void) unsetenv("HOME");
        free(saved_home);
        return fx[0] != '\0' ? nftw(fx, rm_entry, 16, FTW_DEPTH | FTW_PHYS) : 0;
}

/* workspace-write of sbx_profile_from_mode, with the root given. */
static sbx_profile_config ww_cfg(const char *ws)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        cfg.workspace_root = ws;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.command = SBX_ACCESS_ALLOW;
        return cfg;
}

static sbx_profile *must_new(const sbx_profile_config *cfg)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile *p = NULL;

        if (sbx_profile_new(cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        return p;
}

static char *describe(const sbx_profile *p)
{
        sbx_plan *plan = NULL;
        char *text = NULL;

        assert_int_equal(sbx_plan_compile(p, &plan, NULL), SBX_OK);
        assert_int_equal(sbx_plan_describe(plan, &text, NULL), SBX_OK);
        sbx_plan_free(plan);
        return text;
}

static size_t count(const char *text, const char *needle)
{
        size_t n = 0;

        for (; (text = strstr(text, needle)) != NULL; text++)
                n++;
        return n;
}

/* ------------------------------------------------------ broad workspace */

static void test_profile_secrets__broad_workspace_is_refused(void **state)
{
        const char *const roots[] = { "/", NULL, NULL };
        sbx_profile_config cfg;
        sbx_profile *p = SENTINEL;
        size_t i;

        (void) state;
        for (i = 0; i < 3; i++) {
                const char *ws = i == 0 ? roots[0] : i == 1 ? home : users;

                cfg = ww_cfg(ws);
                assert_sbx_fails(sbx_profile_new(&cfg, &p, err), SBX_E_INVALID,
                                 "set force_workspace to 1");
                assert_ptr_equal(p, SENTINEL);
                /* read-only too: the workspace would uncover the home */
                cfg.workspace_write = SBX_ACCESS_DENY;
                assert_sbx_fails(sbx_profile_new(&cfg, &p, err), SBX_E_INVALID,
                                 "force_workspace");
                cfg.workspace_read = SBX_ACCESS_GATED;  /* a grant could open it */
                assert_sbx_fails(sbx_profile_new(&cfg, &p, err), SBX_E_INVALID,
                                 "force_workspace");
                assert_ptr_equal(p, SENTINEL);
                /* forced: accepted */
                cfg = ww_cfg(ws);
                cfg.force_workspace = 1;
                p = must_new(&cfg);
                sbx_profile_free(p);
                p = SENTINEL;
        }
        cfg = ww_cfg(home);
        assert_sbx_fails(sbx_profile_new(&cfg, &p, err), SBX_E_INVALID, "is a home directory");
        cfg = ww_cfg(users);
        assert_sbx_fails(sbx_profile_new(&cfg, &p, err), SBX_E_INVALID,
                         "is an ancestor of a home directory");
        assert_sbx_fails(sbx_profile_from_mode(SBX_MODE_READ_ONLY, home, &p, err),
                         SBX_E_INVALID, "force_workspace");
        assert_sbx_fails(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, users, &p, err),
                         SBX_E_INVALID, "force_workspace");
        assert_ptr_equal(p, SENTINEL);
}

static void test_profile_secrets__what_is_not_refused(void **state)
{
        sbx_profile_config cfg;
        sbx_profile *p;

        (void) state;
        /* below a home: a project directory */
        cfg = ww_cfg(in_home("/dot"));
        sbx_profile_free(must_new(&cfg));
        /* a workspace that grants nothing */
        cfg = ww_cfg(home);
        cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_DENY;
        sbx_profile_free(must_new(&cfg));
        /* nothing beyond the host access, with the real HOME */
        cfg = ww_cfg("/");
        cfg.workspace_write = SBX_ACCESS_DENY;
        cfg.home = SBX_HOME_REAL;
        p = must_new(&cfg);
        assert_int_equal(p->n_secrets, 0);
        sbx_profile_free(p);
        /* unconfined: no boundary to widen */
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, home, &p, NULL),
                         SBX_OK);
        assert_int_equal(p->n_secrets, 0);
        sbx_profile_free(p);
        /* an additional root above a home is not refused (its secrets are
         * hidden, see below) */
        {
                sbx_root_access r = { users, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };

                cfg = ww_cfg(G "/ws");
                cfg.additional_roots = &r;
                cfg.n_additional_roots = 1;
                sbx_profile_free(must_new(&cfg));
        }
}

/* ------------------------------------------------------------- secrets */

/* A root inside a home (a toolchain such as ~/.cargo, or an --allow-read
 * of ~/dot) brings the secrets below it along: they are hidden too, and
 * only those below that root.  (A root that is a secret location itself
 * was named on purpose: it is exposed, docs/secrets.md.) */
static void test_profile_secrets__root_inside_home_hides_its_secrets(void **state)
{
        sbx_root_access roots[1];
        sbx_profile_config cfg = ww_cfg(G "/ws");
        char line[PATH_MAX + 64];
        sbx_profile *p;
        char *text;

        (void) state;
        cfg.home = SBX_HOME_ISOLATED;
        roots[0].path = in_home("/dot");        /* holds kube, which ~/.kube points at */
        roots[0].read = SBX_ACCESS_ALLOW;
        roots[0].write = SBX_ACCESS_DENY;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 1;
        p = must_new(&cfg);
        text = describe(p);
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home("/dot/kube"));
        if (strstr(text, line) == NULL)
                fail_msg("no \"%s\" in:\n%s", line, text);
        /* ~/.ssh is not below the root: the hidden HOME covers it already */
        (void) snprintf(line, sizeof(line), "fs %s tree", in_home("/.ssh"));
        assert_null(strstr(text, line));
        free(text);
        sbx_profile_free(p);
}

static void test_profile_secrets__forced_home_keeps_secrets_hidden(void **state)
{
        sbx_profile_config cfg = ww_cfg(home);
        char line[PATH_MAX + 64];
        sbx_profile *p;
        char *text;
        size_t i;

        (void) state;
        cfg.force_workspace = 1;
        p = must_new(&cfg);
        text = describe(p);
        /* the existing ones ... */
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home("/.ssh"));
        assert_non_null(strstr(text, line));
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home("/.aws"));
        assert_non_null(strstr(text, line));
        /* ... a symlinked one where it really is (not at the link) ... */
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home("/dot/kube"));
        assert_non_null(strstr(text, line));
        (void) snprintf(line, sizeof(line), "fs %s tree", in_home("/.kube"));
        assert_null(strstr(text, line));
        /* ... and, in the caller's own home, the ones that do not exist yet */
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home("/.netrc"));
        assert_non_null(strstr(text, line));
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n",
                        in_home("/.docker/config.json"));
        assert_non_null(strstr(text, line));
        /* ... and the existing matches of a "*" entry, not a dot name */
        (void) snprintf(line, sizeof(line), "fs %s tree --- secret\n", in_home(NPMRC));
        assert_non_null(strstr(text, line));
        assert_null(strstr(text, "/.old/"));
        assert_int_equal(count(text, " secret\n"), n_fixed() + 1);
        /* the rest of the home is the workspace's */
        assert_null(strstr(text, "notes.txt"));
        (void) snprintf(line, sizeof(line), "fs %s tree rwx workspace\n", home);
        assert_non_null(strstr(text, line));
        /* the hide is a read and a write carve-out */
        assert_non_null(strstr(text, "requires read-boundary write-boundary"));
        free(text);
        for (i = 0; i < p->n_secrets; i++)
                assert_int_equal(p->secrets[i].account, 0);     /* HOME, not the account */
        sbx_profile_free(p);
}

static void test_profile_secrets__table_is_sane(void **state)
{
        size_t i, j, n = sbx__secret_table_size();
        int32_t dir = -1;

        (void) state;
        assert_true(n >= 20);
        for (i = 0; i < n; i++) {
                const char *s = sbx__secret_table_entry(i, &dir);

                assert_non_null(s);
                assert_true(s[0] == '/' && s[1] != '\0');
                assert_int_equal(sbx__path_syntax(s), PATH_OK);
                assert_true(dir == 0 || dir == 1);
                for (j = 0; j < i; j++)
                        assert_string_not_equal(s, sbx__secret_table_entry(j, NULL));
        }
        assert_null(sbx__secret_table_entry(n, NULL));
        /* the brief's list is in it */
        {
                static const char *const must[] = {
                        "/.ssh", "/.gnupg", "/.aws", "/.config/gcloud", "/.azure", "/.kube",
                        "/.docker/config.json", "/.netrc", "/.git-credentials", "/.config/gh",
                        "/.npmrc", "/.pypirc", "/.local/share/keyrings", "/.password-store",
                        "/.mozilla", "/.config/google-chrome", "/.config/chromium",
                        "/.config/BraveSoftware", "/.config/microsoft-edge", "/.thunderbird",
                        "/.config/op", "/.terraform.d/credentials.tfrc.json",
                        "/.cargo/credentials.toml", "/.vault-token",
                };
                size_t k;

                for (k = 0; k < SBX__ARRAY_SIZE(must); k++) {
                        int found = 0;

                        for (i = 0; i < n; i++)
                                found |= strcmp(sbx__secret_table_entry(i, NULL), must[k]) == 0;
                        if (!found)
                                fail_msg("%s is not in the secret table", must[k]);
                }
        }
}

/* A golden with a controlled home set: an additional read-only root above
 * a home, the workspace elsewhere. */
static void test_profile_secrets__plan_golden_with_given_homes(void **state)
{
        const char *const homes[] = { G "/people/alice", G "/elsewhere/bob" };
        sbx_root_access r = { G "/people", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        sbx_profile_config cfg = ww_cfg(G "/ws");
        sbx_profile *p = NULL;
        char *text;

        (void) state;
        cfg.additional_roots = &r;
        cfg.n_additional_roots = 1;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, homes, 2, &p, NULL), SBX_OK);
        text = describe(p);
        assert_non_null(strstr(text,
                "fs " G "/people tree r-x additional\n"
                "fs " G "/people/alice/.aws tree --- secret\n"
                "fs " G "/people/alice/.azure tree --- secret\n"
                "fs " G "/people/alice/.boto tree --- secret\n"
                "fs " G "/people/alice/.bundle/config tree --- secret\n"
                "fs " G "/people/alice/.bunfig.toml tree --- secret\n"
                "fs " G "/people/alice/.cargo/config tree --- secret\n"
                "fs " G "/people/alice/.cargo/config.toml tree --- secret\n"
                "fs " G "/people/alice/.cargo/credentials tree --- secret\n"
                "fs " G "/people/alice/.cargo/credentials.toml tree --- secret\n"));
        assert_non_null(strstr(text, "fs " G "/people/alice/.ssh tree --- secret\n"));
        /* bob's home is in no root: the host access decides there */
        assert_null(strstr(text, "bob"));
        assert_int_equal(count(text, " secret\n"), n_fixed());
        free(text);

        /* a Gated root: a grant may open it (as if its read were Allow),
         * so its secrets are hidden in the plan already */
        r.read = SBX_ACCESS_GATED;
        sbx_profile_free(p);
        p = NULL;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, homes, 2, &p, NULL), SBX_OK);
        assert_true(p->n_secrets > 0);
        text = describe(p);
        assert_non_null(strstr(text, "fs " G "/people tree --- additional\n"));
        assert_non_null(strstr(text, "fs " G "/people/alice/.ssh tree --- secret\n"));
        assert_null(strstr(text, "bob"));
        assert_int_equal(count(text, " secret\n"), n_fixed());
        free(text);
        sbx_profile_free(p);

        /* the given homes count for the workspace check too */
        p = SENTINEL;
        cfg = ww_cfg(G "/people");
        assert_sbx_fails(sbx__profile_new_with_homes(&cfg, homes, 2, &p, err), SBX_E_INVALID,
                         "force_workspace");
        assert_ptr_equal(p, SENTINEL);
        /* and a named root wins over the secret at its path */
        {
                sbx_root_access rs[2] = {
                        { G "/people", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },
                        { G "/people/alice/.ssh", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },
                };

                cfg = ww_cfg(G "/ws");
                cfg.additional_roots = rs;
                cfg.n_additional_roots = 2;
                p = NULL;
                assert_int_equal(sbx__profile_new_with_homes(&cfg, homes, 1, &p, NULL), SBX_OK);
                text = describe(p);
                assert_non_null(strstr(text, "fs " G "/people/alice/.ssh tree r-x additional\n"));
                assert_int_equal(count(text, " secret\n"), n_fixed() - 1);
                free(text);
                sbx_profile_free(p);
        }
}

/* With an isolated HOME the account's home is hidden wholesale; a root
 * above it needs no carve-out inside it (rung 1 would have no mount point),
 * a root at it (a forced workspace) does. */
static void test_profile_secrets__account_home_rule(void **state)
{
        struct sbx_profile_secret s = { (char *) G "/people/alice/.ssh",
                                        (char *) G "/people/alice", 1 };
        sbx_root_access r = { G "/people", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        sbx_profile_config cfg = ww_cfg(G "/ws");
        sbx_profile *p = NULL;

        (void) state;
        cfg.additional_roots = &r;
        cfg.n_additional_roots = 1;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, NULL, 0, &p, NULL), SBX_OK);
        assert_int_equal(sbx__profile_secret_applies(p, &s), 0);
        s.account = 0;
        assert_int_equal(sbx__profile_secret_applies(p, &s), 1);
        sbx_profile_free(p);
        /* the real HOME is not hidden: the carve-out is needed */
        s.account = 1;
        cfg.home = SBX_HOME_REAL;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, NULL, 0, &p, NULL), SBX_OK);
        assert_int_equal(sbx__profile_secret_applies(p, &s), 1);
        sbx_profile_free(p);
        /* a workspace at the account's home brings it back */
        cfg = ww_cfg(G "/people/alice");
        cfg.force_workspace = 1;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, NULL, 0, &p, NULL), SBX_OK);
        assert_int_equal(sbx__profile_secret_applies(p, &s), 1);
        sbx_profile_free(p);
        /* host access only, or not readable: nothing to hide */
        cfg = ww_cfg(G "/ws");
        assert_int_equal(sbx__profile_new_with_homes(&cfg, NULL, 0, &p, NULL), SBX_OK);
        assert_int_equal(sbx__profile_secret_applies(p, &s), 0);
        sbx_profile_free(p);
}

static void test_profile_secrets__restrict_keeps_every_secret(void **state)
{
        const char *const ha[] = { G "/people/alice" }, *const hb[] = { G "/people/bob" };
        sbx_root_access r = { G "/people", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        sbx_profile_config cfg = ww_cfg(G "/ws");
        sbx_profile *a = NULL, *b = NULL, *x = NULL;
        char *text;

        (void) state;
        cfg.additional_roots = &r;
        cfg.n_additional_roots = 1;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, ha, 1, &a, NULL), SBX_OK);
        assert_int_equal(sbx__profile_new_with_homes(&cfg, hb, 1, &b, NULL), SBX_OK);
        assert_int_equal(sbx_profile_restrict(a, b, &x, NULL), SBX_OK);
        assert_int_equal(x->n_secrets, a->n_secrets + b->n_secrets);
        text = describe(x);
        assert_non_null(strstr(text, "fs " G "/people/alice/.ssh tree --- secret\n"));
        assert_non_null(strstr(text, "fs " G "/people/bob/.ssh tree --- secret\n"));
        free(text);
        sbx_profile_free(x);
        assert_int_equal(sbx_profile_restrict(a, a, &x, NULL), SBX_OK);
        assert_int_equal(x->n_secrets, a->n_secrets);
        sbx_profile_free(x);
        sbx_profile_free(a);
        sbx_profile_free(b);
        /* bad given homes */
        a = SENTINEL;
        {
                const char *const bad[] = { "relative" };

                assert_sbx_fails(sbx__profile_new_with_homes(&cfg, bad, 1, &a, err),
                                 SBX_E_INVALID, "homes[0]");
                assert_sbx_fails(sbx__profile_new_with_homes(&cfg, NULL, 1, &a, err),
                                 SBX_E_INVALID, "homes");
        }
        assert_ptr_equal(a, SENTINEL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profile_secrets__broad_workspace_is_refused),
                cmocka_unit_test(test_profile_secrets__what_is_not_refused),
                cmocka_unit_test(test_profile_secrets__forced_home_keeps_secrets_hidden),
                cmocka_unit_test(test_profile_secrets__table_is_sane),
                cmocka_unit_test(test_profile_secrets__plan_golden_with_given_homes),
                cmocka_unit_test(test_profile_secrets__root_inside_home_hides_its_secrets),
                cmocka_unit_test(test_profile_secrets__account_home_rule),
                cmocka_unit_test(test_profile_secrets__restrict_keeps_every_secret),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
