"""Every revision of a plan that a person reviewed, kept content-addressed under `<home>/reviews/`.

Layout (one home per plan key, the SHA-256 of the resolved plan path):

    reviews/objects/<sha256 of the text>.md     the exact text a review showed (shared by plans)
    reviews/<plan key>.revisions.jsonl          that plan's reviews in order, one JSON line each:
                                                {"sha256": "<object>", "at": "<UTC ISO time>"}
    reviews/<plan key>.md                       the old single baseline (before revisions were kept):
                                                read and imported as revision 1, never deleted

The last revision is the baseline for "N sections changed since your last review" and for the word
diffs (`d` on the review screen, `planview diff`, the browser review). Showing the same text again
adds no revision. Writes are atomic (objects, and the index when it is rewritten) or one appended
line; a reader that finds a damaged index line, a missing object or an object whose content does not
match its name drops that revision, says so (`History.damage`) and `repair` rewrites the index
from what is intact. A missing or unreadable store means "no markers", never an error in the
reviewer's way.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from planview.atomic import atomic_write
from planview.errors import PlanviewError
from planview.home import HomeLayout

_LIMIT = 8 * 1024 * 1024  # a plan is read up to 2 MiB; a revision is never larger than one
_INDEX_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True)
class Revision:
    """One reviewed revision of a plan: its place in the plan's history (1 = first), address, time."""

    number: int
    sha256: str  # of the text's UTF-8 bytes: the object's name
    at: str  # when it was reviewed (UTC, ISO 8601); "" when not known


@dataclass(frozen=True)
class History:
    """A plan's reviewed revisions that are intact, oldest first, and what was wrong with the rest."""

    revisions: tuple[Revision, ...]
    damage: str | None  # one sentence naming what was dropped (None: the store is sound)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _valid_sha(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


