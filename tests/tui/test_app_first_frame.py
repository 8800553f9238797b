"""The session app's first frame: its session screen is the app's own first screen (a screen pushed
from on_mount is laid out and drawn inside Textual's start-up batch, whose frames are dropped), and
what waits for the first frame (the cyclic collector, `planview.commands.collector`) is let go once."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from planview.commands import collector
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.session_screen import SessionScreen


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


@pytest.fixture
def collector_on():
    yield
    collector.resume()
    assert gc.isenabled()


def _app(root: Path, **kwargs) -> PlanviewApp:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "ok"})))

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    return PlanviewApp(factory, project_root=root, **kwargs)


async def test_the_session_screen_is_the_apps_first_screen(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.screen_stack == [app.session_screen]
        assert isinstance(app.screen, SessionScreen) and app.session_screen.prompt.has_focus
        # Nothing below it: quitting the session screen's screen stack leaves no blank screen.
        assert len(app.screen_stack) == 1


async def test_the_collector_waits_for_the_first_frame_and_runs_after_it(
    tmp_path: Path, collector_on
) -> None:
    seen: list[bool] = []

    def first_frame() -> None:
        seen.append(gc.isenabled())
        collector.resume()

    collector.pause()
    app = _app(tmp_path, on_first_frame=first_frame)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(50):
            if seen:
                break
            await pilot.pause(0.02)
        assert seen == [False]  # called once, while start-up still ran without the collector
        assert gc.isenabled()
        await pilot.pause(0.05)
    assert seen == [False]


def test_resume_is_a_no_op_unless_paused(collector_on) -> None:
    frozen = gc.get_freeze_count()
    collector.resume()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    collector.pause()
    assert not gc.isenabled()
    collector.resume()
    collector.resume()
    assert gc.isenabled()
