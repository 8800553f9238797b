"""Review comments stored in the plan as `> [!REVIEW] <text>` lines after the block they anchor to.

- A comment line is `> [!REVIEW] text` (up to three leading spaces, `[!review]` in any case).
  Inside fenced or indented code it is content, never a comment; an unterminated
  fence makes the rest of the file code.
- `anchor_line` is the last line of the anchored block, numbered in the text with
  every comment line removed (0 = before the first line).
- `apply_feedback` strips the existing comment lines first, so applying the same
  comments twice gives the same file. An anchor inside a block moves to the block's
  end (a comment never splits a paragraph, list item, table or fence); an anchor in
  or after an unterminated top-level fence moves to the block before it, because a
  line inside it would be code. A comment is one line: its whitespace (newlines too)
  collapses to single spaces, and an empty comment is not written.
- Line endings follow the file: comments added to a CRLF file end in CRLF.
"""

from __future__ import annotations

import re
from collections import namedtuple

from planview.lazy_regex import LazyPattern

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the Claude hook's start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

_COMMENT = LazyPattern(r"^ {0,3}> ?\[!REVIEW\][ \t]*(.*?)\s*$", re.IGNORECASE)
_MARKER = "[!review]"


# A named tuple, not a dataclass, and the parser imported only for a text with comments: the
# canonical hash strips comments first, and the Claude hook re-hashes a changed plan in a fresh
# process (benchmarks/README.md, claude_hook).
class ReviewComment(namedtuple("ReviewComment", "anchor_line text")):
    """One `> [!REVIEW]` comment and the block it follows."""

    __slots__ = ()
    anchor_line: int  # last line of the block the comment follows (in the stripped text)
    text: str


def _comment_indices(text: str, pieces: list[str]) -> list[tuple[int, str]]:
    """(piece index, comment text) of every comment line outside code."""
    if _MARKER not in text.lower():
        return []
    candidates = [(i, m.group(1)) for i, piece in enumerate(pieces) if (m := _COMMENT.match(piece))]
    if not candidates:
        return []
    from planview.plan.document import parse_tokens

    code = parse_tokens(text).code_ranges
    return [(i, body) for i, body in candidates if not any(s <= i + 1 <= e for s, e in code)]


def strip_feedback(text: str) -> str:
    """`text` without its review-comment lines (every other byte kept)."""
    return without_feedback(text)[0]


def without_feedback(text: str) -> tuple[str, tuple[int, ...] | None]:
    """`strip_feedback(text)`, and for each of its lines (split on LF) the 0-based index of that
    line in `text` (None when there were no comments, so the indices are the identity).

    The plan's structure (sections, code, steps, what the canonical hash strips) is read from the
    stripped text: a comment is a `>` line, and parsed in place it would lazily pull the lines
    below it into a quote, turning indented code into a list item or a list item into quote text.
    """
    pieces = text.split("\n")
    found = _comment_indices(text, pieces)
    if not found:
        return text, None
    drop = {i for i, _ in found}
    kept = tuple(i for i in range(len(pieces)) if i not in drop)
    return "\n".join(pieces[i] for i in kept), kept


def parse_feedback(text: str) -> tuple[ReviewComment, ...]:
    """The review comments in `text`, anchored to line numbers of the stripped text."""
    pieces = text.split("\n")
    comments: list[ReviewComment] = []
    removed = 0
    for i, body in _comment_indices(text, pieces):
        # Lines before this one that stay in the stripped text; the last of them is the anchor.
        comments.append(ReviewComment(anchor_line=i - removed, text=body))
        removed += 1
    return tuple(comments)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def apply_feedback(text: str, comments: Iterable[ReviewComment]) -> str:
    """`text` with exactly `comments` as its review comments (idempotent)."""
    base = strip_feedback(text)
    wanted = [(c.anchor_line, _one_line(c.text)) for c in comments]
    wanted = [(anchor, body) for anchor, body in wanted if body]
    if not wanted:
        return base
    from planview.plan.document import parse_tokens

    parsed = parse_tokens(base)
    lines = parsed.document.lines
    n = len(lines)
    blocks = parsed.document.blocks
    front = parsed.document.front_matter
    open_fence_start = _unterminated_fence_start(parsed.tokens, lines)

    def snap(anchor: int) -> int:
        anchor = max(0, min(int(anchor), n))
        if front and anchor < front[1]:
            anchor = front[1]  # nothing may come before the front matter
        anchor = block_end(anchor)
        if open_fence_start is not None and anchor >= open_fence_start:
            # Inside an unclosed fence a comment would be code: attach it to what precedes the fence.
            anchor = open_fence_start - 1
            while anchor > 0 and not lines[anchor - 1].strip():
                anchor -= 1
            anchor = block_end(anchor)
        return anchor

    def block_end(anchor: int) -> int:
        inner = None
        for block in blocks:
            if block.start <= anchor <= block.end and (inner is None or block.start >= inner.start):
                inner = block
        return inner.end if inner is not None else anchor

    by_anchor: dict[int, list[str]] = {}
    for anchor, body in wanted:
        by_anchor.setdefault(snap(anchor), []).append(body)
    pieces = base.split("\n")
    eol = "\r" if "\r\n" in base else ""
    out: list[str] = []
    added_last = False  # the last line out is a comment added here (not the plan's own last line)
    for body in by_anchor.get(0, []):
        out.append(f"> [!REVIEW] {body}{eol}")
        added_last = True
    for i, piece in enumerate(pieces):
        out.append(piece)
        added_last = False
        for body in by_anchor.get(i + 1, []) if i < n else ():
            out.append(f"> [!REVIEW] {body}{eol}")
            added_last = True
    # A final comment after a last line without a newline must not gain a trailing CR. Only one
    # added here: a last plan line that merely looks like a comment (code in an open fence) is kept.
    if added_last and eol and not base.endswith("\n"):
        out[-1] = out[-1][: -len(eol)]
    return "\n".join(out)


def _unterminated_fence_start(tokens: Sequence[Any], lines: tuple[str, ...]) -> int | None:
    """First line of a top-level fence that runs to the end of the file unclosed, else None."""
    n = len(lines)
    for token in tokens:
        if token.type != "fence" or token.level != 0 or not token.map or token.map[1] < n:
            continue
        last = lines[n - 1].strip()
        marker = token.markup
        closed = (
            token.map[1] - token.map[0] >= 2
            and last.startswith(marker)
            and set(last) <= {marker[0]}
            and len(lines[n - 1]) - len(lines[n - 1].lstrip(" ")) <= 3
        )
        if not closed:
            return int(token.map[0]) + 1
    return None
