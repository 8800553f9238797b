"""The plan-mode lifecycle's context rules (pure): what the model is told, and when.

- While planning, a hidden note (a `UserMessage` of kind "plan_note") says the
  session is in plan mode, what is allowed and the plan outline. Only the newest copy is
  sent; after approval none is.
- After approval every request starts with the frozen evidence packet as a user-role data
  block `<change_evidence_packet sha256=…>{json}</change_evidence_packet>` — data the model
  treats as the approved scope, not a system instruction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
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


class RequestMessages:
    """What the model is sent, built as the conversation grows: the newest plan note only while
    planning, the packet first after approval.

    A session sends its whole history on every model request, so rebuilding it per request made a
    session's cost quadratic in its length (benchmarks/session.py, growth). This keeps the wire
    form of every visible message in one append-only list, takes in only the messages added since
    the last request, and hands out `MessagesView`s that share the list (each view sees the length
    it was built at). A conversation replaced (resume) or changed before its end (a cancelled
    turn's results are inserted) is taken in again from the start.
    """

    __slots__ = ("_last", "_note", "_seen", "_source", "_wires")

    def __init__(self) -> None:
        self._source: object = None
        self._wires: list[Mapping[str, Any]] = []
        self._seen = 0
        self._last: object = None
        self._note: tuple[int, Mapping[str, Any]] | None = None  # (visible messages before it, its wire)

    def build(
        self, conversation: Sequence[Message], mode: Mode, packet: UserMessage | None = None
    ) -> MessagesView:
        seen = self._seen
        if (
            conversation is not self._source
            or len(conversation) < seen
            or (seen and conversation[seen - 1] is not self._last)
        ):
            self._source, self._wires, self._note, seen = conversation, [], None, 0
        wires = self._wires
        for i in range(seen, len(conversation)):
            message = conversation[i]
            kind = getattr(message, "kind", None)
            if kind is None:
                wires.append(message.wire())  # cached on the frozen record
            elif kind == PLAN_NOTE_KIND:
                self._note = (len(wires), message.wire())
        self._seen = len(conversation)
        self._last = conversation[-1] if conversation else None
        first = packet.wire() if packet is not None and mode == "execute" else None
        return MessagesView(wires, len(wires), self._note if mode == "plan" else None, first)


class MessagesView(Sequence[Mapping[str, Any]]):
    """One request's messages: the first `length` wires of a shared append-only list, with the plan
    note placed at its position and the packet first. Immutable in effect (the list only grows past
    `length`); compares equal to a tuple of the same messages."""

    __slots__ = ("_first", "_length", "_note", "_wires")

    def __init__(
        self,
        wires: list[Mapping[str, Any]],
        length: int,
        note: tuple[int, Mapping[str, Any]] | None,
        first: Mapping[str, Any] | None,
    ) -> None:
        self._wires, self._length, self._note, self._first = wires, length, note, first

    def __len__(self) -> int:
        return self._length + (self._note is not None) + (self._first is not None)

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        if self._first is not None:
            yield self._first
        wires, at = self._wires, self._note[0] if self._note is not None else self._length
        for i in range(at):
            yield wires[i]
        if self._note is not None:
            yield self._note[1]
            for i in range(at, self._length):
                yield wires[i]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("request message index out of range")
        if self._first is not None:
            if index == 0:
                return self._first
            index -= 1
        if self._note is not None:
            at, note = self._note
            if index == at:
                return note
            if index > at:
                index -= 1
        return self._wires[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessagesView | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"MessagesView({list(self)!r})"


def steps_listing(steps: Iterable[Any]) -> str:
    marks = {"completed": "x", "in_progress": "~"}
    lines = [
        f"{s.index}. [{marks.get(getattr(s, 'status', ''), 'x' if s.completed else ' ')}] {s.display}"
        for s in steps
    ]
    return "\n".join(lines) if lines else "(the plan lists no steps)"
