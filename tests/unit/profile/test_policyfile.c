/*
 * test_policyfile.c - policy files (sbx_policy_file_*, sbx_profile_from_file
 * and _string): every key and what it sets, the line of every key, every
 * error with its file, line and key, reading a file (missing, a directory,
 * a FIFO, too large, a NUL byte, a byte order mark), the profile a file
 * makes and the environment entries of its spawns.
 *
 * The fixture is a canonical mkdtemp directory F under /tmp with F/ws,
 * F/ro, F/rw and F/dangling -> F/missing; HOME is set to F/home for "~".
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char fx[PATH_MAX];
static char sentinel_storage;
#define SENTINEL ((sbx_policy_file *) &sentinel_storage)

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static void fx_path(char *buf, size_t sz, const char *rel)
{
        (void) snprintf(buf, sz, "%s/%s", fx, rel);
}

static int setup(void **state)
{
        char tmpl[] = "/tmp/sbx-policyfile-XXXXXX";
        char p[PATH_MAX + 32], q[PATH_MAX + 32];
        static const char *const dirs[] = { "ws", "ro", "rw", "home" };
        size_t i;

        (void) state;
        if (mkdtemp(tmpl) == NULL || realpath(tmpl, fx) == NULL)
                return -1;
        for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                fx_path(p, sizeof(p), dirs[i]);
                if (mkdir(p, 0755) != 0)
                        return -1;
        }
        fx_path(p, sizeof(p), "missing");
        fx_path(q, sizeof(q), "dangling");
        if (symlink(p, q) != 0)
                return -1;
        fx_path(p, sizeof(p), "home");
        return setenv("HOME", p, 1);
}

static int teardown(void **state)
{
        (void) state;
        return nftw(fx, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Parse text as "t.json"; the document, or a failure of the test. */
static sbx_policy_file *parse_ok(const char *text)
{
        sbx_policy_file *pf = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_policy_file_parse(text, "t.json", &pf, &e) != SBX_OK)
                fail_msg("parse failed: %s\n%s", e.message, text);
        return pf;
}

/* Parse text as "t.json": fails with code, and the message holds want. */
static void parse_fails(const char *text, sbx_code code, const char *want)
{
        sbx_policy_file *pf = SENTINEL;
        sbx_error e = { 0, 0, { 0 } };
        sbx_code c = sbx_policy_file_parse(text, "t.json", &pf, &e);

        if (c != code || e.code != (int32_t) code || strstr(e.message, want) == NULL)
                fail_msg("%s (%s) for\n%s\nwant %s with \"%s\"", sbx_code_name(c), e.message,
                         text, sbx_code_name(code), want);
        assert_ptr_equal(pf, SENTINEL);         /* out untouched */
}

static sbx_policy_settings settings_of(const sbx_policy_file *pf)
{
        sbx_policy_settings s = SBX_POLICY_SETTINGS_INIT;

        assert_int_equal(sbx_policy_file_settings(pf, &s, NULL), SBX_OK);
        return s;
}

/* ------------------------------------------------------------- keys */

