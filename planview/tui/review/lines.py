"""A plan's rendered lines at one width, laid out section by section, and reading positions in them.

No widget here: `PlanBody` owns one `LaidOutLines`, decides when to lay out more (the first
screenful, then slices between frames) and draws the rows on screen from it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Literal

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from planview.plan.document import Section
from planview.tui.review.render import GUTTER, SectionRenderer
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


class LaidOutLines:
    """The rendered lines of a document's leading sections (all of them once the layout is done).

    `strips[i]` is rendered line i (without the gutter), `sources[i]` its 1-based source line and
    `starts[k]` the rendered line section k begins at; the first `done` sections are laid out.
    """

    def __init__(self, width: int = 0, first_lines: Sequence[int] = ()) -> None:
        self.strips: list[Strip] = []
        self.sources: list[int] = []  # absolute 1-based source line per rendered line
        self.starts: list[int] = []  # rendered line of each section's first line
        self.width = width  # the render width the lines are laid out for (without the gutter)
        self.done = 0  # sections laid out so far (in order)
        self.first_lines: list[int] = list(first_lines)  # each section's first source line
        self.plain_code = False  # a section was drawn with plain code (its lexer not loaded yet)

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
        render, width = renderer.render, self.width
        strips, sources, starts = self.strips, self.sources, self.starts
        while self.done < len(sections) and (
            len(strips) < lines or self.done < count or perf_counter() < deadline
        ):
            section = sections[self.done]
            pieces = diffs.get(self.done) if diffs else None
            if pieces is not None:
                rendered = renderer.render_diff(pieces, width, theme)
            else:
                rendered = render(section.text, width, theme, front_matter)
            starts.append(len(strips))
            strips.extend(rendered.lines)
            base = section.start
            sources.extend(base + s for s in rendered.sources)
            self.plain_code = self.plain_code or rendered.plain_code
            self.done += 1
        if self.done == len(sections) and whole and len(strips) > 1 and not strips[-1].cell_length:
            # The last section's gap line has no next section to separate from: a plan that fits
            # must not overflow by one blank line.
            strips.pop()
            sources.pop()

    def section_at(self, line: int) -> int | None:
        """Index of the section holding rendered `line`."""
        if not self.starts:
            return None
        return max(0, bisect_right(self.starts, line) - 1)

    def section_length(self, index: int) -> int:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.strips)
        return end - self.starts[index]

    def line_text(self, line: int) -> str:
        """The characters of rendered `line` (without the gutter)."""
        return "".join(s.text for s in self.strips[line]) if 0 <= line < len(self.strips) else ""

    def row(self, index: int, width: int, mark: Style | None, base: Style, glyph: str = "▎") -> Strip:
        """Rendered line `index` as a row `width` cells wide: the gutter (`glyph` in `mark`), the line, padding."""
        gutter = Segment(glyph.ljust(GUTTER), mark) if mark is not None else Segment(" " * GUTTER)
        line = self.strips[index]
        pad = width - GUTTER - line.cell_length
        if pad >= 0:  # (always, but on a view narrower than the gutter): one Strip made per row
            segments = [gutter, *line, Segment(" " * pad)] if pad else [gutter, *line]
            return Strip(Segment.apply_style(segments, base), width)
        return Strip([gutter, *line]).crop_extend(0, width, None).apply_style(base)

    # -- reading positions --------------------------------------------------------------------
    def capture(self, keep: Keep, top: int, sections: Sequence[Section]) -> Anchor:
        """Where the reader is, with rendered line `top` on the top row, held the way `keep` says."""
        if not self.strips:
            return None
        top = min(top, len(self.strips) - 1)
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
