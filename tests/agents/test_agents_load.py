"""Resume reopens the agent's own session (ACP session/load) when the agent can, so it keeps its context.

The "remember" fake agent advertises loadSession and keeps its sessions in FAKE_AGENT_STORE across
processes, as a real agent keeps them on disk; its answer says how many earlier prompts it has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planview.cli import main


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "agent-store"  # outside the project: the agent's own state
    folder.mkdir()
    monkeypatch.setenv("FAKE_AGENT_STORE", str(folder))
    return folder


def session_of(out: str) -> str:
    return out.splitlines()[0].rsplit("session ", 1)[-1].strip()


def test_resume_reopens_the_agent_session_and_does_not_show_its_replay_again(
    project: Path, store: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--agent", agent_cmd("remember"), "hello"]) == 0
    first = capsys.readouterr().out
    assert "I remember 0 earlier prompt(s): none." in first
    opened = agent_log.find(method="session/new")[0]["session"]
    saved = [
        json.loads(line)
        for line in next((project / ".planview" / "sessions").glob("*.jsonl")).read_text().splitlines()
    ]
    assert [r["provider"] for r in saved if r.get("type") == "state"][-1]["agent_session"] == opened

    assert main(["run", "--resume", session_of(first), "again"]) == 0
    out = capsys.readouterr().out
    assert "I remember 1 earlier prompt(s): hello." in out  # its own context came back
    assert "(history)" not in out  # the replay is not news: the saved transcript already has it
    assert agent_log.find(method="session/load")[-1]["session"] == opened
    assert len(agent_log.find(method="session/new")) == 1  # no second agent session
    assert agent_log.find(method="session/prompt")[-1]["session"] == opened


def test_an_agent_session_it_cannot_reopen_falls_back_to_a_fresh_one(
    project: Path, store: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--agent", agent_cmd("remember"), "hello"]) == 0
    first = capsys.readouterr().out
    for kept in store.iterdir():  # the agent lost it (expired, another machine)
        kept.unlink()
    assert main(["run", "--resume", session_of(first), "again"]) == 0
    out = capsys.readouterr().out
    assert "I remember 0 earlier prompt(s): none." in out
    assert len(agent_log.find(method="session/load")) == 1 and len(agent_log.find(method="session/new")) == 2


def test_an_agent_without_load_session_is_never_asked(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--agent", agent_cmd("rows"), "hello"]) == 0
    first = capsys.readouterr().out
    assert main(["run", "--resume", session_of(first), "again"]) == 0
    assert agent_log.find(method="session/load") == [] and len(agent_log.find(method="session/new")) == 2


@pytest.mark.parametrize(
    "snapshot",
    [
        None,
        [],
        {"kind": "acp"},
        {"agent_session": "", "limited": False},
        {"agent_session": 7, "limited": False},
        {"agent_session": "s-1", "limited": "no"},
        {"agent_session": "s-1"},
        {"agent_session": ["s-1"], "limited": False},
    ],
)
def test_a_hand_edited_snapshot_never_reopens_anything(snapshot: Any) -> None:
    from planview.agents.link import SavedAgentSession

    assert SavedAgentSession.from_snapshot(snapshot) is None


def test_a_session_saved_by_another_agent_is_not_reopened(
    project: Path, store: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--resume ID --agent OTHER`: the saved agent session belongs to the agent that ran it."""
    assert main(["run", "--agent", agent_cmd("remember"), "hello"]) == 0
    first = capsys.readouterr().out
    other = agent_cmd("remember") + " --other"
    assert main(["run", "--resume", session_of(first), "--agent", other, "again"]) == 0
    assert agent_log.find(method="session/load") == []
    assert "I remember 0 earlier prompt(s): none." in capsys.readouterr().out
