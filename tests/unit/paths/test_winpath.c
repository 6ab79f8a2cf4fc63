/*
 * test_winpath.c - the Windows path rules (src/paths/winpath.c), on Linux.
 *
 * A table of accepted inputs with their canonical form, a table of refused
 * inputs with the reason each must give, and property checks: a canonical
 * form is a fixed point, never contains a refused sequence, and is the same
 * for every separator spelling; a refusal never writes the output and its
 * message names exactly its own reason.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sandbox.h"
#include "paths/paths_internal.h"

struct accept_case {
        const char *in;
        const char *canon;
};

static const struct accept_case accepted[] = {
        { "C:\\", "C:\\" },
        { "c:\\", "C:\\" },
        { "C:/", "C:\\" },
        { "z:\\Work", "Z:\\Work" },
        { "A:\\x", "A:\\x" },
        { "C:\\Users\\me\\project", "C:\\Users\\me\\project" },
        { "C:/Users/me/project", "C:\\Users\\me\\project" },
        { "c:\\a/b\\c", "C:\\a\\b\\c" },
        { "C:\\a\\", "C:\\a" },
        { "C:/a/b/", "C:\\a\\b" },
        { "C:\\Program Files\\App Dir", "C:\\Program Files\\App Dir" },
        { "C:\\.git", "C:\\.git" },
        { "C:\\a\\.config\\..x", "C:\\a\\.config\\..x" },
        { "C:\\file.txt", "C:\\file.txt" },
        { "C:\\a.b.c", "C:\\a.b.c" },
        { "C:\\CaSe\\KePt", "C:\\CaSe\\KePt" },
        /* near misses of reserved device names */
        { "C:\\CONFIG", "C:\\CONFIG" },
        { "C:\\console\\nul_dir", "C:\\console\\nul_dir" },
        { "C:\\COM10\\LPT\\COMA", "C:\\COM10\\LPT\\COMA" },
        { "C:\\auxiliary.txt", "C:\\auxiliary.txt" },
        { "C:\\x.con", "C:\\x.con" },
        /* near misses of short names */
        { "C:\\a~b\\~tmp\\x~", "C:\\a~b\\~tmp\\x~" },
        { "C:\\a~1b", "C:\\a~1b" },
        { "C:\\~", "C:\\~" },
        /* NTFS metadata names are only special in the volume root */
        { "C:\\dir\\$MFT", "C:\\dir\\$MFT" },
        { "C:\\$Recycle.Bin", "C:\\$Recycle.Bin" },
        /* legal punctuation */
        { "C:\\a#b%c&d'e(f)g+h,i;j=k@l[m]n^o`p{q}r!s", "C:\\a#b%c&d'e(f)g+h,i;j=k@l[m]n^o`p{q}r!s" },
        /* non-ASCII, including a 4-byte sequence */
        { "C:\\Users\\Jos\xc3\xa9\\\xd0\xbf\xd1\x80\xd0\xbe", "C:\\Users\\Jos\xc3\xa9\\\xd0\xbf\xd1\x80\xd0\xbe" },
        { "C:\\\xe4\xb8\xad\xe6\x96\x87\\\xf0\x9f\x98\x80", "C:\\\xe4\xb8\xad\xe6\x96\x87\\\xf0\x9f\x98\x80" },
};

struct reject_case {
        const char *in;
        sbx__winpath_reason why;
};

