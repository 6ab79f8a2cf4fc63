/*
 * sha256.c - the library's one SHA-256 (profile fingerprints, route
 * fingerprints, the executor's route of a plain plan), over the platform's
 * well-kept implementation: nettle where it is built (its digest call
 * changed shape in nettle 4, handled here once), the system's CNG
 * (BCrypt) on Windows.  Not a secret's hash: nothing here needs to be
 * constant-time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(_WIN32)
#  include <windows.h>
#  include <bcrypt.h>
#else
#  include <nettle/sha2.h>
#  include <nettle/version.h>
#endif

#include "core/internal.h"

#if defined(_WIN32)
/* The algorithm provider and the hash object, kept in the context. */
struct cng {
        BCRYPT_ALG_HANDLE  alg;
        BCRYPT_HASH_HANDLE hash;
};
_Static_assert(sizeof(((struct sbx__sha256 *) 0)->u) >= sizeof(struct cng),
               "struct sbx__sha256 holds the CNG handles");
#else
_Static_assert(sizeof(((struct sbx__sha256 *) 0)->u) >= sizeof(struct sha256_ctx),
               "struct sbx__sha256 holds nettle's context");
#endif

void sbx__sha256_init(struct sbx__sha256 *h)
{
        memset(h, 0, sizeof(*h));
#if defined(_WIN32)
        {
                struct cng c = { NULL, NULL };

                if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&c.alg, BCRYPT_SHA256_ALGORITHM,
                                                                NULL, 0))) {
                        c.alg = NULL;
                        h->failed = 1;
                } else if (!BCRYPT_SUCCESS(BCryptCreateHash(c.alg, &c.hash, NULL, 0, NULL, 0,
                                                            0))) {
                        c.hash = NULL;
                        h->failed = 1;
                }
                memcpy(h->u.bytes, &c, sizeof(c));
        }
#else
        sha256_init((struct sha256_ctx *) (void *) h->u.bytes);
#endif
}

void sbx__sha256_update(struct sbx__sha256 *h, const void *data, size_t n)
{
        if (h->failed || n == 0)
                return;
#if defined(_WIN32)
        {
                struct cng c;
                const unsigned char *p = data;

                memcpy(&c, h->u.bytes, sizeof(c));
                while (n > 0 && !h->failed) {
                        ULONG chunk = n > 0x40000000u ? 0x40000000u : (ULONG) n;

                        if (!BCRYPT_SUCCESS(BCryptHashData(c.hash, (PUCHAR) p, chunk, 0)))
                                h->failed = 1;
                        p += chunk;
                        n -= chunk;
                }
        }
#else
        sha256_update((struct sha256_ctx *) (void *) h->u.bytes, n, data);
#endif
}

int sbx__sha256_final(struct sbx__sha256 *h, uint8_t out[SBX__SHA256_SIZE])
{
#if defined(_WIN32)
        struct cng c;

        memcpy(&c, h->u.bytes, sizeof(c));
        if (!h->failed && !BCRYPT_SUCCESS(BCryptFinishHash(c.hash, out, SBX__SHA256_SIZE, 0)))
                h->failed = 1;
        if (c.hash != NULL)
                (void) BCryptDestroyHash(c.hash);
        if (c.alg != NULL)
                (void) BCryptCloseAlgorithmProvider(c.alg, 0);
#else
        struct sha256_ctx *c = (struct sha256_ctx *) (void *) h->u.bytes;

#  if NETTLE_VERSION_MAJOR >= 4
        sha256_digest(c, out);
#  else
        sha256_digest(c, SBX__SHA256_SIZE, out);
#  endif
#endif
        return h->failed ? -EIO : 0;
}

int sbx__sha256_hex(const void *data, size_t n, char out[2 * SBX__SHA256_SIZE + 1])
{
        struct sbx__sha256 h;
        uint8_t d[SBX__SHA256_SIZE];
        int r;

        sbx__sha256_init(&h);
        sbx__sha256_update(&h, data, n);
        r = sbx__sha256_final(&h, d);
        if (r == 0)
                sbx__hex_encode(d, sizeof(d), out);
        return r;
}
