"""Hostile repositories, with the kernel sandbox as the only line: the lists and the plan environment
are left out on purpose, so the programs a repository's config names really run.

Config-named programs (core.pager, diff.external, core.fsmonitor, a textconv and a clean filter) all
point at the probe (tests/sandbox/probe.py), which tries to write inside and outside the project,
chmod a project file, read HOME, connect to loopback TCP, send UDP, connect to a unix socket outside
the project and signal a process outside. They are reached through the option spellings git accepts
(--paginate / -p / none on a terminal, --ext-diff, --textconv, grep's -O / --open-files-in-pager
/ its abbreviation --open-f, status, add). Layouts that point outside (a
git directory, a common directory, alternates, include.path, links inside .git) must print nothing
of the outside. Each case runs once with the sandbox and once without: without it the same case
reaches the outside, so these tests fail when the sandbox is switched off.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from planview.sandbox import launch
from tests.sandbox.conftest import SECRET, Targets, needs_landlock
from tests.sandbox.probe import PYTHON, write_probe

TOKEN = "OUTSIDE-REPO-TOKEN-55ab"


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> None:
    base = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", *args], cwd=root, env={**base, **(env or {})}, check=True, capture_output=True)


def _rig_programs(targets: Targets) -> str:
    """Every config key that names a program points at the probe; returns the probe command."""
    root = targets.project
    script, conf = write_probe(root / ".git", targets.config)
    program = f"{PYTHON} -I {script} {conf}"
    (root / "notes.txt").write_text("one\n")
    (root / ".gitattributes").write_text("*.txt diff=evil filter=evil\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "notes")
    for key, value in (
        ("core.pager", program),
        ("diff.external", program),
        ("core.fsmonitor", program),
        ("diff.evil.textconv", program),
        ("filter.evil.clean", program),
    ):
        _git(root, "config", key, value)
    (root / "notes.txt").write_text("one\ntwo\n")
    return program


# git words that start a program the config names, in the spellings git accepts
PROBE = "{probe}"  # replaced by the probe's command line
PROGRAM_SPELLINGS = [
    ["--paginate", "log", "-1"],
    ["-p", "log", "-1"],
    ["log", "-1"],  # core.pager on a terminal
    ["diff"],
    ["diff", "--ext-diff"],
    ["log", "-p", "-1", "--ext-diff"],
    ["diff", "--textconv", "--no-ext-diff"],
    ["show", "--textconv", "--no-ext-diff", "HEAD"],
    ["grep", f"-O{PROBE}", "one"],
    ["grep", f"--open-files-in-pager={PROBE}", "one"],
    ["grep", f"--open-f={PROBE}", "one"],
    ["status"],
    ["add", "--dry-run", "notes.txt"],
]


def _run_git(
    targets: Targets, words: list[str], confined: bool, program: str = ""
) -> subprocess.CompletedProcess:
    """git run as a planner's shell would, on a terminal (a pager starts only there)."""
    import pty

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull, PAGER="", TERM="xterm")
    argv = ["git", *(word.replace(PROBE, program) for word in words)]
    command = launch.wrap(argv, targets.project) if confined else argv
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            command,
            cwd=targets.project,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    return subprocess.CompletedProcess(command, done.returncode, out, done.stderr.decode("utf-8", "replace"))


@pytest.mark.parametrize("words", PROGRAM_SPELLINGS, ids=[" ".join(w) for w in PROGRAM_SPELLINGS])
def test_a_config_named_program_that_runs_achieves_nothing(targets: Targets, words: list[str]):
    needs_landlock()
    program = _rig_programs(targets)
    done = _run_git(targets, words, confined=True, program=program)
    time.sleep(0.3)
    assert targets.happened() == set(), (words, done.stdout[-500:], done.stderr[-500:])
    assert SECRET not in done.stdout + done.stderr


@pytest.mark.parametrize("words", PROGRAM_SPELLINGS, ids=[" ".join(w) for w in PROGRAM_SPELLINGS])
def test_each_spelling_really_runs_the_program_without_the_sandbox(targets: Targets, words: list[str]):
    """The twin of the test above: unconfined, every spelling starts the probe, which then reaches
    the outside (so the test above fails when the sandbox is switched off)."""
    needs_landlock()
    program = _rig_programs(targets)
    done = _run_git(targets, words, confined=False, program=program)
    time.sleep(0.5)
    assert "write_outside" in targets.happened(), (words, done.stdout[-500:], done.stderr[-500:])


def test_the_programs_really_run_and_reach_everything_without_the_sandbox(targets: Targets):
    needs_landlock()
    _rig_programs(targets)
    confined = _run_git(targets, ["diff", "--ext-diff"], confined=True)
    assert "PROBE " in confined.stdout, confined.stderr  # it ran inside, and reported its failures
    assert '"write_outside": "ok"' not in confined.stdout
    done = _run_git(targets, ["diff", "--ext-diff"], confined=False)
    time.sleep(0.5)
    assert "write_outside" in targets.happened() and "tcp_connect" in targets.happened(), done.stdout
    assert SECRET in done.stdout


