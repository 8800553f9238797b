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
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import Literal

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from planview.plan.document import PlanDocument
from planview.tui.review.render import GUTTER, RenderTheme, SectionRenderer

Keep = Literal["source", "section", "top"]

# Layout is progressive. The very first frame gets one screenful and nothing more; later layouts
# (resize, reload) render at least FIRST_BUDGET seconds' worth at once; the rest is laid out in
# CHUNK-second slices between frames, so a 10,000-line plan paints as fast as a short one and keys
# stay responsive while the tail is laid out. Slices start only after the first frame is on the
# terminal (see `after_first_frame`).
FIRST_BUDGET = 0.05
CHUNK = 0.04


def after_first_frame(widget: Widget, callback: Callable[[], object]) -> None:
    """Run `callback` once a frame showing `widget` has really been written to the terminal.

    Textual drops every frame drawn while the app is still in its start-up batch, and callbacks
    queued with call_after_refresh run inside that batch too, so work queued from on_mount would
    delay the first visible frame. The app serves its own message queue only after the batch:
    from there, a refresh and then a call_after_refresh land after a frame that is really drawn.
    """

    def queued() -> None:
        if widget.is_attached:
            widget.refresh()
            widget.call_after_refresh(callback)

    widget.app.call_later(queued)


@dataclass(frozen=True)
class _SectionAnchor:
    """A reading position held across a reload: the section (by index, then title) and the offset in it."""

    index: int
    title: str
    offset: int


