/*
 * seccomp_notify.h - the supervisor's filters compiled by libseccomp
 * (seccomp_notify.c), for the build-time generator (tools/seccomp-gen) and
 * the tests that compare the embedded table with them.  Nothing on the
 * spawn path calls these: sbx__notify_build (seccomp_embed.c) hands out
 * the build-time table.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_SECCOMP_NOTIFY_H
#define SBX_LINUX_SECCOMP_NOTIFY_H

#include "linux/ladder.h"

/* Every SBX__NF_* bit; a variant is a combination of them. */
#define SBX__NF_ALL (SBX__NF_NAMES | SBX__NF_WRITES | SBX__NF_CONNECT | SBX__NF_OBSERVE | \
                     SBX__NF_INET | SBX__NF_READS | SBX__NF_META)

/* The variant a flag set is built as: WRITES implies NAMES.  0 if flags is
 * 0, has unknown bits or READS without OBSERVE. */
unsigned sbx__notify_variant(unsigned flags);

/* libseccomp's compilation of variant w (sbx__notify_variant(w) == w):
 * every local ABI, default ALLOW.  The caller frees *out
 * (sbx__seccomp_free).  Errors: SBX_E_INVALID, SBX_E_NOMEM, SBX_E_INTERNAL. */
sbx_code sbx__notify_compile(unsigned w, struct sbx__bpf *out, sbx_error *err);

/* The supervisor's table (arch, number) -> operation, from libseccomp's
 * syscall tables; the same for every variant.  Errors: SBX_E_INTERNAL. */
sbx_code sbx__notify_map_compile(struct sbx__notify_map *map, sbx_error *err);

#endif /* SBX_LINUX_SECCOMP_NOTIFY_H */
