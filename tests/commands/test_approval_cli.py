"""`planview approve`, `status` and `audit`: outputs and exit codes, on a real git repository."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.cli import main
from planview.plan.store import PlanStore

PLAN = """\
# Tidy the README

## Goal
Explain setup in README.md and keep `src/app.py` in sync.

## Steps
- [ ] Rewrite the setup section of README.md
- [ ] Add a `--help` note to src/app.py:12

## Verification
Read it.
"""


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env
    ).stdout


@pytest.fixture
def plan(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "app")
    return PlanStore.for_cwd().write("Tidy the README", PLAN).path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_approve_prints_artifact_hash_and_size(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    code, out, err = run(capsys, "approve", str(plan))
    assert code == 0, err
    lines = out.splitlines()
    data = plan.read_bytes()
    assert lines[0].startswith("artifact:") and len(lines[0]) == len("artifact:") + 36
    assert lines[1] == f"sha256:{hashlib.sha256(data).hexdigest()}"
    assert lines[2] == f"bytes:{len(data)}"
    assert lines[3].startswith("canonical:") and len(lines[3]) == len("canonical:") + 64
    assert "approver:Ada Reviewer <ada@example.com>" in lines

    code, again, err = run(capsys, "approve", plan.name, "--as", "Bob")  # bare name: the plans folder
    assert code == 0 and again == out
    assert "already approved" in err


def test_approve_as_name(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    code, out, _ = run(capsys, "approve", str(plan), "--as", "Grace Hopper")
    assert code == 0 and "approver:Grace Hopper" in out.splitlines()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "plan not found"),
        ("empty", "plan is empty"),
        ("outside", "inside .planview/plans"),
    ],
)
def test_approve_refusals_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path, plan: Path, setup: str, message: str
) -> None:
    target = {
        "missing": plan.parent / "missing.md",
        "empty": plan.parent / "empty.md",
        "outside": project / "README.md",
    }[setup]
    if setup == "empty":
        target.write_text("\n \n")
    code, out, err = run(capsys, "approve", str(target))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert not (project / ".planview" / "ledger.jsonl").exists()


def test_refusal_from_the_real_command_line(project: Path, plan: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "planview", "approve", "nope.md"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "plan not found" in done.stderr


def test_status_states_and_exit_codes(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    code, out, _ = run(capsys, "status")
    assert code == 1 and out.startswith("not approved: .planview/plans/")

    run(capsys, "approve", str(plan))
    code, out, _ = run(capsys, "status")
    assert code == 0 and out.startswith("approved: ")

    plan.write_text(PLAN.replace("- [ ] Rewrite", "- [x] Rewrite"))
    assert run(capsys, "status", str(plan))[0] == 0

    plan.write_text(PLAN.replace("Read it.", "Read it twice."))
    code, out, _ = run(capsys, "status", str(plan))
    assert code == 1 and out.startswith("stale: ")
    assert "    - Verification" in out.splitlines()

    code, out, _ = run(capsys, "status", "--json")
    data = json.loads(out)
    assert code == 1 and data["state"] == "stale" and data["changed_sections"] == ["Verification"]
    assert data["approval"]["approver"] == "Ada Reviewer <ada@example.com>"


def test_status_without_plans(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    code, _, err = run(capsys, "status")
    assert code == 2 and "no plans" in err


def test_audit_shows_the_evidence(capsys: pytest.CaptureFixture[str], project: Path, plan: Path) -> None:
    run(capsys, "approve", str(plan))
    approved_at = git(project, "rev-parse", "HEAD").strip()
    (project / "README.md").write_text("# sample project\n\nSetup: pip install.\n")
    git(project, "commit", "-q", "-am", "readme")  # committed after approval: still shown
    (project / "src" / "app.py").write_text("print('hi')\nprint('--help')\n")
    (project / "notes.txt").write_text("scratch\n")

    code, out, err = run(capsys, "audit")
    assert code == 0, err
    assert "hash chain verified" in out.splitlines()[0]
    assert f"commit:     {approved_at}" in out
    assert f"changed since approval (git diff --stat {approved_at[:12]}):" in out
    stat = out.split("changed since approval")[1]
    assert "README.md" in stat and "src/app.py" in stat and "2 files changed" in stat
    assert "untracked files: 1\n  notes.txt" in out
    assert "files the plan mentions: 2\n  README.md  changed\n  src/app.py  changed" in out
    assert "changed but not mentioned in the plan: 1\n  notes.txt" in out
    assert ".planview/artifacts/" in out and "sealed:" in out

    code, out, _ = run(capsys, "audit", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["ledger"]["events"] == 1
    newest = data["newest"]
    assert newest["git"]["commit"] == approved_at
    assert sorted(newest["git"]["changed"]) == ["README.md", "src/app.py"]
    assert newest["git"]["untracked"] == ["notes.txt"]
    assert newest["mentioned"] == ["README.md", "src/app.py"]
    assert newest["changed_not_in_plan"] == ["notes.txt"]
    assert newest["artifact_ok"] and newest["packet_ok"] and newest["state"] == "approved"


def test_audit_lists_revocations(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    from planview.approval.approvals import Approvals

    store = PlanStore.for_cwd()
    approvals = Approvals(store.home, store.project_root)
    approvals.approve(plan, channel="test")
    plan.write_text(PLAN.replace("Read it.", "Read it twice."))
    approvals.check_and_revoke(plan)
    approvals.approve(plan, channel="test")
    code, out, _ = run(capsys, "audit")
    assert code == 0
    assert "approvals: 2" in out and "revoked at seq 2 (Verification)" in out
    assert "newest approval: seq 3" in out


def test_audit_exits_1_naming_the_first_bad_line(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    run(capsys, "approve", str(plan))
    plan.write_text(PLAN.replace("Read it.", "Read it twice."))
    run(capsys, "approve", str(plan))
    plan.write_text(PLAN.replace("Read it.", "Read it thrice."))
    run(capsys, "approve", str(plan))
    ledger = plan.parent.parent / "ledger.jsonl"
    lines = ledger.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b"Ada Reviewer", b"Eve Reviewer")
    ledger.write_bytes(b"".join(lines))

    code, out, err = run(capsys, "audit")
    assert code == 1
    assert "BROKEN at line 2 (seq 2)" in out.splitlines()[0]
    assert "line 2" in err
    code, out, _ = run(capsys, "audit", "--json")
    data = json.loads(out)
    assert code == 1 and not data["ok"] and data["ledger"]["first_bad_seq"] == 2
    assert len(data["approvals"]) == 1


def test_audit_repair_removes_only_a_torn_last_line(capsys: pytest.CaptureFixture[str], plan: Path) -> None:
    run(capsys, "approve", str(plan))
    ledger = plan.parent.parent / "ledger.jsonl"
    good = ledger.read_bytes()
    ledger.write_bytes(good + b'{"approver":"Ada","at":"20')  # a crash mid-append
    code, _, err = run(capsys, "status", str(plan))
    assert code == 2 and "planview audit --repair" in err
    code, _, err = run(capsys, "audit")
    assert code == 1 and "torn" in err and "planview audit --repair" in err
    code, out, err = run(capsys, "audit", "--repair")
    assert code == 0, err
    assert "removed the torn line 2" in err and "hash chain verified" in out
    assert ledger.read_bytes() == good
    backups = list(ledger.parent.glob("ledger.jsonl.*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes().startswith(good)
    code, _, err = run(capsys, "audit", "--repair")
    assert code == 0 and "nothing to repair" in err
    assert run(capsys, "status", str(plan))[0] == 0


def test_audit_without_approvals(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    code, out, _ = run(capsys, "audit")
    assert code == 0 and "no approvals yet" in out


def test_status_and_audit_never_print_escape_sequences(
    capsys: pytest.CaptureFixture[str], plan: Path
) -> None:
    # A hand-edited ledger (chain recomputed) and an untracked file named with an escape sequence.
    from planview.approval.ledger_format import canonical_json, sha256_hex

    assert run(capsys, "approve", str(plan))[0] == 0
    home = plan.parent.parent
    ledger = home / "ledger.jsonl"
    event = json.loads(ledger.read_text(encoding="utf-8"))
    event["approver"] = "Eve\x1b]0;pwned\x07\x1b[2J\u202eevE"
    raw = canonical_json(event).encode("utf-8")
    ledger.write_bytes(raw + b"\n")
    (home / "ledger.head").write_text(canonical_json({"seq": 1, "sha256": sha256_hex(raw)}) + "\n")
    (plan.parent.parent.parent / "evil\x1b[31m.txt").write_text("x")
    for argv in (("status", str(plan)), ("audit",)):
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        assert "Eve" in out
        assert not any(ch in out for ch in "\x1b\x07\u202e"), argv


def test_status_of_an_empty_plan_says_so_instead_of_an_approve_that_is_refused(
    capsys: pytest.CaptureFixture[str], plan: Path
) -> None:
    """QA: status printed `approve it: planview approve …`, which refuses an empty plan."""
    empty = plan.with_name("empty.md")
    empty.write_text("\n \n")
    code, out, _ = run(capsys, "status", str(empty))
    assert code == 1 and "not approved" in out
    assert "approve it" not in out and "is empty" in out
    assert run(capsys, "approve", str(empty))[0] == 2  # what the old hint printed
    code, out, _ = run(capsys, "status", "--json", str(empty))
    assert "is empty" in json.loads(out)["detail"]


def test_audit_of_a_broken_ledger_does_not_say_approve_a_plan(
    capsys: pytest.CaptureFixture[str], plan: Path
) -> None:
    """QA: a ledger that does not verify ended with "no approvals yet: approve a plan with …"."""
    assert run(capsys, "approve", str(plan))[0] == 0
    ledger = plan.parents[1] / "ledger.jsonl"
    ledger.write_text(ledger.read_text().replace('"seq":1', '"seq":7', 1))
    code, out, err = run(capsys, "audit")
    assert code == 1 and "BROKEN at line 1" in out
    assert "no approvals yet" not in out and "planview approve" not in out + err
    assert "approvals: unknown" in out
    assert run(capsys, "approve", str(plan))[0] == 2  # approve refuses while the ledger is broken


def test_approving_an_approved_plan_where_the_ledger_cannot_be_locked_says_it_is_approved(
    project: Path, plan: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # QA §8: on a read-only home, approving an already approved plan said "cannot lock the approval
    # ledger … read-only", although it is approved and that can be read without the lock.
    import errno

    from planview.approval import ledger as ledger_module

    assert main(["approve", str(plan)]) == 0
    first = capsys.readouterr().out.splitlines()
    real_open = ledger_module.open_regular

    def read_only(path, flags=os.O_RDONLY, *rest):
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *rest)

    monkeypatch.setattr(ledger_module, "open_regular", read_only)
    ledger = project / ".planview" / "ledger.jsonl"
    before = ledger.read_bytes()
    assert main(["approve", str(plan)]) == 0
    captured = capsys.readouterr()
    assert "already approved" in captured.err and captured.out.splitlines() == first
    assert ledger.read_bytes() == before
    # A change since is not approved, and then the read-only home is the answer.
    plan.write_text(plan.read_text() + "\n## More\nText.\n")
    assert main(["approve", str(plan)]) == 2
    assert "read-only" in capsys.readouterr().err
