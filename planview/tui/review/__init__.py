"""The plan review screen: a fast sectioned body, changed-section markers, gauge, inline refine."""

from __future__ import annotations

from planview.tui.review.app import ReviewApp
from planview.tui.review.screen import ReviewScreen

__all__ = ["ReviewApp", "ReviewScreen"]
