"""`r` then a note typed at once: every key is the note's, even before the editor is drawn."""

from __future__ import annotations

from pathlib import Path

from textual import events

from planview.plan.decision import Refine
from planview.tui.review.app import ReviewApp
from tests.conftest import REPO

NOTE = "split step 3, and keep the old API for a release"


def _key(char: str) -> events.Key:
    names = {" ": "space", ",": "comma", "\n": "enter"}
    return events.Key(names.get(char, char), None if char == "\n" else char)


async def test_a_burst_after_r_is_the_note_exactly(tmp_path: Path) -> None:
    text = (REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md").read_text(encoding="utf-8")
    path = tmp_path / "2026-01-15-0900-billing.md"
    path.write_text(text + "\n" + "\n".join(f"- [ ] extra step {i}" for i in range(120)) + "\n")
    assert len(path.read_text().splitlines()) > 1700
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        top = app.review.body.top_line
        # All queued before the app handles the first: as a fast typist's keys arrive in one read.
        for event in [events.Key("r", "r"), *(_key(c) for c in NOTE), _key("\n")]:
            app.post_message(event)
        for _ in range(500):
            if app.return_value is not None:
                break
            await pilot.pause(0.01)
        assert app.review.body.top_line == top  # "j", "k", "n", "p" in the note never moved the view
    assert app.return_value == Refine(NOTE)


async def test_keys_after_r_while_the_editor_mounts_are_buffered_in_order(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\n## Steps\n\n- [ ] one\n", encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        screen._key_buffer = []  # as between `r` and the editor taking focus
        for char in "ajn":
            event = _key(char)
            screen.on_key(event)
            assert event._stop_propagation and event._no_default_action
        assert [e.character for e in screen._key_buffer] == ["a", "j", "n"]
        await screen.action_refine()
        await pilot.pause()
        assert screen.editor.text == "ajn" and app.return_value is None
