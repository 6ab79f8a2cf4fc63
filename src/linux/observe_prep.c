/*
 * observe_prep.c - the parent's half of the denial observer
 * (SBX_SPAWN_OBSERVE, observe.c): the plan's rules flattened for the
 * supervisor, the hidden homes, the scratch the backend makes writable,
 * and the record pipe (docs/events.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compile/plan_internal.h"
#include "backend/backend.h"
#include "linux/ladder.h"

/* The pipe holds every record one supervisor sends (observe.c SENT_MAX)
 * where the system lets a pipe be this large; past a full pipe records
 * are counted as dropped, never waited for. */
#define OBS_PIPE_SIZE (1 << 20)

sbx_code sbx__observe_prepare(struct sbx__prep *p, const struct sbx_plan *plan,
                              const char *home, const char *home2,
                              const char *const *scratch, sbx_error *err)
{
        struct sbx__obs *o;
        struct sbx__obs_rule *rules;
        size_t i;

        p->obs_pipe[0] = p->obs_pipe[1] = -EBADF;
        o = calloc(1, sizeof(*o));
        rules = calloc(plan->n_rules + 1, sizeof(*rules));
        if (o == NULL || rules == NULL) {
                free(o);
                free(rules);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        }
        for (i = 0; i < plan->n_rules; i++) {
                rules[i].path = plan->rules[i].path;
                rules[i].len = strlen(plan->rules[i].path);
                rules[i].access = plan->rules[i].access;
                rules[i].tree = plan->rules[i].scope == SBX__FS_TREE;
        }
        o->rules = rules;
        o->n_rules = plan->n_rules;
        o->rung = p->rung;
        o->net_denied = plan->network != SBX__NET_ALLOW;
        if (plan->home == SBX__ENV_DIR_SCRATCH) {
                o->homes[0] = home;
                o->homes[1] = home2;
        }
        for (i = 0; scratch != NULL && scratch[i] != NULL &&
                    o->n_scratch < SBX__ARRAY_SIZE(o->scratch); i++)
                o->scratch[o->n_scratch++] = scratch[i];
        o->answer = sbx__observe_answer;
        p->obs = o;
        if (pipe2(p->obs_pipe, O_CLOEXEC) < 0) {
                p->obs_pipe[0] = p->obs_pipe[1] = -EBADF;
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: cannot create the "
                                 "observer's pipe");
        }
        (void) fcntl(p->obs_pipe[1], F_SETPIPE_SZ, OBS_PIPE_SIZE);
        {
                int size = fcntl(p->obs_pipe[1], F_GETPIPE_SZ);

                o->pipe_size = size > 0 ? (size_t) size : 4096;
        }
        o->sh = mmap(NULL, sizeof(*o->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
        if (o->sh == MAP_FAILED) {
                o->sh = NULL;
                return sbx__fail(err, SBX_E_NOMEM, errno, "sbx_spawn: no memory for the "
                                 "observer");
        }
        if (fcntl(p->obs_pipe[1], F_SETFL, O_NONBLOCK) < 0 ||
            fcntl(p->obs_pipe[0], F_SETFL, O_NONBLOCK) < 0)
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: cannot prepare the "
                                 "observer's pipe");
        o->fd = p->obs_pipe[1];
        return SBX_OK;
}

void sbx__observe_prep_free(struct sbx__prep *p)
{
        if (p->obs != NULL) {
                if (p->obs->sh != NULL)
                        (void) munmap(p->obs->sh, sizeof(*p->obs->sh));
                free((void *) p->obs->rules);
                free(p->obs);
                p->obs = NULL;
        }
        if (p->obs_pipe[0] >= 0)
                (void) close(p->obs_pipe[0]);
        if (p->obs_pipe[1] >= 0)
                (void) close(p->obs_pipe[1]);
        p->obs_pipe[0] = p->obs_pipe[1] = -EBADF;
}
