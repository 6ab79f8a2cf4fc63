/*
 * log.c - the durable session log: an append-only JSON Lines file of
 * sandbox/mode events, replayed when it is opened.
 *
 * On-disk format: one record per line, each terminated by '\n':
 *   {"type":"sandbox/mode","mode":"workspace-write","source":"user","ts":1700000000000}
 * Every field is required, no other field is allowed, ts is an integer
 * number of Unix milliseconds >= 0.  json-c parses (strict mode) and
 * writes the records; there is no hand-written JSON parser here.
 *
 * Durability: an append is one write(2) of one complete line followed by
 * fsync(2), and the event joins the in-memory array only after the fsync
 * succeeded.  A crash can therefore leave at most one torn (unterminated)
 * line at the end of the file, which the next open reports and cuts off.
 *
 * Size: open refuses a file above SBX__SESSION_LOG_MAX_FILE, so append
 * refuses (SBX_E_RANGE, nothing written, handle still usable) a record
 * that would take the file past it: the log always stays openable.
 *
 * Builds on: POSIX (json-c and flock(2); src/windows/unported.c answers on Windows).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <json.h>

#include "policy/policy_internal.h"
#include "session/session_internal.h"

#define REPLAY_FN "sbx__session_log_replay_buf"
#define RECORD_TYPE "sandbox/mode"

/* Strict: no trailing characters after the value.  UTF-8 is validated
 * where json-c can (0.15 and later). */
#ifdef JSON_TOKENER_VALIDATE_UTF8
#  define TOKENER_FLAGS (JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
#else
#  define TOKENER_FLAGS JSON_TOKENER_STRICT
#endif

/* "/" is not escaped so records read exactly as documented. */
#define SERIALISE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The four fields of a record; a record has exactly these. */
#define N_FIELDS 4
static const char *const field_names[N_FIELDS] = { "type", "mode", "source", "ts" };

/* A record line is about 100 bytes; this bounds what append writes. */
#define RECORD_LINE_MAX 256

struct sbx_session_log {
        int             fd;             /* O_RDWR|O_APPEND, holds the flock */
        int             failed;         /* an append failed: refuse further appends */
        off_t           committed;      /* file size: whole, fsynced lines only */
        sbx_mode_event *events;
        size_t          n;
        size_t          cap;
};

/* ------------------------------------------------------------- helpers */

static void close_fd(int *fd)
{
        if (*fd >= 0) {
                /* Never retried: on Linux the fd is gone even on EINTR. */
                (void) close(*fd);
                *fd = -EBADF;
        }
}

static int fsync_retry(int fd)
{
        while (fsync(fd) < 0) {
                if (errno != EINTR)
                        return -errno;
        }
        return 0;
}

static int ftruncate_retry(int fd, off_t size)
{
        while (ftruncate(fd, size) < 0) {
                if (errno != EINTR)
                        return -errno;
        }
        return 0;
}

/* Write all of buf: one write(2) call, repeated only on EINTR or a short
 * write.  A zero-byte write of a non-empty buffer counts as EIO rather
 * than looping forever. */
static int write_all(int fd, const char *buf, size_t len)
{
        size_t off = 0;

        while (off < len) {
                ssize_t w = write(fd, buf + off, len - off);

                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (w == 0)
                        return -EIO;
                off += (size_t) w;
        }
        return 0;
}

/* Grow an event array so it holds at least one more element. */
static int events_reserve(sbx_mode_event **events, size_t n, size_t *cap)
{
        sbx_mode_event *grown;
        size_t want;

        if (n < *cap)
                return 0;
        want = *cap == 0 ? 16 : *cap;
        if (want > SIZE_MAX / 2 / sizeof(**events))
                return -ENOMEM;
        want *= 2;
        grown = realloc(*events, want * sizeof(**events));
        if (grown == NULL)
                return -ENOMEM;
        *events = grown;
        *cap = want;
        return 0;
}

/* Copy untrusted text into out for an error message: at most 32 bytes,
 * anything but printable ASCII (and the quote and backslash) becomes '?'. */
