"""The section cursor: n/p reach every section at every size, the scroll row names the cursor's
section, the reader's own scrolling moves it (one way only), ]/[ jump between changed sections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual import events

from planview.plan.document import parse_plan
from planview.plan.reviews import ReviewBaselines
from planview.tui.review.app import ReviewApp
from planview.tui.review.render import clean_text
from planview.tui.review.screen import ReviewScreen
from tests.conftest import REPO, corpus_plans

SIZES = ((40, 20), (80, 24), (120, 36), (200, 50))


def demo_plan() -> str:
    """The plan `planview demo`'s scripted agent writes (its first write_plan)."""
    for line in (REPO / "planview" / "demo" / "script.jsonl").read_text(encoding="utf-8").splitlines():
        for call in json.loads(line).get("tool_calls", []):
            if call["name"] == "write_plan":
                return call["arguments"]["content"]
    raise AssertionError("the demo script writes no plan")


def label(screen: ReviewScreen, index: int) -> str:
    title = screen.document.sections[index].title
    return clean_text(title) if title else "Preamble"


async def visit_all(screen: ReviewScreen, pilot, *, size: tuple[int, int]) -> None:
    """Press n from the top until the last section: each press lands on the next section, its
    heading on screen, the scroll row naming it; one more press says it was the last."""
    body = screen.body
    assert screen.current_section_index == 0
    i = 0
    while True:
        await pilot.press("n")
        if screen.notice_text == "This is the last section.":
            break
        i += 1
        assert screen.current_section_index == i, (size, i)
        start, end = body.section_line_range(i)
        top, height = body.top_line, body.viewport_height
        assert top <= start < top + height, (size, i, "the heading is on screen")
        if end - start <= height:
            assert end <= top + height or top == body.content_end, (size, i, "a short section is whole")
        if body.overflowing and len(screen.document.sections) > 1:
            row = screen.scroll_row_text
            shown = row.split("  ")[0]
            assert shown.startswith("§ ") and label(screen, i).startswith(
                shown[2:].split(" · ")[0].rstrip("…")
            ), (
                size,
                i,
                row,
            )
    count = len(screen.document.sections)  # (a long plan opens with its first sections parsed)
    assert i == count - 1 and screen.current_section_index == count - 1, (size, i, count)
    await pilot.press("G")  # any move clears the remark (G keeps the cursor on the last section)
    assert screen.notice_text == "" and screen.current_section_index == count - 1


def app_for(tmp_path: Path, text: str, name: str = "2026-01-14-1030-plan.md") -> ReviewApp:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return ReviewApp(path, home=tmp_path / "home", watch=False)


@pytest.mark.parametrize("size", SIZES)
async def test_n_visits_every_section_of_the_demo_plan(tmp_path: Path, size: tuple[int, int]) -> None:
    text = demo_plan()
    assert len(parse_plan(text).sections) >= 8  # title + Goal … Out of scope
    app = app_for(tmp_path, text)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await visit_all(app.review, pilot, size=size)
        for i in range(len(app.review.document.sections) - 2, -1, -1):  # and p back to the top
            await pilot.press("p")
            assert app.review.current_section_index == i
        await pilot.press("p")
        assert app.review.notice_text == "This is the first section."


