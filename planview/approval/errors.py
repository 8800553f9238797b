"""Typed errors of the approval layer; each message says what to do next."""

from __future__ import annotations

from planview.errors import PlanviewError


class ApprovalError(PlanviewError):
    """A plan cannot be approved or checked (missing, empty, outside the plans folder, ...)."""


class LedgerError(PlanviewError):
    """The ledger is corrupt, tampered with or torn; the message names the line / seq."""


class EvidenceError(ApprovalError):
    """An evidence packet does not match the hash recorded for it."""


class ModeError(PlanviewError):
    """A mode transition that the gate does not allow (e.g. execute without a current approval)."""
