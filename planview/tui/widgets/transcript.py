"""The conversation: user prompts, streamed assistant Markdown, tool rows, notices.

Every row is a single Static, so a long session stays cheap: assistant text is accumulated
and re-rendered (throttled) as one Rich Markdown renderable per message, a tool row is one
Text with its headline and indented result, and only the newest `max_rows` rows are kept
mounted (older ones are pruned from the top).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from planview.textsafe import sanitize_for_terminal
from planview.tui.widgets.wrap import SeparatorWrap

# Lines of a tool result shown while collapsed; ctrl+o expands every tool row.
COLLAPSED_LINES = 4
EXPAND_KEY = "ctrl+o"
MAX_ROWS = 300
STREAM_INTERVAL = 0.05  # seconds between re-renders of a streaming message


def _mark(result: str | None, refused: bool, error: bool) -> tuple[str, str]:
    if result is None:
        return "…", "dim"
    if refused:
        return "✗", "bold red"
    if error:
        return "✗", "red"
    return "✓", "green"


@dataclass
class ChildCall:
    """One tool call of a subagent's child, shown inside the subagent's row."""

    headline: str
    result: str | None = None
    refused: bool = False
    error: bool = False


def _children_text(children: Sequence[ChildCall], expanded: bool) -> Text:
    if not expanded:
        names = ", ".join(dict.fromkeys(c.headline.split(" ", 1)[0] for c in children))
        refused = sum(1 for c in children if c.refused or c.error)
        tail = f", {refused} refused or failed" if refused else ""
        count = f"{len(children)} tool call{'s' if len(children) != 1 else ''}"
        return Text(f"⧉ {count} inside ({names}{tail}; {EXPAND_KEY} to expand)", style="dim italic")
    out = Text()
    for i, child in enumerate(children):
        mark, style = _mark(child.result, child.refused, child.error)
        if i:
            out.append("\n")
        out.append("│ ", style="dim")
        out.append(f"{mark} ", style=style)
        out.append(sanitize_for_terminal(child.headline), style="red" if child.refused else "")
        if child.result is not None and (child.refused or child.error):
            first = sanitize_for_terminal(child.result).strip().split("\n", 1)[0]
            out.append(f"\n│   {first[:160]}", style="dim red")
    return out


def tool_parts(
    headline: str,
    result: str | None,
    *,
    refused: bool = False,
    reason: str | None = None,
    error: bool = False,
    expanded: bool = False,
    children: Sequence[ChildCall] = (),
) -> tuple[Text, Text | None]:
    """A tool row's headline (mark + call) and its body (a subagent's calls, then the result, long
    ones collapsed)."""
    mark, mark_style = _mark(result, refused, error)
    head = Text()
    head.append(f"{mark} ", style=mark_style)
    head.append(sanitize_for_terminal(headline), style="bold red" if refused else "bold")
    inside = _children_text(children, expanded) if children else None
    if result is None:
        return head, inside
    if refused:
        # The reason is what the model was told; the result repeats it, so show it once.
        body_text, body_style = f"refused: {sanitize_for_terminal(reason or result)}", "red"
    else:
        body_text, body_style = sanitize_for_terminal(result).rstrip("\n"), ("red" if error else "")
    lines = body_text.split("\n") if body_text else []
    hidden = 0
    if not expanded and len(lines) > COLLAPSED_LINES:
        hidden = len(lines) - COLLAPSED_LINES
        lines = lines[:COLLAPSED_LINES]
    body = Text("\n".join(lines), style=body_style)
    if hidden:
        body.append(
            f"\n… {hidden} more line{'s' if hidden != 1 else ''} ({EXPAND_KEY} to expand)", style="dim italic"
        )
    if inside is not None:
        body = Text.assemble(inside, "\n", body) if body.plain else inside
    return head, body if body.plain else None


def render_tool(headline: str, result: str | None, **kwargs: Any) -> Text:
    """The row as one Text, the body indented by two spaces (what the row shows, unwrapped)."""
    head, body = tool_parts(headline, result, **kwargs)
    out = head.copy()
    if body is not None:
        for line in body.split("\n"):
            out.append("\n  ")
            out.append_text(line)
    return out


class UserRow(Static):
    def __init__(self, text: str) -> None:
        content = Text("› ", style="bold")
        content.append(sanitize_for_terminal(text))
        super().__init__(content)


class NoticeRow(Static):
    """A line from planview itself (mode changes, plans written, errors)."""

    def __init__(self, text: str | RenderableType, *, kind: str = "info") -> None:
        # A plain string is cleaned here; a built renderable must hold cleaned text already.
        super().__init__(Text(sanitize_for_terminal(text)) if isinstance(text, str) else text)
        self.add_class(f"-{kind}")


class AssistantRow(Static):
    """One assistant message, re-rendered as Markdown while it streams."""

    def __init__(self) -> None:
        super().__init__("")
        self.text = ""
        self._dirty = False
        self._timer_pending = False

    def append(self, delta: str) -> None:
        self.text += delta
        self._dirty = True
        if not self._timer_pending and self.is_mounted:
            self._timer_pending = True
            self.set_timer(STREAM_INTERVAL, self.flush)

    def flush(self) -> None:
        self._timer_pending = False
        if self._dirty:
            self._dirty = False
            self.update(self.renderable_text())

    def renderable_text(self) -> RenderableType:
        # rich.markdown brings markdown-it and Pygments: loaded at the first answer, not before the
        # app's first frame.
        from rich.markdown import Markdown as RichMarkdown

        return RichMarkdown(sanitize_for_terminal(self.text))

    def on_mount(self) -> None:
        self.flush()


class ToolRow(Static):
    def __init__(self, call_id: str, name: str, headline: str) -> None:
        super().__init__("")
        self.call_id = call_id
        self.tool_name = name
        self.headline = headline or name
        self.result: str | None = None
        self.refused = False
        self.reason: str | None = None
        self.error = False
        self.expanded = False
        self.children_calls: dict[str, ChildCall] = {}  # a subagent's child calls, in order
        self.add_class("-running")
        self._paint()

    def child_event(self, event: Any) -> None:
        """A subagent's child started or finished a call: shown inside this row."""
        kind = type(event).__name__
        if kind == "ToolStarted":
            self.children_calls[event.call_id] = ChildCall(event.headline or event.name)
        elif kind == "ToolFinished":
            child = self.children_calls.setdefault(event.call_id, ChildCall(event.name))
            child.result, child.refused, child.error = event.result, event.refused, event.error
        else:
            return
        self._paint()

    def finish(self, result: str, *, refused: bool, reason: str | None, error: bool) -> None:
        self.result, self.refused, self.reason, self.error = result, refused, reason, error
        self.remove_class("-running")
        self.set_class(refused, "-refused")
        self.set_class(error and not refused, "-error")
        self._paint()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._paint()

    @property
    def collapsible(self) -> bool:
        if self.children_calls:
            return True
        return self.result is not None and self.result.count("\n") + 1 > COLLAPSED_LINES

    def _paint(self) -> None:
        head, body = tool_parts(
            self.headline,
            self.result,
            refused=self.refused,
            reason=self.reason,
            error=self.error,
            expanded=self.expanded,
            children=tuple(self.children_calls.values()),
        )
        # A two-column grid and Padding give wrapped lines a hanging indent under the mark.
        grid = Table.grid()
        grid.add_column(width=2, no_wrap=True)
        grid.add_column(ratio=1)
        # Paths in a headline or result break after a / or - rather than mid-name (widgets/wrap.py).
        grid.add_row(head[:2], SeparatorWrap(head[2:]))
        self.update(grid if body is None else Group(grid, Padding(SeparatorWrap(body), (0, 0, 0, 2))))


