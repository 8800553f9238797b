"""planview.approval: hash-chained ledger, sealed plan artifacts, evidence packets, mode state, audit.

Never imports textual (a test checks it in a subprocess).
"""

from __future__ import annotations

from planview.approval.approvals import (
    ApprovalEntry,
    ApprovalRecord,
    Approvals,
    PlanState,
    PlanStatus,
    Revocation,
)
from planview.approval.errors import ApprovalError, BypassConfigError, EvidenceError, LedgerError, ModeError
from planview.approval.identity import resolve_approver
from planview.approval.ledger import GENESIS, Ledger, LedgerProblem, Verification
from planview.approval.mode import (
    Approve,
    EnterPlan,
    LeavePlan,
    Mode,
    ModeEvent,
    ModeState,
    Revoke,
    transition,
)
from planview.approval.packet import EvidencePacket, build_packet
from planview.approval.seal import SealedArtifact, seal

__all__ = [
    "GENESIS",
    "ApprovalEntry",
    "ApprovalError",
    "ApprovalRecord",
    "Approvals",
    "Approve",
    "BypassConfigError",
    "EnterPlan",
    "EvidenceError",
    "EvidencePacket",
    "LeavePlan",
    "Ledger",
    "LedgerError",
    "LedgerProblem",
    "Mode",
    "ModeError",
    "ModeEvent",
    "ModeState",
    "PlanState",
    "PlanStatus",
    "Revocation",
    "Revoke",
    "SealedArtifact",
    "Verification",
    "build_packet",
    "resolve_approver",
    "seal",
    "transition",
]
