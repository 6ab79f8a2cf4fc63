/*
 * fuzz_profile.c - libFuzzer harness for sbx_profile_new,
 * sbx_profile_access_for, sbx_profile_restrict and sbx_profile_fingerprint.
 *
 * Input layout:
 *   bytes 0..11  the config: workspace read/write, host read/write,
 *                network, command (each % 4, so 3 is an invalid value),
 *                home, isolation, ack (each % 3), the number of additional
 *                roots (% 4), and two bytes of root access (2 bits per
 *                field per root, % 4)
 *   then         lines split on '\n': the first n are additional root
 *                suffixes (each root is "/nonexistent-sbx-fuzz" + line, so
 *                nothing exists and no file system state matters), the next
 *                line is a kind, and everything after it is the scope
 *
 * The workspace root is "/nonexistent-sbx-fuzz/ws".
 *
 * Properties (a violation traps):
 *   - a failed sbx_profile_new leaves *out untouched;
 *   - access_for with the fuzzed kind and with each of the four kinds never
 *     returns SBX_OK for a scope an independent reference grammar rejects,
 *     always returns SBX_OK for a filesystem path/host scope the reference
 *     accepts, returns 0..2, leaves the output untouched on error, and for
 *     a plain path equals an independent deepest-root computation;
 *   - restrict(p, p) and sbx_profile_new(config_get(p)) have p's
 *     fingerprint; restrict(p, read-only) is never wider than either.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sandbox.h>

/* A NUL-terminated copy of len bytes (which may hold NULs themselves);
 * strndup would scan the fuzzer's unterminated buffer. */
