"""planview.plan — the pure plan core: document model, steps, section diff, review comments, canonical hash.

Never imports textual. The public names below are re-exported lazily (PEP 562), so importing a
submodule such as `planview.plan.store` does not load markdown-it-py until a parser is used.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)

_EXPORTS = {
    "Approved": "decision",
    "Keep": "decision",
    "Refine": "decision",
    "ReviewDecision": "decision",
    "canonical_sha256": "canonical",
    "canonical_text": "canonical",
    "SectionChange": "diff",
    "SectionDiff": "diff",
    "SectionStatus": "diff",
    "changed_sections": "diff",
    "Block": "document",
    "BlockKind": "document",
    "PlanDocument": "document",
    "Section": "document",
    "parse_plan": "document",
    "ReviewComment": "feedback",
    "apply_feedback": "feedback",
    "parse_feedback": "feedback",
    "strip_feedback": "feedback",
    "Step": "steps",
    "StepList": "steps",
    "StepUpdate": "steps",
    "StepUpdateError": "steps",
    "extract_steps": "steps",
    "set_steps": "steps",
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'planview.plan' has no attribute {name!r}")
    value = getattr(import_module(f"planview.plan.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from typing import Any

    from planview.plan.canonical import canonical_sha256, canonical_text
    from planview.plan.decision import Approved, Keep, Refine, ReviewDecision
    from planview.plan.diff import SectionChange, SectionDiff, SectionStatus, changed_sections
    from planview.plan.document import Block, BlockKind, PlanDocument, Section, parse_plan
    from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
    from planview.plan.steps import Step, StepList, StepUpdate, StepUpdateError, extract_steps, set_steps