def theme_from_variables(name: str, dark: bool, variables: dict[str, str]) -> RenderTheme:
    """A RenderTheme from Textual's resolved CSS variables (alpha colours blended over the background)."""
    background = Color.parse(variables.get("background", "#000000"))

    def solid(key: str, fallback: str) -> str:
        try:
            color = Color.parse(variables.get(key, fallback))
        except Exception:  # a variable that is not a plain colour ("auto 60%")
            color = Color.parse(fallback)
        return (background + color).hex if color.a < 1 else color.hex

    return RenderTheme(
        name=name,
        dark=dark,
        foreground=solid("foreground", "#e0e0e0"),
        muted=solid("foreground-muted", "#8a8a8a"),
        # The text-* variants are the theme's colours tuned for legible text on its background.
        primary=solid("text-primary" if "text-primary" in variables else "primary", "#57a5e2"),
        secondary=solid("secondary", "#004578"),
        accent=solid("text-accent" if "text-accent" in variables else "accent", "#ffc473"),
        success=solid("text-success" if "text-success" in variables else "success", "#8ad4a1"),
        warning=solid("warning", "#fea62b"),
        code_background=solid("surface" if dark else "panel", "#1e1e1e"),
        link=solid("text-primary" if "text-primary" in variables else "primary", "#5fafff"),
    )


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

    def __init__(self, renderer: SectionRenderer | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.renderer = renderer or SectionRenderer()
        self.document: PlanDocument | None = None
        self.changed: frozenset[int] = frozenset()
        self.empty_message = "This plan is empty"
        self.render_theme = RenderTheme()
        self._strips: list[Strip] = []
        self._sources: list[int] = []  # absolute 1-based source line per rendered line
        self._starts: list[int] = []  # rendered line of each section's first line
        self._width = 0  # the render width the lines were laid out for (without the gutter)
        self._done = 0  # sections of `document` laid out so far (in order)
        self._first_lines: list[int] = []  # each section's first source line, for source anchors
        self.show_front_matter = False  # YAML front matter folded to one line until `f`
        self._pending: Keep | None = None
        self._pending_anchor: tuple[int, int] | _SectionAnchor | None = None
        # A partial document holds only the plan's leading sections (a long plan's first screens,
        # parsed before the rest); `more` is called when the body needs what lies beyond them and
        # answers by calling `adopt` with the whole document.
        self.partial = False
        self.more: Callable[[], None] | None = None
        self._source_lines = 0  # the whole plan's source lines (known before its sections are)
        self._continuing = False  # a layout slice is scheduled
        self._first_frame = False  # a frame has been drawn for real: slices may run
        self._plain_code = False  # a section was drawn with plain code before the first frame
        self._awaiting_frame = False  # `_first_frame_drawn` is scheduled
        self._base_style: Style | None = None  # while a paint runs (`render_lines`)

    # -- state the screen and the tests read --------------------------------------------------
    @property
    def layout_complete(self) -> bool:
        return self.document is None or (not self.partial and self._done >= len(self.document.sections))

    @property
    def total_lines(self) -> int:
        """Rendered lines (while the layout is still running: plus an estimate for the rest)."""
        if self.layout_complete:
            return len(self._strips)
        assert self.document is not None
        sections = self.document.sections
        if self._done < len(sections):
            rest = self._source_lines - sections[self._done].start + 1 + (len(sections) - self._done)
        else:  # a partial document, all laid out: the rest is not parsed yet
            rest = self._source_lines - (sections[-1].end if sections else 0)
        return len(self._strips) + max(0, rest)

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
        return tuple(self._starts)

    @property
    def top_source_line(self) -> int | None:
        if not self._sources:
            return None
        return self._sources[min(self.top_line, len(self._sources) - 1)]

    def section_at(self, line: int) -> int | None:
        """Index of the section holding rendered `line`."""
        if not self._starts:
            return None
        return max(0, bisect_right(self._starts, line) - 1)

    @property
    def current_section(self) -> int | None:
        return self.section_at(self.top_line)

    def line_text(self, line: int) -> str:
        """The characters of rendered `line` (without the gutter)."""
        return "".join(s.text for s in self._strips[line]) if 0 <= line < len(self._strips) else ""

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
        anchor = self._capture(keep) if self.document is not None and self._strips else None
        self.document = document
        self.changed = changed
        self.partial = partial_of is not None
        sections = document.sections
        self._source_lines = partial_of if partial_of is not None else (sections[-1].end if sections else 0)
        if self._width > 0:
            self._layout(self._width)
            self._restore(keep, anchor)
        else:
            self._pending, self._pending_anchor = keep, anchor
        self.refresh()

    def adopt(self, document: PlanDocument, changed: frozenset[int]) -> None:
        """Replace a partial document with the whole one; laid-out lines stay when they agree."""
        old = self.document
        done = self._done
        same = (
            old is not None
            and self._width > 0
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
        self._first_lines = [section.start for section in document.sections]
        self._update_virtual_size()
        self._schedule_layout()
        self.refresh()
        self.post_message(self.Moved())

    def toggle_front_matter(self) -> None:
        """Show the front matter in full, or fold it to one line again (the reading position holds)."""
        self.show_front_matter = not self.show_front_matter
        if self._width > 0 and self.document is not None:
            anchor = self._capture("source")
            self._layout(self._width)
            self._restore("source", anchor)
            self.post_message(self.Moved())
        self.refresh()

    def set_theme(self, theme: RenderTheme) -> None:
        if theme == self.render_theme:
            return
        self.render_theme = theme
        if self._width > 0 and self.document is not None:
            anchor = self._capture("source")
            self._layout(self._width)
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
        if width != self._width:
            keep: Keep = "source"
            anchor = self._capture(keep) if self._strips else None
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
        self._strips, self._sources, self._starts, self._width, self._done = [], [], [], width, 0
        # Before the first frame code is drawn plain when its lexer is not loaded yet (see below).
        self.renderer.quick = not self._first_frame
        self._plain_code = False
        self._first_lines = [section.start for section in self.document.sections]
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
        if self.partial and self.document is not None and self._done >= len(self.document.sections):
            return  # nothing to lay out until `adopt` brings the rest
        self._continuing = True
        self.call_later(self._continue_layout)

    def _first_frame_drawn(self) -> None:
        self._first_frame = True
        self.renderer.quick = False
        if self._plain_code and self.document is not None and self._width > 0:
            # Now load the lexers the first frame did without, and draw those sections again.
            anchor = self._capture("source")
            self._layout(self._width)
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
            all_sections = document.sections
            render = self.renderer.render
            theme, width = self.render_theme, self._width
            strips, sources, starts = self._strips, self._sources, self._starts
            while self._done < len(all_sections) and (
                len(strips) < lines or self._done < sections or perf_counter() < deadline
            ):
                section = all_sections[self._done]
                rendered = render(section.text, width, theme, self.show_front_matter)
                starts.append(len(strips))
                strips.extend(rendered.lines)
                base = section.start
                sources.extend(base + s for s in rendered.sources)
                self._plain_code = self._plain_code or rendered.plain_code
                self._done += 1
            if self._done == len(all_sections) and not self.partial and len(strips) > 1:
                if not strips[-1].cell_length:
                    # The last section's gap line has no next section to separate from: a plan that
                    # fits must not overflow by one blank line.
                    strips.pop()
                    sources.pop()
            short = len(strips) < lines or self._done < sections
            if not (short and wait and self.partial and self.more is not None):
                return
            self.more()  # calls `adopt` (or `show`) with the whole document
            if self.partial:
                return

    def _continue_layout(self) -> None:
        self._continuing = False
        if self.layout_complete:
            return
        self._extend(sections=self._done + 1, deadline=perf_counter() + CHUNK, wait=False)  # always progress
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
        if not self.layout_complete and len(self._strips) < count:
            self._extend(lines=count, wait=wait)
            self._update_virtual_size()

    def _ensure_sections(self, count: int) -> None:
        if not self.layout_complete and self._done < count:
            self._extend(sections=count)
            self._update_virtual_size()

    def _update_virtual_size(self) -> None:
        # No room below the end: a jump never scrolls over blank rows past the plan's last line.
        self.virtual_size = Size(self.scrollable_content_region.width, self.total_lines)

    # -- keeping the reading position ---------------------------------------------------------
    def _capture(self, keep: Keep) -> tuple[int, int] | _SectionAnchor | None:
        if not self._strips:
            return None
        top = min(self.top_line, len(self._strips) - 1)
        if keep == "source":
            source = self._sources[top]
            first = bisect_left(self._sources, source)
            return (source, max(0, top - first))
        if keep == "section" and self.document is not None:
            index = self.section_at(top) or 0
            section = self.document.sections[index]
            return _SectionAnchor(index, section.title, top - self._starts[index])
        return None

    def _restore(self, keep: Keep, anchor: tuple[int, int] | _SectionAnchor | None) -> None:
        target = 0
        if isinstance(anchor, tuple) and self._first_lines:
            source, offset = anchor
            self._ensure_sections(bisect_right(self._first_lines, source))
            if self._sources:
                first = min(bisect_left(self._sources, source), len(self._sources) - 1)
                run_end = bisect_right(self._sources, self._sources[first])
                target = min(first + offset, max(first, run_end - 1))
        elif isinstance(anchor, _SectionAnchor) and self.document is not None and self.document.sections:
            sections = self.document.sections
            index = (
                anchor.index
                if anchor.index < len(sections) and sections[anchor.index].title == anchor.title
                else None
            )
            if index is None:
                index = next(
                    (s.index for s in sections if s.title == anchor.title),
                    min(anchor.index, len(sections) - 1),
                )
            self._ensure_sections(index + 2)
            length = self.section_length(index)
            target = self._starts[index] + min(anchor.offset, max(0, length - 1))
        self.scroll_to_line(target, allow_past_end=isinstance(anchor, _SectionAnchor))

    def section_length(self, index: int) -> int:
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self._strips)
        return end - self._starts[index]

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
        if 0 <= index < len(self._starts):
            self.scroll_to_line(self._starts[index])

    def next_section(self) -> int | None:
        """The next heading to the top row; None once the end of the plan is in view."""
        position = bisect_right(self._starts, self.top_line)
        self._ensure_sections(position + 1)
        if position < len(self._starts) and self.top_line < self.content_end:
            self.go_section(position)
            return position
        return None

    def previous_section(self) -> int | None:
        position = bisect_left(self._starts, self.top_line) - 1
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
        if self._width == 0 and self.document is not None and self.scrollable_content_region.width:
            # The first frame: the size is known now, before the Resize event that reports it is
            # handled; laid out here, the plan is in the very frame that first draws the body.
            self.on_resize()
        width = self.scrollable_content_region.width
        base = self._base_style or self.rich_style
        index = self.top_line + y
        if index >= len(self._strips) and self._width > 0:
            # Scrolled (wheel, scrollbar) past what is laid out yet. (Width 0: not laid out at all
            # yet; the first resize lays it out at its real width.)
            self._ensure_lines(index + 1, wait=False)
        if index < len(self._strips):
            section = self.section_at(index)
            if section is not None and section in self.changed:
                gutter = Segment("▎".ljust(GUTTER), Style(color=self.render_theme.warning))
            else:
                gutter = Segment(" " * GUTTER)
            line = self._strips[index]
            pad = width - GUTTER - line.cell_length
            if pad >= 0:  # (always, but on a view narrower than the gutter): one Strip made per row
                segments = [gutter, *line, Segment(" " * pad)] if pad else [gutter, *line]
                return Strip(Segment.apply_style(segments, base), width)
            strip = Strip([gutter, *line])
        elif y == 0 and self.document is not None and not self._strips:
            strip = Strip(
                [
                    Segment(" " * GUTTER),
                    Segment(self.empty_message, Style(color=self.render_theme.muted, italic=True)),
                ]
            )
        else:
            strip = Strip.blank(width)
        return strip.crop_extend(0, width, None).apply_style(base)
