"""Layout of the review screen (rows, no snapshots) and the progressive layout of long plans."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.plan.reviews import ReviewBaselines
from planview.tui.review import body as body_module
from planview.tui.review.app import ReviewApp


def long_plan(sections: int = 60, items: int = 25) -> str:
    parts = ["# Long plan\n"]
    for i in range(1, sections):
        parts.append(
            f"## Part {i}\n\n" + "\n".join(f"- step {i}.{j} with some words" for j in range(items)) + "\n"
        )
    return "\n".join(parts)


async def test_rows_are_stacked_title_summary_body_scroll_row_hints(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(long_plan(8), encoding="utf-8")
    ReviewBaselines(tmp_path / "home").save(path, long_plan(8).replace("step 3.1 ", "step 3.1 old "))
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        y = {
            name: screen.query_one(f"#{name}").region.y
            for name in ("title", "summary", "body", "scrollrow", "hints")
        }
        assert y["title"] == 0 and y["summary"] == 1 and y["body"] == 2
        assert y["hints"] == 29 and y["scrollrow"] == 28
        assert screen.query_one("#body").region.height == 26
        await pilot.press("r")
        await pilot.pause()
        editor = screen.query_one("#editor").region
        scroll_row = screen.query_one("#scrollrow").region
        assert scroll_row.y < editor.y < screen.query_one("#hints").region.y  # the gauge stays while editing
        assert screen.query_one("#body").region.height == 26 - editor.height


@pytest.fixture
def slow_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lay out the least possible at first and one section per frame: the progressive path, always."""
    monkeypatch.setattr(body_module, "FIRST_BUDGET", 0.0)
    monkeypatch.setattr(body_module, "CHUNK", 0.0)


async def test_progressive_layout_paints_first_and_finishes_later(tmp_path: Path, slow_layout: None) -> None:
    path = tmp_path / "plan.md"
    path.write_text(long_plan(), encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        body = None
        while body is None or not body.total_lines:
            await pilot.pause()
            body = app.review.body
        assert body.line_text(0).strip() == "Long plan"
        for _ in range(500):
            if body.layout_complete:
                break
            await pilot.pause()
        assert body.layout_complete
        assert len(body.section_starts) == 60
        assert app.review.gauge_text.endswith(f"of {body.total_lines:,} (0%)")


async def test_jumps_past_the_laid_out_part_lay_out_what_they_need(tmp_path: Path, slow_layout: None) -> None:
    path = tmp_path / "plan.md"
    path.write_text(long_plan(), encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        screen = app.review
        body = screen.body
        body.go_bottom()  # G lays out everything first, so the end really is the end
        assert body.layout_complete
        assert screen.gauge_text.endswith("(100%)")
        assert body.line_text(body.total_lines - 1).strip() == "• step 59.24 with some words"
    app = ReviewApp(path, home=tmp_path / "home2", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        screen = app.review
        for i in range(1, 16):
            await pilot.press("n")
            assert body_text(screen) == f"Part {i}"


def body_text(screen) -> str:
    return screen.body.line_text(screen.body.top_line).strip()


async def test_biggest_corpus_plans_open_and_navigate(tmp_path: Path, corpus: list[Path]) -> None:
    biggest = sorted(corpus, key=lambda p: p.stat().st_size)[-2:]
    for path in biggest:
        app = ReviewApp(path, home=tmp_path / "home", watch=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = app.review
            await pilot.press("n", "n", "G", "p", "g")
            assert screen.body.top_line == 0
            assert screen.gauge_text.endswith("(0%)")
            assert screen.approve_enabled
