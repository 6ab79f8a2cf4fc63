/*
 * fuzz_ansi.c - libFuzzer harness for sbx_text_strip_ansi,
 * sbx_text_normalize and sbx_text_sanitize.
 *
 * Properties checked on every input (a violation traps):
 *   - every call succeeds and *out_len <= len;
 *   - strip leaves no ESC byte, and its output is a subsequence of the input;
 *   - normalize leaves no CR and no BEL;
 *   - sanitize leaves none of ESC, CR, BEL and equals normalize(strip(x));
 *   - strip and normalize are idempotent.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sandbox.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* An exactly-sized heap copy, so ASan catches any access past len. */
static char *copy_of(const uint8_t *data, size_t size)
{
        char *p = malloc(size > 0 ? size : 1);

        if (p == NULL)
                __builtin_trap();
        if (size > 0)
                memcpy(p, data, size);
        return p;
}

static int has_byte(const char *p, size_t n, int c)
{
        return n > 0 && memchr(p, c, n) != NULL;
}

static int is_subsequence(const char *sub, size_t n, const uint8_t *of, size_t m)
{
        size_t i = 0, j;

        for (j = 0; j < m && i < n; j++)
                if ((uint8_t) sub[i] == of[j])
                        i++;
        return i == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *strip = copy_of(data, size);
        char *norm = copy_of(data, size);
        char *sane = copy_of(data, size);
        size_t ns = (size_t) -1, nn = (size_t) -1, nz = (size_t) -1, again;

        CHECK(sbx_text_strip_ansi(strip, size, &ns, NULL) == SBX_OK);
        CHECK(ns <= size);
        CHECK(!has_byte(strip, ns, 0x1b));
        CHECK(is_subsequence(strip, ns, data, size));
        CHECK(sbx_text_strip_ansi(strip, ns, &again, NULL) == SBX_OK);
        CHECK(again == ns);                             /* idempotent */

        CHECK(sbx_text_normalize(norm, size, &nn, NULL) == SBX_OK);
        CHECK(nn <= size);
        CHECK(!has_byte(norm, nn, '\r'));
        CHECK(!has_byte(norm, nn, 0x07));

        CHECK(sbx_text_sanitize(sane, size, &nz, NULL) == SBX_OK);
        CHECK(nz <= size);
        CHECK(nz <= ns);
        CHECK(!has_byte(sane, nz, 0x1b));
        CHECK(!has_byte(sane, nz, '\r'));
        CHECK(!has_byte(sane, nz, 0x07));

        /* sanitize == normalize(strip(x)); strip is now in place in `strip`. */
        CHECK(sbx_text_normalize(strip, ns, &again, NULL) == SBX_OK);
        CHECK(again == nz);
        CHECK(nz == 0 || memcmp(strip, sane, nz) == 0);

        /* Idempotence of normalize and of the whole sanitize. */
        CHECK(sbx_text_normalize(norm, nn, &again, NULL) == SBX_OK);
        CHECK(again == nn);
        CHECK(sbx_text_sanitize(sane, nz, &again, NULL) == SBX_OK);
        CHECK(again == nz);

        free(strip);
        free(norm);
        free(sane);
        return 0;
}
