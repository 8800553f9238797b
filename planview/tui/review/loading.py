"""What a review reads from disk, apart from any widget: a plan's first lines, its whole-document
work (parse, canonical hash, changed sections) and where the review baselines live.

The canonical hash, the section diff and the decisions load when first used: what the first frame
needs (the document and its rendering) is all that is imported before it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from planview.errors import PlanviewError
from planview.home import planview_home
from planview.plan.document import PlanDocument

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.diff import SectionDiff


@dataclass(frozen=True)
class Loaded:
    """The whole-document work for `text`, done off the event loop."""

    text: str
    document: PlanDocument
    sha: str
    baseline: str | None
    diff: SectionDiff | None


class BackgroundLoad:
    """One plan text's whole-document work: in a thread once started, inline if needed before."""

    def __init__(self, text: str, work: Callable[[str], Loaded]) -> None:
        self.text = text
        self._work = work
        self._future: Future[Loaded] | None = None

    def start(self, done: Callable[[], object]) -> None:
        """Run the work in a thread (once); `done` is called from that thread when it ends."""
        if self._future is not None:
            return
        future: Future[Loaded] = Future()
        self._future = future
        text, work = self.text, self._work

        def run() -> None:
            try:
                future.set_result(work(text))
            except BaseException as exc:  # handed to the event loop by future.result()
                future.set_exception(exc)
            try:
                done()
            except RuntimeError:  # the app has closed its event loop meanwhile
                pass

        threading.Thread(target=run, name="planview-review-load", daemon=True).start()

    def result(self) -> Loaded:
        """The work's result: waits for the thread, or does the work here when none was started."""
        return self._future.result() if self._future is not None else self._work(self.text)


def head_lines(text: str, lines: int) -> str | None:
    """The first `lines` lines of `text` (with their newline), or None when it has no more than that."""
    end = -1
    for _ in range(lines):
        end = text.find("\n", end + 1)
        if end < 0:
            return None
    return text[: end + 1] if end + 1 < len(text) else None


def count_lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def canonical_sha256(text: str) -> str:
    from planview.plan.canonical import canonical_sha256

    return canonical_sha256(text)


def changed_sections(before: str, after: str, document: PlanDocument | None = None) -> SectionDiff:
    from planview.plan.diff import changed_sections

    return changed_sections(before, after, document)


def changed_indices(diff: SectionDiff | None) -> frozenset[int]:
    """The sections `diff` marks (added or changed), by index."""
    if diff is None:
        return frozenset()
    return frozenset(c.index for c in diff.changes if c.status != "unchanged")


def quiet_home(start: Path) -> Path | None:
    """planview's home for the review baselines; None when it cannot be created (no markers then)."""
    try:
        return planview_home(start if start.is_dir() else None)
    except (OSError, PlanviewError):
        return None
