"""The root of planview's typed errors.

Every error planview raises on purpose derives from `PlanviewError` and carries a
message that tells the user (or the model) what to do next. The CLI prints such an
error as one line and exits 2 instead of showing a traceback.
"""

from __future__ import annotations


class PlanviewError(Exception):
    """An expected failure with an actionable message."""
