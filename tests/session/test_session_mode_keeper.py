"""ModeKeeper: the live mode and what moves with it, tried without a session around it.

The session tests drive these rules end to end; here each one is attacked directly: a pin whose
evidence was tampered with, a toggle back into execute mode on a plan whose packet is broken, a
subagent child that shares the parent's pin, a plan that changed after its approval.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.approval.approvals import Approvals
from planview.approval.errors import EvidenceError
from planview.approval.seal import packet_path
from planview.plan.store import PlanStore
from planview.session import mode as modes
from planview.session.mode_keeper import ModeKeeper

PLAN = "# Ship it\n\n## Goal\n\nShip.\n\n## Steps\n\n- [ ] Build\n- [ ] Ship\n"


@pytest.fixture
def setup(project: Path) -> tuple[PlanStore, Approvals, Path]:
    store = PlanStore(project / ".planview", project_root=project)
    approvals = Approvals(store.home, project)
    plan = store.write("Ship it", PLAN).path
    return store, approvals, plan


def approve(approvals: Approvals, plan: Path):
    return approvals.approve(plan, "Ada Reviewer", channel="review screen")


def test_a_pin_whose_evidence_was_tampered_with_moves_nothing(setup) -> None:
    store, approvals, plan = setup
    record = approve(approvals, plan)
    packet = packet_path(approvals.artifacts_dir, record.artifact)
    packet.chmod(0o644)
    packet.write_text(packet.read_text().replace("Ship", "Delete prod"))
    keeper = ModeKeeper(approvals, store, "plan")
    keeper.move(modes.ChoosePlan(plan))
    before = keeper.state
    with pytest.raises(EvidenceError):
        keeper.move(modes.Approve(record, plan, current=True))
    assert keeper.state == before and keeper.packet is None and keeper.state.pin is None
    assert keeper.current_approval() is None, "the toggle must not re-pin a plan whose packet is broken"


def test_the_packet_follows_the_pin_and_the_note_follows_plan_mode(setup) -> None:
    store, approvals, plan = setup
    record = approve(approvals, plan)
    keeper = ModeKeeper(approvals, store, "plan")
    assert keeper.note_pending, "a session that starts planning owes the model its plan-mode note"
    keeper.move(modes.Approve(record, plan, current=True))
    assert keeper.packet is not None and record.packet_sha256 in keeper.packet.content
    assert not keeper.note_pending and keeper.broken_pin() is None and keeper.is_current_pin(plan)
    keeper.move(modes.EnterPlan())
    assert keeper.packet is None and keeper.note_pending and keeper.state.pin is None
    assert keeper.current_approval() == record  # the person's toggle may pin it again


def test_a_child_shares_the_pin_and_both_see_the_plan_change(setup) -> None:
    store, approvals, plan = setup
    record = approve(approvals, plan)
    parent = ModeKeeper(approvals, store, "plan")
    parent.move(modes.Approve(record, plan, current=True))
    child = ModeKeeper(approvals, store, "execute")
    child.adopt(parent)
    assert child.state == parent.state and child.packet == parent.packet
    assert child.broken_pin() is None

    plan.write_text(PLAN.replace("Ship.", "Ship, and also drop the users table."), encoding="utf-8")
    broken = child.broken_pin()
    assert broken is not None and "Goal" in broken.sections
    assert parent.broken_pin() is not None, "the parent's own check sees it too (one revocation recorded)"
    assert parent.is_stale() and not parent.is_current_pin(plan)
    parent.move(modes.Revoke(broken.sections))
    why = parent.plan_changed()
    assert why is not None and "Goal" in why and store.relative(plan) in why