static void test_policyfile__every_key(void **state)
{
        static const char text[] =
                "{\n"                                                   /* 1 */
                "  \"version\": 1,\n"                                   /* 2 */
                "  \"mode\": \"workspace-write\",\n"                    /* 3 */
                "  \"workspace\": \"/srv//project/\",\n"                /* 4 */
                "  \"read_roots\": [\"/opt/sdk\", \"~/.m2\"],\n"        /* 5 */
                "  \"write_roots\": [\n"                                /* 6 */
                "    \"~/.cache/pip\",\n"                               /* 7 */
                "    \"/var/./cache\"\n"                                /* 8 */
                "  ],\n"                                                /* 9 */
                "  \"unix_sockets\": [\"/run/a.sock\"],\n"              /* 10 */
                "  \"env\": {\n"                                        /* 11 */
                "    \"pass\": [\"GOFLAGS\", \"CARGO_HOME\"],\n"        /* 12 */
                "    \"set\": { \"CI\": \"1\", \"NODE_OPTIONS\": \"--x=\\\"y\\\"\" }\n" /* 13 */
                "  },\n"                                                /* 14 */
                "  \"limits\": { \"memory\": \"2G\", \"pids\": 256,\n"  /* 15 */
                "              \"timeout\": 1.5 },\n"                   /* 16 */
                "  \"backend\": \"landlock\",\n"                        /* 17 */
                "  \"network\": {\n"                                    /* 18 */
                "    \"access\": \"deny\",\n"                           /* 19 */
                "    \"allow_hosts\": [\"Registry.NPMJS.org\", \"*.pythonhosted.org:443\",\n" /* 20 */
                "                      \"10.0.0.1\", \"[::1]:8080\", \"[2001:db8::1]\"]\n" /* 21 */
                "  },\n"                                                /* 22 */
                "  \"force_workspace\": true,\n"                        /* 23 */
                "  \"accept_unprotected_git\": false\n"                 /* 24 */
                "}\n";
        char home[PATH_MAX + 32], want[PATH_MAX + 64];
        sbx_policy_file *pf;
        sbx_policy_settings s;
        (void) state;

        fx_path(home, sizeof(home), "home");
        pf = parse_ok(text);
        s = settings_of(pf);
        assert_string_equal(sbx_policy_file_name(pf), "t.json");
        assert_int_equal(s.set, SBX_POLICY_SET_MODE | SBX_POLICY_SET_WORKSPACE |
                                SBX_POLICY_SET_NETWORK | SBX_POLICY_SET_BACKEND |
                                SBX_POLICY_SET_MEMORY | SBX_POLICY_SET_PIDS |
                                SBX_POLICY_SET_TIMEOUT | SBX_POLICY_SET_FORCE_WORKSPACE |
                                SBX_POLICY_SET_ACCEPT_UNPROTECTED_GIT);
        assert_int_equal(s.mode, SBX_MODE_WORKSPACE_WRITE);
        assert_string_equal(s.workspace, "/srv/project");
        assert_int_equal(s.n_read_roots, 2);
        assert_string_equal(s.read_roots[0], "/opt/sdk");
        (void) snprintf(want, sizeof(want), "%s/.m2", home);
        assert_string_equal(s.read_roots[1], want);
        assert_null(s.read_roots[2]);
        assert_int_equal(s.n_write_roots, 2);
        (void) snprintf(want, sizeof(want), "%s/.cache/pip", home);
        assert_string_equal(s.write_roots[0], want);
        assert_string_equal(s.write_roots[1], "/var/cache");
        assert_int_equal(s.n_unix_sockets, 1);
        assert_string_equal(s.unix_sockets[0], "/run/a.sock");
        assert_int_equal(s.n_env_pass, 2);
        assert_string_equal(s.env_pass[0], "GOFLAGS");
        assert_string_equal(s.env_pass[1], "CARGO_HOME");
        assert_int_equal(s.n_env_set, 2);
        assert_string_equal(s.env_set[0], "CI=1");
        assert_string_equal(s.env_set[1], "NODE_OPTIONS=--x=\"y\"");
        assert_true(s.memory_max == 2ull << 30);
        assert_true(s.pids_max == 256);
        assert_true(s.timeout_ms == 1500);
        assert_int_equal(s.backend, SBX_BACKEND_LANDLOCK);
        assert_int_equal(s.network, SBX_ACCESS_DENY);
        assert_int_equal(s.n_allow_hosts, 5);
        assert_string_equal(s.allow_hosts[0], "registry.npmjs.org");
        assert_string_equal(s.allow_hosts[1], "*.pythonhosted.org:443");
        assert_string_equal(s.allow_hosts[2], "10.0.0.1");
        assert_string_equal(s.allow_hosts[3], "[::1]:8080");
        assert_string_equal(s.allow_hosts[4], "[2001:db8::1]");
        assert_int_equal(s.force_workspace, 1);
        assert_int_equal(s.accept_unprotected_git, 0);

        /* The line of every key, and of each array entry. */
        assert_int_equal(sbx_policy_file_line(pf, ""), 1);
        assert_int_equal(sbx_policy_file_line(pf, "version"), 2);
        assert_int_equal(sbx_policy_file_line(pf, "mode"), 3);
        assert_int_equal(sbx_policy_file_line(pf, "workspace"), 4);
        assert_int_equal(sbx_policy_file_line(pf, "read_roots[1]"), 5);
        assert_int_equal(sbx_policy_file_line(pf, "write_roots"), 6);
        assert_int_equal(sbx_policy_file_line(pf, "write_roots[0]"), 7);
        assert_int_equal(sbx_policy_file_line(pf, "write_roots[1]"), 8);
        assert_int_equal(sbx_policy_file_line(pf, "unix_sockets[0]"), 10);
        assert_int_equal(sbx_policy_file_line(pf, "env.pass[1]"), 12);
        assert_int_equal(sbx_policy_file_line(pf, "env.set.NODE_OPTIONS"), 13);
        assert_int_equal(sbx_policy_file_line(pf, "limits.memory"), 15);
        assert_int_equal(sbx_policy_file_line(pf, "limits.timeout"), 16);
        assert_int_equal(sbx_policy_file_line(pf, "backend"), 17);
        assert_int_equal(sbx_policy_file_line(pf, "network.access"), 19);
        assert_int_equal(sbx_policy_file_line(pf, "network.allow_hosts[3]"), 21);
        assert_int_equal(sbx_policy_file_line(pf, "accept_unprotected_git"), 24);
        assert_int_equal(sbx_policy_file_line(pf, "nonexistent"), 0);
        assert_int_equal(sbx_policy_file_line(pf, "read_roots[2]"), 0);
        assert_int_equal(sbx_policy_file_line(pf, NULL), 0);
        assert_int_equal(sbx_policy_file_line(NULL, "mode"), 0);
        sbx_policy_file_free(pf);
}

/* The smallest file sets nothing; memory may be a plain number of bytes,
 * a timeout a whole number of seconds, and access "allow" stands alone. */