static const struct reject_case rejected[] = {
        { "", SBX__WINPATH_EMPTY },
        /* encoding */
        { "C:\\a\xff", SBX__WINPATH_BAD_UTF8 },
        { "C:\\\xc0\xaf", SBX__WINPATH_BAD_UTF8 },              /* overlong '/' */
        { "C:\\\xe0\x80\xaf", SBX__WINPATH_BAD_UTF8 },          /* overlong '/' */
        { "C:\\\xed\xa0\x80", SBX__WINPATH_BAD_UTF8 },          /* surrogate */
        { "C:\\\xf4\x90\x80\x80", SBX__WINPATH_BAD_UTF8 },      /* > U+10FFFF */
        { "C:\\\xe4\xb8", SBX__WINPATH_BAD_UTF8 },              /* truncated */
        { "C:\\\x80", SBX__WINPATH_BAD_UTF8 },                  /* lone continuation */
        { "\\\\\xc1\x9c", SBX__WINPATH_BAD_UTF8 },              /* before the prefix check */
        { "C:\\a\tb", SBX__WINPATH_CONTROL },
        { "C:\\a\nb", SBX__WINPATH_CONTROL },
        { "C:\\a\x7f", SBX__WINPATH_CONTROL },
        { "C:\\a\x01", SBX__WINPATH_CONTROL },
        /* UNC and SMB */
        { "\\\\server\\share", SBX__WINPATH_UNC },
        { "\\\\server\\share\\dir", SBX__WINPATH_UNC },
        { "//server/share", SBX__WINPATH_UNC },
        { "\\/server/share", SBX__WINPATH_UNC },
        { "\\\\server", SBX__WINPATH_UNC },
        { "\\\\127.0.0.1\\c$", SBX__WINPATH_UNC },
        { "\\\\?\\UNC\\server\\share", SBX__WINPATH_UNC },
        { "\\\\.\\unc\\server\\share", SBX__WINPATH_UNC },
        /* Win32 file namespace, GLOBALROOT, pipes, devices */
        { "\\\\?\\C:\\x", SBX__WINPATH_WIN32_NAMESPACE },
        { "\\\\?\\Volume{26a21bda-a627-11d7-9931-806e6f6e6963}\\", SBX__WINPATH_WIN32_NAMESPACE },
        { "//?/C:/x", SBX__WINPATH_WIN32_NAMESPACE },
        { "\\\\?", SBX__WINPATH_WIN32_NAMESPACE },
        { "\\\\?\\GLOBALROOT\\Device\\HarddiskVolumeShadowCopy1", SBX__WINPATH_GLOBALROOT },
        { "\\\\?\\globalroot", SBX__WINPATH_GLOBALROOT },
        { "\\\\.\\GlobalRoot\\Device\\Null", SBX__WINPATH_GLOBALROOT },
        { "\\\\.\\pipe\\sbx", SBX__WINPATH_PIPE },
        { "//./PIPE/x", SBX__WINPATH_PIPE },
        { "\\\\?\\pipe\\x", SBX__WINPATH_PIPE },
        { "\\\\.\\PhysicalDrive0", SBX__WINPATH_DEVICE_NAMESPACE },
        { "\\\\.\\C:", SBX__WINPATH_DEVICE_NAMESPACE },
        { "\\\\.\\", SBX__WINPATH_DEVICE_NAMESPACE },
        { "\\\\.", SBX__WINPATH_DEVICE_NAMESPACE },
        { "\\\\.\\CONIN$", SBX__WINPATH_DEVICE_NAMESPACE },
        /* the NT object manager */
        { "\\??\\C:\\x", SBX__WINPATH_NT_NAMESPACE },
        { "/?" "?/C:/x", SBX__WINPATH_NT_NAMESPACE },     /* split: no trigraph */
        { "\\Device\\HarddiskVolume1\\x", SBX__WINPATH_NT_NAMESPACE },
        { "\\device", SBX__WINPATH_NT_NAMESPACE },
        { "\\GLOBAL??\\C:", SBX__WINPATH_NT_NAMESPACE },
        { "\\DosDevices\\C:\\", SBX__WINPATH_NT_NAMESPACE },
        { "\\SystemRoot\\System32", SBX__WINPATH_NT_NAMESPACE },
        /* rooted without a drive, relative */
        { "\\foo", SBX__WINPATH_ROOTED_NO_DRIVE },
        { "\\", SBX__WINPATH_ROOTED_NO_DRIVE },
        { "/", SBX__WINPATH_ROOTED_NO_DRIVE },
        { "/etc/passwd", SBX__WINPATH_ROOTED_NO_DRIVE },
        { "\\Devices", SBX__WINPATH_ROOTED_NO_DRIVE },
        { "foo", SBX__WINPATH_RELATIVE },
        { "foo\\bar", SBX__WINPATH_RELATIVE },
        { ".\\x", SBX__WINPATH_RELATIVE },
        { "..\\x", SBX__WINPATH_RELATIVE },
        { "CON", SBX__WINPATH_RELATIVE },
        { "ab:\\c", SBX__WINPATH_RELATIVE },
        { "1:\\x", SBX__WINPATH_BAD_DRIVE },
        { "@:\\x", SBX__WINPATH_BAD_DRIVE },
        { "[:\\x", SBX__WINPATH_BAD_DRIVE },
        { "C:", SBX__WINPATH_DRIVE_RELATIVE },
        { "C:foo", SBX__WINPATH_DRIVE_RELATIVE },
        { "c:..\\x", SBX__WINPATH_DRIVE_RELATIVE },
        /* components */
        { "C:\\\\", SBX__WINPATH_EMPTY_COMPONENT },
        { "C:\\\\a", SBX__WINPATH_EMPTY_COMPONENT },
        { "C:\\a\\\\b", SBX__WINPATH_EMPTY_COMPONENT },
        { "C:\\a//b", SBX__WINPATH_EMPTY_COMPONENT },
        { "C:\\a\\\\", SBX__WINPATH_EMPTY_COMPONENT },
        { "C:\\.", SBX__WINPATH_DOT_COMPONENT },
        { "C:\\a\\.", SBX__WINPATH_DOT_COMPONENT },
        { "C:\\a\\..\\b", SBX__WINPATH_DOT_COMPONENT },
        { "C:/a/./b", SBX__WINPATH_DOT_COMPONENT },
        { "C:\\..", SBX__WINPATH_DOT_COMPONENT },
        { "C:\\a\\b:stream", SBX__WINPATH_COLON },
        { "C:\\a::$DATA", SBX__WINPATH_COLON },
        { "C:\\a:$I30:$INDEX_ALLOCATION", SBX__WINPATH_COLON },
        { "C:\\a\\C:\\b", SBX__WINPATH_COLON },
        { "C:\\:", SBX__WINPATH_COLON },
        { "C:\\a<b", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\a>b", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\a\"b", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\a|b", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\a?", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\*", SBX__WINPATH_FORBIDDEN_CHAR },
        { "C:\\x\xef\xbc\xbc..", SBX__WINPATH_BESTFIT_CHAR },     /* U+FF3C fullwidth '\' */
        { "C:\\a\xef\xbc\x9a" "b", SBX__WINPATH_BESTFIT_CHAR },  /* U+FF1A fullwidth ':' */
        { "C:\\\xef\xbc\xa3\xef\xbc\xaf\xef\xbc\xae", SBX__WINPATH_BESTFIT_CHAR }, /* CON */
        { "C:\\a\xc2\xa5" "b", SBX__WINPATH_BESTFIT_CHAR },      /* U+00A5 yen */
        { "C:\\a\xc2\xa0", SBX__WINPATH_BESTFIT_CHAR },          /* U+00A0 no-break space */
        { "C:\\a\xe2\x88\x95" "b", SBX__WINPATH_BESTFIT_CHAR },  /* U+2215 division slash */
        { "C:\\CON", SBX__WINPATH_RESERVED_NAME },
        { "C:\\con", SBX__WINPATH_RESERVED_NAME },
        { "C:\\a\\nul.txt", SBX__WINPATH_RESERVED_NAME },
        { "C:\\Con .tar.gz", SBX__WINPATH_RESERVED_NAME },
        { "C:\\lpt1 ", SBX__WINPATH_RESERVED_NAME },
        { "C:\\ NUL", SBX__WINPATH_RESERVED_NAME },
        { "C:\\PRN.", SBX__WINPATH_RESERVED_NAME },
        { "C:\\AUX\\x", SBX__WINPATH_RESERVED_NAME },
        { "C:\\COM9", SBX__WINPATH_RESERVED_NAME },
        { "C:\\com0.log", SBX__WINPATH_RESERVED_NAME },
        { "C:\\LPT\xc2\xb9", SBX__WINPATH_RESERVED_NAME },       /* LPT superscript 1 */
        { "C:\\COM\xc2\xb3.log", SBX__WINPATH_RESERVED_NAME },   /* COM superscript 3 */
        { "C:\\CONIN$", SBX__WINPATH_RESERVED_NAME },
        { "C:\\conout$.x", SBX__WINPATH_RESERVED_NAME },
        { "C:\\$MFT", SBX__WINPATH_NTFS_METAFILE },
        { "C:\\$extend\\$RmMetadata", SBX__WINPATH_NTFS_METAFILE },
        { "C:/$Secure", SBX__WINPATH_NTFS_METAFILE },
        { "C:\\a.", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\a ", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\a.\\b", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\a \\b", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\...", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\   ", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\a. .", SBX__WINPATH_TRAILING_DOT_SPACE },
        { "C:\\PROGRA~1", SBX__WINPATH_SHORT_NAME },
        { "C:\\Users\\ADMINI~1\\x", SBX__WINPATH_SHORT_NAME },
        { "C:\\ABCDEF~12.TXT", SBX__WINPATH_SHORT_NAME },
        { "C:\\backup~1", SBX__WINPATH_SHORT_NAME },
        { "C:\\a~1.tar.gz", SBX__WINPATH_SHORT_NAME },
        { "C:\\~0", SBX__WINPATH_SHORT_NAME },
};

/* The reason of every refusal, as a text that must appear in the message. */
static void expect_reject(const char *in, sbx__winpath_reason why)
{
        char out[SBX__WINPATH_BUF];
        sbx_error err = { 0, 0, "" };
        sbx__winpath_reason got;
        sbx_code want_code;
        size_t at = 12345;
        int r;

        memset(out, 'X', sizeof(out));
        got = sbx__winpath_classify(in, out, sizeof(out), &at);
        if (got != why)
                fail_msg("\"%s\": reason %d (%s), want %d (%s)", in, (int) got,
                         sbx__winpath_reason_text(got), (int) why,
                         sbx__winpath_reason_text(why));
        assert_true(at <= strlen(in));
        assert_int_equal(out[0], 'X');  /* untouched */
        assert_int_equal(out[sizeof(out) - 1], 'X');

        want_code = (why == SBX__WINPATH_TOO_LONG || why == SBX__WINPATH_COMPONENT_TOO_LONG ||
                     why == SBX__WINPATH_BUFFER) ? SBX_E_RANGE : SBX_E_INVALID;
        assert_int_equal(sbx__winpath_check(in, out, sizeof(out), &err), want_code);
        assert_int_equal(err.code, want_code);
        assert_int_equal(out[0], 'X');
        if (strncmp(err.message, "windows path refused: ", 22) != 0)
                fail_msg("\"%s\": message \"%s\"", in, err.message);
        /* exactly one reason is named: its own */
        for (r = 1; r < SBX__WINPATH_REASON_END; r++) {
                int has = strstr(err.message, sbx__winpath_reason_text(r)) != NULL;

                if (has != (r == (int) why))
                        fail_msg("\"%s\": message \"%s\" %s reason %d", in, err.message,
                                 has ? "names" : "lacks", r);
        }
        /* err NULL is fine */
        assert_int_equal(sbx__winpath_check(in, out, sizeof(out), NULL), want_code);
}

/* The shape every canonical form has, checked independently of winpath.c. */
static void assert_canonical_shape(const char *s)
{
        static const char *const devices[] = { "CON", "PRN", "AUX", "NUL" };
        const char *c, *end;
        size_t n = strlen(s), i, k;

        assert_true(n >= 3 && n < SBX__WINPATH_BUF);
        assert_true(s[0] >= 'A' && s[0] <= 'Z');
        assert_true(s[1] == ':' && s[2] == '\\');
        if (n > 3)
                assert_true(s[n - 1] != '\\');
        assert_null(strchr(s, '/'));
        assert_null(strchr(s + 2, ':'));
        assert_null(strstr(s, "\\\\"));
        for (i = 0; i < n; i++) {
                assert_true((unsigned char) s[i] >= 0x20 && s[i] != 0x7f);
                assert_null(strchr("<>\"|?*", s[i]));
        }
        for (c = s + 3; n > 3 && *c != '\0'; c = *end ? end + 1 : end) {
                end = strchr(c, '\\');
                if (end == NULL)
                        end = c + strlen(c);
                k = (size_t) (end - c);
                assert_true(k > 0);
                assert_false(k == 1 && c[0] == '.');
                assert_false(k == 2 && c[0] == '.' && c[1] == '.');
                assert_true(c[k - 1] != '.' && c[k - 1] != ' ');
                for (i = 0; i < SBX__ARRAY_SIZE(devices); i++)
                        assert_false((k == 3 || (k > 3 && c[3] == '.')) &&
                                     strncasecmp(c, devices[i], 3) == 0);
                for (i = 0; i + 1 < k; i++)
                        assert_false(c[i] == '~' && c[i + 1] >= '0' && c[i + 1] <= '9' &&
                                     (i + 2 == k || c[i + 2] == '.'));
        }
}

/* Accepted: the canonical form, a fixed point, the same for '/' spellings. */
static void expect_accept(const char *in, const char *want)
{
        char out[SBX__WINPATH_BUF], again[SBX__WINPATH_BUF], slashed[SBX__WINPATH_BUF];
        sbx_error err = { 0, 0, "" };
        sbx_code r;
        size_t i;

        memset(out, 'X', sizeof(out));
        r = sbx__winpath_check(in, out, sizeof(out), &err);
        if (r != SBX_OK)
                fail_msg("\"%s\" refused: %s", in, err.message);
        if (want != NULL)
                assert_string_equal(out, want);
        assert_canonical_shape(out);
        /* fixed point */
        assert_int_equal(sbx__winpath_classify(out, again, sizeof(again), NULL), SBX__WINPATH_OK);
        assert_string_equal(again, out);
        /* forward slashes and a lower-case drive give the same answer */
        (void) snprintf(slashed, sizeof(slashed), "%s", out);
        slashed[0] = (char) (slashed[0] - 'A' + 'a');
        for (i = 0; slashed[i] != '\0'; i++)
                if (slashed[i] == '\\')
                        slashed[i] = '/';
        assert_int_equal(sbx__winpath_classify(slashed, again, sizeof(again), NULL),
                         SBX__WINPATH_OK);
        assert_string_equal(again, out);
        /* exactly the needed size suffices; one byte less is a range error */
        assert_int_equal(sbx__winpath_classify(in, again, strlen(out) + 1, NULL),
                         SBX__WINPATH_OK);
        memset(again, 'X', sizeof(again));
        assert_int_equal(sbx__winpath_check(in, again, strlen(out), &err), SBX_E_RANGE);
        assert_int_equal(again[0], 'X');
        assert_non_null(strstr(err.message, sbx__winpath_reason_text(SBX__WINPATH_BUFFER)));
}

static void test_winpath__accepted_table(void **state)
{
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(accepted); i++)
                expect_accept(accepted[i].in, accepted[i].canon);
}

