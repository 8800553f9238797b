"""planview.plan — the pure plan core: document model, steps, section diff, review comments, canonical hash.

Never imports textual. The store (planview.plan.store) is imported from its own module.
"""

from __future__ import annotations

from planview.plan.canonical import canonical_sha256, canonical_text
from planview.plan.decision import Approved, Keep, Refine, ReviewDecision
from planview.plan.document import Block, BlockKind, PlanDocument, Section, parse_plan
from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback

__all__ = [
    "Approved",
    "Block",
    "BlockKind",
    "Keep",
    "PlanDocument",
    "Refine",
    "ReviewComment",
    "ReviewDecision",
    "Section",
    "apply_feedback",
    "canonical_sha256",
    "canonical_text",
    "parse_feedback",
    "parse_plan",
    "strip_feedback",
]
