"""The demo opens at its title at every size: its intro is taller than a 40x20 screen, and the
transcript's anchor used to show the intro's end. The first row the session adds anchors it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.demo import guide
from planview.tui.app import PlanviewApp
from planview.tui.widgets.transcript import Transcript


def _app(project: Path) -> PlanviewApp:
    from planview.commands.session_builder import prepare
    from planview.demo.agent import DEMO_TASK, demo_provider

    provider = demo_provider()
    spec = prepare(cwd=project)
    return PlanviewApp(
        lambda ui, on_event: spec.build(ui=ui, on_event=on_event, provider=provider),
        project_root=spec.project_root,
        welcome=guide.welcome(project),
        prompt_text=DEMO_TASK,
    )


@pytest.mark.parametrize("size", [(40, 20), (80, 24), (120, 36)])
async def test_the_intro_opens_at_its_title(project: Path, size: tuple[int, int]) -> None:
    app = _app(project)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        transcript = app.screen.query_one(Transcript)
        assert transcript.scroll_y == 0
        first = transcript.children[0].render_lines(transcript.children[0].region.reset_offset)[0]
        assert "planview demo" in first.text
        if size == (40, 20):
            assert transcript.max_scroll_y > 0, "at 40x20 the intro is taller than the screen"
            transcript.add_notice("a row the session adds")
            await pilot.pause()
            await pilot.pause()
            assert transcript.scroll_y == transcript.max_scroll_y, "the newest row is followed again"
