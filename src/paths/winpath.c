/*
 * winpath.c - the Windows backend's path rules: a pure validator and
 * canonicaliser for Windows paths given as UTF-8 strings.  No I/O, no
 * allocation, no Windows headers: it compiles and is tested on Linux.
 *
 * Accepted: canonical local drive paths only, "C:\" and below.
 *   - the drive letter is ASCII A-Z (either case; the output is upper case);
 *   - '/' and '\' are both separators; the output uses '\';
 *   - one trailing separator after a non-root path is dropped ("C:\a\" is
 *     "C:\a", the same directory); the root keeps its "\";
 *   - every other component is kept byte for byte (NTFS is case-preserving
 *     and, per directory, may be case-sensitive, so folding case could
 *     name another directory).
 *
 * Refused, each with its own reason (sbx__winpath_reason), in this order:
 *   1. encoding: invalid UTF-8 (overlong forms, UTF-16 surrogates, code
 *      points above U+10FFFF, truncated sequences) and control characters
 *      (U+0001-U+001F, U+007F);
 *   2. the namespace, from the prefix: UNC/SMB ("\\server\share", also
 *      "//server/share" and "\\?\UNC\..."), the Win32 file namespace
 *      "\\?\", GLOBALROOT ("\\?\GLOBALROOT", "\\.\GLOBALROOT"), named
 *      pipes ("\\.\pipe\"), the device namespace "\\.\" (raw disks,
 *      volumes, COM ports), NT object-manager paths ("\??\", "\Device\",
 *      "\GLOBAL??\", ...), other rooted paths without a drive ("\foo"),
 *      relative paths, a bad drive letter ("1:\"), drive-relative paths
 *      ("C:", "C:foo");
 *   3. per component: empty (a doubled separator), "." and "..", any ':'
 *      (alternate data streams "a:s", "a::$DATA", "a:$I30:$INDEX_ALLOCATION"),
 *      the characters < > " | ? *, best-fit look-alikes (below), longer
 *      than 255 UTF-16 code units, reserved DOS device names, NTFS
 *      metadata files in the volume root, a trailing '.' or ' ', and 8.3
 *      short-name aliases;
 *   4. the whole canonical path longer than SBX__WINPATH_MAX_UNITS UTF-16
 *      code units (SBX_E_RANGE), or not fitting in the caller's buffer.
 *
 * Decisions (fail closed: where Windows would reinterpret a spelling, we
 * refuse it rather than guess which object it names):
 *   - Reserved device names: the part of the component before its first
 *     '.', with trailing spaces removed, compared without case against
 *     CON PRN AUX NUL CONIN$ CONOUT$ CLOCK$ COM0-9 LPT0-9 and COM/LPT
 *     followed by a superscript 1, 2 or 3 (Windows treats those as digits
 *     there).  "nul.txt", "Con .tar.gz" and "lpt1 " are all refused.
 *     Leading spaces are skipped too (" NUL" is refused).
 *     Windows 11 relaxed some of these cases; older systems did not, and
 *     the same string must mean the same thing on every supported system.
 *   - 8.3 short names: a component where a '~' is followed by one or more
 *     ASCII digits that end the component or run into a '.'.  That is the
 *     shape of every generated short name ("PROGRA~1", "ABCDEF~12.TXT",
 *     "A1B2~1"), so a short-name alias cannot pass.  It also refuses some
 *     real long names ("backup~1", "notes~2.txt"); that is the price of a
 *     lexical rule.  It cannot catch everything: a short name set by hand
 *     with SetFileShortNameW (which needs the restore privilege) may have
 *     any 8.3 shape, and a name this accepts may still be some other
 *     entry's short name.  The lexical rule keeps the ordinary aliases out;
 *     on Windows the backend must still confirm identity through a handle
 *     (docs/windows.md, "not yet done").
 *   - Length: at most 259 UTF-16 code units (MAX_PATH less its NUL), so
 *     every Win32 API in every process resolves the string the same way
 *     without the "\\?\" prefix (refused) or a long-path opt-in (per
 *     process and per system, so a broker and a child could disagree).
 *     A component is at most 255 UTF-16 code units (the NTFS limit).
 *   - Best-fit look-alikes: characters that Windows' "best fit" conversion
 *     to an ANSI code page turns into path syntax: the fullwidth forms
 *     U+FF01-U+FF5E ('\' becomes U+FF3C, ':' U+FF1A, "CON" in fullwidth
 *     becomes "CON"), U+00A0 no-break space (-> ' '), U+00A5 yen and
 *     U+20A9 won signs (-> '\' in the Japanese and Korean code pages),
 *     U+2044 and U+2215 slashes, U+2216 set minus, U+FE68 small reverse
 *     solidus and U+FE52 small full stop.  The backend uses only UTF-16
 *     APIs, but a confined program that passes the path through an ANSI
 *     API would see another path.
 *   - NTFS metadata files: a first component equal (ignoring case) to
 *     $MFT $MFTMirr $LogFile $Volume $AttrDef $Bitmap $Boot $BadClus
 *     $Secure $UpCase $Extend $Quota $ObjId $Reparse.  They are not
 *     directories an ACL grant should ever be given on.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "paths/paths_internal.h"

static const char *const reason_texts[SBX__WINPATH_REASON_END] = {
        [SBX__WINPATH_OK] = "ok: a canonical local drive path",
        [SBX__WINPATH_NULL] = "path is NULL",
        [SBX__WINPATH_EMPTY] = "empty path",
        [SBX__WINPATH_BAD_UTF8] =
                "not valid UTF-8 (overlong form, surrogate, or truncated sequence)",
        [SBX__WINPATH_CONTROL] = "control character (U+0001-U+001F or U+007F)",
        [SBX__WINPATH_UNC] =
                "UNC/SMB network path (\\\\server\\share); only local drive paths are accepted",
        [SBX__WINPATH_WIN32_NAMESPACE] =
                "\\\\?\\ prefix (Win32 file namespace: skips all path normalisation)",
        [SBX__WINPATH_GLOBALROOT] = "GLOBALROOT object-manager path (\\\\?\\GLOBALROOT)",
        [SBX__WINPATH_PIPE] = "named pipe path (\\\\.\\pipe\\)",
        [SBX__WINPATH_DEVICE_NAMESPACE] =
                "\\\\.\\ device namespace path (raw disks, volumes, ports)",
        [SBX__WINPATH_NT_NAMESPACE] =
                "NT object-manager path (\\??\\, \\Device\\, \\GLOBAL??\\, ...)",
        [SBX__WINPATH_ROOTED_NO_DRIVE] =
                "rooted path without a drive letter (\\foo is relative to the current drive)",
        [SBX__WINPATH_RELATIVE] = "relative path (no drive letter)",
        [SBX__WINPATH_BAD_DRIVE] = "drive must be one ASCII letter A-Z followed by ':'",
        [SBX__WINPATH_DRIVE_RELATIVE] =
                "drive-relative path (C: and C:foo are relative to the drive's current directory)",
        [SBX__WINPATH_EMPTY_COMPONENT] = "empty component (doubled separator)",
        [SBX__WINPATH_DOT_COMPONENT] = "'.' or '..' component",
        [SBX__WINPATH_COLON] =
                "':' after the drive letter (alternate data stream syntax: file:stream, ::$DATA)",
        [SBX__WINPATH_FORBIDDEN_CHAR] = "character Windows forbids in names (< > \" | ? *)",
        [SBX__WINPATH_BESTFIT_CHAR] =
                "character an ANSI code page best-fits to path syntax (fullwidth form, U+00A0, U+00A5, ...)",
        [SBX__WINPATH_COMPONENT_TOO_LONG] = "component longer than 255 UTF-16 code units",
        [SBX__WINPATH_RESERVED_NAME] =
                "reserved DOS device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$, ...)",
        [SBX__WINPATH_NTFS_METAFILE] = "NTFS metadata file in the volume root ($MFT, $Extend, ...)",
        [SBX__WINPATH_TRAILING_DOT_SPACE] =
                "component ends in '.' or ' ' (Windows strips them, so the name aliases another)",
        [SBX__WINPATH_SHORT_NAME] = "8.3 short-name alias ('~' and digits) that may name another entry",
        [SBX__WINPATH_TOO_LONG] = "longer than 259 UTF-16 code units (MAX_PATH)",
        [SBX__WINPATH_BUFFER] = "canonical form does not fit in canon_out",
};

const char *sbx__winpath_reason_text(sbx__winpath_reason r)
{
        if ((int) r < 0 || r >= SBX__WINPATH_REASON_END || reason_texts[r] == NULL)
                return "unknown reason";
        return reason_texts[r];
}

static int is_sep(char c)
{
        return c == '\\' || c == '/';
}

static int ascii_upper(int c)
{
        return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;
}

/* s[0..n) equals the NUL-terminated word, ignoring ASCII case. */
static int eq_nocase(const char *s, size_t n, const char *word)
{
        size_t i;

        for (i = 0; i < n; i++)
                if (word[i] == '\0' || ascii_upper((unsigned char) s[i]) !=
                                               ascii_upper((unsigned char) word[i]))
                        return 0;
        return word[n] == '\0';
}

