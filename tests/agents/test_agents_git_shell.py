"""An ACP agent runs the git it is allowed in plan mode itself, so the repository's programs would run.

planview's own plan-mode bash runs read-only git with the repository's programs switched off
(planview.gate.git_env). An ACP agent asks permission (`kind: "execute"`) and then runs the command
in its own shell, with its own environment, which planview cannot change. Before: the gate allowed
`git diff` there, and a repository whose config names `diff.external` (or a pager, fsmonitor, a
textconv or filter driver, a hook...) ran that program in plan mode. Now such a request is refused
in a repository whose own config or hooks name a program, with the reason and the fix; a plain
repository keeps read-only git.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from test_agents_session import Recorder, make, run_turn

from planview.agents.permissions import agent_git_refusal
from planview.session import events as ev


def rig(project: Path, key: str, marker: Path) -> None:
    script = project.parent / "program.sh"
    script.write_text(f'#!/bin/sh\ntouch "{marker}"\ncat >/dev/null 2>&1\nexit 0\n')
    script.chmod(0o755)
    subprocess.run(["git", "config", key, str(script)], cwd=project, check=True)


async def test_the_agents_own_git_never_runs_the_repositorys_diff_program(
    project: Path, agent_log: Any
) -> None:
    marker = project.parent / "ran"
    rig(project, "diff.external", marker)
    (project / "README.md").write_text("# sample project\nchanged\n")
    rec = Recorder()
    session = make(project, "git-shell", rec, plan_mode=True)
    await run_turn(session)
    (record,) = agent_log.find(event="git-shell")
    assert record["ran"] is False and not marker.exists(), "the repository's diff.external ran in plan mode"
    refused = [e for e in rec.of(ev.ToolFinished) if e.refused]
    assert refused and "diff.external" in refused[0].reason and "read" in refused[0].reason


async def test_a_plain_repository_keeps_read_only_git(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "git-shell", rec, plan_mode=True)
    await run_turn(session)
    (record,) = agent_log.find(event="git-shell")
    assert record["ran"] is True


def test_each_kind_of_program_is_named(project: Path) -> None:
    assert agent_git_refusal(project) is None
    for key in ("core.pager", "core.fsmonitor", "diff.drv.textconv", "filter.f.clean", "core.hooksPath"):
        subprocess.run(["git", "config", key, "x"], cwd=project, check=True)
        assert key.split(".")[-1].lower() in (agent_git_refusal(project) or "").lower(), key
        subprocess.run(["git", "config", "--unset", key], cwd=project, check=True)
    assert agent_git_refusal(project) is None
    hook = project / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch ran\n")
    hook.chmod(0o755)
    assert "post-index-change" in (agent_git_refusal(project) or "")
    os.chmod(hook, 0o644)  # not executable: git does not run it
    assert agent_git_refusal(project) is None
