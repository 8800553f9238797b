"""The approval-time todo merge: keep place and status, no duplicates, defer past the cap."""

from __future__ import annotations

from planview.session.events import Todo
from planview.session.todos import TODO_CAP, StepSeed, merge_steps, refill, render, set_status


def test_merge_keeps_existing_items_and_skips_identical_steps() -> None:
    existing = (Todo("Write the tests", "completed"), Todo("Ask about the API", "in_progress"))
    steps = [StepSeed("write  the TESTS"), StepSeed("Add the flag"), StepSeed("Ship it", completed=True)]
    result = merge_steps(existing, steps)
    assert result.todos == (
        Todo("Write the tests", "completed"),
        Todo("Ask about the API", "in_progress"),
        Todo("Add the flag", "pending"),
        Todo("Ship it", "completed"),
    )
    assert result.skipped == ("write  the TESTS",)
    assert result.added == ("Add the flag", "Ship it")
    # Merging the same plan again adds nothing.
    again = merge_steps(result.todos, steps)
    assert again.todos == result.todos and again.added == ()


def test_cap_defers_instead_of_dropping() -> None:
    steps = [StepSeed(f"step {i}") for i in range(TODO_CAP + 7)]
    result = merge_steps((), steps)
    assert len(result.todos) == TODO_CAP
    assert result.deferred == tuple(f"step {i}" for i in range(TODO_CAP, TODO_CAP + 7))
    # Room frees up: deferred steps move onto the list in order.
    shorter = result.todos[3:]
    moved = refill(shorter, result.deferred)
    assert len(moved.todos) == TODO_CAP and moved.deferred == result.deferred[3:]
    assert moved.todos[-3:] == tuple(Todo(f"step {i}") for i in range(TODO_CAP, TODO_CAP + 3))
    assert "7 more plan step(s) deferred" in render(result.todos, result.deferred)


def test_set_status_matches_by_text() -> None:
    todos = (Todo("a"), Todo("b"))
    updated, found = set_status(todos, "B", "completed")
    assert found and updated == (Todo("a"), Todo("b", "completed"))
    assert set_status(todos, "zzz", "completed") == (todos, False)
