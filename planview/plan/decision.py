"""What a plan review resolves with (shared by the review screen, the session and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SavedComments:
    """Comments a browser page wrote into the plan as part of its approve: `before` is the text they
    replaced, `written_sha256` the sha256 of the file's bytes right after. An approval that is then
    not recorded takes them out again (`planview.approval.flow.take_back`)."""

    before: str
    written_sha256: str


@dataclass(frozen=True)
class Approved:
    """The reviewer approved exactly this plan text (pinned by its canonical hash)."""

    plan: Path
    canonical_sha256: str
    # The UI the person approved through, kept in the ledger event ("browser review" for the page `w`
    # opens); None means the review screen itself.
    channel: str | None = None
    # The page's comments saved with this approval (None: nothing was written), to put back on failure.
    saved: SavedComments | None = None
    # What the person said with the approval (the `a` line's note): kept in the ledger event, told
    # to the agent. None: no note.
    note: str | None = None


@dataclass(frozen=True)
class Refine:
    """The reviewer wants changes; `text` goes back to the model as feedback."""

    text: str


@dataclass(frozen=True)
class Keep:
    """The reviewer closed the review without a decision: keep planning, not approved."""


ReviewDecision = Approved | Refine | Keep
