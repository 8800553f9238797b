"""The canonical form of a plan, and its SHA-256 (what approvals pin).

Normalised away, so that keeping a plan current never invalidates its approval:
- line endings (CRLF and lone CR become LF), a leading BOM, trailing whitespace on
  every line and blank lines at the end of the file;
- review-comment lines (`> [!REVIEW] ...`, see `feedback`);
- task checkboxes at the start of list items (`- [ ] `, `- [~] `, `1. [x] `) are
  removed, so ticking a step, marking it in progress, or `set_steps` giving a step
  its first checkbox, changes nothing (`[-]`, `[/]` are text: see `steps`);
- `[DONE:n]` markers (with the whitespace before them; a line holding only markers goes).
Text inside fenced or indented code is kept as it is (only its trailing whitespace
goes). Any other change — a word, a heading, a list item — changes the hash.
"""

from __future__ import annotations

import hashlib
import re
from collections import namedtuple

from planview.lazy_regex import LazyPattern
from planview.plan.feedback import strip_feedback
from planview.plan.lines import split_lines

# A list item's first line: quote prefixes and indentation, the marker, the gap, maybe a task box.
# The one spelling of a checkbox: `steps` reads and edits boxes with it, canonical_text strips them.
# `(?:[ \t]*>)*`, not `(?:[ \t]*>[ \t]?)*`: the optional blank let each quote level split its blanks
# two ways, exponential on a deeply quoted line that is not an item (22 levels took 5 s).
ITEM_LINE = LazyPattern(
    r"^(?P<prefix>(?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)]))(?P<gap>[ \t]+|$)"
    r"(?P<box>\[(?P<state>[ xX~])\](?=[ \t]|$))?"
)
# No leading `[ \t]*` in the pattern: unanchored, it restarted at every blank of a run and was
# quadratic (a 250 KB line of blanks took minutes); strip_done_markers drops those blanks instead.
DONE_MARKER = LazyPattern(r"\[DONE:[ \t]*\d+\]", re.IGNORECASE)


def strip_done_markers(text: str) -> str:
    """`text` without its `[DONE:n]` markers and the blanks just before each, in linear time."""
    if "[" not in text:
        return text
    parts: list[str] = []
    last = 0
    for match in DONE_MARKER.finditer(text):
        parts.append(text[last : match.start()].rstrip(" \t"))
        last = match.end()
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def strip_checkbox(line: str) -> str:
    """`line` without the task box (and the blanks after it) that opens its list item, if any."""
    match = ITEM_LINE.match(line)
    if match is None or match.group("box") is None:
        return line
    return line[: match.start("box")] + line[match.end("box") :].lstrip(" \t")


def _normalised(text: str) -> str:
    """What the canonical form and the document parse read: no BOM, no CRLF, no review comments."""
    return strip_feedback(text.removeprefix("\ufeff").replace("\r\n", "\n"))


def _code_decides(lines: tuple[str, ...]) -> bool:
    """Whether any line's canonical form depends on it being code: only a piece that stripping its
    box or [DONE:n] markers would change. Otherwise the form is the same either way, and the
    Markdown parse that finds the code can be skipped."""
    for line in lines:
        if "[" in line:
            for piece in line.split("\r"):
                if "[" in piece and strip_done_markers(strip_checkbox(piece)) != piece:
                    return True
    return False


def _code_mask(count: int, code_ranges: tuple[tuple[int, int], ...]) -> bytearray:
    in_code = bytearray(count)
    for start, end in code_ranges:
        in_code[start - 1 : end] = b"\x01" * (end - start + 1)
    return in_code


