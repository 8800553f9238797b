"""Fitting text into terminal cells: CJK-aware wrapping and table column widths (pure)."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache

from rich.cells import cell_len
from rich.text import Text

# East Asian wide characters: a line may break between any two of them (they use no spaces).
_WIDE_RANGES = (
    (0x1100, 0x115F),
    (0x2E80, 0x303E),
    (0x3041, 0x33FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA000, 0xA4CF),
    (0xAC00, 0xD7A3),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFF60),
    (0xFFE0, 0xFFE6),
)
_WIDE_STARTS = tuple(first for first, _last in _WIDE_RANGES)
_WIDE = "".join(f"{chr(first)}-{chr(last)}" for first, last in _WIDE_RANGES)


def has_wide(text: str) -> bool:
    """Whether `text` holds a wide character. (Not a `[...]` regex: compiling a class this large
    costs milliseconds, paid before the first frame.)"""
    if text.isascii():
        return False
    for code in map(ord, set(text)):
        if code >= 0x1100:
            i = bisect_right(_WIDE_STARTS, code) - 1
            if i >= 0 and code <= _WIDE_RANGES[i][1]:
                return True
    return False


# Closing punctuation and small kana never start a line (kinsoku): they stay with the character before.
_CLOSING = "、。，．・：；？！）」』】〕〉》〙〗｝］ー々ゝゞぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"


@cache
def _units() -> re.Pattern[str]:
    """Words and wide characters with their closing punctuation (compiled on first CJK line: 10 ms)."""
    return re.compile(f"([{_WIDE}][{_CLOSING}]*|[^\\s{_WIDE}]+[{_CLOSING}]*)(\\s*)")


def wrap_wide(line: Text, width: int) -> list[Text]:
    """Wrap a line holding CJK text: break at spaces or between wide characters; fold long words."""
    plain = line.plain
    offsets: list[int] = []
    column = cell_len(plain[: len(plain) - len(plain.lstrip())])  # indentation
    for match in _units().finditer(plain):
        word, space = match.group(1), match.group(2)
        size = cell_len(word)
        if column and column + size > width:
            offsets.append(match.start())
            column = 0
        if size > width:  # a word longer than a line: fold it
            for i, char in enumerate(word):
                char_size = cell_len(char)
                if column and column + char_size > width:
                    offsets.append(match.start() + i)
                    column = 0
                column += char_size
        else:
            column += size
        column += cell_len(space)
    out = []
    for piece in line.divide(offsets):
        piece.rstrip()
        out.append(piece)
    return out or [Text("")]


def fit_columns(natural: list[int], available: int) -> list[int]:
    """Column widths within `available` cells: the widest columns give way first."""
    if sum(natural) <= available:
        return natural
    if available <= len(natural):
        return [1] * len(natural)  # the line is cropped at the width
    low, high = 1, max(natural)
    while low < high:  # the largest cap that fits
        middle = (low + high + 1) // 2
        if sum(min(n, middle) for n in natural) <= available:
            low = middle
        else:
            high = middle - 1
    widths = [min(n, low) for n in natural]
    spare = available - sum(widths)
    for i, n in enumerate(natural):
        if spare <= 0:
            break
        if n > widths[i]:
            widths[i] += 1
            spare -= 1
    return widths


# Code breaks after these (a path's "/", an argument's ",", an operator); a space is better still.
_CODE_BREAK_AFTER = frozenset(",;)]}/.-=:&|>+*")
CONTINUATION = "↪ "  # starts every continuation line of wrapped code (2 cells)


def code_break_offsets(plain: str, width: int, rest_width: int | None = None) -> list[int]:
    """Where to break a code line longer than `width` cells; later lines have `rest_width` cells.

    Prefers the last space (the next line starts at a token; the spaces end the line before, to be
    trimmed), then the last punctuation mark, in the later half of the line; folds mid-token only
    when a line has neither.
    """
    rest_width = width if rest_width is None else rest_width
    offsets: list[int] = []
    start, room = 0, max(1, width)
    while cell_len(plain[start:]) > room:
        end, used = start, 0
        while end < len(plain) and used + cell_len(plain[end]) <= room:
            used += cell_len(plain[end])
            end += 1
        end = max(end, start + 1)
        floor = start + max(1, (end - start) // 2)
        cut = _last_break(plain, floor, end)
        while cut < len(plain) and plain[cut] == " ":
            cut += 1  # a run of spaces ends the line (trimmed when drawn), never starts the next
        if cut >= len(plain):
            break
        offsets.append(cut)
        start, room = cut, max(1, rest_width)
    return offsets


def _last_break(plain: str, floor: int, end: int) -> int:
    """The best offset in (floor, end] to break before; `end` (a fold) when there is none."""
    for i in range(end, floor, -1):
        if plain[i - 1] == " ":
            return i
    for i in range(end, floor, -1):
        if plain[i - 1] in _CODE_BREAK_AFTER:
            return i
    return end
