"""Mode state as data and approver identity."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.approval import (
    ApprovalError,
    ApprovalRecord,
    Approve,
    EnterPlan,
    LeavePlan,
    ModeError,
    ModeState,
    Revoke,
    resolve_approver,
    transition,
)

RECORD = ApprovalRecord(
    seq=1,
    plan=".planview/plans/a.md",
    canonical_sha256="c" * 64,
    file_sha256="f" * 64,
    artifact="artifact:00000000-0000-5000-8000-000000000000",
    bytes=10,
    approver="Ada",
    at="2026-01-01T00:00:00Z",
    commit=None,
)


def test_starts_in_plan_mode() -> None:
    state = ModeState()
    assert state.mode == "plan" and state.plan is None and state.approval is None and not state.pinned


def test_current_approval_is_the_way_into_execute() -> None:
    state = transition(ModeState(), EnterPlan(RECORD.plan))
    state = transition(state, Approve(RECORD, current=True))
    assert state == ModeState("execute", RECORD.plan, RECORD) and state.pinned


def test_stale_approval_is_refused() -> None:
    state = transition(ModeState(), EnterPlan(RECORD.plan))
    with pytest.raises(ModeError, match="not current"):
        transition(state, Approve(RECORD, current=False))


def test_approval_for_another_plan_is_refused() -> None:
    state = ModeState("plan", ".planview/plans/other.md")
    with pytest.raises(ModeError, match="other.md"):
        transition(state, Approve(RECORD, current=True))


def test_revoke_returns_to_plan_mode_keeping_the_plan() -> None:
    state = ModeState("execute", RECORD.plan, RECORD)
    after = transition(state, Revoke("Steps changed"))
    assert after == ModeState("plan", RECORD.plan, None)
    assert transition(after, Revoke()) == after


def test_enter_plan_drops_the_approval() -> None:
    state = ModeState("execute", RECORD.plan, RECORD)
    assert transition(state, EnterPlan()) == ModeState("plan", RECORD.plan, None)
    assert transition(state, EnterPlan("x.md")).plan == "x.md"


def test_leave_plan_is_normal_mode_pinned_to_nothing() -> None:
    state = ModeState("plan", RECORD.plan)
    after = transition(state, LeavePlan())
    assert after == ModeState("execute", None, None) and not after.pinned
    pinned = ModeState("execute", RECORD.plan, RECORD)
    assert transition(pinned, LeavePlan()) == pinned


def test_illegal_states_cannot_be_built() -> None:
    with pytest.raises(ModeError, match="needs a current approval"):
        ModeState("execute", RECORD.plan, None)
    with pytest.raises(ModeError):
        ModeState("plan", RECORD.plan, RECORD)
    with pytest.raises(ModeError):
        ModeState("execute", "other.md", RECORD)
    with pytest.raises(ModeError):
        ModeState("yolo")  # type: ignore[arg-type]


def test_transition_is_pure() -> None:
    state = ModeState("plan", RECORD.plan)
    assert transition(state, Approve(RECORD, True)) == transition(state, Approve(RECORD, True))
    assert state == ModeState("plan", RECORD.plan)
    with pytest.raises(ModeError):
        transition(state, object())  # type: ignore[arg-type]


def test_explicit_approver_wins(project: Path) -> None:
    assert resolve_approver("  Bob   Builder ", cwd=project) == "Bob Builder"
    with pytest.raises(ApprovalError, match="--as"):
        resolve_approver("   ", cwd=project)
    with pytest.raises(ApprovalError):
        resolve_approver("Bob\x1b[31m", cwd=project)


def test_git_identity(project: Path) -> None:
    assert resolve_approver(cwd=project) == "Ada Reviewer <ada@example.com>"


@pytest.mark.parametrize("name", ["Bob\u009b31m", "Bob\u202eevE", "Bob\x85"])
def test_explicit_approver_with_terminal_controls_is_refused(project: Path, name: str) -> None:
    with pytest.raises(ApprovalError, match="printable"):
        resolve_approver(name, cwd=project)


def test_git_identity_with_controls_or_other_encodings_is_cleaned(project: Path) -> None:
    # The name lands in the ledger and is printed by status/audit: no escape sequences, no crash on
    # a user.name that is not UTF-8.
    subprocess.run(
        [b"git", b"config", b"user.name", b"Eve\x1b[31m\xc2\x9b Red\xe2\x80\xae"], cwd=project, check=True
    )
    subprocess.run([b"git", b"config", b"user.email", b"eve@x\xff"], cwd=project, check=True)
    assert resolve_approver(cwd=project) == "Eve[31m Red <eve@x\ufffd>"


def test_os_user_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert resolve_approver(cwd=tmp_path) == getpass.getuser()


def test_approval_package_never_imports_textual() -> None:
    code = (
        "import sys, planview.approval, planview.approval.audit, planview.commands.approval; "
        "sys.exit('textual' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_bypass_config_is_refused_at_load(project: Path) -> None:
    from planview.approval import BypassConfigError
    from planview.config import load_config

    config = project / ".planview" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('permissionMode = "bypassPermissions"\n')
    with pytest.raises(BypassConfigError, match="plan-mode gate off"):
        load_config(paths=(config,), env={})
