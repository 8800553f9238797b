"""What an attached UI answers. The runtime awaits these; it never knows which UI it is
(the session app, `planview run`, a test)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from planview.plan.decision import ReviewDecision


@dataclass(frozen=True)
class ReviewRequest:
    """A plan for the attached UI to review: its file and the text the decision is about."""

    plan_path: Path
    text: str


class SessionUI(Protocol):
    # Optional: how a person approves through this UI, recorded on the ledger event ("review
    # screen" when absent; see planview.approval.channels).
    channel: str

    async def review(self, request: ReviewRequest) -> ReviewDecision: ...

    async def confirm(self, title: str, message: str) -> bool: ...
