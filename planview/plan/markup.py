"""Inline Markdown markup stripping for titles and step text.

Uses markdown-it-py's own inline parser, so the CommonMark rules decide what is
emphasis: `user_id`, `snake_case.py` and `2*3*4` keep their underscores and stars,
while `**bold**`, `_italic_`, `` `code` `` and `[links](url)` lose their markup.
Raw inline HTML such as `Vec<T>` is kept verbatim (dropping it would eat text).

CommonMark alone would still eat the underscores of `planview/__init__.py` and the
stars of `2*3*4` (a delimiter run between punctuation and a letter can open or close
emphasis), so before parsing, `_`/`*` runs that sit inside a word — a letter or digit
on both sides, or `.`/`/` next to one (`__init__.py`, `plan/__init__`) — are escaped.
Emphasis around whole words (`_it_`, `**bold**`, `*this*.`) is unaffected.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from markdown_it import MarkdownIt

# Code spans and <...> (autolinks, inline HTML) take no backslash escapes: leave them alone.
_VERBATIM = re.compile(r"(`+)[\s\S]*?(?<!`)\1(?!`)|<[^<>]*>")
_DELIMITER_RUN = re.compile(r"[_*]+")
_BLANK_RUN = re.compile(r"[ \t]{2,}|\t")


def _wordish_before(text: str, i: int) -> bool:
    if i <= 0:
        return False
    ch = text[i - 1]
    return ch.isalnum() or (ch in "./" and i >= 2 and text[i - 2].isalnum())


def _wordish_after(text: str, j: int) -> bool:
    if j >= len(text):
        return False
    ch = text[j]
    return ch.isalnum() or (ch in "./" and j + 1 < len(text) and text[j + 1].isalnum())


def protect_identifiers(text: str) -> str:
    """Escape `_`/`*` runs inside words so the inline parser keeps them literal."""
    verbatim = [m.span() for m in _VERBATIM.finditer(text)] if ("`" in text or "<" in text) else []
    out: list[str] = []
    last = 0
    for run in _DELIMITER_RUN.finditer(text):
        start, end = run.span()
        if any(a <= start < b for a, b in verbatim):
            continue
        if _wordish_before(text, start) and _wordish_after(text, end):
            out.append(text[last:start])
            out.append("".join("\\" + ch for ch in run.group()))
            last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


@cache
def _inline_parser() -> MarkdownIt:
    """Made at the first title or step that holds markup (most need none: see the fast path)."""
    return MarkdownIt("commonmark")


@lru_cache(maxsize=4096)
def strip_inline(text: str) -> str:
    """`text` without inline markup, line breaks folded to single spaces, trimmed."""
    if not text.strip():
        return ""
    # Fast path: nothing that could be markup, an escape or an entity.
    if not any(ch in text for ch in "*_`[]<>!\\&\n\r"):
        return " ".join(text.split())
    # The result folds whitespace anyway; folding runs of blanks first keeps markdown-it's
    # newline rule (it re-scans trailing blanks of everything pending) from going quadratic.
    text = _BLANK_RUN.sub(" ", text)
    try:
        tokens = _inline_parser().parseInline(
            protect_identifiers(text) if ("_" in text or "*" in text) else text
        )
    except Exception:  # pragma: no cover - markdown-it never raises on str, be safe anyway
        return " ".join(text.split())
    parts: list[str] = []
    for token in tokens:
        for child in token.children or ():
            kind = child.type
            if kind in ("text", "code_inline", "html_inline"):
                parts.append(child.content)
            elif kind in ("softbreak", "hardbreak"):
                parts.append(" ")
            elif kind == "image":
                # The alt text is the image's children; keep it readable.
                parts.append("".join(c.content for c in child.children or ()))
    return " ".join("".join(parts).split())