static void sanitize(const char *s, size_t len, char *out, size_t outsz)
{
        size_t i, o = 0, max = 32;

        if (max > outsz - 4)
                max = outsz - 4;
        for (i = 0; i < len && o < max; i++) {
                unsigned char c = (unsigned char) s[i];

                out[o++] = (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') ? '?' : (char) c;
        }
        if (i < len) {
                memcpy(out + o, "...", 3);
                o += 3;
        }
        out[o] = '\0';
}

/* A path shortened for a message: its last bytes, which name the file. */
static const char *path_for_message(const char *path, char *buf, size_t bufsz)
{
        size_t len = strlen(path);

        if (len < 100)
                return path;
        (void) snprintf(buf, bufsz, "...%s", path + len - 96);
        return buf;
}

/* ------------------------------------------------------------- replay */

/* Why a line is not a record, for the message.  Only err->message is used. */
static sbx_code reason(sbx_error *why, const char *fmt, ...) SBX__PRINTF(2, 3);
static sbx_code reason(sbx_error *why, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(why->message, sizeof(why->message), fmt, ap);
        va_end(ap);
        why->code = SBX_E_CORRUPT;
        why->sys_errno = 0;
        return SBX_E_CORRUPT;
}

static sbx_code get_field(json_object *obj, const char *name, json_type type, json_object **out,
                          sbx_error *why)
{
        json_object *v = NULL;

        if (!json_object_object_get_ex(obj, name, &v))
                return reason(why, "missing field \"%s\"", name);
        /* A JSON null is a NULL object: json_type_null, never a match. */
        if (!json_object_is_type(v, type))
                return reason(why, "field \"%s\" must be %s", name,
                              type == json_type_string ? "a string" : "an integer");
        *out = v;
        return SBX_OK;
}

/* The string value of a field, refused if it holds a NUL (which would
 * truncate it). */
static sbx_code get_string(json_object *obj, const char *name, const char **out, sbx_error *why)
{
        json_object *v = NULL;
        const char *s;
        sbx_code r;

        r = get_field(obj, name, json_type_string, &v, why);
        if (r != SBX_OK)
                return r;
        s = json_object_get_string(v);
        if (s == NULL || (size_t) json_object_get_string_len(v) != strlen(s))
                return reason(why, "field \"%s\" contains a NUL byte", name);
        *out = s;
        return SBX_OK;
}

static size_t count_byte(const char *s, size_t len, char c)
{
        size_t i, n = 0;

        for (i = 0; i < len; i++)
                n += s[i] == c;
        return n;
}

/*
 * Turn a parsed JSON value into an event.  line[0..len) is the raw text
 * json-c parsed; it is used for three byte-level cross-checks that json-c
 * cannot do.  They are sound because every accepted value is a fixed
 * ASCII word or an integer, and no JSON escape sequence contains ':', '\''
 * or "\u0000" unless it decodes to text no valid record contains:
 *   - exactly 4 ':' in the line: json-c silently keeps the last of two
 *     duplicate keys, but every member has exactly one ':' of its own, so
 *     more than 4 means a duplicate field;
 *   - no '\'': json-c 0.16 accepts single-quoted keys even in strict
 *     mode, which are not JSON;
 *   - no "\u0000": json-c truncates a key at an escaped NUL, so
 *     "type\u0000x" would otherwise read as "type".
 */
static sbx_code record_from_json(json_object *obj, const char *line, size_t len,
                                 sbx_mode_event *ev_out, sbx_error *why)
{
        struct json_object_iterator it, end;
        sbx_mode_event ev = SBX_MODE_EVENT_INIT;
        json_object *ts = NULL;
        const char *type = NULL, *mode = NULL, *source = NULL;
        char shown[48];
        sbx_error check;
        size_t i;
        sbx_code r;

        if (!json_object_is_type(obj, json_type_object))
                return reason(why, "not a JSON object");
        if ((r = get_string(obj, "type", &type, why)) != SBX_OK ||
            (r = get_string(obj, "mode", &mode, why)) != SBX_OK ||
            (r = get_string(obj, "source", &source, why)) != SBX_OK ||
            (r = get_field(obj, "ts", json_type_int, &ts, why)) != SBX_OK)
                return r;
        if (json_object_object_length(obj) != N_FIELDS) {
                it = json_object_iter_begin(obj);
                end = json_object_iter_end(obj);
                for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                        const char *key = json_object_iter_peek_name(&it);

                        for (i = 0; i < N_FIELDS; i++)
                                if (strcmp(key, field_names[i]) == 0)
                                        break;
                        if (i == N_FIELDS) {
                                sanitize(key, strlen(key), shown, sizeof(shown));
                                return reason(why, "unexpected field \"%s\"", shown);
                        }
                }
                return reason(why, "unexpected field"); /* not reached */
        }
        if (strcmp(type, RECORD_TYPE) != 0) {
                sanitize(type, strlen(type), shown, sizeof(shown));
                return reason(why, "type must be \"" RECORD_TYPE "\", not \"%s\"", shown);
        }
        if (sbx_mode_parse(mode, &ev.mode, NULL) != SBX_OK) {
                sanitize(mode, strlen(mode), shown, sizeof(shown));
                return reason(why, "unknown mode \"%s\"", shown);
        }
        if (sbx_mode_source_parse(source, &ev.source, NULL) != SBX_OK) {
                sanitize(source, strlen(source), shown, sizeof(shown));
                return reason(why, "unknown source \"%s\"", shown);
        }
        ev.timestamp_ms = json_object_get_int64(ts);
        /* json-c stores integers above INT64_MAX as uint64 (saturating at
         * UINT64_MAX) and returns INT64_MAX for them here: refuse, never clamp. */
        if (ev.timestamp_ms == INT64_MAX && json_object_get_uint64(ts) != (uint64_t) INT64_MAX)
                return reason(why, "ts out of range");
        if (ev.timestamp_ms < 0)
                return reason(why, "negative timestamp");
        if (count_byte(line, len, ':') != N_FIELDS)
                return reason(why, "duplicate field");
        if (memchr(line, '\'', len) != NULL)
                return reason(why, "single-quoted string (not JSON)");
        if (memmem(line, len, "\\u0000", 6) != NULL)
                return reason(why, "escaped NUL byte");
        /* The library's own definition of a valid event has the last word. */
        if (sbx__mode_event_check(&ev, "invalid event", &check) != SBX_OK)
                return reason(why, "%s", check.message);
        *ev_out = ev;
        return SBX_OK;
}

