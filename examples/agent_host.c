/*
 * agent_host.c - a template for the loop an agent host runs around each
 * tool call, over the executor API (docs/executors.md):
 *
 *   1. build a profile for the workspace (here: the current directory)
 *      in which starting a command is Gated, i.e. needs the host's yes;
 *   2. make an executor set and take one executor for the session;
 *   3. for a command: ask the profile (access_for) what it says,
 *        Allow -> run it,
 *        Deny  -> refuse it, nothing runs,
 *        Gated -> ask the user; on yes mint a single-spawn grant token
 *                 for exactly this command and run with it; on no show
 *                 that the executor itself refuses a run without a token.
 *
 *     ./agent_host                      # runs "echo hello from the sandbox"
 *     ./agent_host 'ls -l'              # any shell command
 *     SBX_DEMO_APPROVE=1 ./agent_host </dev/null   # say yes without a terminal
 *
 * The question is only asked on a terminal.  Without one (CI, a pipe, a
 * closed stdin) or at EOF the answer is no, unless SBX_DEMO_APPROVE=1.
 * Either way the program exits 0; only an unexpected library error exits 1.
 *
 * Build against an installed libsandbox:
 *     cc agent_host.c $(pkg-config --cflags --libs sandbox) -o agent_host
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _XOPEN_SOURCE 700   /* mkdtemp, realpath under -std=c99 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sandbox.h>

#define EXECUTION_ID "tool-call-1"      /* the host's id of this tool call */

static int fail(const char *what, const sbx_error *e)
{
        fprintf(stderr, "agent_host: %s: %s (%s)\n", what, e->message, sbx_code_name(e->code));
        return 1;
}

/* A host must not run with fd 0, 1 or 2 closed: the next file it (or the
 * library) opens would land there and be mistaken for stdio.  Put
 * /dev/null in any gap before anything else opens a file. */
static void fill_stdio(void)
{
        int fd;

        for (fd = 0; fd <= 2; fd++)
                if (fcntl(fd, F_GETFD) == -1 && errno == EBADF)
                        (void) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

/* The host's approval.  Ask only a person at a terminal; anything else
 * (no terminal, EOF, an unreadable answer) is no, unless the environment
 * says SBX_DEMO_APPROVE=1.  A real host would use its own UI here. */
static int approve(const char *cmd)
{
        const char *env = getenv("SBX_DEMO_APPROVE");
        char line[64];

        if (isatty(STDIN_FILENO)) {
                printf("run `%s`? [y/N] ", cmd);
                fflush(stdout);
                if (fgets(line, sizeof(line), stdin) != NULL)
                        return line[0] == 'y' || line[0] == 'Y';
                printf("\n");                   /* EOF: fall through */
        }
        return env != NULL && strcmp(env, "1") == 0;
}

/* What the sandbox enforced for one run, by name. */
static void print_guarantees(const sbx_guarantee_report *g)
{
        uint32_t bit;

        printf("enforcement: %s\nachieved:",
               g->enforcement == SBX_ENFORCEMENT_FULL      ? "full" :
               g->enforcement == SBX_ENFORCEMENT_PARTIAL   ? "partial" : "none");
        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1)
                if (g->achieved & bit)
                        printf(" %s", sbx_guarantee_name(bit));
        printf("\n");
}

/* Captured output is bytes from an untrusted command, not a C string: it
 * may hold NULs and terminal escapes.  Strip those (in place) first. */
static void print_text(char *buf, size_t len)
{
        if (sbx_text_sanitize(buf, len, &len, NULL) != SBX_OK)
                len = 0;
        fwrite(buf, 1, len, stdout);
        if (len > 0 && buf[len - 1] != '\n')
                putchar('\n');
}

/* Run cmd on ex, with a grant token or (tok == NULL) without one. */
static sbx_code run(sbx_executor *ex, const char *cmd, const char *tok, sbx_error *e)
{
        const char *tokens[1];
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result res;
        sbx_code c;

        o.command = cmd;                        /* run as /bin/sh -c cmd */
        o.timeout_ms = 60000;                   /* a hung tool call is killed */
        if (tok != NULL) {
                tokens[0] = tok;
                o.tokens = tokens;
                o.n_tokens = 1;
                o.execution_id = EXECUTION_ID;  /* must match the grant's */
        }
        c = sbx_executor_run(ex, &o, &res, e);
        if (c != SBX_OK)
                return c;                       /* nothing was spawned */
        if (res.exited)
                printf("exit code: %d\n", (int) res.exit_code);
        else
                printf("killed by signal %d\n", (int) res.signal);
        printf("stdout (%zu bytes%s):\n", res.out_len, res.out_truncated ? ", truncated" : "");
        print_text(res.out, res.out_len);
        if (res.err_len > 0) {
                printf("stderr:\n");
                print_text(res.err, res.err_len);
        }
        if (res.denial != SBX_DENIAL_NONE)      /* what to tell the model */
                printf("%s\n", res.marker);
        print_guarantees(&res.guarantees);
        sbx_run_result_free(&res);
        return SBX_OK;
}

