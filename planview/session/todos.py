"""The todo list and the approval-time merge of a plan's steps into it (pure).

The merge never replaces: existing items keep their place and status, a step whose
text is already listed is skipped, and steps past the item cap are deferred (kept and
reported), never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from planview.session.events import Todo, TodoStatus

TODO_CAP = 50
STATUSES = ("pending", "in_progress", "completed")


@dataclass(frozen=True)
class StepSeed:
    """A plan step as it enters the todo list at approval."""

    text: str
    completed: bool = False
    status: TodoStatus | None = None  # None: from `completed`; a `[~]` step seeds as "in_progress"

    @classmethod
    def from_step(cls, step: Any) -> StepSeed:
        """The seed of a `planview.plan.steps.Step` (its display text and status)."""
        status = getattr(step, "status", None)
        completed = bool(step.completed)
        return cls(step.display, completed, status if status in STATUSES and not completed else None)

    @property
    def todo_status(self) -> TodoStatus:
        if self.completed:
            return "completed"
        return self.status or "pending"


@dataclass(frozen=True)
class MergeResult:
    """The todo list after a merge, and which steps were added, skipped or deferred."""

    todos: tuple[Todo, ...]
    added: tuple[str, ...]
    skipped: tuple[str, ...]  # already on the list
    deferred: tuple[str, ...]  # held back by the cap


def same_text(a: str, b: str) -> bool:
    """Two items are the same step when they match ignoring case and runs of whitespace."""
    return _norm(a) == _norm(b)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def merge_steps(existing: Sequence[Todo], steps: Iterable[StepSeed], *, cap: int = TODO_CAP) -> MergeResult:
    return merge_items(existing, (Todo(s.text, s.todo_status) for s in steps), cap=cap)


def merge_items(existing: Sequence[Todo], items: Iterable[Todo], *, cap: int = TODO_CAP) -> MergeResult:
    todos = list(existing)
    seen = {_norm(t.text) for t in todos}
    added: list[str] = []
    skipped: list[str] = []
    deferred: list[str] = []
    for item in items:
        key = _norm(item.text)
        if not key:
            continue
        if key in seen:
            skipped.append(item.text)
            continue
        seen.add(key)
        if len(todos) >= cap:
            deferred.append(item.text)
            continue
        todos.append(item)
        added.append(item.text)
    return MergeResult(tuple(todos), tuple(added), tuple(skipped), tuple(deferred))


def refill(todos: Sequence[Todo], deferred: Sequence[str], *, cap: int = TODO_CAP) -> MergeResult:
    """Move deferred steps onto the list while there is room (after items were removed)."""
    return merge_steps(todos, (StepSeed(t) for t in deferred), cap=cap)


def set_status(todos: Sequence[Todo], text: str, status: str) -> tuple[tuple[Todo, ...], bool]:
    """Set the status of the first item with this text; returns (todos, found)."""
    out = list(todos)
    for i, todo in enumerate(out):
        if same_text(todo.text, text):
            out[i] = Todo(todo.text, status)  # type: ignore[arg-type]
            return tuple(out), True
    return tuple(out), False


def render(todos: Sequence[Todo], deferred: Sequence[str] = ()) -> str:
    if not todos and not deferred:
        return "The todo list is empty."
    marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
    lines = [f"{i}. {marks[t.status]} {t.text}" for i, t in enumerate(todos, 1)]
    if deferred:
        lines.append(
            f"({len(deferred)} more plan step(s) deferred by the {TODO_CAP}-item cap; "
            "they stay in the plan file and join the list when items are removed)"
        )
    return "\n".join(lines)