/*
 * Parse one line of len >= 1 bytes; when terminated, line[len] is its '\n'
 * and is given to json-c too, as the whitespace that ends a bare literal or
 * number ("true", "42"), which json-c otherwise reports as incomplete.  On
 * failure why->message holds the reason and *not_json says whether json-c
 * refused the bytes as one complete JSON value (which, for the unterminated
 * last line, means a torn append).
 */
static sbx_code parse_line(struct json_tokener *tok, const char *line, size_t len,
                           int terminated, sbx_mode_event *ev_out, int *not_json,
                           sbx_error *why)
{
        size_t parse_len = len + (terminated ? 1 : 0);
        enum json_tokener_error jerr;
        json_object *obj;
        sbx_code r;

        *not_json = 1;
        /* json-c stops at a NUL byte as if the input ended there. */
        if (memchr(line, '\0', len) != NULL)
                return reason(why, "NUL byte");
        json_tokener_reset(tok);
        obj = json_tokener_parse_ex(tok, line, (int) parse_len); /* <= 64 KiB + 1 */
        jerr = json_tokener_get_error(tok);
        if (jerr != json_tokener_success) {
                json_object_put(obj);   /* NULL: json-c returns no object on error */
                if (jerr == json_tokener_continue)
                        return reason(why, "incomplete JSON");
                return reason(why, "invalid JSON (%s)", json_tokener_error_desc(jerr));
        }
        if (json_tokener_get_parse_end(tok) != parse_len) {
                json_object_put(obj);
                return reason(why, "trailing data after the JSON value");
        }
        /* A complete value; obj is NULL for a JSON null. */
        *not_json = 0;
        r = record_from_json(obj, line, len, ev_out, why);
        json_object_put(obj);
        return r;
}

