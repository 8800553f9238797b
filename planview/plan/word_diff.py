"""What changed in a plan's sections, word by word, since a previous text of it (pure).

Sections are matched and judged changed by `diff.matched_sections` / the canonical rule in `diff`
(ticking a checkbox or adding a review comment is no change). Within a changed section the text is
compared line by line first (difflib), and only the lines that were replaced are compared again on
tokens — runs of word characters, runs of spaces, single punctuation marks — so a one-word edit reads
as that word, never as scattered characters, and a long section costs what its changed lines cost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from planview.plan.canonical import canonical_text
from planview.plan.diff import matched_sections

Op = Literal["equal", "insert", "delete"]
_TOKEN = re.compile(r"\w+|[^\S\n]+|\n|[^\w\s]")


@dataclass(frozen=True)
class Piece:
    """A run of text that is the same in both revisions, new in the current one, or gone from it."""

    op: Op
    text: str


@dataclass(frozen=True)
class SectionWords:
    """One section's word diff: `pieces` joined without the deletions is the section's current text."""

    index: int  # in the current document (-1 for a removed section)
    title: str
    status: Literal["changed", "added", "removed"]
    pieces: tuple[Piece, ...]

    @property
    def inserted(self) -> tuple[str, ...]:
        return tuple(p.text for p in self.pieces if p.op == "insert")

    @property
    def deleted(self) -> tuple[str, ...]:
        return tuple(p.text for p in self.pieces if p.op == "delete")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _merged(pieces: list[Piece]) -> tuple[Piece, ...]:
    out: list[Piece] = []
    for piece in pieces:
        if not piece.text:
            continue
        if out and out[-1].op == piece.op:
            out[-1] = Piece(piece.op, out[-1].text + piece.text)
        else:
            out.append(piece)
    return tuple(out)


def _word_pieces(before: str, after: str) -> list[Piece]:
    a, b = tokens(before), tokens(after)
    opcodes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    out: list[Piece] = []
    deleted: list[str] = []
    inserted: list[str] = []

    def flush() -> None:
        # Deletions before insertions: "old new" reads in the order an editor would make the change.
        out.append(Piece("delete", "".join(deleted)))
        out.append(Piece("insert", "".join(inserted)))
        deleted.clear()
        inserted.clear()

    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            deleted += a[i1:i2]
            inserted += b[j1:j2]
            continue
        same = b[j1:j2]
        # A lone space between two changes belongs to them: "None known" -> "Traffic spikes" is one
        # replacement, not two words swapped around a space that stayed.
        between = (deleted or inserted) and k + 1 < len(opcodes)
        if between and len(same) == 1 and same[0].isspace() and "\n" not in same[0]:
            deleted += same
            inserted += same
            continue
        if deleted or inserted:
            flush()
        out.append(Piece("equal", "".join(same)))
    if deleted or inserted:
        flush()
    return out


def _lines(text: str) -> list[str]:
    """`text` cut after each newline (the last line without one, when it has none)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def word_pieces(before: str, after: str) -> tuple[Piece, ...]:
    """`after` against `before`: equal, deleted and inserted runs, in reading order."""
    a, b = _lines(before), _lines(after)
    # Lines match on their content: the last line of a section gaining a newline is not an edit.
    keys_a = [line.removesuffix("\n") for line in a]
    keys_b = [line.removesuffix("\n") for line in b]
    out: list[Piece] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            for line_a, line_b in zip(a[i1:i2], b[j1:j2], strict=True):
                out.append(Piece("equal", line_b.removesuffix("\n")))
                if line_a != line_b:  # one has the newline, the other not
                    out.append(Piece("insert" if line_b.endswith("\n") else "delete", "\n"))
                elif line_b.endswith("\n"):
                    out.append(Piece("equal", "\n"))
        elif tag == "replace":
            out += _word_pieces(old, new)
        else:
            out.append(Piece("delete" if tag == "delete" else "insert", old or new))
    return _merged(out)


def section_words(previous: str, current: str) -> tuple[SectionWords, ...]:
    """Every changed, added and removed section of `current` against `previous`, in reading order
    (removed ones after the current sections)."""
    pairs, removed = matched_sections(previous, current)
    out: list[SectionWords] = []
    for section, old in pairs:
        if old is None:
            out.append(SectionWords(section.index, section.title, "added", (Piece("insert", section.text),)))
        elif canonical_text(old.text) != canonical_text(section.text):
            out.append(
                SectionWords(section.index, section.title, "changed", word_pieces(old.text, section.text))
            )
    out += [SectionWords(-1, s.title, "removed", (Piece("delete", s.text),)) for s in removed]
    return tuple(out)
