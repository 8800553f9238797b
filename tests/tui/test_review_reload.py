"""Live reload of the plan under review: position kept, markers updated, vanished files, real watcher."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from planview.plan.decision import Keep
from planview.plan.reviews import ReviewBaselines
from planview.tui.review.app import ReviewApp
from planview.tui.review.screen import ReviewScreen


def make_plan(tweak: dict[int, str] | None = None, extra_first: int = 0) -> str:
    tweak = tweak or {}
    parts = ["# Plan\n\nIntro.\n"]
    for i in range(1, 7):
        count = 20 + (extra_first if i == 1 else 0)
        parts.append(
            f"## Section {i}\n\n"
            + "\n".join(f"- item {i}.{j}{tweak.get(i, '')}" for j in range(count))
            + "\n"
        )
    return "\n".join(parts)


def atomic_save(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def top_text(screen: ReviewScreen) -> str:
    return screen.body.line_text(screen.body.top_line).strip()


async def test_reload_keeps_the_reading_position_by_section_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(make_plan(), encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        await pilot.press("n", "n", "n")
        while screen.body.section_at(screen.body.top_line) < 3:  # n shows section 3 (maybe not on top)
            await pilot.press("j")
        await pilot.press("j", "j", "j")
        assert screen.current_section_index == 3
        before = top_text(screen)
        # Section 1 grows by 15 lines above the reader, section 2 changes.
        atomic_save(path, make_plan(tweak={2: " edited"}, extra_first=15))
        renders = screen.body.renderer.renders
        assert screen.reload_from_disk()
        await pilot.pause()
        assert screen.current_section_index == 3
        assert top_text(screen) == before
        assert screen.body.renderer.renders - renders == 2  # only the changed sections re-rendered
        assert screen.body.changed == frozenset({1, 2})
        assert screen.summary_text == "2 of 7 sections changed since your last review"
        assert screen.reload_from_disk() is False  # nothing new on disk
    # What the reload showed is the baseline for the next review.
    assert ReviewBaselines(tmp_path / "home").load(path) == make_plan(tweak={2: " edited"}, extra_first=15)


async def test_vanished_file_shows_a_notice_and_disables_approve(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(make_plan(), encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        path.unlink()
        assert screen.reload_from_disk()
        await pilot.pause()
        assert screen.vanished and not screen.approve_enabled
        assert "gone" in screen.notice_text and screen.query_one("#notice").display
        assert "a approve" not in screen.hints_text
        assert top_text(screen) == "Plan"  # the last text stays readable
        await pilot.press("a", "enter")
        await pilot.pause()
        assert app.return_value is None
        path.write_text(make_plan(), encoding="utf-8")  # it comes back
        assert screen.reload_from_disk()
        assert not screen.vanished and screen.approve_enabled and screen.notice_text == ""
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_value == Keep()


async def test_missing_file_at_open(tmp_path: Path) -> None:
    app = ReviewApp(tmp_path / "nope.md", home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.vanished and not screen.approve_enabled
        assert screen.body.render_line(0).text.strip() == "The plan file does not exist"


async def test_unreadable_file_disables_approve(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_bytes(b"# Plan\n\n\xff\xfe broken\n")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert screen.unreadable and not screen.approve_enabled
        assert "UTF-8" in screen.notice_text


async def poll(condition, limit: float = 10.0) -> bool:
    waited = 0.0
    while not condition() and waited < limit:
        await asyncio.sleep(0.05)
        waited += 0.05
    return condition()


async def test_real_watcher_reloads_after_an_atomic_save(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(make_plan(), encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=True)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        updated = make_plan(tweak={4: " saved"})
        for _attempt in range(8):  # the watcher thread may start late on a busy machine: save again
            atomic_save(path, updated)
            if await poll(lambda: screen.text == updated, limit=2.5):
                break
        assert screen.text == updated, "the watcher never reloaded the plan"
        assert 4 in screen.body.changed
        path.unlink()
        assert await poll(lambda: screen.vanished), "the watcher never saw the file vanish"