sbx_code sbx__session_log_replay_buf(const char *buf, size_t len, sbx_mode_event **events_out,
                                     size_t *n_out, size_t *torn_bytes_out, sbx_error *err)
{
        struct json_tokener *tok = NULL;
        sbx_mode_event *events = NULL;
        size_t n = 0, cap = 0, pos = 0, lineno = 0, torn = 0;
        sbx_code r;

        if ((buf == NULL && len > 0) || events_out == NULL || n_out == NULL ||
            torn_bytes_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 REPLAY_FN ": buf, events_out, n_out and torn_bytes_out "
                                 "must not be NULL");
        if (len > SBX__SESSION_LOG_MAX_FILE)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 REPLAY_FN ": log is %zu bytes, above the %zu byte limit", len,
                                 SBX__SESSION_LOG_MAX_FILE);
        tok = json_tokener_new();
        if (tok == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, REPLAY_FN ": no memory for the parser");
                goto out;
        }
        json_tokener_set_flags(tok, TOKENER_FLAGS);

        while (pos < len) {
                const char *line = buf + pos;
                const char *nl = memchr(line, '\n', len - pos);
                size_t line_len = nl != NULL ? (size_t) (nl - line) : len - pos;
                sbx_mode_event ev = SBX_MODE_EVENT_INIT;
                sbx_error why = { 0, 0, { 0 } };
                int not_json = 0;

                lineno++;
                if (line_len > SBX__SESSION_LOG_MAX_LINE) {
                        r = sbx__fail(err, SBX_E_CORRUPT, 0,
                                      REPLAY_FN ": line %zu: %s longer than %zu bytes", lineno,
                                      nl != NULL ? "line" : "unterminated last line",
                                      SBX__SESSION_LOG_MAX_LINE);
                        goto out;
                }
                if (line_len == 0) {
                        r = sbx__fail(err, SBX_E_CORRUPT, 0, REPLAY_FN ": line %zu: empty line",
                                      lineno);
                        goto out;
                }
                if (events_reserve(&events, n, &cap) < 0) {
                        r = sbx__fail(err, SBX_E_NOMEM, ENOMEM,
                                      REPLAY_FN ": no memory for %zu events", n + 1);
                        goto out;
                }
                r = parse_line(tok, line, line_len, nl != NULL, &ev, &not_json, &why);
                if (r != SBX_OK) {
                        if (nl == NULL && not_json) {
                                /* The unterminated tail is not one complete
                                 * JSON value: a torn append.  The caller
                                 * cuts it off. */
                                torn = line_len;
                                break;
                        }
                        r = sbx__fail(err, SBX_E_CORRUPT, 0, REPLAY_FN ": line %zu: %s", lineno,
                                      why.message);
                        goto out;
                }
                events[n++] = ev;
                pos += line_len + (nl != NULL ? 1 : 0);
        }

        if (n == 0) {
                free(events);
                events = NULL;
        }
        *events_out = events;
        *n_out = n;
        *torn_bytes_out = torn;
        events = NULL;
        r = SBX_OK;
out:
        if (tok != NULL)
                json_tokener_free(tok);
        free(events);
        return r;
}

/* --------------------------------------------------------------- open */

/* fsync the directory holding path so a newly created entry is durable. */
static int fsync_parent_dir(const char *path)
{
        const char *slash = strrchr(path, '/');
        char *dir = NULL;
        int fd = -EBADF, r;

        if (slash == NULL) {
                dir = sbx__strdup(".");
        } else {
                size_t n = slash == path ? 1 : (size_t) (slash - path);

                dir = malloc(n + 1);
                if (dir != NULL) {
                        memcpy(dir, path, n);
                        dir[n] = '\0';
                }
        }
        if (dir == NULL) {
                r = -ENOMEM;
                goto out;
        }
        do
                fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
                r = -errno;
                goto out;
        }
        r = fsync_retry(fd);
        /* Some file systems cannot fsync a directory; nothing more to do. */
        if (r == -EINVAL || r == -EROFS)
                r = 0;
