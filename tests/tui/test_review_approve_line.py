"""Approving knowingly: `a` opens a line saying how much of the plan was shown and takes an optional
note; Enter approves (the note goes with the decision, into the ledger and to the agent), Esc goes back."""

from __future__ import annotations

from pathlib import Path

from textual import events

from planview.approval.approvals import Approvals
from planview.approval.flow import record_decision
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved
from planview.tui.review.app import ReviewApp
from tests.tui.test_review_cursor import demo_plan


def _app(tmp_path: Path) -> tuple[ReviewApp, Path]:
    path = tmp_path / "2026-01-14-1030-plan.md"
    path.write_text(demo_plan(), encoding="utf-8")
    return ReviewApp(path, home=tmp_path / "home", watch=False), path


async def test_a_says_what_was_seen_esc_goes_back_enter_approves_with_the_note(tmp_path: Path) -> None:
    app, path = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        seen, total = screen.sections_seen
        assert 0 < seen < total
        await pilot.press("a")
        assert screen.confirming and app.return_value is None
        assert f"You have seen {seen} of {total} sections (not yet: " in screen.notice_text
        assert screen.hints_text.startswith("Esc back") and "Enter approve" in screen.hints_text
        await pilot.press("escape")
        assert not screen.confirming and app.return_value is None and screen.notice_text == ""
        while screen.body.top_line < screen.body.content_end:
            await pilot.press("space")
        await pilot.press("a")
        assert f"You have seen all {total} sections." in screen.notice_text
        # The note typed at once after `a` (and its Enter): none of it acts on the review.
        for char in "looks good, watch the flag":
            app.post_message(events.Key({" ": "space", ",": "comma"}.get(char, char), char))
        app.post_message(events.Key("enter", None))
        for _ in range(200):
            if app.return_value is not None:
                break
            await pilot.pause(0.01)
    assert app.return_value == Approved(
        path.resolve(), canonical_sha256(demo_plan()), note="looks good, watch the flag"
    )


async def test_the_footer_says_how_much_was_seen(tmp_path: Path) -> None:
    app, _path = _app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        seen, total = screen.sections_seen
        assert screen.hints_text.endswith(f"seen {seen}/{total}")
        await pilot.press("G")
        assert screen.hints_text.endswith(f"seen {screen.sections_seen[0]}/{total}")
    app, _path = _app(tmp_path)
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        assert app.review.hints_text.startswith("Esc keep") and len(app.review.hints_text) <= 38


def test_the_note_goes_into_the_ledger_event_through_the_one_flow(project: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    plan = plans / "2026-01-14-1030-plan.md"
    plan.write_text(demo_plan(), encoding="utf-8")
    approvals = Approvals(project / ".planview", project)
    decision = Approved(plan, canonical_sha256(demo_plan()), note="watch the flag")
    outcome = record_decision(approvals, plan, decision, channel="review screen")
    assert outcome.record is not None and outcome.record.note == "watch the flag"
    assert approvals.current(plan).note == "watch the flag"  # read back from the ledger


async def test_a_then_enter_typed_at_once_approves(tmp_path: Path) -> None:
    """`a` and Enter in one burst (as tmux send-keys or a fast typist sends them): the Enter reaches
    the line that `a` opens; it used to be posted to the line as a plain key, which an Input's
    submit binding never sees, so the review waited for ever."""
    app, path = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.post_message(events.Key("a", "a"))
        app.post_message(events.Key("enter", None))
        for _ in range(300):
            if app.return_value is not None:
                break
            await pilot.pause(0.01)
    assert app.return_value == Approved(path.resolve(), canonical_sha256(demo_plan()))
