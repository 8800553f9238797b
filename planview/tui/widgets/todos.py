"""The todo panel: `◼` done, `◧` in progress (highlighted), `◻` pending, progress `n/m`.

The markers are the review screen's task markers (`[x]`, `[~]`, `[ ]`), so a plan step and
its todo look the same in both places.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from planview.textsafe import sanitize_for_terminal


def todo_progress(todos: Iterable[Any]) -> tuple[int, int]:
    items = list(todos)
    return sum(1 for t in items if t.status == "completed"), len(items)


def render_todos(todos: Iterable[Any]) -> Text:
    items = list(todos)
    done, total = todo_progress(items)
    out = Text()
    out.append("Todos ", style="bold")
    out.append(f"{done}/{total}", style="bold green" if total and done == total else "bold")
    for todo in items:
        out.append("\n")
        if todo.status == "completed":
            out.append("◼ ", style="green")
            out.append(sanitize_for_terminal(todo.text), style="dim")
        elif todo.status == "in_progress":
            out.append("◧ ", style="bold yellow")
            out.append(sanitize_for_terminal(todo.text), style="bold")
        else:
            out.append("◻ ")
            out.append(sanitize_for_terminal(todo.text))
    return out


def todo_table(todos: Iterable[Any]) -> Table:
    """The panel's renderable: the same rows as `render_todos`, long items wrapped under their text."""
    text = render_todos(todos)
    lines = text.split("\n")
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)
    grid.add_column(ratio=1)
    for line in lines[1:]:
        grid.add_row(line[:2], line[2:])
    table = Table.grid()
    table.add_column(ratio=1)
    table.add_row(lines[0])
    table.add_row(grid)
    return table


FULL_WIDTH = 34  # the panel's width (border and padding included) when the screen has room
NARROWEST = 22  # below this the items wrap word by word: the panel collapses to one line instead
TRANSCRIPT_ROOM = 54  # columns the transcript keeps before the panel narrows


def panel_width(screen_width: int) -> int | None:
    """The panel's width beside a transcript on a screen this wide; None: collapse to one line.

    The panel gives way first: full width while the transcript keeps TRANSCRIPT_ROOM columns, then
    narrower down to NARROWEST, then a one-line summary across the screen.
    """
    width = min(FULL_WIDTH, screen_width - TRANSCRIPT_ROOM)
    return width if width >= NARROWEST else None


def summary_line(todos: Iterable[Any], key: str) -> Text:
    """`Todos 2/3 · ◧ the current step  ^t list` (the caller crops it to one line)."""
    items = list(todos)
    done, total = todo_progress(items)
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    out.append("Todos ", style="bold")
    out.append(f"{done}/{total}", style="bold green" if total and done == total else "bold")
    current = next((t for t in items if t.status == "in_progress"), None) or next(
        (t for t in items if t.status != "completed"), None
    )
    out.append(f"  {key} list", style="dim")
    if current is not None:
        marker = "◧ " if current.status == "in_progress" else "◻ "
        out.append(" · ")
        out.append(marker, style="bold yellow" if current.status == "in_progress" else "")
        out.append(sanitize_for_terminal(current.text))
    return out


class TodoPanel(Static):
    """Hidden while the list is empty; follows TodosChanged events.

    On a narrow screen (`fit`) it collapses to a one-line summary docked under the transcript;
    `toggle_open` (a key on the session screen) shows the whole list there until pressed again.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.todos: tuple[Any, ...] = ()
        self.display = False
        self.collapsed = False
        self.opened = False
        self.key = "^t"  # how the session screen's toggle key is shown

    def set_todos(self, todos: Iterable[Any]) -> None:
        self.todos = tuple(todos)
        self.display = bool(self.todos)
        self._draw()

    def fit(self, screen_width: int) -> None:
        width = panel_width(screen_width)
        self.collapsed = width is None
        if width is not None:
            self.styles.width = width
            self.opened = False
        else:
            self.styles.width = "100%"
        self.set_class(self.collapsed, "-collapsed")
        self._draw()

    def toggle_open(self) -> bool:
        """Open or close the whole list while collapsed; False when there is nothing to toggle."""
        if not self.collapsed or not self.todos:
            return False
        self.opened = not self.opened
        self._draw()
        return True

    def _draw(self) -> None:
        self.set_class(self.collapsed and self.opened, "-open")
        if self.collapsed and not self.opened:
            self.update(summary_line(self.todos, self.key))
        else:
            self.update(todo_table(self.todos))

    def on_click(self) -> None:
        self.toggle_open()

    @property
    def progress(self) -> tuple[int, int]:
        return todo_progress(self.todos)
