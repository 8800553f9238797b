"""Cancelling a turn stops the model stream and any running tool, and leaves a well-formed history."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from planview.session.conversation import UserMessage, tool_results_complete
from planview.session.events import ToolFinished, ToolStarted, TurnEnded
from planview.session.persistence import load_session
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session


async def _wait_for(predicate, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")


async def test_cancel_while_the_model_streams(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider.from_text(json.dumps({"text": "slow", "delay": 30}))
    session = Session(project_root=project, provider=provider, on_event=events.append)
    task = asyncio.create_task(session.send("hi"))
    await _wait_for(lambda: len(provider.requests) == 1)
    session.cancel()
    await asyncio.wait_for(task, 5)
    assert events[-1] == TurnEnded("cancelled")
    assert not session.busy
    assert session.conversation == [UserMessage("hi")]


async def test_cancel_kills_a_running_command(project: Path) -> None:
    events: list[Any] = []
    marker = project / "pid.txt"
    script = "\n".join(
        json.dumps(line)
        for line in (
            {
                "tool_calls": [
                    {"name": "bash", "arguments": {"command": f"echo $$ > {marker}; sleep 30"}},
                    {"name": "read", "arguments": {"path": "README.md"}},
                ]
            },
            {"text": "after"},
        )
    )
    provider = ScriptedProvider.from_text(script)
    session = Session(project_root=project, provider=provider, on_event=events.append)
    task = asyncio.create_task(session.send("run it"))
    await _wait_for(lambda: marker.exists() and marker.read_text().strip() != "")
    pid = int(marker.read_text())
    session.cancel()
    await asyncio.wait_for(task, 5)
    assert events[-1] == TurnEnded("cancelled")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.name, e.result) for e in finished] == [("bash", "cancelled by the user")]
    assert [e.name for e in events if isinstance(e, ToolStarted)] == ["bash"]
    await _wait_for(lambda: _gone(pid))
    # Every call in the history has a result, so the next request is well-formed; on disk too.
    assert tool_results_complete(session.conversation)
    assert tool_results_complete(load_session(project / ".planview", session.id).conversation)
    # The session is usable again.
    await session.send("again")
    assert events[-1] == TurnEnded("done")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except (FileNotFoundError, IndexError):
        return True


async def test_cancelling_the_caller_ends_the_turn_and_propagates(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider.from_text(json.dumps({"text": "slow", "delay": 30}))
    session = Session(project_root=project, provider=provider, on_event=events.append)
    task = asyncio.create_task(session.send("hi"))
    await _wait_for(lambda: len(provider.requests) == 1)
    task.cancel()
    try:
        await asyncio.wait_for(task, 5)
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the caller's cancellation was swallowed")
    assert events[-1] == TurnEnded("cancelled") and not session.busy
