"""What a plan review resolves with (shared by the review screen, the session and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Approved:
    """The reviewer approved exactly this plan text (pinned by its canonical hash)."""

    plan: Path
    canonical_sha256: str
    # The UI the person approved through, kept in the ledger event ("browser review" for the page `w`
    # opens); None means the review screen itself.
    channel: str | None = None


@dataclass(frozen=True)
class Refine:
    """The reviewer wants changes; `text` goes back to the model as feedback."""

    text: str


@dataclass(frozen=True)
class Keep:
    """The reviewer closed the review without a decision: keep planning, not approved."""


ReviewDecision = Approved | Refine | Keep
