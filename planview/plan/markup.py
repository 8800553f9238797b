"""Inline Markdown markup stripping for titles and step text.

Uses markdown-it-py's own inline parser, so the CommonMark rules decide what is
emphasis: `user_id`, `snake_case.py` and `2*3*4` keep their underscores and stars,
while `**bold**`, `_italic_`, `` `code` `` and `[links](url)` lose their markup.
Raw inline HTML such as `Vec<T>` is kept verbatim (dropping it would eat text).
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt

_INLINE = MarkdownIt("commonmark")


@lru_cache(maxsize=4096)
def strip_inline(text: str) -> str:
    """`text` without inline markup, line breaks folded to single spaces, trimmed."""
    if not text.strip():
        return ""
    # Fast path: nothing that could be markup, an escape or an entity.
    if not any(ch in text for ch in "*_`[]<>!\\&\n\r"):
        return " ".join(text.split())
    try:
        tokens = _INLINE.parseInline(text)
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
