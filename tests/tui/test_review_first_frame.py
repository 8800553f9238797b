"""A long plan's first screen does not wait for the rest, and nothing the reader does sees the difference.

A plan over PREFIX_LINES lines opens from its first lines; the whole-document parse, hash and diff run
in a thread after the first frame and the layout continues between frames. These tests slow the thread
down (or never start it) and check that key bursts, approve, a reload and closing the screen behave
exactly as on a fully loaded plan.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep
from planview.plan.reviews import ReviewBaselines
from planview.tui.review import body as body_module
from planview.tui.review import first_frame, plan_screen
from planview.tui.review.app import ReviewApp
from planview.tui.review.render import SectionRenderer

SECTIONS = 150


def long_plan(sections: int = SECTIONS, items: int = 5, tag: str = "") -> str:
    parts = ["# Long plan\n\nThe first paragraph.\n"]
    for i in range(1, sections):
        items_text = "\n".join(f"- step {i}.{j}{tag} with a few words" for j in range(items))
        parts.append(f"## Part {i}\n\n{items_text}\n")
    return "\n".join(parts)


@pytest.fixture
def slow_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first layout does the least it can; later slices lay out one section each."""
    monkeypatch.setattr(body_module, "FIRST_BUDGET", 0.0)
    monkeypatch.setattr(body_module, "CHUNK", 0.0)


@pytest.fixture
def slow_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-document work takes 0.4 s: keys pressed meanwhile must wait for it, not guess."""
    load = plan_screen.PlanScreen._load

    def slow(self, text: str):
        time.sleep(0.4)
        return load(self, text)

    monkeypatch.setattr(plan_screen.PlanScreen, "_load", slow)


@pytest.fixture
def no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loading thread never starts: whatever needs the whole document does the work itself."""
    monkeypatch.setattr(plan_screen.PlanScreen, "_start_loading", lambda self: None)


def plan_file(tmp_path: Path, text: str | None = None) -> Path:
    path = tmp_path / "2026-01-14-1030-long.md"
    path.write_text(long_plan() if text is None else text, encoding="utf-8")
    return path


def top_text(app: ReviewApp) -> str:
    body = app.review.body
    return body.line_text(body.top_line).strip()


async def settle(pilot, app: ReviewApp) -> None:
    app.review._finish_loading()  # (the thread may never start: `no_thread`)
    for _ in range(2000):
        if app.review._loading is None and app.review.body.layout_complete:
            return
        await pilot.pause(0.01)
    raise AssertionError("the plan never finished loading")


async def test_a_long_plan_opens_partial_then_completes_exactly(tmp_path: Path, slow_layout: None) -> None:
    path = plan_file(tmp_path)
    assert long_plan().count("\n") > plan_screen.PREFIX_LINES
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        screen, body = app.review, app.review.body
        assert top_text(app) == "Long plan" and screen.title_text == "Long plan"
        assert not body.layout_complete and "laying out…" in screen.gauge_text
        await settle(pilot, app)
        assert screen.gauge_text.endswith(f"of {body.total_lines:,} (0%)")
        progressive = [body.line_text(i) for i in range(body.total_lines)]
        assert len(body.section_starts) == SECTIONS and screen.document.sections[-1].title == "Part 149"
    # The same plan laid out in one go (no prefix): every line is the same.
    plan_screen.PREFIX_LINES, saved = 10**9, plan_screen.PREFIX_LINES
    try:
        app = ReviewApp(path, home=tmp_path / "home2", watch=False)
        async with app.run_test(size=(80, 30)) as pilot:
            await settle(pilot, app)
            whole = [app.review.body.line_text(i) for i in range(app.review.body.total_lines)]
    finally:
        plan_screen.PREFIX_LINES = saved
    assert progressive == whole


async def burst(pilot, app: ReviewApp, key: str, count: int) -> list[bool]:
    """Queue `count` presses of `key` at once, as a held key does (Pilot would wait for idle after
    each); returns, per key handled, whether the layout was still incomplete when it arrived."""
    body = app.review.body
    incomplete: list[bool] = []
    for name in ("move_lines", "section_line_range"):
        method = getattr(body, name)

        def spy(*args, _method=method):
            incomplete.append(not body.layout_complete)
            return _method(*args)

        setattr(body, name, spy)
    for _ in range(count):
        app.post_message(events.Key(key, key))
    for _ in range(3000):
        if len(incomplete) >= count:
            break
        await pilot.pause(0.01)
    for name in ("move_lines", "section_line_range"):
        delattr(body, name)
    assert len(incomplete) == count
    return incomplete


