"""Long words (paths, URLs) wrapped after a separator instead of wherever the width runs out.

Rich wraps at blanks and folds a word wider than the line at the last column, so a plan path in a
tool result came out as `…-greet.m` / `d: step 3 completed`. `SeparatorWrap` gives such a word
break points after `/` (else `-` or `_`, else `.` or `:`) for the width it is drawn at; a word with none is
still folded by Rich.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

_WORD = re.compile(r"\S+")
# Break after a folder first, then between the words of a name, then before an extension.
_BREAK_AFTER = ("/\\", "-_", ".:,;")


def _cut(word: str, start: int, end: int) -> int:
    for separators in _BREAK_AFTER:
        for i in range(end, start, -1):
            if word[i - 1] in separators:
                return i
    return end


def _pieces(word: str, width: int) -> list[int]:
    """Offsets (into `word`) where it is broken so that every piece fits `width`."""
    cuts: list[int] = []
    start = 0
    while len(word) - start > width:
        start = _cut(word, start, start + width)
        cuts.append(start)
    return cuts


def break_long_words(text: Text, width: int) -> Text:
    """`text` with a newline inside every word wider than `width`, after a separator where it has one."""
    if width < 8 or len(text.plain) <= width:
        return text
    cuts = [
        match.start() + cut
        for match in _WORD.finditer(text.plain)
        if match.end() - match.start() > width
        for cut in _pieces(match.group(), width)
    ]
    if not cuts:
        return text
    out = Text(style=text.style, justify=text.justify, no_wrap=text.no_wrap, end=text.end)
    start = 0
    for cut in cuts:
        out.append_text(text[start:cut])
        out.append("\n")
        start = cut
    out.append_text(text[start:])
    return out


class SeparatorWrap:
    """Draw a Text with its long words broken after separators for the width it gets."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield break_long_words(self.text, options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)