out:
        close_fd(&fd);
        free(dir);
        return r;
}

/*
 * Open path for reading and appending without following a symlink in the
 * last component (O_NOFOLLOW; earlier components are resolved as usual).
 * A missing file is created 0600 with O_EXCL, so we know we created it and
 * fsync its directory.  O_NONBLOCK keeps a FIFO or device from blocking the
 * open; the caller refuses anything but a regular file and clears it.
 */
static sbx_code open_log_fd(const char *path, const char *shown, int *fd_out, sbx_error *err)
{
        int fd = -EBADF, created = 0, attempt, e, r;
        const char *what;

        for (attempt = 0; attempt < 16; attempt++) {
                fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
                if (fd >= 0)
                        break;
                if (errno == EINTR)
                        continue;
                if (errno != ENOENT)
                        break;
                fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
                          O_CREAT | O_EXCL, 0600);
                if (fd >= 0) {
                        created = 1;
                        break;
                }
                if (errno != EEXIST && errno != EINTR)
                        break;
                /* Raced with another creator: open the file it made. */
        }
        if (fd < 0) {
                e = attempt == 16 ? EAGAIN : errno;
                switch (e) {
                case ELOOP:
                        what = "is a symbolic link (refused)";
                        break;
                case EISDIR:
                        what = "is a directory, not a regular file";
                        break;
                case ENXIO:
                case ENODEV:
                        what = "is not a regular file";
                        break;
                default:
                        return sbx__fail(err, SBX_E_IO, e, "sbx_session_log_open: \"%s\": open: %s",
                                         shown, sbx__strerror(e));
                }
                return sbx__fail(err, SBX_E_INVALID, e, "sbx_session_log_open: \"%s\" %s", shown,
                                 what);
        }
        if (created) {
                r = fsync_parent_dir(path);
                if (r < 0) {
                        close_fd(&fd);
                        return sbx__fail(err, SBX_E_IO, -r,
                                         "sbx_session_log_open: \"%s\": fsync of the directory: %s",
                                         shown, sbx__strerror(-r));
                }
        }
        *fd_out = fd;
        return SBX_OK;
}

/* Read exactly size bytes from offset 0 into a new buffer (NUL-terminated
 * for safety; the replay uses the length). */
static sbx_code read_all(int fd, size_t size, const char *shown, char **buf_out, sbx_error *err)
{
        char *buf = malloc(size + 1);
        size_t total = 0;
        sbx_code r;

        if (buf == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM,
                                 "sbx_session_log_open: \"%s\": no memory for %zu bytes", shown,
                                 size);
        /* Read one byte more than fstat said, to notice a file that grew. */
        while (total < size + 1) {
                ssize_t got = pread(fd, buf + total, size + 1 - total, (off_t) total);

                if (got < 0) {
                        if (errno == EINTR)
                                continue;
                        r = sbx__fail(err, SBX_E_IO, errno, "sbx_session_log_open: \"%s\": read: %s",
                                      shown, sbx__strerror(errno));
                        goto out;
                }
                if (got == 0)
                        break;
                total += (size_t) got;
        }
        if (total != size) {
                r = sbx__fail(err, SBX_E_IO, 0,
                              "sbx_session_log_open: \"%s\": the file changed while it was read",
                              shown);
                goto out;
        }
        buf[size] = '\0';
        *buf_out = buf;
        buf = NULL;
        r = SBX_OK;
out:
        free(buf);
        return r;
}

/* One handle per log, a regular file, blocking, within the size limit:
 * its size into *size_out. */
