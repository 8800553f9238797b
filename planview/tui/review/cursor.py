"""The section cursor's arithmetic (pure: line numbers in, line numbers out).

`n`/`p` move a cursor over the sections in order, whatever the view can show: the view scrolls only
as far as it takes to show the cursor's section (`reveal_top`). The reader's own scrolling moves the
cursor to the section on the top row (`follow_top`), which only ever moves the way the view did, so
the scroll row never flips between two names while scrolling one way.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence


def reveal_top(top: int, height: int, start: int, end: int, content_end: int) -> int:
    """The top line that shows the section on rendered lines [start, end), scrolling as little as
    possible from `top`: none when it is all in view; a section taller than the view gets its
    heading on the top row. Never past `content_end` (the top line that shows the plan's end)."""
    height = max(1, height)
    if end - start > height:
        target = start
    elif start >= top and end <= top + height:
        return top
    elif start < top:
        target = start
    else:
        target = end - height
    return max(0, min(target, content_end))


def follow_top(starts: Sequence[int], top: int) -> int | None:
    """The section holding the top row (the cursor's place after the reader scrolled)."""
    if not starts:
        return None
    return max(0, bisect_right(starts, top) - 1)


def step(index: int, count: int, delta: int) -> int | None:
    """The section `delta` away from `index` among `count`, or None past the first or the last."""
    target = index + delta
    return target if 0 <= target < count else None


def next_changed(index: int, changed: frozenset[int], delta: int) -> int | None:
    """The nearest changed section after (`delta` 1) or before (-1) `index`, or None."""
    candidates = [i for i in changed if (i > index if delta > 0 else i < index)]
    if not candidates:
        return None
    return min(candidates) if delta > 0 else max(candidates)
