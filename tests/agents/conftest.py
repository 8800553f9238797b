"""Fixtures for the ACP tests: the fake agents (tests/agents/fake_agent.py, built on the SDK) and what they saw."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

FAKE_AGENT = Path(__file__).with_name("fake_agent.py")


def fake_agent(scenario: str) -> str:
    """The --agent command line of one fake agent."""
    return shlex.join([sys.executable, str(FAKE_AGENT), "--scenario", scenario])


class AgentLog:
    """What the fake agent received and was answered (JSON lines it writes to FAKE_AGENT_LOG)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def records(self) -> list[dict[str, Any]]:
        """The file's records, and those a sandboxed fake agent wrote to its stderr (planview's agent
        logs under the project's .planview/logs), in the order they were made."""
        found = []
        if self.path.exists():
            found = [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]
        for log in sorted(self.path.parent.glob("*/.planview/logs/*.agent.log")):
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("FAKE_AGENT_LOG "):
                    found.append(json.loads(line.removeprefix("FAKE_AGENT_LOG ")))
        found.sort(key=lambda r: r.get("t", 0))
        return [{k: v for k, v in r.items() if k != "t"} for r in found]

    def find(self, **match: Any) -> list[dict[str, Any]]:
        return [r for r in self.records() if all(r.get(k) == v for k, v in match.items())]


@pytest.fixture
def agent_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentLog:
    path = tmp_path / "fake-agent.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(path))
    return AgentLog(path)


@pytest.fixture
def agent_cmd() -> Any:
    """fake_agent(scenario) as a fixture (test modules here are not a package)."""
    return fake_agent


@pytest.fixture
def lists_only() -> Any:
    """The agent runs without the kernel's sandbox, as on a machine without Landlock: for tests of
    the layers that hold there (the breach watcher, the tool-process marker, the agent's own mode
    switch). The agent sandbox's own tests are test_agent_sandbox.py."""
    from planview.sandbox import status

    with status.forced(status.lists_only("switched off by the test: it exercises the list layers")):
        yield
