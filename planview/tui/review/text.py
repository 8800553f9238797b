"""Small text rules of the review screen (pure)."""

from __future__ import annotations

import re
from pathlib import Path

from rich.cells import cell_len, set_cell_size

_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.DOTALL)
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(?:-\d{4})?-")


def is_empty_plan(text: str) -> bool:
    """Nothing a reader would see: only whitespace and HTML comments."""
    return not _COMMENT.sub("", text).strip()


def plan_label(path: Path) -> str:
    """The file name without its time stamp and extension: `2026-01-14-1030-add-x.md` -> `add-x`."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return _STAMP.sub("", stem) or stem


def fit_cells(text: str, width: int) -> str:
    """`text` in at most `width` terminal cells, ending in "…" when it had to be shortened."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    return set_cell_size(text, width - 1).rstrip() + "…"
