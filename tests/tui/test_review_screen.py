"""The review screen driven with Pilot: navigation, gauge, markers, hints, refine, decisions."""

from __future__ import annotations

from pathlib import Path

from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep, Refine
from planview.plan.reviews import ReviewBaselines
from planview.tui.review.app import ReviewApp
from planview.tui.review.screen import ReviewScreen

SECTIONS = 7


def make_plan(sections: int = SECTIONS, items: int = 20, tweak: dict[int, str] | None = None) -> str:
    """`# Plan` then `## Section i` with `items` one-line list items each (tight lists)."""
    tweak = tweak or {}
    parts = ["# Migration plan\n\nIntro paragraph.\n"]
    for i in range(1, sections):
        body = "\n".join(f"- item {i}.{j}{tweak.get(i, '')}" for j in range(items))
        parts.append(f"## Section {i}\n\n{body}\n")
    return "\n".join(parts)


def write(tmp_path: Path, text: str, name: str = "2026-01-14-1030-migration.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def review_app(path: Path, tmp_path: Path) -> ReviewApp:
    return ReviewApp(path, home=tmp_path / "home", watch=False)


def top_text(screen: ReviewScreen) -> str:
    return screen.body.line_text(screen.body.top_line).strip()


# n/p and the scroll row's section: tests/tui/test_review_cursor.py (a cursor, not "heading to the top").


async def test_a_plan_that_fits_has_no_scroll_row(tmp_path: Path) -> None:
    # 'lines 1–32 of 33 (0%)' used to show for a plan whose 33rd line was the trailing gap.
    app = review_app(write(tmp_path, make_plan(sections=2, items=10)), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        body = app.review.body
        for height in range(10, 40):
            await pilot.resize_terminal(80, height)
            await pilot.pause()
            assert body.line_text(body.total_lines - 1).strip() == "- item 1.9".replace("-", "•")
            assert body.overflowing == (body.total_lines > body.viewport_height)
            assert app.review.query_one("#scrollrow").display == body.overflowing
            if not body.overflowing:
                assert app.review.scroll_row_text == ""


async def test_gauge_at_top_middle_and_end(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        body = screen.body
        total, height = body.total_lines, body.viewport_height
        assert total > height
        assert screen.gauge_text == f"lines 1–{height} of {total} (0%)"
        await pilot.press("space")
        assert body.top_line == height - 1  # a page with one line of overlap
        assert screen.gauge_text.startswith(f"lines {height}–")
        assert not screen.gauge_text.endswith("(0%)") and not screen.gauge_text.endswith("(100%)")
        await pilot.press("G")
        assert screen.gauge_text == f"lines {total - height + 1}–{total} of {total} (100%)"
        await pilot.press("g")
        assert body.top_line == 0
        await pilot.press("ctrl+d")  # (d is the word diff)
        assert body.top_line == height // 2
        await pilot.press("u", "j", "j", "k")
        assert body.top_line == 1
        await pilot.press("pagedown", "b")
        assert body.top_line == 1
        await pilot.press("down", "up", "down")
        assert body.top_line == 2


async def test_scroll_row_only_when_the_plan_overflows(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, "# Short\n\nOne line.\n"), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert not screen.body.overflowing
        assert screen.scroll_row_text == ""
        assert not screen.query_one("#scrollrow").display
        assert screen.title_text == "Short"


async def test_title_falls_back_to_the_file_name_without_its_stamp(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, "## Only a sub heading\n\ntext\n"), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert app.review.title_text == "migration"


async def test_a_plan_whose_only_change_is_ticks_shows_no_markers(tmp_path: Path) -> None:
    plan = "# Ship\n\n## Goal\n\nShip it.\n\n## Steps\n\n- [ ] one\n- [ ] two\n"
    path = write(tmp_path, plan.replace("- [ ] one", "- [x] one").replace("- [ ] two", "- [~] two"))
    ReviewBaselines(tmp_path / "home").save(path, plan)  # the last review saw no ticks
    app = review_app(path, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.body.changed == frozenset()
        assert not screen.query_one("#summary").display and "changed" not in screen.summary_text


async def test_changed_marker_and_summary_after_a_change_since_the_last_review(tmp_path: Path) -> None:
    path = write(tmp_path, make_plan())
    ReviewBaselines(tmp_path / "home").save(path, make_plan(tweak={2: " (old)", 5: " (old)"}))
    app = review_app(path, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.summary_text == f"2 of {SECTIONS} sections changed since your last review"
        assert screen.query_one("#summary").display
        assert screen.body.changed == frozenset({2, 5})
        # A re-review opens at the first changed section, the cursor's wide bar beside it.
        assert screen.scroll_row_text.startswith("§ Section 2 · changed")
        body = screen.body
        start = body.section_line_range(2)[0] - body.top_line
        assert body.render_line(start).text.startswith("▌")
        await pilot.press("n")
        assert "· changed" not in screen.scroll_row_text
        # Off the cursor, the changed section keeps its narrow mark; the unchanged one has none.
        assert body.render_line(body.section_line_range(2)[0] - body.top_line).text.startswith("▎")
        assert body.render_line(body.section_line_range(3)[0] - body.top_line).text.startswith("▌")
        await pilot.press("n", "n")
        assert screen.scroll_row_text.startswith("§ Section 5 · changed")
    # This review becomes the next one's baseline: reopening shows no markers.
    again = review_app(path, tmp_path)
    async with again.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert again.review.summary_text == ""
        assert again.review.body.changed == frozenset()


async def test_first_review_has_no_markers(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert app.review.summary_text == "" and not app.review.query_one("#summary").display


async def test_hints_are_whole_words_at_40_80_120(tmp_path: Path) -> None:
    path = write(tmp_path, make_plan())
    expected = {
        40: "Esc keep  a approve  r refine  ? keys",
        80: "Esc keep  a approve  r refine  n/p  w web  / search  ? keys",  # + "seen 2/7"
        120: "Esc keep planning   a approve & run   r refine   n/p section   w web   / search   o outline   ? keys",
    }
    for width, hints in expected.items():
        app = review_app(path, tmp_path)
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            shown, _, seen = app.review.hints_text.partition("   seen ")
            assert shown == hints and (width == 40) == (seen == "")  # "seen N/7" where there is room
            assert len(app.review.scroll_row_text) <= width - 2
            if width == 40:
                assert "lines" not in app.review.scroll_row_text  # the range went first
            else:
                assert "lines 1–" in app.review.scroll_row_text
            await pilot.press("r")
            assert app.review.hints_text.startswith("Esc back")
            assert app.review.hints_text.endswith("Ctrl+J newline")  # kept at 40 columns too


async def test_refine_flow_letters_are_text_enter_sends(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        await pilot.press("r")
        assert screen.editing and screen.editor.has_focus
        await pilot.press("enter")  # empty: nothing happens
        assert app.return_value is None and screen.editing
        await pilot.press("a", "n", "p", "r", "question_mark", "G")
        assert screen.editor.text == "anpr?G"
        assert app.return_value is None and app.screen is screen
        await pilot.press("ctrl+j", "x")
        assert screen.editor.text == "anpr?G\nx"
        await pilot.press("escape")  # back to the plan, draft kept, nothing decided
        assert not screen.editing and app.return_value is None and app.screen is screen
        assert screen.hints_text.startswith("Esc keep")
        await pilot.press("r")
        assert screen.editor.text == "anpr?G\nx"
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == Refine("anpr?G\nx")


async def test_escape_keeps_planning(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_value == Keep()


async def test_approve_pins_the_canonical_hash(tmp_path: Path) -> None:
    text = make_plan()
    path = write(tmp_path, text)
    app = review_app(path, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a", "enter")
        await pilot.pause()
    assert app.return_value == Approved(path.resolve(), canonical_sha256(text))


async def test_approve_after_a_change_on_disk_asks_once_more(tmp_path: Path) -> None:
    path = write(tmp_path, make_plan())
    app = review_app(path, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        changed = make_plan(tweak={3: " edited"})
        path.write_text(changed, encoding="utf-8")
        await pilot.press("a", "enter")
        await pilot.pause()
        assert app.return_value is None and app.screen is screen
        assert "changed on disk" in screen.notice_text and "Section 3" in screen.notice_text
        assert screen.text == changed  # the new version is what is on screen now
        assert 3 in screen.body.changed
        await pilot.press("a", "enter")
        await pilot.pause()
    assert app.return_value == Approved(path.resolve(), canonical_sha256(changed))


async def test_live_reload_then_approve_asks_once_more(tmp_path: Path) -> None:
    path = write(tmp_path, make_plan())
    app = review_app(path, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        path.write_text(make_plan(tweak={1: " new"}), encoding="utf-8")
        assert screen.reload_from_disk()
        await pilot.press("a", "enter")
        assert app.return_value is None and "press a again" in screen.notice_text
        await pilot.press("a", "enter")
        await pilot.pause()
    assert isinstance(app.return_value, Approved)


async def test_resize_keeps_the_top_source_line(tmp_path: Path) -> None:
    words = " ".join(f"w{i}" for i in range(60))
    text = "# Wide\n\n" + "\n\n".join(f"Para {k}: {words}" for k in range(40)) + "\n"
    app = review_app(write(tmp_path, text), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        await pilot.press("space", "space", "j", "j", "j")
        source = screen.body.top_source_line
        line = screen.body.top_line
        assert source is not None and source > 1
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        assert screen.body.top_source_line == source
        assert screen.body.top_line != line  # the lines really were re-laid out
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        assert screen.body.top_source_line == source


async def test_empty_plan_disables_approve(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, "\n  \n<!-- nothing yet -->\n"), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.empty and not screen.approve_enabled
        assert screen.body.render_line(0).text.strip() == "This plan is empty"
        assert "a approve" not in screen.hints_text
        await pilot.press("a", "enter")
        await pilot.pause()
        assert app.return_value is None and "empty" in screen.notice_text
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_value == Keep()


async def test_keys_help_opens_and_closes_without_deciding(tmp_path: Path) -> None:
    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is not screen
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and app.return_value is None


async def test_control_characters_never_reach_the_screen(tmp_path: Path) -> None:
    text = "# Evil \x1b]0;owned\x07plan\n\n- step \x1b[2J\x1b[31mred\x07\n- \x9b6n probe\n"
    app = review_app(write(tmp_path, text), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert "\x1b" not in screen.title_text and "\x07" not in screen.title_text
        for y in range(screen.body.viewport_height):
            row = screen.body.render_line(y).text
            assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in row), repr(row)


async def test_screen_resolves_inside_another_app(tmp_path: Path) -> None:
    """The session app pushes the screen and awaits its decision."""
    from textual.app import App

    path = write(tmp_path, make_plan())
    results: list = []

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(path, home=tmp_path / "home", watch=False), callback=results.append)

    host = Host()
    async with host.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await pilot.press("r", "m", "o", "r", "e", "enter")
        await pilot.pause()
        assert not isinstance(host.screen, ReviewScreen)
    assert results == [Refine("more")]


async def test_mouse_wheel_scrolls_the_body(tmp_path: Path) -> None:
    from textual import events

    app = review_app(write(tmp_path, make_plan()), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        # Pilot has no wheel helper; its private event poster is stable in the pinned textual.
        await pilot._post_mouse_events([events.MouseScrollDown], "#body", times=1)
        await pilot.pause()
        assert screen.body.top_line > 0
        assert not screen.gauge_text.endswith("(0%)")
        await pilot._post_mouse_events([events.MouseScrollUp], "#body", times=1)
        await pilot.pause()
        assert screen.body.top_line == 0


async def test_f_shows_and_folds_the_front_matter(tmp_path: Path) -> None:
    front = "---\nname: Big\ntodos:\n" + "".join(f"  - id: t{i}\n" for i in range(60)) + "---\n"
    app = review_app(write(tmp_path, front + make_plan(sections=3, items=5)), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert top_text(screen).startswith("⋯ front matter, 62 lines")
        assert screen.body.line_text(2).strip() == "Migration plan"  # the title is on the first screen
        await pilot.press("f")
        await pilot.pause()
        assert "- id: t0" in "\n".join(screen.body.line_text(i) for i in range(10))
        assert screen.body.total_lines > 62
        await pilot.press("f")
        await pilot.pause()
        assert top_text(screen).startswith("⋯ front matter")


async def test_prose_keeps_a_reading_measure_on_a_wide_terminal(tmp_path: Path) -> None:
    from planview.tui.review.body import READING_MEASURE

    words = " ".join(f"word{i}" for i in range(200))
    app = review_app(write(tmp_path, f"# Plan\n\n{words}\n\n## Steps\n\n- [ ] {words}\n"), tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        body = app.review.body
        widths = [len(body.line_text(i).rstrip()) for i in range(body.total_lines)]
        assert max(widths) <= READING_MEASURE < 190  # it ran to ~190 characters
        assert max(widths) > READING_MEASURE - 10  # and still uses the measure
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        assert max(len(body.line_text(i).rstrip()) for i in range(body.total_lines)) <= 60
