"""The one approval flow: every UI records a decision the same way, with its own channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview.approval.approvals import Approvals
from planview.approval.channels import TOOL_PROCESS_ENV, approve_command_channel, refuse_tool_process
from planview.approval.errors import ApprovalError
from planview.approval.flow import record_decision
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep, Refine, SavedComments
from planview.plan.store import PlanStore

TEXT = "# Ship\n\n## Goal\n\nShip it.\n\n## Steps\n\n- [ ] one\n"


@pytest.fixture
def setup(project: Path) -> tuple[Approvals, Path]:
    plan = PlanStore.for_cwd().write("Ship", TEXT).path
    return Approvals(project / ".planview", project), plan


def test_each_channel_is_recorded_and_the_decision_returned(setup) -> None:
    approvals, plan = setup
    outcome = record_decision(
        approvals, plan, Approved(str(plan), canonical_sha256(TEXT)), channel="Claude Code"
    )
    assert outcome.kind == "approve" and outcome.new and outcome.record is not None
    assert outcome.record.channel == "Claude Code"
    again = record_decision(approvals, plan, Approved(str(plan), canonical_sha256(TEXT)), channel="x")
    assert not again.new and again.record == outcome.record  # the same content: no second event
    # a decision made on another surface names its own channel (the page `w` opens)
    plan.write_text(TEXT.replace("Ship it.", "Ship it today."))
    shown = canonical_sha256(plan.read_text())
    page = record_decision(
        approvals, plan, Approved(str(plan), shown, "browser review"), channel="review screen"
    )
    assert page.record is not None and page.record.channel == "browser review"
    events = [json.loads(x) for x in approvals.ledger.path.read_text().splitlines()]
    assert [e.get("channel") for e in events] == ["Claude Code", "browser review"]


def test_refine_and_keep_record_nothing(setup) -> None:
    approvals, plan = setup
    assert record_decision(approvals, plan, Refine("split it"), channel="x").feedback == "split it"
    assert record_decision(approvals, plan, Keep(), channel="x").kind == "keep"
    assert record_decision(approvals, plan, None, channel="x").kind == "keep"
    assert not approvals.ledger.path.exists()


def test_text_changed_since_shown_or_another_file_is_refused(setup) -> None:
    approvals, plan = setup
    shown = canonical_sha256(TEXT)
    plan.write_text(TEXT + "\n- [ ] and delete prod\n")
    with pytest.raises(ApprovalError, match="changed after it was shown"):
        record_decision(approvals, plan, Approved(str(plan), shown), channel="x")
    with pytest.raises(ApprovalError, match="not"):
        record_decision(approvals, plan, Approved(str(plan.with_name("other.md")), shown), channel="x")
    assert not approvals.ledger.path.exists()


def _with_comment(plan: Path) -> Approved:
    """What the browser page's approve leaves: its comment in the file, the decision naming that save."""
    import hashlib

    before = plan.read_text(encoding="utf-8")
    plan.write_text(before.replace("Ship it.\n", "Ship it.\n> [!REVIEW] when?\n"), encoding="utf-8")
    written = hashlib.sha256(plan.read_bytes()).hexdigest()
    return Approved(str(plan), canonical_sha256(before), "browser review", SavedComments(before, written))


def test_an_approval_not_recorded_takes_the_pages_comments_back_out(setup) -> None:
    approvals, plan = setup
    original = plan.read_bytes()
    decision = _with_comment(plan)
    approvals.ledger.path.write_bytes(b'{"type": "approved", "seq": 1, "at": "2026-')  # torn
    with pytest.raises(ApprovalError, match="torn.*; the comments saved with the approval were taken out"):
        record_decision(approvals, plan, decision, channel="review screen")
    assert plan.read_bytes() == original


def test_an_unexpected_failure_takes_them_back_too_and_is_not_swallowed(setup, monkeypatch) -> None:
    approvals, plan = setup
    original = plan.read_bytes()
    decision = _with_comment(plan)

    def disk_full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(approvals, "approve", disk_full)
    with pytest.raises(OSError, match="No space left"):
        record_decision(approvals, plan, decision, channel="review screen")
    assert plan.read_bytes() == original


def test_a_plan_changed_after_the_pages_save_is_never_put_back(setup) -> None:
    approvals, plan = setup
    decision = _with_comment(plan)
    plan.write_text(plan.read_text() + "\n- [ ] a newer step\n")  # the agent saved again since
    newer = plan.read_bytes()
    approvals.ledger.path.write_bytes(b"torn")
    with pytest.raises(ApprovalError, match="changed on disk since the comments were saved, so it was left"):
        record_decision(approvals, plan, decision, channel="review screen")
    assert plan.read_bytes() == newer


def test_check_recordable_refuses_what_approve_would_before_anything_is_written(setup, monkeypatch) -> None:
    """The terminal review's browser page asks this before it answers approved (it records later)."""
    from planview.approval.errors import LedgerError

    approvals, plan = setup
    shown = canonical_sha256(TEXT)
    approvals.check_recordable(plan, shown)  # a good ledger: fine, and nothing recorded
    assert not approvals.ledger.path.exists() or approvals.ledger.path.read_bytes() == b""
    approvals.ledger.path.write_bytes(b'{"type": "approved", "seq": 1, "at": "2026-')
    with pytest.raises(LedgerError, match="torn"):
        approvals.check_recordable(plan, shown)
    approvals.ledger.path.unlink()
    with pytest.raises(ApprovalError, match="only plans saved in the plans folder"):
        approvals.check_recordable(plan.parent.parent / "elsewhere.md", shown)
    monkeypatch.setenv(TOOL_PROCESS_ENV, "20260101-000000-abcd")
    with pytest.raises(ApprovalError, match="not from the agent's tools"):
        approvals.check_recordable(plan, shown)


def test_a_file_where_the_artifacts_folder_goes_is_named_with_the_fix(setup) -> None:
    approvals, plan = setup
    approvals.artifacts_dir.write_text("in the way\n")
    with pytest.raises(
        ApprovalError, match=r"artifacts is a file where planview keeps the sealed plans.*move it aside"
    ):
        record_decision(approvals, plan, Approved(str(plan), canonical_sha256(TEXT)), channel="x")


def test_a_session_tool_process_cannot_approve(setup, monkeypatch: pytest.MonkeyPatch) -> None:
    approvals, plan = setup
    monkeypatch.setenv(TOOL_PROCESS_ENV, "20260101-000000-abcd")
    with pytest.raises(ApprovalError, match="approvals come from a person, not from the agent's tools"):
        record_decision(approvals, plan, Approved(str(plan), canonical_sha256(TEXT)), channel="x")
    with pytest.raises(ApprovalError, match="20260101-000000-abcd"):
        approvals.approve(plan, channel="anything")  # the seal point refuses too, whatever the path
    assert not approvals.ledger.path.exists()
    refuse_tool_process({})  # no marker: nothing to refuse


def test_planview_approve_without_a_terminal_says_so() -> None:
    assert approve_command_channel() == "planview approve (no terminal)"  # pytest captures stdio
