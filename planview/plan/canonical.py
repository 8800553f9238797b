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

from planview.plan.document import parse_tokens, split_lines
from planview.plan.feedback import strip_feedback

CHECKBOX = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)\[[ xX~]\](?:[ \t]+|$)")
# No leading `[ \t]*` in the pattern: unanchored, it restarted at every blank of a run and was
# quadratic (a 250 KB line of blanks took minutes); strip_done_markers drops those blanks instead.
DONE_MARKER = re.compile(r"\[DONE:[ \t]*\d+\]", re.IGNORECASE)


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


def canonical_text(text: str) -> str:
    """The normalised plan text that `canonical_sha256` hashes."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = strip_feedback(text)
    lines: list[str | None] = list(split_lines(text))
    if "[" in text:
        code = parse_tokens(text).code_ranges
        in_code = bytearray(len(lines) + 1)
        for start, end in code:
            in_code[start - 1 : end] = b"\x01" * (end - start + 1)
        for i, line in enumerate(lines):
            if in_code[i] or "[" not in line:
                continue
            line = CHECKBOX.sub(r"\1", line, count=1)
            kept = strip_done_markers(line)
            # A line that held only markers is gone (set_steps removes such lines on reopen).
            lines[i] = None if not kept.strip() and line.strip() else kept
    lines = [line.rstrip() for line in lines if line is not None]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def canonical_sha256(text: str) -> str:
    """Hex SHA-256 of `canonical_text(text)`: unchanged by checkbox flips, [DONE:n], comments, CRLF."""
    return hashlib.sha256(canonical_text(text).encode("utf-8", "surrogatepass")).hexdigest()
