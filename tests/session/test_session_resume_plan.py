"""`--plan` with `--resume`: plan mode only when the resumed session saved no mode (issue 7)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from planview import cli
from planview.session.conversation import UserMessage
from planview.session.persistence import SessionLog, read_session
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def provider(lines: list[dict]) -> ScriptedProvider:
    return ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))


async def saved_in_execute_mode(project: Path) -> Session:
    session = Session(project_root=project, provider=provider([{"text": "done"}]))
    await session.send("do it")
    assert read_session(session._log.path).state.mode == "execute"  # type: ignore[union-attr]
    return session


def saved_without_mode(project: Path) -> str:
    """A session file with a conversation but no state line (e.g. killed during its first turn)."""
    session = Session(project_root=project, provider=provider([]))
    log = SessionLog(session.home, SessionLog.new_id())
    log.start({"project_root": str(project), "provider": "scripted"})
    log.message(UserMessage("hello"))
    assert read_session(log.path).state is None
    return log.id


async def test_resume_keeps_a_saved_execute_mode_despite_plan_flag(project: Path) -> None:
    saved = await saved_in_execute_mode(project)
    resumed = Session.resume(saved.id, project_root=project, provider=provider([]), plan_mode=True)
    assert resumed.saved_mode is True
    assert resumed.mode == "execute"


def test_resume_without_saved_mode_applies_plan_flag(project: Path) -> None:
    session_id = saved_without_mode(project)
    plain = Session.resume(session_id, project_root=project, provider=provider([]))
    assert plain.saved_mode is False and plain.mode == "execute"
    planned = Session.resume(session_id, project_root=project, provider=provider([]), plan_mode=True)
    assert planned.saved_mode is False
    assert planned.mode == "plan"
    assert [m.content for m in planned.conversation] == ["hello"]


def _launch(monkeypatch: pytest.MonkeyPatch, project: Path, *argv: str) -> PlanviewApp:
    script = project / "s.jsonl"
    script.write_text("")
    apps: list[PlanviewApp] = []
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: apps.append(self))
    assert cli.main([*argv, "--script", str(script)]) == 0
    (app,) = apps
    return app


@pytest.mark.usefixtures("a_terminal")
async def test_app_plan_resume_keeps_saved_execute_mode(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved = await saved_in_execute_mode(project)
    app = _launch(monkeypatch, project, "--plan", "--resume")
    assert app.session.id == saved.id
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.session.mode == "execute"
        assert app.session_screen is not None and app.session_screen.session is app.session


@pytest.mark.usefixtures("a_terminal")
async def test_app_plan_resume_without_saved_mode_starts_planning(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = saved_without_mode(project)
    app = _launch(monkeypatch, project, "--plan", "--resume", session_id)
    assert app.session.id == session_id
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.session.mode == "plan"


def _run_script(path: Path, *turns: dict) -> Path:
    path.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    return path


def test_run_plan_resume_keeps_saved_execute_mode(project: Path, tmp_path: Path) -> None:
    saved = asyncio.run(saved_in_execute_mode(project))
    script = _run_script(tmp_path / "r.jsonl", {"text": "more"})
    assert cli.main(["run", "--plan", "--resume", saved.id, "--script", str(script), "go on"]) == 0
    state = read_session(saved._log.path).state  # type: ignore[union-attr]
    assert state is not None and state.mode == "execute"


def test_run_plan_resume_without_saved_mode_plans(project: Path, tmp_path: Path) -> None:
    session_id = saved_without_mode(project)
    script = _run_script(tmp_path / "r.jsonl", {"text": "planning"})
    assert cli.main(["run", "--plan", "--resume", session_id, "--script", str(script), "plan it"]) == 0
    session = Session(project_root=project, provider=provider([]), session_id=session_id)
    assert session.mode == "plan"
