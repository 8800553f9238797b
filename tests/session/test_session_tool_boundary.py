"""The tool boundary: plan-mode readers stay in the project, writes never touch planview's state, unknown tools are named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planview.session.events import ToolFinished
from planview.session.providers.scripted import ScriptedProvider
from planview.session.session import Session
from planview.session.tools import files


def _session(project: Path, calls: list[dict[str, Any]], *, plan_mode: bool) -> tuple[Session, list[Any]]:
    script = "\n".join(json.dumps({"tool_calls": [c]}) for c in calls)
    events: list[Any] = []
    session = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(script),
        on_event=events.append,
        plan_mode=plan_mode,
    )
    return session, events


@pytest.fixture
def secret(tmp_path: Path, project: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key").write_text("TOPSECRET\n")
    (project / "link").symlink_to(outside / "key")
    (project / "linkdir").symlink_to(outside)
    return outside / "key"


def _results(events: list[Any]) -> list[str]:
    return [e.result for e in events if isinstance(e, ToolFinished)]


async def test_plan_mode_readers_refuse_paths_outside_the_project(project: Path, secret: Path) -> None:
    calls = [
        {"name": "read", "arguments": {"path": str(secret)}},
        {"name": "read", "arguments": {"path": "link"}},
        {"name": "read", "arguments": {"path": "linkdir/key"}},
        {"name": "grep", "arguments": {"pattern": "TOP", "path": str(secret.parent)}},
        {"name": "ls", "arguments": {"path": "linkdir"}},
        {"name": "find", "arguments": {"glob": "*", "path": "../"}},
        {"name": "read", "arguments": {"path": "README.md"}},
        {"name": "find", "arguments": {"glob": "../outside/*"}},
    ]
    session, events = _session(project, calls, plan_mode=True)
    await session.send("look")
    results = _results(events)
    assert len(results) == 8
    for text in results[:6]:
        assert "outside the project folder" in text and "TOPSECRET" not in text
    assert "sample project" in results[6]
    assert results[7] == "no files match '../outside/*'"


async def test_plan_mode_grep_fallback_skips_links_out(
    project: Path, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files.shutil, "which", lambda name: None)  # the Python fallback
    session, events = _session(project, [{"name": "grep", "arguments": {"pattern": "TOP"}}], plan_mode=True)
    await session.send("look")
    assert _results(events) == ["no matches for 'TOP'"]


async def test_execute_mode_reads_anywhere(project: Path, secret: Path) -> None:
    session, events = _session(project, [{"name": "read", "arguments": {"path": "link"}}], plan_mode=False)
    await session.send("look")
    assert "TOPSECRET" in _results(events)[0]


async def test_write_and_edit_refuse_planviews_own_state(project: Path) -> None:
    # Even in execute mode: the ledger, sessions and plans are not the model's to rewrite.
    (project / ".planview").mkdir(exist_ok=True)
    ledger = project / ".planview" / "ledger.jsonl"
    ledger.write_text("{}\n")
    calls = [
        {"name": "write", "arguments": {"path": ".planview/ledger.jsonl", "content": "forged"}},
        {"name": "edit", "arguments": {"path": str(ledger), "old_string": "{}", "new_string": "[]"}},
        {"name": "write", "arguments": {"path": "notes.txt", "content": "fine"}},
    ]
    session, events = _session(project, calls, plan_mode=False)
    await session.send("go")
    forged, edited, fine = _results(events)
    assert "planview's own state" in forged and "planview's own state" in edited
    assert ledger.read_text() == "{}\n" and (project / "notes.txt").read_text() == "fine"


async def test_unknown_tool_names_the_tools_of_the_mode(project: Path) -> None:
    # Was "not known to be read-only (it does not declare readOnlyHint)" in plan mode: true but
    # useless for a name that does not exist, and execute mode listed plan-only tools.
    session, events = _session(project, [{"name": "nope", "arguments": {}}], plan_mode=True)
    await session.send("go")
    (text,) = _results(events)
    assert text.startswith("unknown tool 'nope'; available in plan mode: read, grep")
    assert "write_plan" in text and "edit" not in text
    session, events = _session(project, [{"name": "nope", "arguments": {}}], plan_mode=False)
    await session.send("go")
    (text,) = _results(events)
    assert "available in execute mode:" in text and "edit" in text and "write_plan" not in text