def _render(lines: tuple[str, ...], in_code: bytearray | None) -> str:
    out: list[str] = []
    for i, line in enumerate(lines):
        for piece in line.split("\r"):
            if (in_code is None or not in_code[i]) and "[" in piece:
                unboxed = strip_checkbox(piece)
                kept = strip_done_markers(unboxed)
                if not kept.strip() and unboxed.strip():
                    continue  # a line that held only markers goes (set_steps removes such lines on reopen)
                piece = kept
            out.append(piece.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _code_ranges(text: str) -> tuple[tuple[int, int], ...]:
    from planview.plan.document import parse_tokens  # markdown-it: only when the code decides

    return parse_tokens(text).code_ranges


def canonical_text(text: str) -> str:
    """The normalised plan text that `canonical_sha256` hashes."""
    # Comments, code and checkboxes are found in the lines the steps are read from: the comment-free
    # text, where a lone CR is a space (as markdown-it and `steps` read it), not a line break; a
    # lone CR only becomes one in the output. Parsed with it as a break, `a\r```` opened a fence the
    # steps do not see, and ticking a step below it changed the hash.
    text = _normalised(text)
    lines = split_lines(text)
    in_code = _code_mask(len(lines), _code_ranges(text)) if _code_decides(lines) else None
    return _render(lines, in_code)


def canonical_sha256(text: str) -> str:
    """Hex SHA-256 of `canonical_text(text)`: unchanged by checkbox flips, [DONE:n], comments, CRLF."""
    return hashlib.sha256(canonical_text(text).encode("utf-8", "surrogatepass")).hexdigest()


# -- re-hashing a ticked copy without the parser ---------------------------------------------------


class CanonicalParts(namedtuple("CanonicalParts", "sha256 skeleton code_ranges")):
    """A plan's canonical hash, and what re-hashing a copy of it whose only change is ticked or
    unticked boxes needs without the Markdown parser.

    `skeleton` is the SHA-256 of the normalised text with every box's state character (`[ ]`,
    `[x]`, `[X]`, `[~]`) read as a blank. A box's state never changes the block structure (a box is
    followed by a blank or the end of the line, so it is never a link label, and no block rule looks
    inside it), so two texts with the same skeleton have the same code lines: the canonical form of
    the one follows from the other's `code_ranges` (None when they were not needed, so not computed).
    `tests/plan/test_plan_canonical_fast.py` checks this against the full parse on the corpus and on
    generated plans.
    """

    __slots__ = ()
    sha256: str
    skeleton: str
    code_ranges: tuple[tuple[int, int], ...] | None


def _skeleton(lines: tuple[str, ...]) -> str:
    out: list[str] = []
    for line in lines:
        if "[" in line:
            pieces = []
            for piece in line.split("\r"):
                match = ITEM_LINE.match(piece) if "[" in piece else None
                if match is not None and match.group("box") is not None:
                    at = match.start("state")
                    piece = piece[:at] + " " + piece[at + 1 :]
                pieces.append(piece)
            line = "\r".join(pieces)
        out.append(line)
    return hashlib.sha256("\n".join(out).encode("utf-8", "surrogatepass")).hexdigest()


def canonical_parts(text: str) -> CanonicalParts:
    """`canonical_sha256(text)` with its skeleton and code ranges (one parse, when the code decides)."""
    normal = _normalised(text)
    lines = split_lines(normal)
    code = _code_ranges(normal) if _code_decides(lines) else None
    canonical = _render(lines, None if code is None else _code_mask(len(lines), code))
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return CanonicalParts(digest, _skeleton(lines), code)


def canonical_sha256_known(text: str, known: CanonicalParts) -> CanonicalParts | None:
    """`canonical_parts(text)` computed from `known` (the parts of an earlier text) without the
    Markdown parser, or None when `text` differs from that text in more than its boxes' states."""
    normal = _normalised(text)
    lines = split_lines(normal)
    if _skeleton(lines) != known.skeleton:
        return None
    if not _code_decides(lines):
        canonical = _render(lines, None)
    elif known.code_ranges is None:
        return None
    else:
        canonical = _render(lines, _code_mask(len(lines), known.code_ranges))
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return CanonicalParts(digest, known.skeleton, known.code_ranges)
