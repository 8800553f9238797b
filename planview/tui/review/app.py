"""`planview review PATH`: the review screen as a standalone app that exits with the decision."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from planview.plan.decision import Keep, ReviewDecision
from planview.tui.review.screen import ReviewScreen
from planview.tui.styles import stylesheet


class ReviewApp(App[ReviewDecision]):
    """Shows one ReviewScreen; `run()` returns its decision (Keep when the app is quit another way)."""

    CSS_PATH = stylesheet("app")
    TITLE = "planview review"

    def __init__(self, plan_path: Path, *, home: Path | None = None, watch: bool = True) -> None:
        super().__init__()
        self.plan_path = Path(plan_path)
        self.home = home
        self.live_reload = watch  # (not `self.watch`: that is DOMNode.watch)

    def on_mount(self) -> None:
        self.push_screen(
            ReviewScreen(self.plan_path, home=self.home, watch=self.live_reload), callback=self._decided
        )

    def _decided(self, decision: ReviewDecision | None) -> None:
        self.exit(decision if decision is not None else Keep())

    @property
    def review(self) -> ReviewScreen:
        screen = next((s for s in self.screen_stack if isinstance(s, ReviewScreen)), None)
        if screen is None:
            raise LookupError("the review screen is not open")
        return screen