class ReviewBaselines:
    """Per-plan review revisions stored under `home / "reviews"`."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.folder = HomeLayout(self.home).reviews
        # Texts known without their object (an old baseline a read-only home could not import).
        self._fallback: dict[str, str] = {}

    # -- where things live --------------------------------------------------------------------
    def key_for(self, plan: Path) -> str:
        return hashlib.sha256(str(Path(plan).resolve()).encode("utf-8", "surrogatepass")).hexdigest()

    def legacy_path(self, plan: Path) -> Path:
        """The single baseline file planview kept before it kept revisions (imported, never deleted)."""
        return self.folder / f"{self.key_for(plan)}.md"

    def index_path(self, plan: Path) -> Path:
        return self.folder / f"{self.key_for(plan)}.revisions.jsonl"

    def object_path(self, sha256: str) -> Path:
        return self.folder / "objects" / f"{sha256}.md"

    # -- reading ------------------------------------------------------------------------------
    def _read(self, path: Path, limit: int, what: str) -> bytes | None:
        from planview.fileguard import read_regular

        try:  # a FIFO or device in its place is ignored, never read
            return read_regular(path, limit, what)
        except (OSError, PlanviewError):
            return None

    def text_of(self, revision: Revision) -> str | None:
        """The revision's text, or None when its object is missing or does not match its name."""
        if revision.sha256 in self._fallback:
            return self._fallback[revision.sha256]
        data = self._read(self.object_path(revision.sha256), _LIMIT, "review revision")
        if data is None or hashlib.sha256(data).hexdigest() != revision.sha256:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def history(self, plan: Path, *, check_objects: bool = True) -> History:
        """The plan's intact revisions; an old single baseline is imported as revision 1 first."""
        data = self._read(self.index_path(plan), _INDEX_LIMIT, "review history")
        if data is None:
            if not os.path.lexists(self.index_path(plan)):
                return self._migrated(plan)
            return History((), f"the review history {self.index_path(plan)} cannot be read")
        revisions: list[Revision] = []
        dropped: list[str] = []
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                entry = None
            if not isinstance(entry, dict) or not _valid_sha(entry.get("sha256")):
                dropped.append(f"line {number} is not a revision")
                continue
            stamp = entry.get("at")
            at = stamp if isinstance(stamp, str) else ""
            revision = Revision(len(revisions) + 1, entry["sha256"], at)
            if check_objects and self.text_of(revision) is None:
                dropped.append(f"line {number}'s text is missing or does not match its hash")
                continue
            revisions.append(revision)
        damage = None
        if dropped:
            damage = f"{self.index_path(plan)} was damaged ({'; '.join(dropped[:3])}{'; …' if len(dropped) > 3 else ''})"
        return History(tuple(revisions), damage)

    def _migrated(self, plan: Path) -> History:
        """Import the old single baseline as revision 1 (when there is one); the old file stays."""
        legacy = self.legacy_path(plan)
        data = self._read(legacy, _LIMIT, "review baseline")
        if data is None:
            return History((), None)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return History((), f"the old review baseline {legacy} is not UTF-8 text (left as it is)")
        try:
            at = _iso(os.stat(legacy).st_mtime)
            self._store_object(text)
            revision = Revision(1, text_sha256(text), at)
            atomic_write(self.index_path(plan), _line(revision))
        except OSError:
            # A read-only home: the old baseline still serves this review, from where it is.
            self._fallback[text_sha256(text)] = text
            return History((Revision(1, text_sha256(text), ""),), None)
        return History((revision,), None)

    def load(self, plan: Path) -> str | None:
        """The text the last review of `plan` showed, or None when it was never reviewed here."""
        history = self.history(plan, check_objects=False)
        for revision in reversed(history.revisions):  # the newest intact one
            text = self.text_of(revision)
            if text is not None:
                return text
        return None

    def revision_text(self, plan: Path, number: int) -> tuple[Revision, str] | None:
        """Revision `number` (1-based) of `plan` and its text, None when there is no such intact one."""
        history = self.history(plan)
        if not 1 <= number <= len(history.revisions):
            return None
        revision = history.revisions[number - 1]
        text = self.text_of(revision)
        return (revision, text) if text is not None else None

    # -- writing ------------------------------------------------------------------------------
    def _store_object(self, text: str) -> str:
        sha = text_sha256(text)
        path = self.object_path(sha)
        self._fallback.pop(sha, None)
        if self.text_of(Revision(0, sha, "")) is None:  # absent, or damaged: (re)write it
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text.encode("utf-8", "surrogatepass"))
        return sha

    def save(self, plan: Path, text: str) -> None:
        """Record `text` as a revision this review of `plan` showed (nothing new when it is the last one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        history = self.history(plan, check_objects=False)  # (reading every object is for `diff`)
        sha = self._store_object(text)
        if history.revisions and history.revisions[-1].sha256 == sha and history.damage is None:
            return
        from datetime import UTC, datetime

        revision = Revision(len(history.revisions) + 1, sha, datetime.now(UTC).isoformat(timespec="seconds"))
        if history.damage is not None:  # rewrite the index from what is intact, then this one
            self._write_index(plan, (*history.revisions, revision))
            return
        # One appended line (O_APPEND): an earlier revision is never rewritten.
        fd = os.open(self.index_path(plan), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, _line(revision))
            os.fsync(fd)
        finally:
            os.close(fd)

    def repair(self, plan: Path) -> History:
        """Rewrite the plan's index from its intact revisions (after `history` reported damage)."""
        history = self.history(plan)
        if history.damage is not None:
            self._write_index(plan, history.revisions)
        return history

    def _write_index(self, plan: Path, revisions: tuple[Revision, ...]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.index_path(plan), b"".join(_line(r) for r in revisions))


def _line(revision: Revision) -> bytes:
    return (json.dumps({"sha256": revision.sha256, "at": revision.at}) + "\n").encode("ascii")


def _iso(timestamp: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")
