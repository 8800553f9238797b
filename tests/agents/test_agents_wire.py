"""What an ACP agent sends on the wire that planview must bound or name (issue 25.9).

A 200 MB line used to be read whole (650 MB of memory, a 210 MB session file) although a 50 MB
limit was documented; an agent answering `initialize` with the wrong id was reported as "did not
answer initialize".
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from planview.agents.client import PlanviewClient
from planview.agents.connection import AgentConnection
from planview.agents.errors import AgentStartError
from planview.agents.profiles import resolve_agent

pytestmark = pytest.mark.timeout(120)

HUGE_LINE = textwrap.dedent(
    r"""
    import sys
    sys.stdin.buffer.readline()  # initialize
    out = sys.stdout.buffer
    out.write(b'{"jsonrpc": "2.0", "id": 0, "result": {"junk": "')
    chunk = b"a" * (1 << 20)
    try:
        for _ in range(200):  # 200 MB on one line
            out.write(chunk)
        out.write(b'"}}\n')
        out.flush()
    except BrokenPipeError:
        pass
    """
)

WRONG_ID = textwrap.dedent(
    r"""
    import json, sys, time
    request = json.loads(sys.stdin.buffer.readline())
    answer = {"jsonrpc": "2.0", "id": request["id"] + 1000, "result": {"protocolVersion": 1}}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    time.sleep(30)
    """
)


async def _start(tmp_path: Path, script: str) -> str:
    agent = tmp_path / "agent.py"
    agent.write_text(script)
    profile = resolve_agent(f"{sys.executable} {agent}")
    connection = AgentConnection(profile, tmp_path, tmp_path / "agent.log", PlanviewClient(None, set()))  # type: ignore[arg-type]
    try:
        await connection.start()
    except AgentStartError as exc:
        return str(exc)
    finally:
        await connection.close()
    raise AssertionError("the agent started")


async def test_a_line_over_50_mb_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    message = await _start(tmp_path, HUGE_LINE)
    assert "over the 50 MB" in message and "planview stopped reading" in message, message


async def test_an_answer_with_the_wrong_id_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import planview.agents.connection as module

    monkeypatch.setattr(module, "START_TIMEOUT", 3.0)
    message = await _start(tmp_path, WRONG_ID)
    assert "did not answer initialize" not in message, message
    assert "id" in message and "does not match" in message, message
