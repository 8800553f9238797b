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
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]

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
