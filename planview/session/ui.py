"""What an attached UI answers. The runtime awaits these; it never knows which UI it is
(the session app, `planview run`, a test)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from planview.plan.decision import ReviewDecision


@dataclass(frozen=True)
class ReviewRequest:
    plan_path: Path
    text: str


class SessionUI(Protocol):
    async def review(self, request: ReviewRequest) -> ReviewDecision: ...

    async def confirm(self, title: str, message: str) -> bool: ...
