"""Approver identity, and what the approval package refuses."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.approval.errors import ApprovalError
from planview.approval.identity import resolve_approver


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
    from planview.config import BypassConfigError, load_config

    config = project / ".planview" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('permissionMode = "bypassPermissions"\n')
    with pytest.raises(BypassConfigError, match="plan-mode gate off"):
        load_config(paths=(config,), env={})
