"""Which sections of a plan changed since a previous text of it.

Sections are matched by title (the preamble only matches the preamble); among
sections sharing a title, the k-th previous one matches the k-th current one.
A matched section is unchanged when its canonical text (see `canonical`) is equal: review-comment
lines, task checkbox state (`[ ]`, `[x]`, `[~]`), `[DONE:n]` markers, trailing whitespace and
trailing blank lines are ignored, CRLF and LF compare equal - the same rule the approval hash
uses, so ticking steps never reads as an edit. A heading level change counts as a change (the
heading line differs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planview.plan.canonical import canonical_text
from planview.plan.document import PlanDocument, Section, parse_plan
from planview.plan.feedback import strip_feedback

SectionStatus = Literal["unchanged", "changed", "added"]


@dataclass(frozen=True)
class SectionChange:
    """How one section of the current text compares with the previous text."""

    index: int  # index into the *current* document's sections
    title: str
    status: SectionStatus


@dataclass(frozen=True)
class SectionDiff:
    """Which sections changed since the previous text: each current one's status, and those removed."""

    changes: tuple[SectionChange, ...]  # one per current section, in order
    removed: tuple[str, ...]  # titles of previous sections with no match

    @property
    def changed_count(self) -> int:
        """Changed plus added sections."""
        return sum(1 for change in self.changes if change.status != "unchanged")

    @property
    def any_changes(self) -> bool:
        return self.changed_count > 0 or bool(self.removed)

    def status_of(self, index: int) -> SectionStatus:
        return self.changes[index].status

    @property
    def changed_titles(self) -> tuple[str, ...]:
        """Titles of changed and added sections, then removed ones (for messages)."""
        return tuple(c.title for c in self.changes if c.status != "unchanged") + self.removed


def _key(section: Section) -> tuple[str, bool]:
    return section.title, section.level == 0


def _body(section: Section) -> str:
    return canonical_text(section.text)


def matched_sections(
    previous: str, current: str, current_document: PlanDocument | None = None
) -> tuple[list[tuple[Section, Section | None]], list[Section]]:
    """Each current section with the previous one it matches (None: added), and the unmatched previous ones.

    Both texts have their review comments stripped first (a comment never reads as an edit).
    `current_document`: `current` already parsed (a long plan is not parsed twice)."""
    stripped = strip_feedback(current)
    if current_document is not None and current_document.text == stripped:
        after = current_document.sections
    else:
        after = parse_plan(stripped).sections
    before = parse_plan(strip_feedback(previous)).sections
    pool: dict[tuple[str, bool], list[Section]] = {}
    for section in before:
        pool.setdefault(_key(section), []).append(section)
    pairs: list[tuple[Section, Section | None]] = []
    for section in after:
        candidates = pool.get(_key(section))
        pairs.append((section, candidates.pop(0) if candidates else None))
    leftover = {id(s) for group in pool.values() for s in group}
    return pairs, [s for s in before if id(s) in leftover]


def changed_sections(
    previous: str, current: str, current_document: PlanDocument | None = None
) -> SectionDiff:
    """Per current section: unchanged / changed / added; plus the removed titles."""
    pairs, removed = matched_sections(previous, current, current_document)
    changes: list[SectionChange] = []
    for section, old in pairs:
        if old is None:
            status: SectionStatus = "added"
        else:
            status = "unchanged" if _body(old) == _body(section) else "changed"
        changes.append(SectionChange(section.index, section.title, status))
    return SectionDiff(tuple(changes), tuple(s.title for s in removed))
