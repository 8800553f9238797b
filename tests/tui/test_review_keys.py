"""The `?` key list: readable on a small terminal (it scrolls), closed by any other key."""

from __future__ import annotations

import re
from pathlib import Path

from textual.containers import VerticalScroll

from planview.tui.review.app import ReviewApp
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


async def test_keys_help_has_a_title_a_close_hint_and_whole_descriptions_at_40(tmp_path: Path) -> None:
    from textual.geometry import Region
    from textual.widgets import Static

    from planview.tui.review.keys import KEYS

    for size, subtitle in (((40, 20), "↑↓ scroll · other keys close"), ((120, 40), "any key closes")):
        app = _app(tmp_path)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await pilot.pause()
            await pilot.pause()
            scroller = app.screen.query_one(VerticalScroll)
            assert scroller.border_title == "Review keys" and scroller.border_subtitle == subtitle
            static = app.screen.query_one("#keys", Static)
            lines = static.render_lines(Region(0, 0, static.outer_size.width, static.outer_size.height))
            shown = " ".join(" ".join(s.text.split()) for s in lines)
            assert "…" not in shown
            for _key, what in KEYS:  # every description whole (it was "overla…" at 40 columns)
                assert " ".join(what.split()) in shown, what


def test_every_bound_key_is_in_the_key_list() -> None:
    from planview.keymap import key_display
    from planview.tui.review.keys import KEYS
    from planview.tui.review.screen import ReviewScreen

    listed = {word for key, what in KEYS if what for word in key.split()}
    for binding in ReviewScreen.BINDINGS:
        for key in binding.key.split(","):
            shown = "G" if key == "shift+g" else key_display(key)
            assert shown in listed, (key, binding.action)


async def test_the_footer_names_the_browser_review_key(tmp_path: Path) -> None:
    # QA: `w` (review in the browser) was only in the `?` list, never in the footer.
    for width, hint in ((58, "w web"), (80, "w web"), (120, "w web")):
        app = _app(tmp_path)
        async with app.run_test(size=(width, 20)) as pilot:
            await pilot.pause()
            assert hint in re.split(r"\s{2,}", app.review.hints_text), (width, app.review.hints_text)
