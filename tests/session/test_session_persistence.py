"""Session files: JSON Lines, newest-session lookup, and clear errors for damaged lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planview.session.events import Todo
from planview.session.persistence import (
    SessionFileError,
    SessionLog,
    SessionNotFoundError,
    SessionState,
    find_session,
    load_session,
)


def test_round_trip_and_last_state_wins(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "20260101-000000-abcd")
    log.start({"project_root": "/p", "provider": "scripted"})
    log.message({"role": "user", "content": "hi"})
    log.state(SessionState("plan", None, None, (), ()))
    log.message(
        {"role": "assistant", "content": "hello", "tool_calls": [{"id": "1", "name": "ls", "arguments": {}}]}
    )
    log.state(
        SessionState("execute", "/p/.planview/plans/x.md", {"seq": 3}, (Todo("a", "completed"),), ("b",))
    )
    saved = load_session(tmp_path)
    assert saved.id == "20260101-000000-abcd"
    assert [m["role"] for m in saved.conversation] == ["user", "assistant"]
    assert saved.state == SessionState(
        "execute", "/p/.planview/plans/x.md", {"seq": 3}, (Todo("a", "completed"),), ("b",)
    )
    assert saved.meta["provider"] == "scripted"


def test_newest_session_and_prefix_lookup(tmp_path: Path) -> None:
    old = SessionLog(tmp_path, "20260101-000000-aaaa")
    new = SessionLog(tmp_path, "20260102-000000-bbbb")
    for log in (old, new):
        log.start({})
    os.utime(old.path, (1, 1))
    assert find_session(tmp_path) == new.path
    assert find_session(tmp_path, "20260101") == old.path
    with pytest.raises(SessionNotFoundError, match="ambiguous"):
        find_session(tmp_path, "2026")
    with pytest.raises(SessionNotFoundError, match="no session 'nope'"):
        find_session(tmp_path, "nope")


def test_no_sessions_says_how_to_start(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError, match='planview run "task"'):
        load_session(tmp_path)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"type": "message", "message": {"role": "user"', "not valid JSON"),
        ('{"type": "state", "mode": "yolo"}', "mode must be plan or execute"),
        ('{"type": "gossip"}', "unknown record type"),
        ('{"type": "message", "message": {"role": "system", "content": "x"}}', "role"),
        ('{"type": "message", "message": {"role": "user", "content": 5}}', "content must be a string"),
        ('{"type": "state", "mode": "plan", "plan_path": 5}', "plan_path must be a path string"),
        ('{"type": "state", "mode": "plan", "todos": [{"text": 5}]}', "todo's text must be a string"),
        ('{"type": "message", "message": {"role": "tool", "content": "x"}}', "tool_call_id"),
        (
            '{"type": "message", "message": {"role": "assistant", "content": "", "tool_calls": [{"nm": 1}]}}',
            "tool_calls must be a list",
        ),
        (
            '{"type": "message", "message": {"role": "assistant", "content": "", "tool_calls": "zz"}}',
            "tool_calls must be a list",
        ),
    ],
)
def test_damaged_line_names_file_and_line(tmp_path: Path, line: str, problem: str) -> None:
    log = SessionLog(tmp_path, "s1")
    log.start({})
    log.message({"role": "user", "content": "fine"})
    with open(log.path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    with pytest.raises(SessionFileError) as info:
        load_session(tmp_path, "s1")
    message = str(info.value)
    assert f"{log.path}: line 3" in message and problem in message and "delete that line" in message


def test_resume_of_a_malformed_tool_call_is_a_clear_error(tmp_path: Path) -> None:
    # Used to crash in close_dangling_calls with KeyError: 'id' instead of naming the line.
    from planview.plan.store import PlanStore
    from planview.session import Session
    from planview.session.providers.scripted import ScriptedProvider

    home = tmp_path / ".planview"
    log = SessionLog(home, "s1")
    log.start({})
    log.message({"role": "assistant", "content": "", "tool_calls": [{"name": "ls", "arguments": {}}]})
    with pytest.raises(SessionFileError, match="line 2"):
        Session(
            project_root=tmp_path,
            provider=ScriptedProvider.from_text(""),
            session_id="s1",
            store=PlanStore(home, project_root=tmp_path),
        )
