/*
 * seccomp_lists.h - the allow-list's names (seccomp_lists.c), shared with
 * seccomp.c.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_SECCOMP_LISTS_H
#define SBX_LINUX_SECCOMP_LISTS_H

#include <stddef.h>
#include <stdint.h>

#include <sandbox.h>

/* (name, index of its pid argument): on rung 2 only pid 0, the caller */
struct sbx__sc_pid_arg {
        const char  *name;
        unsigned int arg;
};

extern const char *const sbx__sc_allow[];       /* allowed */
extern const size_t sbx__sc_allow_n;
extern const char *const sbx__sc_ipc[];         /* allowed with an IPC namespace */
extern const size_t sbx__sc_ipc_n;
extern const char *const sbx__sc_refuse[];      /* EPERM */
extern const size_t sbx__sc_refuse_n;
extern const struct sbx__sc_pid_arg sbx__sc_self_pid[];
extern const size_t sbx__sc_self_pid_n;

/* Calls newer than libseccomp's table allowed by number on one ABI. */
struct sbx__sc_raw {
        uint32_t    scmp;       /* libseccomp arch token */
        uint32_t    nr;
        const char *name;
};
extern const struct sbx__sc_raw sbx__sc_raw_allow[];
extern const size_t sbx__sc_raw_allow_n;

/* NULL, or the first listed name no supported ABI knows (a typo). */
const char *sbx__sc_check_names(void);

struct sbx__bpf;
/* The allow-list stage for opts (SBX__SC_*): default ENOSYS, the native ABI
 * only; its ALLOW returns are linked into the argument stage by seccomp.c.
 * Errors: SBX_E_NOMEM, SBX_E_INTERNAL. */
sbx_code sbx__sc_allow_stage(uint32_t opts, struct sbx__bpf *out, sbx_error *err);

#endif /* SBX_LINUX_SECCOMP_LISTS_H */