static sbx_code lock_and_check(int fd, const char *shown, size_t *size_out, sbx_error *err)
{
        struct stat st;
        int flags, e;
        sbx_code r;

        /*
         * One handle per log: an exclusive flock(2), held until close, makes
         * a second opener (another process, or another handle in this one:
         * flock belongs to the open file description) fail with SBX_E_IO
         * instead of interleaving appends or replaying a log that is being
         * written.  It is advisory: only libsandbox handles honour it, and on
         * NFS Linux emulates it with POSIX locks, which do not conflict
         * within one process.
         */
        while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                e = errno;
                if (e == EINTR)
                        continue;
                if (e == EWOULDBLOCK)
                        r = sbx__fail(err, SBX_E_IO, e,
                                      "sbx_session_log_open: \"%s\": log is in use "
                                      "(locked by another handle)",
                                      shown);
                else
                        r = sbx__fail(err, SBX_E_IO, e, "sbx_session_log_open: \"%s\": flock: %s",
                                      shown, sbx__strerror(e));
                return r;
        }

        if (fstat(fd, &st) < 0) {
                return sbx__fail(err, SBX_E_IO, errno, "sbx_session_log_open: \"%s\": fstat: %s",
                                 shown, sbx__strerror(errno));
        }
        if (!S_ISREG(st.st_mode)) {
                r = sbx__fail(err, SBX_E_INVALID, 0,
                              "sbx_session_log_open: \"%s\" is not a regular file", shown);
                return r;
        }
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "sbx_session_log_open: \"%s\": fcntl: %s",
                              shown, sbx__strerror(errno));
                return r;
        }
        if (st.st_size < 0 || (uintmax_t) st.st_size > (uintmax_t) SBX__SESSION_LOG_MAX_FILE) {
                r = sbx__fail(err, SBX_E_RANGE, 0,
                              "sbx_session_log_open: \"%s\" is %jd bytes, above the %zu byte limit",
                              shown, (intmax_t) st.st_size, SBX__SESSION_LOG_MAX_FILE);
                return r;
        }
        *size_out = (size_t) st.st_size;
        return SBX_OK;
}

/* The records of buf[0..size), the torn tail's length in *torn. */
static sbx_code replay(const char *buf, size_t size, const char *shown, sbx_mode_event **events,
                       size_t *n, size_t *torn, sbx_error *err)
{
        static const char prefix[] = REPLAY_FN ": ";
        sbx_error rerr = { 0, 0, { 0 } };
        const char *msg;
        sbx_code r;

        r = sbx__session_log_replay_buf(buf, size, events, n, torn, &rerr);
        if (r != SBX_OK) {
                /* "sbx__session_log_replay_buf: line 3: why" becomes
                 * "sbx_session_log_open: "<path>" line 3: why". */
                msg = rerr.message;
                if (strncmp(msg, prefix, sizeof(prefix) - 1) == 0)
                        msg += sizeof(prefix) - 1;
                r = sbx__fail(err, r, rerr.sys_errno, "sbx_session_log_open: \"%s\" %s", shown, msg);
                return r;
        }

        return SBX_OK;
}

/* The file ends at a line boundary: a torn append cut off, or a last
 * record's lost newline written, durably.  *committed: the log's end. */
