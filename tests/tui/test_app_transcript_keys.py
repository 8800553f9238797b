"""Paging the session transcript from the keyboard while the prompt keeps focus."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("size", [(40, 20), (80, 24), (120, 30)])
async def test_page_keys_scroll_the_transcript_while_the_prompt_has_focus(tmp_path: Path, size) -> None:
    """QA3 #16: PgUp/PgDn went to the prompt (a TextArea moving its own cursor), so the transcript
    could not be paged from the keyboard at any width."""
    from planview.session.providers.scripted import ScriptedProvider, parse_script
    from planview.session.session import Session
    from planview.tui.app import PlanviewApp

    def factory(ui, on_event):
        return Session(
            project_root=tmp_path, provider=ScriptedProvider(parse_script("")), ui=ui, on_event=on_event
        )

    app = PlanviewApp(factory, project_root=tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = app.session_screen
        for n in range(80):
            screen.transcript.add_notice(f"row {n}")
        await pilot.pause()
        screen.prompt.load_text("half a thought")
        screen.prompt.focus()
        transcript = screen.transcript
        for _ in range(50):
            if transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y:
                break
            await pilot.pause(0.02)
        bottom = transcript.max_scroll_y
        assert bottom > 0 and transcript.scroll_y == bottom  # anchored at the newest row
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_y < bottom
        higher = transcript.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_y < higher
        assert app.focused is screen.prompt and screen.prompt.text == "half a thought"  # typing goes on
        screen.transcript.add_notice("a new row")  # scrolled back: it does not pull the view down
        await pilot.pause()
        assert transcript.scroll_y < higher
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