static void test_policyfile__minimal_and_plain_numbers(void **state)
{
        sbx_policy_file *pf;
        sbx_policy_settings s;
        (void) state;

        pf = parse_ok("{\"version\": 1}");
        s = settings_of(pf);
        assert_int_equal(s.set, 0);
        assert_null(s.workspace);
        assert_null(s.read_roots);
        assert_int_equal(s.n_env_set, 0);
        sbx_policy_file_free(pf);

        pf = parse_ok("\xEF\xBB\xBF{\"version\": 1, \"limits\": {\"memory\": 1048576, "
                      "\"timeout\": 2}, \"network\": {\"access\": \"allow\"}}");
        s = settings_of(pf);
        assert_true(s.memory_max == 1048576);
        assert_true(s.timeout_ms == 2000);
        assert_int_equal(s.network, SBX_ACCESS_ALLOW);
        sbx_policy_file_free(pf);

        /* A tiny timeout is at least 1 ms; "~" alone is HOME. */
        pf = parse_ok("{\"version\": 1, \"limits\": {\"timeout\": 0.0001}, \"workspace\": \"~\"}");
        s = settings_of(pf);
        assert_true(s.timeout_ms == 1);
        assert_non_null(strstr(s.workspace, "/home"));
        sbx_policy_file_free(pf);
}

/* ------------------------------------------------------------- errors */

struct bad_case {
        const char *text;
        sbx_code    code;
        const char *want;
};

