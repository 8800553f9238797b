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


class TodoPanel(Static):
    """Hidden while the list is empty; follows TodosChanged events."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.todos: tuple[Any, ...] = ()
        self.display = False

    def set_todos(self, todos: Iterable[Any]) -> None:
        self.todos = tuple(todos)
        self.display = bool(self.todos)
        self.update(todo_table(self.todos))

    @property
    def progress(self) -> tuple[int, int]:
        return todo_progress(self.todos)