/* One strictly valid UTF-8 sequence at s (NUL-terminated): its length and
 * *cp, or 0 for anything invalid, the NUL included. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
        return s[0] == '\0' ? 0 : sbx__utf8_decode(s, 4, cp);
}

static int is_bestfit_lookalike(uint32_t cp)
{
        switch (cp) {
        case 0x00A0: case 0x00A5: case 0x20A9: case 0x2044: case 0x2215:
        case 0x2216: case 0xFE52: case 0xFE68:
                return 1;
        default:
                return cp >= 0xFF01 && cp <= 0xFF5E;
        }
}

/* The first pass: encoding and control characters over the whole string. */
static sbx__winpath_reason check_encoding(const char *path, size_t *bad_at)
{
        const unsigned char *s = (const unsigned char *) path;
        size_t i = 0, n;
        uint32_t cp = 0;

        while (s[i] != '\0') {
                n = utf8_decode(s + i, &cp);
                if (n == 0) {
                        *bad_at = i;
                        return SBX__WINPATH_BAD_UTF8;
                }
                if (cp < 0x20 || cp == 0x7F) {
                        *bad_at = i;
                        return SBX__WINPATH_CONTROL;
                }
                i += n;
        }
        return SBX__WINPATH_OK;
}

/* First components of a rooted path that name the NT object manager's
 * namespace when the string reaches an NT API (and the current drive's
 * directory when it reaches a Win32 one: ambiguous either way). */
