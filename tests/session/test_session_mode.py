"""The session's mode state machine (planview.session.mode): legal shapes and the exact pin."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.approval.errors import ModeError
from planview.approval.records import ApprovalRecord
from planview.session.mode import (
    Approve,
    ChoosePlan,
    EnterPlan,
    LeavePlan,
    ModeState,
    Restore,
    Revoke,
    transition,
)

PLAN = Path("/p/.planview/plans/a.md")
OTHER = Path("/p/.planview/plans/other.md")


def record(seq: int = 1) -> ApprovalRecord:
    return ApprovalRecord(
        seq=seq,
        plan=".planview/plans/a.md",
        canonical_sha256="c" * 64,
        file_sha256="f" * 64,
        artifact="artifact:00000000-0000-5000-8000-000000000000",
        bytes=10,
        approver="Ada",
        at="2026-01-01T00:00:00Z",
        commit=None,
        channel="review screen",
    )


def test_starts_in_plan_mode() -> None:
    state = ModeState()
    assert state.mode == "plan" and state.plan is None and state.pin is None and not state.pinned


def test_current_approval_is_the_only_way_into_pinned_execute() -> None:
    state = transition(ModeState(), ChoosePlan(PLAN))
    state = transition(state, Approve(record(), PLAN, current=True))
    assert state == ModeState("execute", PLAN, record(), None, 1) and state.pinned


def test_stale_approval_is_refused() -> None:
    with pytest.raises(ModeError, match="not current"):
        transition(ModeState("plan", PLAN), Approve(record(), PLAN, current=False))


def test_revoke_returns_to_plan_mode_naming_the_sections_and_keeping_the_plan() -> None:
    pinned = ModeState("execute", PLAN, record(), None, 1)
    after = transition(pinned, Revoke(("Goal",)))
    assert after == ModeState("plan", PLAN, None, ("Goal",), 1)
    assert transition(after, Revoke()) == after  # nothing pinned: nothing to revoke


def test_the_pin_names_one_event_and_remembers_the_newest_seen() -> None:
    state = transition(ModeState("plan", PLAN, seen_seq=7), Approve(record(3), PLAN, current=True))
    assert state.pin is not None and state.pin.seq == 3 and state.seen_seq == 7


def test_enter_plan_drops_the_pin_and_keeps_the_plan() -> None:
    pinned = ModeState("execute", PLAN, record(), None, 1)
    assert transition(pinned, EnterPlan()) == ModeState("plan", PLAN, None, None, 1)
    assert transition(pinned, EnterPlan(OTHER)).plan == OTHER


def test_leave_plan_pins_only_what_the_caller_found_current() -> None:
    planning = ModeState("plan", PLAN)
    normal = transition(planning, LeavePlan())
    assert normal.mode == "execute" and not normal.pinned and normal.plan == PLAN
    pinned = transition(planning, LeavePlan(record(2)))
    assert pinned.pin == record(2) and pinned.seen_seq == 2
    assert transition(pinned, LeavePlan(record(9))) == pinned  # already executing: no re-pin


def test_a_pinned_session_cannot_switch_plans_without_planning() -> None:
    pinned = ModeState("execute", PLAN, record(), None, 1)
    with pytest.raises(ModeError, match="needs plan mode first"):
        transition(pinned, ChoosePlan(OTHER))
    assert transition(pinned, ChoosePlan(PLAN)) == pinned


def test_illegal_states_cannot_be_built() -> None:
    with pytest.raises(ModeError):
        ModeState("plan", PLAN, record())
    with pytest.raises(ModeError):
        ModeState("execute", None, record())
    with pytest.raises(ModeError):
        ModeState("execute", PLAN, record(), ("Goal",))
    with pytest.raises(ModeError):
        ModeState("yolo")  # type: ignore[arg-type]


def test_transition_is_pure() -> None:
    state = ModeState("plan", PLAN)
    assert transition(state, Approve(record(), PLAN, True)) == transition(
        state, Approve(record(), PLAN, True)
    )
    assert state == ModeState("plan", PLAN)
    assert transition(state, Restore(ModeState("execute"))) == ModeState("execute")
    with pytest.raises(ModeError):
        transition(state, object())  # type: ignore[arg-type]
