/*
 * internal.h - helpers shared by every layer of libsandbox (not installed).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_INTERNAL_H
#define SBX_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"

#if defined(__MINGW32__)
/* mingw-w64 checks "printf" against the Microsoft runtime's formats; the
 * Windows build uses the C99 stdio (__USE_MINGW_ANSI_STDIO, %zu). */
#  define SBX__PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#  define SBX__NORETURN __attribute__((noreturn))
#elif defined(__GNUC__)
#  define SBX__PRINTF(a, b) __attribute__((format(printf, a, b)))
#  define SBX__NORETURN __attribute__((noreturn))
#else
#  define SBX__PRINTF(a, b)
#  define SBX__NORETURN
#endif

/* `static` unless the file is compiled for unit tests. */
#ifdef SBX_UNIT_TESTING
#  define SBX_STATIC_TESTABLE
#else
#  define SBX_STATIC_TESTABLE static
#endif

#define SBX__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One past the largest sbx_code, i.e. their number: the codes are dense
 * from 0 (error.c checks it).  Internal, so not a member of the public
 * enum, where a binding would take it for a code. */
#define SBX__CODE_PLUS_ONE(name, value, text) + 1
enum { SBX__CODE_END = 0 SBX_CODE_MAP(SBX__CODE_PLUS_ONE) };
#undef SBX__CODE_PLUS_ONE

/*
 * src as printable text in dst (size bytes, NUL-terminated; returns the
 * length): well-formed UTF-8 that prints is kept, a newline, tab or CR
 * becomes \n \t \r, any other byte \xNN; cut at a whole character.
 */
size_t sbx__error_text(const char *src, char *dst, size_t size);

/*
 * The code for an errno that says a resource ran out for the moment
 * (ENOMEM: SBX_E_NOMEM; EMFILE, ENFILE, EAGAIN, ENOBUFS, ENOSPC: SBX_E_IO),
 * else otherwise.  A shortage is the caller's to retry, never a backend
 * that cannot enforce or an internal error.
 */
sbx_code sbx__errno_code(int e, sbx_code otherwise);

/*
 * The single writer of sbx_error: fills err (if not NULL) and returns code.
 * The message is made printable (sbx__error_text).
 */
sbx_code sbx__fail(sbx_error *err, sbx_code code, int sys_errno, const char *fmt, ...)
        SBX__PRINTF(4, 5);

/*
 * Invariant check: when sbx_invariants_enabled(), a false condition prints
 * "[sandbox invariant] <message>" to stderr and aborts.  When disabled the
 * check is skipped and the caller's own error path runs.
 */
void sbx__invariant_fail(const char *fmt, ...) SBX__PRINTF(1, 2) SBX__NORETURN;
#define SBX__INVARIANT(cond, ...) \
        do { \
                if (!(cond) && sbx_invariants_enabled()) \
                        sbx__invariant_fail(__VA_ARGS__); \
        } while (0)

/* Duplicate a string; NULL on allocation failure. */
char *sbx__strdup(const char *s);

/* ASCII case-insensitive helpers that never depend on the locale. */
int sbx__ascii_lower(int c);
int sbx__ascii_isspace(int c);
/* Find needle (NUL-terminated) in hay[0..hay_len) ignoring ASCII case.
 * Returns 1 if found.  An empty needle matches nothing (a rule with an empty
 * signature would match every failure, which is never what is meant). */
int sbx__memcasemem(const char *hay, size_t hay_len, const char *needle);

/* 1 if s is NULL-free and only whitespace (or empty). */
int sbx__is_blank(const char *s);

/* The next component of a slash-separated path: skips slashes, returns
 * its start and sets *len, advancing *p past it; NULL at the end. */
const char *sbx__path_next(const char **p, size_t *len);
/* Drop the last component of the absolute path buf[0..*o), NUL-terminating
 * it; "/" stays "/". */
void sbx__path_pop(char *buf, size_t *o);

/* Lexically clean an absolute path into out (size outsz): collapses "//",
 * removes "." and a trailing slash.  ".." is resolved lexically only when
 * allow_dotdot, otherwise it is an error.  Returns SBX_OK, SBX_E_INVALID
 * (relative, empty, "..") or SBX_E_RANGE (does not fit). */
sbx_code sbx__path_clean(const char *path, int allow_dotdot, char *out, size_t outsz);

/* ------------------------------------------------------ string vectors */

/* A growable, NULL-terminated vector of malloc'd strings.  A failed push
 * marks the vector failed; sbx__strv_finish then returns NULL. */
struct sbx__strv {
        char  **v;
        size_t  n, cap;
        int     failed;
};
#define SBX__STRV_INIT { NULL, 0, 0, 0 }

void sbx__strv_push(struct sbx__strv *s, const char *str);
/* Push the concatenation a + b. */
void sbx__strv_push2(struct sbx__strv *s, const char *a, const char *b);
/* The vector (NULL-terminated, free with sbx_strv_free), or NULL after an
 * allocation failure (everything freed).  *n_out (may be NULL) the count. */