static const char *const nt_roots[] = {
        "??", "Device", "GLOBAL??", "DosDevices", "SystemRoot", "Global",
        "BaseNamedObjects", "KnownDlls", "KnownDlls32", "ObjectTypes", "RPC Control",
        "Sessions", "Driver", "FileSystem", "Callback", "KernelObjects", "ArcName",
};

/* The path starts with a separator: which namespace does it name? */
static sbx__winpath_reason classify_rooted(const char *p)
{
        const char *c, *end;
        size_t i;

        if (is_sep(p[1])) {
                /* "\\x": UNC, or the local device prefixes "\\?\" "\\.\". */
                if ((p[2] == '?' || p[2] == '.') && (p[3] == '\0' || is_sep(p[3]))) {
                        c = p[3] == '\0' ? p + 3 : p + 4;
                        for (end = c; *end != '\0' && !is_sep(*end); end++)
                                ;
                        if (eq_nocase(c, (size_t) (end - c), "GLOBALROOT"))
                                return SBX__WINPATH_GLOBALROOT;
                        if (eq_nocase(c, (size_t) (end - c), "UNC"))
                                return SBX__WINPATH_UNC;
                        if (eq_nocase(c, (size_t) (end - c), "pipe"))
                                return SBX__WINPATH_PIPE;
                        return p[2] == '?' ? SBX__WINPATH_WIN32_NAMESPACE
                                           : SBX__WINPATH_DEVICE_NAMESPACE;
                }
                return SBX__WINPATH_UNC;
        }
        c = p + 1;
        for (end = c; *end != '\0' && !is_sep(*end); end++)
                ;
        for (i = 0; i < SBX__ARRAY_SIZE(nt_roots); i++)
                if (eq_nocase(c, (size_t) (end - c), nt_roots[i]))
                        return SBX__WINPATH_NT_NAMESPACE;
        return SBX__WINPATH_ROOTED_NO_DRIVE;
}

