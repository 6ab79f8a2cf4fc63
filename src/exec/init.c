/*
 * init.c - sbx_init: a no-op unless argv asks for the stage-2 runner
 * (argv[1] SBX__STAGE2_FLAG), which is the platform's (posix/runner.c;
 * win32/runner.c has none).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "compile/runner_args.h"
#include "exec/exec.h"

sbx_code sbx_init(int argc, char **argv)
{
        if (argc < 2 || argv == NULL || argv[0] == NULL || argv[1] == NULL ||
            strcmp(argv[1], SBX__STAGE2_FLAG) != 0)
                return SBX_OK;
        return sbx__runner_main(argc, argv);
}