@pytest.mark.parametrize("loading", ["slow_load", "no_thread"])
async def test_key_bursts_land_exactly_while_the_tail_is_laid_out(
    tmp_path: Path, slow_layout: None, loading: str, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue(loading)
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        body = app.review.body
        assert any(await burst(pilot, app, "j", 300))  # keys arrived before the layout was complete
        assert body.top_line == 300
        shown = (body.line_text(300), body.top_source_line)
    app = ReviewApp(path, home=tmp_path / "home2", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        body = app.review.body
        assert any(await burst(pilot, app, "n", SECTIONS - 1))
        # The cursor reaches the last section (the view never scrolls past the end to show it)
        assert body.layout_complete and body.top_line == body.content_end
        assert app.review.current_section_index == SECTIONS - 1
        assert f"Part {SECTIONS - 1}" in [
            body.line_text(i).strip() for i in range(body.top_line, body.total_lines)
        ]
        await pilot.press("g", "G")
        assert body.layout_complete and app.review.gauge_text.endswith("(100%)")
        assert body.line_text(body.total_lines - 1).strip() == f"• step {SECTIONS - 1}.4 with a few words"
    # The reference: the same plan fully laid out before any key.
    app = ReviewApp(path, home=tmp_path / "home3", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot, app)
        body = app.review.body
        assert (body.line_text(300), body.laid_out.sources[300]) == shown


async def test_approve_before_the_load_finishes_pins_the_shown_text(tmp_path: Path, slow_load: None) -> None:
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.press("a", "enter")
    assert app.return_value == Approved(path.resolve(), canonical_sha256(long_plan()))


async def test_changed_sections_are_marked_once_loaded(tmp_path: Path) -> None:
    path = plan_file(tmp_path)
    before = long_plan().replace("step 120.2 ", "step 120.2 old ")
    ReviewBaselines(tmp_path / "home").save(path, before)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot, app)
        assert app.review.body.changed == frozenset({120})
        assert app.review.summary_text.startswith("1 of 150 sections changed")
    assert ReviewBaselines(tmp_path / "home").load(path) == long_plan()  # this review is the next baseline


async def test_a_reload_during_the_load_shows_the_new_text(tmp_path: Path, slow_load: None) -> None:
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        newer = long_plan(tag=" (v2)")
        path.write_text(newer, encoding="utf-8")
        assert app.review.reload_from_disk()
        await settle(pilot, app)
        assert app.review.text == newer and app.review.document.text == newer
        await pilot.press("G")
        body = app.review.body
        assert body.line_text(body.total_lines - 1).endswith("(v2) with a few words")


async def test_closing_before_the_load_keeps_the_shown_text_as_baseline(
    tmp_path: Path, no_thread: None
) -> None:
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        assert app.review._loading is not None
        await pilot.press("escape")
    assert app.return_value == Keep()
    assert ReviewBaselines(tmp_path / "home").load(path) == long_plan()


async def test_code_on_the_first_screen_is_highlighted_after_the_first_frame(tmp_path: Path) -> None:
    text = "# Plan\n\n```python\ndef handler(request):\n    return 429\n```\n"
    path = plan_file(tmp_path, text)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        body = app.review.body
        for _ in range(200):
            if body._first_frame:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        rendered = SectionRenderer().render(
            app.review.document.sections[0].text, body.laid_out.width, body.render_theme
        )
        assert not rendered.plain_code
        # the highlighted lines, not the quick ones (less the gap line a last section does not need)
        assert list(body.laid_out.strips) == list(rendered.lines[:-1]) and not rendered.lines[-1].cell_length
        styles = {segment.style for segment in body.laid_out.strips[2] if segment.text.strip()}
        assert len(styles) > 1  # `def`, the name and the punctuation differ


async def test_after_first_frame_runs_outside_the_start_up_batch() -> None:
    """Textual drops frames drawn inside its start-up batch; the deferred work must come after it."""
    seen: list[tuple[str, int]] = []

    class Probe(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello", id="probe")

        def on_mount(self) -> None:
            probe = self.query_one("#probe")
            first_frame.after_first_frame(probe, lambda: seen.append(("after", self._batch_count)))

    app = Probe()
    async with app.run_test() as pilot:
        for _ in range(100):
            if seen:
                break
            await pilot.pause(0.01)
    assert ("after", 0) in seen


async def test_a_save_before_the_watcher_starts_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher starts after the first frame: a save made before it must not wait for the next save."""
    path = plan_file(tmp_path, "# Plan\n\nfirst version\n")
    start = plan_screen.PlanScreen._start_watching

    def saved_meanwhile(self) -> None:
        path.write_text("# Plan\n\nsecond version\n", encoding="utf-8")
        start(self)

    monkeypatch.setattr(plan_screen.PlanScreen, "_start_watching", saved_meanwhile)
    app = ReviewApp(path, home=tmp_path / "home", watch=True)
    async with app.run_test(size=(80, 30)) as pilot:
        for _ in range(500):
            if app.review.text == "# Plan\n\nsecond version\n":
                break
            await pilot.pause(0.01)
        assert app.review.text == "# Plan\n\nsecond version\n"
        assert app.review.body.line_text(2).strip() == "second version"


async def test_the_frame_that_first_draws_the_body_holds_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body lays out when it is first drawn (its size is known then), not a frame later on Resize."""
    path = plan_file(tmp_path, "# Plan\n\nThe first paragraph.\n\n## Next\n\nMore.\n")
    drawn: list[str] = []
    render_line = body_module.PlanBody.render_line

    def recording(self, y: int):
        strip = render_line(self, y)
        drawn.append(strip.text.strip())
        return strip

    monkeypatch.setattr(body_module.PlanBody, "render_line", recording)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
    assert drawn[:3] == ["▌ Plan", "▌", "▌ The first paragraph."]  # (the cursor's bar: section 0)


async def test_on_first_frame_is_called_once_after_the_plan_is_drawn(tmp_path: Path) -> None:
    path = plan_file(tmp_path, "# Plan\n\nThe first paragraph.\n")
    calls: list[str] = []
    app: ReviewApp | None = None

    def first_frame() -> None:
        assert app is not None
        calls.append(app.review.body.line_text(2).strip())

    app = ReviewApp(path, home=tmp_path / "home", watch=False, on_first_frame=first_frame)
    async with app.run_test(size=(80, 30)) as pilot:
        for _ in range(200):
            if calls:
                break
            await pilot.pause(0.01)
        await pilot.press("j", "j")
        await pilot.pause()
    assert calls == ["The first paragraph."]


async def test_a_short_plan_reviewed_again_pins_its_hash_before_the_load(
    tmp_path: Path, slow_load: None
) -> None:
    """Nothing changed since the last review: the hash and the diff come after the first frame, and an
    approve pressed before they come waits for them and pins what was shown."""
    text = "# Plan\n\n## Steps\n\n- [ ] one\n- [x] two\n"
    path = plan_file(tmp_path, text)
    ReviewBaselines(tmp_path / "home").save(path, text)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        assert app.review._loading is not None and app.review.diff is None  # deferred, not computed
        await pilot.press("a", "enter")
    assert app.return_value == Approved(path.resolve(), canonical_sha256(text))


async def test_a_short_plan_reviewed_again_settles_to_the_full_diff(tmp_path: Path) -> None:
    text = "# Plan\n\n## Steps\n\n- [ ] one\n"
    path = plan_file(tmp_path, text)
    ReviewBaselines(tmp_path / "home").save(path, text)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot, app)
        screen = app.review
        assert screen.diff is not None and not screen.diff.any_changes
        assert screen._seen_sha == canonical_sha256(text) and screen.summary_text == ""


async def test_a_short_plan_changed_since_the_last_review_is_marked_in_the_first_frame(
    tmp_path: Path, no_thread: None
) -> None:
    """A changed plan is not deferred: its markers and summary row are there from the first frame
    (deferring them would move the body down a row once they came)."""
    text = "# Plan\n\n## Steps\n\n- [ ] one\n\n## Risks\n\nNone.\n"
    path = plan_file(tmp_path, text)
    ReviewBaselines(tmp_path / "home").save(path, text.replace("None.", "Some."))
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)):
        screen = app.review
        assert screen._loading is None
        assert screen.body.changed == frozenset({2})
        assert screen.summary_text.startswith("1 of 3 sections changed")