int main(int argc, char **argv)
{
        const char *cmd = argc > 1 ? argv[1] : "echo hello from the sandbox";
        char tmp[] = "/tmp/agent-host-XXXXXX", scratch[sizeof(tmp) + 16];
        char tok[SBX_GRANT_TOKEN_SIZE];
        sbx_error e = { 0, 0, { 0 } };
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;
        sbx_profile *ro = NULL, *profile = NULL;
        sbx_executor_set *set = NULL;
        sbx_executor *ex = NULL;
        char *ws = NULL;
        int32_t access = SBX_ACCESS_DENY;
        sbx_code c;
        int made = 0, rc = 1;

        fill_stdio();
        /* A process the library re-executes as its runner dispatches here. */
        if (sbx_init(argc, argv) != SBX_OK)
                return 1;

        /* 1. The profile: read-only's, with command.execute Gated.  The
         * workspace root must be canonical, hence realpath. */
        if ((ws = realpath(".", NULL)) == NULL) {
                perror("agent_host: workspace");
                return 1;
        }
        if (sbx_profile_from_mode(SBX_MODE_READ_ONLY, ws, &ro, &e) != SBX_OK ||
            sbx_profile_config_get(ro, &cfg, &e) != SBX_OK) {
                rc = fail("read-only profile", &e);
                goto out;
        }
        cfg.command = SBX_ACCESS_GATED;         /* every start needs a yes */
        if (sbx_profile_new(&cfg, &profile, &e) != SBX_OK) {
                rc = fail("profile", &e);
                goto out;
        }

        /* 2. The set keeps each executor's HOME and TMPDIR below its scratch
         * root, which it creates owner-only (here inside a fresh temp dir). */
        if (mkdtemp(tmp) == NULL) {
                perror("agent_host: mkdtemp");
                goto out;
        }
        made = 1;
        snprintf(scratch, sizeof(scratch), "%s/scratch", tmp);
        so.scratch_root = scratch;
        so.max_executors = 1;                   /* one per agent session */
        if (sbx_executor_set_new(profile, &so, &set, &e) != SBX_OK ||
            sbx_executor_set_get(set, "session-1", &ex, &e) != SBX_OK) {
                rc = fail("executor", &e);      /* fail closed: run nothing */
                goto out;
        }

        /* 3. The gate: what does the profile say about this command? */
        if (sbx_profile_access_for(profile, SBX_PROFILE_ACCESS_VERSION, "command.execute", cmd,
                                   &access, &e) != SBX_OK) {
                rc = fail("access_for", &e);    /* e.g. a control character */
                goto out;
        }
        printf("command: %s\naccess: %s\n", cmd, sbx_access_name(access));

        if (access == SBX_ACCESS_ALLOW) {
                c = run(ex, cmd, NULL, &e);
        } else if (access == SBX_ACCESS_DENY) {
                printf("denied by the profile: not run\n");
                c = SBX_OK;
        } else if (approve(cmd)) {
                /* Yes: mint a token for exactly this command, this tool
                 * call and the workspace root (cwd NULL), spent by one run. */
                g.execution_id = EXECUTION_ID;
                g.command = cmd;
                g.kind = "command.execute";
                g.scope = cmd;
                g.grant_class = SBX_GRANT_CLASS_COMMAND_START;
                g.target = cmd;
                printf("approved\n");
                c = sbx_executor_issue_grant(ex, &g, tok, sizeof(tok), &e);
                if (c == SBX_OK)
                        c = run(ex, cmd, tok, &e);
        } else {
                /* No: the executor does not trust the host's bookkeeping
                 * either; a Gated command without its token is refused. */
                printf("not approved\n");
                c = run(ex, cmd, NULL, &e);
                if (c == SBX_E_GRANT_REQUIRED) {
                        printf("run without a grant: %s\n", sbx_code_name(c));
                        c = SBX_OK;
                } else if (c == SBX_OK) {
                        fprintf(stderr, "agent_host: a Gated command ran without a grant\n");
                        goto out;
                }
        }
        if (c != SBX_OK) {
                rc = fail("run", &e);
                goto out;
        }

        /* Close revokes unspent grants, kills what still runs and removes
         * the set's directories; report if it could not. */
        if (sbx_executor_set_close(set, &e) != SBX_OK) {
                rc = fail("close", &e);
                goto out;
        }
        rc = 0;
out:
        sbx_executor_set_free(set);             /* NULL-safe, closes if needed */
        sbx_profile_free(profile);
        sbx_profile_free(ro);                   /* after cfg's borrowed strings */
        if (made) {
                (void) rmdir(scratch);
                (void) rmdir(tmp);
        }
        free(ws);
        return rc;
}
