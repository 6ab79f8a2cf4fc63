/*
 * sha256.c - SHA-256 on POSIX systems: nettle, whose state lives in the
 * caller's struct sbx__sha256 (core/internal.h; win32/sha256.c is the
 * Windows sibling).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>

#include <nettle/sha2.h>
#include <nettle/version.h>

#include "core/internal.h"

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(((struct sbx__sha256 *) 0)->u),
               "struct sbx__sha256 holds nettle's state");
_Static_assert(SHA256_DIGEST_SIZE == SBX__SHA256_SIZE, "a SHA-256 digest is 32 bytes");

int sbx__sha256_init(struct sbx__sha256 *h)
{
        h->failed = 0;
        sha256_init((struct sha256_ctx *) (void *) h->u.bytes);
        return 0;
}

void sbx__sha256_update(struct sbx__sha256 *h, const void *data, size_t n)
{
        sha256_update((struct sha256_ctx *) (void *) h->u.bytes, n, (const uint8_t *) data);
}

int sbx__sha256_final(struct sbx__sha256 *h, uint8_t digest[SBX__SHA256_SIZE])
{
#if NETTLE_VERSION_MAJOR >= 4
        sha256_digest((struct sha256_ctx *) (void *) h->u.bytes, digest);
#else
        sha256_digest((struct sha256_ctx *) (void *) h->u.bytes, SBX__SHA256_SIZE, digest);
#endif
        return 0;
}