def _outside_repo(tmp: Path) -> Path:
    other = tmp / "other-repo"
    other.mkdir()
    _git(other, "init", "-q", "-b", "main")
    _git(other, "config", "user.email", "o@example.com")
    _git(other, "config", "user.name", "o")
    (other / "secret.txt").write_text(TOKEN + "\n")
    _git(other, "add", ".")
    _git(other, "commit", "-qm", f"secret commit {TOKEN}")
    return other


def _layout(kind: str, project: Path, tmp: Path) -> list[list[str]]:
    """Rig `project` so git would read outside it; the git commands that would print it."""
    other = _outside_repo(tmp)
    if kind == "gitdir":  # .git is a file naming another repository's git directory
        import shutil

        shutil.rmtree(project / ".git")
        (project / ".git").write_text(f"gitdir: {other / '.git'}\n")
        return [
            ["log", "--oneline", "-3"],
            ["show", "HEAD:secret.txt"],
            ["cat-file", "--batch-all-objects", "--batch-check"],
        ]
    if kind == "commondir":  # a worktree-shaped git dir whose common dir is another repository
        (project / ".git" / "commondir").write_text(str(other / ".git") + "\n")
        return [["log", "--all", "--oneline"], ["show", "main:secret.txt"]]
    if kind == "alternates":
        (project / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (project / ".git" / "objects" / "info" / "alternates").write_text(
            str(other / ".git" / "objects") + "\n"
        )
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=other, capture_output=True, text=True, check=True
        ).stdout.strip()
        return [["show", head], ["cat-file", "--batch-all-objects", "--batch"]]
    if kind == "include":
        cfg = tmp / "outside.cfg"
        cfg.write_text(f"[user]\n\tname = {TOKEN}\n")
        _git(project, "config", "include.path", str(cfg))
        return [["config", "--get", "user.name"], ["config", "--list"], ["log", "-1", "--format=%an"]]
    if kind == "links":  # links inside .git lead out: the config itself, and info/attributes
        outside_config = tmp / "outside-config"
        outside_config.write_text((project / ".git" / "config").read_text() + f"[user]\n\tname = {TOKEN}\n")
        (project / ".git" / "config").unlink()
        (project / ".git" / "config").symlink_to(outside_config)
        attributes = tmp / "outside-attributes"
        attributes.write_text(f"* tok={TOKEN}\n")
        info = project / ".git" / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").symlink_to(attributes)
        return [
            ["config", "--get", "user.name"],
            ["check-attr", "-a", "README.md"],
            ["log", "-1", "--format=%an"],
        ]
    raise AssertionError(kind)


LAYOUTS = ["gitdir", "commondir", "alternates", "include", "links"]


@pytest.mark.parametrize("kind", LAYOUTS)
def test_a_layout_pointing_outside_shows_nothing_of_the_outside(project: Path, tmp_path: Path, kind: str):
    needs_landlock()
    commands = _layout(kind, project, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
    confined, unconfined = "", ""
    for words in commands:
        argv = ["git", *words]
        run = {
            "cwd": project,
            "env": env,
            "capture_output": True,
            "text": True,
            "errors": "replace",
            "timeout": 60,
        }
        done = subprocess.run(launch.wrap(argv, project), **run)
        confined += done.stdout + done.stderr
        done = subprocess.run(argv, **run)
        unconfined += done.stdout + done.stderr
    assert TOKEN not in confined, confined[-1500:]
    assert TOKEN in unconfined, (
        f"the {kind} rig does not reach the outside without the sandbox: {unconfined[-800:]}"
    )


def test_a_linked_worktree_reads_its_own_repository_and_only_that(tmp_path: Path):
    """`git worktree add` keeps the repository outside the worktree: readable, because it names this
    worktree back; a `.git` file naming another repository's worktree entry gets nothing."""
    needs_landlock()
    main = _outside_repo(tmp_path)
    _git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
    run = {"env": env, "capture_output": True, "text": True, "timeout": 60}
    own = subprocess.run(
        launch.wrap(["git", "log", "--oneline", "-1"], tmp_path / "wt"), cwd=tmp_path / "wt", **run
    )
    assert own.returncode == 0 and "secret commit" in own.stdout, own.stderr
    thief = tmp_path / "thief"
    thief.mkdir()
    (thief / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    stolen = subprocess.run(launch.wrap(["git", "log", "--oneline", "-1"], thief), cwd=thief, **run)
    assert TOKEN not in stolen.stdout + stolen.stderr
    bare = subprocess.run(["git", "log", "--oneline", "-1"], cwd=thief, **run)
    assert TOKEN in bare.stdout, "the thief layout reads the other repository without the sandbox"