static const char *const dos_devices[] = {
        "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$",
};

/* c[0..n): a reserved DOS device name, with or without an extension? */
static int is_reserved_name(const char *c, size_t n)
{
        size_t base = 0, i;

        /* Leading spaces are skipped too: whether Windows ignores them
         * here has varied, so " NUL" is refused as well. */
        while (n > 0 && c[0] == ' ') {
                c++;
                n--;
        }
        while (base < n && c[base] != '.')
                base++;
        while (base > 0 && c[base - 1] == ' ')
                base--;
        for (i = 0; i < SBX__ARRAY_SIZE(dos_devices); i++)
                if (eq_nocase(c, base, dos_devices[i]))
                        return 1;
        if (base < 3 || !(eq_nocase(c, 3, "COM") || eq_nocase(c, 3, "LPT")))
                return 0;
        if (base == 4 && c[3] >= '0' && c[3] <= '9')
                return 1;
        /* superscript one, two, three: U+00B9, U+00B2, U+00B3 */
        return base == 5 && (unsigned char) c[3] == 0xC2 &&
               ((unsigned char) c[4] == 0xB9 || (unsigned char) c[4] == 0xB2 ||
                (unsigned char) c[4] == 0xB3);
}

static const char *const ntfs_metafiles[] = {
        "$MFT", "$MFTMirr", "$LogFile", "$Volume", "$AttrDef", "$Bitmap", "$Boot",
        "$BadClus", "$Secure", "$UpCase", "$Extend", "$Quota", "$ObjId", "$Reparse",
};

/* c[0..n): '~' followed by digits that end the name or run into a '.'. */
static int is_short_name(const char *c, size_t n)
{
        size_t i, j;

        for (i = 0; i < n; i++) {
                if (c[i] != '~')
                        continue;
                for (j = i + 1; j < n && c[j] >= '0' && c[j] <= '9'; j++)
                        ;
                if (j > i + 1 && (j == n || c[j] == '.'))
                        return 1;
        }
        return 0;
}

/*
 * One component c[0..n), already valid UTF-8 without control characters.
 * Adds its length in UTF-16 code units to *units.
 */
static sbx__winpath_reason check_component(const char *c, size_t n, int first,
                                           size_t *units)
{
        const unsigned char *u = (const unsigned char *) c;
        size_t i, k, cu = 0;
        uint32_t cp = 0;

        if (n == 0)
                return SBX__WINPATH_EMPTY_COMPONENT;
        if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                return SBX__WINPATH_DOT_COMPONENT;
        if (memchr(c, ':', n) != NULL)
                return SBX__WINPATH_COLON;
        for (i = 0; i < n; i++)
                if (strchr("<>\"|?*", c[i]) != NULL)
                        return SBX__WINPATH_FORBIDDEN_CHAR;
        for (i = 0; i < n; i += k) {
                /* Valid UTF-8 was checked over the whole string, and a
                 * component ends at an ASCII separator or the NUL, so a
                 * sequence never straddles its end. */
                k = utf8_decode(u + i, &cp);
                if (k == 0)
                        return SBX__WINPATH_BAD_UTF8;
                if (is_bestfit_lookalike(cp))
                        return SBX__WINPATH_BESTFIT_CHAR;
                cu += cp >= 0x10000 ? 2 : 1;
        }
        if (cu > SBX__WINPATH_COMPONENT_MAX_UNITS)
                return SBX__WINPATH_COMPONENT_TOO_LONG;
        if (is_reserved_name(c, n))
                return SBX__WINPATH_RESERVED_NAME;
        if (first)
                for (i = 0; i < SBX__ARRAY_SIZE(ntfs_metafiles); i++)
                        if (eq_nocase(c, n, ntfs_metafiles[i]))
                                return SBX__WINPATH_NTFS_METAFILE;
        if (c[n - 1] == '.' || c[n - 1] == ' ')
                return SBX__WINPATH_TRAILING_DOT_SPACE;
        if (is_short_name(c, n))
                return SBX__WINPATH_SHORT_NAME;
        *units += cu;
        return SBX__WINPATH_OK;
}