def long_early_steps(items: int = 400, tail_sections: int = 200) -> str:
    """A short intro, then a Steps list longer than the first-screen prefix, then many sections."""
    steps = "\n".join(f"- [ ] Step {i}: drain and upgrade group {i}" for i in range(1, items + 1))
    tail = "\n".join(f"## Wave {i}\n\nWave {i} covers forty hosts.\n" for i in range(1, tail_sections))
    return f"# Fleet rollout\n\nRoll out in waves.\n\n## Steps\n\n{steps}\n\n{tail}"


async def test_a_long_early_section_does_not_make_the_first_frame_wait_for_the_whole_parse(
    tmp_path: Path, no_thread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the prefix dropped its cut-short last section (Steps), so the first screen had only the
    # 4-line intro and asked for the whole document (a full parse before the first frame).
    path = plan_file(tmp_path, long_early_steps())
    loads: list[bool] = []
    load = plan_screen.PlanScreen._load

    def watched(self, text: str):
        loads.append(not first_frame_seen)
        return load(self, text)

    first_frame_seen = False
    monkeypatch.setattr(plan_screen.PlanScreen, "_load", watched)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        body = app.review.body
        assert body.partial and app.review._loading is not None  # the first frame: the prefix only
        assert [body.line_text(i).strip() for i in range(9)][-3:] == [
            "◻ Step 1: drain and upgrade group 1",
            "◻ Step 2: drain and upgrade group 2",
            "◻ Step 3: drain and upgrade group 3",
        ]
        first_frame_seen = True
        first = [body.line_text(i) for i in range(30)]
        await settle(pilot, app)
        assert loads == [False]  # the whole-document work ran once, after the first frame
        assert [body.line_text(i) for i in range(30)] == first  # and the first screen did not move
        assert app.review.document.sections[-1].title == "Wave 199"
