"""In-progress steps (`- [~]`) flow through approval and set_plan_steps like the other two states."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_session_lifecycle import FakeUI, add_turns, approve_as_shown, call, results

from planview.session.events import Todo
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session

PLAN = """\
# Ship the report

## Steps

- [x] Collect the figures
- [~] Draft the summary
- [ ] Send it for review
"""


async def test_in_progress_step_seeds_an_in_progress_todo_and_can_be_set(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider(())
    session = Session(
        project_root=project,
        provider=provider,
        ui=FakeUI(approve_as_shown),
        on_event=events.append,
        plan_mode=True,
    )
    add_turns(
        provider,
        {"tool_calls": [call("write_plan", title="Ship the report", content=PLAN)]},
        {"tool_calls": [call("exit_plan_mode")]},
        {
            "tool_calls": [
                call(
                    "set_plan_steps",
                    updates=[
                        {"step": 2, "status": "completed", "expected": "Draft the summary"},
                        {"step": 3, "status": "in_progress"},
                    ],
                )
            ]
        },
        {"text": "Working on it."},
    )
    await session.send("write the report plan")

    approval = results(events, "exit_plan_mode")[-1]
    assert not approval.error, approval.result
    assert "2. [~] Draft the summary" in approval.result  # the listing the model gets keeps the state

    updated = results(events, "set_plan_steps")[-1]
    assert not updated.error, updated.result
    text = session.plan_path.read_text()
    assert "- [x] Draft the summary" in text
    assert "- [~] Send it for review" in text
    assert session.todos == (
        Todo("Collect the figures", "completed"),
        Todo("Draft the summary", "completed"),
        Todo("Send it for review", "in_progress"),
    )
    assert session.mode == "execute" and session.is_stale() is False


async def test_seeding_keeps_the_in_progress_state(project: Path) -> None:
    provider = ScriptedProvider(())
    session = Session(project_root=project, provider=provider, ui=FakeUI(approve_as_shown), plan_mode=True)
    add_turns(
        provider,
        {"tool_calls": [call("write_plan", title="Ship the report", content=PLAN)]},
        {"tool_calls": [call("exit_plan_mode")]},
        {"text": "Approved."},
    )
    await session.send("plan it")
    assert [t.status for t in session.todos] == ["completed", "in_progress", "pending"]