static void test_policyfile__errors_name_file_line_and_key(void **state)
{
        static const struct bad_case cases[] = {
                /* structure */
                { "", SBX_E_INVALID, "t.json:1: empty" },
                { "  \n", SBX_E_INVALID, "t.json:1: empty" },
                { "[1]", SBX_E_INVALID, "t.json:1: a policy file is a JSON object, not an array" },
                { "\n\n{}", SBX_E_INVALID, "t.json:3: version: missing" },
                { "{\"version\": 1,\n \"mode\": \"read-only\",\n}", SBX_E_INVALID,
                  "t.json:3:1: not valid JSON" },
                { "{\"version\": 1,\n \"mode\": \"read-only\"", SBX_E_INVALID,
                  "t.json:2: not valid JSON: the file ends inside a value" },
                { "{\"version\": 1} {}", SBX_E_INVALID, "t.json:1:16: not valid JSON" },
                { "/* c */ {\"version\": 1}", SBX_E_INVALID, "t.json:1:1: not valid JSON" },
                { "{\"version\": 1,\n 'mode': \"read-only\"}", SBX_E_INVALID,
                  "t.json:2: strings and keys take double quotes" },
                { "{\"version\": 1,\n \"limits\": {\"timeout\": NaN}}", SBX_E_INVALID,
                  "t.json:2: limits.timeout: not a JSON value (NaN and Infinity" },
                { "{\"version\": 1,\n \"mode\": \"read\tonly\"}", SBX_E_INVALID,
                  "t.json:2: mode: a control character in a string" },
                { "{\"version\": 1,\n \"mo\\u0000de\": 1}", SBX_E_INVALID,
                  "t.json:2: a key holds \\u0000" },
                /* version */
                { "{\"mode\": \"read-only\"}", SBX_E_INVALID, "t.json:1: version: missing; a "
                  "policy file starts with \"version\": 1" },
                { "{\n\"version\": 2}", SBX_E_UNSUPPORTED, "t.json:2: version: version 2 is newer "
                  "than this library reads (1)" },
                { "{\n\"version\": \"1\"}", SBX_E_INVALID, "t.json:2: version: must be 1, not a "
                  "string" },
                { "{\n\"version\": 0}", SBX_E_INVALID, "t.json:2: version: must be 1, not 0" },
                /* unknown and duplicated keys */
                { "{\"version\": 1,\n\"wirte_roots\": []}", SBX_E_INVALID,
                  "t.json:2: wirte_roots: unknown key (known: version, mode, workspace, "
                  "read_roots, write_roots" },
                { "{\"version\": 1,\n\"network\": {\n \"hosts\": []}}", SBX_E_INVALID,
                  "t.json:3: network.hosts: unknown key (known: access, allow_hosts)" },
                { "{\"version\": 1, \"env\": {\"pass\": [], \n\"sett\": {}}}", SBX_E_INVALID,
                  "t.json:2: env.sett: unknown key (known: pass, set)" },
                { "{\"version\": 1, \"limits\": {\"cpu\": 1}}", SBX_E_INVALID,
                  "t.json:1: limits.cpu: unknown key (known: memory, pids, timeout)" },
                { "{\"version\": 1,\n\"mode\": \"read-only\",\n\"mode\": \"workspace-write\"}",
                  SBX_E_INVALID, "t.json:3: mode: duplicate key (the first is on line 2)" },
                { "{\"version\": 1, \"env\": {\"set\": {\"A\": \"1\",\n \"A\": \"2\"}}}",
                  SBX_E_INVALID, "t.json:2: env.set.A: duplicate key (the first is on line 1)" },
                { "{\"version\": 1,\n\"\\u001b[31m\": 1}", SBX_E_INVALID,
                  "t.json:2: ?[31m: unknown key" },
                /* types and values */
                { "{\"version\": 1,\n\"mode\": 1}", SBX_E_INVALID,
                  "t.json:2: mode: must be a string, not an integer" },
                { "{\"version\": 1,\n\"mode\": \"rw\"}", SBX_E_INVALID,
                  "t.json:2: mode: \"rw\" is not a mode (valid: read-only, workspace-write, "
                  "danger-full-access)" },
                { "{\"version\": 1,\n\"workspace\": null}", SBX_E_INVALID,
                  "t.json:2: workspace: must be a string, not null" },
                { "{\"version\": 1,\n\"workspace\": \"src\"}", SBX_E_INVALID,
                  "t.json:2: workspace: \"src\" is not an absolute path (start it with / or ~/)" },
                { "{\"version\": 1,\n\"read_roots\": [\"/a\",\n \"rel/b\"]}", SBX_E_INVALID,
                  "t.json:3: read_roots[1]: \"rel/b\" is not an absolute path" },
                { "{\"version\": 1,\n\"read_roots\": [\"~user/x\"]}", SBX_E_INVALID,
                  "t.json:2: read_roots[0]: \"~user/x\" is not an absolute path" },
                { "{\"version\": 1,\n\"write_roots\": [\"/a/../b\"]}", SBX_E_INVALID,
                  "t.json:2: write_roots[0]: \"/a/../b\" has a \"..\" component" },
                { "{\"version\": 1,\n\"write_roots\": [\"/a/\", \"/a\"]}", SBX_E_INVALID,
                  "t.json:2: write_roots[1]: the same path as write_roots[0]" },
                { "{\"version\": 1,\n\"write_roots\": \"/a\"}", SBX_E_INVALID,
                  "t.json:2: write_roots: must be an array, not a string" },
                { "{\"version\": 1,\n\"unix_sockets\": [7]}", SBX_E_INVALID,
                  "t.json:2: unix_sockets[0]: must be a string, not an integer" },
                { "{\"version\": 1,\n\"env\": []}", SBX_E_INVALID,
                  "t.json:2: env: must be an object, not an array" },
                { "{\"version\": 1, \"env\": {\n\"pass\": [\"1A\"]}}", SBX_E_INVALID,
                  "t.json:2: env.pass[0]: \"1A\" is not a variable name" },
                { "{\"version\": 1, \"env\": {\n\"pass\": [\"A-B\"]}}", SBX_E_INVALID,
                  "t.json:2: env.pass[0]: \"A-B\" is not a variable name" },
                { "{\"version\": 1, \"env\": {\"pass\": [\"X\",\n\"HOME\"]}}", SBX_E_INVALID,
                  "t.json:2: env.pass[1]: HOME is the sandbox's to set" },
                { "{\"version\": 1, \"env\": {\"pass\": [\"X\",\n\"X\"]}}", SBX_E_INVALID,
                  "t.json:2: env.pass[1]: X is already env.pass[0]" },
                { "{\"version\": 1, \"env\": {\"set\": {\n\"TMPDIR\": \"/x\"}}}", SBX_E_INVALID,
                  "t.json:2: env.set.TMPDIR: TMPDIR is the sandbox's to set" },
                { "{\"version\": 1, \"env\": {\"set\": {\n\"N\": 1}}}", SBX_E_INVALID,
                  "t.json:2: env.set.N: must be a string, not an integer" },
                { "{\"version\": 1, \"env\": {\"set\": {\n\"N\": \"a\\u0000b\"}}}", SBX_E_INVALID,
                  "t.json:2: env.set.N: a string holding a NUL byte" },
                { "{\"version\": 1, \"env\": {\"set\": []}}", SBX_E_INVALID,
                  "t.json:1: env.set: must be an object of NAME: \"VALUE\", not an array" },
                { "{\"version\": 1, \"limits\": {\n\"memory\": 0}}", SBX_E_INVALID,
                  "t.json:2: limits.memory: must be more than 0" },
                { "{\"version\": 1, \"limits\": {\n\"memory\": \"12X\"}}", SBX_E_INVALID,
                  "t.json:2: limits.memory: \"12X\" is not a size" },
                { "{\"version\": 1, \"limits\": {\n\"memory\": 1.5}}", SBX_E_INVALID,
                  "t.json:2: limits.memory: must be a number of bytes or a string like "
                  "\"512M\", not a fractional number" },
                { "{\"version\": 1, \"limits\": {\n\"memory\": 99999999999999999999}}",
                  SBX_E_INVALID, "t.json:2: limits.memory: is too large" },
                { "{\"version\": 1, \"limits\": {\n\"pids\": \"10\"}}", SBX_E_INVALID,
                  "t.json:2: limits.pids: must be a whole number of processes, not a string" },
                { "{\"version\": 1, \"limits\": {\n\"pids\": -3}}", SBX_E_INVALID,
                  "t.json:2: limits.pids: must be more than 0" },
                { "{\"version\": 1, \"limits\": {\n\"timeout\": 0}}", SBX_E_INVALID,
                  "t.json:2: limits.timeout: must be more than 0 and at most a year" },
                { "{\"version\": 1, \"limits\": {\n\"timeout\": 1e9}}", SBX_E_INVALID,
                  "t.json:2: limits.timeout: must be more than 0 and at most a year" },
                { "{\"version\": 1, \"limits\": {\n\"timeout\": \"5s\"}}", SBX_E_INVALID,
                  "t.json:2: limits.timeout: must be a number of seconds, not a string" },
                { "{\"version\": 1,\n\"backend\": \"unavailable\"}", SBX_E_INVALID,
                  "t.json:2: backend: \"unavailable\" is not a backend (valid: auto, native, "
                  "landlock, bwrap" },
                { "{\"version\": 1, \"network\": {\n\"access\": \"gated\"}}", SBX_E_INVALID,
                  "t.json:2: network.access: \"gated\" is not a network access (valid: deny, "
                  "allow)" },
                { "{\"version\": 1,\n\"force_workspace\": \"yes\"}", SBX_E_INVALID,
                  "t.json:2: force_workspace: must be true or false, not a string" },
                { "{\"version\": 1,\n\"accept_unprotected_git\": 1}", SBX_E_INVALID,
                  "t.json:2: accept_unprotected_git: must be true or false, not an integer" },
                /* allow_hosts */
                { "{\"version\": 1, \"network\": {\"access\": \"allow\",\n\"allow_hosts\": "
                  "[\"a.com\"]}}", SBX_E_INVALID, "t.json:2: network.allow_hosts: an allowlist "
                  "with access \"allow\"" },
                { "{\"version\": 1, \"network\": {\"allow_hosts\": [\"A.com\",\n\"a.COM\"]}}",
                  SBX_E_INVALID, "t.json:2: network.allow_hosts[1]: the same host as "
                  "network.allow_hosts[0]" },
                /* danger-full-access runs unconfined */
                { "{\"version\": 1,\n\"mode\": \"danger-full-access\",\n\"read_roots\": [\"/a\"]}",
                  SBX_E_INVALID, "t.json:3: read_roots: mode danger-full-access (line 2) runs "
                  "the command unconfined" },
                { "{\"version\": 1,\n\"mode\": \"danger-full-access\",\n\"limits\": {\"pids\": 1}}",
                  SBX_E_INVALID, "t.json:3: limits.pids: mode danger-full-access (line 2)" },
                { "{\"version\": 1,\n\"mode\": \"danger-full-access\",\n\"network\": "
                  "{\"access\": \"deny\"}}", SBX_E_INVALID, "t.json:3: network.access: mode "
                  "danger-full-access (line 2) runs the command unconfined: the network cannot "
                  "be denied" },
        };
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                parse_fails(cases[i].text, cases[i].code, cases[i].want);
}

