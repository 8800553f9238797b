"""The outline panel: shown at 120 columns and wider, `o` toggles it at any width; it names the
sections with the cursor's highlighted, the changed ones marked and the Steps progress."""

from __future__ import annotations

from pathlib import Path

from planview.plan.document import parse_plan
from planview.plan.reviews import ReviewBaselines
from planview.tui.review.app import ReviewApp
from planview.tui.review.outline import Outline, progress
from tests.tui.test_review_cursor import demo_plan


def _app(tmp_path: Path, text: str | None = None, home: Path | None = None) -> ReviewApp:
    path = tmp_path / "2026-01-14-1030-plan.md"
    path.write_text(text or demo_plan(), encoding="utf-8")
    return ReviewApp(path, home=home or tmp_path / "home", watch=False)


def _lines(app: ReviewApp) -> list[str]:
    outline = app.review.query_one("#outline", Outline)
    return [strip.text.rstrip() for strip in outline.render_lines(outline.region.reset_offset)]


def test_progress_counts_task_items_outside_fences() -> None:
    doc = parse_plan("# P\n\n## Steps\n\n- [x] one\n- [ ] two\n  - [X] nested\n```\n- [ ] code\n```\n")
    assert progress(doc.sections[1]) == (2, 3)


async def test_the_outline_shows_at_160_columns_with_cursor_changes_and_progress(tmp_path: Path) -> None:
    text = demo_plan()
    home = tmp_path / "home"
    path = tmp_path / "2026-01-14-1030-plan.md"
    doc = parse_plan(text)
    verification = next(s.index for s in doc.sections if s.title == "Verification")
    lines = text.split("\n")
    lines[doc.sections[verification].start] += " (edited)"
    ReviewBaselines(home).save(path.resolve(), text)
    app = _app(tmp_path, "\n".join(lines), home)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        screen = app.review
        outline = screen.query_one("#outline", Outline)
        assert outline.display and outline.size.width > 0
        shown = _lines(app)
        titles = [s.title or "Preamble" for s in screen.document.sections]
        for title in titles:
            assert any(title[:20] in line for line in shown), (title, shown)
        steps = next(line for line in shown if "Steps" in line)
        done, total = progress(next(s for s in screen.document.sections if s.title == "Steps"))
        assert total and steps.endswith(f"{done}/{total}")
        assert next(line for line in shown if "Verification" in line).strip().startswith("●")
        assert not next(line for line in shown if "Risks" in line).strip().startswith("●")
        # The cursor (opened at the changed Verification) is drawn highlighted; n/p move it.
        assert screen.current_section_index == verification
        row = outline.render_lines(outline.region.reset_offset)[verification]
        assert any(seg.style is not None and seg.style.bgcolor is not None for seg in row)
        await pilot.press("g")
        row = outline.render_lines(outline.region.reset_offset)[0]
        assert any(seg.style is not None and seg.style.bgcolor is not None for seg in row)
        await pilot.press("o")
        assert not outline.display and "outline" in screen.hints_text
        await pilot.press("o")
        assert outline.display


async def test_o_toggles_the_outline_at_80_columns(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        outline = app.review.query_one("#outline", Outline)
        assert not outline.display
        width = app.review.body.size.width
        await pilot.press("o")
        await pilot.pause()
        assert outline.display and app.review.body.size.width < width
        await pilot.click("#outline", offset=(3, 2))  # a click on a section moves the cursor there
        await pilot.pause()
        assert app.review.current_section_index == 2
