"""Shared fixtures: a throwaway project, the real-plan corpus, stable UI settings."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus" / "plans"
SAMPLES = REPO / "plans"

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


def corpus_plans() -> list[Path]:
    """The real plans in ../shared/corpus/plans (read in place, never copied)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.glob("*.md") if p.name != "README.md")


@pytest.fixture
def corpus() -> list[Path]:
    plans = corpus_plans()
    if not plans:
        pytest.skip(f"plan corpus not present at {CORPUS} (../shared is absent outside the workplace)")
    return plans


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git repository with one commit; planview's state goes to <project>/.planview."""
    root = tmp_path / "project"
    root.mkdir()
    env = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    run = {"cwd": root, "check": True, "capture_output": True, "env": {**os.environ, **env}}
    subprocess.run(["git", "init", "-q", "-b", "main"], **run)
    subprocess.run(["git", "config", "user.name", "Ada Reviewer"], **run)
    subprocess.run(["git", "config", "user.email", "ada@example.com"], **run)
    (root / "README.md").write_text("# sample project\n")
    subprocess.run(["git", "add", "."], **run)
    subprocess.run(["git", "commit", "-q", "-m", "init"], **run)
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    monkeypatch.chdir(root)
    return root


@pytest.fixture(autouse=True)
def _not_inside_an_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite may be run from an agent's shell (Claude Code sets CLAUDECODE=1; planview marks its
    own tool processes): tests that approve must not inherit that, and tests that check it set it."""
    monkeypatch.delenv("CLAUDECODE", raising=False)
    monkeypatch.delenv("PLANVIEW_TOOL_PROCESS", raising=False)


@pytest.fixture
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process runs of the app whose `App.run` a test replaces: pretend stdin and stderr are a
    terminal, so `require_terminal` lets them through (the real refusal is tested in a subprocess)."""
    from planview.commands import review

    monkeypatch.setattr(review, "_is_tty", lambda stream: True)
