#!/usr/bin/env python3
"""agent_loop.py - the loop an agent host runs around each tool call, over
libsandbox's executor API (docs/executors.md); examples/agent_host.c in
Python, for several tool calls:

  1. a profile for the workspace in which starting a command and writing
     the workspace are Gated, i.e. need the host's yes;
  2. an executor set, and one executor for the session;
  3. for each command (one tool call each): ask the profile (access_for)
       Allow -> run it,
       Deny  -> refuse it, nothing runs,
       Gated -> ask; on yes mint a single-spawn grant token for exactly
                this command and run with it; on no show that the
                executor itself refuses a run without a token;
     and when the sandbox refused a write to the workspace, ask whether
     this command may write it, and on yes run it again with a tree write
     grant (tokens are spent by one run: the retry gets new ones).

    agent_loop.py                          # two sample commands, asks
    agent_loop.py 'make test' 'git status' # your commands
    agent_loop.py --auto-approve ...       # yes to every question (CI)
    agent_loop.py --deny ...               # no to every question
    printf 'y\\nn\\n' | agent_loop.py ...    # answers from stdin, one a line

On a terminal the question is asked there; otherwise each answer is the
next line of stdin, and EOF is no.  Exits 0 whatever the commands do; only
an unexpected library error exits 1.

SPDX-License-Identifier: Apache-2.0
"""
import argparse
import os
import shutil
import sys
import tempfile

import libsandbox as sbx

DEFAULT_COMMANDS = ["echo hello from the sandbox",
                    "touch made-by-the-agent && echo wrote made-by-the-agent"]


class Approver:
    """The host's approval: a person at a terminal, stdin lines, or a flag.
    A real host would use its own UI here."""

    def __init__(self, answer):
        self.answer = answer                    # True, False or None (ask)

    def __call__(self, question):
        if self.answer is not None:
            print("%s [y/N] %s" % (question, "y (--auto-approve)" if self.answer
                                   else "n (--deny)"))
            return self.answer
        if sys.stdin.isatty():
            try:
                line = input("%s [y/N] " % question)
            except EOFError:
                print()
                return False
        else:
            line = sys.stdin.readline()
            print("%s [y/N] %s" % (question, line.strip() or "(no answer: no)"))
        return line.strip().lower() in ("y", "yes")


def show(r):
    """One run's outcome, as a host would hand it to the model."""
    if r.exited:
        print("exit code: %d" % r.exit_code)
    else:
        print("killed by signal %d%s" % (r.signal, " (timeout)" if r.timed_out else ""))
    # Output is bytes from an untrusted command: strip terminal escapes.
    out = sbx.sanitize_text(r.stdout).decode("utf-8", "replace")
    print("stdout (%d bytes%s):" % (len(r.stdout), ", truncated" if r.stdout_truncated
                                    else ""))
    if out:
        print(out, end="" if out.endswith("\n") else "\n")
    if r.stderr:
        err = sbx.sanitize_text(r.stderr).decode("utf-8", "replace")
        print("stderr:")
        print(err, end="" if err.endswith("\n") else "\n")
    if r.denial != sbx.DenialClass.NONE:
        print(r.marker)                         # what to tell the model
    print("enforcement: %s" % r.guarantees.enforcement.name.lower())
    print("achieved: %s" % " ".join(r.guarantees.achieved_names))


def tool_call(profile, ex, number, cmd, approve):
    """One tool call: the gate, the grant, the run, and a retry with a
    write grant when the sandbox refused a write."""
    call = "tool-call-%d" % number              # the host's id of this tool call
    ws = profile.workspace_root
    access = profile.access_for("command.execute", cmd)
    print("\ncommand: %s\naccess: %s" % (cmd, sbx.access_name(access)))
    if access == sbx.Access.DENY:
        print("denied by the profile: not run")
        return
    tokens = []
    if access == sbx.Access.GATED:
        if not approve("run `%s`?" % cmd):
            print("not approved")
            # The executor does not trust the host's bookkeeping either.
            try:
                ex.run(cmd)
            except sbx.GrantError as e:
                print("run without a grant: %s" % e.name)
                return
            raise RuntimeError("a Gated command ran without a grant")
        # Yes: a token for exactly this command, this tool call and the
        # workspace root (cwd None), spent by one run.
        tokens.append(ex.grant_command(call, cmd))
        print("approved")
    r = ex.run(cmd, execution_id=call if tokens else None, tokens=tokens, timeout=60)
    show(r)

    if (r.denial != sbx.DenialClass.FILE_WRITE or
            profile.access_for("filesystem.write", "tree:" + ws) != sbx.Access.GATED):
        return
    if not approve("allow `%s` to write %s?" % (cmd, ws)):
        print("not approved: the write stays refused")
        return
    retry = call + "-retry"
    tokens = [ex.issue_grant(execution_id=retry, command=cmd, kind="filesystem.write",
                             scope="tree:" + ws, grant_class=sbx.GrantClass.FS_TREE_WRITE,
                             target=ws)]
    if access == sbx.Access.GATED:
        tokens.append(ex.grant_command(retry, cmd))
    print("approved: running again with a write grant for %s" % ws)
    show(ex.run(cmd, execution_id=retry, tokens=tokens, timeout=60))


def main(argv=None):
    ap = argparse.ArgumentParser(description="An agent host's tool-call loop over libsandbox.")
    ap.add_argument("commands", nargs="*", metavar="COMMAND",
                    help="shell commands, one tool call each (default: two samples)")
    ap.add_argument("--workspace", default=".", help="the workspace (default: .)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--auto-approve", dest="answer", action="store_const", const=True,
                       help="answer yes to every question")
    group.add_argument("--deny", dest="answer", action="store_const", const=False,
                       help="answer no to every question")
    args = ap.parse_args(argv)
    approve = Approver(args.answer)
    ws = os.path.realpath(args.workspace)       # the workspace root must be canonical

    tmp = tempfile.mkdtemp(prefix="agent-loop-")
    what = "profile"
    try:
        # 1. read-only's profile, with starting a command and writing the
        #    workspace Gated.
        cfg = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, ws).config()
        cfg.command = sbx.Access.GATED
        cfg.workspace_write = sbx.Access.GATED
        profile = sbx.Profile(cfg)
        # 2. The set keeps each executor's HOME and TMPDIR below its scratch
        #    root, which it creates owner-only.
        what = "executor"
        with sbx.ExecutorSet(profile, os.path.join(tmp, "scratch"), max_executors=1) as s:
            ex = s.get("session-1")             # one per agent session
            # 3. The tool calls.
            what = "tool call"
            for n, cmd in enumerate(args.commands or DEFAULT_COMMANDS, 1):
                tool_call(profile, ex, n, cmd, approve)
            what = "close"
        # Leaving `with` closed the set: unspent grants revoked, what still
        # ran killed, its directories removed.
    except sbx.SandboxError as e:
        print("agent_loop: %s: %s" % (what, e), file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