char **sbx__strv_finish(struct sbx__strv *s, size_t *n_out);
void sbx__strv_discard(struct sbx__strv *s);

/* -------------------------------------------------------------- clocks */

/* CLOCK_MONOTONIC in ms, in us (clock.c). */
int64_t sbx__now_ms(void);
int64_t sbx__now_us(void);
/* Unix ms (CLOCK_REALTIME): grant expiry and event times are wall-clock,
 * as the caller's. */
int64_t sbx__wall_ms(void);

/* ------------------------------------------------------------- helpers */

/* secure_getenv where the C library has it (glibc), else getenv unless
 * the process is set-id. */
const char *sbx__secure_getenv(const char *name);



/* The text of errno value e, thread-safe (strerror(3) is not): in the
 * caller's buffer, or a static immutable string.  Never NULL.
 * sbx__strerror(e) gives it a buffer of its own that lives until the end
 * of the enclosing block, for use in a message's arguments.  lint/layers
 * refuses strerror() in src/ outside src/core/. */
#define SBX__ERRBUF 128
const char *sbx__strerror_r(int errnum, char *buf, size_t len);
#define sbx__strerror(e) sbx__strerror_r((e), (char[SBX__ERRBUF]){ 0 }, SBX__ERRBUF)

/* n bytes from the kernel's random generator (getrandom; getentropy on
 * macOS; BCryptGenRandom on Windows), retried on EINTR and short reads.
 * 0, or -errno with nothing usable in buf: never fewer bytes.
 * Thread-safe. */
int sbx__random_bytes(void *buf, size_t n);
/* 2 * nbytes lowercase hex digits of fresh random bytes and a NUL into
 * out (room for 2 * nbytes + 1), the raw bytes wiped.  nbytes <= 64.
 * 0 or -errno (out then holds nothing to use). */
int sbx__random_hex(char *out, size_t nbytes);
/* in[0..n) as 2 * n lowercase hex digits and a NUL. */
void sbx__hex_encode(const void *in, size_t n, char *out);
/* Zero p[0..n) in a way the compiler keeps (a secret's last copy). */
void sbx__wipe(void *p, size_t n);

/* sbx_size_parse's grammar (include/sandbox.h): 0, -EINVAL, -ERANGE. */
int sbx__parse_size(const char *s, uint64_t *out);

/* One UTF-8 sequence at s[0..n): its length (1..4) with *cp, or 0 when
 * it is not the shortest well-formed encoding of a scalar value (an
 * overlong form, a surrogate, past U+10FFFF, a stray continuation byte,
 * cut short by n or a NUL).  An ASCII byte, NUL included, is 1.  Pure. */
size_t sbx__utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* SHA-256 (src/core/sha256.c: nettle, or CNG on Windows).  init, any
 * number of updates, final: 0 with the digest, or -EIO where the
 * platform's implementation failed (CNG can; nettle cannot). */
#define SBX__SHA256_SIZE 32
struct sbx__sha256 {
        union {
                unsigned char bytes[128];       /* nettle's context, or a CNG handle */
                uint64_t      align;
        } u;
        int failed;
};
void sbx__sha256_init(struct sbx__sha256 *h);
void sbx__sha256_update(struct sbx__sha256 *h, const void *data, size_t n);
int sbx__sha256_final(struct sbx__sha256 *h, uint8_t out[SBX__SHA256_SIZE]);
/* The digest of data[0..n) in lowercase hex with a NUL.  0 or -EIO. */
int sbx__sha256_hex(const void *data, size_t n, char out[2 * SBX__SHA256_SIZE + 1]);

/* A growable NUL-terminated text (src/core/buf.c).  A failed allocation
 * (or a size that would overflow) sets oom, after which appends do
 * nothing: check it once, at the end.  Zero it, or SBX__BUF_INIT. */
struct sbx__buf {
        char  *b;               /* NULL until the first append */
        size_t len, cap;
        int    oom;
};
#define SBX__BUF_INIT { NULL, 0, 0, 0 }
/* Room for more bytes and the NUL: 0, or -1 (oom set). */
int sbx__buf_reserve(struct sbx__buf *s, size_t more);
void sbx__buf_add(struct sbx__buf *s, const char *p, size_t n);
void sbx__buf_adds(struct sbx__buf *s, const char *p);
void sbx__buf_printf(struct sbx__buf *s, const char *fmt, ...) SBX__PRINTF(2, 3);
void sbx__buf_free(struct sbx__buf *s);

/* Room for need elements in the array v of capacity cap (a size_t lvalue):
 * the capacity doubles from first (or from cap), the size arithmetic is
 * checked.  0, or -ENOMEM with v and cap as they were.
 *   if (SBX__GROW(r->v, r->cap, r->n + 1, 32) < 0) return -ENOMEM; */
#define SBX__GROW(v, cap, need, first) \
        sbx__grow_impl((void *) &(v), sizeof(*(v)), &(cap), (need), (first))
int sbx__grow_impl(void *pp, size_t elem, size_t *cap, size_t need, size_t first);

#endif /* SBX_INTERNAL_H */
