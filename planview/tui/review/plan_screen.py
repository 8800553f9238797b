"""The plan a review shows, kept in step with its file: read, loaded, watched, remembered.

`PlanScreen` is the part of the review screen that owns the plan's text: it opens a long plan
from its first lines and does the whole-document work in a thread (loading.py), reloads on every
save (the folder is watched: an atomic save arrives as `added`), says when the file is gone or
unreadable, tracks the version the reviewer was shown, and saves what was shown as the baseline
for the next review's change markers. The review screen (screen.py) adds the rows, keys and
decisions; it provides `body`, `_update_rows` and `_set_notice`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from textual import on, work
from textual.message import Message
from textual.screen import Screen

from planview.errors import PlanviewError
from planview.plan.document import PlanDocument, parse_plan
from planview.plan.errors import PlanNotFoundError
from planview.plan.reviews import ReviewBaselines
from planview.plan.store import read_plan_text
from planview.tui.review.body import PlanBody
from planview.tui.review.first_frame import after_first_frame
from planview.tui.review.loading import (
    BackgroundLoad,
    Loaded,
    canonical_sha256,
    changed_indices,
    changed_sections,
    count_lines,
    head_lines,
    quiet_home,
)
from planview.tui.review.render import clean_text
from planview.tui.review.text import is_empty_plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.decision import ReviewDecision  # noqa: F401  (the Screen["ReviewDecision"] base)
    from planview.plan.diff import SectionDiff
    from planview.plan.word_diff import SectionWords


# A plan longer than this opens with only its first PREFIX_LINES lines parsed, so the first screen
# costs the same for any length. The whole-document work (parse, canonical hash, changed-section
# diff against the last review) runs in a thread once that screen is drawn; whatever needs it
# sooner (a jump past the parsed part, approve, a reload) waits for it.
PREFIX_LINES = 400


class _LoadDone(Message):
    """The loading thread finished (posted from that thread)."""


class PlanScreen(Screen["ReviewDecision"]):
    """A screen showing one plan file. `watch=False` turns off the live reload (tests drive
    `reload_from_disk`)."""

    def __init__(self, plan_path: Path, *, home: Path | None = None, watch: bool = True) -> None:
        super().__init__()
        self.plan_path = Path(plan_path).expanduser().resolve()
        self._home = home
        self._watch = watch
        self.text: str | None = None  # the plan text on screen
        self.document: PlanDocument = parse_plan("")
        self.diff: SectionDiff | None = None
        self.empty = False
        self.vanished = False
        self.unreadable: str | None = None
        self._marker_baseline: str | None = None
        self._seen_sha: str | None = None  # the version the reviewer was shown or asked about
        self._seen_text = ""
        self._baselines: ReviewBaselines | None = None
        self._unsaved: str | None = None  # shown text whose baseline save is scheduled
        self._has_decided = False  # a decision was made: no more reloads
        self._loading: BackgroundLoad | None = None  # a long plan's whole-document work, until applied

    # -- what the review screen provides ------------------------------------------------------
    @property
    def body(self) -> PlanBody:
        raise NotImplementedError

    def _update_rows(self) -> None:
        raise NotImplementedError

    def _set_notice(self, text: str) -> None:
        raise NotImplementedError

    def _document_changed(self) -> None:
        """A new document is on screen (the review screen keeps its section cursor in range)."""

    def _changed_on_disk(self, before: str, after: str) -> None:
        """The file changed while it was on screen and the view now shows the new text."""

    # -- opening and closing ------------------------------------------------------------------
    def _open_plan(self) -> None:
        """Read the plan and show it (the screen's on_mount calls this); watching starts after the first frame."""
        home = self._home if self._home is not None else quiet_home(self.plan_path.parent)
        self._baselines = ReviewBaselines(home) if home is not None else None
        self._load_first()
        if self._watch:
            after_first_frame(self, self._start_watching)  # watchfiles' import and thread start wait too

    def _close_plan(self) -> None:
        """The screen closes (its on_unmount calls this): the baseline of what it showed is saved now."""
        if self._loading is not None:  # closed before the long plan's load finished: what it showed
            self._unsaved = self._loading.text
        self._save_baseline()  # a save still waiting for a refresh when the screen closes

    # -- loading ------------------------------------------------------------------------------
    def _load_first(self) -> None:
        text = self._read_or_flag()
        head = head_lines(text, PREFIX_LINES) if text is not None else None
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
        self._seen_sha, self._seen_text = canonical_sha256(text), text
        self._show_text(text, keep="top")

    def _show_first(self, text: str, head: str | None) -> None:
        """Show the plan before its whole-document work (`_finish_loading`): a long plan from its
        first lines (`head`; the rest of it follows), a short one whole."""
        if head is None:
            document = parse_plan(text)
        else:
            document = parse_plan(head)
            sections = document.sections
            # The last section may be cut short by the prefix: it is dropped, unless the whole ones
            # before it are too short to fill a screen (a long early section, a 400-item Steps list):
            # then its first lines are shown as they are, and the whole document replaces them.
            if len(sections) > 1 and sections[-1].start > PREFIX_LINES // 2:
                document = replace(document, sections=sections[:-1])
        self.text = text
        self.document = document
        self.empty = False
        self.diff = None
        self._loading = BackgroundLoad(text, self._load)
        body = self.body
        body.empty_message = "This plan is empty"
        if head is None:
            body.show(document, frozenset(), keep="top")
        else:
            body.more = self._finish_loading
            body.show(document, frozenset(), keep="top", partial_of=count_lines(text))
        after_first_frame(self, self._start_loading)
        self._document_changed()
        self._update_rows()

    def _load(self, text: str) -> Loaded:
        """The whole-document work (runs in the loading thread, or inline when needed at once)."""
        baseline = self._baselines.load(self.plan_path) if self._baselines else None
        document = parse_plan(text)
        diff = changed_sections(baseline, text, document) if baseline is not None else None
        return Loaded(text, document, canonical_sha256(text), baseline, diff)

    def _start_loading(self) -> None:
        if self._loading is not None:
            self._loading.start(lambda: self.post_message(_LoadDone()))

    @on(_LoadDone)
    def _on_load_done(self) -> None:
        self._finish_loading()

    def _finish_loading(self) -> None:
        """Apply the whole-document work now (waiting for the thread, or doing it here)."""
        if self._loading is None:
            return
        text, loaded = self._loading.text, self._loading.result()
        self._loading = None
        self.body.more = None
        if text != self.text:
            return
        self._marker_baseline = loaded.baseline
        self._seen_sha, self._seen_text = loaded.sha, text
        self.document = loaded.document
        self.diff = loaded.diff
        self.body.adopt(loaded.document, changed_indices(loaded.diff))
        self._schedule_baseline_save(text)
        self._document_changed()
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
            self._seen_sha, self._seen_text = canonical_sha256(text), text
        before = self.text
        self._show_text(text, keep="section" if before is not None else "top")
        if before is not None:
            self._changed_on_disk(before, text)
        return True

    def _show_text(self, text: str, keep: str) -> None:
        if self._marker_baseline is None and self.text is not None:
            # No earlier review: changes made while this one is open are marked against what it first showed.
            self._marker_baseline = self.text
        self.text = text
        self.document = parse_plan(text)
        self.empty = is_empty_plan(text)
        self.diff = (
            changed_sections(self._marker_baseline, text) if self._marker_baseline is not None else None
        )
        self.body.empty_message = "This plan is empty"
        if self.body.show_diff:  # a reload while `d` is on: the diffs of the new text
            words = self.word_diffs() or ()
            self.body.diffs = {w.index: w.pieces for w in words if w.index >= 0}
        self.body.show(parse_plan("") if self.empty else self.document, changed_indices(self.diff), keep=keep)  # type: ignore[arg-type]
        self._schedule_baseline_save(text)
        self._document_changed()
        self._update_rows()

    # -- word diffs (`d`) ---------------------------------------------------------------------
    def word_diffs(self) -> tuple[SectionWords, ...] | None:
        """The changed sections word by word against the last review; None with nothing to compare."""
        self._finish_loading()
        if self._marker_baseline is None or self.text is None or self.empty:
            return None
        from planview.plan.word_diff import section_words

        return section_words(self._marker_baseline, self.text)

    def show_word_diffs(self, on: bool) -> str:
        """Draw the changed sections as word diffs (or the plan again); the sentence for the reader."""
        if not on:
            self.body.set_diff(None)
            return ""
        words = self.word_diffs()
        if words is None:
            return "There is no earlier review of this plan to compare with."
        shown = {w.index: w.pieces for w in words if w.index >= 0}
        removed = [clean_text(w.title) or "Preamble" for w in words if w.status == "removed"]
        if not shown and not removed:
            return "Nothing changed since your last review."
        self.body.set_diff(shown)
        what = f"{len(shown)} section{'s' if len(shown) != 1 else ''} changed since your last review, word by word"
        gone = f"; removed: {', '.join(removed[:3])}{', …' if len(removed) > 3 else ''}" if removed else ""
        return f"{what}{gone}. d shows the plan again."

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

    # -- watching -----------------------------------------------------------------------------
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
