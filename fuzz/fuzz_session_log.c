/*
 * fuzz_session_log.c - libFuzzer harness for the session-log replay
 * (sbx__session_log_replay_buf, the pure core of sbx_session_log_open).
 *
 * Invariants, each a __builtin_trap() when broken:
 *   - the result is one of SBX_OK, SBX_E_CORRUPT, SBX_E_RANGE, SBX_E_NOMEM
 *     and err.code equals it on failure;
 *   - on failure no output is written;
 *   - on SBX_OK every event passes sbx__mode_event_check, torn_bytes <= size,
 *     the array is NULL exactly when there are no events, and a non-zero
 *     torn tail is the unterminated end of the input (no '\n' in it, and
 *     preceded by '\n' or the start);
 *   - replay is deterministic: a second run gives the same result.
 *
 * Seeds: fuzz/corpus/session_log/ holds small valid logs (every mode and
 * source, a torn tail, a last record without '\n', extra whitespace and
 * another field order).  From an empty corpus libFuzzer rarely builds a
 * whole record, so it hardly gets past the JSON parse into the record
 * checks; .ci/run passes the seeds after the writable corpus.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "policy/policy_internal.h"
#include "session/session_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
        do { \
                if (!(cond)) \
                        __builtin_trap(); \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const sbx_mode_event sentinel_ev = SBX_MODE_EVENT_INIT;
        sbx_mode_event *const poison = (sbx_mode_event *) (uintptr_t) &sentinel_ev;
        const char *buf = (const char *) data;
        sbx_mode_event *events = poison, *again = poison;
        size_t n = (size_t) -1, torn = (size_t) -1, n2 = (size_t) -1, torn2 = (size_t) -1;
        sbx_error err = { 0, 0, { 0 } }, err2 = { 0, 0, { 0 } };
        sbx_code r, r2;
        size_t i;

        r = sbx__session_log_replay_buf(buf, size, &events, &n, &torn, &err);
        CHECK(r == SBX_OK || r == SBX_E_CORRUPT || r == SBX_E_RANGE || r == SBX_E_NOMEM);
        if (r != SBX_OK) {
                CHECK(err.code == (int32_t) r);
                CHECK(memchr(err.message, '\0', sizeof(err.message)) != NULL);
                CHECK(events == poison && n == (size_t) -1 && torn == (size_t) -1);
        } else {
                CHECK(torn <= size);
                CHECK((events == NULL) == (n == 0));
                CHECK(n <= size);
                for (i = 0; i < n; i++)
                        CHECK(sbx__mode_event_check(&events[i], "fuzz", NULL) == SBX_OK);
                if (torn > 0) {
                        CHECK(memchr(buf + size - torn, '\n', torn) == NULL);
                        CHECK(torn == size || buf[size - torn - 1] == '\n');
                        CHECK(torn <= SBX__SESSION_LOG_MAX_LINE);
                }
        }

        /* Deterministic and without hidden state. */
        r2 = sbx__session_log_replay_buf(buf, size, &again, &n2, &torn2, &err2);
        CHECK(r2 == r || r2 == SBX_E_NOMEM || r == SBX_E_NOMEM);
        if (r == SBX_OK && r2 == SBX_OK) {
                CHECK(n2 == n && torn2 == torn);
                CHECK(n == 0 || memcmp(events, again, n * sizeof(*events)) == 0);
        }
        if (r != SBX_OK && r2 == r)
                CHECK(strcmp(err.message, err2.message) == 0);

        if (r == SBX_OK)
                sbx_free(events);
        if (r2 == SBX_OK)
                sbx_free(again);
        return 0;
}
