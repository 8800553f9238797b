"""`?`: every key of the review screen, in a small modal that any key closes."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("↑ ↓  k j", "a line"),
    ("PgUp PgDn  b space", "a page (one line of overlap)"),
    ("u d", "half a page"),
    ("g G  Home End", "top / bottom"),
    ("mouse wheel", "scroll"),
    ("n p", "next / previous section"),
    ("a", "approve & run"),
    ("r", "refine: write what should change"),
    ("Esc", "keep planning (not approved)"),
    ("?", "this list"),
    ("", ""),
    ("In the refine editor", ""),
    ("Enter", "send the refinement"),
    ("Ctrl+J", "new line"),
    ("Esc", "back to the plan (the draft is kept)"),
)


class KeysHelp(ModalScreen[None]):
    """The key list; Esc, ?, q or Enter closes it."""

    DEFAULT_CSS = """
    KeysHelp { align: center middle; }
    KeysHelp > Static {
        width: auto; max-width: 90%; height: auto; max-height: 90%;
        padding: 1 2; border: round $primary; background: $surface;
    }
    """

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            if key and not what:
                table.add_row(Text(key, style="bold underline"), "")
            else:
                table.add_row(key, what)
        yield Static(table, id="keys")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)
