"""The prompt: a multi-line input with history and a busy indicator.

Enter sends, Ctrl+J inserts a newline, ↑ on an empty input (or while browsing) recalls earlier
prompts and ↓ walks back, Esc asks to cancel the running turn.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static, TextArea

from planview.tui.messages import CancelRequested, PromptSubmitted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.timer import Timer

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class PromptInput(TextArea):
    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=placeholder,
            compact=True,
        )
        self.prompt_history: list[str] = []
        self._recall: int | None = None  # index into history while browsing it

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if key == "enter":
            self._consume(event)
            self.submit()
            return
        if key == "ctrl+j":
            self._consume(event)
            self.insert("\n")
            return
        if key == "escape":
            self._consume(event)
            self.post_message(CancelRequested())
            return
        if (
            key == "up"
            and self.prompt_history
            and (not self.text or self._browsing())
            and self._on_first_row()
        ):
            self._consume(event)
            self._recall = len(self.prompt_history) - 1 if self._recall is None else max(0, self._recall - 1)
            self._show(self.prompt_history[self._recall])
            return
        if key == "down" and self._browsing() and self._on_last_row():
            self._consume(event)
            assert self._recall is not None
            if self._recall + 1 < len(self.prompt_history):
                self._recall += 1
                self._show(self.prompt_history[self._recall])
            else:
                self._recall = None
                self._show("")
            return
        await super()._on_key(event)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._recall = None
        self.load_text("")
        self.post_message(PromptSubmitted(text))

    def _browsing(self) -> bool:
        return self._recall is not None and self.text == self.prompt_history[self._recall]

    def _on_first_row(self) -> bool:
        return self.cursor_location[0] == 0

    def _on_last_row(self) -> bool:
        return self.cursor_location[0] >= self.document.line_count - 1

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()


class BusyIndicator(Static):
    """`⠋ working… esc to cancel` while a turn runs; blank otherwise."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.busy = False
        self.label = "working"
        self._frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._tick, pause=True)

    def set_busy(self, busy: bool, label: str = "working") -> None:
        self.busy, self.label = busy, label
        self.set_class(busy, "-busy")
        if self._timer is not None:
            (self._timer.resume if busy else self._timer.pause)()
        self._paint()

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._paint()

    def _paint(self) -> None:
        if not self.busy:
            self.update("")
            return
        text = Text(f"{SPINNER[self._frame]} {self.label}… ", style="bold")
        text.append("esc to cancel", style="dim")
        self.update(text)
