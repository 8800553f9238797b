"""Footer key hints that drop whole, lowest priority first, never cut mid-word (pure).

Each footer leads with its safe exit (`Esc keep planning`, `Esc back to plan`), so on the
narrowest terminal the one hint left is the way out.
"""

from __future__ import annotations

from collections.abc import Sequence

Hint = tuple[str, str]  # (key, what it does)

REVIEW_HINTS: tuple[Hint, ...] = (
    ("Esc", "keep planning"),
    ("a", "approve & run"),
    ("r", "refine"),
    ("n/p", "section"),
    ("?", "keys"),
)
EDITOR_HINTS: tuple[Hint, ...] = (
    ("Esc", "back to plan"),
    ("Enter", "send"),
    ("Ctrl+J", "newline"),
)
SEPARATOR = "   "


def hint_text(hint: Hint) -> str:
    key, label = hint
    return f"{key} {label}" if label else key


def fit_hints(hints: Sequence[Hint], width: int) -> tuple[Hint, ...]:
    """The leading hints that fit in `width` columns, each whole.

    Hints are in priority order; a later hint never shows when an earlier one was dropped. When
    not even the first fits, its label loses whole words from the end (down to the bare key).
    """
    kept: list[Hint] = []
    used = 0
    for hint in hints:
        size = len(hint_text(hint)) + (len(SEPARATOR) if kept else 0)
        if used + size > width:
            break
        kept.append(hint)
        used += size
    if kept or not hints:
        return tuple(kept)
    key, label = hints[0]
    words = label.split()
    while words and len(hint_text((key, " ".join(words)))) > width:
        words.pop()
    shortened = (key, " ".join(words))
    return (shortened,) if len(hint_text(shortened)) <= width else ()


def hints_text(hints: Sequence[Hint], width: int) -> str:
    return SEPARATOR.join(hint_text(h) for h in fit_hints(hints, width))
