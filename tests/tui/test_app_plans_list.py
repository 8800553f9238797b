"""`/plans`: every plan readable at a usual width, and no plan text reaches the terminal raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.geometry import Region

from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.widgets.transcript import NoticeRow

LONG_TITLE = "Tidy the billing exports, the invoice archive and the dunning schedules for the finance team"


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


def _app(root: Path) -> PlanviewApp:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "ok"})))

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    return PlanviewApp(factory, project_root=root)


async def _listing(app: PlanviewApp, pilot) -> NoticeRow:
    prompt = app.session_screen.prompt
    prompt.load_text("/plans")
    prompt.focus()
    await pilot.press("enter")
    await pilot.pause()
    return list(app.session_screen.transcript.query(NoticeRow))[-1]


def _drawn(row: NoticeRow) -> list[str]:
    """The row's lines as drawn (blank ones left out)."""
    lines = [strip.text for strip in row.render_lines(Region(0, 0, row.size.width, row.size.height))]
    return [line for line in lines if line.strip()]


async def test_plans_listing_wraps_under_each_plan_not_at_the_margin(project: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-15-0900-tidy-the-billing-exports-and-archive.md").write_text(
        f"# {LONG_TITLE}\n\n## Steps\n\n- [ ] one\n- [x] two\n", encoding="utf-8"
    )
    app = _app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        row = await _listing(app, pilot)
        shown = _drawn(row)
        assert LONG_TITLE in " ".join(" ".join(shown).split()) and "1/2 steps" in shown[-1]
        assert len(shown) > 1 and shown[0].lstrip().startswith("Plans (1)")
        indent = len(shown[0]) - len(shown[0].lstrip())
        for line in shown[1:]:  # under the heading, every drawn line is indented
            assert line[indent : indent + 2] == "  ", shown


async def test_plans_listing_never_draws_control_characters(project: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-15-0900-evil.md").write_text("# Evil \x1b]0;owned\x07 \x1b[2Jplan\n\n- [ ] a\n")
    app = _app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        plain = "\n".join(_drawn(await _listing(app, pilot)))
        assert "Evil" in plain and "plan" in plain
        assert not any(ord(c) < 0x20 and c != "\n" for c in plain), repr(plain)