static void test_winpath__rejected_table(void **state)
{
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(rejected); i++)
                expect_reject(rejected[i].in, rejected[i].why);
}

/* Every reason but NULL (a programming error the wrapper catches first) is
 * reachable from the table or the length tests below. */
static void test_winpath__every_reason_tested(void **state)
{
        int seen[SBX__WINPATH_REASON_END] = { 0 };
        size_t i;
        int r;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(rejected); i++)
                seen[rejected[i].why] = 1;
        seen[SBX__WINPATH_OK] = seen[SBX__WINPATH_NULL] = 1;
        seen[SBX__WINPATH_TOO_LONG] = seen[SBX__WINPATH_COMPONENT_TOO_LONG] = 1;
        seen[SBX__WINPATH_BUFFER] = 1;
        for (r = 0; r < SBX__WINPATH_REASON_END; r++)
                if (!seen[r])
                        fail_msg("reason %d (%s) has no test input", r,
                                 sbx__winpath_reason_text(r));
}

/* Reason texts are distinct and none contains another, so a message can
 * name exactly one. */
static void test_winpath__reason_texts_distinct(void **state)
{
        int a, b;
        (void) state;

        for (a = 0; a < SBX__WINPATH_REASON_END; a++) {
                const char *ta = sbx__winpath_reason_text(a);

                assert_non_null(ta);
                assert_string_not_equal(ta, "unknown reason");
                for (b = 0; b < SBX__WINPATH_REASON_END; b++)
                        if (a != b && strstr(sbx__winpath_reason_text(b), ta) != NULL)
                                fail_msg("reason %d's text is inside reason %d's", a, b);
        }
        assert_string_equal(sbx__winpath_reason_text(SBX__WINPATH_REASON_END), "unknown reason");
        assert_string_equal(sbx__winpath_reason_text((sbx__winpath_reason) -1), "unknown reason");
}

