"""ACP session updates as planview session events (pure apart from the event callback).

planview's own agent and an ACP agent produce the same events, so the transcript renders both
with the same rows: a message chunk is a TextDelta, a tool call is ToolStarted then ToolFinished
(with its text or diff content as the result), and the agent's `plan` entries become todos.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planview.session.events import Event, TextDelta, Todo, ToolFinished, ToolStarted

DIFF_CONTEXT = 3
# ACP plan entry statuses are planview's todo statuses; anything else reads as pending.
TODO_STATUSES = frozenset({"pending", "in_progress", "completed"})


@dataclass
class ToolState:
    """What the updates so far said about one ACP tool call, merged field by field until it finishes."""

    call_id: str
    title: str = ""
    kind: str | None = None
    status: str | None = None
    raw_input: Any = None
    raw_output: Any = None
    content: list[Any] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    started: bool = False
    finished: bool = False
    refused: str | None = None  # planview refused this call's permission or write: the reason


def _relative(path: str, root: Path | None) -> str:
    if root is None:
        return path
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return path


def content_text(
    content: list[Any],
    raw_output: Any = None,
    root: Path | None = None,
    terminal_text: Callable[[str], str | None] | None = None,
) -> str:
    """A tool call's content as the text a tool row shows: text blocks, unified diffs, and a
    terminal's output (`terminal_text(id)`; its id when planview does not know it)."""
    parts: list[str] = []
    for item in content:
        kind = getattr(item, "type", None)
        if kind == "content":
            block = item.content
            text = getattr(block, "text", None)
            if text is not None:
                parts.append(text)
            elif getattr(block, "uri", None):
                parts.append(str(block.uri))
        elif kind == "diff":
            parts.append(unified_diff(_relative(item.path, root), item.old_text, item.new_text))
        elif kind == "terminal":
            shown = terminal_text(item.terminal_id) if terminal_text is not None else None
            parts.append(shown.rstrip("\n") if shown is not None else f"(terminal {item.terminal_id})")
    if not parts and raw_output is not None:
        parts.append(raw_output if isinstance(raw_output, str) else _json(raw_output))
    return "\n".join(p for p in parts if p)


def unified_diff(path: str, old: str | None, new: str) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile=f"b/{path}",
        n=DIFF_CONTEXT,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def todos_from_plan(entries: list[Any]) -> tuple[Todo, ...]:
    return tuple(
        Todo(str(entry.content), entry.status if entry.status in TODO_STATUSES else "pending")
        for entry in entries
        if str(entry.content).strip()
    )


class Translator:
    """Turns one session's updates into events; keeps what it knows about each tool call."""

    def __init__(
        self,
        emit: Callable[[Event], None],
        root: Path | None = None,
        terminal_text: Callable[[str], str | None] | None = None,
    ) -> None:
        self.emit = emit
        self.root = root
        self.terminal_text = terminal_text
        self.tools: dict[str, ToolState] = {}
        self.text: list[str] = []  # the assistant text of the current turn (for the session log)

    def tool(self, call_id: str) -> ToolState:
        state = self.tools.get(call_id)
        if state is None:
            state = self.tools[call_id] = ToolState(call_id)
        return state

    def merge(self, update: Any) -> ToolState:
        """Fold a tool_call / tool_call_update (or a permission request's toolCall) into its state."""
        state = self.tool(update.tool_call_id)
        if getattr(update, "title", None):
            state.title = update.title
        if getattr(update, "kind", None):
            state.kind = update.kind
        if getattr(update, "status", None):
            state.status = update.status
        if getattr(update, "raw_input", None) is not None:
            state.raw_input = update.raw_input
        if getattr(update, "raw_output", None) is not None:
            state.raw_output = update.raw_output
        if getattr(update, "content", None) is not None:
            state.content = list(update.content)
        if getattr(update, "locations", None) is not None:
            state.locations = [loc.path for loc in update.locations]
        return state

    def headline(self, state: ToolState) -> str:
        title = state.title or state.kind or "tool"
        where = [_relative(p, self.root) for p in state.locations]
        if where and not any(w in title for w in where):
            title = f"{title} {', '.join(where[:3])}"
        return title

    def start(self, state: ToolState) -> None:
        if state.started:
            return
        state.started = True
        arguments = state.raw_input if isinstance(state.raw_input, Mapping) else {}
        self.emit(ToolStarted(state.call_id, state.kind or "tool", dict(arguments), self.headline(state)))

    def finish(self, state: ToolState, *, cancelled: bool = False) -> None:
        if state.finished:
            return
        self.start(state)
        state.finished = True
        if state.refused is not None:
            self.emit(
                ToolFinished(state.call_id, state.kind or "tool", state.refused, True, state.refused, False)
            )
            return
        result = (
            "cancelled by the user"
            if cancelled
            else content_text(state.content, state.raw_output, self.root, self.terminal_text)
        )
        failed = cancelled or state.status == "failed"
        self.emit(ToolFinished(state.call_id, state.kind or "tool", result, False, None, failed))

    def update(self, update: Any) -> None:
        """One session/update notification (those that concern the transcript)."""
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            text = getattr(update.content, "text", None)
            if text:
                self.text.append(text)
                self.emit(TextDelta(text))
        elif kind in ("tool_call", "tool_call_update"):
            state = self.merge(update)
            self.start(state)
            if state.status in ("completed", "failed"):
                self.finish(state)

    def close_open(self, *, cancelled: bool) -> None:
        """At the end of a turn every started call gets a finish row (a cancelled turn leaves some open)."""
        for state in self.tools.values():
            if state.started and not state.finished:
                self.finish(state, cancelled=cancelled)

    def take_text(self) -> str:
        text, self.text = "".join(self.text), []
        return text
