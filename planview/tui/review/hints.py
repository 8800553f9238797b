"""Footer key hints fitted to the width, never cut mid-word (pure).

Each footer leads with its safe exit (`Esc keep planning`, `Esc back to plan`), so on the
narrowest terminal the one hint left is the way out. When the hints do not fit, first every
hint takes its short label (and the gaps narrow), then hints drop lowest priority first — but
`?` stays whenever two hints fit, because it reveals all the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from planview import keymap
from planview.keymap import KeyRow

Hint = tuple[str, str]  # (key, what it does), as drawn
# (key, label, short label); in priority order.
HintSpec = tuple[str, str, str]


def specs(rows: Iterable[KeyRow]) -> tuple[HintSpec, ...]:
    """The footer hints of key-map rows (planview/keymap.py), in the order given."""
    return tuple((row.hint_key, row.label, row.short) for row in rows)


# Every hint, as the key map defines them (the screen shows those whose condition holds).
REVIEW_HINTS: tuple[HintSpec, ...] = specs(keymap.footer_rows(keymap.REVIEW, {"approvable": True}))
EDITOR_HINTS: tuple[HintSpec, ...] = specs(keymap.footer_rows(keymap.EDITOR))
SEPARATOR = "   "
NARROW_SEPARATOR = "  "
REVEALS_ALL = "?"


def hint_text(hint: Sequence[str]) -> str:
    key, label = hint[0], hint[1]
    return f"{key} {label}" if label else key


def _size(hints: Sequence[Hint], separator: str) -> int:
    return sum(len(hint_text(h)) for h in hints) + len(separator) * max(0, len(hints) - 1)


def fit(specs: Sequence[Sequence[str]], width: int) -> tuple[tuple[Hint, ...], str]:
    """The hints to draw in `width` columns and the gap between them."""
    full = tuple((s[0], s[1]) for s in specs)
    if _size(full, SEPARATOR) <= width:
        return full, SEPARATOR
    short = [(s[0], s[2] if len(s) > 2 else s[1]) for s in specs]
    # Drop from the lowest priority, keeping the first (the way out) and `?` while two fit.
    while len(short) > 1 and _size(short, NARROW_SEPARATOR) > width:
        droppable = [i for i in range(len(short) - 1, 0, -1) if short[i][0] != REVEALS_ALL]
        short.pop(droppable[0] if droppable else len(short) - 1)
    if _size(short, NARROW_SEPARATOR) <= width:
        return tuple(short), NARROW_SEPARATOR
    # Not even the first fits: its label loses whole words from the end (down to the bare key).
    key, label = full[0] if full else ("", "")
    words = label.split()
    while words and len(hint_text((key, " ".join(words)))) > width:
        words.pop()
    shortened = (key, " ".join(words))
    return ((shortened,) if full and len(hint_text(shortened)) <= width else ()), NARROW_SEPARATOR


def fit_hints(specs: Sequence[Sequence[str]], width: int) -> tuple[Hint, ...]:
    return fit(specs, width)[0]


def hints_text(specs: Sequence[Sequence[str]], width: int) -> str:
    shown, separator = fit(specs, width)
    return separator.join(hint_text(h) for h in shown)
