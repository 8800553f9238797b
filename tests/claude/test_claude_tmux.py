"""The terminal review in a real tmux window: Claude runs inside tmux, ExitPlanMode opens planview's
review screen in a new window, a person presses `a`, and the hook answers allow with setMode.

Uses a private tmux server (its own socket), so it never touches a tmux the developer is running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_claude_hook import PLAN, event

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"
)


def _tmux(sock: Path, *args: str) -> str:
    done = subprocess.run(["tmux", "-S", str(sock), *args], capture_output=True, text=True, timeout=30)
    return done.stdout


def _wait_for(predicate, what: str, seconds: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_exit_plan_mode_opens_the_review_in_a_tmux_window_and_a_approves(
    project: Path, tmp_path: Path
) -> None:
    sock = tmp_path / "tmux.sock"
    env = {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none"}
    env.pop("TMUX", None)
    subprocess.run(
        [
            "tmux",
            "-S",
            str(sock),
            "-f",
            os.devnull,
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            "claude",
        ],
        env=env,
        check=True,
        timeout=30,
    )
    try:
        pane = _tmux(sock, "display-message", "-p", "-t", "claude", "#{pane_id}").strip()
        server_pid = _tmux(sock, "display-message", "-p", "#{pid}").strip()
        hook_env = {**env, "TMUX": f"{sock},{server_pid},0", "TMUX_PANE": pane}
        hook_env.pop("PLANVIEW_CLAUDE_REVIEW", None)
        payload = event(project, "ExitPlanMode", {"plan": PLAN}, hook_event_name="PermissionRequest")
        proc = subprocess.Popen(
            [sys.executable, "-m", "planview", "claude", "hook", "--timeout", "600"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=project,
            env=hook_env,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(payload))
        proc.stdin.close()
        proc.stdin = None
        _wait_for(
            lambda: "plan review" in _tmux(sock, "list-windows", "-t", "claude", "-F", "#{window_name}"),
            "the review window",
        )
        screen = _wait_for(
            lambda: (
                (s := _tmux(sock, "capture-pane", "-p", "-t", "claude:plan review"))
                and "Add a greeting" in s
                and s
            ),
            "the plan on the review screen",
        )
        assert "Goal" in screen
        _tmux(sock, "send-keys", "-t", "claude:plan review", "a", "Enter")
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        answer = json.loads(out)["hookSpecificOutput"]
        assert answer["decision"]["behavior"] == "allow", answer
        ledger = [
            json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()
        ]
        approved = [e for e in ledger if e["type"] == "approved"]
        assert len(approved) == 1 and approved[0]["channel"] == "Claude Code"
    finally:
        subprocess.run(["tmux", "-S", str(sock), "kill-server"], capture_output=True, timeout=30)
