"""Without a kernel sandbox the session says so once at start and its mode chip says `lists only`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview.sandbox import status as sandbox_status
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.widgets.chip import ModeChip, chip_text
from planview.tui.widgets.transcript import NoticeRow


def _app(root: Path) -> PlanviewApp:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event, plan_mode=True)

    return PlanviewApp(factory, project_root=root)


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


def test_chip_text_says_lists_only_in_plan_mode_only() -> None:
    assert chip_text("plan", None, lists_only=True) == "⋮ plan (lists only)"
    assert chip_text("plan", "p.md", lists_only=True) == "⋮ plan (lists only) · p.md"
    assert chip_text("execute", "p.md", approved=True, lists_only=True) == "⋮ execute · p.md ✓"


@pytest.mark.parametrize("width", [40, 80, 120])
async def test_lists_only_is_said_once_and_kept_in_the_chip(project: Path, width: int) -> None:
    with sandbox_status.forced(sandbox_status.lists_only("this kernel has no Landlock system calls")):
        app = _app(project)
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            chip = app.session_screen.query_one(ModeChip)
            assert chip.text.startswith("⋮ plan (lists only)")
            notices = [
                row for row in app.session_screen.query(NoticeRow) if "lists alone" in str(row.render())
            ]
            assert len(notices) == 1
            assert "no Landlock" in str(notices[0].render())


async def test_with_the_sandbox_nothing_is_said(project: Path) -> None:
    with sandbox_status.forced(sandbox_status.SandboxStatus(sandbox_status.LANDLOCK, 7, "private", True)):
        app = _app(project)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert "lists only" not in app.session_screen.query_one(ModeChip).text
            assert not [r for r in app.session_screen.query(NoticeRow) if "lists alone" in str(r.render())]
