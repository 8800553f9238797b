"""The plan body: a line-based scroll view (Textual's Line API) over pre-rendered sections.

Nothing is mounted per block. Each section is rendered once per (text, width, theme) by
`SectionRenderer` and the view only hands out the strips for the rows on screen, so a
10,000-line plan scrolls like a short one and a reload re-renders only the changed sections.

Positions: `top_line` is the first visible rendered line (0-based). The view remembers where
the reader is by source line across a resize (`top_source_line`), and by section + offset across a
reload (the section may have moved). The last section's heading can always reach the top row:
when it is shorter than the view, blank space is allowed after it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from time import perf_counter

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from planview.plan.document import PlanDocument
from planview.tui.review.first_frame import after_first_frame
from planview.tui.review.lines import Anchor, Keep, LaidOutLines, SectionAnchor
from planview.tui.review.render import GUTTER, RenderTheme, SectionRenderer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.word_diff import Piece

# Layout is progressive. The very first frame gets one screenful and nothing more; later layouts
# (resize, reload) render at least FIRST_BUDGET seconds' worth at once; the rest is laid out in
# CHUNK-second slices between frames, so a 10,000-line plan paints as fast as a short one and keys
# stay responsive while the tail is laid out. Slices start only after the first frame is on the
# terminal (see `after_first_frame`).
FIRST_BUDGET = 0.05
CHUNK = 0.04


READING_MEASURE = 100  # the widest a plan's lines are laid out, in cells


class PlanBody(ScrollView, can_focus=True):
    """Shows a PlanDocument; the screen drives it and reads its position."""

    DEFAULT_CSS = """
    PlanBody {
        scrollbar-gutter: stable;
        overflow-x: hidden;
        overflow-y: auto;
    }
    """

    class Moved(Message):
        """The view scrolled or was laid out again (the scroll row and gauge follow)."""

    class ReaderScrolled(Message):
        """The reader scrolled the view with the mouse or the scrollbar (the section cursor follows)."""

    def __init__(self, renderer: SectionRenderer | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.renderer = renderer or SectionRenderer()
        self.document: PlanDocument | None = None
        self.changed: frozenset[int] = frozenset()
        self.empty_message = "This plan is empty"
        self.render_theme = RenderTheme()
        self.laid_out = LaidOutLines()  # replaced by a fresh one at each new layout
        self.show_front_matter = False  # YAML front matter folded to one line until `f`
        self._pending: Keep | None = None
        self._pending_anchor: Anchor = None
        # A partial document holds only the plan's leading sections (a long plan's first screens,
        # parsed before the rest); `more` is called when the body needs what lies beyond them and
        # answers by calling `adopt` with the whole document.
        self.partial = False
        self.more: Callable[[], None] | None = None
        self._source_lines = 0  # the whole plan's source lines (known before its sections are)
        self._continuing = False  # a layout slice is scheduled
        self._first_frame = False  # a frame has been drawn for real: slices may run
        self._awaiting_frame = False  # `_first_frame_drawn` is scheduled
        self._base_style: Style | None = None  # while a paint runs (`render_lines`)
        # `d`: the changed sections drawn as word diffs against the last review (by section index).
        self.diffs: dict[int, tuple[Piece, ...]] | None = None
        # (review: cursor) the section the screen's cursor is on, drawn with a bar in the gutter
        self.cursor: int | None = None
        # (review: search) extra styles over cell ranges of a rendered line: line -> [(start, end, style)]
        self.marks: Callable[[int], Sequence[tuple[int, int, Style]]] | None = None

    # -- state the screen and the tests read --------------------------------------------------
    @property
    def layout_complete(self) -> bool:
        return self.document is None or (
            not self.partial and self.laid_out.done >= len(self.document.sections)
        )

    @property
    def total_lines(self) -> int:
        """Rendered lines (while the layout is still running: plus an estimate for the rest)."""
        laid_out = self.laid_out
        if self.layout_complete:
            return len(laid_out.strips)
        assert self.document is not None
        sections, done = self.document.sections, laid_out.done
        if done < len(sections):
            rest = self._source_lines - sections[done].start + 1 + (len(sections) - done)
        else:  # a partial document, all laid out: the rest is not parsed yet
            rest = self._source_lines - (sections[-1].end if sections else 0)
        return len(laid_out.strips) + max(0, rest)

    @property
    def viewport_height(self) -> int:
        return max(1, self.scrollable_content_region.height)

    @property
    def top_line(self) -> int:
        return int(self.scroll_y)

    @property
    def overflowing(self) -> bool:
        return self.total_lines > self.viewport_height

    @property
    def content_end(self) -> int:
        """The top line at which the last line of the plan is at the bottom of the view."""
        return max(0, self.total_lines - self.viewport_height)

    @property
    def section_starts(self) -> tuple[int, ...]:
        return tuple(self.laid_out.starts)

    @property
    def top_source_line(self) -> int | None:
        sources = self.laid_out.sources
        if not sources:
            return None
        return sources[min(self.top_line, len(sources) - 1)]

    def section_at(self, line: int) -> int | None:
        """Index of the section holding rendered `line`."""
        return self.laid_out.section_at(line)

    @property
    def current_section(self) -> int | None:
        return self.section_at(self.top_line)

    def line_text(self, line: int) -> str:
        """The characters of rendered `line` (without the gutter)."""
        return self.laid_out.line_text(line)

    # -- content ------------------------------------------------------------------------------
    def show(
        self,
        document: PlanDocument,
        changed: frozenset[int],
        keep: Keep = "top",
        *,
        partial_of: int | None = None,
    ) -> None:
        """Display `document`; `keep` says how to hold the reading position across the change.

        `partial_of`: `document` holds only the leading sections of a plan of that many source
        lines; the rest comes through `more` / `adopt`.
        """
        anchor = self._capture(keep) if self.document is not None else None
        self.document = document
        self.changed = changed
        self.partial = partial_of is not None
        sections = document.sections
        self._source_lines = partial_of if partial_of is not None else (sections[-1].end if sections else 0)
        if self.laid_out.width > 0:
            self._layout(self.laid_out.width)
            self._restore(keep, anchor)
        else:
            self._pending, self._pending_anchor = keep, anchor
        self.refresh()

    def adopt(self, document: PlanDocument, changed: frozenset[int]) -> None:
        """Replace a partial document with the whole one; laid-out lines stay when they agree."""
        old = self.document
        done = self.laid_out.done
        same = (
            old is not None
            and self.laid_out.width > 0
            and len(document.sections) >= done
            and all(
                a.start == b.start and a.text == b.text and a.title == b.title
                for a, b in zip(old.sections[:done], document.sections[:done], strict=True)
            )
        )
        if not same:
            self.show(document, changed, keep="source")
            return
        self.document = document
        self.changed = changed
        self.partial = False
        self._source_lines = document.sections[-1].end if document.sections else 0
        self.laid_out.first_lines = [section.start for section in document.sections]
        self._update_virtual_size()
        self._schedule_layout()
        self.refresh()
        self.post_message(self.Moved())

    def toggle_front_matter(self) -> None:
        """Show the front matter in full, or fold it to one line again (the reading position holds)."""
        self.show_front_matter = not self.show_front_matter
        if self.laid_out.width > 0 and self.document is not None:
            anchor = self._capture("source")
            self._layout(self.laid_out.width)
            self._restore("source", anchor)
            self.post_message(self.Moved())
        self.refresh()

    @property
    def show_diff(self) -> bool:
        return self.diffs is not None

    def set_diff(self, diffs: dict[int, tuple[Piece, ...]] | None) -> None:
        """Draw these sections as their word diffs (None: as the plan again); the reading position holds."""
        if diffs == self.diffs:
            return
        self.diffs = diffs
        if self.laid_out.width > 0 and self.document is not None:
            anchor = self._capture("source")
            self._layout(self.laid_out.width)
            self._restore("source", anchor)
            self.post_message(self.Moved())
        self.refresh()

    def set_theme(self, theme: RenderTheme) -> None:
        if theme == self.render_theme:
            return
        self.render_theme = theme
        if self.laid_out.width > 0 and self.document is not None:
            anchor = self._capture("source")
            self._layout(self.laid_out.width)
            self._restore("source", anchor)
        self.refresh()

    def _render_width(self) -> int:
        # Prose is laid out no wider than a reading measure (at 200 columns it ran ~190 characters);
        # the browser review caps its column the same way.
        return max(1, min(self.scrollable_content_region.width - GUTTER, READING_MEASURE))

    def on_resize(self) -> None:
        width = self._render_width()
        if self.document is None:
            self._update_virtual_size()
            return
        if width != self.laid_out.width:
            keep: Keep = "source"
            anchor = self._capture(keep)
            if self._pending is not None:
                keep, anchor = self._pending, self._pending_anchor
                self._pending = self._pending_anchor = None
            self._layout(width)
            self._restore(keep, anchor)
        else:
            self._update_virtual_size()
        self.post_message(self.Moved())

    def _layout(self, width: int) -> None:
        """Start laying the document out at `width`: the first screenful now, the rest between frames."""
        assert self.document is not None
        self.laid_out = LaidOutLines(width, [section.start for section in self.document.sections])
        # Before the first frame code is drawn plain when its lexer is not loaded yet (see below).
        self.renderer.quick = not self._first_frame
        if self._first_frame:
            self._extend(lines=2 * self.viewport_height, deadline=perf_counter() + FIRST_BUDGET, wait=False)
        else:  # the very first frame: one screenful, nothing more before it is out
            self._extend(lines=self.viewport_height + 1, wait=False)
        self._update_virtual_size()
        self._schedule_layout()

    def _schedule_layout(self) -> None:
        """Lay out the rest in slices between frames (once the first frame is really drawn)."""
        if not self._first_frame:
            if not self._awaiting_frame:
                self._awaiting_frame = True
                after_first_frame(self, self._first_frame_drawn)
            return
        if self.layout_complete or self._continuing:
            return
        if self.partial and self.document is not None and self.laid_out.done >= len(self.document.sections):
            return  # nothing to lay out until `adopt` brings the rest
        self._continuing = True
        self.call_later(self._continue_layout)

    def _first_frame_drawn(self) -> None:
        self._first_frame = True
        self.renderer.quick = False
        if self.laid_out.plain_code and self.document is not None and self.laid_out.width > 0:
            # Now load the lexers the first frame did without, and draw those sections again.
            anchor = self._capture("source")
            self._layout(self.laid_out.width)
            self._restore("source", anchor)
            self.refresh()
            self.post_message(self.Moved())
        self._schedule_layout()

    def _extend(self, *, lines: int = 0, sections: int = 0, deadline: float = 0.0, wait: bool = True) -> None:
        """Lay out further sections until `lines` lines and `sections` sections exist and `deadline` passed.

        When a partial document runs out before `lines` / `sections` are reached, `wait` asks for
        the whole document (`more`) and goes on with it: a jump always lands where it would in
        the complete layout.
        """
        while True:
            document = self.document
            if document is None:
                return
            laid_out = self.laid_out
            laid_out.add(
                document.sections,
                self.renderer,
                self.render_theme,
                self.show_front_matter,
                lines=lines,
                count=sections,
                deadline=deadline,
                whole=not self.partial,
                diffs=self.diffs,
            )
            short = len(laid_out.strips) < lines or laid_out.done < sections
            if not (short and wait and self.partial and self.more is not None):
                return
            self.more()  # calls `adopt` (or `show`) with the whole document
            if self.partial:
                return

    def _continue_layout(self) -> None:
        self._continuing = False
        if self.layout_complete:
            return
        # At least one section a slice: the layout always progresses.
        self._extend(sections=self.laid_out.done + 1, deadline=perf_counter() + CHUNK, wait=False)
        self._update_virtual_size()
        self.post_message(self.Moved())
        self._schedule_layout()

    def finish_layout(self) -> None:
        """Lay out everything now (G, or a jump past what is laid out)."""
        if self.partial and self.more is not None:
            self.more()
        if not self.layout_complete and self.document is not None:
            self._extend(sections=len(self.document.sections))
            self._update_virtual_size()

    def _ensure_lines(self, count: int, wait: bool = True) -> None:
        if not self.layout_complete and len(self.laid_out.strips) < count:
            self._extend(lines=count, wait=wait)
            self._update_virtual_size()

    def _ensure_sections(self, count: int) -> None:
        if not self.layout_complete and self.laid_out.done < count:
            self._extend(sections=count)
            self._update_virtual_size()

    def _update_virtual_size(self) -> None:
        # No room below the end: a jump never scrolls over blank rows past the plan's last line.
        self.virtual_size = Size(self.scrollable_content_region.width, self.total_lines)

    # -- keeping the reading position ---------------------------------------------------------
    def _capture(self, keep: Keep) -> Anchor:
        sections = self.document.sections if self.document is not None else ()
        return self.laid_out.capture(keep, self.top_line, sections)

    def _restore(self, keep: Keep, anchor: Anchor) -> None:
        sections = self.document.sections if self.document is not None else ()
        self._ensure_sections(self.laid_out.sections_needed(anchor, sections))
        target = self.laid_out.line_of(anchor, sections)
        self.scroll_to_line(target, allow_past_end=isinstance(anchor, SectionAnchor))

    def section_length(self, index: int) -> int:
        return self.laid_out.section_length(index)

    def section_line_range(self, index: int) -> tuple[int, int]:
        """(review: cursor) Rendered lines [start, end) of section `index` (laid out first if need be)."""
        self._ensure_sections(index + 1)
        starts = self.laid_out.starts
        if not 0 <= index < len(starts):
            return (0, 0)
        return (starts[index], starts[index] + self.laid_out.section_length(index))

    def set_cursor(self, index: int | None) -> None:
        """(review: cursor) Draw the cursor's bar beside section `index`."""
        if index != self.cursor:
            self.cursor = index
            self.refresh()

    # -- moving -------------------------------------------------------------------------------
    def scroll_to_line(self, line: int, *, allow_past_end: bool = False) -> None:
        # A page beyond the view is laid out too, ready for the next move (not before the first
        # frame: that waits for nothing but the view).
        self._ensure_lines(line + (2 if self._first_frame else 1) * self.viewport_height)
        limit = (
            self.max_scroll_y
            if allow_past_end
            else max(self.content_end, min(self.top_line, self.max_scroll_y))
        )
        target = max(0, min(line, limit))
        self.scroll_to(y=target, animate=False, force=True)
        self.post_message(self.Moved())

    def move_lines(self, count: int) -> None:
        self.scroll_to_line(self.top_line + count)

    def move_pages(self, count: int) -> None:
        # One line of overlap so the reader keeps a line of context.
        self.move_lines(count * max(1, self.viewport_height - 1))

    def move_half_pages(self, count: int) -> None:
        self.move_lines(count * max(1, self.viewport_height // 2))

    def go_top(self) -> None:
        self.scroll_to_line(0)

    def go_bottom(self) -> None:
        self.finish_layout()
        self.scroll_to(y=self.content_end, animate=False, force=True)
        self.post_message(self.Moved())

    def go_section(self, index: int) -> None:
        """Put section `index`'s heading on the top row (or as high as the end of the plan allows)."""
        self._ensure_sections(index + 2)
        starts = self.laid_out.starts
        if 0 <= index < len(starts):
            self.scroll_to_line(starts[index])

    def next_section(self) -> int | None:
        """The next heading to the top row; None once the end of the plan is in view."""
        position = bisect_right(self.laid_out.starts, self.top_line)
        self._ensure_sections(position + 1)
        if position < len(self.laid_out.starts) and self.top_line < self.content_end:
            self.go_section(position)
            return position
        return None

    def previous_section(self) -> int | None:
        position = bisect_left(self.laid_out.starts, self.top_line) - 1
        if position >= 0:
            self.go_section(position)
            return position
        return None

    # ScrollView's own keys (↑ ↓ PgUp PgDn Home End) mean the same as the review's.
    def action_scroll_up(self) -> None:
        self.move_lines(-1)

    def action_scroll_down(self) -> None:
        self.move_lines(1)

    def action_page_up(self) -> None:
        self.move_pages(-1)

    def action_page_down(self) -> None:
        self.move_pages(1)

    def action_scroll_home(self) -> None:
        self.go_top()

    def action_scroll_end(self) -> None:
        self.go_bottom()

    # The reader's own scrolling (not a jump the screen asked for): the screen's cursor follows it.
    def on_mouse_scroll_down(self) -> None:
        self.post_message(self.ReaderScrolled())

    def on_mouse_scroll_up(self) -> None:
        self.post_message(self.ReaderScrolled())

    def on_scroll_to(self) -> None:  # the scrollbar's thumb
        self.post_message(self.ReaderScrolled())

    def on_scroll_up(self) -> None:  # a click on the scrollbar's track
        self.post_message(self.ReaderScrolled())

    def on_scroll_down(self) -> None:
        self.post_message(self.ReaderScrolled())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self.post_message(self.Moved())

    # -- drawing ------------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        # The base style walks every ancestor's styles: once per paint, not once per row.
        self._base_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None

    def render_line(self, y: int) -> Strip:
        if self.laid_out.width == 0 and self.document is not None and self.scrollable_content_region.width:
            # The first frame: the size is known now, before the Resize event that reports it is
            # handled; laid out here, the plan is in the very frame that first draws the body.
            self.on_resize()
        width = self.scrollable_content_region.width
        base = self._base_style or self.rich_style
        index = self.top_line + y
        laid_out = self.laid_out
        if index >= len(laid_out.strips) and laid_out.width > 0:
            # Scrolled (wheel, scrollbar) past what is laid out yet. (Width 0: not laid out at all
            # yet; the first resize lays it out at its real width.)
            self._ensure_lines(index + 1, wait=False)
            laid_out = self.laid_out  # (laying out more may have started a new layout)
        if index < len(laid_out.strips):
            section = laid_out.section_at(index)
            changed = section in self.changed
            theme = self.render_theme
            mark: Style | None
            if section == self.cursor and section is not None:  # the cursor: a wider bar
                mark, glyph = Style(color=theme.warning if changed else theme.primary, bold=True), "▌"
            else:
                mark, glyph = (Style(color=theme.warning), "▎") if changed else (None, "▎")
            strip = laid_out.row(index, width, mark, base, glyph)
            marks = self.marks(index) if self.marks is not None else ()
            return highlight(strip, GUTTER, marks) if marks else strip
        if y == 0 and self.document is not None and not laid_out.strips:
            strip = Strip(
                [
                    Segment(" " * GUTTER),
                    Segment(self.empty_message, Style(color=self.render_theme.muted, italic=True)),
                ]
            )
        else:
            strip = Strip.blank(width)
        return strip.crop_extend(0, width, None).apply_style(base)


def highlight(strip: Strip, offset: int, marks: Sequence[tuple[int, int, Style]]) -> Strip:
    """(review: search) `strip` with each (start, end, style) cell range, `offset` cells in, restyled."""
    cuts = sorted({c + offset for start, end, _ in marks for c in (start, end)} | {strip.cell_length})
    pieces = strip.divide(cuts)
    segments: list[Segment] = list(pieces[0]) if pieces else []
    position = cuts[0] if cuts else 0
    for piece, end in zip(pieces[1:], cuts[1:], strict=False):
        style = next((st for s0, s1, st in marks if s0 + offset <= position and end <= s1 + offset), None)
        segments.extend(Segment.apply_style(list(piece), post_style=style) if style is not None else piece)
        position = end
    return Strip(segments, strip.cell_length)
