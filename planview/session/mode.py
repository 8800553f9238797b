"""The session's mode state as one frozen value, and the one pure function that moves it.

`ModeState` has three legal shapes:

- planning:        mode="plan",    pin=None   (stale names the sections a revocation found changed)
- pinned execute:  mode="execute", pin=<the ApprovalRecord this session received>, stale=None
- normal mode:     mode="execute", pin=None   (the person's own toggle; no plan is being carried out)

`plan` is the plan the session works on; it survives mode changes. The only way into *pinned*
execute - write tools unlocked on the strength of an approval - is `Approve(record, current=True)`,
and the pin is exact: it names one ledger event (sequence number and canonical hash). Nothing in
this module re-pins to another approval; `Revoke` (the plan changed, or the ledger no longer holds
the pinned approval as current) drops straight back to planning.

`LeavePlan` is the person's plan-mode toggle (`/plan`, Shift+Tab): it leaves planning, pinned to
the plan's current approval when the caller found one, else to nothing. Nothing the model can call
produces it (the gate refuses `exit_plan_mode` outside review).

Pure: no IO, no clock. The session applies each transition and reports it as a `ModeChanged` event.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from planview.approval.errors import ModeError
from planview.session.events import Mode

if TYPE_CHECKING:
    from planview.approval.records import ApprovalRecord


@dataclass(frozen=True)
class ModeState:
    """The session's mode, its plan and the approval it executes under (legal shapes: module docstring)."""

    mode: Mode = "plan"
    plan: Path | None = None
    pin: ApprovalRecord | None = None  # execute under exactly this approval event
    stale: tuple[str, ...] | None = None  # after a revocation: the changed sections (() when unnamed)
    seen_seq: int | None = None  # the newest approval seq this session was pinned to

    def __post_init__(self) -> None:
        if self.mode not in ("plan", "execute"):
            raise ModeError(f"unknown mode {self.mode!r}; expected 'plan' or 'execute'")
        if self.pin is not None:
            if self.mode != "execute":
                raise ModeError("an approval pins execute mode; planning carries none")
            if self.plan is None:
                raise ModeError("a pinned approval needs the plan it approved")
            if self.stale is not None:
                raise ModeError("a pinned approval is current; a stale plan carries none")

    @property
    def pinned(self) -> bool:
        """Executing an approved plan (every mutating call re-checks the pinned approval)."""
        return self.pin is not None


@dataclass(frozen=True)
class EnterPlan:
    """Go to plan mode (any pin is dropped)."""

    plan: Path | None = None  # the plan to work on; None keeps the current one


@dataclass(frozen=True)
class ChoosePlan:
    """Make this file the session's plan (refused while executing another, approved plan)."""

    plan: Path  # write_plan saved it, or exit_plan_mode submitted it


@dataclass(frozen=True)
class Approve:
    """A person approved the plan: execute pinned to this record (refused unless the plan still matches)."""

    record: ApprovalRecord
    plan: Path  # the file the record approves
    current: bool  # the plan file's canonical hash equals record.canonical_sha256 right now


@dataclass(frozen=True)
class Revoke:
    """The pinned approval no longer holds (the plan changed, or the ledger says so): back to planning."""

    sections: tuple[str, ...] = ()  # what changed, when known


@dataclass(frozen=True)
class LeavePlan:
    """The person's toggle out of planning: execute, pinned to the plan's current approval if it has one."""

    pin: ApprovalRecord | None = None  # the working plan's current approval, found by the caller


@dataclass(frozen=True)
class Restore:
    """A resumed session's saved shape, already checked against the ledger by the caller."""

    state: ModeState


ModeEvent = EnterPlan | ChoosePlan | Approve | Revoke | LeavePlan | Restore


def transition(state: ModeState, event: ModeEvent) -> ModeState:
    """The next state; raises ModeError for a move the gate forbids."""
    if isinstance(event, EnterPlan):
        plan = event.plan if event.plan is not None else state.plan
        return replace(state, mode="plan", plan=plan, pin=None)
    if isinstance(event, ChoosePlan):
        if state.pin is not None and event.plan != state.plan:
            raise ModeError(
                f"executing the approved plan {state.plan}; another plan ({event.plan}) needs plan mode first"
            )
        return replace(state, plan=event.plan)
    if isinstance(event, Approve):
        if not event.current:
            raise ModeError(
                f"the approval of {event.record.plan} ({event.record.artifact}) is not current: the plan "
                "changed since it was approved - review and approve it again"
            )
        seen = max(event.record.seq, state.seen_seq or 0)
        return ModeState("execute", event.plan, event.record, None, seen)
    if isinstance(event, Revoke):
        if state.pin is None:
            return state
        return replace(state, mode="plan", pin=None, stale=event.sections)
    if isinstance(event, LeavePlan):
        if state.mode != "plan":
            return state
        if event.pin is None:
            return replace(state, mode="execute")
        seen = max(event.pin.seq, state.seen_seq or 0)
        return replace(state, mode="execute", pin=event.pin, stale=None, seen_seq=seen)
    if isinstance(event, Restore):
        return event.state
    raise ModeError(f"unknown mode event {event!r}")
