"""What a session reports while it runs: small frozen dataclasses a UI renders.

The runtime never knows which UI is attached; it hands every event to the
`on_event` callback. Text is raw (model- and tool-authored); sanitising it for a
terminal is the UI's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Mode = Literal["plan", "execute"]
TodoStatus = Literal["pending", "in_progress", "completed"]
TurnEndReason = Literal["done", "cancelled", "error", "review"]


@dataclass(frozen=True)
class Todo:
    """One item of the session's todo list."""

    text: str
    status: TodoStatus = "pending"


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's reply, in stream order."""

    text: str


@dataclass(frozen=True)
class ToolStarted:
    """A tool call began; the transcript shows its headline until it finishes."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    headline: str  # e.g. "read README.md", "bash git status", "write_plan Add rate limiting"


@dataclass(frozen=True)
class ToolFinished:
    """A tool call ended: its result, and whether it was refused or failed."""

    call_id: str
    name: str
    result: str  # exactly what the model sees
    refused: bool  # the gate (or the hash pin) refused the call; `reason` says why
    reason: str | None
    error: bool  # the tool ran and failed (bad arguments, missing file, non-zero exit, ...)


@dataclass(frozen=True)
class ModeChanged:
    """Mode chip data: everything a footer needs to show the session's state."""

    mode: Mode
    plan_path: Path | None
    approved: bool  # the plan has a current approval (execute under a hash pin)
    stale: bool  # the plan's text changed after its approval
    note: str = ""  # why, in one line ("plan approved", "plan changed after approval: Steps")


@dataclass(frozen=True)
class PlanWritten:
    """The session's plan file was saved (`bytes` long)."""

    path: Path
    bytes: int


@dataclass(frozen=True)
class ReviewRequested:
    """exit_plan_mode asked the attached UI for a decision (or found none)."""

    plan_path: Path
    text: str
    ui_attached: bool


@dataclass(frozen=True)
class ConfirmationRequested:
    """The session is asking the attached UI a yes/no question."""

    title: str
    message: str


@dataclass(frozen=True)
class TodosChanged:
    """The todo list changed: all of it, and any plan steps the cap held back."""

    todos: tuple[Todo, ...]
    deferred: tuple[str, ...] = field(default=())  # plan steps held back by the item cap


@dataclass(frozen=True)
class TurnEnded:
    """The user's turn is over, and why."""

    reason: TurnEndReason
    message: str = ""  # for "review": what the user does next; for "error": the error


@dataclass(frozen=True)
class ErrorEvent:
    """A failure the person should see, in one line saying what happened."""

    message: str


@dataclass(frozen=True)
class McpNotice:
    """An MCP server could not start, stopped, or sent malformed data: one line naming the fix.

    The session goes on without that server's tools."""

    server: str
    message: str


@dataclass(frozen=True)
class SubagentEvent:
    """An event of the child session a `subagent` call runs (`call_id` is the parent's call)."""

    call_id: str
    event: Event


Event = (
    TextDelta
    | ToolStarted
    | ToolFinished
    | ModeChanged
    | PlanWritten
    | ReviewRequested
    | ConfirmationRequested
    | TodosChanged
    | TurnEnded
    | ErrorEvent
    | McpNotice
    | SubagentEvent
)