static void test_winpath__bad_arguments(void **state)
{
        char out[16];
        sbx_error err = { 0, 0, "" };
        (void) state;

        assert_int_equal(sbx__winpath_check(NULL, out, sizeof(out), &err), SBX_E_INVALID);
        assert_non_null(strstr(err.message, "path is NULL"));
        assert_int_equal(sbx__winpath_check("C:\\", NULL, 16, &err), SBX_E_INVALID);
        assert_non_null(strstr(err.message, "canon_out"));
        assert_int_equal(sbx__winpath_check("C:\\", out, 0, &err), SBX_E_INVALID);
        assert_non_null(strstr(err.message, "canon_size"));
        assert_int_equal(sbx__winpath_classify(NULL, out, sizeof(out), NULL), SBX__WINPATH_NULL);
        assert_int_equal(sbx__winpath_classify("C:\\a", NULL, 0, NULL), SBX__WINPATH_BUFFER);
        /* the root needs 4 bytes */
        assert_int_equal(sbx__winpath_classify("C:\\", out, 3, NULL), SBX__WINPATH_BUFFER);
        assert_int_equal(sbx__winpath_classify("C:\\", out, 4, NULL), SBX__WINPATH_OK);
        assert_string_equal(out, "C:\\");
}

/* s = "C:\" + n1 copies of unit1 [+ "\" + n2 copies of unit2] */
static void build(char *s, size_t size, const char *u1, size_t n1, const char *u2, size_t n2)
{
        size_t i, o;

        o = (size_t) snprintf(s, size, "C:\\");
        for (i = 0; i < n1; i++)
                o += (size_t) snprintf(s + o, size - o, "%s", u1);
        if (u2 != NULL) {
                o += (size_t) snprintf(s + o, size - o, "\\");
                for (i = 0; i < n2; i++)
                        o += (size_t) snprintf(s + o, size - o, "%s", u2);
        }
        assert_true(o < size);
}

