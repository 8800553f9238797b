"""A plan's lines, as every plan module numbers them (1-based; a final newline adds no line).

Its own module, apart from the document model, so that the canonical hash can split a plan without
importing markdown-it (the Claude hook re-hashes a ticked plan in a fresh process).
"""

from __future__ import annotations


def split_lines(text: str) -> tuple[str, ...]:
    """`text.split("\\n")` without the phantom empty last line of a final newline."""
    if not text:
        return ()
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return tuple(lines)
