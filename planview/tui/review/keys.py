"""`?`: every key of the review screen, in a small modal that any key closes.

On a terminal too small for the whole list, the scroll keys scroll it instead of closing it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from planview import keymap


def sheet(review: Sequence[keymap.KeyRow] = keymap.REVIEW) -> tuple[tuple[str, str], ...]:
    """(keys, what they do) for every row of the review's key map, then the other parts' keys under
    their headings (a heading is (title, "")); `review` as bound (the config's rebinds applied)."""
    entries = [(row.display, row.description) for row in review]
    for title, rows in (
        ("In the search bar (/)", keymap.SEARCH),
        ("Approving (a)", keymap.CONFIRM),
        ("In the refine editor (r)", keymap.EDITOR),
    ):
        entries += [("", ""), (title, "")] + [(row.display, row.description) for row in rows]
    return tuple(entries)


KEYS = sheet()


Entries = Sequence[tuple[str, str]]


def _table_width(entries: Entries = KEYS) -> int:
    """The grid's width: its widest key (headings included), the 2-cell gap, its widest text."""
    return max(cell_len(key) for key, _what in entries) + 2 + max(cell_len(what) for _key, what in entries)


MIN_TEXT = 22  # narrower than this, a description goes under its keys instead of beside them


def key_list(width: int, entries: Entries = KEYS) -> Table | Group:
    """Keys beside what they do when `width` leaves the text MIN_TEXT columns; else stacked."""
    key_width = max(cell_len(key) for key, what in entries if what)
    if width >= key_width + 2 + MIN_TEXT:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in entries:
            if key and not what:
                table.add_row(Text(key, style="bold underline"), "")
            else:
                table.add_row(key, what)
        return table
    rows: list[Text | Padding] = []
    for key, what in entries:
        if not key:
            rows.append(Text(""))
        elif not what:
            rows.append(Text(key, style="bold underline"))
        else:
            rows += [Text(key, style="bold"), Padding(Text(what), (0, 0, 0, 2))]
    return Group(*rows)


# Keys that scroll the list when it overflows (the same keys scroll the plan).
_SCROLL = {
    "up": -1,
    "k": -1,
    "down": 1,
    "j": 1,
    "pageup": -10,
    "b": -10,
    "pagedown": 10,
    "space": 10,
}


class KeysHelp(ModalScreen[None]):
    """The key list; any key but a scroll key (while the list overflows) closes it."""

    DEFAULT_CSS = """
    KeysHelp { align: center middle; }
    KeysHelp > VerticalScroll {
        max-width: 90%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; scrollbar-size-vertical: 1;
    }
    KeysHelp Static { width: 100%; height: auto; padding: 1 2; }
    """

    def __init__(self, entries: Entries = KEYS) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroller:
            # A scroll container cannot size to auto-width content: give it the table's width
            # (+ padding 4, border 2, scrollbar 1); max-width still caps it on a narrow terminal.
            scroller.styles.width = _table_width(self.entries) + 7
            scroller.border_title = "Review keys"
            scroller.border_subtitle = "any key closes"
            yield Static(id="keys")

    def on_mount(self) -> None:
        self._fill()

    def on_resize(self) -> None:
        self._fill()

    def _fill(self) -> None:
        scroller = self.query_one(VerticalScroll)
        room = min(_table_width(self.entries) + 7, int(self.size.width * 0.9)) - 7
        self.query_one("#keys", Static).update(key_list(room, self.entries))
        scroller.border_subtitle = (
            "↑↓ scroll · other keys close" if scroller.max_scroll_y > 0 else "any key closes"
        )

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        scroller = self.query_one(VerticalScroll)
        if scroller.max_scroll_y > 0:
            if event.key in _SCROLL:
                scroller.scroll_relative(y=_SCROLL[event.key], animate=False)
                return
            if event.key in ("home", "g"):
                scroller.scroll_home(animate=False)
                return
            if event.key in ("end", "G", "shift+g"):
                scroller.scroll_end(animate=False)
                return
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)
