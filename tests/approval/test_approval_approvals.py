"""Approve, seal, stay current across checkbox ticks, go stale on a word, revoke once."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from planview.approval.approvals import Approvals
from planview.approval.errors import ApprovalError, LedgerError
from planview.plan.store import PlanStore

PLAN = """\
# Add rate limiting

## Goal
Limit requests per client in `src/app.py`.

## Steps
- [ ] Add a token bucket to src/app.py
- [ ] Return 429 with Retry-After
- [ ] Write tests

## Risks
Too strict limits lock out real users.

## Verification
Run pytest; hammer the endpoint with 100 requests.
"""


@pytest.fixture
def store(project: Path) -> PlanStore:
    return PlanStore.for_cwd()


@pytest.fixture
def approvals(store: PlanStore) -> Approvals:
    return Approvals(store.home, store.project_root)


@pytest.fixture
def plan(store: PlanStore) -> Path:
    return store.write("Add rate limiting", PLAN).path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def events(approvals: Approvals) -> list[dict]:
    return [dict(e) for e in approvals.ledger.events()]


def head_commit(root: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()


def test_approve_seals_exact_bytes_and_records_the_event(
    project: Path, approvals: Approvals, plan: Path
) -> None:
    record = approvals.approve(plan, channel="test")
    data = plan.read_bytes()
    assert record.artifact.startswith("artifact:")
    assert record.file_sha256 == hashlib.sha256(data).hexdigest()
    assert record.bytes == len(data)
    assert record.approver == "Ada Reviewer <ada@example.com>"  # git identity of the fixture repo
    assert record.plan == plan.relative_to(project).as_posix()
    assert record.plan.startswith(".planview/plans/")
    assert record.commit == head_commit(project)
    assert record.at.endswith("Z")

    sealed = approvals.artifact_path(record)
    assert sealed.parent == project / ".planview" / "artifacts"
    assert sealed.read_bytes() == data
    assert stat.S_IMODE(sealed.stat().st_mode) == 0o444

    [event] = events(approvals)
    assert event["type"] == "approved"
    for key in (
        "seq",
        "plan",
        "canonical_sha256",
        "file_sha256",
        "artifact",
        "bytes",
        "approver",
        "at",
        "prev",
        "commit",
    ):
        assert key in event
    assert event["artifact"] == record.artifact and event["canonical_sha256"] == record.canonical_sha256


def test_approving_again_is_idempotent(approvals: Approvals, plan: Path) -> None:
    first = approvals.approve(plan, channel="test")
    again = approvals.approve(plan, approver="Somebody Else", channel="test")
    assert again == first
    edit(plan, "- [ ] Write tests", "- [x] Write tests")  # ticking is not a new plan
    assert approvals.approve(plan, channel="test") == first
    assert len(events(approvals)) == 1
    assert len(list(approvals.artifacts_dir.glob("*.md"))) == 1


def test_crlf_and_checkbox_changes_stay_current(approvals: Approvals, plan: Path) -> None:
    approvals.approve(plan, channel="test")
    edit(plan, "- [ ] Add a token bucket", "- [x] Add a token bucket")
    edit(plan, "- [ ] Return 429", "- [X] Return 429")
    assert approvals.is_current(plan)
    status = approvals.status(plan)
    assert status.state == "approved" and status.exit_code == 0
    plan.write_bytes(plan.read_bytes().replace(b"\n", b"\r\n"))
    assert approvals.is_current(plan)
    assert approvals.check_and_revoke(plan) is None
    assert len(events(approvals)) == 1


def test_one_word_change_goes_stale_naming_the_section(approvals: Approvals, plan: Path) -> None:
    record = approvals.approve(plan, channel="test")
    edit(plan, "Too strict limits", "Too loose limits")
    assert not approvals.is_current(plan)
    assert approvals.current(plan) == record  # not revoked yet, but no longer current
    status = approvals.status(plan)
    assert status.state == "stale" and status.exit_code == 1
    assert status.changed_sections == ("Risks",)


def test_revocation_is_recorded_once(approvals: Approvals, plan: Path) -> None:
    record = approvals.approve(plan, channel="test")
    edit(plan, "- [ ] Write tests", "- [ ] Write load tests")
    revocation = approvals.check_and_revoke(plan)
    assert revocation is not None
    assert revocation.changed_sections == ("Steps",)
    assert "Steps" in revocation.reason and revocation.revokes == record.seq
    assert approvals.check_and_revoke(plan) is None
    assert approvals.check_and_revoke(plan) is None
    kinds = [e["type"] for e in events(approvals)]
    assert kinds == ["approved", "revoked"]
    assert approvals.current(plan) is None
    status = approvals.status(plan)
    assert status.state == "stale" and status.revoked and status.changed_sections == ("Steps",)


def test_revoked_then_reverted_is_still_not_approved(approvals: Approvals, plan: Path) -> None:
    record = approvals.approve(plan, channel="test")
    edit(plan, "Write tests", "Write more tests")
    approvals.check_and_revoke(plan)
    edit(plan, "Write more tests", "Write tests")  # back to the approved text
    status = approvals.status(plan)
    assert status.state == "stale" and status.revoked and "approve the plan again" in status.detail
    assert not approvals.is_current(plan)
    again = approvals.approve(plan, channel="test")  # a fresh approval of the same artifact
    assert again.seq == 3 and again.artifact == record.artifact
    assert approvals.is_current(plan)


def test_reapproval_after_change_seals_a_new_artifact(approvals: Approvals, plan: Path) -> None:
    first = approvals.approve(plan, channel="test")
    edit(plan, "100 requests", "1000 requests")
    second = approvals.approve(plan, channel="test")
    assert second.artifact != first.artifact and second.seq == 2
    assert approvals.is_current(plan) and approvals.current(plan) == second
    assert approvals.artifact_path(first).read_bytes() != approvals.artifact_path(second).read_bytes()


def test_deleted_plan_is_revoked(approvals: Approvals, plan: Path) -> None:
    approvals.approve(plan, channel="test")
    plan.unlink()
    assert not approvals.is_current(plan)
    revocation = approvals.check_and_revoke(plan)
    assert revocation is not None and "deleted" in revocation.reason
    assert approvals.check_and_revoke(plan) is None


def test_not_approved(approvals: Approvals, plan: Path) -> None:
    status = approvals.status(plan)
    assert status.state == "not approved" and status.record is None and status.exit_code == 1
    assert not approvals.is_current(plan)
    assert approvals.check_and_revoke(plan) is None
    assert events(approvals) == []


def test_refuses_missing_plan(approvals: Approvals, store: PlanStore) -> None:
    with pytest.raises(ApprovalError, match="plan not found.*write the plan first"):
        approvals.approve(store.plans_dir / "nope.md", channel="test")
    assert not approvals.ledger.path.exists() or events(approvals) == []


@pytest.mark.parametrize("content", ["", "   \n\n\t\n", "> [!REVIEW] tighten this\n"])
def test_refuses_empty_plan(approvals: Approvals, store: PlanStore, content: str) -> None:
    store.plans_dir.mkdir(parents=True, exist_ok=True)
    path = store.plans_dir / "empty.md"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ApprovalError, match="plan is empty.*never fabricates"):
        approvals.approve(path, channel="test")
    assert not approvals.artifacts_dir.exists() or not any(approvals.artifacts_dir.iterdir())


def test_refuses_plan_outside_the_plans_folder(project: Path, approvals: Approvals) -> None:
    outside = project / "PLAN.md"
    outside.write_text(PLAN, encoding="utf-8")
    with pytest.raises(ApprovalError, match="inside .planview/plans.*only plans saved in the plans folder"):
        approvals.approve(outside, channel="test")
    with pytest.raises(ApprovalError):
        approvals.approve(project / ".planview" / "plans" / ".." / "ledger.md", channel="test")
    assert not approvals.ledger.path.exists()


def test_modified_artifact_is_refused(approvals: Approvals, plan: Path) -> None:
    record = approvals.approve(plan, channel="test")
    edit(plan, "Write tests", "Write more tests")
    approvals.check_and_revoke(plan)
    edit(plan, "Write more tests", "Write tests")
    sealed = approvals.artifact_path(record)
    os.chmod(sealed, 0o644)
    sealed.write_text(PLAN.replace("Goal", "Purpose"), encoding="utf-8")
    with pytest.raises(ApprovalError, match="modified after sealing"):
        approvals.approve(plan, channel="test")


def test_tampered_ledger_fails_closed(approvals: Approvals, plan: Path) -> None:
    approvals.approve(plan, channel="test")
    path = approvals.ledger.path
    path.write_bytes(path.read_bytes().replace(b"Ada Reviewer", b"Eve Reviewer"))
    assert not approvals.is_current(plan)
    with pytest.raises(LedgerError, match="line 1"):
        approvals.status(plan)
    with pytest.raises(LedgerError, match="line 1"):
        approvals.approve(plan, channel="test")


def test_reject_records_an_event(approvals: Approvals, plan: Path) -> None:
    seq = approvals.reject(plan, approver="Ada", reason="needs a rollback step", channel="test")
    [event] = events(approvals)
    assert seq == 1 and event["type"] == "rejected" and event["reason"] == "needs a rollback step"
    assert approvals.status(plan).state == "not approved"


def test_plan_outside_git_uses_home_relative_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PLANVIEW_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    store = PlanStore.for_cwd()
    path = store.write("Plan", PLAN).path
    approvals = Approvals(store.home, None)
    record = approvals.approve(path, approver="Ada", channel="test")
    assert record.plan == f"plans/{path.name}" and record.commit is None
    assert approvals.is_current(path)


APPROVER = """
import sys
from pathlib import Path
from planview.approval.approvals import Approvals
print(Approvals(Path(sys.argv[1]), Path(sys.argv[2])).approve(Path(sys.argv[3]), approver=sys.argv[4], channel="test").seq)
"""


def test_concurrent_approvals_of_one_plan_record_one_event(
    project: Path, approvals: Approvals, plan: Path
) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPROVER, str(approvals.home), str(project), str(plan), f"p{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(3)
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        outputs.append(out.decode().strip())
    assert outputs == ["1", "1", "1"]
    assert [e["type"] for e in events(approvals)] == ["approved"]
    assert json.loads(approvals.ledger.path.read_text().splitlines()[0])["seq"] == 1


@pytest.mark.parametrize("tamper", [b"\xff\xfe not utf-8", b"\n## Extra\nadded by hand\n"])
def test_sealed_artifact_edited_after_sealing_is_a_typed_error(
    approvals: Approvals, plan: Path, tamper: bytes
) -> None:
    # status and check_and_revoke diff against the sealed copy; an edited copy must not crash them
    # (UnicodeDecodeError) nor feed them a made-up "before".
    record = approvals.approve(plan, channel="test")
    sealed = approvals.artifact_path(record)
    os.chmod(sealed, 0o644)
    sealed.write_bytes(sealed.read_bytes() + tamper)
    edit(plan, "Write tests", "Write more tests")
    with pytest.raises(ApprovalError, match="modified after sealing.*approve the plan again"):
        approvals.status(plan)
    with pytest.raises(ApprovalError, match="modified after sealing"):
        approvals.check_and_revoke(plan)
    assert not approvals.is_current(plan)


def _forge(approvals: Approvals, events_: list[dict]) -> None:
    """A ledger whose chain and head verify but whose events were written by hand."""
    from planview.approval.ledger_format import GENESIS, canonical_json, sha256_hex

    lines, prev = [], GENESIS
    for seq, event in enumerate(events_, start=1):
        raw = canonical_json({**event, "seq": seq, "prev": prev, "at": "2026-01-01T00:00:00Z"}).encode()
        lines.append(raw)
        prev = sha256_hex(raw)
    approvals.ledger.path.parent.mkdir(parents=True, exist_ok=True)
    approvals.ledger.path.write_bytes(b"".join(line + b"\n" for line in lines))
    approvals.ledger.head_path.write_text(canonical_json({"seq": len(lines), "sha256": prev}) + "\n")


@pytest.mark.parametrize(
    "forged",
    [
        [{"type": "approved"}],
        [{"type": "revoked", "plan": ["x"]}],
        [{"type": "approved", "plan": {"a": 1}}],
        [
            {
                "type": "approved",
                "plan": ".planview/plans/add-rate-limiting.md",
                "canonical_sha256": "x",
                "file_sha256": "y",
                "artifact": "artifact:z",
                "bytes": "lots",
                "approver": "eve",
            }
        ],
    ],
)
def test_chain_valid_but_malformed_events_are_a_ledger_error(
    approvals: Approvals, plan: Path, forged: list[dict]
) -> None:
    _forge(approvals, forged)
    assert approvals.ledger.verify().ok  # the chain alone cannot tell
    with pytest.raises(LedgerError, match="seq 1: the (approved|revoked) event has (no|a malformed)"):
        approvals.status(plan)
    with pytest.raises(LedgerError, match="move the ledger aside"):
        approvals.approve(plan, channel="test")
    assert not approvals.is_current(plan)


def test_approve_refuses_a_plan_that_changed_since_it_was_shown(approvals: Approvals, plan: Path) -> None:
    from planview.plan.canonical import canonical_sha256

    shown = canonical_sha256(plan.read_text(encoding="utf-8"))
    edit(plan, "Write tests", "Skip the tests")  # the agent saves again while the reviewer reads
    with pytest.raises(ApprovalError, match="changed after it was shown for review.*review it again"):
        approvals.approve(plan, expected_canonical_sha256=shown, channel="test")
    assert not approvals.ledger.path.exists() or not events(approvals)
    assert not approvals.artifacts_dir.exists() or not any(approvals.artifacts_dir.iterdir())
    now = canonical_sha256(plan.read_text(encoding="utf-8"))
    assert approvals.approve(plan, expected_canonical_sha256=now, channel="test").canonical_sha256 == now
