"""A plan's rendered lines at one width, laid out section by section, and reading positions in them.

No widget here: `PlanBody` owns one `LaidOutLines`, decides when to lay out more (the first
screenful, then slices between frames) and draws the rows on screen from it.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Literal

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from planview.plan.document import Section
from planview.tui.review.render import GUTTER, RenderedSection, SectionRenderer
from planview.tui.review.theme import RenderTheme

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.word_diff import Piece

Keep = Literal["source", "section", "top"]


@dataclass(frozen=True)
class SectionAnchor:
    """A reading position held across a reload: the section (by index, then title) and the offset in it."""

    index: int
    title: str
    offset: int


# A reading position held across a resize: (source line, rendered lines past its first).
SourceAnchor = tuple[int, int]
Anchor = SourceAnchor | SectionAnchor | None


# The rendered lines kept in memory, by whole sections, most recently drawn first: the rest are drawn
# again when scrolled back to (each section renders to the same lines at the same width). A 50,000-line
# plan held every line's strips (about 1.7 kB each); now memory follows the screen, not the plan.
WINDOW_LINES = 1500


class _Strips(Sequence[Strip]):
    """`LaidOutLines.strips`: every laid-out line by index, drawn from the window on demand."""

    def __init__(self, owner: LaidOutLines) -> None:
        self._owner = owner

    def __len__(self) -> int:
        return self._owner.total

    def __getitem__(self, index):  # an int or a slice, as a list takes
        owner = self._owner
        if isinstance(index, slice):
            return [owner.strip(i) for i in range(*index.indices(owner.total))]
        if index < 0:
            index += owner.total
        if not 0 <= index < owner.total:
            raise IndexError(index)
        return owner.strip(index)


class LaidOutLines:
    """The rendered lines of a document's leading sections (all of them once the layout is done).

    `strips[i]` is rendered line i (without the gutter), `sources[i]` its 1-based source line and
    `starts[k]` the rendered line section k begins at; the first `done` sections are laid out.
    Only the strips of recently drawn sections stay in memory (WINDOW_LINES); positions and
    source lines are kept for every laid-out line.
    """

    def __init__(self, width: int = 0, first_lines: Sequence[int] = ()) -> None:
        self.total = 0  # rendered lines laid out so far
        self.sources = array("l")  # absolute 1-based source line per rendered line
        self.starts: list[int] = []  # rendered line of each section's first line
        self.width = width  # the render width the lines are laid out for (without the gutter)
        self.done = 0  # sections laid out so far (in order)
        self.first_lines: list[int] = list(first_lines)  # each section's first source line
        self.plain_code = False  # a section was drawn with plain code (its lexer not loaded yet)
        self.strips = _Strips(self)
        self._window: OrderedDict[int, tuple[Strip, ...]] = OrderedDict()
        self._window_lines = 0
        self._trimmed = False  # the last section's gap line was dropped (see `add`)
        self._draw: Callable[[int], tuple[Strip, ...]] | None = None  # renders section k again

    def strip(self, index: int) -> Strip:
        """Rendered line `index` (0 <= index < total), drawing its section again if it left the window."""
        k = bisect_right(self.starts, index) - 1
        lines = self._window.get(k)
        if lines is None:
            assert self._draw is not None
            lines = self._draw(k)
            if k == self.done - 1 and self._trimmed:
                lines = lines[:-1]
            self._keep(k, lines)
        else:
            self._window.move_to_end(k)
        return lines[index - self.starts[k]]

    def _keep(self, k: int, lines: tuple[Strip, ...]) -> None:
        self._window[k] = lines
        self._window_lines += len(lines)
        while self._window_lines > WINDOW_LINES and len(self._window) > 1:
            _k, old = self._window.popitem(last=False)
            self._window_lines -= len(old)

    def add(
        self,
        sections: Sequence[Section],
        renderer: SectionRenderer,
        theme: RenderTheme,
        front_matter: bool,
        *,
        lines: int = 0,
        count: int = 0,
        deadline: float = 0.0,
        whole: bool = True,
        diffs: Mapping[int, tuple[Piece, ...]] | None = None,
    ) -> None:
        """Lay out further sections until `lines` lines and `count` sections exist and `deadline` passed.

        Each section is rendered by `renderer` at this width in `theme`, its front matter in full
        when `front_matter`. `whole`: `sections` are all of the plan's (not a long plan's first ones).
        `diffs`: sections drawn as their word diff instead (`d`), by index.
        """
        width = self.width

        def draw(k: int) -> RenderedSection:
            pieces = diffs.get(k) if diffs else None
            if pieces is not None:
                return renderer.render_diff(pieces, width, theme)
            return renderer.render(sections[k].text, width, theme, front_matter)

        self._draw = lambda k: draw(k).lines
        sources, starts = self.sources, self.starts
        if self._trimmed:  # more sections follow after all (a partial document grew): the gap is back
            self._trimmed = False
            self._window.pop(self.done - 1, None)
            self.total += 1
            sources.append(sources[-1])
        while self.done < len(sections) and (
            self.total < lines or self.done < count or perf_counter() < deadline
        ):
            section = sections[self.done]
            rendered = draw(self.done)
            starts.append(self.total)
            self.total += len(rendered.lines)
            base = section.start
            sources.extend(base + s for s in rendered.sources)
            self.plain_code = self.plain_code or rendered.plain_code
            self._keep(self.done, rendered.lines)
            self.done += 1
        if (
            self.done == len(sections)
            and whole
            and self.total > 1
            and not self.strip(self.total - 1).cell_length
        ):
            # The last section's gap line has no next section to separate from: a plan that fits
            # must not overflow by one blank line.
            self._trimmed = True
            last = self.done - 1
            kept = self._window.pop(last, None)
            if kept is not None:
                self._window_lines -= len(kept)
                self._keep(last, kept[:-1])
            self.total -= 1
            sources.pop()

    def section_at(self, line: int) -> int | None:
        """Index of the section holding rendered `line`."""
        if not self.starts:
            return None
        return max(0, bisect_right(self.starts, line) - 1)

    def section_length(self, index: int) -> int:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else self.total
        return end - self.starts[index]

    def line_text(self, line: int) -> str:
        """The characters of rendered `line` (without the gutter)."""
        return "".join(s.text for s in self.strip(line)) if 0 <= line < self.total else ""

    def row(self, index: int, width: int, mark: Style | None, base: Style, glyph: str = "▎") -> Strip:
        """Rendered line `index` as a row `width` cells wide: the gutter (`glyph` in `mark`), the line, padding."""
        gutter = Segment(glyph.ljust(GUTTER), mark) if mark is not None else Segment(" " * GUTTER)
        line = self.strip(index)
        pad = width - GUTTER - line.cell_length
        if pad >= 0:  # (always, but on a view narrower than the gutter): one Strip made per row
            segments = [gutter, *line, Segment(" " * pad)] if pad else [gutter, *line]
            return Strip(Segment.apply_style(segments, base), width)
        return Strip([gutter, *line]).crop_extend(0, width, None).apply_style(base)

    # -- reading positions --------------------------------------------------------------------
    def capture(self, keep: Keep, top: int, sections: Sequence[Section]) -> Anchor:
        """Where the reader is, with rendered line `top` on the top row, held the way `keep` says."""
        if not self.total:
            return None
        top = min(top, self.total - 1)
        if keep == "source":
            source = self.sources[top]
            first = bisect_left(self.sources, source)
            return (source, max(0, top - first))
        if keep == "section" and sections:
            index = self.section_at(top) or 0
            return SectionAnchor(index, sections[index].title, top - self.starts[index])
        return None

    def sections_needed(self, anchor: Anchor, sections: Sequence[Section]) -> int:
        """How many sections must be laid out before `line_of(anchor)` can answer."""
        if isinstance(anchor, tuple) and self.first_lines:
            return bisect_right(self.first_lines, anchor[0])
        if isinstance(anchor, SectionAnchor) and sections:
            return _anchor_section(anchor, sections) + 2
        return 0

    def line_of(self, anchor: Anchor, sections: Sequence[Section]) -> int:
        """The rendered line to put on the top row for `anchor` (0 when there is none)."""
        if isinstance(anchor, tuple) and self.first_lines:
            source, offset = anchor
            if not self.sources:
                return 0
            first = min(bisect_left(self.sources, source), len(self.sources) - 1)
            run_end = bisect_right(self.sources, self.sources[first])
            return min(first + offset, max(first, run_end - 1))
        if isinstance(anchor, SectionAnchor) and sections:
            index = _anchor_section(anchor, sections)
            length = self.section_length(index)
            return self.starts[index] + min(anchor.offset, max(0, length - 1))
        return 0


def _anchor_section(anchor: SectionAnchor, sections: Sequence[Section]) -> int:
    """The anchor's section in `sections`: the same index if its title still matches, else by title."""
    if anchor.index < len(sections) and sections[anchor.index].title == anchor.title:
        return anchor.index
    return next((s.index for s in sections if s.title == anchor.title), min(anchor.index, len(sections) - 1))
