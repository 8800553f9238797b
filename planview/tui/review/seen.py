"""What the reader has been shown: the source lines that were on screen, and so the sections seen.

Kept as merged intervals of 1-based source lines, so a resize (which lays the plan out again at
another width) keeps what was seen. A section counts as seen once every line of it that draws
something has been on screen (a section taller than the view is seen once it was scrolled through).
"""

from __future__ import annotations

from bisect import bisect_right


class SeenLines:
    """Merged, sorted [first, last] source-line intervals that were on screen."""

    def __init__(self) -> None:
        self.intervals: list[tuple[int, int]] = []

    def add(self, first: int, last: int) -> None:
        if last < first:
            return
        merged: list[tuple[int, int]] = []
        for a, b in self.intervals:
            if b + 1 < first or last + 1 < a:
                merged.append((a, b))
            else:
                first, last = min(a, first), max(b, last)
        merged.append((first, last))
        merged.sort()
        self.intervals = merged

    def covers(self, first: int, last: int) -> bool:
        """Were all of lines first..last on screen (at some time, not necessarily at once)?"""
        if last < first:
            return True
        i = bisect_right(self.intervals, (first, float("inf"))) - 1
        return i >= 0 and self.intervals[i][0] <= first and last <= self.intervals[i][1]

    def clear(self) -> None:
        self.intervals = []
