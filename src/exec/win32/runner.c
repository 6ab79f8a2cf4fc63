/*
 * runner.c - the stage-2 runner on Windows: there is none.  The Windows
 * backend starts the command itself (docs/windows.md), so sbx_init stays
 * the no-op its documentation promises for other systems (posix/runner.c
 * is the POSIX runner).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "exec/exec.h"

sbx_code sbx__runner_main(int argc, char **argv)
{
        (void) argc;
        (void) argv;
        return SBX_OK;
}
