/*
 * sha256.c - SHA-256 on Windows: CNG (bcrypt), the hash object allocated by
 * CNG itself; the handles live in the caller's struct sbx__sha256
 * (core/internal.h; posix/sha256.c is the POSIX sibling).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <windows.h>
#include <bcrypt.h>

#include "core/internal.h"

struct cng {
        BCRYPT_ALG_HANDLE  alg;
        BCRYPT_HASH_HANDLE hash;
};
_Static_assert(sizeof(struct cng) <= sizeof(((struct sbx__sha256 *) 0)->u),
               "struct sbx__sha256 holds the CNG handles");

static struct cng *cng(struct sbx__sha256 *h)
{
        return (struct cng *) (void *) h->u.bytes;
}

int sbx__sha256_init(struct sbx__sha256 *h)
{
        struct cng *c = cng(h);

        memset(h, 0, sizeof(*h));
        if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&c->alg, BCRYPT_SHA256_ALGORITHM,
                                                        NULL, 0)))
                return -ENOSYS;
        /* No object buffer: CNG allocates it (Windows 7 and later). */
        if (!BCRYPT_SUCCESS(BCryptCreateHash(c->alg, &c->hash, NULL, 0, NULL, 0, 0))) {
                (void) BCryptCloseAlgorithmProvider(c->alg, 0);
                return -ENOMEM;
        }
        return 0;
}

void sbx__sha256_update(struct sbx__sha256 *h, const void *data, size_t n)
{
        const unsigned char *p = data;

        while (!h->failed && n > 0) {
                ULONG k = n > 0x40000000u ? 0x40000000u : (ULONG) n;

                if (!BCRYPT_SUCCESS(BCryptHashData(cng(h)->hash, (PUCHAR) p, k, 0)))
                        h->failed = 1;
                p += k;
                n -= k;
        }
}

int sbx__sha256_final(struct sbx__sha256 *h, uint8_t digest[SBX__SHA256_SIZE])
{
        struct cng *c = cng(h);
        int r = 0;

        if (h->failed || !BCRYPT_SUCCESS(BCryptFinishHash(c->hash, digest, SBX__SHA256_SIZE, 0)))
                r = -EIO;
        (void) BCryptDestroyHash(c->hash);
        (void) BCryptCloseAlgorithmProvider(c->alg, 0);
        return r;
}
