"""The plan-mode lifecycle's context rules (pure): what the model is told, and when.

- While planning, a hidden note (a `UserMessage` of kind "plan_note") says the
  session is in plan mode, what is allowed and the plan outline. Only the newest copy is
  sent; after approval none is.
- After approval every request starts with the frozen evidence packet as a user-role data
  block `<change_evidence_packet sha256=…>{json}</change_evidence_packet>` — data the model
  treats as the approved scope, not a system instruction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from planview.session.conversation import Message, UserMessage
from planview.session.events import Mode

PLAN_NOTE_KIND = "plan_note"
PACKET_KIND = "evidence_packet"
MUTATING_HINT = "write, edit, bash"

OUTLINE = """\
# <Title>
## Goal        what done looks like, in a sentence or two
## Context     what you found: files, functions, constraints
## Approach    the design and why
## Steps       `- [ ]` checkbox items, one change each, in order
## Risks       what could go wrong and how you will notice
## Verification  the commands and checks that prove it works"""

SYSTEM_PROMPT = """\
You are a coding agent working in the user's project through planview. The working directory \
is the project root. Use the tools to read, search and change files; every tool call passes a \
gate that enforces the session's mode.

Modes:
- plan mode: read-only. Explore with read, grep, find, ls and read-only git commands through \
bash; save a plan with write_plan; ask for review with exit_plan_mode. Nothing else writes.
- execute mode: after the user approves a plan, the plan file is the source of truth. Follow its \
Steps in order, keep them current with set_plan_steps (pass each step's text as `expected`), and \
track work with todo. If the plan's text changes, the session returns to plan mode for re-approval.
Before a non-trivial change in execute mode, you may call enter_plan_mode to plan it first.

subagent hands one self-contained task (exploring, searching) to a helper with its own \
conversation; it returns the helper's answer and the files it read. Tools named \
mcp__SERVER__TOOL come from the user's MCP servers and pass the same gate.

When a call is refused, the result says why and what to do instead; follow it rather than \
retrying the same call."""


def plan_note(plan_path: str | None) -> str:
    where = (
        f"\nThe plan you are working on: {plan_path} (revise it with write_plan(plan_path=...))."
        if plan_path
        else ""
    )
    return (
        "[PLAN MODE ACTIVE] You are planning; the project is read-only for you.\n"
        "Allowed: read, grep, find, ls, todo, and read-only git commands through bash "
        "(git status, git diff, git log, git show, ...; no pipes, redirects or other programs); "
        "subagent, always read-only while planning; MCP tools (mcp__SERVER__TOOL) that declare "
        "readOnlyHint and take no file path.\n"
        "Refused until the plan is approved: write, edit, any other shell command, set_plan_steps.\n"
        "When you understand the task, save a plan with write_plan in this outline, then call "
        "exit_plan_mode so the user can review it:\n"
        f"{OUTLINE}\n"
        "The outline is guidance: keep sections that help the reader, skip empty ones." + where
    )


def note_message(plan_path: str | None, why: str | None = None) -> UserMessage:
    """The hidden plan note; `why` says what sent an executing session back to planning."""
    content = plan_note(plan_path)
    if why:
        content = f"{why[:1].upper()}{why[1:]}; the approval is withdrawn.\n{content}"
    return UserMessage(content, PLAN_NOTE_KIND)


def packet_message(packet_json: str, sha256: str) -> UserMessage:
    return UserMessage(
        f'<change_evidence_packet sha256="{sha256}">{packet_json}</change_evidence_packet>', PACKET_KIND
    )


def request_messages(
    conversation: Sequence[Message],
    mode: Mode,
    packet: UserMessage | None = None,
) -> tuple[Mapping[str, Any], ...]:
    """What the model is sent: the newest plan note only while planning, the packet first after approval."""
    newest_note = None
    if mode == "plan":
        for i in range(len(conversation) - 1, -1, -1):
            if getattr(conversation[i], "kind", None) == PLAN_NOTE_KIND:
                newest_note = i
                break
    out: list[Mapping[str, Any]] = []
    if packet is not None and mode == "execute":
        out.append(packet.wire())
    for i, message in enumerate(conversation):
        kind = getattr(message, "kind", None)
        if kind is None or (kind == PLAN_NOTE_KIND and i == newest_note):
            out.append(message.wire())  # cached on the frozen record: this runs per request
    return tuple(out)


def steps_listing(steps: Iterable[Any]) -> str:
    marks = {"completed": "x", "in_progress": "~"}
    lines = [
        f"{s.index}. [{marks.get(getattr(s, 'status', ''), 'x' if s.completed else ' ')}] {s.display}"
        for s in steps
    ]
    return "\n".join(lines) if lines else "(the plan lists no steps)"
