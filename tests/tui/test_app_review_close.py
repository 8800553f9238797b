"""A review opened by the session app stops watching the plan before its decision is handled.

The agent writes the plan right after an approval (set_plan_steps), so a watcher still running
when the decision arrives would reload a screen that is going away.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planview.plan.decision import Approved, Keep
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.review.screen import ReviewScreen

PLAN = "# Tidy\n\n## Steps\n\n- [ ] one\n- [ ] two\n"


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


async def wait_for(pilot, predicate: Callable[[], bool], what: str, limit: int = 400) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def app_for(root: Path) -> PlanviewApp:
    def factory(ui, on_event):
        return Session(
            project_root=root, provider=ScriptedProvider(parse_script("")), ui=ui, on_event=on_event
        )

    return PlanviewApp(factory, project_root=root)


def watchers_live(app: PlanviewApp, screen: ReviewScreen) -> list[object]:
    return [
        w
        for w in app.workers
        if w.node is screen and w.group == "review-watch" and not (w.is_cancelled or w.is_finished)
    ]


@pytest.mark.parametrize(("key", "kind"), [("a", Approved), ("escape", Keep)])
async def test_watcher_is_stopped_when_the_decision_is_handled(project: Path, key: str, kind: type) -> None:
    plan = project / ".planview" / "plans" / "tidy.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    app = app_for(project)
    seen: list[tuple[object, list[object], str]] = []
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.pause()
        opened: list[ReviewScreen] = []

        def callback(decision: object) -> None:
            (screen,) = opened
            seen.append((decision, watchers_live(app, screen), plan.read_text()))
            plan.write_text(PLAN.replace("- [ ] one", "- [x] one"))  # what the agent does next

        opened.append(app._open_review(plan, callback))
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await wait_for(pilot, lambda: bool(watchers_live(app, opened[0])), "the plan watcher")
        await pilot.press(*((key, "enter") if key == "a" else (key,)))  # a asks once: Enter approves
        await wait_for(pilot, lambda: bool(seen) and app.screen is app.session_screen, "the decision")
        await pilot.pause(0.6)  # longer than the watcher's debounce: a live watcher would have reloaded
        ((decision, live, text),) = seen
        assert isinstance(decision, kind)
        assert live == []
        assert text == PLAN
        assert opened[0].text == PLAN  # the closed screen never reloaded the agent's write
        assert app.screen is app.session_screen