static sbx_code repair_tail(int fd, const char *shown, const char *buf, size_t size,
                            size_t torn, off_t *committed, sbx_error *err)
{
        sbx_code r;
        int r2;

        *committed = (off_t) size;
        if (torn > 0) {
                /* Cut the torn append off, durably, so the next append
                 * starts on a clean line. */
                *committed = (off_t) (size - torn);
                r2 = ftruncate_retry(fd, *committed);
                if (r2 == 0)
                        r2 = fsync_retry(fd);
                if (r2 < 0) {
                        r = sbx__fail(err, SBX_E_IO, -r2,
                                      "sbx_session_log_open: \"%s\": cutting off the torn last line: %s",
                                      shown, sbx__strerror(-r2));
                        return r;
                }
        } else if (size > 0 && buf[size - 1] != '\n') {
                /*
                 * The last record is complete but lost its '\n' (a crash
                 * between the record and its newline cannot happen, as both
                 * go in one write, but a hand edit can).  It is kept, and
                 * the newline is written and fsynced here, at open, rather
                 * than prepended to the next append: the file then always
                 * ends at a line boundary after open, and every append stays
                 * exactly one line.
                 */
                r2 = write_all(fd, "\n", 1);
                if (r2 == 0)
                        r2 = fsync_retry(fd);
                if (r2 < 0) {
                        r = sbx__fail(err, SBX_E_IO, -r2,
                                      "sbx_session_log_open: \"%s\": terminating the last line: %s",
                                      shown, sbx__strerror(-r2));
                        return r;
                }
                *committed = (off_t) size + 1;
        }

        return SBX_OK;
}