static void test_winpath__length_limits(void **state)
{
        static char s[4096];
        (void) state;

        /* a component: 255 units yes, 256 no */
        build(s, sizeof(s), "a", 255, NULL, 0);
        expect_accept(s, NULL);
        build(s, sizeof(s), "a", 256, NULL, 0);
        expect_reject(s, SBX__WINPATH_COMPONENT_TOO_LONG);
        /* counted in UTF-16: 127 emoji are 254 units, 128 are 256 */
        build(s, sizeof(s), "\xf0\x9f\x98\x80", 127, NULL, 0);
        expect_accept(s, NULL);
        build(s, sizeof(s), "\xf0\x9f\x98\x80", 128, NULL, 0);
        expect_reject(s, SBX__WINPATH_COMPONENT_TOO_LONG);
        /* the whole path: 3 + 200 + 1 + 55 = 259 units yes, 260 no */
        build(s, sizeof(s), "a", 200, "b", 55);
        expect_accept(s, NULL);
        build(s, sizeof(s), "a", 200, "b", 56);
        expect_reject(s, SBX__WINPATH_TOO_LONG);
        /* a trailing separator is not counted: it is not in the output */
        build(s, sizeof(s), "a", 200, "b", 55);
        (void) strcat(s, "\\");
        expect_accept(s, NULL);
        /* the largest UTF-8 form of a 259-unit path fits SBX__WINPATH_BUF */
        build(s, sizeof(s), "\xe4\xb8\xad", 254, "\xe4\xb8\xad", 1);
        expect_accept(s, NULL);
        build(s, sizeof(s), "\xe4\xb8\xad", 254, "\xe4\xb8\xad", 2);
        expect_reject(s, SBX__WINPATH_TOO_LONG);
        /* very long input (beyond any buffer) is refused, not truncated */
        build(s, sizeof(s), "abcdefgh\\", 400, NULL, 0);
        s[strlen(s) - 1] = '\0';
        expect_reject(s, SBX__WINPATH_TOO_LONG);
}

