"""What the last review of each plan showed: the baseline for "N sections changed since your last review".

The baseline is the exact text a review screen presented, kept per plan under
`<home>/reviews/<sha256 of the resolved plan path>.md`, so the changed markers survive restarting
planview (the reference keeps it in memory and loses it). Writes are atomic; a missing or unreadable
baseline just means "no markers", never an error in the reviewer's way.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from planview.atomic import atomic_write
from planview.home import HomeLayout


class ReviewBaselines:
    """Per-plan baselines stored under `home / "reviews"`."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.folder = HomeLayout(self.home).reviews

    def path_for(self, plan: Path) -> Path:
        key = hashlib.sha256(str(Path(plan).resolve()).encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / f"{key}.md"

    def load(self, plan: Path) -> str | None:
        """The text the last review of `plan` showed, or None when it was never reviewed here."""
        from planview.errors import PlanviewError
        from planview.fileguard import read_regular

        try:  # a FIFO or device in its place is ignored, never read
            return read_regular(self.path_for(plan), 8 * 1024 * 1024, "review baseline").decode("utf-8")
        except (OSError, UnicodeDecodeError, PlanviewError):
            return None

    def save(self, plan: Path, text: str) -> None:
        """Remember `text` as what this review of `plan` showed (atomic: temp file + rename)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path_for(plan), text.encode("utf-8", "surrogatepass"))
