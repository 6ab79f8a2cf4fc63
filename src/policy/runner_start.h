/*
 * runner_start.h - runner failure rules that recognise the runner binary
 * itself failing to start (the dynamic loader, or its exec).  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_POLICY_RUNNER_START_H
#define SBX_POLICY_RUNNER_START_H

#include <stddef.h>

#include <sandbox.h>

/*
 * The runner failure rules of a confined argv whose argv[0] is `runner`:
 * the backend's `base` rules (copied), then two that recognise `runner`
 * itself failing before it could run anything:
 *   - the dynamic loader cannot load it: exit 127 and
 *     "<runner>: error while loading shared libraries";
 *   - it cannot be executed (gone, not executable, wrong format), as a shell
 *     or an exec wrapper reports that: exit 126 or 127 and <runner> followed
 *     by ": " (sh, bash, ld.so), "': " or U+2019 + ": " (GNU env, timeout,
 *     nohup: quoted) and the reason: not found, No such file or directory,
 *     Permission denied, cannot execute, Exec format error.
 * Both name the runner's path right before the colon.  The command's own
 * 126 / 127 does not: the runner's "sandbox-run: <cmd>: command not found",
 * a shell's "sh: 1: <cmd>: not found", or the command's loader error
 * "<cmd>: error while loading shared libraries" name the command.
 *
 * One allocation, every string inside it; release it with free().
 * *n_out = n_base + 2.  NULL only when out of memory.
 */
sbx_runner_rule *sbx__runner_start_rules(const sbx_runner_rule *base, size_t n_base,
                                         const char *runner, size_t *n_out);

#endif /* SBX_POLICY_RUNNER_START_H */