static void test_policyfile__bad_hosts(void **state)
{
        static const char *const bad[] = {
                "exa mple.com", "*", "*.", "*.*.a.com", "a.*.com", "host:0", "host:65536",
                "host:", ":80", "[::1", "[::1]80", "[nope]", "1.2.3",
                "0x7f000001", "*.10.0.0.1", "-a.com", "a-.com", "a..b", "h\xc3\xa9.com",
                "a_b.com", "http://a.com", "a.com/x", "",
        };
        char text[256], want[128];
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                (void) snprintf(text, sizeof(text), "{\"version\": 1, \"network\": {\n"
                                "\"allow_hosts\": [\"ok.example\",\n\"%s\"]}}", bad[i]);
                (void) snprintf(want, sizeof(want), "t.json:3: network.allow_hosts[1]: ");
                parse_fails(text, SBX_E_INVALID, want);
                parse_fails(text, SBX_E_INVALID, "allowlist entry");
        }
        /* A label of 63 bytes is a label; 64 is not. */
        (void) snprintf(text, sizeof(text), "{\"version\": 1, \"network\": {\"allow_hosts\": "
                        "[\"%.63s.com\"]}}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        sbx_policy_file_free(parse_ok(text));
        (void) snprintf(text, sizeof(text), "{\"version\": 1, \"network\": {\"allow_hosts\": "
                        "[\"%.64s.com\"]}}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        parse_fails(text, SBX_E_INVALID, "allowlist entry");
        /* The one allowlist grammar (docs/network.md): a bare IPv6 literal,
         * a trailing dot, a +CLASS are entries. */
        sbx_policy_file_free(parse_ok("{\"version\": 1, \"network\": {\"allow_hosts\": "
                                      "[\"localhost\", \"localhost:5432\", \"*.a.b.c\", "
                                      "\"127.0.0.1:8080\", \"xn--bcher-kva.example\", \"::1\", "
                                      "\"a.com.\", \"db.internal:5432+private\"]}}"));
}

/* A long file name is cut from the front so that the line and the key
 * always fit; control characters in it never reach a message. */
static void test_policyfile__long_and_unprintable_names(void **state)
{
        char name[400];
        sbx_policy_file *pf = NULL;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        memset(name, 'd', sizeof(name) - 1);
        name[0] = '/';
        name[sizeof(name) - 1] = '\0';
        memcpy(name + sizeof(name) - 8, "\x1b.json", 7);
        assert_int_equal(sbx_policy_file_parse("{\"version\": 1,\n\"mode\": \"nope\"}", name,
                                               &pf, &e), SBX_E_INVALID);
        assert_true(strncmp(e.message, "...ddd", 6) == 0);
        assert_non_null(strstr(e.message, "d?.json:2: mode: \"nope\" is not a mode"));
        assert_null(strchr(e.message, '\x1b'));
        assert_null(pf);
        /* No name: "<string>". */
        assert_int_equal(sbx_policy_file_parse("{}", NULL, &pf, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "<string>:1: version: missing"));
}

/* HOME unset or relative: "~" is an error naming the key. */
static void test_policyfile__tilde_needs_home(void **state)
{
        char *home = strdup(getenv("HOME"));
        (void) state;

        assert_non_null(home);
        assert_int_equal(unsetenv("HOME"), 0);
        parse_fails("{\"version\": 1,\n\"write_roots\": [\"~/.cache\"]}", SBX_E_INVALID,
                    "t.json:2: write_roots[0]: \"~/.cache\" needs HOME");
        assert_int_equal(setenv("HOME", "relative", 1), 0);
        parse_fails("{\"version\": 1,\n\"workspace\": \"~\"}", SBX_E_INVALID,
                    "t.json:2: workspace: \"~\" needs HOME");
        assert_int_equal(setenv("HOME", home, 1), 0);
        free(home);
}

static void test_policyfile__arguments(void **state)
{
        sbx_policy_file *pf = SENTINEL;
        sbx_policy_settings s = SBX_POLICY_SETTINGS_INIT, z;
        sbx_profile *p = NULL;
        char **env = NULL;
        (void) state;

        assert_sbx_fails(sbx_policy_file_parse(NULL, "x", &pf, err), SBX_E_INVALID,
                         "sbx_policy_file_parse: text is NULL");
        assert_sbx_fails(sbx_policy_file_parse("{}", "x", NULL, err), SBX_E_INVALID,
                         "out is NULL");
        assert_sbx_fails(sbx_policy_file_load(NULL, &pf, err), SBX_E_INVALID,
                         "sbx_policy_file_load: path is NULL");
        assert_sbx_fails(sbx_policy_file_load("", &pf, err), SBX_E_INVALID, "path is empty");
        assert_ptr_equal(pf, SENTINEL);
        assert_sbx_fails(sbx_policy_file_settings(NULL, &s, err), SBX_E_INVALID, "pf is NULL");
        pf = parse_ok("{\"version\": 1}");
        s.version = 7;
        assert_sbx_fails(sbx_policy_file_settings(pf, &s, err), SBX_E_INVALID,
                         "out->version is 7");
        assert_sbx_fails(sbx_policy_file_settings(pf, NULL, err), SBX_E_INVALID, "out is NULL");
        assert_sbx_fails(sbx_policy_file_profile(NULL, "/", &p, err), SBX_E_INVALID,
                         "sbx_policy_file_profile: pf is NULL");
        assert_sbx_fails(sbx_policy_file_profile(pf, "/", NULL, err), SBX_E_INVALID,
                         "out is NULL");
        assert_sbx_fails(sbx_policy_file_profile(pf, NULL, &p, err), SBX_E_INVALID,
                         "no workspace: t.json sets none and workspace_root is NULL");
        assert_sbx_fails(sbx_policy_file_env(NULL, NULL, &env, NULL, err), SBX_E_INVALID,
                         "sbx_policy_file_env: pf is NULL");
        assert_sbx_fails(sbx_policy_file_env(pf, NULL, NULL, NULL, err), SBX_E_INVALID,
                         "out is NULL");
        assert_sbx_fails(sbx_profile_from_file("/x", "/", NULL, err), SBX_E_INVALID,
                         "sbx_profile_from_file: out is NULL");
        assert_sbx_fails(sbx_profile_from_string("{}", NULL, "/", NULL, err), SBX_E_INVALID,
                         "sbx_profile_from_string: out is NULL");
        assert_null(p);
        assert_null(env);
        assert_null(sbx_policy_file_name(NULL));
        sbx_policy_file_free(pf);
        sbx_policy_file_free(NULL);
        sbx_policy_settings_init(NULL);
        memset(&z, 0xff, sizeof(z));
        sbx_policy_settings_init(&z);
        assert_int_equal(z.version, SBX_POLICY_SETTINGS_VERSION);
        assert_int_equal(z.set, 0);
        assert_null(z.allow_hosts);
}

/* ------------------------------------------------------------- files */

static void write_file(const char *path, const char *text, size_t len)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, len), (ssize_t) len);
        assert_int_equal(close(fd), 0);
}

