"""Session files: JSON Lines, newest-session lookup, and clear errors for damaged lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planview.session.conversation import AssistantMessage, ToolCallRecord, ToolMessage, UserMessage
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
    log.message(UserMessage("hi"))
    log.state(SessionState("plan", None, None, (), ()))
    log.message(AssistantMessage("hello", (ToolCallRecord("1", "ls", {}),)))
    log.message(ToolMessage("1", "ls", "Refused: no", "ls .", refused=True, error=True))
    log.state(
        SessionState("execute", "/p/.planview/plans/x.md", {"seq": 3}, (Todo("a", "completed"),), ("b",))
    )
    saved = load_session(tmp_path)
    assert saved.id == "20260101-000000-abcd"
    assert saved.conversation == (
        UserMessage("hi"),
        AssistantMessage("hello", (ToolCallRecord("1", "ls", {}),)),
        ToolMessage("1", "ls", "Refused: no", "ls .", refused=True, error=True),
    )
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
    log.message(UserMessage("fine"))
    with open(log.path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    log.message(UserMessage("after it"))  # not the last line: no save was cut short
    with pytest.raises(SessionFileError) as info:
        load_session(tmp_path, "s1")
    message = str(info.value)
    assert f"{log.path}: line 3" in message and problem in message and "delete that line" in message


@pytest.mark.parametrize(
    "tail",
    [
        b'{"type": "message", "message": {"role": "user", "content": "cut sh',  # ENOSPC / SIGKILL
        '{"type": "message", "message": {"role": "user", "content": "é'.encode()[:-1],  # mid-character
        b"\x00" * 4096,  # a page that never got its data
        b"[" * 100_000,  # nesting that would crash json with RecursionError
    ],
)
def test_a_torn_last_line_is_dropped_with_a_notice_and_cut_off(tmp_path: Path, tail: bytes) -> None:
    log = SessionLog(tmp_path, "s1")
    log.start({})
    log.message(UserMessage("kept"))
    good = log.path.read_bytes()
    with open(log.path, "ab") as fh:
        fh.write(tail)
    saved = load_session(tmp_path, "s1")
    assert [m.content for m in saved.conversation] == ["kept"]
    assert saved.dropped is not None and "last line 3" in saved.dropped and "\n" not in saved.dropped
    assert saved.good_bytes == len(good)
    log.drop_torn_tail(saved.good_bytes)
    log.message(UserMessage("next"))
    again = load_session(tmp_path, "s1")
    assert [m.content for m in again.conversation] == ["kept", "next"] and again.dropped is None


def test_resume_of_a_malformed_tool_call_is_a_clear_error(tmp_path: Path) -> None:
    # Used to crash in close_dangling_calls with KeyError: 'id' instead of naming the line.
    from planview.plan.store import PlanStore
    from planview.session.providers.scripted import ScriptedProvider
    from planview.session.session import Session

    home = tmp_path / ".planview"
    log = SessionLog(home, "s1")
    log.start({})
    with open(log.path, "a", encoding="utf-8") as fh:  # written by hand: the session never writes this
        fh.write(
            '{"type":"message","message":{"role":"assistant","content":"","tool_calls":[{"name":"ls","arguments":{}}]}}\n'
        )
    with pytest.raises(SessionFileError, match="line 2"):
        Session(
            project_root=tmp_path,
            provider=ScriptedProvider.from_text(""),
            session_id="s1",
            store=PlanStore(home, project_root=tmp_path),
        )


def test_a_full_disk_while_saving_leaves_no_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from planview.session import persistence

    log = SessionLog(tmp_path, "s1")
    log.start({})
    good = log.path.read_bytes()
    real = persistence.os.write

    def short_then_full(fd: int, data: bytes) -> int:
        if len(data) > 10:
            return real(fd, bytes(data[:10]))  # a short write...
        raise OSError(errno.ENOSPC, "No space left on device")  # ...then the disk is full

    monkeypatch.setattr(persistence.os, "write", short_then_full)
    with pytest.raises(SessionFileError, match="the disk is full"):
        log.message(UserMessage("x" * 100))
    monkeypatch.undo()
    assert log.path.read_bytes() == good
    log.message(UserMessage("after"))
    assert [m.content for m in load_session(tmp_path, "s1").conversation] == ["after"]