class Transcript(VerticalScroll):
    """The scrolling conversation; newest at the bottom, pinned there unless the user scrolled up."""

    can_focus = True

    def __init__(self, *, max_rows: int = MAX_ROWS, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_rows = max_rows
        self.expanded = False
        self._assistant: AssistantRow | None = None
        self._tools: dict[str, ToolRow] = {}
        self._pending: list[Static] = []  # rows waiting for the next batched mount
        self._flush_scheduled = False
        self.rows_added = 0
        self._from_top = False  # welcome text on screen: read from its first line, not anchored

    # -- adding rows -------------------------------------------------------------------------
    def add_user(self, text: str) -> None:
        self.end_message()
        self._add(UserRow(text))

    def add_notice(self, text: str | RenderableType, kind: str = "info") -> NoticeRow:
        self.end_message()
        row = NoticeRow(text, kind=kind)
        self._add(row)
        return row

    def append_text(self, delta: str) -> None:
        if self._assistant is None:
            self._assistant = AssistantRow()
            self._add(self._assistant)
        self._assistant.append(delta)

    def end_message(self) -> None:
        """Close the streaming assistant message (render its final text now)."""
        if self._assistant is not None:
            self._assistant.flush()
            self._assistant = None

    def tool_started(self, call_id: str, name: str, headline: str) -> None:
        self.end_message()
        row = ToolRow(call_id, name, headline)
        row.set_expanded(self.expanded)
        self._tools[call_id] = row
        self._add(row)

    def tool_finished(
        self, call_id: str, name: str, result: str, *, refused: bool, reason: str | None, error: bool
    ) -> None:
        row = self._tools.pop(call_id, None)
        if row is None:
            # Started before the rows were pruned (or never announced): show it as a fresh row.
            self.end_message()
            row = ToolRow(call_id, name, name)
            row.set_expanded(self.expanded)
            self._add(row)
        row.finish(result, refused=refused, reason=reason, error=error)

    def child_event(self, call_id: str, event: Any) -> None:
        """An event of the child session a subagent call runs: it goes inside that call's row."""
        row = self._tools.get(call_id)
        if row is not None:
            row.child_event(event)

    def toggle_expanded(self) -> bool:
        self.expanded = not self.expanded
        for row in self.query(ToolRow):
            row.set_expanded(self.expanded)
        for pending in self._pending:
            if isinstance(pending, ToolRow):
                pending.set_expanded(self.expanded)
        return self.expanded

    # -- internals --------------------------------------------------------------------------
    def show_from_top(self) -> None:
        """Welcome text reads from its first line (at 40x20 the demo's intro is taller than the
        screen, and the anchor showed its end): the view starts at the top, and follows the newest
        row again as soon as the session adds one."""
        self._from_top = True
        self.anchor(False)
        self.call_after_refresh(self.scroll_home, animate=False)

    def _add(self, row: Static) -> None:
        if self._from_top and not row.has_class("-welcome"):
            self._from_top = False
            self.anchor()
        # Rows are mounted in batches: a burst of events (a fast model, a replayed script) costs
        # one mount and one layout instead of one per row.
        self._pending.append(row)
        self.rows_added += 1
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.call_later(self._flush_pending)

    def _flush_pending(self) -> None:
        self._flush_scheduled = False
        rows, self._pending = self._pending, []
        if not rows:
            return
        if len(rows) > self.max_rows:  # rows that would be pruned at once are never mounted
            for row in rows[: -self.max_rows]:
                if isinstance(row, ToolRow):
                    self._tools.pop(row.call_id, None)
            rows = rows[-self.max_rows :]
        self.mount_all(rows)
        self._prune()

    def on_mount(self) -> None:
        # Anchored: stays on the newest row as rows arrive or grow; scrolling up releases it and
        # scrolling back to the bottom re-engages it (Textual's own anchor logic).
        self.anchor()

    def _prune(self) -> None:
        excess = len(self.children) - self.max_rows
        if excess > 0:
            old = list(self.children[:excess])
            for row in old:
                if isinstance(row, ToolRow):
                    self._tools.pop(row.call_id, None)
            self.remove_children(old)
