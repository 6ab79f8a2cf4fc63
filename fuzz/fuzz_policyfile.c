/*
 * fuzz_policyfile.c - libFuzzer harness for policy files
 * (sbx__pf_parse_text, the core of sbx_policy_file_load and _parse: the
 * json-c parse, the key-line scanner and the schema).
 *
 * Invariants, each a __builtin_trap() when broken:
 *   - the result is one of SBX_OK, SBX_E_INVALID, SBX_E_UNSUPPORTED,
 *     SBX_E_RANGE, SBX_E_NOMEM, err.code equals it, and on failure no
 *     document is written;
 *   - a message is NUL-terminated, starts with the file's name and holds
 *     no control character (a file's bytes never reach a terminal raw);
 *   - on SBX_OK every list is NULL-terminated with its count, every path
 *     absolute without "..", every host lower-case, every env.set entry
 *     NAME=VALUE, the mode and backend valid when set, and every entry has
 *     a line (the key path "read_roots[i]" and so on);
 *   - parsing is deterministic: a second parse gives the same result.
 *
 * Seeds: fuzz/corpus/policyfile/ (the example, every key, roots and
 * hosts); .ci/run passes them after the writable corpus.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile/policyfile_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
        do { \
                if (!(cond)) \
                        __builtin_trap(); \
        } while (0)

static void check_list(const sbx_policy_file *pf, const char *key, const char *const *v,
                       size_t n, int paths)
{
        char path[64];
        size_t i;

        CHECK((v == NULL) == (n == 0));
        for (i = 0; i < n; i++) {
                CHECK(v[i] != NULL);
                if (paths)
                        CHECK(v[i][0] == '/' && strstr(v[i], "/../") == NULL);
                (void) snprintf(path, sizeof(path), "%s[%zu]", key, i);
                if (strcmp(key, "env.set") != 0)
                        CHECK(sbx_policy_file_line(pf, path) > 0);
        }
        CHECK(n == 0 || v[n] == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static char sentinel;
        sbx_policy_file *const poison = (sbx_policy_file *) (void *) &sentinel;
        sbx_policy_file *pf = poison, *again = poison;
        sbx_policy_settings s = SBX_POLICY_SETTINGS_INIT;
        sbx_error err = { 0, 0, { 0 } }, err2 = { 0, 0, { 0 } };
        sbx_code r, r2;
        size_t i;

        if (size > SBX__PF_MAX_BYTES)
                return 0;
        r = sbx__pf_parse_text("fuzz", "f.json", (const char *) data, size, &pf, &err);
        CHECK(r == SBX_OK || r == SBX_E_INVALID || r == SBX_E_UNSUPPORTED ||
              r == SBX_E_RANGE || r == SBX_E_NOMEM);
        r2 = sbx__pf_parse_text("fuzz", "f.json", (const char *) data, size, &again, &err2);
        CHECK(r2 == r);
        if (r != SBX_OK) {
                CHECK(pf == poison && again == poison);
                CHECK(err.code == (int32_t) r);
                CHECK(memchr(err.message, '\0', sizeof(err.message)) != NULL);
                CHECK(strncmp(err.message, "f.json", 6) == 0 || r == SBX_E_NOMEM);
                for (i = 0; err.message[i] != '\0'; i++)
                        CHECK((unsigned char) err.message[i] >= 0x20 &&
                              (unsigned char) err.message[i] != 0x7f);
                CHECK(strcmp(err.message, err2.message) == 0);
                return 0;
        }
        CHECK(pf != poison && pf != NULL && again != poison && again != NULL);
        CHECK(sbx_policy_file_settings(pf, &s, NULL) == SBX_OK);
        CHECK(sbx_policy_file_line(pf, "") > 0);
        CHECK(!(s.set & SBX_POLICY_SET_MODE) || sbx_mode_is_valid(s.mode));
        CHECK(!(s.set & SBX_POLICY_SET_BACKEND) || s.backend != SBX_BACKEND_UNAVAILABLE);
        CHECK(!(s.set & SBX_POLICY_SET_WORKSPACE) || s.workspace[0] == '/');
        CHECK(!(s.set & SBX_POLICY_SET_MEMORY) || s.memory_max > 0);
        CHECK(!(s.set & SBX_POLICY_SET_TIMEOUT) || s.timeout_ms > 0);
        check_list(pf, "read_roots", s.read_roots, s.n_read_roots, 1);
        check_list(pf, "write_roots", s.write_roots, s.n_write_roots, 1);
        check_list(pf, "unix_sockets", s.unix_sockets, s.n_unix_sockets, 1);
        check_list(pf, "env.pass", s.env_pass, s.n_env_pass, 0);
        check_list(pf, "env.set", s.env_set, s.n_env_set, 0);
        check_list(pf, "network.allow_hosts", s.allow_hosts, s.n_allow_hosts, 0);
        for (i = 0; i < s.n_env_set; i++)
                CHECK(strchr(s.env_set[i], '=') != NULL && s.env_set[i][0] != '=');
        for (i = 0; i < s.n_allow_hosts; i++) {
                const char *h;

                for (h = s.allow_hosts[i]; *h != '\0'; h++)
                        CHECK(!(*h >= 'A' && *h <= 'Z'));
        }
        CHECK(!(s.n_allow_hosts > 0 && (s.set & SBX_POLICY_SET_NETWORK) &&
                s.network == SBX_ACCESS_ALLOW));
        sbx_policy_file_free(pf);
        sbx_policy_file_free(again);
        return 0;
}
