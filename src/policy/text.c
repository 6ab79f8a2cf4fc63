/*
 * text.c - terminal output sanitising: ANSI/ECMA-48 escape stripping and
 * line-ending normalisation.  Pure and portable: no OS calls, no allocation.
 *
 * Every function works in place on buf[0..len), treats the buffer as raw
 * bytes (NUL and invalid UTF-8 are ordinary data), runs in one linear pass
 * and only ever shrinks the text, so *out_len <= len always holds.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "core/internal.h"

#define SBX__ESC 0x1b
#define SBX__BEL 0x07

/*
 * The stripper is a small ECMA-48 recogniser (the subset of the DEC/xterm
 * VT parser that matters for captured output):
 *
 *   ESC [ P... I... F        CSI: parameter/intermediate bytes 0x20-0x3F,
 *                            then a final byte 0x40-0x7E.
 *   ESC ] ... BEL | ESC \    OSC, and the other control strings
 *   ESC P / X / ^ / _ ...    DCS, SOS, PM and APC, all terminated by BEL or
 *                            ST (ESC \).
 *   ESC I... F               nF escapes such as the charset designation
 *                            ESC ( B: intermediates 0x20-0x2F, then a final
 *                            byte 0x30-0x7E.
 *   ESC F                    two-byte escapes with a final byte 0x30-0x7E
 *                            (ESC 7, ESC 8, ESC =, ESC >, ESC c, ESC M ...).
 *
 * Malformed input:
 *   - A byte that cannot continue an escape or CSI sequence abandons it: the
 *     bytes of the sequence seen so far are dropped and that byte is handled
 *     as ordinary text (so a newline or a UTF-8 byte after a broken sequence
 *     survives; an ESC starts a new sequence).
 *   - Inside a control string every byte is swallowed until BEL or ESC.  An
 *     ESC there ends the string and starts a new escape sequence, as in
 *     xterm: ESC \ is ST and is consumed as such; any other ESC sequence is
 *     stripped by the usual rules.
 *   - A sequence still open at the end of the buffer (including a lone ESC)
 *     is dropped up to the end.
 *
 * The 8-bit C1 forms (0x9B CSI, 0x9D OSC, 0x90 DCS, 0x9C ST, ...) are NOT
 * recognised: those byte values are UTF-8 continuation bytes, and treating
 * them as controls would corrupt ordinary non-ASCII text.  They are kept as
 * data.  Consequently the output never contains an ESC byte, while every
 * other byte either passes through unchanged or belongs to a stripped
 * sequence.
 */
enum sbx__strip_state {
        SBX__STRIP_GROUND = 0,          /* ordinary text */
        SBX__STRIP_ESC,                 /* after ESC */
        SBX__STRIP_ESC_INTER,           /* after ESC and intermediates 0x20-0x2F */
        SBX__STRIP_CSI,                 /* after ESC [ */
        SBX__STRIP_STRING               /* inside OSC/DCS/SOS/PM/APC */
};

static size_t strip_ansi(char *buf, size_t len)
{
        enum sbx__strip_state st = SBX__STRIP_GROUND;
        size_t r, w = 0;

        for (r = 0; r < len; r++) {
                unsigned char c = (unsigned char) buf[r];

                switch (st) {
                case SBX__STRIP_GROUND:
                        break;
                case SBX__STRIP_ESC:
                        st = SBX__STRIP_GROUND;
                        if (c == '[') {
                                st = SBX__STRIP_CSI;
                                continue;
                        }
                        if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
                                st = SBX__STRIP_STRING;
                                continue;
                        }
                        if (c >= 0x20 && c <= 0x2f) {
                                st = SBX__STRIP_ESC_INTER;
                                continue;
                        }
                        if (c >= 0x30 && c <= 0x7e)
                                continue;       /* two-byte escape, done */
                        break;                  /* abandoned: c is text */
                case SBX__STRIP_ESC_INTER:
                        if (c >= 0x20 && c <= 0x2f)
                                continue;
                        st = SBX__STRIP_GROUND;
                        if (c >= 0x30 && c <= 0x7e)
                                continue;       /* final byte, done */
                        break;                  /* abandoned: c is text */
                case SBX__STRIP_CSI:
                        if (c >= 0x20 && c <= 0x3f)
                                continue;
                        st = SBX__STRIP_GROUND;
                        if (c >= 0x40 && c <= 0x7e)
                                continue;       /* final byte, done */
                        break;                  /* abandoned: c is text */
                case SBX__STRIP_STRING:
                        if (c == SBX__BEL)
                                st = SBX__STRIP_GROUND;
                        else if (c == SBX__ESC)
                                st = SBX__STRIP_ESC;    /* ST, or a new sequence */
                        continue;
                }

                /* Ground: keep the byte unless it starts a sequence. */
                if (c == SBX__ESC) {
                        st = SBX__STRIP_ESC;
                        continue;
                }
                buf[w++] = (char) c;
        }
        return w;
}

/* CRLF -> LF, lone CR -> LF, BEL dropped.  "\r\r\n" is a lone CR followed
 * by CRLF, i.e. two line feeds. */
static size_t normalize(char *buf, size_t len)
{
        size_t r, w = 0;

        for (r = 0; r < len; r++) {
                char c = buf[r];

                if (c == SBX__BEL)
                        continue;
                if (c == '\r') {
                        if (r + 1 < len && buf[r + 1] == '\n')
                                r++;
                        c = '\n';
                }
                buf[w++] = c;
        }
        return w;
}

static sbx_code check_args(const char *fn, const char *buf, size_t len, const size_t *out_len,
                           sbx_error *err)
{
        if (buf == NULL && len > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: buf is NULL but len is %zu",
                                 fn, len);
        if (out_len == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out_len is NULL", fn);
        return SBX_OK;
}

sbx_code sbx_text_strip_ansi(char *buf, size_t len, size_t *out_len, sbx_error *err)
{
        sbx_code r;

        r = check_args("sbx_text_strip_ansi", buf, len, out_len, err);
        if (r != SBX_OK)
                return r;
        *out_len = strip_ansi(buf, len);
        return SBX_OK;
}

sbx_code sbx_text_normalize(char *buf, size_t len, size_t *out_len, sbx_error *err)
{
        sbx_code r;

        r = check_args("sbx_text_normalize", buf, len, out_len, err);
        if (r != SBX_OK)
                return r;
        *out_len = normalize(buf, len);
        return SBX_OK;
}

sbx_code sbx_text_sanitize(char *buf, size_t len, size_t *out_len, sbx_error *err)
{
        sbx_code r;

        r = check_args("sbx_text_sanitize", buf, len, out_len, err);
        if (r != SBX_OK)
                return r;
        *out_len = normalize(buf, strip_ansi(buf, len));
        return SBX_OK;
}