sbx_code sbx_session_log_open(const char *path, sbx_session_log **out,
                              sbx_session_log_report *report, sbx_error *err)
{
        sbx_session_log *log = NULL;
        sbx_mode_event *events = NULL;
        char shown_buf[128];
        const char *shown;
        char *buf = NULL;
        size_t size = 0, n = 0, torn = 0;
        off_t committed;
        int fd = -EBADF;
        sbx_code r;

        if (path == NULL || path[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_session_log_open: path must be a non-empty string");
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_session_log_open: out must not be NULL");
        if (report != NULL && report->version != SBX_SESSION_LOG_REPORT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_session_log_open: report has unsupported version %u",
                                 (unsigned) report->version);
        shown = path_for_message(path, shown_buf, sizeof(shown_buf));

        log = calloc(1, sizeof(*log));
        if (log == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_session_log_open: no memory");
                goto out;
        }
        log->fd = -EBADF;

        r = open_log_fd(path, shown, &fd, err);
        if (r != SBX_OK)
                goto out;

        r = lock_and_check(fd, shown, &size, err);
        if (r != SBX_OK)
                goto out;

        r = read_all(fd, size, shown, &buf, err);
        if (r != SBX_OK)
                goto out;

        r = replay(buf, size, shown, &events, &n, &torn, err);
        if (r != SBX_OK)
                goto out;
        r = repair_tail(fd, shown, buf, size, torn, &committed, err);
        if (r != SBX_OK)
                goto out;
        log->fd = fd;
        fd = -EBADF;
        log->committed = committed;
        log->events = events;
        log->n = n;
        log->cap = n;
        events = NULL;
        if (report != NULL) {
                report->torn_tail = torn > 0 ? 1u : 0u;
                report->records = (uint64_t) n;
                report->torn_bytes = (uint64_t) torn;
        }
        *out = log;
        log = NULL;
        r = SBX_OK;
out:
        close_fd(&fd);
        free(buf);
        free(events);
        sbx_session_log_close(log);
        return r;
}

/* -------------------------------------------------------------- append */

static int add_field(json_object *obj, const char *key, json_object *val)
{
        if (val == NULL)
                return -ENOMEM;
        if (json_object_object_add(obj, key, val) != 0) {
                json_object_put(val);
                return -ENOMEM;
        }
        return 0;
}

/* Serialise one valid event with json-c into line, '\n' included. */
static sbx_code format_record(const sbx_mode_event *ev, char *line, size_t linesz,
                              size_t *len_out, sbx_error *err)
{
        json_object *obj = json_object_new_object();
        const char *text = NULL;
        size_t len = 0;
        sbx_code r;

        if (obj == NULL ||
            add_field(obj, "type", json_object_new_string(RECORD_TYPE)) < 0 ||
            add_field(obj, "mode", json_object_new_string(sbx_mode_name(ev->mode))) < 0 ||
            add_field(obj, "source", json_object_new_string(sbx_mode_source_name(ev->source))) < 0 ||
            add_field(obj, "ts", json_object_new_int64(ev->timestamp_ms)) < 0 ||
            (text = json_object_to_json_string_length(obj, SERIALISE_FLAGS, &len)) == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_session_log_append: no memory");
                goto out;
        }
        SBX__INVARIANT(len + 1 < linesz, "session log record of %zu bytes", len);
        if (len + 1 >= linesz) {
                r = sbx__fail(err, SBX_E_INTERNAL, 0,
                              "sbx_session_log_append: record of %zu bytes is too long", len);
                goto out;
        }
        memcpy(line, text, len);
        line[len] = '\n';
        *len_out = len + 1;
        r = SBX_OK;
out:
        json_object_put(obj);
        return r;
}

sbx_code sbx_session_log_append(sbx_session_log *log, const sbx_mode_event *event, sbx_error *err)
{
        char line[RECORD_LINE_MAX];
        const char *step;
        struct stat st;
        uintmax_t size;
        size_t len = 0;
        sbx_code r;
        int e, r2;

        if (log == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_session_log_append: log must not be NULL");
        if (event == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_session_log_append: event must not be NULL");
        r = sbx__mode_event_check(event, "sbx_session_log_append: event", err);
        if (r != SBX_OK)
                return r;
        if (log->failed)
                return sbx__fail(err, SBX_E_IO, 0,
                                 "sbx_session_log_append: an earlier append failed; "
                                 "close and reopen the log");
        /* Make room first, so nothing can fail once the record is durable. */
        if (events_reserve(&log->events, log->n, &log->cap) < 0)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_session_log_append: no memory");
        r = format_record(event, line, sizeof(line), &len, err);
        if (r != SBX_OK)
                return r;
        /*
         * The cap that open enforces, checked before anything is written: a
         * log that passed it could never be opened again.  The size is the
         * file's own (fstat), in case something else grew it, and never
         * less than what this handle committed.
         */
        if (fstat(log->fd, &st) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "sbx_session_log_append: fstat: %s",
                                 sbx__strerror(errno));
        size = st.st_size > log->committed ? (uintmax_t) st.st_size : (uintmax_t) log->committed;
        if (size > (uintmax_t) SBX__SESSION_LOG_MAX_FILE ||
            (uintmax_t) len > (uintmax_t) SBX__SESSION_LOG_MAX_FILE - size)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "sbx_session_log_append: a %zu byte record would take the log "
                                 "from %ju bytes past its %zu byte limit; nothing was written",
                                 len, size, SBX__SESSION_LOG_MAX_FILE);

        step = "write";
        r2 = write_all(log->fd, line, len);
        if (r2 == 0) {
                step = "fsync";
                r2 = fsync_retry(log->fd);
        }
        if (r2 < 0) {
                e = -r2;
                /*
                 * The caller is told the event was not recorded, so the file
                 * must not keep it: cut back to the last committed size
                 * (best effort).  The handle then refuses further appends:
                 * after a failed fsync the kernel may have dropped the dirty
                 * pages and a later fsync can succeed without them, so only
                 * a reopen (which replays what is really on disk) is honest.
                 */
                if (ftruncate_retry(log->fd, log->committed) == 0)
                        (void) fsync_retry(log->fd);
                log->failed = 1;
                return sbx__fail(err, SBX_E_IO, e, "sbx_session_log_append: %s: %s", step,
                                 sbx__strerror(e));
        }
        log->committed += (off_t) len;
        log->events[log->n++] = *event;
        return SBX_OK;
}

/* ------------------------------------------------------- events, close */

sbx_code sbx_session_log_events(const sbx_session_log *log, const sbx_mode_event **events_out,
                                size_t *n_out, sbx_error *err)
{
        if (log == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_session_log_events: log must not be NULL");
        if (events_out == NULL || n_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_session_log_events: events_out and n_out must not be NULL");
        *events_out = log->n > 0 ? log->events : NULL;
        *n_out = log->n;
        return SBX_OK;
}

void sbx_session_log_close(sbx_session_log *log)
{
        if (log == NULL)
                return;
        /* Closing the fd releases the flock. */
        close_fd(&log->fd);
        free(log->events);
        free(log);
}
