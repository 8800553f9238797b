"""Resuming a saved session: what the file's conversation and state mean now.

The file says what the session last saw; the approval ledger says what is true now:

- a plan approved outside (`planview approve`) after the session stopped resumes in execute mode,
  pinned to that approval, and the model is told so with the next message;
- the session's own pinned approval resumes pinned when it is still the plan's current one;
- a pinned approval whose plan changed since is revoked (one `revoked` event naming the changed
  sections, unless the ledger already holds one), the session resumes in plan mode, and the notice
  names the sections - for the transcript and for the model;
- a plan the user left to re-plan stays in plan mode.

`restore` computes all of that as one `Restored` value; the session applies it. Nothing here
touches the session object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from planview.errors import PlanviewError
from planview.session import lifecycle
from planview.session.conversation import Message, dangling_results
from planview.session.events import Todo
from planview.session.mode import ModeState
from planview.session.persistence import SessionState

if TYPE_CHECKING:
    from planview.approval.approvals import Approvals
    from planview.approval.records import ApprovalRecord
    from planview.plan.store import PlanStore

NoticeKind = Literal["approved", "revoked", "unusable"]


@dataclass(frozen=True)
class ResumeNotice:
    """What changed while the session was stopped: a line for the person and one for the model."""

    kind: NoticeKind
    shown: str  # one line for the transcript
    for_model: str  # sent ahead of the next user message


@dataclass(frozen=True)
class Restored:
    """A saved session as it resumes now, with the ledger's word on its mode."""

    conversation: tuple[Message, ...]
    mode: ModeState
    todos: tuple[Todo, ...] = ()
    deferred: tuple[str, ...] = ()
    saved_mode: bool = False  # the file recorded a mode (then --plan does not apply)
    provider: Any = None  # the provider's saved resume point
    notice: ResumeNotice | None = None
    seed: tuple[Any, ...] = ()  # plan steps to seed into the todo list (approved outside)


def restore(
    state: SessionState | None,
    conversation: Sequence[Message],
    *,
    approvals: Approvals,
    store: PlanStore,
    relative: Callable[[Path], str],
) -> Restored:
    """The session a saved file describes, checked against the ledger (see the module docstring)."""
    messages = list(conversation)
    for at, result in dangling_results(messages, "not run: the session ended before this call finished"):
        messages.insert(at, result)
    if state is None:
        return Restored(tuple(messages), ModeState("execute"))
    mode: Literal["plan", "execute"] = "plan" if state.mode == "plan" else "execute"
    plan = Path(state.plan_path) if state.plan_path else None
    saved_seq = (state.approval or {}).get("seq")
    seen = state.seen_approval if state.seen_approval is not None else saved_seq
    base = Restored(
        tuple(messages),
        ModeState(mode, plan, None, None, seen),
        state.todos,
        state.deferred,
        True,
        state.provider,
    )
    if plan is None:
        return base
    try:
        current = approvals.current(plan) if approvals.is_current(plan) else None
    except PlanviewError:
        current = None
    if current is not None and mode == "plan" and seen is not None and current.seq <= seen:
        current = None  # the user went back to planning after this approval: respect that
    rel = relative(plan)
    if current is not None:
        try:
            approvals.packet(current)  # the evidence packet must verify before it goes out as scope
        except PlanviewError as exc:
            why = f"The approval of {rel} cannot be used: {exc}"
            return _replace(base, ModeState("plan", plan, None, (), seen), ResumeNotice("unusable", why, why))
        pinned = ModeState("execute", plan, current, None, max(current.seq, seen or 0))
        if saved_seq == current.seq:
            return _replace(base, pinned)
        from planview.plan.steps import extract_steps

        steps = tuple(extract_steps(store.read(plan)).steps)
        told = (
            f"The plan {rel} was approved by {current.approver} ({current.artifact}). You are in execute mode: "
            "the plan file is the source of truth; follow its steps in order and tick them with "
            "set_plan_steps.\nSteps:\n" + lifecycle.steps_listing(steps)
        )
        shown = f"The plan {rel} was approved outside this session; the agent is told with your next message."
        return Restored(
            base.conversation,
            pinned,
            base.todos,
            base.deferred,
            True,
            base.provider,
            ResumeNotice("approved", shown, told),
            steps,
        )
    if state.approval is None:
        return base
    sections = _revoke(approvals, plan, saved_seq)
    named = f" (changed sections: {', '.join(sections)})" if sections else ""
    text = (
        f"The approved plan {rel} changed after its approval{named}: the approval is withdrawn and the "
        "session is back in plan mode. Review the change, then call exit_plan_mode to get the plan "
        "approved again before any write."
    )
    return _replace(base, ModeState("plan", plan, None, sections, seen), ResumeNotice("revoked", text, text))


def _revoke(approvals: Approvals, plan: Path, saved_seq: Any) -> tuple[str, ...]:
    """Record the revocation the ledger is missing (one event), and name the changed sections."""
    try:
        revocation = approvals.check_and_revoke(plan)
        if revocation is not None and revocation.changed_sections:
            return tuple(revocation.changed_sections)
        pinned = _record(approvals, saved_seq)
        return approvals.changed_since(pinned, plan) if pinned is not None else ()
    except PlanviewError:
        return ()


def _record(approvals: Approvals, seq: Any) -> ApprovalRecord | None:
    for entry in approvals.history():
        if entry.record.seq == seq:
            return entry.record
    return None


def _replace(base: Restored, mode: ModeState, notice: ResumeNotice | None = None) -> Restored:
    return Restored(
        base.conversation, mode, base.todos, base.deferred, base.saved_mode, base.provider, notice, base.seed
    )