/* A long refused path is quoted shortened, the reason first and intact, and
 * never cut inside a UTF-8 sequence; encoding errors are not quoted. */
static void test_winpath__message_quoting(void **state)
{
        static char s[1024];
        sbx_error err = { 0, 0, "" };
        char out[SBX__WINPATH_BUF];
        size_t i, n;
        (void) state;

        build(s, sizeof(s), "\xc3\xa9", 120, "CON", 1);
        assert_int_equal(sbx__winpath_check(s, out, sizeof(out), &err), SBX_E_INVALID);
        assert_non_null(strstr(err.message,
                               sbx__winpath_reason_text(SBX__WINPATH_RESERVED_NAME)));
        n = strlen(err.message);
        assert_true(n < sizeof(err.message) - 1);       /* not truncated by sbx_error */
        assert_string_equal(err.message + n - 4, "\"...");
        /* the byte before the closing quote ends a character */
        assert_true(((unsigned char) err.message[n - 5] & 0xC0) == 0x80 ||
                    (unsigned char) err.message[n - 5] < 0x80);
        assert_true((unsigned char) err.message[n - 5] != 0xC3);

        assert_int_equal(sbx__winpath_check("C:\\a\x1b[31m\xff", out, sizeof(out), &err),
                         SBX_E_INVALID);
        assert_non_null(strstr(err.message, "at byte 4"));
        for (i = 0; err.message[i] != '\0'; i++)
                assert_true(err.message[i] >= 0x20 && err.message[i] < 0x7f);
}

