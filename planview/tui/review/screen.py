"""The plan review screen: read the plan, see what changed, then approve, refine or keep planning.

Rows, top to bottom: title; "N of M sections changed since your last review" (only when true);
the body (a gutter mark beside changed sections); a notice (vanished file, changed on disk);
the scroll row `§ Section · changed   lines 41–68 of 1,512 (3%)` (only when the plan overflows);
the inline refine editor (after `r`); the key hints.

The screen resolves with `Approved(plan, canonical_sha256)`, `Refine(text)` or `Keep()`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from planview.errors import PlanviewError
from planview.home import planview_home
from planview.plan.document import PlanDocument, parse_plan
from planview.plan.errors import PlanNotFoundError
from planview.plan.reviews import ReviewBaselines
from planview.plan.store import read_plan_text
from planview.tui.review import gauge, hints, rows
from planview.tui.review.body import PlanBody
from planview.tui.review.first_frame import after_first_frame
from planview.tui.review.render import clean_text
from planview.tui.review.text import is_empty_plan, plan_label
from planview.tui.review.theme import theme_from_variables
from planview.tui.styles import stylesheet

# The canonical hash, the section diff and the decisions load when first used: what the first
# frame needs (the document and its rendering) is all that is imported before it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.decision import ReviewDecision
    from planview.plan.diff import SectionDiff
    from planview.tui.review.editor import RefineEditor

_ROW_PADDING = 2  # the rows have one column of padding on each side (review.tcss)

# A plan longer than this opens with only its first PREFIX_LINES lines parsed, so the first screen
# costs the same for any length. The whole-document work (parse, canonical hash, changed-section
# diff against the last review) runs in a thread once that screen is drawn; whatever needs it
# sooner (a jump past the parsed part, approve, a reload) waits for it.
PREFIX_LINES = 400


@dataclass(frozen=True)
class _Loaded:
    """The whole-document work for `text`, done off the event loop."""

    text: str
    document: PlanDocument
    sha: str
    baseline: str | None
    diff: SectionDiff | None


class _LoadDone(Message):
    """The loading thread finished (posted from that thread)."""


def _head(text: str, lines: int) -> str | None:
    """The first `lines` lines of `text` (with their newline), or None when it has no more than that."""
    end = -1
    for _ in range(lines):
        end = text.find("\n", end + 1)
        if end < 0:
            return None
    return text[: end + 1] if end + 1 < len(text) else None


def _count_lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


class ReviewScreen(Screen["ReviewDecision"]):
    """Review one plan file. `watch=False` turns off the live reload (tests drive `reload_from_disk`)."""

    CSS_PATH = stylesheet("review")
    AUTO_FOCUS = "#body"

    BINDINGS = [
        Binding("k", "lines(-1)", show=False),
        Binding("j", "lines(1)", show=False),
        Binding("b", "pages(-1)", show=False),
        Binding("space", "pages(1)", show=False),
        Binding("u", "half(-1)", show=False),
        Binding("d", "half(1)", show=False),
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
    ) -> None:
        """`on_decided`: where the decision goes when the screen is not dismissed with it (the
        standalone app's own screen, which has nothing under it to return to)."""
        super().__init__()
        self.plan_path = Path(plan_path).expanduser().resolve()
        self._home = home
        self._watch = watch
        self._on_decided = on_decided
        self.text: str | None = None  # the plan text on screen
        self.document: PlanDocument = parse_plan("")
        self.diff: SectionDiff | None = None
        self.empty = False
        self.vanished = False
        self.unreadable: str | None = None
        self.notice_text = ""
        self._marker_baseline: str | None = None
        self._seen_sha: str | None = None  # the version the reviewer was shown or asked about
        self._seen_text = ""
        self._baselines: ReviewBaselines | None = None
        self._unsaved: str | None = None  # shown text whose baseline save is scheduled
        self._variables: dict[str, str] = {}  # the theme's resolved colours
        self._has_decided = False  # a decision was made: no more reloads
        self._web = None  # the browser review `w` opened (a planview.web ReviewServer), while it runs
        # A long plan's whole-document work: (text, the thread's result once it runs) until applied.
        self._loading: tuple[str, Future[_Loaded] | None] | None = None
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
        home = self._home if self._home is not None else _quiet_home(self.plan_path.parent)
        self._baselines = ReviewBaselines(home) if home is not None else None
        self._load_first()
        if self._watch:
            after_first_frame(self, self._start_watching)  # watchfiles' import and thread start wait too

    def _start_watching(self) -> None:
        if not self.is_attached or self._has_decided:
            return
        # A save made since the first read would otherwise show only after the next save.
        try:
            changed = self.text is not None and read_plan_text(self.plan_path) != self.text
        except PlanviewError:
            changed = True  # gone or unreadable now: reload says so
        if changed:
            self.reload_from_disk()
        self._watch_plan()

    def _apply_theme(self) -> None:
        app = self.app
        self._variables = app.get_css_variables()
        self.body.set_theme(theme_from_variables(app.theme, app.current_theme.dark, self._variables))
        self._update_rows()

    def on_resize(self) -> None:
        self._update_rows()

    # -- loading ------------------------------------------------------------------------------
    def _load_first(self) -> None:
        text = self._read_or_flag()
        head = _head(text, PREFIX_LINES) if text is not None else None
        # Visible text in the head is visible in the whole plan (only an earlier `<!--` hides text).
        if text is not None and head is not None and not is_empty_plan(head):
            self._show_first(text, head)
            return
        # What the previous review showed (also when the file is missing now and comes back later).
        baseline = self._baselines.load(self.plan_path) if self._baselines else None
        self._marker_baseline = baseline
        if text is None:
            return
        if (baseline is None or baseline == text) and not is_empty_plan(text):
            # Nothing to mark (a first review, or the very text the last one showed): the canonical
            # hash and the section diff follow the first frame, as for a long plan.
            self._show_first(text, None)
            return
        self._seen_sha, self._seen_text = _canonical_sha256(text), text
        self._show_text(text, keep="top")

    def _show_first(self, text: str, head: str | None) -> None:
        """Show the plan before its whole-document work (`_finish_loading`): a long plan from its
        first lines (`head`; the rest of it follows), a short one whole."""
        if head is None:
            document = parse_plan(text)
        else:
            document = parse_plan(head)
            if len(document.sections) > 1:  # the last one may be cut short by the prefix
                document = replace(document, sections=document.sections[:-1])
        self.text = text
        self.document = document
        self.empty = False
        self.diff = None
        self._loading = (text, None)
        body = self.body
        body.empty_message = "This plan is empty"
        if head is None:
            body.show(document, frozenset(), keep="top")
        else:
            body.more = self._finish_loading
            body.show(document, frozenset(), keep="top", partial_of=_count_lines(text))
        after_first_frame(self, self._start_loading)
        self._update_rows()

    def _load(self, text: str) -> _Loaded:
        """The whole-document work (runs in the loading thread, or inline when needed at once)."""
        baseline = self._baselines.load(self.plan_path) if self._baselines else None
        document = parse_plan(text)
        diff = _changed_sections(baseline, text) if baseline is not None else None
        return _Loaded(text, document, _canonical_sha256(text), baseline, diff)

    def _start_loading(self) -> None:
        if self._loading is None or self._loading[1] is not None:
            return
        text = self._loading[0]
        future: Future[_Loaded] = Future()
        self._loading = (text, future)

        def run() -> None:
            try:
                future.set_result(self._load(text))
            except BaseException as exc:  # handed to the event loop by future.result()
                future.set_exception(exc)
            try:
                self.post_message(_LoadDone())
            except RuntimeError:  # the app has closed its event loop meanwhile
                pass

        threading.Thread(target=run, name="planview-review-load", daemon=True).start()

    @on(_LoadDone)
    def _on_load_done(self) -> None:
        self._finish_loading()

    def _finish_loading(self) -> None:
        """Apply the whole-document work now (waiting for the thread, or doing it here)."""
        if self._loading is None:
            return
        text, future = self._loading
        loaded = future.result() if future is not None else self._load(text)
        self._loading = None
        self.body.more = None
        if text != self.text:
            return
        self._marker_baseline = loaded.baseline
        self._seen_sha, self._seen_text = loaded.sha, text
        self.document = loaded.document
        self.diff = loaded.diff
        changed = (
            frozenset(c.index for c in loaded.diff.changes if c.status != "unchanged")
            if loaded.diff is not None
            else frozenset()
        )
        self.body.adopt(loaded.document, changed)
        self._schedule_baseline_save(text)
        self._update_rows()

    def reload_from_disk(self) -> bool:
        """Read the plan again (the watcher calls this; so can tests). True when the view changed."""
        if self._has_decided or not self.is_attached:
            return False
        self._finish_loading()
        was_vanished = self.vanished
        text = self._read_or_flag()
        if text is None:
            return not (was_vanished and self.vanished)
        was_missing = self.vanished or self.unreadable is not None
        self.vanished = False
        self.unreadable = None
        if was_missing:
            self._set_notice("")
        if text == self.text:
            if was_missing:
                self._update_rows()
            return was_missing
        if self._seen_sha is None:
            self._seen_sha, self._seen_text = _canonical_sha256(text), text
        self._show_text(text, keep="section" if self.text is not None else "top")
        return True

    def _show_text(self, text: str, keep: str) -> None:
        if self._marker_baseline is None and self.text is not None:
            # No earlier review: changes made while this one is open are marked against what it first showed.
            self._marker_baseline = self.text
        self.text = text
        self.document = parse_plan(text)
        self.empty = is_empty_plan(text)
        changed: frozenset[int] = frozenset()
        self.diff = None
        if self._marker_baseline is not None:
            self.diff = _changed_sections(self._marker_baseline, text)
            changed = frozenset(c.index for c in self.diff.changes if c.status != "unchanged")
        self.body.empty_message = "This plan is empty"
        self.body.show(parse_plan("") if self.empty else self.document, changed, keep=keep)  # type: ignore[arg-type]
        self._schedule_baseline_save(text)
        self._update_rows()

    def _schedule_baseline_save(self, text: str) -> None:
        if self._baselines is not None and self._unsaved is None:
            after_first_frame(self, self._save_baseline)  # after the paint: an fsync is not worth a frame
        self._unsaved = text

    def _save_baseline(self) -> None:
        """Remember what this review shows as the baseline for the next review of the plan."""
        text, self._unsaved = self._unsaved, None
        if text is None or self._baselines is None:
            return
        try:
            self._baselines.save(self.plan_path, text)
        except OSError as exc:
            self._set_notice(
                f"Could not save the review baseline ({exc.strerror or exc}); markers may be missing next time"
            )

    def on_unmount(self) -> None:
        if self._loading is not None:  # closed before the long plan's load finished: what it showed
            self._unsaved = self._loading[0]
        self._save_baseline()  # a save still waiting for a refresh when the screen closes
        if self._web is not None:
            self._web.close("the terminal review closed")

    def _read_or_flag(self) -> str | None:
        """The plan text on disk; None (and the screen says why) when it is gone or unreadable."""
        try:
            return read_plan_text(self.plan_path)
        except PlanNotFoundError:
            if not self.vanished:
                self._set_vanished()
        except PlanviewError as exc:
            self._set_unreadable(str(exc))
        return None

    def _set_vanished(self) -> None:
        self.vanished = True
        self._set_notice(
            f"The plan file is gone ({self._display_path()}): approve is disabled. Esc keeps planning; "
            "the plan reappears here if the file comes back."
        )
        if self.text is None:
            self.body.empty_message = "The plan file does not exist"
            self.body.show(parse_plan(""), frozenset())
        self._update_rows()

    def _set_unreadable(self, message: str) -> None:
        self.unreadable = message
        self._set_notice(f"{message}. Approve is disabled; Esc keeps planning.")
        if self.text is None:
            self.body.empty_message = "The plan file cannot be read"
            self.body.show(parse_plan(""), frozenset())
        self._update_rows()

    @work(exclusive=True, group="review-watch")
    async def _watch_plan(self) -> None:
        """Reload on every save. Watch the folder: an atomic save (temp + rename) arrives as `added`."""
        from watchfiles import awatch

        folder = self.plan_path.parent
        name = self.plan_path.name
        while not folder.is_dir():
            await asyncio.sleep(1.0)
        try:
            async for changes in awatch(folder, recursive=False, debounce=400, step=50):
                if any(Path(path).name == name for _change, path in changes):
                    self.reload_from_disk()
        except (OSError, RuntimeError) as exc:
            self._set_notice(
                f"Live reload stopped ({exc}); press Esc and reopen the review to see later edits"
            )

    def _display_path(self) -> str:
        try:
            shown = str(self.plan_path.relative_to(Path.cwd()))
        except ValueError:
            shown = str(self.plan_path)
        return clean_text(shown)

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
        return not (self.empty or self.vanished or self.unreadable or self.text is None)

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
            self._update_rows()
            return
        self._finish_loading()  # the hash of what was shown, and its diff, before comparing
        on_disk = self._read_or_flag()
        if on_disk is None:
            return
        sha = _canonical_sha256(on_disk)
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
        from planview.web.decision import feedback_message
        from planview.web.review import BROWSER_CHANNEL, open_in_browser, start_review

        try:
            # on_approve does not record: the flow that opened this screen records the Approved it returns.
            server = await start_review(
                self.plan_path,
                approve=self.approve_enabled,
                home=self._baselines.home if self._baselines is not None else None,
                on_approve=lambda _path, _sha: None,
                baseline=self._marker_baseline,
            )
        except PlanviewError as exc:
            self._set_notice(f"Could not start the browser review: {exc}")
            return
        self._web = server
        try:
            self._set_notice(f"Reviewing in the browser: {server.url}  (decide there or here)")
            if not await asyncio.to_thread(open_in_browser, server.url):
                self._set_notice(f"No browser could be opened; open {server.url} yourself")
            decision = await server.wait()
        finally:
            self._web = None
            await server.stop()
        if self._has_decided or not self.is_attached:
            return
        from planview.plan.decision import Approved, Refine

        if decision.outcome == "approved" and decision.canonical_sha256 is not None:
            # The page's comments are in the file now; the flow that records this approval takes
            # them back out if it cannot (approval.flow.record_decision), as the page's route does.
            self._decide(
                Approved(
                    self.plan_path, decision.canonical_sha256, channel=BROWSER_CHANNEL, saved=decision.saved
                )
            )
        elif decision.outcome == "saved":
            self._decide(Refine(feedback_message(decision.comments)))
        else:
            self._set_notice(f"The browser review closed ({decision.reason}); the review continues here.")

    def _ask_again(self, before: str, after: str) -> None:
        names = [
            c.title or "Preamble" for c in _changed_sections(before, after).changes if c.status != "unchanged"
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


def _canonical_sha256(text: str) -> str:
    from planview.plan.canonical import canonical_sha256

    return canonical_sha256(text)


def _changed_sections(before: str, after: str) -> SectionDiff:
    from planview.plan.diff import changed_sections

    return changed_sections(before, after)


def _quiet_home(start: Path) -> Path | None:
    """planview's home for the review baselines; None when it cannot be created (no markers then)."""
    try:
        return planview_home(start if start.is_dir() else None)
    except (OSError, PlanviewError):
        return None