static void test_policyfile__load(void **state)
{
        char path[PATH_MAX + 32], want[PATH_MAX + 64];
        sbx_policy_file *pf = NULL;
        sbx_error e = { 0, 0, { 0 } };
        char *big;
        (void) state;

        fx_path(path, sizeof(path), "p.json");
        write_file(path, "{\r\n  \"version\": 1,\r\n  \"mode\": \"read-only\"\r\n}\r\n", 45);
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_OK);
        assert_string_equal(sbx_policy_file_name(pf), path);
        assert_int_equal(sbx_policy_file_line(pf, "mode"), 3);
        sbx_policy_file_free(pf);
        pf = NULL;

        write_file(path, "{\"version\": 1,\n\"mode\": \"x\"}", 27);
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_INVALID);
        (void) snprintf(want, sizeof(want), "%s:2: mode: \"x\" is not a mode", path);
        assert_non_null(strstr(e.message, want));

        write_file(path, "{\"version\": 1,\n\"mo\0de\": 1}", 26);
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_INVALID);
        (void) snprintf(want, sizeof(want), "%s:2: a NUL byte", path);
        assert_non_null(strstr(e.message, want));

        big = malloc((1u << 20) + 2);
        assert_non_null(big);
        memset(big, ' ', (1u << 20) + 1);
        write_file(path, big, (1u << 20) + 1);
        free(big);
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_RANGE);
        assert_non_null(strstr(e.message, "larger than 1048576 bytes"));

        fx_path(path, sizeof(path), "none.json");
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_NOT_FOUND);
        assert_int_equal(e.sys_errno, ENOENT);
        assert_non_null(strstr(e.message, "none.json: cannot open"));

        fx_path(path, sizeof(path), "ws");
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "not a regular file"));

        /* A FIFO in its place neither hangs nor is read. */
        fx_path(path, sizeof(path), "fifo.json");
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(sbx_policy_file_load(path, &pf, &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "not a regular file"));
        assert_null(pf);
}

