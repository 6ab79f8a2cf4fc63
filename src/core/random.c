/*
 * random.c - the library's one source of secrets: bytes from the kernel's
 * random generator, and tokens made of them in hex.  Grants, proxy
 * credentials and the names of registry entries all come from here, so
 * they handle a short read, an interrupted call and a failing generator
 * the same way (fail closed: no token at all, never a weak one), and none
 * leaves the raw bytes of a secret on its stack.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#if defined(_WIN32)
#  include <windows.h>
#  include <bcrypt.h>
#elif defined(__APPLE__)
#  include <unistd.h>
#else
#  include <sys/random.h>
#endif

#include "core/internal.h"

int sbx__random_bytes(void *buf, size_t n)
{
        unsigned char *p = buf;
        size_t got = 0;

#if defined(_WIN32)
        while (got < n) {
                ULONG chunk = n - got > 0x10000000u ? 0x10000000u : (ULONG) (n - got);

                if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p + got, chunk,
                                                    BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
                        return -EIO;
                got += chunk;
        }
#elif defined(__APPLE__)
        while (got < n) {
                size_t chunk = n - got > 256 ? 256 : n - got;      /* getentropy's limit */

                if (getentropy(p + got, chunk) != 0)
                        return errno != 0 ? -errno : -EIO;
                got += chunk;
        }
#else
        while (got < n) {
                ssize_t r = getrandom(p + got, n - got, 0);

                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        return -EIO;
                got += (size_t) r;
        }
#endif
        return 0;
}

int sbx__random_hex(char *out, size_t nbytes)
{
        unsigned char b[64];
        int r;

        if (nbytes > sizeof(b))
                return -EINVAL;
        r = sbx__random_bytes(b, nbytes);
        if (r == 0)
                sbx__hex_encode(b, nbytes, out);
        sbx__wipe(b, sizeof(b));
        return r;
}
