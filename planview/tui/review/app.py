"""`planview review PATH`: the review screen as a standalone app that exits with the decision."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from textual.app import App

from planview.tui.review.first_frame import after_first_frame
from planview.tui.review.screen import ReviewScreen
from planview.tui.styles import stylesheet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.decision import ReviewDecision


class ReviewApp(App["ReviewDecision"]):
    """Shows one ReviewScreen; `run()` returns its decision (Keep when the app is quit another way)."""

    # The screen's sheet too: read with the app's, it is not parsed again (with every other sheet)
    # when the screen opens, which Textual does for a screen's own CSS_PATH.
    CSS_PATH = [stylesheet("app"), stylesheet("review")]
    TITLE = "planview review"

    def __init__(
        self,
        plan_path: Path,
        *,
        home: Path | None = None,
        watch: bool = True,
        on_first_frame: Callable[[], object] | None = None,
        not_approvable: str | None = None,
        keymap: Mapping[str, str] | None = None,
    ) -> None:
        """`on_first_frame` is called once the first frame is on the terminal; `not_approvable`
        (why approving could only fail) goes to the screen; `keymap`: the config's `[keys]` rebinds."""
        super().__init__()
        if keymap:
            self.set_keymap(dict(keymap))
        self.not_approvable = not_approvable
        self.plan_path = Path(plan_path)
        self.home = home
        self.live_reload = watch  # (not `self.watch`: that is DOMNode.watch)
        self._on_first_frame = on_first_frame

    def get_driver_class(self) -> Any:
        driver = super().get_driver_class()
        if driver.__name__ == "LinuxDriver":  # not on Windows or under a TEXTUAL_DRIVER override
            from planview.tui.chord_keys import ChordDriver  # (sized by the real terminal, tty_size.py)

            return ChordDriver
        return driver

    def on_mount(self) -> None:
        if self._on_first_frame is not None:
            after_first_frame(self.screen, self._on_first_frame)

    def get_default_screen(self) -> ReviewScreen:
        # The app's own first screen, not one pushed from on_mount: a pushed screen is first laid out
        # and drawn inside Textual's start-up batch, where that frame is dropped and drawn again.
        return ReviewScreen(
            self.plan_path,
            home=self.home,
            watch=self.live_reload,
            on_decided=self._decided,
            not_approvable=self.not_approvable,
        )

    def _decided(self, decision: ReviewDecision | None) -> None:
        from planview.plan.decision import Keep

        self.exit(decision if decision is not None else Keep())

    @property
    def review(self) -> ReviewScreen:
        screen = next((s for s in self.screen_stack if isinstance(s, ReviewScreen)), None)
        if screen is None:
            raise LookupError("the review screen is not open")
        return screen