/* ------------------------------------------------------------- profile */

static void test_policyfile__profile(void **state)
{
        static char text[10 * PATH_MAX];
        char ws[PATH_MAX + 32], ro[PATH_MAX + 32], rw[PATH_MAX + 32];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_policy_file *pf;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        fx_path(ws, sizeof(ws), "ws");
        fx_path(ro, sizeof(ro), "ro");
        fx_path(rw, sizeof(rw), "rw");
        (void) snprintf(text, sizeof(text),
                        "{\"version\": 1, \"workspace\": \"%s\",\n"
                        " \"read_roots\": [\"%s\", \"%s/\", \"%s\"],\n"
                        " \"write_roots\": [\"%s\", \"%s\"],\n"
                        " \"unix_sockets\": [\"%s/agent.sock\"],\n"
                        " \"network\": {\"access\": \"allow\"}, \"accept_unprotected_git\": true}",
                        ws, ro, rw, ws, rw, ws, fx);
        pf = parse_ok(text);
        assert_int_equal(sbx_policy_file_profile(pf, NULL, &p, &e), SBX_OK);
        assert_int_equal(sbx_profile_config_get(p, &cfg, &e), SBX_OK);
        assert_string_equal(cfg.workspace_root, ws);
        /* read-only by default, but the workspace is a write root */
        assert_int_equal(cfg.workspace_write, SBX_ACCESS_ALLOW);
        assert_int_equal(cfg.network, SBX_ACCESS_ALLOW);
        assert_int_equal(cfg.n_additional_roots, 2);
        assert_string_equal(cfg.additional_roots[0].path, ro);
        assert_int_equal(cfg.additional_roots[0].write, SBX_ACCESS_DENY);
        assert_string_equal(cfg.additional_roots[1].path, rw);
        assert_int_equal(cfg.additional_roots[1].read, SBX_ACCESS_ALLOW);
        assert_int_equal(cfg.additional_roots[1].write, SBX_ACCESS_ALLOW);
        assert_int_equal(cfg.n_unix_sockets, 1);
        assert_int_equal(cfg.accept_unprotected_git, 1);
        assert_int_equal(cfg.force_workspace, 0);
        assert_int_equal(cfg.isolation, SBX_ISOLATION_SANDBOXED);
        sbx_profile_free(p);
        p = NULL;

        /* workspace_root wins over the file's. */
        assert_int_equal(sbx_policy_file_profile(pf, rw, &p, &e), SBX_OK);
        assert_string_equal(sbx_profile_workspace_root(p), rw);
        sbx_profile_free(p);
        p = NULL;
        sbx_policy_file_free(pf);

        /* The mode's profile. */
        assert_int_equal(sbx_profile_from_string("{\"version\": 1, \"mode\": "
                                                 "\"workspace-write\"}", NULL, ws, &p, &e),
                         SBX_OK);
        assert_int_equal(sbx_profile_config_get(p, &cfg, &e), SBX_OK);
        assert_int_equal(cfg.workspace_write, SBX_ACCESS_ALLOW);
        assert_int_equal(cfg.network, SBX_ACCESS_DENY);
        assert_int_equal(cfg.n_additional_roots, 0);
        sbx_profile_free(p);
        p = NULL;
        assert_int_equal(sbx_profile_from_string("{\"version\": 1, \"mode\": "
                                                 "\"danger-full-access\"}", NULL, ws, &p, &e),
                         SBX_OK);
        assert_int_equal(sbx_profile_config_get(p, &cfg, &e), SBX_OK);
        assert_int_equal(cfg.isolation, SBX_ISOLATION_UNCONFINED);
        sbx_profile_free(p);
        p = NULL;

        /* A root that cannot be resolved names the file, line and key. */
        (void) snprintf(text, sizeof(text), "{\"version\": 1,\n\"read_roots\": "
                        "[\"%s/dangling\"]}", fx);
        assert_int_equal(sbx_profile_from_string(text, "t.json", ws, &p, &e), SBX_E_IO);
        assert_non_null(strstr(e.message, "t.json:2: read_roots[0]: "));
        assert_non_null(strstr(e.message, "dangling symlink"));
        assert_null(p);
        /* sbx_profile_new's checks still apply: a broad workspace. */
        assert_int_equal(sbx_profile_from_string("{\"version\": 1}", "t.json", "/", &p, &e),
                         SBX_E_INVALID);
        assert_non_null(strstr(e.message, "force_workspace"));
        assert_null(p);
}

