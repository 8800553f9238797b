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

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from planview.tui.review import gauge, hints, rows
from planview.tui.review.body import PlanBody
from planview.tui.review.loading import canonical_sha256, changed_sections
from planview.tui.review.plan_screen import PlanScreen
from planview.tui.review.render import clean_text
from planview.tui.review.text import plan_label
from planview.tui.review.theme import theme_from_variables
from planview.tui.review.web_handoff import serve_page, terminal_decision
from planview.tui.styles import stylesheet

# The decisions load when first used (see loading.py for the hash and the diff).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.decision import ReviewDecision
    from planview.tui.review.editor import RefineEditor
    from planview.web.server import ReviewServer

_ROW_PADDING = 2  # the rows have one column of padding on each side (review.tcss)


class ReviewScreen(PlanScreen):
    """Review one plan file. `watch=False` turns off the live reload (tests drive `reload_from_disk`)."""

    CSS_PATH = stylesheet("review")
    AUTO_FOCUS = "#body"

    BINDINGS = [
        Binding("k", "lines(-1)", show=False),
        Binding("j", "lines(1)", show=False),
        Binding("b", "pages(-1)", show=False),
        Binding("space", "pages(1)", show=False),
        Binding("u,ctrl+u", "half(-1)", show=False),
        Binding("ctrl+d", "half(1)", show=False),
        Binding("d", "diff", show=False),
        Binding("g", "top", show=False),
        Binding("G,shift+g", "bottom", show=False),
        Binding("n", "section(1)", show=False),
        Binding("p", "section(-1)", show=False),
        Binding("a", "approve", show=False),
        Binding("r", "refine", show=False),
        Binding("escape", "keep", show=False),
        Binding("question_mark", "keys", show=False),
        Binding("f", "front_matter", show=False),
        Binding("w", "web", show=False),
    ]

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

    # -- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="summary")
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
        return self.body.current_section if not self.empty else None

    @property
    def gauge_text(self) -> str:
        body = self.body
        return gauge.gauge_text(body.top_line, body.viewport_height, body.total_lines, body.layout_complete)

    @property
    def scroll_row_text(self) -> str:
        return self._scroll_row().text if self.body.overflowing else ""

    @property
    def reading_section_index(self) -> int | None:
        """The section a reader is in (the scroll row names it): the first while the start of the
        plan is in view, the last once the end is, the one whose heading is on the top row (after
        n/p), else the last heading at or above the upper third of the view."""
        body = self.body
        starts = body.section_starts
        if self.empty or not starts:
            return None
        top = body.top_line
        if top == 0:
            return 0
        if body.layout_complete and top >= body.content_end:
            return len(starts) - 1
        if top in starts:
            return starts.index(top)
        return body.section_at(top + body.viewport_height // 3)

    def _scroll_row(self) -> gauge.ScrollRow:
        body = self.body
        index = self.reading_section_index
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
    def hint_list(self) -> tuple[hints.HintSpec, ...]:
        if self.editing:
            return hints.EDITOR_HINTS
        return tuple(h for h in hints.REVIEW_HINTS if h[0] != "a" or self.approve_enabled)

    @property
    def hints_text(self) -> str:
        return hints.hints_text(self.hint_list, self._row_width())

    def _set_notice(self, text: str) -> None:
        self.notice_text = text
        if self.is_mounted:
            notice = self.query_one("#notice", Static)
            notice.update(Text(text))
            notice.display = bool(text)

    def _update_rows(self) -> None:
        if not self.is_mounted:
            return
        width = self._row_width()
        self.query_one("#title", Static).update(rows.title_row(self.title_text, self._display_path(), width))
        summary = self.query_one("#summary", Static)
        summary.update(Text(rows.fit_summary(self.summary_text, width), no_wrap=True, overflow="ellipsis"))
        summary.display = bool(self.summary_text)
        self._update_position()
        self.query_one("#hints", Static).update(rows.hint_row(self.hint_list, width, self._variables))

    def _update_position(self) -> None:
        row = self.query_one("#scrollrow", Static)
        row.display = self.body.overflowing
        if row.display:
            row.update(rows.scroll_row(self._scroll_row(), self._variables.get("warning", "yellow")))

    @on(PlanBody.Moved)
    def _on_body_moved(self) -> None:
        self._update_position()

    # -- actions ------------------------------------------------------------------------------
    def action_lines(self, count: int) -> None:
        self.body.move_lines(count)

    def action_pages(self, count: int) -> None:
        self.body.move_pages(count)

    def action_half(self, count: int) -> None:
        self.body.move_half_pages(count)

    def action_top(self) -> None:
        self.body.go_top()

    def action_bottom(self) -> None:
        self.body.go_bottom()

    def action_section(self, step: int) -> None:
        if self.editing:
            return
        if step > 0:
            self.body.next_section()
        else:
            self.body.previous_section()
        self._update_position()

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
            from planview.tui.review.keys import KeysHelp  # loaded on first use: not on the start-up path

            self.app.push_screen(KeysHelp())

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

            editor = self._editor = RefineEditor(id="editor")
            editor.display = True  # `editing` from here on, while it mounts
            await self.mount(editor, before=self.query_one("#hints"))
        editor.display = True
        editor.focus()
        self._update_rows()

    def action_approve(self) -> None:
        if self.editing:
            return
        if not self.approve_enabled:
            if self.empty:
                self._set_notice("This plan is empty: there is nothing to approve. Esc keeps planning.")
            elif self.not_approvable:
                self._set_notice(
                    f"Cannot approve here: {clean_text(self.not_approvable)}. Esc closes the review."
                )
            self._update_rows()
            return
        self._finish_loading()  # the hash of what was shown, and its diff, before comparing
        on_disk = self._read_or_flag()
        if on_disk is None:
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

        self._decide(Approved(self.plan_path, sha))

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

    # -- the browser review (`w`) -------------------------------------------------------------
    def action_web(self) -> None:
        if self.editing or self._has_decided:
            return
        if self._web is not None:
            self._set_notice(f"The browser review is open at {self._web.url} (decide there or here).")
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
        names = [
            c.title or "Preamble" for c in changed_sections(before, after).changes if c.status != "unchanged"
        ]
        what = (
            f" ({', '.join(clean_text(n) for n in names[:3])}{', …' if len(names) > 3 else ''})"
            if names and before
            else ""
        )
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
