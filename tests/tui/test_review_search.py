"""`/`: incremental, smart-case search over the drawn plan; Enter / ↓ next, ↑ previous, Esc leaves."""

from __future__ import annotations

from pathlib import Path

from textual import events

from planview.tui.review.app import ReviewApp
from planview.tui.review.search import could_match, exact_case, find

WORD = "zanzibar"


def big_plan(lines: int = 10_000, every: int = 1_700) -> tuple[str, list[int]]:
    """A plan of about `lines` lines with WORD on every `every`-th item (and once in bold)."""
    parts, hits, n = ["# Big plan", "", "Intro."], [], 0
    section = 0
    while len(parts) < lines:
        section += 1
        parts += ["", f"## Part {section}", ""]
        for _ in range(40):
            n += 1
            if n % every == 0:
                parts.append(f"- step {n} goes to **Zanzibar** and back")
                hits.append(n)
            else:
                parts.append(f"- step {n} stays home")
    return "\n".join(parts) + "\n", hits


def test_smart_case_and_markup() -> None:
    assert not exact_case("zanzibar") and exact_case("Zanzibar")
    assert find("to Zanzibar and zanzibar", "zanzibar") == [(3, 11), (16, 24)]
    assert find("to Zanzibar and zanzibar", "Zanzibar") == [(3, 11)]
    assert find("日本 zanzibar", "zanzibar") == [(5, 13)]  # cells, not characters
    assert could_match("goes to **Zanzibar** and", "zanzibar and")  # the drawn text has no markup
    assert not could_match("goes home", "zanzibar")


def _keys(app: ReviewApp, text: str) -> None:
    for char in text:
        app.post_message(events.Key(char, char))


async def _settle(pilot, app: ReviewApp, until) -> None:
    for _ in range(300):
        if until():
            return
        await pilot.pause(0.02)


async def test_slash_finds_a_word_in_a_10k_line_plan_and_jumps_to_each_match(tmp_path: Path) -> None:
    text, hits = big_plan()
    assert len(text.splitlines()) >= 10_000 and len(hits) >= 5
    path = tmp_path / "2026-01-14-1030-big.md"
    path.write_text(text, encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        app.post_message(events.Key("slash", "/"))
        _keys(app, WORD)  # typed at once after `/`: all of it is the query
        await _settle(pilot, app, lambda: screen._search is not None and screen._search.query == WORD)
        assert screen.searching and screen._search_bar.value == WORD
        assert screen.hints_text.startswith("Esc leave search")
        visited = []
        for i, step in enumerate(hits):
            match = screen._search.current
            assert match is not None, i
            line = body.line_text(match.line)
            assert f"step {step} " in line and line[match.start : match.end].lower() == WORD, (i, line)
            assert body.top_line <= match.line < body.top_line + body.viewport_height  # on screen
            assert screen.current_section_index == match.section
            assert screen.notice_text.startswith(f"Match {i + 1} of ")
            # the match is drawn highlighted
            row = body.render_line(match.line - body.top_line)
            assert any(seg.style is not None and seg.style.bgcolor is not None for seg in row), i
            visited.append(step)
            await pilot.press("enter")
        assert visited == hits
        assert screen._search.current.line == screen._search.step(0, 0, 1, inclusive=True)[0].line  # round
        assert "from the other end" in screen.notice_text
        await pilot.press("up")
        assert f"step {hits[-1]} " in body.line_text(screen._search.current.line)
        await pilot.press("escape")
        assert not screen.searching and body.marks is None
        assert screen.hints_text.startswith("Esc keep planning") or screen.hints_text.startswith("Esc keep")
        assert app.return_value is None  # Esc left the search, not the review


async def test_a_capital_makes_the_search_exact_and_no_match_is_said(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\n## Steps\n\n- go to zanzibar\n- go to Zanzibar\n", encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        await pilot.press("slash", *"Zanz")
        assert screen.notice_text == "Match 1 of 1 for 'Zanz'."
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"zanz")
        assert screen.notice_text == "Match 1 of 2 for 'zanz'."
        await pilot.press("q")
        assert screen.notice_text == "No match for 'zanzq'."
        assert screen.editing is False and app.return_value is None  # letters never acted as review keys