static char *dup_bytes(const char *p, size_t len)
{
        char *s = malloc(len + 1);

        if (s != NULL) {
                memcpy(s, p, len);
                s[len] = '\0';
        }
        return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define WS "/nonexistent-sbx-fuzz/ws"
#define UNTOUCHED 77

/* ------------------------------------------------------- reference */

/* Component-aware prefix on canonical paths ("/" contains everything). */
static int ref_within(const char *path, const char *root)
{
        size_t n = strlen(root);

        if (strcmp(root, "/") == 0)
                return 1;
        return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Syntactically canonical absolute path. */
static int ref_path_ok(const char *s)
{
        size_t n = strlen(s), i;

        if (n == 0 || s[0] != '/' || n >= SBX_PATH_MAX)
                return 0;
        if (n == 1)
                return 1;
        if (s[n - 1] == '/')
                return 0;
        for (i = 0; i < n; i++) {
                if (s[i] != '/')
                        continue;
                /* s[i] == '/', the component is s[i+1 .. next '/') */
                if (s[i + 1] == '/')
                        return 0;
                if (s[i + 1] == '.' && (s[i + 2] == '/' || s[i + 2] == '\0'))
                        return 0;
                if (s[i + 1] == '.' && s[i + 2] == '.' && (s[i + 3] == '/' || s[i + 3] == '\0'))
                        return 0;
        }
        return 1;
}

static int32_t ref_path_access(const sbx_profile_config *c, const char *path, int write)
{
        size_t best = 0, i;
        int32_t a = write ? c->host_write : c->host_read;

        if (ref_within(path, c->workspace_root)) {
                best = strlen(c->workspace_root);
                a = write ? c->workspace_write : c->workspace_read;
        }
        for (i = 0; i < c->n_additional_roots; i++) {
                const sbx_root_access *r = &c->additional_roots[i];

                if (ref_within(path, r->path) && strlen(r->path) > best) {
                        best = strlen(r->path);
                        a = write ? r->write : r->read;
                }
        }
        return a;
}

/* A loose necessary condition for a network scope. */
static int ref_network_plausible(const char *s)
{
        size_t n = strlen(s);
        const char *colon = strrchr(s, ':');

        if (strcmp(s, "*") == 0)
                return 1;
        if (colon == NULL || colon == s || n < 3 || n > 300)
                return 0;
        if (colon[1] < '1' || colon[1] > '9' || strlen(colon + 1) > 5)
                return 0;
        for (const char *p = colon + 1; *p != '\0'; p++)
                if (*p < '0' || *p > '9')
                        return 0;
        if (atoi(colon + 1) > 65535)
                return 0;
        for (const char *p = s; p < colon; p++)
                if (*p == ' ' || *p == '/' || *p == '@' || *p == '%' || *p == '_')
                        return 0;
        return 1;
}

/* A necessary condition for a command: bytes only (UTF-8 is checked by the
 * library; here: no ASCII control, no ASCII space at either end). */
static int ref_command_plausible(const char *s)
{
        size_t n = strlen(s), i;

        if (n == 0 || n > 65536 || s[0] == ' ' || s[n - 1] == ' ')
                return 0;
        for (i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c < 0x20 || c == 0x7f || c == 0xc0 || c == 0xc1 || c >= 0xf5)
                        return 0;
        }
        return 1;
}

/* ------------------------------------------------------- checks */

static void check_kind(const sbx_profile *p, const sbx_profile_config *cfg, const char *kind,
                       const char *scope)
{
        int32_t a = UNTOUCHED;
        sbx_error e;
        sbx_code r = sbx_profile_access_for(p, 1, kind, scope, &a, &e);
        int fs_read = strcmp(kind, "filesystem.read") == 0;
        int fs_write = strcmp(kind, "filesystem.write") == 0;

        if (r != SBX_OK) {
                CHECK(a == UNTOUCHED);
                CHECK(e.code == (int32_t) r);
                CHECK(memchr(e.message, '\0', sizeof(e.message)) != NULL);
                /* the message never carries control characters */
                for (const char *m = e.message; *m != '\0'; m++)
                        CHECK((unsigned char) *m >= 0x20 && *m != 0x7f);
        } else {
                CHECK(a >= SBX_ACCESS_DENY && a <= SBX_ACCESS_ALLOW);
        }
        /* a wrong version never answers */
        CHECK(sbx_profile_access_for(p, 2, kind, scope, &a, NULL) == SBX_E_UNSUPPORTED);

        if (fs_read || fs_write) {
                if (strcmp(scope, "host") == 0) {
                        CHECK(r == SBX_OK);
                        CHECK(a == (fs_write ? cfg->host_write : cfg->host_read));
                } else if (strncmp(scope, "tree:", 5) == 0) {
                        if (r == SBX_OK)
                                CHECK(ref_path_ok(scope + 5));
                        if (!ref_path_ok(scope + 5))
                                CHECK(r == SBX_E_INVALID);
                        else
                                CHECK(r == SBX_OK || r == SBX_E_NOT_FOUND);
                        if (r == SBX_OK)
                                CHECK(a == ref_path_access(cfg, scope + 5, fs_write));
                } else if (ref_path_ok(scope)) {
                        CHECK(r == SBX_OK);
                        CHECK(a == ref_path_access(cfg, scope, fs_write));
                } else {
                        CHECK(r == SBX_E_INVALID);
                }
        } else if (strcmp(kind, "network") == 0) {
                if (r == SBX_OK) {
                        CHECK(ref_network_plausible(scope));
                        CHECK(a == cfg->network);
                } else {
                        CHECK(r == SBX_E_INVALID);
                }
        } else if (strcmp(kind, "command.execute") == 0) {
                if (r == SBX_OK) {
                        CHECK(ref_command_plausible(scope));
                        CHECK(a == cfg->command);
                } else {
                        CHECK(r == SBX_E_INVALID);
                }
        } else {
                CHECK(r == SBX_E_INVALID);
        }
}

static void fingerprint(const sbx_profile *p, char out[SBX_FINGERPRINT_SIZE])
{
        CHECK(sbx_profile_fingerprint(p, out, SBX_FINGERPRINT_SIZE, NULL) == SBX_OK);
        CHECK(strlen(out) == 64);
}

static void check_profile(const sbx_profile *p, const char *kind, const char *scope)
{
        static const char *const kinds[] = {
                "filesystem.read", "filesystem.write", "network", "command.execute",
        };
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        char f1[SBX_FINGERPRINT_SIZE], f2[SBX_FINGERPRINT_SIZE];
        sbx_profile *q = NULL, *ro = NULL, *r = NULL;
        size_t i;

        CHECK(sbx_profile_config_get(p, &cfg, NULL) == SBX_OK);
        check_kind(p, &cfg, kind, scope);
        for (i = 0; i < 4; i++)
                check_kind(p, &cfg, kinds[i], scope);

        fingerprint(p, f1);
        CHECK(sbx_profile_restrict(p, p, &q, NULL) == SBX_OK);
        fingerprint(q, f2);
        CHECK(strcmp(f1, f2) == 0);
        sbx_profile_free(q);
        q = NULL;
        CHECK(sbx_profile_new(&cfg, &q, NULL) == SBX_OK);
        fingerprint(q, f2);
        CHECK(strcmp(f1, f2) == 0);
        sbx_profile_free(q);

        /* never wider than either side, for every kind on this scope */
        CHECK(sbx_profile_from_mode(SBX_MODE_READ_ONLY, "/nonexistent-sbx-fuzz/ws/sub", &ro,
                                    NULL) == SBX_OK);
        CHECK(sbx_profile_restrict(p, ro, &r, NULL) == SBX_OK);
        for (i = 0; i < 4; i++) {
                int32_t ap = UNTOUCHED, aro = UNTOUCHED, ar = UNTOUCHED;
                sbx_code cp = sbx_profile_access_for(p, 1, kinds[i], scope, &ap, NULL);
                sbx_code cro = sbx_profile_access_for(ro, 1, kinds[i], scope, &aro, NULL);
                sbx_code cr = sbx_profile_access_for(r, 1, kinds[i], scope, &ar, NULL);

                if (strncmp(scope, "tree:", 5) == 0)
                        continue;       /* the root sets differ by design */
                CHECK(cp == cro && cp == cr);
                if (cr == SBX_OK)
                        CHECK(ar == (ap < aro ? ap : aro));
        }
        sbx_profile_free(r);
        sbx_profile_free(ro);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        enum { HDR = 12, MAXR = 3 };
        char paths[MAXR][512];
        sbx_root_access roots[MAXR];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = (sbx_profile *) &cfg;  /* a sentinel */
        const char *rest, *end, *nl;
        char *kind, *scope;
        size_t n_roots, i, len;

        if (size < HDR)
                return 0;
        cfg.workspace_root = WS;
        cfg.workspace_read = data[0] % 4;
        cfg.workspace_write = data[1] % 4;
        cfg.host_read = data[2] % 4;
        cfg.host_write = data[3] % 4;
        cfg.network = data[4] % 4;
        cfg.command = data[5] % 4;
        cfg.home = data[6] % 3;
        cfg.isolation = data[7] % 3;
        cfg.ack_unconfined = data[8] % 3;
        n_roots = data[9] % 4;
        rest = (const char *) data + HDR;
        end = (const char *) data + size;
        for (i = 0; i < n_roots; i++) {
                nl = memchr(rest, '\n', (size_t) (end - rest));
                len = (size_t) ((nl != NULL ? nl : end) - rest);
                if (len > 400)
                        len = 400;
                (void) snprintf(paths[i], sizeof(paths[i]), "/nonexistent-sbx-fuzz%.*s",
                                (int) len, rest);
                roots[i].path = paths[i];
                roots[i].read = (data[10] >> (2 * i)) & 3;
                roots[i].write = (data[11] >> (2 * i)) & 3;
                rest = nl != NULL ? nl + 1 : end;
        }
        cfg.additional_roots = n_roots > 0 ? roots : NULL;
        cfg.n_additional_roots = n_roots;

        nl = memchr(rest, '\n', (size_t) (end - rest));
        len = (size_t) ((nl != NULL ? nl : end) - rest);
        kind = dup_bytes(rest, len);
        rest = nl != NULL ? nl + 1 : end;
        scope = dup_bytes(rest, (size_t) (end - rest));
        if (kind == NULL || scope == NULL) {
                free(kind);
                free(scope);
                return 0;
        }

        if (sbx_profile_new(&cfg, &p, NULL) == SBX_OK) {
                check_profile(p, kind, scope);
                sbx_profile_free(p);
        } else {
                CHECK(p == (sbx_profile *) &cfg);
        }
        free(kind);
        free(scope);
        return 0;
}