@pytest.mark.parametrize("size", [SIZES[0], SIZES[-1]])
async def test_n_visits_every_section_of_the_long_sample_plan(tmp_path: Path, size: tuple[int, int]) -> None:
    text = (REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md").read_text(encoding="utf-8")
    app = app_for(tmp_path, text)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await visit_all(app.review, pilot, size=size)


def _longest_corpus_plans(count: int = 2) -> list[Path]:
    plans = corpus_plans()
    return sorted(plans, key=lambda p: -len(p.read_text(encoding="utf-8").splitlines()))[:count]


@pytest.mark.parametrize("size", SIZES)
async def test_n_visits_every_section_of_real_long_plans(
    corpus, tmp_path: Path, size: tuple[int, int]
) -> None:
    for plan in _longest_corpus_plans():
        app = app_for(tmp_path, plan.read_text(encoding="utf-8"), f"2026-01-14-1030-{plan.name}")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await visit_all(app.review, pilot, size=(size, plan.name))


async def test_reader_scrolling_moves_the_cursor_one_way_only(tmp_path: Path) -> None:
    # Context, Goal, Context: the old scroll row flipped while scrolling down line by line.
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        seen = [screen.current_section_index]
        while body.top_line < body.content_end:
            await pilot.press("j")
            index = screen.current_section_index
            assert index == body.section_at(body.top_line)  # the section on the top row
            assert index >= seen[-1], seen + [index]  # never back while scrolling down
            seen.append(index)
            assert screen.scroll_row_text.startswith(f"§ {label(screen, index)}"[:20])
        while body.top_line > 0:
            await pilot.press("k")
            assert screen.current_section_index <= seen[-1]
            seen.append(screen.current_section_index)
        await pilot.press("G")
        assert screen.current_section_index == len(screen.document.sections) - 1
        await pilot.press("g")
        assert screen.current_section_index == 0


async def test_n_after_scrolling_goes_on_from_the_top_rows_section(tmp_path: Path) -> None:
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        await pilot.press("space")
        at_top = body.section_at(body.top_line)
        assert screen.current_section_index == at_top
        await pilot.press("n")
        assert screen.current_section_index == at_top + 1


async def test_the_mouse_wheel_moves_the_cursor_too(tmp_path: Path) -> None:
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        for _ in range(8):
            body.post_message(events.MouseScrollDown(body, 5, 5, 0, 1, 0, False, False, False))
            await pilot.pause()
        assert body.top_line > 0
        assert screen.current_section_index == body.section_at(body.top_line)


async def test_the_cursor_section_has_the_wide_gutter_bar(tmp_path: Path) -> None:
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        body = app.review.body
        await pilot.press("n", "n")
        start, _end = body.section_line_range(2)
        row = body.render_line(start - body.top_line)
        assert row.text.startswith("▌"), row.text
        other = body.section_line_range(1)[0] - body.top_line
        if other >= 0:
            assert not body.render_line(other).text.startswith("▌")


def _changed(text: str, sections: tuple[int, ...]) -> str:
    doc = parse_plan(text)
    lines = text.split("\n")
    for index in sections:
        lines[doc.sections[index].start] += " (edited)"  # the line after the heading
    return "\n".join(lines)


async def test_re_review_opens_at_the_first_changed_section_and_brackets_jump(tmp_path: Path) -> None:
    text = demo_plan()
    path = tmp_path / "2026-01-14-1030-plan.md"
    home = tmp_path / "home"
    ReviewBaselines(home).save(path.resolve(), text)
    count = len(parse_plan(text).sections)
    changed = (3, count - 1)
    path.write_text(_changed(text, changed), encoding="utf-8")
    app = ReviewApp(path, home=home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.body.changed == frozenset(changed)
        assert screen.current_section_index == 3  # opened at the first changed section
        assert screen.scroll_row_text.startswith(f"§ {label(screen, 3)} · changed")
        assert "]/[" in screen.hints_text
        await pilot.press("right_square_bracket")
        assert screen.current_section_index == count - 1
        await pilot.press("right_square_bracket")
        assert screen.notice_text == "No changed section after this one."
        await pilot.press("left_square_bracket")
        assert screen.current_section_index == 3
        await pilot.press("left_square_bracket")
        assert screen.notice_text == "No changed section before this one."


async def test_first_review_says_there_is_nothing_changed_for_brackets(tmp_path: Path) -> None:
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "changed" not in app.review.hints_text
        await pilot.press("right_square_bracket")
        assert app.review.notice_text == "No section changed since your last review."
        assert app.review.current_section_index == 0


async def test_a_change_on_disk_while_open_is_said(tmp_path: Path) -> None:
    text = demo_plan()
    app = app_for(tmp_path, text)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        screen.plan_path.write_text(_changed(text, (2,)), encoding="utf-8")
        assert screen.reload_from_disk()
        await pilot.pause()
        assert screen.notice_text.startswith(f"The plan changed on disk ({label(screen, 2)})")
        assert screen.body.changed == frozenset({2})


async def test_sections_seen_counts_what_was_on_screen(tmp_path: Path) -> None:
    app = app_for(tmp_path, demo_plan())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        seen, total = screen.sections_seen
        assert 0 < seen < total
        await pilot.press("G")
        await pilot.pause()
        assert screen.sections_seen[0] < total  # the middle was skipped
        await pilot.press("g")
        while screen.body.top_line < screen.body.content_end:
            await pilot.press("space")
        assert screen.sections_seen == (total, total)
