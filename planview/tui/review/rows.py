"""The one-line rows around the review body (title, change summary, scroll row, key hints).

Pure: widths in, Rich `Text` out; the screen decides which rows show and puts them on screen.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from planview.tui.review import gauge, hints
from planview.tui.review.text import fit_cells

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.diff import SectionDiff

_CHANGED = "· changed"
_HINT_STYLES = {"a": "bold $success", "r": "bold $accent"}  # the two decisions stand out


def fit_summary(text: str, width: int) -> str:
    """The summary within `width`: "since your last review" goes first, then the count is cut with …."""
    if len(text) <= width:
        return text
    short = text.replace(" since your last review", "")
    return short if len(short) <= width else fit_cells(short, width)


def summary_text(diff: SectionDiff, total: int) -> str:
    """ "2 of 7 sections changed since your last review · 1 section removed" ("" when none did)."""
    parts = []
    if diff.changed_count:
        noun = "section" if total == 1 else "sections"
        parts.append(f"{diff.changed_count} of {total} {noun} changed since your last review")
    if diff.removed:
        noun = "section" if len(diff.removed) == 1 else "sections"
        parts.append(f"{len(diff.removed)} {noun} removed" + ("" if parts else " since your last review"))
    return " · ".join(parts)


def title_row(title: str, path: str, width: int) -> Text:
    """The plan's title, and its path (dim) on the right when both fit with a 3-cell gap."""
    title = fit_cells(title, width)
    row = Text(title, no_wrap=True)
    if cell_len(path) <= width - cell_len(title) - 3:
        row.append(" " * (width - cell_len(title) - cell_len(path)))
        row.append(path, Style(bold=False, dim=True))
    return row


def scroll_row(fitted: gauge.ScrollRow, warning: str) -> Text:
    """`§ Section · changed` (bold, the mark in `warning`) left, the line range right."""
    text = Text(no_wrap=True, overflow="crop")
    if fitted.section:
        text.append(fitted.section, "bold")
        if fitted.section.endswith(_CHANGED):
            text.stylize(warning, len(fitted.section) - len(_CHANGED))
    text.append(" " * max(0, fitted.width - cell_len(fitted.section) - len(fitted.gauge)))
    text.append(fitted.gauge)
    return text


TAIL_GAP = 3  # cells between the hints and the note on the right ("seen 3/8")
MIN_HINTS_WITH_TAIL = 6  # fewer hints than this (Esc a r n/p w ?) beside it, and the note on the right goes


def footer(
    hint_list: tuple[hints.HintSpec, ...], width: int, tail: str = ""
) -> tuple[tuple[hints.Hint, ...], str, str]:
    """(hints, gap between them, the note on the right): the note ("seen 3/8") shows when at least
    MIN_HINTS_WITH_TAIL hints still fit beside it, else it is dropped before any of them."""
    if tail:
        shown, separator = hints.fit(hint_list, width - len(tail) - TAIL_GAP)
        if len(shown) >= min(MIN_HINTS_WITH_TAIL, len(hint_list)):
            return shown, separator, tail
    shown, separator = hints.fit(hint_list, width)
    return shown, separator, ""


def footer_text(hint_list: tuple[hints.HintSpec, ...], width: int, tail: str = "") -> str:
    shown, separator, tail = footer(hint_list, width, tail)
    text = separator.join(hints.hint_text(h) for h in shown)
    return f"{text}{' ' * TAIL_GAP}{tail}" if tail else text


def hint_row(
    hint_list: tuple[hints.HintSpec, ...], width: int, variables: dict[str, str], tail: str = ""
) -> Text:
    """The key hints that fit, keys bold, and `tail` right-aligned; the same as `footer_text`."""
    row = Text(no_wrap=True, overflow="ellipsis")
    shown, separator, tail = footer(hint_list, width, tail)
    for i, (key, label) in enumerate(shown):
        if i:
            row.append(separator)
        row.append(key, _HINT_STYLES.get(key, "bold"))
        if label:
            row.append(" " + label)
    if tail:
        row.append(" " * max(TAIL_GAP, width - row.cell_len - len(tail)))
        row.append(tail, "dim")
    return themed(row, variables)


def themed(text: Text, variables: dict[str, str]) -> Text:
    """Resolve `$variable` colours in span styles against the app theme."""
    spans = []
    for span in text.spans:
        style = span.style
        if isinstance(style, str) and "$" in style:
            style = " ".join(
                variables.get(part[1:], "default") if part.startswith("$") else part for part in style.split()
            )
        spans.append(span._replace(style=style))
    text.spans = spans
    return text
