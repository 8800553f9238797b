"""While a session executes an approved plan, the agent's commits name it: the tool environment carries
the pinned canonical hash and the team's prepare-commit-msg hook writes it as the `Plan:` trailer."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_session_lifecycle import add_turns, approved_session, call, results

from planview.team.hooks import PLAN_ENV, install


async def test_the_agents_commit_in_execute_mode_carries_the_plan_trailer(project: Path) -> None:
    install(project, f"{shlex.quote(sys.executable)} -m planview")
    events: list[Any] = []
    session = await approved_session(project, events)
    assert session.approval is not None and session.mode == "execute"
    pinned = session.approval.canonical_sha256
    assert session.tool_env()[PLAN_ENV] == pinned
    add_turns(
        session.provider,  # type: ignore[arg-type]
        {
            "tool_calls": [
                call(
                    "bash", command="echo hi > hello.txt && git add hello.txt && git commit -q -m 'add hello'"
                )
            ]
        },
        {"text": "done"},
    )
    await session.send("go on")
    assert "error" not in results(events, "bash")[-1].result.lower()
    body = subprocess.run(
        ["git", "show", "-s", "--format=%B"], cwd=project, capture_output=True, text=True, check=True
    ).stdout
    assert f"Plan: sha256:{pinned}" in body


async def test_a_planning_session_names_no_plan(project: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv(PLAN_ENV, "f" * 64)  # inherited from an outer session: not this one's plan
    events: list[Any] = []
    session = await approved_session(project, events)
    assert session.tool_env()[PLAN_ENV] != "f" * 64
    session.enter_plan_mode()
    assert PLAN_ENV not in session.tool_env()
