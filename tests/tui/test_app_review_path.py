"""`/plan review PATH` in the app checks the path the way `planview review PATH` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.review.screen import ReviewScreen
from planview.tui.widgets.prompt import PromptInput


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


@pytest.mark.parametrize("target", ["/etc/passwd", "{outside}/notes.txt", "{project}/setup.cfg"])
async def test_plan_review_of_a_file_that_is_not_markdown_opens_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    """QA: `/plan review /etc/passwd` opened a review screen of that file (the CLI refuses it)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("# not a plan\n")
    (project / "setup.cfg").write_text("[x]\n")
    path = target.format(outside=outside, project=project)
    if not Path(path).is_file():
        pytest.skip(f"{path} does not exist on this machine")

    def factory(ui, on_event):
        return Session(
            project_root=project, provider=ScriptedProvider(parse_script("")), ui=ui, on_event=on_event
        )

    app = PlanviewApp(factory, project_root=project)
    notices: list[tuple[str, str]] = []
    async with app.run_test(size=(110, 34)) as pilot:
        for _ in range(200):
            if app.session_screen is not None and app.screen is app.session_screen:
                break
            await pilot.pause(0.02)
        monkeypatch.setattr(app, "_notice", lambda text, kind="info": notices.append((str(text), kind)))
        prompt = app.screen.query_one(PromptInput)
        prompt.focus()
        prompt.text = f"/plan review {path}"
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert not isinstance(app.screen, ReviewScreen)
        assert app.screen is app.session_screen
    ((text, kind),) = notices
    assert kind == "error" and "is not a Markdown plan (.md)" in text and "/plans" in text
