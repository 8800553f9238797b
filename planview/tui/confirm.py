"""A yes/no modal for requests the model makes on the user's behalf (enter_plan_mode)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from planview.textsafe import sanitize_for_terminal
from planview.tui.styles import stylesheet


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True (y / Enter on Yes) or False (n / Esc / No)."""

    CSS_PATH = stylesheet("confirm")
    BINDINGS = [
        Binding("y", "answer(True)", "yes"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(sanitize_for_terminal(self.title_text), style="bold"), id="confirm-title")
            yield Static(Text(sanitize_for_terminal(self.message)), id="confirm-message")
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", id="yes", variant="primary")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
