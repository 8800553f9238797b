"""The plan review screen: read the plan, see what changed, then approve, refine or keep planning.

Rows, top to bottom: title; "N of M sections changed since your last review" (only when true);
the body (a gutter mark beside changed sections); a notice (vanished file, changed on disk);
the scroll row `§ Section · changed   lines 41–68 of 1,512 (3%)` (only when the plan overflows);
the inline refine editor (after `r`); the key hints.

The screen resolves with `Approved(plan, canonical_sha256)`, `Refine(text)` or `Keep()`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Static

from planview import keymap
from planview.tui.key_bindings import bindings, resolved
from planview.tui.review import cursor, gauge, hints, rows
from planview.tui.review.body import PlanBody
from planview.tui.review.loading import canonical_sha256, changed_sections
from planview.tui.review.outline import AUTO_WIDTH, Outline
from planview.tui.review.plan_screen import PlanScreen
from planview.tui.review.render import clean_text
from planview.tui.review.seen import SeenLines
from planview.tui.review.text import plan_label
from planview.tui.review.theme import theme_from_variables
from planview.tui.review.web_handoff import serve_page, terminal_decision
from planview.tui.styles import stylesheet

# The decisions load when first used (see loading.py for the hash and the diff).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.widgets import Input

    from planview.plan.decision import ReviewDecision
    from planview.tui.review.approve_bar import ApproveNote
    from planview.tui.review.editor import RefineEditor
    from planview.tui.review.search import Match, PlanSearch, SearchBar
    from planview.web.server import ReviewServer

_OPENS_AN_INPUT = frozenset({"refine", "search", "approve"})  # keys typed after these are the input's
_ROW_PADDING = 2  # the rows have one column of padding on each side (review.tcss)


class ReviewScreen(PlanScreen):
    """Review one plan file. `watch=False` turns off the live reload (tests drive `reload_from_disk`)."""

    CSS_PATH = stylesheet("review")
    AUTO_FOCUS = "#body"

    BINDINGS = bindings(keymap.REVIEW)  # the one key map: hints and `?` read the same rows

    def __init__(
        self,
        plan_path: Path,
        *,
        home: Path | None = None,
        watch: bool = True,
        on_decided: Callable[[ReviewDecision], object] | None = None,
        not_approvable: str | None = None,
    ) -> None:
        """`on_decided`: where the decision goes when the screen is not dismissed with it (the
        standalone app's own screen, which has nothing under it to return to). `not_approvable`:
        why approving this plan could only fail (`planview review` of a plan outside the plans
        folder): no `a`, a comment-only page on `w`, and `a` says why."""
        super().__init__(plan_path, home=home, watch=watch)
        self.not_approvable = not_approvable
        self._on_decided = on_decided
        self.notice_text = ""
        self._variables: dict[str, str] = {}  # the theme's resolved colours
        self._web: ReviewServer | None = None  # the browser review `w` opened, while it runs
        self._editor: RefineEditor | None = None
        self._search_bar: SearchBar | None = None  # mounted on the first `/`
        self._note_bar: ApproveNote | None = None  # the `a` line's note, mounted on the first `a`
        self._search: PlanSearch | None = None
        self._search_from = (0, 0)  # (line, cell) the search started at: typing searches from there
        self.outline_choice: bool | None = None  # `o` shows/hides the outline; None: by the width
        self.cursor = 0  # the section cursor: n/p move it, the scroll row names it
        self._cursor_top = 0  # the top line the cursor was last placed for (the reader moved if not)
        self._opened_at_changed = False  # a re-review opens at its first changed section, once
        self._open_at: int | None = None  # that section, until the body is laid out
        self._transient = False  # the notice is a passing remark ("last section"), cleared by a move
        self.seen = SeenLines()  # the source lines that were on screen
        self._seen_cache: tuple[tuple, list[bool]] | None = None
        # Keys typed between `r` and the editor taking focus (they are the note's first letters).
        self._key_buffer: list[events.Key] | None = None

    # -- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="summary")
        with Horizontal(id="main"):
            yield Outline(id="outline")
            yield PlanBody(id="body")
        yield Static(id="notice")
        yield Static(id="scrollrow")
        # The refine editor (a TextArea) is mounted on the first `r`: not on the start-up path.
        yield Static(id="hints")

    @property
    def body(self) -> PlanBody:
        return self.query_one("#body", PlanBody)

    @property
    def editor(self) -> RefineEditor:
        if self._editor is None:
            raise LookupError("the refine editor opens with r")
        return self._editor

    @property
    def editing(self) -> bool:
        """The refine editor is open (or opening: keys typed meanwhile are not review keys)."""
        return self.is_mounted and self._editor is not None and bool(self._editor.display)

    def on_mount(self) -> None:
        self._apply_theme()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._apply_theme())
        self._open_plan()

    def _apply_theme(self) -> None:
        app = self.app
        self._variables = app.get_css_variables()
        self.body.set_theme(theme_from_variables(app.theme, app.current_theme.dark, self._variables))
        self._update_rows()

    def on_resize(self) -> None:
        self._update_rows()

    def on_unmount(self) -> None:
        self._close_plan()
        if self._web is not None:
            self._web.close("the terminal review closed")

    # -- rows ---------------------------------------------------------------------------------
    def _row_width(self) -> int:
        return max(0, self.size.width - _ROW_PADDING)

    @property
    def title_text(self) -> str:
        title = self.document.title if self.text is not None and self.document.title else None
        return clean_text(title) if title else plan_label(self.plan_path)

    @property
    def summary_text(self) -> str:
        if self.diff is None or self.empty:
            return ""
        return rows.summary_text(self.diff, len(self.document.sections))

    @property
    def current_section_index(self) -> int | None:
        """The section the cursor is on (the scroll row and the outline name it)."""
        if self.empty or not self.document.sections:
            return None
        return min(self.cursor, len(self.document.sections) - 1)

    @property
    def gauge_text(self) -> str:
        body = self.body
        return gauge.gauge_text(body.top_line, body.viewport_height, body.total_lines, body.layout_complete)

    @property
    def scroll_row_text(self) -> str:
        return self._scroll_row().text if self.body.overflowing else ""

    # kept for callers that ask where the reader is: the cursor is that place now
    reading_section_index = current_section_index

    def _scroll_row(self) -> gauge.ScrollRow:
        body = self.body
        index = self.current_section_index
        label = None
        if index is not None and len(self.document.sections) > 1:
            title = self.document.sections[index].title
            label = clean_text(title) if title else "Preamble"
        changed = index is not None and index in body.changed
        return gauge.scroll_row(
            label,
            changed,
            body.top_line,
            body.viewport_height,
            body.total_lines,
            self._row_width(),
            body.layout_complete,
        )

    @property
    def approve_enabled(self) -> bool:
        return not (
            self.empty or self.vanished or self.unreadable or self.not_approvable or self.text is None
        )

    @property
    def key_rows(self) -> tuple[keymap.KeyRow, ...]:
        """The review's keys as bound (the config's `[keys]` applied)."""
        return resolved(self.app, keymap.REVIEW)

    @property
    def hint_state(self) -> dict[str, bool]:
        """The conditions the key map's `when` names."""
        return {
            "approvable": self.approve_enabled,
            "changed": bool(self.body.changed),
        }

    @property
    def searching(self) -> bool:
        """The search bar is open (`/`)."""
        return self._search_bar is not None and bool(self._search_bar.display)

    @property
    def hint_list(self) -> tuple[hints.HintSpec, ...]:
        rows_ = (
            keymap.EDITOR
            if self.editing
            else keymap.SEARCH
            if self.searching
            else keymap.CONFIRM
            if self.confirming
            else self.key_rows
        )
        return hints.specs(keymap.footer_rows(rows_, self.hint_state))

    @property
    def hints_text(self) -> str:
        return rows.footer_text(self.hint_list, self._row_width(), self.seen_text)

    @property
    def seen_text(self) -> str:
        """ "seen 3/8": sections whose every line was on screen, of all (the footer's right end)."""
        if self.editing or self.searching or self.confirming or self.empty:
            return ""
        seen, total = self.sections_seen
        return f"seen {seen}/{total}" if total > 1 else ""

    def _set_notice(self, text: str) -> None:
        self.notice_text = text
        if self.is_mounted:
            notice = self.query_one("#notice", Static)
            notice.update(Text(text))
            notice.display = bool(text)

    @property
    def outline_shown(self) -> bool:
        if self.outline_choice is not None:
            return self.outline_choice
        return self.size.width >= AUTO_WIDTH

    def _update_outline(self) -> None:
        outline = self.query_one("#outline", Outline)
        shown = self.outline_shown and not self.empty and len(self.document.sections) > 1
        if outline.display != shown:
            outline.display = shown
        if shown:
            v = self.body.render_theme
            styles = {
                "normal": Style(color=v.foreground),
                "cursor": Style(color=v.foreground, bgcolor=v.secondary, bold=True),
                "changed": Style(color=v.warning, bold=True),
                "done": Style(color=v.success),
            }
            outline.show(self.document.sections, self.current_section_index, self.body.changed, styles)

    def on_outline_picked(self, event: Outline.Picked) -> None:
        if not self.editing:
            self._moved_on()
            self.move_cursor(event.index)

    def action_outline(self) -> None:
        if self.editing:
            return
        self.outline_choice = not self.outline_shown
        self._update_rows()

    def _update_rows(self) -> None:
        if not self.is_mounted:
            return
        self._update_outline()
        width = self._row_width()
        self.query_one("#title", Static).update(rows.title_row(self.title_text, self._display_path(), width))
        summary = self.query_one("#summary", Static)
        summary.update(Text(rows.fit_summary(self.summary_text, width), no_wrap=True, overflow="ellipsis"))
        summary.display = bool(self.summary_text)
        self._update_position()
        self.query_one("#hints", Static).update(
            rows.hint_row(self.hint_list, width, self._variables, self.seen_text)
        )

    def _update_position(self) -> None:
        row = self.query_one("#scrollrow", Static)
        row.display = self.body.overflowing
        if row.display:
            row.update(rows.scroll_row(self._scroll_row(), self._variables.get("warning", "yellow")))

    @on(PlanBody.Moved)
    def _on_body_moved(self) -> None:
        if self._has_decided or not self.is_attached:
            return  # (a move queued before the screen closed)
        self._open_at_changed()
        seen = self.seen_text
        self._note_seen()
        self._update_position()
        if self.seen_text != seen:  # the footer's "seen 3/8"
            self.query_one("#hints", Static).update(
                rows.hint_row(self.hint_list, self._row_width(), self._variables, self.seen_text)
            )

    @on(PlanBody.ReaderScrolled)
    def _on_reader_scrolled(self) -> None:
        if not self._has_decided and self.is_attached:
            self._follow_top()

    # -- the section cursor -------------------------------------------------------------------
    def _note_seen(self) -> None:
        """Remember the source lines now on screen (the `a` line says how much was shown)."""
        body = self.body
        sources = body.laid_out.sources
        if not sources or self.empty:
            return
        top = min(body.top_line, len(sources) - 1)
        bottom = min(body.top_line + body.viewport_height, len(sources)) - 1
        self.seen.add(sources[top], sources[max(top, bottom)])

    def seen_flags(self) -> list[bool]:
        """For each section: has every line of it been on screen?"""
        sections = self.document.sections
        if self.empty or not sections:
            return []
        body = self.body
        laid_out = body.laid_out
        key = (id(laid_out), laid_out.done, len(sections), tuple(self.seen.intervals))
        if self._seen_cache is not None and self._seen_cache[0] == key:
            return self._seen_cache[1]
        flags = []
        for index in range(len(sections)):
            if index >= laid_out.done:
                flags.append(False)
                continue
            start, end = laid_out.starts[index], laid_out.starts[index] + laid_out.section_length(index)
            while end - 1 > start and not body.line_text(end - 1).strip():
                end -= 1  # the blank gap after a section need not have been on screen
            flags.append(end > start and self.seen.covers(laid_out.sources[start], laid_out.sources[end - 1]))
        self._seen_cache = (key, flags)
        return flags

    @property
    def sections_seen(self) -> tuple[int, int]:
        """(sections whose every line has been on screen, sections in the plan)."""
        flags = self.seen_flags()
        return (sum(flags), len(flags))

    def _say(self, text: str) -> None:
        """A passing remark in the notice row; the next move clears it."""
        self._transient = True
        self._set_notice(text)

    def _moved_on(self) -> None:
        if self._transient:
            self._transient = False
            self._set_notice("")

    def move_cursor(self, index: int) -> None:
        """Put the cursor on section `index`, scrolling only as far as it takes to show it."""
        body = self.body
        count = len(self.document.sections)
        if self.empty or count == 0:
            return
        index = max(0, min(index, count - 1))
        self.cursor = index
        start, end = body.section_line_range(index)
        top = cursor.reveal_top(body.top_line, body.viewport_height, start, end, body.content_end)
        body.set_cursor(index)
        if top != body.top_line:
            body.scroll_to_line(top)
        self._cursor_top = body.top_line
        self._update_rows()

    def _follow_top(self) -> None:
        """The reader scrolled: the cursor moves to the section on the top row (if the view moved)."""
        body = self.body
        if body.top_line == self._cursor_top or self.empty:
            return
        self._cursor_top = body.top_line
        index = cursor.follow_top(body.section_starts, body.top_line)
        if index is not None:
            self.cursor = index
            body.set_cursor(index)
        self._update_rows()

    def _document_changed(self) -> None:
        """A new text or the whole of a long one is on screen: keep the cursor in range, and open a
        re-review at its first changed section (once, and only if the reader has not moved yet)."""
        count = len(self.document.sections)
        self.cursor = max(0, min(self.cursor, count - 1))
        changed = self.body.changed
        self.body.set_cursor(self.cursor if count else None)
        if changed and not self._opened_at_changed:
            self._opened_at_changed = True
            if self.cursor == 0 and self.body.top_line == 0:
                self._open_at = min(changed)
                self._open_at_changed()

    def _open_at_changed(self) -> None:
        """Move to the first changed section once the body is laid out (not before its first size)."""
        if self._open_at is None or self.body.laid_out.width == 0:
            return
        index, self._open_at = self._open_at, None
        if self.cursor == 0 and self.body.top_line == 0:  # the reader has not moved meanwhile
            self.move_cursor(index)

    def _changed_on_disk(self, before: str, after: str) -> None:
        """Say that what is on screen changed under the reader (live reload), naming the sections."""
        if self.vanished or self.unreadable:
            return
        self._transient = False
        self._set_notice(
            f"The plan changed on disk{self._changed_names(before, after)}; the view shows the new text."
        )

    def _changed_names(self, before: str, after: str) -> str:
        names = [
            c.title or "Preamble" for c in changed_sections(before, after).changes if c.status != "unchanged"
        ]
        if not names or not before:
            return ""
        return f" ({', '.join(clean_text(n) for n in names[:3])}{', …' if len(names) > 3 else ''})"

    # -- actions ------------------------------------------------------------------------------
    def _scrolled(self, move: Callable[[], object]) -> None:
        if self.editing:
            return
        self._moved_on()
        move()
        self._follow_top()

    def action_lines(self, count: int) -> None:
        self._scrolled(lambda: self.body.move_lines(count))

    def action_pages(self, count: int) -> None:
        self._scrolled(lambda: self.body.move_pages(count))

    def action_half(self, count: int) -> None:
        self._scrolled(lambda: self.body.move_half_pages(count))

    def action_top(self) -> None:
        if not self.editing:
            self._moved_on()
            self.body.go_top()
            self.move_cursor(0)

    def action_bottom(self) -> None:
        if not self.editing:
            self._moved_on()
            self.body.go_bottom()
            self.move_cursor(len(self.document.sections) - 1)

    def action_section(self, step: int) -> None:
        if self.editing or self.empty:
            return
        self._moved_on()
        if step > 0:
            self._finish_loading()  # the sections past a long plan's first screens
        target = cursor.step(self.cursor, len(self.document.sections), step)
        if target is None:
            self._say("This is the last section." if step > 0 else "This is the first section.")
            return
        self.move_cursor(target)

    def action_changed(self, step: int) -> None:
        if self.editing or self.empty:
            return
        self._moved_on()
        self._finish_loading()
        changed = self.body.changed
        target = cursor.next_changed(self.cursor, changed, step)
        if target is None:
            if not changed:
                self._say("No section changed since your last review.")
            else:
                self._say(
                    "No changed section after this one."
                    if step > 0
                    else "No changed section before this one."
                )
            return
        self.move_cursor(target)

    def action_diff(self) -> None:
        """`d`: the changed sections word by word against the last review, or the plan again."""
        if self.editing:
            return
        self._set_notice(self.show_word_diffs(not self.body.show_diff))
        self._update_rows()

    def action_front_matter(self) -> None:
        if not self.editing:
            self.body.toggle_front_matter()

    def action_keys(self) -> None:
        if not self.editing:
            from planview.tui.review.keys import KeysHelp, sheet  # loaded on first use: not at start-up

            self.app.push_screen(KeysHelp(sheet(self.key_rows)))

    def action_keep(self) -> None:
        if self.editing:
            self._close_editor()
            return
        from planview.plan.decision import Keep

        self._decide(Keep())

    async def action_refine(self) -> None:
        if self.editing:
            return
        editor = self._editor
        if editor is None:
            from planview.tui.review.editor import RefineEditor

            # Until the editor has focus every key typed is the note's (kept, then typed into it).
            if self._key_buffer is None:
                self._key_buffer = []
            editor = self._editor = RefineEditor(id="editor")
            editor.display = True  # `editing` from here on, while it mounts
            await self.mount(editor, before=self.query_one("#hints"))
        editor.display = True
        self._focus_with_keys(editor)
        self._update_rows()

    def _focus_with_keys(self, widget: Widget) -> None:
        """Focus `widget` now (not after the keys already queued: Widget.focus waits for them) and
        type into it what was typed since the key that opened it."""
        from textual.widgets import Input  # loaded already: the bars are Inputs

        self.set_focus(widget)
        buffered, self._key_buffer = self._key_buffer or [], None
        for key in buffered:
            if key.key == "enter" and isinstance(widget, Input):
                # Enter is an Input binding, which a posted key does not reach: submit in turn instead
                # (`a` then Enter typed at once approved nothing and the review waited).
                widget.call_later(widget.action_submit)
            else:
                widget.post_message(events.Key(key.key, key.character))

    def on_key(self, event: events.Key) -> None:
        """From a key that opens an input (`r`, `/`) until that input has focus, every key is the
        input's, never a review key. Textual hands each key to the body, then to this screen, then
        to the app, whose bindings run the action: the keys typed meanwhile pass here before the
        input exists, so buffering starts at the opening key itself, not in the action."""
        if self._key_buffer is not None:
            if self.focused not in (self._editor, self._search_bar, self._note_bar):
                self._key_buffer.append(event)
                event.stop()
                event.prevent_default()
            return
        if self.editing or self.searching or self.confirming:
            return
        if event.key in self._opening_keys():
            self._key_buffer = []  # the binding still runs the action: this only starts the buffer

    def _opening_keys(self) -> frozenset[str]:
        return frozenset(
            name
            for row in self.key_rows
            for key in row.bindings
            if key.action in _OPENS_AN_INPUT and (key.action != "approve" or self.approve_enabled)
            for name in key.alternatives
        )

    @property
    def confirming(self) -> bool:
        """The `a` confirmation line is open."""
        return self._note_bar is not None and bool(self._note_bar.display)

    async def action_approve(self) -> None:
        if self.editing or self.confirming:
            return
        if not self.approve_enabled:
            self._key_buffer = None
            if self.empty:
                self._set_notice("This plan is empty: there is nothing to approve. Esc keeps planning.")
            elif self.not_approvable:
                self._set_notice(
                    f"Cannot approve here: {clean_text(self.not_approvable)}. Esc closes the review."
                )
            self._update_rows()
            return
        if self.searching:
            self.on_search_bar_leave()
        from planview.tui.review.approve_bar import ApproveNote  # on first use: not at start-up

        if self._note_bar is None:
            if self._key_buffer is None:
                self._key_buffer = []
            self._note_bar = ApproveNote(id="note")
            await self.mount(self._note_bar, before=self.query_one("#hints"))
        bar = self._note_bar
        bar.value = ""
        bar.display = True
        self._transient = False
        self._set_notice(self.confirm_text)
        self._focus_with_keys(bar)
        self._update_rows()

    @property
    def confirm_text(self) -> str:
        """The `a` line: how much of the plan was shown, and what Enter and Esc do."""
        from planview.tui.review.approve_bar import seen_sentence

        seen, total = self.sections_seen
        unseen = [
            clean_text(section.title) or "Preamble"
            for section, was_seen in zip(self.document.sections, self.seen_flags(), strict=False)
            if not was_seen
        ]
        return (
            f"Approve & run this plan? {seen_sentence(seen, total, unseen)} "
            "Add a note if you like; Enter approves, Esc goes back."
        )

    def on_approve_note_back(self) -> None:
        self._close_note_bar()
        self._set_notice("")
        self._update_rows()

    def _close_note_bar(self) -> None:
        if self._note_bar is not None:
            self._note_bar.display = False
        self.set_focus(self.body)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not self._note_bar:
            return
        event.stop()
        note = " ".join(event.value.split()) or None
        self._close_note_bar()
        self._set_notice("")
        self.approve_now(note)

    def approve_now(self, note: str | None = None) -> None:
        """Approve the text on screen (with `note`), unless the file changed since it was shown."""
        self._finish_loading()  # the hash of what was shown, and its diff, before comparing
        on_disk = self._read_or_flag()
        if on_disk is None:
            self._update_rows()
            return
        sha = canonical_sha256(on_disk)
        if on_disk != self.text:
            self._show_text(on_disk, keep="section")
        if sha != self._seen_sha:
            # Never approve text nobody saw: show it, say what moved, ask once more.
            before = self._seen_text
            self._seen_sha, self._seen_text = sha, on_disk
            self._ask_again(before, on_disk)
            return
        from planview.plan.decision import Approved

        self._decide(Approved(self.plan_path, sha, note=note))

    def _decide(self, decision: ReviewDecision) -> None:
        """Close with `decision`; the watcher stops first (the agent writes the plan right after)."""
        if self._has_decided:
            return  # one decision per review, whichever of the terminal and the page makes it first
        self._has_decided = True
        self.workers.cancel_group(self, "review-watch")
        if self._web is not None:
            self._web.close("decided in the terminal")  # the page shows Closed and refuses any action
        if self._on_decided is not None:
            self._on_decided(decision)
        else:
            self.dismiss(decision)

    # -- search (`/`) ------------------------------------------------------------------------
    async def action_search(self) -> None:
        if self.editing or self.empty:
            self._key_buffer = None
            return
        from planview.tui.review.search import PlanSearch, SearchBar  # on first use: not at start-up

        if self._search_bar is None:
            if self._key_buffer is None:
                self._key_buffer = []
            self._search_bar = SearchBar(id="search")
            await self.mount(self._search_bar, before=self.query_one("#hints"))
        self._search = PlanSearch(self.body)
        self._search_from = (self.body.top_line, 0)
        bar = self._search_bar
        bar.value = ""
        bar.display = True
        self.body.marks = self._search_marks
        self._focus_with_keys(bar)
        self._show_search_count()
        self._update_rows()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is not self._search_bar or self._search is None:
            return
        self._finish_loading()  # the whole plan parsed (not laid out): matches past its first screens
        self._search.query = event.value
        line, cell = self._search_from
        self._go_to_match(*self._search.step(line, cell, 1, inclusive=True))

    def on_search_bar_step(self, event: SearchBar.Step) -> None:
        search = self._search
        if search is None:
            return
        here = search.current
        line, cell = (here.line, here.start) if here is not None else (self.body.top_line, 0)
        self._go_to_match(*search.step(line, cell, event.delta))

    def on_search_bar_leave(self) -> None:
        if self._search_bar is not None:
            self._search_bar.display = False
        self._search = None
        self.body.marks = None
        self.body.refresh()
        self.set_focus(self.body)
        self._moved_on()  # the match count goes with the bar
        self._update_rows()

    def _go_to_match(self, match: Match | None, wrapped: bool) -> None:
        search = self._search
        if search is None:
            return
        search.current = match
        if match is not None:
            body = self.body
            top, height = body.top_line, body.viewport_height
            if not top <= match.line < top + height:
                body.scroll_to_line(max(0, match.line - height // 3))
            self.cursor = match.section
            body.set_cursor(match.section)
            self._cursor_top = body.top_line
        self.body.refresh()
        self._show_search_count(wrapped)
        self._update_rows()

    def _search_marks(self, line: int) -> list[tuple[int, int, Style]]:
        search = self._search
        if search is None:
            return []
        theme = self.body.render_theme
        other = Style(bgcolor=theme.secondary, color=theme.foreground)
        current = Style(bgcolor=theme.warning, color="#000000", bold=True)
        return search.marks(line, other, current)

    def _show_search_count(self, wrapped: bool = False) -> None:
        search = self._search
        if search is None or not search.query:
            self._transient = False
            self._set_notice("")
            return
        number, total, exact = search.count()
        if not total or search.current is None:
            text = f"No match for {search.query!r}."
        else:
            of = f"{total}" if exact else f"about {total}"
            text = f"Match {number} of {of} for {search.query!r}" + (
                " (from the other end)." if wrapped else "."
            )
        self._say(clean_text(text))

    # -- the browser review (`w`) -------------------------------------------------------------
    def action_web(self) -> None:
        if self.editing or self._has_decided:
            return
        if self._web is not None:
            self._set_notice(
                f"The browser review is open; another browser can use {self._web.link()} once "
                "(decide there or here)."
            )
            return
        self._finish_loading()  # the page marks changes against the same baseline
        self._web_review()

    @work(exclusive=True, group="review-web")
    async def _web_review(self) -> None:
        """Serve this plan's page; its decision (approve, save) closes this screen the same way."""
        page = await serve_page(
            self.plan_path,
            approve=self.approve_enabled,
            home=self._baselines.home if self._baselines is not None else None,
            baseline=self._marker_baseline,
            on_open=self._web_opened,
            notice=self._set_notice,
        )
        if page is None or self._has_decided or not self.is_attached:
            return
        decision = terminal_decision(self.plan_path, page)
        if decision is not None:
            self._decide(decision)
        else:
            self._set_notice(f"The browser review closed ({page.reason}); the review continues here.")

    def _web_opened(self, server: ReviewServer | None) -> None:
        self._web = server

    def _ask_again(self, before: str, after: str) -> None:
        what = self._changed_names(before, after)
        self._set_notice(
            f"The plan changed on disk since it was shown{what}. It is on screen now: "
            "press a again to approve this version, Esc to keep planning."
        )
        self._update_rows()

    # -- the refine editor --------------------------------------------------------------------
    def _close_editor(self) -> None:
        self.editor.display = False
        self.body.focus()
        self._update_rows()

    def on_refine_editor_cancelled(self) -> None:
        self._close_editor()

    def on_refine_editor_submitted(self, event: RefineEditor.Submitted) -> None:
        text = event.text.strip()
        if not text:
            return  # an empty refinement does nothing
        from planview.plan.decision import Refine

        self._decide(Refine(text))
