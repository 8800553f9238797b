"""Mode state as data, and the one pure function that moves it.

`ModeState(mode, plan, approval)` has three legal shapes:

- planning:        mode="plan",    plan=<path or None>, approval=None
- pinned execute:  mode="execute", plan=<path>,         approval=<a current ApprovalRecord for plan>
- normal mode:     mode="execute", plan=None,           approval=None

The only way into *pinned* execute - where a plan's steps run with write tools unlocked on the
strength of an approval - is `Approve(record, current=True)`. A stale or foreign approval is refused
with ModeError; `Revoke` (the plan changed) drops straight back to planning.

`LeavePlan` is the human's own plan-mode toggle (`/plan`, Shift+Tab): it leaves planning for normal
mode, pinned to nothing. It is not a way to execute a plan without approval: the plan and any approval
are dropped, and nothing the model can call produces it (the gate refuses `exit_plan_mode` outside
review, and a config that switches the gate off is refused at load).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planview.approval.approvals import ApprovalRecord
from planview.approval.errors import ModeError

Mode = Literal["plan", "execute"]


@dataclass(frozen=True)
class ModeState:
    mode: Mode = "plan"
    plan: str | None = None
    approval: ApprovalRecord | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("plan", "execute"):
            raise ModeError(f"unknown mode {self.mode!r}; expected 'plan' or 'execute'")
        if self.approval is not None:
            if self.mode != "execute":
                raise ModeError("an approval pins execute mode; planning carries none")
            if self.plan != self.approval.plan:
                raise ModeError(f"approval is for {self.approval.plan}, not {self.plan}")
        elif self.mode == "execute" and self.plan is not None:
            raise ModeError(f"executing {self.plan} needs a current approval; approve the plan first")

    @property
    def pinned(self) -> bool:
        """Executing an approved plan (every mutating step re-checks the approved hash)."""
        return self.approval is not None


@dataclass(frozen=True)
class EnterPlan:
    plan: str | None = None  # the plan to work on; None keeps the current one


@dataclass(frozen=True)
class Approve:
    record: ApprovalRecord
    current: bool  # the plan file's canonical hash equals record.canonical_sha256 right now


@dataclass(frozen=True)
class Revoke:
    reason: str = ""


@dataclass(frozen=True)
class LeavePlan:
    pass


ModeEvent = EnterPlan | Approve | Revoke | LeavePlan


def transition(state: ModeState, event: ModeEvent) -> ModeState:
    """The next state; raises ModeError for a move the gate forbids. Pure: no IO, no clock."""
    if isinstance(event, EnterPlan):
        return ModeState("plan", event.plan if event.plan is not None else state.plan, None)
    if isinstance(event, Approve):
        if not event.current:
            raise ModeError(
                f"the approval of {event.record.plan} ({event.record.artifact}) is not current: the plan "
                "changed since it was approved - review and approve it again"
            )
        if state.plan is not None and state.plan != event.record.plan:
            raise ModeError(f"the approval is for {event.record.plan}, but the plan in hand is {state.plan}")
        return ModeState("execute", event.record.plan, event.record)
    if isinstance(event, Revoke):
        if state.approval is None:
            return state
        return ModeState("plan", state.plan, None)
    if isinstance(event, LeavePlan):
        if state.mode == "plan":
            return ModeState("execute", None, None)
        return state
    raise ModeError(f"unknown mode event {event!r}")