static void test_policyfile__from_file(void **state)
{
        char path[PATH_MAX + 32], ws[PATH_MAX + 32], text[PATH_MAX + 128];
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        fx_path(ws, sizeof(ws), "ws");
        fx_path(path, sizeof(path), "f.json");
        (void) snprintf(text, sizeof(text), "{\"version\": 1, \"workspace\": \"%s\"}\n", ws);
        write_file(path, text, strlen(text));
        assert_int_equal(sbx_profile_from_file(path, NULL, &p, &e), SBX_OK);
        assert_string_equal(sbx_profile_workspace_root(p), ws);
        sbx_profile_free(p);
        p = NULL;
        fx_path(path, sizeof(path), "none.json");
        assert_int_equal(sbx_profile_from_file(path, ws, &p, &e), SBX_E_NOT_FOUND);
        assert_null(p);
}

/* examples/policy.json (docs/policy-file.md shows it) is a valid file. */
static void test_policyfile__example_file(void **state)
{
        const char *src = getenv("SBX_TEST_SRCDIR");
        char path[PATH_MAX];
        sbx_policy_file *pf = NULL;
        sbx_policy_settings s;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        if (src == NULL)
                skip();
        (void) snprintf(path, sizeof(path), "%s/examples/policy.json", src);
        if (sbx_policy_file_load(path, &pf, &e) != SBX_OK)
                fail_msg("%s", e.message);
        s = settings_of(pf);
        assert_int_equal(s.mode, SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(s.n_write_roots, 2);
        assert_int_equal(s.n_allow_hosts, 2);
        assert_true(s.timeout_ms == 1800000);
        sbx_policy_file_free(pf);
}

/* -------------------------------------------------------------- env */

static void test_policyfile__env(void **state)
{
        const char *const envp[] = { "GOFLAGS=-mod=mod", "PATH=/bin", "CI=0", "OTHER=x", NULL };
        sbx_policy_file *pf;
        char **env = NULL;
        size_t n = 99;
        (void) state;

        pf = parse_ok("{\"version\": 1, \"env\": {\"pass\": [\"GOFLAGS\", \"UNSET_HERE\", "
                      "\"CI\"], \"set\": {\"CI\": \"1\", \"X\": \"a=b\"}}}");
        assert_int_equal(sbx_policy_file_env(pf, envp, &env, &n, NULL), SBX_OK);
        assert_int_equal(n, 3);
        assert_string_equal(env[0], "GOFLAGS=-mod=mod");
        assert_string_equal(env[1], "CI=1");
        assert_string_equal(env[2], "X=a=b");
        assert_null(env[3]);
        sbx_strv_free(env);
        sbx_policy_file_free(pf);

        /* Nothing to add: an empty vector. */
        pf = parse_ok("{\"version\": 1}");
        env = NULL;
        assert_int_equal(sbx_policy_file_env(pf, envp, &env, NULL, NULL), SBX_OK);
        assert_non_null(env);
        assert_null(env[0]);
        sbx_strv_free(env);
        sbx_policy_file_free(pf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_policyfile__every_key),
                cmocka_unit_test(test_policyfile__minimal_and_plain_numbers),
                cmocka_unit_test(test_policyfile__errors_name_file_line_and_key),
                cmocka_unit_test(test_policyfile__bad_hosts),
                cmocka_unit_test(test_policyfile__long_and_unprintable_names),
                cmocka_unit_test(test_policyfile__tilde_needs_home),
                cmocka_unit_test(test_policyfile__arguments),
                cmocka_unit_test(test_policyfile__load),
                cmocka_unit_test(test_policyfile__profile),
                cmocka_unit_test(test_policyfile__from_file),
                cmocka_unit_test(test_policyfile__example_file),
                cmocka_unit_test(test_policyfile__env),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
