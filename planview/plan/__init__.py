"""planview.plan — the pure plan core: document model, steps, section diff, review comments, canonical hash.

Never imports textual. The store is imported from its own module (planview.plan.store).
"""

from __future__ import annotations

from planview.plan.canonical import canonical_sha256, canonical_text
from planview.plan.decision import Approved, Keep, Refine, ReviewDecision
from planview.plan.diff import SectionChange, SectionDiff, SectionStatus, changed_sections
from planview.plan.document import Block, BlockKind, PlanDocument, Section, parse_plan
from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
from planview.plan.steps import Step, StepList, StepUpdate, StepUpdateError, extract_steps, set_steps

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
    "SectionChange",
    "SectionDiff",
    "SectionStatus",
    "Step",
    "StepList",
    "StepUpdate",
    "StepUpdateError",
    "apply_feedback",
    "canonical_sha256",
    "canonical_text",
    "changed_sections",
    "extract_steps",
    "parse_feedback",
    "parse_plan",
    "set_steps",
    "strip_feedback",
]
