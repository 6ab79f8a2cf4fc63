/*
 * utf8.c - the one UTF-8 decoder: strict (Unicode's table of well-formed
 * byte sequences), so every reader of untrusted text -- the gate seam's
 * commands, the Windows path rules, the Seatbelt compiler, error messages
 * -- agrees on what a character is.  A leaf: it calls nothing.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

size_t sbx__utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
        unsigned char c, lo = 0x80, hi = 0xbf;
        size_t len, i;
        uint32_t v;

        if (n == 0)
                return 0;
        c = s[0];
        if (c < 0x80) {
                *cp = c;
                return 1;
        }
        if (c >= 0xc2 && c <= 0xdf) {
                len = 2;
                v = c & 0x1fu;
        } else if (c >= 0xe0 && c <= 0xef) {
                len = 3;
                v = c & 0x0fu;
                if (c == 0xe0)
                        lo = 0xa0;      /* no overlong 3-byte form */
                else if (c == 0xed)
                        hi = 0x9f;      /* no UTF-16 surrogate */
        } else if (c >= 0xf0 && c <= 0xf4) {
                len = 4;
                v = c & 0x07u;
                if (c == 0xf0)
                        lo = 0x90;      /* no overlong 4-byte form */
                else if (c == 0xf4)
                        hi = 0x8f;      /* nothing above U+10FFFF */
        } else {
                return 0;               /* continuation byte, C0, C1, F5..FF */
        }
        if (len > n)
                return 0;
        for (i = 1; i < len; i++) {
                if (s[i] < lo || s[i] > hi)
                        return 0;       /* also stops at a NUL */
                v = (v << 6) | (s[i] & 0x3fu);
                lo = 0x80;
                hi = 0xbf;
        }
        *cp = v;
        return len;
}
