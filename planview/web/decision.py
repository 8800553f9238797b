"""How a browser review settles, and the refinement text its saved comments become."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from planview.plan.decision import SavedComments
from planview.plan.feedback import ReviewComment

WebOutcome = Literal["approved", "saved", "closed"]


@dataclass(frozen=True)
class WebDecision:
    """What the page decided. Exactly one per review: the first action wins, later ones are refused."""

    outcome: WebOutcome
    plan: Path
    comments: tuple[ReviewComment, ...] = ()
    canonical_sha256: str | None = None  # approved: the canonical hash of the text the page showed
    file_sha256: str | None = None  # saved / approved: sha256 of the file's bytes afterwards
    reason: str = ""  # closed: why ("Back", "the tab was closed", "decided in the terminal")
    record: Any = None  # approved: what the approval hook returned (an ApprovalRecord when recorded here)
    # approved: the comments this approve wrote into the plan, when it changed the file; a caller that
    # records the approval itself takes them back out on failure (planview.approval.flow.take_back).
    saved: SavedComments | None = None

    def to_json(self) -> dict[str, Any]:
        """The shape `planview review --json` prints (its non-web keys, plus the comments)."""
        kind = {"approved": "approve", "saved": "refine", "closed": "keep"}[self.outcome]
        return {
            "decision": kind,
            "feedback": feedback_message(self.comments) if self.outcome == "saved" else None,
            "plan": str(self.plan),
            "sha256": self.canonical_sha256,
            "file_sha256": self.file_sha256,
            "comments": [{"anchor_line": c.anchor_line, "text": c.text} for c in self.comments],
            "reason": self.reason or None,
        }


def feedback_message(comments: tuple[ReviewComment, ...]) -> str:
    """The refinement the model receives for comments saved into the plan file."""
    if not comments:
        return "The reviewer saved the plan with no comments (any earlier > [!REVIEW] lines were removed)."
    lines = [
        f"The reviewer left {len(comments)} comment(s) in the plan file as `> [!REVIEW]` lines, "
        "each after the block it is about:"
    ]
    lines.extend(f"- {c.text}" for c in comments)
    lines.append("Revise the plan to address them and remove the > [!REVIEW] lines you have handled.")
    return "\n".join(lines)
