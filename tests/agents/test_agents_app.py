"""The session app around an ACP agent (Pilot): the same transcript rows, the review screen, `a` approves."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planview.agents.session import build
from planview.tui.app import PlanviewApp
from planview.tui.confirm import ConfirmScreen
from planview.tui.review.screen import ReviewScreen
from planview.tui.widgets.transcript import AssistantRow, NoticeRow, ToolRow

SIZE = (110, 34)
FAKE = Path(__file__).with_name("fake_agent.py")


async def wait_for(pilot: Any, predicate: Callable[[], bool], what: str, limit: int = 750) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def agent_app(root: Path, scenario: str, **kwargs: Any) -> PlanviewApp:
    command = shlex.join([sys.executable, str(FAKE), "--scenario", scenario])

    def factory(ui: Any, on_event: Any) -> Any:
        return build(command, project_root=root, ui=ui, on_event=on_event, **kwargs)

    return PlanviewApp(factory, project_root=root)


async def send(pilot: Any, app: PlanviewApp, text: str) -> None:
    prompt = app.session_screen.prompt
    prompt.load_text(text)
    prompt.focus()
    await pilot.press("enter")


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


async def test_agent_stream_renders_as_planviews_own_rows(project: Path, agent_log: Any) -> None:
    app = agent_app(project, "rows")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        assert str(screen.query_one("#provider").render()) == "ACP: python fake_agent.py --scenario rows"
        await send(pilot, app, "go")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await pilot.pause(0.1)
        rows = {row.call_id: row for row in screen.transcript.query(ToolRow)}
        assert set(rows) == {"read-1", "edit-9", "run-1"}
        assert rows["read-1"].headline == "Read README.md" and rows["read-1"].result == "line one\nline two"
        assert not rows["read-1"].error and not rows["read-1"].refused
        assert "+print('hi')" in (rows["edit-9"].result or "")
        assert rows["run-1"].error and rows["run-1"].has_class("-error")
        texts = [row.text for row in screen.transcript.query(AssistantRow)]
        assert texts == ["Reading **README**.", "All done."]


async def test_switch_mode_plan_opens_the_review_and_a_approves(project: Path, agent_log: Any) -> None:
    app = agent_app(project, "switch-mode", plan_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        assert screen.chip.text == "⋮ plan"
        await send(pilot, app, "add a greeting")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        review = app.screen
        assert review.plan_path == app.session.plan_path
        assert review.plan_path.read_text().startswith("# Add a greeting")
        assert not agent_log.find(event="exit-plan-answer"), "no answer before the person decides"
        await pilot.press("a", "enter")
        # the edit after approval is asked for in execute mode (planview's confirmation)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the edit confirmation")
        answer = agent_log.find(event="exit-plan-answer")[0]["outcome"]
        assert answer["optionId"] == "default" and answer["outcome"] == "selected"
        assert app.session.approvals.status(app.session.plan_path).state == "approved"
        await pilot.press("y")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        assert (project / "done.txt").read_text() == "hello\n"
        assert screen.chip.text.startswith("⋮ execute")
        notices = " ".join(str(n.render()) for n in screen.transcript.query(NoticeRow))
        assert "plan approved" in notices


@pytest.mark.usefixtures("lists_only")
async def test_breach_in_the_app_is_an_error_notice_naming_the_file(project: Path, agent_log: Any) -> None:
    app = agent_app(project, "disk-write", plan_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await send(pilot, app, "plan quietly")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await pilot.pause(0.1)
        errors = [str(n.render()) for n in screen.transcript.query(NoticeRow) if n.has_class("-error")]
        assert errors and "Plan-mode breach" in errors[0] and "breach.txt" in errors[0]


async def test_escape_cancels_a_streaming_agent(project: Path, agent_log: Any) -> None:
    app = agent_app(project, "stream")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await send(pilot, app, "talk")
        await wait_for(pilot, lambda: bool(agent_log.find(method="session/prompt")), "the prompt")
        await wait_for(pilot, lambda: bool(list(screen.transcript.query(AssistantRow))), "streamed text")
        # the agent asks to edit while it streams; Esc on the question says no, Esc again cancels the turn
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the permission question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the question to close")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancelled turn to end")
        assert agent_log.find(method="session/cancel")
        assert agent_log.find(event="stream-permission")[0]["outcome"]["optionId"] == "reject"
        notices = [str(n.render()) for n in screen.transcript.query(NoticeRow)]
        assert "Turn cancelled." in notices
