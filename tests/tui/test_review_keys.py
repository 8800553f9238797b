"""The `?` key list: readable on a small terminal (it scrolls), closed by any other key."""

from __future__ import annotations

from pathlib import Path

from textual.containers import VerticalScroll

from planview.tui.review import ReviewApp
from planview.tui.review.keys import KeysHelp

PLAN = "# Plan\n\n## Steps\n\n- [ ] one\n- [ ] two\n"


def _app(tmp_path: Path) -> ReviewApp:
    path = tmp_path / "plan.md"
    path.write_text(PLAN, encoding="utf-8")
    return ReviewApp(path, home=tmp_path / "home", watch=False)


async def test_keys_help_scrolls_when_the_terminal_is_too_small(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysHelp)
        scroller = app.screen.query_one(VerticalScroll)
        assert scroller.max_scroll_y > 0  # the list is taller than the modal: it must scroll
        await pilot.press("down")
        await pilot.pause()
        assert isinstance(app.screen, KeysHelp)  # a scroll key does not close the list
        assert scroller.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroller.scroll_y == scroller.max_scroll_y
        await pilot.press("x")
        await pilot.pause()
        assert not isinstance(app.screen, KeysHelp)
        assert app.return_value is None


async def test_keys_help_any_key_closes_when_it_fits(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysHelp)
        await pilot.press("down")
        await pilot.pause()
        assert not isinstance(app.screen, KeysHelp)
