/*
 * shim.h - the fault shim's control (tests/fault-shim/shim.c).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_TEST_FAULT_SHIM_H
#define SBX_TEST_FAULT_SHIM_H

enum {
        SBX_FAULT_NONE  = 0,    /* count only */
        SBX_FAULT_ALLOC = 1,    /* ENOMEM */
        SBX_FAULT_FD    = 2,    /* EMFILE */
        SBX_FAULT_CLONE = 3,    /* EAGAIN */
        SBX_FAULT_MKDIR = 4,    /* ENOSPC */
        SBX_FAULT_KINDS = 5
};

/* From now on this process counts its calls of every kind (from 0) and
 * the nth call of kind fails (kind NONE or n = 0: none fails). */
void sbx_fault_arm(int kind, long n);
/* Stop counting and failing (the counts stay readable). */
void sbx_fault_disarm(void);
/* Calls of kind since the last arm. */
long sbx_fault_count(int kind);
/* 1 if the armed call was reached (and failed). */
long sbx_fault_fired(void);
const char *sbx_fault_kind_name(int kind);
/* "alloc", "fd", "clone", "mkdir" -> the kind; anything else NONE. */
int sbx_fault_kind_parse(const char *s);

#endif /* SBX_TEST_FAULT_SHIM_H */