sbx__winpath_reason sbx__winpath_classify(const char *path, char *canon_out,
                                          size_t canon_size, size_t *bad_at)
{
        sbx__winpath_reason r;
        size_t at = 0, rest_len, i, start, units = 3, out_len;
        const char *rest;

        if (bad_at == NULL)
                bad_at = &at;
        *bad_at = 0;
        if (path == NULL)
                return SBX__WINPATH_NULL;
        if (path[0] == '\0')
                return SBX__WINPATH_EMPTY;
        r = check_encoding(path, bad_at);
        if (r != SBX__WINPATH_OK)
                return r;
        if (is_sep(path[0]))
                return classify_rooted(path);
        if (path[1] != ':')
                return SBX__WINPATH_RELATIVE;
        if (ascii_upper((unsigned char) path[0]) < 'A' ||
            ascii_upper((unsigned char) path[0]) > 'Z')
                return SBX__WINPATH_BAD_DRIVE;
        if (!is_sep(path[2]))
                return SBX__WINPATH_DRIVE_RELATIVE;

        rest = path + 3;
        rest_len = strlen(rest);
        if (rest_len > 0 && is_sep(rest[rest_len - 1])) {
                rest_len--;             /* "C:\a\" is "C:\a" */
                if (rest_len == 0) {
                        *bad_at = 3;
                        return SBX__WINPATH_EMPTY_COMPONENT;    /* "C:\\" */
                }
        }
        for (start = 0, i = 0; rest_len > 0 && i <= rest_len; i++) {
                if (i < rest_len && !is_sep(rest[i]))
                        continue;
                r = check_component(rest + start, i - start, start == 0, &units);
                if (r != SBX__WINPATH_OK) {
                        *bad_at = 3 + start;
                        return r;
                }
                if (i < rest_len)
                        units++;        /* the separator */
                start = i + 1;
        }
        if (units > SBX__WINPATH_MAX_UNITS)
                return SBX__WINPATH_TOO_LONG;

        out_len = 3 + rest_len;
        if (canon_out == NULL || canon_size <= out_len)
                return SBX__WINPATH_BUFFER;
        canon_out[0] = (char) ascii_upper((unsigned char) path[0]);
        canon_out[1] = ':';
        canon_out[2] = '\\';
        for (i = 0; i < rest_len; i++)
                canon_out[3 + i] = is_sep(rest[i]) ? '\\' : rest[i];
        canon_out[out_len] = '\0';
        return SBX__WINPATH_OK;
}

