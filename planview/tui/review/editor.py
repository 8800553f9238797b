"""The inline refine editor: a TextArea where Enter sends and Ctrl+J starts a new line.

While it has focus every printable key is text: typing "a" writes an "a", it never approves.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter"})


class RefineEditor(TextArea):
    """What the reviewer wants changed; `Submitted` on Enter, `Cancelled` on Esc."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Cancelled(Message):
        """Esc: back to the plan, the draft is kept."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.placeholder = "What should change in the plan?"

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self.text))
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self.replace("\n", start, end)
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.post_message(self.Cancelled())
            return
        await super()._on_key(event)
