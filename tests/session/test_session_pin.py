"""The exact pin: one approval event, re-hashed only when the plan's (or ledger's) stat changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planview.approval.approvals import Approvals
from planview.plan.store import PlanStore
from planview.session.pin import PinCheck

TEXT = "# Ship\n\n## Goal\n\nShip it.\n\n## Steps\n\n- [ ] one\n"


@pytest.fixture
def pinned(project: Path):
    plan = PlanStore.for_cwd().write("Ship", TEXT).path
    approvals = Approvals(project / ".planview", project)
    return approvals, plan, approvals.approve(plan, channel="test")


def test_an_unchanged_stat_skips_the_rehash(pinned, monkeypatch: pytest.MonkeyPatch) -> None:
    approvals, plan, record = pinned
    check = PinCheck(approvals)
    calls: list[Path] = []
    real = approvals.status
    monkeypatch.setattr(approvals, "status", lambda p: calls.append(p) or real(p))
    assert check.check(plan, record) is None and len(calls) == 1
    for _ in range(5):
        assert check.check(plan, record) is None
    assert len(calls) == 1  # five mutating calls, no re-read of the plan or the ledger
    # ticking a step changes the stat: checked again, still the same approval (ticks are not edits)
    plan.write_text(TEXT.replace("- [ ] one", "- [x] one"))
    assert check.check(plan, record) is None and len(calls) == 2


def test_same_size_same_mtime_rewrite_is_still_caught(pinned) -> None:
    # An adversary restoring size and mtime: an atomic save gives the file a new inode.
    approvals, plan, record = pinned
    check = PinCheck(approvals)
    assert check.check(plan, record) is None
    st = os.stat(plan)
    forged = plan.with_name("forged.tmp")
    forged.write_text(TEXT.replace("Ship it.", "Ship xx."))  # same length
    os.utime(forged, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(forged, plan)
    broken = check.check(plan, record)
    assert broken is not None and broken.sections == ("Goal",)


def test_another_approval_does_not_repin(pinned) -> None:
    approvals, plan, record = pinned
    check = PinCheck(approvals)
    plan.write_text(TEXT.replace("Ship it.", "Ship it now."))
    newer = approvals.approve(plan, "Mallory", channel="planview approve (no terminal)")
    assert newer.seq > record.seq and approvals.is_current(plan)
    broken = check.check(plan, record)
    assert broken is not None and broken.sections == ("Goal",)
    assert "another approval" in broken.detail and "no terminal" in broken.detail
    # and it is withdrawn (left live, a resumed session or the person's toggle would take it up), so
    # not even a session pinned to that event keeps it: the plan is approved again through a review
    assert approvals.status(plan).state == "stale" and approvals.status(plan).revoked
    withdrawn = approvals.history()[-1].revocation
    assert withdrawn is not None and withdrawn.revokes == newer.seq
    assert f"executing under approval seq {record.seq}" in withdrawn.reason
    assert check.check(plan, newer) is not None
    assert check.check(plan, record) is not None  # nothing re-pins the old one either


def test_another_approval_is_withdrawn_even_when_the_plan_changed_again(pinned) -> None:
    """The agent forges an approval, edits the plan once more (that approval is stale, not live), then
    in plan mode write_plan puts back the forged text: the forged approval must not be live again."""
    approvals, plan, record = pinned
    check = PinCheck(approvals)
    forged_text = TEXT.replace("Ship it.", "Ship it now.")
    plan.write_text(forged_text)
    newer = approvals.approve(plan, "Mallory", channel="planview approve (no terminal)")
    plan.write_text(TEXT.replace("Ship it.", "Ship it later."))
    assert check.check(plan, record) is not None
    plan.write_text(forged_text)
    assert approvals.status(plan).state != "approved"
    assert not approvals.is_current(plan)
    withdrawn = approvals.history()[-1].revocation
    assert withdrawn is not None and withdrawn.revokes == newer.seq


def test_same_length_in_place_edit_with_the_mtime_put_back_is_caught(pinned) -> None:
    """Issue 25.2: an in-place edit (same inode, same size) with the old mtime restored by utime. The
    inode's change time moves with any write or utime and no process can set it back."""
    approvals, plan, record = pinned
    check = PinCheck(approvals)
    assert check.check(plan, record) is None
    st = os.stat(plan)
    with open(plan, "r+b") as handle:  # in place: the inode stays
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b"Ship it.", b"Ship xx."))
    os.utime(plan, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(plan)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    broken = check.check(plan, record)
    assert broken is not None and broken.sections == ("Goal",)
