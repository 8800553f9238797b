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

from planview.lazy_regex import LazyPattern
from planview.plan.document import parse_tokens, split_lines
from planview.plan.feedback import strip_feedback

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


def canonical_text(text: str) -> str:
    """The normalised plan text that `canonical_sha256` hashes."""
    # Comments, code and checkboxes are found in the lines the steps are read from: the comment-free
    # text, where a lone CR is a space (as markdown-it and `steps` read it), not a line break; a
    # lone CR only becomes one in the output. Parsed with it as a break, `a\r```` opened a fence the
    # steps do not see, and ticking a step below it changed the hash.
    text = strip_feedback(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    lines = split_lines(text)
    in_code = bytearray(len(lines))
    if "[" in text:
        for start, end in parse_tokens(text).code_ranges:
            in_code[start - 1 : end] = b"\x01" * (end - start + 1)
    out: list[str] = []
    for i, line in enumerate(lines):
        for piece in line.split("\r"):
            if not in_code[i] and "[" in piece:
                unboxed = strip_checkbox(piece)
                kept = strip_done_markers(unboxed)
                if not kept.strip() and unboxed.strip():
                    continue  # a line that held only markers goes (set_steps removes such lines on reopen)
                piece = kept
            out.append(piece.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def canonical_sha256(text: str) -> str:
    """Hex SHA-256 of `canonical_text(text)`: unchanged by checkbox flips, [DONE:n], comments, CRLF."""
    return hashlib.sha256(canonical_text(text).encode("utf-8", "surrogatepass")).hexdigest()
