"""When work may start: after the first frame that Textual really writes to the terminal."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget


def after_first_frame(widget: Widget, callback: Callable[[], object]) -> None:
    """Run `callback` once a frame showing `widget` has really been written to the terminal.

    Textual drops every frame drawn while the app is still in its start-up batch, and callbacks
    queued with call_after_refresh run inside that batch too, so work queued from on_mount would
    delay the first visible frame. The app serves its own message queue only after the batch:
    from there, a refresh and then a call_after_refresh land after a frame that is really drawn.
    """

    def queued() -> None:
        if widget.is_attached:
            widget.refresh()
            widget.call_after_refresh(callback)

    widget.app.call_later(queued)