/*
 * Generated inputs: strings built from pieces that matter to Windows
 * (separators, dots, spaces, colons, device names, '~' and digits, look-
 * alikes, prefixes).  Every accepted one has the canonical shape and is a
 * fixed point; every refused one leaves the output untouched and names its
 * reason.  A fixed LCG seed keeps the run reproducible.
 */
static void test_winpath__generated_inputs(void **state)
{
        static const char *const pieces[] = {
                "C:", "c:", "\\", "/", "\\\\", ".", "..", " ", ":", "a", "Work", "CON",
                "nul", "COM1", "LPT\xc2\xb9", "~1", "~", "1", ".txt", "$DATA", "$MFT",
                "?", "*", "\"", "<", "|", "\xef\xbc\xbc", "\xc2\xa0", "\xc3\xa9",
                "\xf0\x9f\x98\x80", "\\\\?\\", "\\\\.\\", "\\??\\", "pipe", "GLOBALROOT",
                "UNC", "Device", "\t", "\xff", "\xed\xa0\x80",
        };
        char in[256], out[SBX__WINPATH_BUF];
        uint32_t x = 0x2545F491u;
        size_t n_ok = 0, i, len;
        int round, k, parts;
        sbx__winpath_reason r;
        (void) state;

        for (round = 0; round < 20000; round++) {
                x = x * 1103515245u + 12345u;
                parts = 1 + (int) ((x >> 16) % 8);
                len = (size_t) snprintf(in, sizeof(in), "%s", (x & 0x100) ? "C:\\" : "");
                for (k = 0; k < parts; k++) {
                        x = x * 1103515245u + 12345u;
                        i = (x >> 16) % SBX__ARRAY_SIZE(pieces);
                        len += (size_t) snprintf(in + len, sizeof(in) - len, "%s", pieces[i]);
                }
                memset(out, 'X', sizeof(out));
                r = sbx__winpath_classify(in, out, sizeof(out), NULL);
                assert_true(r >= SBX__WINPATH_OK && r < SBX__WINPATH_REASON_END);
                if (r == SBX__WINPATH_OK) {
                        n_ok++;
                        expect_accept(in, NULL);
                } else {
                        assert_int_equal(out[0], 'X');
                        expect_reject(in, r);
                }
        }
        /* the generator reaches both sides */
        assert_true(n_ok > 100);
        assert_true(n_ok < 19900);
}