sbx_code sbx__winpath_check(const char *path, char *canon_out, size_t canon_size,
                            sbx_error *err)
{
        sbx__winpath_reason r;
        size_t at = 0, n;

        if (path == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__winpath_check: path is NULL");
        if (canon_out == NULL || canon_size == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx__winpath_check: canon_out is NULL or canon_size is 0");
        r = sbx__winpath_classify(path, canon_out, canon_size, &at);
        if (r == SBX__WINPATH_OK)
                return SBX_OK;
        if (r == SBX__WINPATH_BAD_UTF8 || r == SBX__WINPATH_CONTROL)
                /* Not quoted: the message stays printable text. */
                return sbx__fail(err, SBX_E_INVALID, 0, "windows path refused: %s at byte %zu",
                                 sbx__winpath_reason_text(r), at);
        /* Quote at most 96 bytes of the path, cut at a character boundary;
         * the reason comes first so it survives any truncation. */
        n = strlen(path);
        if (n > 96) {
                n = 96;
                while (n > 0 && ((unsigned char) path[n] & 0xC0) == 0x80)
                        n--;
        }
        return sbx__fail(err, (r == SBX__WINPATH_TOO_LONG || r == SBX__WINPATH_BUFFER ||
                               r == SBX__WINPATH_COMPONENT_TOO_LONG)
                                      ? SBX_E_RANGE : SBX_E_INVALID,
                         0, "windows path refused: %s: \"%.*s\"%s", sbx__winpath_reason_text(r),
                         (int) n, path, n < strlen(path) ? "..." : "");
}

/* ------------------------------------------------ the POSIX spelling */

/*
 * On Windows the portable layers (profiles, plans, writable roots) keep
 * their POSIX spelling: C:\Users\me is "/c/Users/me", as MSYS2 and Git
 * for Windows write it.  These two functions are the only bridge between
 * the spellings, and both go through sbx__winpath_check, so a spelling
 * the rules refuse never reaches the Windows backend.
 */
sbx_code sbx__winpath_from_posix(const char *posix, char *out, size_t out_size,
                                 sbx_error *err)
{
        char buf[SBX__WINPATH_BUF + 4];
        size_t n, i;

        if (posix == NULL || out == NULL || out_size == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx__winpath_from_posix: NULL argument or out_size 0");
        n = strlen(posix);
        if (posix[0] != '/' || !((posix[1] >= 'a' && posix[1] <= 'z') ||
                                 (posix[1] >= 'A' && posix[1] <= 'Z')) ||
            (posix[2] != '/' && posix[2] != '\0'))
                return sbx__fail(err, SBX_E_INVALID, 0, "windows path refused: \"%.96s\" does "
                                 "not name a drive (write C:\\x as /c/x)", posix);
        /* A backslash is a name character in the POSIX spelling but a
         * separator on Windows: one string would name two paths. */
        if (strchr(posix, '\\') != NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "windows path refused: \"%.96s\" holds "
                                 "a backslash", posix);
        if (n + 2 > sizeof(buf))
                return sbx__fail(err, SBX_E_RANGE, 0, "windows path refused: the path is longer "
                                 "than %d UTF-16 code units", SBX__WINPATH_MAX_UNITS);
        buf[0] = posix[1];
        buf[1] = ':';
        if (posix[2] == '\0') {
                buf[2] = '\\';
                buf[3] = '\0';
        } else {
                for (i = 2; i <= n; i++)
                        buf[i] = posix[i];
        }
        return sbx__winpath_check(buf, out, out_size, err);
}

sbx_code sbx__winpath_to_posix(const char *win, char *out, size_t out_size, sbx_error *err)
{
        char canon[SBX__WINPATH_BUF];
        size_t n, i;
        sbx_code r;

        if (win == NULL || out == NULL || out_size == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx__winpath_to_posix: NULL argument or out_size 0");
        r = sbx__winpath_check(win, canon, sizeof(canon), err);
        if (r != SBX_OK)
                return r;
        n = strlen(canon);
        /* "C:\" is "/c" (3 bytes with the NUL); "C:\a\b" is "/c/a/b"
         * (n bytes and the NUL: ":" and the first "\" become "/" and the
         * drive letter). */
        if (out_size < (n == 3 ? 3 : n + 1))
                return sbx__fail(err, SBX_E_RANGE, 0, "sbx__winpath_to_posix: out_size %zu is "
                                 "too small", out_size);
        out[0] = '/';
        out[1] = (char) (canon[0] - 'A' + 'a');
        if (n == 3) {
                out[2] = '\0';
                return SBX_OK;
        }
        for (i = 2; i < n; i++)
                out[i] = canon[i] == '\\' ? '/' : canon[i];
        out[n] = '\0';
        return SBX_OK;
}
