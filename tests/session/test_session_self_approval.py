"""The agent cannot approve its own plan: the reported attack, and the ways around the first wall.

In execute mode the agent edits its approved plan, then runs `planview approve <plan> --as Alice`
through bash. planview marks its tool processes, so that approval is refused; an agent that unsets
the marker still gets nothing, because the session honours only the exact approval it was pinned
to - and the forged event carries its channel, so `planview status` and `audit` show how it was made.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from test_session_lifecycle import PLAN, add_turns, approved_session, call, results

from planview.approval.approvals import Approvals
from planview.approval.channels import TOOL_PROCESS_ENV
from planview.session.conversation import ToolMessage
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session

PLANVIEW = f"{shlex.quote(sys.executable)} -m planview"


def edit_goal(plan: Path) -> str:
    """A bash line that changes one word of the plan's Goal (the write tool refuses planview's home)."""
    script = (
        "import pathlib,sys; p=pathlib.Path(sys.argv[1]); "
        "p.write_text(p.read_text().replace('prints a greeting.', 'prints a farewell.'))"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(script)} {shlex.quote(str(plan))}"


def ledger(project: Path) -> list[dict[str, Any]]:
    path = project / ".planview" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_approve_from_the_agents_bash_is_refused_and_the_next_write_names_the_section(
    project: Path,
) -> None:
    events: list[Any] = []
    session = await approved_session(project, events)
    plan = session.plan_path
    assert plan is not None and session.approval is not None
    attack = f"{edit_goal(plan)} && {PLANVIEW} approve {shlex.quote(str(plan))} --as Alice; echo rc=$?"
    add_turns(
        session.provider,  # type: ignore[arg-type]
        {"tool_calls": [call("bash", command=attack)]},
        {"tool_calls": [call("write", path="x.txt", content="x")]},
        {"text": "done"},
    )
    await session.send("go on")
    bash = results(events, "bash")[-1]
    assert "approvals come from a person, not from the agent's tools" in bash.result
    assert "rc=2" in bash.result
    write = results(events, "write")[-1]
    assert write.refused and "Goal" in write.result and not (project / "x.txt").exists()
    assert session.mode == "plan" and session.approval is None
    approvals = [e for e in ledger(project) if e["type"] == "approved"]
    assert [e["approver"] for e in approvals] == ["Ada Reviewer <ada@example.com>"]  # no Alice
    revoked = [e for e in ledger(project) if e["type"] == "revoked"]
    assert len(revoked) == 1 and revoked[0]["changed_sections"] == ["Goal"]
    # the conversation keeps what happened: the refused write is recorded as refused
    kept = [m for m in session.conversation if isinstance(m, ToolMessage) and m.name == "write"]
    assert kept[-1].refused and kept[-1].error and kept[-1].headline == "write x.txt"


async def test_unsetting_the_marker_still_does_not_unlock_writes(project: Path) -> None:
    # The adversary knows the marker: it approves with the variable removed. The approval lands in
    # the ledger (planview cannot stop a shell), but the session is pinned to its own approval event.
    events: list[Any] = []
    session = await approved_session(project, events)
    plan = session.plan_path
    assert plan is not None and session.approval is not None
    pinned = session.approval.seq
    forged = f"env -u {TOOL_PROCESS_ENV} {PLANVIEW} approve {shlex.quote(str(plan))} --as Alice"
    add_turns(
        session.provider,  # type: ignore[arg-type]
        {"tool_calls": [call("bash", command=f"{edit_goal(plan)} && {forged}")]},
        {"tool_calls": [call("write", path="x.txt", content="x")]},
        {"text": "done"},
    )
    await session.send("go on")
    events_now = ledger(project)
    alice = [e for e in events_now if e["type"] == "approved" and e["approver"] == "Alice"]
    assert len(alice) == 1 and alice[0]["seq"] > pinned
    assert alice[0]["channel"] == "planview approve (no terminal)"  # detection: how it was made
    write = results(events, "write")[-1]
    assert write.refused and not (project / "x.txt").exists()
    assert "changed sections: Goal" in write.result
    assert session.mode == "plan" and session.approval is None
    # the model is told why: the approval that appeared is not the one this session was pinned to
    note = [
        m["content"] for m in session.provider.requests[-1].messages if "[PLAN MODE ACTIVE]" in m["content"]
    ]
    assert note and "another approval of it appeared" in note[-1] and f"(seq {pinned})" in note[-1]
    # and a person sees the channel in status and audit, and that the session withdrew it
    status = Approvals(project / ".planview", project).status(plan)
    assert status.state == "stale" and status.revoked and status.record is not None
    assert status.record.channel == "planview approve (no terminal)"


async def test_a_tool_process_is_marked_with_the_session_id(project: Path) -> None:
    events: list[Any] = []
    session = await approved_session(project, events)
    add_turns(
        session.provider,  # type: ignore[arg-type]
        {"tool_calls": [call("bash", command=f"echo marker=${TOOL_PROCESS_ENV}")]},
        {"text": "done"},
    )
    await session.send("show")
    assert f"marker={session.id}" in results(events, "bash")[-1].result


def test_plan_fixture_is_the_lifecycle_plan() -> None:
    assert "## Goal" in PLAN and "prints a greeting" in PLAN


async def test_a_forged_approval_the_session_saw_is_not_honoured_on_resume(project: Path) -> None:
    """Before: the live session refused the agent's forged approval, but `--resume` took it for one made
    outside after the session stopped and resumed in execute mode under it. Now the session withdraws an
    approval that appeared while it was pinned to another (one `revoked` event naming both), so resume
    stays in plan mode, and a person's approval after that is a new event that resume honours."""
    events: list[Any] = []
    session = await approved_session(project, events)
    plan = session.plan_path
    assert plan is not None and session.approval is not None
    pinned = session.approval.seq
    forged = f"env -u {TOOL_PROCESS_ENV} {PLANVIEW} approve {shlex.quote(str(plan))} --as Alice"
    add_turns(
        session.provider,  # type: ignore[arg-type]
        {"tool_calls": [call("bash", command=f"{edit_goal(plan)} && {forged}")]},
        {"tool_calls": [call("write", path="x.txt", content="x")]},
        {"text": "done"},
    )
    await session.send("go on")
    assert session.mode == "plan"
    alice = next(e for e in ledger(project) if e["type"] == "approved" and e["approver"] == "Alice")
    withdrawn = [e for e in ledger(project) if e["type"] == "revoked" and e.get("revokes") == alice["seq"]]
    assert len(withdrawn) == 1 and f"seq {pinned}" in withdrawn[0]["reason"], ledger(project)[-1]
    status = Approvals(project / ".planview", project).status(plan)
    assert status.state == "stale" and status.revoked and "approve the plan again" in status.detail

    resumed = Session.resume(session.id, project_root=project, provider=ScriptedProvider(()), plan_mode=True)
    assert resumed.mode == "plan" and resumed.approval is None

    # a person approves the plan as it now stands: a new event, which the next resume honours
    record = Approvals(project / ".planview", project).approve(
        plan, "Ada", channel="planview approve (terminal)"
    )
    assert record.seq > alice["seq"]
    again = Session.resume(session.id, project_root=project, provider=ScriptedProvider(()), plan_mode=True)
    assert again.mode == "execute" and again.approval is not None and again.approval.seq == record.seq
