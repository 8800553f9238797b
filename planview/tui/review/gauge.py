"""The scroll gauge and the scroll row text (pure: numbers in, strings out).

`lines 41–68 of 1,512 (3%)`: 0% only at the very top, 100% only when the last line is in view,
so the figure never claims the end before the reader is there. When the row is narrow the line
range goes first, then the section name is shortened, and the gauge is the last thing to go.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

from planview.tui.review.text import fit_cells


def percent(top: int, height: int, total: int) -> int:
    """How far down the view is: 0 at the top, 100 when the end is visible, 1..99 between."""
    end = max(0, total - max(1, height))
    if end == 0 or top >= end:
        return 100 if top > 0 or end == 0 else 0
    if top <= 0:
        return 0
    return min(99, max(1, round(100 * top / end)))


LAYING_OUT = "laying out…"


def gauge_text(top: int, height: int, total: int, known: bool = True) -> str:
    """`lines 41–68 of 1,512 (3%)` for a view whose first visible line is `top` (0-based).

    While a long plan is still being laid out (`known` false) the total is not known yet:
    `lines 41–68, laying out…`.
    """
    first = min(top + 1, total)
    last = min(top + max(1, height), total)
    if not known:
        return f"lines {first:,}–{last:,}, {LAYING_OUT}"
    return f"lines {first:,}–{last:,} of {total:,} ({percent(top, height, total)}%)"


def gauge_short(top: int, height: int, total: int, known: bool = True) -> str:
    """The gauge without the line range, for narrow rows."""
    return f"{percent(top, height, total)}%" if known else LAYING_OUT


@dataclass(frozen=True)
class ScrollRow:
    """The two halves of the scroll row, already fitted to a width."""

    section: str  # "§ Title · changed", possibly shortened with "…", or ""
    gauge: str
    width: int

    @property
    def text(self) -> str:
        gap = max(0, self.width - cell_len(self.section) - cell_len(self.gauge))
        return f"{self.section}{' ' * gap}{self.gauge}" if self.section else self.gauge.rjust(self.width)


def scroll_row(
    section: str | None, changed: bool, top: int, height: int, total: int, width: int, known: bool = True
) -> ScrollRow:
    """Fit `§ <section> · changed` and the gauge into `width` columns (range dropped first)."""
    label = ""
    suffix = " · changed" if changed else ""
    if section is not None:
        label = f"§ {section}{suffix}"
    full = gauge_text(top, height, total, known)
    short = gauge_short(top, height, total, known)
    for gauge in (full, short):
        if not label and len(gauge) <= width:
            return ScrollRow("", gauge, width)
        if cell_len(label) + 2 + len(gauge) <= width:
            return ScrollRow(label, gauge, width)
    # Shorten the section name, keeping "§ " and the "· changed" note when possible.
    room = width - 2 - len(short)
    if section is not None:
        for tail in (suffix, ""):
            title_room = room - 2 - len(tail)
            title = fit_cells(section, title_room) if title_room >= 3 else ""
            if title:
                return ScrollRow(f"§ {title}{tail}", short, width)
    return ScrollRow("", short if len(short) <= width else "", width)
