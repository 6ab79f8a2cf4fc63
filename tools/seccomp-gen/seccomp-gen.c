/*
 * seccomp-gen.c - build-time compiler of the seccomp programs.
 *
 *   sbx-seccomp-gen OUTPUT.h
 *
 * Linked with src/linux/seccomp.c and seccomp_notify.c compiled a second
 * time with SBX_SC_GENERATOR (and libseccomp), it compiles the program of
 * every option set and the supervisor's filter of every variant, with its
 * syscall table, and writes them to OUTPUT.h, which the library's
 * seccomp_embed.c includes: no libseccomp code runs on a spawn.  A cross
 * build runs it under CMAKE_CROSSCOMPILING_EMULATOR (docs/seccomp.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "linux/linux_internal.h"

int main(int argc, char **argv)
{
        sbx_error e = { 0, 0, { 0 } };

        if (argc != 2) {
                fprintf(stderr, "usage: %s OUTPUT.h\n", argv[0]);
                return 2;
        }
        if (sbx__seccomp_gen_write(argv[1], &e) != SBX_OK) {
                fprintf(stderr, "%s: %s\n", argv[0], e.message);
                return 1;
        }
        return 0;
}
