"""How an approval reached the ledger (its channel), and how planview marks the agent's own processes.

Every ledger event records the channel it came through, so `planview status` and `planview audit`
show how each approval was made. The names below are the ones planview's own UIs use; a new UI
(the browser review, an ACP agent's client, a Claude Code hook) passes its own short name to
`planview.approval.flow` the same way.

planview starts every tool subprocess of a session (the agent's `bash`) with `TOOL_PROCESS_ENV`
set to the session id. An approval attempted from such a process is refused: approvals come from a
person. The marker is a guard rail, not a wall - an agent with a shell can unset it - which is why
the session also honours only the exact approval it was pinned to, and why the channel is recorded.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from planview.approval.errors import ApprovalError

TOOL_PROCESS_ENV = "PLANVIEW_TOOL_PROCESS"  # set to the session id in every tool subprocess

REVIEW_SCREEN = "review screen"  # the session app: the agent's exit_plan_mode, /plan review
REVIEW_COMMAND = "review screen (planview review)"  # the standalone review app
BROWSER_REVIEW = "browser review"
PLANS_LIST = "plans list (/plans)"  # the session app's /plans picker: `a` on a plan
CLAUDE_CODE = "Claude Code"
APPROVE_TERMINAL = "planview approve (terminal)"
APPROVE_NO_TERMINAL = "planview approve (no terminal)"
SESSION_PIN_CHECK = "session pin check"  # a revocation: the session found the approved plan changed

UNKNOWN = "unknown (recorded before channels)"


def approve_command_channel() -> str:
    """`planview approve` typed by a person at a terminal, or run from a script / pipe."""
    try:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        interactive = False
    return APPROVE_TERMINAL if interactive else APPROVE_NO_TERMINAL


def refuse_tool_process(environ: Mapping[str, str] | None = None) -> None:
    """ApprovalError when this process was started by a planview session as one of its tools."""
    env = os.environ if environ is None else environ
    session = env.get(TOOL_PROCESS_ENV, "").strip()
    if session:
        raise ApprovalError(
            "approvals come from a person, not from the agent's tools: this process runs inside a tool "
            f"of planview session {session}. Approve the plan on the review screen, or run "
            "`planview approve` yourself in your own terminal"
        )


# Agents planview gates from outside mark their own shells: Claude Code sets CLAUDECODE=1 in its Bash
# tool. Its hooks inherit the variable too, so this is checked by `planview approve` (a command an
# agent's shell would run), not by the approval flow that planview's Claude hook itself goes through.
AGENT_SHELL_ENV: Mapping[str, str] = {"CLAUDECODE": "Claude Code"}


def refuse_agent_shell(environ: Mapping[str, str] | None = None) -> None:
    """ApprovalError when `planview approve` runs inside an agent's own shell (Claude Code's Bash)."""
    env = os.environ if environ is None else environ
    for name, agent in AGENT_SHELL_ENV.items():
        if env.get(name, "").strip() not in ("", "0"):
            raise ApprovalError(
                f"approvals come from a person, not from the agent's tools: this shell belongs to {agent} "
                f"({name} is set). Review the plan where {agent} shows it (planview's review opens on "
                "ExitPlanMode), or run `planview approve` yourself in your own terminal"
            )


def shown(channel: str | None) -> str:
    return channel or UNKNOWN
