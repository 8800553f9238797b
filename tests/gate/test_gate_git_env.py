"""Plan-mode bash runs read-only git without the programs the repository's config names.

A real repository whose .git/config points core.fsmonitor, diff.external, a textconv driver, a
clean filter, a pager and a post-index-change hook at marker scripts. The same commands run in
execute mode first (proving the markers really fire there), then through the gate and the bash
tool in plan mode, where none may fire.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from planview.gate import git_env
from planview.session.providers.base import ModelToolCall
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MARKERS = ("fsmonitor", "extdiff", "driverdiff", "textconv", "clean", "pager", "hook")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def marker_script(bin_dir: Path, marks: Path, name: str, body: str = "") -> str:
    script = bin_dir / name
    script.write_text(f'#!/bin/sh\ntouch "{marks / name}"\n{body}\n')
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def rigged(tmp_path: Path) -> tuple[Path, Path]:
    """(repo, markers folder): a repo with one changed text file and one changed .bin file."""
    root, bin_dir, marks = tmp_path / "repo", tmp_path / "bin", tmp_path / "marks"
    for folder in (root, bin_dir, marks):
        folder.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "a.txt").write_text("one\n")
    (root / "b.bin").write_text("raw\n")
    (root / "c.dat").write_text("data\n")
    (root / ".gitattributes").write_text("*.bin diff=conv filter=scrub\n*.dat diff=ext\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    # Rig the repository's own config after the commit (the commit itself must not fire anything).
    config = {
        "core.fsmonitor": marker_script(bin_dir, marks, "fsmonitor", "exit 1"),
        "diff.external": marker_script(bin_dir, marks, "extdiff"),
        "diff.ext.command": marker_script(bin_dir, marks, "driverdiff"),
        "diff.conv.textconv": marker_script(bin_dir, marks, "textconv", 'cat "$1"'),
        "filter.scrub.clean": marker_script(bin_dir, marks, "clean", "cat"),
        "filter.scrub.required": "true",
        "core.pager": marker_script(bin_dir, marks, "pager", "cat"),
        "pager.status": marker_script(bin_dir, marks, "pager", "cat"),
    }
    for key, value in config.items():
        git(root, "config", key, value)
    hook = Path(marker_script(bin_dir, marks, "hook"))
    shutil.copy(hook, root / ".git" / "hooks" / "post-index-change")
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.bin").write_text("raw\nmore\n")
    (root / "c.dat").write_text("data\nmore\n")
    return root, marks


def session(root: Path, *, plan_mode: bool) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    return Session(project_root=root, provider=provider, plan_mode=plan_mode, persist=False)


async def bash(s: Session, command: str) -> str:
    result = (await run(s, command)).result
    assert not result.error, result.text
    return result.text


async def run(s: Session, command: str):
    return await s.run_tool_call(ModelToolCall("c1", "bash", {"command": command}))


COMMANDS = ("git status", "git diff", "git log -p -1", "git show --stat HEAD", "git blame b.bin")


def fired(marks: Path) -> set[str]:
    return {p.name for p in marks.iterdir()}


async def test_execute_mode_git_runs_the_configured_programs(rigged: tuple[Path, Path]) -> None:
    root, marks = rigged
    s = session(root, plan_mode=False)
    # (b.bin stays out of the diff here: its required filter has no smudge, which stops git diff)
    for command in ("git status", "git diff -- a.txt c.dat", "git blame b.bin"):
        await run(s, command)
    # the rig is real: without the plan-mode environment git starts the repository's programs
    assert {"fsmonitor", "extdiff", "driverdiff", "textconv", "clean", "hook"} <= fired(marks)


async def test_plan_mode_git_runs_none_of_them(rigged: tuple[Path, Path]) -> None:
    root, marks = rigged
    s = session(root, plan_mode=True)
    out = {command: await bash(s, command) for command in COMMANDS}
    assert fired(marks) == set()
    assert not (root / ".git" / "index.lock").exists()
    # and git still answers: plain text diffs, the status of all three files
    status = out["git status"]
    assert all(name in status for name in ("a.txt", "b.bin", "c.dat"))
    assert "+two" in out["git diff"] and "+more" in out["git diff"]
    assert "b.bin" in out["git show --stat HEAD"]
    assert "raw" in out["git blame b.bin"]
    combined = await bash(s, "git --no-pager diff --stat && git reflog -p -1; git stash list")
    assert "a.txt" in combined
    assert fired(marks) == set()


async def test_plan_env_drops_every_inherited_git_variable(tmp_path: Path) -> None:
    base = {
        "PATH": "/usr/bin:/bin",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": "/bin/true",
        "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='/bin/true'",
        "GIT_EXTERNAL_DIFF": "/bin/true",
        "GIT_TRACE": str(tmp_path / "trace"),  # would write a file
        "GIT_DIR": "/elsewhere",
        "SSH_ASKPASS": "/bin/true",
    }
    env = await git_env.plan_env(tmp_path, base)
    count = int(env["GIT_CONFIG_COUNT"])
    pairs = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"]) for i in range(count)]
    assert pairs == list(git_env.PLAN_CONFIG)  # no filter drivers in a folder that is no repository
    for name in ("GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_TRACE", "GIT_DIR", "SSH_ASKPASS"):
        assert name not in env
    assert env["GIT_OPTIONAL_LOCKS"] == "0" and env["GIT_PAGER"] == "cat"
    assert env["GIT_CONFIG_GLOBAL"] == env["GIT_CONFIG_SYSTEM"] == "/dev/null"
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["PATH"] == "/usr/bin:/bin"


async def test_filter_drivers_come_from_the_repository_config_only(rigged: tuple[Path, Path]) -> None:
    root, _ = rigged
    included = root.parent / "extra.config"
    included.write_text('[filter "dotted.name"]\n\tsmudge = /bin/false\n')
    git(root, "config", "include.path", str(included))
    drivers = await git_env.repo_filter_drivers(root, {"PATH": "/usr/bin:/bin", "HOME": str(root.parent)})
    assert drivers == ["scrub", "dotted.name"]


async def test_plan_mode_git_does_not_climb_out_of_the_project(tmp_path: Path) -> None:
    """A project folder inside someone else's repository: plan-mode git must not read that repository."""
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    (outer / "outer-secret.txt").write_text("outer\n")
    git(outer, "add", ".")
    project = outer / "project"
    project.mkdir()
    s = session(project, plan_mode=True)
    result = (await s.run_tool_call(ModelToolCall("c1", "bash", {"command": "git ls-files"}))).result
    assert "outer-secret" not in result.text and "not a git repository" in result.text


async def test_a_repository_core_worktree_cannot_point_git_outside(rigged: tuple[Path, Path]) -> None:
    root, _ = rigged
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (outside / "a.txt").write_text("OUTSIDE TEXT\n")
    git(root, "config", "core.worktree", str(outside))
    s = session(root, plan_mode=True)
    result = (await s.run_tool_call(ModelToolCall("c1", "bash", {"command": "git diff -- a.txt"}))).result
    assert "OUTSIDE TEXT" not in result.text and "+two" in result.text
