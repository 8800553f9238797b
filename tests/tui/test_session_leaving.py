"""Leaving the session app says where the session was left and how to take it up again, and one
Ctrl+C during a turn cancels the turn instead of ending the session (checked in a real tmux window)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planview.commands.app import leaving_words
from tests.tui.test_review_tty import Tmux

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
PLANVIEW = Path(sys.executable).with_name("planview")


def _start(tmux: Tmux, project: Path, script: Path, *extra: str) -> None:
    command = f"cd {project} && {PLANVIEW} --script {script} {' '.join(extra)}; echo EXITED $?; sleep 60"
    env_args = ["-e", f"PLANVIEW_HOME={project / '.planview'}", "-e", "TEXTUAL_ANIMATIONS=none"]
    tmux.run("new-session", "-d", "-s", "w", "-x", "100", "-y", "30", *env_args, command)


@needs_tmux
def test_leaving_prints_the_session_its_state_and_a_resume_line_that_runs(
    project: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": "Looked around; nothing to change yet."}) + "\n")
    tmux = Tmux(tmp_path)
    try:
        _start(tmux, project, script, "--plan")
        tmux.wait_for("plan")
        tmux.run("send-keys", "-t", "w", "-l", "look at the readme")
        tmux.run("send-keys", "-t", "w", "Enter")
        tmux.wait_for("nothing to change yet")
        tmux.run("send-keys", "-t", "w", "C-q")
        lines = tmux.wait_for("EXITED 0")
    finally:
        tmux.close()
    text = "\n".join(lines)
    left = next(line for line in lines if "left in" in line)
    assert "plan mode" in left, text
    session_id = left.split("session ", 1)[1].split()[0]
    resume = next(line for line in lines if "resume it:" in line).split("resume it:", 1)[1].strip()
    assert resume == f"{PLANVIEW} --resume {session_id}", text
    # The line runs as printed: the session it names exists (a bad id would be refused with exit 2).
    done = subprocess.run(
        [*resume.split(), "--help"], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert (project / ".planview" / "sessions" / f"{session_id}.jsonl").is_file()


@needs_tmux
def test_one_ctrl_c_during_a_turn_cancels_the_turn_and_a_second_quits(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"delay": 30, "text": "a very slow answer"}) + "\n")
    tmux = Tmux(tmp_path)
    try:
        _start(tmux, project, script)
        tmux.wait_for("execute")
        tmux.run("send-keys", "-t", "w", "-l", "take your time")
        tmux.run("send-keys", "-t", "w", "Enter")
        time.sleep(1.5)
        tmux.run("send-keys", "-t", "w", "C-c")
        time.sleep(1.5)
        assert not any("EXITED" in line for line in tmux.capture()), "one Ctrl+C ended the session"
        tmux.run("send-keys", "-t", "w", "C-c")
        lines = tmux.wait_for("EXITED 0")
    finally:
        tmux.close()
    assert any("resume it:" in line for line in lines)


def test_the_words_name_the_pinned_plan_and_an_agent_session(project: Path) -> None:
    class Approval:
        seq = 4

    class Pinned:
        id = "20261202-0130-abcd"
        mode = "execute"
        approved = True
        saved = True
        approval = Approval()
        plan_path = project / ".planview" / "plans" / "2026-12-02-0130-x.md"

    words = leaving_words(Pinned(), project, "/venv/bin/planview", agent="gemini")
    assert "execute mode, pinned to approval seq 4 of .planview/plans/2026-12-02-0130-x.md" in words
    assert words.endswith("resume it: /venv/bin/planview --resume 20261202-0130-abcd --agent gemini")
    Pinned.saved = False
    assert "nothing to resume" in leaving_words(Pinned(), project, "planview")
