/*
 * session_internal.h - the session layer's private interface (not installed).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_SESSION_INTERNAL_H
#define SBX_SESSION_INTERNAL_H

#include "core/internal.h"

/*
 * Limits that keep a hostile or damaged log from exhausting memory.  A
 * record the library writes is about 100 bytes, so both are far above any
 * real log: 64 MiB is more than half a million mode changes.
 *   - a file larger than SBX__SESSION_LOG_MAX_FILE is refused (SBX_E_RANGE);
 *   - a line longer than SBX__SESSION_LOG_MAX_LINE (not counting its '\n')
 *     is corrupt (SBX_E_CORRUPT), the unterminated last line included: the
 *     library never writes such a line, so it cannot be a torn append.
 */
#define SBX__SESSION_LOG_MAX_FILE ((size_t) 64 * 1024 * 1024)
#define SBX__SESSION_LOG_MAX_LINE ((size_t) 64 * 1024)

/*
 * Replay a session log held in memory: the pure core of
 * sbx_session_log_open(), exposed so the fuzzer can drive it without files.
 *
 * buf[0..len) holds JSON Lines of sandbox/mode records (buf may be NULL
 * only when len == 0).  Every line terminated by '\n' must be a valid
 * record.  The bytes after the last '\n' (the tail) are:
 *   - a valid record: kept (a complete record is never dropped);
 *   - not one complete JSON value (incomplete, a syntax error, trailing
 *     garbage, a NUL byte): a torn append; *torn_bytes_out = its length and
 *     the caller cuts it off;
 *   - a complete JSON value that is not a valid record: SBX_E_CORRUPT.  A
 *     torn prefix of a record is never a complete value, so this is damage
 *     (or a newer writer's record), and it is not silently thrown away.
 *
 * Returns SBX_OK and sets *events_out (malloc'd, release with sbx_free();
 * NULL when *n_out == 0), *n_out and *torn_bytes_out.  Outputs are written
 * only on success.
 * Errors: SBX_E_INVALID (arguments), SBX_E_RANGE (len above
 * SBX__SESSION_LOG_MAX_FILE), SBX_E_CORRUPT (message
 * "sbx__session_log_replay_buf: line N: <reason>"), SBX_E_NOMEM.
 * Thread-safety: pure.
 */
sbx_code sbx__session_log_replay_buf(const char *buf, size_t len, sbx_mode_event **events_out,
                                     size_t *n_out, size_t *torn_bytes_out, sbx_error *err);

#endif /* SBX_SESSION_INTERNAL_H */
