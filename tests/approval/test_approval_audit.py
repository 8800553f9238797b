"""Audit helpers: which files a plan mentions, and git changes in odd repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from planview.approval.audit import git_changes, mentioned_paths


def test_mentioned_paths(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "mod.py").write_text("")
    (tmp_path / "Makefile").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("")
    outside = tmp_path.parent / "secret.txt"
    text = (
        "Edit `src/pkg/mod.py:12` and src/pkg/mod.py#L3-L9, run `make -C .` per `Makefile`.\n"
        "See https://example.com/src/pkg/mod.py, ../secret.txt, .git/config, /etc/passwd and missing/file.py.\n"
        "Touch the folder src/pkg/ too.\n"
    )
    assert mentioned_paths(text, tmp_path) == ("src/pkg/mod.py", "Makefile", "src/pkg/")
    assert not outside.exists() or "secret.txt" not in mentioned_paths(text, tmp_path)
    assert mentioned_paths(text, None) == ()


def test_git_changes_without_git_or_commits(tmp_path: Path) -> None:
    changes = git_changes(None, None)
    assert changes.note and "not a git repository" in changes.note
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "new.txt").write_text("x")
    changes = git_changes(tmp_path, None)
    assert changes.untracked == ("new.txt",) and "no commit was recorded" in (changes.note or "")
    gone = git_changes(tmp_path, "0" * 40)
    assert "no longer in this repository" in (gone.note or "") and gone.changed == ()


def test_audit_reports_a_non_utf8_artifact_whose_packet_is_gone(project: Path) -> None:
    # With the packet missing, audit rebuilds it from the sealed artifact: an artifact edited into
    # non-UTF-8 bytes must be reported, not crash the audit.
    from planview.approval.approvals import Approvals
    from planview.approval.audit import build_audit
    from planview.plan.store import PlanStore

    store = PlanStore.for_cwd()
    plan = store.write("Plan", "# Plan\n\n## Steps\n- [ ] one\n").path
    approvals = Approvals(store.home, store.project_root)
    record = approvals.approve(plan, channel="test")
    sealed = approvals.artifact_path(record)
    os.chmod(sealed, 0o644)
    sealed.write_bytes(sealed.read_bytes() + b"\xff")
    sealed.with_suffix(".packet.json").unlink()
    report = build_audit(approvals)
    assert report.newest is not None
    assert not report.newest.artifact_ok
    assert not report.newest.packet_ok and "modified after sealing" in (report.newest.packet_note or "")


def test_audit_counts_a_file_named_in_the_plan_as_mentioned() -> None:
    from planview.approval.audit import named_files

    text = "## Steps\n\n- [ ] Cover shouting with a test and mention it in the README\n- [ ] tidy Makefile\n"
    files = ["README.md", "docs/readme-old.txt", "Makefile", "src/app.py", "a.c", "tests/x.py"]
    assert named_files(text, files) == ("README.md", "Makefile")
    assert named_files("edit a.c and app", files) == ("src/app.py", "a.c")  # short stems need the name


def test_audit_with_a_home_outside_the_project_reports_the_approved_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25.7: the ledger names such a plan relative to the home, and audit joined it to the project
    root instead ("now: plan path must be a .md file inside ..." for a plan that is approved)."""
    import os
    import subprocess
    import sys

    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    home = tmp_path / "home"
    env = {**os.environ, "PLANVIEW_HOME": str(home), "PLANVIEW_APPROVER": "Ada"}
    monkeypatch.setenv("PLANVIEW_HOME", str(home))
    monkeypatch.chdir(project)
    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Ship", "# Ship\n\n## Goal\n\nShip it.\n\n## Steps\n\n- [ ] one\n").path
    assert plan.is_relative_to(home)

    def planview(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "planview", *args], cwd=project, env=env, capture_output=True, text=True
        )
        return done.stdout + done.stderr

    planview("approve", str(plan))
    report = planview("audit")
    assert "(now: approved)" in report and "must be a .md file" not in report, report
