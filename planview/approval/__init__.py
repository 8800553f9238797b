"""planview.approval: hash-chained ledger, sealed plan artifacts, evidence packets, channels, the approval flow, audit.

Never imports textual (a test checks it in a subprocess).
"""

from __future__ import annotations

from planview.approval.approvals import Approvals
from planview.approval.errors import ApprovalError, BypassConfigError, EvidenceError, LedgerError, ModeError
from planview.approval.identity import resolve_approver
from planview.approval.ledger import GENESIS, Ledger, LedgerProblem, Verification
from planview.approval.packet import EvidencePacket, build_packet
from planview.approval.records import ApprovalEntry, ApprovalRecord, PlanState, PlanStatus, Revocation
from planview.approval.seal import SealedArtifact, seal

__all__ = [
    "GENESIS",
    "ApprovalEntry",
    "ApprovalError",
    "ApprovalRecord",
    "Approvals",
    "BypassConfigError",
    "EvidenceError",
    "EvidencePacket",
    "Ledger",
    "LedgerError",
    "LedgerProblem",
    "ModeError",
    "PlanState",
    "PlanStatus",
    "Revocation",
    "SealedArtifact",
    "Verification",
    "build_packet",
    "resolve_approver",
    "seal",
]
