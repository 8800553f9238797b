"""The browser review's URL (its token approves the plan) is nowhere a plan-mode reader can look.

Before: while Claude's ExitPlanMode waited on the browser review, the hand-off wrote the page's URL,
token included, to `.planview/claude/review-url`, inside the project. Claude's plan-mode Read (and
planview's own `read`, and `git grep --untracked --no-exclude-standard`) returned it, and one POST
to `/api/approve` with that token records an approval through the "Claude Code" channel: the agent
approving its own plan with any tool that can POST. Now the URL waits in a per-user state folder
outside the project (mode 0600), where `planview claude status` still finds it.
"""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_claude_hook import PLAN, _post, _review_url, _start_hook, event

from planview.claude.state import ClaudeState
from planview.claude.tools import plan_mode_verdict


def test_the_review_token_stays_out_of_the_project(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    proc = _start_hook(
        project, event(project, "ExitPlanMode", {"plan": PLAN}, hook_event_name="PermissionRequest")
    )
    try:
        url = _review_url(proc)
        token = url.split("ticket=", 1)[1]
        status = ""
        for _ in range(100):  # the hand-off writes the file just after it prints the URL
            status = subprocess.run(
                [sys.executable, "-m", "planview", "claude", "status"],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            if url in status:
                break
            time.sleep(0.1)
        assert f"a plan is waiting for review: {url}" in status
        holding = [p for p in project.rglob("*") if p.is_file() and token in p.read_text(errors="replace")]
        assert holding == [], holding
        (waiting,) = ClaudeState(project / ".planview").review_urls.glob("*.url")
        assert not waiting.is_relative_to(project) and waiting.read_text().strip() == url
        assert stat.S_IMODE(waiting.stat().st_mode) == 0o600
        old = project / ".planview" / "claude" / "review-url"
        assert not old.exists()
        assert plan_mode_verdict("Read", {"file_path": str(waiting)}, project).allowed is False
        (plan,) = (project / ".planview" / "plans").glob("*.md")
        base = hashlib.sha256(plan.read_bytes()).hexdigest()
        assert _post(url, "/api/approve", {"base_sha256": base, "comments": []}) == 200
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert json.loads(out)["hookSpecificOutput"]["decision"]["behavior"] == "allow"
        assert not waiting.exists()  # gone once the review ends
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()


def test_each_home_has_its_own_waiting_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    one, two = ClaudeState(tmp_path / "a" / ".planview"), ClaudeState(tmp_path / "b" / ".planview")
    assert one.review_urls != two.review_urls
    assert one.review_urls.is_relative_to(tmp_path / "state")
    assert one.review_urls == ClaudeState(tmp_path / "a" / ".planview").review_urls
    assert one.new_review_url() != one.new_review_url()  # and each review its own file in it


def test_two_waiting_reviews_in_one_project_are_both_listed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25.9: two Claude sessions' reviews shared one URL file, so `planview claude status` showed
    one (and the first review to end removed the other's)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    procs = []
    try:
        for session in ("sess-a", "sess-b"):
            payload = event(project, "ExitPlanMode", {"plan": PLAN}, hook_event_name="PermissionRequest")
            payload["session_id"] = session
            procs.append(_start_hook(project, payload))
        urls = [_review_url(proc) for proc in procs]
        assert urls[0] != urls[1]
        status = ""
        for _ in range(100):
            status = subprocess.run(
                [sys.executable, "-m", "planview", "claude", "status"],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            if all(url in status for url in urls):
                break
            time.sleep(0.1)
        assert all(f"a plan is waiting for review: {url}" in status for url in urls), status
        from review_link import post

        assert post(urls[0], "/api/cancel", {})[0] == 200  # the first review ends; the second still waits
        procs[0].communicate(timeout=60)
        status = subprocess.run(
            [sys.executable, "-m", "planview", "claude", "status"],
            cwd=project,
            capture_output=True,
            text=True,
        ).stdout
        assert urls[1] in status and urls[0] not in status
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                proc.communicate()
