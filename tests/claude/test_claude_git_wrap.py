"""Claude's plan-mode Bash in a hostile repository: the command Claude is handed runs only git.

The fixture's config names marker programs for fsmonitor, diff.external, a textconv driver, a
clean filter and the pager. Run as written, `git status` / `git diff` / `git log -p` start them
(the fixture is really hostile); run as the hook's `updatedInput`, none of them runs and git's
output is still there.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from planview.claude.hook import run

COMMANDS = [
    "git status",
    "git diff",
    "git log -p -1",
    "git show HEAD",
    "git diff --stat && git status --short",
]


@pytest.fixture
def hostile(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "fired"
    evil = tmp_path / "evil.sh"
    evil.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n')
    evil.chmod(0o755)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    for key, value in (
        ("core.fsmonitor", str(evil)),
        ("diff.external", str(evil)),
        ("diff.evil.textconv", str(evil)),
        ("filter.evil.clean", str(evil)),
        ("core.pager", str(evil)),
    ):
        subprocess.run(["git", "config", key, value], cwd=project, check=True, env=env)
    (project / ".gitattributes").write_text("*.txt diff=evil filter=evil\n")
    (project / "notes.txt").write_text("one\n")
    subprocess.run(["git", "add", "."], cwd=project, check=True, env=env, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "notes"], cwd=project, check=True, env=env, capture_output=True)
    marker.unlink(missing_ok=True)
    (project / "notes.txt").write_text("one\ntwo\n")  # a change for diff, status and the filter
    return project, marker


def _updated_command(root: Path, command: str) -> str:
    raw = json.dumps(
        {
            "session_id": "s",
            "cwd": str(root),
            "permission_mode": "plan",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "look"},
        }
    ).encode()
    out = run(raw).payload["hookSpecificOutput"]  # type: ignore[index]
    assert out["permissionDecision"] == "allow", out
    assert out["updatedInput"]["description"] == "look"
    return out["updatedInput"]["command"]


def _claude_runs(command: str, root: Path) -> subprocess.CompletedProcess[str]:
    # Claude's Bash: the user's shell in the project, with the user's environment and a terminal-less pager.
    return subprocess.run(
        command, shell=True, executable="/bin/sh", cwd=root, capture_output=True, text=True, timeout=60
    )


def test_the_fixture_is_hostile(hostile: tuple[Path, Path]) -> None:
    root, marker = hostile
    for command in ("git status", "git diff"):
        _claude_runs(command, root)
    assert marker.exists(), "the marker programs should run for plain git in this repository"


@pytest.mark.parametrize("command", COMMANDS)
def test_the_updated_command_runs_no_program_of_the_repository(
    hostile: tuple[Path, Path], command: str
) -> None:
    root, marker = hostile
    updated = _updated_command(root, command)
    done = _claude_runs(updated, root)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()
    if command.startswith("git diff") and "--stat" not in command:
        assert "+two" in done.stdout  # git still answered, with the repository's own diff
    if command == "git status":
        assert "notes.txt" in done.stdout
