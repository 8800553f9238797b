"""The todo tool through a session: read / replace / add / update, the cap, and events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planview.session.events import Todo, TodosChanged, ToolFinished, TurnEnded
from planview.session.providers.base import Done, ModelRequest
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session
from planview.session.todos import TODO_CAP


def todo(**arguments: Any) -> dict[str, Any]:
    return {"name": "todo", "arguments": arguments}


async def test_todo_actions(project: Path) -> None:
    events: list[Any] = []
    many = [{"text": f"item {i}"} for i in range(TODO_CAP + 2)]
    script = "\n".join(
        json.dumps({"tool_calls": calls})
        for calls in (
            [todo(action="replace", items=[{"text": "a"}, {"text": "b", "status": "in_progress"}])],
            [todo(action="update", index=1, status="completed"), todo(action="update", match="B", text="b2")],
            [todo(action="add", items=["c", "a"])],
            [todo(action="read")],
            [todo(action="update", index=9), todo(action="frobnicate")],
            [todo(action="replace", items=many)],
        )
    )
    session = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(script),
        on_event=events.append,
        plan_mode=True,
    )
    await session.send("track it")
    results = [e for e in events if isinstance(e, ToolFinished)]
    assert not any(r.refused for r in results)  # todo is allowed while planning
    assert [e.todos for e in events if isinstance(e, TodosChanged)][:3] == [
        (Todo("a"), Todo("b", "in_progress")),
        (Todo("a", "completed"), Todo("b", "in_progress")),
        (Todo("a", "completed"), Todo("b2", "in_progress")),
    ]
    assert "already listed: a" in results[3].result
    assert results[4].result.splitlines()[:3] == ["1. [x] a", "2. [~] b2", "3. [ ] c"]
    assert results[5].error and "`index` must be 1..3" in results[5].result
    assert results[6].error and "must be one of" in results[6].result
    assert len(session.todos) == TODO_CAP and session.deferred_steps == (
        f"item {TODO_CAP}",
        f"item {TODO_CAP + 1}",
    )
    assert "deferred, not dropped" in results[7].result


class Exploding:
    label = "exploding"

    async def stream(self, request: ModelRequest):
        yield Done()
        raise RuntimeError("boom")


async def test_a_provider_bug_ends_the_turn_with_an_error(project: Path) -> None:
    events: list[Any] = []
    session = Session(project_root=project, provider=Exploding(), on_event=events.append)
    await session.send("hi")
    assert events[-1].reason == "error" and "RuntimeError: boom" in events[-1].message
    assert isinstance(events[-1], TurnEnded)
