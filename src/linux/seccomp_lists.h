/*
 * seccomp_lists.h - the allow-list's names (seccomp_lists.c), shared with
 * seccomp.c.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_SECCOMP_LISTS_H
#define SBX_LINUX_SECCOMP_LISTS_H

#include <stddef.h>

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

/* NULL, or the first listed name no supported ABI knows (a typo). */
const char *sbx__sc_check_names(void);

#endif /* SBX_LINUX_SECCOMP_LISTS_H */
