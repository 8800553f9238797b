"""The outline panel: the plan's sections beside the body, the cursor's highlighted, changed ones
marked, and the Steps progress (`3/10`) of sections with task items.

Shown at 120 columns and wider (the body keeps its reading measure beside it); `o` shows or hides
it at any width. A click on a section puts the cursor there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from planview.plan.document import Section
from planview.tui.review.render import clean_text
from planview.tui.review.text import fit_cells

AUTO_WIDTH = 120  # at this many columns and more the outline shows unless `o` hid it
_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX~])\]")
_FENCE = re.compile(r"^\s*(```|~~~)")


def progress(section: Section) -> tuple[int, int]:
    """(ticked, all) task items of `section` (outside code fences)."""
    done = total = 0
    fenced = False
    for line in section.text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _TASK.match(line)
        if match:
            total += 1
            done += match.group(1) in "xX"
    return done, total


def window(count: int, height: int, cursor: int) -> int:
    """The first entry shown when `count` entries share `height` rows and `cursor` must be visible."""
    if count <= height:
        return 0
    return max(0, min(cursor - height // 3, count - height))


def outline_lines(
    sections: Sequence[Section],
    cursor: int | None,
    changed: frozenset[int],
    width: int,
    height: int,
    styles: dict[str, Style],
) -> tuple[Text, int]:
    """The outline as text `width` cells wide (at most `height` lines) and its first entry's index."""
    first = window(len(sections), max(1, height), cursor or 0)
    top_level = min((s.level for s in sections if s.level), default=1)
    text = Text(no_wrap=True, overflow="crop")
    for index in range(first, min(len(sections), first + max(1, height))):
        section = sections[index]
        title = clean_text(section.title) if section.title else "Preamble"
        done, total = progress(section)
        count = f" {done}/{total}" if total else ""
        mark = "●" if index in changed else " "
        indent = "  " * max(0, min(3, section.level - top_level))
        room = width - 2 - len(indent) - cell_len(count)
        name = fit_cells(title, room) if room > 1 else ""
        line = f"{mark} {indent}{name}"
        line += " " * max(0, width - cell_len(line) - cell_len(count)) + count
        style = styles["cursor"] if index == cursor else styles["normal"]
        if index > first:
            text.append("\n")
        start = len(text)
        text.append(line, style)
        if index in changed:
            text.stylize(styles["changed"], start, start + 1)
        if total and done == total:
            text.stylize(styles["done"], len(text) - len(count), len(text))
    return text, first


class Outline(Static):
    """The section list; the screen calls `show` whenever the cursor, the plan or the size changes."""

    class Picked(Message):
        """A section was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._first = 0
        self._count = 0
        self._shown: tuple | None = None  # what `show` was last given (drawn again on a resize)

    def show(
        self,
        sections: Sequence[Section],
        cursor: int | None,
        changed: frozenset[int],
        styles: dict[str, Style],
    ) -> None:
        self._shown = (sections, cursor, changed, styles)
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        width, height = self.content_region.width, self.content_region.height
        if width <= 0 or height <= 0 or self._shown is None:
            return  # (not laid out yet: its first resize draws it)
        sections, cursor, changed, styles = self._shown
        text, self._first = outline_lines(sections, cursor, changed, width, height, styles)
        self._count = len(sections)
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        index = self._first + event.y  # (no vertical padding: row y is entry first + y)
        if 0 <= index < self._count:
            self.post_message(self.Picked(index))
