"""`/`: incremental search over the plan as drawn, without laying the whole plan out first.

Matches are found in the rendered lines (what the reader sees: markup gone, tables drawn), one
section at a time and only as far as the next match: a section is laid out only when its source
text could hold the query (`could_match`), so a search in a 10,000-line plan lays out the sections
between here and the next match, not the plan. Case is smart: all lower case matches any case, a
capital letter makes the search exact. A match lies within one drawn line (a phrase cut by the
line's wrap is not found).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from textual import events
from textual.message import Message
from textual.widgets import Input

from planview.plan.document import Section

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.tui.review.body import PlanBody

# Markup that a source line has and its drawn line has not (emphasis, code, links, tables, headings).
_MARKUP = re.compile(r"[*_`~\[\]()<>#|\\]+")
_SPACE = re.compile(r"\s+")


def exact_case(query: str) -> bool:
    """Smart case: a query with a capital letter matches case exactly."""
    return any(c.isupper() for c in query)


def _norm(text: str, exact: bool) -> str:
    text = _SPACE.sub(" ", _MARKUP.sub("", text))
    return text if exact else text.casefold()


def could_match(source: str, query: str) -> bool:
    """Could `source` (a section's markdown) be drawn with `query` in it? Never a false no for a
    query within one line: markup is dropped from both sides before comparing."""
    exact = exact_case(query)
    needle = _norm(query, exact).strip()
    return not needle or needle in _norm(source, exact)


def find(text: str, query: str) -> list[tuple[int, int]]:
    """The (start, end) cell ranges of `query` in the drawn line `text` (smart case)."""
    if not query:
        return []
    exact = exact_case(query)
    hay, needle = (text, query) if exact else (text.casefold(), query.casefold())
    if len(hay) != len(text):  # casefold changed the length (ß → ss): search the lower case instead
        hay, needle = text.lower(), query.lower()
    found, start = [], hay.find(needle)
    while start >= 0 and needle:
        end = start + len(needle)
        found.append((cell_len(text[:start]), cell_len(text[:end])))
        start = hay.find(needle, end)
    return found


@dataclass(frozen=True)
class Match:
    """One match: rendered line, its cell range in that line, its section."""

    line: int
    start: int
    end: int
    section: int


class SearchBar(Input):
    """The query; Enter / ↓ next match, ↑ previous, Esc leaves (all posted to the screen)."""

    class Step(Message):
        """Move to the next (+1) or previous (-1) match."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    class Leave(Message):
        """Esc: the search closes, the view stays where it is."""

    KEYS = {"enter": 1, "down": 1, "up": -1}  # (keymap.SEARCH says the same to the reader)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="search the plan", id=id, compact=True)

    async def _on_key(self, event: events.Key) -> None:
        if event.key in self.KEYS:
            event.stop()
            event.prevent_default()
            self.post_message(self.Step(self.KEYS[event.key]))
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.post_message(self.Leave())
            return
        await super()._on_key(event)


class PlanSearch:
    """The matches of one query in a `PlanBody`'s document, found section by section as needed."""

    def __init__(self, body: PlanBody) -> None:
        self.body = body
        self.query = ""
        self.current: Match | None = None

    def _sections(self) -> tuple[Section, ...]:
        document = self.body.document
        return document.sections if document is not None else ()

    def matches_in(self, index: int) -> list[Match]:
        """The matches in section `index` (laid out first; skipped when its source cannot match)."""
        sections = self._sections()
        if (
            not self.query
            or not 0 <= index < len(sections)
            or not could_match(sections[index].text, self.query)
        ):
            return []
        start, end = self.body.section_line_range(index)
        return [
            Match(line, a, b, index)
            for line in range(start, end)
            for a, b in find(self.body.line_text(line), self.query)
        ]

    def step(self, line: int, cell: int, delta: int, inclusive: bool = False) -> tuple[Match | None, bool]:
        """The match after (`delta` 1) or before (-1) cell `cell` of rendered `line` — at it too when
        `inclusive` — and whether the search went round the end of the plan to find it."""
        count = len(self._sections())
        if not self.query or not count:
            return None, False
        here = self.body.section_at(line) or 0
        origin = (line, cell)

        def beyond(match: Match) -> bool:
            position = (match.line, match.start)
            if inclusive and position == origin:
                return True
            return position > origin if delta > 0 else position < origin

        ahead = range(here, count) if delta > 0 else range(here, -1, -1)
        around = range(0, here + 1) if delta > 0 else range(count - 1, here - 1, -1)
        for wrapped, indices in ((False, ahead), (True, around)):
            for index in indices:
                found = self.matches_in(index)
                for match in found if delta > 0 else reversed(found):
                    if wrapped or index != here or beyond(match):
                        return match, wrapped
        return None, False

    def count(self) -> tuple[int, int, bool]:
        """(the current match's number, the matches in the plan, exact): sections not laid out yet are
        counted in their source text (not exact) rather than laid out for a count."""
        sections = self._sections()
        done = self.body.laid_out.done
        total, number, exact = 0, 0, True
        for index, section in enumerate(sections):
            if index < done:
                found = self.matches_in(index)
                if self.current is not None and index == self.current.section:
                    number = (
                        total
                        + 1
                        + sum(1 for m in found if (m.line, m.start) < (self.current.line, self.current.start))
                    )
                total += len(found)
            elif self.query:
                exact = False
                exact_ = exact_case(self.query)
                needle = _norm(self.query, exact_).strip()
                total += _norm(section.text, exact_).count(needle) if needle else 0
        return number, total, exact

    def marks(self, line: int, style: Style, current: Style) -> list[tuple[int, int, Style]]:
        """The match highlights on rendered `line` (the current match in `current`)."""
        if not self.query:
            return []
        hit = self.current
        return [
            (a, b, current if hit is not None and hit.line == line and hit.start == a else style)
            for a, b in find(self.body.line_text(line), self.query)
        ]
