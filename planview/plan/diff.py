"""Which sections of a plan changed since a previous text of it.

Sections are matched by title (the preamble only matches the preamble); among
sections sharing a title, the k-th previous one matches the k-th current one.
A matched section is unchanged when its lines are equal once review-comment lines
are removed (both sides), trailing whitespace is dropped from every line and
trailing blank lines from the section; CRLF and LF compare equal. A heading
level change counts as a change (the heading line differs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planview.plan.document import Section, parse_plan
from planview.plan.feedback import strip_feedback

SectionStatus = Literal["unchanged", "changed", "added"]


@dataclass(frozen=True)
class SectionChange:
    index: int  # index into the *current* document's sections
    title: str
    status: SectionStatus


@dataclass(frozen=True)
class SectionDiff:
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


def _body(section: Section) -> tuple[str, ...]:
    lines = [line.rstrip() for line in section.text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def changed_sections(previous: str, current: str) -> SectionDiff:
    """Per current section: unchanged / changed / added; plus the removed titles."""
    before = parse_plan(strip_feedback(previous)).sections
    after = parse_plan(strip_feedback(current)).sections
    pool: dict[tuple[str, bool], list[Section]] = {}
    for section in before:
        pool.setdefault(_key(section), []).append(section)
    changes: list[SectionChange] = []
    for section in after:
        candidates = pool.get(_key(section))
        if not candidates:
            status: SectionStatus = "added"
        else:
            old = candidates.pop(0)
            status = "unchanged" if _body(old) == _body(section) else "changed"
        changes.append(SectionChange(section.index, section.title, status))
    leftover = {id(s) for group in pool.values() for s in group}
    removed = tuple(s.title for s in before if id(s) in leftover)
    return SectionDiff(tuple(changes), removed)
