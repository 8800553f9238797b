"""write_plan's plan_path is judged by the session's own plan store, handed to the gate.

The gate used to build a PlanStore of its own from the plans folder. One built that way knows no
project root when the home is not a `.planview` folder (PLANVIEW_HOME, the user data dir), so it
read relative spellings against the current folder while the session's store, which writes, reads
them against the project. Now whoever builds the session's store hands its `check_path` to the
gate: a gate built for project A refuses every spelling of project B's plans whatever the current
folder is, and it agrees with the store that writes on every spelling.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planview.commands.session_builder import prepare
from planview.gate.calls import ToolCall
from planview.gate.policy import decide
from planview.plan.errors import PlanPathError
from planview.session.events import ToolFinished
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session


def write_plan(plan_path: str) -> ToolCall:
    return ToolCall("write_plan", {"title": "T", "content": "# T\n", "plan_path": plan_path})


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """Project B, beside project A, with a plan of its own."""
    root = tmp_path / "other"
    plans = root / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "b.md").write_text("# B's plan\n")
    return root


def test_the_session_builder_hands_the_gate_its_own_store(project: Path) -> None:
    script = project / "script.jsonl"
    script.write_text(json.dumps({"text": "hi"}) + "\n")
    session = prepare(cwd=project, script=script).build()
    assert session.policy.plan_path_check == session.store.check_path
    assert session.policy.plans_dir == session.store.plans_dir


async def test_a_gate_for_project_a_refuses_every_spelling_of_project_b_plans(
    project: Path, other: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b_plans = other / ".planview" / "plans"
    b_plan = b_plans / "b.md"
    before = b_plan.read_bytes()
    session = Session(project_root=project, provider=ScriptedProvider.from_text(""), plan_mode=True)
    a_plans = session.store.plans_dir
    a_plans.mkdir(parents=True, exist_ok=True)
    os.symlink(b_plans, a_plans / "link-b")  # a folder in A's plans that is really B's
    os.symlink(b_plan, a_plans / "b-link.md")  # a plan in A's plans that is really B's
    spellings = [
        str(b_plan),
        str(b_plans / "new.md"),
        os.path.relpath(b_plan, project),  # ../other/.planview/plans/b.md, read against A
        f"{a_plans}/../../../other/.planview/plans/b.md",
        "link-b/b.md",
        str(a_plans / "link-b" / "new.md"),
        "b-link.md",
        str(b_plans),
    ]
    monkeypatch.chdir(other)  # the process sits in B: relative spellings must still mean A
    for spelling in spellings:
        decision = decide(write_plan(spelling), "plan", session.policy)
        assert not decision.allowed, f"{spelling!r} was allowed"
        assert decision.reason.startswith("write_plan refused: "), decision.reason

    # The same calls through A's session: every one refused before the store is reached.
    calls = [
        {"id": f"c{i}", "name": "write_plan", "arguments": write_plan(s).input}
        for i, s in enumerate(spellings)
    ]
    events: list[object] = []
    session = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(json.dumps({"tool_calls": calls})),
        on_event=events.append,
        plan_mode=True,
        persist=False,
    )
    await session.send("plan")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert len(finished) == len(spellings) and all(e.refused for e in finished), finished
    assert b_plan.read_bytes() == before
    assert sorted(p.name for p in b_plans.iterdir()) == ["b.md"]

    # A relative spelling with the process in B names A's plans folder, and the write lands in A.
    session = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(
            json.dumps(
                {
                    "tool_calls": [
                        {"name": "write_plan", "arguments": write_plan(".planview/plans/b.md").input}
                    ]
                }
            )
        ),
        plan_mode=True,
        persist=False,
    )
    await session.send("plan")
    assert (a_plans / "b.md").read_text() == "# T\n"
    assert b_plan.read_bytes() == before


def test_the_gate_and_the_writing_store_agree_on_every_spelling(
    project: Path, other: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A home that is not named .planview: a store built from the folder alone has no project root.
    monkeypatch.setenv("PLANVIEW_HOME", str(project / "state"))
    session = Session(project_root=project, provider=ScriptedProvider.from_text(""), plan_mode=True)
    plans = session.store.plans_dir
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "a.md").write_text("# A\n")
    monkeypatch.chdir(other)
    spellings = [
        "a.md",
        "state/plans/a.md",  # relative to the project: A's plan
        "./state/plans/new.md",
        str(plans / "a.md"),
        "../other/.planview/plans/b.md",
        ".planview/plans/b.md",  # B's plan if it were read against the current folder
        "state/plans/../../README.md",
        "state/plans",
    ]
    for spelling in spellings:
        try:
            session.store.check_path(spelling)
            writable = True
        except PlanPathError:
            writable = False
        decision = decide(write_plan(spelling), "plan", session.policy)
        assert decision.allowed == writable, (spelling, decision.reason)
    assert decide(write_plan("state/plans/a.md"), "plan", session.policy).allowed
    assert not decide(write_plan(".planview/plans/b.md"), "plan", session.policy).allowed