/* ------------------------------------------------ the POSIX spelling */

static void test_winpath__posix_spelling_round_trip(void **state)
{
        static const struct { const char *posix, *win; } t[] = {
                { "/c", "C:\\" },
                { "/c/", "C:\\" },
                { "/C/Users/me", "C:\\Users\\me" },
                { "/d/a b/c", "D:\\a b\\c" },
                { "/c/Users/me/proj", "C:\\Users\\me\\proj" },
        };
        char win[SBX__WINPATH_BUF], back[SBX__WINPATH_BUF], again[SBX__WINPATH_BUF];
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                assert_int_equal(sbx__winpath_from_posix(t[i].posix, win, sizeof(win), NULL),
                                 SBX_OK);
                assert_string_equal(win, t[i].win);
                assert_int_equal(sbx__winpath_to_posix(win, back, sizeof(back), NULL), SBX_OK);
                /* The POSIX form of a drive path maps back to it. */
                assert_int_equal(sbx__winpath_from_posix(back, again, sizeof(again), NULL),
                                 SBX_OK);
                assert_string_equal(again, win);
                assert_true(back[1] >= 'a' && back[1] <= 'z');
        }
        assert_int_equal(sbx__winpath_to_posix("c:/Users/Me", back, sizeof(back), NULL), SBX_OK);
        assert_string_equal(back, "/c/Users/Me");
}

static void test_winpath__posix_spelling_refusals(void **state)
{
        char out[SBX__WINPATH_BUF], tiny[4];
        sbx_error e;
        (void) state;

        memset(out, 'x', sizeof(out));
        out[sizeof(out) - 1] = '\0';
        /* Not a drive: "/", "/etc", "/cc", relative. */
        assert_int_equal(sbx__winpath_from_posix("/", out, sizeof(out), &e), SBX_E_INVALID);
        assert_non_null(strstr(e.message, "does not name a drive"));
        assert_int_equal(sbx__winpath_from_posix("/etc/passwd", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("/cc/x", out, sizeof(out), &e), SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("c/x", out, sizeof(out), &e), SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("/1/x", out, sizeof(out), &e), SBX_E_INVALID);
        /* A backslash would be a second separator on Windows. */
        assert_int_equal(sbx__winpath_from_posix("/c/a\\..\\b", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_non_null(strstr(e.message, "backslash"));
        /* Every rule of the drive form still applies. */
        assert_int_equal(sbx__winpath_from_posix("/c/a/../b", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("/c/a:stream", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("/c/CON", out, sizeof(out), &e), SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix("/c/PROGRA~1", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_int_equal(out[0], 'x');          /* never written on failure */
        assert_int_equal(sbx__winpath_to_posix("\\\\srv\\share", out, sizeof(out), &e),
                         SBX_E_INVALID);
        assert_int_equal(sbx__winpath_to_posix("C:\\abc", tiny, sizeof(tiny), &e), SBX_E_RANGE);
        assert_int_equal(sbx__winpath_to_posix(NULL, out, sizeof(out), &e), SBX_E_INVALID);
        assert_int_equal(sbx__winpath_from_posix(NULL, out, sizeof(out), &e), SBX_E_INVALID);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_winpath__accepted_table),
                cmocka_unit_test(test_winpath__rejected_table),
                cmocka_unit_test(test_winpath__every_reason_tested),
                cmocka_unit_test(test_winpath__reason_texts_distinct),
                cmocka_unit_test(test_winpath__bad_arguments),
                cmocka_unit_test(test_winpath__length_limits),
                cmocka_unit_test(test_winpath__message_quoting),
                cmocka_unit_test(test_winpath__generated_inputs),
                cmocka_unit_test(test_winpath__posix_spelling_round_trip),
                cmocka_unit_test(test_winpath__posix_spelling_refusals),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
