"""The root of planview's typed errors.

Every error planview raises on purpose derives from `PlanviewError` and carries a
message that tells the user (or the model) what to do next. The CLI prints such an
error as one line and exits 2 instead of showing a traceback.
"""

from __future__ import annotations


class PlanviewError(Exception):
    """An expected failure with an actionable message."""


def not_utf8(exc: UnicodeDecodeError) -> str:
    """How every message names bytes that are not UTF-8: the first bad byte and its offset."""
    return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
