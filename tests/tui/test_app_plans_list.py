"""`/plans`: every plan readable at a usual width, and no plan text reaches the terminal raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.plans_picker import PlansPicker
from planview.tui.review.screen import ReviewScreen

LONG_TITLE = "Tidy the billing exports, the invoice archive and the dunning schedules for the finance team"


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


def _app(root: Path) -> PlanviewApp:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "ok"})))

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    return PlanviewApp(factory, project_root=root)


async def _open(app: PlanviewApp, pilot) -> PlansPicker:
    prompt = app.session_screen.prompt
    prompt.load_text("/plans")
    prompt.focus()
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, PlansPicker)
    return app.screen


def _plans(project: Path) -> Path:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-15-0900-tidy-the-billing-exports-and-archive.md").write_text(
        f"# {LONG_TITLE}\n\n## Steps\n\n- [ ] one\n- [x] two\n", encoding="utf-8"
    )
    (plans / "2026-01-16-0900-add-rate-limiting.md").write_text(
        "# Add rate limiting\n\n## Goal\n\nLimit it.\n\n## Steps\n\n- [ ] add it\n", encoding="utf-8"
    )
    return plans


async def test_plans_opens_a_list_to_pick_from_and_enter_reviews_the_highlighted_plan(project: Path) -> None:
    _plans(project)
    app = _app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        picker = await _open(app, pilot)
        rows = [str(option.prompt) for option in picker.query_one(OptionList).options]
        assert "add-rate-limiting" in rows[0] and "Add rate limiting" in rows[0]  # newest first
        assert LONG_TITLE in rows[1] and "1/2 steps" in rows[1]
        await pilot.press("down", "enter")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.plan_path.name.startswith("2026-01-15-0900-tidy")


async def test_a_on_the_list_approves_through_the_one_flow_and_says_when_it_cannot(project: Path) -> None:
    plans = _plans(project)
    app = _app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        await _open(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.pause()
        events = [
            json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()
        ]
        approved = [e for e in events if e["type"] == "approved"]
        assert len(approved) == 1 and approved[0]["channel"] == "plans list (/plans)"
        assert approved[0]["plan"].endswith("2026-01-16-0900-add-rate-limiting.md")
        picker = await _open(app, pilot)
        await pilot.press("a")  # the newest is approved now: nothing new to approve from the list
        await pilot.pause()
        assert isinstance(app.screen, PlansPicker)
        assert "cannot be approved from here" in str(picker.query_one("#plans-note", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PlansPicker)
    assert len((project / ".planview" / "ledger.jsonl").read_text().splitlines()) == len(events)
    assert (plans / "2026-01-15-0900-tidy-the-billing-exports-and-archive.md").is_file()


async def test_the_list_never_draws_control_characters(project: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-15-0900-evil.md").write_text("# Evil \x1b]0;owned\x07 \x1b[2Jplan\n\n- [ ] a\n")
    app = _app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        picker = await _open(app, pilot)
        plain = "\n".join(str(option.prompt) for option in picker.query_one(OptionList).options)
        assert "Evil" in plain and "plan" in plain
        assert not any(ord(c) < 0x20 and c != "\n" for c in plain), repr(plain)
