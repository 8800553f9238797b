"""Resuming a saved session: what the file's conversation and state mean now.

The file says what the session last saw; the approval ledger says what is true now. A plan
approved outside (`planview approve`) resumes in execute mode, an approval that is no longer
current sends the session back to plan mode, and a plan the user left to re-plan stays in plan mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planview.errors import PlanviewError
from planview.plan.steps import extract_steps
from planview.session import lifecycle
from planview.session.persistence import SessionState

if TYPE_CHECKING:
    from planview.session.session import Session


def restore(session: Session, state: SessionState | None, conversation: Sequence[Mapping[str, Any]]) -> None:
    """Load a saved conversation and state into a new session; the approval ledger has the last word."""
    session.conversation = [dict(m) for m in conversation]
    lifecycle.close_dangling_calls(
        session.conversation, "not run: the session ended before this call finished"
    )
    if state is None:
        return
    session.saved_mode = True
    session.mode = "plan" if state.mode == "plan" else "execute"
    session.plan_path = Path(state.plan_path) if state.plan_path else None
    session.todos, session.deferred_steps = state.todos, state.deferred
    session._note_pending = session.mode == "plan"
    restore_provider = getattr(session.provider, "restore", None)
    if state.provider and callable(restore_provider):
        restore_provider(state.provider)
    if session.plan_path is None:
        return
    # The ledger is the authority: a plan approved outside (planview approve) resumes in execute
    # mode; an approval that is no longer current sends the session back to plan mode.
    try:
        current = (
            session.approvals.current(session.plan_path)
            if session.approvals.is_current(session.plan_path)
            else None
        )
    except PlanviewError:
        current = None
    saved_seq = (state.approval or {}).get("seq")
    session._seen_seq = state.seen_approval if state.seen_approval is not None else saved_seq
    if (
        current is not None
        and state.mode == "plan"
        and session._seen_seq is not None
        and current.seq <= session._seen_seq
    ):
        current = None  # the user went back to planning after this approval: respect that
    if current is not None:
        try:
            session._pin(current)
        except PlanviewError as exc:  # e.g. the evidence packet no longer verifies: plan again
            session.mode, session.approval, session._packet, session._stale = "plan", None, None, ()
            session._note_pending = True
            session.resume_notice = (
                f"The approval of {session.relative(session.plan_path)} cannot be used: {exc}"
            )
            return
        if saved_seq != current.seq:
            steps = extract_steps(session.store.read(session.plan_path)).steps
            merge = session.seed_steps(steps, emit=False)
            session.resume_notice = (
                f"The plan {session.relative(session.plan_path)} was approved by {current.approver} "
                f"({current.artifact}). You are in execute mode: the plan file is the source of truth; "
                "follow its steps in order and tick them with set_plan_steps.\nSteps:\n"
                + lifecycle.steps_listing(steps)
                + (f"\n({len(merge.deferred)} step(s) deferred by the todo cap.)" if merge.deferred else "")
            )
    elif state.approval is not None:
        session.mode, session.approval, session._packet = "plan", None, None
        session._stale = ()
        session._note_pending = True
