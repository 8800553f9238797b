"""Plan-mode git is the system's git, never a program the project ships.

An empty or relative PATH entry (`bin:$PATH`, the binstub habit, or a stray leading/trailing colon)
is looked up from the current folder, and plan-mode bash runs in the project root: a hostile
repository's `bin/git` (or `bin/bash`) ran instead of git, in plan mode, on the first `git status`.
So did an absolute entry that points into the project (direnv's `PATH_add bin`). The plan
environment keeps only absolute PATH entries outside the project, for planview's own bash and for
the command the Claude Code hook hands back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from planview.claude.git_wrap import neutralised_command
from planview.gate import git_env
from planview.session.providers.base import ModelToolCall
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def shipped(tmp_path: Path) -> tuple[Path, Path]:
    """(project, marker): a repository that ships bin/git and bin/bash, each leaving the marker."""
    root = tmp_path / "project"
    (root / "bin").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    marker = tmp_path / "ran"
    for name in ("git", "bash"):
        script = root / "bin" / name
        script.write_text(f'#!/bin/sh\necho {name} >> "{marker}"\nexit 0\n')
        script.chmod(0o755)
    return root, marker


def _session(root: Path) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    return Session(project_root=root, provider=provider, plan_mode=True, persist=False)


@pytest.mark.parametrize("entry", ["bin", "./bin", "", "INSIDE"])
async def test_plan_mode_bash_never_runs_a_program_from_the_project(
    shipped: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    root, marker = shipped
    if entry == "":  # an empty entry means the current folder: put the project's bin there
        monkeypatch.chdir(root / "bin")
        for name in ("git", "bash"):
            (root / name).symlink_to(root / "bin" / name)
    elif entry == "INSIDE":
        entry = str(root / "bin")
    monkeypatch.setenv("PATH", f"{entry}:{os.environ['PATH']}")
    result = (
        await _session(root).run_tool_call(ModelToolCall("c1", "bash", {"command": "git status"}))
    ).result
    assert not marker.exists(), f"the project's {marker.read_text().strip()} ran in plan mode"
    assert "No commits yet" in result.text or "On branch" in result.text, result.text


def test_the_plan_environment_keeps_only_absolute_entries_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "tools").mkdir(parents=True)
    (tmp_path / "link").symlink_to(root / "tools")  # an outside spelling of a folder inside
    inherited = {"PATH": f":bin:./x:/usr/bin:{root / 'tools'}:{tmp_path / 'link'}::/bin:"}
    env = git_env.base_env(root, inherited)
    assert env["PATH"] == "/usr/bin:/bin"
    assert git_env.base_env(root, {"PATH": "bin:."})["PATH"] == os.defpath  # nothing usable left
    assert git_env.base_env(root, {})["PATH"] == os.defpath


def test_the_claude_hook_command_runs_the_system_bash_and_git(
    shipped: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude's shell looks `bash` up on its own PATH before the exported plan PATH applies, so the
    handed-back command names bash by its absolute path."""
    root, marker = shipped
    environ = {**os.environ, "PATH": f"bin:{os.environ['PATH']}"}
    command = neutralised_command("git status", root, environ)
    assert command.startswith("/") and " -c " in command, command[:60]
    done = subprocess.run(
        command, shell=True, executable="/bin/sh", cwd=root, env=environ, capture_output=True, text=True
    )
    assert not marker.exists(), f"the project's {marker.read_text().strip()} ran under the hook's command"
    assert done.returncode == 0, done.stderr
