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


def config(project: Path, key: str, value: str | None) -> None:
    args = ["config", key, value] if value is not None else ["config", "--unset", key]
    subprocess.run(["git", *args], cwd=project, check=True)


READ_ONLY_GIT_RUNS = [
    ("core.pager", "less -R"),
    ("pager.log", "x"),
    ("core.fsmonitor", "x"),
    ("diff.external", "x"),
    ("diff.drv.command", "x"),
    ("diff.drv.textconv", "x"),
    ("filter.f.clean", "x"),
    ("filter.f.process", "x"),
    ("merge.drv.driver", "x"),
    ("gpg.program", "x"),
    ("gpg.ssh.program", "x"),
    ("log.showSignature", "true"),
    ("format.pretty", "format:%h %G?"),
    ("pretty.sig", "%GS"),
    ("pretty.quiet", "%h %-G?"),  # a modifier between % and G: gpg all the same
    ("core.worktree", "/elsewhere"),
    ("diff.submodule", "diff"),
    ("submodule.recurse", "true"),
    ("status.submoduleSummary", "true"),
]
# Programs no read-only command starts: a repository naming them keeps the agent's read-only git.
NOT_RUN = [
    ("core.editor", "vim"),
    ("sequence.editor", "x"),
    ("credential.helper", "store"),
    ("core.sshCommand", "ssh -i key"),
    ("format.pretty", "format:%h %s"),
    ("pretty.literal", "%h %%G?"),  # a literal %G?, no placeholder
    ("diff.submodule", "log"),
    ("submodule.recurse", "false"),
    ("log.showSignature", "false"),
]


def test_each_program_a_read_only_command_starts_is_named(project: Path) -> None:
    assert agent_git_refusal(project) is None
    for key, value in READ_ONLY_GIT_RUNS:
        config(project, key, value)
        assert key.lower() in (agent_git_refusal(project) or "").lower(), key
        config(project, key, None)
    for key, value in NOT_RUN:
        config(project, key, value)
        assert agent_git_refusal(project) is None, key
        config(project, key, None)


def test_only_the_hook_a_read_only_command_runs_counts(project: Path) -> None:
    """post-index-change runs when git status refreshes the index; commit and push hooks (the
    pre-commit framework, husky) never run for a read-only command, so they do not count."""
    hooks = project / ".git" / "hooks"
    for name in ("pre-commit", "commit-msg", "pre-push", "post-checkout"):
        (hooks / name).write_text("#!/bin/sh\nexit 0\n")
        (hooks / name).chmod(0o755)
    assert agent_git_refusal(project) is None
    hook = hooks / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch ran\n")
    hook.chmod(0o755)
    assert "post-index-change" in (agent_git_refusal(project) or "")
    os.chmod(hook, 0o644)  # not executable: git does not run it
    assert agent_git_refusal(project) is None
    husky = project / ".husky" / "_"
    husky.mkdir(parents=True)
    (husky / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (husky / "pre-commit").chmod(0o755)
    config(project, "core.hooksPath", ".husky/_")  # relative to the work tree, as git reads it
    assert agent_git_refusal(project) is None
    (husky / "post-index-change").write_text("#!/bin/sh\nexit 0\n")
    (husky / "post-index-change").chmod(0o755)
    assert "post-index-change" in (agent_git_refusal(project) or "")


async def test_a_refused_permissions_reason_reaches_the_agent_with_its_next_prompt(
    project: Path, agent_log: Any
) -> None:
    """Issue 24: an ACP permission answer carries no reason, and opencode ends its turn at the first
    refusal, so the model never heard why. The next prompt now starts with planview's reason."""
    rig(project, "diff.external", project.parent / "ran")
    rec = Recorder()
    session = make(project, "git-shell", rec, plan_mode=True)
    await run_turn(session)
    await run_turn(session, "what now?")
    first, second = [r["text"] for r in agent_log.find(method="session/prompt")][:2]
    assert "planview refused" not in first
    told = second[: second.index("[planview plan mode]")]
    assert "planview refused these requests" in told and "diff.external" in told and "git diff" in told
    assert second.rstrip().endswith("what now?")
